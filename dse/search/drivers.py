"""Search drivers behind one small interface: exhaustive, nested (Optuna over hardware, every
software configuration per trial) and pure Optuna (one configuration per trial).

A driver gets a :class:`SearchContext` and streams scored configurations to ``shards/`` in
the results folder as Parquet, one file per batch or chunk, written atomically; it returns a
:class:`DriverReport`. Optuna trials are asked in batches, scored together (joblib workers for
the nested mode, one vectorized call for the pure mode) and told back; an infeasible trial is
told with a finite value and the constraint ``memory_excess_gib`` saying how far it misses.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from .evaluation import apply_constraints, best_row, objective_values, score_configs, score_point, trial_plan
from .space import SearchSpace

#: The constraint every trial reports (<= 0 means feasible).
CONSTRAINT = "memory_excess_gib"


@dataclass
class SearchContext:
    """What a driver needs: the space, where to write, the budget and the parallelism."""

    space: SearchSpace
    out_dir: Path
    study_name: str
    storage: Any  # an optuna storage object (None for the exhaustive mode)
    n_trials: int
    timeout: float | None
    workers: int
    backend: str
    seed: int
    sampler: str
    batch_size: int
    on_progress: Callable[[dict[str, Any]], None] = lambda info: None

    @property
    def shard_dir(self) -> Path:
        return self.out_dir / "shards"


@dataclass
class DriverReport:
    """What a driver did: mode, sizes, counts (for the manifest and the closing summary)."""

    mode: str
    space_size: int | None
    scored: int = 0
    trials_complete: int = 0
    trials_failed: int = 0
    trials_total: int = 0
    sampler: str | None = None
    duplicates: int = 0
    distinct_points: int | None = None
    notes: list[str] = field(default_factory=list)


class Driver(Protocol):
    """A search strategy. ``run`` streams shards and returns its report."""

    mode: str

    def run(self, ctx: SearchContext) -> DriverReport: ...


# --------------------------------------------------------------------------- shared helpers
def write_shard(ctx: SearchContext, df: pd.DataFrame, name: str) -> None:
    """Write one batch of scored configurations atomically to ``shards/<name>.parquet``."""
    from .results import write_table

    ctx.shard_dir.mkdir(parents=True, exist_ok=True)
    write_table(df, ctx.shard_dir / f"{name}.parquet")


def make_sampler(name: str, seed: int):
    """The Optuna sampler for ``name`` (tpe | nsga2 | random), seeded."""
    import optuna

    if name == "tpe":
        return optuna.samplers.TPESampler(seed=seed, n_startup_trials=10)
    if name == "nsga2":
        return optuna.samplers.NSGAIISampler(seed=seed, population_size=20)
    if name == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    raise ValueError(f"unknown sampler {name!r}; allowed: tpe, nsga2, random")


def open_study(ctx: SearchContext):
    """Create or load the study; mark trials a dead run left RUNNING as failed and queue their
    parameters again. The sampler's seed is offset by the trials already stored, so a resumed
    random search does not repeat its first proposals."""
    import optuna
    from optuna.trial import TrialState

    directions = [d for _, d in ctx.space.objectives]
    probe = optuna.load_study(study_name=ctx.study_name, storage=ctx.storage) if _exists(ctx) else None
    already = len(probe.trials) if probe is not None else 0
    study = optuna.create_study(
        study_name=ctx.study_name,
        storage=ctx.storage,
        directions=directions,
        sampler=make_sampler(ctx.sampler, ctx.seed + already),
        load_if_exists=True,
    )
    stored = [d.name.lower() for d in study.directions]
    if stored != directions:
        raise ValueError(
            f"study {ctx.study_name!r} exists with directions {stored}, but the space asks for "
            f"{directions}; use another --study-name or --out"
        )
    requeued = 0
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.tell(trial.number, state=TrialState.FAIL)
        study.enqueue_trial(trial.params, skip_if_exists=True)
        requeued += 1
    return study, requeued


def start_study(ctx: SearchContext, mode: str):
    """Open (or resume) the study: (study, report with what was kept, completed trials)."""
    study, requeued = open_study(ctx)
    report = DriverReport(mode=mode, space_size=discrete_size(ctx.space), sampler=ctx.sampler)
    if requeued:
        report.notes.append(f"re-queued {requeued} trials a previous run left unfinished")
    done = complete_count(study)
    if done:
        report.notes.append(f"{done} completed trials kept from earlier runs")
    return study, report, done


def _exists(ctx: SearchContext) -> bool:
    import optuna

    try:
        names = [s.study_name for s in optuna.get_all_study_summaries(ctx.storage)]
    except Exception:  # noqa: BLE001 - an empty storage has no summaries
        return False
    return ctx.study_name in names


def complete_count(study) -> int:
    from optuna.trial import TrialState

    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def suggest_knobs(trial, space: SearchSpace) -> dict[str, float]:
    """Hardware knob values for a trial: categorical for listed values, float ranges otherwise."""
    knobs = {}
    for name, knob in space.knobs.items():
        if knob.values is not None:
            knobs[name] = float(trial.suggest_categorical(f"hw.{name}", [float(v) for v in knob.values]))
        else:
            step = None if knob.log else knob.step
            knobs[name] = float(trial.suggest_float(f"hw.{name}", knob.low, knob.high, log=knob.log, step=step))
    return knobs


def _parallel(ctx: SearchContext):
    from joblib import Parallel

    return Parallel(n_jobs=ctx.workers, backend=ctx.backend)


def _tell(study, trial, space: SearchSpace, df: pd.DataFrame) -> tuple[list[float], bool]:
    """Tell the trial its best configuration's objectives and the memory constraint."""
    row, excess = best_row(df, space)
    if row is None:  # nothing to score at this point (no valid plan)
        values = [0.0 if d == "maximize" else 1e30 for _, d in space.objectives]
        trial.set_constraint(CONSTRAINT, 1e6)
        study.tell(trial, values)
        return values, False, (values, 1e6, {})
    values = objective_values(row, space)
    trial.set_constraint(CONSTRAINT, excess)
    # the trial's best plan, as one attribute (each attribute is one storage write)
    attrs = {"plan": trial_plan(row, space)}
    trial.set_user_attr("plan", attrs["plan"])
    study.tell(trial, values)
    return values, excess <= 0, (values, excess, attrs)


