#!/usr/bin/env python3
"""Write validation/inferencemax.jsonl: SemiAnalysis InferenceMAX (renamed InferenceX) single-node serving
measurements of DeepSeek-R1-0528 at fixed concurrency, with the run's GPU, GPU count, TP/EP, precision, engine
image, ISL/OSL and concurrency, as an out-of-sample check of dse's serving model (fitted on TensorRT-LLM) across
H200, B200, MI300X, MI325X and MI355X and two engines (SGLang, TensorRT-LLM).

Usage: python validation/build_inferencemax.py   (no network: every number below was read from the public files
named here and is kept as a literal, rounded to 6 significant digits).

Case format: ../shared/validation/README.md (LLM inference cases) with dse's optional inference keys
(``concurrency`` with mode ``online`` for a closed loop of C clients, ``kv_cache_dtype``, ``max_num_tokens``,
``mem_fraction_static``, ``max_batch``, ``kv_allocation``, ``quant_scope``), as validation/vllm_serving.jsonl
(its SGLang cookbook block is the closest precedent). One case per measured figure (output tokens/s per GPU, mean
TTFT, mean TPOT as itl_ms); the other figures of the same run go in ``also``; what the source does not state is in
``inferred`` and explained in ``notes``.

SOURCE OF THE NUMBERS
  SemiAnalysisAI/InferenceX-app @3a600f1d9ce155536d52e2f58f744f27a301aac9,
  packages/app/cypress/fixtures/api/benchmarks.json (2,274,325 characters, one JSON array). It is the dashboard's
  /api/benchmarks answer for model 'dsr1' kept as a Cypress test fixture: one object per (hardware, framework,
  precision, spec_method, disagg, TP/EP/DP-attention, isl, osl, conc) with 'image' (the engine container),
  'metrics' (the benchmark's aggregates, latencies in seconds, throughputs per GPU), 'date' and 'run_url' (the
  GitHub Actions run of SemiAnalysisAI/InferenceX that measured it). The fixture manifest
  (packages/app/cypress/fixtures/api/_manifest.json @00550b64) marks only the collectivex fixtures as
  'synthetic://'; the benchmarks fixture has source null, and its rows carry real run URLs, container tags and
  dates, so it is read as a captured copy of the production data. It was not checked against the runs' own
  artifacts (not stored where this builder's author could read them): reliability B for every case. A later
  version of the same file (@a369c398, pretty-printed) starts with the same rows and values.
  How a field was read: hardware -> cluster.gpu (b200 -> B200-180GB, h200 -> H200-SXM-141GB, mi300x, mi325x,
  mi355x);
  decode_tp / decode_ep -> parallel.tp / parallel.ep (prefill_* equal, disagg false, DP attention false in every
  row used); conc -> inference.concurrency; isl/osl -> the asked lengths; metrics.output_tput_per_gpu -> target
  tokens_per_s_per_gpu; metrics.mean_ttft x 1000 -> ttft_ms; metrics.mean_tpot x 1000 -> itl_ms;
  metrics.input_tput_per_gpu -> also input_tokens_per_s_per_gpu. The row's num_prefill_gpu / num_decode_gpu are
  NOT used: for TP-with-EP rows they hold tp x ep (16 for TP4/EP4) where the server ran on tp GPUs; the per-GPU
  throughputs are per tp GPUs (checked below: concurrency x mean output length / mean end-to-end latency / tp
  matches output_tput_per_gpu to within 5% on every row, and would be off 4-8x with tp x ep).
  'metrics.mean_itl' is not used for itl_ms: the servers stream every 10th token (--stream-interval 10,
  TensorRT-LLM stream_interval 10; every 30th in group 10), so the benchmark's inter-chunk gap is ~10 (30) x TPOT
  on those rows; mean_tpot
  ((e2e latency - TTFT) / (output tokens - 1), per request) is the per-token decode time dse's itl_ms predicts.

HOW THE BENCHMARK RAN (SemiAnalysisAI/InferenceX, stored versions; the runs' own commits are not pinned)
  .github/workflows/benchmark-tmpl.yml @00983c3e: RANDOM_RANGE_RATIO 0.8 (input 'random-range-ratio' default
  '0.8'). Every single-node script calls run_benchmark_serving with --random-input-len ISL --random-output-len OSL
  --random-range-ratio 0.8 --num-prompts 10 x CONC --max-concurrency CONC (request rate inf, ignore_eos): a closed
  loop of CONC clients, 10 x CONC requests. The InferenceMAX benchmark_serving.py random sampler (the vLLM
  benchmark's older code, also in kimbochen/bench_serving that the early scripts cloned) draws each prompt and each
  output length uniformly from [int(0.8 X), X]: mean 921.5 for 1024, 7372.5 for 8192. The cases use 922 / 7373
  (INFERRED; the rows give no token counts). Checks below: input_tput / output_tput agrees with the asked
  ISL/OSL ratio to within 5% on every row (the re-tokenized random prompts come out ~1% longer), and
  mean_ttft + (7372.5 or 921.5 - 1) x mean_tpot reproduces mean_e2el to within 6%.
  Engine settings from the scripts (stored versions named per group; INFERRED for the runs, whose script commit is
  not in the row): KV-cache dtype, token budget (SGLang --chunked-prefill-size, TensorRT-LLM --max_num_tokens),
  SGLang --mem-fraction-static (as mem_fraction_static) and --max-running-requests (as max_batch).
  Checkpoints (the workflow configs' 'model'): FP8 rows deepseek-ai/DeepSeek-R1-0528 (block-scaled FP8 linear
  layers: quant_scope all); NVIDIA FP4 rows nvidia/DeepSeek-R1-0528-FP4-V2 (sglang --quantization modelopt_fp4);
  AMD FP4 rows amd/DeepSeek-R1-0528-MXFP4-Preview (named in InferenceX's MI355X scripts). For both FP4 checkpoints
  dse's quant_scope 'ffn' is INFERRED (experts and FFNs in FP4, attention projections higher precision: FP8 in
  the checkpoints, 16-bit in dse), as validation/disaggregated.jsonl writes the FP4 DeepSeek-R1.

GROUPS (all spec_method none, disagg false, single node; rows whose 'image' names the engine build):
  1. B200 x8, TensorRT-LLM nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post2, FP8, TP8 EP1, run 21484110885
     (2026-01-29); script benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200_trt.sh @8eec0d4e (same settings in
     benchmarks/dsr1_fp8_b200_trt.sh @0a919c5f): kv_cache_config dtype fp8, free_gpu_memory_fraction 0.8,
     --max_num_tokens max(8192, ceil64(CONC + ISL + 127)), cuda graphs up to CONC, MoE backend TRTLLM. The 4 rows
     of this configuration without an image (2025-11-02) are left out.
  2. MI355X x8, SGLang lmsysorg/sglang:v0.5.9-rocm700-mi35x, FP8, TP8; 1k/1k and 8k/1k from run 25281476062
     (2026-05-03), 1k/8k from run 22725876766 (2026-03-05). Script benchmarks/single_node/fixed_seq_len/
     dsr1_fp8_mi355x.sh @8eec0d4e and benchmarks/single_node/dsr1_fp8_mi355x.sh @285b6628: --kv-cache-dtype
     fp8_e4m3, --chunked-prefill-size 196608, --mem-fraction-static 0.8 (the older benchmarks/dsr1_fp8_mi355x.sh
     @1fc5d73c had no --kv-cache-dtype, i.e. BF16 KV: the KV dtype of these runs is the likelier one, not known).
  3. MI325X x8, SGLang lmsysorg/sglang:v0.5.9-rocm700-mi30x, FP8, TP8, run 22469096331 (2026-02-27); script
     benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi325x.sh @0762e65d (= benchmarks/dsr1_fp8_mi325x.sh @1fc5d73c):
     --kv-cache-dtype fp8_e4m3, --chunked-prefill-size 131072, --mem-fraction-static 0.8.
  4. MI355X x8, SGLang v0.5.9-rocm700-mi35x, FP4 (MXFP4), TP8, run 22469096331 (2026-02-27); script
     benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x.sh @8eec0d4e (= benchmarks/dsr1_fp4_mi355x.sh @1fc5d73c):
     --kv-cache-dtype fp8_e4m3, --chunked-prefill-size 196608 (32768 for 8k/1k above concurrency 32),
     --mem-fraction-static 0.8.
  5. MI355X x4, the same image, FP4, TP4, 1k/1k only (run 22469096331); the same script. Its 1k/8k and 8k/1k rows
     (2025-10-06) have no image and are left out.
  6. H200 x8, SGLang lmsysorg/sglang:v0.5.9-cu130, FP8, TP8, run 23552373331 (2026-03-25); script
     benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh @8eec0d4e (= benchmarks/single_node/dsr1_fp8_h200.sh
     @161e7f65): no --kv-cache-dtype (BF16 KV), --chunked-prefill-size 32768, --mem-fraction-static 0.82,
     --max-running-requests 512 (1k/1k) or 256, flashinfer attention.
  7. B200 x4, SGLang v0.5.9-cu130, FP4 (NVFP4), TP4 EP4, run 23552373331; script benchmarks/single_node/
     fixed_seq_len/dsr1_fp4_b200.sh @25cbe715 (= benchmarks/dsr1_fp4_b200.sh @1fc5d73c without DP attention):
     --kv-cache-dtype fp8_e4m3, --chunked-prefill-size 16384, --mem-fraction-static 0.85,
     --max-running-requests 256, --ep-size EP (experts split 4 ways, dse tp 4 ep 4).
  8. B200 x8, the same, TP8 EP8. This configuration has no 8k/1k rows at concurrency 32-128 and no 1k/1k row at
     4-8 among the rows read.
  9. MI300X x8, SGLang lmsysorg/sglang:v0.5.9-rocm700-mi30x, FP8, TP8, run 22469096331 (2026-02-27), concurrency
     4-64 at all three ISL/OSL; script benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi300x.sh @8eec0d4e:
     --kv-cache-dtype fp8_e4m3, --chunked-prefill-size 131072, --mem-fraction-static 0.8,
     --num-continuous-decode-steps 4, aiter attention (no --max-running-requests).
 10. B200 x8, SGLang lmsysorg/sglang:v0.5.9-cu130, FP8, TP8 EP1, run 23552373331 (2026-03-25): 1k/1k and 1k/8k at
     concurrency 4-64, 8k/1k at 4 only; script benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200.sh @8eec0d4e
     (same settings @432945d2): --kv-cache-dtype fp8_e4m3, --chunked-prefill-size 32768, --mem-fraction-static
     0.82, --max-running-requests 128, trtllm_mla attention, flashinfer_trtllm MoE, --stream-interval 30 (the
     rows' mean_itl is ~30 x mean_tpot). Its 8k/1k rows at concurrency 8-64 carry another image
     (lmsysorg/sglang:v0.5.6-cu129-amd64, run 20621824084, 2025-12-31, whose script version was not looked up) and
     are left out.

LEFT OUT (and why)
  - Rows without 'image' (runs of 2025-10 and 2025-11, e.g. H200 and B200 TensorRT-LLM FP8/FP4 of 2025-11-02): the
    engine version is not in the row.
  - MTP rows (spec_method mtp: TensorRT-LLM and SGLang with DeepSeek's MTP): the draft acceptance is not stated.
  - Disaggregated and multi-node rows (dynamo-trt, dynamo-sglang, mori-sglang; GB200, GB300, B300, H200, MI355X):
    their GPU-count fields disagree with the worker counts in places and dse's disaggregated phase is offline.
  - The fixture was not read whole. Read (character offsets of the 2,274,325): the first quarter or so by the first
    pass, then 168,000-216,000 (MI300X SGLang FP8, B200 SGLang FP8: groups 9-10), and single 16,000-character pages
    at 400,000, 600,000, 800,000-848,000, 1,100,000, 1,400,000 and 1,700,000 to map the layout. Those pages hold
    disaggregated/multi-node rows (GB200, GB300, B300, H200, B200, MI355X with dynamo-trt, dynamo-sglang,
    mori-sglang), MTP rows (B200 TensorRT-LLM FP4 TP4 / TP8 EP8, with and without DP attention, images
    1.1.0rc2.post2 and 1.2.0rc6.post3) and MI355X ATOM FP4 TP8 rows (rocm/atom:rocm7.1.1-ubuntu24.04-pytorch2.9-
    atom0.1.1-MI350x, run 22411648488, 2026-02-25: single node, with image, not added: engine not in dse's
    precedents and its script was not looked up). Not found in the pages read, so not added: B200 TensorRT-LLM FP4
    TP4 non-MTP with image 1.2.0rc6.post2 (run 21640806486, named by the first pass), and whatever single-node
    groups lie in the unread stretches (about 216,000-400,000 beyond the B200 SGLang FP4 rows, 416,000-600,000,
    616,000-800,000, 848,000-1,100,000 and 1,116,000 to the end except the pages above). Row fragments cut at a
    page boundary without their header (e.g. a B200 SGLang FP4 1k/1k concurrency-8 row) were not used.
  - gpt-oss-120b and Llama 3.3 70B: the fixture holds only DeepSeek-R1 (the API answers one model); no other
    stored copy of InferenceMAX results with configurations was found: the InferenceMAX forks hold workflows and
    scripts, not results, except ajith-sirra-amd/InferenceMAX_Rocm_Team results/ (agentic multi-turn AIPerf
    replays with prefix caching, no fixed ISL/OSL) and InferenceX-app packages/db/data/supplemental-bmk.json
    (GLM-4.7 on Gaudi 3: neither in dse).

Not modelled by dse, said in the notes: the benchmark's uniform length draw (dse takes the mean lengths), SGLang's
--num-continuous-decode-steps (AMD scripts), TensorRT-LLM piecewise CUDA graphs and batch-wait delays (B200 TRT
rows at concurrency >= 64), and the client-side gap between a request's end and the next one's start.
"""
from __future__ import annotations

