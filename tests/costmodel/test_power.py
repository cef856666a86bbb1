"""Average board power (dse/costmodel/power.py) and the energy the cost models derive from it:
bounds, monotonicity (hypothesis), the split of busy time, and the regimes it must tell apart
(memory-bound decode well below TDP, compute-bound training and prefill near it)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dse.costmodel import evaluate_training
from dse.costmodel import power
from dse.costmodel.inference import evaluate_inference

from test_inference import PROPERTY, columns, one
from test_properties import LLAMA, batch, configs

fractions = st.floats(0.0, 1.0)
seconds = st.floats(0.0, 10.0)


@PROPERTY
@given(tdp=st.floats(50.0, 2000.0), idle=fractions, tensor=fractions, hbm=fractions,
       tensor_s=seconds, memory_s=seconds, period=st.floats(1e-3, 10.0))
def test_power_lies_between_idle_and_the_power_limit(tdp, idle, tensor, hbm, tensor_s, memory_s, period):
    watts = power.average_power(tdp, idle, tensor, hbm, tensor_s, memory_s, period)
    assert idle * tdp * (1 - 1e-12) <= watts <= tdp * (1 + 1e-12)


@PROPERTY
@given(idle=fractions, tensor=fractions, hbm=fractions, tensor_s=seconds, memory_s=seconds,
       more=st.floats(0.0, 5.0))
def test_more_busy_time_in_the_same_period_never_draws_less(idle, tensor, hbm, tensor_s, memory_s, more):
    base = power.average_power(700.0, idle, tensor, hbm, tensor_s, memory_s, 10.0)
    assert power.average_power(700.0, idle, tensor, hbm, tensor_s + more, memory_s, 10.0) >= base
    assert power.average_power(700.0, idle, tensor, hbm, tensor_s, memory_s + more, 10.0) >= base


def test_power_by_hand():
    # 700 W board, 10% idle; 2 s of 4 tensor-bound at 0.9 and 1 s memory-bound at 0.3
    watts = power.average_power(700.0, 0.1, 0.9, 0.3, 2.0, 1.0, 4.0)
    assert watts == pytest.approx(70.0 + 630.0 * (0.9 * 2 + 0.3 * 1) / 4)
    # nothing to do: idle; flat out: the limit
    assert power.average_power(700.0, 0.1, 0.9, 0.3, 0.0, 0.0, 4.0) == pytest.approx(70.0)
    assert power.average_power(700.0, 0.1, 1.0, 1.0, 4.0, 0.0, 4.0) == pytest.approx(700.0)


def test_busy_time_splits_into_tensor_and_memory_time():
    tensor, memory = power.busy_split(np.array([1e15, 1e15, 0.0]), np.array([5e14, 5e14, 5e14]),
                                      np.array([3.0, 1.0, 2.0]))
    np.testing.assert_allclose(tensor, [2.0, 1.0, 0.0])  # FLOPs at the rate, never beyond the busy time
    np.testing.assert_allclose(memory, [1.0, 0.0, 2.0])


# ---------------------------------------------------------------------------- cost models
@PROPERTY
@given(rows=configs)
def test_training_power_is_bounded_and_energy_is_power_times_gpu_time(rows):
    out = evaluate_training(batch(rows))
    c = batch(rows)
    tdp, idle = c["power_w"], c["power_idle"]
    assert np.all(out["power_per_gpu_w"] <= tdp * (1 + 1e-12))
    assert np.all(out["power_per_gpu_w"] >= idle * tdp * (1 - 1e-12))
    tokens = c["global_batch"] * c["seq_len"]
    gpu_time = out["iteration_time_s"] * c["num_gpus"]
    np.testing.assert_allclose(out["energy_per_token_j"], out["power_per_gpu_w"] * gpu_time / tokens, rtol=1e-12)


def test_decode_at_batch_1_draws_far_less_than_a_compute_bound_prefill():
    cols = columns(model="llama3.1-70b", tp=1, input_len=1000, output_len=1000)
    decode = one(cols, phase=2.0, batch=1.0)
    prefill = one(cols, phase=1.0)
    tdp, idle = cols["power_w"], cols["power_idle"] * cols["power_w"]
    # weight streaming: the memory-bound share of the dynamic range, not the power limit
    assert decode["power_per_gpu_w"] <= idle + cols["power_hbm"] * (tdp - idle) + 1e-9
    assert decode["power_per_gpu_w"] < 0.8 * tdp
    assert prefill["power_per_gpu_w"] > 0.9 * tdp  # GEMMs at their achieved rate: at the limit
    # a fuller decode batch does more work per second: never less power
    full = one(cols, phase=2.0, batch=256.0)
    assert decode["power_per_gpu_w"] <= full["power_per_gpu_w"]


def test_a_large_training_step_runs_near_the_power_limit():
    row = {"tp": 8, "pp": 1, "dp": 8, "cp": 1, "ep": 1, "microbatch": 1, "vpp": 1, "sp": 1, "zero": 1,
           "recompute": 0, "global_batch": 512, "num_gpus": 64}
    out = evaluate_training(batch([row]))
    assert out["power_per_gpu_w"][0] > 0.8 * LLAMA["power_w"]


def test_energy_never_exceeds_the_power_limit_times_the_gpu_time_in_serving():
    cols = columns(model="mixtral-8x7b", tp=2, input_len=2000, output_len=300)
    for changes in ({}, {"batch": 1.0}, {"concurrency": 4.0}, {"request_rate": 0.05}):
        out = one(cols, **changes)
        bound = cols["power_w"] / out["tokens_per_s_per_gpu"]
        assert 0 < out["energy_per_token_j"] <= bound * (1 + 1e-12)


def test_an_engine_idling_between_requests_draws_close_to_idle():
    cols = columns(model="llama3.1-8b", tp=1, input_len=500, output_len=200)
    busy = one(cols, batch=1.0)
    sparse = one(cols, request_rate=0.01)  # one request every 100 s, served in about a second
    assert sparse["power_per_gpu_w"] < busy["power_per_gpu_w"]
    assert sparse["power_per_gpu_w"] < 1.1 * cols["power_idle"] * cols["power_w"]


def test_serving_outputs_the_power_for_every_row():
    cols = columns(model="llama3.1-8b")
    out = evaluate_inference({**cols, "batch": np.array([1.0, 8.0, 64.0])})
    assert np.all(np.diff(out["power_per_gpu_w"]) >= 0)


def test_faster_hbm_moves_the_same_bytes_for_the_same_dynamic_energy():
    """Energy per byte is the silicon's: a what-if GPU with twice the HBM bandwidth (same
    reference) streams a memory-bound decode in about half the time at about twice the dynamic
    power, so the dynamic energy per token stays; only the idle floor's share falls."""
    cols = columns(model="llama3.1-70b", tp=1, input_len=1000, output_len=1000)
    ref = {"power_ref_hbm_bw": cols["hbm_bw"], "power_ref_flops": cols["peak_flops"]}
    base = one(cols, phase=2.0, batch=1.0, **ref)
    fast = one(cols, phase=2.0, batch=1.0, hbm_bw=2.0 * cols["hbm_bw"], **ref)
    idle = cols["power_idle"] * cols["power_w"]

    def dynamic_per_token(out):
        return (out["power_per_gpu_w"] - idle) / out["tokens_per_s_per_gpu"]

    assert fast["tokens_per_s_per_gpu"] > 1.6 * base["tokens_per_s_per_gpu"]
    assert fast["power_per_gpu_w"] > base["power_per_gpu_w"]
    assert dynamic_per_token(fast) == pytest.approx(dynamic_per_token(base), rel=0.1)
    assert fast["energy_per_token_j"] < base["energy_per_token_j"]


