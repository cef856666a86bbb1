#!/usr/bin/env python3
"""Write validation/amd_perf_results.jsonl: AMD's published vLLM throughput and latency figures of Llama 3.1 70B and
405B (AMD's all-FP8 ``-FP8-KV`` checkpoints) on one node of 8 AMD Instinct MI300X, TP 8, one figure a case, across
the successive ROCm vLLM Docker releases of 2025.

Usage: python validation/build_amd_perf_results.py   (no network: every number below was read from the public pages
and files named in each block and is kept here as a literal, with the snapshot it came from).

Case format: ../shared/validation/README.md (LLM inference cases) with dse's optional inference keys
(``kv_cache_dtype``, ``max_num_tokens``, ``max_batch``, ``num_requests``, ``gpu_memory_utilization``,
``quant_scope``); conventions of build_vllm_serving.py (whose MI300X runs of the same 405B checkpoint are dstack's).

Sources
-------
1. AMD, "Performance results with AMD ROCm software"
   (https://www.amd.com/<lang>/developer/resources/rocm-hub/dev-ai/performance-results.html). The stored copies
   (language variants en, zh-cn, ja, fr, pt; each copy a different date of the page, ``SNAPSHOTS``) were read with
   the search tool's stored web pages, which return only the first ~2,000 characters of a copy: every vLLM
   *throughput* table (MI300X, 8 rows) of eight releases is whole, but of the *latency* tables only the first two to
   three rows (Llama 3.1 70B, 128/2048, batch 1-4) of five releases could be read, and nothing further down the page
   (the MI325X/MI355X vLLM results, if any, and the whole "AI Training" part: pyTorch/torchtitan, Megatron-LM, JAX
   MaxText on MI355X/MI325X/MI300X). Those training tables are therefore left out: not one of their rows was
   readable, so neither their figures nor their plans can be stated.
2. ROCm/vllm ``docs/dev-docker/README.md`` (the README of AMD's ``rocm/vllm-dev`` image, which prints the same two
   tables in the same layout, whole, with the benchmark commands): @b309ea79 (newest changelog entry
   ``20250305_aiter``: ROCm 6.3.1, vLLM 0.7.3) and @040de12d (newest entry ``rocm6.4.1_vllm_0.10.0_20250812``:
   ROCm 6.4.1, vLLM 0.10.0). Neither release is among the page copies read. The @040de12d latency table was not
   re-measured for 0.10.0: its first two rows equal the page's ``rocm6.4.1_vllm_0.9.1_20250715`` rows to the
   millisecond (17.236, 18.057 s), so its 32 rows are written as that release's (the two the page shows stay the
   page's, reliability A; the other 30 are B, the release inferred).

Runs (the README's commands; the page's rows are MAD's ``scripts/vllm/config.csv`` @2a2180ee row for row):
* Throughput: vLLM ``benchmark_throughput.py``: Num Prompts random prompts of Input tokens, each generating exactly
  Output tokens, all given to the offline engine at once with ``--max-num-seqs`` = Max Num Seqs (= Num Prompts on
  every row: one wave), ``--kv-cache-dtype fp8``, ``--max-model-len 8192``, ``--max-num-batched-tokens 131072``,
  ``--gpu-memory-utilization 0.9``, TP 8. Written ``offline_max_throughput`` with ``num_requests`` = Num Prompts,
  ``max_batch`` = Max Num Seqs, ``max_num_tokens`` 131072.
* Latency: vLLM ``benchmark_latency.py``: one batch of B prompts (Input tokens, exactly Output tokens each) run to
  completion, the mean over 5 iterations after 3 warm-ups of the whole batch's time. Written as
  ``tokens_per_s`` = B x Output / latency with ``batch`` = ``num_requests`` = ``max_batch`` = B (one wave); the
  latency in ``also.latency_s``.

Throughput definition (the target). The page's "Throughput (tokens/s)" (later "Throughput²"; its footnote 2 could
not be read) is taken as OUTPUT tokens/s (vLLM benchmark_throughput.py's "output tokens/s"), unconverted. Neither
the page nor the README says which of vLLM's two figures it prints, and AMD's harness records both (ROCm/MAD
``scripts/vllm``: ``vllm_benchmark_report.py`` @a86030da, ``vllm_json_to_csv.py`` and ``run_vllm.py`` write
``throughput_tot`` = the JSON's ``tokens_per_second`` = (input + output tokens) / elapsed and ``throughput_gen`` =
num_prompts x output_len / elapsed; ``parse_csv.py`` @047bbf93 even takes ``throughput_tot`` as a run's headline);
ROCm's docs (vllm-0.8.5-20250521.rst) define both. The tables themselves decide it (``check_definition``): read as
total tokens/s, every 2048/2048 throughput run (500-1,500 prompts at once, all fitting the KV cache) would make
fewer output tokens/s than the same release's latency run of a single batch of 128 at the same lengths (405B,
README @b309ea79: 1,061 against 128 x 2048 / 162.503 s = 1,613; 70B: 4,176 against 4,200), and AMD's tuned 2025
engines would make fewer output tokens/s on 405B 2048/2048 at 500 prompts (1,061-1,125) than dstack measured with
the same checkpoint on 8 MI300X with vLLM 0.6.4 in eager mode at 256 prompts (1,567; validation/vllm_serving.jsonl).
Read as output tokens/s, both comparisons come out as they must (2,122 > 1,613; 8,352 > 4,200; 2,122 > 1,567).
Inferred, not stated: every throughput case is reliability B and says so; ``also`` carries the total tokens/s
that reading implies.

Engine. The README's changelog: 20250620_aiter "V1 on by default". Releases up to
``rocm6.4.1_vllm_0.9.0.1_20250605`` ran vLLM's V0 engine (the 20250305 command: ``--num-scheduler-steps 10
--enable-chunked-prefill False``: multi-step scheduling, whole prompts per iteration up to the 131,072-token
budget); releases from 0.9.1 on run V1 (chunked prefill always, the same token budget). The throughput of the 70B
rows falls 18-25% from 0.9.0.1 to 0.9.1 (V0 -> V1) and recovers in part later. dse models neither multi-step
scheduling nor the engine's host overhead: the same prediction for every release of a row.

Not modelled by dse, said in the notes: the host's share of a step (vLLM V0/V1 scheduling, detokenization), AITER
kernel choices, HIP-graph capture. KV cache FP8 (the commands pass ``--kv-cache-dtype fp8``; the latency rows'
KV dtype is the README's command for 20250305 and inferred for the others). The checkpoints quantize every linear
layer but lm_head to FP8 with per-tensor scales (AMD Quark, ``quant_scope: all``).
"""
from __future__ import annotations

