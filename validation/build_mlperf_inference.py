#!/usr/bin/env python3
"""Write validation/mlperf_inference.jsonl: MLPerf Inference (datacenter, closed division) LLM results of NVIDIA's
submissions as serving cases.

Benchmarks: ``llama2-70b`` (Llama-2-70b-chat-hf on the MLPerf OpenOrca subset; rounds v4.0-v5.1; H100-SXM-80GB,
H200-SXM-141GB, B200-180GB, GB200) and ``llama3.1-405b`` (Llama-3.1-405B-Instruct; round v5.1; B200, GB200 NVL72,
GB300 NVL72). Every submission is NVIDIA's TensorRT-LLM harness ("Custom" harness, MaxP).

Usage: python validation/build_mlperf_inference.py   (no network: every number below was read from the public
result logs, README result tables and configs named in each row and is kept here as a literal).

Case format: ../shared/validation/README.md (LLM inference cases) with dse's optional inference keys
``kv_cache_dtype`` and ``max_num_tokens`` where the engine config states them.

Targets (``tokens_per_s_per_gpu``): the system's output tokens/s divided by its GPUs. An MLPerf system of n GPUs
runs n / (tp * pp) identical engine replicas fed by one LoadGen, so the case is written as the whole system
(``cluster.num_gpus`` = n, ``parallel.dp`` = n / (tp * pp)).
* Offline: ``Tokens per second`` of the performance run's mlperf_log_summary.txt (LoadGen counts generated tokens
  only; the whole query of ~10 passes over the data set is issued at once) -> ``mode: offline_max_throughput``.
* Server: ``Completed tokens per second``; LoadGen issues Poisson arrivals at the ``Scheduled samples per second``
  it prints, which is written into the notes as the offered request rate (read by dse.validate.offered_rate) ->
  ``mode: online``. The latency constraints of the rules are printed in the same summary (``ttft_latency``,
  ``tpot_latency``: 2 s / 200 ms at the 99th percentile for llama2-70b, 6 s / 175 ms for llama3.1-405b); the run's
  mean TTFT and mean time per output token go to ``also`` (``ttft_ms``, ``itl_ms``).
* Two v5.1 B200 Offline results are read from the system's README results table (the summaries are not stored in
  the fork read): the table's ``Tokens/s``.

Request lengths vary per request; the cases carry means (reliability B, ``inference.input_len`` /
``output_len`` in ``inferred``):
* input_len, llama2-70b: 222 tokens = mean of ``tok_input_length`` (Llama-2 tokens of the chat-templated prompt with
  its system prompt, plus the one response-init token the MLPerf preprocessing appends) of the 24,576-sample data
  set, estimated from 5,905 rows of openshift-psap/performance-dashboard mlperf-data/summaries/llama2-70b-99.csv
  (a per-sample length dump of open_orca_gpt4_tokenized_llama.sampled_24576.pkl). The file holds the four
  equally sampled origin blocks in order (cot, flan, niv, t0; 6,144 rows each, mlcommons/inference
  language/llama2-70b/processorca.py); block means from 464 / 1,266 / 2,036 / 2,139 rows read: 120.4, 189.5,
  272.5, 305.7 -> 222.0 (sampling error about +-3 tokens). The maximum is 1,024 (``--seqlen_limit``).
* input_len, llama3.1-405b: 9,429 tokens, the mean of all 8,313 rows of mlperf-data/summaries/llama3-1-405b.csv
  (input_length of mlperf_llama3.1_405b_dataset_8313_processed_fp16_eval.pkl; the data set mixes LongBench,
  LongDataCollections, RULER and GovReport samples in blocks; std 4,067, 476 to 19,988 tokens). The file's output
  column, the reference outputs, has mean 684.68, the benchmark's stated tokens_per_sample, which checks the copy.
  (An earlier estimate from 988 rows in six regions gave 9,700.)
* output_len_cv, llama3.1-405b: 0.381, the reference outputs' standard deviation over mean in the same file (260.8
  / 684.7; 3 to 1,830 tokens): the cases' ``inference.output_len_cv`` (the requests in flight are length-biased,
  dse's serving model). llama2-70b has none: the file's outputs are the GPT-4 answers of OpenOrca (mean 218.9, not
  the 294.45 tokens Llama-2 generates), so Llama-2's own spread is not known.
* output_len: where the summary gives samples/s as well as tokens/s, their ratio (the mean number of tokens the
  run generated; generation stops at EOS, so it differs between FP8 and FP4 engines: 274-293 for llama2-70b,
  630-656 for llama3.1-405b); otherwise the reference implementation's mean generated length (mlcommons/inference
  language/llama2-70b/README.md 'Tokens per sample: 294.45'; language/llama3.1-405b/README.md
  'tokens_per_sample': 684.68). (The README result tables' TOKENS_PER_SAMPLE, 265.005 and 616.212, are the
  accuracy thresholds, 90% of those references, not measurements.)

Engine batch: the configs' ``gpu_batch_size`` is the engine's maximum batch (TensorRT-LLM max_batch_size) under
in-flight batching, not a fixed running batch, so ``inference.batch`` stays null (dse picks the throughput-maximising
batch within memory) and the maximum is ``inference.max_batch``.

Left out: mixtral-8x7b (v4.1 and v5.0 results are stored but no per-system engine config was found; v5.1 has a B200
config but no stored result); llama3.1-8b (v5.1 B200 config and README tokens/s, but no summary with samples/s and
no input-length dump read); the v5.0 llama3.1-405b results (no engine config found); Interactive scenarios;
GH200-144GB systems (dse's GH200 preset is the 96 GB part); the 99.9 results where the 99 result of the same system
was read, and vice versa (the HighAccuracy configs are ``pass`` subclasses of the 99 ones: the same engine).
"""
import os

