"""Score hardware points: every valid plan of one point in one vectorized call.

This is the unit of work that search drivers hand to joblib workers. It must stay cheap to
ship: a task is (space, GPU count, knob values), and the result is one DataFrame of scored
configurations plus a one-row summary of the best of them.

Each searchable kind of run (``SearchSpace.kind``) has a :class:`Workload` in :data:`WORKLOADS`:
its fixed cost-model columns, its cost model and its plan columns; its plan grid is built by
:data:`dse.search.enumerate.GRID_BUILDERS`. Everything below dispatches through them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..costmodel import evaluate_training
from ..api import unpriced_as_missing
from .enumerate import GPU_DEPENDENT_GRIDS, plan_grid
from .space import GPU_KNOB, GPU_LABEL, METRIC_CONSTRAINTS, SearchSpace, hardware_columns

PLAN_COLUMNS = (
    "num_gpus", "tp", "pp", "dp", "cp", "ep", "etp", "vpp", "zero", "shard_group", "sp", "recompute", "offload_layers",
    "microbatch", "global_batch",
)
#: Extra input columns kept in the results table (what a reader needs to redo the arithmetic).
INPUT_COLUMNS = ("hbm_bytes", "peak_flops", "nvlink_bw", "scaleout_bw", "nvlink_domain", "seq_len")


# --------------------------------------------------------------------------- kinds of run
@dataclass(frozen=True)
class Workload:
    """How one kind of run is searched: its fixed cost-model columns at a GPU count (``base``),
    its cost model over a dict of columns (``evaluate``: one vectorized call, returns the metric
    arrays), the plan columns of its results and the input columns kept beside them."""

    base: Callable[[SearchSpace, int], dict[str, float]]
    evaluate: Callable[[SearchSpace, dict[str, Any]], dict[str, np.ndarray]]
    plan: tuple[str, ...]
    inputs: tuple[str, ...]


def _training_base(space: SearchSpace, num_gpus: int) -> dict[str, float]:
    from ..api import scenario_columns

    return scenario_columns(space.scenario(num_gpus))


def _training_evaluate(space: SearchSpace, cols: dict[str, Any]) -> dict[str, np.ndarray]:
    return evaluate_training({k: v for k, v in cols.items() if k != KNOBS_KEY})


def _vit_base(space: SearchSpace, num_gpus: int) -> dict[str, float]:
    from ..workloads.vit import vit_columns

    return vit_columns(space.scenario(num_gpus))


def _vit_evaluate(space: SearchSpace, cols: dict[str, Any]) -> dict[str, np.ndarray]:
    """The training model, plus per-image metrics (a sample is an image of seq_len tokens)."""
    metrics = _training_evaluate(space, cols)
    tokens = float(space.seq_len)
    metrics["samples_per_s_per_gpu"] = metrics["samples_per_s"] / np.asarray(cols["num_gpus"], dtype=np.float64)
    metrics["cost_per_msample_usd"] = metrics["cost_per_mtok_usd"] * tokens
    metrics["energy_per_sample_j"] = metrics["energy_per_token_j"] * tokens
    return metrics


def _serving_base(space: SearchSpace, num_gpus: int) -> dict[str, float]:
    from ..workloads.inference import inference_columns

    return inference_columns(space.scenario(num_gpus))


#: Plan columns of a disaggregated deployment's prefill instance (:func:`dse.search.enumerate.serving_grid`).
PREFILL_PLAN = ("prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "prefill_max_num_tokens", "prefill_count",
                "prefill_gpu")
#: Columns the space's hardware knobs set (:func:`dse.search.space.hardware_columns`): a prefill
#: instance on another GPU takes its own preset's, as it does every column where the GPUs differ.
KNOB_COLUMNS = ("hbm_bytes", "hbm_bw", "peak_flops", "peak_flops_16", "nvlink_domain", "nvlink_bw", "scaleout_bw",
                "host_link_bw", "exp_rate", "l2_bytes", "price_per_gpu_hour", "power_w")


def _serving_evaluate(space: SearchSpace, cols: dict[str, Any]) -> dict[str, np.ndarray]:
    """:func:`dse.costmodel.inference.evaluate_inference`; ``batch`` becomes the batch run (the
    cost model's choice where the plan said 0 = auto), ``batch_auto`` says which were chosen.
    Disaggregated deployments (``phase`` 3) through
    :func:`dse.costmodel.disaggregated.evaluate_deployments`: their decode instance at its load
    supplies the engine columns, the deployment the headline figures."""
    from ..costmodel.inference import evaluate_inference

    base = {k: v for k, v in cols.items() if k != KNOBS_KEY and k not in PREFILL_PLAN}
    n = max(np.size(v) for k, v in cols.items() if k != KNOBS_KEY)  # plan columns may be scalars, knobs arrays
    dep = np.broadcast_to(np.asarray(cols.get("phase", 0.0), dtype=np.float64), (n,)) == 3.0
    if not dep.any():
        metrics = evaluate_inference(base)
    else:
        metrics = _with_deployments(base, cols, dep, n, space)
    auto = (np.asarray(cols["batch"], dtype=np.float64) == 0).astype(np.float64)
    metrics["batch_auto"] = np.broadcast_to(auto, metrics["batch"].shape).copy()
    return metrics


def _prefill_gpu_columns(space: SearchSpace, num_gpus: int, code: int) -> dict[str, float]:
    """The hardware columns of a prefill instance on the GPU of ``code`` (another preset than the
    cluster's): its preset's figures, calibration, price and power where they differ from the
    cluster GPU's, and every column a hardware knob sets."""
    from ..presets import prefill_gpu_code, prefill_gpu_name
    from ..workloads.inference import inference_columns, prefill_cluster

    key = (space_key(space), num_gpus, code)
    if key not in _PREFILL_GPUS:
        if len(_PREFILL_GPUS) > 256:
            _PREFILL_GPUS.clear()
        scenario = space.scenario(num_gpus)
        stated = [price for name, price in space.spec.parallel.disaggregated.gpus()  # a price the space states
                  if price is not None and prefill_gpu_code(name, scenario.cluster.gpu) == code]
        cluster = prefill_cluster(scenario.cluster, prefill_gpu_name(code), num_gpus, stated[0] if stated else None)
        own = inference_columns(scenario.model_copy(update={"cluster": cluster}))
        ref = _base(space, num_gpus)
        _PREFILL_GPUS[key] = {k: v for k, v in own.items() if k in KNOB_COLUMNS or v != ref.get(k)}
    return _PREFILL_GPUS[key]


def _with_deployments(base: dict[str, Any], cols: dict[str, Any], dep: np.ndarray, n: int,
                      space: SearchSpace | None = None) -> dict[str, np.ndarray]:
    """Engines and disaggregated deployments of one set of serving rows, in row order; a
    deployment's prefill instance on another GPU (``prefill_gpu`` > 0) at that GPU's columns."""
    from ..costmodel.disaggregated import evaluate_deployments
    from ..costmodel.inference import evaluate_inference

    def take(index: np.ndarray) -> dict[str, Any]:
        return {k: (np.broadcast_to(np.asarray(v, dtype=np.float64), (n,))[index] if np.ndim(v) else v)
                for k, v in base.items()}

    engines, deployments = np.flatnonzero(~dep), np.flatnonzero(dep)
    parts: list[tuple[np.ndarray, dict[str, np.ndarray]]] = []
    if len(engines):
        parts.append((engines, evaluate_inference(take(engines))))
    d = take(deployments)
    plan = {k: np.broadcast_to(np.asarray(cols[k], dtype=np.float64), (n,))[deployments] for k in PREFILL_PLAN}
    pre = {**d, "tp": plan["prefill_tp"], "pp": plan["prefill_pp"], "ep": plan["prefill_ep"], "dp": plan["prefill_dp"],
           "num_gpus": plan["prefill_tp"] * plan["prefill_pp"] * plan["prefill_dp"], "phase": 1.0, "batch": 0.0,
           "spec_tokens": 0.0, "request_rate": 0.0, "concurrency": 0.0}
    codes = plan["prefill_gpu"]
    for code in np.unique(codes[codes > 0]) if space is not None else []:
        mine = codes == code
        own = _prefill_gpu_columns(space, int(np.asarray(d["num_gpus"]).flat[0]), int(code))
        for k, v in own.items():
            pre[k] = np.where(mine, v, np.broadcast_to(np.asarray(pre[k], dtype=np.float64), mine.shape))
    budget = plan["prefill_max_num_tokens"]
    for key in ("max_num_tokens", "min_num_tokens"):
        pre[key] = np.where(budget > 0, budget, np.broadcast_to(np.asarray(d[key], dtype=np.float64), budget.shape))
    dec = {**d, "num_gpus": np.asarray(d["tp"]) * np.asarray(d["pp"]) * np.asarray(d["dp"]), "phase": 2.0,
           "request_rate": 0.0, "concurrency": 0.0}  # the load is the deployment's: evaluate_deployments shares it
    rows, _, _ = evaluate_deployments(pre, dec, d["num_gpus"], prefill_instances=plan["prefill_count"],
                                      request_rate=d.get("request_rate", 0.0), concurrency=d.get("concurrency", 0.0),
                                      same_gpu=(codes == 0).astype(np.float64))
    parts.append((deployments, rows))
    names = list(dict.fromkeys(k for _, m in parts for k in m))
    # an output one kind of row lacks: its input's value where it is an input (a deployment's
    # hbm_bytes and price are its own, an engine's the inputs'), NaN otherwise
    out = {k: (np.broadcast_to(np.asarray(base[k], dtype=np.float64), (n,)).copy() if k in base
               else np.full(n, np.nan)) for k in names}
    for index, m in parts:
        for k, v in m.items():
            out[k][index] = v
    return out


def _dlrm_base(space: SearchSpace, num_gpus: int) -> dict[str, float]:
    from ..workloads.dlrm import scenario_columns

    return scenario_columns(space.scenario(num_gpus), "table")


_DLRM_MODELS: dict[str, dict] = {}


def _dlrm_evaluate(space: SearchSpace, cols: dict[str, Any]) -> dict[str, np.ndarray]:
    """:func:`dse.costmodel.dlrm.evaluate_dlrm` over the plans; the embedding software (table
    precision, placement, optimizer) is the scenario's ``training.dlrm`` for every plan, as in
    :func:`dse.workloads.dlrm.scenario_columns`; ``gpus_per_node`` follows a gpus_per_node knob."""
    from ..costmodel import dlrm as cm
    from ..workloads.dlrm import model_constants

    key = space_key(space)
    if key not in _DLRM_MODELS:
        _DLRM_MODELS.clear()
        _DLRM_MODELS[key] = model_constants(space.base.model)
    c = {k: v for k, v in cols.items() if k in cm.COLUMNS}
    if "gpus_per_node" in cols.get(KNOBS_KEY, ()):
        c["gpus_per_node"] = np.minimum(np.asarray(cols["nvlink_domain"], dtype=np.float64),
                                        np.asarray(c["num_gpus"], dtype=np.float64))
    metrics = cm.evaluate_dlrm(_DLRM_MODELS[key], c)
    # the parts the breakdown figure stacks (they add up to the iteration, as in
    # dse.workloads.dlrm): compute = everything on the compute stream, embeddings included
    metrics["exposed_tp_s"] = metrics["time_tp_s"]
    metrics["exposed_ep_s"] = metrics["time_moe_a2a_s"]
    metrics["time_compute_s"] = np.maximum(
        metrics["iteration_time_s"] - metrics["exposed_tp_s"] - metrics["exposed_ep_s"] - metrics["exposed_a2a_s"]
        - metrics["exposed_dp_s"] - metrics["exposed_emb_allreduce_s"] - metrics["time_overlap_slowdown_s"]
        - metrics["time_overhead_s"], 0.0)
    return metrics


#: Key of the column dict holding the names of the knobs applied (not a cost-model column).
KNOBS_KEY = "__knobs__"

#: Kind of run -> how it is searched. The grid builders are :data:`dse.search.enumerate.GRID_BUILDERS`.
WORKLOADS: dict[str, Workload] = {
    "llm_train": Workload(_training_base, _training_evaluate, PLAN_COLUMNS, INPUT_COLUMNS),
    "vit_train": Workload(_vit_base, _vit_evaluate, PLAN_COLUMNS, INPUT_COLUMNS),
    "vit_inference": Workload(_vit_base, _vit_evaluate, PLAN_COLUMNS, INPUT_COLUMNS),
    "llm_inference": Workload(
        _serving_base, _serving_evaluate,
        ("num_gpus", "phase", "tp", "pp", "dp", "ep", "batch", "spec_tokens", *PREFILL_PLAN),
        ("hbm_bytes", "peak_flops", "nvlink_bw", "scaleout_bw", "nvlink_domain", "input_len", "output_len")),
    "dlrm_train": Workload(
        _dlrm_base, _dlrm_evaluate,
        ("num_gpus", "emb_sharding", "emb_planner", "tp", "dp", "zero", "microbatch", "global_batch"),
        ("hbm_bytes", "peak_flops", "nvlink_bw", "scaleout_bw", "nvlink_domain", "gpus_per_node")),
}
WORKLOADS["dlrm_inference"] = WORKLOADS["dlrm_train"]


def workload(space: SearchSpace) -> Workload:
    """How the space's kind of run is searched."""
    return WORKLOADS[space.kind]


def plan_columns(space: SearchSpace) -> tuple[str, ...]:
    """The plan columns of the space's results (num_gpus first)."""
    return workload(space).plan


def trial_plan(row: pd.Series, space: SearchSpace) -> dict[str, float]:
    """The plan of one scored configuration (without num_gpus), as plain floats."""
    return {key: float(row[key]) for key in plan_columns(space) if key != "num_gpus"}


_GRIDS: dict[tuple[str, int, int], dict[str, np.ndarray]] = {}
_BASES: dict[tuple[str, int, int], dict[str, float]] = {}
_PREFILL_GPUS: dict[tuple[str, int, int], dict[str, float]] = {}


def _grid(space: SearchSpace, num_gpus: int, gpu: float = 0) -> dict[str, np.ndarray]:
    """The plan grid of a GPU count (on the GPU candidate of code ``gpu``, whose server size
    decides which DLRM plans fit whole nodes; 0 = the scenario's GPU), cached per process
    (workers keep theirs across tasks)."""
    gpu = int(gpu) if space.kind in GPU_DEPENDENT_GRIDS else 0  # the other kinds share one grid
    key = (space_key(space), num_gpus, gpu)
    if key not in _GRIDS:
        if len(_GRIDS) > 64:
            _GRIDS.clear()
        _GRIDS[key] = plan_grid(space.on_gpu(gpu), num_gpus)
    return _GRIDS[key]


def _base(space: SearchSpace, num_gpus: int, gpu: float = 0) -> dict[str, float]:
    """The fixed cost-model columns at a GPU count, on the GPU candidate of code ``gpu`` (the
    ``gpu`` knob; 0 = the scenario's GPU), cached per process."""
    key = (space_key(space), num_gpus, int(gpu))
    if key not in _BASES:
        if len(_BASES) > 256:
            _BASES.clear()
        _BASES[key] = workload(space).base(space.on_gpu(gpu), num_gpus)
    return _BASES[key]


def space_key(space: SearchSpace) -> str:
    """A stable digest of a space's validated content."""
    import hashlib

    return hashlib.sha256(space.spec.model_dump_json().encode()).hexdigest()


def _objective_value(df: pd.DataFrame, metric: str, train_tokens: float | None) -> pd.Series:
    if metric == "time_to_train_s":
        return train_tokens / df["tokens_per_s"]
    return df[metric]


def _frame(space: SearchSpace, cols: dict[str, Any], knobs: dict[str, Any], trial: Any, n: int) -> pd.DataFrame:
    """Score ``n`` configurations given as cost-model columns in one call; the results table."""
    w = workload(space)
    metrics = w.evaluate(space, cols) if n else {}
    data: dict[str, Any] = {"trial": np.broadcast_to(np.asarray(trial, dtype=np.int64), (n,))}
    for name in w.plan:
        data[name] = np.broadcast_to(np.asarray(cols[name], dtype=np.float64), (n,))
    if "etp" in data:  # results name the experts' split (the cost model's 0: as tp)
        data["etp"] = np.where(data["etp"] > 0, data["etp"], data["tp"])
    for name, value in knobs.items():
        data[f"hw.{name}"] = np.broadcast_to(np.asarray(value, dtype=np.float64), (n,))
    if GPU_KNOB in knobs:  # what results call the GPU candidate (its preset, or the name given)
        labels, code = space.gpu_labels(), knobs[GPU_KNOB]
        data[GPU_LABEL] = (np.full(n, labels.get(float(code), ""), dtype=object) if np.ndim(code) == 0 else
                           pd.Series(np.asarray(code, dtype=np.float64)).map(labels).fillna("").to_numpy(dtype=object))
    for name in w.inputs:
        data[name] = np.broadcast_to(np.asarray(cols[name], dtype=np.float64), (n,))
    data.update(metrics)
    df = pd.DataFrame(data)
    if not n:
        return df
    df["infeasible_mask"] = df["infeasible_mask"].astype(np.int64)
    if space.spec.train_tokens:
        df["time_to_train_s"] = space.spec.train_tokens / df["tokens_per_s"]
    priced = "price_per_gpu_hour" in cols
    if priced:  # unknown cost, not a free one, for a GPU without a price
        # a deployment's price is its mean over its kinds of GPU (0: one of them unpriced)
        df["price_per_gpu_hour"] = (metrics["price_per_gpu_hour"] if "price_per_gpu_hour" in metrics else
                                    np.broadcast_to(np.asarray(cols["price_per_gpu_hour"], dtype=np.float64), (n,)))
        df = unpriced_as_missing(df)
        # what the configuration's GPUs cost an hour, USD (a budget bounds it; NaN without a price)
        price = df["price_per_gpu_hour"].to_numpy(dtype=np.float64)
        df["cluster_usd_per_hour"] = np.where(price > 0, df["num_gpus"].to_numpy(dtype=np.float64) * price, np.nan)
    df["feasible"] = apply_constraints(df, space)
    if priced and space.spec.price_model is None and GPU_KNOB not in knobs:  # kept when a model or the GPU sets it
        df = df.drop(columns="price_per_gpu_hour")
    return df


def score_point(space: SearchSpace, num_gpus: int, knobs: dict[str, float], trial: int = -1) -> pd.DataFrame:
    """All valid plans of one hardware point, scored in one cost-model call.

    Returns one row per configuration: the plan (:func:`plan_columns`), the knob values
    (``hw.<knob>``), every cost-model metric, ``feasible`` (cost model and the space's
    constraints) and ``trial``.
    """
    gpu = knobs.get(GPU_KNOB, 0)
    grid = _grid(space, int(num_gpus), gpu)
    cols: dict[str, Any] = dict(_base(space, int(num_gpus), gpu))
    cols.update(grid)
    cols = hardware_columns(cols, knobs, space.spec.price_model)
    cols[KNOBS_KEY] = tuple(knobs)
    n = len(grid["num_gpus"])
    return _frame(space, cols, {k: float(v) for k, v in knobs.items()}, trial, n)


def score_configs(space: SearchSpace, rows: list[tuple[int, int, dict[str, float], dict[str, np.ndarray], int]]
                  ) -> pd.DataFrame:
    """One configuration per trial, every trial in one cost-model call (the pure Optuna mode).

    ``rows`` holds (trial number, num_gpus, knobs, plan grid of that GPU count, index of the
    plan in it; -1 when the grid is empty). Trials without a plan get no row.
    """
    picked = []
    for number, gpus, knobs, grid, index in rows:
        if index < 0:
            continue
        cols = dict(_base(space, gpus, knobs.get(GPU_KNOB, 0)))
        cols.update({k: float(v[index]) for k, v in grid.items()})
        picked.append((number, knobs, hardware_columns(cols, knobs, space.spec.price_model)))
    if not picked:
        return pd.DataFrame({"trial": [r[0] for r in rows]})
    names = list(picked[0][2])
    batch: dict[str, Any] = {k: np.array([p[2][k] for p in picked], dtype=np.float64) for k in names}
    batch[KNOBS_KEY] = tuple(space.knobs)
    knobs = {k: np.array([p[1][k] for p in picked], dtype=np.float64) for k in space.knobs}
    return _frame(space, batch, knobs, np.array([p[0] for p in picked], dtype=np.int64), len(picked))


def apply_constraints(df: pd.DataFrame, space: SearchSpace) -> np.ndarray:
    """The cost model's feasibility and the space's constraints (memory fraction, and the metric
    bounds of :data:`dse.search.space.METRIC_CONSTRAINTS` that apply to the kind), as one
    boolean array."""
    feasible = df["feasible"].to_numpy() > 0
    c = space.spec.constraints
    fraction = getattr(c, "max_memory_fraction", None)
    if fraction is not None:
        feasible &= df["memory_per_gpu_bytes"].to_numpy() <= fraction * df["hbm_bytes"].to_numpy()
    for name, (metric, bound, _) in METRIC_CONSTRAINTS.items():
        limit = getattr(c, name, None)
        if not limit or metric not in df:  # unset (or 0 for a lower bound), or not this kind's metric
            continue
        values = df[metric].to_numpy()
        feasible &= values >= limit if bound == "min" else values <= limit
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
    """The study's objective values of one scored configuration. A value the model leaves
    unknown (NaN: the cost of a GPU without a price) is the worst for its direction, never a
    free 0 that would pull the sampler toward it."""
    values = []
    for metric, direction in space.objectives:
        if metric == "time_to_train_s":
            value = float(space.spec.train_tokens) / float(row["tokens_per_s"])
        else:
            value = float(row[metric])
        worst = float("inf") if direction == "minimize" else float("-inf")
        values.append(value if np.isfinite(value) else worst)
    return values
