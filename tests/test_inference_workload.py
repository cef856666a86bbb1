"""LLM serving through the public entry points: dse.evaluate (kind llm_inference), dse validate
and dse evaluate on the command line."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel import training as tr
from dse.validate import validate_cases
from dse.workloads import evaluator, supported
from dse.workloads import inference as wl

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(__file__).resolve().parents[2] / "shared"
LLM_JSONL = SHARED / "validation" / "llm.jsonl"
DSE = Path(sys.executable).parent / "dse"


def serving(name="serve", model="llama3.1-8b", gpu="H100-SXM-80GB", precision="fp8", tp=1, num_gpus=None,
            input_len=128, output_len=128, **inference):
    return {"name": name, "workload": "inference", "precision": precision, "model": model,
            "cluster": {"gpu": gpu, "num_gpus": num_gpus or tp}, "parallel": {"tp": tp},
            "inference": {"input_len": input_len, "output_len": output_len, **inference}}


def trtllm_case(**changes):
    """A TensorRT-LLM offline-throughput case in the validation-file schema."""
    case = {
        "id": "trt-8b", "source": "TensorRT-LLM perf-overview.md (v0.17) Throughput Measurements table",
        "reliability": "A", "workload": "inference", "precision": "fp8",
        "model": {"name": "Llama 3.1 8B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32,
                  "kv_heads": 8, "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu",
                  "vocab": 128000, "seq_len": 256, "moe": None},
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1, "gpus_per_node": 8},
        "parallel": {"tp": 1, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 0,
                     "recompute": "none", "microbatch": None, "global_batch": None},
        "inference": {"input_len": 128, "output_len": 128, "batch": None, "concurrency": None,
                      "mode": "offline_max_throughput"},
        "target": {"metric": "tokens_per_s", "value": 28836.77}, "also": {}, "inferred": [], "notes": "",
    }
    for key, value in changes.items():
        case[key] = {**case[key], **value} if isinstance(value, dict) and isinstance(case.get(key), dict) else value
    return case


def run(*args, cwd=ROOT):
    if not DSE.exists():
        pytest.fail(f"console script {DSE} not found: install the package (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS", "TTY_COMPATIBLE")}
    env.update(NO_COLOR="1", TERM="dumb", COLUMNS="200")
    return subprocess.run([str(DSE), *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=120)


# ---------------------------------------------------------------------------- registry, columns
def test_llm_inference_is_registered():
    assert supported("llm_inference")
    assert evaluator("llm_inference") is wl.evaluate


@pytest.mark.parametrize("precision, weight, kv", [("fp8", 1.0, 1.0), ("bf16", 2.0, 2.0), ("fp16", 2.0, 2.0)])
def test_precision_sets_weight_and_kv_bytes(precision, weight, kv):
    gpu = "A100-SXM-80GB" if precision != "fp8" else "H100-SXM-80GB"
    cols = wl.inference_columns(dse.load_scenario(serving(precision=precision, gpu=gpu)))
    assert (cols["weight_bytes"], cols["kv_bytes"], cols["head_bytes"]) == (weight, kv, 2.0)
    assert cols["input_len"] == 128 and cols["output_len"] == 128 and cols["batch"] == 0


def test_fp4_keeps_an_fp8_kv_cache():
    # NVFP4: 16 four-bit values (8 bytes) share one FP8 block scale (1 byte) -> 9/16 byte a weight
    cols = wl.inference_columns(dse.load_scenario(serving(precision="fp4", gpu="B200-180GB")))
    assert (cols["weight_bytes"], cols["kv_bytes"]) == (0.5625, 1.0)


def test_family_calibration_reaches_the_columns():
    from dse.presets import calibration_table

    cal = calibration_table()["ampere"]
    cols = wl.inference_columns(dse.load_scenario(serving(gpu="A100-SXM-80GB", precision="bf16")))
    assert cols["infer_matmul"] == cal["infer_matmul"] and cols["infer_hbm"] == cal["infer_hbm"]
    assert cols["seq_overhead"] == pytest.approx(cal["infer_seq_us"] * 1e-6)
    assert cols["collective_overhead"] == pytest.approx(cal["infer_collective_us"] * 1e-6)


def test_a_gpus_own_serving_efficiency_beats_its_familys(monkeypatch):
    """gpus.yaml ``efficiency:`` holds what one GPU measures apart from its family; its serving keys
    (infer_*) reach the serving columns as its kernel keys reach the hardware."""
    from dse import presets

    base = presets.gpu_preset("GB200")
    own = {**base, "efficiency": {"infer_seq_us": 21.0, "infer_hbm": 0.5}}
    real = presets.gpu_preset
    monkeypatch.setattr(presets, "gpu_preset", lambda name: own if real(name)["name"] == "GB200" else real(name))
    cols = wl.inference_columns(dse.load_scenario(serving(gpu="GB200", precision="fp4")))
    assert cols["seq_overhead"] == pytest.approx(21e-6) and cols["infer_hbm"] == 0.5
    assert cols["collective_overhead"] == pytest.approx(
        presets.calibration_table()[base["family"]]["infer_collective_us"] * 1e-6)  # the family's where unstated


# ---------------------------------------------------------------------------- dse.evaluate
def test_evaluate_serving_scenarios_with_names_and_reasons():
    df = dse.evaluate([
        serving("ok", input_len=1000, output_len=1000),
        serving("fixed", batch=32),
        serving("too-big", model="llama3.1-70b", gpu="A100-SXM-80GB", precision="bf16"),
    ])
    assert list(df["name"]) == ["ok", "fixed", "too-big"]
    assert list(df["kind"]) == ["llm_inference"] * 3
    assert list(df["feasible"]) == [True, True, False]
    assert df["batch"].iat[1] == 32
    assert df["infeasible_reason"].iat[0] == "" and "out of memory" in df["infeasible_reason"].iat[2]
    assert df["infeasible_mask"].iat[2] & tr.OUT_OF_MEMORY
    for col in ("tokens_per_s", "tokens_per_s_per_gpu", "ttft_ms", "itl_ms", "requests_per_s",
                "iteration_time_s", "memory_per_gpu_bytes"):
        assert np.isfinite(df[col].to_numpy(float)).all() and (df[col] > 0).all(), col
    assert set(df["precision"]) == {"fp8", "bf16"} and df["gpu"].iat[2] == "A100-SXM-80GB"


def test_training_and_serving_in_one_call_keep_their_order():
    train = {"name": "train", "model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
             "parallel": {"tp": 1, "microbatch": 1, "global_batch": 64}}
    df = dse.evaluate([serving("a"), train, serving("b")])
    assert list(df["name"]) == ["a", "train", "b"]
    assert list(df["kind"]) == ["llm_inference", "llm_train", "llm_inference"]


def test_a_trtllm_case_evaluates_through_dse_evaluate():
    case = trtllm_case()
    if LLM_JSONL.exists():  # the real first inference case of the shared file
        case = next(json.loads(line) for line in LLM_JSONL.read_text().splitlines()
                    if line.strip() and json.loads(line).get("workload") == "inference")
    df = dse.evaluate(case)
    measured = case["target"]["value"]
    predicted = float(df[case["target"]["metric"]].iat[0])
    assert bool(df["feasible"].iat[0])
    assert abs(predicted / measured - 1) < 0.25


def test_validate_reports_inference_cases_ok_with_finite_predictions(tmp_path):
    path = tmp_path / "serving.jsonl"
    cases = [trtllm_case(id="trt-8b-128"),
             trtllm_case(id="trt-8b-2048", inference={"input_len": 2048, "output_len": 128},
                         target={"metric": "tokens_per_s", "value": 3556.73})]
    path.write_text("".join(json.dumps(c) + "\n" for c in cases))
    frame, summary = validate_cases([path])
    assert list(frame["status"]) == ["ok", "ok"]
    assert np.isfinite(frame["predicted"].to_numpy(float)).all()
    assert summary["overall"]["evaluated"] == 2 and summary["overall"]["mape_pct"] < 25

    result = run("validate", path, "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert [c["status"] for c in out["cases"]] == ["ok", "ok"]
    assert all(math.isfinite(c["predicted"]) and c["predicted"] > 0 for c in out["cases"])
    table = run("validate", path)
    assert table.returncode == 0 and "trt-8b-2048" in table.stdout and "not modelled" not in table.stdout


def test_cli_evaluate_prints_ttft_and_itl(tmp_path):
    scenario = tmp_path / "serve.yaml"
    scenario.write_text(
        "name: llama3-70b-serving\n"
        "workload: inference\n"
        "precision: fp8\n"
        "model: llama3.1-70b\n"
        "cluster: {gpu: H100-SXM-80GB, num_gpus: 4}\n"
        "parallel: {tp: 4}\n"
        "inference: {input_len: 1000, output_len: 1000}\n"
    )
    result = run("evaluate", scenario)
    assert result.returncode == 0, result.stderr
    assert "TTFT" in result.stdout and "ITL" in result.stdout and "kv_cache" in result.stdout
    assert "Traceback" not in result.stderr
    rec = json.loads(run("evaluate", scenario, "--json").stdout)
    assert rec["serving"]["itl_ms"] > 0 and rec["serving"]["ttft_ms"] > 0 and rec["serving"]["batch"] >= 1
    assert rec["tokens_per_s"] == pytest.approx(rec["serving"]["batch"] / rec["iteration_time_s"], rel=1e-9)
    assert rec["breakdown"]["memory_bytes"]["kv_cache"] > 0


# ------------------------------------------------------------------------ online: offered request rate
def online(rate, **changes):
    base = dict(model="llama3-70b", tp=4, num_gpus=8, input_len=1024, output_len=256)
    spec = serving(**{**base, **changes}, **({"request_rate": rate} if rate is not None else {}))
    spec["parallel"]["dp"] = 2
    return dse.evaluate(dse.load_scenario(spec), explain=True).iloc[0]


def test_an_offered_rate_is_served_at_the_batch_littles_law_gives():
    offline = online(None)
    for rate in (0.5, 5.0, 20.0):
        r = online(rate)
        assert r.feasible and r.requests_per_s == pytest.approx(rate, rel=1e-9)
        assert r.tokens_per_s == pytest.approx(rate * 256, rel=1e-9)
        assert r.batch <= offline.batch and r.itl_ms <= offline.itl_ms
        if r.batch > 1.001:  # B = (rate per replica) * O * ITL (below one sequence the engine idles)
            assert r.batch == pytest.approx(rate / 2 * 256 * r.iteration_time_s, rel=1e-4)


@settings(max_examples=20, deadline=None, derandomize=True)
@given(low=st.floats(0.05, 25.0), factor=st.floats(1.01, 3.0))
def test_more_offered_load_never_lowers_batch_or_latency(low, factor):
    a, b = online(low), online(low * factor)
    if b.feasible:
        assert b.batch >= a.batch * (1 - 1e-6)
        assert b.itl_ms >= a.itl_ms * (1 - 1e-6) and b.ttft_ms >= a.ttft_ms * (1 - 1e-6)


def test_a_rate_above_capacity_is_infeasible_with_the_capacity_in_the_reason():
    capacity = online(None).requests_per_s
    r = online(capacity * 1.5)
    assert not r.feasible and "exceeds what the plan serves" in r.infeasible_reason
    assert r.requests_per_s == pytest.approx(capacity, rel=1e-9)
    assert f"{capacity:.4g} req/s" in r.infeasible_reason


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "fast"])
def test_request_rate_must_be_a_positive_number(bad):
    spec = serving(request_rate=bad)
    with pytest.raises(dse.InputError, match="inference.request_rate"):
        dse.load_scenario(spec)


def test_a_fixed_batch_and_an_offered_rate_exclude_each_other():
    with pytest.raises(dse.InputError, match="exclude each other"):
        dse.load_scenario(serving(batch=8, request_rate=2.0))


def test_a_rate_driven_serving_space_needs_batch_auto(tmp_path):
    import yaml
    from dse.search.space import load_space

    path = ROOT / "search_spaces" / "llama3_70b_serving_rate_h100.yaml"
    data = yaml.safe_load(path.read_text())
    assert load_space(path).kind == "llm_inference"
    data["parallel"]["batch"] = [8, 64, "auto"]
    bad = tmp_path / "space.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(dse.InputError, match="parallel.batch"):
        load_space(bad)


def test_kv_cache_dtype_apart_from_the_weights():
    # Llama-3.1-8B: 32 layers x 8 KV heads x 128 x (K and V) = 65,536 elements per token
    def run(**inference):
        return dse.evaluate(dse.load_scenario(serving(precision="bf16", input_len=2048, output_len=512,
                                                      **inference)), explain=True).iloc[0]
    bf16, fp8 = run(), run(kv_cache_dtype="fp8")
    assert bf16.kv_bytes_per_token == 65_536 * 2 and fp8.kv_bytes_per_token == 65_536
    assert fp8.batch_max >= 1.9 * bf16.batch_max  # twice the sequences fit in the same memory
    assert fp8.tokens_per_s > bf16.tokens_per_s
    with pytest.raises(dse.InputError, match="kv_cache_dtype"):
        dse.load_scenario(serving(kv_cache_dtype="int4"))


def test_a_lone_request_prefills_its_own_prompt_in_one_iteration():
    # one client (concurrency 1), a 500-token prompt: the prompt goes in whole in one iteration
    # with the one sequence's decode, not in a full engine's 2048-token chunk of other prompts
    r = dse.evaluate(dse.load_scenario(serving(model="llama3.1-70b", tp=2, input_len=500, output_len=2000,
                                               concurrency=1, mode="online")), explain=True).iloc[0]
    assert r.ttft_ms / 1e3 == pytest.approx(r.prefill_time_s, rel=0.05)
    # a full engine (many prompts queued) fills the room the decodes leave: longer first tokens
    full = dse.evaluate(dse.load_scenario(serving(model="llama3.1-70b", tp=2, input_len=500, output_len=2000)),
                        explain=True).iloc[0]
    assert full.ttft_ms > r.ttft_ms


def test_first_tokens_wait_longer_with_more_clients():
    # 5,000-token prompts on Llama-3.3-70B TP2: prompts of other clients share each iteration's
    # prompt room (a processor-sharing queue), so the first token comes later as clients are added
    def ttft(conc):
        return dse.evaluate(dse.load_scenario(serving(model="llama3.1-70b", tp=2, input_len=5000, output_len=500,
                                                      concurrency=conc, mode="online")), explain=True).iloc[0].ttft_ms
    times = [ttft(c) for c in (1, 5, 25, 50)]
    assert times == sorted(times)
    assert times[-1] > 1.2 * times[0]


# ---------------------------------------------------------------------------- context window
def test_serving_beyond_the_models_context_window_is_infeasible_with_the_arithmetic():
    df = dse.evaluate([
        serving("at", model="llama2-7b", precision="bf16", input_len=3072, output_len=1024),
        serving("over", model="llama2-7b", precision="bf16", input_len=3072, output_len=1025),
        serving("longer", model={"preset": "llama2-7b", "context_len": 8192}, precision="bf16",
                input_len=3072, output_len=1025),
        serving("unchecked", model={"preset": "llama2-7b", "context_len": None}, precision="bf16",
                input_len=8192, output_len=1024),
    ])
    assert list(df["feasible"]) == [True, False, True, True]
    assert df["infeasible_mask"].iat[1] == wl.inf.CONTEXT_EXCEEDED  # nothing else is wrong with it
    assert ("input_len 3072 + output_len 1025 = 4097 tokens exceed the model's context window of 4096"
            in df["infeasible_reason"].iat[1])
    # the same plan scores the same otherwise: only the flag differs
    assert df["tokens_per_s"].iat[1] == pytest.approx(df["tokens_per_s"].iat[2], rel=1e-12)


def test_released_presets_state_their_context_window_and_it_holds_their_training_length():
    from dse.presets import model_table

    presets = model_table()
    for name in ("llama2-70b", "llama3-70b", "llama3.1-70b", "mixtral-8x7b", "deepseek-v3", "gpt-oss-120b"):
        spec = dse.load_scenario(serving(model=name, precision="bf16")).model
        assert spec.context_len is not None and spec.context_len >= spec.seq_len, name
    assert dse.load_scenario(serving(model="llama3.1-8b")).model.context_len == 131072
    assert all(p.get("context_len") is None or p["context_len"] >= p["seq_len"] for p in presets.values())


@pytest.mark.parametrize("extra, needle", [({"request_rate": 2.0}, r"request_rate \(2\) makes it an open stream"),
                                           ({"phase": "decode"}, "phase decode is an instance"),
                                           ({"num_requests": 0}, "inference.num_requests")])
def test_num_requests_is_the_size_of_an_offline_run_or_a_closed_loop(extra, needle):
    with pytest.raises(dse.InputError, match=needle):
        dse.load_scenario(serving(**{"num_requests": 1500, **extra}))
    closed = dse.load_scenario(serving(num_requests=1500, concurrency=64))  # a closed loop of 64 clients
    assert closed.inference.num_requests == 1500 and closed.inference.concurrency == 64


def test_a_finite_run_is_reported_against_the_steady_state():
    steady = dse.evaluate(dse.load_scenario(serving())).iloc[0]
    run = dse.evaluate(dse.load_scenario(serving(num_requests=3))).iloc[0]  # fewer than one wave
    assert run["finite_run_factor"] < 1.0 and run["batch"] == 3.0
    assert run["tokens_per_s"] < steady["tokens_per_s"]
