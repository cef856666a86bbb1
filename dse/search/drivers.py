"""Search drivers behind one small interface: exhaustive, nested (Optuna over hardware, every
software configuration per trial) and pure Optuna (one configuration per trial).

A driver gets a :class:`SearchContext` and streams scored configurations to ``shards/`` in
the results folder as Parquet, one file per batch or chunk, written atomically; it returns a
:class:`DriverReport`. Optuna trials are asked in batches, scored together (joblib workers for
the nested mode, one vectorized call for the pure mode) and told back; an infeasible trial is
told with a finite value and the constraint ``memory_excess_gib`` saying how far it misses.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import pandas as pd

from .evaluation import best_row, objective_values, score_configs, score_point, trial_plan
from .space import GPU_KNOB, SearchSpace

#: The constraint every trial reports (<= 0 means feasible).
CONSTRAINT = "memory_excess_gib"

#: Set by the search's SIGTERM handler (:func:`dse.search.runner.resume_hint_on_interrupt`). The
#: handler also raises KeyboardInterrupt, but a signal that lands while a library is cleaning up
#: can see that exception swallowed: the drivers' loops check this before every batch, so the
#: search still stops (as Ctrl-C does) within one batch.
STOP_REQUESTED = threading.Event()


def _stop_if_requested() -> None:
    if STOP_REQUESTED.is_set():
        raise KeyboardInterrupt("terminated by signal")


@dataclass
class SearchContext:
    """What a driver needs: the space, where to write, the budget and the parallelism."""

    space: SearchSpace
    out_dir: Path
    study_name: str
    storage: Any  # an optuna storage object (None for the exhaustive mode)
    process_trials: int | None  # trials this process completes (None: no per-process limit)
    study_trials: int | None  # completed trials the study should hold (None: no study limit)
    timeout: float | None
    workers: int
    backend: str
    seed: int
    sampler: str
    batch_size: int
    shared: bool = False  # the storage was named (--storage): other processes may share it
    heartbeat: float = 10.0  # seconds between worker heartbeats and stale-trial checks
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
    trials_this_process: int = 0
    requeued: int = 0
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


def open_study(ctx: SearchContext, mode: str):
    """Create or load the study and check it belongs to this space and mode.

    The sampler's seed is offset by the trials already stored, so a resumed random search does
    not repeat its first proposals; on a shared storage (``--storage``) each process also mixes
    in its host and process id, so that concurrent workers do not propose the same points.
    """
    import optuna

    from .evaluation import space_key
    from .workers import another_worker_live, machine_key

    directions = [d for _, d in ctx.space.objectives]
    try:
        study_id = ctx.storage.get_study_id_from_name(ctx.study_name)
        already = ctx.storage.get_n_trials(study_id)
    except KeyError:
        already = 0
    study = optuna.create_study(
        study_name=ctx.study_name,
        storage=ctx.storage,
        directions=directions,
        sampler=make_sampler(ctx.sampler, ctx.seed + already),
        load_if_exists=True,
    )
    if ctx.shared or another_worker_live(study):
        salted = f"{ctx.seed + already}|{machine_key()}|{os.getpid()}"
        study.sampler = make_sampler(ctx.sampler, int.from_bytes(hashlib.sha256(salted.encode()).digest()[:4], "little"))
    stored = [d.name.lower() for d in study.directions]
    if stored != directions:
        raise ValueError(
            f"study {ctx.study_name!r} exists with directions {stored}, but the space asks for "
            f"{directions}; use another --out (a study's results and shards live there), and with a shared "
            "--storage another --study-name too"
        )
    origin = {"space_sha256": space_key(ctx.space), "mode": mode}
    found = study.user_attrs.get("dse:origin")
    if found is None:
        study.set_user_attr("dse:origin", origin)
    elif found != origin:
        raise ValueError(
            f"study {ctx.study_name!r} was made by another search (space {found.get('space_sha256', '?')[:12]}, "
            f"mode {found.get('mode')}), not this one (space {origin['space_sha256'][:12]}, mode {mode}); "
            "every worker of a study must run the same space file and --mode; use another --out (a study's "
            "results and shards live there), and with a shared --storage another --study-name too"
        )
    return study


def start_study(ctx: SearchContext, mode: str):
    """Open (or resume) the study: (study, report with what was kept)."""
    study = open_study(ctx, mode)
    report = DriverReport(mode=mode, space_size=discrete_size(ctx.space), sampler=ctx.sampler)
    done = study_complete(study)
    if done:
        report.notes.append(f"{done} completed trials were already in the study")
    other = _record_model(study)
    if other:
        report.notes.append(
            f"{other} of the study's {done} earlier trials were scored by another version of dse (its cost "
            "model, calibration or presets differ from this one's, or it did not record itself): they keep "
            "that version's values; write to a new --out folder for a search scored by one version")
    return study, report


def _record_model(study) -> int:
    """Record that this dse (:func:`model_fingerprint`) scores the study's trials from the next
    trial number on, and count the completed trials an earlier run of another dse scored.

    The study attribute :data:`MODEL_ATTR` holds ``[[fingerprint, first trial number], ...]``, one
    entry each time the scoring dse changed; a trial belongs to the last entry that starts at or
    before its number."""
    import bisect

    from optuna.trial import TrialState

    runs = study.user_attrs.get(MODEL_ATTR) or []
    if not runs and study.get_trials(deepcopy=False):  # trials of a dse that recorded no version
        runs = [[UNRECORDED, 0]]
    mine = model_fingerprint()
    other = 0
    if runs and any(fp != mine for fp, _ in runs):
        starts = [start for _, start in runs]
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            at = bisect.bisect_right(starts, t.number) - 1
            other += at >= 0 and runs[at][0] != mine
    if not runs or runs[-1][0] != mine:
        start = len(study.get_trials(deepcopy=False)) if runs else 0
        study.set_user_attr(MODEL_ATTR, [*runs, [mine, start]])  # (the first run of a study: from 0)
    return int(other)


class TrialLoop:
    """The ask-score-tell loop's bookkeeping, shared by the nested and pure Optuna drivers.

    It stops when this process has completed ``ctx.process_trials`` trials or the study holds
    ``ctx.study_trials`` completed ones (whichever is set and comes first), or at the timeout.
    It registers this process as a worker with a heartbeat (:mod:`dse.search.workers`), marks
    the trials it asks as held, and every ``heartbeat`` seconds reaps trials that dead workers
    left RUNNING (failed, and their parameters queued again) and queues again the failed trials
    of a reaper that died before it queued them.
    """

    def __init__(self, ctx: SearchContext, study, report: DriverReport):
        from .workers import Reaper, Worker

        self.ctx, self.study, self.report = ctx, study, report
        self.worker = Worker(study, interval=ctx.heartbeat)
        self.reaper = Reaper(study, grace=3 * ctx.heartbeat, own=self.worker.key)
        self.own_complete = 0
        self.start = time.monotonic()
        self.last_reap = 0.0

    def __enter__(self) -> TrialLoop:
        self.worker.__enter__()
        self._reap()
        return self

    def __exit__(self, *exc) -> bool:
        self.worker.__exit__(*exc)
        return False

    def _reap(self) -> None:
        self.last_reap = time.monotonic()
        requeued = self.reaper.repair() + self.reaper.reap()
        if requeued:
            self.report.requeued += len(requeued)

    def next_batch(self) -> int:
        """How many trials to ask now (0: stop)."""
        _stop_if_requested()
        if _timed_out(self.ctx, self.start):
            return 0
        if time.monotonic() - self.last_reap >= self.ctx.heartbeat:
            self._reap()
        left = []
        if self.ctx.process_trials is not None:
            left.append(self.ctx.process_trials - self.own_complete)
        if self.ctx.study_trials is not None:
            left.append(self.ctx.study_trials - study_complete(self.study))
        return max(0, min([self.ctx.batch_size, *left]))

    def ask(self, n: int) -> list:
        self.worker.start_asking()
        trials = [self.study.ask() for _ in range(n)]
        self.worker.hold([t.number for t in trials])
        return trials

    def told(self, trials: list) -> None:
        self.worker.release([t.number for t in trials])
        self.own_complete += len(trials)
        self.report.trials_this_process += len(trials)


def study_complete(study) -> int:
    """Completed trials in the study (one count query, not a fetch of every trial)."""
    from optuna.trial import TrialState

    return study._storage.get_n_trials(study._study_id, state=TrialState.COMPLETE)


def suggest_knobs(trial, space: SearchSpace) -> dict[str, float]:
    """Hardware knob values for a trial: categorical for listed values (the GPU by what results
    call it, its preset name or given name, returned as its code), float ranges otherwise."""
    knobs = {}
    for name, knob in space.knobs.items():
        if name == GPU_KNOB:  # by name, so a stored study reads the same if the preset table grows
            choices = {c.label: code for code, c in space.gpu_choices().items()}
            knobs[name] = float(choices[trial.suggest_categorical(f"hw.{GPU_KNOB}", list(choices))])
        elif knob.values is not None:
            knobs[name] = float(trial.suggest_categorical(f"hw.{name}", [float(v) for v in knob.values]))
        else:
            step = None if knob.log else knob.step
            knobs[name] = float(trial.suggest_float(f"hw.{name}", knob.low, knob.high, log=knob.log, step=step))
    return knobs


def _parallel(ctx: SearchContext):
    from joblib import Parallel

    if ctx.backend == "dask":  # the Dask client run_search opened; every worker thread of its cluster
        return Parallel(n_jobs=-1)  # run_search set joblib's backend to the Dask client
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
        study, report = start_study(ctx, self.mode)
        counts = space.gpu_counts()
        seen = _completed_points(study, space)  # hardware point -> what its trial was told
        with _parallel(ctx) as parallel, TrialLoop(ctx, study, report) as loop:
            while batch := loop.next_batch():
                trials = loop.ask(batch)
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
                loop.told(trials)
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
        excess = float((t.constraints or {}).get(CONSTRAINT, 0.0))
        attrs = {k: v for k, v in t.user_attrs.items() if k == "plan"}
        seen[trial_point(t.params, space)] = (list(t.values), excess, attrs)
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
        space = ctx.space
        study, report = start_study(ctx, self.mode)
        counts = space.gpu_counts()
        with TrialLoop(ctx, study, report) as loop:
            while batch := loop.next_batch():
                trials = loop.ask(batch)
                rows = []
                for trial in trials:
                    gpus = int(trial.suggest_categorical("num_gpus", counts))
                    knobs = suggest_knobs(trial, space)
                    position = trial.suggest_float("plan", 0.0, 1.0, step=None)
                    rows.append((trial.number, gpus, knobs, position))
                frame = score_plan_positions(space, rows)
                write_shard(ctx, frame, f"trials-{trials[0].number:06d}-{trials[-1].number:06d}")
                by_trial = dict(tuple(frame.groupby("trial", sort=False))) if "num_gpus" in frame else {}
                for trial in trials:
                    one = by_trial.get(trial.number, pd.DataFrame())
                    values, feasible, _ = _tell(study, trial, space, one)
                    report.scored += len(one)
                    ctx.on_progress({"trials": 1, "configs": len(one), "values": values if feasible else None})
                loop.told(trials)
        _count_trials(study, report)
        return report


def plan_index(position: float, n: int) -> int:
    """The plan a pure-Optuna trial's ``plan`` parameter (a float in [0, 1)) points at, among
    ``n`` valid plans (-1 when there are none)."""
    return min(int(position * n), n - 1) if n else -1


def score_plan_positions(space: SearchSpace, rows: list[tuple[int, int, dict[str, float], float]]) -> pd.DataFrame:
    """Score one software configuration per trial, all trials in one vectorized call.

    ``rows`` holds (trial number, GPU count, hardware knobs, plan position); the result has one
    row per trial whose GPU count has a valid plan.
    """
    from .evaluation import _grid

    picked = []
    for number, gpus, knobs, position in rows:
        grid = _grid(space, gpus, knobs.get(GPU_KNOB, 0))
        picked.append((number, gpus, knobs, grid, plan_index(position, len(grid["num_gpus"]))))
    return score_configs(space, picked)


def trial_point(params: dict[str, Any], space: SearchSpace) -> tuple[int, tuple]:
    """A trial's hardware point (GPU count, sorted knob values) from its parameters."""
    from ..errors import single

    codes = {c.label: code for code, c in space.gpu_choices().items()}

    def value(name: str) -> float:
        given = params[f"hw.{name}"]
        if name != GPU_KNOB:
            return float(given)
        if given not in codes:
            raise single("hw.gpu", "a stored trial names a GPU that is not a candidate of this space's "
                         f"hardware.gpu ({', '.join(codes)})", given, space.source_path)
        return float(codes[given])

    knobs = tuple(sorted((name, value(name)) for name in space.knobs if f"hw.{name}" in params))
    return int(params["num_gpus"]), knobs


