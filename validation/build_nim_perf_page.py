#!/usr/bin/env python3
"""Write validation/nim_perf_page.jsonl: the rows of NVIDIA's "NIM for LLM Benchmarking Guide" 1.0.0 Performance page
whose table headings could be read in full, less the 16 figures validation/nim_latency.jsonl already holds.

Usage: python validation/build_nim_perf_page.py [--max-num-tokens N] [--out PATH]
    (no network: every number below was read from the stored copies named here and is kept as a literal;
    the shipped file sets nim_latency.jsonl's inferred token budget, 8192; ``--max-num-tokens 0`` writes the
    variant without one, for comparison, normally with ``--out`` elsewhere)

Case format: ../shared/validation/README.md (LLM inference cases); conventions of nim_latency.jsonl (same page) and
build_nim_genai_perf.py. One case per table row and metric: ``ttft_ms``, ``itl_ms``, ``tokens_per_s``, the row's
other two figures in ``also``.

Source
------
https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance.md (the same text at .../1.0.0/performance/llms.txt;
the rendered page .../1.0.0/performance), read through the library's ``search`` tool (corpus ``docs``), which shows
each stored page from its beginning, about 2,000 characters of it. The .md / llms.txt copies give the markdown
headings; what they show:

    ## Llama-3.3-70b-instruct Results
    * NIM Container: Llama-3.3-70b-Instruct (NGC llama-3.3-70b-instruct)
    ### Version: 1.8.0
    #### 2 x H100 80G
    #### fp8 TP2
    #### 5000 Input Tokens / 500 Output Tokens
    | Concurrency | TTFT (ms) | ITL (ms) | Throughput(Tokens/s) |   rows 1, 5, 25, 50, 100, 150, 200, 250
    #### 500 Input Tokens / 2000 Output Tokens
    | ... | rows 1 (47.77 | 18.91 | 52.85) and 5 (TTFT 126.53; the excerpt ends there)

The rendered page (cells run together, no separators) shows under each "Version" heading only the first table of
that version and none of the GPU / precision / length headings; its 1.8.0 table is the 5000/500 table above, digit
for digit (cross-check, ``HTML_CROSSCHECK``). Nothing past the 500/2000 table's second row was readable in the
markdown copies; the page's "Hardware Specifications" section was not reached, nor was the 1.0.0 "Using AIPerf to
Benchmark" (step-by-step) page past its first step.

What is written
---------------
Llama-3.3-70b-instruct, NIM 1.8.0, 2 x H100 80G, fp8, TP2, 5000 in / 500 out, concurrency 100, 150, 200, 250:
4 rows x 3 metrics = 12 cases. nim_latency.jsonl holds the same table's rows 1-50 and the 500/2000 rows 1 (three
figures) and 5 (TTFT only); they are not repeated. All heading fields were read: reliability A.

* Throughput column ("Throughput(Tokens/s)"): output tokens per second of the whole deployment. The rows obey a
  closed loop of N clients with output tokens/s = N x 500 / (TTFT + 499 x ITL) to within 0.6% (``check_rows``
  allows 1.5%);
  counting input tokens too would make it 11 times larger.
* GPU: "H100 80G" with no form factor; H100-SXM-80GB assumed (``cluster.gpu`` inferred), 8 a node (inferred).
* Plan: "TP2" on 2 GPUs: tp 2, pp 1, dp 1 (pp, dp inferred: no pipeline or replicas are named).
* Precision fp8 as headed (the NIM TensorRT-LLM fp8 profile: FP8 matrix multiplies). KV-cache type not stated.
* Model: Llama 3.3 70B Instruct = the Llama 3.1 70B architecture (case_files.LLAMA31["70B"], from config.json), as
  nim_latency.jsonl gives it; seq_len = input + output.
* Engine limits (max batch size, token budget max_num_tokens, KV-cache fraction) are not stated on what was read:
  max_num_tokens 8192 copies nim_latency.jsonl's inference (TensorRT-LLM's default token budget, that of
  trtllm-serve and trtllm-build), listed in ``inferred``; the others are dse's defaults. With dse's own default
  budget (32,768) the TTFT at 100 clients is 32% long, with 8192 9% short (``--max-num-tokens 0``).
* Output lengths: not set (dse's default output_len_cv 0: every request exactly 500 tokens). The 1.0.0 guide's own
  AIPerf command was not read; NVIDIA's published NIM procedures force the length (``--extra-inputs
  min_tokens:OSL --extra-inputs ignore_eos:true``, with ``max_tokens:OSL`` in the genai-perf versions; see
  build_nim_genai_perf.py), which the rows' Little's-law agreement (fixed 500 tokens) supports.

Left out, and why
-----------------
* Every other table of the page: their GPU count, precision, TP and lengths were not readable. ``UNHEADED`` keeps
  the numbers that were seen without headings (the first table of Llama-3.3-70b 1.5.0, of Llama-3.1-8b 1.8.0 and
  1.3.0 and of Llama-3.1-70b 1.3.0 from the rendered page; the further tables of the include files
  .../latest/performance-tables/llm-1_5-llama3_3-70b.html and .../1.0.0/performance-tables/llm-1_3-llama3_1-70b.html,
  which list a version's tables one after another with no headings at all), so that they can be turned into cases
  if the headings are read later. No case is written from them.
* The 500/2000 table past concurrency 5 (not reached), and its row 5's ITL and throughput (cut off).
"""
from __future__ import annotations

