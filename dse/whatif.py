"""Hardware what-ifs: the best software configuration of every hardware point, and its sensitivity.

``dse whatif SCENARIO --vary KNOB=RANGE [--vary ...]`` answers "what would this training run (or
this deployment) gain from a faster NIC, a larger NVLink domain, more HBM, ...?". For every point
of the cartesian product of the varied knobs (:data:`dse.search.space.KNOBS`, plus ``num_gpus``),
every valid plan of the scenario (:func:`software_space`) is scored in one vectorized call
(:func:`dse.search.evaluation.score_point`) and the best feasible one by tokens/s is kept, so each
point is the best the software can do on that hardware; curves and heatmaps of the best
throughput (and cost, energy) against the knobs follow (:func:`plot_whatif`).

Training (LLM, ViT) plans are parallel degrees, ZeRO, recompute and microbatches; serving (LLM
``workload: inference``) plans are tensor, pipeline and expert parallelism, replicas and the batch
in flight per replica, the best by output tokens/s within optional bounds on the time per output
token and to the first token (``max_itl_ms``, ``max_ttft_ms``), and for a disaggregated deployment (``inference.phase:
disaggregated``) deployments of prefill and decode instances (:func:`serving_space`), whose
bottleneck is the side that bounds their requests/s; DLRM plans (training and
inference) are the embedding sharding and table planner with the MLPs' tensor parallelism and
ZeRO, the best by samples/s (:func:`throughput` names each kind's metric).

At the scenario's own hardware, :func:`sensitivity` gives the elasticity of the best plan's
throughput to each knob, (dT/T)/(dk/k), and :func:`bottleneck` splits its iteration time into
compute (at the FLOP/s roofline or HBM-bound), pipeline bubble, exposed communication on NVLink
and on the scale-out network, and checks memory capacity, naming the resource that bounds it.

Units: SI inside (the cost-model columns); knob values at the edges in the units of their names
(``hbm_gb`` GiB, ``hbm_tbps`` TB/s, ``nvlink_gbps`` GB/s both directions, ``scaleout_gbitps``
Gbit/s one direction, ``peak_scale`` a factor, ``nvlink_domain`` and ``num_gpus`` GPUs). Nothing
here prints.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import FieldProblem, InputError, single
from .search.space import (
    FLAG_KNOBS, INTEGER_KNOBS, KNOBS, NONNEGATIVE_KNOBS, SearchSpace, hardware_columns, space_from_dict,
)
from .specs import Scenario

GIB = 2.0**30

#: Names ``--vary`` accepts: the hardware knobs and the GPU count.
VARY_KNOBS: tuple[str, ...] = (*KNOBS, "num_gpus")
#: Varied dimensions that take whole numbers.
WHOLE_KNOBS = (*INTEGER_KNOBS, "num_gpus")
#: Most hardware points one what-if scores (each scores every valid plan).
MAX_POINTS = 10_000
#: Forms of a ``--vary`` argument, for error messages.
VARY_FORMS = "KNOB=V1,V2,... (a list), KNOB=LO:HI:N (N linear points) or KNOB=LO:HI:N:log (N log-spaced points)"

#: Default candidate degrees of the software space (the scenario's own values are added).
DEFAULT_PARALLEL: dict[str, list[Any]] = {
    "tp": [1, 2, 4, 8],
    "pp": [1, 2, 4, 8, 16],
    "vpp": [1, 2, 4],
    "cp": [1, 2],
    "zero": [0, 1, 2, 3],
    "recompute": ["none", "selective", "full"],
    "microbatch": [1, 2, 4, 8],
}
DENSE_EP = [1]
MOE_EP = [1, 2, 4, 8]
#: Default serving plans: tensor and pipeline degrees, and batches in flight per replica (with
#: ``auto``, the throughput-maximising batch that fits; the scenario's own values are added).
SERVING_PARALLEL: dict[str, list[int]] = {"tp": [1, 2, 4, 8], "pp": [1, 2, 4]}
SERVING_BATCHES = sorted(m * 2**i for i in range(13) for m in (1, 3) if m * 2**i <= 4096)  # 1, 2, 3, 4, 6, ..., 4096
#: Kinds of run a what-if covers.
WHATIF_KINDS = ("llm_train", "vit_train", "vit_inference", "llm_inference", "dlrm_train", "dlrm_inference")
DLRM_KINDS = ("dlrm_train", "dlrm_inference")
#: Knobs only LLM and ViT training use (serving and DLRM do not offload activations).
TRAINING_ONLY_KNOBS = ("host_link_gbps",)
#: Knobs only the attention models use (LLM and ViT training, LLM serving: the softmax units).
ATTENTION_KNOBS = ("exp_tera_per_s",)
#: Knobs only the DLRM model uses (the L2 cache that serves its embedding lookups).
DLRM_ONLY_KNOBS = ("l2_mb",)
#: Default DLRM plans besides the embedding shardings and planners: the MLPs' tensor-parallel
#: degree and ZeRO (0: data parallel, 3: FSDP).
DLRM_PARALLEL: dict[str, list[int]] = {"tp": [1, 2, 4, 8], "zero": [0, 3]}

#: Knobs of the sensitivity analysis, in output order.
SENSITIVITY_KNOBS = ("peak_scale", "hbm_tbps", "hbm_gb", "nvlink_gbps", "scaleout_gbitps", "nvlink_domain",
                     "exp_tera_per_s", "l2_mb")
#: What each knob stands for (the resource).
RESOURCE = {
    "peak_scale": "compute (peak FLOP/s)",
    "hbm_tbps": "memory bandwidth",
    "hbm_gb": "memory capacity",
    "nvlink_gbps": "NVLink bandwidth",
    "scaleout_gbitps": "scale-out bandwidth",
    "nvlink_domain": "NVLink domain size",
    "nvlink_mesh": "NVLink topology",
    "gpus_per_node": "GPUs per server",
    "host_link_gbps": "host link bandwidth",
    "exp_tera_per_s": "softmax exponential rate",
    "l2_mb": "L2 cache",
    "price_per_gpu_hour": "price",
    "power_w": "power limit",
    "num_gpus": "GPU count",
}
#: Units of the knobs, for tables and axes.
UNITS = {
    "hbm_gb": "GiB", "hbm_tbps": "TB/s", "peak_scale": "x", "nvlink_gbps": "GB/s",
    "nvlink_domain": "GPUs", "nvlink_mesh": "1 mesh, 0 switch", "gpus_per_node": "GPUs",
    "scaleout_gbitps": "Gbit/s", "host_link_gbps": "GB/s",
    "exp_tera_per_s": "T/s", "l2_mb": "MiB",
    "price_per_gpu_hour": "USD/GPU-h", "power_w": "W", "num_gpus": "GPUs",
}
#: NVLink domain sizes the sensitivity steps between (HGX servers, NVL36/72/144/576 racks).
DOMAIN_CANDIDATES = (1, 2, 4, 8, 16, 32, 36, 64, 72, 144, 288, 576, 1152, 2304, 4608, 9216)

#: The knob that buys more of the resource behind each time share (the bubble shrinks with compute).
SHARE_KNOB = {"compute": "peak_scale", "memory_bandwidth": "hbm_tbps", "nvlink": "nvlink_gbps",
              "scaleout": "scaleout_gbitps", "pipeline_bubble": "peak_scale", "host_link": "host_link_gbps",
              "rank_imbalance": "peak_scale"}
#: Names :func:`bottleneck` may return.
BOTTLENECKS = ("compute", "memory_bandwidth", "memory_capacity", "nvlink", "scaleout", "pipeline_bubble",
               "overlap_slowdown", "host_link", "host", "engine", "overhead", "rank_imbalance",
               "prefill_instances", "decode_instances", "kv_link")
#: The bottleneck of a disaggregated deployment by the side that bounds its requests/s
#: (:data:`dse.costmodel.disaggregated.BOUND`: prefill, decode, the prefill GPUs' KV sends, the
#: decode GPUs' KV receives).
DEPLOYMENT_BOUND = {0: "prefill_instances", 1: "decode_instances", 2: "kv_link", 3: "kv_link"}
#: A plan using more than this fraction of HBM is bound by memory capacity.
CAPACITY_FRACTION = 0.9
#: More HBM "changes the best plan" when +rel_step HBM gains more than this fraction of throughput.
CAPACITY_GAIN = 0.005

RECOMPUTE_NAMES = {0: "none", 1: "selective", 2: "full"}
RECOMPUTE_CODES = {v: float(k) for k, v in RECOMPUTE_NAMES.items()}
PLAN_COLUMNS = ("tp", "pp", "dp", "cp", "ep", "etp", "vpp", "zero", "sp", "recompute", "offload_layers", "microbatch",
                "global_batch")
#: A serving plan: degrees, replicas (dp), the batch run per replica (sequences) and the draft
#: tokens per iteration of speculative decoding.
SERVING_PLAN_COLUMNS = ("tp", "pp", "dp", "ep", "batch", "spec_tokens")
#: A disaggregated deployment's plan besides its decode instance's (:data:`SERVING_PLAN_COLUMNS`):
#: phase 3, the prefill instance's degrees, its prompt tokens per iteration (0: the engine's
#: default) and its stated number of instances (0: the split that serves the most).
DEPLOYMENT_PLAN_COLUMNS = ("phase", "prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "prefill_max_num_tokens",
                           "prefill_count", "prefill_gpu")
#: What a deployment's point keeps in place of an engine's time parts: the split, which side
#: bounds it (:data:`dse.costmodel.disaggregated.BOUND`), each kind of instance's requests/s, the
#: decode batch at its load, the parts of the TTFT (seconds) and the KV link (bytes, bytes/s).
DEPLOYMENT_OUTPUTS = ("requests_per_s", "prefill_instances", "decode_instances", "idle_gpus", "bound_by",
                      "max_requests_per_s", "prefill_requests_per_s", "decode_requests_per_s", "decode_batch",
                      "prefill_prompt_s", "prefill_wait_s", "kv_transfer_s", "kv_prompt_bytes", "link_bytes_per_s")
#: Draft tokens per iteration a serving what-if tries when the scenario states an acceptance.
SERVING_DRAFTS = [0, 1, 2, 3, 4]
#: A DLRM plan: embedding sharding and planner (codes of dse.costmodel.dlrm), MLP degrees, ZeRO,
#: samples per GPU and per step.
DLRM_PLAN_COLUMNS = ("emb_sharding", "emb_planner", "tp", "dp", "zero", "microbatch", "global_batch")
#: Time columns kept per point; the parts (compute .. overlap slowdown) add up to iteration_time_s.
TIME_COLUMNS = (
    "iteration_time_s", "time_compute_s", "time_compute_flops_s", "time_compute_hbm_s", "time_bubble_s",
    "exposed_tp_s", "exposed_ep_s", "exposed_cp_s", "exposed_fsdp_s", "exposed_pp_s", "exposed_dp_s",
    "exposed_offload_s", "host_stall_s", "time_adp_wait_s", "time_overlap_slowdown_s", "time_power_cap_s",
    "overlapped_tp_s", "overlapped_ep_s", "overlapped_cp_s", "overlapped_fsdp_s", "overlapped_pp_s",
    "overlapped_dp_s",
)
#: Time parts of a DLRM step (they add up to iteration_time_s): the embedding all-to-all and the
#: replicated tables' all-reduce beside the training ones, and the fixed time per kernel and step.
DLRM_TIME_COLUMNS = (
    "iteration_time_s", "time_compute_s", "time_compute_flops_s", "time_compute_hbm_s", "exposed_tp_s",
    "exposed_ep_s", "exposed_a2a_s", "exposed_dp_s", "exposed_emb_allreduce_s", "time_overhead_s",
    "time_overlap_slowdown_s", "time_power_cap_s",
)
#: GPU counts a what-if at an offered load tries, fewest first, for the fewest that serve it.
LOAD_GPU_COUNTS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
#: Further best_* metrics of a serving what-if (milliseconds).
SERVING_METRICS = ("itl_ms", "ttft_ms")
COMM_KINDS = ("tp", "ep", "cp", "fsdp", "pp", "dp", "a2a", "emb_allreduce")


@dataclass(frozen=True)
class Throughput:
    """What a kind of run's what-if maximizes and how it is named: the metric (``rate``, per
    second for the whole job), per GPU, cost and energy per unit, and the unit's words."""

    rate: str
    per_gpu: str
    cost: str
    energy: str
    unit: str  # "tokens", "output tokens", "samples"
    million: str  # "Mtok", "Msample"


TOKENS = Throughput("tokens_per_s", "tokens_per_s_per_gpu", "cost_per_mtok_usd", "energy_per_token_j",
                    "tokens", "Mtok")


def throughput(kind: str) -> Throughput:
    """The throughput metric and its names for a kind of run (samples for DLRM, images for ViT,
    output tokens for serving, tokens otherwise)."""
    if kind in DLRM_KINDS:
        return Throughput("samples_per_s", "samples_per_s_per_gpu", "cost_per_msample_usd", "energy_per_sample_j",
                          "samples", "Msample")
    if kind == "llm_inference":
        return Throughput(TOKENS.rate, TOKENS.per_gpu, TOKENS.cost, TOKENS.energy, "output tokens", "Mtok")
    if kind in ("vit_train", "vit_inference"):  # images, as dse evaluate counts them
        return Throughput("samples_per_s", "samples_per_s_per_gpu", "cost_per_msample_usd", "energy_per_sample_j",
                          "images", "Mimage")
    return TOKENS


