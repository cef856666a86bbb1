"""Parameter and FLOP counts of a decoder transformer layer (whole layer, no parallelism).

One multiply-add is 2 FLOPs. Notation as in ``../shared/notes/physics.md``: s sequence length,
h hidden, a query heads, g key/value heads, d head dim, f FFN hidden, V vocabulary. Counts follow
Narayanan et al. 2021 (eq. 3) and Korthikanti et al. 2022, generalised to grouped-query attention
(Ainslie et al. 2023), three-matrix (SwiGLU) FFNs and mixture-of-experts layers. Attention
scores and weighted values count the full s^2 (no causal halving), as Megatron and PaLM count
model FLOPs; the *time* model halves it for causal fused kernels (see ``training.py``).
Windowed layers (sliding or chunked local attention) count the keys a query actually attends
to, in the same full-mask convention: a span of 2 x the mean keys per query (s for full causal
attention), see :func:`attention_span`. All functions are elementwise over numpy arrays.
"""

from __future__ import annotations

import numpy as np


def attention_params(h, a, g, d):
    """Weights of the QKV and output projections (biases and norms ignored)."""
    return h * (a + 2.0 * g) * d + a * d * h


def is_mla(c):
    """True where a configuration's model uses multi-head latent attention."""
    return np.asarray(c.get("mla_kv_rank", 0.0)) > 0


def mla_projection_shapes(c, a_loc):
    """The GEMMs (K, N) of one MLA layer's projections on a rank holding ``a_loc`` heads:
    the down-projection h -> q_rank + kv_rank + rope (replicated over tensor-parallel ranks), the
    query up-projection (q_rank, or h without a query latent) -> a_loc * d_qk, the key/value
    up-projection kv_rank -> a_loc * (d_nope + d_v) and the output a_loc * d_v -> h."""
    h, d = c["hidden"], c["head_dim"]
    qr, kr, rope, dv = c["mla_q_rank"], c["mla_kv_rank"], c["mla_rope_dim"], c["mla_v_dim"]
    return ((h, qr + kr + rope), (np.where(qr > 0, qr, h), a_loc * d), (kr, a_loc * (d - rope + dv)),
            (a_loc * dv, h))


def attention_layer_params(c):
    """Weights of one layer's attention projections, standard (grouped-query) or MLA (with the
    two latent norms), no parallelism."""
    std = attention_params(c["hidden"], c["heads"], c["kv_heads"], c["head_dim"])
    if not np.any(is_mla(c)):
        return std
    mla = sum(K * N for K, N in mla_projection_shapes(c, c["heads"])) + c["mla_q_rank"] + c["mla_kv_rank"]
    return np.where(is_mla(c), mla, std)


def attention_core_flops_per_key(c):
    """FLOPs of the scores and weighted values of one query-key pair, all heads: 2 a (d_qk + d_v)
    (4 a d for standard attention)."""
    a, d = c["heads"], c["head_dim"]
    if not np.any(is_mla(c)):
        return 4.0 * a * d
    return np.where(is_mla(c), 2.0 * a * (d + c["mla_v_dim"]), 4.0 * a * d)


def softmax_exp_factor(flops_per_exp, peak, exp_rate, ref_gpu_flops_per_exp, ref_flops_per_exp):
    """Factor on a fused attention kernel's tensor-core time for its softmax exponentials.

    The kernel does ``flops_per_exp`` (P) tensor FLOPs per exponential: 4d per query-key pair
    and head forward (scores and weighted values), 10d backward (the probabilities are rebuilt
    once), 2(d_qk + d_v) for MLA. The special-function units compute ``exp_rate``
    exponentials/s beside the tensor cores' ``peak`` FLOP/s: R = peak / exp_rate FLOPs per
    exponential (H100 254, B200 450, B300 210), so the exponentials take x = R/P of the tensor
    time. The two overlap imperfectly; the kernel takes (1 + x^2)^(1/2) of its tensor time, the
    smooth maximum dse also uses for the serving roofline. Against FlashAttention-3's forward
    rates on H100 at d = 64, 128 and 256 (497, 648, 756 TFLOP/s) it gives the d = 64 / 128 and
    256 / 128 ratios as 0.79 and 1.08 (measured 0.77 and 1.17). A calibrated attention
    efficiency already holds the factor of its own GPU (``ref_gpu_flops_per_exp``) at
    ``ref_flops_per_exp``, so the result is relative to that: 1 on the calibration GPU at its
    head dim. Without an exponential rate (0) the factor is 1.
    """
    R = np.where(exp_rate > 0, peak / np.maximum(exp_rate, 1e-30), 0.0)
    R_ref = np.where(exp_rate > 0, ref_gpu_flops_per_exp, 0.0)
    x = R / np.maximum(flops_per_exp, 1e-30)
    x_ref = R_ref / ref_flops_per_exp
    return np.sqrt((1.0 + x * x) / (1.0 + x_ref * x_ref))


def ffn_params(h, f, mats):
    """Weights of one FFN (2 matrices for gelu, 3 for SwiGLU)."""
    return mats * h * f