import argparse
import os

from build_vllm_serving import PARALLEL
from case_files import LLAMA31, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nim_perf_page.jsonl")

URL = "https://docs.nvidia.com/nim/benchmarking/llm/1.0.0/performance.md"
SOURCE = (f"NVIDIA NIM for LLM Benchmarking Guide 1.0.0, 'Performance' page ({URL}; same text at "
          ".../1.0.0/performance/llms.txt), section 'Llama-3.3-70b-instruct Results' > 'Version: 1.8.0' > "
          "'2 x H100 80G' > 'fp8 TP2' > '5000 Input Tokens / 500 Output Tokens'")

METRICS = ("ttft_ms", "itl_ms", "tokens_per_s")

#: The table written: (model tag, model block, NIM version, GPUs, GPU tag, precision, tp, input, output) and its
#: rows (concurrency, TTFT ms, ITL ms, Throughput tokens/s) as printed in the .md / llms.txt copies.
TABLE = {
    "model_tag": "llama3.3-70b", "model": {**LLAMA31["70B"], "name": "Llama 3.3 70B Instruct"},
    "container": "llama-3.3-70b-instruct", "version": "1.8.0", "num_gpus": 2, "gpu_heading": "H100 80G",
    "gpu": "H100-SXM-80GB", "gpu_tag": "h100", "precision": "fp8", "tp": 2, "isl": 5000, "osl": 500,
    "heading": "Version: 1.8.0 / 2 x H100 80G / fp8 TP2 / 5000 Input Tokens / 500 Output Tokens",
}
ROWS_ALL = [  # the whole table; rows 1-50 are nim_latency.jsonl's
    (1, 406.77, 18.58, 51.67),
    (5, 546.7, 21.83, 218.48),
    (25, 688.69, 38.75, 623.4),
    (50, 834.51, 59.73, 814.37),
    (100, 7996.25, 92.91, 917.26),
    (150, 34794.22, 92.86, 920.9),
    (200, 61680.22, 93.06, 920.54),
    (250, 88605.32, 93.2, 920.12),
]
IN_NIM_LATENCY = {1, 5, 25, 50}  # concurrencies of this table already in validation/nim_latency.jsonl

#: The rendered page's 1.8.0 table (cells run together), for the cross-check: "1406.7718.5851.67" ...
HTML_CROSSCHECK = ["1406.7718.5851.67", "5546.721.83218.48", "25688.6938.75623.4", "50834.5159.73814.37",
                   "1007996.2592.91917.26", "15034794.2292.86920.9", "20061680.2293.06920.54",
                   "25088605.3293.2920.12"]

