"""The results folder of a search: atomic writes, the CSV exports, reading it back, summaries.

``results/<study>/`` holds ``configs.parquet`` (every scored configuration, one row each, written
by the runner), ``manifest.json`` (study, mode, objectives, counts, versions) and what
:func:`finalize` derives from them: ``configs.csv`` (the same table as CSV, for spreadsheets) and
``pareto.csv`` (the feasible, constrained Pareto front with every column). Every file is written
to a temporary file in the same folder and renamed into place, so a reader never sees half a
file and a killed run leaves the previous version.
"""

from __future__ import annotations

import json
import math
import os
import secrets
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..costmodel.dlrm import SHARDING_NAMES
from ..errors import FieldProblem, InputError
from .pareto import normalize_objectives, pareto_front, sort_by_objectives
from .space import GPU_LABEL

CONFIGS = "configs.parquet"
CONFIGS_CSV = "configs.csv"
#: configs.csv is written only up to this many configurations (configs.parquet holds them all)
CSV_MAX_ROWS = 1_000_000
PARETO_CSV = "pareto.csv"
MANIFEST = "manifest.json"

#: Used when a folder has no manifest (yet) or its manifest names no objectives.
DEFAULT_OBJECTIVES: list[tuple[str, str]] = [("tokens_per_s", "maximize"), ("num_gpus", "minimize")]
#: The parallel plan of a configuration, in display order (every kind of run: a table holds
#: those of its kind; ``batch`` is the serving batch in flight, ``emb_*`` the DLRM embedding plan).
PLAN_COLUMNS = ("num_gpus", "phase", "emb_sharding", "emb_planner", "tp", "pp", "dp", "cp", "ep", "etp", "vpp", "zero",
                "shard_group", "sp",
                "recompute", "offload_layers", "batch", "spec_tokens", "microbatch", "global_batch",
                "prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "prefill_max_num_tokens", "prefill_count",
                "prefill_gpu")
#: Serving ``phase`` of a results row: an engine, or a disaggregated deployment (whose tp, pp,
#: ep and batch are its decode instances', ``prefill_*`` its prefill instances').
PHASE_NAMES = {0: "engine", 1: "prefill instance", 2: "decode instance", 3: "disaggregated"}
#: Columns only disaggregated deployments fill (shown when a row listed is one).
DEPLOYMENT_COLUMNS = ("prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "prefill_max_num_tokens", "prefill_count",
                      "prefill_gpu")
#: Columns that say where a row came from, not what it is (ignored when deduplicating).
ID_COLUMNS = ("trial",)
#: Plan columns whose outcome another column holds (a deployment's stated prefill count, 0 =
#: auto, is the split in ``prefill_instances``): rows that differ only there are one plan.
STATED_COLUMNS = ("prefill_count",)
#: Metrics in the JSON records of ``dse show`` (those present).
RECORD_METRICS = (
    "iteration_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "samples_per_s", "mfu", "hfu",
    "model_tflops_per_gpu", "memory_per_gpu_bytes", "hbm_bytes", "exposed_comm_s", "cost_per_mtok_usd",
    "energy_per_token_j", "time_to_train_s", "itl_ms", "ttft_ms", "requests_per_s", "batch_auto",
    "samples_per_s_per_gpu", "cost_per_msample_usd", "energy_per_sample_j", "input_tokens_per_s",
    "input_tokens_per_s_per_gpu", "power_per_gpu_w", "prefill_instances", "decode_instances", "idle_gpus",
    "kv_transfer_s", "prefill_wait_s", "cluster_usd_per_hour",
)
RECOMPUTE_NAMES = {0: "none", 1: "selective", 2: "full"}
#: DLRM table planners (the sharding names are the cost model's, SHARDING_NAMES).
PLANNER_NAMES = {0: "cost", 1: "memory"}
GIB = 2.0**30


