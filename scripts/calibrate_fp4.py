#!/usr/bin/env python3
"""Fit Blackwell's FP4 GEMM efficiency (``matmul_fp4`` of the ``blackwell`` family in
``dse/data/calibration.yaml``) to the published NVFP4 pre-training runs, and cross-check it on
NVFP4 serving runs it was not fitted to.

One number: the fraction of the FP4 dense peak an NVFP4 GEMM reaches (block-scale handling and
activation quantization included), the FP4 analogue of ``matmul_fp8``. Fitted on the dense NVFP4
runs of ``validation/megatron_bridge.jsonl`` (Megatron-Bridge pre-training on B200/GB200/GB300);
the dense NVFP4 runs of ``validation/trtllm_v1.jsonl`` (TensorRT-LLM v1.0 serving) are reported
at the fitted value, never fitted.

    python scripts/calibrate_fp4.py [--write]

Each candidate value enters the cases as ``cluster.efficiency.matmul_fp4`` (the per-scenario
override), and every candidate of a set is scored in one :func:`dse.evaluate` call.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dse  # noqa: E402
from dse.scenario import scenario_from_dict  # noqa: E402
from dse.sources import apply_software  # noqa: E402
from dse.validate import METRICS  # noqa: E402
from calibrate import set_values  # noqa: E402  (scripts/calibrate.py, same folder)

FIT = ROOT / "validation" / "megatron_bridge.jsonl"
CHECK = ROOT / "validation" / "trtllm_v1.jsonl"
GRID = np.round(np.arange(0.30, 0.6001, 0.005), 3)
CALIBRATION = ROOT / "dse" / "data" / "calibration.yaml"


def fp4_dense(path: Path) -> list[dict]:
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [c for c in cases if c["precision"] == "fp4" and c["model"]["family"] == "dense"
            and "OUTLIER" not in c.get("notes", "")]


def errors(cases: list[dict], values: np.ndarray) -> np.ndarray:
    """Signed relative errors, (len(values), len(cases))."""
    scenarios = []
    for value in values:
        for case in cases:
            case = copy.deepcopy(case)
            case["cluster"]["efficiency"] = {**case["cluster"].get("efficiency", {}), "matmul_fp4": float(value)}
            scenarios.append(scenario_from_dict(apply_software(case)))
    frame = dse.evaluate(scenarios)
    predicted = np.array([frame[METRICS[cases[i % len(cases)]["target"]["metric"]]].iat[i]
                          for i in range(len(scenarios))], dtype=float)
    measured = np.tile([c["target"]["value"] for c in cases], len(values))
    return ((predicted - measured) / measured).reshape(len(values), len(cases))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the fit into dse/data/calibration.yaml")
    args = parser.parse_args()

    fit, check = fp4_dense(FIT), fp4_dense(CHECK)
    e_fit, e_check = errors(fit, GRID), errors(check, GRID)
    mape_fit = np.abs(e_fit).mean(axis=1) * 100
    best = int(np.argmin(mape_fit))
    value = float(GRID[best])
    print(f"fit on {len(fit)} NVFP4 pre-training runs ({FIT.name}), checked on {len(check)} NVFP4 serving "
          f"runs ({CHECK.name})")
    print(" matmul_fp4  fit MAPE  fit bias  check MAPE  check bias")
    for i in range(0, len(GRID), 4):
        print(f"  {GRID[i]:9.3f}  {mape_fit[i]:7.1f}%  {e_fit[i].mean() * 100:+7.1f}%  "
              f"{np.abs(e_check[i]).mean() * 100:9.1f}%  {e_check[i].mean() * 100:+9.1f}%")
    print(f"best: matmul_fp4 = {value:g}: fit MAPE {mape_fit[best]:.1f}% (bias {e_fit[best].mean() * 100:+.1f}%), "
          f"serving check MAPE {np.abs(e_check[best]).mean() * 100:.1f}% (bias {e_check[best].mean() * 100:+.1f}%)")
    for case, err in zip(fit, e_fit[best]):
        print(f"  {case['id']}: {err * 100:+.1f}%")
    if args.write:
        CALIBRATION.write_text(set_values(CALIBRATION.read_text(), "blackwell", {"matmul_fp4": value}))
        print(f"wrote blackwell matmul_fp4 = {value:g} to {CALIBRATION.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
