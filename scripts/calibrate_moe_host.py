#!/usr/bin/env python3
"""Fit the host (CPU) launch time of an eager Megatron-core MoE layer (``moe_host_layer_us`` and
``moe_host_expert_us`` of every family in ``dse/data/calibration.yaml``) to the published MoE
pre-training runs, with a leave-one-model-out check.

Megatron-core's all-to-all dispatcher reads the routed-token counts on the host in every MoE
layer (the split sizes of the all-to-all), so the host cannot queue the next layer's kernels
while the GPU runs this one: the host's time to launch an MoE layer's forward and backward for
one microbatch, H = ``moe_host_layer`` plus ``moe_host_expert`` per expert the GPU holds
(Transformer Engine's grouped GEMMs, casts and bias passes go expert by expert), runs beside the
GPU's time G, and the layer takes (G^2 + H^2)^(1/2). A plan with small microbatches and many
local experts is then bound by the host, not the GPU.

Two numbers for every GPU family (a property of the host software): fitted on the MoE runs of
``validation/megatron_bridge.jsonl`` except gpt-oss-120b, whose excess is not host-bound (its
measured tokens/s per GPU is the same at microbatches 1, 2 and 4 on GB200/GB300, where a
host-bound layer would slow down in proportion to 1/microbatch), and without the runs their case
file flags OUTLIER; checked by fitting without each model's runs and predicting them.

    python scripts/calibrate_moe_host.py [--write]

Every grid point of every case is scored in one vectorized cost-model call.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dse.api import scenario_columns  # noqa: E402
from dse.costmodel.training import evaluate_training  # noqa: E402
from dse.scenario import scenario_from_dict  # noqa: E402
from dse.sources import apply_software  # noqa: E402
from dse.validate import METRICS  # noqa: E402
from calibrate import set_values  # noqa: E402  (scripts/calibrate.py, same folder)

CASES = ROOT / "validation" / "megatron_bridge.jsonl"
CALIBRATION = ROOT / "dse" / "data" / "calibration.yaml"
FAMILIES = ("volta", "ampere", "ada", "hopper", "blackwell")
#: Candidate host times per layer and microbatch (fixed part, per local expert), microseconds.
LAYER_US = np.arange(0.0, 12001.0, 250.0)
EXPERT_US = np.arange(0.0, 1201.0, 25.0)
#: Models whose runs are reported but not fitted, and why (see the module docstring).
NOT_FITTED = {"gpt-oss-120b": "the same tokens/s at microbatches 1-4: not host-bound"}


def moe_runs(path: Path) -> list[dict]:
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [c for c in cases if c.get("workload") == "train" and c["model"].get("moe")
            and "OUTLIER" not in c.get("notes", "")]


def errors(cases: list[dict], grid: np.ndarray) -> np.ndarray:
    """Signed relative errors, (grid points, cases); grid rows are (layer s, expert s)."""
    frame = pd.DataFrame([scenario_columns(scenario_from_dict(apply_software(c))) for c in cases])
    n, g = len(frame), len(grid)
    batch = {k: np.tile(frame[k].to_numpy(float), g) for k in frame.columns}
    batch["moe_host_layer"] = np.repeat(grid[:, 0], n)
    batch["moe_host_expert"] = np.repeat(grid[:, 1], n)
    out = evaluate_training(batch)
    columns = [METRICS[c["target"]["metric"]] for c in cases]
    predicted = np.stack([out[col].reshape(g, n)[:, i] for i, col in enumerate(columns)], axis=1)
    measured = np.array([c["target"]["value"] for c in cases], dtype=float)
    return predicted / measured - 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write the fit into dse/data/calibration.yaml")
    args = parser.parse_args()

    cases = moe_runs(CASES)
    models = np.array([c["model"]["name"] for c in cases])
    fitted = ~np.isin(models, list(NOT_FITTED))
    grid = np.array([(a, b) for a in LAYER_US for b in EXPERT_US]) * 1e-6
    err = errors(cases, grid)
    none = int(np.flatnonzero((grid[:, 0] == 0) & (grid[:, 1] == 0))[0])  # no host term

    def best(mask: np.ndarray) -> int:
        return int(np.argmin(np.abs(err[:, mask]).mean(axis=1)))

    def mape(i: int, mask: np.ndarray) -> float:
        return float(np.abs(err[i, mask]).mean() * 100)

    i = best(fitted)
    layer_us, expert_us = (float(v) for v in grid[i] * 1e6)
    print(f"{len(cases)} MoE pre-training runs ({CASES.name}); fitted on {int(fitted.sum())} "
          f"(not fitted: {', '.join(f'{k}, {v}' for k, v in NOT_FITTED.items())})")
    print(f"fit: moe_host_layer_us = {layer_us:g}, moe_host_expert_us = {expert_us:g}: MAPE of the fitted runs "
          f"{mape(none, fitted):.1f}% -> {mape(i, fitted):.1f}%, all {len(cases)} runs "
          f"{mape(none, np.ones_like(fitted)):.1f}% -> {mape(i, np.ones_like(fitted)):.1f}%")
    print("leave-one-model-out (fit without the model's runs, then predict them):")
    for model in dict.fromkeys(models[fitted]):
        held = models == model
        j = best(fitted & ~held)
        print(f"  {model:28s} n={int(held.sum()):2d}  fit {grid[j, 0] * 1e6:6g} + {grid[j, 1] * 1e6:4g}/expert us: "
              f"held-out MAPE {mape(none, held):5.1f}% -> {mape(j, held):5.1f}%")
    print("per run (no host term -> fit):")
    for case, e0, e1 in zip(cases, err[none], err[i]):
        print(f"  {case['id']}: {e0 * 100:+.1f}% -> {e1 * 100:+.1f}%")
    if args.write:
        text = CALIBRATION.read_text()
        for family in FAMILIES:
            text = set_values(text, family, {"moe_host_layer_us": layer_us, "moe_host_expert_us": expert_us})
        CALIBRATION.write_text(text)
        print(f"wrote moe_host_layer_us = {layer_us:g}, moe_host_expert_us = {expert_us:g} for "
              f"{', '.join(FAMILIES)} to {CALIBRATION.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
