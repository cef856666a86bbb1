"""The two-stream schedule of one iteration and its Chrome trace."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dse
from dse.trace import COMM, COMPUTE, chrome_trace, scenario_trace

ROOT = Path(__file__).resolve().parents[1]
DSE = Path(sys.executable).parent / "dse"
#: the shipped scenarios a trace draws: one engine or training run (a disaggregated deployment has two
#: kinds of instance, each drawn as a scenario of its own phase: dse evaluate --trace writes one each)
SCENARIOS = sorted(p for p in (ROOT / "scenarios").glob("*.yaml") if "phase: disaggregated" not in p.read_text())


def fsdp_scenario(**parallel):
    return {"model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16},
            "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 2, "global_batch": 64, **parallel}}


def uneven_scenario(layers, pp, vocab=32000):
    """Llama-2-7B cut to `layers` layers over `pp` stages that do not divide them (a large
    vocabulary makes the last stage, with fewer layers and the head, the slower one)."""
    return {"model": {"preset": "llama2-7b", "layers": layers, "vocab": vocab},
            "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8 * pp},
            "parallel": {"tp": 8, "pp": pp, "microbatch": 1, "global_batch": 16}}


def offload_scenario():
    """FSDP with 20 of 32 layers' activations offloaded over a slow host link (copies exposed)."""
    return {**fsdp_scenario(), "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16, "host_link_gbps": 4},
            "training": {"offload_activation_layers": 20}}


@pytest.mark.parametrize("scenario", SCENARIOS + [fsdp_scenario(), fsdp_scenario(cp=2, tp=2),
                                                  uneven_scenario(31, 4), uneven_scenario(30, 4, vocab=256000),
                                                  offload_scenario()],
                         ids=lambda s: s.name if isinstance(s, Path) else "offload" if "training" in s
                         else "fsdp" if "zero" in s["parallel"] else f"uneven{s['model']['layers']}")
def test_compute_stream_adds_up_to_the_iteration_time(scenario):
    events, meta = scenario_trace(scenario)
    compute = sorted((e for e in events if e.stream == COMPUTE), key=lambda e: e.start)
    # the compute stream never runs two operations at once ...
    for a, b in zip(compute, compute[1:]):
        assert b.start >= a.end - 1e-12, (a, b)
    # ... and ends exactly where the model's iteration ends (a serving trace: the request's first
    # token and the decode steps laid out after it)
    assert compute[-1].end == pytest.approx(meta.get("trace_end_s", meta["iteration_time_s"]), rel=1e-9)
    assert all(e.duration > 0 for e in events)


