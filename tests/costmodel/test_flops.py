"""Hand-computed checks of dse/costmodel/flops.py (parameter and FLOP counts).

Every expected value is worked out in the comments from the textbook formulas
(../shared/notes/physics.md; Narayanan et al. 2021 appendix; Megatron-LM's
``num_floating_point_operations``), never by calling the function under test twice.
"""

import numpy as np
import pytest

from dse.costmodel.flops import (
    attention_params,
    ffn_params,
    layer_forward_flops_per_token,
    layer_params,
    model_flops_per_token,
    model_params,
    recompute_flops_per_token,
)

REL = 1e-12


def model_cols(layers, hidden, heads, kv_heads, ffn_hidden, mats, vocab, seq_len, recompute=0.0, **moe):
    """The model columns flops.py reads (dense unless MoE keys are given)."""
    c = {
        "layers": float(layers), "hidden": float(hidden), "heads": float(heads),
        "kv_heads": float(kv_heads), "head_dim": float(hidden // heads),
        "ffn_hidden": float(ffn_hidden), "ffn_mats": float(mats), "vocab": float(vocab),
        "seq_len": float(seq_len), "experts": 0.0, "top_k": 0.0, "expert_ffn_hidden": 0.0,
        "shared_experts": 0.0, "moe_layers": 0.0, "tied_embeddings": 0.0,
        "recompute": float(recompute),
    }
    c.update({k: float(v) for k, v in moe.items()})
    return c


# GPT-3 175B as in Narayanan et al. 2021 Table 1: dense, MHA, gelu, f = 4h.
GPT3 = dict(layers=96, hidden=12288, heads=96, kv_heads=96, ffn_hidden=4 * 12288, mats=2, vocab=51200, seq_len=2048)
# Llama-2-70B (Touvron et al. 2023): GQA with 8 KV heads, SwiGLU, f = 28672.
LLAMA70 = dict(layers=80, hidden=8192, heads=64, kv_heads=8, ffn_hidden=28672, mats=3, vocab=32000, seq_len=4096)


# ------------------------------------------------------------------------------------ params
def test_attention_params_mha():
    # MHA, h = 1024, a = 16, g = 16, d = 64 (a*d = h):
    # QKV: h*(a + 2g)*d = 1024*48*64 = 3,145,728 = 3h^2; output a*d*h = 1024*1024 = 1,048,576
    # total 4h^2 = 4,194,304
    assert attention_params(1024.0, 16.0, 16.0, 64.0) == 4_194_304.0


def test_attention_params_gqa():
    # Llama-2-70B: h = 8192, a = 64, g = 8, d = 128
    # QKV: 8192*(64 + 16)*128 = 8192*10240 = 83,886,080
    # out: 64*128*8192 = 67,108,864
    # total 150,994,944
    assert attention_params(8192.0, 64.0, 8.0, 128.0) == 150_994_944.0


def test_ffn_params_gelu_and_swiglu():
    # gelu, h = 1024, f = 4h = 4096: 2 matrices -> 2*1024*4096 = 8,388,608 (= 8h^2)
    assert ffn_params(1024.0, 4096.0, 2.0) == 8_388_608.0
    # swiglu, Llama-2-70B: 3 matrices -> 3*8192*28672 = 704,643,072
    assert ffn_params(8192.0, 28672.0, 3.0) == 704_643_072.0


def test_layer_params_mha_gelu():
    # h = 1024, MHA, f = 4h: attention 4h^2 + two norms 2h + FFN 8h^2 = 12h^2 + 2h
    # = 12*1,048,576 + 2,048 = 12,582,912 + 2,048 = 12,584,960
    c = model_cols(24, 1024, 16, 16, 4096, 2, 50257, 2048)
    dense, moe_shared, moe_experts = layer_params(c)
    assert dense == 12_584_960.0
    # a dense model has no experts; the "MoE layer" is attention + norms (+ router of 0 experts)
    assert moe_experts == 0.0
    assert moe_shared == 4 * 1024**2 + 2 * 1024  # 4,196,352


def test_layer_params_gqa_swiglu():
    # Llama-2-70B: attention 150,994,944 + norms 2*8192 = 16,384 + FFN 704,643,072
    # = 855,654,400
    dense, _, _ = layer_params(model_cols(**LLAMA70))
    assert dense == 855_654_400.0


def test_layer_params_moe():
    # Mixtral-8x7B-like layer: h = 4096, a = 32, g = 8, d = 128, 8 experts of f = 14336 (swiglu)
    # attention: 4096*(32 + 16)*128 + 32*128*4096 = 25,165,824 + 16,777,216 = 41,943,040
    # + norms 8,192 + router h*E = 4096*8 = 32,768 -> shared part 41,984,000
    # experts: 8 * 3*4096*14336 = 8 * 176,160,768 = 1,409,286,144
    c = model_cols(32, 4096, 32, 8, 14336, 3, 32000, 4096, experts=8, top_k=2, expert_ffn_hidden=14336, moe_layers=32)
    _, moe_shared, moe_experts = layer_params(c)
    assert moe_shared == 41_984_000.0
    assert moe_experts == 1_409_286_144.0


def test_model_params_llama2_70b():
    # 80 layers * 855,654,400 = 68,452,352,000
    # embedding + untied LM head: 2 * 32000*8192 = 524,288,000
    # total 68,976,640,000 ~ 69e9 (Llama 2 paper: "70B"; HF count 68.98e9)
    total, active = model_params(model_cols(**LLAMA70))
    assert total == 68_976_640_000.0
    assert total == pytest.approx(69e9, rel=0.01)
    assert active == total  # dense: every parameter is active


def test_model_params_moe_active():
    # Mixtral-8x7B-like, 32 MoE layers, top-2, vocab 32000
    # per layer: shared 41,984,000 (see test_layer_params_moe), one expert 176,160,768
    # total  = 32*(41,984,000 + 8*176,160,768) + 2*32000*4096
    #        = 32*1,451,270,144 + 262,144,000 = 46,440,644,608 + 262,144,000 = 46,702,788,608
    # active = 32*(41,984,000 + 2*176,160,768) + 262,144,000
    #        = 32*394,305,536 + 262,144,000 = 12,617,777,152 + 262,144,000 = 12,879,921,152
    c = model_cols(32, 4096, 32, 8, 14336, 3, 32000, 4096, experts=8, top_k=2, expert_ffn_hidden=14336, moe_layers=32)
    total, active = model_params(c)
    assert total == 46_702_788_608.0
    assert active == 12_879_921_152.0


def test_model_params_tied_embeddings():
    # tied: the LM head shares the embedding, so only one V*h matrix:
    # 80*855,654,400 + 32000*8192 = 68,452,352,000 + 262,144,000 = 68,714,496,000
    c = model_cols(**LLAMA70)
    c["tied_embeddings"] = 1.0
    total, _ = model_params(c)
    assert total == 68_714_496_000.0


# ------------------------------------------------------------------------------------ FLOPs
def narayanan_with_recompute_per_token(l, h, s, V):
    """Narayanan et al. 2021 eq. (appendix): F = 96*B*s*l*h^2*(1 + s/6h + V/16lh) per
    iteration, with full recompute; divided by B*s tokens."""
    return 96.0 * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h))


