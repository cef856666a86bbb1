#!/usr/bin/env python3
"""The serving rows of the README's accuracy tables, measured: every group's runs, GPUs and MAPE
from one ``dse validate`` of the case files.

    python scripts/accuracy_table.py [--markdown]

Each group is a file and a rule over its cases (GPU, family, plan, id); a group with several
parts prints them as ``a / b``, as the README does. The README's prose says what each group is
and why its error is what it is; this script is where its figures come from.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dse.validate import validate_cases  # noqa: E402

SHARED = ROOT.parent / "shared" / "validation"
HOPPER = ("H100", "H200", "GH200")
BLACKWELL = ("B200", "GB200", "B300", "GB300")

Case = dict  # a validation row joined with its case's JSON (key "case")
Rule = Callable[[Case], bool]


def gpu_in(*names: str) -> Rule:
    return lambda r: r["gpu"].split("-")[0] in names


def both(*rules: Rule) -> Rule:
    return lambda r: all(rule(r) for rule in rules)


def family(name: str) -> Rule:
    return lambda r: r["family"] == name


def id_has(*parts: str) -> Rule:
    return lambda r: all(p in r["id"] for p in parts)


def phase(name: str) -> Rule:
    return lambda r: (r["case"].get("inference") or {}).get("phase", "both") == name


def everything(r: Case) -> bool:
    return True


#: (label, file, [(part label, rule), ...])
GROUPS: list[tuple[str, Path, list[tuple[str, Rule]]]] = [
    ("TensorRT-LLM v0.17, A100 / H100 (llm.jsonl inference)", SHARED / "llm.jsonl",
     [("A100", both(gpu_in("A100"), lambda r: r["workload"] == "inference")),
      ("H100", both(gpu_in("H100"), lambda r: r["workload"] == "inference"))]),
    ("NIM latency", ROOT / "validation/nim_latency.jsonl", [("all", everything)]),
    ("NIM latency, the same table at 100-250 clients (saturated)", ROOT / "validation/nim_perf_page.jsonl",
     [("all", everything)]),
    ("NIM genai-perf, fixed lengths, 1-250 clients (DLI course): TTFT / ITL / tokens/s",
     ROOT / "validation/nim_genai_perf.jsonl",
     [("TTFT", lambda r: r["metric"] == "ttft_ms"), ("ITL", lambda r: r["metric"] == "itl_ms"),
      ("tokens/s", lambda r: r["metric"] == "tokens_per_s")]),
    ("TensorRT-LLM 0.9.0 static batches (DLI course): A100 / H100 / H200 / GH200 / L40 / L40S",
     ROOT / "validation/trtllm09_dli.jsonl",
     [("A100", gpu_in("A100")), ("H100", gpu_in("H100")), ("H200", gpu_in("H200")), ("GH200", gpu_in("GH200")),
      ("L40", lambda r: r["gpu"] == "L40"), ("L40S", gpu_in("L40S"))]),
    ("TensorRT-LLM v1.0 dense, Hopper", ROOT / "validation/trtllm_v1.jsonl",
     [("dense", both(family("dense"), gpu_in(*HOPPER)))]),
    ("TensorRT-LLM v0.17 other columns: H200 / GH200 / L40S", ROOT / "validation/trtllm_v017_gpus.jsonl",
     [("H200", gpu_in("H200")), ("GH200", gpu_in("GH200")), ("L40S", gpu_in("L40S"))]),
    ("TensorRT-LLM v1.0 Blackwell, stated plans (reliability A): B200 / GB200", ROOT / "validation/trtllm_v1.jsonl",
     [("B200", both(gpu_in("B200"), lambda r: r["reliability"] == "A")),
      ("GB200", both(gpu_in("GB200"), lambda r: r["reliability"] == "A"))]),
    ("TensorRT-LLM v1.0 MoE columns TP4/TP8 (written DEPn)", ROOT / "validation/trtllm_v1.jsonl",
     [("MoE DEPn", both(family("moe"), lambda r: r["reliability"] == "B"))]),
    ("Llama 4 at 20,000 + 2,000 tokens", ROOT / "validation/trtllm_v1.jsonl",
     [("Llama 4", id_has("Llama4", "20000-2000"))]),
    ("GPT-OSS developer guide: Blackwell / Hopper", ROOT / "validation/trtllm_windowed.jsonl",
     [("Blackwell", gpu_in(*BLACKWELL)), ("Hopper", gpu_in(*HOPPER))]),
    ("DeepSeek-R1 developer guide: Blackwell / Hopper", ROOT / "validation/trtllm_mla.jsonl",
     [("Blackwell", gpu_in(*BLACKWELL)), ("Hopper", gpu_in(*HOPPER))]),
    ("Developer guide dense / Blackwell MoE / Hopper MoE", ROOT / "validation/trtllm_devguide.jsonl",
     [("dense", family("dense")), ("Blackwell MoE", both(family("moe"), gpu_in(*BLACKWELL))),
      ("Hopper MoE", both(family("moe"), gpu_in(*HOPPER)))]),
    ("MLPerf Inference llama2-70b / llama3.1-405b", ROOT / "validation/mlperf_inference.jsonl", [("all", everything)]),
    ("MLPerf Inference, other benchmarks: dense / Mixtral / DeepSeek-R1", ROOT / "validation/mlperf_inference_more.jsonl",
     [("dense", family("dense")), ("Mixtral", id_has("mixtral")), ("DeepSeek-R1", id_has("dsr1"))]),
    ("MLPerf Inference on AMD Instinct (vLLM): MI300X / MI325X / MI355X",
     ROOT / "validation/mlperf_inference_amd.jsonl",
     [("MI300X", gpu_in("MI300X")), ("MI325X", gpu_in("MI325X")), ("MI355X", gpu_in("MI355X"))]),
    ("Export GPUs: A800 and H800 pre-training / H20 DeepSeek-R1 serving", ROOT / "validation/export_gpus.jsonl",
     [("A800/H800", gpu_in("A800", "H800")), ("H20", gpu_in("H20"))]),
    ("RTX PRO 6000 Blackwell (PCIe): dense / MoE", ROOT / "validation/trtllm_rtx_pro_6000.jsonl",
     [("dense", family("dense")), ("MoE", family("moe"))]),
    ("Release-1.2 developer guide, beta columns: B300 / GB300", ROOT / "validation/trtllm_r12_blackwell_ultra.jsonl",
     [("B300", gpu_in("B300")), ("GB300", gpu_in("GB300"))]),
    ("Disaggregated: prefill / decode instances / whole deployment", ROOT / "validation/disaggregated.jsonl",
     [("prefill", phase("prefill")), ("decode", phase("decode")), ("deployment", phase("disaggregated"))]),
    ("Other engines: vLLM / SGLang", ROOT / "validation/vllm_serving.jsonl",
     [("vLLM", id_has("vllm")), ("SGLang", id_has("sglang"))]),
    ("InferenceMAX DeepSeek-R1 at fixed concurrency (SGLang, TensorRT-LLM): tokens/s / TPOT / TTFT",
     ROOT / "validation/inferencemax.jsonl",
     [("tokens/s", lambda r: r["metric"] == "tokens_per_s_per_gpu"), ("TPOT", lambda r: r["metric"] == "itl_ms"),
      ("TTFT", lambda r: r["metric"] == "ttft_ms")]),
    ("AMD's vLLM figures, MI300X TP 8 (Llama 3.1 70B / 405B FP8): throughput / latency",
     ROOT / "validation/amd_perf_results.jsonl", [("throughput", lambda r: "_latency" not in r["id"]), ("latency", id_has("_latency"))]),
    ("Serving power, ML.ENERGY", ROOT / "validation/mlenergy_power.jsonl", [("all", everything)]),
]


def joined(path: Path) -> list[Case]:
    """The validation rows of one file, each with its case's JSON under ``case``."""
    cases, _ = validate_cases([path])
    lines = path.read_text().splitlines()
    rows = []
    for r in cases.to_dict("records"):
        r["case"] = json.loads(lines[int(r["line"]) - 1])
        rows.append(r)
    return rows


def figures(rows: list[Case], rule: Rule) -> tuple[int, list[str], float]:
    """(runs, GPUs, MAPE %) of the rows a rule picks among those predicted."""
    picked = [r for r in rows if rule(r) and r["status"] == "ok"]
    gpus = sorted({r["gpu"].split("-")[0] for r in picked})
    mape = float(np.mean([r["abs_pct_error"] for r in picked])) if picked else float("nan")
    return len(picked), gpus, mape


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print markdown table rows")
    args = parser.parse_args()
    cache: dict[Path, list[Case]] = {}
    for label, path, parts in GROUPS:
        if path not in cache:
            cache[path] = joined(path)
        got = [figures(cache[path], rule) for _, rule in parts]
        runs = " / ".join(str(n) for n, _, _ in got)
        gpus = ", ".join(sorted({g for _, gs, _ in got for g in gs}))
        mape = " / ".join(f"{m:.1f}%" for _, _, m in got)
        if args.markdown:
            print(f"| {label} | {runs} | {gpus} | {mape} |")
        else:
            print(f"{label:75s} runs {runs:14s} MAPE {mape:24s} {gpus}")


if __name__ == "__main__":
    main()
