#!/usr/bin/env python3
"""Write validation/disaggregated.jsonl: published measurements of disaggregated LLM serving, i.e. of
prefill-only ("context") and decode-only ("generation") instances, as dse serving cases of
``inference.phase: prefill`` / ``decode`` (and ``disaggregated`` where a whole deployment was measured
offline: none was found, see 'Left out').

Usage: python validation/build_disaggregated.py   (no network: every number below was read from the public
files named in each source block and is kept here as a literal, with its source).

Case format: ../shared/validation/README.md (LLM inference cases) plus dse's inference keys ``phase``,
``max_num_tokens``, ``kv_cache_dtype``, ``quant_scope``, ``request_rate`` (README 'LLM inference',
dse/specs.py InferenceSpec). One case per measured figure; ``inferred`` lists what the source does not state;
``notes`` quote the source.

Sources (FACT = read in the file named; INFERRED = not stated there, listed in each case's ``inferred``):

S1. SGLang team, 'Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100
    GPUs' (2025-05-05), lm-sys/lm-sys.github.io blog/2025-05-05-large-scale-ep.md @2db4e404. DeepSeek-V3 on
    12 nodes of 8 H100 over InfiniBand; prefill and decode "independently evaluated ..., assuming unlimited
    resources for the non-tested phase to isolate and maximize the load on the tested nodes". FACT: prefill on
    4 nodes (EP32) "57,674, 54,543, and 50,302 tokens per second [per node] for prompt lengths of 1K, 2K, and
    4K"; profile table: prefill "Batch Size 16,384" (tokens per device, "16,384 tokens per device and an input
    length of 4,096"), throughput per node 50,302 (default EPLB) and 59,337 ("Simulated Perfect EPLB"), and
    "DeepSeek Profile" 62,713 per node at the same batch and input; decode on 9 nodes (EP72) "22,282 tokens/sec
    per node for 2K inputs", table: batch size 256, KV cache length 2,000, 9 nodes; DP attention (the
    '--moe-dense-tp-size=1' DP dense FFN, DP LM head), DeepEP (normal dispatch for prefill, low-latency for
    decode), DeepGEMM, two-batch overlap, EPLB ("288 experts enables ... parallelism sizes of 12 or 72").
    INFERRED: 1K/2K = 1024/2048 tokens (4K = 4,096 is stated), the prefill token budget 16,384 per GPU for 1K
    and 2K (stated for 4K), 288 experts (32 redundant) on the EP72 decode instance (256 do not split 72 ways),
    256 on EP32, the decode output length 100 (the blog's EPLB case study: "1800 input tokens, 100 output
    tokens, and a batch size of 256"), the BF16 KV cache (SGLang's default; S3 adds FP8 KV 'in addition to the
    traditional BF16'), FP8 weights (deepseek-ai/DeepSeek-V3's FP8 checkpoint: the blog uses DeepGEMM FP8).
S1'. DeepSeek's own prefill profile as S1's table gives it: 62,713 input tokens/s per node, the profile of
    deepseek-ai/profile-data README.md @ae7fc078: "EP32 and TP1 ..., with a prompt length set to 4K and a batch
    size of 16K tokens per GPU", "we simulate an absolutely balanced MoE routing strategy"; DeepSeek's H800
    (H100 silicon with NVLink at 400 GB/s, as scenarios/deepseek_v3_h800.yaml writes it). The decode profile
    (EP128, 128 requests per GPU, 18,598 per node in S1's table) is left out: S1 compares it with its simulated
    MTP run, and whether and how the profile's MTP tokens are counted is not stated.
S2. SGLang team, 'Deploying DeepSeek on GB200 NVL72 with PD and Large Scale EP (Part I)' (2025-06-16),
    lm-sys/lm-sys.github.io blog/2025-06-16-gb200-part-1.md @00766f6b. FACT: "7,583 tokens per second per GPU
    for decoding on the GB200 NVL72 ... for 2,000-token input lengths", "we use 12 nodes [4-GPU trays] for
    decode", "The slow-down API in the previous blog is also used to make decode nodes saturated", FP8
    (Blackwell DeepGEMM "tailored for FP8"). INFERRED: 48 ranks EP48 with 288 experts (ai-dynamo/dynamo
    docs/backends/sglang/dsr1-wideep-gb200.md @da1e0cbd, an 8-GPU example pointing to sglang issue #7227 for
    "the exact configuration shown in the blog post": '--ep-num-redundant-experts 32', DP attention,
    '--moe-dense-tp-size 1', decode '--max-running-requests 36864' = 768 x 48), output 100 (the post's
    batch ablation: "input and output lengths are set to 2000 and 100"), BF16 KV (S3), the batch (not stated:
    the engine's memory-filling batch, left to dse).
S3. SGLang team, '... GB200 NVL72 with PD and Large Scale EP (Part II)' (2025-09-25), lm-sys/lm-sys.github.io
    blog/2025-09-25-gb200-part-2.md @0f320187. FACT: "26,156 input and 13,386 output tokens per second per GPU
    for prefill and decode" with "FP8 attention and NVFP4 MoE" ("the output projection GEMM in attention is also
    optionally quantized to NVFP4 ... we further execute q_b_proj in FP8"), "18,471 input and 9,087 output" with
    "BF16 for attention and FP8 for GEMM", "for 2000-token input sequences"; "For decode, we use 48 ranks ...;
    for prefill, we use 4 ranks per instance for high-precision and 2 for low-precision"; "The batch size is
    chosen to make KV cache roughly full (thus 768 for 4k ISL and 1408 for 2k ISL)"; prefill offloads weights
    to host memory when device memory is insufficient ("Scaling Down by Offloading"). Commands: shifangx/
    Scripts-SGLang @12554455 z.blog2_Low-prec_decode.sh / z.blog2_High-prec_decode.sh ("copied from
    [Instructions for DeepSeek on GB200 #10903]"): decode '--tp-size 48 --dp-size 48', '--cuda-graph-bs 1408'
    and '--max-running-requests 67584' (= 1408 x 48) low precision, '--cuda-graph-bs 768' and
    '--max-running-requests 36864' (= 768 x 48) high precision, '--ep-num-redundant-experts 32',
    '--kv-cache-dtype fp8_e4m3' (low precision only), '--context-length 2176'; prefill '--max-prefill-tokens
    16384'. The scripts' prefill servers are 4 ranks (low) and 8 (high), not the post's 2 and 4: the post's
    counts are used (its figures are per GPU of the instance it names). INFERRED: the decode output length 100
    (S2), 256 experts on the prefill instances, the high-precision decode batch 768 (scripts only).
S4. Mooncake team, 'Deploying Kimi K2 with PD Disaggregation and Large-Scale Expert Parallelism on 128 H200
    GPUs' (2025-07-20), lm-sys/lm-sys.github.io blog/2025-07-20-k2-large-scale-ep.md @09af7eee. FACT: "128
    H200 GPUs with 1P1D (4 nodes/P and 12 nodes/D)", input 2000, output 100, "Decode Batch Size 480", "Prefill
    Throughput 224k tokens/sec (4 P Nodes)", "Decode Throughput 288k tokens/sec (12 D Nodes)" ("56k / node",
    "24k / node"), "96 redundant experts on decode nodes", "We use the same benchmark setup as in the DeepSeek
    R1 deployment blog" (S1: phases measured apart; the two figures are 112 and 2,880 requests/s, so they are
    not one deployment's). INFERRED: EP32 / EP96 with DP attention (S1's design), the prefill token budget
    16,384 per GPU (S1), 480 as sequences per GPU (480 in total would be 600 decode steps/s), FP8 weights
    (moonshotai/Kimi-K2-Instruct's block-FP8 checkpoint) and a BF16 KV cache.
S5. MLPerf Inference v5.1, closed, NVIDIA GB200 NVL72 (72 GPUs), llama3.1-405b Interactive, served
    disaggregated (ykamiset/inference_results_v5.1 @e9ccad4d, a fork of mlcommons/inference_results_v5.1).
    FACT: closed/NVIDIA/code/llama3_1-405b/tensorrt/README.md: "Interactive Scenario with disagg serving using
    NVL 72 ... run_disagg_405B/README.md"; run_disagg_405B/README.md: "num_ctx_servers=14, ctx_tp_size=4,
    ctx_batch_size=128, ctx_max_num_tokens=4096; num_gen_servers=2, gen_tp_size=8, gen_batch_size=1024,
    gen_max_num_tokens=1024, gen_gpu_memory_fraction=0.95", FP4 checkpoint nvidia/Llama-3.1-405B-Instruct-FP4,
    "72 GPUs: server_target_qps = 15.2"; results/GB200-NVL72_GB200-186GB_aarch64x72_TRT/llama3.1-405b/
    Interactive/performance/run_1/mlperf_log_summary.txt: target_qps 15.2, "Scheduled samples per second :
    15.21", "Completed samples per second : 15.18", "Completed tokens per second: 9921.02", mean first token
    latency 1365099450 ns, "Mean Time to Output Token (ns) : 66169012" (99th pct 72155218; limits ttft 4.5 s,
    tpot 80 ms). The whole deployment ran online (LoadGen Poisson arrivals): two cases of the deployment at
    its scheduled rate (phase disaggregated, request_rate 15.21), one targets the mean time per output token,
    one the mean TTFT (the rate shared evenly over the two gen servers: INFERRED). INFERRED: input_len 9,429 (the mean build_mlperf_inference.py reads from a length dump of the data
    set), output_len 654 = 9921.02 / 15.18, the FP8 KV cache (configs/.../Interactive/llama3_1-405b.py
    'kv_cache_dtype': 'fp8'; the disaggregated engine YAML is generated by a script not stored).

Left out (and why):
- TensorRT-LLM tech blog 5 'Disaggregated Serving in TensorRT-LLM' (docs/source/blogs/tech_blog/
  blog5_Disaggregated_Serving_in_TensorRT-LLM.md @012f5755), blogs 8 and 14 (wide EP on GB200): every figure
  is a Pareto plot (PNG), no table of ctx/gen counts with a throughput; no number could be read as text.
- The MLPerf v5.1 open-division GB200 NVL72 Dynamo submission (ntuhpc/inference_results_v5.1 @965182b0
  open/NVIDIA/results/GB200-NVL72_GB200-186GB_aarch64x72_Dynamo/README.md: 9897.52 tokens/s, Interactive;
  14 TP4 prefill + 4 TP4 decode workers per its README): only the online throughput (= offered rate x output)
  is stored, no TPOT; an online whole deployment is not expressible (phase disaggregated is offline).
- S1/S2/S3 runs with simulated MTP ("dummy kernels", assumed acceptance) and read-off-plot points (S2/S3's
  4k-ISL bars, batch ablations); vLLM's 'DeepSeek @ 2.2k tok/s/H200 with Wide-EP' blog and llm-d 0.3 (plots,
  configuration not stated in text); the SGLang H800x104 study (bench_one_batch_server 'input throughput' of
  1.3M tokens/s mixes queueing and is not a per-phase capacity); SGLang's H20 blog (H20: no dse preset);
  ankdeshm/dynamo_disaag_serving_gke (1 x 8 H200, Llama 3.1 70B, 4+4 split: its req/s and tok/s disagree,
  3.51 req/s x 1000 tokens != 1,461 tok/s); Mooncake's A10 tables (no preset); DistServe / Mooncake papers
  (figures).
"""
from __future__ import annotations