# --------------------------------------------------------------------------- nested
class NestedDriver:
    """Optuna proposes the hardware point and GPU count; each trial's value is its best
    software configuration, found by scoring every valid one at once (in a joblib worker)."""

    mode = "nested"

    def run(self, ctx: SearchContext) -> DriverReport:
        from joblib import delayed

        space = ctx.space
        study, report, done = start_study(ctx, self.mode)
        counts = space.gpu_counts()
        start = time.monotonic()
        seen = _completed_points(study, space)  # hardware point -> what its trial was told
        with _parallel(ctx) as parallel:
            while done < ctx.n_trials and not _timed_out(ctx, start):
                batch = min(ctx.batch_size, ctx.n_trials - done)
                trials = [study.ask() for _ in range(batch)]
                keys = []
                for trial in trials:
                    gpus = int(trial.suggest_categorical("num_gpus", counts))
                    keys.append((gpus, tuple(sorted(suggest_knobs(trial, space).items()))))
                # score each new hardware point once, however often the sampler proposes it
                new = {}
                for trial, key in zip(trials, keys):
                    if key not in seen and key not in new:
                        new[key] = trial.number
                frames = parallel(
                    delayed(score_point)(space, key[0], dict(key[1]), number) for key, number in new.items()
                )
                if frames:
                    write_shard(ctx, pd.concat(frames, ignore_index=True),
                                f"trials-{trials[0].number:06d}-{trials[-1].number:06d}")
                scored = dict(zip(new, frames))
                for trial, key in zip(trials, keys):
                    if key in scored and new[key] == trial.number:
                        frame = scored[key]
                        values, feasible, told = _tell(study, trial, space, frame)
                        seen[key] = told
                        report.scored += len(frame)
                        configs = len(frame)
                    else:
                        values, feasible = _tell_again(study, trial, seen[key])
                        report.duplicates += 1
                        configs = 0
                    ctx.on_progress({"trials": 1, "configs": configs, "values": values if feasible else None})
                done = complete_count(study)
        if report.duplicates:
            report.notes.append(
                f"{report.duplicates} trials proposed a hardware point already scored; they were told "
                "its result without scoring it again"
            )
        report.distinct_points = len(seen)
        _count_trials(study, report)
        return report