def layer_params(c):
    """Parameters of one dense layer and of one MoE layer: (dense, moe_shared_part, moe_experts).

    ``moe_shared_part`` is what an MoE layer holds outside its routed experts (attention, router,
    shared experts); ``moe_experts`` the routed experts' weights.
    """
    h, mats = c["hidden"], c["ffn_mats"]
    attn = attention_layer_params(c) + 2.0 * h
    dense = attn + ffn_params(h, c["ffn_hidden"], mats)
    moe_shared = attn + h * c["experts"] + c["shared_experts"] * ffn_params(h, c["expert_ffn_hidden"], mats)
    moe_experts = c["experts"] * ffn_params(h, c["expert_ffn_hidden"], mats)
    return dense, moe_shared, moe_experts


def model_params(c):
    """Total and active (per token) parameters, embeddings and LM head included."""
    dense, moe_shared, moe_experts = layer_params(c)
    n_moe = c["moe_layers"]
    n_dense = c["layers"] - n_moe
    k_in = c.get("input_proj_dim", 0.0)
    emb = np.where(k_in > 0, (k_in + c["vocab"]) * c["hidden"],
                   c["vocab"] * c["hidden"] * (2.0 - c["tied_embeddings"]))
    total = n_dense * dense + n_moe * (moe_shared + moe_experts) + emb
    active_experts = c["top_k"] * ffn_params(c["hidden"], c["expert_ffn_hidden"], c["ffn_mats"])
    active = n_dense * dense + n_moe * (moe_shared + active_experts) + emb
    return total, active


def _keys_integral(x, window, chunked):
    """Integral over query positions 0..x of the keys a causal query at position u attends to:
    u (full), min(u, W) (sliding window of W tokens), u mod W (chunked: from its chunk's start)."""
    W = np.maximum(window, 1.0)
    sliding = np.where(x < W, 0.5 * x * x, 0.5 * W * W + W * (x - W))
    n = np.floor(x / W)
    r = x - n * W
    chunk = 0.5 * (n * W * W + r * r)
    return np.where(window > 0, np.where(chunked > 0, chunk, sliding), 0.5 * x * x)


def mean_attended_keys(lo, hi, window, chunked):
    """Mean keys per query (tokens) over queries at positions spread evenly over [lo, hi].

    ``window`` W > 0 limits each query to a window (``chunked`` 0: the W most recent tokens,
    1: the tokens since the start of its W-token chunk); W = 0 is full causal attention, whose
    mean is (lo + hi) / 2. Over a whole sequence (lo = 0, hi = s) that is s/2 for full attention,
    W - W^2/(2s) for a sliding window W <= s, and about W/2 for chunks of W << s.
    """
    lo, hi = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
    width = hi - lo
    W = np.maximum(window, 1.0)
    at_lo = np.where(window > 0, np.where(chunked > 0, np.mod(lo, W), np.minimum(lo, W)), lo)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (_keys_integral(hi, window, chunked) - _keys_integral(lo, window, chunked)) / width
    return np.where(width > 1e-9, mean, at_lo)


def layer_mean_keys(lo, hi, c):
    """:func:`mean_attended_keys` averaged over the layers: a fraction ``window_fraction`` of them
    windowed at ``attn_window`` (``attn_chunked``), the rest full."""
    window = c.get("attn_window", 0.0)
    full = 0.5 * (np.asarray(lo, dtype=np.float64) + hi)
    if not np.any(np.asarray(window) > 0):  # no windowed layers in the batch
        return full
    frac = np.where(window > 0, c.get("window_fraction", 1.0), 0.0)
    return (1.0 - frac) * full + frac * mean_attended_keys(lo, hi, window, c.get("attn_chunked", 0.0))


def attention_span(c):
    """Keys per query of a training sequence in the full-mask convention of model FLOPs: s for
    full attention (causal or not), 2 x the mean attended keys for causal windowed layers
    (averaged over the layers); the scores + values cost 4 * span * a * d FLOPs per token."""
    s = c["seq_len"]
    if not np.any(np.asarray(c.get("attn_window", 0.0)) > 0):
        return s
    windowed = 2.0 * layer_mean_keys(0.0, s, c)
    return np.where(c.get("causal", 1.0) > 0, windowed, s)


def _expert_flops_per_token(c):
    """Forward FLOPs per token of a MoE layer's routed (top_k) and shared experts."""
    return 2.0 * c["ffn_mats"] * c["hidden"] * c["expert_ffn_hidden"] * (c["top_k"] + c["shared_experts"])


def layer_forward_flops_per_token(c):
    """Forward FLOPs per token of one dense and one MoE layer, attention at the full span
    (s^2 for full attention, see :func:`attention_span`).

    Returns (dense_layer, moe_layer, attention_core) where ``attention_core`` is the
    scores + weighted-values part (included in both layer figures).
    """
    h, a, g, d = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
    mats = c["ffn_mats"]
    proj = 2.0 * h * (a + 2.0 * g) * d + 2.0 * a * d * h
    if np.any(is_mla(c)):
        proj = np.where(is_mla(c), 2.0 * attention_layer_params(c), proj)
    core = attention_span(c) * attention_core_flops_per_key(c)
    dense_ffn = 2.0 * mats * h * c["ffn_hidden"]
    experts = _expert_flops_per_token(c)
    router = 2.0 * h * c["experts"]
    return proj + core + dense_ffn, proj + core + experts + router, core


