"""The host-bound MoE layer: Megatron-core's dispatcher reads the routed-token counts on the host
every layer, so the host's launch time H of a layer runs beside the GPU's time G and the layer
takes (G^2 + H^2)^(1/2) (``moe_host_layer`` + ``moe_host_expert`` per local expert)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel.training import evaluate_training, evaluate_training_detail
from dse.presets import calibration_table

#: Qwen3-30B-A3B-like MoE (every layer routed, 128 experts, top-8) on 8 H100s.
QWEN = {"name": "qwen-like", "family": "moe", "layers": 48, "hidden": 2048, "heads": 32, "kv_heads": 4,
        "head_dim": 128, "ffn_hidden": 768, "ffn_act": "swiglu", "vocab": 151936, "seq_len": 4096,
        "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 768}}


def cols(ep=8, microbatch=1, global_batch=64, training=None, model=QWEN, num_gpus=8):
    scenario = {"model": model, "precision": "bf16",
                "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": num_gpus},
                "parallel": {"tp": 1, "ep": ep, "microbatch": microbatch, "global_batch": global_batch}}
    if training is not None:
        scenario["training"] = training
    return dse.scenario_columns(dse.load_scenario(scenario))


def one(c):
    return {k: float(np.asarray(v)[0]) for k, v in evaluate_training_detail(c).items()}


def test_the_calibrated_host_time_enters_moe_scenarios_only():
    calib = calibration_table()["hopper"]
    c = cols()
    assert c["moe_host_layer"] == pytest.approx(calib["moe_host_layer_us"] * 1e-6)
    assert c["moe_host_expert"] == pytest.approx(calib["moe_host_expert_us"] * 1e-6)
    off = cols(training={"moe_cuda_graphs": True})
    assert off["moe_host_layer"] == off["moe_host_expert"] == 0.0
    dense = dse.scenario_columns(dse.load_scenario(
        {"model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
         "parallel": {"tp": 1, "global_batch": 64}}))
    assert dense["moe_host_layer"] == dense["moe_host_expert"] == 0.0
    assert one(dense)["host_stall_s"] == 0.0


def test_host_stall_by_hand():
    """One microbatch of 4,096 tokens per GPU, 16 local experts, host 2 ms + 0.5 ms per expert."""
    c = {**cols(), "moe_host_layer": 2e-3, "moe_host_expert": 0.5e-3}
    out = one(c)
    g = out["detail_layer_f_time"] + out["detail_layer_b_time"]  # the GPU's time per layer and microbatch
    h = 2e-3 + 0.5e-3 * 128 / 8  # 10 ms to launch one layer's forward and backward
    stall = math.sqrt(g * g + h * h) - g
    assert out["host_stall_s"] == pytest.approx(out["microbatches"] * 48 * stall, rel=1e-9)
    base = one({**c, "moe_host_layer": 0.0, "moe_host_expert": 0.0})
    assert base["host_stall_s"] == 0.0
    assert out["iteration_time_s"] - base["iteration_time_s"] == pytest.approx(out["host_stall_s"], rel=1e-9)
    # everything else is the GPU's and unchanged
    for key in ("time_compute_s", "exposed_ep_s", "time_bubble_s", "memory_per_gpu_bytes"):
        assert out[key] == pytest.approx(base[key], rel=1e-12)


def test_the_breakdown_adds_up_with_a_host_stall():
    out = one(cols())
    assert out["host_stall_s"] > 0
    parts = ("time_compute_s", "time_bubble_s", "exposed_tp_s", "exposed_ep_s", "exposed_cp_s", "exposed_fsdp_s",
             "exposed_pp_s", "exposed_dp_s", "exposed_offload_s", "host_stall_s", "time_overlap_slowdown_s")
    assert sum(out[p] for p in parts) == pytest.approx(out["iteration_time_s"], rel=1e-9)


def test_fewer_local_experts_and_larger_microbatches_stall_less():
    rows = [cols(ep=1), cols(ep=8), cols(ep=8, microbatch=4)]
    batch = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    stall = evaluate_training(batch)["host_stall_s"]
    assert stall[0] > stall[1] > stall[2] > 0


@settings(max_examples=40, deadline=None)
@given(layer_us=st.floats(0.0, 20_000.0), expert_us=st.floats(0.0, 2_000.0), more=st.floats(1.0, 3.0),
       ep=st.sampled_from([1, 2, 4, 8]), microbatch=st.sampled_from([1, 2, 4]))
def test_a_slower_host_is_never_faster(layer_us, expert_us, more, ep, microbatch):
    c = cols(ep=ep, microbatch=microbatch)
    rows = [{**c, "moe_host_layer": layer_us * 1e-6, "moe_host_expert": expert_us * 1e-6},
            {**c, "moe_host_layer": more * layer_us * 1e-6, "moe_host_expert": more * expert_us * 1e-6}]
    batch = {k: np.array([r[k] for r in rows]) for k in rows[0]}
    it = evaluate_training(batch)["iteration_time_s"]
    assert it[1] >= it[0] * (1.0 - 1e-12)


def test_a_batch_mixing_host_bound_and_other_rows_scores_each_as_alone():
    rows = [cols(), cols(training={"moe_cuda_graphs": True}),
            dse.scenario_columns(dse.load_scenario({"model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB",
                                                    "num_gpus": 8}, "parallel": {"tp": 1, "global_batch": 64}}))]
    keys = sorted(set().union(*rows))
    batch = {k: np.array([r.get(k, 0.0) for r in rows]) for k in keys}
    together = evaluate_training(batch)["iteration_time_s"]
    for i, r in enumerate(rows):
        alone = evaluate_training({k: np.array([r.get(k, 0.0)]) for k in keys})["iteration_time_s"][0]
        assert together[i] == pytest.approx(alone, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(faster=st.floats(1.05, 3.0), layer_us=st.floats(0.0, 20_000.0), expert_us=st.floats(0.0, 2_000.0),
       ep=st.sampled_from([1, 2, 8]), zero=st.sampled_from([1, 2]))
def test_more_compute_is_never_slower_with_a_host_stall(faster, layer_us, expert_us, ep, zero):
    """A faster GPU waits longer for the host's MoE launches, but the data-parallel collectives
    run on their stream while it waits: more peak FLOP/s never lengthens the step (it did when
    the stall was left out of their overlap window)."""
    c = {**cols(ep=ep, num_gpus=16, global_batch=32), "zero": float(zero),
         "moe_host_layer": layer_us * 1e-6, "moe_host_expert": expert_us * 1e-6}
    base = one(c)
    quick = one({**c, "peak_flops": c["peak_flops"] * faster, "peak_flops_16": c["peak_flops_16"] * faster})
    assert quick["iteration_time_s"] <= base["iteration_time_s"] * (1 + 1e-9)