from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlperf_inference.jsonl")

# Repositories and the commits read (short hashes of the stored versions).
V40 = ("mlcommons/inference_results_v4.0", "3c4a1cf1")        # results, systems
V40C = ("mlcommons/inference_results_v4.0", "8121a811")       # configs/llama2-70b/{Offline,Server}/__init__.py
V41 = ("mlcommons/inference_results_v4.1", "a2f5d66d")        # results, systems, configs
V50 = ("ntuhpc/mlperf_inference_results_v5.0", "cf354115")    # fork of mlcommons/inference_results_v5.0: results
V50C = ("mlcommons/inference_results_v5.0", "6069beb2")       # configs/llama2-70b/Offline/__init__.py
V51 = ("ykamiset/inference_results_v5.1", "e9ccad4d")         # fork of mlcommons/inference_results_v5.1: configs,
                                                               # GB200/GB300 results
V51R = ("ntuhpc/inference_results_v5.1", "a634ab77")          # fork: results/B200-SXM-180GBx8_TRT/README.md
DASH = "openshift-psap/performance-dashboard"
LLAMA2_CSV = f"{DASH} @7cd1065d mlperf-data/summaries/llama2-70b-99.csv"
L405_CSV = f"{DASH} @739352b6 mlperf-data/summaries/llama3-1-405b.csv"
REF2 = "mlcommons/inference @00bf8346 language/llama2-70b/README.md"
REF405 = "mlcommons/inference @0fa0692b language/llama3.1-405b/README.md"

#: Per benchmark: the model block, the mean input length (and its source), the reference mean output
#: length (ref_output, ref_src; ref_lead, the words before ref_src in the notes, when it is not the
#: reference mean itself), the data set and the latency bounds of Server.
BENCH = {
    "llama2-70b": dict(
        model={"name": "Llama-2-70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
               "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 32000, "seq_len": None,
               "moe": None},
        model_src="model block: dse preset llama2-70b (Llama-2-70b-chat-hf has the same architecture)",
        input_len=222, ref_output=294.45, dataset="OpenOrca GPT-4 subset, 24,576 samples",
        input_src=f"mean input 222 tokens estimated from {LLAMA2_CSV} (see the builder's docstring)",
        ref_src=f"{REF2} ('Tokens per sample: 294.45')",
        limits="TTFT <= 2 s and TPOT <= 200 ms at the 99th percentile (the summary's ttft_latency/tpot_latency)",
    ),
    "llama3.1-405b": dict(
        model={"name": "Llama 3.1 405B", "family": "dense", "layers": 126, "hidden": 16384, "heads": 128,
               "kv_heads": 8, "head_dim": None, "ffn_hidden": 53248, "ffn_act": "swiglu", "vocab": 128256,
               "seq_len": None, "moe": None},
        model_src="model block: dse preset llama3-405b / validation/trtllm_v1.jsonl 'Llama 3.1 405B'",
        input_len=9429, ref_output=684.68, output_cv=0.381,
        dataset="8,313 samples of LongBench, LongDataCollections, RULER and GovReport",
        input_src=f"mean input 9,429 tokens: all 8,313 rows of {L405_CSV}",
        output_cv_src=f"the reference outputs' std / mean in {L405_CSV}: 260.8 / 684.7",
        ref_src=f"{REF405} ('tokens_per_sample': 684.68)",
        limits="TTFT <= 6 s and TPOT <= 175 ms at the 99th percentile (the summary's ttft_latency/tpot_latency)",
    ),
}

NV = "closed/NVIDIA"
L2_OFF_40 = f"{V40C[0]} @{V40C[1]}: {NV}/configs/llama2-70b/Offline/__init__.py"
L2_SRV_40 = f"{V40C[0]} @{V40C[1]}: {NV}/configs/llama2-70b/Server/__init__.py"
L2_OFF_41 = f"{V41[0]} @{V41[1]}: {NV}/configs/llama2-70b/Offline/__init__.py"
L2_SRV_41 = f"{V41[0]} @{V41[1]}: {NV}/configs/llama2-70b/Server/__init__.py"
L2_OFF_50 = f"{V50C[0]} @{V50C[1]}: {NV}/configs/llama2-70b/Offline/__init__.py"
C51 = f"{V51[0]} @{V51[1]}: {NV}/configs"