import os

from build_vllm_serving import DSTACK_MI300X, MODEL_INFERRED, PARALLEL
from case_files import LLAMA31, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "amd_perf_results.jsonl")

PAGE = "AMD 'Performance results with AMD ROCm software' ({urls})"
URL = "https://www.amd.com/{}/developer/resources/rocm-hub/dev-ai/performance-results.html"
CHECKPOINT = {"70B": "amd/Llama-3.1-70B-Instruct-FP8-KV", "405B": "amd/Llama-3.1-405B-Instruct-FP8-KV"}
TOKEN_BUDGET = 131072    # --max-num-batched-tokens (README commands; MAD config.csv)
MEM_UTIL = 0.9           # --gpu-memory-utilization (README commands; MAD config.csv)
SERVER = ("Dual AMD EPYC 9554 server with 8x AMD MI300X (192GB HBM3 750W), amdgpu driver 6.8.5 (the page's "
          "'Server' line; the README: Supermicro AS-8125GS-TNMR2, 2x EPYC 9554, 8x MI300X 192GiB 750W)")

#: vLLM engine of each release: (vLLM version, engine, how prompts are scheduled)
V0 = "V0 engine (multi-step scheduling, --num-scheduler-steps 10; no chunked prefill)"
V1 = "V1 engine (chunked prefill within the same token budget)"

# ---------------------------------------------------------------------------------------------------------
# FACTS. One entry per release (container). tput: {(size, input, output): (num_prompts, max_num_seqs, throughput)}
# as the table prints them; lat: {(size, input, output, batch): latency s}. copies: the stored copies read (language
# code of the URL, and how the copy was laid out); rocm: the 'Host GPU driver' / image ROCm line.
THROUGHPUT_ROWS = [("70B", 128, 2048), ("70B", 128, 4096), ("70B", 500, 2000), ("70B", 2048, 2048),
                   ("405B", 128, 2048), ("405B", 128, 4096), ("405B", 500, 2000), ("405B", 2048, 2048)]