import os

from case_files import DEEPSEEK_V3, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "disaggregated.jsonl")

# --------------------------------------------------------------------------------------------- sources
LMSYS = "lm-sys/lm-sys.github.io"
S1_SRC = (f"SGLang blog 'Deploying DeepSeek with PD Disaggregation and Large-scale Expert Parallelism on 96 H100 "
          f"GPUs' (2025-05-05; {LMSYS} blog/2025-05-05-large-scale-ep.md at commit "
          "2db4e4042b31f3c3c9f4f93068ae80946d25a115)")
S1P_SRC = (S1_SRC + "; profile configuration: deepseek-ai/profile-data README.md at commit "
           "ae7fc0780d06b5e51aec4ca3005b03d575209643")
S2_SRC = (f"SGLang blog 'Deploying DeepSeek on GB200 NVL72 with PD and Large Scale EP (Part I)' (2025-06-16; "
          f"{LMSYS} blog/2025-06-16-gb200-part-1.md at commit 00766f6b72b99cccd775561f9f8d31e966e05e3f); plan: "
          "ai-dynamo/dynamo docs/backends/sglang/dsr1-wideep-gb200.md at commit "
          "da1e0cbdf2e0e38ceec9128b0cab12f63878d82d ('Running DeepSeek-R1 Disaggregated with WideEP on GB200s', "
          "an example derived from sglang issue #7227's commands)")
