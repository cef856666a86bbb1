#!/usr/bin/env python3
"""Write validation/mlperf_inference_more.jsonl: the MLPerf Inference (datacenter, closed division) LLM results of
NVIDIA's TensorRT-LLM submissions for the benchmarks that validation/mlperf_inference.jsonl does not cover, as
serving cases, in the same conventions: each is build_mlperf_inference.py's ``case`` of a row here, with this
file's BENCH.

Benchmarks: ``mixtral-8x7b`` (Mixtral-8x7B-Instruct-v0.1 on the 15,000-sample OpenOrca/GSM8K/MBXP mix; rounds v4.1
and v5.0; 8 x H100-SXM-80GB, 8 x H200-SXM-141GB, 8 x B200-180GB), ``llama2-70b-interactive`` (Llama-2-70b-chat-hf on
the llama2-70b OpenOrca set under TTFT 450 ms / TPOT 40 ms; v5.0 as its own benchmark, v5.1 as the Interactive
scenario of llama2-70b; 8 x H200, 8 x B200, 4 x GB200), ``llama3.1-8b`` (Llama-3.1-8B-Instruct summarising
CNN-DailyMail; v5.1; 8 x B200) and ``deepseek-r1`` (DeepSeek-R1 on the 4,388-sample AIME/MATH500/GPQA/MMLU-Pro/
LiveCodeBench mix; v5.1; 8 x B200, 72 x GB200, 72 x GB300). Every submission is NVIDIA's TensorRT-LLM harness
("Custom", MaxP). Mixtral was new in v4.1 (no v4.0 result exists) and NVIDIA did not submit it in v5.1 (the v5.1
B200 results table has no Mixtral row); llama3.1-8b and deepseek-r1 are new in v5.1.

Usage: python validation/build_mlperf_inference_more.py   (no network: every number below was read from the
public result logs, README result tables and configs named in each row and is kept here as a literal).

Targets (``tokens_per_s_per_gpu``), modes and engine replicas as in build_mlperf_inference.py: the system's output
tokens/s over its GPUs; n / (tp * pp) replicas written as dp (DeepSeek-R1: attention data parallelism, tp 1, dp = the
GPUs, ep = the expert-parallel group of one engine); Offline ``Tokens per second`` -> offline_max_throughput;
Server and Interactive ``Completed tokens per second`` -> online at LoadGen's ``Scheduled samples per second``
(written into the notes as the offered request rate), mean TTFT and mean time per output token in ``also``.
Results that only the README results table holds (v5.1 B200, whose summaries the fork read does not store) take
the table's tokens/s; for their Server/Interactive rows the offered rate is the engine config's
``server_target_qps`` (LoadGen's scheduled rate was within 0.5% of its target in every summary read here), and no
latencies are given.

Engine plans. NVIDIA's own configs/ folders of v4.1 and v5.0 store no mixtral-8x7b or llama2-70b-interactive file;
other submitters ship NVIDIA's config files with their submissions, NVIDIA's per-system classes included, and those
are read here ("partner copy"): their classes for NVIDIA's systems give exactly the target_qps each NVIDIA summary
prints, so they are the engines NVIDIA ran:
* v4.1 mixtral: closed/GigaComputing/configs/mixtral-8x7b/Offline/__init__.py and
  closed/Supermicro/configs/mixtral-8x7b/Server/__init__.py of mlcommons/inference_results_v4.1 @a2f5d66d
  (H100_SXM_80GBx8: 46 x 8 = 368 and 43.5 x 8 = 348; H200_SXM_141GBx8: 53 x 8 = 424 and 49 x 8 = 392, as the
  summaries' target_qps).
* v5.0 mixtral and llama2-70b-interactive: closed/Cisco/configs/{mixtral-8x7b,llama2-70b-interactive}/{Offline,
  Server}/__init__.py of ntuhpc/mlperf_inference_results_v5.0 @cf354115 (H200 mixtral 56 x 8 x 0.97 = 434.56 and
  53.5 x 8 = 428, B200 110 x 8 = 880 and 109 x 8 = 872; interactive H200 8.4 x 8 = 67.2, B200 220). NVIDIA's v5.1
  B200 mixtral-8x7b.py (ykamiset/inference_results_v5.1 @e9ccad4d) states the same B200 engine and qps.
  As in build_mlperf_inference.py, a system class's trtllm_*_flags dict replaces the base class's (not merged);
  keys the system class does not set come from the base class.
* v5.1: NVIDIA's closed/NVIDIA/configs/<system>/<scenario>/<benchmark>.py (ykamiset/inference_results_v5.1
  @e9ccad4d). No GB200x4 Interactive llama2-70b file is stored: the B200 Interactive engine (FP4, TP 1, max_num_tokens
  768) is assumed for it (listed in inferred).
Mixtral's FP4 engines are ModelOpt auto-quantized checkpoints (``effective_bits`` 7.25 on B200: a per-layer mix of
NVFP4 and FP8, mostly FP8 by bits); the case writes the config's ``precision: fp4``, which dse applies to every
weight, so those rows overstate the FP4 share. The Hopper checkpoints (``effective_bits`` 8.75) are FP8 with some
16-bit layers, written fp8.

Request lengths vary per request; the cases carry means (reliability B, ``inference.input_len`` / ``output_len``
in ``inferred``):
* input_len, mixtral-8x7b: 427 tokens, the mean of all 15,000 rows of openshift-psap/performance-dashboard @67033bae
  mlperf-data/summaries/mixtral-8x7b.csv (a per-sample length dump of 09292024_mixtral_15k_mintoken2_v1.pkl; std 329,
  35 to 1,948 tokens). Its output column, the reference outputs, has mean 144.84, the README's tokens_per_sample,
  which checks the copy. (An earlier estimate from 593 rows in 15 clusters gave 425.)
* output_len_cv, mixtral-8x7b: 0.778, the reference outputs' standard deviation over mean in the same file (112.7 /
  144.8; up to 1,024 tokens): the cases' ``inference.output_len_cv`` (the requests in flight are length-biased,
  dse's serving model).
* input_len, llama2-70b-interactive: 222 tokens, the llama2-70b data set's estimate of build_mlperf_inference.py
  (the same 24,576 OpenOrca samples: the summaries' performance_sample_count 24576).
* input_len, llama3.1-8b: 850 tokens, estimated from openshift-psap/performance-dashboard @b04ea53f
  mlperf-data/summaries/llama3-1-8b-datacenter.csv (len(tok_input) of cnn_eval.json, the 13,368 CNN-DailyMail
  samples): 520 rows in 10 clusters spread over the file; cluster means rise from about 630 in the first 30% to
  about 960 in the rest, weighted by the stretch each represents 848 (unweighted 821); uncertainty about +-5%. The
  maximum is 2,540 (the engines' max_input_len).
* input_len, deepseek-r1: 804 tokens, the mean of all 4,388 rows of openshift-psap/performance-dashboard @c402a312
  datasets/summaries/deepseek-r1.csv (tok_input_len of mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl; std 406, 52 to
  3,140 tokens). (An earlier reading of the first 1,748 rows gave 795.)
* output_len_cv, deepseek-r1: 1.114, the spread of the same file's reference outputs (tok_ref_output_len) capped at
  the benchmark's 20,000 output tokens: std 4,329 over mean 3,886.23, the mean the results table's
  TOKENS_PER_SAMPLE is 90% of, which checks the copy and the cap (uncapped, 83 of them longer: mean 4,043, cv 1.25).
  The outputs run from 209 tokens up; the longer ones come with shorter prompts (correlation -0.40).
* output_len: the run's tokens/s over samples/s where the summary prints both (Mixtral 145-146, llama2 interactive
  272-273 on FP4 and 292 on FP8, DeepSeek-R1 3,657-3,744). Otherwise: llama2-70b the reference 294.45
  (mlcommons/inference language/llama2-70b/README.md); deepseek-r1 3,886, the reference whose 90% the results
  table prints as TOKENS_PER_SAMPLE 3497.6047 (the reference README at mlcommons/inference @00bb55f0 gives an older
  reference run's mean-output-tok-len 4043.45); llama3.1-8b has no stated mean in tokens (the reference README's
  gen_len 8,167,644 over 13,368 samples is a character count), so the ratio of another B200 submission with NVIDIA's
  harness and the same Offline target is used: Inventec P9000AG7_B200-SXM-180GBx8_TRT, 142,508 / 1,104.85 = 129
  (jkjung-avt/inference_results_v5.1 @8aadaa85).

Engine batch: ``gpu_batch_size`` is the engine's maximum batch under in-flight batching; ``inference.batch`` stays
null (dse picks the batch), the maximum is ``inference.max_batch``. max_num_tokens is the runtime value where build and runtime
differ.

Left out: the v5.0 llama2-70b-interactive Offline results (H200 34,989.2 tokens/s: the llama2-70b Offline engine
and data without a latency bound, already a case of mlperf_inference.jsonl within 0.003%); v5.0 H100 and GB200
mixtral and v5.0 H100 llama2-70b-interactive (no result stored in the fork read); v5.1 llama3.1-8b on GB200 (configs
stored, no result in the GB200 results tables); the llama3.1-405b Interactive results (out of this file's scope);
GH200-144GB and H200-CTS systems (dse's GH200 preset is the 96 GB part; CTS is a different thermal design point);
the 99.9 result of a system where its 99 result was read or vice versa (the same engine).
"""
import os

