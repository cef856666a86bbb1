"""Pareto filtering: equal to a brute-force filter, duplicates and NaNs handled, fast."""

import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dse.search.pareto import pareto_front, pareto_mask

DIRECTION = st.sampled_from(["minimize", "maximize"])


def brute_force(values, directions):
    """O(n^2) reference: not dominated by any other row, not a repeat of an earlier row, no NaN."""
    signs = np.array([1.0 if d == "minimize" else -1.0 for d in directions])
    w = np.asarray(values, dtype=float) * signs
    keep = []
    for i, row in enumerate(w):
        if np.isnan(row).any():
            keep.append(False)
            continue
        ok = True
        for j, other in enumerate(w):
            if j == i or np.isnan(other).any():
                continue
            no_worse = bool((other <= row).all())
            if no_worse and (bool((other < row).any()) or j < i):  # dominates, or an earlier duplicate
                ok = False
                break
        keep.append(ok)
    return np.array(keep, dtype=bool)


@st.composite
def problems(draw):
    k = draw(st.sampled_from([2, 3]))
    n = draw(st.integers(0, 40))
    # few distinct values: many ties and exact duplicates; some NaN and infinities
    elements = st.sampled_from([0.0, 1.0, 2.0, 3.0, -1.5, -0.0, np.inf, np.nan])
    values = draw(arrays(np.float64, (n, k), elements=elements))
    directions = draw(st.lists(DIRECTION, min_size=k, max_size=k))
    return values, directions


@settings(max_examples=400, deadline=None)
@given(problems())
def test_mask_equals_brute_force_with_ties_duplicates_and_nans(problem):
    values, directions = problem
    np.testing.assert_array_equal(pareto_mask(values, directions), brute_force(values, directions))


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([2, 3]), st.integers(1, 60), st.data())
def test_mask_equals_brute_force_on_continuous_values(k, n, data):
    values = data.draw(arrays(np.float64, (n, k), elements=st.floats(-1e6, 1e6, allow_nan=False)))
    directions = data.draw(st.lists(DIRECTION, min_size=k, max_size=k))
    np.testing.assert_array_equal(pareto_mask(values, directions), brute_force(values, directions))


@pytest.mark.parametrize("k", [1, 4])
def test_other_objective_counts(k):
    rng = np.random.default_rng(k)
    values = rng.integers(0, 4, size=(80, k)).astype(float)
    directions = ["maximize", "minimize", "minimize", "maximize"][:k]
    np.testing.assert_array_equal(pareto_mask(values, directions), brute_force(values, directions))


def test_first_duplicate_kept():
    values = np.array([[1.0, 5.0], [2.0, 3.0], [2.0, 3.0], [np.nan, 9.0], [2.0, 3.0]])
    mask = pareto_mask(values, ["minimize", "minimize"])
    assert mask.tolist() == [True, True, False, False, False]


def test_bad_directions():
    with pytest.raises(ValueError, match="unknown direction"):
        pareto_mask(np.zeros((3, 2)), ["minimize", "up"])
    with pytest.raises(ValueError, match="2 objective columns"):
        pareto_mask(np.zeros((3, 2)), ["minimize"])


def test_large_inputs_are_fast():
    rng = np.random.default_rng(0)
    values = rng.random((100_000, 2))
    start = time.perf_counter()
    mask = pareto_mask(values, ["maximize", "minimize"])
    assert time.perf_counter() - start < 1.0
    front = values[mask]
    # spot check: nothing dominates a front point
    for x, y in front[:20]:
        assert not ((values[:, 0] >= x) & (values[:, 1] <= y) & ((values[:, 0] > x) | (values[:, 1] < y))).any()
    start = time.perf_counter()
    pareto_mask(rng.random((100_000, 3)), ["maximize", "minimize", "minimize"])
    assert time.perf_counter() - start < 2.0


def test_front_of_a_frame_is_feasible_sorted_and_deduplicated():
    df = pd.DataFrame({
        "trial": [0, 1, 2, 3, 4, 5],
        "tokens_per_s": [100.0, 300.0, 900.0, 300.0, 200.0, 1000.0],
        "num_gpus": [8, 16, 64, 16, 8, 32],
        "feasible": [True, True, True, True, True, False],
    })
    front = pareto_front(df, [("tokens_per_s", "maximize"), ("num_gpus", "minimize")])
    assert front["trial"].tolist() == [2, 1, 4]  # best throughput first; the infeasible 1000 left out
    assert list(front.columns) == list(df.columns)
    unconstrained = pareto_front(df, [{"metric": "tokens_per_s", "direction": "maximize"},
                                      {"metric": "num_gpus", "direction": "minimize"}], feasible_only=False)
    assert unconstrained["trial"].tolist() == [5, 1, 4]
