"""The human-readable ``dse evaluate`` report (dse/report.py): rows in the terms of each kind
of run, and JSON records whose parts add up to the model's time."""

from __future__ import annotations

import pytest
from rich.console import Console

import dse
from dse.report import evaluation_record, render_evaluation

from test_trace import DLRM, SERVING, VIT


def rendered(scenario) -> tuple[dict, str]:
    rec = evaluation_record(dse.evaluate(scenario).iloc[0], source="test")
    console = Console(record=True, width=140, color_system=None)
    render_evaluation(console, rec)
    return rec, console.export_text()


@pytest.mark.parametrize("scenario", [DLRM[0], DLRM[1]], ids=["train", "inference"])
def test_dlrm_report_rows(scenario):
    rec, text = rendered(scenario)
    assert rec["kind"] == ("dlrm_train" if scenario["workload"] == "train" else "dlrm_inference")
    for row in ("step time", "samples/s", "samples/s per GPU", "embedding lookups per GPU", "all-to-all exposed",
                "embedding tables", "Time per step", "kernel launches"):
        assert row in text, row
    for token_row in ("tokens/s", "per token", "per million tokens", "bubble", "HFU", "microbatches per pipeline"):
        assert token_row not in text, token_row
    assert ("training" in text.splitlines()[0]) == (scenario["workload"] == "train")
    d = rec["dlrm"]
    assert d["emb_sharding"] in text and d["samples_per_s_per_gpu"] > 0
    assert sum(d["time_s"].values()) == pytest.approx(rec["iteration_time_s"], rel=1e-6)
    assert d["memory_bytes"]["embedding tables"] > 0
    assert sum(d["memory_bytes"].values()) == pytest.approx(rec["memory_per_gpu_bytes"], rel=1e-6)
    if scenario["workload"] == "inference":
        assert not any(d["time_s"][k] for k in ("dense gradient all-reduce, exposed",
                                                   "embedding gradient all-reduce, exposed"))


def test_serving_report_rows():
    rec, text = rendered(SERVING[1])
    assert rec["kind"] == "llm_inference"
    for row in ("TTFT", "ITL", "requests/s", "output tokens/s", "kv_cache", "Time per engine iteration", "mean iteration",
                "tp all-reduce"):
        assert row in text, row
    for training_row in ("HFU", "bubble", "grads", "optimizer", "overlap slowdown", "iteration time"):
        assert training_row not in text, training_row
    parts = rec["serving"]["decode_step_parts_s"]
    assert sum(parts.values()) == pytest.approx(rec["iteration_time_s"], rel=1e-6)
    assert rec["serving"]["itl_ms"] / 1e3 <= rec["iteration_time_s"]  # without its own prompt


def _serving(gpu, precision, **inference):
    return {"workload": "inference", "precision": precision, "model": "llama3-70b",
            "cluster": {"gpu": gpu, "num_gpus": 2}, "parallel": {"tp": 2},
            "inference": {"input_len": 1000, "output_len": 1000, **inference}}


def test_a_prefill_instance_reports_prompts_and_input_tokens_not_decoding():
    """A disaggregated prefill instance emits only first tokens: its report gives prompts/s and
    input tokens/s, energy and cost per input token, and no ITL or output tokens (it printed
    '2.654 output tokens/s per GPU' and 264 J per token)."""
    rec, text = rendered(_serving("H100-SXM-80GB", "fp8", phase="prefill", max_num_tokens=8192))
    assert rec["serving"]["phase"] == "prefill"
    for row in ("prefill instance", "prompts/s (first tokens)", "input tokens/s per GPU", "energy per input token",
                "Time per iteration (a token budget of whole prompts"):
        assert row in text, row
    for row in ("inter-token latency", "output tokens/s", "energy per token "):
        assert row not in text, row
    per_gpu = rec["serving"]["input_tokens_per_s_per_gpu"]
    assert per_gpu == pytest.approx(rec["serving"]["requests_per_s"] * 1000 / 2, rel=1e-9)
    assert f"{per_gpu:,.0f}" in text
    _, both = rendered(_serving("H100-SXM-80GB", "fp8", batch=8))
    assert "inter-token latency" in both and "prefill instance" not in both