S3_SRC = (f"SGLang blog 'Deploying DeepSeek on GB200 NVL72 with PD and Large Scale EP (Part II)' (2025-09-25; "
          f"{LMSYS} blog/2025-09-25-gb200-part-2.md at commit 0f320187180ab49e752be9dbc2add93adaa7fd55); "
          "commands: shifangx/Scripts-SGLang z.blog2_{Low,High}-prec_decode.sh at commit "
          "125544551ee365e1714c26e9838dbec75895f880 (copies of sglang issue #10903)")
S4_SRC = (f"Mooncake/SGLang blog 'Deploying Kimi K2 with PD Disaggregation and Large-Scale Expert Parallelism on "
          f"128 H200 GPUs' (2025-07-20; {LMSYS} blog/2025-07-20-k2-large-scale-ep.md at commit "
          "09af7eee05b80cbe15a2a29f05a81949564b2548)")
MLP51 = ("ykamiset/inference_results_v5.1", "e9ccad4d681ac32678230a488cd690ef6c8b21fa")
S5_SRC = ("MLPerf Inference v5.1 closed NVIDIA llama3.1-405b Interactive, disaggregated "
          f"({MLP51[0]} @{MLP51[1][:8]}: closed/NVIDIA/results/GB200-NVL72_GB200-186GB_aarch64x72_TRT/llama3.1-405b/"
          "Interactive/performance/run_1/mlperf_log_summary.txt); deployment: closed/NVIDIA/code/llama3_1-405b/"
          "tensorrt/run_disagg_405B/README.md and closed/NVIDIA/code/llama3_1-405b/tensorrt/README.md")

