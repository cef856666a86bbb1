#!/usr/bin/env python3
"""How fast the search itself runs, end to end (sampler, workers, storage and files included),
and how many trials the nested search needs to match the exhaustive optimum.

    python benchmarks/bench_search.py [--space search_spaces/codesign_small.yaml] [--workers 2]

1. Exhaustive sweep of the (discrete) space: the reference best tokens/s per GPU count.
2. Nested mode (Optuna over hardware, every plan per trial) with TPE and NSGA-II at the space's
   default budget: configurations scored per second end to end, and the first trial after which
   every GPU count's best is within 1% of the exhaustive one.
3. Pure-Optuna mode (one configuration per trial) with TPE, NSGA-II and random: configurations
   per second end to end, and how close its best gets.
4. A profile of one nested run: where the time goes.
The last line printed is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from dse.search.runner import run_search  # noqa: E402


def best_per_gpus(out: Path) -> pd.Series:
    df = pd.read_parquet(out / "configs.parquet", columns=["num_gpus", "tokens_per_s", "feasible", "trial"])
    return df[df["feasible"]].groupby("num_gpus")["tokens_per_s"].max()


def trials_to_match(out: Path, reference: pd.Series, tolerance: float = 0.01) -> int | None:
    """The smallest number of trials after which every GPU count is within ``tolerance``."""
    df = pd.read_parquet(out / "configs.parquet", columns=["num_gpus", "tokens_per_s", "feasible", "trial"])
    df = df[df["feasible"]]
    needed = 0
    for gpus, best in reference.items():
        hits = df[(df["num_gpus"] == gpus) & (df["tokens_per_s"] >= (1 - tolerance) * best)]
        if hits.empty:
            return None
        needed = max(needed, int(hits["trial"].min()) + 1)
    return needed


def gap(found: pd.Series, reference: pd.Series) -> float:
    """Largest shortfall (%) of the found best tokens/s per GPU count against the reference."""
    found = found.reindex(reference.index).fillna(0.0)
    return float(((reference - found) / reference).max() * 100)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--space", default=str(ROOT / "search_spaces/codesign_small.yaml"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--optuna-trials", type=int, default=1000)
    args = parser.parse_args()
    figures: dict[str, object] = {"space": args.space, "workers": args.workers}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        t0 = time.perf_counter()
        ex = run_search(args.space, out_dir=tmp / "exhaustive", mode="exhaustive", workers=args.workers,
                        progress=False, plots=False)
        wall = time.perf_counter() - t0
        reference = best_per_gpus(ex.out_dir)
        figures["exhaustive"] = {"configs": ex.counts["scored"], "wall_s": round(wall, 2),
                                 "configs_per_s": round(ex.counts["scored"] / wall)}
        print(f"exhaustive: {ex.counts['scored']:,} configurations in {wall:.2f} s "
              f"({ex.counts['scored'] / wall:,.0f}/s end to end)")
        for sampler in ("tpe", "nsga2"):
            t0 = time.perf_counter()
            run = run_search(args.space, out_dir=tmp / f"nested-{sampler}", mode="nested", sampler=sampler,
                             workers=args.workers, progress=False, plots=False)
            wall = time.perf_counter() - t0
            needed = trials_to_match(run.out_dir, reference)
            found_gap = gap(best_per_gpus(run.out_dir), reference)
            figures[f"nested_{sampler}"] = {
                "trials": run.report.trials_complete, "configs": run.counts["scored"],
                "wall_s": round(wall, 2), "configs_per_s": round(run.counts["scored"] / wall),
                "trials_per_s": round(run.report.trials_complete / wall, 1),
                "trials_to_within_1pct": needed, "max_gap_pct": round(found_gap, 3),
            }
            print(f"nested {sampler}: {run.report.trials_complete} trials, {run.counts['scored']:,} configurations "
                  f"in {wall:.2f} s ({run.counts['scored'] / wall:,.0f} configs/s, "
                  f"{run.report.trials_complete / wall:.1f} trials/s); every GPU count within 1% of the "
                  f"exhaustive best after {needed} trials; final gap {found_gap:.3f}%")
        for sampler in ("tpe", "nsga2", "random"):
            t0 = time.perf_counter()
            run = run_search(args.space, out_dir=tmp / f"optuna-{sampler}", mode="optuna", sampler=sampler,
                             n_trials=args.optuna_trials, workers=1, progress=False, plots=False)
            wall = time.perf_counter() - t0
            found_gap = gap(best_per_gpus(run.out_dir), reference)
            figures[f"optuna_{sampler}"] = {
                "trials": run.report.trials_complete, "wall_s": round(wall, 2),
                "configs_per_s": round(run.counts["scored"] / wall), "max_gap_pct": round(found_gap, 2),
            }
            print(f"optuna {sampler}: {run.report.trials_complete} trials in {wall:.2f} s "
                  f"({run.counts['scored'] / wall:,.0f} configs/s); best per GPU count within {found_gap:.2f}%")
        profile = cProfile.Profile()
        profile.enable()
        run_search(args.space, out_dir=tmp / "profile", mode="nested", sampler="tpe", workers=1,
                   progress=False, plots=False)
        profile.disable()
        stream = io.StringIO()
        stats = pstats.Stats(profile, stream=stream)
        total = stats.total_tt
        # cumulative time of the entry points of each stage (they do not nest in one another)
        stages = {
            "storage writes (journal append, fsync, file lock)": ("optuna/storages/journal/_storage.py", "_write_log"),
            "storage reads (journal replay)": ("optuna/storages/journal/_storage.py", "_sync_with_backend"),
            "sampler (TPE ask)": ("optuna/samplers/_tpe/sampler.py", "sample_relative"),
            "sampler (TPE independent)": ("optuna/samplers/_tpe/sampler.py", "sample_independent"),
            "cost model": ("dse/costmodel/training.py", "evaluate_training"),
            "shard files (parquet)": ("dse/search/drivers.py", "write_shard"),
            "merge, CSV, Pareto": ("dse/search/runner.py", "finalize_run"),
        }
        shares = {}
        for name, (file_part, func) in stages.items():
            cum = sum(v[3] for (f, _, fn), v in stats.stats.items() if file_part in f and fn == func)
            shares[name] = round(cum / total * 100, 1)
        score = sum(v[3] for (f, _, fn), v in stats.stats.items() if "dse/search/evaluation.py" in f and fn == "score_point")
        shares["table building around the cost model (pandas)"] = round((score / total * 100) - shares["cost model"], 1)
        shares = dict(sorted(shares.items(), key=lambda kv: -kv[1]))
        figures["profile_nested_tpe_pct"] = shares
        print(f"profile of one nested TPE run, {total:.2f} s in one process (share of the run): "
              + ", ".join(f"{k} {v}%" for k, v in shares.items()))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