def test_serving_report_says_the_number_formats_and_what_widening_costs():
    _, w4a16 = rendered(_serving("H100-SXM-80GB", "bf16", weight_dtype="mxfp4", batch=128))
    assert "MXFP4 weights" in w4a16 and "W4.25A16" in w4a16 and "at most at 30% of the 16-bit peak" in w4a16
    _, w4a8 = rendered(_serving("B200-180GB", "fp8", weight_dtype="mxfp4", batch=128))
    assert "W4.25A8: the tensor cores take them as they are" in w4a8 and "FP8 KV cache" in w4a8
    _, fp8 = rendered(_serving("H100-SXM-80GB", "fp8", batch=128))
    assert "numbers: FP8 weights (1 byte each) · FP8 KV cache" in fp8 and "widened" not in fp8


def test_clients_in_lockstep_are_named_in_the_ttft_row():
    """A closed loop of one output length: the TTFT row says how many prompts arrive together; a
    spread of lengths (or a lone client) says nothing of it."""
    rec, text = rendered(_serving("H100-SXM-80GB", "fp8", concurrency=16, mode="online"))
    assert rec["serving"]["lockstep_group"] == 16
    assert "prompts arrive 16 at a time" in text
    for quiet in ({"concurrency": 16, "output_len_cv": 0.3}, {"concurrency": 1}):
        rec, text = rendered(_serving("H100-SXM-80GB", "fp8", mode="online", **quiet))
        assert "at a time" not in text


def test_a_fixed_batch_above_what_the_token_budget_runs_waits_and_says_so():
    """An iteration carries at most max_num_tokens tokens: of a fixed batch above the largest it
    sustains, only that many decode at once (the same throughput and ITL as that batch) and the
    rest wait (Little's law: TTFT grows by (B / B_max - 1) O iterations)."""
    rec, text = rendered(_serving("H100-SXM-80GB", "fp8", batch=400, input_len=200, output_len=50,
                                  max_num_tokens=512))
    most = rec["serving"]["batch_max"]
    assert rec["feasible"] and rec["serving"]["batch"] == 400 > most == 512 * 50 // 250
    assert "the token budget lets 102 decode at once;" in text and "wait, in TTFT" in text
    assert "with the wait for room in the token budget" in text and rec["serving"]["batch_running"] == most
    cap, _ = rendered(_serving("H100-SXM-80GB", "fp8", batch=int(most), input_len=200, output_len=50,
                               max_num_tokens=512))
    assert rec["tokens_per_s"] == pytest.approx(cap["tokens_per_s"], rel=1e-12)
    assert rec["serving"]["itl_ms"] == pytest.approx(cap["serving"]["itl_ms"], rel=1e-12)
    wait = (400 / most - 1.0) * 50 * cap["iteration_time_s"] * 1e3
    assert rec["serving"]["ttft_ms"] == pytest.approx(cap["serving"]["ttft_ms"] + wait, rel=1e-9)


@pytest.mark.parametrize("scenario", [VIT[0], "scenarios/llama2_70b_h100.yaml"], ids=["vit", "llm"])
def test_training_report_rows(scenario):
    from pathlib import Path

    vit = not isinstance(scenario, str)
    if not vit:
        scenario = Path(__file__).resolve().parents[1] / scenario
    rec, text = rendered(scenario)
    for row in ("iteration time", "MFU", "HFU", "bubble", "Time per iteration"):
        assert row in text, row
    assert "dlrm" not in rec and "serving" not in rec
    if vit:  # samples are images: per-image rows, no per-token ones
        for row in ("images/s (total)", "images/s per GPU", "tokens per image", "energy per image"):
            assert row in text, row
        assert "tokens/s" not in text and "per token" not in text
        per_gpu = float(text.split("images/s per GPU")[1].split()[0].replace(",", ""))
        assert per_gpu == pytest.approx(rec["samples_per_s"] / rec["num_gpus"], rel=1e-3)
    else:
        assert "tokens/s per GPU" in text and "images" not in text