# One row per result. tok: the result's tokens/s (whole system); sps: samples/s of the same run (Offline: the
# summary's 'Samples per second'; Server: 'Completed samples per second'); sched: Server 'Scheduled samples per
# second'; ttft/tpot: Server mean first-token latency and mean time per output token (ms); mb: the engine's
# gpu_batch_size; mnt: the engine's runtime max_num_tokens where the config states it; kv: KV-cache dtype where
# stated; cfg_state: 'read' (the config entry of this system and scenario was read), 'offline' (the Offline entry
# was read and is assumed for the Server run), 'none' (no config entry found: plan and precision inferred).
RESULTS = [
    # ------------------------------------------------------------------ v4.0, llama2-70b
    dict(key="v4.0-h100x8-llama2-offline", rnd="v4.0", bench="llama2-70b", repo=V40,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="llama2-70b-99.9", scen="Offline", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=2, pp=1, prec="fp8", kv=None, mnt=None, mb=896, tok=21805.8, sps=74.699,
         cfg=L2_OFF_40, cfg_state="read",
         extra="Config class H100_SXM_80GB_TP2x4 (system H100_SXM_80GBx8): tensor_parallelism 2, use_fp8 True, "
               "gpu_batch_size 896, kvcache_free_gpu_mem_frac 0.90; the 99.9 class is a 'pass' subclass (same "
               "engine). KV-cache dtype and max_num_tokens are set in configs/llama2-70b/__init__.py, not stored."),
    dict(key="v4.0-h100x8-llama2-server", rnd="v4.0", bench="llama2-70b", repo=V40,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="llama2-70b-99.9", scen="Server", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=2, pp=1, prec="fp8", kv=None, mnt=None, mb=1024, tok=20556.40, sps=70.42, sched=70.98,
         ttft=381.606663, tpot=136.836695, cfg=L2_SRV_40, cfg_state="read",
         extra="Config class H100_SXM_80GB_TP2x4 (Server): tensor_parallelism 2, use_fp8 True, gpu_batch_size "
               "1024, server_target_qps 17.8 x 4 = 71.2 (the summary's target_qps 71.2)."),
    dict(key="v4.0-h200x8-llama2-offline", rnd="v4.0", bench="llama2-70b", repo=V40,
         sysdir="H200-SXM-141GBx8_TRT", acc="llama2-70b-99.9", scen="Offline", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=None, mb=806, tok=27738.3, sps=94.6223,
         cfg=L2_OFF_40, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (subclass of H200_SXM_141GBx1): tensor_parallelism 1, use_fp8 True, "
               "gpu_batch_size 806, offline_expected_qps 12 x 8 = 96 (the summary's target_qps 96)."),
    dict(key="v4.0-h200x8-llama2-server", rnd="v4.0", bench="llama2-70b", repo=V40,
         sysdir="H200-SXM-141GBx8_TRT", acc="llama2-70b-99.9", scen="Server", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=None, mb=896, tok=26485.43, sps=90.35, sched=91.24,
         ttft=412.853972, tpot=164.850844, cfg=L2_SRV_40, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (Server): tensor_parallelism 1, use_fp8 True, gpu_batch_size 896, "
               "server_target_qps 91.5 (= the summary's target_qps)."),
    # ------------------------------------------------------------------ v4.1, llama2-70b
    dict(key="v4.1-h100x8-llama2-offline", rnd="v4.1", bench="llama2-70b", repo=V41,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="llama2-70b-99.9", scen="Offline", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=2, pp=1, prec="fp8", kv=None, mnt=None, mb=896, tok=24524.9, sps=84.4792,
         cfg=L2_OFF_41, cfg_state="read",
         extra="Config class H100_SXM_80GB_TP2x4: tensor_parallelism 2, use_fp8 True, gpu_batch_size 896, "
               "kvcache_free_gpu_mem_frac 0.90, vboost_slider 1 (the summary's target_qps 76: user.conf)."),
    dict(key="v4.1-h100x8-llama2-server", rnd="v4.1", bench="llama2-70b", repo=V41,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="llama2-70b-99.9", scen="Server", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=2, pp=1, prec="fp8", kv=None, mnt=None, mb=1024, tok=21605.79, sps=74.42, sched=75.10,
         ttft=275.926440, tpot=154.960329, cfg=L2_SRV_41, cfg_state="read",
         extra="Config class H100_SXM_80GB_TP2x4 (Server): tensor_parallelism 2, use_fp8 True, gpu_batch_size "
               "1024, server_target_qps 75 (= the summary's target_qps)."),
    dict(key="v4.1-h200x8-llama2-offline", rnd="v4.1", bench="llama2-70b", repo=V41,
         sysdir="H200-SXM-141GBx8_TRT", acc="llama2-70b-99", scen="Offline", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=None, mb=806, tok=31302.7, sps=107.477,
         cfg=L2_OFF_41, cfg_state="read",
         extra="Config class H200_SXM_141GBx8: tensor_parallelism 1, use_fp8 True, gpu_batch_size 806, "
               "offline_expected_qps 104 (= the summary's target_qps), vboost_slider 1."),
    dict(key="v4.1-h200x8-llama2-server", rnd="v4.1", bench="llama2-70b", repo=V41,
         sysdir="H200-SXM-141GBx8_TRT", acc="llama2-70b-99", scen="Server", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=None, mb=896, tok=29228.22, sps=100.35, sched=101.25,
         ttft=198.269106, tpot=123.263268, cfg=L2_SRV_41, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (Server): tensor_parallelism 1, use_fp8 True, gpu_batch_size 896, "
               "server_target_qps 102.5 (the summary's target_qps 101: user.conf)."),
    dict(key="v4.1-b200x1-llama2-offline", rnd="v4.1", bench="llama2-70b", repo=V41,
         sysdir="B200-SXM-180GBx1_TRT", acc="llama2-70b-99", scen="Offline", gpu="B200-180GB", n=1, gpn=1,
         tp=1, pp=1, prec="fp4", kv=None, mnt=None, mb=None, tok=11264.4, sps=41.1075,
         cfg=None, cfg_state="none",
         extra="Preview submission, 1 x B200-SXM-180GB (systems/B200-SXM-180GBx1_TRT.json: 'B200 TGP 1000W', "
               "TensorRT 10.1, private code and TensorRT-LLM hashes). No B200 entry in the stored v4.1 llama2-70b "
               "configs: TP 1 (the only plan on one GPU) and FP4 weights (NVIDIA's v4.1 B200 llama2-70b "
               "submission; consistent with the run's 274 generated tokens per sample, below the FP8 engines' "
               "289-293) are inferred."),
    dict(key="v4.1-b200x1-llama2-server", rnd="v4.1", bench="llama2-70b", repo=V41,
         sysdir="B200-SXM-180GBx1_TRT", acc="llama2-70b-99.9", scen="Server", gpu="B200-180GB", n=1, gpn=1,
         tp=1, pp=1, prec="fp4", kv=None, mnt=None, mb=None, tok=10755.59, sps=39.25, sched=39.57,
         ttft=208.804128, tpot=131.536562, cfg=None, cfg_state="none",
         extra="Preview submission, 1 x B200-SXM-180GB; no stored config: TP 1 and FP4 inferred as for the "
               "Offline row (summary target_qps 39.6)."),
    # ------------------------------------------------------------------ v5.0, llama2-70b
    dict(key="v5.0-h100x8-llama2-offline", rnd="v5.0", bench="llama2-70b", repo=V50,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="llama2-70b-99", scen="Offline", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=1, pp=2, prec="fp8", kv="fp8", mnt=1024, mb=1024, tok=31306.8, sps=107.256,
         cfg=L2_OFF_50, cfg_state="offline-mismatch",
         extra="The stored v5.0 config (HopperOfflineGPUBaseConfig: precision fp8, kv_cache_dtype fp8) gives the 8-GPU "
               "H100 system the class H100_SXM_80GB_PP2x4 ('PP2' config_ver): tensor_parallelism 1, "
               "pipeline_parallelism 2, gpu_batch_size 1024, max_num_tokens 1024 (build and runtime), "
               "kvcache_free_gpu_mem_frac 0.95, reduce_fusion, gemm_swiglu_plugin fp8. Its offline_expected_qps "
               "(75 x 2 x 2 = 300) does not match the log's target_qps 110 and the file has classes no submission "
               "used, so the stored copy may have been edited after the round: the plan is written as stated but "
               "listed in inferred."),
    dict(key="v5.0-h100x8-llama2-server", rnd="v5.0", bench="llama2-70b", repo=V50,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="llama2-70b-99.9", scen="Server", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=1, pp=2, prec="fp8", kv="fp8", mnt=1024, mb=1024, tok=31106.28, sps=106.21, sched=107.19,
         ttft=517.082793, tpot=139.313889, cfg=L2_OFF_50, cfg_state="offline",
         extra="Server config not found: the Offline entry's plan (PP 2, FP8, FP8 KV cache, max_num_tokens 1024) is "
               "assumed (summary target_qps 107, min_duration 3,600 s)."),
    dict(key="v5.0-h200x8-llama2-offline", rnd="v5.0", bench="llama2-70b", repo=V50,
         sysdir="H200-SXM-141GBx8_TRT", acc="llama2-70b-99", scen="Offline", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv="fp8", mnt=1536, mb=2048, tok=34988.2, sps=120.008,
         cfg=L2_OFF_50, cfg_state="read-plan-inferred",
         extra="Config class H200_SXM_141GBx8 (subclass of H200_SXM_141GBx1 of HopperOfflineGPUBaseConfig): precision "
               "fp8, kv_cache_dtype fp8, gpu_batch_size 2048, max_num_tokens 1536 (build and runtime), "
               "gemm_swiglu_plugin fp8, offline_expected_qps 14.4 x 8 = 115.2 (= the summary's target_qps). The "
               "base class's trtllm_build_flags set tensor_parallelism 1, pipeline_parallelism 2, but the system "
               "class replaces that dict without them: TP 1, PP 1 assumed (as in v4.x H200 and the v5.1 "
               "configs)."),
    dict(key="v5.0-h200x8-llama2-server", rnd="v5.0", bench="llama2-70b", repo=V50,
         sysdir="H200-SXM-141GBx8_TRT", acc="llama2-70b-99.9", scen="Server", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv="fp8", mnt=1536, mb=2048, tok=33071.46, sps=113.04, sched=114.56,
         ttft=397.824116, tpot=169.962807, cfg=L2_OFF_50, cfg_state="offline",
         extra="Server config not found: the Offline entry's engine (FP8, FP8 KV cache, max_num_tokens 1536, TP 1) "
               "is assumed (summary target_qps 114.24)."),
    dict(key="v5.0-b200x8-llama2-offline", rnd="v5.0", bench="llama2-70b", repo=V50,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama2-70b-99.9", scen="Offline", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=3584, mb=2048, tok=98858.0, sps=363.895,
         cfg=L2_OFF_50, cfg_state="read-plan-inferred",
         extra="Config class B200_SXM_180GBx8 (subclass of B200_SXM_180GBx1 of BlackwellOfflineGPUBaseConfig): "
               "precision fp4, kv_cache_dtype fp8, gpu_batch_size 2048, max_num_tokens 3584 (build and runtime), "
               "kvcache_free_gpu_mem_frac 0.95, offline_expected_qps 47 x 8 = 376 (= the summary's target_qps). "
               "The base class's PP 2 is dropped by the system class's trtllm_build_flags: TP 1, PP 1 assumed (the "
               "v5.1 B200 config states them)."),
    dict(key="v5.0-b200x8-llama2-server", rnd="v5.0", bench="llama2-70b", repo=V50,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama2-70b-99.9", scen="Server", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=3584, mb=2048, tok=98443.30, sps=361.04, sched=364.33,
         ttft=525.802611, tpot=150.215005, cfg=L2_OFF_50, cfg_state="offline",
         extra="Server config not found: the Offline entry's engine (FP4, FP8 KV cache, max_num_tokens 3584, TP 1) "
               "is assumed (summary target_qps 364)."),
    # ------------------------------------------------------------------ v5.1, llama2-70b
    dict(key="v5.1-b200x8-llama2-offline", rnd="v5.1", bench="llama2-70b", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama2-70b-99", scen="Offline", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=3584, mb=2048, tok=101527.0, sps=None, readme=True,
         cfg=f"{C51}/B200-SXM-180GBx8/Offline/llama2-70b.py", cfg_state="read",
         extra="Config (AccuracyTarget 0.99 and 0.999 identical): precision fp4, tensor_parallelism 1, "
               "pipeline_parallelism 1, gpu_batch_size 2048, kv_cache_dtype fp8, max_num_tokens 3584 (build and "
               "runtime), max_input_len 1024, max_seq_len 2048, chunked context, kvcache_free_gpu_mem_frac 0.95, "
               "FP8 context FMHA, offline_expected_qps 376. Result: the README results table (llama2-70b-99 and "
               "-99.9 both 101,527 tokens/s); the summary is not stored there, so output_len is the reference "
               "mean."),
    dict(key="v5.1-gb200x4-llama2-offline", rnd="v5.1", bench="llama2-70b", repo=V51,
         sysdir="GB200-NVL72_GB200-186GB_aarch64x4_TRT", acc="llama2-70b-99.9", scen="Offline", gpu="GB200", n=4,
         gpn=4, tp=1, pp=1, prec="fp4", kv="fp8", mnt=3584, mb=2048, tok=51736.9, sps=187.748,
         cfg=f"{C51}/GB200-NVL72_GB200-186GB_aarch64x4/Offline/llama2-70b.py", cfg_state="read",
         extra="One GB200 NVL72 compute tray (4 GPUs). Config: precision fp4, TP 1, PP 1, gpu_batch_size 2048, "
               "kv_cache_dtype fp8, max_num_tokens 3584, chunked context, kvcache_free_gpu_mem_frac 0.95 (the 0.999 "
               "entry: offline_expected_qps 188)."),
    dict(key="v5.1-gb200x4-llama2-server", rnd="v5.1", bench="llama2-70b", repo=V51,
         sysdir="GB200-NVL72_GB200-186GB_aarch64x4_TRT", acc="llama2-70b-99", scen="Server", gpu="GB200", n=4,
         gpn=4, tp=1, pp=1, prec="fp4", kv="fp8", mnt=3584, mb=2048, tok=49359.61, sps=178.48, sched=182.04,
         ttft=217.699203, tpot=115.852553,
         cfg=f"{C51}/GB200-NVL72_GB200-186GB_aarch64x4/Server/llama2-70b.py", cfg_state="read",
         extra="One GB200 NVL72 compute tray (4 GPUs). Config: precision fp4, TP 1, PP 1, gpu_batch_size 2048, "
               "kv_cache_dtype fp8, max_num_tokens 3584, server_target_qps 182 (= the summary's target_qps), "
               "min_duration 600 s."),
    # ------------------------------------------------------------------ v5.1, llama3.1-405b
    dict(key="v5.1-b200x8-llama405b-offline", rnd="v5.1", bench="llama3.1-405b", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama3.1-405b", scen="Offline", gpu="B200-180GB", n=8, gpn=8,
         tp=2, pp=2, prec="fp4", kv="fp8", mnt=1536, mb=128, tok=1624.11, sps=None, readme=True,
         cfg=f"{C51}/B200-SXM-180GBx8/Offline/llama3_1-405b.py", cfg_state="read",
         extra="Config: precision fp4, tensor_parallelism 2, pipeline_parallelism 2 (2 replicas), gpu_batch_size "
               "128, kv_cache_dtype fp8, max_num_tokens 5120 at build and 1536 at run time (the running budget is "
               "written), max_input_len 20000, chunked context, gemm_allreduce_plugin float16, "
               "kvcache_free_gpu_mem_frac 0.95, offline_expected_qps 2.18. Result: the README results table; the "
               "summary is not stored there, so output_len is the reference mean."),
    dict(key="v5.1-gb200x72-llama405b-offline", rnd="v5.1", bench="llama3.1-405b", repo=V51,
         sysdir="GB200-NVL72_GB200-186GB_aarch64x72_TRT", acc="llama3.1-405b", scen="Offline", gpu="GB200", n=72,
         gpn=4, tp=2, pp=2, prec="fp4", kv="fp8", mnt=1536, mb=2048, tok=14774.3, sps=22.6462,
         cfg=f"{C51}/GB200-NVL72_GB200-186GB_aarch64x72/Offline/llama3_1-405b.py", cfg_state="read",
         extra="A whole GB200 NVL72 rack (18 trays x 4 GPUs, one NVLink domain). Config (Custom harness; the "
               "results folder has no _Triton suffix): precision fp4, TP 2, PP 2 (18 replicas), gpu_batch_size "
               "2048 (the config's comment: 128 had an accuracy issue), kv_cache_dtype fp8, max_num_tokens 1536, "
               "chunked context, offline_expected_qps 21.06 (= the summary's target_qps)."),
    dict(key="v5.1-gb200x72-llama405b-server", rnd="v5.1", bench="llama3.1-405b", repo=V51,
         sysdir="GB200-NVL72_GB200-186GB_aarch64x72_TRT", acc="llama3.1-405b", scen="Server", gpu="GB200", n=72,
         gpn=4, tp=4, pp=1, prec="fp4", kv="fp8", mnt=2048, mb=256, tok=11614.28, sps=17.72, sched=17.73,
         ttft=1441.175794, tpot=104.260539,
         cfg=f"{C51}/GB200-NVL72_GB200-186GB_aarch64x72/Server/llama3_1-405b.py", cfg_state="read",
         extra="A whole GB200 NVL72 rack. Config (Custom harness): precision fp4, TP 4, PP 1 (18 replicas), "
               "gpu_batch_size 256, kv_cache_dtype fp8, max_num_tokens 2048, gemm_allreduce_plugin float16, "
               "server_target_qps 17.55 (= the summary's target_qps)."),
    dict(key="v5.1-gb300x72-llama405b-offline", rnd="v5.1", bench="llama3.1-405b", repo=V51,
         sysdir="GB300-NVL72_GB300-288GB_aarch64x72_TRT", acc="llama3.1-405b", scen="Offline", gpu="GB300", n=72,
         gpn=4, tp=2, pp=1, prec="fp4", kv="fp8", mnt=1536, mb=2048, tok=16104.1, sps=25.5809,
         cfg=f"{C51}/GB300-NVL72_GB300-288GB_aarch64x72_TRT/Offline/llama3_1-405b.py", cfg_state="read",
         extra="A whole GB300 NVL72 rack (18 trays x 4 GPUs). Config: precision fp4, TP 2, PP 1 (36 replicas), "
               "gpu_batch_size 2048, kv_cache_dtype fp8, max_num_tokens 1536, gemm_plugin fp4, chunked context, "
               "offline_expected_qps 1.5 x 18 = 27 (= the summary's target_qps)."),
    dict(key="v5.1-gb300x72-llama405b-server", rnd="v5.1", bench="llama3.1-405b", repo=V51,
         sysdir="GB300-NVL72_GB300-288GB_aarch64x72_TRT", acc="llama3.1-405b", scen="Server", gpu="GB300", n=72,
         gpn=4, tp=2, pp=1, prec="fp4", kv="fp8", mnt=1536, mb=2048, tok=12248.42, sps=19.46, sched=19.55,
         ttft=1778.861786, tpot=75.739203,
         cfg=f"{C51}/GB300-NVL72_GB300-288GB_aarch64x72_TRT/Server/llama3_1-405b.py", cfg_state="read",
         extra="A whole GB300 NVL72 rack. Config: precision fp4, TP 2, PP 1 (36 replicas), gpu_batch_size 2048, "
               "kv_cache_dtype fp8, max_num_tokens 1536, gemm_allreduce_plugin float16, disable_gc, "
               "server_target_qps 19.5 (= the summary's target_qps)."),
]