@dataclass
class WhatIf:
    """The result of :func:`whatif`.

    ``points``: one row per hardware point (knob columns in knob units, ``num_gpus``, the
    ``best_*`` metrics, the best plan, its time breakdown, ``memory_per_gpu_bytes``,
    ``hbm_bytes``, ``nvlink_domain``, ``plans`` scored and ``feasible_plans``); ``knobs``: the
    varied names in the order given; ``base``: the same row at the scenario's own hardware;
    ``base_values``: the scenario's own value of every knob (knob units); ``sensitivity``: see
    :func:`sensitivity`; ``bound``: :func:`bottleneck` of the base row; ``notes``; ``own``: the
    scenario's own plan evaluated (a row of :func:`dse.evaluate`), to compare the best with;
    ``bounds``: the serving latency bounds applied (milliseconds).
    """

    scenario: Scenario
    points: pd.DataFrame
    knobs: list[str]
    base: pd.Series
    base_values: dict[str, float]
    sensitivity: pd.DataFrame
    bound: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    own: pd.Series | None = None
    #: serving latency bounds the best plans meet (``max_itl_ms``, ``max_ttft_ms``; milliseconds)
    bounds: dict[str, float] = field(default_factory=dict)


# ------------------------------------------------------------------------------ --vary
def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def parse_vary(text: str) -> tuple[str, np.ndarray]:
    """Parse one ``--vary`` argument, ``KNOB=RANGE``, into (knob, sorted unique values).

    KNOB is one of :data:`dse.search.space.KNOBS` or ``num_gpus``; RANGE is a comma list
    (``8,16,36,72``), ``lo:hi:n`` (n linear points) or ``lo:hi:n:log`` (n log-spaced points).
    Whole-number knobs (nvlink_domain, gpus_per_node, num_gpus): a range's points are rounded and
    deduplicated, a listed value that is not whole is an error. Raises :class:`dse.errors.InputError` naming ``--vary``, the text and what is allowed.
    """
    given = text
    if not isinstance(text, str) or "=" not in text:
        raise single("--vary", f"expected {VARY_FORMS}; knobs: {', '.join(VARY_KNOBS)}", given)
    name, _, spec = text.partition("=")
    name, spec = name.strip(), spec.strip()
    if name not in VARY_KNOBS:
        raise single("--vary", f"unknown knob {name!r}; allowed: {', '.join(VARY_KNOBS)}", given)
    if not spec:
        raise single("--vary", f"no values for {name}; expected {VARY_FORMS}", given)
    if ":" in spec:
        parts = [p.strip() for p in spec.split(":")]
        scale = "linear"
        if len(parts) == 4:
            scale = parts.pop().lower()
            if scale not in ("log", "lin", "linear"):
                raise single("--vary", f"the 4th part of LO:HI:N:log must be 'log' (given {scale!r}); "
                                       f"expected {VARY_FORMS}", given)
        if len(parts) != 3:
            raise single("--vary", f"a range has 3 parts LO:HI:N (or LO:HI:N:log); expected {VARY_FORMS}", given)
        try:
            lo, hi = _number(parts[0]), _number(parts[1])
        except ValueError:
            raise single("--vary", f"LO and HI must be finite numbers; expected {VARY_FORMS}", given) from None
        if not parts[2].isdigit() or int(parts[2]) < 2:
            raise single("--vary", "N (the number of points) must be a whole number >= 2", given)
        n = int(parts[2])
        if not lo < hi:
            raise single("--vary", f"LO ({lo:g}) must be below HI ({hi:g})", given)
        if scale == "log":
            if lo <= 0:
                raise single("--vary", f"a log range needs LO > 0 (given LO {lo:g})", given)
            values = np.geomspace(lo, hi, n)
        else:
            values = np.linspace(lo, hi, n)
    else:
        try:
            values = np.asarray([_number(p.strip()) for p in spec.split(",") if p.strip()], dtype=np.float64)
        except ValueError:
            raise single("--vary", f"values must be finite numbers; expected {VARY_FORMS}", given) from None
        if values.size == 0:
            raise single("--vary", f"no values for {name}; expected {VARY_FORMS}", given)
        if name in WHOLE_KNOBS and np.any(values != np.round(values)):
            raise single("--vary", f"{name} takes whole numbers ({UNITS[name]}); a LO:HI:N range is rounded, "
                         "listed values must be whole", given)
    return name, _check_values(name, values, "--vary", given)


