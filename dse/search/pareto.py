"""Pareto fronts of scored configurations: vectorized non-dominated filtering.

:func:`pareto_mask` works on a plain ``(n, k)`` array; :func:`pareto_front` on a results
DataFrame, over its feasible rows only (the *constrained* front: an infeasible configuration,
however fast, never dominates a feasible one).

Conventions (both functions):

* a row dominates another if it is no worse in every objective and strictly better in at least
  one; each objective is minimized or maximized as its direction says;
* exact duplicates (equal in every objective) keep only their FIRST occurrence, so the front
  has no repeated point (``study.best_trials`` of Optuna keeps them all);
* a row with a NaN objective is never on the front (and dominates nothing).

Both run in O(n log n) for two objectives (one sort and a running minimum) and in
O(n * front size) for more, in memory-bounded blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

#: Accepted spellings of an objective's direction.
DIRECTIONS = {"minimize": 1.0, "min": 1.0, "maximize": -1.0, "max": -1.0}

#: (front row, row) pairs compared at once by the blocked k > 2 filter (bounds its memory).
BLOCK_ELEMENTS = 1 << 22
#: Front points tried first against each block (most rows fall to one of them).
PIVOTS = 32


def _signs(directions: Sequence[str], k: int) -> np.ndarray:
    directions = [directions] if isinstance(directions, str) else list(directions)
    if len(directions) != k:
        raise ValueError(f"{len(directions)} directions given for {k} objective columns")
    signs = []
    for d in directions:
        key = str(getattr(d, "name", d)).lower()  # also an optuna StudyDirection
        if key not in DIRECTIONS:
            raise ValueError(f"unknown direction {d!r}; allowed: minimize, maximize")
        signs.append(DIRECTIONS[key])
    return np.asarray(signs)


def pareto_mask(values: np.ndarray, directions: Sequence[str]) -> np.ndarray:
    """Boolean mask of the rows of ``values`` (shape ``(n, k)``) that no other row dominates.

    ``directions`` holds one ``"minimize"`` or ``"maximize"`` per column. Of several rows equal
    in every column only the first is True; rows with a NaN are False.
    """
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    if v.ndim != 2:
        raise ValueError(f"values must be a 2-D array (n, k), got shape {v.shape}")
    n, k = v.shape
    signs = _signs(directions, k)
    mask = np.zeros(n, dtype=bool)
    if n == 0 or k == 0:
        return mask
    ok = ~np.isnan(v).any(axis=1)
    rows = np.flatnonzero(ok)
    if rows.size == 0:
        return mask
    w = v[rows] * signs  # every objective minimized from here on
    w[w == 0.0] = 0.0  # -0.0 and 0.0 are one value
    # Lexicographic order (first column, then the next, ..., then the original row): a row can
    # only be dominated by, or duplicate, a row before it, and among equal rows the first
    # occurrence comes first.
    order = np.lexsort((rows, *w.T[::-1]))
    w = w[order]
    if k == 1:
        keep = np.zeros(len(w), dtype=bool)
        keep[0] = True
    elif k == 2:
        keep = _sweep2(w[:, 1])
    else:
        keep = _blocked(w)
    mask[rows[order[keep]]] = True
    return mask


def _sweep2(second: np.ndarray) -> np.ndarray:
    """Rows sorted by (first, second, index): kept iff strictly below every earlier second value."""
    prior_min = np.empty_like(second)
    prior_min[0] = np.inf
    np.minimum.accumulate(second[:-1], out=prior_min[1:])
    keep = second < prior_min
    keep[0] = True  # the first row is never dominated (even at +inf)
    return keep


def _blocked(w: np.ndarray, max_block: int = 1 << 16) -> np.ndarray:
    """Rows sorted lexicographically, all minimized: kept iff no earlier row is <= in every column.

    An earlier row that is <= everywhere either dominates the row or duplicates it. A row removed
    by a removed row is also removed by a kept one (<= is transitive), so each block of rows is
    compared only with the front found so far, then its survivors with each other (directly
    when few, else by the same procedure on half-size blocks).
    """
    n, k = w.shape
    keep = np.zeros(n, dtype=bool)
    front = np.empty((0, k))
    start = 0
    while start < n:
        block = int(np.clip(BLOCK_ELEMENTS // max(len(front), 1), 256, max_block))
        stop = min(n, start + block)
        b = w[start:stop]
        alive = np.ones(len(b), dtype=bool)
        if len(front) > 4 * PIVOTS:  # cheap first pass: the front points nearest the ideal corner
            span = np.ptp(front, axis=0)
            score = ((front - front.min(axis=0)) / np.where(span > 0, span, 1.0)).sum(axis=1)
            alive &= ~_dominated_by(front[np.argpartition(score, PIVOTS)[:PIVOTS]], b)
        idx = np.flatnonzero(alive)
        if len(idx):
            alive[idx[_dominated_by(front, b[idx])]] = False
        idx = np.flatnonzero(alive)
        if len(idx) > 512:
            survivors = _blocked(b[idx], max_block=len(idx) // 2)
        elif len(idx):
            cand = b[idx]
            le = (cand[:, None, :] <= cand[None, :, :]).all(axis=2)  # le[j, i]: row j <= row i
            survivors = ~np.triu(le, 1).any(axis=0)  # only earlier rows j < i count
        else:
            survivors = np.zeros(0, dtype=bool)
        alive[idx[~survivors]] = False
        front = np.concatenate([front, b[alive]])
        keep[start:stop] = alive
        start = stop
    return keep


def _dominated_by(front: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows``: is some ``front`` row <= it in every column? (in bounded blocks)"""
    out = np.zeros(len(rows), dtype=bool)
    step = max(1, BLOCK_ELEMENTS // max(1, len(rows)))
    for f0 in range(0, len(front), step):
        f = front[f0:f0 + step]
        le = f[:, 0, None] <= rows[None, :, 0]
        for c in range(1, rows.shape[1]):
            le &= f[:, c, None] <= rows[None, :, c]
        out |= le.any(axis=0)
    return out


def normalize_objectives(objectives: Iterable[Any]) -> list[tuple[str, str]]:
    """Objectives as ``[(metric, "minimize" | "maximize"), ...]``.

    Accepts tuples ``(metric, direction)`` and the manifest's dicts
    ``{"metric": ..., "direction": ...}``.
    """
    out = []
    for obj in objectives:
        if isinstance(obj, Mapping):
            metric, direction = obj["metric"], obj.get("direction", "minimize")
        else:
            metric, direction = obj
        key = str(getattr(direction, "name", direction)).lower()
        if key not in DIRECTIONS:
            raise ValueError(f"objective {metric!r}: unknown direction {direction!r}; allowed: minimize, maximize")
        out.append((str(metric), "maximize" if DIRECTIONS[key] < 0 else "minimize"))
    if not out:
        raise ValueError("no objectives given")
    return out


def objective_values(df: Any, objectives: Sequence[tuple[str, str]]) -> np.ndarray:
    """The ``(n, k)`` float array of the objective columns of ``df`` (KeyError naming a missing one)."""
    missing = [m for m, _ in objectives if m not in df.columns]
    if missing:
        raise KeyError(f"objective column(s) not in the results: {', '.join(missing)}")
    return np.column_stack([df[m].to_numpy(dtype=np.float64, na_value=np.nan) for m, _ in objectives])


def feasible_rows(df: Any) -> Any:
    """The rows whose ``feasible`` column is true (all rows if there is no such column)."""
    if "feasible" not in df.columns:
        return df
    return df[df["feasible"].fillna(False).astype(bool).to_numpy()]


def sort_by_objectives(df: Any, objectives: Sequence[tuple[str, str]]) -> Any:
    """``df`` best first by the first objective, ties broken by the next; NaN last; stable."""
    if len(df) == 0:
        return df
    values = objective_values(df, objectives) * _signs([d for _, d in objectives], len(objectives))
    nan_any = np.isnan(values).any(axis=1)
    values = np.where(np.isnan(values), np.inf, values)
    order = np.lexsort((np.arange(len(df)), *values.T[::-1], nan_any))
    return df.iloc[order]


def pareto_front(df: Any, objectives: Sequence[Any], feasible_only: bool = True) -> Any:
    """The non-dominated rows of ``df`` for ``objectives`` (``[(metric, direction), ...]``).

    With ``feasible_only`` (the default) only rows with ``feasible`` true compete: the
    constrained front. Rows keep every column and their index; the front is sorted best first by
    the first objective (ties by the next). Of rows equal in every objective (the same
    configuration scored twice, say) only the first in ``df`` order is kept.
    """
    objectives = normalize_objectives(objectives)
    pool = feasible_rows(df) if feasible_only else df
    mask = pareto_mask(objective_values(pool, objectives), [d for _, d in objectives])
    return sort_by_objectives(pool[mask], objectives)
