#!/usr/bin/env python3
"""Fit ``vit_matmul`` of ``dse/data/calibration.yaml`` to published ViT training runs.

One number per GPU family: the factor on the family's training GEMM efficiency (``matmul``,
fitted on Megatron-LM, NeMo and llm-foundry LLM runs) at which ViT training stacks run their
GEMMs. Everything else (depth efficiency, attention, HBM, networks, memory) is the LLM
calibration and physics. The loss is the mean absolute percentage error over the fit cases, each
case capped at 50% (as the DLRM and serving fits); the fit is a grid over the factor, every grid
point scored in one vectorized call.

    python scripts/calibrate_vit.py [--fit FILE...] [--check FILE...] [--write]

``--fit`` defaults to the ViT cases of ../shared/validation/dlrm_vit.jsonl (MAD-Max's sheet);
``--check`` (default validation/jax_toolbox_vit.jsonl) files are predicted with the fitted factor
and not fitted: the out-of-sample check. Families without fit cases carry the best-fitted
family's factor (a property of the software stacks, not of the GPU), marked "not fitted".
"""

from __future__ import annotations

import argparse
import copy
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dse.api import evaluate  # noqa: E402
from dse.presets import calibration_table, gpu_preset  # noqa: E402
from dse.scenario import load_jsonl, scenario_from_dict  # noqa: E402
from dse.sources import apply_software  # noqa: E402
from dse.validate import METRICS, OUTLIER_FLAG  # noqa: E402

CAP = 0.5
GRID = np.round(np.arange(0.30, 1.2001, 0.01), 2)
DEFAULT_FIT = ROOT.parent / "shared/validation/dlrm_vit.jsonl"
DEFAULT_CHECK = ROOT / "validation/jax_toolbox_vit.jsonl"


def vit_cases(paths: list[Path]) -> list[dict]:
    """The ViT cases of the files, software facts applied, OUTLIER-flagged runs left out."""
    out = []
    for path in paths:
        for _, case in load_jsonl(path):
            if (case.get("model") or {}).get("family") == "vit" and OUTLIER_FLAG not in str(case.get("notes", "")):
                out.append(apply_software(case))
    return out


def family_of(case: dict) -> str:
    return gpu_preset(case["cluster"]["gpu"])["family"]


def errors(cases: list[dict], factors: np.ndarray) -> np.ndarray:
    """Signed relative errors, shape (factors, cases), with GEMM efficiency = family matmul x factor."""
    table = calibration_table()
    scenarios = []
    for factor in factors:
        for case in cases:
            obj = copy.deepcopy(case)
            eff = dict(obj["cluster"].get("efficiency") or {})
            eff["matmul"] = min(float(table[family_of(case)]["matmul"]) * float(factor), 1.0)
            obj["cluster"]["efficiency"] = eff
            scenarios.append(scenario_from_dict(obj))
    frame = evaluate(scenarios)
    columns = [METRICS[c["target"]["metric"]] for c in cases]
    predicted = np.array([frame[columns[k % len(cases)]].iat[k] for k in range(len(scenarios))])
    measured = np.tile([float(c["target"]["value"]) for c in cases], len(factors))
    return ((predicted - measured) / measured).reshape(len(factors), len(cases))


def loss(err: np.ndarray) -> np.ndarray:
    return np.minimum(np.abs(err), CAP).mean(axis=-1)


def fit(cases: list[dict]) -> dict[str, float]:
    """The best factor per family of the fit cases."""
    out = {}
    for family in sorted({family_of(c) for c in cases}):
        mine = [c for c in cases if family_of(c) == family]
        out[family] = float(GRID[int(np.argmin(loss(errors(mine, GRID))))])
    return out


def report(label: str, cases: list[dict], factors: dict[str, float], best: float) -> None:
    """Each case's error at its family's factor (``best`` where the family has none), and the
    MAPE against that with the LLM GEMM efficiency (factor 1)."""
    per_case = np.array([factors.get(family_of(c), best) for c in cases])
    err = np.empty(len(cases))
    for factor in np.unique(per_case):  # one vectorized call per distinct factor
        mine = np.flatnonzero(per_case == factor)
        err[mine] = errors([cases[i] for i in mine], np.array([factor]))[0]
    for case, factor, e in zip(cases, per_case, err):
        print(f"  {case['id']:<45} {family_of(case):<8} x{factor:.2f}  {e * 100:+6.1f}%")
    base = errors(cases, np.array([1.0]))[0]
    print(f"  {label}: {len(cases)} cases, MAPE {np.mean(np.abs(err)) * 100:.1f}% "
          f"(with the LLM GEMM efficiency: {np.mean(np.abs(base)) * 100:.1f}%)")


def write_calibration(factors: dict[str, float], source: str) -> Path:
    """Set (or add) ``vit_matmul`` in every family block of calibration.yaml: the fitted factor
    where the family has fit cases, ``source``'s elsewhere; other lines stay."""
    path = ROOT / "dse/data/calibration.yaml"
    text = path.read_text()
    best = factors[source]
    out, family = [], None
    lines = [line for line in text.splitlines() if not line.strip().startswith("vit_matmul:")]

    def line_for(fam: str) -> str:
        if fam in factors:
            return f"  vit_matmul: {factors[fam]:g}  # fitted"
        return f"  vit_matmul: {best:g}  # not fitted: {source}'s"

    for line in lines:
        if line and not line.startswith((" ", "#")) and line.rstrip().endswith(":"):
            if family is not None:
                out.append(line_for(family))
            family = line.rstrip()[:-1]
        out.append(line)
    if family is not None:
        out.append(line_for(family))
    path.write_text(re.sub(r"\n{3,}", "\n\n", "\n".join(out) + "\n"))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", nargs="+", type=Path, default=[DEFAULT_FIT], help="cases to fit on")
    parser.add_argument("--check", nargs="*", type=Path, default=[DEFAULT_CHECK], help="cases to predict only")
    parser.add_argument("--write", action="store_true", help="write the fit into dse/data/calibration.yaml")
    args = parser.parse_args(argv)

    fit_cases = vit_cases(args.fit)
    if not fit_cases:
        print("no ViT cases to fit", file=sys.stderr)
        return 2
    factors = fit(fit_cases)
    source = "ampere" if "ampere" in factors else next(iter(factors))
    best = factors[source]
    for family, factor in factors.items():
        fam_cases = [c for c in fit_cases if family_of(c) == family]
        curve = loss(errors(fam_cases, GRID))
        near = GRID[curve <= curve.min() + 0.01]
        print(f"{family}: vit_matmul = {factor:.2f} x matmul {calibration_table()[family]['matmul']} "
              f"(loss {curve.min() * 100:.1f}%; within 1 point of it: {near.min():.2f}-{near.max():.2f}; "
              f"{len(fam_cases)} cases)")
    print("fit cases:")
    report("fit", fit_cases, factors, best)
    check_cases = vit_cases(args.check) if args.check else []
    if check_cases:
        print("out-of-sample cases (not fitted):")
        report("out of sample", check_cases, factors, best)
    if args.write:
        print(f"wrote {write_calibration(factors, source)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
