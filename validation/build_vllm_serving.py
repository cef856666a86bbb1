#!/usr/bin/env python3
"""Write validation/vllm_serving.jsonl: serving measurements of vLLM (and one SGLang set) with stated GPU,
tensor parallelism, input/output lengths and load, as out-of-sample checks of dse's serving model, whose
numbers were fitted on TensorRT-LLM.

Usage: python validation/build_vllm_serving.py   (no network: every number below was read from the public
files named in each source block and is kept here as a literal).

Case format: ../shared/validation/README.md (LLM inference cases) with dse's optional inference keys
(``kv_cache_dtype``, ``max_num_tokens``). One case per measured figure; the other figures of the same run go
in ``also``; what the source does not state is listed in ``inferred`` and explained in ``notes``.

Four sources, two engines (numbered as the code's blocks):

1. dstack, "Exploring inference memory saturation effect: H100 vs MI300x" (blog 2024-12-05,
   dstack.ai/blog/h100-mi300x-inference-benchmark) and its data repository dstackai/benchmarks @85a2fe17,
   comparison/h100sxm5_vs_mi300x: vLLM 0.6.3.post2.dev308+gb489fc3c (README 'Environment', H100 part),
   meta-llama/Llama-3.1-405B-FP8 on one node of 8 H100 SXM5 80GB HBM3 (README nvidia-smi: 'NVIDIA H100 80GB
   HBM3'; blog 'NVIDIA 8xH100 SXM5'), one replica over the 8 GPUs with tensor parallelism (blog: 'Our
   benchmark focused on testing inference with tensor parallelism'; raw_data/gpu-usage.md: '1x
   meta-llama/Llama-3.1-405B-FP8 in 8x H100 SXM5 / Loading model weights took 56.7677 GB in each GPU').
   Offline runs of vLLM's benchmark_throughput.py (blog 'Benchmark modes' 2.): N prompts of fixed length
   given at once, fixed output length; the 2048/2048 N=4 point is benchmark_latency.py (a batch of 4,
   raw_data/8xH100SXM5-throughput/nvidia-latency_test_ip2048_op2048_np4.json, avg_latency 73.04 s).
   Figures: csv_data/throughput_latency_curve.csv, rows '8xH100 1FP8-meta' (end_to_end_latency = elapsed s,
   tokens_per_second = (input + output tokens of all N requests) / elapsed, checked against the raw JSON
   files where stored: e.g. ip128_op2048_np256: elapsed 399.648 s, total_num_tokens 557056 = 256 x 2176,
   tokens_per_second 1393.865). Target: output tokens/s = tokens_per_second x output_len / (input_len +
   output_len) (arithmetic; the latency column of some 2048/2048 rows is rounded, within 0.4%).

1b. The same CSV's MI300X rows (block 1b), written the same way (cluster.gpu MI300X): '8xMi300x 1FP8-meta'
   (the same Meta checkpoint, TP 8, vLLM 0.6.3.dev109 ROCm build, --enforce-eager --num-scheduler-step 15),
   '8xMi300x 1FP8-amd' (amd/Llama-3.1-405B-Instruct-FP8-KV, all linear layers FP8, TP 8, vLLM 0.6.4.dev4,
   --enforce-eager --num-scheduler-step 1) and '4xMi300x 1FP8-amd' (the same on 4 GPUs, TP 4); commands from the
   README, raw JSON (raw_data/8Mi300x-throughput-quark, 4Mi300x-throughput-quark) equal to the CSV where stored.
   The README gives --max-model-len 91680 for every offline run, H100 included; these rows take it as the
   token budget (the H100 rows keep their inferred 34832; on MI300X the choice moves dse's prediction by at
   most 6%, on the TP-4 rows whose cache fills). The seven Meta-checkpoint 2048/2048 MI300X rows have a
   latency column that disagrees with tokens_per_second by 0.5-6.7% and no raw file: reliability B.

1c. dstack, "DeepSeek R1 inference performance: MI300X vs. H200" (blog 2025-03-18, dstackai/dstack PR #2425):
   dstackai/benchmarks Deepseek-R1 (offline_results.csv @7f37e669, benchmark_throughput.py @b9c66594, README
   @209ca6f9), rows 'mi300,vllm': vLLM 0.7.3.dev138 (ROCm), deepseek-ai/DeepSeek-R1 (FP8), TP 8 on 8 MI300X,
   3200 random prompt tokens, 800/1600/3200 output tokens (ignore_eos), 32-1024 prompts at once. The script
   writes total_output_tokens; target = total_output_tokens / elapsed_time (output tokens/s, as block 1).

2. GPUStack Performance Lab, "Optimizing Qwen3-235B-A22B Throughput on NVIDIA H100 GPUs"
   (gpustack/gpustack @10e9444a, docs/performance-lab/qwen3-235b-a22b/h100.md, section 'Other Benchmark
   Cases'): vLLM v0.11.0, Qwen3-235B-A22B-Instruct-2507, `vllm bench serve --backend openai-chat
   --dataset-name random --random-input-len X --random-output-len Y --num-prompts N --seed 42` with every
   prompt sent at once (no request rate, no max concurrency: offline-style, 'Peak concurrent requests' = N).
   Two deployments: the baseline `vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507 -tp 8` (BF16, 8 GPUs) and the
   'optimized' `vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 -tp 4 --max-num-batched-tokens 16384`
   (FP8, one instance on 4 GPUs; the page's table doubles it for two instances, the figures here are the one
   instance's as printed). Target: 'Request throughput (req/s)' (these prefill-heavy runs are about the
   prompts; no --ignore-eos, so fewer tokens than asked came out in some runs: output_len is the mean of what
   was generated, total generated / successful requests).

3. SGLang Cookbook, Qwen3 page (sgl-project/sgl-cookbook @230dd7f5, docs/autoregressive/Qwen/Qwen3.md,
   '5.1 Speed Benchmark'): sglang 0.5.6, Qwen/Qwen3-235B-A22B-Instruct-2507 (BF16), 8 x NVIDIA B200,
   `--tp 8`, `sglang.bench_serving --dataset-name random --random-input-len X --random-output-len Y
   --num-prompts 5C (10 at C=1) --max-concurrency C`: closed loop at C clients. The benchmark's default
   --random-range-ratio (0.0) draws each length uniformly up to X (resp. Y): lengths are NOT fixed; the
   case uses the means printed totals give (total input or generated tokens / successful requests),
   reliability B. Targets: 'Output token throughput (tok/s)', 'Mean TTFT (ms)', 'Mean ITL (ms)' (one case
   each; 'Mean TPOT' and the mean requests in flight in the notes).

Left out (and why):
- dstack's 8xH100 online runs (QPS 16/32/1000) and the GPUStack and SGLang Cookbook ShareGPT runs: ShareGPT
  lengths vary and no mean input/output length is stated as such.
- dstack's '8xMi300x 2FP8-amd' rows: not a measurement of their own. raw_data/8xMi300x-throughput-quark-2fp8/
  README.md: 'For 8xMi300x-throughput with 2fp8 aggregate 4Mi300x-throughput-quark data' (the CSV's latencies
  are the 4-GPU rows', tokens_per_second doubled). The MI300X online runs (QPS 16/32/1000): ShareGPT.
- dstack DeepSeek-R1: the H200 rows (no MI300X), the MI300X SGLang offline rows (sglang 0.4.2.post4 on ROCm
  through the script's run_sglang: that version's engine defaults, chunked-prefill size, memory fraction and
  running-request cap, not checked) and the online_results.csv runs (not examined).
- Azure AI-benchmarking-guide ND MI300X v5 vLLM FP8 offline throughputs (samuel-bohman/AI-benchmarking-guide
  @3de0c294 Azure_Results/ND_MI300X_v5_results.md; Llama 3.1 8B TP 1, 70B and 405B TP 8, six length pairs,
  1000 requests): the repository's benchmark script at that commit is not stored. The stored versions of
  Benchmarks/AMD/LLMBenchmark.py (@c7295cb5, @04e2ae7d) run /app/vllm/benchmarks/benchmark_throughput.py
  inside rocm/vllm-dev:20241121-tuned (--kv-cache-dtype fp8, --num-scheduler-steps 10, --max-num-batched-tokens
  131072, --max-model-len 8192, --max-num-seqs from config.json, 3000 @5d58e2c7) and record field [6] of the
  'Throughput:' line split on spaces: output tokens/s in vLLM's print format after vllm-project/vllm PR #8914
  ('..., X total tokens/s, Y output tokens/s'), a field that does not exist in the older format; but the
  image's script, and so what the field counted, is not in the repository, and which script and config
  versions produced the results commit cannot be told from what is stored.
- GPUStack's gpt-oss-20b/120b H100/A100 pages: reasoning-model outputs stop far short of the asked length
  (e.g. gpt-oss-20b H100 random 4K: 52,309 of 100,000 tokens) and the Harmony chat template adds an unknown
  prompt length; its Qwen3-32B/14B pages: no model block of that architecture in dse or validation/.
- SGLang Cookbook Llama 3.1 page (Llama-3.1-70B, TP8 on 'NVIDIA A100 GPU (8x)'): A100 40GB or 80GB is not
  stated, and their bandwidths differ by 30%, which sets the decode speed; the GPT-OSS page: ShareGPT.
- johnmusgrave.com 'vLLM throughput-latency sweep on NVIDIA A100' (Llama-3.1-8B, 1024/128, C=1-64): only its
  opening is stored (about 75 tokens/s at C=1, 6.6x at C=8, in prose); the table could not be read.
- LambdaLabsML/vllm-benchmark results: ShareGPT prompts (results/prompt_*/...: variable lengths, 0-token
  outputs). Azure HPC blog (ND-H100-v5, Llama 3.1 8B): only its opening text is stored. vLLM v0.6.0 blog
  (vllm-project/vllm-project.github.io _posts/2024-09-05-perf-update.md): results only as PNG figures, on
  ShareGPT and sonnet prompts of approximate length ('roughly 462 input tokens').
- Vultr inference cookbook (B200, vLLM 0.12/0.16, 2048/512, C=1-1024): its models (Nemotron Nano hybrid
  Mamba, Nemotron Super 49B, MiniMax M2.5, GLM-5, DeepSeek V3.2 sparse attention) have no block in dse.

Not modelled by dse, said in the notes: vLLM 0.6's V0 engine falls back to eager mode (no CUDA graphs) for
a sequence longer than max_seq_len_to_capture (8192 by default), i.e. the whole 32784-token-prompt decode;
prefix caching (vLLM V1 default, the random prompts share only the chat
template); the chat template's few extra prompt tokens.
"""
from __future__ import annotations