def case(r, bench=None):
    """The case of result ``r`` (a RESULTS row) with benchmark facts from ``bench`` (default BENCH;
    build_mlperf_inference_more.py passes its own). Optional row keys, for the engines of other
    benchmarks: ep (expert parallelism of one engine; then tp 1, dp = GPUs: attention data
    parallelism), adp (attention-DP balancing), rate 'config' (the offered rate is the config's
    server_target_qps, no summary stored), cfg_state 'other-system' (another system's engine
    assumed); the Interactive scenario is served online like Server."""
    b = (bench or BENCH)[r["bench"]]
    n, tp, pp = r["n"], r["tp"], r["pp"]
    assert n % (tp * pp) == 0, r["key"]
    dp = n // (tp * pp)
    ep = r.get("ep", 1)
    online = r["scen"] in ("Server", "Interactive")
    out_len, out_txt = mean_output(r, b)
    in_len = b["input_len"]
    res = result_file(r, NV)
    cfg = r["cfg"] or "no engine config found in the stored copies"
    model, inf = model_and_inference(r, b, in_len, out_len, online)
    if r.get("adp"):
        inf["attention_dp_balance"] = True
    inferred = ["inference.input_len", "inference.output_len", "model.seq_len", "parallel.dp",
                "cluster.gpus_per_node"] + (["inference.output_len_cv"] if "output_len_cv" in inf else [])
    if r["cfg_state"] != "read":
        inferred += ["parallel.tp", "parallel.pp"]
    if r["cfg_state"] in ("none", "other-system"):
        inferred += ["precision"]
    if r["cfg_state"] == "offline":
        inferred += ["inference.max_num_tokens", "inference.kv_cache_dtype"]
    if r["cfg_state"] == "other-system":
        inferred += ["inference.max_num_tokens"]
    per_gpu = r["tok"] / n
    mb = (f"Engine max batch (gpu_batch_size) {r['mb']} per {'rank' if ep > 1 else 'replica'}; in-flight batching"
          if r["mb"] else "In-flight batching")
    plan = (f"{dp} attention-data-parallel ranks in {n // ep} engine(s) of expert parallelism {ep}, written tp 1, "
            f"dp {dp}, ep {ep}" if ep > 1 else
            f"{dp} engine replica(s) of TP {tp} x PP {pp} behind one LoadGen, written as dp {dp}")
    notes = result_note(r, b, "NVIDIA", "TensorRT-LLM", n, per_gpu, online, plan, mb, in_len, out_len, out_txt)
    if online and r.get("rate") == "config":
        notes += config_rate_note(r, b, "the config's server_target_qps", "", "0.5%")
    elif online:
        notes += summary_rate_note(r, b)
    guessed = r["cfg_state"] in ("none", "other-system")
    mnt = (f"max_num_tokens {r['mnt']} {'assumed' if r['cfg_state'] == 'other-system' else 'as stated'}"
           if r["mnt"] else "max_num_tokens not in the configs read")
    notes += (f"Precision {r['prec']} as the config states{' (inferred here)' if guessed else ''}; "
              f"KV cache {'FP8 as stated' if r['kv'] else 'dtype not in the configs read (dse default)'}; "
              f"{mnt}. {b['model_src']}.")
    return assemble_case(f"mlperf-inf-{r['key']}",
                         f"MLPerf Inference {r['rnd']} closed NVIDIA {r['bench']} {r['scen']} ({res}); config {cfg}",
                         r, model, (n, tp, pp, dp, ep), inf, per_gpu, inferred, notes, online)