#: Tables seen WITHOUT their GPU / precision / TP / length headings: not written as cases (see the docstring).
#: "sep": cells read with separators (performance-tables include pages); "run": parsed from the rendered page's
#: run-together cells (two decimals assumed; where two splits were possible the one whose throughput agrees with
#: N x OSL / (TTFT + (OSL-1) x ITL) of its neighbours was taken: 8B 1.8.0 row 250 = 605.6 | 16.14, 8B 1.3.0 row 5
#: = 15.31 | 5.1). A trailing "..." row was cut off.
UNHEADED = {
    "Llama-3.3-70b-instruct 1.5.0 (rendered page: first table; include page llm-1_5-llama3_3-70b, tables 1-5, sep)": [
        [(1, 368.11, 19.94, 48.44), (5, 446.68, 23.89, 199.17), (25, 751.74, 42.12, 564.5),
         (50, 1083.13, 63.72, 738.78), (100, 17754.93, 87.55, 777.31), (150, 46381.93, 87.39, 777.94),
         (200, 73326.6, 87.64, 777.02)],
        [(1, 71.82, 19.26, 51.84), (5, 109.62, 20.04, 237.72), (25, 159.62, 23.28, 1032.56),
         (50, 232.46, 25.58, 1880.75), (100, 293.19, 32.83, 2914.64), (150, 448.16, 45.57, 3096.87)],
        [(1, 32.78, 19.11, 52.15), (5, 81.17, 19.9, 247.26), (25, 247.81, 21.99, 1080.83),
         (50, 377.42, 23.94, 1936.88), (100, 583.54, 31.79, 2886.57), (150, 831.88, 44.81, 3067.43),
         (200, 925.3, 45.92, 3947.82), (250, 1105.17, 49.83, 4521.68)],
        [(1, 103.2, 19.31, 51.54), (5, 125.56, 20.52, 234.76), (25, 195.68, 24.76, 979.58),
         (50, 243.19, 28.55, 1706.26), (100, 344.86, 38.65, 2507.94), (150, 568.88, 54.06, 2663.03),
         (200, 1384.9, 58.11, 3238.57)],
        [(1, 190.36, 19.6, 49.57), (5, 430.84, 21.64, 216.96), (25, 870.9, 35, 654.15),
         (50, 1066.1, 51.56, 903.17), (100, 1332.94, 88.91, 1062.3), (150, 3853.57, 124.93, 1070.78),
         (200, 17105.6, 125.13, 1064.79), "250 | 30309.49 | ..."],
    ],
    "Llama-3.1-70b-instruct 1.3.0 (rendered page: first table; include page llm-1_3-llama3_1-70b, tables 1-5, sep)": [
        [(1, 25.05, 13.21, 75.36), (5, 64.82, 12.64, 387.55), (25, 146.11, 15.31, 1564.9),
         (50, 169.61, 17.42, 2743.6), (100, 235.17, 23.28, 4092.34), (150, 511.21, 27.73, 4962.78),
         (200, 582.07, 31.22, 5855.9), (250, 718.98, 35.25, 6429.95)],
        [(1, 38.64, 14.24, 70.14), (5, 109.06, 13.68, 364.24), (25, 393.58, 15.86, 1557.21),
         (50, 564.17, 17.14, 2868.22), (100, 640.42, 22.64, 4350.2), (150, 792.84, 28.49, 5183.08),
         (200, 1417.35, 31.62, 6168.81), (250, 2045.69, 35.75, 6511.88)],
        [(1, 59.89, 14.24, 69.98), (5, 180.35, 13.72, 360.12), (25, 571.16, 16.38, 1475.28),
         (50, 843.45, 18.15, 2631.13), (100, 740, 25.55, 3794.76), (150, 952.07, 32.31, 4493.57),
         (200, 980.89, 37.92, 5114.09), (250, 2632.73, 41.92, 5497.21)],
        [(1, 236.58, 17.35, 56.2), (5, 432.23, 18.16, 263.04), (25, 657.73, 28.69, 830.42),
         (50, 952.43, 40.13, 1169.61), (100, 1312.92, 68.86, 1378), (150, 1973.14, 98.88, 1428.94),
         (200, 2850.08, 126.51, 1455.09), (250, 11283.63, 139.94, 1488.41)],
        [(1, 1018.5, 30.32, 32.45), (5, 2116.84, 31.29, 153.71), (25, 3987.46, 43.16, 541.65), "50 | 7012..."],
    ],
    "Llama-3.1-8b-instruct 1.8.0 (rendered page: first table only, run)": [
        [(1, 10.26, 4.63, 214.56), (5, 16.81, 4.58, 1076.88), (25, 36.34, 5.19, 4678.88),
         (50, 67.41, 5.91, 8018.23), (100, 119.97, 7.57, 12214.97), (150, 346.53, 9.81, 12988.89),
         (200, 465.18, 12.65, 13348.4), (250, 605.6, 16.14, 12964.72)],
    ],
    "Llama-3.1-8b-instruct 1.3.0 (rendered page: first table only, run)": [
        [(1, 8.98, 4.37, 227.44), (5, 15.31, 5.1, 971.34), (25, 21.08, 6.02, 4100.33),
         (50, 50.68, 7.19, 6745.78), (100, 209.66, 8.62, 10369.56), (150, 398.54, 12.49, 10383.16),
         (200, 501.44, 17.76, 9884.77)],
    ],
}


def _fmt(v: float) -> str:
    """A figure as the page prints it (shortest repr, no trailing '.0')."""
    s = repr(float(v))
    return s[:-2] if s.endswith(".0") else s


def check_rows() -> None:
    """The transcription against the rendered page and against a closed loop's arithmetic."""
    for (c, ttft, itl, tps), html in zip(ROWS_ALL, HTML_CROSSCHECK, strict=True):
        assert html == f"{c}{_fmt(ttft)}{_fmt(itl)}{_fmt(tps)}", (c, html)
        little = c * TABLE["osl"] / ((ttft + (TABLE["osl"] - 1) * itl) / 1000.0)
        assert abs(tps / little - 1.0) < 0.015, (c, tps, little)