# ------------------------------------------------------------------------------------------ model blocks
#: DeepSeek-V3/R1 (dse preset deepseek-v3: the HF config.json values; R1 and R1-0528 share the architecture)
DSV3 = DEEPSEEK_V3
#: Kimi K2 (dse preset kimi-k2: moonshotai/Kimi-K2-Instruct config.json)
KIMI_K2 = {"name": "Kimi-K2", "family": "moe", "layers": 61, "hidden": 7168, "heads": 64, "kv_heads": 64,
           "head_dim": None, "ffn_hidden": 18432, "ffn_act": "swiglu", "vocab": 163840,
           "moe": {"experts": 384, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 1},
           "mla": {"kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                   "v_head_dim": 128}}
#: Llama 3.1 405B (dse preset llama3-405b; the block of build_mlperf_inference.py)
LLAMA405 = {"name": "Llama 3.1 405B", "family": "dense", "layers": 126, "hidden": 16384, "heads": 128,
            "kv_heads": 8, "head_dim": None, "ffn_hidden": 53248, "ffn_act": "swiglu", "vocab": 128256,
            "moe": None}
MODEL_SRC = {
    "DeepSeek-V3": "model block: dse preset deepseek-v3 (deepseek-ai/DeepSeek-V3 config.json; R1/R1-0528 same "
                   "architecture)",
    "Kimi-K2": "model block: dse preset kimi-k2 (moonshotai/Kimi-K2-Instruct config.json)",
    "Llama 3.1 405B": "model block: dse preset llama3-405b (as build_mlperf_inference.py)",
}


def model(block: dict, seq_len: int, experts: int | None = None) -> dict:
    """The model block with seq_len after vocab and, for a redundant-expert placement, the physical
    expert count (original experts + redundant copies: what each GPU holds and EP splits)."""
    out = {}
    for k, v in block.items():
        out[k] = dict(v) if isinstance(v, dict) else v
        if k == "vocab":
            out["seq_len"] = seq_len
    if experts is not None:
        out["moe"]["experts"] = experts
    return out


def parallel(tp: int, dp: int, ep: int) -> dict:
    return {"tp": tp, "pp": 1, "dp": dp, "cp": 1, "ep": ep, "sp": False, "vpp": 1, "zero": 0, "recompute": "none",
            "microbatch": None, "global_batch": None}


#: The busiest expert-parallel rank's routed tokens over the mean under a load balancer with
#: redundant experts: TensorRT-LLM's DeepSeek-R1 statistics over 36 ranks with 32 redundant experts,
#: imbalance ratio (max - mean) / mean 0.115 (examples/wide_ep/ep_load_balancer/README.md); no run
#: here logs its own.
EPLB_IMBALANCE = 1.12
BALANCE_NOTES = {
    "eplb": ("Expert load: EPLB with redundant experts; the busiest rank's routed tokens over the mean are not "
             "stated: inference.moe_load_imbalance 1.12, TensorRT-LLM's measured ratio for DeepSeek-R1 under its "
             "EPLB (36 ranks, 32 redundant experts: imbalance 0.115, examples/wide_ep/ep_load_balancer)."),
    "uniform": ("Expert load: routing simulated perfectly balanced (the source's own statement): "
                "inference.moe_load_imbalance 1."),
}


def case(*, id, source, reliability, precision, block, gpu, n, gpn, plan, inference, metric, value, also, inferred,
         notes, experts=None, cluster_extra=None, balance=None) -> dict:
    inf = {"batch": None, "concurrency": None, "mode": "offline_max_throughput"}
    inf.update(inference)
    if balance is not None:
        inf["moe_load_imbalance"] = EPLB_IMBALANCE if balance == "eplb" else 1.0
        notes = list(notes) + [BALANCE_NOTES[balance]]
        if balance == "eplb":
            inferred = list(inferred) + ["inference.moe_load_imbalance"]
    seq = inf["input_len"] + inf["output_len"]
    cluster = {"gpu": gpu, "num_gpus": n, "gpus_per_node": gpn}
    cluster.update(cluster_extra or {})
    return {"id": id, "source": source, "reliability": reliability, "workload": "inference", "precision": precision,
            "model": model(block, seq, experts), "cluster": cluster, "parallel": parallel(*plan),
            "inference": inf, "target": {"metric": metric, "value": value}, "also": also,
            "inferred": sorted(set(inferred) | {"model.seq_len"}),
            "notes": " ".join(notes + [MODEL_SRC[block["name"]] + "; seq_len = input + output."])}


# ---------------------------------------------------------------------------------------------- S1 / S1'
S1_PREFILL_PER_NODE = {1024: 57674.0, 2048: 54543.0, 4096: 50302.0}  # FACT: "57,674, 54,543, and 50,302"
S1_PREFILL_PERFECT_EPLB_4K = 59337.0   # FACT: table 'SGLang + Simulated Perfect EPLB'
S1_PREFILL_TOKENS_PER_GPU = 16384      # FACT: table 'Batch Size 16,384' ("16,384 tokens per device")
S1_PREFILL_GPUS = 32                   # FACT: "On 4 nodes (4x8xH100, EP32)"
S1_DECODE_PER_NODE = 22282.0           # FACT: "22,282 tokens/sec per node for 2K inputs"
S1_DECODE_GPUS = 72                    # FACT: "9 nodes (9x8xH100, EP72)"
S1_DECODE_BATCH = 256                  # FACT: decode table 'Batch Size 256'
S1_DECODE_KV_LEN = 2000                # FACT: decode table 'KV Cache Length 2,000'
S1_DECODE_TBO_256 = 22310.0            # FACT: TBO ablation "22,310 tokens per second" at 256 tokens/device
S1_DS_PROFILE_PER_NODE = 62713.0       # FACT: table 'DeepSeek Profile' prefill throughput per node
S1_REDUNDANT = 32                      # FACT: "allocate redundant experts (e.g., 32 additional experts) ... 288"
OUT_DECODE = 100                       # INFERRED: S1 case study / S2 ablation "2000 and 100"

#: How each run's experts exchanged tokens (dse's inference.moe_dispatcher, moe_dispatch_dtype,
#: two_batch_overlap), with the evidence. The combine is BF16 everywhere: SGLang allocates the expert
#: GEMM output (down_output) in bfloat16 and nothing quantizes it before buffer.combine or
#: low_latency_combine (sglang 0.4.6.post3 to 0.5.3, ep_moe/layer.py and the DeepEP dispatchers);
#: DeepSeek's inference-system overview: "combine transmissions use the BF16 format".
ENGINE = {
    "S1 prefill": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": True},
                   "Expert exchange: DeepEP normal dispatch (the blog: \"normal dispatch for the prefill phase and "
                   "low-latency dispatch for the decode phase\"), tokens quantized to FP8 before it (sglang "
                   "0.4.6.post3, built 2025-05-09, calls sglang_per_token_group_quant_fp8 before the normal "
                   "dispatch when JIT DeepGEMM is on, which the blog's commands in sglang issue #6017 set with "
                   "SGL_ENABLE_JIT_DEEPGEMM=1; 0.4.6.post2 sent BF16: the release is inferred), BF16 combine, "
                   "two-batch overlap (#6017 prefill command: --enable-two-batch-overlap; the blog: TBO gives "
                   "\"a 27% to 35% throughput increase\")."),
    "S1 decode": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": True},
                  "Expert exchange: DeepEP low-latency dispatch with use_fp8=True (sglang 0.4.6.post2/post3), BF16 "
                  "combine, two-batch overlap (#6017 decode command: --enable-two-batch-overlap; the blog's "
                  "ablation: +25.5% at 256 tokens per device)."),
    "S1' prefill": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": True},
                    "Expert exchange: DeepEP (profile-data: \"refer to DeepEP\"), FP8 dispatch and BF16 combine "
                    "(DeepSeek's day-6 inference-system overview: \"dispatch transmissions adopt the FP8 format\", "
                    "\"combine transmissions use the BF16 format\"), two micro-batches (profile-data: \"two "
                    "micro-batches to overlap computation and all-to-all communication\")."),
    "S2 decode": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": False},
                  "Expert exchange: Blackwell DeepEP low-latency over NVLink (the post: \"NVLink-only environment "
                  "is supported\"), use_fp8=True (sglang 0.4.7), BF16 combine; two-batch overlap off (the post: "
                  "\"This allows two-batch overlap to be disabled\")."),
    "S3 prefill low": ({"moe_dispatcher": "alltoall", "moe_dispatch_dtype": "nvfp4", "two_batch_overlap": False},
                       "Expert exchange: not DeepEP: the commands (shifangx/Scripts-SGLang) run "
                       "--moe-runner-backend flashinfer_cutlass without --moe-a2a-backend deepep, in sglang 0.5.3 "
                       "an all-gather of every rank's tokens quantized to FP4 first (\"Perform FP4 quantize before "
                       "all-gather for flashinfer cutlass moe\"), then a BF16 reduce-scatter: dse's default "
                       "exchange (every routed copy) at NVFP4; no two-batch overlap (single-batch overlap is set "
                       "but wired only into the DeepEP path in 0.5.3)."),
    "S3 prefill high": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": False},
                        "Expert exchange: DeepEP normal (--deepep-mode normal), FP8 before the dispatch (sglang 0.5.3 "
                        "deepep.py quantizes when JIT DeepGEMM is on), BF16 combine; neither two- nor single-batch "
                        "overlap set."),
    "S3 decode low": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "nvfp4", "two_batch_overlap": False,
                       "single_batch_overlap": True},
                      "Expert exchange: DeepEP low-latency with NVFP4 dispatch (SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH=1; "
                      "the post: \"NVFP4 quantization is fused into [DeepEP]\"), BF16 combine; single-batch "
                      "overlap (the combine under the down GEMM and shared experts): "
                      "inference.single_batch_overlap."),
    "S3 decode high": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": False,
                        "single_batch_overlap": True},
                       "Expert exchange: DeepEP low-latency, FP8 dispatch (use_fp8 unless SGLANG_DEEPEP_BF16_"
                       "DISPATCH), BF16 combine; single-batch overlap (inference.single_batch_overlap)."),
    "S4 prefill": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": True},
                   "Expert exchange: DeepEP normal (sgl-project/ome kimi-k2-pd-rt.yaml: --enable-deepep-moe "
                   "--deepep-mode normal --enable-two-batch-overlap; a stored version of the runtime, not "
                   "necessarily the blog's), FP8 dispatch (sglang 0.4.9.post2 quantizes before it), BF16 combine."),
    "S4 decode": ({"moe_dispatcher": "deepep", "moe_dispatch_dtype": "fp8", "two_batch_overlap": True},
                  "Expert exchange: DeepEP low-latency (the post: \"deepep-mode=low_latency\"), use_fp8=True, BF16 "
                  "combine, two-batch overlap (the ome runtime's decode command)."),
}

S1_COMMON = ("SGLang (DP attention, DP dense FFN and LM head, DeepEP, DeepGEMM, two-batch overlap, EPLB with "
             "in-distribution statistics) on nodes of 8 H100 over InfiniBand; the blog evaluates prefill and "
             "decode apart: \"assuming unlimited resources for the non-tested phase to isolate and maximize the "
             "load on the tested nodes\". FP8 weights (DeepSeek-V3's FP8 checkpoint; DeepGEMM FP8 GEMMs: "
             "precision fp8). KV cache BF16 (not stated: SGLang's default; the GB200 Part II post adds FP8 KV 'in "
             "addition to the traditional BF16'). How its experts exchanged tokens is in each case's last "
             "note (inference.moe_dispatcher, moe_dispatch_dtype, two_batch_overlap).")


