#!/usr/bin/env python3
"""Write validation/mlperf_inference_amd.jsonl: MLPerf Inference (datacenter, closed division) LLM results on AMD
Instinct GPUs (MI300X, MI325X, MI355X) as serving cases, in the conventions of build_mlperf_inference.py (read its
docstring first: targets, modes, replicas, mean lengths and reliability are the same).

Submissions: AMD's own (v4.1 MI300X; v5.0 MI325X; v5.1 MI300X and MI325X; v6.0 MI355X), all with AMD's vLLM harness
(``SUT name : PySUT``; one vLLM engine per GPU, TP 1, behind one LoadGen), and two partners running the same
kind of engine: MangoBoost (v5.0, LLMBoost on 4 nodes x 8 MI300X, 32 TP-1 workers) and Vultr (v5.1, AMD's harness on
8 x MI325X). v5.1 partners added from the same fork (closed/<Submitter>/): GigaComputing and MiTAC (8 x MI325X)
and Dell (8 x MI300X) with AMD's harness, Vultr's Mixtral Server run, and the LLMBoost single-node runs of MangoBoost
(8 x MI300X; 8 x MI325X, whose Offline result AMD's harness produced), Dell_MangoBoost (8 x MI300X) and Supermicro
(8 x MI325X). Where a partner's code/ folder lacks the yaml of its GPU and scenario, another stored copy of AMD's
v5.1 harness yaml for that GPU and scenario is assumed (cfg_state 'other-system', the copy named); LLMBoost states
no engine settings in v5.1, so those rows are 'plan-only' (TP 1 x 8 replicas as in MangoBoost's v5.0 scripts).
Benchmarks: ``llama2-70b`` (Offline, Server and, v5.1+, the Interactive scenario, written with
build_mlperf_inference_more.py's ``llama2-70b-interactive`` facts: the same data set under TTFT 450 ms / TPOT 40 ms)
and ``mixtral-8x7b`` (v5.1 Offline; Server for the partners). AMD submitted no llama3.1-405b result in the rounds read.

Usage: python validation/build_mlperf_inference_amd.py   (no network: every number below was read from the public
result logs, README result tables and engine configs named in each row and is kept here as a literal).

Targets (``tokens_per_s_per_gpu``): the system's output tokens/s over its GPUs; n GPUs run n / tp engine replicas,
written as ``parallel.dp`` (TP 1 everywhere: dp = n). Offline ``Tokens per second`` -> offline_max_throughput;
Server and Interactive ``Completed tokens per second`` -> online at LoadGen's ``Scheduled samples per second``
(the offered request rate in the notes), mean TTFT and mean time per output token in ``also``. Results only a
README results table holds (v5.1 AMD systems: the fork read stores no summaries for them) take the table's
tokens/s; their online rows are offered the user.conf ``target_qps`` (LoadGen schedules within about 2.5% of it
in every AMD summary read here: 73.66 vs 73.5, 76.17 vs 76, 104.31 vs 104.2, 103.49 vs 103, 359.71 vs 360) and
carry no latencies.

Mean lengths (reliability B, in ``inferred``): the model blocks, the mean input lengths and their sources, the
reference output means and the latency bounds are imported from build_mlperf_inference.py (``BENCH['llama2-70b']``)
and build_mlperf_inference_more.py (``BENCH['llama2-70b-interactive']``, ``BENCH['mixtral-8x7b']``). output_len is
the run's tokens/s over samples/s where the summary prints both (FP8 engines: 293-301 for llama2-70b, 144
for Mixtral; the MI355X FP4 engine: 283), otherwise the reference mean. The Mixtral cases also carry the data
set's output-length spread (``inference.output_len_cv`` 0.778, from the same import).

Engine settings. AMD's harness configures vLLM per GPU type and scenario in
``harness_llm/models/<benchmark>/<scenario>_<gpu>.yaml`` (``vllm_engine_config``: tensor_parallel_size,
max_num_seqs, max_num_batched_tokens, quantization fp8, kv_cache_dtype where set). ``max_num_seqs`` is the
engine's maximum running batch -> ``inference.max_batch``; ``max_num_batched_tokens`` (no chunked prefill except
Interactive) -> ``inference.max_num_tokens``; ``inference.batch`` stays null (dse picks the batch). The v4.1 scripts
pass ``--kv-cache-dtype fp8`` (FP8 KV cache, scales from vLLM's llama2-70b kv_cache_scales.json); the v5.1 llama2
yamls set no kv_cache_dtype (vLLM's default 'auto': the model's 16-bit dtype unless the checkpoint's quantization
config overrides it), so those cases leave the KV dtype to dse and say so; the Mixtral yamls set fp8. Weights and
activations are FP8 (Quark ``w_fp8_a_fp8_o_fp8`` in v4.1; the ``fp8_quantized`` checkpoints with ``quantization:
fp8`` in v5.x) -> ``precision: fp8``. MI355X (v6.0) loads the FP4 checkpoint of ``download_model_fp4.sh``
(presumably OCP MXFP4 weights and activations; no engine yaml stored) -> ``precision: fp4`` with the plan and
precision in ``inferred``.

Left out (and why): the v5.1 AMD 8xMI325X Server result (32,027.6 tokens/s; neither a summary nor AMD's MI325X
user.conf is stored, so no offered rate) and the second v5.1 MI325X system ``8xMI325X_2xEPYC_9575F_2`` (vLLM 0.6.5;
Offline 34,555.0 repeats system _1's 34,520.4 within 0.1%, Interactive 18,407.2 has no stored rate); the v5.1
mixtral-8x7b Server results (AMD MI300X 47,804.3 and MI325X 59,783.6: README only, no MI300X/MI325X Mixtral Server
rate stored in AMD's folder); the v6.0 multi-node MI355X systems (87xMI355X_22xEPYC_9575F, 94xMI355X_24xEPYC_9575F:
87 GPUs on 22 sockets is not 8 per node, no engine config or system description stored, so the plan is not clear);
v6.0 gpt-oss-120b (no model block among the MLPerf builders; not read); MangoBoost's heterogeneous v5.1 system (32
MI300X + 16 MI325X in one result); v5.1 Dell_MangoBoost 16xMI300X_4xXeon_8460Y (two LLMBoost nodes; not read within
the time budget); v5.1 ASUSTeK ESC_A8A_MI325X_256GBx8 (summaries stored, but its code/ folder holds no AMD-harness
file or engine config; not read); the 99.9 result of a system where its 99 result was read or vice versa (the same
engine; AMD's README tables print identical numbers for both).
"""
import os

from build_mlperf_inference import BENCH as BENCH_NV
from build_mlperf_inference import (
    assemble_case, config_rate_note, mean_output, model_and_inference, result_file, result_note, summary_rate_note,
)
from build_mlperf_inference_more import BENCH as BENCH_MORE
from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mlperf_inference_amd.jsonl")

#: Benchmark facts (model block, mean input and its source, reference output mean, data set, latency bounds):
#: the NVIDIA builders' own entries, imported, not copied.
BENCH = {
    "llama2-70b": BENCH_NV["llama2-70b"],
    "llama2-70b-interactive": BENCH_MORE["llama2-70b-interactive"],
    "mixtral-8x7b": BENCH_MORE["mixtral-8x7b"],
}