def notes(c: int, ttft: float, itl: float, tps: float, max_num_tokens: int | None) -> str:
    t = TABLE
    latency = ttft + (t["osl"] - 1) * itl
    little = c * t["osl"] / (latency / 1000.0)
    budget = ("Token budget not stated on what was read: max_num_tokens "
              f"{max_num_tokens} copied from nim_latency.jsonl's inference (TensorRT-LLM's default token budget, "
              "trtllm-serve's and trtllm-build's), not from the page."
              if max_num_tokens else
              "Engine limits (max batch size, token budget, KV-cache type and fraction) not stated on what was read: "
              "not set (dse's defaults).")
    return (f"NIM container {t['container']} version {t['version']}. Table heading: '{t['heading']}' "
            f"(markdown headings of the page's .md / llms.txt copies). Row: concurrency {c}, TTFT {_fmt(ttft)} ms, "
            f"ITL {_fmt(itl)} ms, Throughput {_fmt(tps)} tokens/s. Closed-loop load of {c} concurrent clients "
            "(the guide's AIPerf procedure; its command was not read on the 1.0.0 pages); figures are the page's "
            "per-request averages. Throughput is output tokens/s of the whole deployment: N x OSL / (TTFT + "
            f"(OSL-1) x ITL) = {c} x {t['osl']} / {latency / 1000:.2f} s = {little:.1f} tokens/s, "
            f"{100 * (tps / little - 1):+.1f}% from the printed figure (input tokens counted too would be 11 times "
            f"larger). Rows 1-50 of this table are in nim_latency.jsonl. GPU heading '{t['gpu_heading']}' without "
            "form factor: SXM assumed (the page's Hardware Specifications section was not reached). 'TP2' on 2 GPUs: "
            "tp 2, pp 1, dp 1. Precision fp8 as headed (NIM TensorRT-LLM fp8 profile); KV-cache type not stated. "
            f"Model: Llama 3.3 70B = Llama 3.1 70B architecture; seq_len = {t['isl']} + {t['osl']}. {budget} "
            "Output lengths: dse's default (output_len_cv 0, exactly OSL tokens each), as NVIDIA's NIM procedures "
            "force with min_tokens / ignore_eos and as the Little's-law agreement supports. At concurrency >= 100 "
            "the ITL is flat (92.9-93.2 ms) and the throughput too (917-921 tokens/s): about 85 sequences decode "
            "at once (throughput x ITL); the rest queue, so TTFT grows by about 27 s per 50 more clients.")


def case(row: tuple, metric: str, max_num_tokens: int | None) -> dict:
    t = TABLE
    c, ttft, itl, tps = row
    fig = {"ttft_ms": ttft, "itl_ms": itl, "tokens_per_s": tps}
    inference = {"input_len": t["isl"], "output_len": t["osl"], "batch": None, "concurrency": c, "mode": "online"}
    inferred = ["cluster.gpu", "cluster.gpus_per_node", "model.ffn_act", "model.seq_len", "parallel.dp",
                "parallel.pp"]
    if max_num_tokens:
        inference["max_num_tokens"] = max_num_tokens
        inferred.append("inference.max_num_tokens")
    return {
        "id": (f"nimpage_{t['model_tag']}_{t['version']}_{t['gpu_tag']}x{t['num_gpus']}_{t['precision']}_"
               f"tp{t['tp']}_{t['isl']}-{t['osl']}_c{c}_{metric}"),
        "source": SOURCE,
        "reliability": "A",
        "workload": "inference",
        "precision": t["precision"],
        "model": {**t["model"], "seq_len": t["isl"] + t["osl"]},
        "cluster": {"gpu": t["gpu"], "num_gpus": t["num_gpus"], "gpus_per_node": 8},
        "parallel": {"tp": t["tp"], **{**PARALLEL, "dp": t["num_gpus"] // t["tp"]}},
        "inference": inference,
        "target": {"metric": metric, "value": fig[metric]},
        "also": {m: fig[m] for m in METRICS if m != metric},
        "inferred": inferred,
        "notes": notes(c, ttft, itl, tps, max_num_tokens),
    }


def cases(max_num_tokens: int | None = None) -> list[dict]:
    check_rows()
    rows = [r for r in ROWS_ALL if r[0] not in IN_NIM_LATENCY]
    return [case(r, m, max_num_tokens) for r in rows for m in METRICS]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-num-tokens", type=int, default=8192,
                    help="inference.max_num_tokens (inferred; 8192 as nim_latency.jsonl; 0: not set)")
    ap.add_argument("--out", default=OUT, help=f"output file (default {OUT})")
    args = ap.parse_args()
    write_cases(cases(args.max_num_tokens), args.out)


if __name__ == "__main__":
    main()