PROMPTS = {("70B", 128, 2048): (3200, 3200), ("70B", 128, 4096): (1500, 1500), ("70B", 500, 2000): (2000, 2000),
           ("70B", 2048, 2048): (1500, 1500), ("405B", 128, 2048): (1500, 1500), ("405B", 128, 4096): (1500, 1500),
           ("405B", 500, 2000): (2000, 2000), ("405B", 2048, 2048): (500, 500)}


def _tput(*values):
    """The eight throughput cells of a table, in THROUGHPUT_ROWS order, with the table's prompts and seqs."""
    assert len(values) == len(THROUGHPUT_ROWS)
    return {row: (*PROMPTS[row], v) for row, v in zip(THROUGHPUT_ROWS, values)}


def _lat(size, isl, osl, values, batches=(1, 2, 4, 8, 16, 32, 64, 128)):
    return {(size, isl, osl, b): v for b, v in zip(batches, values)}


SNAPSHOTS = [
    dict(key="vllm0.7.3-20250305", container="rocm/vllm-dev 20250305_aiter", vllm="0.7.3", rocm="6.3.1",
         released="2025-03 (README changelog 20250305_aiter)", engine=V0, where="readme",
         source="ROCm/vllm docs/dev-docker/README.md @b309ea79 ('Performance Results'; image ROCm 6.3.1, hipBLASLt 0.13, "
                "vLLM 0.7.3, PyTorch 2.7dev; newest changelog entry 20250305_aiter)",
         tput=_tput(15919.0, 12053.3, 13089.0, 8352.4, 4219.7, 3328.7, 3109.3, 2121.7),
         lat={**_lat("70B", 128, 2048, (17.654, 18.269, 18.561, 20.180, 22.541, 25.454, 33.666, 48.466)),
              **_lat("70B", 2048, 2048, (17.771, 18.304, 19.173, 21.326, 24.375, 29.284, 40.200, 62.420)),
              **_lat("405B", 128, 2048, (46.632, 47.370, 49.945, 53.010, 56.348, 65.222, 82.688, 115.980)),
              **_lat("405B", 2048, 2048, (46.918, 48.132, 52.281, 55.874, 61.822, 76.925, 105.400, 162.503))},
         lat_kv_stated=True,
         extra="The README labels the 405B latency rows '(amd/Llama-3.1-70B-Instruct-FP8-KV)' (a copy slip: the "
               "figures, 46-163 s, are the 405B model's)."),
    dict(key="vllm0.8.3-20250410", container="rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250410", vllm="0.8.3",
         rocm="6.3.1 (host driver ROCm 6.2.2)", released="April 13, 2025", engine=V0, where="page",
         langs=("zh-cn-nowww",), copies="zh-cn (amd.com/zh-cn, no www; old layout)",
         tput=_tput(16364.9, 12171.0, 13290.4, 8216.5, 4331.6, 3409.9, 3184.0, 2154.3), lat={}),
    dict(key="vllm0.8.5-20250513", container="rocm/vllm:rocm6.3.1_vllm_0.8.5_20250513", vllm="0.8.5",
         rocm="6.3.1 (host driver ROCm 6.2.2)", released="May 19, 2025", engine=V0, where="page",
         langs=("zh-cn",), copies="zh-cn (old layout)",
         tput=_tput(16892.6, 13916.7, 13616.1, 8491.8, 4380.3, 3404.2, 3251.3, 2249.3),
         lat=_lat("70B", 128, 2048, (15.591, 16.865))),
    dict(key="vllm0.8.5-20250521", container="rocm/vllm:rocm6.3.1_vllm_0.8.5_20250521", vllm="0.8.5",
         rocm="6.3.1 (host driver ROCm 6.3.1)", released="May 27, 2025", engine=V0, where="page",
         langs=("pt",), copies="pt (old layout)",
         tput=_tput(16622.2, 13779.8, 13424.9, 8356.5, 4243.9, 3394.4, 3201.8, 2208.0),
         lat=_lat("70B", 128, 2048, (15.851, 16.995, 17.578))),
    dict(key="vllm0.9.0.1-20250605", container="rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605", vllm="0.9.0.1",
         rocm="6.4.1", released="June 18, 2025", engine=V0, where="page", langs=("en",), copies="en (old layout)",
         tput=_tput(16581.5, 13667.3, 13367.1, 8352.6, 4275.0, 3356.7, 3201.4, 2179.7), lat={}),
    dict(key="vllm0.9.1-20250715", container="rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715", vllm="0.9.1",
         rocm="6.4.1", released="July 16, 2025", engine=V1, where="page", langs=("en",), copies="en (old layout)",
         tput=_tput(12638.9, 10756.8, 10691.7, 7354.9, 3912.8, 3084.7, 2935.9, 2191.5),
         lat=_lat("70B", 128, 2048, (17.236, 18.057)),
         # ROCm/vllm README @040de12d latency table (carried over: its first two rows are these two)
         lat_readme={**_lat("70B", 128, 2048, (17.236, 18.057, 18.450, 19.677, 22.072, 24.932, 33.287, 46.484)),
                     **_lat("70B", 2048, 2048, (17.500, 18.055, 18.858, 20.161, 22.347, 25.966, 35.324, 52.394)),
                     **_lat("405B", 128, 2048, (48.453, 49.268, 51.136, 54.226, 57.274, 68.901, 88.631, 117.027)),
                     **_lat("405B", 2048, 2048, (48.362, 49.121, 52.347, 54.471, 57.841, 70.538, 91.452, 125.471))}),
    dict(key="vllm0.10.0-20250812", container="rocm/vllm-dev rocm6.4.1_vllm_0.10.0_20250812", vllm="0.10.0",
         rocm="6.4.1", released="2025-08 (README changelog rocm6.4.1_vllm_0.10.0_20250812)", engine=V1,
         where="readme",
         source="ROCm/vllm docs/dev-docker/README.md @040de12d ('Performance Results'; image ROCm 6.4.1, hipBLASLt 0.15, "
                "vLLM v0.10.0, PyTorch 2.7; newest changelog entry rocm6.4.1_vllm_0.10.0_20250812; 'Benchmarks were run "
                "with benchmark scripts from v0.8.5')",
         tput=_tput(13383.3, 11203.6, 10963.3, 7560.9, 3867.7, 3043.3, 2905.6, 2174.1), lat={}),
    dict(key="vllm0.10.1-20250909", container="rocm/vllm:rocm6.4.1_vllm_0.10.1_20250909", vllm="0.10.1",
         rocm="6.4.1", released="Sep 9, 2025", engine=V1, where="page",
         langs=("fr", "zh-cn"), copies="fr and zh-cn (identical tables; old layout)",
         tput=_tput(13818.7, 11612.0, 11408.7, 7800.5, 4134.0, 3177.6, 3034.1, 2214.2),
         lat=_lat("70B", 128, 2048, (15.254, 18.157, 18.549))),
    dict(key="vllm0.10.2-20251006", container="rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006", vllm="0.10.2",
         rocm="7.0.0", released="October 6, 2025", engine=V1, where="page",
         langs=("zh-cn",), copies="zh-cn (three copies: the old layout and the new 'Results on AMD Instinct MI300X Platform' layout)",
         tput=_tput(13212.5, 11312.8, 11376.7, 7252.1, 4201.7, 3176.3, 2992.0, 2153.7),
         lat=_lat("70B", 128, 2048, (15.882, 17.934, 18.487))),
    dict(key="vllm0.11.1-20251103", container="rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103", vllm="0.11.1",
         rocm="7.0.0", released="November 3, 2025", engine=V1, where="page", langs=("ja",), copies="ja (new layout)",
         tput=_tput(13279.6, 11449.7, 11347.4, 7651.7, 3816.8, 3099.6, 3026.1, 2196.4), lat={}),
]
README_LAT_SRC = ("ROCm/vllm docs/dev-docker/README.md @040de12d, 'Latency Measurements' (the table carried over from "
                  "rocm6.4.1_vllm_0.9.1_20250715: its 70B 128/2048 batch 1 and 2 rows equal the page's to the ms)")