import os

from case_files import write_cases
from build_disaggregated import DSV3

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "vllm_serving.jsonl")

PARALLEL = {"pp": 1, "dp": 1, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 0, "recompute": "none",
            "microbatch": None, "global_batch": None}

# Model blocks copied from validation/trtllm_v1.jsonl (same models; architecture from their configs).
LLAMA405 = {"name": "Llama 3.1 405B", "family": "dense", "layers": 126, "hidden": 16384, "heads": 128,
            "kv_heads": 8, "head_dim": None, "ffn_hidden": 53248, "ffn_act": "swiglu", "vocab": 128256,
            "moe": None}
QWEN235 = {"name": "Qwen3-235B-A22B-Instruct-2507", "family": "moe", "layers": 94, "hidden": 4096, "heads": 64,
           "kv_heads": 4, "head_dim": 128, "ffn_hidden": 1536, "ffn_act": "swiglu", "vocab": 151936,
           "moe": {"experts": 128, "top_k": 8, "expert_ffn_hidden": 1536, "shared_experts": 0, "dense_layers": 0}}
MODEL_INFERRED = ["model.ffn_act", "model.ffn_hidden", "model.head_dim", "model.heads", "model.hidden",
                  "model.kv_heads", "model.layers", "model.vocab", "model.seq_len"]
MOE_INFERRED = ["model.moe", "model.moe.shared_experts", "model.moe.dense_layers"]

# ---------------------------------------------------------------------------------------------------------
# 1. dstack, vLLM 0.6.3 (V0 engine), Llama 3.1 405B FP8 (Meta's checkpoint), 8 x H100 SXM5, TP 8.
#    FACTS (csv_data/throughput_latency_curve.csv @85a2fe17, rows '8xH100 1FP8-meta'):
#    (input_len, output_len) -> {N prompts: (end_to_end_latency s, tokens_per_second = all tokens / s)}
DSTACK_SRC = ("dstack 'Exploring inference memory saturation effect: H100 vs MI300x' (2024-12-05, "
              "dstack.ai/blog/h100-mi300x-inference-benchmark); data dstackai/benchmarks @85a2fe17 "
              "comparison/h100sxm5_vs_mi300x/csv_data/throughput_latency_curve.csv rows '8xH100 1FP8-meta' "
              "(raw_data/8xH100SXM5-throughput/*.json); vLLM 0.6.3.post2.dev308+gb489fc3c")