def s1_cases():
    for isl, per_node in S1_PREFILL_PER_NODE.items():
        stated = isl == 4096
        notes = [S1_COMMON,
                 f"Prefill instance: 4 nodes, EP32 with DP attention (tp 1, dp 32, ep 32). Measured: {per_node:,.0f} "
                 f"input tokens/s per node for {isl // 1024}K prompts (\"per-node throughputs of 57,674, 54,543, and "
                 "50,302 tokens per second for prompt lengths of 1K, 2K, and 4K\"), target = per node / 8 GPUs.",
                 "Token budget: the profile table's 16,384 tokens per device at input 4,096 (stated for 4K; assumed "
                 "the same for 1K and 2K) -> max_num_tokens 16384 per GPU (whole prompts per iteration)."
                 if stated else
                 "Token budget: the blog states 16,384 tokens per device only for 4K prompts; assumed the same here "
                 "(max_num_tokens 16384). 1K/2K read as 1024/2048 tokens (1000/2000 change the per-token rate by "
                 "well under 1%).",
                 "output_len 1: a prefill instance emits only the first token (the benchmark's output length is not "
                 "stated)."]
        inferred = ["inference.output_len", "inference.kv_cache_dtype", "cluster.gpus_per_node"]
        if stated:
            notes.append(f"Same run with 'Simulated Perfect EPLB' (random experts under group-limited routing): "
                         f"{S1_PREFILL_PERFECT_EPLB_4K:,.0f} per node (= {S1_PREFILL_PERFECT_EPLB_4K / 8:,.0f} per "
                         "GPU); DeepSeek's own profile at this setting: 62,713 per node (case "
                         "disagg_deepseek-profile_h800_dsv3_prefill_ep32_isl4096).")
        else:
            inferred += ["inference.input_len", "inference.max_num_tokens"]
        yield case(id=f"disagg_sglang-h100_dsv3_prefill_ep32_isl{isl}", source=S1_SRC,
                   reliability="A" if stated else "B", precision="fp8", block=DSV3, gpu="H100-SXM-80GB",
                   n=S1_PREFILL_GPUS, gpn=8, plan=(1, S1_PREFILL_GPUS, S1_PREFILL_GPUS),
                   inference={"input_len": isl, "output_len": 1, "phase": "prefill",
                              "max_num_tokens": S1_PREFILL_TOKENS_PER_GPU, "kv_cache_dtype": "bf16",
                              **ENGINE["S1 prefill"][0]},
                   metric="input_tokens_per_s_per_gpu", value=round(per_node / 8, 2),
                   also={"input_tokens_per_s": per_node * S1_PREFILL_GPUS / 8},
                   inferred=inferred + ["inference.moe_dispatch_dtype"], notes=notes + [ENGINE["S1 prefill"][1]],
                   balance="eplb")

    experts = DSV3["moe"]["experts"] + S1_REDUNDANT
    yield case(id="disagg_sglang-h100_dsv3_decode_ep72_isl2000_b256", source=S1_SRC, reliability="A",
               precision="fp8", block=DSV3, gpu="H100-SXM-80GB", n=S1_DECODE_GPUS, gpn=8,
               plan=(1, S1_DECODE_GPUS, S1_DECODE_GPUS), experts=experts,
               inference={"input_len": S1_DECODE_KV_LEN, "output_len": OUT_DECODE, "batch": S1_DECODE_BATCH,
                          "phase": "decode", "kv_cache_dtype": "bf16", **ENGINE["S1 decode"][0]},
               metric="tokens_per_s_per_gpu", value=round(S1_DECODE_PER_NODE / 8, 2),
               also={"tokens_per_s": S1_DECODE_PER_NODE * S1_DECODE_GPUS / 8},
               inferred=["inference.output_len", "inference.kv_cache_dtype", "model.moe.experts",
                         "cluster.gpus_per_node"],
               notes=[S1_COMMON,
                      f"Decode instance: 9 nodes, EP72 with DP attention (tp 1, dp 72, ep 72); decode table: batch "
                      f"size 256 (sequences per GPU: SGLang's DP-attention batch is per rank, and 22,282 tokens/s "
                      f"per node over 8 x 256 sequences is a 92 ms step, the blog's 'ITL at approximately 100ms'), "
                      f"KV cache length 2,000, 9 nodes, {S1_DECODE_PER_NODE:,.0f} tokens/s per node; target = per "
                      f"node / 8 GPUs. The TBO ablation gives {S1_DECODE_TBO_256:,.0f} at 256 tokens per device "
                      "(same setting). Decode nodes are kept saturated by the benchmark (prefill assumed "
                      "unlimited).",
                      f"Experts: 256 do not split 72 ways; the blog's EPLB pools 256 + 32 redundant = 288 experts "
                      f"(\"288 experts enables ... parallelism sizes of 12 or 72\"), 4 per GPU: written as "
                      f"moe.experts {experts} (the physical experts held; routing still picks 8 per token).",
                      f"output_len {OUT_DECODE}: not stated for this run (the blog's EPLB decode case study uses "
                      "1800 input + 100 output at batch 256); input_len 2000 = the stated KV cache length.",
                      ENGINE["S1 decode"][1]], balance="eplb")

    yield case(id="disagg_deepseek-profile_h800_dsv3_prefill_ep32_isl4096", source=S1P_SRC, reliability="B",
               precision="fp8", block=DSV3, gpu="H100-SXM-80GB", n=32, gpn=8, plan=(1, 32, 32),
               cluster_extra={"nvlink_gbps": 400},
               inference={"input_len": 4096, "output_len": 1, "phase": "prefill", "max_num_tokens": 16384,
                          **ENGINE["S1' prefill"][0]},
               metric="input_tokens_per_s_per_gpu", value=round(S1_DS_PROFILE_PER_NODE / 8, 2),
               also={"input_tokens_per_s": S1_DS_PROFILE_PER_NODE * 4},
               inferred=["inference.output_len", "cluster.gpus_per_node", "cluster.nvlink_gbps"],
               notes=["DeepSeek's prefill profile (deepseek-ai/profile-data: \"EP32 and TP1 (in line with DeepSeek "
                      "V3/R1's actual online deployment), with a prompt length set to 4K and a batch size of 16K "
                      "tokens per GPU\"; two micro-batches overlapping computation and all-to-all; \"we simulate an "
                      "absolutely balanced MoE routing strategy for profiling\"), converted to throughput by the "
                      "SGLang blog's table: 'DeepSeek Profile' 62,713 tokens/s per node at batch 16,384 and input "
                      "4,096; target = per node / 8. Hardware: DeepSeek's H800 (H100 silicon, NVLink 400 GB/s: "
                      "written as H100-SXM-80GB with nvlink_gbps 400, as scenarios/deepseek_v3_h800.yaml); 4 nodes "
                      "of 8. FP8 weights and GEMMs; KV-cache type not stated (dse follows the precision). "
                      "The figure is a profile-derived estimate (one traced iteration, perfect balance), not a "
                      "served benchmark: reliability B.", ENGINE["S1' prefill"][1]], balance="uniform")