def _completed_points(study, space: SearchSpace) -> dict:
    """Hardware points of the study's completed trials and what they were told (for resuming
    without re-scoring)."""
    from optuna.trial import TrialState

    seen = {}
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if "num_gpus" not in t.params:
            continue
        knobs = tuple(sorted((name, float(t.params[f"hw.{name}"])) for name in space.knobs if f"hw.{name}" in t.params))
        excess = float((t.constraints or {}).get(CONSTRAINT, 0.0))
        seen[(int(t.params["num_gpus"]), knobs)] = (list(t.values), excess, dict(t.user_attrs))
    return seen


def _tell_again(study, trial, told) -> tuple[list[float], bool]:
    """Tell a trial the stored result of a hardware point scored before."""
    values, excess, attrs = told
    trial.set_constraint(CONSTRAINT, excess)
    for key, value in attrs.items():
        trial.set_user_attr(key, value)
    study.tell(trial, values)
    return values, excess <= 0


# --------------------------------------------------------------------------- pure Optuna
class OptunaDriver:
    """One configuration per trial: Optuna proposes the GPU count, the hardware knobs and a
    position in the list of valid software configurations of that GPU count (a float in
    [0, 1), so the parameter's distribution is the same in every trial and no proposal can
    have degrees that don't divide). A batch of trials is scored in one vectorized call."""

    mode = "optuna"

    def run(self, ctx: SearchContext) -> DriverReport:
        from .evaluation import _grid

        space = ctx.space
        study, report, done = start_study(ctx, self.mode)
        counts = space.gpu_counts()
        start = time.monotonic()
        while done < ctx.n_trials and not _timed_out(ctx, start):
            batch = min(ctx.batch_size, ctx.n_trials - done)
            trials = [study.ask() for _ in range(batch)]
            rows = []
            for trial in trials:
                gpus = int(trial.suggest_categorical("num_gpus", counts))
                knobs = suggest_knobs(trial, space)
                grid = _grid(space, gpus)
                n = len(grid["num_gpus"])
                position = trial.suggest_float("plan", 0.0, 1.0, step=None)
                index = min(int(position * n), n - 1) if n else -1
                rows.append((trial, gpus, knobs, grid, index))
            frame = score_configs(space, rows)
            write_shard(ctx, frame, f"trials-{trials[0].number:06d}-{trials[-1].number:06d}")
            by_trial = dict(tuple(frame.groupby("trial", sort=False))) if "num_gpus" in frame else {}
            for trial, *_ in rows:
                one = by_trial.get(trial.number, pd.DataFrame())
                values, feasible, _ = _tell(study, trial, space, one)
                report.scored += len(one)
                ctx.on_progress({"trials": 1, "configs": len(one), "values": values if feasible else None})
            done = complete_count(study)
        _count_trials(study, report)
        return report


