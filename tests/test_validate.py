"""dse/validate.py: statuses of validation cases, the summary arithmetic, one vectorized call."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dse.api
import dse.validate
from dse.validate import CASE_COLUMNS, METRICS, SKIP_REASONS, cases_records, summarize, validate_cases
from dse.workloads import supported

SHARED = Path(__file__).resolve().parents[2] / "shared"
LLM_JSONL = SHARED / "validation" / "llm.jsonl"
DLRM_VIT_JSONL = SHARED / "validation" / "dlrm_vit.jsonl"
DSE = Path(sys.executable).parent / "dse"


def case(id, measured=100.0, metric="tokens_per_s_per_gpu", source="src A", **changes):
    """A training validation case in the llm.jsonl layout (model by preset name)."""
    obj = {
        "id": id, "source": source, "reliability": "A", "workload": "train", "precision": "bf16",
        "model": "llama2-7b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8, "gpus_per_node": 8},
        "parallel": {"tp": 1, "pp": 1, "dp": 8, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 1,
                     "recompute": "none", "microbatch": 1, "global_batch": 64},
        "inference": None, "target": {"metric": metric, "value": measured}, "also": {}, "inferred": [],
        "notes": "",
    }
    obj.update(changes)
    return obj


def write_jsonl(path, objs):
    path.write_text("\n".join(json.dumps(o) for o in objs) + "\n")
    return path


# ---------------------------------------------------------------------------- summary arithmetic
def synthetic(rows):
    """A cases DataFrame from (source, status, abs_pct_error, feasible) tuples."""
    records = []
    for i, (source, status, ape, feasible) in enumerate(rows):
        rec = {k: None for k in CASE_COLUMNS}
        rec.update(id=f"c{i}", source=source, status=status, abs_pct_error=ape if ape is not None else math.nan,
                   feasible=feasible, reason="" if status == "ok" else "why")
        records.append(rec)
    return pd.DataFrame(records, columns=list(CASE_COLUMNS))


def test_summary_arithmetic_per_source_and_overall():
    cases = synthetic([
        ("A", "ok", 10.0, True),
        ("A", "ok", 20.0, True),
        ("A", "ok", 60.0, False),
        ("A", "skipped", None, None),
        ("B", "ok", 5.0, True),
        ("B", "error", None, None),
    ])
    summary = summarize(cases)
    a, b, overall = summary["by_source"]["A"], summary["by_source"]["B"], summary["overall"]
    # A: APEs 10, 20, 60 -> mean 30, median 20, max 60
    assert a["mape_pct"] == pytest.approx(30.0)
    assert a["median_ape_pct"] == pytest.approx(20.0)
    assert a["max_ape_pct"] == pytest.approx(60.0)
    assert (a["count"], a["evaluated"], a["skipped"], a["errors"], a["infeasible"]) == (4, 3, 1, 0, 1)
    assert b["mape_pct"] == b["median_ape_pct"] == b["max_ape_pct"] == pytest.approx(5.0)
    assert (b["count"], b["evaluated"], b["skipped"], b["errors"], b["infeasible"]) == (2, 1, 0, 1, 0)
    # overall: 10, 20, 60, 5 -> mean 23.75, median (10+20)/2 = 15, max 60
    assert overall["mape_pct"] == pytest.approx(23.75)
    assert overall["median_ape_pct"] == pytest.approx(15.0)
    assert overall["max_ape_pct"] == pytest.approx(60.0)
    assert (overall["count"], overall["evaluated"], overall["skipped"], overall["errors"]) == (6, 4, 1, 1)
    assert overall["infeasible"] == 1
    assert summary["skip_reasons"] == {"why": 1}


def test_summary_without_the_cases_flagged_outlier():
    cases = synthetic([("A", "ok", 10.0, True), ("A", "ok", 900.0, True), ("B", "ok", 30.0, True)])
    cases["flagged"] = [False, True, False]
    summary = summarize(cases)
    assert summary["overall"]["mape_pct"] == pytest.approx(940.0 / 3)
    assert summary["flagged"] == 1
    assert summary["unflagged"]["mape_pct"] == pytest.approx(20.0)
    assert summary["unflagged"]["max_ape_pct"] == pytest.approx(30.0)
    assert summary["unflagged"]["evaluated"] == 2


def test_a_case_is_flagged_by_the_word_outlier_in_its_notes(tmp_path):
    path = tmp_path / "cases.jsonl"
    flagged = case("slow", notes="OUTLIER: 16x below the same hardware elsewhere")
    plain = case("fine", notes="an outlier in lower case is prose, not the flag")
    path.write_text("\n".join(json.dumps(o) for o in (flagged, plain, case("none"))) + "\n")
    cases, summary = validate_cases(path)
    assert list(cases["flagged"]) == [True, False, False]
    assert summary["flagged"] == 1 and summary["unflagged"]["count"] == 2
    assert (cases["status"] == "ok").all()  # flagged cases are still predicted and counted overall


def test_summary_of_a_source_with_nothing_evaluated_has_no_error_figures():
    summary = summarize(synthetic([("A", "skipped", None, None)]))
    block = summary["by_source"]["A"]
    assert block["mape_pct"] is None and block["median_ape_pct"] is None and block["max_ape_pct"] is None
    assert json.dumps(summary, allow_nan=False)


def test_summary_of_no_cases():
    summary = summarize(synthetic([]))
    assert summary["overall"]["count"] == 0 and summary["by_source"] == {}


# ---------------------------------------------------------------------------- statuses
@pytest.fixture()
def mixed_file(tmp_path):
    objs = [
        case("train-ok", 1000.0),
        case("train-iter", 5.0, metric="iter_time_s", source="src B"),
        case("infer", 100.0, metric="tokens_per_s", workload="inference",
             inference={"input_len": 128, "output_len": 128, "batch": None, "concurrency": None,
                        "mode": "offline_max_throughput"}),
        case("dlrm", 1e6, metric="samples_per_s", model={"name": "DLRM", "family": "dlrm", "tables": []}),
        case("vit", 50.0, metric="tflops_per_gpu", model={"name": "ViT-H", "family": "vit", "layers": 32}),
        case("bad-key", 1000.0, cluster={"gpu": "H100-SXM-80GB", "num_gpus": 8, "foo": 1}),
        case("bad-metric", 10.0, metric="ttft_ms"),
        case("oom", 100.0, model="gpt-175b", precision="fp16",
             cluster={"gpu": "A100-SXM-80GB", "num_gpus": 8},
             parallel={"tp": 8, "pp": 1, "dp": 1, "zero": 0, "microbatch": 1, "global_batch": 8}),
        case("fp8-a100", 100.0, precision="fp8", cluster={"gpu": "A100-SXM-80GB", "num_gpus": 8}),
    ]
    return write_jsonl(tmp_path / "cases.jsonl", objs)


@pytest.fixture
def only_llm_training(monkeypatch):
    """As if only LLM training were modelled: the other kinds must be listed as skipped."""
    monkeypatch.setattr(dse.validate, "supported", lambda kind: kind == "llm_train")


def test_every_case_gets_a_status_and_none_is_dropped(mixed_file, only_llm_training):
    cases, summary = validate_cases([mixed_file])
    assert list(cases["id"]) == ["train-ok", "train-iter", "infer", "dlrm", "vit", "bad-key", "bad-metric",
                                 "oom", "fp8-a100"]
    assert list(cases.columns) == list(CASE_COLUMNS)
    status = dict(zip(cases["id"], cases["status"]))
    reason = dict(zip(cases["id"], cases["reason"]))
    assert status == {"train-ok": "ok", "train-iter": "ok", "infer": "skipped", "dlrm": "skipped",
                      "vit": "skipped", "bad-key": "error", "bad-metric": "skipped", "oom": "ok",
                      "fp8-a100": "error"}
    assert reason["infer"] == SKIP_REASONS["llm_inference"]
    assert reason["dlrm"] == SKIP_REASONS["dlrm_train"] and reason["vit"] == SKIP_REASONS["vit_train"]
    assert "ttft_ms" in reason["bad-metric"]
    assert "cluster.foo" in reason["bad-key"] and "cases.jsonl:6" in reason["bad-key"]
    assert "precision" in reason["fp8-a100"]
    assert list(cases["line"]) == list(range(1, 10))
    overall = summary["overall"]
    assert (overall["count"], overall["evaluated"], overall["skipped"], overall["errors"]) == (9, 3, 4, 2)


def test_ok_cases_get_signed_error_against_the_mapped_column(mixed_file):
    cases, _ = validate_cases([mixed_file])
    frame = dse.evaluate([dse.load_scenario(c) for c in (case("train-ok"), case("train-iter"))])
    ok = cases.set_index("id")
    assert ok.loc["train-ok", "predicted"] == pytest.approx(frame["tokens_per_s_per_gpu"].iat[0])
    assert ok.loc["train-iter", "predicted"] == pytest.approx(frame["iteration_time_s"].iat[1])
    for cid, measured in (("train-ok", 1000.0), ("train-iter", 5.0)):
        pred = ok.loc[cid, "predicted"]
        assert ok.loc[cid, "error"] == pytest.approx((pred - measured) / measured)
        assert ok.loc[cid, "abs_pct_error"] == pytest.approx(100 * abs(pred - measured) / measured)
    skipped = cases[cases["status"] != "ok"]
    assert skipped["predicted"].isna().all() and skipped["error"].isna().all()


def test_infeasible_cases_keep_their_prediction_and_are_counted(mixed_file):
    cases, summary = validate_cases([mixed_file])
    oom = cases.set_index("id").loc["oom"]
    assert oom["status"] == "ok"
    assert oom["feasible"] is not None and not bool(oom["feasible"])
    assert "out of memory" in oom["infeasible_reason"]
    assert math.isfinite(oom["predicted"]) and oom["predicted"] > 0
    assert summary["by_source"]["src A"]["infeasible"] == 1
    assert summary["overall"]["infeasible"] == 1
    assert bool(cases.set_index("id").loc["train-ok", "feasible"]) is True


def test_a_plan_that_cannot_run_on_the_cases_gpus_gets_no_prediction(tmp_path):
    """tp 3 x dp 32 needs 96 GPUs, not the case's 32: the case is wrong, so it is an error with
    the arithmetic, out of the MAPE (it counted +121 %), while an out-of-memory plan keeps its
    prediction."""
    path = write_jsonl(tmp_path / "c.jsonl", [
        case("ok", 1000.0),
        case("nodiv", 1000.0, cluster={"gpu": "H100-SXM-80GB", "num_gpus": 32, "gpus_per_node": 8},
             parallel={"tp": 3, "pp": 1, "dp": 32, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 1,
                       "recompute": "none", "microbatch": 1, "global_batch": 64}),
    ])
    cases, summary = validate_cases([path])
    bad = cases.set_index("id").loc["nodiv"]
    assert bad["status"] == "error" and math.isnan(bad["predicted"])
    assert "cannot run on the case's GPUs: tp*pp*dp*cp = 3*1*32*1 = 96 != num_gpus 32" in bad["reason"]
    assert summary["overall"]["evaluated"] == 1 and summary["overall"]["errors"] == 1


def test_all_ok_cases_are_evaluated_in_one_call(mixed_file, monkeypatch, only_llm_training):
    calls = []
    real = dse.api.evaluate

    def counting(scenarios, *args, **kwargs):
        calls.append(len(scenarios))
        return real(scenarios, *args, **kwargs)

    monkeypatch.setattr(dse.api, "evaluate", counting)
    validate_cases([mixed_file])
    assert calls == [3]


def test_source_filter(mixed_file):
    cases, summary = validate_cases([mixed_file], source="SRC b")
    assert list(cases["id"]) == ["train-iter"]
    assert list(summary["by_source"]) == ["src B"]


def test_records_are_json_ready(mixed_file, only_llm_training):
    cases, summary = validate_cases([mixed_file])
    records = cases_records(cases)
    text = json.dumps({"cases": records, "summary": summary}, allow_nan=False)
    back = json.loads(text)
    by_id = {r["id"]: r for r in back["cases"]}
    assert by_id["infer"]["error"] is None and by_id["infer"]["predicted"] is None
    assert isinstance(by_id["train-ok"]["error"], float)
    assert by_id["oom"]["feasible"] is False and by_id["train-ok"]["feasible"] is True


def test_bad_target_value_is_an_error(tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [case("zero", 0.0), case("text", "12")])
    cases, _ = validate_cases([path])
    assert list(cases["status"]) == ["error", "error"]
    assert all("target.value" in r for r in cases["reason"])


def test_metric_mapping_covers_the_documented_metrics():
    assert METRICS["iter_time_s"] == "iteration_time_s"
    for name in ("tokens_per_s_per_gpu", "tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu",
                 "mfu", "hfu", "samples_per_s"):
        assert METRICS[name] == name


# ---------------------------------------------------------------------------- the shipped cases
def test_shared_validation_files_every_case_accounted_for():
    if not (LLM_JSONL.exists() and DLRM_VIT_JSONL.exists()):
        pytest.skip(f"{SHARED / 'validation'} not found: the shared/ folder beside the repo holds the cases")
    rows = [json.loads(line) for f in (LLM_JSONL, DLRM_VIT_JSONL) for line in f.read_text().splitlines()
            if line.strip()]
    cases, summary = validate_cases([LLM_JSONL, DLRM_VIT_JSONL])
    assert len(cases) == len(rows) == summary["overall"]["count"]
    assert summary["overall"]["errors"] == 0, cases.loc[cases["status"] == "error", "reason"].tolist()
    kinds = [dse.validate._kind(r) for r in rows]
    n_skipped = sum(not supported(k) for k in kinds)
    assert (cases["status"] == "skipped").sum() == n_skipped
    assert cases.loc[cases["status"] == "skipped", "reason"].str.contains("not modelled").all()
    ok = cases[cases["status"] == "ok"]
    assert len(ok) == len(rows) - n_skipped
    assert np.isfinite(ok["predicted"].to_numpy(dtype=float)).all()
    assert (ok["predicted"] > 0).all()
    assert summary["overall"]["mape_pct"] is not None and math.isfinite(summary["overall"]["mape_pct"])


def test_the_out_of_sample_cases_shipped_in_validation_are_all_predicted():
    files = sorted((Path(__file__).resolve().parents[1] / "validation").glob("*.jsonl"))
    assert files, "validation/*.jsonl missing"
    cases, summary = validate_cases(files)
    assert (cases["status"] == "ok").all(), cases.loc[cases["status"] != "ok", ["id", "reason"]].to_string()
    assert np.isfinite(cases["predicted"]).all() and (cases["predicted"] > 0).all()
    # two input-bound Megatron-Bridge runs; MI300X runs of an unoptimized checkpoint and of the
    # DeepSeek-R1 engines of its first weeks (vllm_serving.jsonl); TensorRT-LLM 0.9.0's Mixtral runs,
    # whose fake weights route every token to the same experts (trtllm09_dli.jsonl)
    assert summary["flagged"] == 2 + 19 + 15 + 232


def test_an_online_case_is_served_at_the_rate_its_notes_state(tmp_path):
    from dse.validate import offered_rate

    infer = {"input_len": 1024, "output_len": 256, "batch": None, "concurrency": None, "mode": "online"}
    assert offered_rate({"inference": infer, "notes": "offered request rate 4 req/s (Poisson)"}) == 4.0
    assert offered_rate({"inference": infer, "notes": "QPS: 2.5 QPS"}) == 2.5
    assert offered_rate({"inference": infer, "notes": "no rate stated"}) is None
    assert offered_rate({"inference": infer, "notes": "rates 2 req/s and 8 req/s"}) is None  # ambiguous
    assert offered_rate({"inference": {**infer, "mode": "offline_max_throughput"}, "notes": "4 req/s"}) is None
    assert offered_rate({"inference": {**infer, "concurrency": 8}, "notes": "4 req/s"}) is None
    # through dse validate: the served throughput is the offered load, below the engine's capacity
    base = case("online", 1.0, metric="requests_per_s", workload="inference", precision="fp8",
                model="llama3.1-8b", cluster={"gpu": "H100-SXM-80GB", "num_gpus": 1, "gpus_per_node": 8},
                parallel={"tp": 1, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 0,
                          "recompute": "none", "microbatch": None, "global_batch": None},
                inference=infer, notes="offered request rate 3 req/s")
    offline = {**base, "id": "offline", "inference": {**infer, "mode": "offline_max_throughput"}}
    cases, _ = validate_cases(write_jsonl(tmp_path / "c.jsonl", [base, offline]))
    on, off = cases.set_index("id").loc["online"], cases.set_index("id").loc["offline"]
    assert on["status"] == "ok" and on["predicted"] == pytest.approx(3.0, rel=1e-9)
    assert "3 req/s read from the notes" in on["reason"]
    assert off["predicted"] > 10 * on["predicted"]


def test_summary_by_gpu_and_precision(tmp_path):
    objs = [case("a", cluster={"gpu": "H100-SXM-80GB", "num_gpus": 8, "gpus_per_node": 8}),
            case("b", cluster={"gpu": "A100-SXM-80GB", "num_gpus": 8, "gpus_per_node": 8}),
            case("c", cluster={"gpu": "H100-SXM-80GB", "num_gpus": 8, "gpus_per_node": 8}, precision="fp8")]
    cases, summary = validate_cases(write_jsonl(tmp_path / "c.jsonl", objs), by=["gpu", "precision"])
    groups = summary["by"]["groups"]
    assert summary["by"]["fields"] == ["gpu", "precision"]
    assert set(groups) == {"H100-SXM-80GB / bf16", "A100-SXM-80GB / bf16", "H100-SXM-80GB / fp8"}
    assert all(b["count"] == 1 for b in groups.values())
    h100 = cases.set_index("id").loc["a"]
    assert groups["H100-SXM-80GB / bf16"]["mape_pct"] == pytest.approx(h100["abs_pct_error"])
    with pytest.raises(dse.InputError, match="--by"):
        validate_cases(write_jsonl(tmp_path / "d.jsonl", objs), by=["colour"])


def test_summary_by_reliability(tmp_path):
    objs = [case("a"), case("b", measured=300.0), case("c", measured=200.0, reliability="B")]
    cases, summary = validate_cases(write_jsonl(tmp_path / "c.jsonl", objs), by=["reliability"])
    groups = summary["by"]["groups"]
    assert list(cases["reliability"]) == ["A", "A", "B"]
    assert {k: v["count"] for k, v in groups.items()} == {"A": 2, "B": 1}
    by_id = cases.set_index("id")["abs_pct_error"]
    assert groups["A"]["mape_pct"] == pytest.approx((by_id["a"] + by_id["b"]) / 2.0)
    assert groups["B"]["mape_pct"] == pytest.approx(by_id["c"])


def test_cli_validate_by_prints_the_groups(tmp_path):
    path = write_jsonl(tmp_path / "c.jsonl", [case("a"), case("b", precision="fp8")])
    out = subprocess.run([str(DSE), "validate", str(path), "--by", "precision"], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "bf16" in out.stdout and "fp8" in out.stdout
    bad = subprocess.run([str(DSE), "validate", str(path), "--by", "colour"], capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 2 and "--by" in bad.stderr and "gpu" in bad.stderr


def test_summary_by_model_names_inline_models_and_presets(tmp_path):
    inline = {"name": "tiny", "family": "dense", "layers": 4, "hidden": 1024, "heads": 8, "ffn_hidden": 4096,
              "ffn_act": "swiglu", "vocab": 32000, "seq_len": 2048}
    objs = [case("a"), case("b", model=inline), case("c", model=inline)]
    _, summary = validate_cases(write_jsonl(tmp_path / "m.jsonl", objs), by=["model"])
    groups = summary["by"]["groups"]
    assert set(groups) == {"llama2-7b", "tiny"}
    assert groups["tiny"]["count"] == 2 and groups["llama2-7b"]["count"] == 1


def _memory_case(value):
    return {"id": "mem", "source": "a memory reading", "workload": "train", "precision": "bf16",
            "model": "llama3-8b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
            "parallel": {"tp": 1, "dp": 8, "zero": 3, "microbatch": 1, "global_batch": 8},
            "target": {"metric": "memory_per_gpu_gib", "value": value}}


def test_memory_cases_compare_gib_with_the_memory_per_gpu(tmp_path):
    path = tmp_path / "mem.jsonl"
    path.write_text(json.dumps(_memory_case(40.0)) + "\n")
    cases, _ = dse.validate.validate_cases(path)
    row = cases.iloc[0]
    frame = dse.api.evaluate(dse.load_scenario({k: v for k, v in _memory_case(40.0).items() if k != "target"}))
    assert row["status"] == "ok"
    assert row["predicted"] == pytest.approx(frame["memory_per_gpu_bytes"].iat[0] / 2**30, rel=1e-12)


def test_a_memory_figure_in_bytes_is_an_error_that_says_so(tmp_path):
    path = tmp_path / "mem.jsonl"
    path.write_text(json.dumps(_memory_case(88476326298)) + "\n")
    cases, _ = dse.validate.validate_cases(path)
    row = cases.iloc[0]
    assert row["status"] == "error"
    assert "memory_per_gpu_gib is in GiB (2^30 bytes)" in row["reason"] and "82.4 GiB" in row["reason"]


def test_an_offline_cases_request_count_is_read_from_its_notes():
    from dse.validate import queued_requests

    case = {"inference": {"input_len": 128, "output_len": 128, "mode": "offline_max_throughput"},
            "notes": "trtllm-bench offline max-throughput (all 3,000 requests queued; in-flight batching)"}
    assert queued_requests(case) == 3000
    assert queued_requests({**case, "notes": "all requests queued at once"}) is None
    assert queued_requests({**case, "notes": "all 1000 requests queued ... all 1500 requests queued"}) is None
    stated = {**case, "inference": {**case["inference"], "num_requests": 10}}
    assert queued_requests(stated) is None  # the field wins
    online = {**case, "inference": {**case["inference"], "mode": "online"}}
    assert queued_requests(online) is None