def result_file(r, sub):
    """Where the row's result was read: the results README's table or the performance run's summary,
    under ``sub`` (the submitter's folder, e.g. closed/NVIDIA). Shared with build_mlperf_inference_amd.py."""
    repo, commit = r["repo"]
    if r.get("readme"):
        return f"{repo} @{commit}: {sub}/results/{r['sysdir']}/README.md (results table, {r['acc']} {r['scen']})"
    return (f"{repo} @{commit}: {sub}/results/{r['sysdir']}/{r['acc']}/{r['scen']}/performance/run_1/"
            "mlperf_log_summary.txt")


def model_and_inference(r, b, in_len, out_len, online):
    """The case's model block (the benchmark's, with seq_len = the mean prompt + output) and its
    inference block (mean lengths, the batch left to dse, the engine's stated KV dtype, token budget
    and maximum batch). Shared with build_mlperf_inference_amd.py."""
    model = {k: (dict(v) if isinstance(v, dict) else v) for k, v in b["model"].items()}
    model["seq_len"] = in_len + out_len
    inf = {"input_len": in_len, "output_len": out_len, "batch": None, "concurrency": None,
           "mode": "online" if online else "offline_max_throughput"}
    if r["kv"]:
        inf["kv_cache_dtype"] = r["kv"]
    if r["mnt"]:
        inf["max_num_tokens"] = r["mnt"]
    if r["mb"]:
        inf["max_batch"] = r["mb"]
    if b.get("output_cv"):
        inf["output_len_cv"] = b["output_cv"]
    return model, inf