def test_uneven_pipeline_stages_are_spelled_out():
    scenario = {"model": "llama3-405b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1024},
                "parallel": {"tp": 8, "pp": 16, "vpp": 2, "zero": 1, "microbatch": 1, "global_batch": 512,
                             "recompute": "full"}}
    rec, text = rendered(scenario)
    # 126 layers over 16 stages: 126 = 14 x 8 + 2 x 7
    assert rec["parallel"]["stage_layers"] == {"first": 14, "more": 8, "rest": 7}
    assert ("uneven stages: 8 layers on 14, 7 on 2 (among them the first and the last, which hold the "
            "embedding and the output head)") in text
    even, text = rendered({**scenario, "parallel": {**scenario["parallel"], "pp": 2, "vpp": 1}})
    assert "stage_layers" not in even["parallel"] and "uneven" not in text
    # 127 layers over 16 stages: 15 x 8 + 1 x 7, one short stage, the last
    one_short = {**scenario, "model": {"preset": "llama3-405b", "layers": 127},
                 "parallel": {**scenario["parallel"], "vpp": 1}}
    _, text = rendered(one_short)
    assert "uneven stages: 8 layers on 15, 7 on 1 (the last, which holds the output head)" in text


def test_offloading_is_spelled_out():
    scenario = {"model": "llama3-70b", "precision": "fp8", "cluster": {"gpu": "GB200", "num_gpus": 64},
                "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 2, "global_batch": 256},
                "training": {"offload_activation_layers": 40}}
    rec, text = rendered(scenario)
    assert rec["parallel"]["offload_layers"] == 40
    assert rec["parallel"]["host_offload_bytes"] == pytest.approx(40 * 3.375 * 2**30, rel=1e-12)
    assert "activation offloading: 40 layers a stage keep their activations in host memory (135.0 GiB per GPU)" in text
    assert "exposed offload" in text


def test_a_host_bound_moe_plan_is_spelled_out():
    from test_trace import host_bound_scenario

    rec, text = rendered(host_bound_scenario())
    stall = rec["breakdown"]["time_s"]["host_stall"]
    assert stall > 0
    from dse.report import TIME_PARTS

    parts = rec["breakdown"]["time_s"]
    assert sum(parts[k] for k in TIME_PARTS) == pytest.approx(rec["iteration_time_s"], rel=1e-9)
    assert "host stall" in text and "training.moe_cuda_graphs: true" in text
    off = {**host_bound_scenario(), "training": {"moe_cuda_graphs": True}}
    rec, text = rendered(off)
    assert rec["breakdown"]["time_s"]["host_stall"] == 0.0 and "MoE dispatch reads" not in text


