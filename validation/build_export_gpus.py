#!/usr/bin/env python3
"""Write validation/export_gpus.jsonl: published runs on the export GPUs that dse now has presets for
(A800-SXM-80GB, H800-SXM-80GB, H20): LLM pre-training in Megatron on A800 and H800 (FlagPerf, MegaScale-MoE's
Megatron-LM baseline) and SGLang serving of DeepSeek-R1 on H20 (prefill and decode instances, MTP).

Usage: python validation/build_export_gpus.py   (no network: every number below was read from the files named
in each source block and is kept here as a literal, with its source).

Case format: ../shared/validation/README.md plus dse's keys (training block; inference.phase, max_num_tokens,
kv_cache_dtype, moe_dispatcher, moe_dispatch_dtype, single_batch_overlap, moe_load_imbalance,
speculative_tokens, draft_acceptance: dse/specs.py). One case per measured figure; ``inferred`` lists what
the source does not state; ``notes`` quote the source.

Sources (FACT = read in the file named; INFERRED = not stated there, listed in each case's ``inferred``):

F1. FlagPerf (FlagOpen/FlagPerf), training/nvidia/llama3_8B-megatron/README.md @0e0fc76a. FACT: 'NVIDIA DGX
    A800(80G)', 'NVIDIA_A800-SXM4-80GB', 'InfiniBand，200Gb/s', 'megatron-core tag:core_v0.6.0', 'PP2DP4TP1',
    optimizations 'flash attention 2', 'recompute-activations', 'transformer-engine impl'; micro-batch 1
    (config_A100x1x8.py), sequence 8192, global batch 512 ('globalbatchsize=4M tokens'); table row 'A100单机8卡
    （1x8）| bf16 | PP2DP4TP1 | / | 3698.7 | True(作为基线) | 76/80 | 56.9%' (the row is labelled A100 but the
    hardware section names the A800; MFU 56.9% = 3698.7 x 6 x 8e9 / 312e12, run_pretraining.py's formula with
    the 312 TFLOP/s of config_A100x1x8.py). config_A100x1x8.py @5744755a: localbs 1, tensor_parallel 1,
    pipeline_parallel 2. Model and flags: training/benchmarks/llama3_8B/megatron/pretrain_llama3.sh @8f45ae0a
    (the one stored version, not pinned to the README's commit): 32 layers, hidden 4096, ffn 14336, 32 heads,
    8 query groups, swiglu, RMSNorm, seq 8192, global batch 512, micro-batch 1, --bf16,
    --use-distributed-optimizer, --use-flash-attn, transformer_engine. That stored script has no recompute
    flag; the README's 'recompute-activations' (Megatron's selective recompute of the attention core) is
    used. INFERRED: vocab 128256 (Llama 3 tokenizer), zero 1 from the stored script's distributed optimizer.
    The same README's H100 rows (PP1DP4TP2, 8103 / 10486 tokens/GPU/s) are not export GPUs: not here.
F2. FlagPerf training/nvidia/llama2_70B-megatron/README.md @0171acaa. FACT: 'NVIDIA H800(80G)',
    'NVIDIA_H800-80GB', 'InfiniBand, 200Gb/s', 'FlagScale.git@6fc099c', 'flash attention 2'; LBS 1, MPE 4096,
    GAS 44; rows 'H800单机8卡（4x8）| amp | TP8PP4DP1 | / | 641.93 | 5.7 | 62/80 | 27.2%' and '| amp | TP4PP8DP1 | /
    | 791.37 | 5.6 | 74/80 | 33.6%' (the later README @f1df6eca titles them 'H800四机32卡（4x8）', 32 GPUs). Same
    commit: config/config_H800x4x8.py (seqlength 4096, batchsize 1, accumulate_steps 44, flashattn True,
    recompute False, tensor_parallel 8, pipeline_parallel 4: the TP8PP4 row), benchmarks/llama2_70B/megatron/
    run_pretraining.py (gbs = batchsize x GPUs x accumulate_steps / (tp pp) = 44; tokens/p/s = gbs x seq /
    Megatron's 'elapsed time per iteration' / GPUs; MFU uses 70e9 x 6 / 989e12) and megatron_main.sh (80
    layers, hidden 8192, 64 heads, 8 query groups, ffn 28672, swiglu, RMSNorm, --sequence-parallel,
    --use-distributed-optimizer, --use-flash-attn, --bf16, untied embeddings). The script at that commit lacks
    the 'fi' closing its recompute 'if' (fixed by @1357ece4, otherwise identical): the flags are read as the
    fixed script has them. INFERRED: 'amp' = BF16 (the script passes --bf16 whatever the row says), vocab
    32000 (Llama 2 tokenizer; Megatron pads the embedding to 32256 at TP 4 and 32768 at TP 8, not modelled).
    Left out: the 'fp32, recompute=True' row (253.61): dse has no fp32 precision, and the script passes --bf16.
F3. FlagPerf training/nvidia/qwen1.5_MoE-megatron/README.md @32f1a7a7 (same numbers @ecd6f1f9). FACT: DGX
    A800, 'NVIDIA_A800-SXM4-80GB', 'Megatron-LM-240405' (Pai-Megatron-Patch), 'flash attention 2', LBS 1, MPE
    8192, global batch 512, rows 'A800单机8卡（1x8）| bf16 | TP1PP2DP4 | / | 7450.7 | 8.53 | 66/80 | 32.95%' and
    '| fp16 | TP1PP2DP4 | / | 7537.7 | 8.59 | 59/80 | 33.33%'. Model and flags: training/benchmarks/
    qwen1.5_MoE/megatron/megatron_pai_main.sh @04c97573 ('Runs Qwen1.5 14B(8*1.8B) MoE model on 8xA800
    GPUs'): 24 layers, hidden 2048, 16 heads (no query groups), ffn 5504, swiglu, 8 experts top-2,
    --expert-model-parallel-size 1, Qwen2Tokenizer + 293 extra tokens, --use-flash-attn,
    --recompute-activations, --use-distributed-optimizer, --sequence-parallel (no effect at TP 1); MFU in
    run_pretraining.py = tokens/p/s x 6 x 2.3e9 / 312e12. The script has 20 stored versions; the latest
    (@7a47c36b) is a 12-layer, 2-iteration debugging copy on another user's paths; the 24-layer version is
    the one whose name and MFU constant (2.3e9 active parameters) fit the README. INFERRED: vocab 151936
    (151643 + 293), the script version.
M.  MegaScale-MoE (Jin et al., EuroSys '26, arXiv 2505.11432; text as stored, search id 62112311081). FACT:
    Table 2 'Internal-352B | 60 | 4096 | 32 | 4 | 14336 | 32 | 3' (#layers, h, #heads, m, h_ffn, #experts,
    top-k), Table 1 'm: the ratio between the number of query heads and that of key-value heads' (so 8 KV
    heads), Fig. 8/9 a SwiGLU expert (fc1, fc3, SiLU, fc2); Sec. 6: 'evaluation is conducted on NVIDIA H800
    GPUs', 'Megatron-LM on GitHub with commit hash f1f03922', 'the same global batch size for Megatron-LM and
    MegaScale-MoE', 'Megatron-LM adopts TP within each node, with both systems configured with a PP size of
    15', 'a TP size of 8 forces EP to operate across nodes, incurring more communication costs than PP',
    'both systems ... enable the communication-computation overlap techniques from MegaScale for data and
    pipeline parallelism', 'Sequence length is 8,192 and vocabulary size is 65,536', 'keeping the global
    batch size fixed at 720'; Table 3 (Megatron-LM rows): 240 GPUs 39.94 s 151.1k tokens/s 76.61 days per 1T
    tokens; 480: 19.56, 301.1k, 38.38; 720: 13.70, 430.5k, 26.88; 960: 10.82, 550.2k, 21.23; 1440: 7.90, 746.6k,
    15.50. INFERRED: dp = GPUs / (8 x 15), ep 1 (experts sharded over the TP group: the text says TP 8 would
    put EP across nodes and PP was chosen instead), sp true (Megatron-core MoE needs sequence parallelism
    with TP), micro-batch 1, vpp 1, no recompute (the text: TP 1 would need 'slow recomputation'), zero 1,
    BF16 ('widely-used BF16 mixed-precision training'; Table 3 does not name a precision), token dropping
    not stated (dse's balanced routing). Table 2's shapes give about 341B parameters, not 352B, and with
    them the MegaScale-MoE rows' stated 32.48% MFU at 240 GPUs needs ~1.2x the model FLOPs 6N + attention
    gives: the paper's FLOP count (or the model) holds something Table 2 does not show.
S.  LMSYS blog 'Together with SGLang: Best Practices for Serving DeepSeek-R1 on H20-96G' (Ant Group,
    2025-09-26), lm-sys/lm-sys.github.io blog/2025-09-26-sglang-ant-group.md @2896b379. FACT: 'SGLang version:
    v0.5.2'; 'each node achieves 16.5k input tokens per second and 5.7k output tokens per second on 4096-token
    input sequences'; prefill 'deployed on a 1-node setup (8x H20 GPUs)', '--tp-size 8', benchmark
    '--num-prompt 512 --random-input 4096 --random-output 1 --dataset-name random --random-range-ratio 1',
    'Input token throughput ... normalize the results to a per-GPU basis', optimizations MHA/MLA switch, MoE
    (block 'b_scale', i.e. block-FP8 weights), QKV, 'Fa3-FP8: ... FP8 quantization in the attention module';
    decode 'deployed on a 2-node setup (16x H20 GPUs)', '--tp-size 16 --dp-size 16 --enable-dp-attention
    --enable-deepep-moe --deepep-mode low_latency --speculative-algorithm NEXTN --speculative-num-steps 1
    --speculative-eagle-topk 1 --speculative-num-draft-tokens 2', benchmark '--random-input 4096
    --random-output 1536 --random-range-ratio 1', metric 'the median throughput from 100 samples at the same
    batch size' of the 'Decode batch' log lines; optimizations FP8 MLA, SwapAB GEMM, SBO (single-batch
    overlap: 'Why not TBO'), Expert Affinity EPLB with asynchronous adjustment ('>70% load balance ratio');
    MTP: '(steps=1, topK=1, draft-tokens=2) -> Accept length ~ 1.8-1.9', '(steps=2, topK=1, draft-tokens=3) ->
    Accept length ~ 2.4-2.7'; table 'InferX Base | 48 | 1 | 1 | 2 | 714', 'InferX Pro | 32 | 1 | 1 | 2 | 675',
    'InferX Max | 12 | 2 | 1 | 3 | 423' (batch size per GPU, steps, eagle-topk, draft tokens, throughput per
    GPU tokens/s), 'All Decode instances are deployed with a dual-node setup: Attention-DP16 + MoE-EP16'; EP
    study: 'at BS=8, EP32 delivers 293 token/s vs. 278 token/s for EP16', 'at BS=32, EP16 achieves 675 token/s
    vs. 585 token/s for EP32'. INFERRED: FP8 weights (deepseek-ai/DeepSeek-R1's block-FP8 checkpoint; the
    blog's FP8 DeepGEMM/b_scale work), FP8 KV cache for the final numbers (FP8 MLA / FA3-FP8), the prefill
    token budget 8,192 (SGLang's default chunked_prefill_size for the H20's memory class: server_args.py '#
    H20. (chunked_prefill_size 8k ...)'), DeepEP's FP8 low-latency dispatch with a BF16 combine, expert load
    1.12 (build_disaggregated.py's EPLB figure; the blog bounds it at 1/0.7 = 1.43), 256 experts (no
    redundant-expert count stated), the MTP setting of the EP-study runs (the BS-32 EP16 figure equals the
    Pro row's 675, so (1, 1, 2)), draft acceptance from the accept length (below).
    Speculative decoding in dse: speculative_tokens k draft tokens a step, each accepted with probability p
    given the ones before it, so the accept length is 1 + p + ... + p^k. 'draft-tokens 2' with one step is one
    draft token (k = 1): accept length 1.85 (the middle of 1.8-1.9) gives p = 0.85; two steps (k = 2): 2.55
    (middle of 2.4-2.7) gives p = 0.842 (1 + p + p^2 = 2.55).

FlagPerf's MFU column counts 6 x a nominal parameter count (8e9, 70e9, 2.3e9) per token and no attention
FLOPs, not the case format's model FLOPs: it is quoted in the notes, not written under ``also.mfu``.

Left out (and why):
- FlagPerf llama2_70B 'fp32 recompute=True' row (no fp32 precision in dse; the script passes --bf16 anyway);
  the later README's fourth row 'GAS=1024 (GBS=1024)' prints exactly the TP4PP8 row's 791.37 / 33.6% again
  (a copy, not a second measurement).
- FlagPerf mixtral_8x7B-megatron (README: 'NVIDIA DGX H100' with 'NVIDIA_A800-SXM4-80GB', empty token/p/s
  cell, only 'MFU 16%'), mixtral_7b-megatron ('-' in every cell), qwen1.5_14B_MoE-megatron (no result
  table), aquila2_7b-flagscale-nvidia (empty row), llama2_7b-megatron-deepspeed (A100 40GB, not an export
  GPU), llama3_70B-megatron (H100, not an export GPU); the H100 rows of the llama3_8B README (not export GPUs).
- MegaScale-MoE's own rows (SP attention, in-node EP, fused tile-level overlap, MegaScale scheduling: a
  system dse does not model), the weak-scaling runs and the Mixtral-8x7B runs on 32 H800 / H20 / A100
  (figures only: Fig. 12, Fig. 13), the Table 5 ablation (normalized).
- SGLang H20: the prefill per-length bars (1K/2K/4K, a plot), the BS-32 MTP comparison '675 -> 554 token/s'
  and the BS-1 '43 -> 52 token/s' (both print the same (1, 1, 2) setting for the two runs: a typo, the other
  setting unknown), the per-optimization decode gains (percentages of plotted values).
"""
from __future__ import annotations