# -------------------------------------------------------------------------------------------------- S2
S2_DECODE_PER_GPU = 7583.0   # FACT: "7,583 tokens per second per GPU for decoding"
S2_DECODE_GPUS = 48          # FACT: "12 nodes for decode" (4-GPU trays); ai-dynamo copy: 48 ranks implied


def s2_cases():
    experts = DSV3["moe"]["experts"] + 32
    yield case(id="disagg_sglang-gb200_dsv3_decode_ep48_isl2000_fp8", source=S2_SRC, reliability="B",
               precision="fp8", block=DSV3, balance="eplb", gpu="GB200", n=S2_DECODE_GPUS, gpn=4,
               plan=(1, S2_DECODE_GPUS, S2_DECODE_GPUS), experts=experts,
               inference={"input_len": 2000, "output_len": OUT_DECODE, "phase": "decode", "kv_cache_dtype": "bf16",
                          **ENGINE["S2 decode"][0]},
               metric="tokens_per_s_per_gpu", value=S2_DECODE_PER_GPU, also={},
               inferred=["inference.output_len", "inference.kv_cache_dtype", "inference.batch", "model.moe.experts",
                         "parallel.dp", "parallel.ep"],
               notes=["SGLang on a GB200 NVL72 (14 trays of 4 GPUs given): \"we use 12 nodes for decode and the "
                      "remaining for prefill\"; \"SGLang achieved 7,583 tokens per second per GPU for decoding on "
                      "the GB200 NVL72 ... for 2,000-token input lengths\"; \"The slow-down API in the previous "
                      "blog is also used to make decode nodes saturated\"; no MTP. Blackwell DeepGEMM (FP8), "
                      "DeepEP over NVLink only, CUTLASS MLA; two-batch overlap disabled (\"This allows two-batch "
                      "overlap to be disabled\").",
                      "Plan: 48 ranks, DP attention with EP48 (tp 1, dp 48, ep 48), 256 + 32 redundant = 288 experts "
                      "(6 per GPU), from ai-dynamo's GB200 WideEP example (docs/backends/sglang/dsr1-wideep-gb200.md, "
                      "which points to sglang issue #7227 for the post's exact commands; the example itself runs 8 "
                      "GPUs, its decode '--max-running-requests 36864' is 768 x 48): "
                      "'--enable-dp-attention', '--moe-dense-tp-size 1', '--ep-num-redundant-experts 32', "
                      "'--deepep-mode low_latency'. Batch not stated: the saturated engine fills its KV cache, so "
                      "the batch is left to dse (offline, the largest that fits). output_len 100: the post's batch "
                      "ablation (\"input and output lengths are set to 2000 and 100\"). KV cache BF16: FP8 KV only "
                      "arrived with Part II."])


# -------------------------------------------------------------------------------------------------- S3
S3 = {
    # precision key: (prefill ranks per instance [FACT post], prefill input tok/s/GPU [FACT], decode tok/s/GPU
    # [FACT], decode batch per rank [FACT post for 1408, scripts for 768]])
    "low": dict(prefill_gpus=2, prefill=26156.0, decode=13386.0, batch=1408, batch_src="post and script"),
    "high": dict(prefill_gpus=4, prefill=18471.0, decode=9087.0, batch=768, batch_src="script only"),
}
S3_PREFILL_TOKENS = 16384    # FACT (scripts): '--max-prefill-tokens 16384'
S3_DECODE_GPUS = 48          # FACT: "For decode, we use 48 ranks"

S3_PREC = {
    "low": ("fp4", {"kv_cache_dtype": "fp8", "quant_scope": "ffn"},
            "Low precision (\"FP8 attention and NVFP4 MoE\"): nvidia/DeepSeek-R1-0528-FP4-v2 (scripts' model "
            "path; ModelOpt NVFP4 experts and, in v2, the attention output projection), q_b_proj run in FP8, "
            "'--kv-cache-dtype fp8_e4m3' (FP8 KV cache, FP8 attention). Written as precision fp4 with "
            "quant_scope ffn (dse: experts and dense FFNs NVFP4, attention projections 16-bit; SGLang runs o_proj "
            "in NVFP4 and q_b_proj in FP8, so the real attention GEMMs sit between) and kv_cache_dtype fp8."),
    "high": ("fp8", {"kv_cache_dtype": "bf16"},
             "High precision (\"BF16 for attention and FP8 for GEMM\"): deepseek-ai/DeepSeek-R1-0528 FP8 "
             "checkpoint (scripts' model path), BF16 KV cache (no --kv-cache-dtype): precision fp8, "
             "kv_cache_dtype bf16."),
}
S3_COMMON = ("SGLang on a GB200 NVL72, DeepSeek-R1-0528, 2000-token inputs; prefill and decode measured apart as "
             "in the H100 blog (\"we follow the experimental setup from our previous blog post series\"); DP "
             "attention, DP dense FFN and LM head, DeepEP (decode: low-latency) over NVLink, EPLB from recorded "
             "statistics, single-batch overlap of the combine with the down GEMM and shared experts.")