def test_time_hbm_does_not_pace_draws_the_datasheet_share_whatever_the_bandwidth():
    """Exposed collectives (paced by the links) and attention kernels draw the memory-bound share
    as measured on the datasheet GPU: a what-if with 4x the HBM bandwidth bills the same power
    for them, while HBM-bound time draws 4x the dynamic power (same energy per byte)."""
    c = {"power_w": 700.0, "power_ref_w": 0.0, "power_idle": 0.2, "power_tensor": 1.0, "power_hbm": 0.2,
         "peak_flops": 1e15, "power_ref_flops": 1e15, "hbm_bw": 3e12, "power_ref_hbm_bw": 3e12}
    fast = {**c, "hbm_bw": 12e12}
    idle_w = 0.2 * 700.0
    span = 700.0 - idle_w
    for cols in (c, fast):
        w, _ = power.step_power(cols, 0.0, 0.0, 1.0, 0.5)
        assert w == pytest.approx(idle_w + span * 0.2 * 0.5, rel=1e-12)
    w1, _ = power.step_power(c, 0.0, 0.1, 1.0, 0.5)
    w4, _ = power.step_power(fast, 0.0, 0.1, 1.0, 0.5)
    assert w1 == pytest.approx(idle_w + span * 0.2 * (0.1 + 0.5), rel=1e-12)
    assert w4 == pytest.approx(idle_w + span * (0.8 * 0.1 + 0.2 * 0.5), rel=1e-12)


