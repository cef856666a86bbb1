#!/usr/bin/env python3
"""Fit the per-family serving numbers (``infer_*`` keys of ``dse/data/calibration.yaml``) to the
published LLM inference runs.

Four numbers per GPU family, the same for every model, precision and sequence length of that
family: ``infer_matmul`` (serving GEMM efficiency as a factor on the family's training GEMM
efficiency), ``infer_hbm`` (fraction of HBM bandwidth the decode weight and KV-cache reads
reach), ``infer_seq_us`` (engine time per sequence in flight per iteration) and
``infer_collective_us`` (fixed time of each tensor-parallel collective of an iteration). The
prompt attention's efficiency (``infer_attention``) was fitted too until 2026-12-07; offline
throughput hardly determines it, and it is now set from kernel measurements (calibration.yaml);
``infer_step_us`` (fixed engine time per iteration) cannot be told apart. Everything else
(memory, KV-cache sizes, batch choice, communication) is physics and datasheet figures. The loss
is the mean over GPUs of each GPU's mean absolute percentage error, each case capped at 50% so
that a run limited by something the model does not describe cannot drag the physics.

    python scripts/calibrate_inference.py [FILE.jsonl ...] [--family F] [--reliability A] [--cv] [--write]

The shipped calibration: ampere from ``../shared/validation/llm.jsonl`` (TensorRT-LLM v0.17),
hopper from it and ``validation/nim_latency.jsonl`` (NIM latency at 1-50 clients, which pins the
per-collective time that offline throughput alone hardly identifies), blackwell from
``validation/trtllm_v1.jsonl --reliability A``.

``--cv`` also runs a leave-one-model-out check: fit a family without one model's runs, then
predict them. Every candidate point is scored in one vectorized call (points x cases rows):
a seeded random search over the parameter box in rounds, each round a box a quarter as wide
around the best point so far.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dse.costmodel.inference import evaluate_inference  # noqa: E402
from dse.hardware import resolve_hardware  # noqa: E402
from dse.scenario import load_jsonl, scenario_from_dict  # noqa: E402
from dse.sources import apply_software  # noqa: E402
from dse.validate import METRICS, queued_requests  # noqa: E402
from dse.workloads.inference import CALIBRATION_KEYS, inference_columns  # noqa: E402
from calibrate import set_values  # noqa: E402  (scripts/calibrate.py, same folder)

#: yaml key -> (cost-model column, factor to SI, search range in yaml units)
PARAMS = {
    "infer_matmul": ("infer_matmul", 1.0, (0.6, 1.6)),
    "infer_hbm": ("infer_hbm", 1.0, (0.55, 0.95)),
    "infer_seq_us": ("seq_overhead", 1e-6, (0.0, 20.0)),
    "infer_collective_us": ("collective_overhead", 1e-6, (0.0, 150.0)),
}
#: Random points per search round, rounds (each shrinks the box around the best point), seed.
POINTS, ROUNDS, SEED = 3000, 4, 0
CAP = 0.5
#: Families without serving runs take a fitted family's numbers when writing (marked not fitted).
#: Blackwell has its own (TensorRT-LLM v1.0 runs: --family blackwell on validation/trtllm_v1.jsonl).
NEIGHBOURS = {"volta": "ampere", "ada": "ampere"}


def load_cases(path: Path, reliability: str | None = None) -> pd.DataFrame:
    rows = []
    for _, case in load_jsonl(path):
        if case.get("workload") != "inference":
            continue
        if reliability is not None and case.get("reliability") != reliability:
            continue
        queued = queued_requests(case)  # an offline run's size, as dse validate reads it
        if queued is not None:
            case = {**case, "inference": {**case["inference"], "num_requests": queued}}
        scenario = scenario_from_dict(apply_software(case))
        hw = resolve_hardware(scenario.cluster, scenario.precision)
        row = inference_columns(scenario)
        row.update(family=hw.family, gpu=hw.gpu, model=scenario.model.name, id=case["id"],
                   metric=METRICS[case["target"]["metric"]], measured=float(case["target"]["value"]))
        rows.append(row)
    return pd.DataFrame(rows)


def predict(cases: pd.DataFrame, grid: np.ndarray) -> np.ndarray:
    """Predictions (grid points x cases) of every case at every grid point."""
    g, n = len(grid), len(cases)
    per_slice = max(1, 400_000 // n)
    numeric = [c for c in cases.columns if c not in ("family", "gpu", "model", "id", "metric", "measured")]
    metric_of = cases["metric"].to_numpy()
    pred = np.empty((g, n))
    for start in range(0, g, per_slice):
        part = grid[start : start + per_slice]
        k = len(part)
        batch = {c: np.tile(cases[c].to_numpy(float), k) for c in numeric}
        for j, (column, factor, _) in enumerate(PARAMS.values()):
            batch[column] = np.repeat(part[:, j] * factor, n)
        out = evaluate_inference(batch)
        chunk = np.empty(k * n)
        for metric in np.unique(metric_of):
            sel = np.tile(metric_of == metric, k)
            chunk[sel] = out[metric][sel]
        pred[start : start + k] = chunk.reshape(k, n)
    return pred


def loss_of(pred: np.ndarray, cases: pd.DataFrame) -> np.ndarray:
    """Mean over GPUs of the per-GPU MAPE (each case capped at CAP), per grid point."""
    measured = cases["measured"].to_numpy()
    ape = np.minimum(np.abs(pred - measured) / measured, CAP)
    gpus = cases["gpu"].to_numpy()
    return np.mean([ape[:, gpus == gpu].mean(axis=1) for gpu in np.unique(gpus)], axis=0)


def fit(cases: pd.DataFrame) -> tuple[dict[str, float], float]:
    """Random search in the parameter box, vectorized: each round scores POINTS points at once
    and the next round searches a box a quarter as wide around the best one (seeded)."""
    rng = np.random.default_rng(SEED)
    low = np.array([v[2][0] for v in PARAMS.values()])
    high = np.array([v[2][1] for v in PARAMS.values()])
    best, best_loss = (low + high) / 2.0, np.inf
    lo, hi = low.copy(), high.copy()
    for _ in range(ROUNDS):
        grid = lo + (hi - lo) * rng.random((POINTS, len(PARAMS)))
        grid = np.vstack([grid, best])
        losses = loss_of(predict(cases, grid), cases)
        i = int(np.argmin(losses))
        best, best_loss = grid[i], float(losses[i])
        half = (hi - lo) / 8.0
        lo, hi = np.maximum(best - half, low), np.minimum(best + half, high)
    return {k: float(f"{v:.3g}") for k, v in zip(PARAMS, best)}, best_loss


def score(cases: pd.DataFrame, params: dict[str, float]) -> pd.DataFrame:
    grid = np.array([[params[k] for k in PARAMS]])
    out = cases[["id", "gpu", "model", "measured"]].copy()
    out["predicted"] = predict(cases, grid)[0]
    out["error"] = (out["predicted"] - out["measured"]) / out["measured"]
    return out


def report(result: pd.DataFrame, label: str) -> None:
    for gpu, sub in result.groupby("gpu"):
        ape = sub["error"].abs() * 100
        print(f"   {label} {gpu:16s} n={len(sub):3d} MAPE {ape.mean():5.1f}% median {ape.median():5.1f}% "
              f"max {ape.max():5.1f}%")


def cross_validate(cases: pd.DataFrame) -> None:
    """Leave-one-model-out: fit the family without a model's runs, then predict them."""
    print("leave-one-model-out (fit the family without the model, then predict it):")
    for family, group in cases.groupby("family"):
        held_all = []
        for model in group["model"].unique():
            train = group[group["model"] != model].reset_index(drop=True)
            test = group[group["model"] == model].reset_index(drop=True)
            params, _ = fit(train)
            result = score(test, params)
            held_all.append(result)
            ape = result["error"].abs() * 100
            print(f"   {family:8s} {model:16s} n={len(test):3d} held-out MAPE {ape.mean():5.1f}% "
                  f"(fit {', '.join(f'{k}={v:g}' for k, v in params.items())})")
        report(pd.concat(held_all), f"{family} all held-out")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("jsonl", nargs="*", default=[str(ROOT.parent / "shared/validation/llm.jsonl")],
                        help="validation files (their inference cases are pooled)")
    parser.add_argument("--write", action="store_true", help="write the fit into dse/data/calibration.yaml")
    parser.add_argument("--cv", action="store_true", help="also run the leave-one-model-out check")
    parser.add_argument("--family", help="fit only this GPU family (e.g. blackwell)")
    parser.add_argument("--reliability", help="only cases of this reliability (A: plan and numbers stated)")
    args = parser.parse_args()
    cases = pd.concat([load_cases(Path(path), args.reliability) for path in args.jsonl], ignore_index=True)
    if args.family:
        cases = cases[cases["family"] == args.family].reset_index(drop=True)
    missing = set(PARAMS) - set(CALIBRATION_KEYS)
    assert not missing, f"calibration keys not read by the workload: {missing}"
    fits = {}
    for family, group in cases.groupby("family"):
        params, loss = fit(group.reset_index(drop=True))
        fits[family] = params
        print(f"{family}: {len(group)} cases, fit {params}, loss {loss * 100:.1f}%")
        result = score(group.reset_index(drop=True), params)
        report(result, "in-sample")
        for model, sub in result.groupby("model"):
            ape = sub["error"].abs() * 100
            print(f"      {model:16s} n={len(sub):3d} MAPE {ape.mean():5.1f}% max {ape.max():5.1f}%")
    if args.cv:
        cross_validate(cases)
    if args.write:
        path = ROOT / "dse/data/calibration.yaml"
        text = path.read_text()
        for family, values in fits.items():
            text = set_values(text, family, values)
        for family, source in NEIGHBOURS.items():
            if source in fits and family not in fits:  # a fitted family keeps its own numbers
                text = set_values(text, family, fits[source])
        path.write_text(text)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