def s3_cases():
    for key, r in S3.items():
        prec, extra, prec_txt = S3_PREC[key]
        g = r["prefill_gpus"]
        yield case(id=f"disagg_sglang-gb200_dsr1_prefill_ep{g}_isl2000_{key}prec", source=S3_SRC, reliability="B",
                   precision=prec, block=DSV3, balance="eplb", gpu="GB200", n=g, gpn=4, plan=(1, g, g),
                   inference={"input_len": 2000, "output_len": 1, "phase": "prefill", "max_num_tokens": S3_PREFILL_TOKENS,
                              **extra, **ENGINE[f"S3 prefill {key}"][0]},
                   metric="input_tokens_per_s_per_gpu", value=r["prefill"], also={},
                   inferred=["inference.output_len", "inference.max_num_tokens", "parallel.dp", "parallel.ep"]
                   + (["inference.quant_scope"] if key == "low" else []),
                   notes=[S3_COMMON, prec_txt,
                          f"Prefill instance of {g} ranks (post: \"for prefill, we use 4 ranks per instance for "
                          f"high-precision and 2 for low-precision\"; the #10903 scripts launch 4 and 8 ranks: the "
                          f"post's count is used), written as DP attention with EP{g} (tp 1, dp {g}, ep {g}), 256 "
                          f"experts. Measured {r['prefill']:,.0f} input tokens/s per GPU (post). Token budget 16,384 "
                          "per rank ('--max-prefill-tokens 16384' in the scripts). The post says SGLang offloads "
                          "weights to host memory over NVLink-C2C with prefetching when device memory is "
                          "insufficient (\"Scaling Down by Offloading\"); dse does not model weight offloading.",
                          "output_len 1: a prefill instance emits only the first token.",
                          ENGINE[f"S3 prefill {key}"][1]])
    for key, r in S3.items():
        prec, extra, prec_txt = S3_PREC[key]
        experts = DSV3["moe"]["experts"] + 32
        yield case(id=f"disagg_sglang-gb200_dsr1_decode_ep48_isl2000_b{r['batch']}_{key}prec", source=S3_SRC,
                   reliability="B", precision=prec, block=DSV3, gpu="GB200", n=S3_DECODE_GPUS, gpn=4,
                   plan=(1, S3_DECODE_GPUS, S3_DECODE_GPUS), experts=experts,
                   inference={"input_len": 2000, "output_len": OUT_DECODE, "batch": r["batch"], "phase": "decode",
                              **extra, **ENGINE[f"S3 decode {key}"][0]},
                   metric="tokens_per_s_per_gpu", value=r["decode"], also={},
                   inferred=["inference.output_len", "model.moe.experts"]
                   + (["inference.batch"] if key == "high" else ["inference.quant_scope"]),
                   notes=[S3_COMMON, prec_txt,
                          f"Decode instance of 48 ranks (\"For decode, we use 48 ranks\"), '--tp-size 48 --dp-size "
                          f"48 --enable-dp-attention' (tp 1, dp 48, ep 48), '--ep-num-redundant-experts 32' -> 288 "
                          f"experts (6 per GPU) written as moe.experts 288. Batch {r['batch']} sequences per rank "
                          f"({r['batch_src']}: '--cuda-graph-bs {r['batch']}', '--max-running-requests "
                          f"{r['batch'] * 48}' = {r['batch']} x 48; post: \"The batch size is chosen to make KV "
                          "cache roughly full (thus 768 for 4k ISL and 1408 for 2k ISL)\"). Measured "
                          f"{r['decode']:,.0f} output tokens/s per GPU. output_len 100 not stated (scripts' "
                          "'--context-length 2176' bounds it at 176; Part I's ablation used 100).",
                          ENGINE[f"S3 decode {key}"][1]], balance="eplb")


# -------------------------------------------------------------------------------------------------- S4
S4_PREFILL_TOTAL = 224000.0  # FACT: "Prefill Throughput 224k tokens/sec (4 P Nodes)"
S4_DECODE_TOTAL = 288000.0   # FACT: "Decode Throughput 288k tokens/sec (12 D Nodes)"
S4_BATCH = 480               # FACT: "Decode Batch Size 480"
S4_REDUNDANT = 96            # FACT: "96 redundant experts on decode nodes"
S4_IN, S4_OUT = 2000, 100    # FACT: "Input Length 2000 tokens", "Output Length 100 tokens"

S4_COMMON = ("SGLang with OME on 128 H200 (16 nodes of 8): \"1P1D (4 nodes/P and 12 nodes/D)\", 2000-token inputs, "
             "100-token outputs, \"We use the same benchmark setup as in the DeepSeek R1 deployment blog\" (each "
             "phase measured at full load on its own: 224k input tokens/s is 112 prompts/s, 288k output tokens/s "
             "is 2,880 requests/s, so the two are not one deployment's simultaneous rates). FP8 weights "
             "(Kimi-K2-Instruct's block-FP8 checkpoint) and a BF16 KV cache: not stated. DP attention with wide EP "
             "as in the DeepSeek blog (not stated for K2).")


def s4_cases():
    yield case(id="disagg_sglang-h200_kimik2_prefill_ep32_isl2000", source=S4_SRC, reliability="B", precision="fp8",
               block=KIMI_K2, gpu="H200-SXM-141GB", n=32, gpn=8, plan=(1, 32, 32),
               inference={"input_len": S4_IN, "output_len": 1, "phase": "prefill", "max_num_tokens": 16384,
                          "kv_cache_dtype": "bf16", **ENGINE["S4 prefill"][0]},
               metric="input_tokens_per_s_per_gpu", value=S4_PREFILL_TOTAL / 32,
               also={"input_tokens_per_s": S4_PREFILL_TOTAL},
               inferred=["inference.output_len", "inference.max_num_tokens", "inference.kv_cache_dtype",
                         "parallel.dp", "parallel.ep"],
               notes=[S4_COMMON, "Prefill instance: 4 nodes = 32 H200, written as DP attention with EP32 (tp 1, dp 32, "
                      "ep 32; 384 experts, 12 per GPU). Measured 224k input tokens/s (\"56k / node\"); target per "
                      "GPU = 224,000 / 32. Token budget not stated: 16,384 per GPU as in the DeepSeek H100 blog. "
                      "output_len 1: a prefill instance emits only the first token.", ENGINE["S4 prefill"][1]])
    experts = KIMI_K2["moe"]["experts"] + S4_REDUNDANT
    yield case(id="disagg_sglang-h200_kimik2_decode_ep96_isl2000_b480", source=S4_SRC, reliability="A",
               precision="fp8", block=KIMI_K2, gpu="H200-SXM-141GB", n=96, gpn=8, plan=(1, 96, 96), experts=experts,
               inference={"input_len": S4_IN, "output_len": S4_OUT, "batch": S4_BATCH, "phase": "decode",
                          "kv_cache_dtype": "bf16", **ENGINE["S4 decode"][0]},
               metric="tokens_per_s_per_gpu", value=S4_DECODE_TOTAL / 96, also={"tokens_per_s": S4_DECODE_TOTAL},
               inferred=["inference.kv_cache_dtype", "parallel.dp", "parallel.ep", "model.moe.experts"],
               notes=[S4_COMMON, "Decode instance: 12 nodes = 96 H200, DP attention with EP96 (tp 1, dp 96, ep 96); "
                      "384 + 96 redundant = 480 experts (5 per GPU), written as moe.experts 480. \"Decode Batch Size "
                      "480\" read as sequences per GPU (480 in all would need 600 decode steps/s for 288k tokens/s). "
                      "Measured 288k output tokens/s (\"24k / node\"); target per GPU = 288,000 / 96.",
                      ENGINE["S4 decode"][1]], balance="eplb")


