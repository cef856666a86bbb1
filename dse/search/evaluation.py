"""Score hardware points: every valid software configuration of one point in one vectorized call.

This is the unit of work that search drivers hand to joblib workers. It must stay cheap to
ship: a task is (space, GPU count, knob values), and the result is one DataFrame of scored
configurations plus a one-row summary of the best of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..costmodel import evaluate_training
from .enumerate import software_grid
from .space import SearchSpace, hardware_columns

PLAN_COLUMNS = (
    "num_gpus", "tp", "pp", "dp", "cp", "ep", "vpp", "zero", "sp", "recompute", "microbatch",
    "global_batch",
)
#: Extra input columns kept in the results table (what a reader needs to redo the arithmetic).
INPUT_COLUMNS = ("hbm_bytes", "peak_flops", "nvlink_bw", "scaleout_bw", "nvlink_domain", "seq_len")


_GRIDS: dict[tuple[str, int], dict[str, np.ndarray]] = {}


def _grid(space: SearchSpace, num_gpus: int) -> dict[str, np.ndarray]:
    """The software grid of a GPU count, cached per process (workers keep theirs across tasks)."""
    key = (space_key(space), num_gpus)
    if key not in _GRIDS:
        if len(_GRIDS) > 64:
            _GRIDS.clear()
        _GRIDS[key] = software_grid(space, num_gpus)
    return _GRIDS[key]


def space_key(space: SearchSpace) -> str:
    """A stable digest of a space's validated content."""
    import hashlib

    return hashlib.sha256(space.spec.model_dump_json().encode()).hexdigest()


def _objective_value(df: pd.DataFrame, metric: str, train_tokens: float | None) -> pd.Series:
    if metric == "time_to_train_s":
        return train_tokens / df["tokens_per_s"]
    return df[metric]


def score_point(space: SearchSpace, num_gpus: int, knobs: dict[str, float], trial: int = -1) -> pd.DataFrame:
    """All valid software configurations of one hardware point, scored.

    Returns one row per configuration: the plan, the knob values (``hw.<knob>``), every
    cost-model metric, ``feasible`` (cost model and the space's constraints) and ``trial``.
    """
    grid = _grid(space, int(num_gpus))
    cols: dict[str, Any] = dict(space.base_columns(int(num_gpus)))
    cols.update(grid)
    cols = hardware_columns(cols, knobs)
    n = len(grid["tp"])
    metrics = evaluate_training(cols) if n else {}
    data: dict[str, Any] = {"trial": np.full(n, trial, dtype=np.int64)}
    for name in PLAN_COLUMNS:
        data[name] = np.broadcast_to(np.asarray(cols[name], dtype=np.float64), (n,))
    for name, value in knobs.items():
        data[f"hw.{name}"] = np.full(n, float(value))
    for name in INPUT_COLUMNS:
        data[name] = np.broadcast_to(np.asarray(cols[name], dtype=np.float64), (n,))
    data.update(metrics)
    df = pd.DataFrame(data)
    if not n:
        return df
    df["infeasible_mask"] = df["infeasible_mask"].astype(np.int64)
    df["feasible"] = apply_constraints(df, space)
    if space.spec.train_tokens:
        df["time_to_train_s"] = space.spec.train_tokens / df["tokens_per_s"]
    return df


def apply_constraints(df: pd.DataFrame, space: SearchSpace) -> np.ndarray:
    """The cost model's feasibility and the space's constraints (memory fraction, minimum
    throughput), as one boolean array."""
    feasible = df["feasible"].to_numpy() > 0
    c = space.spec.constraints
    fraction = getattr(c, "max_memory_fraction", None)
    if fraction is not None:
        feasible &= df["memory_per_gpu_bytes"].to_numpy() <= fraction * df["hbm_bytes"].to_numpy()
    min_tps = getattr(c, "min_tokens_per_s", None)
    if min_tps:
        feasible &= df["tokens_per_s"].to_numpy() >= min_tps
    return feasible


def best_row(df: pd.DataFrame, space: SearchSpace) -> tuple[pd.Series | None, float]:
    """The best feasible configuration by the space's first objective (ties by the next ones),
    and how far the least-infeasible configuration misses its memory (GiB; 0 when one fits)."""
    if df.empty:
        return None, float("inf")
    if len(df) == 1:  # one configuration (pure Optuna mode): no ranking needed
        row = df.iloc[0]
        if bool(row["feasible"]):
            return row, 0.0
        return row, float(max((row["memory_per_gpu_bytes"] - row["hbm_bytes"]) / 2**30, 1e-3))
    feasible = df[df["feasible"]]
    if feasible.empty:
        excess = (df["memory_per_gpu_bytes"] - df["hbm_bytes"]).clip(lower=0.0) / 2**30
        return df.loc[excess.idxmin()], float(max(excess.min(), 1e-3))
    keys, ascending = [], []
    for metric, direction in space.objectives:
        key = f"__obj_{metric}"
        feasible = feasible.assign(**{key: _objective_value(feasible, metric, space.spec.train_tokens)})
        keys.append(key)
        ascending.append(direction == "minimize")
    ranked = feasible.sort_values(keys, ascending=ascending, kind="stable")
    return ranked.iloc[0].drop(labels=keys), 0.0


def objective_values(row: pd.Series, space: SearchSpace) -> list[float]:
    """The study's objective values of one scored configuration (finite floats)."""
    values = []
    for metric, _ in space.objectives:
        if metric == "time_to_train_s":
            value = float(space.spec.train_tokens) / float(row["tokens_per_s"])
        else:
            value = float(row[metric])
        values.append(value if np.isfinite(value) else 0.0)
    return values