DSTACK = {
    (128, 2048): {4: (71.27394036, 122.1203704), 8: (75.05596489, 231.9335981), 16: (75.82455635, 459.1652319),
                  32: (78.37005056, 888.5026806), 64: (123.1509682, 1130.839668), 128: (214.67, 1297.443),
                  256: (399.64, 1393.8654)},
    (2048, 2048): {4: (73.04, 224.3991082), 8: (78.6, 416.0803779), 16: (84.22, 781.5082372),
                   32: (144.09, 911.1295814), 64: (262.68, 998.7796751), 128: (474.87, 1105.487042),
                   256: (879.73, 1196.34)},
    (32784, 2048): {4: (236.1237305, 590.0635218), 8: (457.6965823, 608.8225492), 16: (866.9613514, 642.8337308)},
}
#    Raw JSON stored for (I, O, N): (128,2048,{8,32,64,256}), (2048,2048,{4 latency test,8,16,128}),
#    (32784,2048,{4}); the other rows are in the CSV only (same repository, same commit).
DSTACK_RAW = {(128, 2048): {8, 32, 64, 256}, (2048, 2048): {4, 8, 16, 128}, (32784, 2048): {4}}
#: vLLM's default gpu_memory_utilization (0.6 and 0.11 alike): the engine fills 0.9 of the GPU's whole
#: memory with weights, activations and the KV cache (INFERRED: neither source sets the flag)
VLLM_MEM_UTIL = 0.9
DSTACK_WEIGHTS_GB = 56.7677   # FACT: raw_data/gpu-usage.md, 'Loading model weights took 56.7677 GB in each GPU'
#: INFERRED: vLLM 0.6 without chunked prefill takes max_num_batched_tokens = max(max_model_len, 2048) and sizes
#: its KV cache after a profiling forward pass of that many tokens; the longest runs (32,784 + 2,048 tokens)
#: need max_model_len >= 34,832, taken for every row (one engine setting assumed). The plateaus say the cache
#: was that small: 1,221-1,312 output tokens/s at N = 128-256 for 2,176-token requests where N = 32 already
#: gives 836 at the same step time, i.e. about 45 sequences (~100k tokens) in flight, not the ~190k tokens a
#: cache sized after the running batch's activations would hold (chunked prefill's 512-token budget would
#: leave the latter)
DSTACK_TOKEN_BUDGET = 32784 + 2048


def dstack_cases():
    for (isl, osl), runs in DSTACK.items():
        for n, (elapsed, total_tps) in runs.items():
            # the CSV's latency column is rounded for some 2048/2048 rows (<0.4% off); its tokens_per_second
            # is the raw JSON's figure where one is stored, so the target is taken from it
            assert abs(n * (isl + osl) / elapsed - total_tps) / total_tps < 5e-3, (isl, osl, n)
            out_tps = total_tps * osl / (isl + osl)
            kind = "benchmark_latency.py (one batch of 4, avg of 2 iterations)" if (isl, n) == (2048, 4) \
                else "benchmark_throughput.py (all N prompts given to the offline engine at once)"
            raw = "raw JSON stored" if n in DSTACK_RAW[(isl, osl)] else "CSV only"
            eager = (" vLLM 0.6 (V0) runs a decode step in eager mode, without CUDA graphs, when a sequence is longer "
                     "than max_seq_len_to_capture (8192 by default): every step of these 34,832-token sequences; "
                     "dse assumes graph-launched steps." if isl + osl > 8192 else "")
            yield {
                "id": f"dstack_vllm0.6.3_llama3.1-405b-fp8_h100x8_tp8_{isl}-{osl}_n{n}_tokens_per_s",
                "source": DSTACK_SRC,
                "reliability": "A",
                "workload": "inference",
                "precision": "fp8",
                "model": {**LLAMA405, "seq_len": isl + osl},
                "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8, "gpus_per_node": 8},
                "parallel": {"tp": 8, **PARALLEL},
                "inference": {"input_len": isl, "output_len": osl, "batch": None, "concurrency": n,
                              "mode": "offline_max_throughput", "kv_cache_dtype": "bf16",
                              "quant_scope": "ffn_except_end_layers", "gpu_memory_utilization": VLLM_MEM_UTIL,
                              "max_num_tokens": DSTACK_TOKEN_BUDGET},
                "target": {"metric": "tokens_per_s", "value": round(out_tps, 2)},
                "also": {"requests_per_s": round(total_tps / (isl + osl), 5)},
                "inferred": sorted(MODEL_INFERRED + ["parallel.dp", "parallel.pp", "inference.concurrency",
                                                     "inference.kv_cache_dtype", "inference.gpu_memory_utilization",
                                                     "inference.max_num_tokens"]),
                "notes": (f"vLLM {kind}: N = {n} prompts of {isl} tokens, {osl} output tokens each (fixed), "
                          f"meta-llama/Llama-3.1-405B-FP8 on 8 H100 SXM5 (one TP-8 replica), {raw}. Measured "
                          f"elapsed {elapsed:g} s and {total_tps:g} tokens/s counting input + output tokens (the "
                          f"CSV's tokens_per_second = {n} x {isl + osl} / elapsed; its rounded latency column agrees "
                          f"to 0.4%); target = output tokens/s = tokens_per_second x {osl}/{isl + osl}. Written as offline_max_throughput with concurrency = N: the "
                          "engine holds at most the N requests it was given (vLLM 0.6 max_num_seqs default 256 "
                          "is not reached) and fewer when the KV cache is full (vLLM then preempts and "
                          "recomputes). KV cache in BF16 (vLLM kv_cache_dtype 'auto' = the checkpoint's "
                          "activation dtype; inferred, no flag stated). Meta's FP8 checkpoint quantizes only "
                          "the FFN weights and keeps the attention projections and the first and last layers "
                          "16-bit ('The Llama 3 Herd of Models' sec. 6.2): quant_scope ffn_except_end_layers, "
                          f"with which dse holds 56.72 GiB per GPU against the {DSTACK_WEIGHTS_GB} GiB vLLM "
                          "reported loading (raw_data/gpu-usage.md, vLLM's 'GB' being GiB; AMD's all-FP8 "
                          "checkpoint 49.32 in the same file; dse's all-FP8 count would be 47.74). The blog "
                          "says the H100s run out of KV memory as prompts and batches grow. max_num_tokens "
                          f"{DSTACK_TOKEN_BUDGET} (inferred): vLLM 0.6 without chunked prefill profiles a forward "
                          "pass of max(max_model_len, 2048) tokens before sizing its KV cache, and the 32784-token "
                          "runs need max_model_len >= 34832; the throughput plateaus at large N agree with the "
                          "resulting cache of about 100k tokens." + eager),
            }


