"""Run a search end to end: open the storage, pick the mode, drive it with a progress bar, then
merge the shards, write the front, the figures and the manifest.

Everything a run produces lives in ``results/<study>/``: ``study.journal`` (the embedded Optuna
storage: an append-only journal file that survives a kill and that optuna-dashboard opens),
``shards/`` (scored configurations per batch), ``configs.parquet`` and ``configs.csv`` (every
scored configuration of the completed trials), ``pareto.csv``, the figures and
``manifest.json``. Re-running the same command resumes: completed trials and chunks are kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import single
from .drivers import (DRIVERS, STOP_REQUESTED, DriverReport, SearchContext, choose_mode, exhaustive_chunks,
                      exhaustive_prefix, model_fingerprint)
from .enumerate import check_not_empty, unused_candidates
from .results import CSV_MAX_ROWS
from .storage import redact_url, redacted_command, storage_for
from .space import SearchSpace, load_space


@dataclass
class SearchSummary:
    """What ``run_search`` did, for printing and tests."""

    out_dir: Path
    study_name: str
    mode: str
    mode_reason: str
    report: DriverReport
    counts: dict[str, int]
    wall_time_s: float
    files: list[Path]


def check_writable(out_dir: Path) -> None:
    """Fail before any work if the results folder cannot be written."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / f".write-test-{os.getpid()}"
        probe.write_text("ok")
        probe.unlink()
    except OSError as err:
        raise single("--out", f"cannot write the results folder: {err.strerror}", str(out_dir)) from None


def run_search(
    space: SearchSpace | str | Path,
    out_dir: str | Path | None = None,
    study_name: str | None = None,
    storage: str | None = None,
    n_trials: int | None = None,
    timeout: float | None = None,
    workers: int = 1,
    backend: str = "loky",
    seed: int | None = None,
    mode: str | None = None,
    sampler: str | None = None,
    progress: bool = True,
    plots: bool = True,
    total_trials: int | None = None,
    scheduler: str | None = None,
    heartbeat: float = 10.0,
) -> SearchSummary:
    """Run (or resume) the search a space file describes; return what it did.

    ``out_dir`` defaults to ``results/<study name>``; ``storage`` to the journal file there (a
    database URL lets processes on many hosts share the study).

    Budget: ``n_trials`` is the number of trials *this process* completes (K processes each
    given N leave K*N); ``total_trials`` is the number of completed trials the *study* should
    hold, counting earlier runs and other workers (re-running the same command finishes the
    study). With neither, the study target is the space's ``search.n_trials``.

    ``backend`` is the joblib backend of the scoring fan-out: ``loky`` (processes on this
    host), ``threading``, or ``dask`` with ``scheduler`` (``tcp://HOST:PORT``) for a Dask
    cluster. ``heartbeat`` (seconds) paces this worker's liveness record; a worker silent for
    three heartbeats is taken as dead and its running trials are queued again.
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if not isinstance(space, SearchSpace):
        space = load_space(space)
    check_not_empty(space)
    cfg = space.spec.search
    study_name = study_name or space.name
    out = Path(out_dir) if out_dir is not None else Path("results") / study_name
    check_writable(out)
    mode_name, reason = choose_mode(space, mode or cfg.mode)
    if mode_name == "exhaustive" and storage is not None:
        raise single("--storage", "exhaustive mode scores the whole space in this process and keeps no "
                     "study to share, so a storage would do nothing (every host would redo the sweep): "
                     f"drop --storage, or share the work as a study with --mode nested or optuna ({reason})",
                     redact_url(storage), space.source_path)
    if n_trials is None and total_trials is None:
        total_trials = cfg.n_trials
    rows = estimated_rows(space, mode_name, n_trials or total_trials or 0)
    check_disk(out, rows)
    check_memory(rows)
    sampler = sampler or cfg.sampler
    seed = cfg.seed if seed is None else seed
    started = time.time()
    storage_obj, storage_url = (None, None) if mode_name == "exhaustive" else storage_for(storage, out)
    bar_total = min(v for v in (n_trials, total_trials) if v is not None)
    bar = _Progress(enabled=progress, mode=mode_name, total=bar_total, objectives=space.objectives)
    with resume_hint_on_interrupt(out):
        with scoring_backend(backend, scheduler, workers) as n_workers:
            ctx = SearchContext(
                space=space, out_dir=out, study_name=study_name, storage=storage_obj,
                process_trials=n_trials, study_trials=total_trials, timeout=timeout, workers=n_workers,
                backend=backend, seed=seed, sampler=sampler, batch_size=cfg.batch_size,
                shared=storage is not None, heartbeat=heartbeat, on_progress=bar.update,
            )
            with bar:
                if mode_name == "exhaustive":
                    bar.set_total(len(exhaustive_chunks(space)))
                report = DRIVERS[mode_name]().run(ctx)
        report.notes.extend(unused_candidates(space))
        if mode_name == "exhaustive" and (n_trials is not None or total_trials != cfg.n_trials):
            report.notes.append("a trial budget (--n-trials, --total-trials) does not apply in exhaustive mode, "
                                "which scores every configuration; --mode nested or optuna spends one")
        if report.requeued:
            report.notes.append(f"re-queued {report.requeued} trials that dead or interrupted workers left running")
        with finalizing(out):  # processes sharing the folder finalize one at a time, the last seeing all
            counts, files = finalize_run(out, space, storage_obj, study_name, mode_name)
            if counts.get("scored", 0) > CSV_MAX_ROWS:
                report.notes.append(f"configs.csv not written: {counts['scored']:,} configurations are more than "
                                    f"{CSV_MAX_ROWS:,}; configs.parquet holds them (pandas.read_parquet)")
            wall = time.time() - started
            write_manifest(out, space, study_name, report, counts, mode_name, reason, seed, sampler, storage_url,
                           started, wall)
        files.append(out / "manifest.json")
        if plots and counts.get("scored", 0):
            from .plots import plot_results

            files += plot_results(out, space.objectives)
    return SearchSummary(out, study_name, mode_name, reason, report, counts, wall, files)


def interrupted(err: BaseException | None) -> bool:
    """Whether ``err`` is Ctrl-C (KeyboardInterrupt), or an error raised while one was being
    handled (Optuna's journal-file lock, interrupted mid-release, fails its cleanup with an
    OSError that would otherwise hide the interrupt)."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        if isinstance(err, KeyboardInterrupt):
            return True
        seen.add(id(err))
        err = err.__context__
    return False