def test_model_flops_small_dense_mha_matches_narayanan_without_recompute():
    # Dense MHA gelu f = 4h model, l = 24, h = 2048, a = 16, s = 2048, V = 50304.
    # Per layer and token, forward: QKV + out 8h^2, scores + weighted values 4sh, FFN 16h^2
    # -> 24h^2 + 4sh; fwd+bwd = 3x -> 72h^2 + 12sh per layer. LM head 2hV fwd, 6hV fwd+bwd.
    # Narayanan's 96*l*h^2*(1 + s/6h + V/16lh) = 96lh^2 + 16lsh + 6hV counts the layers 4x
    # (fwd + bwd + full recompute forward) but the LM head only 3x (it is not recomputed).
    # So "without recompute" = 3/4 of the layer terms + the whole 6hV logit term:
    #   72*l*h^2*(1 + s/6h) + 6*h*V
    l, h, s, V = 24.0, 2048.0, 2048.0, 50304.0
    # 72*24*2048^2 = 72*24*4,194,304 = 7,247,757,312
    # 12*24*2048*2048 = 1,207,959,552
    # 6*2048*50304 = 618,135,552
    # sum = 9,073,852,416
    expected = 7_247_757_312.0 + 1_207_959_552.0 + 618_135_552.0
    assert expected == 9_073_852_416.0
    closed = 0.75 * 96.0 * l * h * h * (1.0 + s / (6.0 * h)) + 96.0 * l * h * h * V / (16.0 * l * h)
    assert closed == pytest.approx(expected, rel=REL)
    c = model_cols(24, 2048, 16, 16, 8192, 2, 50304, 2048)
    assert model_flops_per_token(c) == pytest.approx(expected, rel=REL)
    # The literal "whole formula x 3/4" also scales the logit term (6hV -> 4.5hV): it is
    # 1.5*h*V = 154,533,888 FLOPs/token lower, i.e. 1.7% for this small model.
    literal = narayanan_with_recompute_per_token(l, h, s, V) * 0.75
    assert expected - literal == pytest.approx(1.5 * h * V, rel=1e-9)