def _check_values(name: str, values: Sequence[float] | np.ndarray, where: str, given: Any) -> np.ndarray:
    """Validated knob values: finite, > 0 (>= 0 for prices), whole numbers rounded; sorted, unique."""
    try:
        arr = np.asarray(values, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise single(where, f"{name}: values must be numbers", given) from None
    if arr.size == 0:
        raise single(where, f"{name}: give at least one value", given)
    if not np.isfinite(arr).all():
        raise single(where, f"{name}: values must be finite numbers", given)
    if name in FLAG_KNOBS:
        if not np.isin(arr, (0.0, 1.0)).all():
            raise single(where, f"{name} takes 0 or 1 ({UNITS[name]})", given)
    elif name in WHOLE_KNOBS:
        arr = np.round(arr)
        if (arr < 1).any():
            raise single(where, f"{name} takes whole numbers >= 1 ({UNITS[name]})", given)
    elif name in NONNEGATIVE_KNOBS:
        if (arr < 0).any():
            raise single(where, f"{name} must be >= 0 ({UNITS[name]})", given)
    elif (arr <= 0).any():
        raise single(where, f"{name} must be > 0 ({UNITS[name]})", given)
    return np.unique(arr)


# ------------------------------------------------------------------------------ the software space
def _scenario(scenario: Scenario | str | Path | Mapping[str, Any]) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    from .scenario import load_scenario

    return load_scenario(dict(scenario) if isinstance(scenario, Mapping) else scenario)


def scenario_global_batch(scenario: Scenario) -> int:
    """The scenario's global batch in sequences (parallel.global_batch, else dp * microbatch)."""
    p, n = scenario.parallel, scenario.cluster.num_gpus
    if p.global_batch is not None:
        return int(p.global_batch)
    dp = p.dp if p.dp is not None else max(n // (p.tp * p.pp * p.cp), 1)
    return int(dp * (p.microbatch or 1))


def plan_keys(kind: str, deployments: bool = False) -> tuple[str, ...]:
    """The plan columns of a what-if's rows for a kind of run (``deployments``: of disaggregated
    deployments, the decode instance's plan and the prefill instance's)."""
    if kind in DLRM_KINDS:
        return DLRM_PLAN_COLUMNS
    if kind == "llm_inference":
        return (*SERVING_PLAN_COLUMNS, *DEPLOYMENT_PLAN_COLUMNS) if deployments else SERVING_PLAN_COLUMNS
    return PLAN_COLUMNS


def best_metrics(kind: str) -> tuple[str, ...]:
    """The metrics kept (as ``best_<name>``) per hardware point for a kind of run: its
    :func:`throughput` (whole job, per GPU), MFU, cost and energy per unit, average power per
    GPU; serving adds ITL and TTFT."""
    m = throughput(kind)
    return (m.rate, m.per_gpu, "mfu", m.cost, m.energy, "power_per_gpu_w",
            *(SERVING_METRICS if kind == "llm_inference" else ()))


def time_columns(kind: str, deployments: bool = False) -> tuple[str, ...]:
    """The time parts kept per hardware point for a kind of run (``deployments``: none, a
    deployment's figures instead, :data:`DEPLOYMENT_OUTPUTS`)."""
    if deployments:
        return DEPLOYMENT_OUTPUTS
    if kind in DLRM_KINDS:
        return DLRM_TIME_COLUMNS
    return (*TIME_COLUMNS, "time_engine_s") if kind == "llm_inference" else TIME_COLUMNS


def disaggregated(spec: Scenario) -> bool:
    """Whether a scenario is a disaggregated deployment (``inference.phase: disaggregated``)."""
    return spec.inference is not None and spec.inference.phase == "disaggregated"


def _check_kind(spec: Scenario) -> None:
    if spec.kind not in WHATIF_KINDS:
        raise single("workload", f"a what-if covers {', '.join(WHATIF_KINDS)} runs, not {spec.kind}", spec.kind,
                     spec.name)


def software_space(scenario: Scenario, gpu_counts: Sequence[int] | None = None,
                   max_itl_ms: float | None = None, max_ttft_ms: float | None = None) -> SearchSpace:
    """The candidate plans of a scenario as a :class:`SearchSpace`.

    Training: tp [1, 2, 4, 8], pp [1, 2, 4, 8, 16], vpp [1, 2, 4], cp [1, 2], ep [1] (dense) or
    [1, 2, 4, 8] (MoE), zero [0-3], recompute none/selective/full, microbatch [1, 2, 4, 8],
    sp auto, each list joined with the scenario's own value (so its plan is always a
    candidate); the scenario's global batch. Serving (:func:`serving_space`): tp, pp, ep and the
    batch per replica; DLRM (:func:`dlrm_space`): embedding sharding and planner, tp, zero. GPU
    counts ``gpu_counts`` (default the scenario's num_gpus). Model inline, cluster overrides
    without num_gpus, precision, workload and training switches (serving: the request shape) as
    in the scenario. ``max_itl_ms`` / ``max_ttft_ms`` (serving only) bound the
    time per output token and to the first token, in milliseconds.
    """
    _check_kind(scenario)
    if scenario.kind == "llm_inference":
        return serving_space(scenario, gpu_counts, max_itl_ms, max_ttft_ms)
    if max_itl_ms is not None or max_ttft_ms is not None:
        name = "max_itl_ms" if max_itl_ms is not None else "max_ttft_ms"
        raise single(name, f"bounds an LLM serving latency; this scenario is a {scenario.kind} run "
                     "(an LLM with workload: inference serves)",
                     max_itl_ms if max_itl_ms is not None else max_ttft_ms, scenario.name)
    if scenario.kind in DLRM_KINDS:
        return dlrm_space(scenario, gpu_counts)
    p = scenario.parallel
    par: dict[str, Any] = {k: list(v) for k, v in DEFAULT_PARALLEL.items()}
    par["ep"] = list(MOE_EP if getattr(scenario.model, "moe", None) is not None else DENSE_EP)  # a ViT has none
    for key in ("tp", "pp", "vpp", "cp", "ep", "zero", "recompute"):
        own = getattr(p, key)
        if own not in par[key]:
            par[key].append(own)
    if p.microbatch is not None and p.microbatch not in par["microbatch"]:
        par["microbatch"].append(p.microbatch)
    for key in ("tp", "pp", "vpp", "cp", "ep", "zero", "microbatch"):
        par[key] = sorted(par[key])
    par["sp"] = [False, True] if (p.sp is False and p.tp > 1) else "auto"
    if getattr(scenario.model, "moe", None) is not None:  # experts split as the attention or not at all
        par["etp"] = ["tp", *sorted({1} | ({int(p.etp)} if p.etp is not None else set()))]
    fixed, counts = _fixed_parts(scenario, gpu_counts, training=scenario.training.model_dump())
    data = {"name": "whatif", "scenario": fixed, "gpus": counts, "parallel": par,
            "global_batch": {"sequences": scenario_global_batch(scenario)}}
    return space_from_dict(data, source=scenario.name)


def _fixed_parts(scenario: Scenario, gpu_counts: Sequence[int] | None, **blocks: Any) -> tuple[dict, list[int]]:
    """The fixed part of a what-if space (model, precision, workload, the fine-tuning block, the
    cluster without its GPU count, and ``blocks``) and its GPU counts (default the scenario's)."""
    cluster = scenario.cluster.model_dump(exclude_none=True)
    cluster.pop("num_gpus", None)
    counts = sorted({int(n) for n in (gpu_counts if gpu_counts is not None else [scenario.cluster.num_gpus])})
    fixed = {"model": scenario.model.model_dump(exclude_none=True), "precision": scenario.precision,
             "workload": scenario.workload, "cluster": cluster, **blocks}
    if scenario.finetune is not None:  # what fine-tuning trains (frozen layers, LoRA) is the workload's
        fixed["finetune"] = scenario.finetune.model_dump(exclude_none=True)
    return fixed, counts


def serving_space(scenario: Scenario, gpu_counts: Sequence[int] | None = None,
                  max_itl_ms: float | None = None, max_ttft_ms: float | None = None) -> SearchSpace:
    """The candidate serving plans of an LLM inference scenario as a :class:`SearchSpace`.

    tp [1, 2, 4, 8], pp [1, 2, 4], ep [1] (dense) or [1, 2, 4, 8] (MoE), each joined with the
    scenario's own value; dp = num_gpus / (tp*pp) replicas; the batch per replica 1, 2, 3, 4, 6,
    8, ..., 3072, 4096 (powers of two and 1.5 times them) and ``auto`` (the throughput-maximising
    batch that fits) with the scenario's own batch, or only ``auto`` when clients set it
    (``concurrency``) or the load (``request_rate``); when the scenario states a draft acceptance, 0-4 draft tokens of
    speculative decoding (else the scenario's own). The request shape is the scenario's.
    Latency bounds in milliseconds become the space's constraints.

    A disaggregated deployment (``phase: disaggregated``) is searched as deployments only: its
    decode instances take the plans above (with the scenario's replicas per decode instance), its
    prefill instances tp [1, 2, 4, 8], pp [1], ep [1] (dense) or [1, 2, 4, 8] (MoE), each joined
    with the scenario's ``prefill`` block (whose replicas and prompt tokens per iteration are
    kept), and the GPUs split as the scenario says (its ``prefill.instances``) or as serves the
    most requests. Prefill instances on another GPU (``prefill.gpu``) keep it: the knobs then vary
    the cluster's GPU, the decode instances'.
    """
    p, spec = scenario.parallel, scenario.inference
    if spec is None:
        raise single("inference", "a serving scenario needs an inference block {input_len, output_len, ...}",
                     None, scenario.name)
    par: dict[str, Any] = {k: sorted(set(v) | {int(getattr(p, k))}) for k, v in SERVING_PARALLEL.items()}
    par["ep"] = sorted(set(MOE_EP if scenario.model.moe is not None else DENSE_EP) | {int(p.ep)})
    if spec.concurrency is not None or spec.request_rate is not None:
        par["batch"] = ["auto"]  # the clients or the offered rate set the batch
    else:
        cap = spec.max_batch or math.inf  # batches the engine can never run are not plans to count
        par["batch"] = [*sorted(b for b in set(SERVING_BATCHES) | ({int(spec.batch)} if spec.batch else set())
                                if b <= cap), "auto"]
    own_drafts = {int(spec.speculative_tokens)}
    par["speculative_tokens"] = sorted(set(SERVING_DRAFTS) | own_drafts if spec.draft_acceptance is not None
                                       else own_drafts)
    inference = spec.model_dump(exclude_none=True)
    inference.pop("batch", None)
    if spec.phase == "disaggregated":  # deployments of prefill and decode instances, no engines
        pre = spec.prefill
        inference.pop("prefill", None)
        inference["phase"] = "both"
        moe = scenario.model.moe is not None
        par["disaggregated"] = {
            "tp": sorted(set(SERVING_PARALLEL["tp"]) | {int(pre.tp)}), "pp": sorted({1, int(pre.pp)}),
            "dp": [int(pre.dp)], "ep": sorted(set(MOE_EP if moe else DENSE_EP) | {int(pre.ep)}),
            "decode_dp": [int(p.dp or 1)], "instances": [int(pre.instances)] if pre.instances else ["auto"],
            "engines": False}
        if pre.max_num_tokens:
            par["disaggregated"]["max_num_tokens"] = [int(pre.max_num_tokens)]
        if pre.gpu is not None and pre.gpu != scenario.cluster.gpu:  # the knobs then vary the decode GPU
            par["disaggregated"]["gpu"] = [{"gpu": pre.gpu, "price_per_gpu_hour": pre.price_per_gpu_hour}
                                           if pre.price_per_gpu_hour is not None else pre.gpu]
    fixed, counts = _fixed_parts(scenario, gpu_counts, inference=inference)
    constraints = {k: float(v) for k, v in (("max_itl_ms", max_itl_ms), ("max_ttft_ms", max_ttft_ms))
                   if v is not None}
    data = {"name": "whatif", "scenario": fixed, "gpus": counts, "parallel": par,
            "objectives": [{"metric": "tokens_per_s_per_gpu", "direction": "maximize"},
                           {"metric": "itl_ms", "direction": "minimize"}]}
    if constraints:
        data["constraints"] = constraints
    return space_from_dict(data, source=scenario.name)


def dlrm_space(scenario: Scenario, gpu_counts: Sequence[int] | None = None) -> SearchSpace:
    """The candidate plans of a DLRM scenario as a :class:`SearchSpace`.

    Every embedding sharding (table, row, column, table_row, auto, hier_auto, node_sharded,
    data_parallel, and the scenario's own, e.g. hybrid) under both table planners (cost- and
    memory-balanced), tp [1, 2, 4, 8] and zero [0, 3] for the MLPs, each joined with the
    scenario's own value; the scenario's global batch in samples (microbatch = samples / GPUs);
    model, precision, workload, cluster overrides and the embedding software as in the scenario.
    """
    from .search.space import EMB_SHARDINGS

    p = scenario.parallel
    shardings = [s for s in EMB_SHARDINGS if s != "hybrid"]
    if p.emb_sharding is not None and p.emb_sharding not in shardings:
        shardings.append(p.emb_sharding)
    par: dict[str, Any] = {"emb_sharding": shardings, "emb_planner": ["cost", "memory"]}
    for key, values in DLRM_PARALLEL.items():
        own = int(getattr(p, key) or values[0])
        par[key] = sorted(set(values) | {own})
    samples = p.global_batch if p.global_batch is not None else (p.microbatch or 1) * scenario.cluster.num_gpus
    fixed, counts = _fixed_parts(scenario, gpu_counts, training=scenario.training.model_dump())
    data = {"name": "whatif", "scenario": fixed, "gpus": counts, "parallel": par,
            "global_batch": {"samples": int(samples)},
            "objectives": [{"metric": "samples_per_s", "direction": "maximize"}]}
    return space_from_dict(data, source=scenario.name)


def base_knob_values(scenario: Scenario) -> dict[str, float]:
    """The scenario's own value of every knob, in knob units (peak_scale 1)."""
    from .hardware import resolve_hardware

    hw = resolve_hardware(scenario.cluster, scenario.precision)
    return {
        "hbm_gb": hw.hbm_bytes / GIB,
        "hbm_tbps": hw.hbm_bw / 1e12,
        "peak_scale": 1.0,
        "nvlink_gbps": hw.nvlink_bw * 2.0 / 1e9,
        "nvlink_domain": float(hw.nvlink_domain),
        "nvlink_mesh": hw.nvlink_mesh,
        "gpus_per_node": float(hw.gpus_per_node),
        "scaleout_gbitps": hw.scaleout_bw * 8.0 / 1e9,
        "host_link_gbps": hw.host_link_bw * 2.0 / 1e9,
        "exp_tera_per_s": hw.exp_rate / 1e12,
        "l2_mb": hw.l2_bytes / 2.0**20,
        "price_per_gpu_hour": hw.price_per_gpu_hour,
        "power_w": hw.power_w,
        "num_gpus": float(scenario.cluster.num_gpus),
    }


# ------------------------------------------------------------------------------ scoring
def _best_of(scored: pd.DataFrame, rate: str = "tokens_per_s", lowest: str | None = None) -> pd.Series | None:
    """The feasible row with the highest ``rate`` (tokens/s, samples/s; first on ties: the grid's
    order), or with the lowest ``lowest`` when given (at an offered load every feasible plan
    serves the same tokens/s: the lowest ITL), or None."""
    if scored.empty:
        return None
    feasible = scored[scored["feasible"].to_numpy(dtype=bool)]
    if feasible.empty:
        return None
    return feasible.loc[feasible[lowest].idxmin()] if lowest else feasible.loc[feasible[rate].idxmax()]


def _at_load(space: SearchSpace) -> bool:
    """Whether a space serves an offered load (a serving scenario with a request rate)."""
    inference = space.spec.scenario.get("inference") or {}
    return space.kind == "llm_inference" and inference.get("request_rate") is not None


def _score(space: SearchSpace, num_gpus: int, knobs: dict[str, float]) -> tuple[pd.Series | None, int, int]:
    """(best feasible row, plans scored, feasible plans) of one hardware point."""
    from .search.evaluation import score_point

    scored = score_point(space, int(num_gpus), dict(knobs))
    n = len(scored)
    feasible = int(scored["feasible"].sum()) if n else 0
    return _best_of(scored, throughput(space.kind).rate, "itl_ms" if _at_load(space) else None), n, feasible


def _fewest_gpus(space: SearchSpace, counts: Sequence[int],
                 knobs: dict[str, float]) -> tuple[int, pd.Series | None, int, int]:
    """At an offered load: the fewest of ``counts`` (ascending) with a plan that serves it within
    the space's bounds, and (GPUs, best row, plans scored there, feasible plans there); the
    largest count and no row when none does."""
    for n in counts:
        best, plans, feasible = _score(space, n, knobs)
        if best is not None:
            return n, best, plans, feasible
    return counts[-1], None, plans, feasible


def _plan_columns(plan: Mapping[str, Any] | pd.Series, kind: str = "llm_train",
                  deployments: bool = False) -> dict[str, float]:
    """The cost-model plan columns of a plan row (recompute as a name or a code)."""
    out = {}
    for key in plan_keys(kind, deployments):
        value = plan[key]
        if key == "recompute" and isinstance(value, str):
            value = RECOMPUTE_CODES[value]
        elif key == "sp" and isinstance(value, (bool, np.bool_)):
            value = float(value)
        out[key] = float(value)
    return out


def _evaluate_plan(space: SearchSpace, plan: Mapping[str, Any], num_gpus: int,
                   knobs: dict[str, Any], scale_hbm_bw: float = 1.0) -> dict[str, np.ndarray]:
    """Cost-model metrics of one plan on hardware points given as knob arrays (vectorized); a
    serving plan keeps the batch it ran."""
    from .search.evaluation import workload

    cols: dict[str, Any] = dict(space.base_columns(int(num_gpus)))
    cols.update(_plan_columns(plan, space.kind, _deployments(space)))
    cols["num_gpus"] = float(num_gpus)
    cols = hardware_columns(cols, knobs)
    if scale_hbm_bw != 1.0:
        cols["hbm_bw"] = np.asarray(cols["hbm_bw"], dtype=np.float64) * scale_hbm_bw
    return workload(space).evaluate(space, cols)


def _deployments(space: SearchSpace) -> bool:
    """Whether a what-if space searches disaggregated deployments (:func:`serving_space`)."""
    pre = getattr(space.spec.parallel, "disaggregated", None)
    return pre is not None and not pre.engines


def _point_row(knob_values: dict[str, float], num_gpus: int, best: pd.Series | None,
               plans: int, feasible: int, kind: str = "llm_train", deployments: bool = False) -> dict[str, Any]:
    row: dict[str, Any] = {**knob_values, "num_gpus": float(num_gpus)}
    for m in best_metrics(kind):
        row[f"best_{m}"] = float(best[m]) if best is not None else math.nan
    for key in plan_keys(kind, deployments):
        if best is None:
            row[key] = None if key == "recompute" else math.nan
        elif key == "recompute":
            row[key] = RECOMPUTE_NAMES[int(round(float(best[key])))]
        else:
            row[key] = float(best[key])
    for key in (*time_columns(kind, deployments), "memory_per_gpu_bytes", "hbm_bytes", "nvlink_domain"):
        if best is not None and key in best.index:
            row[key] = float(best[key])
        elif key not in row:  # a varied nvlink_domain keeps its value
            row[key] = math.nan
    row["plans"] = int(plans)
    row["feasible_plans"] = int(feasible)
    return row


def _split_compute(space: SearchSpace, rows: list[dict[str, Any]], knob_rows: list[dict[str, float]],
                   base_values: dict[str, float]) -> None:
    """Fill time_compute_flops_s (the compute time with unlimited HBM bandwidth: matmuls and
    attention at their FLOP/s roofline) and time_compute_hbm_s (the rest: HBM-bound kernels,
    elementwise passes, the optimizer step) of every row with a best plan, in place, in one
    vectorized cost-model call per GPU count. Serving rows also get time_engine_s: the engine's time per
    iteration and per sequence, which neither more FLOP/s nor more bandwidth shortens (taken out
    of time_compute_flops_s)."""
    from .search.evaluation import workload

    if _deployments(space):  # a deployment's time is its instances': no split of its own
        return
    kept = [i for i, r in enumerate(rows) if math.isfinite(float(r.get("tp", math.nan)))]
    for n in sorted({int(rows[i]["num_gpus"]) for i in kept}):  # one call per GPU count (its fixed columns)
        keep = [i for i in kept if int(rows[i]["num_gpus"]) == n]
        names = sorted({k for i in keep for k in knob_rows[i]})
        cols: dict[str, Any] = dict(space.base_columns(n))
        plans = [_plan_columns(rows[i], space.kind) for i in keep]
        for key in plan_keys(space.kind):
            cols[key] = np.asarray([p[key] for p in plans], dtype=np.float64)
        cols["num_gpus"] = np.full(len(keep), float(n))
        knobs = {k: np.asarray([knob_rows[i].get(k, base_values[k]) for i in keep], dtype=np.float64)
                 for k in names}
        cols = hardware_columns(cols, knobs)
        cols["hbm_bw"] = np.asarray(cols["hbm_bw"], dtype=np.float64) * 1e6
        engine = None
        if space.kind == "llm_inference":
            # serving compute also holds the engine's own time per iteration and per sequence
            # (scheduling, sampling, launches), which neither FLOP/s nor bandwidth shortens: it
            # is what is left with both unlimited
            evaluate = workload(space).evaluate
            flops = evaluate(space, cols)["time_compute_s"]
            unlimited = {**cols, **{k: np.asarray(cols[k], dtype=np.float64) * 1e6
                                    for k in ("peak_flops", "peak_flops_16")}}
            engine = evaluate(space, unlimited)["time_compute_s"]
        elif space.kind in DLRM_KINDS:  # embeddings and elementwise passes free with unlimited bandwidth
            flops = workload(space).evaluate(space, cols)["time_compute_s"]
        else:
            from .costmodel import evaluate_training

            flops = evaluate_training(cols, outputs=["time_compute_s"])["time_compute_s"]
        for j, (i, f) in enumerate(zip(keep, flops)):
            total = float(rows[i]["time_compute_s"])
            fixed = 0.0
            if engine is not None:
                fixed = min(float(engine[j]), total)
                rows[i]["time_engine_s"] = fixed
            rows[i]["time_compute_flops_s"] = min(max(float(f) - fixed, 0.0), total - fixed)
            rows[i]["time_compute_hbm_s"] = max(total - float(f), 0.0)


def whatif(scenario: Scenario | str | Path | Mapping[str, Any],
           vary: Mapping[str, Sequence[float]] | None = None, rel_step: float = 0.1,
           max_itl_ms: float | None = None, max_ttft_ms: float | None = None) -> WhatIf:
    """The best software configuration of every hardware point of the varied knobs.

    ``vary`` maps knob names (:data:`VARY_KNOBS`) to values in knob units; the points are their
    cartesian product (in the order given), each at the scenario's own value of every other
    knob. ``num_gpus`` varies the GPU count (a training run's global batch stays the
    scenario's; a deployment's replicas grow with it). Every valid plan of
    :func:`software_space` is scored per point and the best feasible by tokens/s kept (serving:
    output tokens/s, among the plans within ``max_itl_ms`` and ``max_ttft_ms``, milliseconds;
    DLRM: samples/s; a DLRM's global batch, in samples, stays the scenario's). A serving scenario
    with an offered ``request_rate``: every plan that keeps up serves the same tokens/s, so a
    point's best is the fewest GPUs of :data:`LOAD_GPU_COUNTS` with a plan that serves the load
    within the bounds, then the lowest ITL (at the given counts when ``num_gpus`` is varied); no
    sensitivity (an empty table).
    Also computes :func:`sensitivity` and :func:`bottleneck` at the scenario's own hardware.
    Raises :class:`dse.errors.InputError` for a bad scenario, knob or value.
    """
    spec = _scenario(scenario)
    _check_kind(spec)
    if not 0.0 < float(rel_step) < 1.0:
        raise single("rel_step", "must be between 0 and 1 (exclusive), e.g. 0.1 for +/-10 %", rel_step)
    for name, bound in (("max_itl_ms", max_itl_ms), ("max_ttft_ms", max_ttft_ms)):
        if bound is not None and not (math.isfinite(float(bound)) and float(bound) > 0):
            raise single(name, "must be a positive number of milliseconds", bound)
    vary = dict(vary or {})
    problems = [FieldProblem(f"vary.{k}", repr(k), f"unknown knob; allowed: {', '.join(VARY_KNOBS)}")
                for k in vary if k not in VARY_KNOBS]
    serving = spec.kind == "llm_inference"
    if serving or spec.kind in DLRM_KINDS:
        what = "serving" if serving else "a DLRM"
        not_theirs = TRAINING_ONLY_KNOBS if serving else TRAINING_ONLY_KNOBS + ATTENTION_KNOBS
        problems += [FieldProblem(f"vary.{k}", repr(k), f"an LLM training knob: {what} does not offload activations"
                                  + ("" if serving else " nor model the softmax units")
                                  + f"; {'serving' if serving else 'DLRM'} knobs: "
                                  + ", ".join(k for k in VARY_KNOBS if k not in not_theirs))
                     for k in vary if k in not_theirs]
    if spec.kind not in DLRM_KINDS:
        problems += [FieldProblem(f"vary.{k}", repr(k), "a DLRM knob: only the DLRM model has an L2 cache term "
                                  "(its embedding lookups)") for k in vary if k in DLRM_ONLY_KNOBS]
    if problems:
        raise InputError(problems)
    grids = {k: _check_values(k, v, f"vary.{k}", v) for k, v in vary.items()}
    if "power_w" in grids:
        from .hardware import power_limit_problem, resolve_hardware

        hw = resolve_hardware(spec.cluster, spec.precision)
        problem = power_limit_problem(float(grids["power_w"][0]), hw.gpu, hw.power_ref_w, hw.power_idle)
        if problem:
            raise single("vary.power_w", problem, f"{grids['power_w'][0]:g}")
    total = int(np.prod([len(v) for v in grids.values()])) if grids else 1
    if total > MAX_POINTS:
        sizes = " x ".join(f"{len(v)} {k}" for k, v in grids.items())
        raise single("vary", f"{total:,} hardware points ({sizes}) is more than the {MAX_POINTS:,} a what-if "
                             "scores; use fewer values (or dse search for a sampled co-design study)", sizes)
    base_values = base_knob_values(spec)
    counts = [int(n) for n in grids.get("num_gpus", [spec.cluster.num_gpus])]
    # an offered load: every plan that keeps up serves the same tokens/s, so each point's best is
    # the fewest GPUs that serve it (unless the GPU count is varied), then the lowest ITL
    at_load = serving and spec.inference is not None and spec.inference.request_rate is not None
    ladder = sorted(set(LOAD_GPU_COUNTS) | {spec.cluster.num_gpus}) if at_load and "num_gpus" not in grids else None
    space = software_space(spec, ladder or sorted(set(counts) | {spec.cluster.num_gpus}), max_itl_ms, max_ttft_ms)
    kind = space.kind
    dep = _deployments(space)
    names = list(grids)
    hw_names = [k for k in names if k != "num_gpus"]

    def best_at(n: int, point: dict[str, float]) -> tuple[int, pd.Series | None, int, int]:
        if ladder is not None:
            return _fewest_gpus(space, ladder, point)
        return (n, *_score(space, n, point))

    rows: list[dict[str, Any]] = []
    knob_rows: list[dict[str, float]] = []
    for combo in itertools.product(*[grids[k] for k in names]):
        point = dict(zip(names, (float(v) for v in combo)))
        n, best, plans, feasible = best_at(int(point.pop("num_gpus", spec.cluster.num_gpus)), point)
        shown = {k: point[k] for k in hw_names}
        rows.append(_point_row(shown, n, best, plans, feasible, kind, dep))
        knob_rows.append(point)
    base_n, base_best, plans, feasible = best_at(spec.cluster.num_gpus, {})
    base_row = _point_row({k: base_values[k] for k in hw_names}, base_n, base_best, plans, feasible, kind, dep)
    _split_compute(space, [*rows, base_row], [*knob_rows, {}], base_values)
    for row in (*rows, base_row):  # points without a feasible plan have no split
        for key in time_columns(kind, dep):
            row.setdefault(key, math.nan)

    columns = list(dict.fromkeys([
        *hw_names, "num_gpus", *[f"best_{m}" for m in best_metrics(kind)], *plan_keys(kind, dep),
        *time_columns(kind, dep),
        "memory_per_gpu_bytes", "hbm_bytes", "nvlink_domain", "plans", "feasible_plans"]))
    points = pd.DataFrame(rows, columns=columns)
    base = pd.Series(base_row)[columns]
    sens = (_sensitivity(spec, space, base_best, spec.cluster.num_gpus, rel_step, base_values) if not at_load
            else pd.DataFrame(columns=sensitivity_columns(throughput(kind).rate)))
    bound = bottleneck(base, sens)
    notes = []
    from .search.enumerate import no_plan_reason

    empty = [] if ladder is not None else sorted({int(n) for n in points.loc[points["plans"].eq(0), "num_gpus"]})
    for n in empty[:4]:  # no candidate plan lays out there at all: say why
        notes.append(f"no plan lays out on {n} GPUs ({no_plan_reason(space, n)}): nothing was scored there")
    unfit = points["feasible_plans"].eq(0) & points["plans"].gt(0)
    if unfit.any():
        why = ("nothing fits in memory, or no plan meets the latency bounds" if serving
               else "nothing fits in memory")
        notes.append(f"{int(unfit.sum())} of {len(points)} hardware points have no feasible plan ({why})")
    if serving and at_load:
        bounds = [f"{label} <= {v:g} ms" for label, v in (("ITL", max_itl_ms), ("TTFT", max_ttft_ms)) if v is not None]
        rate = spec.inference.request_rate
        how = (f"the fewest GPUs ({', '.join(str(n) for n in ladder[:6])}, ... {ladder[-1]}) with a plan that serves it"
               if ladder is not None else "at each GPU count, the plan")
        notes.append(f"serving an offered load of {rate:g} requests/s: every plan that keeps up serves the same "
                     f"tokens/s, so each point's best is {how}"
                     + (f" within {' and '.join(bounds)}" if bounds else "") + ", then the lowest ITL; "
                     "throughput elasticities do not apply (no sensitivity table)")
        if ladder is not None and points["feasible_plans"].eq(0).any():
            notes.append(f"no plan on up to {ladder[-1]} GPUs serves the load at some points")
    if disaggregated(spec) and spec.inference.prefill.gpu not in (None, spec.cluster.gpu):
        notes.append(f"the prefill instances stay on {spec.inference.prefill.gpu}: the knobs vary the cluster's "
                     f"{spec.cluster.gpu}, the decode instances'")
    if serving and not at_load:
        bounds = [f"{label} <= {v:g} ms" for label, v in (("ITL", max_itl_ms), ("TTFT", max_ttft_ms)) if v is not None]
        notes.append("serving: the best plan by output tokens/s" + (f" with {' and '.join(bounds)}" if bounds else
                     " (no latency bound: give --max-itl-ms / --max-ttft-ms to trade throughput for latency)"))
    from .api import evaluate

    own = evaluate(spec, explain=True).iloc[0]
    bounds = {k: float(v) for k, v in (("max_itl_ms", max_itl_ms), ("max_ttft_ms", max_ttft_ms)) if v is not None}
    return WhatIf(scenario=spec, points=points, knobs=names, base=base, base_values=base_values,
                  sensitivity=sens, bound=bound, notes=notes, own=own, bounds=bounds)


# ------------------------------------------------------------------------------ sensitivity
def _domain_step(domain: float, num_gpus: float) -> float:
    """The next NVLink domain size above ``domain`` (e.g. 8 -> 16, 64 -> 72)."""
    bigger = [d for d in DOMAIN_CANDIDATES if d > domain]
    return float(bigger[0]) if bigger else float(domain * 2)


def sensitivity(scenario: Scenario | str | Path | Mapping[str, Any], plan_row: Mapping[str, Any] | None = None,
                rel_step: float = 0.1, max_itl_ms: float | None = None,
                max_ttft_ms: float | None = None) -> pd.DataFrame:
    """Elasticity of the throughput to each knob at the scenario's own hardware.

    The plan is ``plan_row`` (a row of :attr:`WhatIf.points`, of a search or of
    :func:`dse.evaluate`: tp, pp, dp, cp, ep, vpp, zero, sp, recompute, microbatch, global_batch,
    and num_gpus if it differs from the scenario's; serving: tp, pp, dp, ep and the batch run) or,
    by default, the best plan at the scenario's hardware (serving: within ``max_itl_ms`` and
    ``max_ttft_ms``). elasticity = (dT/T)/(dk/k), T tokens/s:

    * peak_scale (compute), hbm_tbps (memory bandwidth), nvlink_gbps, scaleout_gbitps,
      exp_tera_per_s (the softmax exponentials of fused attention; training only): the plan
      kept, central differences at k(1 - rel_step) and k(1 + rel_step);
    * hbm_gb (memory capacity): capacity only decides which plans fit, so the BEST throughput
      over all plans is re-optimized at each capacity (central differences);
    * nvlink_domain: the plan kept, one step up to the next domain size (e.g. 8 -> 16), a forward
      difference (``minus`` is the base).

    Also ``elasticity_reoptimized``: the same differences with the best plan re-optimized at
    every value. Columns: knob, resource, unit, base, minus, plus (knob units), tokens_per_s
    (at the base), tokens_per_s_minus, tokens_per_s_plus (samples_per_s... for a DLRM),
    elasticity, elasticity_reoptimized, plan ("fixed" or "re-optimized": which one
    ``elasticity`` is).
    """
    spec = _scenario(scenario)
    _check_kind(spec)
    if not 0.0 < float(rel_step) < 1.0:
        raise single("rel_step", "must be between 0 and 1 (exclusive), e.g. 0.1 for +/-10 %", rel_step)
    n = int(spec.cluster.num_gpus)
    if plan_row is not None and "num_gpus" in plan_row and plan_row["num_gpus"] is not None \
            and math.isfinite(float(plan_row["num_gpus"])):
        n = int(round(float(plan_row["num_gpus"])))
    space = software_space(spec, sorted({n, spec.cluster.num_gpus}), max_itl_ms, max_ttft_ms)
    plan = plan_row
    if plan is None:
        plan, _, _ = _score(space, n, {})
    elif any(k not in plan or plan[k] is None or (isinstance(plan[k], float) and math.isnan(plan[k]))
             for k in plan_keys(space.kind, _deployments(space))):
        plan = None
    return _sensitivity(spec, space, plan, n, rel_step, base_knob_values(spec))


def sensitivity_columns(rate: str) -> list[str]:
    """The columns of :func:`sensitivity` for a throughput named ``rate``."""
    return ["knob", "resource", "unit", "base", "minus", "plus", rate, f"{rate}_minus", f"{rate}_plus",
            "elasticity", "elasticity_reoptimized", "plan"]


def _sensitivity(spec: Scenario, space: SearchSpace, plan: Mapping[str, Any] | None, num_gpus: int,
                 rel_step: float, base_values: dict[str, float]) -> pd.DataFrame:
    step = float(rel_step)
    rows = []
    llm_training = space.kind in ("llm_train", "vit_train", "vit_inference")
    attention = llm_training or space.kind == "llm_inference"
    knobs = [k for k in SENSITIVITY_KNOBS if (llm_training or k not in TRAINING_ONLY_KNOBS)
             and (attention or k not in ATTENTION_KNOBS)
             and (space.kind in DLRM_KINDS or k not in DLRM_ONLY_KNOBS)]
    rate = throughput(space.kind).rate
    lows, highs = [], []
    for k in knobs:
        k0 = base_values[k]
        if k == "nvlink_domain":
            lows.append(k0)
            highs.append(_domain_step(k0, num_gpus))
        else:
            lows.append(k0 * (1.0 - step))
            highs.append(k0 * (1.0 + step))
    # the plan kept: every perturbation in one vectorized call (row 0 the base, then -/+ per knob)
    fixed = np.full((len(knobs), 2), math.nan)
    t_plan = math.nan
    if plan is not None:
        arrays = {k: np.full(1 + 2 * len(knobs), base_values[k]) for k in knobs}
        for i, k in enumerate(knobs):
            arrays[k][1 + 2 * i] = lows[i]
            arrays[k][2 + 2 * i] = highs[i]
        tps = _evaluate_plan(space, plan, num_gpus, arrays)[rate]
        t_plan = float(tps[0])
        fixed = np.asarray(tps[1:], dtype=np.float64).reshape(len(knobs), 2)
    # re-optimized: the best plan at every perturbed point
    best0, _, _ = _score(space, num_gpus, {})
    t_best = float(best0[rate]) if best0 is not None else math.nan

    def best_at(knob: str, value: float) -> float:
        row, _, _ = _score(space, num_gpus, {knob: value})
        return float(row[rate]) if row is not None else math.nan

    for i, k in enumerate(knobs):
        k0, lo, hi = base_values[k], lows[i], highs[i]
        dk = (hi - lo) / k0
        re_lo = t_best if k == "nvlink_domain" else best_at(k, lo)
        re_hi = best_at(k, hi)
        e_re = (re_hi - re_lo) / t_best / dk if dk > 0 and t_best > 0 else math.nan
        if k == "hbm_gb":
            t0, t_lo, t_hi, e, how = t_best, re_lo, re_hi, e_re, "re-optimized"
        else:
            t0, t_lo, t_hi = t_plan, float(fixed[i, 0]), float(fixed[i, 1])
            e = (t_hi - t_lo) / t0 / dk if dk > 0 and t0 > 0 else math.nan
            how = "fixed"
        rows.append({
            "knob": k, "resource": RESOURCE[k], "unit": UNITS[k], "base": k0, "minus": lo, "plus": hi,
            rate: t0, f"{rate}_minus": t_lo, f"{rate}_plus": t_hi,
            "elasticity": e, "elasticity_reoptimized": e_re, "plan": how,
        })
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------ bottleneck
def _get(row: Mapping[str, Any] | pd.Series, key: str, default: float = 0.0) -> float:
    try:
        value = row[key]
    except (KeyError, IndexError):
        return default
    try:
        x = float(value)
    except (TypeError, ValueError):
        return default
    return x if math.isfinite(x) else default


def _pct(x: float) -> str:
    """A fraction as a percentage: one decimal near 0 and 100 %, else none."""
    p = 100.0 * x
    return f"{p:.1f} %" if (p < 10 or p > 90) and round(p, 1) != round(p) else f"{p:.0f} %"


def placement(row: Mapping[str, Any] | pd.Series) -> dict[str, str]:
    """Which network level each parallel group's communication runs on: ``nvlink`` when the
    whole group sits in one NVLink domain, else ``scaleout`` (ranks laid out tp innermost, then
    cp and dp, pp outermost, as the cost model places them): tp spans when tp > domain; cp
    when tp*cp > domain; ep when tp*ep > domain; dp and fsdp when tp*cp*dp > domain; pp when
    tp*cp*dp*pp > domain; a DLRM's embedding all-to-all (a2a) and replicated-table all-reduce
    (emb_allreduce) span every GPU, so when tp*dp > domain (the exchange then crosses the
    scale-out network, even where a hierarchical plan keeps part of it inside a server)."""
    tp, cp, dp, ep, pp = (max(_get(row, k, 1.0), 1.0) for k in ("tp", "cp", "dp", "ep", "pp"))
    domain = max(_get(row, "nvlink_domain", 8.0), 1.0)
    extent = {"tp": tp, "cp": tp * cp, "ep": tp * ep, "dp": tp * cp * dp, "fsdp": tp * cp * dp,
              "pp": tp * cp * dp * pp}
    keys = row.index if isinstance(row, pd.Series) else row.keys()
    if "emb_sharding" in keys:  # a DLRM
        extent.update(a2a=tp * dp, emb_allreduce=tp * dp)
    return {k: ("nvlink" if extent[k] <= domain else "scaleout") for k in COMM_KINDS if k in extent}


def bottleneck(row: Mapping[str, Any] | pd.Series, sensitivity: pd.DataFrame | None = None) -> dict[str, Any]:
    """Where one scored configuration's iteration time goes, and the resource that bounds it.

    ``row``: a row of :attr:`WhatIf.points`, of :func:`dse.search.evaluation.score_point` or of
    :func:`dse.evaluate` (the time breakdown columns, the plan, nvlink_domain, memory and HBM).
    Returns ``shares`` (fractions of the iteration time, summing to 1): ``compute`` (with
    ``time_compute_flops_s`` in the row: only the part at the FLOP/s roofline) and
    ``memory_bandwidth`` (the HBM-bound rest of compute), ``engine`` (serving, with
    ``time_engine_s`` in the row: the engine's own time per iteration and per sequence, out of
    compute), ``pipeline_bubble``, ``nvlink`` and
    ``scaleout`` (exposed communication of the groups inside one NVLink domain or spanning
    domains, see :func:`placement`), ``overlap_slowdown``, ``host_link``, ``host`` and (DLRM)
    ``overhead``, the fixed time per kernel and step; ``memory_fraction`` (memory per GPU /
    HBM); ``capacity_gain`` (with ``sensitivity``: the throughput gained by re-optimizing with
    rel_step more HBM); ``largest_share``; ``placement``; ``bottleneck`` (one of
    :data:`BOTTLENECKS`): ``memory_capacity`` when memory capacity binds, else the largest share;
    and ``explanation``, one sentence with the numbers.

    Memory capacity binds: with ``sensitivity`` (its ``hbm_gb`` row), when more HBM lets a faster
    plan fit (more than 0.5 % for +rel_step) and that gain per % of HBM is at least the
    elasticity to the resource of the largest share (peak_scale for compute and the bubble,
    hbm_tbps, nvlink_gbps, scaleout_gbitps), so a plan that merely fills HBM because it can is
    not called capacity-bound; without it, when the plan uses more than 90 % of HBM.
    """
    if is_deployment(row):
        return _deployment_bottleneck(row, sensitivity)
    it = _get(row, "iteration_time_s", math.nan)
    if not math.isfinite(it) or it <= 0:
        return {"shares": {}, "largest_share": None, "memory_fraction": math.nan, "capacity_gain": math.nan,
                "placement": {}, "bottleneck": "memory_capacity",
                "explanation": "No plan is feasible at this hardware point (nothing fits in memory, or no plan "
                               "divides the global batch), so memory capacity binds."}
    compute = _get(row, "time_compute_s")
    flops = _get(row, "time_compute_flops_s", math.nan)
    split = math.isfinite(flops)
    where = placement(row)
    comm = {"nvlink": 0.0, "scaleout": 0.0}
    for kind in COMM_KINDS:
        if kind in where:
            comm[where[kind]] += _get(row, f"exposed_{kind}_s")
    engine = _get(row, "time_engine_s", math.nan)
    if split and math.isfinite(engine):  # serving: the engine's own time is neither FLOP- nor HBM-bound
        flops = flops + engine
    parts = {"compute": min(flops, compute) if split else compute}
    if split:
        parts["memory_bandwidth"] = max(compute - flops, 0.0)
    if split and math.isfinite(engine) and engine > 0:
        parts["compute"] = max(parts["compute"] - engine, 0.0)
        parts["engine"] = engine
    parts.update({"pipeline_bubble": _get(row, "time_bubble_s"), **comm,
                  "overlap_slowdown": _get(row, "time_overlap_slowdown_s")})
    if _get(row, "exposed_offload_s", 0.0) > 0:  # activation offloading waits on the host link
        parts["host_link"] = _get(row, "exposed_offload_s")
    if _get(row, "time_adp_wait_s", 0.0) > 0:  # attention-DP ranks wait for one running a prompt chunk
        parts["rank_imbalance"] = _get(row, "time_adp_wait_s")
    if _get(row, "host_stall_s", 0.0) > 0:  # MoE layers wait for the host to launch them
        parts["host"] = _get(row, "host_stall_s")
    if _get(row, "time_overhead_s", 0.0) > 0:  # a DLRM step's fixed time per kernel and per step
        parts["overhead"] = _get(row, "time_overhead_s")
    if _get(row, "time_power_cap_s", 0.0) > 0:  # clocks slowed under a power limit below the datasheet's
        parts["power_limit"] = _get(row, "time_power_cap_s")
    total = sum(parts.values()) or it
    shares = {k: v / total for k, v in parts.items()}

    mem, hbm = _get(row, "memory_per_gpu_bytes", math.nan), _get(row, "hbm_bytes", math.nan)
    mem_frac = mem / hbm if hbm > 0 else math.nan
    largest = max(shares, key=shares.get)

    # memory capacity: from the sensitivity when there is one (does more HBM let a faster plan fit,
    # and is that worth as much as more of the resource the time goes to?), else from the usage
    gain = rival = math.nan
    step = 0.1
    have_sens = sensitivity is not None and len(sensitivity) > 0 and "knob" in sensitivity
    if have_sens:
        by_knob = {r["knob"]: r for _, r in sensitivity.iterrows()}
        cap = by_knob.get("hbm_gb")
        rate = "samples_per_s" if "samples_per_s" in sensitivity else "tokens_per_s"
        if cap is not None and float(cap[rate]) > 0 and float(cap["base"]) > 0:
            gain = float(cap[f"{rate}_plus"]) / float(cap[rate]) - 1.0
            step = float(cap["plus"]) / float(cap["base"]) - 1.0
        knob = SHARE_KNOB.get(largest)
        if knob in by_knob:
            rival = float(by_knob[knob]["elasticity"])
        elif largest not in SHARE_KNOB:  # no knob buys the largest share (the engine's time): the best other knob
            others = [float(r["elasticity"]) for k, r in by_knob.items() if k != "hbm_gb"]
            rival = max((e for e in others if math.isfinite(e)), default=math.nan)
    full = math.isfinite(mem_frac) and mem_frac > CAPACITY_FRACTION
    if have_sens and math.isfinite(gain):
        capacity_binds = gain > CAPACITY_GAIN and not (math.isfinite(rival) and gain / step < rival)
    else:
        capacity_binds = full
    name = "memory_capacity" if capacity_binds else largest

    labels = {"compute": "compute at the FLOP/s roofline" if split else "compute",
              "memory_bandwidth": "HBM-bound compute", "pipeline_bubble": "the pipeline bubble",
              "nvlink": "exposed NVLink communication", "scaleout": "exposed scale-out communication",
              "overlap_slowdown": "the overlap slowdown",
              "host_link": "exposed activation-offload copies", "host": "waiting for the host to launch MoE layers",
              "engine": "engine time (per iteration and sequence)",
              "overhead": "fixed time per kernel and step",
              "power_limit": "clocks slowed to the power limit",
              "rank_imbalance": "waiting for other attention-DP ranks' prompt chunks"}
    ranked = [k for k in sorted(shares, key=shares.get, reverse=True) if shares[k] >= 0.005]

    def item(k: str) -> str:
        text = f"{labels[k]} {_pct(shares[k])}"
        if k in ("nvlink", "scaleout"):
            kinds = [c for c in COMM_KINDS if where.get(c) == k and _get(row, f"exposed_{c}_s") > 0.001 * it]
            text += f" ({', '.join(kinds)})" if kinds else ""
        return text

    listing = ", ".join(item(k) for k in ranked[:5])
    memory = _memory_text(mem, hbm, gain, step, "plan")
    head = {
        "compute": "Compute (peak FLOP/s) bounds this plan",
        "memory_bandwidth": "HBM bandwidth bounds this plan",
        "memory_capacity": "Memory capacity bounds this plan",
        "nvlink": "The NVLink network bounds this plan",
        "scaleout": "The scale-out network bounds this plan",
        "pipeline_bubble": "The pipeline bubble bounds this plan",
        "overlap_slowdown": "Compute slowed by overlapped communication bounds this plan",
        "host_link": "The host link (activation offloading) bounds this plan",
        "host": "The host (CPU) launching the MoE layers bounds this plan",
        "engine": "The serving engine's own time per iteration and per sequence bounds this plan",
        "overhead": "The fixed time per kernel and per step (launches, ramps, tails) bounds this plan",
        "power_limit": "The power limit (clocks slowed below the datasheet's limit) bounds this plan",
        "rank_imbalance": ("Attention-DP ranks waiting for the one running a prompt chunk bound this plan "
                           "(attention_dp_balance schedules prompts on every rank together)"),
    }[name]
    if _serving_row(row):  # an engine iteration: one output token per sequence in flight
        step_text = f"{1e3 * it:.3g} ms iteration (one output token per sequence)"
    else:
        step_text = f"{it:.3g} s iteration"
    explanation = f"{head}: of the {step_text}, {listing}; {memory}."
    return {"shares": shares, "largest_share": largest, "memory_fraction": mem_frac, "capacity_gain": gain,
            "placement": where, "bottleneck": name, "explanation": explanation}


def _memory_text(mem: float, hbm: float, gain: float, step: float, what: str, where: str = "") -> str:
    """The bottleneck sentence's memory part: use of HBM (bytes of ``hbm``) and, with a
    sensitivity, whether ``step`` more HBM lets a faster ``what`` (plan, deployment) fit."""
    text = (f"memory {mem / GIB:.1f} of {hbm / GIB:.0f} GiB per GPU{where} ({_pct(mem / hbm)})"
            if hbm > 0 and math.isfinite(mem / hbm) else "memory unknown")
    if math.isfinite(gain):
        more = f"{100 * step:.0f} % more HBM"
        text += (f", and {more} lets a {what} {100 * gain:.1f} % faster fit" if gain > CAPACITY_GAIN
                 else f", but {more} would not let a faster {what} fit")
    return text


def _deployment_bottleneck(row: Mapping[str, Any] | pd.Series, sensitivity: pd.DataFrame | None) -> dict[str, Any]:
    """:func:`bottleneck` of a disaggregated deployment: the side that bounds its requests/s
    (``prefill_instances``, ``decode_instances`` or the ``kv_link`` between them), or
    ``memory_capacity`` when more HBM lets a faster deployment fit and is worth at least the most
    elastic other knob; ``shares`` is empty (the deployment's time is its instances', each
    ``dse evaluate`` of the scenario shows them)."""
    code = int(round(_get(row, "bound_by")))
    side = DEPLOYMENT_BOUND.get(code, "prefill_instances")
    n_p, n_d = _get(row, "prefill_instances"), _get(row, "decode_instances")
    r_p, r_d = _get(row, "prefill_requests_per_s"), _get(row, "decode_requests_per_s")
    gain = rival = math.nan
    step = 0.1
    best_knob = None
    if sensitivity is not None and len(sensitivity) and "knob" in sensitivity:
        by_knob = {r["knob"]: r for _, r in sensitivity.iterrows()}
        cap = by_knob.get("hbm_gb")
        if cap is not None and float(cap["tokens_per_s"]) > 0 and float(cap["base"]) > 0:
            gain = float(cap["tokens_per_s_plus"]) / float(cap["tokens_per_s"]) - 1.0
            step = float(cap["plus"]) / float(cap["base"]) - 1.0
        others = {k: float(r["elasticity"]) for k, r in by_knob.items()
                  if k != "hbm_gb" and math.isfinite(float(r["elasticity"]))}
        if others:
            best_knob = max(others, key=others.get)
            rival = others[best_knob]
    capacity_binds = math.isfinite(gain) and gain > CAPACITY_GAIN and not (math.isfinite(rival) and gain / step < rival)
    name = "memory_capacity" if capacity_binds else side
    mem, hbm = _get(row, "memory_per_gpu_bytes", math.nan), _get(row, "hbm_bytes", math.nan)
    mem_frac = mem / hbm if hbm > 0 else math.nan
    head = {
        "prefill_instances": "The prefill instances bound this deployment",
        "decode_instances": "The decode instances bound this deployment",
        "kv_link": ("The KV-cache link bounds this deployment (the "
                    + ("prefill GPUs' sends)" if code == 2 else "decode GPUs' receives)")),
        "memory_capacity": "Memory capacity bounds this deployment",
    }[name]
    idle = _get(row, "idle_gpus")
    sides = (f"{n_p:g} prefill instance{'s' * (n_p != 1)} serve {n_p:g} x {r_p:.4g} = {n_p * r_p:.4g} requests/s, "
             f"{n_d:g} decode instance{'s' * (n_d != 1)} {n_d:g} x {r_d:.4g} = {n_d * r_d:.4g}"
             + (f" ({idle:g} GPUs idle)" if idle > 0 else ""))
    wait = _get(row, "prefill_wait_s")
    ttft = (f"a request's first token waits " + (f"{_n(1e3 * wait, 3)} ms in the prefill queue, " if wait > 0 else "")
            + f"{_n(1e3 * _get(row, 'prefill_prompt_s'), 3)} ms for its prompt and "
            f"{_n(1e3 * _get(row, 'kv_transfer_s'), 3)} ms for its KV transfer")
    memory = _memory_text(mem, hbm, gain, step, "deployment", " on the fuller instance")
    lever = (f"; the knob that helps most is {best_knob}, {RESOURCE[best_knob]} (elasticity {rival:+.3f})"
             if best_knob is not None and rival > 0 else "")
    explanation = f"{head}: {sides}; {ttft}; {memory}{lever}."
    return {"shares": {}, "largest_share": None, "memory_fraction": mem_frac, "capacity_gain": gain,
            "placement": {}, "bottleneck": name, "explanation": explanation}


# ------------------------------------------------------------------------------ text helpers
def is_deployment(row: Mapping[str, Any] | pd.Series) -> bool:
    """Whether a row is a disaggregated deployment (phase 3, :mod:`dse.costmodel.disaggregated`)."""
    return _get(row, "phase") == 3.0


def _prefill_gpu(row: Mapping[str, Any] | pd.Series) -> str | None:
    """The GPU of a deployment's prefill instances when it is not the cluster's (the row's
    ``prefill_gpu`` code, :func:`dse.presets.prefill_gpu_code`), else None."""
    from .presets import prefill_gpu_name

    return prefill_gpu_name(_get(row, "prefill_gpu")) if _get(row, "prefill_gpu") > 0 else None


def deployment_plan_text(row: Mapping[str, Any] | pd.Series) -> str:
    """A deployment's label, e.g. ``P 10x tp2 mnt8192 + D 3x tp4 b64``: how many prefill instances
    (``auto`` where the split is not known yet) and their degrees (``mnt``: the prompt tokens an
    iteration packs, max_num_tokens), then the decode instances and their batch."""
    def degrees(prefix: str) -> list[str]:
        return [f"{k}{_get(row, prefix + k, 1.0):g}" for k in ("tp", "pp", "dp", "ep")
                if k == "tp" or _get(row, prefix + k, 1.0) != 1.0]

    def count(key: str, fallback: str = "") -> str:
        n = _get(row, key, math.nan)
        if not (math.isfinite(n) and n > 0):
            n = _get(row, fallback, 0.0) if fallback else 0.0
        return f"{n:g}x" if n > 0 else "auto x"

    pre = degrees("prefill_")
    other = _prefill_gpu(row)
    if other:
        pre.insert(0, other)
    if _get(row, "prefill_max_num_tokens") > 0:
        pre.append(f"mnt{_get(row, 'prefill_max_num_tokens'):g}")
    dec = degrees("")
    batch = _get(row, "decode_batch", math.nan)  # what a decode instance holds at its load
    if not (math.isfinite(batch) and batch > 0):
        batch = _get(row, "batch")
    if batch > 0:
        dec.append(f"b{batch:g}" if batch == int(batch) else f"b{batch:.3g}")
    if _get(row, "spec_tokens") > 0:
        dec.append(f"spec{_get(row, 'spec_tokens'):g}")
    return (f"P {count('prefill_instances', 'prefill_count')} {' '.join(pre)} + "
            f"D {count('decode_instances')} {' '.join(dec)}")


def _serving_row(row: Mapping[str, Any] | pd.Series) -> bool:
    """Whether a row is a serving configuration (it has a batch in flight and no microbatch)."""
    keys = row.index if isinstance(row, pd.Series) else row.keys()
    return "batch" in keys and ("itl_ms" in keys or "best_itl_ms" in keys)


def plan_text(row: Mapping[str, Any] | pd.Series) -> str:
    """A short plan label, e.g. ``tp4 pp4 dp4 vpp5 z1 sp mb1`` (``-`` when there is none); a
    serving plan: ``tp2 pp1 dp4 ep2 b256`` (b = sequences in flight per replica)."""
    if _get(row, "tp", math.nan) != _get(row, "tp", math.nan):  # NaN: no feasible plan
        return "-"
    keys = row.index if isinstance(row, pd.Series) else row.keys()
    if "emb_sharding" in keys:  # a DLRM plan: sharding/planner, MLP degrees, samples per GPU
        return dlrm_plan_text(row)
    if is_deployment(row):
        return deployment_plan_text(row)
    parts = [f"tp{_get(row, 'tp'):g}", f"pp{_get(row, 'pp'):g}", f"dp{_get(row, 'dp'):g}"]
    if _serving_row(row):
        if _get(row, "ep", 1.0) != 1.0:
            parts.append(f"ep{_get(row, 'ep'):g}")
        batch = _get(row, "batch")  # the mean batch at an offered load (Little's law) is fractional
        parts.append(f"b{batch:g}" if batch == int(batch) else f"b{batch:.3g}")
        if _get(row, "spec_tokens") > 0:  # speculative decoding: draft tokens per iteration
            parts.append(f"spec{_get(row, 'spec_tokens'):g}")
        return " ".join(parts)
    for key in ("cp", "ep", "vpp"):
        if _get(row, key, 1.0) != 1.0:
            parts.append(f"{key}{_get(row, key):g}")
    etp = _get(row, "etp", 0.0)
    if etp > 0 and etp != _get(row, "tp"):  # experts split otherwise than the attention (folded)
        parts.append(f"etp{etp:g}")
    if _get(row, "zero") > 0:
        parts.append(f"z{_get(row, 'zero'):g}")
    if _get(row, "sp") > 0:
        parts.append("sp")
    rec = row["recompute"] if "recompute" in row else None
    if isinstance(rec, (int, float, np.floating)) and math.isfinite(float(rec)):
        rec = RECOMPUTE_NAMES.get(int(round(float(rec))))
    if rec in ("selective", "full"):
        parts.append("sel-rc" if rec == "selective" else "full-rc")
    if _get(row, "offload_layers") > 0:
        parts.append(f"offload{_get(row, 'offload_layers'):g}")
    parts.append(f"mb{_get(row, 'microbatch', 1.0):g}")
    return " ".join(parts)


def dlrm_plan_text(row: Mapping[str, Any] | pd.Series) -> str:
    """A DLRM plan label, e.g. ``row/cost tp1 dp64 fsdp mb512`` (embedding sharding / table
    planner, the MLPs' degrees and ZeRO, samples per GPU)."""
    from .costmodel.dlrm import SHARDING_NAMES

    sharding = row["emb_sharding"]
    if not isinstance(sharding, str):
        sharding = SHARDING_NAMES.get(int(round(float(sharding))), str(sharding))
    planner = row["emb_planner"] if "emb_planner" in (row.index if isinstance(row, pd.Series) else row) else 0.0
    if not isinstance(planner, str):
        planner = "memory" if _get({"p": planner}, "p") >= 0.5 else "cost"
    parts = [f"{sharding}/{planner}", f"tp{_get(row, 'tp', 1.0):g}", f"dp{_get(row, 'dp', 1.0):g}"]
    if _get(row, "zero") >= 3:
        parts.append("fsdp")
    parts.append(f"mb{_get(row, 'microbatch', 1.0):g}")
    return " ".join(parts)


def knob_label(name: str) -> str:
    """Axis label of a knob with its unit, e.g. ``scale-out bandwidth (Gbit/s per GPU)``."""
    return {
        "hbm_gb": "HBM capacity (GiB per GPU)",
        "hbm_tbps": "HBM bandwidth (TB/s per GPU)",
        "peak_scale": "peak FLOP/s (x the GPU's)",
        "nvlink_gbps": "NVLink bandwidth (GB/s per GPU)",
        "nvlink_domain": "NVLink domain (GPUs)",
        "nvlink_mesh": "NVLink topology (1 mesh, 0 switch)",
        "gpus_per_node": "GPUs per server",
        "scaleout_gbitps": "scale-out bandwidth (Gbit/s per GPU)",
        "host_link_gbps": "host link bandwidth (GB/s per GPU)",
        "exp_tera_per_s": "softmax exponentials (1e12/s per GPU)",
        "l2_mb": "L2 cache (MiB per GPU)",
        "price_per_gpu_hour": "price (USD per GPU-hour)",
        "power_w": "power limit (W per GPU)",
        "num_gpus": "GPUs",
    }[name]


def _fmt_value(x: float) -> str:
    if not math.isfinite(x):
        return "-"
    if x == int(x) and abs(x) < 1e6:
        return f"{int(x)}"
    return f"{x:.3g}"


# ------------------------------------------------------------------------------ files and figures
def write_tables(result: WhatIf, out_dir: str | Path) -> list[Path]:
    """Write ``whatif.csv`` (the points) and ``sensitivity.csv``; return their paths."""
    from .search.results import _atomic

    out = Path(out_dir)
    paths = []
    for name, frame in (("whatif.csv", result.points), ("sensitivity.csv", result.sensitivity)):
        path = out / name
        with _atomic(path) as fh:
            fh.write(frame.to_csv(index=False, float_format="%.6g").encode())
        paths.append(path)
    return paths


def plot_whatif(result: WhatIf, out_dir: str | Path, figures: bool = True) -> list[Path]:
    """Write the what-if's tables and figures into ``out_dir``; return the paths written.

    Always ``whatif.csv`` and ``sensitivity.csv``. With ``figures``: one varied knob ->
    ``whatif_<knob>`` (best tokens/s per GPU against the knob, log x when the values span more
    than 10x, the scenario's own value marked; further panels for cost per million tokens and
    energy per token when the price / power are non-zero); two knobs -> ``whatif_<k1>_<k2>``, a
    heatmap of the best tokens/s per GPU (cividis, its scale at least the median +/- 5%, annotated
    when at most 64 cells); no knob or three and more: no figure (the CSV only). PNG (300 dpi) and
    PDF (TrueType, no creation date).
    """
    import matplotlib as mpl

    from .search.plots import RC, _save

    out = Path(out_dir)
    paths = write_tables(result, out)
    if not figures or len(result.knobs) not in (1, 2):
        return paths
    with mpl.rc_context(RC):
        if len(result.knobs) == 1:
            fig = _curve_figure(result)
        else:
            fig = _heatmap_figure(result)
        paths += _save(fig, out, "whatif_" + "_".join(result.knobs))
    return paths


def figure_note(result: WhatIf) -> str | None:
    """Why no figure is drawn (None when one is)."""
    if not result.knobs:
        return "no knob varied: no figure"
    if len(result.knobs) > 2:
        return f"{len(result.knobs)} knobs varied: no figure (a curve takes one knob, a heatmap two); see whatif.csv"
    return None


def _title(result: WhatIf, gpus_varied: bool) -> str:
    s = result.scenario
    rate = s.inference.request_rate if s.inference is not None else None
    pre_gpu = s.inference.prefill.gpu if s.inference is not None and s.inference.prefill is not None else None
    gpu = f"{s.cluster.gpu} (prefill on {pre_gpu})" if pre_gpu and pre_gpu != s.cluster.gpu else s.cluster.gpu
    where = f"{gpu}, GPU count varied" if gpus_varied else f"{s.cluster.num_gpus}x {gpu}"
    if rate is not None and not gpus_varied:  # at an offered load each point has its fewest GPUs
        where = f"fewest {s.cluster.gpu} for {rate:g} req/s"
    limits = [f"{name} <= {result.bounds[key]:g} ms" for key, name in (("max_itl_ms", "ITL"), ("max_ttft_ms", "TTFT"))
              if key in result.bounds]
    how = "disaggregated serving" if disaggregated(s) else "serving"
    serving = f", {how} {s.inference.input_len}+{s.inference.output_len} tokens" if s.inference is not None else ""
    return f"{s.model.name}, {s.precision}, {where}{serving}" + (f"; {', '.join(limits)}" if limits else "")


def _wrap(text: str, width: int = 52) -> str:
    import textwrap

    return "\n".join(textwrap.fill(line, width, break_on_hyphens=False) for line in text.split("\n"))


def _plain_formatter() -> Any:
    """Tick labels with as many decimals as the tick spacing needs (1,190 / 1,195; 3.06 / 3.08),
    short SI labels (12k, 1.5M) once the spacing reaches a thousand."""
    from matplotlib import ticker

    from .search.plots import _si

    class Plain(ticker.Formatter):
        ticks: list[float] = []

        def set_locs(self, locs: Any) -> None:
            self.ticks = [float(v) for v in locs]

        def __call__(self, x: float, pos: Any = None) -> str:
            locs = np.unique(np.asarray([v for v in self.ticks if np.isfinite(v)], dtype=float))
            step = float(np.diff(locs).min()) if locs.size > 1 else abs(x)
            if step >= 1000:
                return _si(x)
            decimals = next((d for d in range(7) if np.allclose(locs * 10.0**d, np.round(locs * 10.0**d),
                                                                rtol=0, atol=1e-6)), 6)
            return f"{x:,.{decimals}f}"

    return Plain()


def _cell(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _plan_groups(df: pd.DataFrame) -> list[str]:
    """The best plan of every row as a label (``-`` when none is feasible)."""
    return [plan_text(r) for _, r in df.iterrows()]


def _curve_figure(result: WhatIf) -> Any:
    from matplotlib import ticker
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from .search.plots import OKABE_ITO, WIDTH_IN

    knob = result.knobs[0]
    df = result.points.sort_values(knob, kind="stable").reset_index(drop=True)
    x = df[knob].to_numpy(dtype=float)
    serving = "best_itl_ms" in df
    m = throughput(result.scenario.kind)
    one = m.unit[:-1] if m.unit in ("samples", "images") else "token"
    rate = f"best_{m.per_gpu}"
    panels = [(rate, "output tokens/s\nper GPU" if serving else f"{m.unit}/s per GPU", OKABE_ITO["blue"])]
    at_load = result.scenario.inference is not None and result.scenario.inference.request_rate is not None
    if at_load and "num_gpus" not in result.knobs:  # the GPUs the load needs, not a throughput
        panels = [("num_gpus", "GPUs to serve\nthe load", OKABE_ITO["blue"])]
    if serving:  # the latency the best plan pays for its throughput
        panels.append(("best_itl_ms", "ms per output\ntoken (ITL)", OKABE_ITO["orange"]))
    if (df[f"best_{m.cost}"].fillna(0) > 0).any():
        panels.append((f"best_{m.cost}", f"USD per\nmillion {m.unit.split()[-1]}", OKABE_ITO["vermillion"]))
    if (df[f"best_{m.energy}"].fillna(0) > 0).any():
        panels.append((f"best_{m.energy}", f"J per {one}", OKABE_ITO["green"]))
    plans = _plan_groups(df)
    distinct = list(dict.fromkeys(p for p in plans if p != "-"))
    markers = ("o", "s", "^", "D", "v", "P")
    by_plan = 1 < len(distinct) <= len(markers)
    heights = [1.6] + [1.0] * (len(panels) - 1)
    extra = 0.95 + (0.14 * len(distinct) if by_plan else 0.0)
    fig = Figure(figsize=(WIDTH_IN, extra + sum(heights)), layout="constrained")
    axes = np.atleast_1d(fig.subplots(len(panels), 1, sharex=True, gridspec_kw={"height_ratios": heights}))
    base = result.base_values.get(knob, math.nan)
    show_base = bool(math.isfinite(base) and x.size and x.min() <= base <= x.max())
    positive = bool(x.size) and (x > 0).all()
    ok = np.isfinite(df[rate].to_numpy(dtype=float))
    for row, (ax, (col, label, colour)) in enumerate(zip(axes, panels)):
        y = df[col].to_numpy(dtype=float)
        ax.plot(x[ok], y[ok], color=colour, linewidth=1.2, zorder=3)
        for i, plan in enumerate(distinct if by_plan else distinct[:1]):
            sel = ok & (np.asarray(plans) == plan) if by_plan else ok
            ax.plot(x[sel], y[sel], linestyle="none", marker=markers[i], markersize=3.8, color=colour,
                    markerfacecolor=colour if i == 0 else "white", markeredgewidth=0.9, zorder=4)
        if (~ok).any():  # at the foot of the panel
            ax.plot(x[~ok], np.full((~ok).sum(), 0.06), linestyle="none", marker="x", color=OKABE_ITO["grey"],
                    markersize=4, zorder=4, transform=ax.get_xaxis_transform())
        if show_base:
            ax.axvline(base, color=OKABE_ITO["black"], linestyle="--", linewidth=0.8, zorder=2)
        ax.set_ylabel(label)
        ax.yaxis.set_major_locator(ticker.MaxNLocator(nbins=4 if row else 5, steps=[1, 2, 5, 10]))
        ax.yaxis.set_major_formatter(_plain_formatter())
        if ok.any():
            lo, hi = float(np.nanmin(y[ok])), float(np.nanmax(y[ok]))
            pad = (hi - lo) * 0.15 or abs(hi) * 0.02 or 1.0
            ax.set_ylim(lo - pad, hi + pad)
    top, bottom = axes[0], axes[-1]
    if show_base:
        right_half = positive and x.max() > x.min() and (
            (math.log(base / x.min()) / math.log(x.max() / x.min())) > 0.6 if x.max() / x.min() > 10
            else (base - x.min()) / (x.max() - x.min()) > 0.6)
        top.annotate("scenario", xy=(base, 1.0), xycoords=("data", "axes fraction"),
                     xytext=(-3 if right_half else 3, -2), textcoords="offset points",
                     ha="right" if right_half else "left", va="top", fontsize=7)
    if positive and x.max() / x.min() > 10:
        pow2 = bool(np.allclose(np.log2(x), np.round(np.log2(x))))
        bottom.set_xscale("log", base=2 if pow2 else 10)
    if x.size <= 9:  # a tick at each value, but none closer than 1/12 of the axis to the last
        ticks, pos = np.unique(x), np.unique(x)
        if bottom.get_xscale() == "log":
            pos = np.log(pos)
        kept, last = [ticks[0]], pos[0]
        for value, at in zip(ticks[1:], pos[1:]):
            if at - last >= (pos[-1] - pos[0]) / 12.0:
                kept.append(value)
                last = at
        bottom.xaxis.set_major_locator(ticker.FixedLocator(kept))
        bottom.xaxis.set_minor_locator(ticker.NullLocator())
        bottom.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _p: _fmt_value(v)))
    else:
        bottom.xaxis.set_minor_formatter(ticker.NullFormatter())
        bottom.xaxis.set_major_formatter(_plain_formatter())
    bottom.set_xlabel(knob_label(knob))
    if len(distinct) == 1:
        sub = f"best plan at every point: {distinct[0]}"
    elif by_plan:
        sub = "best plan per point (markers, below)"
    else:
        sub = f"{len(distinct)} different best plans (see whatif.csv)"
    fig.suptitle(_wrap(f"{_title(result, knob == 'num_gpus')}\n{sub}"), x=0.02, ha="left", linespacing=1.3)
    handles, labels = [], []
    if by_plan:
        for i, plan in enumerate(distinct):
            handles.append(Line2D([], [], linestyle="none", marker=markers[i], markersize=4, color="#333333",
                                  markerfacecolor="#333333" if i == 0 else "white"))
            labels.append(plan)
    if (~ok).any():
        handles.append(Line2D([], [], linestyle="none", marker="x", color=OKABE_ITO["grey"], markersize=4))
        labels.append("no feasible plan")
    if handles:
        fig.legend(handles, labels, loc="outside lower center", ncols=1, handletextpad=0.4)
    return fig


#: The heatmap's colour scale spans at least the median +/- this fraction: a grid whose values
#: differ by less (a knob that barely matters) shows close colours, not the colour map's ends.
COLOUR_HALF_SPAN = 0.05


def _colour_limits(values: np.ndarray) -> tuple[float, float, bool]:
    """(vmin, vmax, anchored) of the heatmap's colour scale: the values' range, or, when it is
    narrower than 2 x :data:`COLOUR_HALF_SPAN` of the median (``anchored``), the median +/-
    that (widened to hold every value), so a colour difference reads as a relative difference."""
    if not values.size:
        return 0.0, 1.0, False
    lo, hi, mid = float(values.min()), float(values.max()), float(np.median(values))
    if mid > 0 and hi - lo < 2 * COLOUR_HALF_SPAN * mid:
        return min(lo, mid * (1 - COLOUR_HALF_SPAN)), max(hi, mid * (1 + COLOUR_HALF_SPAN)), True
    if lo == hi:
        return lo * 0.99, (hi * 1.01) or 1.0, False
    return lo, hi, False


def _heatmap_figure(result: WhatIf) -> Any:
    import matplotlib as mpl
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    from .search.plots import OKABE_ITO, WIDTH_IN

    kx, ky = result.knobs
    df = result.points
    xs = np.unique(df[kx].to_numpy(dtype=float))
    ys = np.unique(df[ky].to_numpy(dtype=float))
    grid = np.full((ys.size, xs.size), np.nan)
    ix = np.searchsorted(xs, df[kx].to_numpy(dtype=float))
    iy = np.searchsorted(ys, df[ky].to_numpy(dtype=float))
    m = throughput(result.scenario.kind)
    grid[iy, ix] = df[f"best_{m.per_gpu}"].to_numpy(dtype=float)
    plans = np.full((ys.size, xs.size), "-", dtype=object)
    plans[iy, ix] = _plan_groups(df)
    distinct = list(dict.fromkeys(p for p in plans.ravel() if p != "-"))

    height = min(max(2.3, 0.3 * ys.size + 1.7), 4.8)
    fig = Figure(figsize=(WIDTH_IN, height), layout="constrained")
    ax = fig.add_subplot()
    cmap = mpl.colormaps["cividis"].with_extremes(bad="#FFFFFF")
    finite = grid[np.isfinite(grid)]
    vmin, vmax, anchored = _colour_limits(finite)
    im = ax.imshow(np.ma.masked_invalid(grid), origin="lower", cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto",
                   interpolation="nearest")
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xticks(np.arange(xs.size), [_fmt_value(v) for v in xs])
    ax.set_yticks(np.arange(ys.size), [_fmt_value(v) for v in ys])
    ax.tick_params(length=0)
    if xs.size * max(len(_fmt_value(v)) for v in xs) > 36:
        for label in ax.get_xticklabels():
            label.set_rotation(45)
            label.set_ha("right")
    ax.set_xlabel(knob_label(kx))
    ax.set_ylabel(knob_label(ky))
    bar = fig.colorbar(im, ax=ax, pad=0.02, fraction=0.06, aspect=25)
    what = f"{m.unit}/s per GPU"
    bar.set_label(f"best {what}" + (f"\n(colour scale \u2265 median \u00b1{COLOUR_HALF_SPAN:.0%})" if anchored else ""))
    bar.ax.yaxis.set_major_locator(mpl.ticker.MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))
    bar.ax.yaxis.set_major_formatter(_plain_formatter())
    bar.ax.tick_params(labelsize=7)
    annotate = grid.size <= 64
    if annotate:
        size = 6.5 if xs.size <= 6 else 5.5
        marks = {p: chr(ord("A") + i) for i, p in enumerate(distinct)} if 1 < len(distinct) <= 6 else {}
        for (j, i), v in np.ndenumerate(grid):
            if math.isfinite(v):
                r, g, b, _ = cmap(im.norm(v))
                light = 0.299 * r + 0.587 * g + 0.114 * b > 0.5
                text = _cell(v) + (f"\n{marks[plans[j, i]]}" if marks else "")
                ax.text(i, j, text, ha="center", va="center", fontsize=size, linespacing=1.1,
                        color="black" if light else "white")
            else:
                ax.text(i, j, "none\nfits", ha="center", va="center", fontsize=size - 1, color=OKABE_ITO["grey"])
    bx, by = result.base_values.get(kx, math.nan), result.base_values.get(ky, math.nan)
    hit_x, hit_y = np.flatnonzero(np.isclose(xs, bx)), np.flatnonzero(np.isclose(ys, by))
    boxed = bool(hit_x.size and hit_y.size)
    if boxed:
        ax.add_patch(Rectangle((hit_x[0] - 0.5, hit_y[0] - 0.5), 1, 1, fill=False,
                               edgecolor=OKABE_ITO["vermillion"], linewidth=1.4, zorder=5))
    gpus_varied = "num_gpus" in (kx, ky)
    if finite.size:
        lo, hi = float(finite.min()), float(finite.max())
        spread = f"best {what} {_cell(lo)} to {_cell(hi)} ({100 * (hi / lo - 1):+.1f}\u00a0%)"
    else:
        spread = "no feasible plan at any point"
    lines = [_title(result, gpus_varied), spread]
    if boxed:
        lines.append("box: the scenario's hardware")
    if len(distinct) == 1:
        lines.append(f"best plan everywhere: {distinct[0]}")
    title = _wrap("\n".join(lines))
    fig.suptitle(title, x=0.02, ha="left", linespacing=1.3)
    # room for the title's and the legend's lines besides the cells (and the y label's length)
    legend_lines = len(distinct) if annotate and 1 < len(distinct) <= 6 else 0
    cells = max(1.9, 0.3 * ys.size + 0.6)
    fig.set_size_inches(WIDTH_IN, cells + 0.6 + 0.17 * (title.count("\n") + 1) + 0.17 * legend_lines)
    if annotate and 1 < len(distinct) <= 6:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], linestyle="none") for _ in distinct]
        labels = [f"{chr(ord('A') + i)}: {p}" for i, p in enumerate(distinct)]
        fig.legend(handles, labels, loc="outside lower center", ncols=1, handlelength=0, handletextpad=0)
    return fig