# ---------------------------------------------------------------------------------------------------------
# 1b. The same dstack comparison's MI300X rows (same CSV, same commit; same benchmark_throughput.py offline runs,
#     same lengths and prompt counts): three deployments, each with its own CSV label, checkpoint, vLLM build and
#     flags (README 'Environment' and 'Offline Throughput-Latency Benchmark Results' @85a2fe17).
#     FACTS (csv_data/throughput_latency_curve.csv): (input_len, output_len) -> {N: (end_to_end_latency s,
#     tokens_per_second = all tokens / s)}
DSTACK_MI300X_REPO = "dstackai/benchmarks @85a2fe17 comparison/h100sxm5_vs_mi300x"
DSTACK_MI300X = {
    "meta_tp8": dict(
        label="8xMi300x 1FP8-meta", checkpoint="meta-llama/Llama-3.1-405B-FP8", vllm="0.6.3.dev109+gcb3b2b9b.d20241010",
        ckpt_id="llama3.1-405b-fp8", tp=8, quant_scope="ffn_except_end_layers", weights_gib=56.7677,
        weights_line="## 1x meta-llama/Llama-3.1-405B-FP8 in 8x Mi300x", sched_steps=15, raw_dir=None,
        command=('python benchmark_throughput.py --backend vllm --model "meta-llama/Llama-3.1-405B-FP8" '
                 "--input-len=<INPUT_LEN> --output-len=<OUTPUT_LEN> --tensor-parallel-size 8 --max-model-len 91680 "
                 "--num-prompts=<BATCH_SIZE> --enforce-eager --num-scheduler-step 15"),
        runs={(128, 2048): {4: (279.115799, 31.1841897), 8: (287.809995, 60.4843484), 16: (290.992608, 119.645651),
                            32: (293.69183, 237.092056), 64: (307.312373, 453.167565), 128: (340.863436, 817.124897),
                            256: (438.203916, 1271.22552)},
              (2048, 2048): {4: (266.06, 58.34189395), 8: (274.47, 111.8647335), 16: (284.33, 218.6357561),
                             32: (299.45, 418.4837956), 64: (341.75, 741.1052995), 128: (419.36, 1216.741493),
                             256: (611.82, 1705.140233)},
              (32784, 2048): {4: (376.392776, 370.1665092), 8: (477.3153248, 583.7985615),
                              16: (673.9836962, 826.8924058), 32: (1186.617763, 939.3285983),
                              64: (2375.957974, 938.2522858)}},
        raw={}),
    "amd_tp8": dict(
        label="8xMi300x 1FP8-amd", checkpoint="amd/Llama-3.1-405B-Instruct-FP8-KV", vllm="0.6.4.dev4+gc9fc1608",
        ckpt_id="llama3.1-405b-instruct-fp8-kv-amd", tp=8, quant_scope="all", weights_gib=49.3235,
        weights_line="## 1x amd/Meta-Llama-3.1-405B-Instruct-FP8-KV in 8x Mi300x", sched_steps=1,
        raw_dir="raw_data/8Mi300x-throughput-quark",
        command=('python benchmark_throughput.py --backend vllm --model "amd/Llama-3.1-405B-Instruct-FP8-KV" '
                 "--input-len=<INPUT_LEN> --output-len=<OUTPUT_LEN> --tensor-parallel-size 8 --max-model-len 91680 "
                 "--num-prompts=<BATCH_SIZE> --enforce-eager --num-scheduler-step 1"),
        runs={(128, 2048): {4: (67.79069331, 128.3952055), 8: (68.69831185, 253.3977842), 16: (73.0668384, 476.4952304),
                            32: (81.6235981, 853.0866271), 64: (99.36810183, 1401.496028),
                            128: (131.6356226, 2115.901414), 256: (227.2880827, 2450.880809)},
              (2048, 2048): {4: (68.37971305, 239.6032283), 8: (70.53868689, 464.5394101),
                             16: (78.69783408, 832.7548117), 32: (96.35701944, 1360.274537),
                             64: (125.3573432, 2091.173866), 128: (186.8320667, 2806.199221),
                             256: (334.4946058, 3134.806905)},
              (32784, 2048): {4: (129.3197857, 1077.391207), 8: (158.0476773, 1763.113542),
                              16: (223.162426, 2497.33797), 32: (353.0339651, 3157.271284),
                              64: (720.3670517, 3094.600169)}},
        raw={(128, 2048): {4, 8, 32, 128}, (2048, 2048): {4, 8, 16, 32, 256}, (32784, 2048): {8, 64}}),
    "amd_tp4": dict(
        label="4xMi300x 1FP8-amd", checkpoint="amd/Llama-3.1-405B-Instruct-FP8-KV", vllm="0.6.4.dev4+gc9fc1608",
        ckpt_id="llama3.1-405b-instruct-fp8-kv-amd", tp=4, quant_scope="all", weights_gib=97.4347,
        weights_line="## 1x amd/Meta-Llama-3.1-405B-Instruct-FP8-KV in 4x Mi300x", sched_steps=1,
        raw_dir="raw_data/4Mi300x-throughput-quark",
        command=("the 8-GPU amd command with --tensor-parallel-size 4 (INFERRED: the README prints only the TP-8 "
                 "command; gpu-usage.md shows the replica on GPUs 0-3)"),
        runs={(128, 2048): {4: (94.17381532, 92.42484198), 8: (97.83940387, 177.9242239), 16: (101.5019775, 343.0080957),
                            32: (113.7299072, 612.2575997), 64: (136.9388266, 1016.979651),
                            128: (195.5264158, 1424.503174), 256: (431.6155709, 1290.62999)},
              (2048, 2048): {4: (97.15577103, 168.6364055), 8: (103.1994496, 317.5210734),
                             16: (114.7069595, 571.3341223), 32: (138.4119717, 946.9701092),
                             64: (185.5635483, 1412.691245), 128: (442.6162474, 1184.520458),
                             256: (790.0569983, 1327.215634)},
              (32784, 2048): {4: (158.1494814, 880.9892944), 8: (262.4562405, 1061.723659),
                              16: (523.8995579, 1063.776427), 32: (1048.253293, 1063.315524),
                              64: (2000.700276, 1114.233864)}},
        raw={(128, 2048): {4, 8, 64, 256}, (2048, 2048): {4, 32}, (32784, 2048): {4, 8, 16}}),
}
#: FACT: README commands, '--max-model-len 91680' on every offline run (H100 and MI300X alike). INFERRED, as for
#: the H100 rows: vLLM 0.6 without chunked prefill (benchmark_throughput.py of that period passes
#: enable_chunked_prefill = its --enable-chunked-prefill flag, default False) takes max_num_batched_tokens =
#: max(max_model_len, 2048) and profiles a forward pass of that many tokens before sizing the KV cache
DSTACK_MI300X_MAX_MODEL_LEN = 91680