def _source(s):
    if s["where"] == "page":
        urls = " and ".join(URL.format(lang) if lang != "zh-cn-nowww" else URL.format("zh-cn").replace("www.", "")
                            for lang in s["langs"])
        return (PAGE.format(urls=urls) + f", stored copies: {s['copies']}; Docker {s['container']} (released "
                f"{s['released']}), vLLM tables 'Throughput Measurements' / 'Latency Measurements'")
    return s["source"]


def _inference(isl, osl, batch, n, seqs, kv_token_budget=True):
    inf = {"input_len": isl, "output_len": osl, "batch": batch, "concurrency": None,
           "mode": "offline_max_throughput", "max_batch": seqs, "num_requests": n, "kv_cache_dtype": "fp8",
           "quant_scope": "all", "gpu_memory_utilization": MEM_UTIL}
    if kv_token_budget:
        inf["max_num_tokens"] = TOKEN_BUDGET
    return inf


def _base(size, isl, osl):
    return {"workload": "inference", "precision": "fp8", "model": {**LLAMA31[size], "seq_len": isl + osl},
            "cluster": {"gpu": "MI300X", "num_gpus": 8, "gpus_per_node": 8},
            "parallel": {"tp": 8, **PARALLEL}}


COMMON_NOTE = ("Quark checkpoint: every linear layer but lm_head FP8 with per-tensor weight and activation scales "
               "(quant_scope all), FP8 KV cache. One TP-8 replica on the node's 8 MI300X (750 W, 192 GB HBM3). dse "
               "models neither the engine's host time (scheduling, detokenization) nor AITER's kernel choices, nor "
               "vLLM V0's multi-step scheduling: every release of a row gets the same prediction.")


