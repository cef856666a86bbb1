"""Activation memory of one transformer layer for one microbatch, bytes per GPU.

Korthikanti et al. 2022 (Sec. 4, eq. 1-2) give s*b*h*(34 + 5*a*s/h) bytes for a GPT layer in
fp16 with multi-head attention and f = 4h. We rederive the same terms for grouped-query
attention, any FFN width, 2- or 3-matrix FFNs and MoE layers, with ``act`` bytes per element:

* replicated across tensor-parallel ranks unless sequence parallelism scatters them:
  the inputs of the two norms, of the QKV projection and of the FFN (4 tensors of T*h), and the
  two dropout masks (1 byte per element): T*h*(4*act + 2)  -> 10*T*h for act = 2.
* split tensor-parallel: Q (T*a*d), K and V (2*T*g*d), the attention output that feeds the
  output projection (T*a*d); FFN: the up-projection output(s) ((mats-1)*T*f) and the activation
  output (T*f); all times ``act``                               -> 24*T*h for MHA, f = 4h.
* without a fused (flash) kernel and without selective recompute: softmax output, dropout mask
  and dropout output of the a*s*s scores: 5*a*s*T bytes (act = 2), split tensor-parallel.

T is the number of tokens a GPU holds (b*s/cp). Full recompute keeps only each layer's input.
Functions are elementwise over numpy arrays.
"""

from __future__ import annotations

import numpy as np


def _up_output_bytes(c):
    """Bytes per stored FFN up-projection output (the activation function's input): FP8 (1) when
    ``fp8_up_cache`` (DeepSeek-V3 caches the SwiGLU inputs in FP8), else ``act_bytes``."""
    return np.where(c.get("fp8_up_cache", 0.0) > 0, 1.0, c["act_bytes"])


def _dropout_mask_bytes(c):
    """Bytes per element of a stored dropout mask: 1 when the model trains with dropout
    (``dropout``), else 0 (no dropout layer runs, nothing is kept)."""
    return np.where(c.get("dropout", 0.0) > 0, 1.0, 0.0)


def _matmul_input_bytes(c):
    """Bytes per saved matmul-input element: FP8 recipes save the FP8 cast (1 byte)."""
    return c["act_bytes"] - c["fp8"] * (c["act_bytes"] - 1.0)


def attention_activation_bytes(T, c, t, rep_div):
    """Attention-block activations: (replicated part / rep_div) + (split part / t)."""
    h, a, g, d, act = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"], c["act_bytes"]
    mm_in = _matmul_input_bytes(c)
    mask = _dropout_mask_bytes(c)
    replicated = T * h * (act + mm_in + mask)  # norm input, QKV input, dropout mask
    # Q, K, V; attention output (proj input); with fewer KV heads than TP ranks each rank keeps
    # one whole K and V head (t of them over the t ranks)
    split = T * d * ((a + 2.0 * np.maximum(g, t)) * act + a * mm_in)
    kept = (c["recompute"] == 0) | ((c["recompute"] == 1) & (c.get("rc_core_attn", 1.0) <= 0))
    # unfused scores: the softmax output (act), and with dropout its mask (1) and output (act)
    scores = (1.0 - c["flash_attention"]) * kept * (act + mask * (1.0 + act)) * a * c["seq_len"] * T
    mla_kv = c.get("mla_kv_rank", 0.0)
    if np.any(mla_kv > 0):
        # MLA: Q and K of a*d_qk, V and the attention output of a*d_v (split); the query and
        # key/value latents (inputs of the up-projections) replicated like the layer input
        dv = c["mla_v_dim"]
        split = np.where(mla_kv > 0, T * a * ((2.0 * d + dv) * act + dv * mm_in), split)
        replicated = replicated + np.where(mla_kv > 0, T * (c["mla_q_rank"] + mla_kv + c["mla_rope_dim"]) * mm_in, 0.0)
    return replicated / rep_div + (split + scores) / t