# ------------------------------------------------------------------------------- atomic writes
@contextmanager
def _atomic(path: Path) -> Iterator[Any]:
    """A binary file object whose content replaces ``path`` only when the block succeeds."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # the umask applies, as for open()
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _arrow(df: pd.DataFrame) -> Any:
    import pyarrow as pa

    return pa.Table.from_pandas(df, preserve_index=False)


def write_table(df: pd.DataFrame, path: str | Path, metadata: Mapping[str, str] | None = None) -> Path:
    """Write ``df`` (without its index) to ``path`` as Parquet (zstd), atomically.

    ``metadata`` adds key/value pairs (strings) to the file's footer, next to pandas' own.
    """
    import pyarrow.parquet as pq

    table = _arrow(df)
    if metadata:
        merged = dict(table.schema.metadata or {})
        merged.update({str(k).encode(): str(v).encode() for k, v in metadata.items()})
        table = table.replace_schema_metadata(merged)
    path = Path(path)
    with _atomic(path) as fh:
        pq.write_table(table, fh, compression="zstd")
    return path


def read_table_metadata(path: str | Path) -> dict[str, str]:
    """The key/value metadata of a Parquet file written by :func:`write_table` (pandas' own left out)."""
    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    return {k.decode(): v.decode() for k, v in meta.items() if k != b"pandas"}


def write_csv(df: pd.DataFrame, path: str | Path) -> Path:
    """Write ``df`` (without its index) as CSV with a header, atomically (pyarrow's fast writer)."""
    import pyarrow.csv as pcsv

    path = Path(path)
    with _atomic(path) as fh:
        pcsv.write_csv(_arrow(df), fh)
    return path


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def write_json(obj: Any, path: str | Path) -> Path:
    """Write ``obj`` as indented JSON, atomically; NaN/inf become null, numpy scalars plain numbers."""
    path = Path(path)
    text = json.dumps(_json_safe(obj), indent=2, allow_nan=False) + "\n"
    with _atomic(path) as fh:
        fh.write(text.encode())
    return path


# ----------------------------------------------------------------------------------- reading
def _not_results(path: Path, why: str) -> InputError:
    return InputError([FieldProblem("RESULTS_DIR", "", f"not a dse results folder: {why}")], source=str(path))


def read_manifest(out_dir: str | Path) -> dict[str, Any] | None:
    """``manifest.json`` of a results folder, or None if there is none (InputError if unreadable)."""
    path = Path(out_dir) / MANIFEST
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise _not_results(Path(out_dir), f"{MANIFEST} cannot be read: {err}") from None
    if not isinstance(manifest, dict):
        raise _not_results(Path(out_dir), f"{MANIFEST} is not a JSON object")
    return manifest


def read_results(out_dir: str | Path, require_manifest: bool = True,
                 columns: Sequence[str] | None = None) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``(configs, manifest)`` of a results folder.

    Raises :class:`dse.errors.InputError` ("not a dse results folder: ...") if the folder is
    missing, or has no (readable) ``configs.parquet`` or ``manifest.json``. Without
    ``require_manifest`` (the runner plots before it writes the manifest), a missing manifest reads
    as ``{}``. ``columns`` reads only those columns (names the file lacks are skipped; a name
    ending in ``*`` is a prefix): a million rows of every column is gigabytes.
    """
    out = Path(out_dir)
    if not out.exists():
        raise _not_results(out, "the folder does not exist")
    if not out.is_dir():
        raise _not_results(out, "it is a file, not a folder")
    configs = out / CONFIGS
    if not configs.is_file():
        if (out / "shards").is_dir() or any(out.glob("*.journal*")):
            raise _not_results(out, f"it has no {CONFIGS} yet: a search here was stopped before it "
                                    "finished; re-run its dse search command to resume and finish it "
                                    "(what it scored is kept)")
        raise _not_results(out, f"it has no {CONFIGS}")
    manifest = read_manifest(out)
    if manifest is None:
        if require_manifest:
            raise _not_results(out, f"it has no {MANIFEST}")
        manifest = {}
    import pyarrow.parquet as pq

    try:
        if columns is not None:
            names = pq.read_schema(configs).names
            prefixes = tuple(c[:-1] for c in columns if c.endswith("*"))
            wanted = [n for n in names if n in columns or (prefixes and n.startswith(prefixes))]
            df = pq.read_table(configs, columns=wanted).to_pandas()
        else:
            df = pq.read_table(configs).to_pandas()
    except (OSError, ValueError) as err:  # pyarrow's ArrowInvalid is a ValueError
        raise _not_results(out, f"{CONFIGS} cannot be read: {err}") from None
    return df, manifest


def load_results(out_dir: str | Path, feasible_only: bool = False) -> tuple[pd.DataFrame, dict[str, Any]]:
    """``(configs, manifest)`` of a finished search's results folder, for a notebook.

    The table is ``configs.parquet`` as ``configs.csv`` shows it: one row per scored configuration
    with every input (SI units) and metric column, the coded plan columns (``recompute``,
    ``emb_sharding``, ``emb_planner``) by name. ``feasible_only`` keeps the feasible rows. The
    manifest is ``manifest.json`` as a dict (study, mode, objectives, counts, versions). Raises
    :class:`dse.errors.InputError` for a folder that holds no finished search.
    """
    df, manifest = read_results(out_dir)
    if feasible_only and "feasible" in df.columns:
        df = df[df["feasible"].fillna(False).astype(bool).to_numpy()].reset_index(drop=True)
    return _named(df), manifest


def manifest_objectives(manifest: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The objectives a manifest names, else :data:`DEFAULT_OBJECTIVES`."""
    objs = (manifest or {}).get("objectives")
    if not objs:
        return list(DEFAULT_OBJECTIVES)
    try:
        return normalize_objectives(objs)
    except (KeyError, TypeError, ValueError) as err:
        raise InputError([FieldProblem("objectives", repr(objs)[:80], f"{MANIFEST}: bad objectives: {err}")]) from None


def _check_objectives(df: pd.DataFrame, objectives: Sequence[tuple[str, str]]) -> None:
    missing = [m for m, _ in objectives if m not in df.columns]
    if missing and len(df.columns):
        raise InputError([FieldProblem("objectives", ", ".join(missing), f"not a column of {CONFIGS}")])


# ------------------------------------------------------------------------------ deriving files
def finalize(out_dir: str | Path, objectives: Sequence[Any] | None = None) -> dict[str, int]:
    """Write ``configs.csv`` (up to :data:`CSV_MAX_ROWS` configurations) and ``pareto.csv`` from
    ``configs.parquet``; return the counts.

    ``objectives`` is ``[(metric, direction), ...]`` (default: the manifest's, else tokens/s up and
    GPUs down). ``pareto.csv`` holds every column of the feasible non-dominated configurations,
    best first by the first objective, each point once. Returns ``{"scored", "feasible", "pareto"}``.
    """
    out = Path(out_dir)
    df, manifest = read_results(out, require_manifest=False)
    objectives = normalize_objectives(objectives) if objectives is not None else manifest_objectives(manifest)
    if len(df) <= CSV_MAX_ROWS:
        write_csv(_named(df), out / CONFIGS_CSV)
    else:  # a spreadsheet cannot open it, and writing it costs minutes and gigabytes
        (out / CONFIGS_CSV).unlink(missing_ok=True)
    if len(df) == 0:
        front = df
    else:
        _check_objectives(df, objectives)
        front = pareto_front(df, objectives)
    write_csv(_named(front), out / PARETO_CSV)
    feasible = int(df["feasible"].fillna(False).astype(bool).sum()) if "feasible" in df.columns else len(df)
    return {"scored": int(len(df)), "feasible": feasible, "pareto": int(len(front))}


def _named(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` for a spreadsheet: the coded plan columns (recompute, emb_sharding, emb_planner) by
    name instead of their cost-model codes."""
    names = {"recompute": RECOMPUTE_NAMES, "emb_sharding": SHARDING_NAMES, "emb_planner": PLANNER_NAMES}
    coded = [c for c in names if c in df.columns and pd.api.types.is_numeric_dtype(df[c])]
    if not coded:
        return df
    out = df.copy(deep=False)  # the other columns are shared, not copied
    for c in coded:
        codes = df[c].round()
        out[c] = codes.map(names[c]).where(codes.isin(list(names[c])), df[c])
    return out


def dedupe_configs(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` without repeated configurations: rows equal in every column but ``trial`` (first kept)."""
    cols = [c for c in df.columns if c not in ID_COLUMNS and c not in STATED_COLUMNS]
    if not cols or len(df) < 2:
        return df
    return df[~df.duplicated(subset=cols, keep="first").to_numpy()]


def top_configs(df: pd.DataFrame, objectives: Sequence[Any], k: int = 10) -> pd.DataFrame:
    """The best ``k`` feasible configurations, best first by the first objective (ties by the next,
    then the fewest GPUs), each configuration once (a configuration scored by several trials
    counts once) and each plan once (:func:`drop_replica_copies`)."""
    from .pareto import feasible_rows

    objectives = normalize_objectives(objectives)
    if k <= 0 or len(df) == 0:
        return df.iloc[:0]
    rows = feasible_rows(df)
    if "num_gpus" in rows.columns:  # among equals (the sort is stable), the fewest GPUs first
        rows = rows.iloc[np.argsort(rows["num_gpus"].to_numpy(), kind="stable")]
    ranked = sort_by_objectives(rows, objectives)
    # Deduplicating a million rows on a hundred columns is slow: only look as far down as needed.
    take = max(4 * k, 64)
    while True:
        head = drop_replica_copies(dedupe_configs(ranked.iloc[:take]), objectives)
        if len(head) >= k or take >= len(ranked):
            return head.iloc[:k]
        take *= 4


def drop_replica_copies(df: pd.DataFrame, objectives: Sequence[Any]) -> pd.DataFrame:
    """``df`` (ranked) without the rows that only repeat a better-ranked plan over more replicas:
    the same plan but for ``num_gpus`` and ``dp``, with every objective equal (independent
    serving replicas have the same per-GPU figures at any count; the fewest GPUs is kept)."""
    if len(df) < 2 or "dp" not in df.columns:
        return df
    objectives = normalize_objectives(objectives)
    plan = [c for c in PLAN_COLUMNS if c in df.columns and c not in ("num_gpus", "dp", *STATED_COLUMNS)]
    plan += [c for c in ("prefill_instances",) if c in df.columns] + hw_columns(df)
    key = df[plan].copy()
    for metric, _ in objectives:
        if metric in df.columns:
            key[f"__{metric}"] = [f"{float(v):.9g}" if v == v else "nan" for v in df[metric]]
    return df[~key.duplicated(keep="first").to_numpy()]


# ------------------------------------------------------------------------------ summaries
def hw_columns(df: pd.DataFrame) -> list[str]:
    """The hardware-knob columns (``hw.<knob>``) of a results table."""
    return [c for c in df.columns if str(c).startswith("hw.")]


def _plain(name: str, value: Any) -> Any:
    """One cell as a JSON-ready value."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return None
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if name == "sp":
        return bool(float(value) > 0)
    if name == "recompute":
        return RECOMPUTE_NAMES.get(int(round(float(value))), float(value))
    if name == "emb_sharding":
        return SHARDING_NAMES.get(int(round(float(value))), float(value))
    if name == "emb_planner":
        return PLANNER_NAMES.get(int(round(float(value))), float(value))
    if name == "phase":
        return PHASE_NAMES.get(int(round(float(value))), float(value))
    if name == "prefill_gpu":  # a prefill instance's GPU: its preset, "same" for the cluster's own
        from ..presets import prefill_gpu_name

        return prefill_gpu_name(value) or "same"
    if name == "hw.gpu":  # the gpu knob: a GPU preset's code
        from ..presets import gpu_name

        return gpu_name(value) or float(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        x = float(value)
        if not math.isfinite(x):
            return None
        if name in PLAN_COLUMNS and x.is_integer():
            return int(x)
        return x
    if isinstance(value, np.generic):
        return value.item()
    return value


def record_columns(df: pd.DataFrame, objectives: Sequence[tuple[str, str]] = ()) -> list[str]:
    """The columns of a configuration record: trial, plan, hardware knobs, headline metrics, objectives."""
    cols = [c for c in ("trial", *PLAN_COLUMNS) if c in df.columns] + hw_columns(df)
    cols += [GPU_LABEL] if GPU_LABEL in df.columns else []  # the GPU candidate by name
    cols += [m for m in RECORD_METRICS if m in df.columns]
    cols += [m for m, _ in objectives if m in df.columns and m not in cols]
    if "feasible" in df.columns:
        cols.append("feasible")
    return cols


def config_records(df: pd.DataFrame, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Rows of ``df`` as JSON-ready dicts of ``columns`` (plan degrees as ints, recompute by name)."""
    return [{c: _plain(c, v) for c, v in zip(columns, row)} for row in df[list(columns)].itertuples(index=False)]


def _fmt(x: Any, digits: int = 4) -> str:
    from ..report import fmt

    try:
        x = float(x)
    except (TypeError, ValueError):
        return str(x)
    return fmt(x if math.isfinite(x) else None, digits)


def mask_labels(df: pd.DataFrame) -> dict[int, str]:
    """The words for each ``infeasible_mask`` bit of a results table's kind of run (told by its
    plan columns: DLRM plans have ``emb_sharding``, serving plans ``input_len``)."""
    if "emb_sharding" in df.columns:
        from ..workloads.dlrm import LABELS
    elif "input_len" in df.columns:
        from ..workloads.inference import LABELS
    else:
        from ..costmodel.reasons import LABELS
    return LABELS


def infeasible_counts(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Why the infeasible configurations of a results table are: ``[{"reason", "configurations"}]``,
    most common first, a configuration counted under each check it fails."""
    if "infeasible_mask" not in df.columns or not len(df):
        return []
    masks = df["infeasible_mask"].fillna(0).to_numpy(np.float64).astype(np.int64)
    labels = mask_labels(df)
    counts = [(labels.get(bit, f"check {bit}"), int(np.count_nonzero(masks & bit)))
              for bit in sorted({1 << i for i in range(63) if np.any(masks & (1 << i))})]
    if "feasible" in df.columns:  # the cost model's checks pass, the space's constraints do not
        outside = int(np.count_nonzero((masks == 0) & ~df["feasible"].fillna(False).astype(bool).to_numpy()))
        if outside:
            counts.append(("outside the space's constraints", outside))
    return [{"reason": r, "configurations": n} for r, n in sorted(counts, key=lambda rn: -rn[1])]


def summarize(out_dir: str | Path, k: int = 10) -> tuple[dict[str, Any], pd.DataFrame]:
    """What ``dse show`` prints: ``({"study", "mode", "objectives", "counts", "top", "pareto"}, top)``.

    ``top`` and ``pareto`` are JSON-ready records (plan, hardware knobs, headline metrics,
    objectives) of the best ``k`` feasible configurations and of the feasible Pareto front; the
    second item is the top-``k`` DataFrame. Reads only the columns it shows.
    """
    manifest = read_manifest(out_dir) if Path(out_dir).is_dir() else None
    objectives = manifest_objectives(manifest)
    wanted = ["trial", *PLAN_COLUMNS, "hw.*", GPU_LABEL, *RECORD_METRICS, "feasible", "infeasible_mask", "input_len",
              *(m for m, _ in objectives)]
    df, manifest = read_results(out_dir, columns=wanted)
    _check_objectives(df, objectives)
    top = top_configs(df, objectives, k)
    front = pareto_front(df, objectives) if len(df) else df
    cols = record_columns(df, objectives)
    feasible = int(df["feasible"].fillna(False).astype(bool).sum()) if "feasible" in df.columns else len(df)
    counts = dict(manifest.get("counts") or {})
    counts.update(scored=int(len(df)), feasible=feasible, pareto=int(len(front)))
    summary = {
        "study": manifest.get("study") or Path(out_dir).name,
        "mode": manifest.get("mode"),
        "objectives": [{"metric": m, "direction": d} for m, d in objectives],
        "counts": counts,
        "infeasible": infeasible_counts(df),
        "top": config_records(top, cols),
        "pareto": config_records(front, cols),
    }
    per_gpu = best_per_gpu(df, objectives)
    if len(per_gpu):  # a search over hardware.gpu: which GPU, answered
        summary["best_per_gpu"] = config_records(per_gpu, cols)
        top.attrs["best_per_gpu"] = per_gpu  # for render_results
    return summary, top


def best_per_gpu(df: pd.DataFrame, objectives: Sequence[Any]) -> pd.DataFrame:
    """The best feasible configuration on each GPU candidate of a ``hardware.gpu`` search (by the
    objectives, as :func:`top_configs` ranks), best first; empty without several GPUs."""
    by = GPU_LABEL if GPU_LABEL in df.columns else "hw.gpu"
    if by not in df.columns or df[by].nunique() < 2:
        return df.iloc[:0]
    bests = [top_configs(rows, objectives, 1) for _, rows in df.groupby(by, sort=False)]
    bests = [b for b in bests if len(b)]
    if not bests:
        return df.iloc[:0]
    return sort_by_objectives(pd.concat(bests), normalize_objectives(objectives))


def render_results(console: Any, summary: Mapping[str, Any], top: pd.DataFrame) -> None:
    """Print a results folder's summary (from :func:`summarize`), its top configurations and,
    for a search over ``hardware.gpu``, the best on each GPU."""
    from rich.text import Text

    objectives = [(o["metric"], o["direction"]) for o in summary["objectives"]]
    console.print(Text(f"study {summary['study']}", style="bold"))
    obj_text = ", ".join(f"{d} {m}" for m, d in objectives)
    console.print(Text(f"mode: {summary.get('mode') or '?'} · objectives: {obj_text}"))
    counts = dict(summary["counts"])
    if not counts.get("trials_total"):  # an exhaustive or nested run has no Optuna trials
        counts = {k: v for k, v in counts.items() if not k.startswith("trials_")}
    counts_text = " · ".join(f"{k.replace('_', ' ')} {_fmt(v) if v is not None else '-'}"
                             for k, v in counts.items())
    console.print(Text(f"counts: {counts_text}"))
    why = summary.get("infeasible") or []
    if why:
        console.print(Text("infeasible: " + " · ".join(f"{_fmt(w['configurations'])} {w['reason']}" for w in why)))
    console.print(Text(f"Pareto front (feasible configurations only): {len(summary['pareto'])} configurations",
                       style="bold"))
    console.print()
    if top.empty:
        console.print(Text("no feasible configuration", style="bold red"))
        return

    first = (f"{'highest' if objectives[0][1] == 'maximize' else 'lowest'} {objectives[0][0]} first; a plan "
             "that only adds replicas with the same figures is listed once, at its fewest GPUs")
    console.print(_config_table(top, objectives, f"Top {len(top)} feasible configurations ({first})"))
    per_gpu = top.attrs.get("best_per_gpu")
    if per_gpu is not None and len(per_gpu):
        console.print()
        console.print(_config_table(per_gpu, objectives, f"Best on each GPU of hardware.gpu ({len(per_gpu)}, "
                                                         "best first)"))


def _config_table(top: pd.DataFrame, objectives: Sequence[tuple[str, str]], title: str) -> Any:
    """A rich Table of configurations: plan, hardware knobs, headline metrics and objectives."""
    from rich.table import Table

    hw = [GPU_LABEL if c == "hw.gpu" and GPU_LABEL in top.columns else c for c in hw_columns(top)]  # GPU by name
    cols: list[tuple[str, str, Any]] = [("#", "", None)]
    short = {"num_gpus": "GPUs", "recompute": "recomp", "offload_layers": "offload", "microbatch": "mb",
             "global_batch": "gbs", "emb_sharding": "sharding", "emb_planner": "planner", "shard_group": "shard",
             "phase": "serving", "prefill_tp": "P tp", "prefill_pp": "P pp", "prefill_dp": "P dp", "prefill_ep": "P ep",
             "prefill_max_num_tokens": "P tokens", "prefill_gpu": "P gpu"}
    disaggregated = "phase" in top.columns and (top["phase"] == 3).any()
    for c in PLAN_COLUMNS:
        if c in ("phase", *DEPLOYMENT_COLUMNS) and not disaggregated or c in STATED_COLUMNS:  # "P x" shows it
            continue
        # hybrid sharding and offloading only when some plan shown uses them, the experts' split
        # only when some plan shown folds them (etp != tp)
        if c in ("shard_group", "offload_layers") and c in top.columns and not (top[c].fillna(0) > 0).any():
            continue
        if c == "etp" and c in top.columns and not (top["etp"] != top["tp"]).any():
            continue
        if c == "prefill_gpu" and c in top.columns and not (top[c].fillna(0) > 0).any():  # all on the cluster's GPU
            continue
        if c in top.columns:
            cols.append((short.get(c, c), c, None))
    for c in hw:
        cols.append((c.removeprefix("hw."), c, None))
    metric_cols = [
        *([("P x", "prefill_instances", lambda x: f"{x:.0f}"), ("D x", "decode_instances", lambda x: f"{x:.0f}")]
          if disaggregated else []),
        ("tokens/s", "tokens_per_s", lambda x: _fmt(x)),
        ("tokens/s/GPU", "tokens_per_s_per_gpu", lambda x: _fmt(x)),
        ("ITL ms", "itl_ms", lambda x: f"{x:.3g}"),
        ("TTFT ms", "ttft_ms", lambda x: _fmt(x, 3)),
        ("samples/s", "samples_per_s" if "tokens_per_s" not in top.columns else "", lambda x: _fmt(x)),
        ("samples/s/GPU", "samples_per_s_per_gpu", lambda x: _fmt(x)),
        ("MFU %", "mfu", lambda x: f"{100 * x:.1f}"),
        ("mem GiB", "memory_per_gpu_bytes", lambda x: f"{x / GIB:.1f}"),
    ]
    if "cost_per_mtok_usd" in top.columns and (top["cost_per_mtok_usd"].fillna(0) > 0).any():
        metric_cols.append(("USD/Mtok", "cost_per_mtok_usd", lambda x: f"{x:.3g}"))
    shown = {c for _, c, _ in metric_cols} | {"num_gpus"}
    for m, _ in objectives:
        if m not in shown and m in top.columns and m not in PLAN_COLUMNS and m not in hw:
            metric_cols.append((m, m, lambda x: _fmt(x)))
    cols += [c for c in metric_cols if c[1] in top.columns]

    table = Table(title=title, title_justify="left", box=None, padding=(0, 1))
    for header, _, _ in cols:
        table.add_column(header, justify="left" if header in ("recomp", "sp", "sharding", "planner", "serving", "P gpu", "gpu") else "right",
                         no_wrap=True)
    for rank, (_, row) in enumerate(top.iterrows(), start=1):
        cells = [str(rank)]
        for _, c, f in cols[1:]:
            v = row[c]
            if c in DEPLOYMENT_COLUMNS and row.get("phase") != 3:  # an engine has no prefill instances
                cells.append("-")
            elif f is not None:
                cells.append(f(float(v)) if v is not None and math.isfinite(float(v)) else "-")
            else:
                p = _plain(c, v)
                text = "on" if p is True else "off" if p is False else None
                cells.append(text or (_fmt(p) if isinstance(p, float) else str(p)))
        table.add_row(*cells)
    return table
