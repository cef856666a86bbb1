#!/usr/bin/env python3
"""Write validation/vllm_serving.jsonl: serving measurements of vLLM (and one SGLang set) with stated GPU,
tensor parallelism, input/output lengths and load, as out-of-sample checks of dse's serving model, whose
numbers were fitted on TensorRT-LLM.

Usage: python validation/build_vllm_serving.py   (no network: every number below was read from the public
files named in each source block and is kept here as a literal).

Case format: ../shared/validation/README.md (LLM inference cases) with dse's optional inference keys
(``kv_cache_dtype``, ``max_num_tokens``). One case per measured figure; the other figures of the same run go
in ``also``; what the source does not state is listed in ``inferred`` and explained in ``notes``.

Three sources, two engines:

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
- dstack's MI300X rows: not a GPU of the case format.
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
                                  "max_num_tokens": SGLANG_CHUNK},
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
                              f"the asked {isl}/{osl} tokens; the case uses the means of this run, {tin} input "
                              f"tokens / {ok} = {in_mean:.1f} and {tout} generated / {ok} = {out_mean:.1f} (so the "
                              f"prompt attention, which grows as the square of the length, is under-counted a "
                              f"little). Measured: {out_tps:g} output tok/s, mean TTFT {ttft:g} ms, mean ITL "
                              f"{itl:g} ms (mean TPOT {tpot:g} ms), mean requests in flight {mean_conc:g}. "
                              "MoE experts split tensor-parallel (no --ep: ep 1). KV cache BF16 (default 'auto'); "
                              f"max_num_tokens = sglang's default chunked_prefill_size {SGLANG_CHUNK} for GPUs of "
                              "160 GB and more (server_args; inferred)."),
                }


def main() -> None:
    cases = list(dstack_cases()) + list(gpustack_cases()) + list(sglang_cases())
    write_cases(cases, OUT)


if __name__ == "__main__":
    main()