def mean_output(r, b):
    """(output_len, its source sentence): the run's tokens/s over samples/s where both were read,
    else the benchmark's reference mean. Shared with build_mlperf_inference_amd.py."""
    if r.get("sps"):
        out_len = round(r["tok"] / r["sps"])
        return out_len, (f"output_len {out_len} = the run's tokens/s / samples/s ({r['tok']:g} / {r['sps']:g}), "
                         f"the mean number of tokens it generated")
    out_len = round(b["ref_output"])
    return out_len, f"output_len {out_len}{b.get('ref_lead', ' = the reference mean generated length,')} {b['ref_src']}"


def result_note(r, b, submitter, engine, n, per_gpu, online, plan, mb, in_len, out_len, out_txt):
    """The notes' opening: which result, its target per GPU, the engine plan (``plan``), the batch
    limits (``mb``), the row's own facts and the mean lengths with their sources. Shared with
    build_mlperf_inference_amd.py."""
    return (f"MLPerf Inference {r['rnd']} datacenter closed, {submitter} {r['sysdir']} ({n} x {r['gpu']}), "
            f"{r['bench']} ({b['dataset']}), {r['scen']} scenario, {engine}. Target = the system's "
            f"{'Completed tokens per second' if online and not r.get('readme') else 'Tokens per second'} "
            f"{r['tok']:g}{' (README results table)' if r.get('readme') else ''} / {n} GPUs = {per_gpu:.2f} "
            f"tokens/s per GPU (output tokens only). The system runs {plan}. {mb}, so inference.batch is left "
            f"to dse{' within inference.max_batch' if r['mb'] else ''}. {r['extra']} "
            f"Request lengths vary per request: input_len {in_len} and output_len {out_len} are means "
            f"({b['input_src']}; {out_txt}). "
            + (f"Output lengths spread: inference.output_len_cv {b['output_cv']:g} ({b['output_cv_src']}). "
               if b.get("output_cv") else ""))