def dstack_mi300x_cases():
    for key, dep in DSTACK_MI300X.items():
        src = (f"dstack 'Exploring inference memory saturation effect: H100 vs MI300x' (2024-12-05, "
               f"dstack.ai/blog/h100-mi300x-inference-benchmark); data {DSTACK_MI300X_REPO}/csv_data/"
               f"throughput_latency_curve.csv rows '{dep['label']}'"
               + (f" ({dep['raw_dir']}/*.json)" if dep["raw_dir"] else "") + f"; vLLM {dep['vllm']} (ROCm)")
        for (isl, osl), runs in dep["runs"].items():
            for n, (elapsed, total_tps) in runs.items():
                implied = n * (isl + osl) / total_tps          # elapsed the tokens_per_second column implies
                off = (elapsed - implied) / implied
                # every row but the Meta checkpoint's 2048/2048 ones agrees to 5e-3 (raw JSON, where stored,
                # equal to both columns); those seven disagree by 0.5-6.7% with no raw file to settle it
                mismatch = key == "meta_tp8" and isl == 2048
                assert abs(off) < (0.07 if mismatch else 5e-3), (key, isl, osl, n)
                out_tps = total_tps * osl / (isl + osl)
                raw = (f"raw JSON stored ({dep['raw_dir']}/Meta-Llama-3.1-405B-Instruct-FP8-KV_throughput_req{n}_in{isl}"
                       f"_out{osl}_.json, equal to the CSV)" if n in dep["raw"].get((isl, osl), ()) else "CSV only")
                eager = ("Both AMD commands pass --enforce-eager: every decode step launches its kernels one by one "
                         "(no HIP graphs; the 32784-token runs would have fallen back to eager anyway), while dse "
                         "assumes graph-launched steps. ")
                if dep["sched_steps"] > 1:
                    eager += (f"--num-scheduler-step {dep['sched_steps']}: multi-step scheduling, the host schedules "
                              f"{dep['sched_steps']} decode steps at a time (not modelled). ")
                quant = ("Meta's FP8 checkpoint (as on the H100 rows): FFN weights FP8 with per-row scales and dynamic "
                         "per-token activation scales, attention projections and the first and last layers 16-bit "
                         "(quant_scope ffn_except_end_layers); the README concludes 'meta's version is not at all "
                         "optimized for Mi300x'. OUTLIER: the same runs with AMD's checkpoint on the same 8 MI300X "
                         "(rows '8xMi300x 1FP8-amd') measure up to 3x faster. " if dep["quant_scope"] != "all" else
                         "AMD's Quark checkpoint: all linear layers but lm_head FP8 with per-tensor weight and "
                         "activation scales (model card 'Quantization Strategy'; quant_scope all); its FP8 KV-cache "
                         "scales are unused because no --kv-cache-dtype fp8 was passed. ")
                note_mismatch = (f" The CSV's end_to_end_latency ({elapsed:g} s) and tokens_per_second (implying "
                                 f"{implied:.2f} s) disagree by {abs(off) * 100:.1f}% on this row (all seven Meta-"
                                 f"checkpoint 2048/2048 MI300X rows, 0.5-6.7%; no raw JSON stored): the target follows "
                                 f"tokens_per_second, as on the other rows; reliability B." if mismatch else "")
                yield {
                    "id": f"dstack_vllm{dep['vllm'][:5]}-rocm_{dep['ckpt_id']}_mi300xx{dep['tp']}_tp{dep['tp']}_"
                          f"{isl}-{osl}_n{n}_tokens_per_s",
                    "source": src,
                    "reliability": "B" if mismatch else "A",
                    "workload": "inference",
                    "precision": "fp8",
                    "model": {**LLAMA405, "seq_len": isl + osl},
                    "cluster": {"gpu": "MI300X", "num_gpus": dep["tp"], "gpus_per_node": 8},
                    "parallel": {"tp": dep["tp"], **PARALLEL},
                    "inference": {"input_len": isl, "output_len": osl, "batch": None, "concurrency": n,
                                  "mode": "offline_max_throughput", "kv_cache_dtype": "bf16",
                                  "quant_scope": dep["quant_scope"], "gpu_memory_utilization": VLLM_MEM_UTIL,
                                  "max_num_tokens": DSTACK_MI300X_MAX_MODEL_LEN},
                    "target": {"metric": "tokens_per_s", "value": round(out_tps, 2)},
                    "also": {"requests_per_s": round(total_tps / (isl + osl), 5)},
                    "inferred": sorted(MODEL_INFERRED + ["parallel.dp", "parallel.pp", "inference.concurrency",
                                                         "inference.kv_cache_dtype",
                                                         "inference.gpu_memory_utilization",
                                                         "inference.max_num_tokens"]),
                    "notes": (f"vLLM benchmark_throughput.py (all N prompts given to the offline engine at once): "
                              f"N = {n} prompts of {isl} tokens, {osl} output tokens each (fixed), {dep['checkpoint']} "
                              f"on {dep['tp']} AMD Instinct MI300X (192 GB, 750 W; one TP-{dep['tp']} replica), {raw}. "
                              + (f"Command (README): `{dep['command']}`. " if dep["command"].startswith("python") else
                                 f"Command: {dep['command']}. ") + f"Measured elapsed {elapsed:g} s and {total_tps:g} "
                              f"tokens/s counting input + output tokens (tokens_per_second = {n} x {isl + osl} / "
                              f"elapsed); target = output tokens/s = tokens_per_second x {osl}/{isl + osl}."
                              + note_mismatch + " Written as offline_max_throughput with concurrency = N, as the H100 "
                              "rows: the engine holds at most the N requests it was given (vLLM 0.6 max_num_seqs "
                              "default 256 is not reached) and fewer when the KV cache is full (vLLM then preempts and "
                              "recomputes). KV cache in BF16 (kv_cache_dtype 'auto', no flag in the command; "
                              f"inferred). {quant}vLLM reported loading {dep['weights_gib']} GB of weights per GPU "
                              f"(raw_data/gpu-usage.md, '{dep['weights_line']}'; vLLM's 'GB' being GiB). "
                              + eager + f"max_num_tokens {DSTACK_MI300X_MAX_MODEL_LEN}: the stated --max-model-len, "
                              "which vLLM 0.6 without chunked prefill takes as its token budget and profiles before "
                              "sizing the KV cache (rule inferred, as on the H100 rows, which assume 34832). "
                              "gpu_memory_utilization 0.9 (benchmark_throughput.py default; not set)."),
                }