def test_report_names_latent_and_local_attention_and_the_dispatch():
    mla = {"model": "deepseek-v3", "precision": "fp8", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 256},
           "parallel": {"tp": 1, "pp": 16, "ep": 16, "global_batch": 256, "recompute": "full"},
           "training": {"moe_dispatcher": "deepep"}}
    rec, text = rendered(mla)
    assert "multi-head latent attention (a 512-wide key/value latent" in text
    assert "deduplicated per NVLink domain" in text
    local = {"workload": "inference", "precision": "fp8", "model": "llama4-scout",
             "cluster": {"gpu": "H200-SXM-141GB", "num_gpus": 1}, "parallel": {"tp": 1},
             "inference": {"input_len": 1024, "output_len": 128}}
    rec, text = rendered(local)
    assert rec["attention"] == "chunked attention over 8192 tokens on 36 of 48 layers"
    plain = {"model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 8}}
    assert rendered(plain)[0]["attention"] is None


@pytest.mark.parametrize("kind", ["train", "serve"])
def test_a_plan_on_another_gpu_count_shows_no_per_gpu_figures(kind):
    """tp*pp*dp*cp != num_gpus: the plan's time is for its own GPUs, so the throughput, figures per
    GPU of the cluster (MFU above 100% otherwise), energy and cost are blanked, and the report says why;
    a feasible or merely out-of-memory plan keeps them."""
    if kind == "train":
        scenario = {"model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
                    "parallel": {"tp": 4, "pp": 4, "dp": 4, "cp": 3, "microbatch": 1, "global_batch": 128}}
    else:
        scenario = {"workload": "inference", "precision": "fp8", "model": "llama2-70b",
                    "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 4, "dp": 1},
                    "inference": {"input_len": 128, "output_len": 128}}
    rec, text = rendered(scenario)
    assert not rec["feasible"] and "!= num_gpus" in rec["infeasible_reason"]
    for key in ("tokens_per_s_per_gpu", "mfu", "model_tflops_per_gpu", "energy_per_token_j", "cost_per_mtok_usd"):
        assert rec[key] is None, key
    assert rec["tokens_per_s"] is None  # the plan's own GPUs' throughput, not this cluster's
    if kind == "serve":
        assert rec["serving"]["requests_per_s"] is None and rec["serving"]["input_tokens_per_s"] is None
    assert "not shown: the plan's degrees do not multiply" in text
    if kind == "train":
        good = {**scenario, "parallel": {**scenario["parallel"], "cp": 1}}
    else:
        good = {**scenario, "cluster": {**scenario["cluster"], "num_gpus": 4}}
    rec_ok, text_ok = rendered(good)
    assert rec_ok["tokens_per_s_per_gpu"] > 0 and rec_ok["mfu"] > 0 and "not shown" not in text_ok


@pytest.mark.parametrize("plan, stage", [
    ({"tp": 8, "pp": 16, "vpp": 1, "microbatch": 1, "global_batch": 256}, "second"),  # 126 layers: 7, 8, ..., 8, 7
    ({"tp": 8, "pp": 2, "vpp": 1, "microbatch": 1, "global_batch": 256}, "first"),
], ids=["uneven", "even"])
def test_the_memory_breakdown_says_which_pipeline_stage_it_describes(plan, stage):
    """405B on 16 stages: the first (7 layers) is short, so the second (8 layers, one microbatch
    fewer in flight) holds the most; on 2 even stages the first (two microbatches in flight)."""
    scenario = {"model": "llama3-405b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8 * plan["pp"] * 2},
                "parallel": plan}
    rec, text = rendered(scenario)
    assert rec["memory_peak_stage"] == stage
    assert f"of the pipeline stage that holds the most: the {stage} of {plan['pp']}" in text
    assert "memory_peak_stage" not in rendered({**scenario, "parallel": {**plan, "pp": 1, "vpp": 1},
                                                "cluster": {**scenario["cluster"], "num_gpus": 16}})[0]


def test_the_last_stage_holds_the_most_when_its_loss_is_large():
    """Llama 3 8B on 2 stages at 32,768 tokens with PyTorch's fp32 cross-entropy: 12 bytes x 32,768
    x 128,256 logits = 47 GiB on the last stage outweigh the first stage's second microbatch."""
    scenario = {"model": {"preset": "llama3-8b", "seq_len": 32768}, "cluster": {"gpu": "B200", "num_gpus": 2},
                "parallel": {"tp": 1, "pp": 2, "microbatch": 1, "global_batch": 8, "recompute": "full"},
                "training": {"cross_entropy": "fp32"}}
    rec, text = rendered(scenario)
    assert rec["memory_peak_stage"] == "last"
    assert rec["breakdown"]["memory_bytes"]["logits"] == pytest.approx(12 * 32768 * 128256, rel=1e-9)
    assert "the last, with the output head of 2" in text


def test_money_counts_and_overridden_gpus_read_as_words():
    from dse.report import _gpu_text, _plural, _usd

    assert (_usd(13941.916), _usd(58.528), _usd(0.0024)) == ("13,942 USD", "58.53 USD", "0.0024 USD")
    assert (_plural(1, "microbatch", "microbatches"), _plural(4, "microbatch", "microbatches")) == \
        ("1 microbatch", "4 microbatches")
    h800 = {"gpu": "H100-SXM-80GB", "gpu_overrides": {"nvlink_gbps": 400.0, "peak_tflops": {"tf32": 156.0}}}
    assert _gpu_text(h800) == "H100-SXM-80GB (nvlink_gbps 400, peak_tflops tf32 156)"
    assert _gpu_text({"gpu": "B200-180GB"}) == "B200-180GB"


def test_cli_header_names_the_overridden_figures_and_a_one_iteration_ttft():
    from pathlib import Path

    from typer.testing import CliRunner

    from dse.cli import app

    root = Path(__file__).resolve().parents[1]
    out = CliRunner().invoke(app, ["evaluate", str(root / "scenarios/deepseek_v3_h800.yaml")])
    assert out.exit_code == 0 and "H100-SXM-80GB (nvlink_gbps 400)" in out.output.splitlines()[0]
    rec, text = rendered(root / "scenarios/gpt_oss_120b_b200_serving.yaml")
    assert rec["serving"]["ttft_ms"] == pytest.approx(rec["iteration_time_s"] * 1e3, rel=1e-12)
    assert "one iteration (the prompt fits one iteration's token budget)" in " ".join(text.split())
    _, text = rendered(_serving("H100-SXM-80GB", "fp8", batch=1))
    assert "batch 1 sequence per replica" in text and "one iteration (the prompt fits" in text  # 1,000 of 2,048


def test_uneven_virtual_stages_are_spelled_out():
    plan = {"model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 32},
            "parallel": {"tp": 8, "pp": 4, "vpp": 7, "microbatch": 1, "global_batch": 64}}
    rec, text = rendered(plan)
    assert rec["parallel"]["chunk_layers"] == {"stage": 20, "longest": 3, "shortest": 2}
    assert "a stage's 20 layers in 7 chunks of 2 to 3 layers" in text
    even, text = rendered({**plan, "parallel": {**plan["parallel"], "vpp": 5}})
    assert "chunk_layers" not in even["parallel"] and "virtual stages" not in text



def test_the_busiest_expert_rank_is_spelled_out_with_where_its_figure_comes_from():
    serve = {"workload": "inference", "precision": "fp8", "model": "deepseek-v3",
             "cluster": {"gpu": "H200-SXM-141GB", "num_gpus": 8}, "parallel": {"tp": 1, "dp": 8, "ep": 8},
             "inference": {"input_len": 1000, "output_len": 1000}}
    rec, text = rendered(serve)
    assert "the busiest of the 8 expert-parallel ranks receives 1.51x the mean routed tokens" in rec["attention"]
    assert "busiest of the 8" in text
    assert "moe.router_skew 2.16" in rec["attention"]
    rec, text = rendered({**serve, "inference": {**serve["inference"], "moe_load_imbalance": 1.12}})
    assert "receives 1.12x the mean routed tokens and paces every MoE layer (as stated)" in rec["attention"]
    train = {"model": "deepseek-v3", "precision": "fp8", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 256},
             "parallel": {"tp": 1, "pp": 16, "ep": 16, "global_batch": 256, "recompute": "full"},
             "training": {"moe_load_imbalance": 1.3}}
    assert "receives 1.3x the mean routed tokens and paces every MoE layer (as stated)" in rendered(train)[0]["attention"]
    balanced = rendered({**train, "training": {}})[0]["attention"] or ""
    assert "busiest" not in balanced