def _ffn_inner_bytes(T, f, c, t):
    """The up-projection outputs and the activation output of ``T`` tokens through an FFN of
    width ``f``, split tensor-parallel."""
    return T * f * ((c["ffn_mats"] - 1.0) * _up_output_bytes(c) + _matmul_input_bytes(c)) / t


def _expert_bytes(T, c, t, rep_div, ep_tokens_factor):
    """What a MoE block keeps per routed copy (the expert GEMM input, the expert output and the
    experts' inner tensors) and for its shared experts.

    The experts are split etp ways (column ``etp``; 0: tp): an expert GPU runs the copies of
    its EP rank, all-gathered over its etp ranks, T k etp / t of them (Tk when etp = tp; the
    busiest rank ``moe_imbalance`` times that), and keeps their GEMM input whole; the expert
    output is kept after its reduce-scatter (on the rank's own tokens)."""
    h, act, fe = c["hidden"], c["act_bytes"], c["expert_ffn_hidden"]
    etp = np.where(c.get("etp", 0.0) > 0, c.get("etp", 0.0), t)
    routed = T * ep_tokens_factor
    run = routed * etp / t * np.maximum(c.get("moe_imbalance", 1.0), 1.0)  # on the busiest EP rank
    return (run * h * _matmul_input_bytes(c) + routed * h * act / rep_div  # expert GEMM inputs; expert outputs
            + _ffn_inner_bytes(run, fe, c, etp)  # up outputs; activation output
            + c["shared_experts"] * fe * T * c["ffn_mats"] * act / t)


def ffn_activation_bytes(T, f, c, t, rep_div):
    """FFN-block activations for ``T`` tokens through an FFN of width ``f``."""
    h, act = c["hidden"], c["act_bytes"]
    mm_in = _matmul_input_bytes(c)
    replicated = T * h * (act + mm_in + _dropout_mask_bytes(c))  # norm input, FFN input, dropout mask
    return replicated / rep_div + _ffn_inner_bytes(T, f, c, t)


def layer_activation_bytes(T, c, t, rep_div, ep_tokens_factor):
    """Activations kept for backward by one dense and one MoE layer (no recompute), bytes.

    ``ep_tokens_factor`` is top_k: a MoE layer's experts see T*top_k routed token copies. Per
    token (T) it keeps the FFN norm input and dropout mask; per routed copy the expert GEMM
    input, the expert's up-projection and activation outputs, and the expert output (the
    gradient of the routing weight is its dot product with the output gradient).
    """
    attn = attention_activation_bytes(T, c, t, rep_div)
    dense = attn + ffn_activation_bytes(T, c["ffn_hidden"], c, t, rep_div)
    moe = (
        attn
        + T * c["hidden"] * (c["act_bytes"] + _dropout_mask_bytes(c)) / rep_div  # FFN norm input, dropout mask
        + _expert_bytes(T, c, t, rep_div, ep_tokens_factor)
    )
    return dense, moe


def selective_savings(T, c, t, rep_div, ep_tokens_factor):
    """Bytes one dense and one MoE layer do not store under selective recompute (recompute = 1)
    of the modules its ``rc_*`` columns name (Megatron-core's recompute_modules); the attention
    scores (``rc_core_attn``) are handled in :func:`attention_activation_bytes`.

    layernorm: the norm outputs that feed the QKV and FFN GEMMs (the norm inputs stay, they are
    the residual stream); mla_up_proj: MLA's Q, K and V heads (the latents stay); moe_act: the
    experts' activation output; mlp: a dense FFN's up-projection and activation outputs; moe: every
    routed-copy and expert tensor of the MoE block (its input stays).
    """
    h, act = c["hidden"], c["act_bytes"]
    mm_in = _matmul_input_bytes(c)
    on = c["recompute"] == 1
    norm = c["rc_norm"] * T * h * mm_in / rep_div  # a norm output (QKV input; a dense FFN's input)
    mla = np.where(c.get("mla_kv_rank", 0.0) > 0,
                   c["rc_mla_up"] * T * c["heads"] * (2.0 * c["head_dim"] + c.get("mla_v_dim", 0.0)) * act / t, 0.0)
    mlp = c["rc_mlp"] * _ffn_inner_bytes(T, c["ffn_hidden"], c, t)
    imb = np.maximum(c.get("moe_imbalance", 1.0), 1.0)
    moe_act = imb * T * ep_tokens_factor * c["expert_ffn_hidden"] * mm_in / t  # the experts' activation outputs
    moe = np.where(c["rc_moe"] > 0, _expert_bytes(T, c, t, rep_div, ep_tokens_factor), c["rc_moe_act"] * moe_act)
    dense_saved = np.where(on, 2.0 * norm + mla + mlp, 0.0)
    moe_saved = np.where(on, norm + mla + moe, 0.0)  # the FFN norm output feeds the dispatched copies
    return dense_saved, moe_saved