# ---------------------------------------------------------------------------------------------------------
# 1c. dstack, "DeepSeek R1 inference performance: MI300X vs. H200" (blog 2025-03-18, dstackai/dstack PR #2425,
#     docs/blog/posts/h200-mi300x-deepskeek-benchmark.md): vLLM offline runs of DeepSeek-R1 on 8 MI300X.
#     FACTS: dstackai/benchmarks @7f37e669 Deepseek-R1/raw_data/offline_results.csv, rows 'mi300,vllm':
#     (input_len, output_len) -> {num_requests: (elapsed_time s, tokens_per_second, total_output_tokens)}.
#     Script dstackai/benchmarks @b9c66594 Deepseek-R1/benchmark_throughput.py (vLLM's benchmark_throughput.py
#     with an SGLang backend added): --input-len gives each prompt that many random token ids (re-tokenized to
#     the length), SamplingParams(ignore_eos=True, max_tokens=output_len), all prompts to LLM.generate at once;
#     tokens_per_second = (input + output tokens) / elapsed, total_output_tokens = N x output_len.
#     README @209ca6f9: 'vLLM-Mi300' vLLM 0.7.3.dev138+g21f6ca217 (ROCm 6.3), image
#     rocm/vllm-dev:vllm-ds3-staging-0217; offline command `python benchmark_throughput.py --backend vllm --model
#     deepseek-ai/DeepSeek-R1 --input-len=3200 --output-len=800 --tensor-parallel-size=8 --max-model-len=32768
#     --num-prompts=1024` (at 32..1024 prompts and output 800/1600/3200).
DSR1_SRC = ("dstack 'DeepSeek R1 inference performance: MI300X vs. H200' (2025-03-18, dstackai/dstack "
            "docs/blog/posts/h200-mi300x-deepskeek-benchmark.md); data dstackai/benchmarks @7f37e669 "
            "Deepseek-R1/raw_data/offline_results.csv rows 'mi300,vllm'; script @b9c66594 "
            "Deepseek-R1/benchmark_throughput.py; README @209ca6f9; vLLM 0.7.3.dev138+g21f6ca217 (ROCm)")
DSR1_MI300X_VLLM = {
    (3200, 800): {32: (56.60333672, 2261.350786, 25600), 64: (74.39861901, 3440.924084, 51200),
                  128: (110.4265853, 4636.564633, 102400), 256: (187.5629417, 5459.50064, 204800),
                  512: (376.5443939, 5438.933717, 409600), 1024: (755.7529773, 5419.760323, 819200)},
    (3200, 1600): {32: (106.6691427, 1439.966574, 51200), 64: (134.0326467, 2291.978914, 102400),
                   128: (186.3907014, 3296.301777, 204800), 256: (337.2495072, 3643.593166, 409600),
                   512: (677.4777513, 3627.573002, 819200), 1024: (1356.931249, 3622.29111, 1638400)},
    (3200, 3200): {256: (744.9976375, 2199.201605, 819200), 512: (1446.375532, 2265.525051, 1638400),
                   1024: (2698.302436, 2428.786303, 3276800)},
}
#: DeepSeek-R1: the DeepSeek-V3 architecture (build_disaggregated.py's block: the HF config's values and dse's
#: router skew), under R1's name
DEEPSEEK_R1 = {**DSV3, "name": "DeepSeek-R1"}
DSR1_INFERRED = ["model.mla", "model.moe.expert_groups", "model.moe.top_groups", "model.moe.router_skew"]
#: INFERRED: vLLM 0.7 (V0 engine, the default before 0.8) defaults max_num_seqs = 256, so at most 256 of the N
#: prompts run at once; chunked prefill is switched on by default only when max_model_len > 32768, so with
#: --max-model-len=32768 the token budget is max(max_model_len, 2048) = 32768
DSR1_MAX_NUM_SEQS = 256
DSR1_TOKEN_BUDGET = 32768


def dsr1_mi300x_cases():
    for (isl, osl), runs in DSR1_MI300X_VLLM.items():
        for n, (elapsed, total_tps, out_tokens) in runs.items():
            assert out_tokens == n * osl and abs(n * (isl + osl) / elapsed - total_tps) / total_tps < 1e-6, (isl, osl, n)
            out_tps = out_tokens / elapsed
            conc = min(n, DSR1_MAX_NUM_SEQS)
            yield {
                "id": f"dstack_vllm0.7.3-rocm_deepseek-r1_fp8_mi300xx8_tp8_{isl}-{osl}_n{n}_tokens_per_s",
                "source": DSR1_SRC,
                "reliability": "B",
                "workload": "inference",
                "precision": "fp8",
                "model": {**DEEPSEEK_R1, "seq_len": isl + osl},
                "cluster": {"gpu": "MI300X", "num_gpus": 8, "gpus_per_node": 8},
                "parallel": {"tp": 8, **PARALLEL},
                "inference": {"input_len": isl, "output_len": osl, "batch": None, "concurrency": conc,
                              "mode": "offline_max_throughput", "kv_cache_dtype": "bf16",
                              "gpu_memory_utilization": VLLM_MEM_UTIL, "max_num_tokens": DSR1_TOKEN_BUDGET},
                "target": {"metric": "tokens_per_s", "value": round(out_tps, 2)},
                "also": {"requests_per_s": round(n / elapsed, 5)},
                "inferred": sorted(set(MODEL_INFERRED + MOE_INFERRED + DSR1_INFERRED + [
                    "parallel.dp", "parallel.pp", "parallel.ep", "inference.concurrency", "inference.kv_cache_dtype",
                    "inference.gpu_memory_utilization", "inference.max_num_tokens"])),
                "notes": (f"vLLM offline run of dstack's benchmark_throughput.py: `--backend vllm --model "
                          f"deepseek-ai/DeepSeek-R1 --input-len={isl} --output-len={osl} --tensor-parallel-size=8 "
                          f"--max-model-len=32768 --num-prompts={n}` on 8 MI300X (192 GB, 750 W): {n} prompts of "
                          f"{isl} random tokens, each generating exactly {osl} tokens (ignore_eos), all given to "
                          f"LLM.generate at once. Measured elapsed {elapsed:g} s, {total_tps:g} tokens/s counting "
                          f"input + output tokens; target = total_output_tokens {out_tokens} / elapsed. Concurrency "
                          f"= min(N, {DSR1_MAX_NUM_SEQS}): vLLM 0.7's V0 engine runs at most max_num_seqs = "
                          f"{DSR1_MAX_NUM_SEQS} sequences (default; inferred) and fewer when the KV cache is full. "
                          "OUTLIER: the DeepSeek-R1 engines of this study (early 2025, the model's first weeks) ran "
                          "far below later engines on the same kind of GPU; its own H200 TensorRT-LLM runs made 416 "
                          "output tokens/s on 8 GPUs at 3200/800 tokens and N = 1024, TensorRT-LLM's developer guide "
                          "13,016 on 8 H200 at 1000/1000 (validation/trtllm_mla.jsonl, attention DP + EP 8). "
                          "The vLLM build and image are the README's 'vLLM-Mi300' section (its serve task: image "
                          "rocm/vllm-dev:vllm-ds3-staging-0217, VLLM_FP8_PADDING=0, VLLM_USE_TRITON_FLASH_ATTN=0); "
                          "that the offline runs used the same environment is inferred (reliability B). "
                          "DeepSeek's FP8 checkpoint: linear layers FP8 with 128x128 block weight scales and dynamic "
                          "activation scales (quant_scope all); MoE experts split tensor-parallel over the 8 GPUs (no "
                          "expert parallelism in vLLM 0.7: ep 1); MLA KV cache (512 + 64 latent values per token and "
                          "layer, held by every TP rank) in BF16 (kv_cache_dtype 'auto'; inferred). max_num_tokens "
                          f"{DSR1_TOKEN_BUDGET}: without chunked prefill (vLLM enables it by default only above 32768 "
                          "tokens of max_model_len) the token budget is max(max_model_len, 2048) (inferred). "
                          "gpu_memory_utilization 0.9 (default; not set). Multi-token prediction not used (no "
                          "speculative flag)."),
            }