@contextmanager
def resume_hint_on_interrupt(out: Path):
    """On Ctrl-C or SIGTERM, say on stderr that the search was interrupted and how to resume it,
    then raise KeyboardInterrupt (the CLI exits 130). Completed trials and chunks are stored, and
    the trials left running are re-queued when the search resumes."""
    previous = None
    STOP_REQUESTED.clear()
    if threading.current_thread() is threading.main_thread():
        # a batch scheduler's SIGTERM (Slurm, Kubernetes) ends the search as Ctrl-C does
        previous = signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    try:
        yield
    except BaseException as err:
        if not interrupted(err):
            raise
        print(f"search interrupted: completed work is kept (results folder {out}/); run the same command "
              "again to resume it", file=sys.stderr, flush=True)
        if isinstance(err, KeyboardInterrupt):
            raise
        raise KeyboardInterrupt from err
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _terminate_as_interrupt(signum: int, frame: Any) -> None:
    """SIGTERM handler: stop the search the way Ctrl-C does (stored work kept, resume hint); the
    drivers also stop at their next batch should the exception be swallowed where it lands."""
    STOP_REQUESTED.set()
    raise KeyboardInterrupt(f"terminated by signal {signum}")


BACKENDS = ("loky", "threading", "dask")


@contextmanager
def scoring_backend(backend: str, scheduler: str | None, workers: int):
    """Set up the joblib backend; yield how many tasks to keep in flight.

    For ``dask``, connect to the scheduler (the client becomes joblib's dask backend) and use
    every worker thread of the cluster; shards are written by the Dask workers themselves, so
    the results folder must be on a file system they share.
    """
    if backend not in BACKENDS:
        raise single("--backend", "not an allowed value; allowed: " + ", ".join(BACKENDS), backend)
    if backend != "dask":
        if scheduler is not None:
            raise single("--scheduler", "only used with --backend dask", scheduler)
        yield workers
        return
    if not scheduler:
        raise single("--scheduler", "--backend dask needs the scheduler's address, e.g. tcp://HOST:8786", None)
    try:
        from distributed import Client
    except ModuleNotFoundError:
        raise single("--backend", "dask needs the distributed package: pip install 'madmax-dse[dask]'",
                     backend) from None
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError) as err:
        raise single("--scheduler", f"cannot reach the Dask scheduler: {err}", scheduler) from None
    from joblib import parallel_config

    try:
        threads = sum(client.nthreads().values()) or 1
        with parallel_config(backend="dask"):
            yield threads
    finally:
        client.close()