import os

from case_files import DEEPSEEK_V3, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "inferencemax.jsonl")

SNAPSHOT = ("SemiAnalysisAI/InferenceX-app @3a600f1d9ce155536d52e2f58f744f27a301aac9 "
            "packages/app/cypress/fixtures/api/benchmarks.json")
RUN_URL = "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/{}/attempts/{}"

# Model block: case_files.DEEPSEEK_V3 (R1-0528 has the architecture of V3; its config.json).
DSR1 = {**DEEPSEEK_V3, "name": "DeepSeek-R1-0528"}
MODEL_INFERRED = ["model.ffn_act", "model.ffn_hidden", "model.head_dim", "model.heads", "model.hidden",
                  "model.kv_heads", "model.layers", "model.vocab", "model.seq_len", "model.moe",
                  "model.moe.shared_experts", "model.moe.dense_layers", "model.moe.expert_groups",
                  "model.moe.top_groups", "model.moe.router_skew", "model.mla"]

PARALLEL = {"pp": 1, "dp": 1, "cp": 1, "sp": False, "vpp": 1, "zero": 0, "recompute": "none",
            "microbatch": None, "global_batch": None}

#: FACT (benchmark-tmpl.yml): --random-range-ratio 0.8; lengths uniform over [int(0.8 X), X]
RANGE_RATIO = 0.8