# --------------------------------------------------------------------------- exhaustive
class ExhaustiveDriver:
    """Every valid configuration of a discrete space, in chunks: each joblib task scores one GPU
    count at a block of hardware points, writes its shard itself and returns a few numbers.
    Resuming skips the chunks whose shard exists."""

    mode = "exhaustive"

    def run(self, ctx: SearchContext) -> DriverReport:
        from joblib import delayed

        from .enumerate import hardware_grid, space_size

        space = ctx.space
        size = space_size(space)
        report = DriverReport(mode=self.mode, space_size=int(size["total"]))
        hw = hardware_grid(space) if space.knobs else {}
        n_hw = len(next(iter(hw.values()))) if hw else 1
        tasks = []
        for gpus in space.gpu_counts():
            per_point = max(int(size["software"].get(gpus, 0)), 1)
            block = max(1, 200_000 // per_point)
            for first in range(0, n_hw, block):
                last = min(first + block, n_hw)
                name = f"exhaustive-g{gpus:06d}-h{first:07d}-{last:07d}"
                knobs = [{k: float(v[i]) for k, v in hw.items()} for i in range(first, last)]
                tasks.append((name, gpus, knobs))
        todo = [t for t in tasks if not (ctx.shard_dir / f"{t[0]}.parquet").exists()]
        if len(todo) < len(tasks):
            report.notes.append(f"{len(tasks) - len(todo)} of {len(tasks)} chunks kept from earlier runs")
        ctx.shard_dir.mkdir(parents=True, exist_ok=True)
        start = time.monotonic()
        with _parallel(ctx) as parallel:
            step = max(ctx.workers, 1) * 2
            for i in range(0, len(todo), step):
                if _timed_out(ctx, start):
                    report.notes.append("stopped by --timeout; re-run the command to finish")
                    break
                results = parallel(
                    delayed(score_chunk)(space, str(ctx.shard_dir), name, gpus, knobs)
                    for name, gpus, knobs in todo[i : i + step]
                )
                for scored, best in results:
                    report.scored += scored
                    ctx.on_progress({"trials": 0, "chunks": 1, "configs": scored, "values": best})
        report.scored = _count_rows(ctx.shard_dir, "exhaustive-")
        return report


def score_chunk(space: SearchSpace, shard_dir: str, name: str, gpus: int, knobs: list[dict[str, float]]):
    """Score one GPU count at a block of hardware points; write the shard; return
    (configurations scored, the best objective values or None)."""
    from .results import write_table

    frames = [score_point(space, gpus, k) for k in knobs]
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    write_table(df, Path(shard_dir) / f"{name}.parquet")
    row, excess = best_row(df, space)
    best = objective_values(row, space) if row is not None and excess <= 0 else None
    return len(df), best


def _count_rows(shard_dir: Path, prefix: str) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in shard_dir.glob(f"{prefix}*.parquet"))


def discrete_size(space: SearchSpace) -> int | None:
    """Configurations in the space when every hardware knob is discrete, else None."""
    from .enumerate import space_size

    size = space_size(space)
    return None if size.get("hardware_points") is None else int(size["total"])


def _timed_out(ctx: SearchContext, start: float) -> bool:
    return ctx.timeout is not None and time.monotonic() - start >= ctx.timeout


def _count_trials(study, report: DriverReport) -> None:
    from optuna.trial import TrialState

    trials = study.get_trials(deepcopy=False)
    report.trials_total = len(trials)
    report.trials_complete = sum(t.state == TrialState.COMPLETE for t in trials)
    report.trials_failed = sum(t.state == TrialState.FAIL for t in trials)


DRIVERS: dict[str, type] = {"nested": NestedDriver, "optuna": OptunaDriver, "exhaustive": ExhaustiveDriver}


def choose_mode(space: SearchSpace, requested: str) -> tuple[str, str]:
    """The mode to run and why: ``auto`` enumerates a discrete space small enough to score
    whole, otherwise runs nested."""
    from .enumerate import space_size

    if requested != "auto":
        return requested, f"--mode {requested}"
    size = space_size(space)
    limit = space.spec.search.max_exhaustive
    if size.get("hardware_points") is None:
        return "nested", "a hardware knob is continuous"
    if size["total"] <= limit:
        return "exhaustive", f"the discrete space ({size['total']:,} configurations) is within max_exhaustive ({limit:,})"
    return "nested", f"the space ({size['total']:,} configurations) exceeds max_exhaustive ({limit:,})"


def shard_trials(path: Path) -> bool:
    return path.name.startswith("trials-")


def finite(values: list[float] | None) -> bool:
    return values is not None and all(math.isfinite(v) for v in values)