#: Bytes a scored configuration takes on disk: its shard row, its row in configs.parquet and
#: its line in configs.csv (measured on search_spaces/codesign_small.yaml: about 0.7 KB; the
#: estimate rounds up).
BYTES_PER_ROW = 1024
#: Head room kept free besides the estimate (the journal, figures, the file system's own).
DISK_MARGIN = 64 * 2**20


def estimated_rows(space: SearchSpace, mode: str, trials: int) -> int:
    """How many scored configurations a run writes: the whole space for exhaustive; trials
    times the plans per hardware point for nested; one per trial for pure Optuna."""
    from .enumerate import space_size

    size = space_size(space)
    if mode == "exhaustive":
        return int(size["total"])
    if mode == "optuna":
        return int(trials)
    per_point = size["software"]
    mean = sum(per_point.values()) / max(len(per_point), 1)
    return int(trials * mean)


def check_disk(out_dir: Path, rows: int) -> None:
    """Fail before any work if the results folder's disk cannot hold what the run will write."""
    import shutil

    need = rows * BYTES_PER_ROW + DISK_MARGIN
    free = shutil.disk_usage(out_dir).free
    if free < need:
        raise single(
            "--out",
            f"not enough free disk: the run writes about {rows:,} configurations x {BYTES_PER_ROW} B "
            f"+ {DISK_MARGIN // 2**20} MiB head room = {need / 2**30:.2f} GiB, but only "
            f"{free / 2**30:.2f} GiB is free; free some space, pick another --out, or lower --n-trials",
            str(out_dir),
        )


#: Bytes of memory a scored configuration takes while the results are merged (a row of every
#: metric in pandas, and its copy on the way to Parquet: 2.4 GB peak for 857k configurations of
#: a codesign space, rounded up).
MEMORY_PER_ROW = 3 * 1024


