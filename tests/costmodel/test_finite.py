"""The cost model never returns NaN or infinity, in any family (issue 5).

Hypothesis draws random *valid* configurations -- every divisibility rule of the family holds,
so only memory may make them infeasible -- for LLM training (dense, GQA, MLA, local attention,
MoE with group-limited routing and either dispatch; TP/SP/PP/VPP/CP/EP, ZeRO 0-3, recompute and
its modules, frozen layers, LoRA, every precision), ViT training, LLM inference (prefill-heavy
and decode-heavy, tp/pp/ep, fixed or chosen batch, FP8 KV cache, weight-only quantization,
prefill and decode instances) and DLRM
training and inference (every ``emb_sharding``, dot / DCN-v2 / concat interactions, MoE and
transformer variants), including extreme-but-valid values: one GPU and hundreds of thousands,
batches of one sequence and of millions of samples, HBM too small for anything, bandwidths from
10 MB/s to 20 TB/s. Each example is one vectorized batch; every numeric output must be finite,
times positive (parts non-negative), and a row is infeasible exactly when it carries a reason.

Inference and DLRM end with a ``nan_to_num`` safety net; the tests look behind it (the raw
arrays), so a NaN that the net would turn into a plausible 0 is still caught. Then the row
independence law: a batch scores every row as that row alone.

``derandomize=True``: every run draws the same examples.
"""

from __future__ import annotations

import collections
import math
from unittest import mock

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel import dlrm as cm
from dse.costmodel import inference as inf
from dse.costmodel import training as tr
from dse.costmodel.inputs import COLUMNS
from dse.costmodel.reasons import describe
from dse.presets import gpu_table

GIB = 2.0**30