def frozen_input_savings(T, c, t, rep_div, ep_tokens_factor):
    """Bytes one dense and one MoE layer need not keep when their base weights are frozen:
    ``(frozen_dense, frozen_moe, lora_dense, lora_moe)``.

    A linear layer's input is read in backward only by its weight gradient (the data gradient
    needs the weight), so a frozen layer does not save it (autograd and Transformer Engine keep
    only what a gradient that is needed reads). Frozen: the QKV, output-projection, FFN and
    down-projection inputs (for a MoE layer the routed copies' expert inputs and the experts'
    activation outputs) are dropped. LoRA: the same, except the inputs of the adapted matrices
    (the adapter's A reads them), plus each adapter's rank-r intermediate (B reads it). Inputs
    that selective recompute already drops (``rc_norm``, ``rc_mlp``, ``rc_moe``, ``rc_moe_act``)
    are not counted twice; full recompute keeps only layer inputs and saves nothing here.
    """
    h, a, act = c["hidden"], c["heads"], c["act_bytes"]
    mm_in = _matmul_input_bytes(c)
    sel = c["recompute"] == 1
    norm_kept = 1.0 - sel * c["rc_norm"]
    out_width = np.where(c.get("mla_kv_rank", 0.0) > 0, a * c.get("mla_v_dim", 0.0), a * c["head_dim"])
    qkv_in = norm_kept * T * h * mm_in / rep_div
    out_in = T * out_width * mm_in / t
    ffn_in = norm_kept * T * h * mm_in / rep_div
    down_in = (1.0 - sel * c["rc_mlp"]) * T * c["ffn_hidden"] * mm_in / t
    routed = T * ep_tokens_factor
    etp = np.where(c.get("etp", 0.0) > 0, c.get("etp", 0.0), t)
    routed = routed * np.maximum(c.get("moe_imbalance", 1.0), 1.0)  # on the busiest EP rank
    expert_in = (1.0 - sel * c["rc_moe"]) * routed * etp / t * h * mm_in  # as _expert_bytes keeps it
    expert_act = (1.0 - sel * np.maximum(c["rc_moe"], c["rc_moe_act"])) * routed * c["expert_ffn_hidden"] * mm_in / t
    lq, lo, lf = c["lora_qkv"], c["lora_out"], c["lora_ffn"]
    adapters = T * c["lora_rank"] * act * (lq + lo + 2.0 * lf)  # x A of each adapter (B's input)
    frozen_dense = qkv_in + out_in + ffn_in + down_in
    frozen_moe = qkv_in + out_in + expert_in + expert_act
    lora_dense = (1.0 - lq) * qkv_in + (1.0 - lo) * out_in + (1.0 - lf) * (ffn_in + down_in) - adapters
    lora_moe = (1.0 - lq) * qkv_in + (1.0 - lo) * out_in + (1.0 - lf) * (expert_in + expert_act) - adapters
    return frozen_dense, frozen_moe, lora_dense, lora_moe