# ---------------------------------------------------------------------------------------------------------
# 2. GPUStack Performance Lab, vLLM v0.11.0, Qwen3-235B-A22B-Instruct-2507 on H100s.
#    FACTS (docs/performance-lab/qwen3-235b-a22b/h100.md @10e9444a, 'Other Benchmark Cases'), per deployment
#    and random dataset: (asked input, asked output, successful requests, duration s, total input tokens,
#    total generated tokens, req/s, output tok/s, total tok/s, mean TTFT ms, mean TPOT ms)
GPUSTACK_SRC = ("GPUStack Performance Lab 'Optimizing Qwen3-235B-A22B Throughput on NVIDIA H100 GPUs' "
                "(gpustack/gpustack @10e9444a, docs/performance-lab/qwen3-235b-a22b/h100.md, 'Other Benchmark "
                "Cases'); vLLM v0.11.0, vllm bench serve random dataset")
GPUSTACK = {
    "bf16_tp8": dict(
        serve="vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507 -tp 8", label="baseline serving script",
        precision="bf16", tp=8, max_num_tokens=8192, mnt_inferred=True,
        runs=[(32000, 100, 100, 141.60, 3200000, 8191, 0.71, 57.85, 22657.51, 70409.55, 132.10),
              (4000, 200, 500, 98.99, 1997942, 92185, 5.05, 931.21, 21113.53, 47811.58, 68.94),
              (2000, 100, 500, 43.91, 998175, 49500, 11.39, 1127.26, 23858.69, 21313.79, 101.08),
              (128, 4, 984, 8.83, 125650, 3936, 111.38, 445.53, 14668.27, 7042.17, 212.98)]),
    "fp8_tp4": dict(
        serve="vllm serve Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 -tp 4 --max-num-batched-tokens 16384",
        label="optimized serving script", precision="fp8", tp=4, max_num_tokens=16384, mnt_inferred=False,
        runs=[(32000, 100, 100, 208.79, 3200000, 8281, 0.48, 39.66, 15366.32, 103754.50, 194.60),
              (4000, 200, 500, 126.76, 1997942, 90966, 3.94, 717.60, 16478.79, 60513.14, 89.52),
              (2000, 100, 500, 55.28, 998175, 49471, 9.04, 894.84, 18950.04, 26860.95, 125.93),
              (128, 4, 984, 6.11, 125650, 3936, 161.07, 644.28, 21211.83, 5621.51, 125.18)]),
}
#    Prompts sent: the page prints --num-prompts only for its 4K example (500); 100/500/500 are the printed
#    'Successful requests' of the 32K/4K/2K runs. The 128-token runs report 984 successful requests; 1,000
#    sent is INFERRED (the same lab's Qwen3-32B H100 page reports 1,000 successful for its 128-token run).
GPUSTACK_PROMPTS = {32000: 100, 4000: 500, 2000: 500, 128: 1000}
VLLM_MAX_NUM_SEQS = 1024  # vLLM V1 default for OPENAI_API_SERVER on >= 70 GiB GPUs other than A100
#    (vllm/engine/arg_utils.py get_batch_defaults: max_num_seqs 1024, max_num_batched_tokens 8192) -- INFERRED
#    for this run (no flag given), read from the vLLM source of that period, not from the page.


def gpustack_cases():
    for key, dep in GPUSTACK.items():
        for (isl, osl, ok, dur, tin, tout, rps, out_tps, tot_tps, ttft, tpot) in dep["runs"]:
            assert abs(ok / dur - rps) / rps < 0.02 and abs(tout / dur - out_tps) / out_tps < 0.01, (key, isl)
            out_mean = tout / ok
            in_mean = tin / ok
            sent = GPUSTACK_PROMPTS[isl]
            conc = min(sent, VLLM_MAX_NUM_SEQS)
            inferred = MODEL_INFERRED + MOE_INFERRED + ["parallel.dp", "parallel.pp", "parallel.ep",
                                                        "cluster.gpu", "cluster.gpus_per_node",
                                                        "inference.output_len", "inference.concurrency",
                                                        "inference.kv_cache_dtype",
                                                        "inference.gpu_memory_utilization"]
            if dep["mnt_inferred"]:
                inferred.append("inference.max_num_tokens")
            short = abs(out_mean - osl) / osl > 0.005
            yield {
                "id": f"gpustack_vllm0.11.0_qwen3-235b-a22b_{dep['precision']}_h100x{dep['tp']}_tp{dep['tp']}_"
                      f"{isl}-{osl}_n{sent}_requests_per_s",
                "source": GPUSTACK_SRC,
                "reliability": "B",
                "workload": "inference",
                "precision": dep["precision"],
                "model": {**QWEN235, "seq_len": isl + round(out_mean)},
                "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": dep["tp"], "gpus_per_node": 8},
                "parallel": {"tp": dep["tp"], **PARALLEL},
                "inference": {"input_len": isl, "output_len": max(1, round(out_mean)), "batch": None,
                              "concurrency": conc, "mode": "offline_max_throughput", "kv_cache_dtype": "bf16",
                              "max_num_tokens": dep["max_num_tokens"], "gpu_memory_utilization": VLLM_MEM_UTIL},
                "target": {"metric": "requests_per_s", "value": rps},
                "also": {"tokens_per_s": out_tps},
                "inferred": sorted(set(inferred)),
                "notes": (f"{dep['label']}: `{dep['serve']}`; `vllm bench serve --backend openai-chat "
                          f"--dataset-name random --random-input-len {isl} --random-output-len {osl} --num-prompts "
                          f"{sent} --seed 42`, all prompts at once"
                          + (" (1,000 prompts inferred: 984 succeeded)" if ok != sent else "")
                          + f". {ok} successful requests in {dur:g} s: "
                          f"{rps:g} req/s (target), {out_tps:g} output tok/s, {tot_tps:g} total tok/s; mean TTFT "
                          f"{ttft:g} ms (queueing behind the other prompts), mean TPOT {tpot:g} ms. Input "
                          f"{tin} tokens = {in_mean:.1f} per request (the chat template adds a few more, not "
                          f"counted); generated {tout} = {out_mean:.1f} per request"
                          + (f" instead of {osl} (no --ignore-eos: requests stopped at end-of-sequence), "
                             "written as output_len" if short else ", written as output_len")
                          + ". GPU 'NVIDIA H100 GPUs' (form factor not stated; SXM assumed, as for an 8-GPU "
                          "TP-8 server). MoE experts split tensor-parallel (no --enable-expert-parallel: ep 1). "
                          f"Concurrency = min(prompts sent, vLLM's default max_num_seqs {VLLM_MAX_NUM_SEQS}); "
                          "max_num_tokens = max-num-batched-tokens"
                          + (" (vLLM's API-server default 8192 on H100, inferred)" if dep["mnt_inferred"] else
                             " as set on the command line")
                          + ". KV cache BF16 (kv-cache-dtype 'auto', inferred)."
                          + (" The FP8 checkpoint quantises the linear layers in 128x128 blocks. The page's own "
                             "summary table doubles the TP-4 figures for two instances on 8 GPUs; the case is the "
                             "one instance as printed." if dep["precision"] == "fp8" else "")),
            }