def config_rate_note(r, b, target, which, within):
    """The notes' sentence on an online run whose LoadGen summary is not stored: its offered rate is
    the config's ``target`` (``which`` summaries, read elsewhere, put the scheduled rate ``within`` of
    it). Shared with build_mlperf_inference_amd.py."""
    return (f"LoadGen Poisson arrivals at {target} (the summary is not stored; in the {which}"
            f"summaries read LoadGen's scheduled rate is within {within} of its target): offered request rate "
            f"{r['sched']:g} req/s for the whole system; latency constraints {b['limits']}, met (the result "
            f"was published); latencies not read. ")


def summary_rate_note(r, b):
    """The notes' sentence on an online run whose LoadGen summary was read: its scheduled (offered)
    rate, the benchmark's latency limits and the run's mean latencies. Shared with
    build_mlperf_inference_amd.py."""
    return (f"LoadGen Poisson arrivals: scheduled {r['sched']:g} samples/s, i.e. offered request rate "
            f"{r['sched']:g} req/s for the whole system ({r['sps']:g} completed per second); latency "
            f"constraints {b['limits']}, met (VALID); mean TTFT {r['ttft']:.1f} ms, mean time per output "
            f"token {r['tpot']:.1f} ms (also). ")


def assemble_case(case_id, source, r, model, plan, inf, per_gpu, inferred, notes, online):
    """One MLPerf serving case from a result row ``r`` (its precision, GPU, GPUs per node, tokens/s,
    samples/s and mean latencies) and the pieces worked out from it: ``plan`` = (GPUs, tp, pp, dp,
    ep); the target is output tokens/s per GPU; an online run's mean TTFT and TPOT go to ``also``.
    Shared with build_mlperf_inference_amd.py."""
    n, tp, pp, dp, ep = plan
    c = {
        "id": case_id,
        "source": source,
        "reliability": "B",
        "workload": "inference",
        "precision": r["prec"],
        "model": model,
        "cluster": {"gpu": r["gpu"], "num_gpus": n, "gpus_per_node": r["gpn"]},
        "parallel": {"tp": tp, "pp": pp, "dp": dp, "cp": 1, "ep": ep, "sp": False, "vpp": 1, "zero": 0,
                     "recompute": "none", "microbatch": None, "global_batch": None},
        "inference": inf,
        "target": {"metric": "tokens_per_s_per_gpu", "value": round(per_gpu, 2)},
        "also": {"tokens_per_s": r["tok"]},
        "inferred": sorted(set(inferred)),
        "notes": notes,
    }
    if r.get("sps"):
        c["also"]["samples_per_s"] = r["sps"]
    if online and r.get("ttft") is not None:
        c["also"]["ttft_ms"] = round(r["ttft"], 1)
        c["also"]["itl_ms"] = round(r["tpot"], 1)
    return c


def main():
    write_cases([case(r) for r in RESULTS], OUT)


if __name__ == "__main__":
    main()