def test_model_flops_gpt3_175b_vs_narayanan():
    # GPT-3 175B: l = 96, h = 12288, a = 96, s = 2048, V = 51200; h^2 = 150,994,944
    # 72*l*h^2    = 72*96*150,994,944  = 1,043,677,052,928
    # 12*l*s*h    = 12*96*2048*12288   =    28,991,029,248
    # 6*h*V       = 6*12288*51200      =     3,774,873,600
    # model FLOPs per token (no recompute)  1,076,442,955,776
    c = model_cols(**GPT3)
    assert model_flops_per_token(c) == pytest.approx(1_076_442_955_776.0, rel=REL)
    # Narayanan's closed form 96*l*h^2*(1 + s/6h + V/16lh) = 1,433,998,983,168 per token
    # (96lh^2 = 1,391,569,403,904; 16lsh = 38,654,705,664; 6hV = 3,774,873,600) includes the
    # full-recompute forward of the layers, l*(24h^2 + 4sh) = 96*3,724,541,952
    # = 357,556,027,392: model + full recompute reproduces it exactly.
    narayanan = narayanan_with_recompute_per_token(96.0, 12288.0, 2048.0, 51200.0)
    assert narayanan == pytest.approx(1_433_998_983_168.0, rel=REL)
    c_full = model_cols(**GPT3, recompute=2)
    assert recompute_flops_per_token(c_full) == pytest.approx(357_556_027_392.0, rel=REL)
    assert model_flops_per_token(c_full) + recompute_flops_per_token(c_full) == pytest.approx(narayanan, rel=REL)
    # and the literal "x 3/4" of the whole closed form is within 0.1% (it shrinks the
    # unrecomputed logit term too: 1,075,499,237,376)
    assert model_flops_per_token(c) == pytest.approx(0.75 * narayanan, rel=1e-3)


def test_model_flops_llama2_70b_matches_megatron_formula():
    # Megatron-LM num_floating_point_operations (no recompute), per token:
    # 12*l*h^2*[(1 + g/a + s/h)*(a*d/h) + (f/h)*1.5 (swiglu) + V/(2lh)]
    # Llama-2-70B: a*d/h = 1, g/a = 1/8, s/h = 0.5, f/h = 3.5, V/(2lh) = 32000/1,310,720
    # per layer forward (physics.md): QKV 2h(a+2g)d = 167,772,160; out 2adh = 134,217,728
    #   scores+values 4sad = 134,217,728; FFN 2*3*h*f = 1,409,286,144  -> 1,845,493,760
    # 80 layers: 147,639,500,800; LM head 2hV = 524,288,000 -> 148,163,788,800 forward
    # x3 (fwd + bwd) = 444,491,366,400
    c = model_cols(**LLAMA70)
    assert model_flops_per_token(c) == pytest.approx(444_491_366_400.0, rel=REL)
    l, h, a, g, s, f, V = 80.0, 8192.0, 64.0, 8.0, 4096.0, 28672.0, 32000.0
    megatron = 12 * l * h * h * ((1 + g / a + s / h) * 1.0 + (f / h) * 1.5 + V / (2 * l * h))
    assert megatron == pytest.approx(444_491_366_400.0, rel=REL)


def test_layer_forward_flops_components():
    # Llama-2-70B, one dense layer forward per token (see above): 1,845,493,760 of which
    # attention core 4*s*a*d = 4*4096*64*128 = 134,217,728
    dense, moe, core = layer_forward_flops_per_token(model_cols(**LLAMA70))
    assert dense == 1_845_493_760.0
    assert core == 134_217_728.0
    # no experts: the "MoE layer" is projections + core + router of 0 experts = 436,207,616
    assert moe == 301_989_888.0 + 134_217_728.0


def test_recompute_flops_none_selective_full():
    # Llama-2-70B per token:
    # none: 0
    # selective: the attention core forward again, l*4sad = 80*134,217,728 = 10,737,418,240
    # full: every layer forward again, 80*1,845,493,760 = 147,639,500,800 (not the LM head)
    expected = {0: 0.0, 1: 10_737_418_240.0, 2: 147_639_500_800.0}
    for r, value in expected.items():
        assert recompute_flops_per_token(model_cols(**LLAMA70, recompute=r)) == value


def test_flops_vectorized():
    # arrays broadcast elementwise: recompute codes 0/1/2 in one call (values from above)
    c = model_cols(**LLAMA70)
    c["recompute"] = np.array([0.0, 1.0, 2.0])
    np.testing.assert_array_equal(recompute_flops_per_token(c), [0.0, 10_737_418_240.0, 147_639_500_800.0])