# ---------------------------------------------------------------------------------------------------------
# 3. SGLang Cookbook, sglang 0.5.6, Qwen3-235B-A22B-Instruct-2507 BF16, 8 x B200, TP 8.
#    FACTS (docs/autoregressive/Qwen/Qwen3.md @230dd7f5, '5.1 Speed Benchmark'), per scenario (asked
#    input, asked output) and max concurrency C: (successful requests, duration s, total input tokens,
#    total generated tokens, output tok/s, 'Concurrency' (mean in flight), mean TTFT ms, mean TPOT ms,
#    mean ITL ms)
SGLANG_SRC = ("SGLang Cookbook, Qwen3 page (sgl-project/sgl-cookbook @230dd7f5, docs/autoregressive/Qwen/Qwen3.md, "
              "'5.1 Speed Benchmark'); sglang 0.5.6, sglang.bench_serving random dataset")
SGLANG = {
    ("chat", 1000, 1000): {1: (10, 43.56, 6101, 4210, 96.65, 1.00, 99.03, 10.12, 10.13),
                           16: (80, 48.95, 39668, 40725, 832.04, 13.61, 215.70, 16.36, 15.96),
                           100: (500, 92.07, 249831, 252162, 2738.78, 90.50, 260.55, 32.94, 32.59)},
    ("reasoning", 1000, 8000): {1: (10, 457.45, 6101, 44452, 97.17, 1.00, 110.60, 10.23, 10.27),
                                16: (80, 340.17, 39668, 318226, 935.49, 13.85, 169.71, 14.82, 14.76),
                                64: (320, 544.83, 158939, 1300705, 2387.34, 56.35, 265.03, 23.66, 23.54)},
    ("summarization", 8000, 1000): {1: (10, 44.82, 41941, 4210, 93.94, 1.00, 139.90, 10.31, 10.33),
                                    16: (80, 50.68, 300020, 41589, 820.69, 13.90, 284.29, 16.81, 16.42),
                                    64: (320, 94.77, 1273893, 169680, 1790.43, 58.63, 238.22, 32.50, 32.36)},
}
SGLANG_CHUNK = 16384  # INFERRED: sglang server_args default chunked_prefill_size for GPUs of >= 160 GB (B200)


def sglang_cases():
    for (scen, isl, osl), runs in SGLANG.items():
        for c, (ok, dur, tin, tout, out_tps, mean_conc, ttft, tpot, itl) in runs.items():
            assert abs(tout / dur - out_tps) / out_tps < 0.01, (scen, c)
            in_mean, out_mean = tin / ok, tout / ok
            figures = {"tokens_per_s": out_tps, "ttft_ms": ttft, "itl_ms": itl}
            for metric, value in figures.items():
                yield {
                    "id": f"sglang0.5.6-cookbook_qwen3-235b-a22b_bf16_b200x8_tp8_{isl}-{osl}_c{c}_{metric}",
                    "source": SGLANG_SRC,
                    "reliability": "B",
                    "workload": "inference",
                    "precision": "bf16",
                    "model": {**QWEN235, "seq_len": round(in_mean) + round(out_mean)},
                    "cluster": {"gpu": "B200-180GB", "num_gpus": 8, "gpus_per_node": 8},
                    "parallel": {"tp": 8, **PARALLEL},
                    "inference": {"input_len": round(in_mean), "output_len": round(out_mean), "batch": None,
                                  "concurrency": c, "mode": "online", "kv_cache_dtype": "bf16",
                                  "max_num_tokens": SGLANG_CHUNK, "num_requests": ok,
                                  "output_len_cv": round(((osl * osl - 1) / 12) ** 0.5 / out_mean, 4)},
                    "target": {"metric": metric, "value": value},
                    "also": {**{k: v for k, v in figures.items() if k != metric},
                             "requests_per_s": round(ok / dur, 4)},
                    "inferred": sorted(set(MODEL_INFERRED + MOE_INFERRED + [
                        "parallel.dp", "parallel.pp", "parallel.ep", "cluster.gpus_per_node",
                        "inference.input_len", "inference.output_len", "inference.kv_cache_dtype",
                        "inference.max_num_tokens"])),
                    "notes": (f"SGLang cookbook '{scen}' scenario: `python -m sglang.launch_server --model "
                              f"Qwen/Qwen3-235B-A22B-Instruct-2507 --tp 8` on 8 B200; `sglang.bench_serving "
                              f"--dataset-name random --random-input-len {isl} --random-output-len {osl} "
                              f"--num-prompts {ok} --max-concurrency {c}`: closed loop of {c} clients, "
                              f"{ok} requests in {dur:g} s. Lengths are not fixed: the default "
                              f"--random-range-ratio 0.0 draws each prompt and output length uniformly up to "
                              f"the asked {isl}/{osl} tokens (output_len_cv: that draw's standard deviation over the run's mean output); the case uses the means of this run, {tin} input "
                              f"tokens / {ok} = {in_mean:.1f} and {tout} generated / {ok} = {out_mean:.1f} (so the "
                              f"prompt attention, which grows as the square of the length, is under-counted a "
                              f"little). Measured: {out_tps:g} output tok/s, mean TTFT {ttft:g} ms, mean ITL "
                              f"{itl:g} ms (mean TPOT {tpot:g} ms), mean requests in flight {mean_conc:g}. "
                              "MoE experts split tensor-parallel (no --ep: ep 1). KV cache BF16 (default 'auto'); "
                              f"max_num_tokens = sglang's default chunked_prefill_size {SGLANG_CHUNK} for GPUs of "
                              "160 GB and more (server_args; inferred)."),
                }


def main() -> None:
    cases = (list(dstack_cases()) + list(gpustack_cases()) + list(sglang_cases()) + list(dstack_mi300x_cases())
             + list(dsr1_mi300x_cases()))
    write_cases(cases, OUT)


if __name__ == "__main__":
    main()