from build_mlperf_inference import case
from case_files import LLAMA31, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlperf_inference_more.jsonl")

# Repositories and the commits read (short hashes of the stored versions).
V41 = ("mlcommons/inference_results_v4.1", "a2f5d66d")        # results; partner config copies
V50 = ("ntuhpc/mlperf_inference_results_v5.0", "cf354115")    # fork of mlcommons/inference_results_v5.0: results,
                                                               # partner config copies (closed/Cisco)
V51 = ("ykamiset/inference_results_v5.1", "e9ccad4d")         # fork of mlcommons/inference_results_v5.1: configs,
                                                               # GB200/GB300 results
V51R = ("ntuhpc/inference_results_v5.1", "a634ab77")          # fork: results/<system>/README.md
INVENTEC = "jkjung-avt/inference_results_v5.1 @8aadaa85: closed/Inventec/results/P9000AG7_B200-SXM-180GBx8_TRT/" \
           "llama3.1-8b/Offline/performance/run_1/mlperf_log_summary.txt"
DASH = "openshift-psap/performance-dashboard"
MIX_CSV = f"{DASH} @67033bae mlperf-data/summaries/mixtral-8x7b.csv"
L8_CSV = f"{DASH} @b04ea53f mlperf-data/summaries/llama3-1-8b-datacenter.csv"
DS_CSV = f"{DASH} @c402a312 datasets/summaries/deepseek-r1.csv"
REF2 = "mlcommons/inference @00bf8346 language/llama2-70b/README.md"
REFMIX = "mlcommons/inference @003d4d3a language/mixtral-8x7b/README.md"

