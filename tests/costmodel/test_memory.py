"""Hand-computed checks of dse/costmodel/memory.py against Korthikanti et al. 2022.

Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models",
Sec. 4, eq. 1-2), fp16/bf16, MHA, f = 4h, bytes per layer:
  no parallelism                    s*b*h*(34 + 5*a*s/h)
  tensor parallel t                 s*b*h*(10 + 24/t + 5*a*s/(h*t))
  tensor + sequence parallel        s*b*h*(34/t + 5*a*s/(h*t))
and a fused (flash) kernel or selective recompute drops the 5*a*s/h term. Those GPT runs trained
with dropout (Megatron-LM's default 0.1), whose 1-byte masks the 34 and the 5 include; models
trained without dropout (``dropout`` 0, the default) keep 32*s*b*h and 2*a*s^2*b.
"""

import numpy as np
import pytest

import dse
from dse.costmodel import evaluate_training

from dse.costmodel.memory import attention_activation_bytes, ffn_activation_bytes, layer_activation_bytes

REL = 1e-12

# A GPT layer: s = 2048, b = 1, h = 4096, a = 32 (d = 128), f = 4h = 16384, gelu.
S, B, H, A = 2048.0, 1.0, 4096.0, 32.0
SBH = S * B * H  # 2048*4096 = 8,388,608
# 5*a*s/h = 5*32*2048/4096 = 80


def gpt_cols(flash=0.0, recompute=0.0, fp8=0.0, dropout=1.0):
    return {
        "dropout": dropout, "hidden": H, "heads": A, "kv_heads": A, "head_dim": H / A, "ffn_hidden": 4 * H,
        "ffn_mats": 2.0, "act_bytes": 2.0, "seq_len": S, "flash_attention": flash,
        "recompute": recompute, "expert_ffn_hidden": 0.0, "shared_experts": 0.0, "fp8": fp8,
    }


def dense_bytes(c, t, rep_div):
    T = B * S  # tokens a GPU holds (cp = 1)
    dense, _ = layer_activation_bytes(T, c, t, rep_div, 0.0)
    return dense


def test_korthikanti_no_parallelism():
    # s*b*h*(34 + 80) = 8,388,608*114 = 956,301,312 bytes
    assert dense_bytes(gpt_cols(), 1.0, 1.0) == pytest.approx(956_301_312.0, rel=REL)
    assert 956_301_312.0 == SBH * (34 + 5 * A * S / H)


def test_korthikanti_tensor_parallel():
    # t = 8, no sp: s*b*h*(10 + 24/8 + 80/8) = 8,388,608*(10 + 3 + 10) = 8,388,608*23
    # = 192,937,984 bytes
    assert dense_bytes(gpt_cols(), 8.0, 1.0) == pytest.approx(192_937_984.0, rel=REL)
    # t = 2: 10 + 12 + 40 = 62 -> 520,093,696
    assert dense_bytes(gpt_cols(), 2.0, 1.0) == pytest.approx(520_093_696.0, rel=REL)


def test_korthikanti_tensor_and_sequence_parallel():
    # t = 8 with sp (replicated tensors scattered: rep_div = t):
    # s*b*h*(34/8 + 80/8) = 8,388,608*(4.25 + 10) = 8,388,608*14.25 = 119,537,664 bytes
    assert dense_bytes(gpt_cols(), 8.0, 8.0) == pytest.approx(119_537_664.0, rel=REL)


def test_flash_attention_drops_score_term():
    # flash: s*b*h*34 = 285,212,672 (t = 1); t = 8 without sp: 8,388,608*13 = 109,051,904;
    # with sp: 8,388,608*4.25 = 35,651,584
    assert dense_bytes(gpt_cols(flash=1.0), 1.0, 1.0) == pytest.approx(285_212_672.0, rel=REL)
    assert dense_bytes(gpt_cols(flash=1.0), 8.0, 1.0) == pytest.approx(109_051_904.0, rel=REL)
    assert dense_bytes(gpt_cols(flash=1.0), 8.0, 8.0) == pytest.approx(35_651_584.0, rel=REL)


def test_selective_recompute_drops_score_term():
    # selective recompute (recompute = 1) also drops 5as/h: same 285,212,672 as flash
    assert dense_bytes(gpt_cols(recompute=1.0), 1.0, 1.0) == pytest.approx(285_212_672.0, rel=REL)


def test_fp8_saves_one_byte_matmul_inputs():
    # FP8 recipes keep the FP8 cast of each matmul input (1 byte instead of 2):
    # attention: norm input 2 + QKV input 1 + dropout mask 1 = 4h replicated; Q, K, V 2 bytes
    #   (3h*2 = 6h) + attention output (proj input) 1 byte (h) = 7h split
    # FFN: norm input 2 + FFN input 1 + mask 1 = 4h; up output 1*f*2 = 8h + activation output
    #   (down-proj input) f*1 = 4h -> 12h split
    # total (flash, t = 1) 4 + 7 + 4 + 12 = 27 s*b*h = 8,388,608*27 = 226,492,416 bytes
    assert dense_bytes(gpt_cols(flash=1.0, fp8=1.0), 1.0, 1.0) == pytest.approx(226_492_416.0, rel=REL)


