"""The real ``dse`` console script, run as a user would (subprocess)."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import dse

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = ROOT / "scenarios"
SHARED = Path(__file__).resolve().parents[2] / "shared"
LLM_JSONL = SHARED / "validation" / "llm.jsonl"
DSE = Path(sys.executable).parent / "dse"

REQUIRED_KEYS = (
    "iteration_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "samples_per_s", "model_tflops_per_gpu",
    "hardware_tflops_per_gpu", "mfu", "hfu", "memory_per_gpu_bytes", "feasible", "infeasible_reason",
    "exposed_comm_s", "breakdown", "name", "gpu", "model", "num_gpus", "parallel",
)
TIME_KEYS = ("compute", "bubble", "exposed_tp", "exposed_ep", "exposed_cp", "exposed_fsdp", "exposed_pp",
             "exposed_dp", "overlapped_tp", "overlapped_ep", "overlapped_cp", "overlapped_fsdp", "overlapped_dp")
MEMORY_KEYS = ("weights", "grads", "optimizer", "activations", "logits", "buffers", "reserved")


def run(*args, cwd=ROOT):
    if not DSE.exists():
        pytest.fail(f"console script {DSE} not found: install the package (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS", "TTY_COMPATIBLE")}
    env.update(NO_COLOR="1", TERM="dumb")
    return subprocess.run([str(DSE), *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=120)


def assert_clean_failure(result, *needles):
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    for needle in needles:
        assert needle in result.stderr, (needle, result.stderr)


def walk_numbers(obj, path=""):
    """Every number (not bool) in a JSON value, with its path."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from walk_numbers(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from walk_numbers(v, f"{path}[{i}]")
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield path, obj


