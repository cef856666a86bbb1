#!/usr/bin/env python3
"""Fit the power model's two activity numbers (``power_tensor``, ``power_hbm`` of
``dse/data/calibration.yaml``) to published GPU board-power measurements.

The power model (dse/costmodel/power.py) gives a GPU's average board power over a step as
``TDP * (idle + (1 - idle) * min(1, tensor * x + hbm * y))`` where x and y are the fractions of
the step its compute stream spends tensor-bound (FLOPs at the achieved GEMM rate) and
memory-bound, both from the cost model. ``idle`` is measured, not fitted (the clocked-idle board
power over TDP, in calibration.yaml with its source). For each case the cost model is run twice
to read x and y, then every (tensor, hbm) grid point is scored in numpy. Loss: mean absolute
percentage error.

    python scripts/calibrate_power.py [FILE.jsonl ...] [--family hopper]

Default file: validation/mlenergy_power.jsonl (ML.ENERGY v3, Llama 3.1 8B/70B/405B on H100).
Prints the best grid point, the loss surface near it and the leave-one-model-out errors (each
model predicted with the numbers fitted on the others).
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dse.api import evaluate  # noqa: E402
from dse.presets import gpu_preset  # noqa: E402
from dse.scenario import load_jsonl, scenario_from_dict  # noqa: E402
from dse.sources import apply_software  # noqa: E402

TINY = 1e-9
GRID_TENSOR = np.round(np.arange(0.50, 3.0001, 0.01), 2)
GRID_HBM = np.round(np.arange(0.10, 1.5001, 0.01), 2)


def activity(cases: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(tensor fractions x, memory fractions y, TDPs in W, idle fractions) of the power cases:
    the cost model run with only one activity drawing power (the other and idle set to ~0)."""
    fracs = []
    for tensor, hbm in ((1.0, TINY), (TINY, 1.0)):
        variants = []
        for case in cases:
            c = copy.deepcopy(case)
            c["cluster"]["efficiency"] = {**(c["cluster"].get("efficiency") or {}),
                                          "power_idle": TINY, "power_tensor": tensor, "power_hbm": hbm}
            variants.append(scenario_from_dict(c))
        rows = evaluate(variants)
        fracs.append(rows["power_per_gpu_w"].to_numpy() / rows["power_w"].to_numpy())
    rows = evaluate([scenario_from_dict(c) for c in cases])
    return fracs[0], fracs[1], rows["power_w"].to_numpy(), rows["power_idle"].to_numpy()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, default=[ROOT / "validation/mlenergy_power.jsonl"])
    ap.add_argument("--family", default="hopper")
    args = ap.parse_args(argv)

    cases = [apply_software(c) for p in args.files for _, c in load_jsonl(p)
             if c["target"]["metric"] == "power_per_gpu_w"
             and gpu_preset(c["cluster"]["gpu"])["family"] == args.family]
    if not cases:
        print(f"no power cases for the {args.family} family in {[str(p) for p in args.files]}")
        return 1
    x, y, tdp, idle = activity(cases)
    measured = np.array([c["target"]["value"] for c in cases])
    models = np.array([c["model"]["name"] for c in cases])

    kt, kh = np.meshgrid(GRID_TENSOR, GRID_HBM, indexing="ij")
    load = np.clip(kt[..., None] * x + kh[..., None] * y, 0.0, 1.0)
    pred = tdp * (idle + (1.0 - idle) * load)  # (tensor, hbm, cases)
    ape = np.abs(pred / measured - 1.0)

    def best(mask):
        loss = ape[..., mask].mean(axis=-1)
        i, j = np.unravel_index(np.argmin(loss), loss.shape)
        return GRID_TENSOR[i], GRID_HBM[j], loss[i, j], (i, j)

    t_best, h_best, loss, (i, j) = best(np.ones(len(cases), bool))
    print(f"{len(cases)} {args.family} power cases from {', '.join(str(p) for p in args.files)}")
    print(f"idle (measured, not fitted): {', '.join(sorted({f'{v:.3f}' for v in idle}))} of TDP")
    print(f"best: power_tensor {t_best:.2f}, power_hbm {h_best:.2f}: MAPE {100 * loss:.1f}%")
    flat = ape[..., :].mean(axis=-1)
    near = flat <= loss + 0.005
    print(f"within 0.5 point of the best: power_tensor {GRID_TENSOR[near.any(axis=1)].min():.2f}-"
          f"{GRID_TENSOR[near.any(axis=1)].max():.2f}, power_hbm {GRID_HBM[near.any(axis=0)].min():.2f}-"
          f"{GRID_HBM[near.any(axis=0)].max():.2f}")
    print("\ncase                                                  measured W  predicted W   error  tensor x  memory y")
    for k, c in enumerate(cases):
        print(f"{c['id'][:52]:52s} {measured[k]:10.1f} {pred[i, j, k]:12.1f} {100 * (pred[i, j, k] / measured[k] - 1):+7.1f}%"
              f" {x[k]:9.3f} {y[k]:9.3f}")
    print("\nleave one model out (fit on the others, predict it):")
    for name in dict.fromkeys(models):
        held = models == name
        t_o, h_o, _, (io, jo) = best(~held)
        print(f"  {name:18s} fitted on the others: power_tensor {t_o:.2f}, power_hbm {h_o:.2f}; "
              f"its MAPE {100 * ape[io, jo, held].mean():.1f}% (in the joint fit {100 * ape[i, j, held].mean():.1f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
