#!/usr/bin/env python3
"""Load test: many `dse search` processes on one PostgreSQL study.

    python benchmarks/bench_workers.py [--url postgresql://postgres@127.0.0.1:5432/test]
        [--trials 10000] [--workers 1,2,4,8] [--rate-trials 800] [--space search_spaces/codesign_small.yaml]

For each worker count K (each a separate `dse search --storage URL --n-trials N/K` process, as on
K hosts) it measures completed trials per second on a fresh study of ``--rate-trials`` trials;
then the largest K runs ``--trials`` trials on one study and is checked:

* completed trials == requested, and no trial number twice;
* duplicate configurations: trials that landed on a configuration an earlier trial had (the
  sampler proposes repeats by chance; the count is printed beside what the same sampler
  proposes alone in one process for the same number of trials);
* failed and re-queued trials (none expected without kills);
* the Pareto front from the workers' results (`dse show` merging their shards) is identical to
  a single-process recomputation that re-scores every completed trial from its parameters.

The pure-Optuna mode with the random sampler is used: one configuration per trial, so the run
measures the storage and the workers, not the cost model. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import optuna  # noqa: E402
import pandas as pd  # noqa: E402
from optuna.trial import TrialState  # noqa: E402

from dse.search.drivers import score_trials  # noqa: E402
from dse.search.pareto import pareto_front  # noqa: E402
from dse.search.space import load_space  # noqa: E402
from dse.search.storage import database_storage  # noqa: E402

DSE = Path(sys.executable).parent / "dse"


def run_workers(space: Path, url: str, study: str, out: Path, k: int, trials: int, sampler: str) -> float:
    """Start k worker processes sharing ``trials``; return the wall time until all exit."""
    share = [trials // k + (1 if i < trials % k else 0) for i in range(k)]
    start = time.perf_counter()
    procs = [
        subprocess.Popen([str(DSE), "search", str(space), "--mode", "optuna", "--sampler", sampler, "--storage", url,
                          "--study-name", study, "--out", str(out), "--n-trials", str(n), "--no-plots", "--json"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        for n in share
    ]
    errors = [p.communicate()[1] for p in procs]
    wall = time.perf_counter() - start
    bad = [e for p, e in zip(procs, errors) if p.returncode != 0]
    if bad:
        raise SystemExit("a worker failed:\n" + bad[0])
    return wall


def check_study(space_path: Path, url: str, study: str, out: Path, requested: int) -> dict:
    space = load_space(space_path)
    loaded = optuna.load_study(study_name=study, storage=database_storage(url))
    every = loaded.get_trials(deepcopy=False)
    done = [t for t in every if t.state == TrialState.COMPLETE]
    # the front as the workers left it (dse show merges every worker's shards with the study)
    shown = subprocess.run([str(DSE), "show", str(out), "--json"], capture_output=True, text=True)
    if shown.returncode != 0:
        raise SystemExit(shown.stderr)
    merged = pd.read_csv(out / "pareto.csv")
    # one process, from the trials' parameters alone
    start = time.perf_counter()
    rescored = score_trials(space, "optuna", done)
    rescore_s = time.perf_counter() - start
    recomputed = pareto_front(rescored, space.objectives)
    keys = ["trial", *[m for m, _ in space.objectives]]
    a = merged[keys].sort_values("trial").reset_index(drop=True)
    b = recomputed[keys].sort_values("trial").reset_index(drop=True)
    identical = a.shape == b.shape and bool((a.to_numpy() == b.to_numpy()).all())
    return {
        "requested": requested,
        "completed": len(done),
        "distinct_trial_numbers": len({t.number for t in done}),
        "failed": sum(t.state == TrialState.FAIL for t in every),
        "running_left": sum(t.state == TrialState.RUNNING for t in every),
        "requeued": sum("dse_retry_of" in t.user_attrs for t in every),
        "duplicate_configurations": duplicate_configurations(rescored, space),
        "front_rows": len(merged),
        "front_identical_to_single_process": identical,
        "rescore_s": round(rescore_s, 2),
    }


def duplicate_configurations(df: pd.DataFrame, space) -> int:
    """Rows that repeat an earlier row's configuration (GPU count, plan, hardware knobs)."""
    from dse.search.evaluation import PLAN_COLUMNS

    keys = [c for c in PLAN_COLUMNS if c in df] + [f"hw.{k}" for k in space.knobs]
    return int(df.duplicated(subset=keys).sum())


def sampler_duplicates(space_path: Path, n: int, sampler: str) -> int:
    """Duplicate configurations the sampler proposes alone, in one in-memory process."""
    from dse.search.drivers import make_sampler, score_plan_positions, suggest_knobs

    space = load_space(space_path)
    study = optuna.create_study(sampler=make_sampler(sampler, 0), directions=[d for _, d in space.objectives])
    rows = []
    for _ in range(n):
        trial = study.ask()
        gpus = trial.suggest_categorical("num_gpus", space.gpu_counts())
        knobs = suggest_knobs(trial, space)
        rows.append((trial.number, int(gpus), knobs, trial.suggest_float("plan", 0.0, 1.0)))
        study.tell(trial, [0.0] * len(space.objectives))
    return duplicate_configurations(score_plan_positions(space, rows), space)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--space", type=Path, default=ROOT / "search_spaces" / "codesign_small.yaml")
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--rate-trials", type=int, default=800)
    parser.add_argument("--workers", default="1,2,4,8")
    parser.add_argument("--sampler", default="random")
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    counts = [int(k) for k in args.workers.split(",")]
    results: dict = {"space": str(args.space.relative_to(ROOT)) if args.space.is_relative_to(ROOT) else str(args.space),
                     "sampler": args.sampler, "rates": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for k in counts:
            study = f"bench-rate-{k}-{uuid.uuid4().hex[:6]}"
            wall = run_workers(args.space, args.url, study, Path(tmp) / study, k, args.rate_trials, args.sampler)
            rate = args.rate_trials / wall
            results["rates"][k] = round(rate, 1)
            print(f"{k} worker(s): {args.rate_trials} trials in {wall:.1f} s = {rate:.1f} trials/s", flush=True)
            optuna.delete_study(study_name=study, storage=args.url)
        k = max(counts)
        study = f"bench-load-{uuid.uuid4().hex[:6]}"
        out = Path(tmp) / study
        wall = run_workers(args.space, args.url, study, out, k, args.trials, args.sampler)
        print(f"load: {k} workers, {args.trials} trials in {wall:.1f} s = {args.trials / wall:.1f} trials/s", flush=True)
        check = check_study(args.space, args.url, study, out, args.trials)
        check["sampler_alone_duplicate_configurations"] = sampler_duplicates(args.space, args.trials, args.sampler)
        check.update({"workers": k, "wall_s": round(wall, 1), "trials_per_s": round(args.trials / wall, 1)})
        results["load"] = check
        for key, value in check.items():
            print(f"  {key}: {value}")
        optuna.delete_study(study_name=study, storage=args.url)
    ok = (check["completed"] == check["requested"] == check["distinct_trial_numbers"]
          and check["front_identical_to_single_process"] and check["running_left"] == 0)
    results["ok"] = ok
    print(json.dumps(results))
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