def test_faster_hbm_never_slows_an_attention_bound_step_under_a_power_limit():
    """Regression: Llama-3-8B, FP8, 64k-token sequences (attention-bound, its kernels in 16 bits)
    on 8 H100 held at 500 W got slower and costlier with faster HBM (3.35 -> 13.4 TB/s: 13.07 ->
    14.20 s, the time the clocks were slowed 1.19 -> 2.68 s), because the attention kernels' and
    the collectives' time drew the HBM share scaled by the bandwidth."""
    import dse

    def scenario(tbps):
        return dse.load_scenario({
            "workload": "train", "precision": "fp8", "model": {"preset": "llama3-8b", "seq_len": 65536},
            "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8, "hbm_tbps": tbps, "power_w": 500,
                        "efficiency": {"attention": 0.268}},
            "parallel": {"tp": 1, "dp": 4, "cp": 2, "zero": 3, "recompute": "full", "microbatch": 1,
                         "global_batch": 4}})

    out = dse.evaluate([scenario(t) for t in (3.35, 6.7, 13.4)])
    assert out["time_power_cap_s"].iloc[0] > 0  # the limit binds
    assert np.all(np.diff(out["iteration_time_s"].to_numpy()) < 0)
    assert np.all(np.diff(out["energy_per_token_j"].to_numpy()) < 0)


def test_without_a_reference_rate_the_shares_apply_as_they_are():
    np.testing.assert_allclose(power.rate_scaled(0.5, np.array([1e12, 2e12]), 0.0), [0.5, 0.5])
    np.testing.assert_allclose(power.rate_scaled(0.5, np.array([1e12, 2e12]), 1e12), [0.5, 1.0])


# ---------------------------------------------------------------------------- power limits
@PROPERTY
@given(cap=st.floats(100.0, 1400.0), idle=st.floats(0.05, 0.4), tensor=st.floats(0.1, 2.0),
       hbm=st.floats(0.1, 1.0), tensor_s=seconds, memory_s=seconds, k=st.sampled_from([1.0, 2.0, 3.0]))
def test_a_lower_power_limit_is_never_faster_and_holds_when_it_can(cap, idle, tensor, hbm, tensor_s, memory_s, k):
    period = tensor_s + memory_s + 1.0
    args = (700.0, idle, tensor, hbm, tensor_s, memory_s, period, k)
    watts, stretch = power.capped_power(cap, *args)
    lower_w, lower_stretch = power.capped_power(0.9 * cap, *args)
    assert stretch >= 1.0 and lower_stretch >= stretch * (1 - 1e-9)
    if cap >= 700.0:  # at or above the datasheet limit: the calibrated time, the step's own draw
        assert stretch == 1.0
        assert watts == pytest.approx(power.average_power(700.0, idle, tensor, hbm, tensor_s, memory_s, period))
    if cap > idle * 700.0 * 1.01:
        assert watts <= max(cap, idle * 700.0) * (1 + 1e-6)