# Repositories and the commits read (short hashes of the stored versions).
V41 = ("mlcommons/inference_results_v4.1", "a2f5d66d")        # results, code, systems
V41C = ("ontheklaud/mlperf_inf_results", "7ae489ed")           # a copy of AMD's v4.1 Offline perf script
V50 = ("ntuhpc/mlperf_inference_results_v5.0", "cf354115")    # fork of mlcommons/inference_results_v5.0
V51 = ("ntuhpc/inference_results_v5.1", "a634ab77")           # fork of mlcommons/inference_results_v5.1
V51T = ("ntuhpc/inference_results_v5.1", "965182b0")          # the same fork: results/<system>/README.md tables
V60 = ("gbeezybez/inference_results_v6.0", "ab33b214")        # fork of mlcommons/inference_results_v6.0

A = "closed/AMD"
C41 = f"{V41[0]} @{V41[1]}: {A}/code"
C50 = f"{V50[0]} @{V50[1]}: {A}"
C51 = f"{V51[0]} @{V51[1]}"

# One row per result. sub: the submitter folder; eng: the serving engine; tok: the result's tokens/s (whole system);
# sps: samples/s of the same run (None: README table only); sched: Server/Interactive scheduled samples per second
# (rate='config': the user.conf target_qps, the summary not being stored); ttft/tpot: mean first-token latency and
# mean time per output token (ms); mb: max_num_seqs; mnt: max_num_batched_tokens; kv: KV-cache dtype where stated;
# cfg_state: 'read' (this system's and scenario's engine config or launch script read), 'other-scenario' (the same
# system's config of another scenario assumed: plan, batch limits and KV dtype inferred), 'other-system' (the same
# harness's config for another system of the same GPU assumed: also precision), 'plan-only' (the run command gives
# the replicas but no engine config is stored: TP 1, the harness default, and precision inferred).
RESULTS = [
    # ------------------------------------------------------------------ v4.1, AMD, llama2-70b (vLLM, FP8)
    dict(key="v4.1-mi300x8-llama2-offline", rnd="v4.1", sub="AMD", eng="vLLM (AMD harness)", bench="llama2-70b",
         repo=V41, sysdir="8xMI300X_2xEPYC-9374F", acc="llama2-70b-99", scen="Offline", gpu="MI300X", n=8, gpn=8,
         tp=1, prec="fp8", kv="fp8", mnt=None, mb=None, tok=23514.8, sps=80.15,
         cfg=f"{V41C[0]} @{V41C[1]}: {A}/code/llama2-70b-99.9/test_VllmFp8/test_VllmFp8_Offline_perf.sh (copy); "
             f"{C41}/llama2-70b-99/README.md", cfg_state="other-scenario",
         extra="Supermicro AS-8125GS-TNMR2, 8 x MI300X 750 W. The Offline launch script is not stored in AMD's "
               "folder (its Server script is: TP=1, DP=8); a copy of it (ontheklaud/mlperf_inf_results) runs "
               "mainVllmFp8_Offline.py with TP=1, DP=8, --quantization fp8, --kv-cache-dtype fp8, "
               "--gpu-memory-utilization 0.90, --enforce-eager, prompts sorted by length (descending); "
               "max_num_seqs and max_num_batched_tokens are set inside the harness (not stored). Weights: Quark "
               "w_fp8_a_fp8_o_fp8 (code/llama2-70b-99/README.md). user.conf target_qps 80 (= the summary's)."),
    dict(key="v4.1-mi300x8-llama2-server", rnd="v4.1", sub="AMD", eng="vLLM (AMD harness)", bench="llama2-70b",
         repo=V41, sysdir="8xMI300X_2xEPYC-9374F", acc="llama2-70b-99", scen="Server", gpu="MI300X", n=8, gpn=8,
         tp=1, prec="fp8", kv="fp8", mnt=None, mb=None, tok=21028.23, sps=71.74, sched=73.66,
         ttft=1006.329670, tpot=143.097185,
         cfg=f"{C41}/llama2-70b-99.9/test_VllmFp8/test_VllmFp8_SyncServer_audit.sh", cfg_state="read",
         extra="Supermicro AS-8125GS-TNMR2, 8 x MI300X 750 W. Server script (the audit run's; the perf run is "
               "the same command without the audit config): mainVllmFp8_SyncServer.py, TP=1, DP=8, "
               "--quantization fp8 (Quark FP8 weights), --kv-cache-dtype fp8, --enable-batcher; max_num_seqs "
               "and max_num_batched_tokens not stored. Summary target_qps 73.5."),
    dict(key="v4.1-mi300x8turin-llama2-offline", rnd="v4.1", sub="AMD", eng="vLLM (AMD harness)",
         bench="llama2-70b", repo=V41, sysdir="8xMI300X_2xEPYC-TURIN", acc="llama2-70b-99", scen="Offline",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=None, mb=None, tok=24109.8, sps=82.1782,
         cfg=f"{V41C[0]} @{V41C[1]}: {A}/code/llama2-70b-99.9/test_VllmFp8/test_VllmFp8_Offline_perf.sh (copy)",
         cfg_state="other-scenario",
         extra="The same GPUs with two EPYC 'Turin' hosts (a preview CPU in v4.1); the same harness and "
               "Offline command as the 9374F system (TP=1, DP=8, FP8 weights and KV cache). Summary target_qps "
               "83."),
    dict(key="v4.1-mi300x8turin-llama2-server", rnd="v4.1", sub="AMD", eng="vLLM (AMD harness)",
         bench="llama2-70b", repo=V41, sysdir="8xMI300X_2xEPYC-TURIN", acc="llama2-70b-99", scen="Server",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=None, mb=None, tok=22020.92, sps=74.96,
         sched=76.17, ttft=1038.388748, tpot=143.074787,
         cfg=f"{C41}/llama2-70b-99.9/test_VllmFp8/test_VllmFp8_SyncServer_audit.sh", cfg_state="read",
         extra="EPYC 'Turin' hosts (preview CPU in v4.1); Server script as for the 9374F system: TP=1, DP=8, FP8 "
               "weights and KV cache. Summary target_qps 76."),
    dict(key="v4.1-mi300x1-llama2-offline", rnd="v4.1", sub="AMD", eng="vLLM (AMD harness)", bench="llama2-70b",
         repo=V41, sysdir="1xMI300X_2xEPYC-9374F", acc="llama2-70b-99.9", scen="Offline", gpu="MI300X", n=1, gpn=1,
         tp=1, prec="fp8", kv="fp8", mnt=None, mb=None, tok=3062.72, sps=10.4445,
         cfg=f"{V41C[0]} @{V41C[1]}: {A}/code/llama2-70b-99.9/test_VllmFp8/test_VllmFp8_Offline_perf.sh (copy)",
         cfg_state="other-scenario",
         extra="One MI300X (the scripts' DP defaults to 8; one GPU means one engine, DP 1). The 99.9 and 99 "
               "results share the FP8 engine (only the 99.9 performance summary is stored). Summary target_qps "
               "10, 24,576 samples in one query."),
    dict(key="v4.1-mi300x1-llama2-server", rnd="v4.1", sub="AMD", eng="vLLM (AMD harness)", bench="llama2-70b",
         repo=V41, sysdir="1xMI300X_2xEPYC-9374F", acc="llama2-70b-99.9", scen="Server", gpu="MI300X", n=1, gpn=1,
         tp=1, prec="fp8", kv="fp8", mnt=None, mb=None, tok=2520.27, sps=8.59, sched=8.62,
         ttft=401.873796, tpot=153.377770,
         cfg=f"{C41}/llama2-70b-99.9/test_VllmFp8/test_VllmFp8_SyncServer_audit.sh", cfg_state="read",
         extra="One MI300X: the Server script's engine (TP 1, FP8 weights and KV cache) on the one GPU. Summary "
               "target_qps 8.6."),
    # ------------------------------------------------------------------ v5.0, AMD, llama2-70b (MI325X)
    dict(key="v5.0-mi325x8-llama2-offline", rnd="v5.0", sub="AMD", eng="vLLM 0.6.5 (AMD harness_llm)",
         bench="llama2-70b", repo=V50, sysdir="8xMI325X_2xEPYC_9575F", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None, tok=33928.1, sps=114.262,
         cfg=f"{C50}/measurements/8xMI325X_2xEPYC_9575F/llama2-70b-99/Offline/README.md; "
             f"{C50}/code/llama2-70b-99.9/harness_llm/backends/vllm/sut_offline.py", cfg_state="plan-only",
         extra="8 x MI325X (256 GB). The run command: main.py --config-name offline_mi325x "
               "harness_config.data_parallel_size=8 (the yaml is not stored); the harness starts dp / tp engines "
               "and takes tensor_parallel_size 1 when the yaml does not set it: TP 1 assumed (AMD's v5.1 "
               "offline_mi325x.yaml states TP 1). The checkpoint is the FP8 Quark model of quantize_llama2_70b.sh: "
               "FP8 assumed. user_mi325x.conf: target_qps 114 (= the summary's), min_duration 4 h."),
    dict(key="v5.0-mi325x8-llama2-server", rnd="v5.0", sub="AMD", eng="vLLM 0.6.5 (AMD harness_llm)",
         bench="llama2-70b", repo=V50, sysdir="8xMI325X_2xEPYC_9575F", acc="llama2-70b-99.9", scen="Server",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None, tok=30724.51, sps=103.83,
         sched=104.31, ttft=1060.314084, tpot=159.983981,
         cfg=f"{C50}/measurements/8xMI325X_2xEPYC_9575F/llama2-70b-99.9/Server/README.md", cfg_state="plan-only",
         extra="Run command: --config-name server_mi325x harness_config.data_parallel_size=8 (yaml not stored): "
               "TP 1 and FP8 assumed as for Offline. user_mi325x.conf: target_qps 104.2 (= the summary's), "
               "min_duration 2 h."),
    # ------------------------------------------------------------------ v5.0, MangoBoost, llama2-70b (32 MI300X)
    dict(key="v5.0-mangoboost-mi300x32-llama2-offline", rnd="v5.0", sub="MangoBoost", eng="LLMBoost 0.5.2 (vLLM)",
         bench="llama2-70b", repo=V50, sysdir="32xMI300X_2xEPYC_9534", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI300X", n=32, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=768, tok=103182.0, sps=349.64,
         cfg=f"{V50[0]} @{V50[1]}: closed/MangoBoost/code/llama2-70b-99.9/server_offline.sh; "
             f"closed/MangoBoost/code/llama2-70b-99/server.py", cfg_state="read",
         extra="Four nodes of 8 x MI300X, each serving llama2-70b with -tp 1 -dp 8 -max_num_seqs 768 "
               "(server_offline.sh); LoadGen drives the four nodes over the network ('Multi-Node SUT: Network "
               "SUT' x 4): 32 independent TP-1 workers, no traffic between GPUs. The model is AMD's "
               "fp8_quantized checkpoint (server.py model_map); server.py's kv_cache_dtype defaults to 'auto' and "
               "the script does not set it. Summary target_qps 368."),
    dict(key="v5.0-mangoboost-mi300x32-llama2-server", rnd="v5.0", sub="MangoBoost", eng="LLMBoost 0.5.2 (vLLM)",
         bench="llama2-70b", repo=V50, sysdir="32xMI300X_2xEPYC_9534", acc="llama2-70b-99", scen="Server",
         gpu="MI300X", n=32, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=768, tok=93039.93, sps=315.38,
         sched=320.08, ttft=1158.195338, tpot=115.514746,
         cfg=f"{V50[0]} @{V50[1]}: closed/MangoBoost/code/llama2-70b-99/server_online.sh", cfg_state="read",
         extra="Four nodes of 8 x MI300X, each -tp 1 -dp 8 -max_num_seqs 768 --gpu_batch_size 48 "
               "--batcher_threshold 0.2 --load_balancing_mode batching (server_online.sh): 32 TP-1 workers. "
               "FP8 checkpoint; KV dtype 'auto' (not set). Summary target_qps 320, min_duration 1 h."),
    # ------------------------------------------------------------------ v5.1, AMD, llama2-70b and mixtral-8x7b
    dict(key="v5.1-mi300x8-llama2-offline", rnd="v5.1", sub="AMD", eng="vLLM 0.9.0.2 (AMD harness_llm)",
         bench="llama2-70b", repo=V51T, sysdir="8xMI300X_2xEPYC_9575F", acc="llama2-70b-99", scen="Offline",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960, mb=1792, tok=27803.9, sps=None,
         readme=True, cfg=f"{C51}: {A}/code/llama2-70b-99.9/harness_llm/models/llama2-70b/offline_mi300x.yaml",
         cfg_state="read",
         extra="Supermicro AS-8125GS-TNMR2. offline_mi300x.yaml: tensor_parallel_size 1, quantization fp8 "
               "(fp8_quantized checkpoint), max_num_seqs 1792, max_num_batched_tokens 40960, no chunked prefill, "
               "num_scheduler_steps 11, gpu_memory_utilization 0.98, max_model_len 2048, block_size 32, "
               "device_count 8, AMD's llama2 decode-batch scheduler (target decode batch 1280-1536); no "
               "kv_cache_dtype (vLLM 'auto'). user_mi300x.conf: Offline target_qps 93."),
    dict(key="v5.1-mi300x8-llama2-server", rnd="v5.1", sub="AMD", eng="vLLM 0.9.0.2 (AMD harness_llm)",
         bench="llama2-70b", repo=V51T, sysdir="8xMI300X_2xEPYC_9575F", acc="llama2-70b-99", scen="Server",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960, mb=1792, tok=24593.80, sps=None,
         readme=True, sched=83.5, rate="config",
         cfg=f"{C51}: {A}/code/llama2-70b-99.9/harness_llm/models/llama2-70b/offline_mi300x.yaml and "
             f"{A}/code/llama2-70b-99.9/user_mi300x.conf", cfg_state="other-scenario",
         extra="No server_mi300x.yaml stored: the Offline engine (TP 1, FP8, max_num_seqs 1792) is assumed. "
               "Offered rate: user_mi300x.conf Server target_qps 83.5."),
    dict(key="v5.1-mi300x8-llama2-interactive", rnd="v5.1", sub="AMD", eng="vLLM 0.9.0.2 (AMD harness_llm)",
         bench="llama2-70b-interactive", repo=V51T, sysdir="8xMI300X_2xEPYC_9575F", acc="llama2-70b-99",
         scen="Interactive", gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None,
         tok=8840.42, sps=None, readme=True, sched=29.5, rate="config",
         cfg=f"{C51}: {A}/code/llama2-70b-99.9/user_mi300x.conf", cfg_state="plan-only",
         extra="No interactive_mi300x.yaml stored: TP 1 (eight replicas, as every stored AMD-harness llama2 "
               "config, Interactive ones included) and FP8 assumed, batch limits left to dse. Offered rate: "
               "user_mi300x.conf llama2-70b-interactive Server target_qps 29.5."),
    dict(key="v5.1-mi325x8-llama2-offline", rnd="v5.1", sub="AMD", eng="vLLM 0.9.0.2 (AMD harness_llm)",
         bench="llama2-70b", repo=V51T, sysdir="8xMI325X_2xEPYC_9575F_1", acc="llama2-70b-99", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=65536, mb=2700, tok=34520.4, sps=None,
         readme=True, cfg=f"{C51}: {A}/code/llama2-70b-99/harness_llm/models/llama2-70b/offline_mi325x.yaml",
         cfg_state="read",
         extra="offline_mi325x.yaml: tensor_parallel_size 1, quantization fp8, max_num_seqs 2700, "
               "max_num_batched_tokens 65536, no chunked prefill, num_scheduler_steps 7, gpu_memory_utilization "
               "0.98, max_model_len 2048, target decode batch 2048, VLLM_MLPERF_SWIZZLE_FP8_LINEAR, length "
               "buckets per GPU, device_count 8; no kv_cache_dtype (vLLM 'auto')."),
    dict(key="v5.1-mi300x8-mixtral-offline", rnd="v5.1", sub="AMD", eng="vLLM 0.9.0.2 (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51T, sysdir="8xMI300X_2xEPYC_9575F", acc="mixtral-8x7b", scen="Offline",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=65000, mb=5000, tok=53017.30, sps=None,
         readme=True,
         cfg=f"{C51}: closed/Vultr/code/mixtral-8x7b/harness_llm/models/mixtral-8x7b/offline_mi300x.yaml "
             f"(partner copy of AMD's harness)", cfg_state="other-system",
         extra="AMD's folder stores no Mixtral MI300X yaml; Vultr's copy of the same harness has "
               "offline_mi300x.yaml: tensor_parallel_size 1, quantization fp8, kv_cache_dtype fp8, max_num_seqs "
               "5000, max_num_batched_tokens 65000, no chunked prefill, AITER MoE kernels, device_count 8 "
               "(assumed for AMD's run)."),
    dict(key="v5.1-mi325x8-mixtral-offline", rnd="v5.1", sub="AMD", eng="vLLM 0.9.0.2 (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51T, sysdir="8xMI325X_2xEPYC_9575F_1", acc="mixtral-8x7b", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=51200, mb=4736, tok=68781.40, sps=None,
         readme=True, cfg=f"{C51}: {A}/code/mixtral-8x7b/harness_llm/models/mixtral-8x7b/offline_mi325x.yaml",
         cfg_state="read",
         extra="offline_mi325x.yaml: tensor_parallel_size 1, quantization fp8, kv_cache_dtype fp8, max_num_seqs "
               "4736, max_num_batched_tokens 51200, no chunked prefill, num_scheduler_steps 13, AITER 2-stage "
               "MoE, device_count 8."),
    # ------------------------------------------------------------------ v5.1, Vultr (AMD harness), MI325X
    dict(key="v5.1-vultr-mi325x8-llama2-offline", rnd="v5.1", sub="Vultr", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9554", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=65000, mb=2700, tok=33762.5, sps=112.148,
         cfg=f"{C51}: closed/Vultr/code/llama2-70b-99/harness_llm/models/llama2-70b/offline_mi325x.yaml",
         cfg_state="read",
         extra="Vultr's 8 x MI325X with AMD's harness. offline_mi325x.yaml: tensor_parallel_size 1, quantization "
               "fp8, max_num_seqs 2700, max_num_batched_tokens 65000, no chunked prefill, num_scheduler_steps 11, "
               "gpu_memory_utilization 0.97, target decode batch 2000; no kv_cache_dtype (vLLM 'auto'). Summary "
               "target_qps 114."),
    dict(key="v5.1-vultr-mi325x8-llama2-server", rnd="v5.1", sub="Vultr", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9554", acc="llama2-70b-99.9", scen="Server",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960, mb=1024, tok=30339.40, sps=101.00,
         sched=103.49, ttft=932.691109, tpot=113.335108,
         cfg=f"{C51}: closed/Vultr/code/llama2-70b-99.9/harness_llm/models/llama2-70b/server_mi325x.yaml",
         cfg_state="read",
         extra="server_mi325x.yaml: tensor_parallel_size 1, quantization fp8, max_num_seqs 1024, "
               "max_num_batched_tokens 40960, no chunked prefill, num_scheduler_steps 9, gpu_memory_utilization "
               "1.0, target decode batch 512-832, sync engine; no kv_cache_dtype. Summary target_qps 103."),
    dict(key="v5.1-vultr-mi325x8-llama2-interactive", rnd="v5.1", sub="Vultr", eng="vLLM V1 (AMD harness_llm)",
         bench="llama2-70b-interactive", repo=V51, sysdir="8xMI325X_2xEPYC_9554", acc="llama2-70b-99.9",
         scen="Interactive", gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=43008, mb=3840,
         tok=17709.62, sps=58.87, sched=59.38, ttft=112.935008, tpot=34.610573,
         cfg=f"{C51}: closed/Vultr/code/mixtral-8x7b/harness_llm/models/llama2-70b/interactive_mi325x.yaml "
             f"(stored under that folder in the fork)", cfg_state="read",
         extra="interactive_mi325x.yaml (benchmark llama2-70b-interactive): tensor_parallel_size 1, quantization "
               "fp8, vLLM V1 engine (async), chunked prefill on, max_num_batched_tokens 43008, max_num_seqs 3840, "
               "num_scheduler_steps 1, block_size 16, load balancing shortest_queue_with_tokens; no "
               "kv_cache_dtype. Summary target_qps 59."),
    dict(key="v5.1-vultr-mi325x8-mixtral-offline", rnd="v5.1", sub="Vultr", eng="vLLM (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F", acc="mixtral-8x7b", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=51200, mb=4736, tok=70035.6, sps=487.512,
         cfg=f"{C51}: {A}/code/mixtral-8x7b/harness_llm/models/mixtral-8x7b/offline_mi325x.yaml (AMD's)",
         cfg_state="other-system",
         extra="Vultr's folder stores its Mixtral MI300X yaml, not the MI325X one: AMD's offline_mi325x.yaml of "
               "the same harness is assumed (TP 1, FP8 weights and KV cache, max_num_seqs 4736, "
               "max_num_batched_tokens 51200). Summary target_qps 470."),
    # ------------------------------------------------------------------ v5.1 partners with AMD's harness (vLLM, FP8)
    # GigaComputing G893-ZX1-AAX2, 8 x MI325X: its code/ folder stores the Server, Interactive and Mixtral yamls.
    dict(key="v5.1-gigacomputing-mi325x8-llama2-offline", rnd="v5.1", sub="GigaComputing",
         eng="vLLM (AMD harness_llm)", bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F",
         acc="llama2-70b-99", scen="Offline", gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=65536,
         mb=2700, tok=34483.2, sps=114.578,
         cfg=f"{C51}: {A}/code/llama2-70b-99/harness_llm/models/llama2-70b/offline_mi325x.yaml (AMD's); "
             f"closed/GigaComputing/measurements/8xMI325X_2xEPYC_9575F/llama2-70b-99.9/Offline/README.md",
         cfg_state="other-system",
         extra="GigaComputing G893-ZX1-AAX2 (8 x MI325X 256 GB) with AMD's harness. The measurements README runs "
               "main.py --config-name offline_mi325x harness_config.device_count=8; GigaComputing's code/ folder "
               "does not store that yaml, so AMD's offline_mi325x.yaml of the same harness is assumed (TP 1, "
               "quantization fp8, max_num_seqs 2700, max_num_batched_tokens 65536, no kv_cache_dtype). Summary "
               "target_qps 114."),
    dict(key="v5.1-gigacomputing-mi325x8-llama2-server", rnd="v5.1", sub="GigaComputing",
         eng="vLLM (AMD harness_llm)", bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F",
         acc="llama2-70b-99", scen="Server", gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960,
         mb=1024, tok=32139.41, sps=106.98, sched=110.03, ttft=857.903548, tpot=144.574682,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99/harness_llm/models/llama2-70b/server_mi325x.yaml",
         cfg_state="read",
         extra="server_mi325x.yaml: tensor_parallel_size 1, quantization fp8, max_num_seqs 1024, "
               "max_num_batched_tokens 40960, no chunked prefill, num_scheduler_steps 9, gpu_memory_utilization "
               "1.0, target decode batch 512-832, sync engine, device_count 8; no kv_cache_dtype. Summary "
               "target_qps 109.5."),
    dict(key="v5.1-gigacomputing-mi325x8-llama2-interactive", rnd="v5.1", sub="GigaComputing",
         eng="vLLM V1 (AMD harness_llm)", bench="llama2-70b-interactive", repo=V51, sysdir="8xMI325X_2xEPYC_9575F",
         acc="llama2-70b-99", scen="Interactive", gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=43008,
         mb=3840, tok=18825.92, sps=62.68, sched=63.40, ttft=117.704695, tpot=34.853577,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99.9/harness_llm/models/llama2-70b/"
             f"interactive_mi325x.yaml", cfg_state="read",
         extra="interactive_mi325x.yaml (benchmark llama2-70b-interactive; the 99 and 99.9 runs share the harness): "
               "tensor_parallel_size 1, quantization fp8, vLLM V1 engine (async), chunked prefill on, "
               "max_num_batched_tokens 43008, max_num_seqs 3840, num_scheduler_steps 1, block_size 16, load "
               "balancing shortest_queue_with_tokens; no kv_cache_dtype. Summary target_qps 63."),
    dict(key="v5.1-gigacomputing-mi325x8-mixtral-offline", rnd="v5.1", sub="GigaComputing",
         eng="vLLM (AMD harness_llm)", bench="mixtral-8x7b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F",
         acc="mixtral-8x7b", scen="Offline", gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=65000,
         mb=4736, tok=69692.0, sps=486.178,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99.9/harness_llm/models/mixtral-8x7b/"
             f"offline_mi325x.yaml", cfg_state="read",
         extra="offline_mi325x.yaml (benchmark mixtral-8x7b): tensor_parallel_size 1, quantization fp8, "
               "kv_cache_dtype fp8, max_num_seqs 4736, max_num_batched_tokens 65000, no chunked prefill, "
               "num_scheduler_steps 13, gpu_memory_utilization 0.96, AITER 2-stage MoE, device_count 8. Summary "
               "target_qps 475."),
    dict(key="v5.1-gigacomputing-mi325x8-mixtral-server", rnd="v5.1", sub="GigaComputing",
         eng="vLLM (AMD harness_llm)", bench="mixtral-8x7b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F",
         acc="mixtral-8x7b", scen="Server", gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=32000,
         mb=2560, tok=58242.65, sps=401.48, sched=405.15, ttft=981.795686, tpot=144.668501,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99/harness_llm/models/mixtral-8x7b/server_mi325x.yaml",
         cfg_state="read",
         extra="server_mi325x.yaml (benchmark mixtral-8x7b): tensor_parallel_size 1, quantization fp8, "
               "kv_cache_dtype fp8, max_num_seqs 2560, max_num_batched_tokens 32000, no chunked prefill, "
               "num_scheduler_steps 10, sync engine, load balancing shortest_queue_with_tokens, device_count 8. "
               "Summary target_qps 405."),
    # MiTAC, 8 x MI325X (2 x EPYC 9755): its code/ folder stores the llama2 Offline MI325X yaml (others: MI300X).
    dict(key="v5.1-mitac-mi325x8-llama2-offline", rnd="v5.1", sub="MiTAC", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9755", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=65536, mb=2700, tok=33703.0, sps=111.994,
         cfg=f"{C51}: closed/MiTAC/code/llama2-70b-99.9/harness_llm/models/llama2-70b/offline_mi325x.yaml",
         cfg_state="read",
         extra="MiTAC 8 x MI325X with AMD's harness. offline_mi325x.yaml: tensor_parallel_size 1, quantization "
               "fp8, max_num_seqs 2700, max_num_batched_tokens 65536, no chunked prefill, num_scheduler_steps 7, "
               "gpu_memory_utilization 0.98, target decode batch 2048, device_count 8; no kv_cache_dtype. Summary "
               "target_qps 125 (min_duration 20 min)."),
    dict(key="v5.1-mitac-mi325x8-llama2-server", rnd="v5.1", sub="MiTAC", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9755", acc="llama2-70b-99.9", scen="Server",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960, mb=1024, tok=31755.66, sps=105.47,
         sched=108.27, ttft=868.390924, tpot=148.840515,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99/harness_llm/models/llama2-70b/server_mi325x.yaml "
             f"(another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="MiTAC's folder stores llama2 server_mi300x.yaml, not the MI325X one: GigaComputing's "
               "server_mi325x.yaml of the same harness is assumed (TP 1, FP8, max_num_seqs 1024, "
               "max_num_batched_tokens 40960, no kv_cache_dtype). Summary target_qps 108."),
    dict(key="v5.1-mitac-mi325x8-llama2-interactive", rnd="v5.1", sub="MiTAC", eng="vLLM V1 (AMD harness_llm)",
         bench="llama2-70b-interactive", repo=V51, sysdir="8xMI325X_2xEPYC_9755", acc="llama2-70b-99",
         scen="Interactive", gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=43008, mb=3840,
         tok=18846.10, sps=62.80, sched=63.40, ttft=118.507492, tpot=34.297148,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99.9/harness_llm/models/llama2-70b/"
             f"interactive_mi325x.yaml (another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="No interactive yaml in MiTAC's folder: GigaComputing's interactive_mi325x.yaml (the same as "
               "Vultr's: TP 1, FP8, V1 engine, chunked prefill, max_num_seqs 3840, max_num_batched_tokens 43008) "
               "is assumed. Summary target_qps 63."),
    dict(key="v5.1-mitac-mi325x8-mixtral-offline", rnd="v5.1", sub="MiTAC", eng="vLLM (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51, sysdir="8xMI325X_2xEPYC_9755", acc="mixtral-8x7b", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=51200, mb=4736, tok=67964.4, sps=474.238,
         cfg=f"{C51}: {A}/code/mixtral-8x7b/harness_llm/models/mixtral-8x7b/offline_mi325x.yaml (AMD's)",
         cfg_state="other-system",
         extra="No Mixtral Offline yaml in MiTAC's folder: AMD's offline_mi325x.yaml is assumed (TP 1, FP8 weights "
               "and KV cache, max_num_seqs 4736, max_num_batched_tokens 51200). Summary target_qps 474."),
    dict(key="v5.1-mitac-mi325x8-mixtral-server", rnd="v5.1", sub="MiTAC", eng="vLLM (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51, sysdir="8xMI325X_2xEPYC_9755", acc="mixtral-8x7b", scen="Server",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=32000, mb=2560, tok=57087.13, sps=397.31,
         sched=399.89, ttft=805.827777, tpot=115.984790,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99/harness_llm/models/mixtral-8x7b/server_mi325x.yaml "
             f"(another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="MiTAC's folder stores the Mixtral server_mi300x.yaml (max_num_seqs 4096), not the MI325X one: "
               "GigaComputing's server_mi325x.yaml is assumed (TP 1, FP8 weights and KV cache, max_num_seqs 2560, "
               "max_num_batched_tokens 32000). Summary target_qps 400."),
    # Dell PowerEdge XE9680, 8 x MI300X: AMD's harness (PySUT); Dell's code/ folder stores no engine yaml.
    dict(key="v5.1-dell-mi300x8-llama2-offline", rnd="v5.1", sub="Dell", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V51, sysdir="XE9680_MI300X_192GBx8", acc="llama2-70b-99", scen="Offline",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960, mb=1792, tok=27325.9, sps=90.5808,
         cfg=f"{C51}: {A}/code/llama2-70b-99.9/harness_llm/models/llama2-70b/offline_mi300x.yaml (AMD's)",
         cfg_state="other-system",
         extra="Dell XE9680 (8 x MI300X 192 GB) with AMD's harness (SUT PySUT; harness_llm files in Dell's code/ "
               "folder, no yaml stored): AMD's offline_mi300x.yaml is assumed (TP 1, FP8, max_num_seqs 1792, "
               "max_num_batched_tokens 40960, no kv_cache_dtype). Summary target_qps 93."),
    dict(key="v5.1-dell-mi300x8-llama2-server", rnd="v5.1", sub="Dell", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V51, sysdir="XE9680_MI300X_192GBx8", acc="llama2-70b-99.9", scen="Server",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960, mb=650, tok=24747.58, sps=82.24,
         sched=83.09, ttft=924.316222, tpot=145.809116,
         cfg=f"{C51}: closed/MiTAC/code/mixtral-8x7b/harness_llm/models/llama2-70b/server_mi300x.yaml "
             f"(another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="No yaml in Dell's folder: the llama2 server_mi300x.yaml stored in MiTAC's copy of AMD's harness is "
               "assumed (TP 1, FP8, max_num_seqs 650, max_num_batched_tokens 40960, no chunked prefill, target "
               "decode batch 352-608, no kv_cache_dtype). Summary target_qps 83."),
    dict(key="v5.1-dell-mi300x8-llama2-interactive", rnd="v5.1", sub="Dell", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b-interactive", repo=V51, sysdir="XE9680_MI300X_192GBx8", acc="llama2-70b-99.9",
         scen="Interactive", gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=40960, mb=600,
         tok=8455.14, sps=28.13, sched=28.42, ttft=199.947734, tpot=32.317071,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99/harness_llm/models/llama2-70b/interactive_mi300x.yaml "
             f"(another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="No yaml in Dell's folder: the interactive_mi300x.yaml stored in GigaComputing's copy of AMD's "
               "harness is assumed (benchmark llama2-70b-interactive: TP 1, FP8, sync engine, no chunked "
               "prefill, max_num_seqs 600, max_num_batched_tokens 40960, num_scheduler_steps 8; no "
               "kv_cache_dtype). Summary target_qps 28.3."),
    dict(key="v5.1-dell-mi300x8-mixtral-offline", rnd="v5.1", sub="Dell", eng="vLLM (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51, sysdir="XE9680_MI300X_192GBx8", acc="mixtral-8x7b", scen="Offline",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=65000, mb=5000, tok=53333.9, sps=371.628,
         cfg=f"{C51}: closed/Vultr/code/mixtral-8x7b/harness_llm/models/mixtral-8x7b/offline_mi300x.yaml "
             f"(another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="No yaml in Dell's folder: Vultr's Mixtral offline_mi300x.yaml is assumed, as for AMD's MI300X "
               "row (TP 1, FP8 weights and KV cache, max_num_seqs 5000, max_num_batched_tokens 65000). Summary "
               "target_qps 380."),
    dict(key="v5.1-dell-mi300x8-mixtral-server", rnd="v5.1", sub="Dell", eng="vLLM (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51, sysdir="XE9680_MI300X_192GBx8", acc="mixtral-8x7b", scen="Server",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=32000, mb=4096, tok=47801.88, sps=332.90,
         sched=334.53, ttft=820.668177, tpot=139.100615,
         cfg=f"{C51}: closed/MiTAC/code/llama2-70b-99/harness_llm/models/mixtral-8x7b/server_mi300x.yaml "
             f"(another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="No yaml in Dell's folder: the Mixtral server_mi300x.yaml stored in MiTAC's copy of AMD's harness "
               "is assumed (TP 1, FP8 weights and KV cache, max_num_seqs 4096, max_num_batched_tokens 32000, no "
               "chunked prefill, num_scheduler_steps 8). Summary target_qps 335."),
    # Vultr's Mixtral Server run (its Offline run is above).
    dict(key="v5.1-vultr-mi325x8-mixtral-server", rnd="v5.1", sub="Vultr", eng="vLLM (AMD harness_llm)",
         bench="mixtral-8x7b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F", acc="mixtral-8x7b", scen="Server",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv="fp8", mnt=32000, mb=2560, tok=56653.68, sps=390.85,
         sched=394.43, ttft=849.474674, tpot=122.976298,
         cfg=f"{C51}: closed/GigaComputing/code/llama2-70b-99/harness_llm/models/mixtral-8x7b/server_mi325x.yaml "
             f"(another partner's copy of AMD's harness)", cfg_state="other-system",
         extra="Vultr's folder stores no Mixtral MI325X Server yaml: GigaComputing's server_mi325x.yaml of the "
               "same harness is assumed (TP 1, FP8 weights and KV cache, max_num_seqs 2560, "
               "max_num_batched_tokens 32000). Summary target_qps 394."),
    # ------------------------------------------------------------------ v5.1 LLMBoost single-node runs
    # MangoBoost's v5.1 README (closed/MangoBoost/measurements/8xMI325X_2xEPYC_9655/llama2-70b-99/Offline/README.md)
    # starts LLMBoost with server.py --accelerator_name mi300x|mi325x and states no plan; the v5.0 LLMBoost
    # scripts (and the single-node command copied into Supermicro's measurements README) run -tp 1 -dp 8.
    dict(key="v5.1-mangoboost-mi300x8-llama2-offline", rnd="v5.1", sub="MangoBoost", eng="LLMBoost (mlperf-5.1)",
         bench="llama2-70b", repo=V51, sysdir="8xMI300X_2xEPYC_9534", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None, tok=27854.4, sps=92.402,
         cfg=f"{C51}: closed/MangoBoost/measurements/8xMI325X_2xEPYC_9655/llama2-70b-99/Offline/README.md",
         cfg_state="plan-only",
         extra="MangoBoost 8 x MI300X (EPYC 9534), LLMBoost service on the node driven by client.py ('Network "
               "SUT'). The v5.1 README states no plan or batch limits (server.py --test_mode Offline "
               "--accelerator_name mi300x, model AMD's FP8 quantized llama2-70b): TP 1 with 8 replicas, as in "
               "MangoBoost's v5.0 scripts (-tp 1 -dp 8), and FP8 assumed. Summary target_qps 92, min_duration 1 h."),
    dict(key="v5.1-mangoboost-mi300x8-llama2-server", rnd="v5.1", sub="MangoBoost", eng="LLMBoost (mlperf-5.1)",
         bench="llama2-70b", repo=V51, sysdir="8xMI300X_2xEPYC_9534", acc="llama2-70b-99.9", scen="Server",
         gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None, tok=24860.48, sps=82.59,
         sched=83.01, ttft=988.846748, tpot=134.398162,
         cfg=f"{C51}: closed/MangoBoost/measurements/8xMI325X_2xEPYC_9655/llama2-70b-99/Offline/README.md",
         cfg_state="plan-only",
         extra="LLMBoost server.py --test_mode Server --accelerator_name mi300x ('Network SUT'); plan and batch "
               "limits not stated: TP 1 x 8 replicas and FP8 assumed as for Offline. Summary target_qps 83, "
               "min_duration 1 h."),
    dict(key="v5.1-mangoboost-mi325x8-llama2-offline", rnd="v5.1", sub="MangoBoost", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9655", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=65536, mb=2700, tok=34454.4, sps=114.536,
         cfg=f"{C51}: {A}/code/llama2-70b-99/harness_llm/models/llama2-70b/offline_mi325x.yaml (AMD's); "
             f"closed/MangoBoost/measurements/8xMI325X_2xEPYC_9655/llama2-70b-99/Offline/README.md",
         cfg_state="other-system",
         extra="MangoBoost 8 x MI325X (EPYC 9655). The README: this one result was produced with AMD's harness "
               "(submission/llama2_70b.sh GPU_NAME=mi325x GPU_COUNT=8; SUT PySUT), so AMD's offline_mi325x.yaml "
               "is assumed (TP 1, FP8, max_num_seqs 2700, max_num_batched_tokens 65536, no kv_cache_dtype). "
               "Summary target_qps 116, min_duration 1 h."),
    dict(key="v5.1-mangoboost-mi325x8-llama2-server", rnd="v5.1", sub="MangoBoost", eng="LLMBoost (mlperf-5.1)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9655", acc="llama2-70b-99.9", scen="Server",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None, tok=31671.85, sps=105.45,
         sched=108.52, ttft=823.876605, tpot=132.734431,
         cfg=f"{C51}: closed/MangoBoost/measurements/8xMI325X_2xEPYC_9655/llama2-70b-99/Offline/README.md",
         cfg_state="plan-only",
         extra="The README runs LLMBoost (server.py --test_mode Server --accelerator_name mi325x) for this result, "
               "though the summary names the SUT 'PySUT' (AMD's harness name): either engine runs one TP-1 "
               "replica per GPU in the files read, so TP 1 x 8 and FP8 are assumed, batch limits left to dse. "
               "Summary target_qps 108 (measurements user.conf: 107), min_duration 10 min."),
    dict(key="v5.1-dell-mangoboost-mi300x8-llama2-offline", rnd="v5.1", sub="Dell_MangoBoost",
         eng="LLMBoost (mlperf-5.1)", bench="llama2-70b", repo=V51, sysdir="8xMI300X_2xXeon_8460Y",
         acc="llama2-70b-99.9", scen="Offline", gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None,
         mb=None, tok=27678.1, sps=91.7054,
         cfg=f"{C51}: closed/MangoBoost/measurements/8xMI325X_2xEPYC_9655/llama2-70b-99/Offline/README.md "
             f"(MangoBoost's LLMBoost instructions)", cfg_state="plan-only",
         extra="Dell and MangoBoost: 8 x MI300X with two Xeon 8460Y hosts, LLMBoost driven over the network "
               "('Network SUT'); no engine config stored (Dell_MangoBoost's code/ holds AMD's v5.0 harness "
               "README): TP 1 x 8 replicas and FP8 assumed as for MangoBoost's MI300X node. Summary target_qps "
               "92, min_duration 90 min."),
    dict(key="v5.1-dell-mangoboost-mi300x8-llama2-server", rnd="v5.1", sub="Dell_MangoBoost",
         eng="LLMBoost (mlperf-5.1)", bench="llama2-70b", repo=V51, sysdir="8xMI300X_2xXeon_8460Y",
         acc="llama2-70b-99.9", scen="Server", gpu="MI300X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None,
         mb=None, tok=24532.70, sps=81.53, sched=81.89, ttft=975.311119, tpot=133.726060,
         cfg=f"{C51}: closed/MangoBoost/measurements/8xMI325X_2xEPYC_9655/llama2-70b-99/Offline/README.md "
             f"(MangoBoost's LLMBoost instructions)", cfg_state="plan-only",
         extra="LLMBoost ('Network SUT') on 8 x MI300X with Xeon 8460Y hosts; TP 1 x 8 and FP8 assumed, batch "
               "limits left to dse. Summary target_qps 82, min_duration 90 min."),
    dict(key="v5.1-supermicro-mi325x8-llama2-offline", rnd="v5.1", sub="Supermicro", eng="LLMBoost (Mango LLMBoost)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None, tok=33468.4, sps=111.356,
         cfg=f"{C51}: closed/Supermicro/measurements/8xMI325X_2xEPYC_9575F/llama2-70b-99/Offline/README.md",
         cfg_state="plan-only",
         extra="Supermicro 8 x MI325X (EPYC 9575F); system description framework 'Mango LLMBoost AI Enterprise "
               "Platform'. The measurements README (a copy of MangoBoost's v5.0 one) runs the single node with "
               "mlperf.py -tp 1 -dp 8 (FP8 quantized llama2-70b); no max_num_seqs for the single node. The summary "
               "names the SUT 'PySUT'. Summary target_qps 116, min_duration 1 h."),
    dict(key="v5.1-supermicro-mi325x8-llama2-server", rnd="v5.1", sub="Supermicro", eng="LLMBoost (Mango LLMBoost)",
         bench="llama2-70b", repo=V51, sysdir="8xMI325X_2xEPYC_9575F", acc="llama2-70b-99", scen="Server",
         gpu="MI325X", n=8, gpn=8, tp=1, prec="fp8", kv=None, mnt=None, mb=None, tok=31646.17, sps=105.35,
         sched=105.84, ttft=831.411232, tpot=131.759837,
         cfg=f"{C51}: closed/Supermicro/measurements/8xMI325X_2xEPYC_9575F/llama2-70b-99/Offline/README.md",
         cfg_state="plan-only",
         extra="Single-node Server command of the README: mlperf.py -tp 1 -dp 8 --gpu_batch_size 48 "
               "--batcher_threshold 0.2 --load_balancing_mode batching (no max_num_seqs). Summary target_qps 106 "
               "(measurements user.conf: 108), min_duration 1 h."),
    # ------------------------------------------------------------------ v6.0, AMD, llama2-70b (MI355X, FP4)
    dict(key="v6.0-mi355x8-llama2-offline", rnd="v6.0", sub="AMD", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V60, sysdir="8xMI355X_2xEPYC_9575F", acc="llama2-70b-99.9", scen="Offline",
         gpu="MI355X", n=8, gpn=8, tp=1, prec="fp4", kv=None, mnt=None, mb=None, tok=103480.0, sps=365.738,
         cfg=f"{V60[0]} @{V60[1]}: {A}/results/8xMI355X_2xEPYC_9575F/llama2-70b-99/Offline/README.md",
         cfg_state="plan-only",
         extra="8 x MI355X (288 GB). The fork stores no code: the results README's run command is main.py "
               "--config-name offline_mi355x harness_config.device_count=8 after download_model_fp4.sh, so FP4 "
               "(presumably OCP MXFP4 weights and activations) and TP 1 (one engine per GPU, as in every stored "
               "AMD llama2 config) are assumed. Summary target_qps 370, min_duration 1 h."),
    dict(key="v6.0-mi355x8-llama2-server", rnd="v6.0", sub="AMD", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b", repo=V60, sysdir="8xMI355X_2xEPYC_9575F", acc="llama2-70b-99", scen="Server",
         gpu="MI355X", n=8, gpn=8, tp=1, prec="fp4", kv=None, mnt=None, mb=None, tok=100282.36, sps=354.41,
         sched=359.71, ttft=616.415078, tpot=144.435776,
         cfg=f"{V60[0]} @{V60[1]}: {A}/results/8xMI355X_2xEPYC_9575F/llama2-70b-99/Server/README.md",
         cfg_state="plan-only",
         extra="No engine config stored: FP4 checkpoint and TP 1 assumed as for Offline. Summary target_qps 360, "
               "min_duration 30 min."),
    dict(key="v6.0-mi355x8-llama2-interactive", rnd="v6.0", sub="AMD", eng="vLLM (AMD harness_llm)",
         bench="llama2-70b-interactive", repo=V60, sysdir="8xMI355X_2xEPYC_9575F", acc="llama2-70b-99.9",
         scen="Interactive", gpu="MI355X", n=8, gpn=8, tp=1, prec="fp4", kv=None, mnt=None, mb=None,
         tok=73608.25, sps=260.10, sched=263.64, ttft=241.975280, tpot=34.999429,
         cfg=f"{V60[0]} @{V60[1]}: {A}/results/8xMI355X_2xEPYC_9575F/llama2-70b-99.9/Interactive/README.md",
         cfg_state="plan-only",
         extra="No engine config stored: FP4 and TP 1 assumed. Summary target_qps 263 (ttft_latency 450 ms, "
               "tpot_latency 40 ms)."),
]


def case(r):
    """The case of result ``r`` (a RESULTS row): build_mlperf_inference.case's conventions for another
    submitter and engine (one vLLM engine of TP 1 per GPU)."""
    b = BENCH[r["bench"]]
    n, tp, pp = r["n"], r["tp"], 1
    assert n % (tp * pp) == 0, r["key"]
    dp = n // (tp * pp)
    online = r["scen"] in ("Server", "Interactive")
    out_len, out_txt = mean_output(r, b)
    in_len = b["input_len"]
    sub = f"closed/{r['sub']}"
    res = result_file(r, sub)
    model, inf = model_and_inference(r, b, in_len, out_len, online)
    st = r["cfg_state"]
    inferred = ["inference.input_len", "inference.output_len", "model.seq_len", "parallel.dp",
                "cluster.gpus_per_node"] + (["inference.output_len_cv"] if "output_len_cv" in inf else [])
    if st != "read":
        inferred += ["parallel.tp", "parallel.pp"]
    if st in ("other-system", "plan-only"):
        inferred += ["precision"]
    if st in ("other-scenario", "other-system"):
        inferred += [f"inference.{k}" for k, v in (("max_num_tokens", r["mnt"]), ("max_batch", r["mb"]),
                                                   ("kv_cache_dtype", r["kv"])) if v]
    per_gpu = r["tok"] / n
    mb = (f"Engine max batch (vLLM max_num_seqs) {r['mb']} per replica; continuous batching" if r["mb"]
          else "Continuous batching (max_num_seqs not in the files read)")
    notes = result_note(r, b, r["sub"], r["eng"], n, per_gpu, online,
                        f"{dp} engine replica(s) of TP {tp} x PP {pp} behind one LoadGen, written as dp {dp}", mb,
                        in_len, out_len, out_txt)
    if online and r.get("rate") == "config":
        notes += config_rate_note(r, b, "the user.conf target_qps", "AMD-GPU ", "2.5%")
    elif online:
        notes += summary_rate_note(r, b)
    prec_src = {"read": "as the config states", "other-scenario": "as the config states",
                "other-system": "as the assumed config states", "plan-only": "(inferred here)"}[st]
    kv_txt = (f"KV cache FP8 as {'stated' if st == 'read' else 'assumed'}" if r["kv"] else
              "KV cache dtype not set in the files read (dse default)")
    mnt = (f"max_num_batched_tokens {r['mnt']} {'as stated' if st == 'read' else 'assumed'}" if r["mnt"]
           else "max_num_batched_tokens not in the files read")
    notes += f"Precision {r['prec']} {prec_src}; {kv_txt}; {mnt}. {b['model_src']}."
    return assemble_case(f"mlperf-inf-amd-{r['key']}",
                         f"MLPerf Inference {r['rnd']} closed {r['sub']} {r['bench']} {r['scen']} ({res}); "
                         f"config {r['cfg']}", r, model, (n, tp, pp, dp, 1), inf, per_gpu, inferred, notes, online)


def main():
    write_cases([case(r) for r in RESULTS], OUT)


if __name__ == "__main__":
    main()