def score_trials(space: SearchSpace, mode: str, trials: list) -> pd.DataFrame:
    """Re-score finished trials from their parameters alone, as the worker that ran them did.

    The study is the record of a search; the shards are a cache of its scores. A shared study's
    trials may have been scored on other hosts, whose shards this host does not see: this
    rebuilds their rows. Nested trials give every plan of their hardware point (a point told
    to several trials is scored once, under its first trial); pure-Optuna trials give the plan
    their ``plan`` parameter points at.
    """
    trials = [t for t in trials if "num_gpus" in t.params]
    if mode == "optuna":
        rows = []
        for t in trials:
            gpus, knobs = trial_point(t.params, space)
            rows.append((t.number, gpus, dict(knobs), float(t.params.get("plan", 0.0))))
        return score_plan_positions(space, rows) if rows else pd.DataFrame()
    first: dict[tuple, int] = {}
    for t in sorted(trials, key=lambda t: t.number):
        first.setdefault(trial_point(t.params, space), t.number)
    frames = [score_point(space, gpus, dict(knobs), number) for (gpus, knobs), number in first.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


# --------------------------------------------------------------------------- exhaustive
class ExhaustiveDriver:
    """Every valid configuration of a discrete space, in chunks: each joblib task scores one GPU
    count at a block of hardware points, writes its shard itself and returns a few numbers.

    Resuming skips the chunks whose shard exists. A chunk's shard name carries the digest of
    the space it was scored for and of the dse that scored it (:func:`chunk_key`), so only chunks
    of this very space and cost model are kept: after the space file or dse changed, the earlier
    chunks are removed and the space is scored afresh (a results folder holds one search)."""

    mode = "exhaustive"

    def run(self, ctx: SearchContext) -> DriverReport:
        from joblib import delayed

        from .enumerate import space_size

        space = ctx.space
        report = DriverReport(mode=self.mode, space_size=int(space_size(space)["total"]))
        tasks = exhaustive_chunks(space)
        own = exhaustive_prefix(space)
        stale = [p for p in ctx.shard_dir.glob("exhaustive-*.parquet") if not p.name.startswith(own)] \
            if ctx.shard_dir.exists() else []
        if stale:
            report.notes.append(f"removed {len(stale)} chunks that earlier runs scored for "
                                f"{_what_changed(ctx.shard_dir, space, own)}")
        for path in stale:
            path.unlink(missing_ok=True)
        for path in ctx.shard_dir.glob("exhaustive-*.json") if ctx.shard_dir.exists() else []:
            if path.name != f"{own[:-1]}.json":
                path.unlink(missing_ok=True)
        todo = [t for t in tasks if not (ctx.shard_dir / f"{t[0]}.parquet").exists()]
        if len(todo) < len(tasks):
            report.notes.append(f"{len(tasks) - len(todo)} of {len(tasks)} chunks kept from earlier runs")
        ctx.shard_dir.mkdir(parents=True, exist_ok=True)
        _write_chunk_versions(ctx.shard_dir, space, own)
        start = time.monotonic()
        with _parallel(ctx) as parallel:
            # a group of chunks per call; with a timeout one chunk a worker, and no group started
            # that the groups so far say would end past it (a chunk can take tens of seconds)
            step = max(ctx.workers, 1) * (1 if ctx.timeout is not None else 2)
            groups = 0
            for i in range(0, len(todo), step):
                _stop_if_requested()
                elapsed = time.monotonic() - start
                if _timed_out(ctx, start) or (ctx.timeout is not None and groups
                                              and elapsed + elapsed / groups > ctx.timeout):
                    report.notes.append("stopped by --timeout; re-run the command to finish")
                    break
                groups += 1
                results = parallel(
                    delayed(score_chunk)(space, str(ctx.shard_dir), *task) for task in todo[i : i + step]
                )
                for scored, best in results:
                    report.scored += scored
                    ctx.on_progress({"trials": 0, "chunks": 1, "configs": scored, "values": best})
        fresh = report.scored
        report.scored = _count_rows(ctx.shard_dir, own)
        if fresh < report.scored:
            report.notes.append(f"this run scored {fresh:,} configurations; the other {report.scored - fresh:,} "
                                "were kept from earlier runs")
        return report


#: the study attribute that records which dse (:func:`model_fingerprint`) scored its trials, from
#: which trial number on (:func:`_record_model`)
MODEL_ATTR = "dse_models"
#: the version of trials scored before dse recorded its versions
UNRECORDED = "unrecorded"


@functools.lru_cache(maxsize=1)
def model_fingerprint() -> str:
    """A digest of the code and data that score a configuration: every module and data file of
    the installed ``dse`` package (the cost model, its calibration and presets, and the code
    that turns a space into columns). Chunks scored by another version of dse differ from what
    this one scores, so a resume must not keep them."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted([*root.rglob("*.py"), *(root / "data").glob("*")]):
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def space_digest(space: SearchSpace) -> str:
    """A digest (16 hex digits) of what of ``space`` a scored row depends on: the validated space
    less its name, description, objectives and Optuna settings (``search.chunk_configs`` stays,
    it sets the chunks' bounds), and the fixed scenario as resolved (a MAD-Max file it names may
    change without the space file)."""
    spec = space.spec.model_dump(mode="json", exclude={"name", "description", "objectives", "search"})
    spec["chunk_configs"] = space.spec.search.chunk_configs
    text = json.dumps({"space": spec, "scenario": json.loads(space.base.model_dump_json())}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def chunk_key(space: SearchSpace) -> str:
    """A digest (12 hex digits) of what the exhaustive chunks of ``space`` hold: the space
    (:func:`space_digest`) and the version of dse that scores them (:func:`model_fingerprint`)."""
    text = json.dumps({"space": space_digest(space), "model": model_fingerprint()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _write_chunk_versions(shard_dir: Path, space: SearchSpace, own: str) -> None:
    """Beside the chunks, ``exhaustive-<key>.json``: the space digest and dse fingerprint they
    were scored for, so that a later run can say which of the two changed."""
    path = shard_dir / f"{own[:-1]}.json"
    if not path.exists():
        path.write_text(json.dumps({"space": space_digest(space), "model": model_fingerprint()}))


def _what_changed(shard_dir: Path, space: SearchSpace, own: str) -> str:
    """What the stale chunks of ``shard_dir`` were scored for, against this run: 'another version
    of the space', '... of dse', both, or (chunks from before dse recorded it) either."""
    space_changed = model_changed = known = False
    mine = {"space": space_digest(space), "model": model_fingerprint()}
    for path in shard_dir.glob("exhaustive-*.json"):
        if path.name == f"{own[:-1]}.json":
            continue
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        known = True
        space_changed |= old.get("space") != mine["space"]
        model_changed |= old.get("model") != mine["model"]
    if not known:
        return ("another version of the space or with another version of dse (the space file or dse "
                "changed since)")
    if space_changed and model_changed:
        return "another version of the space and with another version of dse (both changed since)"
    if space_changed:
        return "another version of the space (the space file or a file it names changed since)"
    return "another version of dse (its cost model, calibration or presets changed since)"


def exhaustive_prefix(space: SearchSpace) -> str:
    """The start of the shard names of the exhaustive chunks of ``space``."""
    return f"exhaustive-{chunk_key(space)}-"


def exhaustive_chunks(space: SearchSpace) -> list[tuple[str, int, int, int]]:
    """The exhaustive sweep's tasks: (shard name, GPU count, first and last hardware point
    index), about ``search.chunk_configs`` configurations each. A task is a description that
    a worker expands itself, so nothing but a few numbers (and the space) is shipped. The
    shard names start with :func:`exhaustive_prefix`."""
    from .enumerate import space_size

    size = space_size(space)
    n_hw = size.get("hardware_points") or 1
    prefix = exhaustive_prefix(space)
    tasks = []
    for gpus in space.gpu_counts():
        per_point = max(int(size["software"].get(gpus, 0)), 1)
        block = max(1, space.spec.search.chunk_configs // per_point)
        for first in range(0, n_hw, block):
            last = min(first + block, n_hw)
            tasks.append((f"{prefix}g{gpus:06d}-h{first:07d}-{last:07d}", gpus, first, last))
    return tasks


def score_chunk(space: SearchSpace, shard_dir: str, name: str, gpus: int, first: int, last: int):
    """Score one GPU count at hardware points ``first:last`` of the space's hardware grid;
    write the shard (atomically: a worker dying mid-chunk leaves no partial file, and the task
    can run again); return (configurations scored, the best objective values or None)."""
    from .enumerate import hardware_grid
    from .results import write_table

    hw = hardware_grid(space) if space.knobs else {}
    knobs = [{k: float(v[i]) for k, v in hw.items()} for i in range(first, last)]
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
