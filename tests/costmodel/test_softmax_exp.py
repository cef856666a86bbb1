"""The softmax exponentials of fused attention: they run on the special-function units beside the
tensor cores, so a kernel with P tensor FLOPs per exponential on a GPU doing R tensor FLOPs per
exponential takes (1 + (R/P)^2)^(1/2) of its tensor time, relative to the GPU and head dim its
calibrated efficiency was measured at (``flops.softmax_exp_factor``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel.flops import softmax_exp_factor
from dse.costmodel.training import evaluate_training_detail
from dse.errors import InputError
from dse.presets import calibration_table, gpu_preset


def cols(gpu="B200", head_dim=128, exp_tera=None, flash=True, seq_len=8192):
    heads = 4096 // head_dim
    model = {"name": "m", "family": "dense", "layers": 8, "hidden": 4096, "heads": heads, "kv_heads": 8,
             "head_dim": head_dim, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 32000,
             "seq_len": seq_len}
    cluster = {"gpu": gpu, "num_gpus": 8}
    if exp_tera is not None:
        cluster["exp_tera_per_s"] = exp_tera
    scenario = {"model": model, "precision": "bf16", "cluster": cluster,
                "parallel": {"tp": 1, "microbatch": 1, "global_batch": 8},
                "training": {"flash_attention": flash}}
    return dse.scenario_columns(dse.load_scenario(scenario))


def one(c):
    return {k: float(np.asarray(v)[0]) for k, v in evaluate_training_detail(c).items()}


def test_presets_carry_the_datasheet_exponential_rates():
    # NVIDIA's Blackwell Ultra table: 5 TeraExponentials/s on B200 and GB200, 10.7 on B300 and GB300
    assert gpu_preset("B200")["exp_tera_per_s"] == gpu_preset("GB200")["exp_tera_per_s"] == 5.0
    assert gpu_preset("B300")["exp_tera_per_s"] == gpu_preset("GB300")["exp_tera_per_s"] == 10.7
    assert cols("B300")["exp_rate"] == pytest.approx(10.7e12)
    # the reference of Hopper's fitted attention efficiency is the H100's own ratio, 989.4/3.9
    h100 = gpu_preset("H100-SXM-80GB")
    assert calibration_table()["hopper"]["attention_flops_per_exp"] == pytest.approx(
        h100["peak_tflops"]["bf16"] / h100["exp_tera_per_s"], rel=1e-3)


def test_factor_by_hand():
    # the calibration GPU at d = 128: exactly 1
    assert softmax_exp_factor(512.0, 989.4e12, 3.9e12, 989.4 / 3.9, 512.0) == pytest.approx(1.0)
    # B200 forward at d = 128: R = 2250/5 = 450 against H100's 253.7
    x, x_ref = 450.0 / 512.0, (989.4 / 3.9) / 512.0
    got = softmax_exp_factor(512.0, 2250e12, 5e12, 989.4 / 3.9, 512.0)
    assert got == pytest.approx(math.sqrt((1 + x * x) / (1 + x_ref * x_ref)))
    assert got > 1.0
    # no exponential rate: no term
    assert softmax_exp_factor(512.0, 2250e12, 0.0, 253.7, 512.0) == 1.0


def test_attention_time_by_hand_and_the_rest_untouched():
    """B200 with its own rate against an infinitely fast SFU: only the attention moves, by the
    forward (P = 4d) and backward (P = 10d) factors."""
    base = cols("B200")
    fast = {**base, "exp_rate": 1e30}  # exponentials free
    a, b = one(base), one(fast)
    R, R_ref = 2250e12 / 5e12, calibration_table()["blackwell"]["attention_flops_per_exp"]

    def factor(P, P_ref):
        return math.sqrt(1 + (R / P) ** 2) / math.sqrt(1 + (R_ref / P_ref) ** 2)

    free_f = 1.0 / math.sqrt(1 + (R_ref / 512.0) ** 2)
    free_b = 1.0 / math.sqrt(1 + (R_ref / 1280.0) ** 2)
    assert a["detail_attn_f"] == pytest.approx(b["detail_attn_f"] / free_f * factor(512.0, 512.0), rel=1e-9)
    assert a["detail_attn_b"] == pytest.approx(b["detail_attn_b"] / free_b * factor(1280.0, 1280.0), rel=1e-9)
    for key in ("detail_qkv_f", "detail_ffn_f", "detail_ffn_b", "detail_elem_f"):
        assert a[key] == b[key], key


def test_blackwell_ultra_attention_is_faster_and_its_gemms_are_not():
    """B300 doubles the SFU rate at B200's bf16 peak: attention faster, GEMMs the same."""
    b200, b300 = one(cols("B200")), one(cols("B200", exp_tera=10.7))
    assert b300["detail_attn_f"] < b200["detail_attn_f"]
    assert b300["detail_attn_b"] < b200["detail_attn_b"]
    assert b300["detail_ffn_f"] == b200["detail_ffn_f"]
    assert b300["iteration_time_s"] < b200["iteration_time_s"]


def test_small_heads_pay_more_per_flop():
    """At the same attention FLOPs (heads x head_dim fixed), d = 64 does twice the exponentials."""
    d64, d128 = one(cols("H100-SXM-80GB", head_dim=64)), one(cols("H100-SXM-80GB", head_dim=128))
    assert d64["detail_attn_f"] > d128["detail_attn_f"]
    R = 989.4 / 3.9
    ratio = math.sqrt(1 + (R / 256.0) ** 2) / math.sqrt(1 + (R / 512.0) ** 2)
    assert d64["detail_attn_f"] / d128["detail_attn_f"] == pytest.approx(ratio, rel=1e-3)