def host_bound_scenario():
    """A fine-grained MoE (128 experts, 16 per GPU) at one 4,096-token microbatch: the host's
    launches of each MoE layer outlast the GPU's work on it."""
    model = {"name": "qwen-like", "family": "moe", "layers": 48, "hidden": 2048, "heads": 32, "kv_heads": 4,
             "head_dim": 128, "ffn_hidden": 768, "ffn_act": "swiglu", "vocab": 151936, "seq_len": 4096,
             "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 768}}
    return {"model": model, "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
            "parallel": {"tp": 1, "ep": 8, "microbatch": 1, "global_batch": 64}}


@pytest.mark.parametrize("scenario, kind, column, bar", [
    (offload_scenario, "offload", "exposed_offload_s", "offload"),
    (host_bound_scenario, "host", "host_stall_s", "host stall"),
], ids=["offload copies", "host stall"])
def test_waits_for_the_host_are_on_the_compute_stream(scenario, kind, column, bar):
    """Exposed activation-offload copies and the host's late MoE launches: compute-stream waits
    that add up to the model's part, end where the iteration ends and appear in its bars."""
    events, meta = scenario_trace(scenario())
    waits = [e for e in events if e.kind == kind]
    expected = dse.evaluate(scenario())[column].iat[0]
    assert expected > 0 and waits and all(e.stream == COMPUTE for e in waits)
    assert sum(e.duration for e in waits) == pytest.approx(expected, rel=1e-9)
    compute = sorted((e for e in events if e.stream == COMPUTE), key=lambda e: e.start)
    assert compute[-1].end == pytest.approx(meta["iteration_time_s"], rel=1e-9)
    bars = {b["label"]: {name: v for name, _, v in b["parts"]} for b in meta["breakdown"]["bars"]}
    assert bars["overlapped\n(model)"][bar] == pytest.approx(expected, rel=1e-9)


def test_fsdp_gathers_and_cp_ring_run_on_the_communication_stream():
    events, _ = scenario_trace(fsdp_scenario(cp=2, tp=2))
    comm_kinds = {e.kind for e in events if e.stream == COMM}
    assert {"fsdp", "cp"} <= comm_kinds
    # every layer of the first microbatch is laid out op by op, forward and backward
    layers = {(e.phase, e.layer) for e in events if e.microbatch == 0 and e.layer is not None}
    assert layers == {(p, layer) for p in ("forward", "backward") for layer in range(32)}


def test_chrome_trace_format():
    events, meta = scenario_trace(ROOT / "scenarios" / "llama2_70b_h100.yaml")
    trace = json.loads(json.dumps(chrome_trace(events, meta)))
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(events)
    assert {"name", "cat", "ts", "dur", "pid", "tid", "args"} <= set(complete[0])
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {"compute stream", "communication stream"}
    end_us = max(e["ts"] + e["dur"] for e in complete)
    assert end_us == pytest.approx(meta["iteration_time_s"] * 1e6, rel=1e-6)


def test_cli_writes_trace_and_figures(tmp_path):
    trace, plots = tmp_path / "t.json", tmp_path / "figs"
    result = subprocess.run([str(DSE), "evaluate", str(ROOT / "scenarios" / "mixtral_8x7b_h100.yaml"),
                             "--trace", str(trace), "--plot", str(plots), "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert len(record["files"]) == 5
    assert json.loads(trace.read_text())["traceEvents"]
    for stem in ("breakdown", "timeline"):
        for ext in ("png", "pdf"):
            assert (plots / f"{stem}.{ext}").stat().st_size > 1000


# ------------------------------------------------------------------ every kind of run
def serving(tp=1, pp=1, num_gpus=None, input_len=512, output_len=128, model="llama3.1-8b", precision="fp8", **inference):
    return {"name": "serve", "workload": "inference", "precision": precision, "model": model,
            "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": num_gpus or tp * pp}, "parallel": {"tp": tp, "pp": pp},
            "inference": {"input_len": input_len, "output_len": output_len, **inference}}


def dlrm(workload="train", **parallel):
    tables = [{"rows": r, "dim": 64, "pooling": p} for r, p in ((4_000_000, 1.0), (200_000, 3.0), (5_000, 1.0), (100, 1.0))]
    return {"name": "dlrm", "workload": workload, "precision": "bf16",
            "model": {"name": "small-dlrm", "family": "dlrm", "dense_features": 13, "tables": tables,
                      "bottom_mlp": [256, 64], "top_mlp": [512, 256, 1]},
            "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 16},
            "parallel": {"microbatch": 2048, "global_batch": 32768, **parallel}}


def vit(**parallel):
    return {"name": "vit", "precision": "bf16",
            "model": {"name": "ViT-L/16", "family": "vit", "layers": 24, "hidden": 1024, "heads": 16,
                      "ffn_hidden": 4096, "patch": 16, "image_size": 224},
            "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8},
            "parallel": {"tp": 1, "pp": 1, "microbatch": 32, "global_batch": 512, **parallel}}


SERVING = [serving(), serving(tp=4, model="llama2-70b"), serving(tp=4, pp=2, model="llama2-70b", input_len=8192),
           serving(tp=2, model="mixtral-8x7b", batch=8, output_len=512), serving(batch=4, input_len=20000, output_len=2),
           serving(output_len=1, precision="bf16"), serving(tp=2, batch=64, input_len=2048, phase="decode")]
DLRM = [dlrm(), dlrm("inference"), dlrm(emb_sharding="table"), dlrm(emb_sharding="row"),
        dlrm(emb_sharding="column"), dlrm(emb_sharding="data_parallel"), dlrm(zero=3), dlrm(tp=2),
        dlrm("inference", emb_sharding="table")]
VIT = [vit(), vit(tp=2), vit(pp=2, microbatch=8), vit(zero=3)]


def assert_stream_contiguous(events, start, end):
    """The compute stream runs back to back from ``start`` to ``end``, one op at a time; the
    communication stream never runs two collectives at once."""
    compute = sorted((e for e in events if e.stream == COMPUTE), key=lambda e: e.start)
    assert compute[0].start == pytest.approx(start, abs=1e-12)
    for a, b in zip(compute, compute[1:]):
        assert b.start == pytest.approx(a.end, rel=1e-9, abs=1e-15), (a, b)
    assert compute[-1].end == pytest.approx(end, rel=1e-6)
    assert sum(e.duration for e in compute) == pytest.approx(end - start, rel=1e-6)
    comm = sorted((e for e in events if e.stream == COMM), key=lambda e: e.start)
    for a, b in zip(comm, comm[1:]):
        assert b.start >= a.end - 1e-12 * max(end, 1.0), (a, b)
    assert all(e.duration > 0 for e in events)


@pytest.mark.parametrize("scenario", SERVING, ids=lambda s: f"tp{s['parallel']['tp']}pp{s['parallel']['pp']}-"
                         f"{s['inference']['input_len']}-{s['inference']['output_len']}")
def test_serving_trace_adds_up_to_ttft_and_itl(scenario):
    import dse

    row = dse.evaluate(scenario).iloc[0]
    ttft, itl = row["ttft_ms"] / 1e3, row["itl_ms"] / 1e3
    events, meta = scenario_trace(scenario)
    assert meta["ttft_s"] == pytest.approx(ttft, rel=1e-12) and meta["itl_s"] == pytest.approx(itl, rel=1e-12)
    steps = meta["decode_steps_shown"]
    assert steps == min(3, int(scenario["inference"]["output_len"]) - 1)
    assert meta["decode_steps_total"] == scenario["inference"]["output_len"] - 1
    assert_stream_contiguous(events, 0.0, ttft + steps * itl)
    prefill = [e for e in events if e.phase == "prefill"]
    assert max(e.end for e in prefill) == pytest.approx(ttft, rel=1e-6)
    for step in range(steps):  # every decode step lasts one ITL
        span = [e for e in events if e.phase == "decode" and e.step == step]
        assert sum(e.duration for e in span) == pytest.approx(itl, rel=1e-6)
    # the breakdown bars are the same terms: TTFT and ITL in ms
    bars = meta["breakdown"]["bars"]
    assert [b["total_s"] for b in bars] == pytest.approx([ttft * 1e3, itl * 1e3], rel=1e-6)
    # the first decode step is laid out per layer (GEMMs, KV-cache reads, tp all-reduces)
    first = {e.kind for e in events if e.phase == "decode" and e.step == 0 and e.layer == 0}
    if steps:
        assert {"gemm", "kv_read", "elementwise"} <= first
        assert ("tp" in first) == (scenario["parallel"]["tp"] > 1)


@pytest.mark.parametrize("scenario", DLRM, ids=lambda s: f"{s['workload']}-" + "-".join(
    f"{k}{v}" for k, v in s["parallel"].items() if k not in ("microbatch", "global_batch")))
def test_dlrm_trace_adds_up_to_the_step_time(scenario):
    import dse

    row = dse.evaluate(scenario).iloc[0]
    events, meta = scenario_trace(scenario)
    assert meta["emb_sharding"] == row["emb_sharding"]
    assert meta["iteration_time_s"] == pytest.approx(row["iteration_time_s"], rel=1e-12)
    assert_stream_contiguous(events, 0.0, row["iteration_time_s"])
    assert max(e.end for e in events) == pytest.approx(row["iteration_time_s"], rel=1e-6)
    exposed = sum(e.duration for e in events if e.stream == COMPUTE and e.kind == "a2a")
    assert exposed == pytest.approx(row["exposed_a2a_s"], rel=1e-6, abs=1e-15)
    a2a = sum(e.duration for e in events if e.stream == COMM and e.kind == "a2a")
    assert a2a == pytest.approx(row["a2a_s"], rel=1e-6, abs=1e-15)
    training = scenario["workload"] == "train"
    assert any(e.phase == "backward" for e in events) == training
    if training:
        assert {"embedding", "gemm", "interaction", "optimizer"} <= {e.kind for e in events}
        # the backward respects its data: the gradient all-to-all starts after the interaction's
        # backward that produces it, the sparse update after the all-to-all (FSDP's gathers, which
        # hold the stream first, are drawn as one exposed block: not checked), the optimizer step
        # after the last collective
        back = {e.name: e for e in events if e.phase == "backward"}
        update, opt = back["sparse embedding update"], back["dense optimizer step"]
        a2a = back.get("embedding gradient all-to-all")
        if a2a is not None and a2a.stream == COMM and scenario["parallel"].get("zero", 0) < 3:
            inter = next(e for e in events if e.phase == "backward" and e.kind == "interaction")
            assert a2a.start >= inter.end - 1e-12
            assert update.start >= a2a.end - 1e-12
        last = max((e.end for e in events if e.phase == "backward" and e.stream == COMM), default=0.0)
        assert opt.start >= last - 1e-12
    serialized, overlapped = meta["breakdown"]["bars"]
    assert overlapped["total_s"] == pytest.approx(row["iteration_time_s"] * 1e3, rel=1e-6)
    assert serialized["total_s"] >= overlapped["total_s"] * (1 - 1e-9) - row["time_overlap_slowdown_s"] * 1e3


@pytest.mark.parametrize("scenario", VIT, ids=lambda s: "-".join(f"{k}{v}" for k, v in s["parallel"].items()))
def test_vit_trace_adds_up_to_the_iteration_time(scenario):
    import dse

    row = dse.evaluate(scenario).iloc[0]
    assert row["kind"] == "vit_train"
    events, meta = scenario_trace(scenario)
    compute = sorted((e for e in events if e.stream == COMPUTE), key=lambda e: e.start)
    for a, b in zip(compute, compute[1:]):
        assert b.start >= a.end - 1e-12, (a, b)
    assert compute[-1].end == pytest.approx(row["iteration_time_s"], rel=1e-6)
    names = {e.name for e in events}
    assert "classifier head + loss" in names and not any("LM head" in n for n in names)
    assert ("patch embedding" in names) == (scenario["parallel"].get("pp", 1) == 1)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(tp=st.sampled_from([1, 2, 4, 8]), pp=st.sampled_from([1, 2]), input_len=st.integers(1, 16384),
       output_len=st.integers(1, 4096), batch=st.sampled_from([0, 1, 3, 64, 500]))
def test_serving_trace_sums_hold_for_any_plan(tp, pp, input_len, output_len, batch):
    """TTFT and ITL of the cost model's sweep path equal the trace's sums (hypothesis)."""
    from dse.costmodel.inference import evaluate_inference
    from dse.workloads.inference import inference_columns
    import dse

    spec = dse.load_scenario(serving(tp=tp, pp=pp, model="llama2-70b", input_len=input_len,
                                     output_len=output_len, batch=batch or None))
    sweep = evaluate_inference(inference_columns(spec))
    events, meta = scenario_trace(spec)
    ttft, itl = sweep["ttft_ms"][0] / 1e3, sweep["itl_ms"][0] / 1e3
    steps = meta["decode_steps_shown"]
    assert_stream_contiguous(events, 0.0, ttft + steps * itl)
    assert max(e.end for e in events if e.phase == "prefill") == pytest.approx(ttft, rel=1e-6)


@pytest.mark.parametrize("scenario", [SERVING[2], DLRM[0], DLRM[1], VIT[0]], ids=["serving", "dlrm", "dlrm-inf", "vit"])
def test_chrome_trace_of_every_kind(scenario):
    events, meta = scenario_trace(scenario)
    trace = json.loads(json.dumps(chrome_trace(events, meta), allow_nan=False))
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(events)
    for e in complete:
        assert {"name", "cat", "ph", "ts", "dur", "pid", "tid", "args"} <= set(e)
        assert e["pid"] == 0 and e["tid"] in (COMPUTE, COMM) and e["dur"] > 0 and e["ts"] >= 0
    for tid in (COMPUTE, COMM):  # microseconds, rounded to 1 ns: no two events of a stream overlap
        stream = sorted((e for e in complete if e["tid"] == tid), key=lambda e: e["ts"])
        for a, b in zip(stream, stream[1:]):
            assert b["ts"] >= a["ts"] + a["dur"] - 2e-3, (a, b)
    meta_names = [e for e in trace["traceEvents"] if e["ph"] == "M"]
    assert {e["args"]["name"] for e in meta_names if e["name"] == "thread_name"} == {"compute stream",
                                                                                      "communication stream"}
    assert trace["otherData"]["kind"] == meta["kind"] and trace["otherData"]["breakdown"]["bars"]
    end = meta.get("trace_end_s", meta["iteration_time_s"])
    # timestamps are rounded to 1 ns: within 1e-3 us of the end whatever the step's length
    assert max(e["ts"] + e["dur"] for e in complete) == pytest.approx(end * 1e6, rel=1e-6, abs=1e-3)


@pytest.mark.parametrize("kind", ["llm_inference", "dlrm_train", "dlrm_inference", "vit_train"])
def test_cli_writes_trace_and_figures_for_every_kind(kind, tmp_path):
    import yaml

    scenario = {"llm_inference": SERVING[1], "dlrm_train": DLRM[0], "dlrm_inference": DLRM[1],
                "vit_train": VIT[0]}[kind]
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(scenario))
    trace, plots = tmp_path / "t.json", tmp_path / "figs"
    result = subprocess.run([str(DSE), "evaluate", str(path), "--trace", str(trace), "--plot", str(plots), "--json"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["kind"] == kind and len(record["files"]) == 5
    assert json.loads(trace.read_text())["otherData"]["kind"] == kind
    for stem in ("breakdown", "timeline"):
        for ext in ("png", "pdf"):
            assert (plots / f"{stem}.{ext}").stat().st_size > 1000


@pytest.mark.parametrize("cross", [False, True])
def test_overlapped_expert_all_to_alls_are_drawn_on_the_communication_stream(cross):
    """With overlap.ep, each layer's all-to-all time that hides under compute sits on the
    communication stream (from the FFN block on, under its shared expert, or from the layer's
    start when it hides under another microbatch's layer); its exposed part stays on the compute
    stream. (Mixtral with one shared expert added: without one nothing hides within a layer.)"""
    from dse.api import scenario_columns
    from dse.costmodel.training import evaluate_training_detail
    import dse
    model = {"preset": "mixtral-8x7b", "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 14336,
                                               "shared_experts": 1}}
    scenario = {"model": model, "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
                "parallel": {"tp": 1, "pp": 1, "ep": 8, "microbatch": 1, "global_batch": 64},
                "training": {"overlap": {"ep": True}, "ep_overlap_across_microbatches": cross}}
    events, _ = scenario_trace(scenario)
    detail = {k: float(v[0]) for k, v in evaluate_training_detail(scenario_columns(dse.load_scenario(scenario))).items()}
    hidden = [e for e in events if e.stream == COMM and e.kind == "ep" and e.microbatch == 0 and e.phase == "forward"]
    assert len(hidden) == 32
    per_layer = detail["detail_ep_f"] - detail["detail_ep_exposed_f"]
    assert per_layer > 0
    assert all(e.duration == pytest.approx(per_layer, rel=1e-12) for e in hidden)
    layer0 = [e for e in events if e.microbatch == 0 and e.phase == "forward" and e.layer == 0]
    ffn = next(e for e in layer0 if e.name == "FFN / experts")
    first = min(e.start for e in layer0)
    assert hidden[0].start == pytest.approx(first if cross else ffn.start, abs=1e-12)


# ------------------------------------------------------------------ one layer's compute
@pytest.mark.parametrize("gpu, softmax", [("B200", True), ("H100-SXM-80GB", True), ("A100-SXM-80GB", True)])
def test_layer_compute_adds_up_to_the_models_layer(gpu, softmax):
    """The ops of dse evaluate's layer table are the cost model's own: their forward sum is the
    layer's forward compute, and the softmax share is what a free SFU would save."""
    from dse.costmodel.training import evaluate_training_detail
    from dse.trace import layer_compute

    spec = dse.load_scenario({"model": "llama2-7b", "cluster": {"gpu": gpu, "num_gpus": 8},
                              "parallel": {"tp": 1, "global_batch": 64}})
    got = layer_compute(spec)
    out = {k: float(v[0]) for k, v in evaluate_training_detail(dse.scenario_columns(spec)).items()}
    assert sum(f for f, _ in got["ops"].values()) == pytest.approx(out["detail_layer_f"], rel=1e-9)
    soft_f, soft_b = got["softmax_s"]
    attn_f, attn_b = got["ops"]["attention"]
    assert 0 < soft_f < attn_f and 0 < soft_b < attn_b
    # forward, P = 4d = 512 FLOPs per exponential and x = R/P: the kernel takes (1 + x^2)^(1/2) of
    # what it would with free exponentials, so they are 1 - 1/(1 + x^2)^(1/2) of its time
    R = dse.scenario_columns(spec)["peak_flops_16"] / dse.scenario_columns(spec)["exp_rate"]
    x = R / 512.0
    assert soft_f / attn_f == pytest.approx(1 - 1 / math.sqrt(1 + x * x), rel=1e-6)


def test_cli_evaluate_prints_the_layer_table(tmp_path):
    result = subprocess.run([str(DSE), "evaluate", str(ROOT / "scenarios" / "llama2_70b_h100.yaml")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Compute of one layer and microbatch" in result.stdout and "softmax exponentials" in result.stdout
    result = subprocess.run([str(DSE), "evaluate", str(ROOT / "scenarios" / "gpt_oss_120b_b200_serving.yaml"),
                             "--json"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "layer" not in json.loads(result.stdout)  # serving has no training layer


@pytest.mark.parametrize("path, cap", [("scenarios/llama2_70b_h100.yaml", 450.0), ("scenarios/dlrm_a_zionex128.yaml", 200.0),
                                       ("scenarios/gpt_oss_120b_b200_serving.yaml", 450.0)])
def test_the_model_bar_adds_up_to_the_step_under_a_lower_power_limit(path, cap):
    """A power limit below the datasheet's stretches the step; the breakdown shows the stretch
    as its own part, so the model's bar is still the step the cost model gives."""
    import yaml

    scenario = yaml.safe_load((ROOT / path).read_text())
    scenario["cluster"]["power_w"] = cap
    _, meta = scenario_trace(scenario)
    bars = meta["breakdown"]["bars"]
    parts = [p for bar in bars for p in bar["parts"]]
    assert any(kind == "power_cap" and v > 0 for _, kind, v in parts)
    row = dse.evaluate(scenario).iloc[0]
    model_bar = bars[-1] if meta["breakdown"]["unit"] == "s" else None
    if model_bar is not None:  # training: the overlapped bar is the iteration
        assert model_bar["total_s"] == pytest.approx(row["iteration_time_s"], rel=1e-6)
    elif "ITL" in bars[-1]["label"]:  # serving: the decode-step bar is what a sequence decodes through, ms
        assert bars[-1]["total_s"] == pytest.approx(row["itl_ms"] * row["spec_gain"], rel=1e-6)
    else:  # DLRM: the overlapped bar is the step, ms
        assert bars[-1]["total_s"] == pytest.approx(row["iteration_time_s"] * 1e3, rel=1e-6)


# ------------------------------------------------------------------------------ figure styles
def _grey(colour: str) -> bool:
    r, g, b = (int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return r == g == b


def test_timeline_kinds_that_were_near_identical_greys_are_told_apart():
    """Bubble and overlap slowdown are hatched (as in the search figure), elementwise has a
    colour, and the later-pass blocks are the only greys (light forward, dark backward)."""
    from dse.trace_plot import KIND_COLOURS, KIND_HATCHES, _style

    kinds = ("bubble", "elementwise", "forward", "backward", "slowdown")
    looks = {k: (KIND_COLOURS[k], KIND_HATCHES.get(k)) for k in kinds}
    assert len(set(looks.values())) == len(kinds)
    assert KIND_HATCHES["bubble"] and KIND_HATCHES["slowdown"] and not _grey(KIND_COLOURS["elementwise"])
    assert [k for k in kinds if _grey(KIND_COLOURS[k]) and k not in KIND_HATCHES] == ["forward", "backward"]
    assert _style("slowdown", edge=True)["hatch"] == "////"


def test_a_training_row_breakdown_draws_the_overlap_slowdown_as_its_own_part(tmp_path):
    """The slowdown of compute under hidden communication is its own part of the model's bar
    (drawn hatched, as in the search figures), the serialized bar has none, and the model's
    parts still add up to the iteration."""
    from dse.trace import training_breakdown
    from dse.trace_plot import plot_breakdown

    row = dse.evaluate(ROOT / "scenarios" / "llama2_70b_h100.yaml").iloc[0].to_dict()
    assert row["time_overlap_slowdown_s"] > 0
    serialized, overlapped = (
        {name: value for name, _, value in bar["parts"]} for bar in training_breakdown(row)["bars"])
    assert overlapped["overlap slowdown"] == row["time_overlap_slowdown_s"]
    assert "overlap slowdown" not in serialized  # a serialized schedule hides nothing
    assert serialized["compute"] == overlapped["compute"] == row["time_compute_s"]
    assert sum(overlapped.values()) == pytest.approx(row["iteration_time_s"], rel=1e-9)
    assert {p.name for p in plot_breakdown(row, tmp_path)} == {"breakdown.png", "breakdown.pdf"}


def test_a_deployments_instances_are_drawn_each_as_its_own_phase(tmp_path):
    """A prefill instance's trace is its prompt's iterations (= TTFT, no decode steps); a decode
    instance's starts with one decode iteration (its TTFT) and then decodes; dse evaluate
    --trace/--plot writes one of each beside the path given."""
    from dse.workloads.inference import deployment_instances

    spec = dse.load_scenario(ROOT / "scenarios" / "llama3_70b_disaggregated_h100.yaml")
    row = dse.evaluate(spec).iloc[0]
    prefill, decode = deployment_instances(spec, row)
    events, meta = scenario_trace(prefill)
    ttft = dse.evaluate(prefill).iloc[0]["ttft_ms"] / 1e3
    assert meta["phase"] == "prefill instance" and meta["decode_steps_total"] == 0
    assert {e.phase for e in events} == {"prefill"}
    assert max(e.end for e in events) == pytest.approx(ttft, rel=1e-6) == meta["trace_end_s"]
    assert [b["label"] for b in meta["breakdown"]["bars"]] == ["prefill\n(TTFT)"]
    events, meta = scenario_trace(decode)
    assert meta["phase"] == "decode instance" and meta["decode_steps_shown"] == 3
    result = subprocess.run([str(DSE), "evaluate", str(ROOT / "scenarios" / "llama3_70b_disaggregated_h100.yaml"),
                             "--trace", str(tmp_path / "t.json"), "--plot", str(tmp_path / "plots"), "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    files = json.loads(result.stdout)["files"]
    for side in ("prefill", "decode"):
        assert str(tmp_path / f"t.{side}.json") in files
        trace = json.loads((tmp_path / f"t.{side}.json").read_text())
        assert trace["traceEvents"] and f"{side} instance" in trace["otherData"]["scenario"]
        assert (tmp_path / "plots" / side / "timeline.png").stat().st_size > 0