# -------------------------------------------------------------------------------------------------- S5
S5_SCHEDULED = 15.21         # FACT: 'Scheduled samples per second : 15.21'
S5_COMPLETED = 15.18         # FACT: 'Completed samples per second : 15.18'
S5_TOKENS = 9921.02          # FACT: 'Completed tokens per second: 9921.02'
S5_TPOT_NS = 66169012        # FACT: 'Mean Time to Output Token (ns) : 66169012'
S5_TPOT_P99_NS = 72155218    # FACT: '99.00 percentile time to output token (ns) : 72155218'
S5_TTFT_NS = 1365099450      # FACT: 'Mean First Token latency (ns) : 1365099450'
S5_CTX = dict(servers=14, tp=4, max_batch=128, max_num_tokens=4096)           # FACT: run_disagg_405B/README.md
S5_GEN = dict(servers=2, tp=8, max_batch=1024, max_num_tokens=1024, mem=0.95)  # FACT: run_disagg_405B/README.md
S5_INPUT = 9429              # INFERRED: the data set's mean input (build_mlperf_inference.py, all 8,313 rows)
S5_OUTPUT_CV = 0.381         # INFERRED: the data set's output-length spread (build_mlperf_inference.py)


def s5_cases():
    """The whole deployment at its offered load, twice: its mean time per output token and its mean TTFT."""
    osl = round(S5_TOKENS / S5_COMPLETED)
    n = S5_CTX["servers"] * S5_CTX["tp"] + S5_GEN["servers"] * S5_GEN["tp"]  # 14 x 4 + 2 x 8 = 72
    run = ("MLPerf Inference v5.1 datacenter closed, NVIDIA GB200 NVL72 (72 x GB200), llama3.1-405b, Interactive "
           "scenario (LoadGen's Server mode, TTFT <= 4.5 s and TPOT <= 80 ms at p99), served disaggregated with "
           "TensorRT-LLM (PyTorch backend, trtllm-serve disaggregated): 14 context servers of TP4 (max batch 128, "
           "max_num_tokens 4096) and 2 generation servers of TP8 (max batch 1024, max_num_tokens 1024, KV memory "
           "fraction 0.95) = 72 GPUs, FP4 checkpoint nvidia/Llama-3.1-405B-Instruct-FP4 (run_disagg_405B/README.md). "
           f"Run: target_qps 15.2, scheduled {S5_SCHEDULED} and completed {S5_COMPLETED} samples/s, {S5_TOKENS} "
           f"tokens/s, mean TTFT {S5_TTFT_NS / 1e6:.1f} ms (whole deployment: prefill, queueing, KV transfer, first "
           f"token), mean time per output token {S5_TPOT_NS / 1e6:.2f} ms (p99 {S5_TPOT_P99_NS / 1e6:.2f}).")
    how = ("Written as the whole deployment under its offered load: phase disaggregated, request_rate "
           f"{S5_SCHEDULED} (LoadGen's Poisson arrivals, the scheduled rate), the prefill block the context servers "
           "(tp 4, instances 14, max_num_tokens 4096; their max batch of 128 prompts never binds at 4096 tokens per "
           "iteration), the plan and max_batch/max_num_tokens the generation servers'. dse shares the rate evenly "
           "over the two generation servers (the router's policy is not stated) and queues prompts at the context "
           "servers as M/D/1 (mean prompt length; lengths that vary, as these do, lengthen the wait).")
    lengths = (f"Request lengths vary: input_len {S5_INPUT} is the data set's mean as build_mlperf_inference.py "
               f"reads it (openshift-psap/performance-dashboard llama3-1-405b.csv, all 8,313 rows), output_len {osl} = "
               f"{S5_TOKENS} / {S5_COMPLETED}, and output_len_cv {S5_OUTPUT_CV} the spread of its reference outputs "
               f"(the same file). KV cache FP8: the Interactive config "
               "(configs/GB200-NVL72_GB200-186GB_aarch64x72/Interactive/llama3_1-405b.py) sets 'kv_cache_dtype': "
               "'fp8'; the generated disaggregated YAML is not stored. Precision fp4 (ModelOpt NVFP4: all linear "
               "layers).")
    inference = {"input_len": S5_INPUT, "output_len": osl, "output_len_cv": S5_OUTPUT_CV, "mode": "online",
                 "request_rate": S5_SCHEDULED,
                 "phase": "disaggregated", "max_batch": S5_GEN["max_batch"], "max_num_tokens": S5_GEN["max_num_tokens"],
                 "kv_cache_dtype": "fp8",
                 "prefill": {"tp": S5_CTX["tp"], "instances": S5_CTX["servers"],
                             "max_num_tokens": S5_CTX["max_num_tokens"]}}
    inferred = ["inference.input_len", "inference.output_len", "inference.output_len_cv", "inference.kv_cache_dtype",
                "cluster.gpus_per_node"]
    for suffix, metric, value, what in (
            ("itl", "itl_ms", round(S5_TPOT_NS / 1e6, 2), "the mean time per output token (the decode instances' ITL)"),
            ("ttft", "ttft_ms", round(S5_TTFT_NS / 1e6, 1), "the mean time to first token (prefill, its queue, the "
                                                            "KV transfer and the first decode iteration)")):
        yield case(id=f"disagg_mlperf-v5.1-gb200x72_llama405b_interactive_{suffix}", source=S5_SRC, reliability="B",
                   precision="fp4", block=LLAMA405, gpu="GB200", n=n, gpn=4, plan=(S5_GEN["tp"], 1, 1),
                   inference=inference, metric=metric, value=value, also={"tokens_per_s": S5_TOKENS},
                   inferred=inferred, notes=[run, how, f"Target: {what}.", lengths])


def main() -> None:
    cases = [*s1_cases(), *s2_cases(), *s3_cases(), *s4_cases(), *s5_cases()]
    write_cases(cases, OUT)


if __name__ == "__main__":
    main()