def test_unfused_attention_does_not_see_the_sfu():
    """Unfused attention writes the scores to HBM; its softmax is a memory-bound pass."""
    slow, fast = one(cols(flash=False)), one(cols(flash=False, exp_tera=100.0))
    assert slow["detail_attn_f"] == fast["detail_attn_f"]
    assert slow["detail_attn_b"] == fast["detail_attn_b"]


def test_a_bad_rate_names_the_field():
    with pytest.raises(InputError, match="exp_tera_per_s"):
        cols(exp_tera=0.0)


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(0.5, 50.0), more=st.floats(1.0, 10.0), head_dim=st.sampled_from([64, 128, 256]),
       gpu=st.sampled_from(["A100-SXM-80GB", "H100-SXM-80GB", "B200", "GB300"]),
       seq_len=st.sampled_from([2048, 8192, 32768]))
def test_faster_special_function_units_are_never_slower(rate, more, head_dim, gpu, seq_len):
    slow = one(cols(gpu, head_dim=head_dim, exp_tera=rate, seq_len=seq_len))
    fast = one(cols(gpu, head_dim=head_dim, exp_tera=rate * more, seq_len=seq_len))
    assert fast["iteration_time_s"] <= slow["iteration_time_s"] * (1 + 1e-12)


# ---------------------------------------------------------------------------- serving (prefill attention)
def serving_cols(gpu="B200", head_dim=128, exp_tera=None, kv_cache_dtype="bf16", precision="bf16"):
    """A prefill instance of a dense model whose prompt attention dominates (32K-token prompts)."""
    heads = 4096 // head_dim
    model = {"name": "m", "family": "dense", "layers": 8, "hidden": 4096, "heads": heads, "kv_heads": 8,
             "head_dim": head_dim, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 32000, "seq_len": 32769}
    cluster = {"gpu": gpu, "num_gpus": 1}
    if exp_tera is not None:
        cluster["exp_tera_per_s"] = exp_tera
    from dse.workloads.inference import inference_columns
    return inference_columns(dse.load_scenario({
        "workload": "inference", "model": model, "precision": precision, "cluster": cluster,
        "inference": {"input_len": 32768, "output_len": 1, "phase": "prefill", "kv_cache_dtype": kv_cache_dtype}}))


def prefill_attention_s(c):
    from dse.costmodel.inference import evaluate_inference_detail
    return float(np.ravel(evaluate_inference_detail({k: np.array([v]) for k, v in c.items()})["detail_prefill_attn_pre"])[0])


def test_serving_attention_reproduces_the_kernel_rates_its_efficiency_cites():
    """calibration.yaml sets infer_attention from kernel measurements at head dim 128, BF16:
    FlashAttention-3 on H100 (648 TFLOP/s) and NVIDIA's SM100 FMHA on B200 (1460 TFLOP/s); the
    tensor fraction times the peak over the exponentials' factor gives them back."""
    table = calibration_table()
    for family, gpu, measured in (("hopper", "H100-SXM-80GB", 648e12), ("blackwell", "B200", 1460e12)):
        g = gpu_preset(gpu)
        peak, exp = g["peak_tflops"]["bf16"] * 1e12, g["exp_tera_per_s"] * 1e12
        rate = peak * table[family]["infer_attention"] / softmax_exp_factor(512.0, peak, exp, 0.0, 1.0)
        assert rate == pytest.approx(measured, rel=0.005), family


def test_serving_attention_pays_the_exponentials_absolutely():
    """The serving kernel's time is its tensor time x (1 + (R/P)^2)^(1/2), R = its peak over the
    exponential rate: B200, BF16, d = 128: R = 450, 1.331 x; an FP8 cache doubles R (FP8 attention),
    so FP8 attention gains 4500/2250 x 1.331/2.024 = 1.32x, not 2x; d = 64 pays more per FLOP."""
    base = prefill_attention_s(serving_cols(exp_tera=1e9))  # exponentials free (factor 1)
    bf16 = prefill_attention_s(serving_cols())
    assert bf16 / base == pytest.approx(math.sqrt(1 + (450 / 512) ** 2), rel=1e-6)
    fp8 = prefill_attention_s(serving_cols(kv_cache_dtype="fp8", precision="fp8"))
    assert bf16 / fp8 == pytest.approx(2.0 * math.sqrt(1 + (450 / 512) ** 2) / math.sqrt(1 + (900 / 512) ** 2),
                                       rel=1e-6)
    # the same FLOPs at half the head dim (twice the heads): P = 256
    d64 = prefill_attention_s(serving_cols(head_dim=64))
    assert d64 / bf16 == pytest.approx(math.sqrt(1 + (450 / 256) ** 2) / math.sqrt(1 + (450 / 512) ** 2), rel=1e-6)


@settings(max_examples=30, deadline=None)
@given(rate=st.floats(0.5, 50.0), more=st.floats(1.0, 10.0), head_dim=st.sampled_from([64, 128, 256]),
       gpu=st.sampled_from(["A100-SXM-80GB", "H100-SXM-80GB", "B200", "GB300"]))
def test_faster_special_function_units_never_slow_a_prompt(rate, more, head_dim, gpu):
    from dse.costmodel.inference import evaluate_inference
    slow, fast = serving_cols(gpu, head_dim, rate), serving_cols(gpu, head_dim, rate * more)
    ev = lambda c: float(np.ravel(evaluate_inference({k: np.array([v]) for k, v in c.items()})["ttft_ms"])[0])  # noqa: E731
    assert ev(fast) <= ev(slow) * (1 + 1e-12)
