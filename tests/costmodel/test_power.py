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


def test_without_a_reference_rate_the_shares_apply_as_they_are():
    np.testing.assert_allclose(power.rate_scaled(0.5, np.array([1e12, 2e12]), 0.0), [0.5, 0.5])
    np.testing.assert_allclose(power.rate_scaled(0.5, np.array([1e12, 2e12]), 1e12), [0.5, 1.0])