# ------------------------------------------------------------------------------ tables (rich)
#: Most point rows the text report lists (all are in whatif.csv).
MAX_TABLE_ROWS = 60


def _n(x: Any, digits: int = 4) -> str:
    from .report import fmt

    try:
        v = float(x)
    except (TypeError, ValueError):
        return "-"
    return fmt(v if math.isfinite(v) else None, digits)


def report_renderables(result: WhatIf) -> list[Any]:
    """What ``dse whatif`` prints, as rich renderables (the caller prints them): a headline, the
    table of points (when knobs vary), the sensitivity table and the bottleneck sentence."""
    from rich.table import Table
    from rich.text import Text

    s, base = result.scenario, result.base
    m = throughput(s.kind)
    short = m.unit if m.unit in ("samples", "images") else "tokens"
    one = short[:-1]
    best_rate, best_per_gpu = f"best_{m.rate}", f"best_{m.per_gpu}"
    items: list[Any] = []
    pre_gpu = s.inference.prefill.gpu if s.inference is not None and s.inference.prefill is not None else None
    gpus = (f"{s.cluster.num_gpus} GPUs (prefill {pre_gpu}, decode {s.cluster.gpu})"
            if pre_gpu and pre_gpu != s.cluster.gpu else f"{s.cluster.num_gpus}x {s.cluster.gpu}")
    title = f"{s.name + ': ' if s.name else ''}{s.model.name} on {gpus}, {s.precision}"
    items.append(Text(title, style="bold"))
    serving = "best_itl_ms" in base.index
    found = math.isfinite(float(base[best_rate]))
    rate = s.inference.request_rate if s.inference is not None else None
    if found and serving and rate is not None:
        items.append(Text(
            f"fewest GPUs serving {rate:g} requests/s at the scenario's hardware: {int(base['num_gpus'])} "
            f"({plan_text(base)}), ITL {_n(base['best_itl_ms'])} ms, TTFT {_n(base['best_ttft_ms'])} ms, "
            f"{_n(base['best_power_per_gpu_w'], 3)} W and {_n(base[f'best_{m.energy}'], 3)} J per output token "
            f"per GPU"))
    elif found and serving:
        items.append(Text(
            f"best plan at the scenario's hardware: {plan_text(base)}: {_n(base[best_per_gpu])} "
            f"output tokens/s per GPU, ITL {_n(base['best_itl_ms'])} ms, TTFT {_n(base['best_ttft_ms'])} ms "
            f"(best of {int(base['plans']):,} plans, {int(base['feasible_plans']):,} feasible)"))
    elif found:
        how = f" ({_recompute_word(base)})" if "recompute" in base.index else ""
        items.append(Text(
            f"best plan at the scenario's hardware: {plan_text(base)}{how}: "
            f"{_n(base[best_per_gpu])} {m.unit}/s per GPU, MFU {100 * float(base['best_mfu']):.1f} % "
            f"(best of {int(base['plans']):,} plans, {int(base['feasible_plans']):,} fit)"))
    else:
        items.append(Text(f"no feasible plan at the scenario's hardware ({int(base['plans']):,} plans scored)",
                          style="bold red"))
    own = result.own
    if own is not None:
        state = "feasible" if bool(own["feasible"]) else f"infeasible: {own['infeasible_reason']}"
        missed = [f"{label} {_n(own[col])} ms > {result.bounds[key]:g} ms"
                  for key, col, label in (("max_itl_ms", "itl_ms", "ITL"), ("max_ttft_ms", "ttft_ms", "TTFT"))
                  if key in result.bounds and col in own.index and float(own[col]) > result.bounds[key]]
        if missed:
            state += f", but {' and '.join(missed)}"
        gain = ""
        ref = float(base[best_per_gpu])
        mine = float(own[m.per_gpu])
        if bool(own["feasible"]) and math.isfinite(ref) and mine > 0:
            gain = f"; the best plan is {100 * (ref / mine - 1):+.1f} %"
        items.append(Text(f"the scenario's own plan: {plan_text(own)}: {_n(mine)} {m.unit}/s per GPU "
                          f"({state}){gain}"))
    items.append(Text(""))

    pts = result.points
    if result.knobs:
        hw = [k for k in result.knobs if k != "num_gpus"]
        priced = (pts[f"best_{m.cost}"].fillna(0) > 0).any()
        table = Table(title=f"Best plan per hardware point ({len(pts):,} points; * = the scenario's hardware)",
                      title_justify="left", box=None, padding=(0, 1))
        table.add_column("")
        for k in hw:
            table.add_column(f"{k} ({UNITS[k]})", justify="right", no_wrap=True)
        table.add_column("GPUs", justify="right")
        for header in (f"{short}/s/GPU", "vs * row", *(["ITL ms", "TTFT ms"] if serving else []), "MFU %",
                       *([f"USD/{m.million}"] if priced else []), f"J/{one}", "W/GPU", "mem GiB"):
            table.add_column(header, justify="right", no_wrap=True)
        table.add_column("best plan", no_wrap=True)
        table.add_column("fit/plans", justify="right", no_wrap=True)
        ref = float(base[best_per_gpu])
        for i, (_, row) in enumerate(pts.iterrows()):
            if i == MAX_TABLE_ROWS:
                table.add_row("", *["..."] * (len(table.columns) - 1))
                break
            own = all(math.isclose(float(row[k]), result.base_values[k], rel_tol=1e-9) for k in hw) and \
                int(row["num_gpus"]) == s.cluster.num_gpus
            t = float(row[best_per_gpu])
            rel = f"{100 * (t / ref - 1):+.1f} %" if math.isfinite(t) and ref > 0 and math.isfinite(ref) else "-"
            cells = ["*" if own else "", *[_fmt_value(float(row[k])) for k in hw], f"{int(row['num_gpus'])}",
                     _n(t), rel, *([_n(row["best_itl_ms"]), _n(row["best_ttft_ms"])] if serving else []),
                     _pct1(row["best_mfu"])]
            if priced:
                cells.append(_n(row[f"best_{m.cost}"], 3))
            cells += [_n(row[f"best_{m.energy}"], 3), _n(row["best_power_per_gpu_w"], 3),
                      _n(float(row["memory_per_gpu_bytes"]) / GIB, 3),
                      plan_text(row),
                      f"{int(row['feasible_plans']):,}/{int(row['plans']):,}"]
            table.add_row(*cells)
        items += [table, Text("")]

    if len(result.sensitivity):
        sens = Table(title="Sensitivity of the best plan at the scenario's hardware "
                           "(elasticity = % throughput per % knob)", title_justify="left", box=None, padding=(0, 1))
        for header, just in (("knob", "left"), ("resource", "left"), ("base", "right"), ("step to", "right"),
                             (f"{short}/s, all GPUs, -", "right"), (f"{short}/s, all GPUs, +", "right"),
                             ("elasticity", "right"),
                             ("re-optimized", "right"), ("plan", "left")):
            sens.add_column(header, justify=just, no_wrap=True)
        for _, r in result.sensitivity.iterrows():
            unit = "" if r["unit"] == "x" else f" {r['unit']}"
            step = (f"{_fmt_value(r['plus'])}{unit}" if r["knob"] == "nvlink_domain"
                    else f"{_n(r['minus'], 3)} / {_n(r['plus'], 3)}{unit}")
            sens.add_row(r["knob"], r["resource"], f"{_n(r['base'], 4)}{unit}", step, _n(r[f"{m.rate}_minus"]),
                         _n(r[f"{m.rate}_plus"]), _e(r["elasticity"]), _e(r["elasticity_reoptimized"]), r["plan"])
        items += [sens, Text("")]
    items.append(Text(f"bottleneck: {result.bound['bottleneck']}", style="bold"))
    items.append(Text(result.bound["explanation"]))
    for note in result.notes:
        items.append(Text(f"note: {note}"))
    return items


