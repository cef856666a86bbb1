#!/usr/bin/env python3
"""Soak test: `dse search` workers on one study while a random worker is SIGKILLed every few
seconds (and a new one started in its place), for a few minutes.

    python benchmarks/soak_workers.py [--url postgresql://postgres@127.0.0.1:5432/test]
        [--workers 4] [--minutes 3] [--kill-every 2:6] [--mode optuna|nested]

Every second it reads the study and checks that every trial ever seen COMPLETE is still
COMPLETE with the same values. At the end it kills the remaining workers, runs one last worker
(which reaps what the dead left RUNNING and finishes some queued trials), and checks:
completed trials lost = 0, trials left RUNNING = 0, each failed trial that had parameters
re-queued exactly once. ``--url`` may also be a journal file (``journal:/tmp/soak.journal``) to
soak the single-host storage. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import optuna  # noqa: E402
from optuna.trial import TrialState  # noqa: E402

from dse.search.storage import storage_for  # noqa: E402

DSE = Path(sys.executable).parent / "dse"


def start(space: Path, url: str, study: str, out: Path, mode: str, *budget: str) -> subprocess.Popen:
    return subprocess.Popen([str(DSE), "search", str(space), "--mode", mode, "--sampler", "random",
                             "--storage", url, "--study-name", study, "--out", str(out), "--heartbeat", "1",
                             "--no-plots", "--json", *budget],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def snapshot(storage, study: str) -> list:
    try:
        return optuna.load_study(study_name=study, storage=storage).get_trials(deepcopy=False)
    except KeyError:
        return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--space", type=Path, default=ROOT / "search_spaces" / "codesign_small.yaml")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--kill-every", default="2:6", help="seconds between kills, LO:HI (uniform)")
    parser.add_argument("--mode", default="optuna", choices=["optuna", "nested"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rng = random.Random(args.seed)
    lo, hi = (float(x) for x in args.kill_every.split(":"))
    study = f"soak-{uuid.uuid4().hex[:6]}"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "results"
        storage, _ = storage_for(args.url, out)
        workers = [start(args.space, args.url, study, out, args.mode, "--n-trials", "1000000")
                   for _ in range(args.workers)]
        seen: dict[int, tuple] = {}
        lost: set[int] = set()
        kills = 0
        end = time.monotonic() + 60 * args.minutes
        next_kill = time.monotonic() + rng.uniform(lo, hi)
        while time.monotonic() < end:
            time.sleep(1.0)
            trials = snapshot(storage, study)
            now = {t.number: t for t in trials}
            for number, values in seen.items():
                t = now.get(number)
                if t is None or t.state != TrialState.COMPLETE or tuple(t.values) != values:
                    lost.add(number)
            for t in trials:
                if t.state == TrialState.COMPLETE:
                    seen.setdefault(t.number, tuple(t.values))
            if time.monotonic() >= next_kill:
                i = rng.randrange(len(workers))
                workers[i].send_signal(signal.SIGKILL)
                workers[i].wait()
                kills += 1
                workers[i] = start(args.space, args.url, study, out, args.mode, "--n-trials", "1000000")
                next_kill = time.monotonic() + rng.uniform(lo, hi)
            print(f"\r{len(seen)} completed, {kills} kills, {len(lost)} lost", end="", flush=True)
        for w in workers:
            w.send_signal(signal.SIGKILL)
            w.wait()
        kills += len(workers)
        complete = sum(t.state == TrialState.COMPLETE for t in snapshot(storage, study))
        final = start(args.space, args.url, study, out, args.mode, "--total-trials", str(complete + 20))
        final.wait()
        trials = snapshot(storage, study)
        now = {t.number: t for t in trials}
        lost |= {n for n, v in seen.items() if now[n].state != TrialState.COMPLETE or tuple(now[n].values) != v}
        failed = [t for t in trials if t.state == TrialState.FAIL]
        retries = Counter(t.user_attrs["dse_retry_of"] for t in trials if "dse_retry_of" in t.user_attrs)
        with_params = {t.number for t in failed if t.params or t.system_attrs.get("fixed_params")}
        result = {
            "storage": args.url.split("://")[0] if "://" in args.url else "journal",
            "mode": args.mode, "workers": args.workers, "minutes": args.minutes, "kills": kills,
            "completed": sum(t.state == TrialState.COMPLETE for t in trials),
            "completed_lost": len(lost),
            "running_left": sum(t.state == TrialState.RUNNING for t in trials),
            "failed": len(failed),
            "requeued": sum(retries.values()),
            "requeued_twice": sum(c > 1 for c in retries.values()),
            "failed_with_params_not_requeued": len(with_params - set(retries)),
            "waiting_left": sum(t.state == TrialState.WAITING for t in trials),
            "final_worker_exit": final.returncode,
        }
        if "://" in args.url:
            optuna.delete_study(study_name=study, storage=storage)
    print()
    for key, value in result.items():
        print(f"  {key}: {value}")
    ok = (result["completed_lost"] == 0 and result["running_left"] == 0 and result["requeued_twice"] == 0
          and result["failed_with_params_not_requeued"] == 0 and result["final_worker_exit"] == 0)
    result["ok"] = ok
    print(json.dumps(result))
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