# ---------------------------------------------------------------------------- evaluate
def test_evaluate_json_has_every_key_with_finite_numbers():
    result = run("evaluate", "scenarios/llama2_70b_h100.yaml", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    for key in REQUIRED_KEYS:
        assert key in data, key
    for key in REQUIRED_KEYS:
        if key not in ("feasible", "infeasible_reason", "breakdown", "name", "gpu", "model", "parallel"):
            assert isinstance(data[key], (int, float)) and math.isfinite(data[key]), key
    assert data["feasible"] is True and data["infeasible_reason"] is None
    assert set(TIME_KEYS) <= set(data["breakdown"]["time_s"])
    assert set(MEMORY_KEYS) == set(data["breakdown"]["memory_bytes"])
    for path, value in walk_numbers(data):
        assert math.isfinite(value), path
    assert data["gpu"] == "H100-SXM-80GB" and data["num_gpus"] == 64 and data["model"] == "Llama-2-70B"
    plan = data["parallel"]
    assert (plan["tp"], plan["pp"], plan["dp"], plan["vpp"], plan["zero"]) == (4, 4, 4, 5, 1)
    assert plan["sp"] is True and plan["recompute"] == "none"
    # the breakdowns add up
    mem = sum(data["breakdown"]["memory_bytes"].values())
    assert mem == pytest.approx(data["memory_per_gpu_bytes"], rel=1e-9)
    times = data["breakdown"]["time_s"]
    exposed = sum(times[f"exposed_{k}"] for k in ("tp", "ep", "cp", "fsdp", "pp", "dp"))
    assert exposed == pytest.approx(data["exposed_comm_s"], rel=1e-9)
    parts = times["compute"] + times["bubble"] + exposed + times["overlap_slowdown"]
    assert parts == pytest.approx(data["iteration_time_s"], rel=1e-9)


@pytest.mark.parametrize("name", ["llama2_70b_h100", "gpt3_175b_a100", "mixtral_8x7b_h100", "codesign_nvl72",
                                  "vit_g14_a100", "llama3_70b_disaggregated_h100"])
def test_shipped_scenarios_are_feasible(name):
    result = run("evaluate", SCENARIOS / f"{name}.yaml", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["feasible"] is True, data["infeasible_reason"]
    assert data["tokens_per_s"] > 0 and 0 < data["mfu"] < 1


def test_shipped_dlrm_scenario_is_feasible_and_is_the_madmax_comparisons():
    result = run("evaluate", SCENARIOS / "dlrm_a_zionex128.yaml", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["feasible"] is True, data["infeasible_reason"]
    assert data["samples_per_s"] > 0 and data["num_gpus"] == 128
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import calibrate_dlrm
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert calibrate_dlrm.MADMAX_SCENARIO_FILE == SCENARIOS / "dlrm_a_zionex128.yaml"


def test_evaluate_readable_output():
    result = run("evaluate", "scenarios/llama2_70b_h100.yaml")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for needle in ("tokens/s", "MFU", "Memory per GPU", "HBM capacity", "bubble", "exposed tp", "feasible",
                   "H100-SXM-80GB"):
        assert needle in out, needle
    assert "\x1b[" not in out  # no colour codes into a pipe


def test_evaluate_a_line_of_a_jsonl_file(tmp_path):
    line = {"id": "one", "model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
            "parallel": {"tp": 1, "dp": 8, "microbatch": 1, "global_batch": 64},
            "target": {"metric": "mfu", "value": 0.5}}
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps({**line, "id": "zero"}) + "\n" + json.dumps(line) + "\n")
    result = run("evaluate", f"{path}:one", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["name"] == "one"
    ambiguous = run("evaluate", path)
    assert_clean_failure(ambiguous, str(path), "zero", "one")


def test_a_case_saved_alone_as_json_gets_its_sources_software_facts(tmp_path):
    """A validation line saved as its own .json file is scored as FILE.jsonl:ID scores it: with the
    software facts of its source (here torchtitan's fp32 cross-entropy and whole-stage FSDP)."""
    cases = ROOT / "validation" / "torchtitan_llama3.jsonl"
    line = next(ln for ln in cases.read_text().splitlines() if "t5_405b_512g_1f1b_mem" in ln)
    alone = tmp_path / "case.json"
    alone.write_text(line)
    a, b = (json.loads(run("evaluate", arg, "--json").stdout)
            for arg in (alone, f"{cases}:torchtitan2412_t5_405b_512g_1f1b_mem"))
    assert a["memory_per_gpu_bytes"] == b["memory_per_gpu_bytes"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps({k: v for k, v in json.loads(line).items() if k not in ("source", "target")}))
    assert json.loads(run("evaluate", plain, "--json").stdout)["memory_per_gpu_bytes"] < a["memory_per_gpu_bytes"]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


GOOD = "model: llama2-7b\ncluster: {gpu: H100-SXM-80GB, num_gpus: 8}\nparallel: {tp: 2, dp: 4, global_batch: 32}\n"


def test_evaluate_missing_file(tmp_path):
    missing = tmp_path / "no_such_scenario.yaml"
    assert_clean_failure(run("evaluate", missing), "no_such_scenario.yaml", "cannot read")


def test_a_serving_file_without_its_inference_block_names_the_file(tmp_path):
    path = write(tmp_path, "serve.yaml", "workload: inference\nprecision: fp8\nmodel: llama3-70b\n"
                 "cluster: {gpu: H100-SXM-80GB, num_gpus: 8}\nparallel: {tp: 8}\n")
    assert_clean_failure(run("evaluate", path), "serve.yaml", "inference", "needs an inference block")


def test_evaluate_plot_or_trace_into_a_file_names_the_option(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    scenario = SCENARIOS / "llama2_70b_h100.yaml"
    assert_clean_failure(run("evaluate", scenario, "--plot", blocker), "--plot", "afile", "cannot write")
    assert_clean_failure(run("evaluate", scenario, "--trace", blocker / "t.json"), "--trace", "cannot write")
    both = run("evaluate", scenario, "--trace", blocker / "t.json", "--plot", tmp_path / "plots")
    assert_clean_failure(both, "--trace", "cannot write")  # the trace's fault, not the plot's
    assert "--plot" not in both.stderr


def test_evaluate_unknown_key(tmp_path):
    path = write(tmp_path, "unknown_key.yaml", GOOD.replace("num_gpus: 8", "num_gpus: 8, foo: 1"))
    assert_clean_failure(run("evaluate", path), "unknown_key.yaml", "cluster.foo", "allowed keys")


def test_evaluate_unknown_top_level_key(tmp_path):
    path = write(tmp_path, "top.yaml", GOOD + "paralel: {tp: 2}\n")
    assert_clean_failure(run("evaluate", path), "top.yaml", "paralel", "allowed keys")


def test_evaluate_bad_yaml(tmp_path):
    path = write(tmp_path, "broken.yaml", "model: [llama2-7b\ncluster: {gpu: H100\n")
    assert_clean_failure(run("evaluate", path), "broken.yaml", "cannot parse")


@pytest.mark.parametrize("name, text", [
    ("dup.yaml", GOOD + "cluster: {gpu: H100, num_gpus: 16}\n"),
    ("nested.yaml", GOOD.replace("num_gpus: 8", "num_gpus: 8, num_gpus: 16")),
    ("dup.json", '{"model": "llama2-7b", "model": "llama2-13b"}'),
])
def test_a_key_given_twice_is_an_error_not_the_last_one_silently(tmp_path, name, text):
    path = write(tmp_path, name, text)
    assert_clean_failure(run("evaluate", path), name, "given twice")


def test_evaluate_string_number(tmp_path):
    path = write(tmp_path, "string_number.yaml", GOOD.replace("num_gpus: 8", 'num_gpus: "8"'))
    assert_clean_failure(run("evaluate", path), "string_number.yaml", "cluster.num_gpus", "'8'")


def test_evaluate_unknown_gpu(tmp_path):
    path = write(tmp_path, "unknown_gpu.yaml", GOOD.replace("H100-SXM-80GB", "Z100"))
    assert_clean_failure(run("evaluate", path), "unknown_gpu.yaml", "cluster.gpu", "Z100", "A100-SXM-80GB")


def test_evaluate_unknown_model_preset(tmp_path):
    path = write(tmp_path, "unknown_model.yaml", GOOD.replace("llama2-7b", "llama9-1t"))
    assert_clean_failure(run("evaluate", path), "unknown_model.yaml", "model", "llama9-1t", "llama2-70b")


def test_evaluate_precision_the_gpu_lacks(tmp_path):
    path = write(tmp_path, "fp8_a100.yaml", GOOD.replace("H100-SXM-80GB", "A100-SXM-80GB") + "precision: fp8\n")
    assert_clean_failure(run("evaluate", path), "fp8_a100.yaml", "precision", "fp8", "bf16")


def test_evaluate_negative_degree(tmp_path):
    path = write(tmp_path, "neg.yaml", GOOD.replace("tp: 2", "tp: -2"))
    assert_clean_failure(run("evaluate", path), "neg.yaml", "parallel.tp")


def test_usage_error_exits_2():
    result = run("evaluate")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr


def test_version():
    result = run("--version")
    assert result.returncode == 0
    assert dse.__version__ in result.stdout


# ---------------------------------------------------------------------------- validate
@pytest.fixture()
def tiny_jsonl(tmp_path):
    if not LLM_JSONL.exists():
        pytest.skip(f"{LLM_JSONL} not found: the shared/ folder beside the repo holds the validation cases")
    lines = [line for line in LLM_JSONL.read_text().splitlines() if line.strip()]
    train = next(line for line in lines if json.loads(line)["workload"] == "train")
    # a figure the model does not predict for that kind of run (a training run's time to first
    # token): listed as skipped, never dropped
    unmodelled = {**json.loads(train), "id": "train-ttft", "source": "another source",
                  "target": {"metric": "ttft_ms", "value": 100.0}}
    path = tmp_path / "tiny.jsonl"
    path.write_text(train + "\n" + json.dumps(unmodelled) + "\n")
    return path, json.loads(train)["id"], unmodelled["id"]


def test_validate_prints_both_cases_and_skips_inference(tiny_jsonl):
    path, train_id, infer_id = tiny_jsonl
    result = run("validate", path)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert train_id in out and infer_id in out
    assert "skipped" in out and "ttft_ms" in out
    assert "MAPE" in out and "overall" in out


def test_validate_wide_prints_sources_whole():
    """Two sources that differ only after 72 characters (the two GPT-OSS tables of one page) are
    told apart with --wide; without it they are cut to the same text."""
    path = ROOT / "validation" / "trtllm_windowed.jsonl"
    cut = " ".join(run("validate", path).stdout.split())
    whole = " ".join(run("validate", path, "--wide").stdout.split())
    assert "table 'GPT-OSS 120B'" not in cut
    assert "table 'GPT-OSS 120B'" in whole and "table 'GPT-OSS 20B'" in whole


def test_validate_json(tiny_jsonl):
    path, train_id, infer_id = tiny_jsonl
    result = run("validate", path, "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert set(data) == {"cases", "summary"}
    cases = {c["id"]: c for c in data["cases"]}
    assert set(cases) == {train_id, infer_id}
    for c in cases.values():
        for key in ("id", "source", "metric", "measured", "predicted", "error", "status", "reason"):
            assert key in c
    assert cases[infer_id]["status"] == "skipped" and cases[infer_id]["error"] is None
    assert "ttft_ms" in cases[infer_id]["reason"]
    train = cases[train_id]
    assert train["status"] == "ok"
    assert train["error"] == pytest.approx((train["predicted"] - train["measured"]) / train["measured"])
    overall = data["summary"]["overall"]
    assert overall["count"] == 2 and overall["evaluated"] == 1 and overall["skipped"] == 1
    assert overall["mape_pct"] == pytest.approx(100 * abs(train["error"]))


def test_validate_source_filter(tiny_jsonl):
    path, train_id, _ = tiny_jsonl
    source = json.loads(path.read_text().splitlines()[0])["source"]
    data = json.loads(run("validate", path, "--json", "--source", source[:12].upper()).stdout)
    assert [c["id"] for c in data["cases"]] == [train_id]


def test_validate_missing_file(tmp_path):
    assert_clean_failure(run("validate", tmp_path / "nope.jsonl"), "nope.jsonl", "cannot read")


def test_validate_bad_json_line(tmp_path):
    path = write(tmp_path, "bad.jsonl", '{"id": "a"}\n{not json\n')
    assert_clean_failure(run("validate", path), "bad.jsonl", "line 2")


def test_validate_invalid_case_is_reported_and_exits_2(tmp_path):
    case = {"id": "broken", "source": "s", "workload": "train", "model": "llama2-7b",
            "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8, "foo": 1},
            "parallel": {"tp": 1, "dp": 8, "global_batch": 8}, "target": {"metric": "mfu", "value": 0.4}}
    path = write(tmp_path, "cases.jsonl", json.dumps(case) + "\n")
    result = run("validate", path, "--json")
    assert_clean_failure(result, "cases.jsonl:1", "cluster.foo")
    data = json.loads(result.stdout)  # the report is still printed
    assert data["cases"][0]["status"] == "error"


def test_evaluate_infeasible_plan_is_a_result_not_an_error(tmp_path):
    path = write(tmp_path, "oom.yaml", "model: gpt-175b\nprecision: fp16\ncluster: {gpu: A100-SXM-80GB, num_gpus: 8}\n"
                 "parallel: {tp: 8, dp: 1, global_batch: 8}\n")
    result = run("evaluate", path)
    assert result.returncode == 0, result.stderr
    assert "INFEASIBLE" in result.stdout and "out of memory" in result.stdout
    data = json.loads(run("evaluate", path, "--json").stdout)
    assert data["feasible"] is False and "out of memory" in data["infeasible_reason"]


def test_search_help_shows_every_default():
    """Rich reads "[...]" in help text as markup and drops it: the defaults are in parentheses."""
    result = run("search", "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.replace("│", " ").split())
    for default in ("(default: results/<study>)", "(default: the space's name)", "(default: the space's)"):
        assert default in text, default


def test_evaluate_given_a_search_space_says_to_search_it():
    result = run("evaluate", ROOT / "search_spaces" / "quickstart.yaml")
    assert_clean_failure(result, "quickstart.yaml", "search space", "dse search")
    assert "problems" not in result.stderr


def test_validate_with_nothing_to_check_says_so(tiny_jsonl, tmp_path):
    path, _, _ = tiny_jsonl
    assert_clean_failure(run("validate", path, "--source", "no such source"), "no case whose source contains")
    empty = write(tmp_path, "empty.jsonl", "\n")
    assert_clean_failure(run("validate", empty), "empty.jsonl", "no validation case")
