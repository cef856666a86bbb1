"""Local attention (sliding-window and chunked layers): the mean-keys integrals against brute
force, hand-computed FLOPs and KV-cache sizes, identity when the window covers the sequence,
spec errors, and property tests (a smaller window is never slower and never needs more memory).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel import evaluate_training
from dse.costmodel.training import evaluate_training_detail
from dse.costmodel.flops import attention_span, mean_attended_keys, model_flops_per_token
from dse.costmodel.inference import evaluate_inference
from dse.errors import InputError
from dse.workloads.inference import inference_columns

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def brute_mean_keys(lo, hi, window, chunked, n=200_001):
    """Mean over a fine grid of query positions in [lo, hi] of the keys each attends to."""
    x = np.linspace(lo, hi, n)
    if window <= 0:
        keys = x
    elif chunked:
        keys = np.mod(x, window)
    else:
        keys = np.minimum(x, window)
    return float(np.mean(keys))


# ----------------------------------------------------------------------------- mean keys
@pytest.mark.parametrize("lo, hi, window, chunked", [
    (0, 8192, 0, 0), (0, 8192, 4096, 0), (0, 8192, 128, 0), (0, 20000, 8192, 1), (0, 5000, 8192, 1),
    (20000, 22000, 8192, 1), (20000, 22000, 4096, 0), (100, 300, 128, 0), (0, 3000, 1000, 1),
])
def test_mean_keys_match_brute_force(lo, hi, window, chunked):
    got = float(mean_attended_keys(lo, hi, float(window), float(chunked)))
    assert got == pytest.approx(brute_mean_keys(lo, hi, window, chunked), rel=1e-4)


def test_mean_keys_closed_forms():
    s, W = 8192.0, 1024.0
    assert mean_attended_keys(0.0, s, 0.0, 0.0) == s / 2  # full causal
    assert mean_attended_keys(0.0, s, W, 0.0) == pytest.approx(W - W * W / (2 * s))  # sliding
    assert mean_attended_keys(0.0, s, W, 1.0) == pytest.approx(W / 2)  # chunked, s a multiple of W
    assert mean_attended_keys(0.0, s, 2 * s, 0.0) == s / 2  # window covering the sequence
    assert mean_attended_keys(500.0, 500.0, W, 0.0) == 500.0  # a zero-width range: the keys at lo


# ----------------------------------------------------------------------------- training
def training_columns(model, num_gpus=8, parallel=None):
    scenario = dse.load_scenario({
        "model": model, "precision": "bf16",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": num_gpus},
        "parallel": parallel or {"tp": 8, "global_batch": 16},
    })
    return dse.scenario_columns(scenario)


def windowed(window, every=0, kind="sliding", seq_len=8192, **extra):
    """An inline Llama-2-7B-like model with local attention."""
    model = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
             "ffn_act": "swiglu", "vocab": 32000, "seq_len": seq_len, **extra}
    if window is not None:
        model.update(attention_window=window, full_attention_every=every, attention_window_kind=kind)
    return model


def test_windowed_layers_and_fraction_from_the_spec():
    m = dse.load_scenario({"model": windowed(128, every=2), "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
                           "parallel": {"tp": 8}}).model
    assert m.windowed_layers == 16  # every 2nd layer is full: 16 of 32 windowed
    cols = training_columns(windowed(128, every=6))
    assert cols["window_fraction"] == (32 - 5) / 32  # layers 6, 12, ..., 30 full
    assert cols["attn_window"] == 128 and cols["attn_chunked"] == 0
    assert training_columns(windowed(8192, kind="chunked"))["attn_chunked"] == 1


def test_model_flops_count_the_attended_keys():
    """GPT-OSS-like: half the layers slide over 128 tokens; the attention core of those layers is
    4 * 2(W - W^2/2s) * a * d per token, the others 4 s a d."""
    s, W, a, d = 8192.0, 128.0, 32.0, 128.0
    full = training_columns(windowed(None))
    half = training_columns(windowed(int(W), every=2))
    core_full = 4 * s * a * d
    core_win = 4 * 2 * (W - W * W / (2 * s)) * a * d
    expected_drop = 3 * 32 * (core_full - (core_full + core_win) / 2)  # fwd + bwd, 32 layers
    assert float(model_flops_per_token(full) - model_flops_per_token(half)) == pytest.approx(expected_drop)
    assert float(attention_span(half)) == pytest.approx((s + 2 * (W - W * W / (2 * s))) / 2)


def test_a_window_covering_the_sequence_changes_nothing():
    base = evaluate_training(training_columns(windowed(None)))
    same = evaluate_training(training_columns(windowed(8192, every=0)))
    for key, value in base.items():
        assert same[key] == pytest.approx(value, rel=1e-12), key


def test_sliding_window_shortens_the_attention_time_in_proportion():
    """With flash attention the kernel time is proportional to the keys attended: a 1024-token
    window over 8192 tokens does (W - W^2/2s) / (s/2) = 23.4% of the full causal work."""
    out = {}
    for name, model in {"full": windowed(None), "win": windowed(1024)}.items():
        cols = training_columns(model)
        cols["eff_attention"] = 0.5
        out[name] = evaluate_training_detail(cols)
    ratio = float(out["win"]["detail_attn_f"][0] / out["full"]["detail_attn_f"][0])
    assert ratio == pytest.approx((1024 - 1024**2 / (2 * 8192)) / 4096, rel=1e-9)
    assert out["win"]["iteration_time_s"][0] < out["full"]["iteration_time_s"][0]


def test_context_parallel_ring_needs_only_the_window_s_ranks():
    """cp 4 over 32k tokens (8k per rank): a 4k sliding window reaches back one rank, not three."""
    par = {"tp": 2, "cp": 4, "global_batch": 8}
    full = evaluate_training_detail(training_columns(windowed(None, seq_len=32768), parallel=par))
    win = evaluate_training_detail(training_columns(windowed(4096, seq_len=32768), parallel=par))
    assert float(win["detail_cp_f"][0]) == pytest.approx(float(full["detail_cp_f"][0]) / 3)


# ----------------------------------------------------------------------------- serving
def serving_columns(model, input_len, output_len, **inference):
    scenario = dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": model,
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1}, "parallel": {"tp": 1},
        "inference": {"input_len": input_len, "output_len": output_len, **inference},
    })
    return inference_columns(scenario)


def one(cols):
    return {k: float(v[0]) for k, v in evaluate_inference(cols).items()}


def test_serving_kv_cache_keeps_only_the_window_in_windowed_layers():
    """Half the layers slide over 1024 tokens: a 4096 + 1024 request reserves 5120 tokens in the
    16 full layers and 1024 in the 16 windowed ones, at 2 g d bytes per token and layer (fp8)."""
    out = one(serving_columns(windowed(1024, every=2), 4096, 1024, batch=8))
    per_layer_token = 2 * 8 * 128 * 1.0
    assert out["kv_cache_bytes"] == pytest.approx(8 * per_layer_token * (16 * 5120 + 16 * 1024))


def test_serving_window_covering_the_request_changes_nothing():
    base = one(serving_columns(windowed(None), 2048, 512))
    same = one(serving_columns(windowed(4096), 2048, 512))
    for key, value in base.items():
        assert same[key] == pytest.approx(value, rel=1e-12), key


def test_windowed_serving_fits_more_sequences_and_runs_faster_at_long_context():
    full = one(serving_columns(windowed(None), 20000, 2000))
    win = one(serving_columns(windowed(8192, every=4, kind="chunked"), 20000, 2000))
    assert win["batch_max"] > full["batch_max"]
    assert win["tokens_per_s"] > full["tokens_per_s"]


# ----------------------------------------------------------------------------- spec errors
@pytest.mark.parametrize("model, message", [
    ({"full_attention_every": 2}, "need attention_window"),
    ({"attention_window_kind": "chunked"}, "need attention_window"),
    ({"attention_window": 128, "full_attention_every": 1}, "every layer full attention"),
    ({"attention_window": 0}, "attention_window"),
    ({"attention_window": 128, "attention_window_kind": "global"}, "attention_window_kind"),
])
def test_bad_window_fields_are_clear_errors(model, message):
    with pytest.raises(InputError, match=message):
        dse.load_scenario({"model": {**windowed(None), **model},
                           "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 8}})


# ----------------------------------------------------------------------------- properties
@PROPERTY
@given(seq=st.sampled_from([2048, 8192, 32768]), w_small=st.integers(16, 40000), grow=st.integers(0, 40000),
       every=st.sampled_from([0, 2, 4, 6]), chunked=st.booleans(), tp=st.sampled_from([1, 2, 8]),
       cp=st.sampled_from([1, 2]), recompute=st.sampled_from(["none", "full"]))
def test_a_smaller_window_is_never_slower_and_never_needs_more_memory(seq, w_small, grow, every, chunked, tp,
                                                                      cp, recompute):
    kind = "chunked" if chunked else "sliding"
    par = {"tp": tp, "cp": cp, "global_batch": 16, "recompute": recompute}
    rows = [training_columns(windowed(w, every=every, kind=kind, seq_len=seq), parallel=par)
            for w in (w_small, w_small + grow)]
    if chunked:  # a chunk's mean keys are not monotone in W for a fixed s (s mod W); compare with full
        rows[1] = training_columns(windowed(None, seq_len=seq), parallel=par)
    small, large = (evaluate_training(r) for r in rows)
    assert small["iteration_time_s"][0] <= large["iteration_time_s"][0] * (1 + 1e-12)
    assert small["memory_per_gpu_bytes"][0] <= large["memory_per_gpu_bytes"][0] * (1 + 1e-12)
    assert np.isfinite(small["iteration_time_s"][0])


@PROPERTY
@given(inp=st.integers(1, 30000), out=st.integers(1, 4000), w=st.integers(16, 40000), grow=st.integers(1, 40000),
       every=st.sampled_from([0, 2, 4]))
def test_a_smaller_sliding_window_never_serves_slower_at_a_fixed_batch(inp, out, w, grow, every):
    small = one(serving_columns(windowed(w, every=every), inp, out, batch=4))
    large = one(serving_columns(windowed(w + grow, every=every), inp, out, batch=4))
    assert small["itl_ms"] <= large["itl_ms"] * (1 + 1e-12)
    assert small["ttft_ms"] <= large["ttft_ms"] * (1 + 1e-12)
    assert small["kv_cache_bytes"] <= large["kv_cache_bytes"] * (1 + 1e-12)


def test_window_scope_says_what_the_engine_saves():
    """all: window cache and decode reads; compute: full-context cache, windowed reads; prefill:
    only the prompt attention is windowed (decode and cache as for full attention)."""
    model = windowed(1024, every=2)
    runs = {scope: one(serving_columns(model, 4096, 1024, batch=8, window_scope=scope))
            for scope in ("all", "compute", "prefill")}
    full = one(serving_columns(windowed(None), 4096, 1024, batch=8))
    assert runs["compute"]["kv_cache_bytes"] == full["kv_cache_bytes"] == runs["prefill"]["kv_cache_bytes"]
    assert runs["all"]["kv_cache_bytes"] < full["kv_cache_bytes"]
    assert runs["all"]["itl_ms"] == pytest.approx(runs["compute"]["itl_ms"], rel=1e-12)
    assert runs["prefill"]["itl_ms"] > runs["compute"]["itl_ms"]
    assert runs["prefill"]["prefill_time_s"] == pytest.approx(runs["all"]["prefill_time_s"], rel=1e-12)
    assert full["prefill_time_s"] > runs["prefill"]["prefill_time_s"]
    with pytest.raises(InputError, match="window_scope"):
        serving_columns(model, 128, 128, window_scope="decode")