import os

from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "export_gpus.jsonl")

# --------------------------------------------------------------------------------------------- sources
FLAGPERF = "FlagOpen/FlagPerf"
F1_SRC = (f"FlagPerf {FLAGPERF} training/nvidia/llama3_8B-megatron/README.md at commit "
          "0e0fc76a3171c0e8952b98f30d37248227bea34e; config/config_A100x1x8.py @5744755a0220a354ee1cccfb88b463e3eae0246a; "
          "training/benchmarks/llama3_8B/megatron/pretrain_llama3.sh @8f45ae0afdf272c153c8456abf9d247072786c31 and "
          "run_pretraining.py @4218a899087629493d8ac8152256b3bbfc21c072")
F2_SRC = (f"FlagPerf {FLAGPERF} training/nvidia/llama2_70B-megatron/README.md at commit "
          "0171acaa18136b79b43dedf479f6287552377c9a, with config/config_H800x4x8.py, "
          "training/benchmarks/llama2_70B/megatron/run_pretraining.py and megatron_main.sh at the same commit "
          "(megatron_main.sh as fixed @1357ece449c66baed5c3498ddf5d1218f74eef3d)")
F3_SRC = (f"FlagPerf {FLAGPERF} training/nvidia/qwen1.5_MoE-megatron/README.md at commit "
          "32f1a7a7299e8f76190e74fce111d5b0afceb1f9 (same rows @ecd6f1f923493bb57fe227699a0f70cc3bab5fdf); "
          "training/benchmarks/qwen1.5_MoE/megatron/megatron_pai_main.sh @04c97573c9c7034352b1d91fc4bc29b009469317 "
          "and run_pretraining.py @04c97573")
