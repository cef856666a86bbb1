"""The columns the cost model reads: one array (or scalar, broadcast) per column, SI units.

A batch of N configurations is a mapping from these names to arrays of length N or scalars.
Scalars broadcast, so a sweep over parallel plans for one model on one cluster passes the model
and hardware columns as scalars and only the plan columns as arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .power import POWER_COLUMNS

#: name -> (default, unit / meaning). ``None`` means required.
COLUMNS: dict[str, tuple[float | None, str]] = {
    # --- model -----------------------------------------------------------------------------
    "layers": (None, "transformer layers"),
    "hidden": (None, "hidden size h"),
    "heads": (None, "attention (query) heads a"),
    "kv_heads": (None, "key/value heads g (grouped-query attention; = heads for MHA)"),
    "head_dim": (None, "head dimension d"),
    "ffn_hidden": (None, "FFN hidden size f of dense layers"),
    "ffn_mats": (2.0, "matrices in the FFN: 2 (gelu) or 3 (swiglu)"),
    "vocab": (None, "vocabulary size V"),
    "seq_len": (None, "sequence length s, tokens"),
    "experts": (0.0, "routed experts per MoE layer (0: dense model)"),
    "top_k": (0.0, "experts each token is routed to"),
    "expert_ffn_hidden": (0.0, "FFN hidden size of one expert"),
    "shared_experts": (0.0, "always-active shared experts per MoE layer"),
    "moe_layers": (0.0, "number of MoE layers (the rest are dense)"),
    "expert_groups": (0.0, "group-limited routing: expert groups (0: none)"),
    "top_groups": (0.0, "group-limited routing: groups a token's experts may lie in"),
    "router_skew": (0.0, "coefficient of variation of a trained router's load over the experts (0: uniform)"),
    "tied_embeddings": (0.0, "1 if the LM head shares the input embedding"),
    "dropout": (0.0, "1 if training applies dropout (its masks are kept for backward); 0: none"),
    "causal": (1.0, "1 for causal (decoder) attention, 0 for bidirectional (encoder, ViT)"),
    "mla_kv_rank": (0.0, "multi-head latent attention: the cached key/value latent width (0: standard "
                         "attention); head_dim is then the query/key head width (nope + rope)"),
    "mla_q_rank": (0.0, "MLA query latent width (0: queries projected straight from h)"),
    "mla_rope_dim": (0.0, "MLA rotary key width per token (shared by the heads, cached with the latent)"),
    "mla_v_dim": (0.0, "MLA value head width"),
    "attn_window": (0.0, "tokens a query of a windowed layer attends to (local attention); 0 = full"),
    "window_fraction": (1.0, "fraction of the layers that are windowed when attn_window > 0"),
    "attn_chunked": (0.0, "1 if windowed layers attend from the start of their W-token chunk "
                          "(chunked, Llama 4), 0 for a sliding window of the W latest tokens"),
    "input_proj_dim": (0.0, "K of an input projection GEMM per token instead of an embedding "
                            "lookup (ViT patch embedding: channels*patch^2; 0 for LLMs)"),
    "head_fraction": (1.0, "fraction of the tokens that go through the output head "
                           "(1 for LLMs; 1/tokens for a ViT classifier on the class token)"),
    # --- hardware (per GPU) ----------------------------------------------------------------
    "peak_flops": (None, "dense matmul peak at the run's precision, FLOP/s"),
    "peak_flops_16": (None, "dense bf16/fp16 peak (attention, non-fp8 work), FLOP/s"),
    "hbm_bytes": (None, "HBM capacity, bytes"),
    "hbm_bw": (None, "HBM bandwidth, bytes/s"),
    "nvlink_bw": (None, "NVLink bandwidth per GPU, one direction, bytes/s"),
    "nvlink_domain": (8.0, "GPUs in one NVLink domain"),
    "nvlink_mesh": (0.0, "1 if a domain's GPUs are linked point to point (a full mesh, AMD Infinity Fabric: "
                         "a group of k of its D GPUs drives (k - 1)/(D - 1) of nvlink_bw), 0 behind a switch"),
    "scaleout_bw": (None, "scale-out (NIC) bandwidth per GPU, one direction, bytes/s"),
    "host_link_bw": (32e9, "GPU <-> host (CPU memory) link per GPU, one direction, bytes/s (PCIe or "
                           "NVLink-C2C)"),
    "eff_host_link": (0.8, "fraction of host_link_bw a large pinned-memory copy reaches"),
    "exp_rate": (0.0, "exponentials/s of the special-function units (the softmax of fused attention); "
                      "0 = not modelled"),
    "host_memory_bytes": (0.0, "host (CPU) memory per GPU for offloaded activations, bytes (0: not checked)"),
    "nvlink_latency": (3e-6, "per-step latency of an NVLink collective, s"),
    "scaleout_latency": (8e-6, "per-step latency of a scale-out collective, s"),
    "memory_reserved": (3e9, "HBM not available to the model (context, workspace), bytes"),
    "eff_matmul": (0.8, "fraction of peak_flops a large matmul reaches"),
    "eff_matmul_16": (0.0, "fraction of peak_flops_16 a large 16-bit matmul reaches (the LM head of FP8/FP4 "
                           "training, which the recipes keep 16-bit); 0 = eff_matmul"),
    "matmul_k_half": (0.0, "reduction depth K at which matmul efficiency is half of eff_matmul"),
    "eff_attention": (0.6, "fraction of peak_flops_16 the attention kernel reaches"),
    "attention_flops_per_exp": (0.0, "16-bit tensor FLOPs per exponential (peak_flops_16 / exp_rate) "
                                     "of the GPU eff_attention was measured on"),
    "eff_hbm": (0.85, "fraction of hbm_bw memory-bound kernels reach"),
    "eff_nvlink": (0.8, "fraction of nvlink_bw a large collective reaches (bus bandwidth)"),
    "eff_scaleout": (0.8, "fraction of scaleout_bw a large collective reaches"),
    "rail_optimized": (1.0, "1 if collectives spanning NVLink domains use every GPU's NIC (rails)"),
    "overlap_slowdown": (0.0, "compute slowdown while overlapped communication runs (fraction)"),
    **POWER_COLUMNS,  # board power limit and the power model (dse.costmodel.power)
    "price_per_gpu_hour": (0.0, "price per GPU-hour, USD"),
    # --- parallel plan ---------------------------------------------------------------------
    "num_gpus": (None, "GPUs in the job"),
    "tp": (1.0, "tensor-parallel degree"),
    "pp": (1.0, "pipeline-parallel degree"),
    "dp": (1.0, "data-parallel degree"),
    "cp": (1.0, "context-parallel degree"),
    "ep": (1.0, "expert-parallel degree (an etp x ep expert group tiles tp*dp*cp)"),
    "etp": (0.0, "ways each routed expert is split tensor-parallel (0: tp ways)"),
    "sp": (0.0, "1 if sequence parallelism is on"),
    "vpp": (1.0, "virtual pipeline stages (interleaved chunks) per pipeline rank"),
    "zero": (0.0, "ZeRO stage 0-3 (3 = FSDP full shard)"),
    "shard_group": (0.0, "ranks one ZeRO/FSDP shard group spans, replicated over dp*cp/shard_group "
                         "groups (hybrid sharding, HSDP); 0 = all dp*cp ranks"),
    "recompute": (0.0, "activation recompute: 0 none, 1 selective, 2 full"),
    "rc_full_fraction": (1.0, "full recompute (recompute = 2): the fraction of the layers of each model chunk "
                              "recomputed whole (Megatron-core's recompute_method block with recompute_num_layers "
                              "N: N / layers per chunk); the others store their activations"),
    "rc_core_attn": (1.0, "selective recompute (recompute = 1) re-runs the attention core"),
    "rc_norm": (0.0, "selective recompute re-runs the norms (their outputs, the GEMM inputs, not stored)"),
    "rc_mla_up": (0.0, "selective recompute re-runs MLA's up-projections (Q, K, V heads not stored)"),
    "rc_moe_act": (0.0, "selective recompute re-runs the experts' activation function"),
    "rc_mlp": (0.0, "selective recompute re-runs dense FFNs (only their input stored)"),
    "rc_moe": (0.0, "selective recompute re-runs whole MoE blocks, all-to-alls included"),
    "offload_layers": (0.0, "transformer layers of each pipeline stage (its first ones) whose saved "
                            "activations go to host memory in forward and come back for backward "
                            "(Megatron-core cpu_offloading_num_layers, which needs pp = 1)"),
    "microbatch": (1.0, "microbatch, sequences"),
    "global_batch": (None, "global batch, sequences"),
    # --- fine-tuning ------------------------------------------------------------------------
    "frozen_layers": (0.0, "transformer layers frozen from the bottom (no weight gradients)"),
    "freeze_embeddings": (0.0, "1 if the embeddings and the output head are frozen"),
    "lora_rank": (0.0, "LoRA adapter rank (0: no adapters; >0 freezes every base weight)"),
    "lora_qkv": (1.0, "1 if LoRA adapts the QKV projection"),
    "lora_out": (1.0, "1 if LoRA adapts the attention output projection"),
    "lora_ffn": (0.0, "1 if LoRA adapts the FFN matrices"),
    "forward_only": (0.0, "1 for inference on the training model (a ViT's forward pass over a batch): "
                          "every layer frozen, no backward, and the FLOPs counted are the forward's"),
    # --- numerics and overlap --------------------------------------------------------------
    "act_bytes": (2.0, "bytes per activation element"),
    "weight_bytes": (2.0, "bytes per weight (compute copy)"),
    "fp8": (0.0, "1 if matmuls run in FP8 (extra casts, an FP8 weight copy)"),
    "grad_bytes": (4.0, "bytes per gradient element held (4 with fp32 accumulation)"),
    "grad_reduce_bytes": (2.0, "bytes per gradient element communicated"),
    "optimizer_bytes": (12.0, "optimizer bytes per parameter (Adam: fp32 master, m, v)"),
    "fp8_up_cache": (0.0, "1 if FFN up-projection outputs (the activation's inputs) are stored in FP8"),
    "fp8_params": (0.0, "1 if FP8 runs hold the weights in FP8 only (no 16-bit compute copy; FSDP "
                        "gathers FP8)"),
    "flash_attention": (1.0, "1 for a fused (flash) attention kernel"),
    "fsdp_accumulate": (0.0, "1 if FSDP (zero 3) keeps a stage's weights gathered and its gradients "
                             "unsharded (at grad_reduce_bytes) over a step's microbatches: one gather and "
                             "one reduce-scatter a step; 0: each layer every microbatch"),
    "ce_fp32": (0.0, "1 if the loss is PyTorch's cross-entropy over fp32 logits (12 bytes a logit at its "
                     "backward's peak, 40 moved); 0: a fused in-place one (2 x act bytes, 24 moved)"),
    "moe_dedup": (0.0, "1 if routed tokens cross the network once per destination NVLink domain and "
                       "are forwarded over NVLink there (DeepEP); 0: one copy per routed expert (all-to-all)"),
    "moe_host_layer": (0.0, "host (CPU) time to launch one MoE layer's forward and backward for one "
                            "microbatch when the host cannot run ahead of the GPU (Megatron-core's "
                            "dispatcher reads the routed-token counts on the host every layer): it "
                            "runs beside the GPU's time G, the layer taking (G^2 + H^2)^(1/2), s; "
                            "0: the host never limits"),
    "moe_host_expert": (0.0, "the same, per expert held by the GPU (per-expert GEMMs and casts), s"),
    "ep_cross_overlap": (0.0, "1 if a microbatch's expert all-to-alls hide under another microbatch's "
                              "whole layer (DualPipe, 1F1B A2A overlap); 0: under the layer's shared experts"),
    "dispatch_bytes": (0.0, "bytes per element of the routed tokens sent into the experts (forward dispatch, "
                            "backward gradient dispatch); 0: act_bytes"),
    "moe_imbalance": (1.0, "routed token copies the busiest expert-parallel rank receives over the mean "
                           "(1: balanced routing); it paces every MoE layer's dispatch and expert GEMMs"),
    "overlap_dp": (1.0, "data-parallel gradient reduction overlaps the backward pass"),
    "overlap_fsdp": (1.0, "FSDP/ZeRO-3 parameter gathers are prefetched under compute"),
    "overlap_tp": (0.0, "tensor-parallel collectives overlap compute"),
    "overlap_ep": (0.0, "expert all-to-alls overlap compute"),
    "overlap_cp": (1.0, "context-parallel K/V ring exchange overlaps attention"),
    "overlap_pp": (1.0, "pipeline point-to-point transfers overlap compute"),
}

REQUIRED = tuple(name for name, (default, _) in COLUMNS.items() if default is None)


def broadcast_columns(batch: Mapping[str, Any]) -> tuple[dict[str, np.ndarray], int]:
    """Return every column as a float64 array (scalars stay 0-d) and the batch length N.

    Raises KeyError naming missing required columns and unknown ones.
    """
    unknown = sorted(set(batch) - set(COLUMNS))
    if unknown:
        raise KeyError(f"unknown cost-model columns: {unknown}; known: {sorted(COLUMNS)}")
    missing = [name for name in REQUIRED if name not in batch]
    if missing:
        raise KeyError(f"missing required cost-model columns: {missing}")
    cols: dict[str, np.ndarray] = {}
    n: int | None = None  # the length of the 1-d columns other than length 1
    for name, (default, _) in COLUMNS.items():
        value = np.asarray(batch.get(name, default), dtype=np.float64)
        if value.ndim > 1:
            raise ValueError(f"column {name!r} must be a scalar or a 1-d array, got {value.shape}")
        if value.ndim == 1 and value.shape[0] != 1:
            if n is not None and value.shape[0] != n:
                raise ValueError(f"column {name!r} has length {value.shape[0]}, expected {n}")
            n = value.shape[0]
        cols[name] = value
    return cols, (1 if n is None else n)