def check_memory(rows: int) -> None:
    """Fail before any work if merging what the run scores would not fit in this machine's
    memory (all of it is one table when the results are written)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not POSIX: no check
        return
    need = rows * MEMORY_PER_ROW
    if need > 0.8 * total:
        raise single(
            "--mode",
            f"too large to merge: the run scores about {rows:,} configurations, which take about "
            f"{need / 2**30:.1f} GiB of memory as one results table (x {MEMORY_PER_ROW} B), more than 80% of "
            f"this machine's {total / 2**30:.1f} GiB; lower the trial budget (--n-trials) or narrow the space; "
            "an exhaustive space that large wants --mode nested or optuna",
            f"{rows:,} configurations",
        )


@contextmanager
def finalizing(out: Path):
    """Hold the results folder's finalize lock (an flock on ``.finalize.lock``): two processes of
    one study that shared ``--out`` had the one that read the shards first write last, leaving a
    folder without the other's last trials."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        yield
        return
    out.mkdir(parents=True, exist_ok=True)
    with open(out / ".finalize.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def finalize_run(out: Path, space: SearchSpace, storage, study_name: str, mode: str = "nested"):
    """Merge the shards of completed trials (or the exhaustive chunks of this space) into
    configs.parquet, then write configs.csv and pareto.csv.

    The study is the record: completed trials that no local shard holds (scored on another
    host, or whose shard was lost) are re-scored from their parameters, so every host sees the
    whole study.
    """
    import pandas as pd
    import pyarrow.parquet as pq

    from .results import finalize, write_table

    shard_dir = out / "shards"
    complete = None
    if storage is not None:
        import optuna
        from optuna.trial import TrialState

        study = optuna.load_study(study_name=study_name, storage=storage)
        trials = study.get_trials(deepcopy=False)
        complete = {t.number: t for t in trials if t.state == TrialState.COMPLETE}
        # the study's trials as they stand now (other processes may have finished after this one)
        study_counts = {"trials_complete": len(complete), "trials_total": len(trials),
                        "trials_failed": sum(t.state == TrialState.FAIL for t in trials)}
    # the shards of this search: the exhaustive chunks of this very space, or the trials' batches
    pattern = f"{exhaustive_prefix(space)}*.parquet" if mode == "exhaustive" else "trials-*.parquet"
    frames = []
    for path in sorted(shard_dir.glob(pattern)) if shard_dir.exists() else []:
        df = pq.read_table(path).to_pandas()
        if complete is not None and "trial" in df:
            df = df[df["trial"].isin(complete.keys())]
        frames.append(df)
    if complete:
        frames.append(_rescore_missing(space, mode, complete, frames))
    frames = [f for f in frames if len(f)]
    merged = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(merged) and "trial" in merged:
        merged = merged.sort_values("trial", kind="stable").reset_index(drop=True)
    write_table(merged, out / "configs.parquet")
    counts = finalize(out, space.objectives)
    if complete is not None:
        counts = {**counts, **study_counts}
    files = [out / "configs.parquet", out / "configs.csv", out / "pareto.csv"]
    return counts, [f for f in files if f.exists()]


def refresh_from_study(out_dir: str | Path, storage: str | None = None) -> dict[str, int] | None:
    """Bring a results folder up to date with its shared study: re-merge configs.parquet,
    configs.csv and pareto.csv from every completed trial, including those other hosts ran.

    Used by ``dse show`` and ``dse plot``. Does nothing (returns None) for a folder whose study
    lives in its own journal file or that has no study (exhaustive); ``storage`` overrides the
    URL in the manifest (which is stored without its password).
    """
    from .results import read_manifest, write_json
    from .space import space_from_dict

    out = Path(out_dir)
    manifest = read_manifest(out)
    if manifest is None:
        return None
    url = storage or manifest.get("storage")
    if not url or (url.startswith("journal:") and storage is None):
        return None
    space = space_from_dict(manifest["space"], source=manifest.get("space_file"))
    storage_obj, _ = storage_for(url, out)
    with finalizing(out):
        counts, _ = finalize_run(out, space, storage_obj, manifest["study"], manifest.get("mode", "nested"))
        manifest["counts"].update({k: int(v) for k, v in counts.items() if k in manifest["counts"]})
        write_json(manifest, out / "manifest.json")
    return counts


def _rescore_missing(space: SearchSpace, mode: str, complete: dict, frames: list):
    """Rows for the completed trials the shards lack (see :func:`drivers.score_trials`)."""
    import pandas as pd

    from .drivers import score_trials, trial_point

    have = set()
    for df in frames:
        if "trial" in df:
            have.update(int(n) for n in df["trial"].unique())
    if mode == "optuna":
        missing = [t for n, t in complete.items() if n not in have]
    else:  # a nested point's rows sit under its first trial; later trials of it have none
        scored_points = {trial_point(complete[n].params, space) for n in have if n in complete
                         and "num_gpus" in complete[n].params}
        missing = [t for t in complete.values() if "num_gpus" in t.params
                   and trial_point(t.params, space) not in scored_points]
    return score_trials(space, mode, missing) if missing else pd.DataFrame()


def write_manifest(out: Path, space: SearchSpace, study_name: str, report: DriverReport, counts: dict, mode: str,
                   reason: str, seed: int, sampler: str, storage_url: str | None, started: float,
                   wall: float) -> None:
    """manifest.json: versions, commit, the space and its hash, seed, sampler, mode, counts."""
    from .results import write_json

    text = space.source_text or space.spec.model_dump_json()
    manifest: dict[str, Any] = {
        "study": study_name,
        "dse_version": _version(),
        "dse_model": model_fingerprint(),  # digest of the package's code and data that scored it
        "git_commit": _git_commit(),
        "python": platform.python_version(),
        "libraries": _library_versions(),
        "space_file": space.source_path,
        "space_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "space": json.loads(space.spec.model_dump_json()),
        "objectives": [{"metric": m, "direction": d} for m, d in space.objectives],
        "mode": mode,
        "mode_reason": reason,
        "sampler": None if mode == "exhaustive" else sampler,
        "seed": seed,
        "storage": storage_url,
        "counts": {
            "space_size": report.space_size,
            "scored": int(counts.get("scored", 0)),
            "feasible": int(counts.get("feasible", 0)),
            "pareto": int(counts.get("pareto", 0)),
            "trials_complete": int(counts.get("trials_complete", report.trials_complete)),
            "trials_failed": int(counts.get("trials_failed", report.trials_failed)),
            "trials_total": int(counts.get("trials_total", report.trials_total)),
            "duplicate_proposals": report.duplicates,
        },
        "notes": report.notes,
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(),
        "wall_time_s": round(wall, 3),
        "command": redacted_command(sys.argv),
    }
    write_json(manifest, out / "manifest.json")


def _version() -> str:
    from .. import __version__

    return __version__


def _git_commit() -> str | None:
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=here, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                           capture_output=True, text=True, timeout=5).stdout.strip()
    return out.stdout.strip() + ("-dirty" if dirty else "")