def test_attention_and_ffn_split_match_korthikanti_terms():
    # Korthikanti's attention block: 11*sbh + 5*a*s^2*b; MLP block 19*sbh; two layer norms 4*sbh.
    # memory.py folds one norm input into each block: attention 11 + 2 = 13 sbh, FFN 19 + 2 = 21
    T = S * B
    attn = attention_activation_bytes(T, gpt_cols(), 1.0, 1.0)
    ffn = ffn_activation_bytes(T, 4 * H, gpt_cols(), 1.0, 1.0)
    # 13*8,388,608 + 5*32*2048*2048 = 109,051,904 + 671,088,640 = 780,140,544
    assert attn == pytest.approx(780_140_544.0, rel=REL)
    # 21*8,388,608 = 176,160,768
    assert ffn == pytest.approx(176_160_768.0, rel=REL)


def test_gqa_swiglu_rederived():
    # Llama-2-70B layer, s = 4096, b = 1, h = 8192, a = 64, g = 8, d = 128, f = 28672, flash,
    # t = 8 with sp (rep_div = 8). Per token:
    #   replicated: 2 norms' inputs + QKV/FFN inputs (4*h*2 bytes); no dropout, so no masks
    #     = 8h = 65,536 bytes, / 8 = 8,192
    #   attention split: Q (a*d) + K, V (2*g*d) + attention output (a*d), 2 bytes
    #     = 2*128*(64 + 8 + 8 + 64) = 36,864 ... as written d*(2a + 2g)*2 = 128*144*2 = 36,864
    #   FFN split: 3 matrices' worth of f-wide tensors, 3*28672*2 = 172,032
    #   split / 8 = (36,864 + 172,032)/8 = 26,112
    # per token 8,192 + 26,112 = 34,304 bytes; T = 4096 tokens -> 140,509,184 bytes
    c = {
        "hidden": 8192.0, "heads": 64.0, "kv_heads": 8.0, "head_dim": 128.0, "ffn_hidden": 28672.0,
        "ffn_mats": 3.0, "act_bytes": 2.0, "seq_len": 4096.0, "flash_attention": 1.0, "recompute": 0.0,
        "expert_ffn_hidden": 0.0, "shared_experts": 0.0, "fp8": 0.0,
    }
    dense, _ = layer_activation_bytes(4096.0, c, 8.0, 8.0, 0.0)
    assert dense == pytest.approx(140_509_184.0, rel=REL)
    # trained with dropout: + 2 masks of h bytes per token / 8 = 2,048 -> 36,352 * 4096 = 148,897,792
    dense, _ = layer_activation_bytes(4096.0, {**c, "dropout": 1.0}, 8.0, 8.0, 0.0)
    assert dense == pytest.approx(148_897_792.0, rel=REL)


def test_moe_layer_activations():
    # Mixtral-like MoE layer, t = 1, no sp, flash: h = 4096, a = 32, g = 8, d = 128,
    # expert f = 14336 swiglu, top_k = 2, T = 4096 tokens.
    # no dropout (Mixtral trains without):
    #   attention: T*(4h + d*(2a + 2g)*2) = 4096*(16,384 + 128*80*2) = 4096*(16,384 + 20,480)
    #            = 4096*36,864 = 150,994,944
    #   per token: FFN norm input (2 bytes): 4096*2h = 4096*8,192 = 33,554,432
    #   per routed copy (2T = 8192): expert input and expert output (2 + 2 bytes) 4h = 16,384,
    #            up outputs and activation output 3*14336*2 = 86,016: 8192*102,400 = 838,860,800
    #   total 150,994,944 + 33,554,432 + 838,860,800 = 1,023,410,176
    c = {
        "hidden": 4096.0, "heads": 32.0, "kv_heads": 8.0, "head_dim": 128.0, "ffn_hidden": 14336.0,
        "ffn_mats": 3.0, "act_bytes": 2.0, "seq_len": 4096.0, "flash_attention": 1.0, "recompute": 0.0,
        "expert_ffn_hidden": 14336.0, "shared_experts": 0.0, "fp8": 0.0,
    }
    _, moe = layer_activation_bytes(4096.0, c, 1.0, 1.0, 2.0)
    assert moe == pytest.approx(1_023_410_176.0, rel=REL)
    # with dropout: one mask (h bytes) per token in attention and one before the FFN:
    # + 2*4096*4096 = 33,554,432 -> 1,056,964,608
    _, moe = layer_activation_bytes(4096.0, {**c, "dropout": 1.0}, 1.0, 1.0, 2.0)
    assert moe == pytest.approx(1_056_964_608.0, rel=REL)