LLAMA2 = {"name": "Llama-2-70B", "family": "dense", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
          "head_dim": None, "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 32000, "seq_len": None, "moe": None}

BENCH = {
    "mixtral-8x7b": dict(
        model={"name": "Mixtral 8x7B", "family": "moe", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
               "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 32000, "seq_len": None,
               "moe": {"experts": 8, "top_k": 2, "expert_ffn_hidden": 14336, "shared_experts": 0,
                       "dense_layers": 0}},
        model_src="model block: validation/trtllm_v017_gpus.jsonl 'Mixtral 8x7B' (Mixtral-8x7B-Instruct-v0.1 has "
                  "the same architecture)",
        input_len=427, ref_output=144.84, output_cv=0.778,
        dataset="15,000 samples, 5,000 each of OpenOrca, GSM8K and MBXP",
        input_src=f"mean input 427 tokens: all 15,000 rows of {MIX_CSV}",
        output_cv_src=f"the reference outputs' std / mean in {MIX_CSV}: 112.7 / 144.8",
        ref_lead=":",
        ref_src=f"{REFMIX} ('tokens_per_sample': 144.84)",
        limits="TTFT <= 2 s and TPOT <= 200 ms at the 99th percentile (the summary's ttft_latency/tpot_latency)",
    ),
    "llama2-70b-interactive": dict(
        model=LLAMA2,
        model_src="model block: dse preset llama2-70b (Llama-2-70b-chat-hf has the same architecture)",
        input_len=222, ref_output=294.45, dataset="the llama2-70b OpenOrca GPT-4 subset, 24,576 samples",
        input_src="mean input 222 tokens: the llama2-70b estimate of validation/build_mlperf_inference.py "
                  f"({DASH} @7cd1065d mlperf-data/summaries/llama2-70b-99.csv)",
        ref_lead=":",
        ref_src=f"{REF2} ('Tokens per sample: 294.45')",
        limits="TTFT <= 450 ms and TPOT <= 40 ms at the 99th percentile (the summary's ttft_latency/tpot_latency)",
    ),
    "llama3.1-8b": dict(
        model=dict(LLAMA31["8B"]),
        model_src="model block: validation/case_files.py LLAMA31['8B'] (Llama-3.1-8B-Instruct)",
        input_len=850, ref_output=128.98, dataset="CNN-DailyMail validation, 13,368 articles",
        input_src=f"mean input 850 tokens estimated from {L8_CSV} (see the builder's docstring)",
        ref_lead=":",
        ref_src=f"no reference mean in tokens is stated; the ratio of Inventec's B200 run with NVIDIA's harness, "
                f"142508 / 1104.85 ({INVENTEC})",
        limits="TTFT <= 2 s and TPOT <= 100 ms at the 99th percentile for Server (Inventec's summary prints them); "
               "the Interactive bounds are tighter (not read)",
    ),
    "deepseek-r1": dict(
        model={"name": "DeepSeek-R1", "family": "moe", "layers": 61, "hidden": 7168, "heads": 128, "kv_heads": 128,
               "head_dim": None, "ffn_hidden": 18432, "ffn_act": "swiglu", "vocab": 129280, "seq_len": None,
               "moe": {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1,
                       "dense_layers": 3, "expert_groups": 8, "top_groups": 4, "router_skew": 2.16},
               "mla": {"kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
                       "v_head_dim": 128}},
        model_src="model block: validation/trtllm_mla.jsonl 'DeepSeek-R1-0528' (the same architecture as the "
                  "DeepSeek-R1 revision MLPerf uses); moe.router_skew 2.16, the R1 router's load spread from "
                  "TensorRT-LLM's EP-32 statistics (examples/wide_ep/ep_load_balancer: the busiest rank 1.56 over "
                  "the mean without a balancer), as dse's deepseek-v3 preset; no load balancer is stated",
        input_len=804, ref_output=3886.2, output_cv=1.114,
        dataset="4,388 samples of AIME, MATH500, GPQA, MMLU-Pro and LiveCodeBench",
        input_src=f"mean input 804 tokens: all 4,388 rows of {DS_CSV}",
        output_cv_src=f"the reference outputs' std / mean in {DS_CSV}, capped at the benchmark's 20,000 tokens: "
                      "4,329 / 3,886",
        ref_lead=":",
        ref_src="the reference whose 90% the results table prints as TOKENS_PER_SAMPLE 3497.6047",
        limits="TTFT <= 2 s and TPOT <= 80 ms at the 99th percentile (the summary's ttft_latency/tpot_latency)",
    ),
}

NV = "closed/NVIDIA"
MIX_OFF_41 = f"{V41[0]} @{V41[1]}: closed/GigaComputing/configs/mixtral-8x7b/Offline/__init__.py (partner copy)"
MIX_SRV_41 = f"{V41[0]} @{V41[1]}: closed/Supermicro/configs/mixtral-8x7b/Server/__init__.py (partner copy)"
MIX_OFF_50 = f"{V50[0]} @{V50[1]}: closed/Cisco/configs/mixtral-8x7b/Offline/__init__.py (partner copy)"
MIX_SRV_50 = f"{V50[0]} @{V50[1]}: closed/Cisco/configs/mixtral-8x7b/Server/__init__.py (partner copy)"
L2I_SRV_50 = f"{V50[0]} @{V50[1]}: closed/Cisco/configs/llama2-70b-interactive/Server/__init__.py (partner copy)"
C51 = f"{V51[0]} @{V51[1]}: {NV}/configs"

# One row per result, keys as in build_mlperf_inference.py: tok: the result's tokens/s (whole system); sps:
# samples/s of the same run; sched: Server/Interactive scheduled samples per second (rate='config': the config's
# server_target_qps, the summary not being stored); ttft/tpot: mean first-token latency and mean time per output
# token (ms); mb: gpu_batch_size; mnt: runtime max_num_tokens; kv: KV-cache dtype where stated; ep: expert
# parallelism of one engine; adp: attention-DP balancing on; cfg_state: 'read' (the engine's config entry was read,
# NVIDIA's file or a partner copy that gives the summary's target_qps), 'other-system' (another system's entry
# assumed: plan, precision and max_num_tokens inferred).
RESULTS = [
    # ------------------------------------------------------------------ v4.1, mixtral-8x7b
    dict(key="v4.1-h100x8-mixtral-offline", rnd="v4.1", bench="mixtral-8x7b", repo=V41,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="mixtral-8x7b", scen="Offline", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=8192, mb=896, tok=52415.9, sps=359.173,
         cfg=MIX_OFF_41, cfg_state="read",
         extra="Config class H100_SXM_80GBx8 (subclass of H100_SXM_80GBx1 of OfflineGPUBaseConfig): use_fp8 True, "
               "tensor_parallelism 1, gpu_batch_size 896, max_num_tokens 8192, kvcache_free_gpu_mem_frac 0.90, "
               "offline_expected_qps 46 x 8 = 368 (= the summary's target_qps). NVIDIA's own v4.1 configs store "
               "only the mixtral-8x7b base file (max_num_tokens 16384)."),
    dict(key="v4.1-h100x8-mixtral-server", rnd="v4.1", bench="mixtral-8x7b", repo=V41,
         sysdir="DGX-H100_H100-SXM-80GBx8_TRT", acc="mixtral-8x7b", scen="Server", gpu="H100-SXM-80GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=16384, mb=896, tok=50795.57, sps=348.06, sched=348.37,
         ttft=180.021403, tpot=102.590339, cfg=MIX_SRV_41, cfg_state="read",
         extra="Config class H100_SXM_80GBx8 (Server): use_fp8 True, tensor_parallelism 1, gpu_batch_size 896, "
               "max_num_tokens 16384 (the mixtral-8x7b base class), server_target_qps 43.5 x 8 = 348 (= the "
               "summary's target_qps)."),
    dict(key="v4.1-h200x8-mixtral-offline", rnd="v4.1", bench="mixtral-8x7b", repo=V41,
         sysdir="H200-SXM-141GBx8_TRT", acc="mixtral-8x7b", scen="Offline", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=16384, mb=3072, tok=59022.3, sps=404.431,
         cfg=MIX_OFF_41, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (subclass of H200_SXM_141GBx1): use_fp8 True, tensor_parallelism 1, "
               "gpu_batch_size 3072, max_num_tokens 16384 (base class), vboost_slider 1, offline_expected_qps "
               "53 x 8 = 424 (= the summary's target_qps)."),
    dict(key="v4.1-h200x8-mixtral-server", rnd="v4.1", bench="mixtral-8x7b", repo=V41,
         sysdir="H200-SXM-141GBx8_TRT", acc="mixtral-8x7b", scen="Server", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv=None, mnt=8192, mb=1200, tok=57177.20, sps=391.79, sched=392.18,
         ttft=227.612110, tpot=138.388730, cfg=MIX_SRV_41, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (Server): use_fp8 True, tensor_parallelism 1, gpu_batch_size 1200 "
               "(3072 commented out), max_num_tokens 8192, server_target_qps 49 x 8 = 392 (= the summary's "
               "target_qps)."),
    # ------------------------------------------------------------------ v5.0, mixtral-8x7b
    dict(key="v5.0-h200x8-mixtral-offline", rnd="v5.0", bench="mixtral-8x7b", repo=V50,
         sysdir="H200-SXM-141GBx8_TRT", acc="mixtral-8x7b", scen="Offline", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv="fp8", mnt=9216, mb=3072, tok=62629.6, sps=431.448,
         cfg=MIX_OFF_50, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (subclass of H200_SXM_141GBx1 of HopperOfflineGPUBaseConfig): "
               "precision fp8 (checkpoint effective_bits 8.75), kv_cache_dtype fp8, tensor_parallelism 1, "
               "pipeline_parallelism 1, max_num_tokens 16384 at build and 9 x 1024 = 9216 at run time, "
               "gpu_batch_size 3072, chunked context, kvcache_free_gpu_mem_frac 0.90 (base), offline_expected_qps "
               "56 x 8 x 0.97 = 434.56 (= the summary's target_qps)."),
    dict(key="v5.0-h200x8-mixtral-server", rnd="v5.0", bench="mixtral-8x7b", repo=V50,
         sysdir="H200-SXM-141GBx8_TRT", acc="mixtral-8x7b", scen="Server", gpu="H200-SXM-141GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp8", kv="fp8", mnt=8192, mb=3072, tok=61801.95, sps=427.58, sched=428.23,
         ttft=326.020081, tpot=170.391575, cfg=MIX_SRV_50, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (Server, subclass of H200_SXM_141GBx1 of HopperServerGPUBaseConfig): "
               "precision fp8, kv_cache_dtype fp8, tensor_parallelism 1, pipeline_parallelism 1, gpu_batch_size "
               "3072, max_num_tokens 8192 at run time, server_target_qps 53.5 x 8 = 428 (= the summary's "
               "target_qps)."),
    dict(key="v5.0-b200x8-mixtral-offline", rnd="v5.0", bench="mixtral-8x7b", repo=V50,
         sysdir="B200-SXM-180GBx8_TRT", acc="mixtral-8x7b", scen="Offline", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=14336, mb=6144, tok=128148.0, sps=886.233,
         cfg=MIX_OFF_50, cfg_state="read",
         extra="Config class B200_SXM_180GBx8 (subclass of B200_SXM_180GBx1 of BlackwellOfflineGPUBaseConfig): "
               "precision fp4 with checkpoint effective_bits 7.25 (ModelOpt auto-quantization: NVFP4 and FP8 mixed "
               "per layer; dse applies FP4 to every weight), kv_cache_dtype fp8, tensor_parallelism 1, "
               "pipeline_parallelism 1, gpu_batch_size 6144, max_num_tokens 20480 at build and 14336 at run time, "
               "kvcache_free_gpu_mem_frac 0.95, offline_expected_qps 110 x 8 = 880 (= the summary's target_qps); "
               f"NVIDIA's v5.1 file {C51}/B200-SXM-180GBx8/Offline/mixtral-8x7b.py states the same engine."),
    dict(key="v5.0-b200x8-mixtral-server", rnd="v5.0", bench="mixtral-8x7b", repo=V50,
         sysdir="B200-SXM-180GBx8_TRT", acc="mixtral-8x7b", scen="Server", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=10240, mb=6144, tok=126844.55, sps=870.82, sched=871.95,
         ttft=209.738009, tpot=110.007327, cfg=MIX_SRV_50, cfg_state="read",
         extra="Config class B200_SXM_180GBx8 (Server, of BlackwellServerGPUBaseConfig): precision fp4 "
               "(effective_bits 7.25, mixed NVFP4/FP8), gemm_plugin fp4, FP8 context FMHA, kv_cache_dtype fp8, "
               "tensor_parallelism 1, pipeline_parallelism 1, gpu_batch_size 6144, max_num_tokens 10240 at run time, "
               "kvcache_free_gpu_mem_frac 0.90, server_target_qps 109 x 8 = 872 (= the summary's target_qps); "
               f"NVIDIA's v5.1 file {C51}/B200-SXM-180GBx8/Server/mixtral-8x7b.py states the same engine."),
    # ------------------------------------------------------------------ v5.0, llama2-70b-interactive
    dict(key="v5.0-h200x8-llama2int-server", rnd="v5.0", bench="llama2-70b-interactive", repo=V50,
         sysdir="H200-SXM-141GBx8_TRT", acc="llama2-70b-interactive-99.9", scen="Server", gpu="H200-SXM-141GB",
         n=8, gpn=8, tp=1, pp=1, prec="fp8", kv="fp8", mnt=256, mb=512, tok=19424.25, sps=66.50, sched=67.50,
         ttft=119.447699, tpot=33.723979, cfg=L2I_SRV_50, cfg_state="read",
         extra="Config class H200_SXM_141GBx8 (subclass of H200_SXM_141GBx1 of HopperServerGPUBaseConfig; the "
               "99.9 class is a 'pass' subclass): precision fp8, kv_cache_dtype fp8, tensor_parallelism 1, "
               "pipeline_parallelism 1, gpu_batch_size 512, max_num_tokens 256 (build and runtime), "
               "kvcache_free_gpu_mem_frac 0.90, server_target_qps 8.4 x 8 = 67.2 (= the summary's target_qps), "
               "min_duration 1,200 s."),
    dict(key="v5.0-b200x8-llama2int-server", rnd="v5.0", bench="llama2-70b-interactive", repo=V50,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama2-70b-interactive-99", scen="Server", gpu="B200-180GB",
         n=8, gpn=8, tp=1, pp=1, prec="fp4", kv=None, mnt=768, mb=768, tok=59409.25, sps=217.93, sched=220.51,
         ttft=85.598458, tpot=36.129344, cfg=L2I_SRV_50, cfg_state="read",
         extra="Config class B200_SXM_180GBx8 (subclass of B200_SXM_180GBx1 of BlackwellServerGPUBaseConfig): "
               "precision fp4, gemm_plugin fp4, tensor_parallelism 1, pipeline_parallelism 1, gpu_batch_size 768, "
               "max_num_tokens 768 (build and runtime), server_target_qps 220 (= the summary's target_qps); the "
               "KV-cache dtype is not set in the files read."),
    # ------------------------------------------------------------------ v5.1, llama2-70b Interactive scenario
    dict(key="v5.1-b200x8-llama2int-interactive", rnd="v5.1", bench="llama2-70b-interactive", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama2-70b-99", scen="Interactive", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv=None, mnt=768, mb=768, tok=59545.4, sps=None, readme=True, sched=220.0,
         rate="config", cfg=f"{C51}/B200-SXM-180GBx8/Interactive/llama2-70b.py", cfg_state="read",
         extra="Config (AccuracyTarget 0.99 and 0.999 identical): precision fp4, gemm_plugin fp4, "
               "tensor_parallelism 1, pipeline_parallelism 1, gpu_batch_size 768, max_num_tokens 768 (build and "
               "runtime), chunked context, kvcache_free_gpu_mem_frac 0.95, server_target_qps 220; KV-cache dtype "
               "not set. Result: the README results table (llama2-70b-99 and -99.9 both 59,545.4 tokens/s); the "
               "summary is not stored there."),
    dict(key="v5.1-gb200x4-llama2int-interactive", rnd="v5.1", bench="llama2-70b-interactive", repo=V51,
         sysdir="GB200-NVL72_GB200-186GB_aarch64x4_TRT", acc="llama2-70b-99.9", scen="Interactive", gpu="GB200",
         n=4, gpn=4, tp=1, pp=1, prec="fp4", kv=None, mnt=768, mb=768, tok=29745.55, sps=109.31, sched=109.89,
         ttft=57.914256, tpot=30.583382, cfg=f"{C51}/B200-SXM-180GBx8/Interactive/llama2-70b.py",
         cfg_state="other-system",
         extra="One GB200 NVL72 compute tray (4 GPUs). No GB200x4 Interactive llama2-70b config is stored: the B200 "
               "Interactive engine (FP4, TP 1, PP 1, gpu_batch_size 768, max_num_tokens 768) is assumed; the "
               "summary's target_qps 110 is half the B200 file's 220 for half the GPUs, and the run's 272 tokens "
               "per sample match FP4 engines."),
    # ------------------------------------------------------------------ v5.1, llama3.1-8b
    dict(key="v5.1-b200x8-llama8b-offline", rnd="v5.1", bench="llama3.1-8b", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama3.1-8b", scen="Offline", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=12000, mb=6000, tok=136752.0, sps=None, readme=True,
         cfg=f"{C51}/B200-SXM-180GBx8/Offline/llama3_1-8b.py", cfg_state="read",
         extra="Config: precision fp4, kv_cache_dtype fp8, tensor_parallelism 1, pipeline_parallelism 1, "
               "gpu_batch_size 6000, max_num_tokens 12000 (build and runtime), max_input_len 2540, chunked "
               "context, CUDA graphs, kvcache_free_gpu_mem_frac 0.9, offline_expected_qps 1100. Result: the README "
               "results table; the summary is not stored there."),
    dict(key="v5.1-b200x8-llama8b-server", rnd="v5.1", bench="llama3.1-8b", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama3.1-8b", scen="Server", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=12000, mb=6000, tok=128541.0, sps=None, readme=True, sched=1000.0,
         rate="config", cfg=f"{C51}/B200-SXM-180GBx8/Server/llama3_1-8b.py", cfg_state="read",
         extra="Config: precision fp4, kv_cache_dtype fp8, tensor_parallelism 1, pipeline_parallelism 1, "
               "gpu_batch_size 6000, max_num_tokens 12000, chunked context, CUDA graphs, disable_gc, "
               "server_target_qps 1000. Result: the README results table."),
    dict(key="v5.1-b200x8-llama8b-interactive", rnd="v5.1", bench="llama3.1-8b", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="llama3.1-8b", scen="Interactive", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, prec="fp4", kv="fp8", mnt=12000, mb=6000, tok=102903.0, sps=None, readme=True, sched=800.0,
         rate="config", cfg=f"{C51}/B200-SXM-180GBx8/Interactive/llama3_1-8b.py", cfg_state="read",
         extra="Config: as the Server engine (FP4, FP8 KV cache, TP 1, gpu_batch_size 6000, max_num_tokens 12000), "
               "server_target_qps 800. Result: the README results table (its unit column reads Queries/s; the "
               "value, 102,903, is the run's tokens/s: 800 x 129 = 103,200)."),
    # ------------------------------------------------------------------ v5.1, deepseek-r1
    dict(key="v5.1-b200x8-dsr1-offline", rnd="v5.1", bench="deepseek-r1", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="deepseek-r1", scen="Offline", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, ep=8, adp=True, prec="fp4", kv="fp8", mnt=4608, mb=512, tok=33379.0, sps=None, readme=True,
         cfg=f"{C51}/B200-SXM-180GBx8/Offline/deepseek-r1.py", cfg_state="read",
         extra="Config: precision fp4, kv_cache_dtype fp8, tensor_parallelism 8 with enable_attention_dp (attention "
               "data parallel over the 8 GPUs: written tp 1, dp 8), moe_expert_parallelism 8 (WIDEEP MoE backend), "
               "attention-DP balancing on (adp_balancing_enable), gpu_batch_size 512 per rank, max_num_tokens 4608, "
               "no chunked context, max_input_len 3140 and up to 20,000 output tokens, kvcache_free_gpu_mem_frac "
               "0.9, offline_expected_qps 10. Result: the README results table; the summary is not stored there."),
    dict(key="v5.1-b200x8-dsr1-server", rnd="v5.1", bench="deepseek-r1", repo=V51R,
         sysdir="B200-SXM-180GBx8_TRT", acc="deepseek-r1", scen="Server", gpu="B200-180GB", n=8, gpn=8,
         tp=1, pp=1, ep=8, adp=True, prec="fp4", kv="fp8", mnt=3456, mb=512, tok=18592.2, sps=None, readme=True,
         sched=5.0, rate="config", cfg=f"{C51}/B200-SXM-180GBx8/Server/deepseek-r1.py", cfg_state="read",
         extra="Config: as the Offline engine (FP4, FP8 KV cache, attention DP 8, EP 8, WIDEEP, balancing on, "
               "gpu_batch_size 512) with max_num_tokens 3456, server_target_qps 5. Result: the README results "
               "table."),
    dict(key="v5.1-gb200x72-dsr1-offline", rnd="v5.1", bench="deepseek-r1", repo=V51,
         sysdir="GB200-NVL72_GB200-186GB_aarch64x72_TRT", acc="deepseek-r1", scen="Offline", gpu="GB200", n=72,
         gpn=4, tp=1, pp=1, ep=8, adp=True, prec="fp4", kv="fp8", mnt=4608, mb=512, tok=289712.0, sps=77.995,
         cfg=f"{C51}/GB200-NVL72_GB200-186GB_aarch64x72/Offline/deepseek-r1.py", cfg_state="read",
         extra="A whole GB200 NVL72 rack (18 trays x 4 GPUs, one NVLink domain). Config: 9 engines of "
               "tensor_parallelism 8 with attention DP and moe_expert_parallelism 8 (written tp 1, dp 72, ep 8), "
               "precision fp4, kv_cache_dtype fp8, WIDEEP, balancing on, gpu_batch_size 512, max_num_tokens 4608, "
               "offline_expected_qps 10 (= the summary's target_qps)."),
    dict(key="v5.1-gb200x72-dsr1-server", rnd="v5.1", bench="deepseek-r1", repo=V51,
         sysdir="GB200-NVL72_GB200-186GB_aarch64x72_TRT", acc="deepseek-r1", scen="Server", gpu="GB200", n=72,
         gpn=4, tp=1, pp=1, ep=8, adp=True, prec="fp4", kv="fp8", mnt=3456, mb=512, tok=167578.06, sps=44.76,
         sched=45.06, ttft=658.701273, tpot=69.572752,
         cfg=f"{C51}/GB200-NVL72_GB200-186GB_aarch64x72/Server/deepseek-r1.py", cfg_state="read",
         extra="A whole GB200 NVL72 rack. Config: 9 engines of attention DP 8 x EP 8 (tp 1, dp 72, ep 8), fp4, FP8 "
               "KV cache, WIDEEP, balancing on, gpu_batch_size 512, max_num_tokens 3456, disable_gc, "
               "server_target_qps 5 x 9 = 45 (= the summary's target_qps)."),
    dict(key="v5.1-gb300x72-dsr1-offline", rnd="v5.1", bench="deepseek-r1", repo=V51,
         sysdir="GB300-NVL72_GB300-288GB_aarch64x72_TRT", acc="deepseek-r1", scen="Offline", gpu="GB300", n=72,
         gpn=4, tp=1, pp=1, ep=8, adp=True, prec="fp4", kv="fp8", mnt=6656, mb=1536, tok=420659.0, sps=115.017,
         cfg=f"{C51}/GB300-NVL72_GB300-288GB_aarch64x72_TRT/Offline/deepseek-r1.py", cfg_state="read",
         extra="A whole GB300 NVL72 rack. Config: 9 engines of attention DP 8 x EP 8 (tp 1, dp 72, ep 8), fp4, FP8 "
               "KV cache, CUTLASS MoE backend, balancing on, gpu_batch_size 1536, max_num_tokens 4608 at build and "
               "6656 at run time, kvcache_free_gpu_mem_frac 0.95, offline_expected_qps 10 x 18 = 180 (= the "
               "summary's target_qps)."),
    dict(key="v5.1-gb300x72-dsr1-server", rnd="v5.1", bench="deepseek-r1", repo=V51,
         sysdir="GB300-NVL72_GB300-288GB_aarch64x72_TRT", acc="deepseek-r1", scen="Server", gpu="GB300", n=72,
         gpn=4, tp=1, pp=1, ep=8, adp=True, prec="fp4", kv="fp8", mnt=3456, mb=512, tok=209327.68, sps=56.95,
         sched=60.08, ttft=780.209668, tpot=63.719543,
         cfg=f"{C51}/GB300-NVL72_GB300-288GB_aarch64x72_TRT/Server/deepseek-r1.py", cfg_state="read",
         extra="A whole GB300 NVL72 rack. Config: 9 engines of attention DP 8 x EP 8 (tp 1, dp 72, ep 8), fp4, FP8 "
               "KV cache, WIDEEP, balancing on, gpu_batch_size 512, max_num_tokens 3456, server_target_qps 61.2 "
               "(the summary's target_qps 60: user.conf). The run completed 56.95 of the 60.08 samples/s scheduled "
               "(long requests still in flight at its end)."),
]


def main():
    write_cases([case(r, BENCH) for r in RESULTS], OUT)


if __name__ == "__main__":
    main()