def _library_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for name in ("numpy", "pandas", "pyarrow", "optuna", "joblib", "matplotlib", "pydantic"):
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "missing"
    return versions


def _number(x: float) -> str:
    """A best-so-far figure: thousands separators from 1000 up, else 4 significant digits."""
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


#: Seconds between the plain progress lines of a search whose stderr is not a terminal (a batch
#: job's log); ``DSE_PROGRESS_EVERY`` overrides it.
LOG_EVERY_S = 60.0


class _Progress:
    """A rich progress bar: trials (or chunks) done, configurations scored, best so far, rate.
    Without a terminal (an overnight job writing to a log) one plain line every
    :data:`LOG_EVERY_S` seconds says the same."""

    def __init__(self, enabled: bool, mode: str, total: int, objectives: list[tuple[str, str]]):
        self.enabled = enabled and sys.stderr.isatty() or enabled and os.environ.get("DSE_PROGRESS") == "1"
        self.log_every = float(os.environ.get("DSE_PROGRESS_EVERY", LOG_EVERY_S)) if enabled and not self.enabled else 0.0
        self.done = 0
        self.last_log = time.monotonic()
        self.mode = mode
        self.total = total
        self.objectives = objectives
        self.best: list[float] | None = None
        self.configs = 0
        self.start = time.monotonic()
        self._progress = None
        self._task = None

    def __enter__(self):
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                TextColumn(f"[bold]{self.mode}[/]"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"), TextColumn("best {task.fields[best]}"),
                TimeElapsedColumn(), transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task("search", total=self.total, rate="", best="-")
        return self

    def set_total(self, total: int) -> None:
        self.total = total
        if self._progress is not None:
            self._progress.update(self._task, total=total)

    def update(self, info: dict[str, Any]) -> None:
        self.configs += int(info.get("configs", 0))
        values = info.get("values")
        if values is not None and self.objectives:
            first = values[0]
            better = self.best is None or (
                first > self.best[0] if self.objectives[0][1] == "maximize" else first < self.best[0]
            )
            if better:
                self.best = list(values)
        self.done += info.get("trials", 0) + info.get("chunks", 0)
        now = time.monotonic()
        elapsed = max(now - self.start, 1e-9)
        best = "-" if self.best is None else f"{self.objectives[0][0]}={_number(self.best[0])}"
        if self._progress is not None:
            self._progress.update(
                self._task, advance=info.get("trials", 0) + info.get("chunks", 0),
                rate=f"{self.configs / elapsed:,.0f} configs/s", best=best,
            )
        elif self.log_every > 0 and now - self.last_log >= self.log_every:
            self.last_log = now
            unit = "chunks" if info.get("chunks") else "trials"
            print(f"search {self.mode}: {self.done:,} of {self.total:,} {unit}, {self.configs:,} configurations "
                  f"scored ({self.configs / elapsed:,.0f}/s), best {best}, "
                  + (f"{elapsed:.0f} s" if elapsed < 120 else f"{elapsed / 60:.1f} min"),
                  file=sys.stderr, flush=True)

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.__exit__(*exc)
        return False


def summary_dict(summary: SearchSummary) -> dict[str, Any]:
    """A JSON-friendly view of a summary."""
    data = asdict(summary.report)
    return {
        "out_dir": str(summary.out_dir), "study": summary.study_name, "mode": summary.mode,
        "mode_reason": summary.mode_reason, "counts": summary.counts,
        "wall_time_s": summary.wall_time_s, "report": data,
        "files": [str(f) for f in summary.files],
    }