def test_without_dropout_korthikanti_keeps_32_and_2():
    # no dropout: s*b*h*(32 + 2*a*s/h) = 8,388,608*(32 + 32) = 536,870,912 bytes (t = 1), and
    # 32*s*b*h = 268,435,456 with a fused kernel
    assert dense_bytes(gpt_cols(dropout=0.0), 1.0, 1.0) == pytest.approx(536_870_912.0, rel=REL)
    assert dense_bytes(gpt_cols(flash=1.0, dropout=0.0), 1.0, 1.0) == pytest.approx(268_435_456.0, rel=REL)


def test_vectorized_over_t():
    # t = 1, 2, 8 without sp in one call: 114, 62, 23 times s*b*h (values from above)
    c = gpt_cols()
    t = np.array([1.0, 2.0, 8.0])
    out = dense_bytes(c, t, 1.0)
    np.testing.assert_allclose(out, SBH * np.array([114.0, 62.0, 23.0]), rtol=REL)


def _llama_fp8(training):
    """Llama-2-7B FP8 on 8 GPUs (dp 8, ZeRO-1) with the given training options."""
    scenario = dse.load_scenario({
        "model": "llama2-7b", "precision": "fp8", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
        "parallel": {"tp": 1, "pp": 1, "zero": 1, "microbatch": 1, "global_batch": 64}, "training": training})
    return {k: float(v[0]) for k, v in evaluate_training(dse.scenario_columns(scenario)).items()}


def test_bf16_adam_moments_take_two_thirds_of_the_optimizer_state():
    """fp32 master weights (4 bytes) + bf16 m and v (2 + 2) = 8 bytes per parameter against 12."""
    fp32, bf16 = _llama_fp8({}), _llama_fp8({"optimizer_moments": "bf16"})
    assert bf16["memory_optimizer_bytes"] == pytest.approx(fp32["memory_optimizer_bytes"] * 8 / 12, rel=1e-12)


def test_fp8_activation_cache_stores_the_swiglu_inputs_in_one_byte():
    """Llama-2-7B, one GPU's 32 layers, 4096 tokens: the two up-projection outputs (f = 11008) go
    from 2 bytes to 1 per element: 32 x 4096 x 11008 x 2 bytes saved."""
    base, cached = _llama_fp8({}), _llama_fp8({"fp8_activation_cache": True})
    saved = base["memory_activations_bytes"] - cached["memory_activations_bytes"]
    assert saved == pytest.approx(32 * 4096 * 11008 * 2, rel=1e-12)


def test_megatron_gpt_presets_train_with_dropout_and_llama_without():
    def cols(model):
        return dse.scenario_columns(dse.load_scenario(
            {"model": model, "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8}}))
    assert cols("gpt-175b")["dropout"] == 1.0  # Megatron-LM's default hidden/attention dropout 0.1
    assert cols("llama3-70b")["dropout"] == 0.0
    assert cols({"preset": "llama3-70b", "dropout": True})["dropout"] == 1.0


def test_a_vit_may_train_with_dropout():
    scenario = dse.load_scenario({
        "model": {"family": "vit", "layers": 12, "hidden": 768, "heads": 12, "ffn_hidden": 3072, "patch": 16,
                  "image_size": 224},
        "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8}, "parallel": {"dp": 8, "microbatch": 32}})
    with_dropout = scenario.model_copy(update={"model": scenario.model.model_copy(update={"dropout": True})})
    plain, dropped = (dse.evaluate(s)["memory_activations_bytes"].iat[0] for s in (scenario, with_dropout))
    # two 1-byte masks per token and layer: 12 layers x 32 images x 197 tokens x 768 x 2
    assert dropped - plain == pytest.approx(12 * 32 * 197 * 768 * 2, rel=1e-9)


def test_the_last_stage_keeps_the_interleaved_warm_up():
    """With virtual stages the last rank warms up (vpp - 1) pp + 1 chunks of L/vpp layers
    (Megatron-core's schedule), not one microbatch: Llama-3-8B at 8,192 tokens, pp 2, vpp 16,
    keeps 31/16 microbatches' activations on the last stage beside the logits, which makes it
    the stage with the memory peak (the first holds 2 (1 + 1/32) microbatches but no logits)."""
    import dse

    def peak(vpp):
        return dse.evaluate({"model": {"preset": "llama3-8b", "seq_len": 8192},
                             "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16},
                             "parallel": {"tp": 1, "pp": 2, "vpp": vpp, "dp": 8, "zero": 1, "microbatch": 1,
                                          "global_batch": 32}}).iloc[0]

    one, interleaved = peak(1), peak(16)
    assert one["memory_peak_stage"] == 0 and interleaved["memory_peak_stage"] == 2
    assert interleaved["memory_per_gpu_bytes"] > one["memory_per_gpu_bytes"]
