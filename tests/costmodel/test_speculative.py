"""Speculative decoding in the serving cost model (dse/costmodel/inference.py): the expected
tokens per iteration, the time per output token, the drafts' cost, properties (hypothesis), the
input checks, and DeepSeek-V3's published MTP speed-up."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dse
from dse.costmodel.inference import evaluate_inference

from test_inference import PROPERTY, columns, one


def gain(k, alpha):
    """Tokens a sequence emits per iteration with k drafts accepted with probability alpha each
    (given the earlier ones): 1 + alpha + ... + alpha^k."""
    return sum(alpha**i for i in range(k + 1))


@pytest.mark.parametrize("k, alpha", [(1, 0.0), (1, 0.85), (3, 0.7), (3, 1.0), (5, 0.5)])
def test_a_decode_instance_emits_the_expected_accepted_tokens_per_iteration(k, alpha):
    cols = columns(model="llama3.1-8b", input_len=1000, output_len=1000, phase="decode", batch=64)
    out = one(cols, spec_tokens=float(k), spec_acceptance=alpha)
    expected = gain(k, alpha)
    assert out["tokens_per_s"] == pytest.approx(64 * expected / out["iteration_time_s"], rel=1e-9)
    assert out["itl_ms"] == pytest.approx(1e3 * out["iteration_time_s"] / expected, rel=1e-9)


def test_drafts_and_verification_cost_time_and_free_perfect_drafts_pay_only_the_verification():
    cols = columns(model="llama3.1-8b", input_len=1000, output_len=1000, phase="decode", batch=8)
    plain = one(cols)
    mtp = one(cols, spec_tokens=2.0, spec_acceptance=1.0)
    free = one(cols, spec_tokens=2.0, spec_acceptance=1.0, draft_layers=0.0)
    # each iteration runs 3 tokens per sequence through the target, and 2 draft passes before it
    assert plain["iteration_time_s"] < free["iteration_time_s"] < mtp["iteration_time_s"]
    # at 8 sequences the verification reads the same weights and KV: far cheaper than 3 iterations
    assert free["iteration_time_s"] < 1.5 * plain["iteration_time_s"]
    assert mtp["tokens_per_s"] > 2 * plain["tokens_per_s"]
    # an MTP module is one layer of the target's shape (+ the LM head): about 1/32 of an 8B step each
    draft = mtp["iteration_time_s"] - free["iteration_time_s"]
    assert 0 < draft < 2 * (2.0 / 32 + 0.1) * plain["iteration_time_s"]


def test_rejected_drafts_only_cost():
    cols = columns(model="llama3.1-8b", input_len=1000, output_len=1000, batch=64)
    assert one(cols, spec_tokens=3.0, spec_acceptance=0.0)["tokens_per_s"] < one(cols)["tokens_per_s"]


def test_without_drafts_nothing_changes():
    cols = columns(model="mixtral-8x7b", input_len=2000, output_len=300, tp=2)
    base, same = one(cols), one(cols, spec_tokens=0.0, spec_acceptance=0.9, draft_layers=4.0)
    assert base == same


@PROPERTY
@given(st.lists(st.tuples(st.sampled_from([1, 2, 4]), st.floats(0.0, 0.99), st.floats(0.001, 0.01),
                          st.sampled_from([0, 16, 256])), min_size=1, max_size=16))
def test_higher_acceptance_is_never_slower(rows):
    base = columns(model="llama3.1-8b", input_len=512, output_len=512)
    cols = {k: np.full(len(rows), v, dtype=np.float64) for k, v in base.items()}
    cols["spec_tokens"] = np.array([r[0] for r in rows], dtype=np.float64)
    cols["spec_acceptance"] = np.array([r[1] for r in rows])
    cols["batch"] = np.array([r[3] for r in rows], dtype=np.float64)
    better = {**cols, "spec_acceptance": np.minimum(cols["spec_acceptance"] + np.array([r[2] for r in rows]), 1.0)}
    low, high = evaluate_inference(cols), evaluate_inference(better)
    assert (high["tokens_per_s"] >= low["tokens_per_s"] * (1 - 1e-9)).all()
    assert (high["itl_ms"] <= low["itl_ms"] * (1 + 1e-9)).all()


def test_scenario_fields_and_a_clear_error_without_the_acceptance():
    scenario = {"workload": "inference", "precision": "fp8", "model": "llama3.1-8b",
                "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1},
                "inference": {"input_len": 1000, "output_len": 1000, "speculative_tokens": 3}}
    with pytest.raises(dse.InputError, match="draft_acceptance"):
        dse.evaluate(scenario)
    scenario["inference"]["draft_acceptance"] = 0.8
    row = dse.evaluate(scenario).iloc[0]
    assert row["spec_tokens"] == 3 and row["spec_acceptance"] == 0.8 and row["draft_layers"] == 1
    scenario["inference"]["draft_acceptance"] = 1.5
    with pytest.raises(dse.InputError, match="draft_acceptance"):
        dse.evaluate(scenario)


def test_deepseek_v3_mtp_speedup_matches_the_report():
    """DeepSeek-V3 technical report (arXiv 2412.19437, Sec. 5.4.3): its MTP module's second token
    is accepted 85-90% of the time, "delivering 1.8 times TPS". One client on 16 H800-class GPUs:
    dse gives 1.7-1.8x for one MTP module at those acceptances."""
    scenario = {"workload": "inference", "precision": "fp8", "model": "deepseek-v3",
                "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16, "nvlink_gbps": 400}, "parallel": {"tp": 16},
                "inference": {"input_len": 1000, "output_len": 1000, "concurrency": 1}}
    plain = dse.evaluate(scenario).iloc[0]["tokens_per_s"]
    for alpha in (0.85, 0.90):
        scenario["inference"].update(speculative_tokens=1, draft_acceptance=alpha)
        ratio = dse.evaluate(scenario).iloc[0]["tokens_per_s"] / plain
        assert ratio == pytest.approx(1.8, rel=0.06), (alpha, ratio)


def test_trace_of_a_drafting_engine_draws_iterations_and_counts_tokens():
    from dse.trace import scenario_trace

    scenario = dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": "llama3.1-8b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1},
        "inference": {"input_len": 1000, "output_len": 1001, "batch": 4, "speculative_tokens": 3,
                      "draft_acceptance": 0.5}})
    _, meta = scenario_trace(scenario)
    per_step = dse.evaluate(scenario).iloc[0]["spec_gain"]
    assert per_step == pytest.approx(1 + 0.5 + 0.25 + 0.125, rel=1e-9)
    assert meta["decode_steps_total"] == int(np.ceil(1000 / per_step))
    assert meta["totals_s"]["request"] == pytest.approx(meta["ttft_s"] + 1000 * meta["itl_s"], rel=1e-9)


def test_the_draft_holds_its_weights_and_its_own_kv_cache():
    """draft_layers layers of the target's shape hold their weights and a KV cache of their own:
    Llama-3.1-8B BF16, one draft layer, one H100: the weights grow by one layer's (attention
    4096 x (32 + 2 x 8) x 128 + 32 x 128 x 4096, FFN 3 x 4096 x 14336, two norms) and the KV per
    token by a 33rd layer's share, 8 x 128 x 2 x 2 bytes."""
    base = columns(model="llama3.1-8b", precision="bf16", input_len=1000, output_len=1000, batch=8)
    a = one(base)
    b = one({**base, "spec_tokens": 2.0, "spec_acceptance": 0.8, "draft_layers": 1.0})
    layer = 2 * (4096 * 48 * 128 + 32 * 128 * 4096 + 3 * 4096 * 14336 + 2 * 4096)
    assert b["memory_weights_bytes"] - a["memory_weights_bytes"] == pytest.approx(layer, rel=1e-12)
    assert b["kv_bytes_per_token"] - a["kv_bytes_per_token"] == pytest.approx(8 * 128 * 2 * 2, rel=1e-12)
    assert b["kv_bytes_per_token"] == pytest.approx(a["kv_bytes_per_token"] * 33 / 32, rel=1e-12)
