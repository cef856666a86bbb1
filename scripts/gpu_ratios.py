#!/usr/bin/env python3
"""How well dse answers "which GPU?": published runs that differ only in the GPU, compared in pairs.

    python scripts/gpu_ratios.py [--min-gap 0.1] [--json]

A search over ``hardware.gpu`` ranks GPUs by the ratio of their predicted figures, so what
matters is whether the predicted ratio between two GPUs matches the measured one, not each
figure alone. Every case of the validation files (``validation/*.jsonl`` and
``../shared/validation/*.jsonl``) that dse predicts is grouped with the cases that state the same
run on another GPU: the same model, precision, plan, GPU count, request shape and target metric,
everything but the GPU itself (``cluster.gpu`` and the server shape that comes with it) and the
bookkeeping (id, source, notes). For each pair of GPUs in a group:

* ratio error = (predicted A / predicted B) / (measured A / measured B) - 1;
* the order is right when the predicted ratio falls on the same side of 1 as the measured one;
  pairs whose measured figures differ by less than ``--min-gap`` (10%) are left out of the order
  count (a near tie can go either way).

Prints the number of pairs, the mean absolute ratio error and the share ordered right, overall, by
kind of run and by GPU pair; ``--json`` prints one object instead. Cases the data flags OUTLIER
are left out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dse.scenario import load_jsonl  # noqa: E402
from dse.validate import validate_cases  # noqa: E402

SHARED = ROOT.parent / "shared" / "validation"
#: Case keys that do not describe the run, and cluster keys that come with the GPU.
BOOKKEEPING = ("id", "source", "reliability", "notes", "inferred", "also")
GPU_KEYS = ("gpu", "gpus_per_node", "nvlink_domain")


def case_files() -> list[Path]:
    return sorted((ROOT / "validation").glob("*.jsonl")) + sorted(SHARED.glob("*.jsonl"))


def run_key(obj: dict) -> str:
    """The run a case states, without its GPU: a JSON string, equal for the same run on two GPUs."""
    run = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
    run["cluster"] = {k: v for k, v in (run.get("cluster") or {}).items() if k not in GPU_KEYS}
    run["target"] = {k: v for k, v in (run.get("target") or {}).items() if k != "value"}
    return json.dumps(run, sort_keys=True)


def gpu_pairs(min_gap: float = 0.1, files: list[Path] | None = None) -> pd.DataFrame:
    """One row per pair of predicted cases (of ``files``, default :func:`case_files`) that state
    the same run on two GPUs."""
    files = case_files() if files is None else list(files)
    cases, _ = validate_cases(files)
    ok = cases[(cases["status"] == "ok") & ~cases["flagged"].astype(bool)].copy()
    objs = {}
    for path in files:
        for line, obj in load_jsonl(path):
            objs[(str(path), line)] = obj
    ok["key"] = [run_key(objs[(f, int(n))]) for f, n in zip(ok["file"], ok["line"])]
    rows = []
    for _, group in ok.groupby("key", sort=False):
        group = group.drop_duplicates("gpu")  # the same run twice on one GPU (two sources): the first
        if len(group) < 2:
            continue
        for (_, a), (_, b) in itertools.combinations(group.sort_values("gpu").iterrows(), 2):
            measured = a["measured"] / b["measured"]
            predicted = a["predicted"] / b["predicted"]
            gap = abs(measured - 1.0) >= min_gap
            rows.append({
                "gpu_a": a["gpu"], "gpu_b": b["gpu"], "kind": a["workload"], "model": a["model"],
                "metric": a["metric"], "measured_ratio": measured, "predicted_ratio": predicted,
                "ratio_error": predicted / measured - 1.0,
                "ordered": (np.sign(np.log(predicted)) == np.sign(np.log(measured))) if gap else np.nan,
                "id_a": a["id"], "id_b": b["id"]})
    return pd.DataFrame(rows)


def summary(pairs: pd.DataFrame) -> dict:
    def block(df: pd.DataFrame) -> dict:
        ordered = df["ordered"].dropna()
        return {"pairs": int(len(df)), "ratio_mape_pct": round(100 * float(df["ratio_error"].abs().mean()), 1),
                "ordered_pairs": int(len(ordered)),
                "ordered_right_pct": round(100 * float(ordered.mean()), 1) if len(ordered) else None}

    short = pairs.assign(pair=[f"{a.split('-')[0]} / {b.split('-')[0]}" for a, b in zip(pairs["gpu_a"], pairs["gpu_b"])])
    return {"overall": block(pairs),
            "by_kind": {k: block(g) for k, g in pairs.groupby("kind")},
            "by_pair": {k: block(g) for k, g in short.groupby("pair") if len(g) >= 3}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--min-gap", type=float, default=0.1,
                    help="leave pairs measured within this fraction of each other out of the order count")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    opts = ap.parse_args()
    pairs = gpu_pairs(opts.min_gap)
    result = summary(pairs)
    if opts.json:
        print(json.dumps(result, indent=1))
        return

    def line(name: str, b: dict) -> str:
        right = f"{b['ordered_right_pct']:.1f}% of {b['ordered_pairs']}" if b["ordered_pairs"] else "-"
        return f"{name:28s} pairs {b['pairs']:4d}   ratio MAPE {b['ratio_mape_pct']:5.1f}%   ordered right {right}"

    print(line("all pairs", result["overall"]))
    for k, b in result["by_kind"].items():
        print(line(f"  {k}", b))
    for k, b in result["by_pair"].items():
        print(line(f"  {k}", b))


if __name__ == "__main__":
    main()
