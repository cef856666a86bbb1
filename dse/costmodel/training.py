"""Training step time, memory and throughput of N configurations at once.

The model, per pipeline stage and microbatch, on two streams:

* compute stream: every matmul as a roofline op, ``max(F / (peak*eff*K/(K+K_half)),
  bytes / (hbm_bw*eff_hbm))`` with K its reduction depth (shallow matmuls run below peak;
  backward = data-gradient + weight-gradient GEMMs, each with its own depth); the fused attention
  kernel at its own efficiency over the causal half of the s^2 work (only the keys inside the
  window for sliding- or chunked-attention layers; MLA's wider query/key heads); norms,
  residuals, activations, dropout and FP8 casts as HBM traffic;
  backward = 2x forward (flash-attention backward 2.5x); full recompute re-runs the forward,
  selective recompute the modules the ``rc_*`` columns name (attention core by default).
* communication stream: tensor-parallel all-reduces (or all-gather + reduce-scatter with
  sequence parallelism, whose backward gathers the QKV and FC1 inputs again for their weight
  gradients, under the input-gradient GEMMs), expert all-to-alls (a collective of no bytes,
  as a dense model's expert groups, costs nothing), the context-parallel K/V ring, pipeline
  point-to-point, FSDP/ZeRO-3 parameter gathers and gradient reduce-scatters, data-parallel
  gradient reduction. Which of them can hide behind compute is set per kind by the ``overlap_*``
  columns; a hidden collective still costs ``overlap_slowdown`` of its time on the compute stream
  (SMs and HBM shared with the kernels). TP and EP collectives are exposed by default. Expert
  all-to-alls send every routed copy, or (``moe_dedup``, DeepEP) each token once per destination
  NVLink domain and once per destination GPU, at most ``top_groups`` groups' worth under
  group-limited routing; experts split ``etp`` > 1 ways also all-gather the routed copies over
  their etp ranks (and reduce-scatter the outputs); the busiest EP rank (``moe_imbalance``) paces
  them. They hide under the layer's shared experts, or (``ep_cross_overlap``, DualPipe) under
  another microbatch's layer.
* copy engines: activation offloading (``offload_layers``) copies an offloaded layer's saved
  activations to host memory while the next layer runs forward and back while the layer above
  runs backward, at ``host_link_bw * eff_host_link`` (PCIe or NVLink-C2C); the part of a copy
  longer than that layer is exposed (``exposed_offload_s``). The copies' own HBM traffic (each
  byte read or written once, a few percent of HBM bandwidth) is not charged to the kernels.
* the host: an MoE layer whose dispatch reads the routed-token counts on the host (Megatron-core)
  is launched while the GPU runs it, not ahead of it; the host's time for one layer and
  microbatch, H = ``moe_host_layer`` + ``moe_host_expert`` x local experts, and the GPU's G give
  the layer (G^2 + H^2)^(1/2), the excess over G being ``host_stall_s``.

Every layer of a kind (dense, MoE) is identical, so the per-layer two-stream schedule is a
closed form (:func:`two_stream_layer`, plus the first gather that nothing hides);
pipeline stages hold layers/pp layers and the last stage also the LM head. When pp does not
divide the layers, stages hold floor or ceil(layers/pp) (Megatron-core's uneven first/last
stages): the last stage is a short one (it has the head), and so is the first (it has the
embedding) when two or more are short; the steady state runs at the slower of a full stage and
the last stage with its head, and memory peaks on the first stage (most microbatches in flight)
or, when it is short, possibly on the second (full, one microbatch fewer) or on the last. Every
pipeline chunk holds a layer, except that the embedding and the loss may take a chunk each
(layers + 2 >= pp*vpp).
1F1B pipeline (Narayanan et al. 2021): ``m*(F+B)`` steady state plus a bubble of
``(pp-1)/vpp * (F+B)`` (with vpp chunks that do not split a stage's layers evenly, the longest
chunk's share of them instead of 1/vpp). Memory per GPU: weights, gradients, optimizer state
(sharded by the ZeRO stage, over all dp*cp ranks or, with hybrid sharding, over groups of
``shard_group`` ranks whose replicas all-reduce their gradient shards), activations of the microbatches in flight
(Korthikanti et al. 2022; an offloaded layer keeps only a copy in flight), logits,
communication buffers and a reserve; compared with HBM capacity.

No Python loop runs over configurations: every line is an array operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import collectives as coll
from . import power
from .flops import (attention_core_flops_per_key, attention_span, is_mla, layer_params, mla_projection_shapes,
                    executed_flops_per_token, model_flops_per_token, model_params, recompute_flops_per_token,
                    softmax_exp_factor)
from .inputs import broadcast_columns
from .memory import frozen_input_savings, layer_activation_bytes, selective_savings

#: Configurations scored per inner call; keeps temporaries in cache.
CHUNK = 1 << 14

#: Bits of ``infeasible_mask``; :mod:`dse.costmodel.reasons` renders them with the arithmetic.
DEGREES_PRODUCT = 1 << 0
HEADS_TP = 1 << 1
LAYERS_PP = 1 << 2
BATCH_DP = 1 << 3
SEQ_CP = 1 << 4
EXPERTS_EP = 1 << 5
INTERLEAVE = 1 << 6
OUT_OF_MEMORY = 1 << 7
FFN_TP = 1 << 8
EP_DENSE = 1 << 9
SHARD_GROUP = 1 << 13
#: offloaded activations need more host memory than a GPU has (``host_memory_bytes`` > 0)
HOST_MEMORY = 1 << 14
#: the experts' tensor-parallel split (etp) does not divide expert_ffn_hidden, or is set on a
#: model without experts; or a MoE model runs tp > 1 without sequence parallelism (Megatron-core
#: refuses it: its dispatchers take the routed tokens from sequence shards)
EXPERT_TP = 1 << 15

def kv_heads_fit(kv_heads, tp):
    """Whether ``tp`` ranks can hold ``kv_heads`` key/value heads: tp divides them, or is a
    multiple of them (each rank then holds one whole head, replicated on the tp / kv_heads ranks
    whose query heads read it). Arrays or plain numbers."""
    return (np.mod(kv_heads, tp) == 0) | (np.mod(tp, kv_heads) == 0)


#: Bytes read and written per locally updated parameter by a fused Adam step
#: (read fp32 master, m, v, grad; write master, m, v, bf16 weights; zero the grad).
OPTIMIZER_STEP_BYTES = 34.0


def evaluate_training(
    batch: Mapping[str, Any], outputs: Sequence[str] | None = None
) -> dict[str, np.ndarray]:
    """Score N training configurations.

    ``batch`` maps :data:`dse.costmodel.inputs.COLUMNS` names to arrays of length N or scalars.
    Returns a dict of float arrays of length N, all finite: every metric, or only ``outputs``
    (a search that needs a few metrics of millions of configurations saves the copies).
    """
    cols, n = broadcast_columns(batch)
    if n == 0:
        # the output names, from one placeholder configuration
        with np.errstate(all="ignore"):
            empty = _evaluate({k: (np.ones(1) if v.ndim else v) for k, v in cols.items()}, 1)
        return {k: np.empty(0) for k in (empty if outputs is None else outputs)}
    if n <= CHUNK:
        result = _evaluate(cols, n)
        return result if outputs is None else {k: result[k] for k in outputs}
    out: dict[str, np.ndarray] = {}
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        chunk = {k: (v[start:stop] if v.ndim else v) for k, v in cols.items()}
        part = _evaluate(chunk, stop - start)
        if not out:
            out = {k: np.empty(n) for k in (part if outputs is None else outputs)}
        for k, v in out.items():
            v[start:stop] = part[k]
    return out


def two_stream_layer(compute, comms, lead=0.0, tail=0.0):
    """One layer on a compute stream and one communication stream, in closed form.

    ``comms`` is a list of (time, window, on): a collective that may overlap (``on``) runs on
    the communication stream while the ``window`` part of the layer's compute runs (the whole
    layer for prefetched gathers, the attention for the K/V ring, the GEMMs for overlapped
    tensor-parallel collectives); one that may not (``on`` = 0) is serialised with compute.
    The overlapped collectives share the one communication stream, which cannot start before
    the ``lead`` compute that produces its first data and must end before the ``tail`` compute
    that consumes its last (seconds; both part of ``compute``), so the layer takes

        serialised + max(compute, lead + sum(hidden) + tail, max_i(compute - window_i + hidden_i))

    Returns (layer time, exposed time per collective, hidden time per collective); the exposed
    part of the overlapped ones is shared out in proportion to their time.
    """
    serial = 0.0
    hideable = []
    for time, window, on in comms:
        serial = serial + np.where(on > 0, 0.0, time)
        hideable.append(np.where(on > 0, time, 0.0))
    total = sum(hideable)
    bound = np.maximum(compute, np.where(total > 0, lead + total + tail, 0.0))
    for (time, window, on), hid in zip(comms, hideable):
        bound = np.maximum(bound, compute - window + hid)
    spill = bound - compute  # communication the compute could not cover
    # spill <= total exactly (windows >= 0), but bound - compute loses the low bits of a
    # compute much longer than the communication: clip, or the hidden parts go negative
    share = np.minimum(spill / np.maximum(total, 1e-30), 1.0)
    exposed = [np.where(on > 0, hid * share, time) for (time, _, on), hid in zip(comms, hideable)]
    hidden = [hid * (1.0 - share) for hid in hideable]
    return serial + bound, exposed, hidden


def _evaluate(c: dict[str, np.ndarray], n: int, detail: bool = False) -> dict[str, np.ndarray]:
    t, pp, dp, cp, ep, vpp = c["tp"], c["pp"], c["dp"], c["cp"], c["ep"], c["vpp"]
    b, s, h, V = c["microbatch"], c["seq_len"], c["hidden"], c["vocab"]
    a, g, d, f = c["heads"], c["kv_heads"], c["head_dim"], c["ffn_hidden"]
    mats, act = c["ffn_mats"], c["act_bytes"]
    sp = c["sp"] > 0
    zero, recompute = c["zero"], c["recompute"]
    is_moe = c["experts"] > 0
    any_moe = bool(np.any(is_moe))  # (MoE-only terms are skipped for a batch of dense models)
    rep_div = np.where(sp, t, 1.0)  # tensors replicated across TP ranks unless sequence-parallel

    T = b * s / cp  # tokens of one microbatch held by one GPU
    # key/value heads per TP rank: g/t, or with fewer KV heads than ranks (multi-query and
    # grouped-query attention at tp > kv_heads, as GSPMD runs PaLM's and recent Megatron releases
    # run GQA; older Megatron-core asserted num_query_groups % tp == 0) one whole head, each
    # replicated on the t/g ranks whose query heads read it. Not modelled: the sum of the
    # replicated K/V weight gradients over those ranks (2 h d values a layer, once a step)
    g_loc = np.maximum(g, t) / t
    m = np.maximum(c["global_batch"] / (dp * b), 1.0)  # microbatches per pipeline
    L = c["layers"] / pp  # layers per stage (mean)
    L_hi = np.ceil(c["layers"] / pp - 1e-9)  # the first stages when pp does not divide the layers
    L_lo = np.floor(c["layers"] / pp + 1e-9)  # the last (the same as L_hi when pp divides them)
    # with two or more short stages the first is one of them too: it holds the embedding, as the
    # last holds the head (Megatron-core's account_for_embedding/loss_in_pipeline_split, Meta's
    # 405B plan: 126 layers on 16 stages, 7 on the first and the last)
    L_first = np.where(pp * L_hi - c["layers"] >= 2.0 - 1e-9, L_lo, L_hi)
    moe_frac = c["moe_layers"] / c["layers"]
    dense_frac = 1.0 - moe_frac
    dpc = dp * cp  # ranks that reduce dense gradients
    # experts split etp ways (Megatron-core's expert_tensor_parallel_size; 0: tp ways) over ep
    # ranks: an etp x ep expert group, etp ranks consecutive, repeated over the edp = tp dp cp /
    # (etp ep) ranks that reduce expert gradients ("MoE parallel folding": the expert layout
    # need not follow the attention's tp x cp x dp one)
    etp = np.where(c["etp"] > 0, c["etp"], t)
    estride = etp * ep  # rank distance between the members of an expert-data-parallel group
    edp = np.maximum(t * dpc / estride, 1.0)
    # hybrid sharding (HSDP): ZeRO/FSDP state sharded over groups of sg consecutive ranks and
    # replicated over rg = dpc/sg such groups; the replicas all-reduce their gradient shards
    sg_in = c["shard_group"]
    sg = np.where((sg_in > 0) & (sg_in < dpc), sg_in, dpc)
    rg = dpc / sg
    esg = np.maximum(edp / rg, 1.0)  # expert ranks of one shard group
    erg = edp / esg

    # ------------------------------------------------------------------ compute stream
    fp8 = c["fp8"] > 0
    mm_rate = c["peak_flops"] * c["eff_matmul"]
    k_half = c["matmul_k_half"]
    hbm = c["hbm_bw"] * c["eff_hbm"]
    in_bytes = np.where(fp8, 1.0, act)  # bytes of a matmul operand

    # GEMMs an FP8/FP4 recipe keeps 16-bit: the LM head (Megatron-core's output layer is not a
    # Transformer Engine module; torchtitan's float8 conversion skips "output")
    eff16 = np.where(c["eff_matmul_16"] > 0, c["eff_matmul_16"], c["eff_matmul"])
    mm16_rate = np.where(fp8, c["peak_flops_16"] * eff16, mm_rate)

    def gemm(M, K, N, ops=1.0, peak_rate=mm_rate, operand=in_bytes):
        """Time of ``ops`` GEMMs (M x K) @ (K x N) each, s: roofline with a reduction-depth
        efficiency K / (K + K_half) (prologue/epilogue of each output tile amortised over K);
        ``peak_rate`` and ``operand`` (bytes an input element) are the precision's unless given."""
        flops = 2.0 * M * K * N * ops
        depth = np.maximum(K, 1.0)
        rate = peak_rate * depth / (depth + k_half)
        traffic = ops * (operand * (M * K + K * N) + act * M * N)
        return np.maximum(flops / rate, traffic / hbm)

    def gemm16(M, K, N):
        """A GEMM kept 16-bit in every recipe (the LM head), s."""
        return gemm(M, K, N, peak_rate=mm16_rate, operand=act)

    def linear(M, K, N, ops=1.0):
        """Forward and backward time of ``ops`` linear layers y = x W (x: M x K, W: K x N).

        Backward is the data gradient dy W^T (reduction over N) plus the weight gradient
        x^T dy (reduction over the M tokens): twice the forward FLOPs.
        """
        return gemm(M, K, N, ops), gemm(M, N, K, ops) + gemm(K, M, N, ops)

    def wgrad(M, K, N, ops=1.0):
        """The weight-gradient GEMM of a linear layer alone (skipped for frozen weights)."""
        return gemm(K, M, N, ops)

    qkv_f, qkv_b = linear(T, h, (a / t + 2.0 * g_loc) * d)
    out_f, out_b = linear(T, a * d / t, h)
    mla = is_mla(c)
    any_mla = bool(np.any(mla))
    if any_mla:  # latent attention: the down-projection is replicated over TP, the rest split by heads
        down, q_up, kv_up, o_proj = mla_projection_shapes(c, a / t)
        parts = [linear(T, K, N) for K, N in (down, q_up, kv_up)]
        qkv_f = np.where(mla, sum(p[0] for p in parts), qkv_f)
        qkv_b = np.where(mla, sum(p[1] for p in parts), qkv_b)
        mla_out = linear(T, *o_proj)
        out_f, out_b = np.where(mla, mla_out[0], out_f), np.where(mla, mla_out[1], out_b)
    up_f, up_b = linear(T, h, (mats - 1.0) * f / t)
    down_f, down_b = linear(T, f / t, h)
    proj, proj_b = qkv_f + out_f, qkv_b + out_b
    ffn, ffn_b = up_f + down_f, up_b + down_b
    Tk = T * c["top_k"]  # routed copies of a microbatch's tokens (balanced routing)
    # the copies an expert GPU runs: its EP rank's share, all-gathered over its etp ranks (with
    # sequence parallelism a TP rank sends its T/t tokens' copies; etp = tp: Tk)
    Tk_run = Tk * etp / t
    imb = np.maximum(c["moe_imbalance"], 1.0)  # the busiest EP rank's copies over the mean: it paces
    fe = c["expert_ffn_hidden"]
    if np.any(is_moe):
        local_experts = np.maximum(c["experts"] / ep, 1.0)
        per_expert = imb * Tk_run / local_experts
        eup_f, eup_b = linear(per_expert, h, (mats - 1.0) * fe / etp, local_experts)
        edown_f, edown_b = linear(per_expert, fe / etp, h, local_experts)
        # the router runs on the rank's own tokens (its sequence shard), its weights replicated
        router_f, router_b = linear(T / rep_div, h, c["experts"])
        sup_f, sup_b = linear(T, h, (mats - 1.0) * fe / t)
        sdown_f, sdown_b = linear(T, fe / t, h)
        shared_n = c["shared_experts"]
        # the shared experts' GEMMs need no routed token: the only work of the layer's own that
        # the dispatcher's communication can hide under (Megatron-core's moe_shared_expert_overlap)
        shared_f = np.where(is_moe, shared_n * (sup_f + sdown_f), 0.0)
        shared_b = np.where(is_moe, shared_n * (sup_b + sdown_b), 0.0)
        moe_ffn = np.where(is_moe, eup_f + edown_f + router_f, 0.0) + shared_f
        moe_ffn_b = np.where(is_moe, eup_b + edown_b + router_b, 0.0) + shared_b
    else:  # a batch of dense models: skip the expert GEMMs
        moe_ffn = moe_ffn_b = shared_f = shared_b = np.zeros(())

    flash = c["flash_attention"] > 0
    # a fused causal kernel skips the masked half (and, for windowed layers, the blocks outside
    # the window): half the full-mask span; bidirectional or unfused attention computes all s^2
    keys = np.where(flash & (c["causal"] > 0), 0.5 * attention_span(c), s)
    attn_flops = T * keys * attention_core_flops_per_key(c) / t
    attn_mm = attn_flops / (c["peak_flops_16"] * c["eff_attention"])
    # a fused kernel's softmax exponentials run on the special-function units beside its
    # matmuls: forward P = 4d tensor FLOPs per exponential, backward 10d (2.5x the FLOPs, one
    # exponential to rebuild the probabilities), relative to the GPU and d = 128 that
    # eff_attention was measured at (flops.softmax_exp_factor)
    per_exp = attention_core_flops_per_key(c) / np.maximum(a, 1.0)
    exp_args = (c["peak_flops_16"], c["exp_rate"], c["attention_flops_per_exp"])
    exp_f = np.where(flash, softmax_exp_factor(per_exp, *exp_args, 512.0), 1.0)
    exp_b = np.where(flash, softmax_exp_factor(2.5 * per_exp, *exp_args, 1280.0), 1.0)
    softmax_bytes = np.where(flash, 0.0, 12.0 * T * s * a / t)  # unfused: scores round trips
    attn_f = attn_mm * exp_f + softmax_bytes / hbm
    attn_b = np.where(flash, 2.5 * attn_mm * exp_b, 2.0 * attn_f)

    # elementwise HBM traffic per layer (forward): norms, residuals, rotary, dropout (16 T*h
    # element passes), the activation function (mats passes over f), FP8 casts of matmul inputs
    elem = 16.0 * T * h * act / rep_div + mats * T * f * act / t
    # MoE: permute the routed copies before the dispatch and un-permute (weighted sum) after the
    # combine (4 passes over Tk*h); with expert parallelism and several local experts the received
    # tokens are also sorted by expert and back (Megatron-core's alltoall dispatcher): 4 more
    local_sort = np.where((ep > 1) & (c["experts"] > ep), 4.0, 0.0)
    elem_moe = (16.0 * T * h * act / rep_div + imb * mats * Tk * fe * act / t
                + (4.0 + imb * local_sort) * Tk * h * act / rep_div)
    # FP8 casts of matmul inputs: read 2 bytes, write 1 (QKV, output projection, FFN up and down);
    # a MoE layer casts every routed copy (and the shared experts' tokens) for its expert GEMMs
    # (MLA: the output projection reads a * d_v; its up-projections read the latents)
    o_in = a * d / t
    if any_mla:
        o_in = np.where(mla, o_proj[0] + c["mla_q_rank"] + c["mla_kv_rank"], o_in)
    cast = np.where(fp8, 3.0 * T * (2.0 * h + o_in + f / t), 0.0)
    cast_moe = np.where(fp8, 3.0 * (T * (h + o_in) + imb * (Tk_run * h + Tk * fe / t)
                                    + c["shared_experts"] * T * (h + fe / t)), 0.0)
    elem_f = (elem + cast) / hbm
    elem_moe_f = (elem_moe + cast_moe) / hbm

    dense_f = proj + ffn + attn_f + elem_f
    moe_f = proj + moe_ffn + attn_f + elem_moe_f
    dense_b = proj_b + ffn_b + 2.0 * elem_f + attn_b
    moe_b = proj_b + moe_ffn_b + 2.0 * elem_moe_f + attn_b
    # selective recompute re-runs the modules named by the rc_* columns (core attention by default)
    sel_common = c["rc_core_attn"] * attn_f + c["rc_norm"] * 4.0 * T * h * act / rep_div / hbm
    if any_mla:
        sel_common = sel_common + np.where(mla, c["rc_mla_up"] * (parts[1][0] + parts[2][0]), 0.0)
    sel_dense = sel_common + c["rc_mlp"] * (ffn + mats * T * f * act / t / hbm)
    sel_moe = sel_common + np.where(c["rc_moe"] > 0, moe_ffn + elem_moe_f,
                                    c["rc_moe_act"] * imb * mats * Tk * fe * act / t / hbm)
    # full recompute re-runs the forward of the layers it covers (rc_full_fraction of them; the
    # others store their activations): the mean layer re-runs that fraction of a forward
    full_rc = np.where(recompute == 2, np.clip(c["rc_full_fraction"], 0.0, 1.0), 0.0)
    recompute_dense = np.where(recompute == 2, full_rc * dense_f, np.where(recompute == 1, sel_dense, 0.0))
    recompute_moe = np.where(recompute == 2, full_rc * moe_f, np.where(recompute == 1, sel_moe, 0.0))

    layer_f = dense_frac * dense_f + moe_frac * moe_f  # mean forward compute per layer
    layer_b = dense_frac * (dense_b + recompute_dense) + moe_frac * (moe_b + recompute_moe)

    # fine-tuning: the lowest `frozen_layers` layers are frozen (no weight gradients); when the
    # embeddings are frozen too, nothing below them needs gradients and they run forward only.
    # LoRA freezes every base weight and trains rank-r adapters A (K x r), B (r x N) on the
    # target matrices of the other layers.
    attn_w = wgrad(T, h, (a / t + 2.0 * g_loc) * d) + wgrad(T, a * d / t, h)
    if any_mla:
        attn_w = np.where(mla, sum(wgrad(T, K, N) for K, N in (down, q_up, kv_up, o_proj)), attn_w)
    ffn_w = wgrad(T, h, (mats - 1.0) * f / t) + wgrad(T, f / t, h)
    if np.any(is_moe):
        moe_ffn_w = np.where(is_moe, wgrad(per_expert, h, (mats - 1.0) * fe / etp, local_experts)
                             + wgrad(per_expert, fe / etp, h, local_experts), 0.0)
    else:
        moe_ffn_w = np.zeros(())
    wgrad_layer = attn_w + dense_frac * ffn_w + moe_frac * moe_ffn_w
    frozen = np.clip(c["frozen_layers"], 0.0, c["layers"])
    lora = c["lora_rank"] > 0
    r = c["lora_rank"]
    targets = [(c["lora_qkv"], h, (a / t + 2.0 * g_loc) * d), (c["lora_out"], a * d / t, h),
               (c["lora_ffn"], h, (mats - 1.0) * f / t), (c["lora_ffn"], f / t, h)]
    any_lora = bool(np.any(lora))
    lora_f = (sum(on * (gemm(T, K, np.maximum(r, 1.0)) + gemm(T, np.maximum(r, 1.0), N)) for on, K, N in targets)
              if any_lora else 0.0)
    lora_params = sum(on * r * (K + N) for on, K, N in targets)  # per GPU, per layer
    # no trainable parameter below the frozen layers: frozen embeddings, or LoRA (which freezes
    # every base weight, the embeddings too, and adapts only the layers above frozen_layers)
    no_flow = (c["freeze_embeddings"] > 0) | lora
    f_last = np.clip(frozen - (pp - 1.0) * L, 0.0, L)  # frozen layers of the last stage
    f_first = np.minimum(frozen, L)
    trainable_b = np.where(lora, layer_b - wgrad_layer + 2.0 * lora_f, layer_b)
    frozen_b = np.where(no_flow, 0.0, layer_b - wgrad_layer)
    layer_f = layer_f + np.where(lora, lora_f, 0.0) * (L - f_last) / np.maximum(L, 1.0)
    layer_b = ((L - f_last) * trainable_b + f_last * frozen_b) / np.maximum(L, 1.0)
    bwd_active = 1.0 - np.where(no_flow, f_last / np.maximum(L, 1.0), 0.0)  # layers that run backward

    T_head = T * c["head_fraction"]  # tokens through the output head
    # LM head (16-bit in every recipe), then fp32 cross-entropy passes over logits
    head_f, head_b = gemm16(T_head, h, V / t), gemm16(T_head, V / t, h) + gemm16(h, T_head, V / t)
    # a frozen head (freeze_embeddings, LoRA) skips its weight gradient; with nothing trainable
    # anywhere (every layer frozen, embeddings too: a forward pass) it runs no backward at all
    frozen_head = (c["freeze_embeddings"] > 0) | lora
    nothing_trains = no_flow & (frozen >= c["layers"])
    head_b = np.where(frozen_head, gemm16(T_head, V / t, h), head_b)
    # passes over the logits, bytes a logit: fused, fp32 softmax statistics and the gradient
    # written in place (12 + 12); unfused fp32 (ce_fp32): the cast to fp32 (6), the
    # log-softmax (12), and in backward the dense loss gradient (4), the log-softmax backward (12)
    # and the cast of the gradient back (6)
    ce = c.get("ce_fp32", 0.0) > 0
    head_f = head_f + np.where(ce, 18.0, 12.0) * T_head * V / t / hbm
    head_b = np.where(nothing_trains, 0.0, head_b + np.where(ce, 22.0, 12.0) * T_head * V / t / hbm)
    k_in = c["input_proj_dim"]  # ViT: the patch embedding is a GEMM on the first stage
    in_f, in_b = linear(T, np.maximum(k_in, 1.0), h)
    # the patch embedding is the input: frozen, it needs no gradient at all
    in_f, in_b = np.where(k_in > 0, in_f, 0.0), np.where((k_in > 0) & ~frozen_head, in_b, 0.0)

    # ------------------------------------------------------------------ communication
    net = coll.Network(
        c["nvlink_bw"] * c["eff_nvlink"],
        c["scaleout_bw"] * c["eff_scaleout"],
        c["nvlink_latency"],
        c["scaleout_latency"],
        c["nvlink_domain"],
        c["rail_optimized"],
        c["nvlink_mesh"],
    )
    slow = c["overlap_slowdown"]

    # tensor parallel: 2 all-reduces forward, 2 backward (AG + RS pairs with sp: same time);
    # with sp the QKV and FC1 inputs are kept as sequence shards and all-gathered again in the
    # backward for their weight gradients (Korthikanti et al. 2022, sec. 4.2.2): two more
    # all-gathers, one all-reduce's worth, which Megatron-core and Transformer Engine launch
    # asynchronously under the input-gradient GEMMs (hidden unless they are shorter)
    tp_one = coll.allreduce_time(T * h * act, t, 1.0, net)
    # with sequence parallelism a MoE layer's FFN block has no TP collective of its own on the T
    # tokens (its routed experts' are the dispatcher's, below), only its shared experts' AG + RS
    # (without it, the experts' partial outputs are all-reduced as a dense FFN's are)
    no_ffn_tp = np.where(is_moe, 1.0 - (c["shared_experts"] > 0), 0.0) if any_moe else 0.0
    tp_layer = tp_one * (2.0 - moe_frac * np.where(sp, no_ffn_tp, 0.0)) if any_moe else 2.0 * tp_one
    tp_f = tp_layer
    tp_b = tp_layer + full_rc * tp_layer
    # (only for weights that get a gradient: none under LoRA, the trainable layers' otherwise;
    # a MoE layer's FC1 is its experts', whose gathered input is kept: only the QKV one)
    regather = np.where(sp & (t > 1), tp_one, 0.0)
    if any_lora or np.any(f_last > 0):
        regather = regather * np.where(lora, 0.0, (L - f_last) / np.maximum(L, 1.0))
    if any_moe:
        regather = regather * (1.0 - 0.5 * moe_frac * no_ffn_tp)

    # expert parallel: the token dispatcher's two exchanges a pass, over ep ranks etp apart: one
    # into the experts (forward the dispatch, backward the output gradient) at dispatch_bytes an
    # element (FP8 when quantized before it, as DeepSeek-V3 does both ways), one back at act
    # bytes. With experts split etp > 1 ways over sequence shards, the copies an EP rank receives
    # are all-gathered over its etp ranks before the expert GEMMs and their outputs
    # reduce-scattered after (Megatron-core's dispatchers: a gather over the expert-TP group): an
    # AG + RS of the Tk_run copies, on the experts' critical path like the all-to-all
    disp_b = np.where(c["dispatch_bytes"] > 0, c["dispatch_bytes"], act)

    def exchange(nbytes):
        one = coll.all_to_all_time(Tk * h * nbytes / rep_div, ep, etp, net)
        if np.any(dedup):  # DeepEP: one copy per destination NVLink domain, then once per GPU
            one = np.where(dedup, coll.dedup_dispatch_time(T * h * nbytes / rep_div, c["top_k"], ep, etp, net,
                                                           c["expert_groups"], c["top_groups"]), one)
        return one

    dedup = c["moe_dedup"] > 0
    ep_one = 0.0
    if any_moe:
        ep_one = exchange(act)
        if np.any(disp_b != act):
            ep_one = 0.5 * (ep_one + np.where(disp_b != act, exchange(disp_b), ep_one))
        # (without sequence parallelism, tp > 1 ranks hold the same tokens: nothing to gather)
        gathers = is_moe & (sp | (t == 1)) & (etp > 1)
        routed_tp = (np.where(gathers, 0.5 * coll.allreduce_time(Tk_run * h * act, etp, 1.0, net), 0.0)
                     if np.any(gathers) else 0.0)
        # the busiest rank receives imb times the mean: the exchange ends when it has
        ep_one = imb * (ep_one + routed_tp)
    ep_f = np.where(is_moe, 2.0 * ep_one, 0.0) * moe_frac
    # the forward all-to-alls re-run in the recomputed layers
    ep_again = np.where((recompute == 1) & (c["rc_moe"] > 0), 1.0, full_rc)
    ep_b = np.where(is_moe, 2.0 * ep_one, 0.0) * moe_frac * (1.0 + ep_again)

    # context parallel: ring exchange of K and V blocks, c-1 steps forward, 2x backward
    cp_same = t * cp <= c["nvlink_domain"]
    # ring steps: every other rank's K/V for full layers; a windowed layer needs only the ranks
    # whose tokens its window reaches back to, ceil(W / (s/cp))
    win = c["attn_window"]
    steps = cp - 1.0
    if np.any(win > 0):
        win_steps = np.minimum(cp - 1.0, np.ceil(win * cp / s - 1e-9))
        steps = np.where(win > 0, (1.0 - c["window_fraction"]) * (cp - 1.0) + c["window_fraction"] * win_steps,
                         cp - 1.0)
    # K and V per token on one rank: 2 g d / t, a whole head's when tp exceeds the KV heads (MLA:
    # the per-head keys and values rebuilt from the latent, a (d_qk + d_v) / t, as Megatron-core's
    # MLA exchanges them)
    kv_width = 2.0 * g_loc * d
    if any_mla:
        kv_width = np.where(mla, a * (d + c["mla_v_dim"]) / t, kv_width)
    cp_f = steps * coll.p2p_time(T * kv_width * act, cp_same, net)
    cp_b = 2.0 * cp_f + full_rc * cp_f

    # parameters per GPU of one layer (mean over dense/MoE layers), split dense/expert
    p_dense, p_moe_shared, p_moe_experts = layer_params(c)
    p_layer_rep = (dense_frac * p_dense + moe_frac * p_moe_shared) / t  # reduced over dpc
    # K/V projections replicated over the ranks that share a KV head (tp > kv_heads)
    p_layer_rep = p_layer_rep + 2.0 * h * d * (g_loc - g / t)
    if any_mla:  # MLA's down-projection (and its latent norms) is replicated over TP ranks, not split
        replicated = down[0] * down[1] + c["mla_q_rank"] + c["mla_kv_rank"]
        p_layer_rep = p_layer_rep + np.where(mla, replicated * (1.0 - 1.0 / t), 0.0)
    p_layer_exp = moe_frac * p_moe_experts / estride  # reduced over edp
    # a 16-bit compute copy and an FP8 copy, or (fp8_params) the FP8 weights alone
    fp8_only = (c["fp8_params"] > 0) & fp8
    wbytes = np.where(fp8_only, 1.0, act + c["fp8"])
    gather_bytes = np.where(fp8_only, 1.0, act)  # what FSDP all-gathers per weight

    # FSDP / ZeRO-3: gather each layer's weights forward and backward, reduce-scatter grads
    z3 = zero >= 3
    ag_layer = coll.allgather_time(p_layer_rep * gather_bytes, sg, t, net) + coll.allgather_time(
        p_layer_exp * gather_bytes, esg, estride, net
    )
    # trainable parameters of a layer (fine-tuning: the LoRA adapters only)
    layer_train = np.where(lora, lora_params, p_layer_rep + p_layer_exp)
    # only trainable weights have gradients to reduce-scatter: none for a frozen layer, the
    # adapters' for a LoRA one (a frozen layer's weights are still gathered for the data gradient)
    grad_share = (L - f_last) * layer_train / np.maximum(L * (p_layer_rep + p_layer_exp), 1.0)
    rs_layer = coll.allgather_time(grad_share * p_layer_rep * c["grad_reduce_bytes"], sg, t, net) + coll.allgather_time(
        grad_share * p_layer_exp * c["grad_reduce_bytes"], esg, estride, net
    )
    fsdp_on = c["overlap_fsdp"]
    # weights kept gathered and gradients accumulated unsharded over the step's microbatches:
    # the first microbatch gathers, the last reduce-scatters (per microbatch: 1/m of each)
    keep_whole = z3 & (c.get("fsdp_accumulate", 0.0) > 0) & (m > 1)
    fsdp_f = np.where(z3, np.where(keep_whole, ag_layer / m, ag_layer), 0.0)
    fsdp_b = np.where(z3, np.where(keep_whole, rs_layer / m, ag_layer + rs_layer), 0.0)
    fsdp_first = np.where(z3 & (fsdp_on > 0), np.where(keep_whole, ag_layer / m, ag_layer), 0.0)  # a pass's first gather

    # the two streams of one layer, forward and backward: (comm, window it may hide under, on)
    tp_on, ep_on, cp_on = c["overlap_tp"], c["overlap_ep"], c["overlap_cp"]
    cross = c["ep_cross_overlap"] > 0  # under another microbatch's whole layer
    fwd_time, fwd_exposed, fwd_hidden = two_stream_layer(layer_f, [
        (tp_f, proj + ffn, tp_on),
        (ep_f, np.where(cross, layer_f, moe_frac * shared_f), ep_on),
        (cp_f, attn_f, cp_on),
        (fsdp_f, layer_f, fsdp_on),
    ])
    tp_b, ep_b, cp_b, fsdp_b = tp_b * bwd_active, ep_b * bwd_active, cp_b * bwd_active, fsdp_b * bwd_active
    bwd_time, bwd_exposed, bwd_hidden = two_stream_layer(layer_b, [
        (tp_b, proj_b + ffn_b, tp_on),
        (ep_b, np.where(cross, layer_b, moe_frac * shared_b), ep_on),
        (cp_b, attn_b, cp_on),
        (fsdp_b, layer_b, fsdp_on),
        (regather * bwd_active, 0.5 * (proj_b + ffn_b), 1.0),  # under the input-gradient GEMMs
    ])
    # the re-gathers are tensor-parallel traffic
    bwd_exposed = [bwd_exposed[0] + bwd_exposed[4], *bwd_exposed[1:4]]
    bwd_hidden = [bwd_hidden[0] + bwd_hidden[4], *bwd_hidden[1:4]]
    # a MoE layer whose dispatch reads the routed-token counts on the host (a device-to-host sync
    # every layer) cannot be launched ahead of the GPU: the host's launch time of the layer's
    # forward and backward, H = moe_host_layer + moe_host_expert per local expert (TE's grouped
    # GEMMs and casts go expert by expert), and the GPU's time G run side by side, neither
    # waiting for the other only when one is much longer: the layer takes (G^2 + H^2)^(1/2), the
    # smooth maximum of the serving roofline. What exceeds G stalls the stage.
    host = c["moe_host_layer"] + c["moe_host_expert"] * np.maximum(c["experts"] / ep, 1.0)
    any_host = bool(np.any(is_moe & (host > 0)))  # (skipped when no row is host-bound)
    if any_host:
        host = host * (1.0 + 2.0 * bwd_active) / 3.0  # a forward-only layer launches a third of it
        gpu = fwd_time + bwd_time
        host_stall = np.where(is_moe, moe_frac * (np.sqrt(gpu * gpu + host * host) - gpu), 0.0)
    else:
        host_stall = 0.0
    tp_exp, ep_exp, cp_exp, fsdp_exp = (fe_ + be_ for fe_, be_ in zip(fwd_exposed, bwd_exposed))
    tp_hid, ep_hid, cp_hid, fsdp_hid = (fh + bh for fh, bh in zip(fwd_hidden, bwd_hidden))
    hidden_layer = tp_hid + ep_hid + cp_hid + fsdp_hid

    # activations one layer keeps for its backward, per microbatch (bytes per GPU)
    act_dense, act_moe = layer_activation_bytes(T, c, t, rep_div, c["top_k"])
    saved_dense, saved_moe = selective_savings(T, c, t, rep_div, c["top_k"])
    act_dense, act_moe = act_dense - saved_dense, act_moe - saved_moe
    act_layer = dense_frac * act_dense + moe_frac * act_moe
    # frozen base weights keep no inputs of their linear layers (LoRA: but the adapted ones')
    if any_lora or np.any(frozen > 0):
        fz_dense, fz_moe, lo_dense, lo_moe = frozen_input_savings(T, c, t, rep_div, c["top_k"])
        act_frozen = act_layer - (dense_frac * fz_dense + moe_frac * fz_moe)
        act_trainable = act_layer - np.where(lora, dense_frac * lo_dense + moe_frac * lo_moe, 0.0)
    else:  # nothing frozen in this batch: no layer keeps less than a trained one
        act_frozen = act_trainable = act_layer
    layer_input = T * h * act / rep_div
    # a recomputed layer keeps only its input; the others (of a partial full recompute) all
    stored = full_rc * layer_input + (1.0 - full_rc) * act_trainable
    stored_frozen = full_rc * layer_input + (1.0 - full_rc) * act_frozen

    # activation offloading: an offloaded layer's saved activations go to host memory on a copy
    # engine while the next layer computes, and come back while the layer above runs its
    # backward; what the link cannot move in that time is exposed. A stage offloads its first
    # layers, where the frozen ones of a fine-tune are.
    off_stage = c["offload_layers"]  # offloaded layers per stage (pp = 1 in Megatron-core)
    any_offload = bool(np.any(off_stage > 0))  # (the terms are skipped when no row offloads)
    keep_frozen = np.where(no_flow, 0.0, stored_frozen)  # what a frozen layer keeps

    def offloaded(n_layers, n_frozen):
        """(frozen, trainable) layers a stage of ``n_layers`` offloads."""
        nf = np.minimum(n_frozen, n_layers)
        off = np.minimum(off_stage, n_layers)
        return np.minimum(off, nf), np.clip(off - nf, 0.0, n_layers - nf)

    # the MoE host stall's backward part (a third of the launches are forward, two thirds backward)
    stall_b = host_stall * 2.0 * bwd_active / (1.0 + 2.0 * bwd_active)
    offload_t = 0.0  # exposed per stage and microbatch, s
    offload_hidden = 0.0
    if any_offload:
        host_bw = c["host_link_bw"] * c["eff_host_link"]
        off_fz, off_tr = offloaded(L_first, f_first)
        # the copies run while the next layer takes its wall time, the GPU's and the host stall's
        fwd_wall, bwd_wall = fwd_time + host_stall - stall_b, bwd_time + stall_b
        for n_off, nbytes in ((off_fz, keep_frozen), (off_tr, stored)):
            copy = nbytes / host_bw  # one layer, one direction, s
            exposed = np.maximum(copy - fwd_wall, 0.0) + np.maximum(copy - bwd_wall, 0.0)
            offload_t = offload_t + n_off * exposed
            offload_hidden = offload_hidden + n_off * (2.0 * copy - exposed)

    # per-stage forward and backward of one microbatch (the whole stage, all vpp chunks)
    per_layer = layer_f + layer_b + slow * hidden_layer + (fwd_time - layer_f + bwd_time - layer_b) + host_stall
    head_t = head_f + head_b + np.where(pp > 1, 0.0, in_f + in_b)  # one stage also runs the input side
    # bottleneck stage: the last (L_lo layers and the head) or, with uneven stages, a full one
    head_on = L_lo * per_layer + head_t >= L_hi * per_layer
    Lb = np.where(head_on, L_lo, L_hi)  # layers of the bottleneck stage
    head_w = np.where(head_on, 1.0, 0.0)
    step_last = Lb * per_layer + 2.0 * fsdp_first + head_w * head_t + offload_t
    step_mean = L * per_layer + 2.0 * fsdp_first + (head_f + head_b + in_f + in_b) / pp + offload_t
    comm_f_layer = fwd_time - layer_f
    comm_b_layer = bwd_time - layer_b

    # pipeline point-to-point: activations forward, their gradients backward, per chunk
    # Megatron's scatter/gather optimisation (Narayanan et al. 2021, Sec. 4.1): each TP rank
    # sends 1/t of the boundary activation and the receivers all-gather it over NVLink
    p2p_size = T * h * act / t
    pp_same = t * cp * dp * pp <= c["nvlink_domain"]
    p2p_one = np.where(pp > 1, coll.p2p_time(p2p_size, pp_same, net), 0.0)
    pp_on = c["overlap_pp"] > 0
    p2p_steps = np.where(pp_on, pp - 1.0, m * vpp + pp - 1.0)
    pp_exposed = 2.0 * p2p_one * p2p_steps

    # the warm-up and cool-down pass pp - 1 chunks of a stage; with vpp chunks that do not split
    # the stage's layers evenly, the longest (ceil(L_hi / vpp) layers) sets each step
    chunk = np.where(vpp > 1, np.ceil(L_hi / vpp - 1e-9) / np.maximum(L_hi, 1.0), 1.0)
    bubble = (pp - 1.0) * np.minimum(chunk, 1.0) * step_mean
    pipeline = m * step_last + bubble + pp_exposed

    # data-parallel gradient reduction (ZeRO 0-1) once per iteration, overlapped with the last
    # microbatch's backward (ZeRO-2: every microbatch's, below); ZeRO-1/2 also all-gather the
    # updated weights (under the next forward). At least the last layer's bucket stays exposed.
    # input side: an embedding table (vocab-parallel) or a replicated input projection (ViT)
    emb_in = np.where(k_in > 0, k_in * h, V * h / t)
    head_p = V * h / t
    tied = c["tied_embeddings"] * (k_in <= 0)
    # the last stage holds the head; a single stage holds the input side too (shared when tied)
    p_stage_rep = L_hi * p_layer_rep + np.where(pp > 1, head_p, emb_in + head_p * (1.0 - tied))
    p_stage_exp = L_hi * p_layer_exp
    # trainable share of a stage's parameters (fine-tuning): frozen layers, frozen embeddings
    # and head, or only the LoRA adapters of the trainable layers
    emb_train = np.where(lora, 0.0, 1.0 - c["freeze_embeddings"])  # LoRA freezes the embeddings too

    def train_fraction(frozen_here, side):
        total = L * (p_layer_rep + p_layer_exp) + side
        return np.clip(((L - frozen_here) * layer_train + side * emb_train) / np.maximum(total, 1.0), 0.0, 1.0)

    side_last = np.where(pp > 1, head_p, emb_in + head_p * (1.0 - tied))
    side_first = np.where(pp > 1, emb_in, side_last)
    train_last = train_fraction(f_last, side_last)
    train_first = train_fraction(f_first, side_first)
    grb = c["grad_reduce_bytes"]
    ar = coll.allreduce_time(p_stage_rep * grb, dpc, t, net) + coll.allreduce_time(
        p_stage_exp * grb, edp, estride, net
    )
    rs = coll.allgather_time(p_stage_rep * grb, sg, t, net) + coll.allgather_time(
        p_stage_exp * grb, esg, estride, net
    )
    ag = coll.allgather_time(p_stage_rep * gather_bytes, sg, t, net) + coll.allgather_time(
        p_stage_exp * gather_bytes, esg, estride, net
    )
    # hybrid sharding: each replica group all-reduces its 1/sg gradient shard once per step
    shard_ar = np.where(rg > 1, coll.allreduce_time(p_stage_rep * grb / sg, rg, t * sg, net), 0.0) + np.where(
        erg > 1, coll.allreduce_time(p_stage_exp * grb / esg, erg, estride * esg, net), 0.0)
    grad_sync = np.where(z3, shard_ar, np.where(zero >= 1, rs + shard_ar, ar)) * train_last
    param_sync = np.where((zero >= 1) & ~z3, ag, 0.0) * train_last
    dp_on = c["overlap_dp"] > 0
    min_exposed = 1.0 / np.maximum(Lb, 1.0)
    # the data-parallel collectives run on the communication stream while the GPU computes or
    # waits for the host to launch a MoE layer (its stall: 1/3 forward, 2/3 backward: stall_b)
    bwd_window = Lb * (layer_b + comm_b_layer + stall_b)
    fwd_window = Lb * (layer_f + comm_f_layer + host_stall - stall_b)
    grad_exp = np.where(dp_on, np.maximum(grad_sync - bwd_window, grad_sync * min_exposed), grad_sync)
    param_exp = np.where(dp_on, np.maximum(param_sync - fwd_window, param_sync * min_exposed), param_sync)
    dp_exposed = grad_exp + param_exp
    dp_hidden = grad_sync + param_sync - dp_exposed
    # ZeRO-2 keeps only its gradient shard, so it cannot accumulate a step's microbatches
    # unreduced: every microbatch reduce-scatters its gradients (DeepSpeed stage 2), each under
    # that microbatch's backward; the last one is grad_sync above
    z2_rs = np.where((zero == 2) & (m > 1), rs * train_last, 0.0)
    z2_exp = np.where(dp_on, np.maximum(z2_rs - bwd_window, z2_rs * min_exposed), z2_rs)
    dp_exposed = dp_exposed + (m - 1.0) * z2_exp
    dp_hidden = dp_hidden + (m - 1.0) * (z2_rs - z2_exp)

    # optimizer step: HBM-bound pass over the locally updated parameters
    p_gpu = p_stage_rep + p_stage_exp
    p_opt = np.where(zero >= 1, p_stage_rep / sg + p_stage_exp / esg, p_gpu)
    optimizer = p_opt * train_last * OPTIMIZER_STEP_BYTES / hbm

    iteration = pipeline + dp_exposed + slow * dp_hidden + optimizer

    # ------------------------------------------------------------------ memory per GPU
    shard_opt = np.where(zero >= 1, 1.0, 0.0)
    shard_grad = np.where(zero >= 2, 1.0, 0.0)
    shard_w = np.where(z3, 1.0, 0.0)

    p_layer_gpu = p_layer_rep + p_layer_exp

    def per_param(p_rep, p_exp, nbytes, sharded, working):
        """Bytes of one per-parameter state: unsharded, or sharded plus a working set of
        ``working`` layers held whole (gathered weights, a gradient bucket), never more than
        the unsharded copy (an implementation can always keep the whole stage instead)."""
        unsharded = p_rep + p_exp
        sh = p_rep / sg + p_exp / esg + working * p_layer_gpu
        return nbytes * np.where(sharded > 0, np.minimum(sh, unsharded), unsharded)

    # first stage holds the input side, last the head (one stage holds both when pp = 1)
    p_first_rep = L_first * p_layer_rep + np.where(pp > 1, emb_in, emb_in + head_p * (1.0 - tied))
    p_last_rep = L_lo * p_layer_rep + np.where(pp > 1, head_p, emb_in + head_p * (1.0 - tied))
    # the second stage is full (L_hi layers) when the first is short, and has one microbatch
    # fewer in flight (1F1B: pp - rank; interleaved: Megatron-core's warm-up of
    # 2 (pp - rank - 1) + (vpp - 1) pp chunks, plus the one running)
    second = L_first < L_hi
    any_second = bool(np.any(second))  # (the second stage is skipped when no row has one)
    f_second = np.clip(frozen - L_first, 0.0, L_hi)
    stage_params = [(p_first_rep, L_first * p_layer_exp, train_first),
                    (p_last_rep, L_lo * p_layer_exp, train_last)]
    if any_second:
        stage_params.insert(1, (L_hi * p_layer_rep, L_hi * p_layer_exp, train_fraction(f_second, 0.0)))
    mem_static = []
    for p_rep, p_exp, trainable in stage_params:
        # ZeRO-3 holds two gathered layers (one prefetched); ZeRO-2/3 one layer's gradients
        # before their reduce-scatter
        w = per_param(p_rep, p_exp, wbytes, shard_w, 2.0)
        gr = per_param(p_rep, p_exp, c["grad_bytes"], shard_grad, 1.0) * trainable
        # weights kept gathered and gradients accumulated whole (at the reduction's precision)
        # beside their shards over the step
        w = np.where(keep_whole, wbytes * (p_rep + p_exp), w)
        gr = gr + np.where(keep_whole, c["grad_reduce_bytes"] * (p_rep + p_exp) * trainable, 0.0)
        op = per_param(p_rep, p_exp, c["optimizer_bytes"], shard_opt, 0.0) * trainable
        mem_static.append((w, gr, op))

    # one layer re-materialised in backward (its input is already among the stored checkpoints)
    working = np.where(recompute == 2, np.maximum(act_layer - layer_input, 0.0),
                       np.maximum(saved_dense, saved_moe))  # selective: one layer's recomputed modules
    in_flight = np.minimum(m, pp) * np.where(vpp > 1, 1.0 + (pp - 1.0) / (pp * vpp), 1.0)
    in_flight_second = in_flight * np.where(vpp > 1, (pp * vpp + pp - 3.0) / (pp * vpp + pp - 1.0),
                                            (pp - 1.0) / pp)

    def kept(n_layers, n_frozen):
        """Activations a stage keeps per microbatch in flight, and its offload copy buffer:
        layers that run forward only (frozen, nothing trainable below) keep none, frozen layers
        that run backward what their data gradients read, offloaded layers nothing."""
        fz = np.where(no_flow, 0.0, np.minimum(n_frozen, n_layers))
        keep = (n_layers - np.minimum(n_frozen, n_layers)) * stored + fz * stored_frozen
        if not any_offload:
            return keep, 0.0
        o_fz, o_tr = offloaded(n_layers, n_frozen)
        return (keep - (o_fz * keep_frozen + o_tr * stored),
                np.where(o_tr > 0, stored, np.where(o_fz > 0, keep_frozen, 0.0)))

    # logits and their gradient (fused, in-place cross-entropy); unfused fp32 (ce_fp32): the kept
    # fp32 log-probabilities, the dense fp32 loss gradient and the fp32 logits' gradient at once
    logits = T_head * V / t * np.where(ce, 12.0, 2.0 * act)
    # host memory the first stage's offloaded activations fill (every microbatch in flight)
    host_bytes = (off_fz * keep_frozen + off_tr * stored) * in_flight if any_offload else 0.0 * t
    keep, copy_buf = kept(L_first, f_first)
    act_first = keep * in_flight + copy_buf + working + T * h * act + np.where(pp > 1, 0.0, logits)
    if any_second:
        keep, copy_buf = kept(L_hi, f_second)
        act_second = keep * in_flight_second + copy_buf + working
    keep, copy_buf = kept(L_lo, f_last)
    # the last stage: one microbatch in flight, or with virtual stages the (vpp - 1) pp + 1 chunks
    # of L/vpp layers the interleaved schedule warms up (Megatron-core's warm-up count)
    in_flight_last = np.where(vpp > 1, np.minimum((vpp - 1.0) * pp + 1.0, m * vpp) / vpp, 1.0)
    act_last = keep * in_flight_last + copy_buf + working + logits

    buffers = (
        np.where(t > 1, 2.0 * T * h * act, 0.0)  # sequence-parallel gather / reduce buffers
        + np.where(is_moe, 4.0 * Tk * h * act / rep_div, 0.0)
    )
    # the stage with the most memory: first, second (when the first is short) or last; ties go
    # to the first
    first, last = (*mem_static[0], act_first), (*mem_static[-1], act_last)
    total_first, total_last = sum(first), sum(last)
    if any_second:
        mid = (*mem_static[1], act_second)
        use_mid = second & (sum(mid) > total_first)
        first = tuple(np.where(use_mid, m_, f_) for m_, f_ in zip(mid, first))
        total_first = sum(first)
    use_last = total_last > total_first
    weights, grads, optim, activations = (np.where(use_last, l_, f_) for f_, l_ in zip(first, last))
    # the loss's share of those activations: the last stage's logits (the only stage's when pp = 1)
    logits_peak = np.where(use_last | (pp <= 1), logits, 0.0)
    # which pipeline stage the memory figures describe: 0 the first (the only one when pp = 1),
    # 1 the second, 2 the last
    peak_stage = np.where(use_last & (pp > 1), 2.0, 0.0)
    if any_second:
        logits_peak = np.where(use_mid & ~use_last, 0.0, logits_peak)
        peak_stage = np.where(use_mid & ~use_last, 1.0, peak_stage)
    activations = activations - logits_peak
    reserved = c["memory_reserved"] + 0.0 * t
    memory = weights + grads + optim + activations + logits_peak + buffers + reserved

    # ------------------------------------------------------------------ feasibility
    mask = np.zeros(n, dtype=np.int64)

    def flag(cond, bit):
        nonlocal mask
        mask = mask | np.where(cond, bit, 0)

    flag(t * pp * dp * cp != c["num_gpus"], DEGREES_PRODUCT)
    flag((np.mod(a, t) != 0) | ~kv_heads_fit(g, t), HEADS_TP)
    # the embedding and the loss may fill a chunk each (Megatron-core's account_for_embedding/
    # loss_in_pipeline_split), so up to two chunks may hold no transformer layer
    flag(c["layers"] + 2.0 < pp * vpp, LAYERS_PP)
    flag(np.mod(c["global_batch"], dp * b) != 0, BATCH_DP)
    flag(np.mod(s, cp) != 0, SEQ_CP)
    flag(is_moe & ((np.mod(c["experts"], ep) != 0) | (np.mod(t * dpc, estride) != 0)), EXPERTS_EP)
    # a MoE model with tp > 1 needs the attention's tokens sequence-sharded ("When using MoE and
    # tensor parallelism, sequence parallelism must be used": Megatron-core's argument check)
    if any_moe or np.any(c["etp"] > 0):
        flag((is_moe & ((np.mod(fe, etp) != 0) | (~sp & (t > 1))))
             | (~is_moe & (c["etp"] > 0) & (etp != t)), EXPERT_TP)
    flag((vpp > 1) & ((pp < 2) | (np.mod(m, pp) != 0)), INTERLEAVE)
    flag(memory > c["hbm_bytes"], OUT_OF_MEMORY)
    flag((c["host_memory_bytes"] > 0) & (host_bytes > c["host_memory_bytes"]), HOST_MEMORY)
    # shared experts are split tp ways like a dense FFN, routed ones etp ways
    ffn_split = np.mod(f, t) != 0
    if any_moe:
        ffn_split = ffn_split | (is_moe & (np.mod(fe, t) != 0) & ((etp == t) | (c["shared_experts"] > 0)))
    flag(ffn_split, FFN_TP)
    flag(~is_moe & (ep > 1), EP_DENSE)
    flag((sg_in > 0) & (np.mod(dpc, np.maximum(sg_in, 1.0)) != 0), SHARD_GROUP)

    # ------------------------------------------------------------------ metrics
    tokens = c["global_batch"] * s
    n_gpus = c["num_gpus"]
    # model FLOPs: what the training algorithm needs per token, recompute aside: 6 N when every
    # weight trains (2 N for a forward-only inference step), by convention; fine-tuning needs no
    # weight gradient for frozen weights and no backward below the lowest trainable layer, so its
    # MFU counts only what it needs (a 6 N count would put a mostly frozen model above 100 %);
    # hardware FLOPs: that plus the recompute of the layers that run backward
    fwd_only = c["forward_only"] > 0
    mf_tok = np.where(fwd_only, model_flops_per_token(c) / 3.0, executed_flops_per_token(c))
    runs_backward = 1.0 - np.where(no_flow, frozen / np.maximum(c["layers"], 1.0), 0.0)  # share of all layers
    hf_tok = executed_flops_per_token(c) + recompute_flops_per_token(c) * runs_backward
    # the TP group also projects the replicated KV heads (tp > kv_heads): max(g, t) - g more K and
    # V heads a layer, run wherever the layer's other forward and backward FLOPs run
    kv_extra = c["layers"] * 4.0 * h * d * (np.maximum(g, t) - g)
    hf_tok = hf_tok * (1.0 + kv_extra / np.maximum(model_flops_per_token(c) / 3.0, 1e-30))
    total_params, active_params = model_params(c)

    # time breakdown of one iteration (sums to iteration_time_s)
    steady = m + 0.0 * t
    # average board power: the compute stream's busy time (its slowdown under overlapped
    # communication included), of which the hardware FLOPs at the achieved GEMM rate are tensor
    # time and the rest memory-bound; exposed communication moves data (memory-bound too);
    # bubbles and host stalls idle. A power limit below the datasheet's stretches the iteration
    compute_s = steady * (Lb * (layer_f + layer_b) + head_w * head_t) + optimizer
    busy_s = compute_s + slow * (steady * Lb * hidden_layer + dp_hidden)
    tensor_s, memory_s = power.busy_split(hf_tok * tokens / n_gpus, c["peak_flops"] * c["eff_matmul"], busy_s)
    comm_s = (steady * Lb * (tp_exp + ep_exp + cp_exp + fsdp_exp) + 2.0 * steady * fsdp_first + pp_exposed
              + dp_exposed + steady * offload_t)
    # of the rest, the time HBM paces is the elementwise passes (forward, the backward's two, a
    # full recompute's again) and the optimizer step; the others (GEMMs and attention below the
    # GEMM rate, the slowdown under overlapped collectives) do not stream more bytes on a what-if
    # GPU with faster HBM, so they draw the datasheet's memory share (power.step_power)
    elem_layer = dense_frac * elem_f + moe_frac * elem_moe_f
    hbm_paced = np.minimum(steady * Lb * elem_layer * (1.0 + 2.0 * bwd_active + full_rc) + optimizer,
                           memory_s)
    watts, stretch = power.step_power(c, tensor_s, hbm_paced, iteration, comm_s + memory_s - hbm_paced)
    power_cap_s = iteration * (stretch - 1.0)
    iteration = iteration + power_cap_s
    per_gpu_time = iteration * n_gpus
    out = {
        "iteration_time_s": iteration,
        "tokens_per_s": tokens / iteration,
        "tokens_per_s_per_gpu": tokens / per_gpu_time,
        "samples_per_s": c["global_batch"] / iteration,
        "model_tflops_per_gpu": mf_tok * tokens / per_gpu_time / 1e12,
        "hardware_tflops_per_gpu": hf_tok * tokens / per_gpu_time / 1e12,
        "mfu": mf_tok * tokens / per_gpu_time / c["peak_flops"],
        "hfu": hf_tok * tokens / per_gpu_time / c["peak_flops"],
        "memory_per_gpu_bytes": memory,
        "memory_weights_bytes": weights,
        "memory_grads_bytes": grads,
        "memory_optimizer_bytes": optim,
        "memory_activations_bytes": activations,
        "memory_logits_bytes": logits_peak,
        "memory_peak_stage": peak_stage + 0.0 * t,
        "memory_buffers_bytes": buffers,
        "memory_reserved_bytes": reserved,
        "memory_excess_bytes": np.maximum(memory - c["hbm_bytes"], 0.0),
        "host_memory_offload_bytes": host_bytes,
        "time_compute_s": compute_s,
        "time_bubble_s": bubble,
        "exposed_offload_s": steady * offload_t,
        "overlapped_offload_s": steady * offload_hidden,
        "exposed_tp_s": steady * Lb * tp_exp,
        "exposed_ep_s": steady * Lb * ep_exp,
        "exposed_cp_s": steady * Lb * cp_exp,
        "exposed_fsdp_s": steady * (Lb * fsdp_exp + 2.0 * fsdp_first),
        "exposed_pp_s": pp_exposed,
        "exposed_dp_s": dp_exposed,
        "overlapped_tp_s": steady * Lb * tp_hid,
        "overlapped_ep_s": steady * Lb * ep_hid,
        "overlapped_cp_s": steady * Lb * cp_hid,
        "overlapped_fsdp_s": steady * Lb * fsdp_hid,
        "overlapped_dp_s": dp_hidden,
        "overlapped_pp_s": np.where(pp_on, 2.0 * p2p_one * m * vpp, 0.0),
        "time_overlap_slowdown_s": slow * (steady * Lb * hidden_layer + dp_hidden),
        "time_power_cap_s": power_cap_s,
        "host_stall_s": steady * Lb * host_stall,
        "microbatches": m,
        "params_total": total_params,
        "params_active": active_params,
        "power_per_gpu_w": watts,
        "energy_per_token_j": watts * per_gpu_time / tokens,
        "cost_per_mtok_usd": c["price_per_gpu_hour"] * per_gpu_time / 3600.0 / tokens * 1e6,
        "infeasible_mask": mask.astype(np.float64),
    }
    out["exposed_comm_s"] = (
        out["exposed_tp_s"] + out["exposed_ep_s"] + out["exposed_cp_s"] + out["exposed_fsdp_s"]
        + out["exposed_pp_s"] + out["exposed_dp_s"]
    )
    out["feasible"] = (mask == 0).astype(np.float64)
    if detail:
        # the per-layer quantities behind the closed form, for laying out one schedule
        # (dse.trace): mean forward/backward op times of one layer on one microbatch, s
        moe_w = moe_frac * np.where(is_moe, 1.0, 0.0)
        out.update({
            "detail_layers_per_stage": Lb,
            "detail_qkv_f": qkv_f, "detail_qkv_b": qkv_b, "detail_out_f": out_f, "detail_out_b": out_b,
            "detail_attn_f": attn_f, "detail_attn_b": attn_b,
            "detail_ffn_f": (1.0 - moe_w) * ffn + moe_w * moe_ffn,
            "detail_ffn_b": (1.0 - moe_w) * ffn_b + moe_w * moe_ffn_b,
            "detail_elem_f": dense_frac * elem_f + moe_frac * elem_moe_f,
            "detail_recompute": dense_frac * recompute_dense + moe_frac * recompute_moe,
            "detail_layer_f": layer_f, "detail_layer_b": layer_b,
            "detail_layer_f_time": fwd_time, "detail_layer_b_time": bwd_time,
            "detail_tp_f": tp_f, "detail_tp_b": tp_b, "detail_ep_f": ep_f, "detail_ep_b": ep_b,
            "detail_cp_f": cp_f, "detail_cp_b": cp_b, "detail_fsdp_f": fsdp_f, "detail_fsdp_b": fsdp_b,
            "detail_tp_exposed_f": fwd_exposed[0], "detail_tp_exposed_b": bwd_exposed[0],
            "detail_ep_exposed_f": fwd_exposed[1], "detail_ep_exposed_b": bwd_exposed[1],
            "detail_head_f": head_w * head_f, "detail_head_b": head_w * head_b, "detail_fsdp_first": fsdp_first,
            "detail_p2p": p2p_one, "detail_grad_sync": grad_sync, "detail_param_sync": param_sync,
            "detail_grad_exposed": grad_exp, "detail_param_exposed": param_exp,
            "detail_optimizer": optimizer, "detail_slowdown_per_layer": slow * hidden_layer,
            "detail_step_last": step_last,
            # ViT's patch embedding (input projection), run by the last stage when it is the only one
            "detail_in_f": np.where(pp > 1, 0.0, head_w * in_f), "detail_in_b": np.where(pp > 1, 0.0, head_w * in_b),
        })
    return {k: np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)) for k, v in out.items()}


def evaluate_training_detail(batch: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """:func:`evaluate_training` plus the per-layer op times (``detail_*``) behind it, for
    laying out the schedule of a few configurations (not for sweeps)."""
    cols, n = broadcast_columns(batch)
    return _evaluate(cols, n, detail=True)


#: Names of the arrays :func:`evaluate_training` returns.
OUTPUTS = (
    "iteration_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "samples_per_s",
    "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu", "memory_per_gpu_bytes",
    "feasible", "infeasible_mask", "exposed_comm_s",
)