M_SRC = ("Jin et al., 'MegaScale-MoE: Large-Scale Communication-Efficient Training of Mixture-of-Experts Models in "
         "Production' (EuroSys '26, arXiv 2505.11432), Table 3 (Megatron-LM rows), Table 2 (Internal-352B), Sec. 6.1")
S_SRC = ("LMSYS blog 'Together with SGLang: Best Practices for Serving DeepSeek-R1 on H20-96G' (Ant Group, "
         "2025-09-26; lm-sys/lm-sys.github.io blog/2025-09-26-sglang-ant-group.md at commit "
         "2896b379b78b057b1640124ddc10965775183794)")

# ------------------------------------------------------------------------------------------ model blocks
#: Llama 3 8B (pretrain_llama3.sh: 32 L, h 4096, ffn 14336, 32 heads, 8 groups; vocab of the Llama 3 tokenizer)
LLAMA3_8B = {"name": "Llama 3 8B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
             "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "moe": None}
#: Llama 2 70B (megatron_main.sh: 80 L, h 8192, 64 heads, 8 groups, ffn 28672; Llama 2 tokenizer 32000)
LLAMA2_70B = {"name": "Llama 2 70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
              "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 32000, "moe": None}
#: FlagPerf's 'Qwen1.5 14B(8*1.8B) MoE' (megatron_pai_main.sh: Qwen1.5-1.8B shapes with 8 experts, top-2)
QWEN15_8X18B = {"name": "Qwen1.5 8x1.8B MoE (FlagPerf qwen1.5_14B_MoE)", "family": "moe", "layers": 24,
                "hidden": 2048, "heads": 16, "kv_heads": 16, "head_dim": None, "ffn_hidden": 5504,
                "ffn_act": "swiglu", "vocab": 151936,
                "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 5504, "shared_experts": 0,
                        "dense_layers": 0}}
#: MegaScale-MoE Table 2 'Internal-352B' (m = 4 query heads per KV head: 8 KV heads; SwiGLU experts)
INTERNAL_352B = {"name": "Internal-352B (MegaScale-MoE)", "family": "moe", "layers": 60, "hidden": 4096,
                 "heads": 32, "kv_heads": 8, "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu",
                 "vocab": 65536,
                 "moe": {"experts": 32, "top_k": 3, "expert_ffn_hidden": 14336, "shared_experts": 0,
                         "dense_layers": 0}}
#: DeepSeek-R1 = DeepSeek-V3 architecture: build_disaggregated.py's block (dse preset deepseek-v3)
from build_disaggregated import DSV3  # noqa: E402

A800 = "A800-SXM-80GB"
H800 = "H800-SXM-80GB"
H20 = "H20"


def with_seq(block: dict, seq_len: int) -> dict:
    """The model block with seq_len after vocab (nested dicts copied)."""
    out = {}
    for k, v in block.items():
        out[k] = dict(v) if isinstance(v, dict) else v
        if k == "vocab":
            out["seq_len"] = seq_len
    return out


def train_case(*, id, source, reliability, precision, block, seq, gpu, n, tp, pp, ep=1, sp, zero, recompute, mbs,
               gbs, vpp=1, training=None, metric, value, also, inferred, notes) -> dict:
    assert n % (tp * pp) == 0, id
    dp = n // (tp * pp)
    assert gbs % (mbs * dp) == 0, (id, "global batch must split into whole microbatches per replica")
    parallel = {"tp": tp, "pp": pp, "dp": dp, "cp": 1, "ep": ep, "sp": sp, "vpp": vpp, "zero": zero,
                "recompute": recompute, "microbatch": mbs, "global_batch": gbs}
    return {"id": id, "source": source, "reliability": reliability, "workload": "train", "precision": precision,
            "model": with_seq(block, seq), "cluster": {"gpu": gpu, "num_gpus": n, "gpus_per_node": 8},
            "parallel": parallel, **({"training": training} if training else {}), "inference": None,
            "target": {"metric": metric, "value": value}, "also": also,
            "inferred": sorted(set(inferred) | {"parallel.dp", "parallel.cp"}), "notes": " ".join(notes)}


# -------------------------------------------------------------------------------------------------- F1
F1_TPS = 3698.7    # FACT: token/p/s, row 'A100单机8卡（1x8）| bf16 | PP2DP4TP1'
F1_MFU = 0.569     # FACT: '56.9%'
F1_MEM = "76/80"   # FACT: mem GiB


def f1_cases():
    yield train_case(
        id="flagperf_a800x8_llama3-8b_megatron_pp2dp4tp1_mbs1_gbs512_bf16", source=F1_SRC, reliability="B",
        precision="bf16", block=LLAMA3_8B, seq=8192, gpu=A800, n=8, tp=1, pp=2, sp=False, zero=1,
        recompute="selective", mbs=1, gbs=512, metric="tokens_per_s_per_gpu", value=F1_TPS,
        also={},
        inferred=["model.vocab", "model.head_dim", "parallel.sp", "parallel.vpp", "parallel.zero",
                  "cluster.gpus_per_node"],
        notes=["FlagPerf Llama-3-8B pre-training case, megatron-core core_v0.6.0 with Transformer Engine, on one DGX "
               "A800 (8 x A800-SXM4-80GB; InfiniBand 200 Gb/s between nodes, unused here): PP2 DP4 TP1, micro-batch 1, "
               "sequence 8192, global batch 512 (= 4M tokens; 128 microbatches per replica), BF16, flash attention 2, "
               "'recompute-activations' (Megatron's selective recompute of the attention core: parallel.recompute "
               "selective, dse's default recompute_modules [core_attn]). Measured 3698.7 tokens/s per GPU, MFU "
               "56.9% (3698.7 x 6 x 8e9 / 312e12: 8B parameters, no attention FLOPs), memory 76/80 GiB. The table "
               "labels the row 'A100单机8卡' (FlagPerf's baseline name) while the hardware section names the A800.",
               "tokens/s per GPU = 512 x 8192 / Megatron's 'elapsed time per iteration' / 8 (run_pretraining.py; the "
               "last logged iteration of 300).",
               "Model and flags from the stored pretrain_llama3.sh (one version, not pinned to the README's "
               "commit): --use-distributed-optimizer (zero 1), --sequence-parallel (no effect at TP 1: sp false), "
               "no recompute flag there (the README's optimization list is followed). vocab 128256 (Llama 3 "
               "tokenizer, not in the script)."])


# -------------------------------------------------------------------------------------------------- F2
#: FACT: rows of the README @0171acaa: (tp, pp, tokens/p/s, MFU, mem GiB)
F2_RUNS = [(8, 4, 641.93, 0.272, "62/80"), (4, 8, 791.37, 0.336, "74/80")]
F2_GAS = 44        # FACT: 'GAS ... 默认为44'; config accumulate_steps 44


def f2_cases():
    for tp, pp, tps, mfu, mem in F2_RUNS:
        gbs = 1 * 32 * F2_GAS // (tp * pp)
        yield train_case(
            id=f"flagperf_h800x32_llama2-70b_flagscale_tp{tp}pp{pp}dp1_mbs1_gbs{gbs}_bf16", source=F2_SRC,
            reliability="B", precision="bf16", block=LLAMA2_70B, seq=4096, gpu=H800, n=32, tp=tp, pp=pp, sp=True,
            zero=1, recompute="none", mbs=1, gbs=gbs, metric="tokens_per_s_per_gpu", value=tps, also={},
            inferred=["precision", "model.vocab", "model.head_dim", "parallel.vpp", "cluster.gpus_per_node"]
            + ([] if (tp, pp) == (8, 4) else ["parallel.recompute"]),
            notes=[f"FlagPerf Llama-2-70B pre-training case on 4 nodes of 8 H800 (80 GB; 'InfiniBand, 200Gb/s' per "
                   f"node or per NIC not stated: dse's H800 preset, 400 Gb/s per GPU; with DP 1 only the pipeline's "
                   f"activations cross nodes), FlagScale@6fc099c (Megatron-LM based): TP{tp} PP{pp} DP1, micro-batch "
                   f"1, sequence 4096, gradient accumulation 44 -> global batch 44 (run_pretraining.py: gbs = 1 x 32 x "
                   f"44 / (tp x pp)), flash attention 2, sequence parallel, distributed optimizer, no recompute "
                   f"(fix_hp '/'; config recompute False). Measured {tps} tokens/s per GPU, MFU {mfu:.1%} "
                   f"(70e9 x 6 / 989e12 per token), memory {mem} GiB.",
                   "Precision: the row says 'amp'; megatron_main.sh passes --bf16 (also on the row labelled fp32): "
                   "BF16. The config at this commit holds the TP8 PP4 plan; the TP4 PP8 row's plan is the table's. "
                   "80 layers over PP 8: 10 a stage. vocab 32000 (Megatron pads the embedding to a multiple of 128 x "
                   "TP: not modelled)."])


# -------------------------------------------------------------------------------------------------- F3
#: FACT: (precision, tokens/p/s, MFU, mem GiB)
F3_RUNS = [("bf16", 7450.7, 0.3295, "66/80"), ("fp16", 7537.7, 0.3333, "59/80")]


def f3_cases():
    for prec, tps, mfu, mem in F3_RUNS:
        yield train_case(
            id=f"flagperf_a800x8_qwen1.5-8x1.8b-moe_megatron_tp1pp2dp4_mbs1_gbs512_{prec}", source=F3_SRC,
            reliability="B", precision=prec, block=QWEN15_8X18B, seq=8192, gpu=A800, n=8, tp=1, pp=2, sp=False,
            zero=1, recompute="selective", mbs=1, gbs=512, metric="tokens_per_s_per_gpu", value=tps,
            also={},
            inferred=["model.vocab", "model.head_dim", "model.layers", "model.moe", "parallel.sp", "parallel.vpp",
                      "parallel.zero", "parallel.recompute", "parallel.ep", "cluster.gpus_per_node"],
            notes=[f"FlagPerf 'qwen1.5_14B_MoE' pre-training case (Pai-Megatron-Patch on Megatron-LM-240405) on one "
                   f"DGX A800 (8 x A800-SXM4-80GB): TP1 PP2 DP4, micro-batch 1, sequence 8192, global batch 512 (128 "
                   f"microbatches per replica), {prec.upper()}, flash attention 2. Measured {tps} tokens/s per GPU "
                   f"(MFU {mfu:.2%} = tokens/p/s x 6 x 2.3e9 / 312e12), memory {mem} GiB, 100 iterations.",
                   "Model (megatron_pai_main.sh @04c97573, 'Qwen1.5 14B(8*1.8B) MoE'): Qwen1.5-1.8B shapes (24 L, "
                   "h 2048, 16 heads without query groups, ffn 5504, QKV bias, untied embeddings) with every FFN "
                   "made 8 experts of 5504, top-2, aux-loss balancing, expert parallel 1 (all experts on every "
                   "GPU); vocab 151643 + 293 extra = 151936. Flags: --recompute-activations (selective), "
                   "--use-distributed-optimizer, --sequence-parallel (no effect at TP 1). The script has 20 stored "
                   "versions; this one (not pinned to the README) is the one whose model name and the MFU constant "
                   "2.3e9 fit the README."])


# --------------------------------------------------------------------------------------------------- M
#: FACT: Table 3, Megatron-LM rows: GPUs -> (iteration time s, tokens/s, days per 1T tokens)
M_RUNS = {240: (39.94, 151.1e3, 76.61), 480: (19.56, 301.1e3, 38.38), 720: (13.70, 430.5e3, 26.88),
          960: (10.82, 550.2e3, 21.23), 1440: (7.90, 746.6e3, 15.50)}
M_GBS, M_SEQ, M_TP, M_PP = 720, 8192, 8, 15   # FACT: global batch 720, sequence 8192, TP in node (8), PP 15


def m_cases():
    for n, (it, tps, days) in M_RUNS.items():
        dp = n // (M_TP * M_PP)
        it_from_tps = M_GBS * M_SEQ / tps
        yield train_case(
            id=f"megascale-moe_megatron-lm_h800x{n}_internal-352b_tp8pp15dp{dp}_gbs720", source=M_SRC,
            reliability="B", precision="bf16", block=INTERNAL_352B, seq=M_SEQ, gpu=H800, n=n, tp=M_TP, pp=M_PP,
            sp=True, zero=1, recompute="none", mbs=1, gbs=M_GBS, metric="tokens_per_s_per_gpu",
            value=round(tps / n, 2), also={"tokens_per_s": tps, "iter_time_s": it},
            inferred=["precision", "parallel.ep", "parallel.sp", "parallel.zero", "parallel.recompute",
                      "parallel.microbatch", "parallel.vpp", "model.head_dim", "cluster.gpus_per_node"],
            notes=[f"MegaScale-MoE's Megatron-LM baseline (commit f1f03922) for the Internal-352B MoE on {n} H800 "
                   f"({n // 8} nodes of 8): TP 8 inside each node for every component, PP 15 (60 layers, 4 a stage), "
                   f"dp = {n} / 120 = {dp}; sequence 8192, global batch 720 sequences fixed (strong scaling); "
                   f"MegaScale's data- and pipeline-parallel overlap on. Measured (Table 3) {tps / 1e3:.1f}k "
                   f"tokens/s for the job, iteration {it} s, {days} days per 1T tokens; target = tokens/s / {n}.",
                   f"The throughput and days columns agree (1e12 / tokens/s); the iteration time gives "
                   f"720 x 8192 / {it} = {M_GBS * M_SEQ / it / 1e3:.1f}k tokens/s"
                   + (" (2.3% below the throughput column at 240 GPUs, 0.9% at 960: the throughput is taken)"
                      if abs(it / it_from_tps - 1) > 0.005 else " (agrees)") + ".",
                   "Plan details not stated: expert parallelism 1 (the paper: TP 8 'forces EP to operate across "
                   "nodes, incurring more communication costs than PP', so the experts are sharded over the TP "
                   "group), sequence parallel on (Megatron-core requires it for MoE with TP), micro-batch 1 "
                   f"({M_GBS // dp} microbatches per pipeline), no interleaving (vpp 1), no recompute (the paper: only "
                   "TP 1 would need 'slow recomputation'), distributed optimizer (zero 1), BF16 (the paper's 'BF16 "
                   "mixed-precision training'), balanced routing (aux loss / dropping not stated for the baseline).",
                   "Model (Table 2): 60 layers, h 4096, 32 heads with m = 4 query heads per KV head (8 KV heads), "
                   "32 SwiGLU experts of 14336, top-3, vocab 65,536. These shapes give ~341B parameters (the paper "
                   "says 352B), and MegaScale-MoE's stated 32.48% MFU at 240 GPUs (272.9k tokens/s) needs ~1.2x the "
                   "6N + attention FLOPs of these shapes: the paper's model or FLOP count holds more than Table 2 "
                   "shows."])


# --------------------------------------------------------------------------------------------------- S
S_PREFILL_PER_NODE = 16500.0   # FACT: '16.5k input tokens per second' per node, 4096-token inputs
S_OUTPUT_PER_NODE = 5700.0     # FACT: '5.7k output tokens per second' per node
S_PREFILL_TOKENS = 8192        # INFERRED: SGLang's chunked_prefill_size default for the H20 memory class
#: FACT: service table and EP study: (GPUs, batch per GPU, MTP steps, draft tokens, output tokens/s per GPU, label)
S_DECODE = [
    (16, 48, 1, 2, 714.0, "InferX Base row"),
    (16, 32, 1, 2, 675.0, "InferX Pro row (and the EP study's BS=32 EP16 figure)"),
    (16, 12, 2, 3, 423.0, "InferX Max row"),
    (16, 8, 1, 2, 278.0, "EP study, BS=8, EP16"),
    (32, 8, 1, 2, 293.0, "EP study, BS=8, EP32"),
    (32, 32, 1, 2, 585.0, "EP study, BS=32, EP32"),
]
#: FACT: accept length by MTP steps: 1 step (draft tokens 2) 1.8-1.9, 2 steps (draft tokens 3) 2.4-2.7
S_ACCEPT = {1: (1.8, 1.9), 2: (2.4, 2.7)}
EPLB_IMBALANCE = 1.12          # INFERRED: build_disaggregated.py's EPLB figure (TensorRT-LLM's DeepSeek-R1 EPLB)


def acceptance(steps: int) -> float:
    """p such that 1 + p + ... + p^steps equals the middle of the stated accept-length range (bisection)."""
    lo_len, hi_len = S_ACCEPT[steps]
    target = (lo_len + hi_len) / 2
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if sum(mid ** i for i in range(steps + 1)) < target:
            lo = mid
        else:
            hi = mid
    return round((lo + hi) / 2, 3)


S_COMMON = ("SGLang v0.5.2 (Ant Group's build) serving DeepSeek-R1 on H20-96G nodes of 8, prefill and decode "
            "instances measured apart (sglang.bench_serving, random prompts of fixed length: "
            "--random-range-ratio 1). FP8 weights (DeepSeek-R1's block-FP8 checkpoint; the blog's FP8 DeepGEMM "
            "and block 'b_scale' work): precision fp8 (not stated as such).")


def s_case(*, id, n, plan, inference, metric, value, also, inferred, notes, reliability="B") -> dict:
    tp, dp, ep = plan
    inf = {"batch": None, "concurrency": None, "mode": "offline_max_throughput"}
    inf.update(inference)
    seq = inf["input_len"] + inf["output_len"]
    return {"id": id, "source": S_SRC, "reliability": reliability, "workload": "inference", "precision": "fp8",
            "model": with_seq(DSV3, seq), "cluster": {"gpu": H20, "num_gpus": n, "gpus_per_node": 8},
            "parallel": {"tp": tp, "pp": 1, "dp": dp, "cp": 1, "ep": ep, "sp": False, "vpp": 1, "zero": 0,
                         "recompute": "none", "microbatch": None, "global_batch": None},
            "inference": inf, "target": {"metric": metric, "value": value}, "also": also,
            "inferred": sorted(set(inferred) | {"model.seq_len", "precision"}),
            "notes": " ".join([S_COMMON, *notes, "Model block: dse preset deepseek-v3 (deepseek-ai/DeepSeek-V3 "
                               "config.json; R1 has the same architecture), as build_disaggregated.py; seq_len = "
                               "input + output."])}


def s_cases():
    per_gpu = S_PREFILL_PER_NODE / 8
    yield s_case(
        id="sglang-ant_h20x8_dsr1_prefill_tp8_isl4096", n=8, plan=(8, 1, 1),
        inference={"input_len": 4096, "output_len": 1, "phase": "prefill", "max_num_tokens": S_PREFILL_TOKENS,
                   "kv_cache_dtype": "fp8"},
        metric="input_tokens_per_s_per_gpu", value=per_gpu, also={"input_tokens_per_s": S_PREFILL_PER_NODE},
        inferred=["inference.max_num_tokens", "inference.kv_cache_dtype"],
        notes=["Prefill instance: one node of 8 H20, '--tp-size 8' (attention and experts tensor-parallel over "
               "the node, no expert parallelism), FA3 attention; benchmark 512 prompts of 4096 tokens, output 1, "
               "'Input token throughput' per GPU. Measured: 'each node achieves 16.5k input tokens per second ... on "
               "4096-token input sequences' with every prefill optimization (MHA/MLA switch, MoE kernel tuning, "
               "fused QKV/reduce-scatter path, FA3-FP8): target 16,500 / 8 = 2,062.5 per GPU (the per-length "
               "bars are a plot).",
               "Token budget 8,192 prompt tokens an iteration (two prompts): not stated; SGLang's default "
               "chunked_prefill_size for the H20's memory class ('# H20. (chunked_prefill_size 8k ...)' in "
               "server_args.py). KV cache FP8 (FA3-FP8 'introducing FP8 quantization in the attention module'): "
               "inferred. output_len 1: a prefill instance emits only the first token."])
    for n, batch, steps, drafts, tps, label in S_DECODE:
        assert drafts == steps + 1  # topk 1: draft tokens = steps + 1 (the verified token)
        p = acceptance(steps)
        lo_len, hi_len = S_ACCEPT[steps]
        ep_study = label.startswith("EP study")
        inferred = ["inference.kv_cache_dtype", "inference.moe_dispatch_dtype", "inference.moe_load_imbalance",
                    "inference.draft_acceptance", "model.moe.experts"]
        if ep_study:
            inferred += ["inference.speculative_tokens", "inference.single_batch_overlap"]
        also = {"tokens_per_s": tps * n}
        yield s_case(
            id=f"sglang-ant_h20x{n}_dsr1_decode_dp{n}ep{n}_isl4096_osl1536_b{batch}_mtp{steps}",
            n=n, plan=(1, n, n),
            inference={"input_len": 4096, "output_len": 1536, "batch": batch, "phase": "decode",
                       "kv_cache_dtype": "fp8", "moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8",
                       "two_batch_overlap": False, "single_batch_overlap": True,
                       "moe_load_imbalance": EPLB_IMBALANCE, "speculative_tokens": steps, "draft_acceptance": p},
            metric="tokens_per_s_per_gpu", value=tps, also=also, inferred=inferred,
            notes=[f"Decode instance ({label}): {n // 8} nodes = {n} H20, attention data parallel {n} with MoE "
                   f"expert parallel {n} ('--tp-size {n} --dp-size {n} --enable-dp-attention --enable-deepep-moe "
                   f"--deepep-mode low_latency'; tp 1, dp {n}, ep {n}), 256 experts ({256 // n} a GPU; no redundant "
                   f"experts stated). Batch {batch} sequences per GPU (per attention-DP rank), prompts of 4096 and "
                   f"outputs of 1536 tokens. Measured {tps:g} output tokens/s per GPU: the median of 100 'Decode "
                   f"batch' log samples at that batch size.",
                   f"MTP (NEXTN) with {steps} step{'s' if steps > 1 else ''}, eagle-topk 1, {drafts} draft tokens: "
                   f"speculative_tokens {steps}; the blog's accept length {lo_len}-{hi_len} (middle "
                   f"{(lo_len + hi_len) / 2:g}) = 1 + p" + (" + p^2" if steps == 2 else "") + f" gives "
                   f"draft_acceptance {p}; the MTP module costs one layer (dse's draft_layers 1)."
                   + (" The EP study's MTP setting is not printed: (1, 1, 2) taken, since its BS=32 EP16 figure "
                      "equals the Pro row's 675." if ep_study else ""),
                   "Engine: DeepEP low-latency dispatch, FP8 (SGLang's use_fp8 default) with a BF16 combine; "
                   "single-batch overlap (SBO: dispatch receive under the shared expert, combine send under the "
                   "down GEMM; the blog: 'Why not TBO'); FP8 MLA decode kernel and FP8 KV cache (the blog's FP8 "
                   "MLA, applied in the final deployment: inferred for these figures); SwapAB DeepGEMM. Expert "
                   "load: Expert-Affinity EPLB with asynchronous rebalancing, '>70% load balance ratio' (max/mean "
                   f"below 1.43): moe_load_imbalance {EPLB_IMBALANCE} as build_disaggregated.py's EPLB cases."
                   + (f" Headline: 5.7k output tokens/s per node on 4096-token inputs = {S_OUTPUT_PER_NODE / 8:g} "
                      "per GPU, the same deployment." if (n, batch) == (16, 48) else "")
                   + (f" EP32: 4 nodes, {n} ranks; the blog: 'With DeepEP, ~50% of MoE traffic stays on NVLink at "
                      "EP16 but only ~25% at EP32'." if n == 32 else "")])


def main() -> None:
    cases = [*f1_cases(), *f2_cases(), *f3_cases(), *m_cases(), *s_cases()]
    write_cases(cases, OUT)


if __name__ == "__main__":
    main()
