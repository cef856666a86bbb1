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
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..errors import single
from .drivers import DRIVERS, DriverReport, SearchContext, choose_mode
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


#: Seconds after which a journal lock is taken to be left by a dead process. Optuna's default
#: (30 s) makes every restart after a kill wait that long; a journal write takes milliseconds.
LOCK_GRACE_S = 3


def journal_storage(path: str | Path):
    """An append-only journal file storage (several processes on one host may share it)."""
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend, JournalFileSymlinkLock

    path = str(path)
    return JournalStorage(JournalFileBackend(path, lock_obj=JournalFileSymlinkLock(path, grace_period=LOCK_GRACE_S)))


def storage_for(url: str | None, out_dir: Path):
    """The Optuna storage: the journal file in the results folder by default, else any URL."""
    import optuna

    if url is None:
        path = out_dir / "study.journal"
        return journal_storage(path), f"journal:{path}"
    if url.endswith(".journal") or url.startswith("journal:"):
        path = url.removeprefix("journal:")
        return journal_storage(path), f"journal:{path}"
    return optuna.storages.get_storage(url), url


def check_writable(out_dir: Path) -> None:
    """Fail before any work if the results folder cannot be written."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / ".write-test"
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
) -> SearchSummary:
    """Run (or resume) the search a space file describes; return what it did.

    ``out_dir`` defaults to ``results/<study name>``; ``storage`` to the journal file there.
    """
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if not isinstance(space, SearchSpace):
        space = load_space(space)
    cfg = space.spec.search
    study_name = study_name or space.name
    out = Path(out_dir) if out_dir is not None else Path("results") / study_name
    check_writable(out)
    mode_name, reason = choose_mode(space, mode or cfg.mode)
    sampler = sampler or cfg.sampler
    seed = cfg.seed if seed is None else seed
    started = time.time()
    storage_obj, storage_url = (None, None) if mode_name == "exhaustive" else storage_for(storage, out)
    total = n_trials if n_trials is not None else cfg.n_trials
    bar = _Progress(enabled=progress, mode=mode_name, total=total, objectives=space.objectives)
    ctx = SearchContext(
        space=space, out_dir=out, study_name=study_name, storage=storage_obj,
        n_trials=total, timeout=timeout, workers=workers, backend=backend, seed=seed,
        sampler=sampler, batch_size=cfg.batch_size, on_progress=bar.update,
    )
    with bar:
        if mode_name == "exhaustive":
            bar.set_total(_chunk_total(space))
        report = DRIVERS[mode_name]().run(ctx)
    counts, files = finalize_run(out, space, storage_obj, study_name)
    wall = time.time() - started
    write_manifest(out, space, study_name, report, counts, mode_name, reason, seed, sampler, storage_url,
                   started, wall)
    files.append(out / "manifest.json")
    if plots and counts.get("scored", 0):
        from .plots import plot_results

        files += plot_results(out, space.objectives)
    return SearchSummary(out, study_name, mode_name, reason, report, counts, wall, files)


def _chunk_total(space: SearchSpace) -> int:
    from .enumerate import space_size

    size = space_size(space)
    n_hw = size.get("hardware_points") or 1
    chunks = 0
    for gpus in space.gpu_counts():
        per_point = max(int(size["software"].get(gpus, 0)), 1)
        block = max(1, 200_000 // per_point)
        chunks += -(-n_hw // block)
    return chunks


def finalize_run(out: Path, space: SearchSpace, storage, study_name: str):
    """Merge the shards of completed trials (or all exhaustive chunks) into configs.parquet,
    then write configs.csv and pareto.csv."""
    import pandas as pd
    import pyarrow.parquet as pq

    from .results import finalize, write_table

    shard_dir = out / "shards"
    complete: set[int] | None = None
    if storage is not None:
        import optuna
        from optuna.trial import TrialState

        study = optuna.load_study(study_name=study_name, storage=storage)
        complete = {t.number for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))}
    frames = []
    for path in sorted(shard_dir.glob("*.parquet")) if shard_dir.exists() else []:
        df = pq.read_table(path).to_pandas()
        if complete is not None and "trial" in df:
            df = df[df["trial"].isin(complete)]
        frames.append(df)
    merged = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    write_table(merged, out / "configs.parquet")
    counts = finalize(out, space.objectives)
    return counts, [out / "configs.parquet", out / "configs.csv", out / "pareto.csv"]


def write_manifest(out: Path, space: SearchSpace, study_name: str, report: DriverReport, counts: dict, mode: str,
                   reason: str, seed: int, sampler: str, storage_url: str | None, started: float,
                   wall: float) -> None:
    """manifest.json: versions, commit, the space and its hash, seed, sampler, mode, counts."""
    from .results import write_json

    text = space.source_text or space.spec.model_dump_json()
    manifest: dict[str, Any] = {
        "study": study_name,
        "dse_version": _version(),
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
            "trials_complete": report.trials_complete,
            "trials_failed": report.trials_failed,
            "trials_total": report.trials_total,
            "duplicate_proposals": report.duplicates,
        },
        "notes": report.notes,
        "started": datetime.fromtimestamp(started, timezone.utc).isoformat(),
        "wall_time_s": round(wall, 3),
        "command": " ".join(sys.argv),
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


class _Progress:
    """A rich progress bar: trials (or chunks) done, configurations scored, best so far, rate."""

    def __init__(self, enabled: bool, mode: str, total: int, objectives: list[tuple[str, str]]):
        self.enabled = enabled and sys.stderr.isatty() or enabled and os.environ.get("DSE_PROGRESS") == "1"
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
        if self._progress is not None:
            elapsed = max(time.monotonic() - self.start, 1e-9)
            best = "-" if self.best is None else f"{self.objectives[0][0]}={self.best[0]:,.4g}"
            self._progress.update(
                self._task, advance=info.get("trials", 0) + info.get("chunks", 0),
                rate=f"{self.configs / elapsed:,.0f} configs/s", best=best,
            )

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