def mean_len(asked: int) -> float:
    """Mean of the benchmark's uniform integer draw over [int(0.8 X), X]."""
    return (int(asked * RANGE_RATIO) + asked) / 2


def len_cv(asked: int) -> float:
    """Coefficient of variation of the same draw (the discrete uniform's standard deviation over its mean):
    the lengths are not one length, so the clients do not stay in lockstep (inference.output_len_cv)."""
    values = asked - int(asked * RANGE_RATIO) + 1
    return round(((values * values - 1) / 12) ** 0.5 / mean_len(asked), 4)


def case_len(asked: int) -> int:
    """The case's length: the draw's mean rounded half up (921.5 -> 922, 7372.5 -> 7373)."""
    return int(mean_len(asked) + 0.5)


#: run key -> (run id, attempt, date): FACT, the rows' run_url and date
RUNS = {
    "trt0129": (21484110885, 1, "2026-01-29"),
    "mi355_0503": (25281476062, 1, "2026-05-03"),
    "mi355_0305": (22725876766, 2, "2026-03-05"),
    "amd0227": (22469096331, 1, "2026-02-27"),
    "nv0325": (23552373331, 2, "2026-03-25"),
}

# Rows, FACTS from the fixture (6 significant digits):
# (conc, isl, osl, tput_per_gpu, output_tput_per_gpu, input_tput_per_gpu, mean_ttft s, mean_tpot s, mean_e2el s)
# with an optional 10th element: the run key when it differs from the group's.
GROUPS = [
    dict(key="trt", slug="trtllm1.2.0rc6.post2_b200x8_dsr1-fp8_tp8", gpu="B200-180GB", n=8, tp=8, ep=1,
         engine="TensorRT-LLM", image="nvcr.io/nvidia/tensorrt-llm/release:1.2.0rc6.post2", precision="fp8",
         checkpoint="deepseek-ai/DeepSeek-R1-0528", run="trt0129", kv="fp8", mem_util=None, max_batch=None,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200_trt.sh @8eec0d4e",
         rows=[(4, 1024, 1024, 92.8444, 46.1963, 46.6481, 0.188520, 0.0103021, 9.63539),
               (4, 1024, 8192, 54.6325, 48.4499, 6.18262, 0.193253, 0.0101344, 73.7822),
               (4, 8192, 1024, 388.550, 43.2231, 345.327, 0.348032, 0.0109248, 10.3906),
               (8, 1024, 1024, 172.984, 86.8127, 86.1714, 0.181474, 0.0110846, 10.4751),
               (8, 1024, 8192, 104.119, 92.5231, 11.5964, 0.187012, 0.0104976, 77.4191),
               (8, 8192, 1024, 700.062, 78.6988, 621.364, 0.399481, 0.0120573, 11.5638),
               (16, 1024, 8192, 170.655, 151.631, 19.0237, 0.244625, 0.0128242, 94.8503),
               (32, 1024, 8192, 267.171, 237.663, 29.5083, 0.262032, 0.0164074, 121.934),
               (64, 1024, 1024, 698.150, 348.996, 349.154, 0.642504, 0.0215046, 20.4515),
               (64, 1024, 8192, 391.895, 348.395, 43.5002, 0.295097, 0.0223528, 165.393),
               (64, 8192, 1024, 1918.15, 212.802, 1705.35, 1.12466, 0.0357309, 34.0773),
               (128, 1024, 1024, 1116.65, 557.714, 558.939, 0.737867, 0.0269935, 25.5553),
               (128, 1024, 8192, 615.221, 546.783, 68.4388, 0.304832, 0.0284452, 209.843),
               (128, 8192, 1024, 2463.05, 272.821, 2190.23, 1.97646, 0.0556755, 53.2403),
               (256, 8192, 1024, 2879.62, 320.049, 2559.57, 8.32780, 0.0894086, 90.8413)]),
    dict(key="mi355fp8", slug="sglang0.5.9_mi355xx8_dsr1-fp8_tp8", gpu="MI355X", n=8, tp=8, ep=1,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-rocm700-mi35x", precision="fp8",
         checkpoint="deepseek-ai/DeepSeek-R1-0528", run="mi355_0503", kv="fp8", mem_util=0.8, max_batch=None,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi355x.sh @8eec0d4e",
         rows=[(4, 1024, 1024, 93.7056, 46.6248, 47.0808, 0.568031, 0.00981665, 9.57542),
               (4, 1024, 8192, 58.7704, 52.1195, 6.65089, 0.469469, 0.00938579, 68.6226, "mi355_0305"),
               (4, 8192, 1024, 324.706, 36.1210, 288.585, 1.16850, 0.0123170, 12.5013),
               (8, 1024, 1024, 173.992, 87.3187, 86.6737, 0.299857, 0.0109019, 10.4271),
               (8, 1024, 8192, 104.172, 92.5697, 11.6022, 0.481760, 0.0104729, 77.5273, "mi355_0305"),
               (8, 8192, 1024, 575.103, 64.6513, 510.452, 0.972801, 0.0141639, 14.1324),
               (16, 1024, 1024, 279.723, 139.121, 140.602, 0.328178, 0.0137483, 12.9146),
               (16, 1024, 8192, 167.713, 149.017, 18.6958, 0.495291, 0.0130389, 96.6912, "mi355_0305"),
               (16, 8192, 1024, 885.227, 98.0888, 787.138, 1.21988, 0.0185678, 18.2260),
               (32, 1024, 1024, 387.425, 194.019, 193.406, 0.606127, 0.0195626, 18.6722),
               (32, 1024, 8192, 253.836, 225.801, 28.0355, 0.531767, 0.0172446, 128.414, "mi355_0305"),
               (32, 8192, 1024, 1189.65, 133.036, 1056.62, 1.54189, 0.0277862, 27.3087),
               (64, 1024, 1024, 602.874, 301.369, 301.505, 0.692920, 0.0251820, 23.9259),
               (64, 1024, 8192, 403.430, 358.649, 44.7806, 0.624390, 0.0216329, 160.417, "mi355_0305"),
               (64, 8192, 1024, 1611.33, 178.763, 1432.57, 2.11331, 0.0417639, 40.7138)]),
    dict(key="mi325fp8", slug="sglang0.5.9_mi325xx8_dsr1-fp8_tp8", gpu="MI325X", n=8, tp=8, ep=1,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-rocm700-mi30x", precision="fp8",
         checkpoint="deepseek-ai/DeepSeek-R1-0528", run="amd0227", kv="fp8", mem_util=0.8, max_batch=None,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi325x.sh @0762e65d",
         rows=[(4, 1024, 1024, 39.8952, 19.8505, 20.0446, 0.317416, 0.0240795, 22.4071),
               (4, 1024, 8192, 21.8226, 19.3530, 2.46961, 0.297045, 0.0253841, 184.629),
               (4, 8192, 1024, 149.616, 16.6436, 132.972, 0.967525, 0.0282979, 26.9904),
               (8, 1024, 1024, 73.6147, 36.9438, 36.6709, 0.402337, 0.0260523, 24.5897),
               (8, 1024, 8192, 40.5469, 36.0309, 4.51593, 0.425337, 0.0269565, 198.751),
               (8, 8192, 1024, 269.881, 30.3391, 239.542, 1.03854, 0.0312528, 29.9958),
               (16, 1024, 1024, 130.967, 65.1369, 65.8304, 0.424863, 0.0295675, 27.4810),
               (16, 1024, 8192, 72.3255, 64.2631, 8.06247, 0.429373, 0.0302309, 223.431),
               (16, 8192, 1024, 453.788, 50.2826, 403.505, 1.12740, 0.0372740, 35.2455),
               (32, 1024, 1024, 222.242, 111.297, 110.945, 0.401339, 0.0345739, 32.3178),
               (32, 1024, 8192, 121.660, 108.223, 13.4370, 0.479636, 0.0359648, 267.203),
               (32, 8192, 1024, 685.201, 76.6246, 608.577, 1.54072, 0.0491479, 47.0595),
               (64, 1024, 1024, 342.762, 171.342, 171.420, 0.593750, 0.0447251, 41.8117),
               (64, 1024, 8192, 181.781, 161.603, 20.1777, 0.630910, 0.0480308, 355.365),
               (64, 8192, 1024, 907.550, 100.685, 806.865, 2.21284, 0.0756372, 71.9977)]),
    dict(key="mi355fp4", slug="sglang0.5.9_mi355xx8_dsr1-mxfp4_tp8", gpu="MI355X", n=8, tp=8, ep=1,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-rocm700-mi35x", precision="fp4",
         checkpoint="amd/DeepSeek-R1-0528-MXFP4-Preview", run="amd0227", kv="fp8", mem_util=0.8, max_batch=None,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x.sh @8eec0d4e",
         rows=[(4, 1024, 1024, 100.802, 50.1556, 50.6461, 0.170166, 0.00949410, 8.87464),
               (4, 1024, 8192, 57.6930, 51.1640, 6.52897, 0.124960, 0.00960477, 69.8687),
               (4, 8192, 1024, 398.174, 44.2937, 353.880, 0.455545, 0.0105461, 10.1480),
               (8, 1024, 1024, 182.004, 91.3394, 90.6647, 0.181981, 0.0105256, 9.95347),
               (8, 1024, 8192, 103.571, 92.0354, 11.5352, 0.172914, 0.0105663, 77.9143),
               (8, 8192, 1024, 660.759, 74.2805, 586.479, 0.555738, 0.0126460, 12.2698),
               (16, 1024, 1024, 325.218, 161.748, 163.470, 0.215961, 0.0118611, 11.0717),
               (16, 1024, 8192, 186.901, 166.066, 20.8347, 0.214791, 0.0116995, 86.5277),
               (16, 8192, 1024, 1033.45, 114.513, 918.937, 0.706269, 0.0162032, 15.5465),
               (32, 1024, 1024, 519.382, 260.102, 259.280, 0.272313, 0.0147120, 13.8556),
               (32, 1024, 8192, 307.135, 273.213, 33.9222, 0.247051, 0.0142478, 105.909),
               (32, 8192, 1024, 1458.47, 163.098, 1295.37, 1.08387, 0.0228123, 22.2083),
               (64, 1024, 1024, 781.523, 390.674, 390.850, 0.373982, 0.0195378, 18.3862),
               (64, 1024, 8192, 481.326, 427.899, 53.4270, 0.344332, 0.0181087, 134.097),
               (64, 8192, 1024, 1952.21, 216.581, 1735.63, 1.18750, 0.0350925, 33.5664)]),
    dict(key="mi355fp4tp4", slug="sglang0.5.9_mi355xx4_dsr1-mxfp4_tp4", gpu="MI355X", n=4, tp=4, ep=1,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-rocm700-mi35x", precision="fp4",
         checkpoint="amd/DeepSeek-R1-0528-MXFP4-Preview", run="amd0227", kv="fp8", mem_util=0.8, max_batch=None,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp4_mi355x.sh @8eec0d4e",
         rows=[(4, 1024, 1024, 180.657, 89.8891, 90.7681, 0.147741, 0.0106446, 9.90906),
               (8, 1024, 1024, 311.623, 156.389, 155.234, 0.211736, 0.0123091, 11.6391),
               (16, 1024, 1024, 512.926, 255.105, 257.821, 0.255397, 0.0150831, 14.0604),
               (32, 1024, 1024, 785.471, 393.358, 392.113, 0.364491, 0.0195024, 18.3685),
               (64, 1024, 1024, 1164.71, 582.221, 582.484, 0.548512, 0.0262468, 24.7423)]),
    dict(key="h200fp8", slug="sglang0.5.9_h200x8_dsr1-fp8_tp8", gpu="H200-SXM-141GB", n=8, tp=8, ep=1,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-cu130", precision="fp8",
         checkpoint="deepseek-ai/DeepSeek-R1-0528", run="nv0325", kv="bf16", mem_util=0.82, max_batch="h200",
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp8_h200.sh @8eec0d4e",
         rows=[(4, 1024, 1024, 92.3182, 45.9345, 46.3837, 0.259911, 0.0102923, 9.69822),
               (4, 1024, 8192, 53.8990, 47.7994, 6.09961, 0.259410, 0.0102643, 74.7913),
               (4, 8192, 1024, 373.998, 41.6043, 332.394, 0.446908, 0.0112678, 10.8031),
               (8, 1024, 1024, 153.531, 77.0502, 76.4811, 0.244861, 0.0124724, 11.8281),
               (8, 1024, 8192, 89.7698, 79.7717, 9.99815, 0.242295, 0.0122020, 90.0079),
               (8, 8192, 1024, 587.230, 66.0145, 521.215, 0.502582, 0.0143689, 13.8118),
               (16, 1024, 1024, 233.165, 115.965, 117.200, 0.285876, 0.0166298, 15.5095),
               (16, 1024, 8192, 138.464, 123.029, 15.4352, 0.264880, 0.0158556, 117.226),
               (16, 8192, 1024, 830.873, 92.0660, 738.807, 0.699906, 0.0204129, 19.3801),
               (32, 1024, 1024, 331.036, 165.780, 165.256, 0.337535, 0.0233070, 21.8604),
               (32, 1024, 8192, 198.894, 176.927, 21.9672, 0.310846, 0.0220996, 164.199),
               (32, 8192, 1024, 1061.39, 118.693, 942.696, 0.993692, 0.0319740, 30.5902),
               (64, 1024, 1024, 469.050, 234.472, 234.578, 0.418653, 0.0329872, 30.8273),
               (64, 1024, 8192, 286.862, 255.020, 31.8416, 0.420051, 0.0306058, 226.467),
               (64, 8192, 1024, 1335.96, 148.213, 1187.75, 2.27877, 0.0502444, 48.6376)]),
    dict(key="b200fp4ep4", slug="sglang0.5.9_b200x4_dsr1-nvfp4_tp4ep4", gpu="B200-180GB", n=4, tp=4, ep=4,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-cu130", precision="fp4",
         checkpoint="nvidia/DeepSeek-R1-0528-FP4-V2", run="nv0325", kv="fp8", mem_util=0.85, max_batch=256,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200.sh @25cbe715",
         rows=[(4, 1024, 1024, 211.893, 105.431, 106.462, 0.208446, 0.00900136, 8.46245),
               (4, 1024, 8192, 126.875, 112.517, 14.3581, 0.182309, 0.00873376, 63.5965),
               (4, 8192, 1024, 925.192, 102.920, 822.272, 0.317145, 0.00915239, 8.72993),
               (8, 1024, 1024, 367.368, 184.365, 183.003, 0.188344, 0.0104225, 9.86511),
               (8, 1024, 8192, 204.405, 181.639, 22.7657, 0.217988, 0.0107396, 79.2230),
               (8, 8192, 1024, 1456.27, 163.709, 1292.56, 0.369270, 0.0116205, 11.1301),
               (16, 1024, 1024, 592.597, 294.730, 297.867, 0.351404, 0.0129142, 12.1729),
               (16, 1024, 8192, 343.903, 305.567, 38.3365, 0.346891, 0.0127494, 94.3998),
               (16, 8192, 1024, 2245.09, 248.770, 1996.32, 0.646074, 0.0149361, 14.3144),
               (32, 1024, 1024, 953.551, 477.531, 476.020, 0.470383, 0.0158869, 15.1366),
               (32, 1024, 8192, 526.179, 468.064, 58.1149, 0.490177, 0.0166420, 123.916),
               (32, 8192, 1024, 3135.56, 350.643, 2784.92, 0.998047, 0.0211959, 20.6199),
               (64, 1024, 1024, 1500.20, 749.931, 750.269, 0.597177, 0.0200892, 19.1067),
               (64, 1024, 8192, 806.830, 717.272, 89.5579, 0.629803, 0.0216568, 160.597),
               (64, 8192, 1024, 4321.78, 479.464, 3842.32, 1.58402, 0.0310420, 30.2103),
               (128, 1024, 1024, 2389.37, 1193.37, 1196.00, 0.759947, 0.0252887, 24.0086),
               (128, 1024, 8192, 1263.28, 1122.75, 140.531, 0.735773, 0.0276991, 204.792),
               (128, 8192, 1024, 5389.76, 597.000, 4792.76, 2.62924, 0.0499457, 48.6197)]),
    dict(key="b200fp4ep8", slug="sglang0.5.9_b200x8_dsr1-nvfp4_tp8ep8", gpu="B200-180GB", n=8, tp=8, ep=8,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-cu130", precision="fp4",
         checkpoint="nvidia/DeepSeek-R1-0528-FP4-V2", run="nv0325", kv="fp8", mem_util=0.85, max_batch=256,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp4_b200.sh @25cbe715",
         rows=[(8, 1024, 8192, 123.210, 109.488, 13.7226, 0.221522, 0.00888103, 65.5569),
               (8, 8192, 1024, 849.758, 95.5271, 754.230, 0.362881, 0.00989112, 9.52048),
               (16, 1024, 1024, 345.728, 171.949, 173.779, 0.319844, 0.0110354, 10.4220),
               (16, 1024, 8192, 206.686, 183.646, 23.0402, 0.353139, 0.0105823, 78.4292),
               (16, 8192, 1024, 1300.00, 144.049, 1155.95, 0.524671, 0.0129061, 12.3340),
               (32, 1024, 1024, 549.473, 275.172, 274.301, 0.481177, 0.0136780, 13.1112),
               (32, 1024, 8192, 337.803, 300.494, 37.3094, 0.455854, 0.0129377, 96.4081),
               (64, 1024, 1024, 921.591, 460.691, 460.899, 0.496378, 0.0163116, 15.5259),
               (64, 1024, 8192, 524.688, 466.448, 58.2403, 0.506073, 0.0166231, 123.290),
               (128, 1024, 1024, 1461.38, 729.889, 731.493, 0.644956, 0.0206449, 19.6239),
               (128, 1024, 8192, 798.250, 709.451, 88.7994, 0.639419, 0.0219029, 162.015)]),
    dict(key="mi300fp8", slug="sglang0.5.9_mi300xx8_dsr1-fp8_tp8", gpu="MI300X", n=8, tp=8, ep=1,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-rocm700-mi30x", precision="fp8",
         checkpoint="deepseek-ai/DeepSeek-R1-0528", run="amd0227", kv="fp8", mem_util=0.8, max_batch=None,
         script="benchmarks/single_node/fixed_seq_len/dsr1_fp8_mi300x.sh @8eec0d4e",
         rows=[(4, 1024, 1024, 38.8002, 19.3057, 19.4945, 0.437094, 0.0246484, 23.0485),
               (4, 1024, 8192, 21.9973, 19.5079, 2.48937, 0.591810, 0.0251443, 183.183),
               (4, 8192, 1024, 145.404, 16.1751, 129.229, 1.33481, 0.0287710, 27.7987),
               (8, 1024, 1024, 72.2178, 36.2428, 35.9751, 0.628724, 0.0263362, 25.0827),
               (8, 1024, 8192, 39.6683, 35.2502, 4.41807, 0.622075, 0.0275328, 203.191),
               (8, 8192, 1024, 227.705, 25.5979, 202.107, 1.26983, 0.0370067, 35.5711),
               (16, 1024, 1024, 125.171, 62.2540, 62.9167, 0.476904, 0.0309441, 28.7969),
               (16, 1024, 8192, 70.5970, 62.7272, 7.86978, 0.469984, 0.0309850, 229.043),
               (16, 8192, 1024, 417.472, 46.2586, 371.213, 1.53462, 0.0402598, 38.3934),
               (32, 1024, 1024, 185.340, 92.8170, 92.5234, 0.722486, 0.0412422, 38.7988),
               (32, 1024, 8192, 103.895, 92.4205, 11.4750, 0.500144, 0.0421187, 312.860),
               (32, 8192, 1024, 612.959, 68.5459, 544.413, 1.98671, 0.0547511, 52.7229),
               (64, 1024, 1024, 298.684, 149.308, 149.376, 0.907710, 0.0512513, 48.1529),
               (64, 1024, 8192, 165.586, 147.206, 18.3800, 0.890290, 0.0527983, 390.848),
               (64, 8192, 1024, 790.789, 87.7312, 703.058, 2.83410, 0.0865960, 82.7588)]),
    dict(key="b200fp8", slug="sglang0.5.9_b200x8_dsr1-fp8_tp8", gpu="B200-180GB", n=8, tp=8, ep=1,
         engine="SGLang", image="lmsysorg/sglang:v0.5.9-cu130", precision="fp8",
         checkpoint="deepseek-ai/DeepSeek-R1-0528", run="nv0325", kv="fp8", mem_util=0.82, max_batch=128,
         stream=30, script="benchmarks/single_node/fixed_seq_len/dsr1_fp8_b200.sh @8eec0d4e",
         rows=[(4, 1024, 1024, 108.844, 54.1570, 54.6866, 0.183180, 0.00875996, 8.21469),
               (4, 1024, 8192, 64.0478, 56.7997, 7.24812, 0.185071, 0.00864125, 62.9311),
               (4, 8192, 1024, 433.756, 48.2519, 385.504, 0.478590, 0.00960685, 9.31398),
               (8, 1024, 1024, 176.646, 88.6505, 87.9957, 0.226624, 0.0108070, 10.2616),
               (8, 1024, 8192, 106.126, 94.3060, 11.8198, 0.199429, 0.0103229, 76.1394),
               (16, 1024, 1024, 289.140, 143.805, 145.336, 0.402452, 0.0131803, 12.4675),
               (16, 1024, 8192, 170.499, 151.493, 19.0064, 0.367202, 0.0128442, 95.1258),
               (32, 1024, 1024, 447.079, 223.894, 223.185, 0.527529, 0.0169091, 16.1415),
               (32, 1024, 8192, 260.629, 231.848, 28.7813, 0.511888, 0.0167467, 124.686),
               (64, 1024, 1024, 665.776, 332.813, 332.963, 0.798993, 0.0225293, 21.5700),
               (64, 1024, 8192, 398.226, 354.023, 44.2029, 0.637478, 0.0219491, 162.759)]),
]