def test_capping_a_gemm_bound_step_by_hand():
    # 700 W board, 100 W idle floor, a step tensor-bound all of its 1 s at the limit (demand 1.4)
    watts, stretch = power.capped_power(400.0, 700.0, 100 / 700, 1.4, 0.5, 1.0, 0.0, 1.0, 1.0)
    # k = 1: energy per FLOP kept, 600 J of dynamic energy at 300 W takes 2 s
    assert stretch == pytest.approx(2.0, rel=1e-6) and watts == pytest.approx(400.0, rel=1e-6)
    watts, stretch = power.capped_power(400.0, 700.0, 100 / 700, 1.4, 0.5, 1.0, 0.0, 1.0, 3.0)
    # k = 3: power falls as f^3, so f = (300/600)^(1/3) and the step takes 1/f
    assert stretch == pytest.approx(0.5 ** (-1 / 3), rel=1e-6) and watts == pytest.approx(400.0, rel=1e-6)


def test_a_memory_bound_decode_step_is_not_slowed_by_a_limit_above_its_draw():
    cols = columns(model="llama3.1-70b", tp=1, input_len=1000, output_len=1000)
    full = one(cols, phase=2.0, batch=1.0)
    capped = one(cols, phase=2.0, batch=1.0, power_w=0.8 * cols["power_w"], power_ref_w=cols["power_w"])
    assert full["power_per_gpu_w"] < 0.8 * cols["power_w"]
    assert capped["tokens_per_s"] == pytest.approx(full["tokens_per_s"], rel=1e-12)
    assert capped["time_power_cap_s"] == 0.0


def test_a_lower_limit_slows_a_gemm_bound_training_step_and_the_parts_still_add_up():
    row = {"tp": 8, "pp": 1, "dp": 8, "cp": 1, "ep": 1, "microbatch": 1, "vpp": 1, "sp": 1, "zero": 1,
           "recompute": 0, "global_batch": 512, "num_gpus": 64}
    base = evaluate_training(batch([row], power_ref_w=700.0))
    capped = evaluate_training(batch([row], power_w=500.0, power_ref_w=700.0))
    assert capped["iteration_time_s"][0] > base["iteration_time_s"][0]
    assert capped["power_per_gpu_w"][0] == pytest.approx(500.0, rel=1e-6)
    assert capped["energy_per_token_j"][0] < base["energy_per_token_j"][0]  # lower clocks, less energy per FLOP
    parts = ("time_compute_s", "time_bubble_s", "exposed_tp_s", "exposed_ep_s", "exposed_cp_s", "exposed_fsdp_s",
             "exposed_pp_s", "exposed_dp_s", "exposed_offload_s", "host_stall_s", "time_overlap_slowdown_s",
             "time_power_cap_s")
    assert sum(capped[k][0] for k in parts) == pytest.approx(capped["iteration_time_s"][0], rel=1e-9)


def test_faster_hbm_never_slows_a_power_capped_gb200_training_step():
    """Regression (diff review): GB200 NVL72 held at 350 W got slower from 8 to 64 TB/s (47.2 ->
    117.6 s a step), GEMM time below the GEMM rate drawing the HBM share scaled by the bandwidth."""
    import pathlib

    import yaml

    import dse

    base = yaml.safe_load((pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "codesign_nvl72.yaml").read_text())
    rows = []
    for tbps in (8.0, 16.0, 64.0):
        d = {**base, "cluster": {**base["cluster"], "power_w": 350, "hbm_tbps": tbps}}
        rows.append(dse.load_scenario(d))
    out = dse.evaluate(rows)
    assert out["time_power_cap_s"].iloc[0] > 0
    assert np.all(np.diff(out["iteration_time_s"].to_numpy()) <= 0)
    assert np.all(np.diff(out["energy_per_token_j"].to_numpy()) <= 0)