def test_overlap_and_imbalance_notes_follow_what_the_model_ran():
    """An overlap the plan cannot use (experts within the TP group) is not named; a training row
    scored beside a serving one keeps its stated imbalance's wording."""
    serve = {"workload": "inference", "precision": "fp8", "model": "deepseek-v3",
             "cluster": {"gpu": "H200-SXM-141GB", "num_gpus": 8}, "parallel": {"tp": 1, "dp": 8, "ep": 8},
             "inference": {"input_len": 1000, "output_len": 1000, "single_batch_overlap": True}}
    assert "single-batch overlap" in rendered(serve)[0]["attention"]
    within = {**serve, "parallel": {"tp": 8, "ep": 8}}
    assert "overlap" not in (rendered(within)[0]["attention"] or "")
    train = {"model": "deepseek-v3", "precision": "fp8", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 256},
             "parallel": {"tp": 1, "pp": 16, "ep": 16, "global_batch": 256, "recompute": "full"},
             "training": {"moe_load_imbalance": 1.3}}
    frame = dse.evaluate([train, serve])
    rec = evaluation_record(frame.iloc[0], source="test")
    assert "1.3x the mean routed tokens and paces every MoE layer (as stated)" in rec["attention"]


def test_a_full_mesh_domain_is_described_and_a_switched_one_is_not():
    from dse.api import evaluate
    from dse.report import evaluation_record

    def record(gpu):
        s = {"name": "m", "model": "llama3.1-8b", "cluster": {"gpu": gpu, "num_gpus": 8},
             "parallel": {"tp": 2, "global_batch": 64}}
        return evaluation_record(evaluate(s, explain=False).iloc[0])

    # MI300X: 896 GB/s both directions over 7 links -> 64 GB/s per link and direction
    assert "one 64 GB/s link" in record("MI300X")["scale_up"]
    assert record("H100-SXM-80GB")["scale_up"] is None