FINITE = settings(
    max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
HEAVY = settings(FINITE, max_examples=50)  # inference (a grid of batches per row), DLRM (planner)
ROWS = settings(FINITE, max_examples=15)  # row independence: each row is also scored alone

#: Configurations scored per family (read by a run with ``-s``: see the report hook below).
GENERATED: collections.Counter = collections.Counter()


def log_floats(lo: float, hi: float):
    """Floats spread evenly in log scale over [lo, hi], both ends included."""
    return st.one_of(st.just(lo), st.just(hi),
                     st.floats(math.log10(lo), math.log10(hi)).map(lambda e: min(max(10.0**e, lo), hi)))


def divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


# ================================================================================ hardware
#: Per-GPU hardware and calibration columns shared by the LLM families: from a 1-GiB toy to a
#: 2-TB part, from a 10 MB/s link to 20 TB/s, latencies from 0 to 1 ms.
HW_RANGES = {
    "peak_flops_16": log_floats(1e11, 1e16),
    "hbm_bytes": st.one_of(st.just(1e6), log_floats(GIB, 2e12)),
    "hbm_bw": log_floats(1e9, 2e13),
    "nvlink_bw": log_floats(1e7, 2e13),
    "scaleout_bw": log_floats(1e7, 2e12),
    "nvlink_domain": st.sampled_from([1.0, 2.0, 4.0, 8.0, 16.0, 72.0, 576.0]),
    "nvlink_latency": st.one_of(st.just(0.0), log_floats(1e-7, 1e-3)),
    "scaleout_latency": st.one_of(st.just(0.0), log_floats(1e-7, 1e-3)),
    "memory_reserved": st.one_of(st.just(0.0), log_floats(1e6, 1e10)),
    "eff_matmul": st.floats(0.01, 1.0),
    "matmul_k_half": st.one_of(st.just(0.0), log_floats(1.0, 1e4)),
    "eff_attention": st.floats(0.01, 1.0),
    "eff_hbm": st.floats(0.01, 1.0),
    "eff_nvlink": st.floats(0.01, 1.0),
    "eff_scaleout": st.floats(0.01, 1.0),
    "rail_optimized": st.sampled_from([1.0, 0.0]),
    "overlap_slowdown": st.floats(0.0, 1.0),
    "power_w": log_floats(1.0, 2000.0),
    "price_per_gpu_hour": st.one_of(st.just(0.0), log_floats(0.01, 100.0)),
}
HW_COLUMNS = tuple(HW_RANGES)
hardware = st.fixed_dictionaries(HW_RANGES)


def cross(rows: list[dict]) -> list[dict]:
    """Every row's model and plan on every row's hardware (k rows -> k^2 configurations): the
    hardware columns are independent of the rest, so each combination is valid too. The
    run's precision is kept: the matmul peak scales with the 16-bit peak it is drawn on."""
    out = []
    for r in rows:
        ratio = r["peak_flops"] / r["peak_flops_16"]
        for hw in rows:
            row = dict(r)
            row.update({k: hw[k] for k in HW_COLUMNS if k in r and k in hw})
            row["peak_flops"] = ratio * row["peak_flops_16"]
            out.append(row)
    return out


# ================================================================================ LLM training
@st.composite
def transformer(draw, tp: int, moe: bool):
    """Model columns of a random decoder (dense MHA/GQA/MQA-at-tp or MoE) valid under ``tp``."""
    d = draw(st.sampled_from([16, 64, 80, 128, 256]))
    heads = tp * draw(st.sampled_from([1, 2, 3, 4, 8, 16]))
    kv = tp * draw(st.sampled_from(divisors(heads // tp)))  # GQA groups, divisible by tp
    row = {
        "hidden": float(draw(st.sampled_from([heads * d, 64 * draw(st.integers(1, 256))]))),
        "heads": float(heads), "kv_heads": float(kv), "head_dim": float(d),
        "ffn_hidden": float(tp * 16 * draw(st.integers(1, 2048))),
        "ffn_mats": draw(st.sampled_from([2.0, 3.0])),
        "vocab": float(draw(st.one_of(st.just(2), st.integers(2, 300_000)))),
        "tied_embeddings": draw(st.sampled_from([0.0, 1.0])),
    }
    if moe:
        experts = draw(st.sampled_from([1, 2, 8, 16, 64, 256]))
        row.update(experts=float(experts), top_k=float(draw(st.integers(1, min(experts, 8)))),
                   expert_ffn_hidden=float(tp * 16 * draw(st.integers(1, 512))),
                   shared_experts=float(draw(st.integers(0, 2))))
        if draw(st.booleans()):  # group-limited routing: top_k within top_groups of the groups
            groups = draw(st.sampled_from(divisors(experts)))
            per = experts // groups
            need = -(-int(row["top_k"]) // per)  # groups the top_k experts need at least
            row.update(expert_groups=float(groups), top_groups=float(draw(st.integers(min(need, groups), groups))))
    if draw(st.booleans()):  # multi-head latent attention (kv_heads = heads, head_dim = nope + rope)
        rope = draw(st.sampled_from([16, 64]))
        row.update(kv_heads=row["heads"], head_dim=float(draw(st.sampled_from([32, 128])) + rope),
                   mla_kv_rank=float(draw(st.sampled_from([64, 512, 2048]))),
                   mla_q_rank=float(draw(st.sampled_from([0, 1536]))), mla_rope_dim=float(rope),
                   mla_v_dim=float(draw(st.sampled_from([32, 128]))))
    if draw(st.booleans()):  # local attention: a window on some of the layers, sliding or chunked
        row.update(attn_window=float(draw(st.one_of(st.just(1), st.integers(1, 200_000)))),
                   window_fraction=draw(st.sampled_from([0.5, 5 / 6, 0.75, 1.0])),
                   attn_chunked=float(draw(st.booleans())))
    return row


@st.composite
def llm_train_row(draw, vit: bool = False):
    """One valid LLM (or ViT) training configuration: every degree divides what it splits."""
    tp = draw(st.sampled_from([1, 2, 4, 8, 16]))
    pp = draw(st.sampled_from([1, 2, 4, 8, 16]))
    vpp = draw(st.sampled_from([1, 2, 3, 4])) if pp > 1 else 1
    layers = pp * vpp * draw(st.integers(1, 8))
    cp = 1 if vit else draw(st.sampled_from([1, 2, 4, 8]))
    dp = draw(st.one_of(st.sampled_from([1, 2, 3, 8, 64]), st.integers(1, 8192)))
    moe = (not vit) and draw(st.booleans())
    row = draw(transformer(tp, moe))
    if vit:  # ViT: bidirectional attention over patches + class token, patch-embedding GEMM
        patch = draw(st.sampled_from([8, 14, 16, 32]))
        tokens = draw(st.integers(1, 64)) ** 2 + 1
        row.update(kv_heads=row["heads"], ffn_mats=2.0, tied_embeddings=0.0, seq_len=float(tokens),
                   causal=0.0, input_proj_dim=float(draw(st.sampled_from([1, 3])) * patch**2),
                   head_fraction=1.0 / tokens, vocab=float(draw(st.sampled_from([2, 1000, 21843]))))
    else:
        row["seq_len"] = float(cp * draw(st.one_of(st.just(1), st.integers(1, 131072 // cp))))
    if moe:
        ep = draw(st.sampled_from(divisors(math.gcd(int(row["experts"]), dp * cp))))
        row.update(moe_layers=float(draw(st.integers(1, layers))), ep=float(ep))
    mb = draw(st.one_of(st.just(1), st.integers(1, 64), st.just(4096)))
    m = draw(st.one_of(st.just(1), st.integers(1, 64), st.just(8192)))
    if vpp > 1:
        m *= pp  # interleaving needs microbatches divisible by pp
    precision = draw(st.sampled_from(["bf16", "fp8", "fp32"]))
    hw = draw(hardware)
    peak16 = hw["peak_flops_16"]
    row.update(hw)
    row.update({
        "layers": float(layers), "tp": float(tp), "pp": float(pp), "vpp": float(vpp), "cp": float(cp),
        "dp": float(dp), "num_gpus": float(tp * pp * dp * cp), "microbatch": float(mb),
        "global_batch": float(dp * mb * m), "sp": float(draw(st.booleans())),
        "zero": float(draw(st.integers(0, 3))), "recompute": float(draw(st.integers(0, 2))),
        "act_bytes": 4.0 if precision == "fp32" else 2.0,
        "weight_bytes": 4.0 if precision == "fp32" else 2.0,
        "fp8": float(precision == "fp8"),
        "peak_flops": peak16 * (2.0 if precision == "fp8" else 1.0),
        "grad_bytes": draw(st.sampled_from([2.0, 4.0])),
        "grad_reduce_bytes": draw(st.sampled_from([2.0, 4.0])),
        "optimizer_bytes": draw(st.sampled_from([0.0, 4.0, 12.0, 16.0])),
        "flash_attention": float(draw(st.booleans())),
        **{f"overlap_{k}": float(draw(st.booleans())) for k in ("dp", "fsdp", "tp", "ep", "cp", "pp")},
        # selective recompute modules, DeepEP-style dispatch, cross-microbatch all-to-all overlap
        **{k: float(draw(st.booleans())) for k in ("rc_core_attn", "rc_norm", "rc_mla_up", "rc_moe_act", "rc_mlp",
                                                   "rc_moe", "moe_dedup", "ep_cross_overlap", "fp8_params")},
    })
    row["peak_flops_16"] = peak16
    if moe and tp > 1:  # Megatron-core: a MoE model with tensor parallelism needs sequence parallelism
        row["sp"] = 1.0
    if draw(st.booleans()):  # fine-tuning: frozen bottom layers, frozen embeddings, LoRA
        row.update(frozen_layers=float(draw(st.integers(0, layers))),
                   freeze_embeddings=float(draw(st.booleans())),
                   lora_rank=float(draw(st.sampled_from([0, 1, 8, 64, 4096]))),
                   lora_qkv=float(draw(st.booleans())), lora_out=float(draw(st.booleans())),
                   lora_ffn=float(draw(st.booleans())))
    return row


def columns(rows: list[dict], defaults: dict) -> dict[str, np.ndarray]:
    """Column arrays of a list of row dicts; a column a row leaves out takes ``defaults``."""
    keys = sorted(set().union(*rows))
    return {k: np.array([r.get(k, defaults.get(k)) for r in rows], dtype=np.float64) for k in keys}


TRAIN_DEFAULTS = {k: v for k, (v, _) in COLUMNS.items() if v is not None}


def train_columns(rows):
    return columns(rows, TRAIN_DEFAULTS)


#: Outputs that are durations (s): the iteration strictly positive, its parts non-negative.
def _time_like(name: str) -> bool:
    return name.endswith("_s") or name.startswith(("time_", "exposed_", "overlapped_"))


def check_outputs(out: dict[str, np.ndarray], rows: list[dict], allowed_bits: int, positive=()):
    """Every output finite; times non-negative and ``positive`` ones > 0; rows infeasible only
    for ``allowed_bits`` and exactly when their mask is nonzero."""
    for name, v in out.items():
        bad = ~np.isfinite(v)
        assert not bad.any(), (name, v[bad][:3], [rows[i] for i in np.flatnonzero(bad)[:2]])
        if _time_like(name):
            neg = v < 0
            assert not neg.any(), (name, v[neg][:3], [rows[i] for i in np.flatnonzero(neg)[:2]])
    for name in positive:
        bad = ~(out[name] > 0)
        assert not bad.any(), (name, out[name][bad][:3], [rows[i] for i in np.flatnonzero(bad)[:2]])
    mask = out["infeasible_mask"].astype(np.int64)
    np.testing.assert_array_equal(out["feasible"] == 1.0, mask == 0)
    stray = mask & ~allowed_bits
    assert not stray.any(), (stray[stray != 0][:3], [rows[i] for i in np.flatnonzero(stray)[:2]])


TRAIN_POSITIVE = ("iteration_time_s", "tokens_per_s", "samples_per_s", "memory_per_gpu_bytes",
                  "params_total", "microbatches")


#: regression: a layer whose compute (7e10 s on a 120 B/s HBM) dwarfs its overlapped CP ring
#: (4e5 s) behind a tiny window: bound - compute rounded above the ring's time, the share of it
#: exposed exceeded 1 and overlapped_cp_s came out -0.43 s (fixed in training.two_stream_layer)
EXTREME_CP_ROW = {'layers': 384.0,
                 'hidden': 752.0,
                 'heads': 2.0,
                 'kv_heads': 1.0,
                 'head_dim': 64.0,
                 'ffn_hidden': 3.0,
                 'ffn_mats': 2.0,
                 'vocab': 74660.0,
                 'seq_len': 19616.0,
                 'experts': 0.0,
                 'top_k': 0.0,
                 'expert_ffn_hidden': 0.0,
                 'shared_experts': 0.0,
                 'moe_layers': 0.0,
                 'tied_embeddings': 1.0,
                 'causal': 0.0,
                 'input_proj_dim': 0.0,
                 'head_fraction': 5.097879282218597e-05,
                 'peak_flops': 5.273054074552259e+17,
                 'peak_flops_16': 2.6365270372761296e+17,
                 'hbm_bytes': 14017744.95223572,
                 'hbm_bw': 120.5905287088748,
                 'nvlink_bw': 314148435.93062246,
                 'nvlink_domain': 4.0,
                 'scaleout_bw': 68.54837368072577,
                 'nvlink_latency': 1.2607224832814107e-08,
                 'scaleout_latency': 2.5741560918197057e-07,
                 'memory_reserved': 1370063531.4259863,
                 'eff_matmul': 0.00019529291397099393,
                 'matmul_k_half': 0.002759761136366633,
                 'eff_attention': 0.04233445613982131,
                 'eff_hbm': 0.00011292728014049137,
                 'eff_nvlink': 0.0012898865498542516,
                 'eff_scaleout': 0.3279015939402071,
                 'rail_optimized': 0.0,
                 'overlap_slowdown': 0.3119545237857515,
                 'power_w': 3907.028787322295,
                 'price_per_gpu_hour': 12.767222230630228,
                 'num_gpus': 24576.0,
                 'tp': 1.0,
                 'pp': 64.0,
                 'dp': 12.0,
                 'cp': 32.0,
                 'ep': 1.0,
                 'sp': 0.0,
                 'vpp': 1.0,
                 'zero': 1.0,
                 'recompute': 1.0,
                 'microbatch': 2.0,
                 'global_batch': 102480.0,
                 'frozen_layers': 0.0,
                 'freeze_embeddings': 1.0,
                 'lora_rank': 100000.0,
                 'lora_qkv': 1.0,
                 'lora_out': 1.0,
                 'lora_ffn': 0.0,
                 'act_bytes': 2.0,
                 'weight_bytes': 2.0,
                 'fp8': 1.0,
                 'grad_bytes': 2.0,
                 'grad_reduce_bytes': 2.0,
                 'optimizer_bytes': 4.0,
                 'flash_attention': 1.0,
                 'overlap_dp': 0.0,
                 'overlap_fsdp': 0.0,
                 'overlap_tp': 1.0,
                 'overlap_ep': 1.0,
                 'overlap_cp': 1.0,
                 'overlap_pp': 1.0}


@FINITE
@given(drawn=st.lists(llm_train_row(), min_size=1, max_size=12))
@example(drawn=[EXTREME_CP_ROW])
def test_llm_training_outputs_finite(drawn):
    rows = cross(drawn)
    GENERATED["llm_train"] += len(rows)
    out = tr.evaluate_training(train_columns(rows))
    check_outputs(out, rows, tr.OUT_OF_MEMORY, TRAIN_POSITIVE)
    for i in np.flatnonzero(out["feasible"] == 0.0)[:4]:
        assert describe(int(out["infeasible_mask"][i]), {**rows[i], **{k: v[i] for k, v in out.items()}})


@FINITE
@given(drawn=st.lists(llm_train_row(vit=True), min_size=1, max_size=12))
def test_vit_training_outputs_finite(drawn):
    rows = cross(drawn)
    GENERATED["vit_train"] += len(rows)
    out = tr.evaluate_training(train_columns(rows))
    check_outputs(out, rows, tr.OUT_OF_MEMORY, TRAIN_POSITIVE)


def test_two_stream_layer_never_hides_a_negative_time():
    """Regression: a 0.003 s collective behind a (near-)empty window of a 0.01 s layer:
    (compute + comm) - compute rounds above comm, which made the hidden part -7e-19 s."""
    compute = np.linspace(0.01, 0.1, 1000)
    comm = np.full(1000, 0.003)
    time, exposed, hidden = tr.two_stream_layer(compute, [(comm, np.full(1000, 1e-20), np.ones(1000))])
    assert (hidden[0] >= 0).all() and (exposed[0] <= comm).all()
    np.testing.assert_allclose(time, compute + comm, rtol=1e-15)


@ROWS
@given(rows=st.lists(st.one_of(llm_train_row(), llm_train_row(vit=True)), min_size=2, max_size=8))
def test_llm_training_rows_are_independent(rows):
    GENERATED["row independence (training)"] += len(rows)
    cols = train_columns(rows)
    out = tr.evaluate_training(cols)
    for i in range(len(rows)):
        alone = tr.evaluate_training({k: v[i:i + 1] for k, v in cols.items()})
        for name, v in alone.items():
            np.testing.assert_allclose(out[name][i], v[0], rtol=1e-12, atol=0, err_msg=name)


# ================================================================================ LLM inference
@st.composite
def llm_inference_row(draw):
    """One valid serving configuration: tp x pp replicas (dp of them), ep nested with tp."""
    tp = draw(st.sampled_from([1, 2, 4, 8, 16]))
    pp = draw(st.sampled_from([1, 2, 4, 8]))
    layers = pp * draw(st.integers(1, 24))
    dp = draw(st.one_of(st.just(1), st.integers(1, 4096)))
    moe = draw(st.booleans())
    row = draw(transformer(tp, moe))
    # serving replicates KV heads beyond tp: kv_heads may be any divisor of tp too
    if draw(st.booleans()):
        row["kv_heads"] = float(draw(st.sampled_from(divisors(tp))))
        row["heads"] = float(max(row["heads"], row["kv_heads"]))
    if moe:
        E = int(row["experts"])
        # ep divides tp (experts sharded tp/ep ways) or tp divides ep (ep beyond the TP group)
        nested = [e for e in divisors(math.gcd(E, tp * dp)) if e % tp == 0 or tp % e == 0]
        ep = draw(st.sampled_from(nested))
        etp = max(tp // ep, 1)
        row.update(ep=float(ep), moe_layers=float(draw(st.integers(1, layers))),
                   expert_ffn_hidden=float(etp * tp * 16 * draw(st.integers(1, 256))))
    phase = draw(st.sampled_from(["prefill", "decode", "mixed"]))
    I = draw(st.just(1) | st.integers(1, 256)) if phase == "decode" else draw(st.integers(1, 131072))
    O = 1 if phase == "prefill" else draw(st.one_of(st.just(1), st.integers(1, 16384)))
    precision = draw(st.sampled_from(["bf16", "fp8", "fp4", "fp32"]))
    wb, kvb, ab = {"bf16": (2.0, 2.0, 2.0), "fp8": (1.0, 1.0, 2.0), "fp4": (0.5, 1.0, 2.0),
                   "fp32": (4.0, 4.0, 4.0)}[precision]
    hw = draw(hardware)
    min_tok = float(draw(st.sampled_from([1, 256, 2048, 8192])))
    row.update(hw)
    row.update({
        "layers": float(layers), "tp": float(tp), "pp": float(pp), "dp": float(dp),
        "num_gpus": float(tp * pp * dp), "input_len": float(I), "output_len": float(O),
        "seq_len": float(I + O), "weight_bytes": wb, "act_bytes": ab, "head_bytes": max(ab, 2.0),
        "kv_bytes": draw(st.sampled_from([kvb, 1.0])),  # FP8 KV cache with any weights
        "peak_flops": hw["peak_flops_16"] * (2.0 if wb < 2 else 1.0),
        "batch": float(draw(st.one_of(st.just(0), st.just(1), st.integers(1, 4096), st.just(1_000_000)))),
        "concurrency": float(draw(st.one_of(st.just(0), st.integers(1, 100_000)))),
        "request_rate": draw(st.one_of(st.just(0.0), log_floats(1e-4, 1e6))),  # offered load, req/s
        "max_batch": float(draw(st.sampled_from([1, 256, 4096, 1 << 20]))),
        "min_num_tokens": min_tok,
        "max_num_tokens": float(max(min_tok, draw(st.sampled_from([1, 2048, 8192, 32768, 1 << 20])))),
        "kv_mem_fraction": draw(st.floats(0.01, 1.0)),
        "kv_reserve_output": draw(st.floats(0.0, 1.0)),
        "kv_block": float(draw(st.sampled_from([1, 16, 64, 256]))),
        "infer_matmul": draw(st.floats(0.1, 2.0)),
        "infer_attention": draw(st.floats(0.01, 1.0)),
        "infer_hbm": draw(st.floats(0.01, 1.0)),
        "step_overhead": draw(st.one_of(st.just(0.0), log_floats(1e-6, 1e-2))),
        "seq_overhead": draw(st.one_of(st.just(0.0), log_floats(1e-8, 1e-4))),
        "collective_overhead": draw(st.one_of(st.just(0.0), log_floats(1e-7, 1e-3))),
        # weight-only quantization (16-bit or FP8 GEMM inputs), what local attention saves,
        # disaggregated instances (0 whole requests, 1 prefill, 2 decode)
        "gemm_in_bytes": draw(st.sampled_from([0.0, 1.0, 2.0])),
        "window_scope": float(draw(st.integers(0, 2))),
        "phase": float(draw(st.integers(0, 2))),
        # the expert exchange: DeepEP-style or every copy, quantized or not, two-batch overlap;
        # latent-attention decode at the 16-bit peak; a context window (0: none)
        "moe_dedup": float(draw(st.booleans())),
        "dispatch_bytes": draw(st.sampled_from([0.0, 1.0, 0.5625])),
        "tbo": float(draw(st.booleans())),
        "sbo": float(draw(st.booleans())),
        "mla_decode_fp8": float(draw(st.booleans())),
        "context_len": float(draw(st.sampled_from([0, 4096, 1 << 20]))),
        # the busiest expert-parallel rank: stated (>= 1) or expected from the router's skew (0)
        "ep_imbalance": draw(st.sampled_from([0.0, 1.0, 1.12, 4.0, 64.0])),
        "router_skew": draw(st.sampled_from([0.0, 2.16, 16.0])),
    })
    return row


INFER_DEFAULTS = {**TRAIN_DEFAULTS, **{k: v for k, (v, _) in inf.INFERENCE_COLUMNS.items() if v is not None}}
INFER_POSITIVE = ("iteration_time_s", "itl_ms", "ttft_ms", "prefill_time_s", "decode_step_s",
                  "tokens_per_s", "requests_per_s", "batch", "memory_per_gpu_bytes", "params_total")


def raw_inference(cols):
    """evaluate_inference's arrays as computed, before its final nan_to_num safety net."""
    seen = []
    real = np.nan_to_num

    def keep(v, **kw):
        seen.append(np.array(v, dtype=np.float64))
        return real(v, **kw)

    n = len(next(iter(cols.values())))
    assert n <= inf.CHUNK
    with mock.patch.object(np, "nan_to_num", keep):
        out = inf.evaluate_inference(cols)
    assert len(seen) == len(out)
    return dict(zip(out, seen))


@HEAVY
@given(drawn=st.lists(llm_inference_row(), min_size=1, max_size=12))
def test_llm_inference_outputs_finite(drawn):
    rows = cross(drawn)
    GENERATED["llm_inference"] += len(rows)
    cols = columns(rows, INFER_DEFAULTS)
    raw = raw_inference(cols)
    check_outputs(raw, rows, tr.OUT_OF_MEMORY | inf.RATE_EXCEEDS | inf.CONTEXT_EXCEEDED | inf.BATCH_ABOVE_MAX,
                  INFER_POSITIVE)


@ROWS
@given(rows=st.lists(llm_inference_row(), min_size=2, max_size=8))
def test_llm_inference_rows_are_independent(rows):
    GENERATED["row independence (inference)"] += len(rows)
    cols = columns(rows, INFER_DEFAULTS)
    out = inf.evaluate_inference(cols)
    for i in range(len(rows)):
        alone = inf.evaluate_inference({k: v[i:i + 1] for k, v in cols.items()})
        for name, v in alone.items():
            np.testing.assert_allclose(out[name][i], v[0], rtol=1e-12, atol=0, err_msg=name)


# ================================================================================ DLRM
@st.composite
def dlrm_model(draw):
    """Random DLRM constants: 1-40 tables from 1 row to 10^10, one-hot or multi-hot, dot /
    DCN-v2 (full or low rank) / concat interaction, optionally MoE MLPs or a transformer."""
    T = draw(st.integers(1, 40))
    one_hot = draw(st.booleans())
    tables = [(float(draw(st.one_of(st.just(1), st.integers(1, 10**6), st.just(10**10)))),
               float(draw(st.sampled_from([1, 4, 16, 64, 128, 512]))),
               1.0 if one_hot else draw(st.floats(0.01, 500.0)))
              for _ in range(T)]
    interaction = draw(st.sampled_from(["dot", "dcnv2", "concat"]))
    widths = st.lists(st.one_of(st.just(1), st.integers(1, 4096)), min_size=1, max_size=5)
    bottom = draw(widths)
    top = draw(widths) + [1]
    variant = draw(st.sampled_from(["plain", "moe", "transformer"]))
    E = draw(st.sampled_from([1, 2, 8, 64])) if variant == "moe" else 0
    tf = None
    if variant == "transformer":
        tf = {"layers": draw(st.integers(1, 8)), "heads": draw(st.sampled_from([1, 2, 8])),
              "hidden": draw(st.sampled_from([16, 128, 512])), "ffn_hidden": draw(st.sampled_from([1, 64, 2048])),
              "seq_len": draw(st.sampled_from([1, T, 64]))}
    return cm.model_constants(
        tables, draw(st.integers(0, 2048)), bottom, top, interaction=interaction,
        cross_layers=draw(st.integers(1, 6)) if interaction == "dcnv2" else 0,
        cross_rank=draw(st.sampled_from([None, 1, 64, 512])) if interaction == "dcnv2" else None,
        moe_experts=E, moe_top_k=draw(st.integers(1, E)) if E else 0, transformer=tf)


@st.composite
def dlrm_row(draw, model, train: bool):
    """One valid DLRM configuration of ``model``: batch = microbatch x GPUs, tp and ep divide
    the GPUs, hierarchical shardings on whole nodes, hybrid only for one-hot tables."""
    gpn = draw(st.sampled_from([1, 2, 4, 8]))
    nodes = draw(st.one_of(st.just(1), st.integers(1, 64), st.just(4096)))
    n = gpn * nodes
    if draw(st.booleans()) and n > 1:  # a job smaller than a node
        n = draw(st.integers(1, gpn))
        gpn = n
    shardings = [k for k in cm.SHARDING if k != "hybrid" or bool(np.all(model["pooling"] <= 1.0))]
    b = draw(st.one_of(st.just(1), st.integers(1, 65536), st.just(1 << 20)))
    E = int(model["moe_experts"])
    hw = draw(hardware)
    row = {k: v for k, v in hw.items() if k in cm.COLUMNS}
    row.update({
        "peak_flops": hw["peak_flops_16"] * draw(st.sampled_from([0.5, 1.0, 2.0])),
        "gpus_per_node": float(gpn), "num_gpus": float(n), "microbatch": float(b), "global_batch": float(b * n),
        "emb_sharding": float(cm.SHARDING[draw(st.sampled_from(shardings))]),
        "emb_planner": float(draw(st.booleans())),
        "tp": float(draw(st.sampled_from(divisors(n)))),
        "zero": draw(st.sampled_from([0.0, 3.0])),
        "ep": float(draw(st.sampled_from(divisors(math.gcd(E, n))))) if E else 1.0,
        "eff_gather": draw(st.floats(0.01, 1.0)),
        "op_latency": draw(st.one_of(st.just(0.0), log_floats(1e-7, 1e-4))),
        "step_overhead": draw(st.one_of(st.just(0.0), log_floats(1e-6, 1e-2))),
        "popularity_zipf": draw(st.sampled_from([0.5, 1.0, 1.05, 2.0])),
        "act_bytes": draw(st.sampled_from([2.0, 4.0])),
        "emb_bytes": draw(st.sampled_from([1.0, 2.0, 4.0])),
        "grad_bytes": draw(st.sampled_from([2.0, 4.0])),
        "emb_optimizer": float(draw(st.integers(0, 3))),
        "dense_optimizer": float(draw(st.integers(0, 3))),
        "master_weights": float(draw(st.booleans())),
        "train": float(train),
        "freeze_emb": float(draw(st.booleans())), "freeze_bottom": float(draw(st.booleans())),
        "freeze_top": float(draw(st.booleans())),
        "overlap_a2a": float(draw(st.booleans())), "overlap_dp": float(draw(st.booleans())),
    })
    return row


@st.composite
def dlrm_batch(draw, max_size=10):
    model = draw(dlrm_model())
    train = draw(st.booleans())
    rows = draw(st.lists(dlrm_row(model, train), min_size=1, max_size=max_size))
    return model, rows


DLRM_DEFAULTS = {k: v for k, (v, _) in cm.COLUMNS.items() if v is not None}
DLRM_POSITIVE = ("iteration_time_s", "samples_per_s", "memory_per_gpu_bytes", "flops_per_sample")
DLRM_ALLOWED = cm.OUT_OF_MEMORY | cm.TABLE_TOO_LARGE


def raw_dlrm(model, cols):
    """The arrays of both table placements (cost- and memory-balanced) before evaluate_dlrm's
    nan_to_num safety net."""
    c, N = cm.broadcast(cols)
    with np.errstate(all="ignore"):
        return cm._evaluate(model, c, N, cm._embedding_plan(model, c, N, cm._hybrid_cost(model, c)))


@HEAVY
@given(case=dlrm_batch())
def test_dlrm_outputs_finite(case):
    model, drawn = case
    rows = cross(drawn)
    GENERATED["dlrm_train" if rows[0]["train"] else "dlrm_inference"] += len(rows)
    cols = columns(rows, DLRM_DEFAULTS)
    check_outputs(raw_dlrm(model, cols), rows, DLRM_ALLOWED, DLRM_POSITIVE)
    check_outputs(cm.evaluate_dlrm(model, cols), rows, DLRM_ALLOWED, DLRM_POSITIVE)


@ROWS
@given(case=dlrm_batch(max_size=6))
def test_dlrm_rows_are_independent(case):
    model, rows = case
    GENERATED["row independence (DLRM)"] += len(rows)
    cols = columns(rows, DLRM_DEFAULTS)
    out = cm.evaluate_dlrm(model, cols)
    for i in range(len(rows)):
        alone = cm.evaluate_dlrm(model, {k: v[i:i + 1] for k, v in cols.items()})
        for name, v in alone.items():
            np.testing.assert_allclose(out[name][i], v[0], rtol=1e-12, atol=0, err_msg=name)


# ================================================================================ dse.evaluate
GPUS = gpu_table()

#: Columns the DLRM evaluator leaves NaN on purpose: LLM report columns that do not apply to a
#: recommendation model (it has no tokens). Everything else dse.evaluate returns is finite.
DLRM_NOT_APPLICABLE = {"tokens_per_s", "tokens_per_s_per_gpu", "energy_per_token_j", "cost_per_mtok_usd"}


@st.composite
def cluster(draw, n: int, gpu: str):
    """A cluster of ``n`` GPUs, sometimes with extreme hardware overrides."""
    spec = {"gpu": gpu, "num_gpus": n}
    if draw(st.booleans()):
        spec.update({k: draw(v) for k, v in {
            "hbm_gb": st.sampled_from([0.001, 1.0, 2048.0]),
            "nvlink_gbps": st.sampled_from([0.01, 1.0, 1e5]),
            "scaleout_gbitps": st.sampled_from([0.01, 1.0, 1e5]),
            "memory_reserved_gb": st.sampled_from([0.0, 100.0]),
        }.items() if draw(st.booleans())})
    return spec


def precisions(gpu: str, allowed) -> list[str]:
    peaks = GPUS[gpu]["peak_tflops"]
    return [p for p in allowed if peaks.get(p)]


@st.composite
def llm_scenario(draw):
    gpu = draw(st.sampled_from(sorted(GPUS)))
    workload = draw(st.sampled_from(["train", "finetune", "inference"]))
    tp = draw(st.sampled_from([1, 2, 4, 8]))
    pp = draw(st.sampled_from([1, 2, 4]))
    dp = draw(st.one_of(st.just(1), st.integers(1, 512)))
    heads = tp * draw(st.sampled_from([1, 2, 4, 8]))
    moe = draw(st.booleans())
    layers = pp * draw(st.integers(1, 6))
    model = {"name": "random", "family": "moe" if moe else "dense", "layers": layers,
             "hidden": heads * draw(st.sampled_from([32, 64, 128])), "heads": heads,
             "kv_heads": tp * draw(st.sampled_from(divisors(heads // tp))),
             "ffn_hidden": tp * 64 * draw(st.integers(1, 64)), "ffn_act": draw(st.sampled_from(["gelu", "swiglu"])),
             "vocab": draw(st.integers(2, 200_000)), "seq_len": 4 * draw(st.integers(1, 8192))}
    plan = {"tp": tp, "pp": pp, "dp": dp}
    if moe:
        experts = draw(st.sampled_from([2, 8, 16]))
        model["moe"] = {"experts": experts, "top_k": draw(st.integers(1, 2)),
                        "expert_ffn_hidden": tp * 64 * draw(st.integers(1, 32)),
                        "dense_layers": draw(st.integers(0, layers - 1))}
        ep = draw(st.sampled_from(divisors(math.gcd(experts, dp))))
        if workload == "inference" and not (ep % tp == 0 or tp % ep == 0):
            ep = 1
        plan["ep"] = ep
    scenario = {"workload": workload, "model": model,
                "precision": draw(st.sampled_from(precisions(gpu, ["bf16", "fp16", "fp8", "fp4", "fp32"]))),
                "cluster": draw(cluster(tp * pp * dp, gpu))}
    if workload == "inference":
        scenario["inference"] = {"input_len": draw(st.integers(1, 32768)), "output_len": draw(st.integers(1, 4096)),
                                 **({"batch": draw(st.integers(1, 4096))} if draw(st.booleans()) else {})}
    else:
        mb = draw(st.sampled_from([1, 2, 8]))
        plan.update(cp=draw(st.sampled_from([1, 2, 4])), zero=draw(st.integers(0, 3)), microbatch=mb,
                    recompute=draw(st.sampled_from(["none", "selective", "full"])),
                    global_batch=dp * mb * draw(st.sampled_from([1, 3, 64])))
        scenario["cluster"]["num_gpus"] *= plan["cp"]
        if workload == "finetune":
            scenario["finetune"] = {"frozen_layers": draw(st.integers(0, layers)),
                                    "freeze_embeddings": draw(st.booleans()),
                                    **({"lora": {"rank": draw(st.sampled_from([1, 16, 256]))}} if draw(st.booleans())
                                       else {})}
    scenario["parallel"] = plan
    return scenario


@st.composite
def vit_scenario(draw):
    gpu = draw(st.sampled_from(sorted(GPUS)))
    patch = draw(st.sampled_from([14, 16, 32]))
    heads = draw(st.sampled_from([1, 4, 12, 16]))
    tp = draw(st.sampled_from(divisors(heads)))
    dp = draw(st.integers(1, 256))
    mb = draw(st.sampled_from([1, 32, 1024]))
    model = {"family": "vit", "layers": draw(st.integers(1, 32)), "hidden": heads * 64, "heads": heads,
             "ffn_hidden": tp * 256 * draw(st.integers(1, 16)), "patch": patch,
             "image_size": patch * draw(st.integers(1, 32)), "classes": draw(st.sampled_from([2, 1000]))}
    return {"workload": "train", "model": model,
            "precision": draw(st.sampled_from(precisions(gpu, ["bf16", "fp16", "fp8", "tf32"]))),
            "cluster": draw(cluster(tp * dp, gpu)),
            "parallel": {"tp": tp, "dp": dp, "microbatch": mb, "global_batch": dp * mb,
                         "zero": draw(st.integers(0, 3))}}


@st.composite
def dlrm_scenario(draw):
    gpu = draw(st.sampled_from(sorted(GPUS)))
    gpn = min(GPUS[gpu]["gpus_per_node"], 8)
    n = draw(st.one_of(st.integers(1, gpn), st.integers(1, 128).map(lambda k: k * gpn)))
    one_hot = draw(st.booleans())
    tables = [{"rows": draw(st.one_of(st.just(1), st.integers(1, 10**8))), "dim": draw(st.sampled_from([16, 64, 128])),
               "pooling": 1.0 if one_hot else draw(st.floats(0.5, 100.0))}
              for _ in range(draw(st.integers(1, 26)))]
    interaction = draw(st.sampled_from(["dot", "dcnv2"]))
    model = {"family": "dlrm", "dense_features": draw(st.integers(0, 13)), "tables": tables,
             "bottom_mlp": [512, 256, 128], "top_mlp": [1024, 1024, 512, 256, 1], "interaction": interaction,
             **({"cross_layers": draw(st.integers(1, 3)), "cross_rank": 512} if interaction == "dcnv2" else {})}
    variant = draw(st.sampled_from(["plain", "moe", "transformer"]))
    if variant == "moe":
        model["moe"] = {"experts": 8, "top_k": 2}
    elif variant == "transformer":
        model["transformer"] = {"layers": 2, "heads": 4, "hidden": 128, "ffn_hidden": 512, "seq_len": len(tables)}
    shardings = [None, "table", "row", "column", "table_row", "auto", "hier_auto", "node_sharded", "data_parallel"]
    if one_hot:
        shardings.append("hybrid")
    if n % gpn:
        shardings = [s for s in shardings if s not in ("table_row", "hier_auto", "node_sharded")]
    mb = draw(st.sampled_from([1, 512, 65536]))
    return {"workload": draw(st.sampled_from(["train", "inference"])), "model": model,
            "precision": draw(st.sampled_from(precisions(gpu, ["fp16", "bf16", "tf32", "fp32"]))),
            "cluster": draw(cluster(n, gpu)),
            "parallel": {"microbatch": mb, "global_batch": mb * n, "emb_sharding": draw(st.sampled_from(shardings)),
                         "ep": draw(st.sampled_from(divisors(math.gcd(8, n)))) if variant == "moe" else 1}}


def check_frame(frame, specs):
    """Every numeric column of an evaluated frame finite (but the documented N/A ones of DLRM),
    iteration time positive, infeasible rows with a reason and a nonzero mask."""
    for name in frame.columns:
        values = frame[name]
        if values.dtype.kind not in "fiub":
            continue
        bad = ~np.isfinite(values.to_numpy(dtype=np.float64))
        if name in DLRM_NOT_APPLICABLE:
            bad &= ~frame["kind"].str.startswith("dlrm").to_numpy()
        if name in dse.api.COST_METRICS:  # unknown (NaN) for a GPU without a price
            bad &= frame["price_per_gpu_hour"].to_numpy(dtype=np.float64) > 0
        assert not bad.any(), (name, [specs[i] for i in np.flatnonzero(bad)[:2]])
    assert (frame["iteration_time_s"] > 0).all()
    infeasible = ~frame["feasible"].to_numpy(dtype=bool)
    assert (frame["infeasible_mask"].to_numpy()[infeasible] != 0).all()
    assert (frame["infeasible_mask"].to_numpy()[~infeasible] == 0).all()
    assert all(frame["infeasible_reason"].to_numpy()[infeasible])


API = settings(FINITE, max_examples=6)


@API
@given(raw=st.lists(st.one_of(llm_scenario(), vit_scenario(), dlrm_scenario()), min_size=1, max_size=6))
def test_evaluate_scenarios_finite_and_mixed_batch_equals_each_kind(raw):
    specs = [dse.load_scenario(s) for s in raw]
    GENERATED["dse.evaluate scenarios"] += len(specs)
    frame = dse.evaluate(specs)
    # each kind's rows carry its evaluator's columns (the other kinds' are NaN in a mixed
    # frame); they are finite and equal to the kind's batch scored alone
    for kind in set(frame["kind"]):
        index = np.flatnonzero(frame["kind"] == kind)
        alone = dse.evaluate([specs[i] for i in index])
        check_frame(alone, [raw[i] for i in index])
        part = frame.iloc[index][alone.columns].reset_index(drop=True)
        pd.testing.assert_frame_equal(part, alone, check_dtype=False)


def test_report_generated_counts():
    """Last in the file: prints how many configurations the tests above scored (``-s``)."""
    print("\nconfigurations scored:", dict(GENERATED))