def throughput_cases():
    for s in SNAPSHOTS:
        for (size, isl, osl), (n, seqs, tot) in s["tput"].items():
            out_tps = tot  # output tokens/s (see the docstring and check_definition)
            inferred = MODEL_INFERRED + ["parallel.dp", "parallel.pp", "target.value", "inference.kv_cache_dtype",
                                         "inference.max_num_tokens", "inference.gpu_memory_utilization"]
            if s["where"] == "readme":
                inferred = [k for k in inferred if k not in ("inference.kv_cache_dtype", "inference.max_num_tokens",
                                                             "inference.gpu_memory_utilization")]
            yield {
                "id": f"amdperf_{s['key']}_llama3.1-{size.lower()}-fp8-kv_mi300xx8_tp8_{isl}-{osl}_n{n}_tokens_per_s",
                "source": _source(s),
                "reliability": "B",
                **_base(size, isl, osl),
                "inference": _inference(isl, osl, None, n, seqs),
                "target": {"metric": "tokens_per_s", "value": out_tps},
                "also": {"total_tokens_per_s": round(tot * (isl + osl) / osl, 1), "requests_per_s": round(tot / osl, 4)},
                "inferred": sorted(set(inferred)),
                "notes": (f"{s['container']} (vLLM {s['vllm']}, ROCm {s['rocm']}; {s['engine']}). Throughput table row: "
                          f"{CHECKPOINT[size]}, FP8, TP 8, input {isl}, output {osl}, Num Prompts {n}, Max Num Seqs "
                          f"{seqs}, Throughput {tot:g} tokens/s. vLLM benchmark_throughput.py: {n} random prompts of "
                          f"{isl} tokens, exactly {osl} output tokens each, all given to the offline engine at once "
                          f"(max_num_seqs {seqs}: one wave, written num_requests {n}, max_batch {seqs}). Target = the "
                          f"table's Throughput read as OUTPUT tokens/s (not stated on the page; AMD's harness records "
                          f"both vLLM figures; the total reading is ruled out by the tables' own latency runs, see the "
                          f"builder's docstring): reliability B. Read as total (input + output) tokens/s instead, "
                          f"the target would be {tot * osl / (isl + osl):.1f} ({osl}/{isl + osl} of it). Engine settings "
                          + ("as the README's command: " if s["where"] == "readme" else
                             "as the README's command of the period and MAD config.csv (inferred for this release): ")
                          + f"--kv-cache-dtype fp8, --max-model-len 8192, --max-num-batched-tokens {TOKEN_BUDGET} "
                          f"(max_num_tokens), --gpu-memory-utilization {MEM_UTIL}. {COMMON_NOTE} Server: {SERVER}."),
            }