def model_flops_per_token(c):
    """Model FLOPs per trained token (forward + backward = 3x forward), no recompute.

    For a dense MHA gelu model with f = 4h this is 72*l*h^2*(1 + s/6h) + 6*h*V: Narayanan et
    al. 2021's 96*B*s*l*h^2*(1 + s/6h + V/16lh) / (B*s) without the recomputed forward of the
    layers (the LM head is never recomputed). The input embedding lookup is not counted.
    """
    dense, moe, _ = layer_forward_flops_per_token(c)
    n_moe = c["moe_layers"]
    fwd = (c["layers"] - n_moe) * dense + n_moe * moe + 2.0 * c["hidden"] * c["vocab"] * c.get("head_fraction", 1.0)
    return 3.0 * fwd


def executed_flops_per_token(c):
    """FLOPs the GPUs run per trained token, recompute aside: the forward, and a backward only
    where a gradient is needed (fine-tuning).

    A trainable layer runs 3x its forward. A frozen layer that a gradient still passes through
    (something trainable below it, or LoRA adapters in it) skips its weight gradients: its linear
    layers 2x, the attention core 3x. Frozen layers with nothing trainable below run forward only.
    The output head likewise (3x trainable, 2x frozen with something trainable below, 1x when
    nothing trains). LoRA freezes every base weight (the embeddings too) and adds its adapters
    (2 r (K + N) forward FLOPs per token and target, 3x) to the layers above ``frozen_layers``,
    the gradient passing through them; the layers below run forward only. With nothing frozen
    this equals :func:`model_flops_per_token`.
    """
    dense, moe, core = layer_forward_flops_per_token(c)
    L = c["layers"]
    n_moe = c["moe_layers"]
    layer = ((L - n_moe) * dense + n_moe * moe) / np.maximum(L, 1.0)  # mean forward per layer
    linear = layer - core
    h, V = c["hidden"], c["vocab"]
    head = 2.0 * h * V * c.get("head_fraction", 1.0)
    r = np.asarray(c.get("lora_rank", 0.0), dtype=np.float64)
    lora = r > 0
    frozen_emb = np.asarray(c.get("freeze_embeddings", 0.0), dtype=np.float64) > 0
    frozen = np.clip(c.get("frozen_layers", 0.0), 0.0, L)
    no_flow = frozen_emb | lora  # the frozen layers have nothing trainable below them
    flowing = 2.0 * linear + 3.0 * core  # a frozen base a gradient passes through
    frozen_layer = np.where(no_flow, layer, flowing)
    # LoRA: the layers above frozen_layers are frozen bases with adapters, the gradient passing
    layers = np.where(lora, (L - frozen) * flowing, (L - frozen) * 3.0 * layer) + frozen * frozen_layer
    trains = (frozen < L) | ~(frozen_emb | lora)  # some weight gets a gradient
    head_cost = np.where(~(frozen_emb | lora), 3.0, np.where(trains, 2.0, 1.0)) * head
    a, g, d, f, mats = c["heads"], c["kv_heads"], c["head_dim"], c["ffn_hidden"], c["ffn_mats"]
    targets = (c.get("lora_qkv", 1.0) * (h + (a + 2.0 * g) * d) + c.get("lora_out", 1.0) * (a * d + h)
               + c.get("lora_ffn", 0.0) * ((h + (mats - 1.0) * f) + (f + h)))
    adapters = np.where(lora, 3.0 * (L - frozen) * 2.0 * r * targets, 0.0)
    return layers + head_cost + adapters


def recompute_flops_per_token(c):
    """Extra forward FLOPs per token that activation recompute adds (0 none, 1 selective, 2 full)."""
    dense, moe, core = layer_forward_flops_per_token(c)
    n_moe = c["moe_layers"]
    full = (c["layers"] - n_moe) * dense + n_moe * moe
    h, mats = c["hidden"], c["ffn_mats"]
    n_dense = c["layers"] - n_moe
    selective = c["layers"] * core * c.get("rc_core_attn", 1.0)
    selective = selective + n_dense * c.get("rc_mlp", 0.0) * 2.0 * mats * h * c["ffn_hidden"]
    selective = selective + n_moe * c.get("rc_moe", 0.0) * _expert_flops_per_token(c)
    if np.any(is_mla(c)):
        _, q_up, kv_up, _ = mla_projection_shapes(c, c["heads"])
        up = 2.0 * (q_up[0] * q_up[1] + kv_up[0] * kv_up[1])
        selective = selective + np.where(is_mla(c), c["layers"] * c.get("rc_mla_up", 0.0) * up, 0.0)
    r = c["recompute"]
    return (r == 2) * np.clip(c.get("rc_full_fraction", 1.0), 0.0, 1.0) * full + (r == 1) * selective