def _pct1(x: Any) -> str:
    v = float(x)
    return f"{100 * v:.1f}" if math.isfinite(v) else "-"


def _e(x: Any) -> str:
    v = float(x)
    return f"{v:+.3f}" if math.isfinite(v) else "-"


def _recompute_word(row: Mapping[str, Any] | pd.Series) -> str:
    rec = row["recompute"]
    if isinstance(rec, (int, float, np.floating)) and math.isfinite(float(rec)):
        rec = RECOMPUTE_NAMES.get(int(round(float(rec))), str(rec))
    return f"recompute {rec}" if isinstance(rec, str) else ""


# ------------------------------------------------------------------------------ JSON
def _plain(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(float(value)) else None
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def to_record(result: WhatIf) -> dict[str, Any]:
    """The what-if as a JSON-ready dict (NaN as null)."""
    def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
        return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]

    s = result.scenario
    return {
        "scenario": {"name": s.name, "model": s.model.name, "gpu": s.cluster.gpu,
                     "num_gpus": s.cluster.num_gpus, "precision": s.precision},
        "knobs": list(result.knobs),
        "bounds": _plain(result.bounds),
        "base_values": _plain(result.base_values),
        "points": records(result.points),
        "base": {k: _plain(v) for k, v in result.base.items()},
        "sensitivity": records(result.sensitivity),
        "bound": _plain(result.bound),
        "notes": list(result.notes),
        "own_plan": None if result.own is None else {
            "plan": plan_text(result.own),
            throughput(s.kind).per_gpu: _plain(float(result.own[throughput(s.kind).per_gpu])),
            "feasible": bool(result.own["feasible"]),
            "infeasible_reason": str(result.own["infeasible_reason"]) or None},
    }


def out_dir_for(scenario_arg: str) -> Path:
    """The default output folder of ``dse whatif``: ``results/whatif-<scenario stem>``."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(scenario_arg.split(":")[0]).stem).strip("-") or "scenario"
    return Path("results") / f"whatif-{stem}"


__all__ = [
    "VARY_KNOBS", "BOTTLENECKS", "WhatIf", "parse_vary", "software_space", "base_knob_values", "whatif",
    "sensitivity", "bottleneck", "placement", "plot_whatif", "write_tables", "to_record", "plan_text",
]