def latency_cases():
    for s in SNAPSHOTS:
        rows = [(k, v, "page") for k, v in s["lat"].items()]
        if s.get("lat_readme"):
            rows += [(k, v, "readme") for k, v in s["lat_readme"].items() if k not in s["lat"]]
        for (size, isl, osl, b), lat, where in rows:
            if where == "readme" or s["where"] == "readme":
                src = README_LAT_SRC if where == "readme" and s["where"] == "page" else s["source"]
            else:
                src = _source(s)
            carried = where == "readme" and s["where"] == "page"
            if s.get("lat_readme") and where == "page":
                assert s["lat_readme"][(size, isl, osl, b)] == lat  # the README carries the page's figure
            tps = b * osl / lat
            inferred = MODEL_INFERRED + ["parallel.dp", "parallel.pp", "inference.gpu_memory_utilization"]
            if not s.get("lat_kv_stated"):
                inferred.append("inference.kv_cache_dtype")
            yield {
                "id": f"amdperf_{s['key']}_llama3.1-{size.lower()}-fp8-kv_mi300xx8_tp8_{isl}-{osl}_bs{b}_latency_tokens_per_s",
                "source": src,
                "reliability": "B" if carried else "A",
                **_base(size, isl, osl),
                "inference": _inference(isl, osl, b, b, b, kv_token_budget=False),
                "target": {"metric": "tokens_per_s", "value": round(tps, 3)},
                "also": {"latency_s": lat},
                "inferred": sorted(set(inferred)),
                "notes": (f"{s['container']} (vLLM {s['vllm']}, ROCm {s['rocm']}; {s['engine']}). Latency table row: "
                          f"{CHECKPOINT[size]}, FP8, TP 8, batch {b}, input {isl}, output {osl}, latency {lat:g} s. "
                          f"vLLM benchmark_latency.py: one batch of {b} prompts of {isl} tokens generating exactly "
                          f"{osl} tokens each, run to completion; the figure is the mean time of the whole batch "
                          f"over 5 iterations after 3 warm-ups. Written as a single wave (batch = num_requests = "
                          f"max_batch = {b}); target = {b} x {osl} / {lat:g} = {tps:.2f} output tokens/s (the "
                          f"prompt's prefill included in the time). "
                          + ("The README's latency command passes --quantization fp8 --kv-cache-dtype fp8 "
                             "--gpu-memory-utilization 0.9. " if s.get("lat_kv_stated") else
                             "KV cache FP8 as AMD's MAD harness passes for float8 runs (--kv-cache-dtype fp8; "
                             "inferred for this release), --gpu-memory-utilization 0.9. ")
                          + "Token budget not set (vLLM's default; dse's rule). "
                          + ("The figure is the ROCm/vllm README @040de12d table's, whose 70B 128/2048 batch 1 and 2 "
                             "rows equal this release's page rows exactly: the table is taken as this release's "
                             "(inferred, reliability B). " if carried else "")
                          + (s["extra"] + " " if s.get("extra") and size == "405B" else "")
                          + f"{COMMON_NOTE} Server: {SERVER}."),
            }


#: dstack's MI300X run of the same 405B checkpoint at 2048/2048 and 256 prompts (vLLM 0.6.4, eager): total tokens/s
DSTACK_405B_2048_N256_TOTAL = DSTACK_MI300X["amd_tp8"]["runs"][(2048, 2048)][256][1]


def check_definition() -> None:
    """The throughput definition the docstring argues: as total tokens/s, a 2048/2048 throughput run of 500-1,500
    prompts would make fewer output tokens/s than the same release's single batch of 128; as output tokens/s it
    makes more. Also the 405B 2048/2048 cells against dstack's older engine at 256 prompts."""
    for s in SNAPSHOTS:
        lat = {**s.get("lat_readme", {}), **s["lat"]}
        for size in ("70B", "405B"):
            key = (size, 2048, 2048, 128)
            if key not in lat:
                continue
            batch128 = 128 * 2048 / lat[key]
            n, _, tput = s["tput"][(size, 2048, 2048)]
            assert tput * 2048 / 4096 < batch128 * 1.01 < tput, (s["key"], size)  # total reading impossible
    dstack_out = DSTACK_405B_2048_N256_TOTAL / 2
    for s in SNAPSHOTS:
        tput = s["tput"][("405B", 2048, 2048)][2]
        assert tput / 2 < dstack_out < tput, s["key"]


def main() -> None:
    check_definition()
    cases = list(throughput_cases()) + list(latency_cases())
    write_cases(cases, OUT)


if __name__ == "__main__":
    main()