def token_budget(key: str, conc: int, isl: int, osl: int) -> int:
    """INFERRED from the group's script: the engine's per-iteration token budget."""
    if key == "trt":  # MAX_NUM_TOKENS=$(( (CONC+ISL+64+63)/64*64 )), at least 8192
        return max(8192, (conc + isl + 64 + 63) // 64 * 64)
    if key in ("mi355fp8", "mi355fp4tp4"):
        return 196608
    if key == "mi355fp4":  # PREFILL_SIZE 32768 for 8k/1k above concurrency 32
        return 32768 if (isl, osl) == (8192, 1024) and conc > 32 else 196608
    if key in ("mi325fp8", "mi300fp8"):
        return 131072
    if key in ("h200fp8", "b200fp8"):
        return 32768
    return 16384  # B200 SGLang FP4 without DP attention


def max_running(group: dict, isl: int, osl: int) -> int | None:
    """INFERRED from the script: SGLang --max-running-requests where the script sets it."""
    if group["max_batch"] == "h200":
        return 512 if (isl, osl) == (1024, 1024) else 256
    return group["max_batch"]


def check(group: dict, row: tuple) -> None:
    """Consistency of each transcribed row (catches a mistyped figure)."""
    conc, isl, osl, tput, out, inp, ttft, tpot, e2el = row[:9]
    assert abs(inp + out - tput) / tput < 2e-3, (group["key"], row)
    assert 0.95 < (inp / out) / (isl / osl) < 1.05, (group["key"], row)
    l_out = mean_len(osl)
    assert abs(ttft + (l_out - 1) * tpot - e2el) / e2el < 0.06, (group["key"], row)
    little = conc * l_out / e2el / group["tp"]  # closed loop: clients x tokens per request / request time
    assert abs(little - out) / out < 0.05, (group["key"], row, little)


def cases():
    for g in GROUPS:
        for row in g["rows"]:
            check(g, row)
            conc, isl, osl, tput, out, inp, ttft, tpot, e2el = row[:9]
            run_id, attempt, date = RUNS[row[9] if len(row) > 9 else g["run"]]
            url = RUN_URL.format(run_id, attempt)
            in_len, out_len = case_len(isl), case_len(osl)
            sglang = g["engine"] == "SGLang"
            stream = g.get("stream", 10)  # --stream-interval in the script
            mb = max_running(g, isl, osl)
            budget = token_budget(g["key"], conc, isl, osl)
            # FACT (benchmark-tmpl.yml): --num-prompts 10 x CONC, the first CONC sent together
            inference = {"input_len": in_len, "output_len": out_len, "batch": None, "concurrency": conc,
                         "mode": "online", "kv_cache_dtype": g["kv"], "max_num_tokens": budget,
                         "num_requests": 10 * conc, "output_len_cv": len_cv(osl)}
            inferred = ["cluster.gpus_per_node", "parallel.dp", "parallel.pp", "inference.input_len",
                        "inference.output_len", "inference.kv_cache_dtype", "inference.max_num_tokens"]
            if g["precision"] == "fp4":
                inference["quant_scope"] = "ffn"
                inferred.append("inference.quant_scope")
            if sglang:
                inference["mem_fraction_static"] = g["mem_util"]
                inference["kv_allocation"] = "on_demand"
                inferred += ["inference.mem_fraction_static", "inference.kv_allocation"]
            if mb is not None:
                inference["max_batch"] = mb
                inferred.append("inference.max_batch")
            figures = {"tokens_per_s_per_gpu": round(out, 4), "ttft_ms": round(ttft * 1e3, 2),
                       "itl_ms": round(tpot * 1e3, 3)}
            plan = f"TP{g['tp']}" + (f" EP{g['ep']}" if g["ep"] > 1 else " (experts split tensor-parallel, ep 1)")
            if sglang:
                flags = (f"SGLang flags (script {g['script']}, inferred for this run): --tensor-parallel-size "
                         f"{g['tp']}" + (f" --ep-size {g['ep']}" if g["ep"] > 1 else "") +
                         f", --chunked-prefill-size {budget} (max_num_tokens), --mem-fraction-static "
                         f"{g['mem_util']} (mem_fraction_static), KV cache "
                         + ("fp8_e4m3" if g["kv"] == "fp8" else "'auto' = BF16 (no --kv-cache-dtype)")
                         + (f", --max-running-requests {mb} (max_batch)" if mb else "")
                         + ", --disable-radix-cache (random prompts share no prefix); KV blocks taken as tokens "
                         "arrive (kv_allocation on_demand)"
                         + (", --num-continuous-decode-steps 4-8 (not modelled)" if g["gpu"].startswith("MI")
                            else "") + ". ")
            else:
                flags = (f"trtllm-serve flags (script {g['script']}, inferred for this run): --tp_size 8 --ep_size 1, "
                         f"--max_num_tokens {budget} (max(8192, ceil64(CONC + ISL + 127))), kv_cache_config dtype "
                         "fp8, free_gpu_memory_fraction 0.8 (dse's default rule: 0.9 of what weights leave), "
                         "enable_block_reuse false, CUDA graphs with padding up to batch CONC, MoE backend TRTLLM"
                         + (", piecewise CUDA graphs" if conc >= 64 and osl == 1024 else "")
                         + (", batch_wait_timeout_iters 40 (delayed batching)" if conc >= 64 and isl == osl
                            else "") + " (not modelled). ")
            quant = ("FP8 checkpoint deepseek-ai/DeepSeek-R1-0528: block-scaled FP8 weights in every linear layer "
                     "(quant_scope all). " if g["precision"] == "fp8" else
                     f"FP4 checkpoint {g['checkpoint']} (" + ("NVFP4, sglang --quantization modelopt_fp4" if
                                                             g["gpu"].startswith("B200") else "MXFP4, AMD Quark")
                     + "): experts and FFNs FP4, attention projections FP8 in the checkpoint; dse's quant_scope "
                     "ffn keeps them 16-bit (inferred). ")
            for metric, value in figures.items():
                yield {
                    "id": f"inferencemax_{g['slug']}_{isl}-{osl}_c{conc}_{metric}",
                    "source": (f"SemiAnalysis InferenceMAX (InferenceX) {g['engine']} {g['image']}; results "
                               f"{SNAPSHOT} (dashboard API snapshot, model dsr1), run {url} ({date})"),
                    "reliability": "B",
                    "workload": "inference",
                    "precision": g["precision"],
                    "model": {**DSR1, "seq_len": in_len + out_len},
                    "cluster": {"gpu": g["gpu"], "num_gpus": g["n"], "gpus_per_node": 8},
                    "parallel": {"tp": g["tp"], "ep": g["ep"], **PARALLEL},
                    "inference": inference,
                    "target": {"metric": metric, "value": value},
                    "also": {**{k: v for k, v in figures.items() if k != metric},
                             "input_tokens_per_s_per_gpu": round(inp, 4)},
                    "inferred": sorted(set(MODEL_INFERRED + inferred)),
                    "notes": (f"InferenceMAX single-node run: {g['checkpoint']} on {g['n']} {g['gpu']} ({plan}, "
                              f"no DP attention, no MTP), {g['engine']} container {g['image']}; closed loop of "
                              f"{conc} clients (--max-concurrency {conc}), {10 * conc} requests, random prompts of "
                              f"ISL {isl} / OSL {osl} with --random-range-ratio 0.8: each length drawn uniformly "
                              f"from [{int(isl * RANGE_RATIO)}, {isl}] / [{int(osl * RANGE_RATIO)}, {osl}] "
                              f"(ignore_eos), means {mean_len(isl)} / {mean_len(osl)}, written {in_len} / {out_len} "
                              f"(inferred). Measured (per GPU = over the {g['tp']} GPUs of the engine): output "
                              f"{out:g} tok/s/GPU, input {inp:g}, total {tput:g}; mean TTFT {ttft * 1e3:.2f} ms, "
                              f"mean TPOT {tpot * 1e3:.3f} ms (itl_ms; the row's mean_itl counts the gaps between "
                              f"streamed chunks of {stream} tokens), mean end-to-end latency {e2el:g} s. {quant}{flags}"
                              + (f"The fixture's num_decode_gpu field ({g['tp'] * g['ep']}) is tp x ep, not the GPU "
                                 "count: the figures are per tp GPUs " if g["ep"] > 1 else "Figures per GPU ")
                              + "(closed-loop check: concurrency x mean output / mean latency / tp matches the "
                              "output figure within 5%). The mean TTFT counts every request of the loop, including "
                              f"the first {conc}, sent together at its start (their prompts queue behind each other), "
                              "the HTTP and tokenizer path, and the first streamed chunk, which the engine emits "
                              f"every {stream} tokens (stream interval {stream}; sgl-project/sglang issue #245): it is "
                              "not only the prompt's compute."),
                }


def main() -> None:
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
