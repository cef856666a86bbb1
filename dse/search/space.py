"""Search-space files: the fixed parts of a study and the dimensions to explore.

A search space (YAML or JSON; ``search_spaces/`` ships documented examples) holds

* ``scenario``: the fixed parts, a scenario without ``parallel`` and without
  ``cluster.num_gpus`` (model, precision, workload, cluster overrides, training switches, and
  for ``workload: finetune`` the ``finetune`` block: frozen layers, LoRA);
* ``gpus``: the GPU counts to try (a list, a power-of-two range or a linear range);
* ``parallel``: candidate values of every parallel degree (software dimensions);
* ``global_batch``: global batch sizes, in sequences or in tokens;
* ``hardware``: optional hardware knobs, discrete (``values``) or continuous (``low``/``high``),
  and ``gpu``, the GPU presets to choose among (:class:`GPUChoiceSpace`);
* ``train_tokens``, ``objectives``, ``constraints`` and ``search`` settings.

The kind of run (:attr:`dse.specs.Scenario.kind`) picks the schema (:data:`SPEC_BY_KIND`): LLM
training (above; a ViT, ``model.family: vit``, takes the same schema with images as sequences), LLM serving (``workload: inference`` with ``scenario.inference``; ``parallel``
holds tp, pp, ep and ``batch``, there is no global batch) and DLRM training or inference
(``parallel`` holds emb_sharding, emb_planner, tp, zero, microbatch; ``global_batch`` is in
``samples``). Objectives name the metrics of that kind's cost model (:data:`METRICS_BY_KIND`);
constraints on another kind's metrics are errors. ``madmax: {model, system, task}`` (MAD-Max JSON
files relative to the space file) may stand in for ``scenario``.

Validation is as strict as for scenarios (:mod:`dse.specs`): unknown keys anywhere, a number
given as a string (PyYAML reads ``1e-3`` and ``1.0e12`` as strings: write ``1.0e-3`` and
``1.0e+12``), NaN/inf, empty lists and non-positive degrees are errors. Every problem is
reported at once as a :class:`dse.errors.InputError` that names the file, the dotted field, the
given value and what is allowed; the scenario part is validated by
:func:`dse.scenario.scenario_from_dict` and its fields are prefixed ``scenario.``.

Units: knob values are in the units of their names (``hbm_gb`` GiB = 2**30 bytes, ``hbm_tbps``
TB/s, ``nvlink_gbps`` GB/s per GPU both directions, ``scaleout_gbitps`` Gbit/s per GPU one
direction, ``host_link_gbps`` GB/s per GPU both directions, ``l2_mb`` MiB (2**20 bytes), ``power_w`` W, ``price_per_gpu_hour`` USD, ``peak_scale`` a factor,
``nvlink_domain`` GPUs); :func:`hardware_columns` converts them to the SI cost-model columns.
Global batches are in sequences (``tokens`` are converted with ``tokens // seq_len``);
``train_tokens`` is in tokens.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import numpy as np
from pydantic import (
    BaseModel,
    Discriminator,
    Field,
    Tag,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from ..costmodel.dlrm import SHARDING
from ..costmodel.training import kv_heads_fit
from ..errors import FieldProblem, InputError, single, string_number_message
from ..inputs import problems_from, read_document, short
from ..specs import NonNegFloat, NonNegInt, PositiveFloat, PositiveInt, Scenario, Spec

# ------------------------------------------------------------------------------ vocabulary
#: Hardware knobs: name -> (cost-model columns it sets, unit of the knob value and conversion).
KNOBS: dict[str, tuple[tuple[str, ...], str]] = {
    "hbm_gb": (("hbm_bytes",), "GiB per GPU (hbm_bytes = x * 2**30)"),
    "hbm_tbps": (("hbm_bw",), "TB/s per GPU (hbm_bw = x * 1e12 bytes/s)"),
    "peak_scale": (("peak_flops", "peak_flops_16"), "factor on the GPU's dense tensor-core peaks (both formats; "
                   "the special-function units keep exp_tera_per_s)"),
    "nvlink_gbps": (("nvlink_bw",), "GB/s per GPU, both directions (nvlink_bw = x * 1e9 / 2 bytes/s)"),
    "nvlink_domain": (("nvlink_domain",), "GPUs per NVLink domain (an integer)"),
    "nvlink_mesh": (("nvlink_mesh",), "how a domain's GPUs are linked: 1 a full mesh of direct links (AMD's "
                    "Infinity Fabric: a group of k of D GPUs drives k - 1 of their D - 1 links), 0 a switch"),
    "gpus_per_node": (("nvlink_domain",), "GPUs per server, whose NVLink switch joins them (an integer; "
                      "sets the NVLink domain unless nvlink_domain is a knob too)"),
    "scaleout_gbitps": (("scaleout_bw",), "Gbit/s per GPU, one direction (scaleout_bw = x * 1e9 / 8 bytes/s)"),
    "host_link_gbps": (("host_link_bw",), "GB/s per GPU to host memory, both directions (host_link_bw = x * 1e9 / 2 "
                       "bytes/s; what activation offloading copies over; training only)"),
    "exp_tera_per_s": (("exp_rate",), "exponentials per second per GPU, 1e12 (exp_rate = x * 1e12; the "
                       "special-function units that run the softmax of fused attention; training only)"),
    "l2_mb": (("l2_bytes",), "MiB of L2 cache per GPU (l2_bytes = x * 2**20; 0 = none; what serves a DLRM's "
              "embedding lookups of the rows it holds; DLRM only)"),
    "price_per_gpu_hour": (("price_per_gpu_hour",), "USD per GPU-hour"),
    "power_w": (("power_w",), "W per GPU"),
}
#: The knob that picks the GPU preset (``hardware.gpu``: names, not numbers); a row of results
#: holds its :func:`dse.presets.gpu_code` in ``hw.gpu``.
GPU_KNOB = "gpu"
#: Added to a GPU candidate's code for each earlier candidate of the same preset (two clouds'
#: instances of one GPU): ``code % GPU_REPEAT`` is the preset's :func:`dse.presets.gpu_code`.
GPU_REPEAT = 1000
#: The results column that names each row's GPU candidate (:attr:`GPUCandidate.label`).
GPU_LABEL = "gpu"
#: Fields of ``scenario.cluster`` that describe the cluster rather than its GPU: with
#: ``hardware.gpu`` they apply to every candidate; the other fields describe one GPU and conflict.
CLUSTER_WIDE_FIELDS = ("gpu", "num_gpus", "scaleout_gbitps", "scaleout_latency_us", "rail_optimized",
                       "memory_reserved_gb")
#: Knobs whose values must be whole numbers.
INTEGER_KNOBS = ("nvlink_domain", "gpus_per_node")
#: Knobs that may be 0 (all others must be > 0).
NONNEGATIVE_KNOBS = ("price_per_gpu_hour", "l2_mb")
#: Knobs that are 0 or 1 (a choice of two designs).
FLAG_KNOBS = ("nvlink_mesh",)

#: Metrics an objective may name (every one is a cost-model output except ``num_gpus``, an
#: input, and ``time_to_train_s`` = train_tokens / tokens_per_s).
OBJECTIVE_METRICS = (
    "tokens_per_s", "tokens_per_s_per_gpu", "samples_per_s", "mfu", "num_gpus",
    "iteration_time_s", "cost_per_mtok_usd", "energy_per_token_j", "power_per_gpu_w", "time_to_train_s",
    "memory_per_gpu_bytes", "cluster_usd_per_hour",
)
DEFAULT_OBJECTIVES = (("tokens_per_s", "maximize"), ("num_gpus", "minimize"))
#: Metrics a serving (llm_inference) objective may name: outputs of
#: :func:`dse.costmodel.inference.evaluate_inference` (``tokens_per_s*`` count output tokens,
#: ``input_tokens_per_s*`` prompt tokens (a prefill instance's throughput), ``itl_ms`` is the time
#: per output token, ``ttft_ms`` the time to first token) and num_gpus.
SERVING_METRICS = (
    "tokens_per_s", "tokens_per_s_per_gpu", "requests_per_s", "itl_ms", "ttft_ms", "mfu", "num_gpus",
    "iteration_time_s", "cost_per_mtok_usd", "energy_per_token_j", "power_per_gpu_w", "memory_per_gpu_bytes",
    "input_tokens_per_s", "input_tokens_per_s_per_gpu", "cluster_usd_per_hour",
)
#: Metrics a DLRM objective may name: outputs of :func:`dse.costmodel.dlrm.evaluate_dlrm`, num_gpus.
DLRM_METRICS = (
    "samples_per_s", "samples_per_s_per_gpu", "iteration_time_s", "mfu", "num_gpus",
    "cost_per_msample_usd", "energy_per_sample_j", "power_per_gpu_w", "memory_per_gpu_bytes", "cluster_usd_per_hour",
)
#: Metrics a ViT training objective may name: the LLM training metrics (tokens are patches
#: plus the class token) and per-image ones (a sample is an image).
VIT_METRICS = (
    "samples_per_s", "samples_per_s_per_gpu", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "num_gpus",
    "iteration_time_s", "cost_per_msample_usd", "energy_per_sample_j", "power_per_gpu_w", "memory_per_gpu_bytes",
    "cluster_usd_per_hour",
)
#: Searchable kinds of run (``Scenario.kind``) -> the metrics their objectives may name.
METRICS_BY_KIND = {
    "llm_train": OBJECTIVE_METRICS,
    "vit_train": VIT_METRICS,
    "vit_inference": VIT_METRICS,
    "llm_inference": SERVING_METRICS,
    "dlrm_train": DLRM_METRICS,
    "dlrm_inference": DLRM_METRICS,
}
SEARCHABLE_KINDS = tuple(METRICS_BY_KIND)
ALL_METRICS = tuple(dict.fromkeys(m for ms in METRICS_BY_KIND.values() for m in ms))
#: Constraints (besides max_gpus and max_memory_fraction, which every kind takes) -> the metric
#: they bound, whether it is a lower (``min``) or upper (``max``) bound, and the kinds they apply to.
METRIC_CONSTRAINTS = {
    "min_tokens_per_s": ("tokens_per_s", "min", ("llm_train", "llm_inference", "vit_train", "vit_inference")),
    "max_itl_ms": ("itl_ms", "max", ("llm_inference",)),
    "max_ttft_ms": ("ttft_ms", "max", ("llm_inference",)),
    "min_samples_per_s": ("samples_per_s", "min", ("dlrm_train", "dlrm_inference", "vit_train", "vit_inference")),
    "max_cluster_usd_per_hour": ("cluster_usd_per_hour", "max", SEARCHABLE_KINDS),
}

#: Keys the ``scenario`` block accepts (a scenario minus ``parallel`` and ``cluster.num_gpus``).
SCENARIO_KEYS = ("model", "precision", "workload", "cluster", "training", "inference", "finetune")

NAME_PATTERN = r"^[A-Za-z0-9._-]+$"

# ------------------------------------------------------------------------------ schema
FiniteFloat = Annotated[float, Field(strict=True, allow_inf_nan=False)]
Degrees = Annotated[list[PositiveInt], Field(min_length=1)]


def _one_or_many(value: Any) -> str:
    return "<many>" if isinstance(value, list) else "<one>"


def _list_or_range(value: Any) -> str | None:
    if isinstance(value, list):
        return "<list>"
    if isinstance(value, dict) or isinstance(value, BaseModel):
        return "<range>"
    return None


#: A positive integer or a non-empty list of them.
PositiveInts = Annotated[
    Union[Annotated[PositiveInt, Tag("<one>")], Annotated[Degrees, Tag("<many>")]],
    Discriminator(_one_or_many),
]


class GpuRange(Spec):
    """GPU counts ``min..max``: powers of two (``scale: pow2``) or every ``step`` (linear)."""

    min: PositiveInt
    max: PositiveInt
    scale: Literal["pow2", "linear"] = "linear"
    step: PositiveInt | None = None

    @model_validator(mode="after")
    def _check(self) -> "GpuRange":
        if self.min > self.max:
            raise ValueError(f"min ({self.min}) must not exceed max ({self.max})")
        if self.scale == "pow2":
            bad = [f"{k} {v} is not a power of two" for k, v in (("min", self.min), ("max", self.max))
                   if v & (v - 1)]
            if bad:
                raise ValueError("scale pow2 needs powers of two: " + "; ".join(bad))
            if self.step is not None:
                raise ValueError("step is for linear ranges; scale pow2 doubles the count")
        return self

    def counts(self) -> list[int]:
        """The GPU counts of the range, ascending."""
        if self.scale == "pow2":
            out, n = [], self.min
            while n <= self.max:
                out.append(n)
                n *= 2
            return out
        return list(range(self.min, self.max + 1, self.step or 1))


GpuCounts = Annotated[
    Union[Annotated[Degrees, Tag("<list>")], Annotated[GpuRange, Tag("<range>")]],
    Discriminator(_list_or_range),
]

SpChoice = Annotated[
    Union[Annotated[Literal["auto"], Tag("<one>")],
          Annotated[Annotated[list[bool], Field(min_length=1)], Tag("<many>")]],
    Discriminator(_one_or_many),
]


class ParallelSpace(Spec):
    """Candidate values of every parallel degree. ``dp`` is not listed: it is
    num_gpus / (tp*pp*cp). ``sp: auto`` means sp = (tp > 1); with a list, tp = 1 always runs
    with sp off (sequence parallelism needs tp > 1)."""

    tp: Degrees = [1, 2, 4, 8]
    pp: Degrees = [1, 2, 4, 8]
    vpp: Degrees = [1]
    cp: Degrees = [1]
    ep: Degrees = [1]
    #: ways each routed expert is split tensor-parallel (training's parallel.etp): ``tp`` (as
    #: the attention) or a number, which folds the experts into their own etp x ep layout
    #: (needs sequence parallelism with tp > 1; plans it does not divide are left out)
    etp: Annotated[list[Union[PositiveInt, Literal["tp"]]], Field(min_length=1)] = ["tp"]
    zero: Annotated[list[Annotated[int, Field(strict=True, ge=0, le=3)]], Field(min_length=1)] = [1]
    #: hybrid sharding: ranks one ZeRO/FSDP shard group spans (0 = all dp*cp ranks); a group
    #: that does not divide dp*cp, or any group with ZeRO 0, is left out of the grid
    shard_group: Annotated[list[Annotated[int, Field(strict=True, ge=0)]], Field(min_length=1)] = [0]
    sp: SpChoice = "auto"
    recompute: Annotated[list[Literal["none", "selective", "full"]], Field(min_length=1)] = ["none"]
    #: layers of each pipeline stage whose activations wait in host memory between forward and
    #: backward (training.offload_activation_layers; Megatron-core offloads only with pp = 1)
    offload_layers: Annotated[list[Annotated[int, Field(strict=True, ge=0)]], Field(min_length=1)] = [0]
    microbatch: Degrees = [1, 2, 4]


BatchItem = Union[PositiveInt, Literal["auto"]]
BatchChoice = Annotated[
    Union[Annotated[Literal["auto"], Tag("<one>")],
          Annotated[Annotated[list[BatchItem], Field(min_length=1)], Tag("<many>")]],
    Discriminator(_one_or_many),
]


def _priced(entries: list[Any]) -> list[tuple[str, float | None]]:
    """GPU entries (a preset name, or a :class:`PricedGPUSpec`) as (name as given, price or None)."""
    return [(g, None) if isinstance(g, str) else (g.gpu, g.price_per_gpu_hour) for g in entries]


class PricedGPUSpec(Spec):
    """A GPU preset a space may run on (``hardware.gpu``, or a deployment's prefill instances,
    ``parallel.disaggregated.gpu``), with its price."""

    gpu: str
    #: USD per GPU-hour; None = the preset's
    price_per_gpu_hour: NonNegFloat | None = None


class PrefillPlansSpace(Spec):
    """The prefill instances a serving space tries in disaggregated deployments: their tensor,
    pipeline, data (replicas: attention data parallelism with ep > tp) and expert parallel
    degrees, and the prompt tokens an iteration packs (``max_num_tokens``; None = the scenario's,
    else the engine default); ``decode_dp``, the replicas of each decode instance (whose tp, pp
    and ep are the space's); ``instances``, how many prefill instances a deployment has (``auto``:
    the split that serves the most requests; a number: that many, the GPUs left after them to
    decode instances), e.g. more prefill instances than the most-served split for a shorter
    queue at an offered rate; ``engines``: whether the space also holds engines that serve whole
    requests (false: only deployments, as a what-if of a disaggregated scenario searches);
    ``gpu``, the GPUs the prefill instances may run on (preset names, or ``{gpu, price_per_gpu_hour}``;
    the scenario's ``cluster.gpu`` stays the decode instances', and list it to keep it among the
    candidates), each at its own preset's figures and power (the space's hardware knobs describe
    the cluster's GPU), the KV caches crossing the scale-out network between the two kinds of
    server."""

    tp: Degrees = [1, 2, 4, 8]
    pp: Degrees = [1]
    dp: Degrees = [1]
    ep: Degrees = [1]
    max_num_tokens: Annotated[list[PositiveInt], Field(min_length=1)] | None = None
    decode_dp: Degrees = [1]
    instances: Annotated[list[PositiveInt | Literal["auto"]], Field(min_length=1)] = ["auto"]
    engines: bool = True
    gpu: Annotated[list[str | PricedGPUSpec], Field(min_length=1)] | None = None

    def instance_counts(self) -> list[int]:
        """The prefill instance counts, ascending; 0 stands for ``auto``."""
        return sorted({0 if v == "auto" else int(v) for v in self.instances})

    def gpus(self) -> list[tuple[str, float | None]]:
        """The prefill GPU candidates as (name as given, price or None)."""
        return _priced(self.gpu or [])


class ServingParallelSpace(Spec):
    """Serving plans (kind llm_inference): tensor, pipeline and expert parallel degrees, and the
    batch in flight per replica (sequences). ``dp`` (replicas) is num_gpus / (tp*pp).
    ``batch: auto`` (or ``auto`` among the listed values) lets the cost model pick the
    throughput-maximising batch that fits in memory (as for ``offline_max_throughput``); a listed
    batch that does not fit is infeasible (out of memory). With ``disaggregated`` (prefill
    instance plans) the space also holds disaggregated deployments of each GPU count: a prefill
    instance plan of that block with a decode instance of the plans above (one replica, tp*pp
    GPUs), the GPUs split between them as serves the most requests
    (:mod:`dse.costmodel.disaggregated`)."""

    tp: Degrees = [1, 2, 4, 8]
    pp: Degrees = [1]
    ep: Degrees = [1]
    batch: BatchChoice = "auto"
    #: speculative decoding: draft tokens per iteration to try (0 = none); None = the scenario's
    #: own ``inference.speculative_tokens``. Any above 0 needs ``inference.draft_acceptance``.
    speculative_tokens: Annotated[list[NonNegInt], Field(min_length=1)] | None = None
    #: also disaggregated deployments, with prefill instances of these plans; None = engines only
    disaggregated: PrefillPlansSpace | None = None

    def batches(self) -> list[int]:
        """The batch candidates, ascending; 0 stands for ``auto``."""
        values = [self.batch] if isinstance(self.batch, str) else list(self.batch)
        return sorted({0 if v == "auto" else int(v) for v in values})


#: Embedding sharding plans (:data:`dse.costmodel.dlrm.SHARDING`).
EMB_SHARDINGS = tuple(SHARDING)
#: Embedding table placement: cost-balanced (0) or memory-balanced (1) greedy planner.
EMB_PLANNERS = {"cost": 0, "memory": 1}


class DLRMParallelSpace(Spec):
    """DLRM plans (kinds dlrm_train, dlrm_inference): the embedding sharding, the table planner
    (it matters for table, column, table_row, auto, hier_auto and node_sharded only), the MLPs' tensor-parallel
    degree and ``zero`` (0: data parallel, 3: FSDP), and the samples per GPU per step
    (``microbatch``; DLRM steps have no gradient accumulation: global batch = microbatch x GPUs)."""

    emb_sharding: Annotated[list[Literal[EMB_SHARDINGS]], Field(min_length=1)] = [  # type: ignore[valid-type]
        "table", "row", "column", "table_row", "auto", "hier_auto", "node_sharded", "data_parallel"]
    emb_planner: Annotated[list[Literal["cost", "memory"]], Field(min_length=1)] = ["cost"]
    tp: Degrees = [1]
    zero: Annotated[list[Literal[0, 3]], Field(min_length=1)] = [0]
    microbatch: Degrees | None = None


class SamplesBatchSpace(Spec):
    """DLRM global batches in samples (one or a list); microbatch = samples / num_gpus."""

    samples: PositiveInts

    def as_list(self) -> list[int]:
        return list(self.samples) if isinstance(self.samples, list) else [self.samples]


class MadMaxRef(Spec):
    """A MAD-Max (model, system, task) JSON triplet naming the fixed parts of a space (paths
    relative to the space file)."""

    model: str
    system: str
    task: str


class GlobalBatchSpace(Spec):
    """Global batch sizes: ``sequences`` (one or a list) or ``tokens`` (one or a list;
    sequences = tokens // seq_len)."""

    sequences: PositiveInts | None = None
    tokens: PositiveInts | None = None

    @model_validator(mode="after")
    def _check(self) -> "GlobalBatchSpace":
        if (self.sequences is None) == (self.tokens is None):
            raise ValueError("give exactly one of sequences or tokens, e.g. {sequences: 512} or {tokens: 4194304}")
        return self

    def as_list(self, key: str) -> list[int] | None:
        value = getattr(self, key)
        if value is None:
            return None
        return list(value) if isinstance(value, list) else [value]


class KnobSpec(Spec):
    """One hardware knob: discrete ``values``, or a range ``low``..``high`` (``log`` for a
    log-uniform search, ``step`` for a grid low, low+step, ... <= high). Units: the knob's
    name (see :data:`KNOBS`)."""

    values: Annotated[list[FiniteFloat], Field(min_length=1)] | None = None
    low: FiniteFloat | None = None
    high: FiniteFloat | None = None
    log: bool = False
    step: PositiveFloat | None = None

    @model_validator(mode="after")
    def _check(self) -> "KnobSpec":
        if self.values is not None:
            extra = [k for k in ("low", "high", "step") if getattr(self, k) is not None]
            if self.log:
                extra.append("log")
            if extra:
                raise ValueError(f"give either values or low/high, not both (also given: {', '.join(extra)})")
            return self
        if self.low is None or self.high is None:
            raise ValueError("give values: [...] or a range {low, high} (optionally log: true or step)")
        if not self.low < self.high:
            raise ValueError(f"low ({self.low:g}) must be below high ({self.high:g})")
        if self.log and self.low <= 0:
            raise ValueError(f"log: true needs low > 0 (given low {self.low:g})")
        if self.log and self.step is not None:
            raise ValueError("step cannot be combined with log: true")
        return self

    @property
    def is_discrete(self) -> bool:
        """True when the knob lists its values."""
        return self.values is not None

    @property
    def is_gridable(self) -> bool:
        """True when the knob has a finite grid: listed values, or a range with ``step``."""
        return self.values is not None or self.step is not None

    def grid(self) -> np.ndarray | None:
        """The knob's values in its own unit (sorted, unique; a stepped range is
        low, low+step, ... <= high), or None for a continuous range."""
        if self.values is not None:
            return np.unique(np.asarray(self.values, dtype=np.float64))
        if self.step is None:
            return None
        count = int(math.floor((self.high - self.low) / self.step * (1.0 + 1e-12) + 1e-9)) + 1
        return self.low + self.step * np.arange(count, dtype=np.float64)


class GPUCandidateSpec(PricedGPUSpec):
    """A GPU candidate of ``hardware.gpu``: a preset, its price, ``cluster``, the figures of its
    servers that differ from the preset's (any ``scenario.cluster`` key but gpu and num_gpus,
    e.g. ``{scaleout_gbitps: 800, gpus_per_node: 4}``; units as there), and ``name``, what
    results call it (default the preset's name; needed to list one preset twice, e.g. two
    clouds' instances of it)."""

    cluster: dict[str, Any] | None = None
    name: Annotated[str, Field(strict=True, pattern=NAME_PATTERN)] | None = None


class GPUChoiceSpace(Spec):
    """The GPU presets a space tries (``hardware.gpu``): names, or ``{gpu, price_per_gpu_hour,
    cluster}`` to price one (USD per GPU-hour; else the preset's) or state its servers' own
    figures (:class:`GPUCandidateSpec`). Each candidate is the scenario's cluster on that GPU:
    its preset's datasheet figures, calibration, power and price, then its own ``cluster``
    overrides; the cluster-wide settings of ``scenario.cluster`` (:data:`CLUSTER_WIDE_FIELDS`)
    and the other hardware knobs apply to every candidate."""

    values: Annotated[list[str | GPUCandidateSpec], Field(min_length=1)]

    def gpus(self) -> list[tuple[str, float | None]]:
        """The candidates as (name as given, price or None)."""
        return _priced(self.values)

    def overrides(self) -> list[dict[str, Any]]:
        """Each candidate's own cluster overrides (empty for a name alone)."""
        return [{} if isinstance(g, str) else dict(g.cluster or {}) for g in self.values]

    def labels(self) -> list[str | None]:
        """Each candidate's ``name`` (None where not given: results use the preset's)."""
        return [None if isinstance(g, str) else g.name for g in self.values]


@dataclass(frozen=True)
class GPUCandidate:
    """One GPU candidate of a space: its ``code`` (the value of the ``gpu`` knob in results,
    ``hw.gpu``: :func:`dse.presets.gpu_code` of its preset, plus 1000 for each earlier candidate
    of the same preset), its ``preset``, ``price`` (USD per GPU-hour; None for the preset's), its
    own ``cluster`` overrides and its ``label`` (results' ``gpu`` column)."""

    code: int
    preset: str
    price: float | None
    cluster: dict[str, Any]
    label: str


class HardwareSpace(Spec):
    """Hardware knobs to explore (all optional); see :data:`KNOBS` for units. ``gpu``: GPU
    presets to choose among (:class:`GPUChoiceSpace`)."""

    gpu: GPUChoiceSpace | None = None
    hbm_gb: KnobSpec | None = None
    hbm_tbps: KnobSpec | None = None
    peak_scale: KnobSpec | None = None
    nvlink_gbps: KnobSpec | None = None
    nvlink_domain: KnobSpec | None = None
    nvlink_mesh: KnobSpec | None = None
    gpus_per_node: KnobSpec | None = None
    scaleout_gbitps: KnobSpec | None = None
    host_link_gbps: KnobSpec | None = None
    exp_tera_per_s: KnobSpec | None = None
    l2_mb: KnobSpec | None = None
    price_per_gpu_hour: KnobSpec | None = None
    power_w: KnobSpec | None = None

    @field_validator(*KNOBS, mode="after")
    @classmethod
    def _check_knob(cls, knob: KnobSpec | None, info: ValidationInfo) -> KnobSpec | None:
        if knob is None:
            return knob
        name = info.field_name
        numbers = list(knob.values) if knob.values is not None else [knob.low, knob.high]
        if knob.step is not None:
            numbers.append(knob.step)
        if name in FLAG_KNOBS:
            bad = [v for v in numbers if v not in (0, 1)]
            if bad:
                raise ValueError(f"{name} takes 0 or 1 (given {', '.join(f'{v:g}' for v in bad)})")
        elif name in NONNEGATIVE_KNOBS:
            bad = [v for v in numbers if v < 0]
            if bad:
                raise ValueError(f"{name} must be >= 0 (given {', '.join(f'{v:g}' for v in bad)})")
        else:
            bad = [v for v in numbers if v <= 0]
            if bad:
                raise ValueError(f"{name} must be > 0 (given {', '.join(f'{v:g}' for v in bad)})")
        if name in INTEGER_KNOBS:
            bad = [v for v in numbers if not float(v).is_integer()]
            if bad:
                raise ValueError(f"{name} takes whole numbers (given {', '.join(f'{v:g}' for v in bad)})")
        return knob


class ObjectiveSpec(Spec):
    """One objective: a metric and whether to maximize or minimize it."""

    metric: Literal[ALL_METRICS]  # type: ignore[valid-type]  # per kind: METRICS_BY_KIND
    direction: Literal["maximize", "minimize"]


class ConstraintsSpec(Spec):
    """Limits a configuration must meet to count as feasible (all optional).

    ``max_gpus`` caps the GPU counts; ``min_tokens_per_s`` is in tokens/s (LLM training and
    serving); ``max_memory_fraction`` is the fraction of HBM capacity a configuration may use
    (0-1]; a serving engine fills the memory with its KV cache by design, so for serving bound
    the engine's own share instead (``scenario.inference.gpu_memory_utilization``). Serving only: ``max_itl_ms`` (time per output token) and ``max_ttft_ms`` (time to
    first token), in ms. DLRM only: ``min_samples_per_s``. Any kind: ``max_cluster_usd_per_hour``, a
    budget on what a configuration's GPUs cost an hour (num_gpus x price_per_gpu_hour, USD; the
    results' ``cluster_usd_per_hour``): with several GPU candidates or a price model, the most GPUs of
    each kind the budget buys."""

    max_gpus: PositiveInt | None = None
    min_tokens_per_s: NonNegFloat = 0.0
    max_memory_fraction: Annotated[float, Field(strict=True, gt=0, le=1, allow_inf_nan=False)] = 1.0
    max_itl_ms: PositiveFloat | None = None
    max_ttft_ms: PositiveFloat | None = None
    min_samples_per_s: NonNegFloat | None = None
    max_cluster_usd_per_hour: PositiveFloat | None = None


class SearchSettings(Spec):
    """How to search: ``mode`` auto (exhaustive when the hardware is discrete and the space has
    at most ``max_exhaustive`` configurations, else nested) | nested | exhaustive | optuna;
    ``sampler`` tpe | nsga2 | random; ``n_trials`` and ``batch_size`` for Optuna; ``seed``;
    ``chunk_configs``: about how many configurations one exhaustive task scores (smaller chunks
    spread better over many workers and lose less when a worker dies; larger ones write fewer
    shards)."""

    mode: Literal["auto", "nested", "exhaustive", "optuna"] = "auto"
    sampler: Literal["tpe", "nsga2", "random"] = "tpe"
    n_trials: PositiveInt = 100
    batch_size: PositiveInt = 8
    seed: NonNegInt = 0
    max_exhaustive: PositiveInt = 50_000_000
    chunk_configs: PositiveInt = 200_000


#: Knobs a price model may scale the price by (not the price itself or the power limit; a node's
#: size is priced through the NVLink domain it makes).
PRICED_KNOBS = tuple(k for k in KNOBS if k not in ("price_per_gpu_hour", "power_w", "gpus_per_node"))


class PriceModelSpec(Spec):
    """The price of a co-design point, USD per GPU-hour: the base GPU's price times, for each
    knob listed, its value over the base GPU's raised to the exponent:
    ``price = usd_per_hour * prod((x / x_base) ** exponent)``. An exponent is an assumption the
    user states (1: the price grows in proportion; 0.5: with its square root); dse ships no fit
    of part prices. Without a price model every hardware point costs the scenario's price, and a
    per-dollar objective is throughput per GPU under another name."""

    #: the base GPU's price; None = the scenario's (cluster.price_per_gpu_hour or the preset's)
    usd_per_hour: PositiveFloat | None = None
    exponents: Annotated[dict[str, FiniteFloat], Field(min_length=1)]

    @field_validator("exponents", mode="after")
    @classmethod
    def _priced_knobs(cls, exponents: dict[str, float]) -> dict[str, float]:
        bad = [k for k in exponents if k not in PRICED_KNOBS]
        if bad:
            raise ValueError(f"unknown or unpriceable knob {bad[0]!r}; allowed: {', '.join(PRICED_KNOBS)}")
        return exponents


class SpaceSpec(Spec):
    """The validated content of a search-space file (the ``scenario`` block is checked
    separately by :func:`dse.scenario.scenario_from_dict`)."""

    name: Annotated[str, Field(strict=True, pattern=NAME_PATTERN)] | None = None
    description: str | None = None
    scenario: dict[str, Any]
    madmax: MadMaxRef | None = None
    gpus: GpuCounts
    parallel: ParallelSpace = ParallelSpace()
    global_batch: GlobalBatchSpace
    hardware: HardwareSpace = HardwareSpace()
    #: the price of each hardware point from its knobs (a price/performance co-design)
    price_model: PriceModelSpec | None = None
    train_tokens: PositiveFloat | None = None
    objectives: Annotated[list[ObjectiveSpec], Field(min_length=1)] = [
        ObjectiveSpec(metric=m, direction=d) for m, d in DEFAULT_OBJECTIVES
    ]
    constraints: ConstraintsSpec = ConstraintsSpec()
    search: SearchSettings = SearchSettings()

    @model_validator(mode="before")
    @classmethod
    def _none_is_default(cls, data: Any) -> Any:
        # ``hardware:`` with nothing under it (YAML null) means no knobs
        if isinstance(data, dict) and "hardware" in data and data["hardware"] is None:
            data = {k: v for k, v in data.items() if k != "hardware"}
        return data

    @field_validator("objectives", mode="after")
    @classmethod
    def _unique_metrics(cls, objectives: list[ObjectiveSpec]) -> list[ObjectiveSpec]:
        metrics = [o.metric for o in objectives]
        repeated = sorted({m for m in metrics if metrics.count(m) > 1})
        if repeated:
            raise ValueError(f"each metric may appear once; repeated: {', '.join(repeated)}")
        return objectives


class ServingSpaceSpec(SpaceSpec):
    """A serving space (kind llm_inference): serving plans, no global batch."""

    parallel: ServingParallelSpace = ServingParallelSpace()
    global_batch: None = None
    objectives: Annotated[list[ObjectiveSpec], Field(min_length=1)] = [
        ObjectiveSpec(metric="tokens_per_s_per_gpu", direction="maximize"),
        ObjectiveSpec(metric="itl_ms", direction="minimize"),
    ]

    @field_validator("global_batch", mode="before")
    @classmethod
    def _no_global_batch(cls, value: Any) -> Any:
        if value is not None:
            raise ValueError("a serving space has no global batch: list the batch in flight per "
                             "replica in parallel.batch (e.g. [8, 64, auto])")
        return value


class DLRMSpaceSpec(SpaceSpec):
    """A DLRM space (kinds dlrm_train, dlrm_inference): sharding plans, batches in samples."""

    parallel: DLRMParallelSpace = DLRMParallelSpace()
    global_batch: SamplesBatchSpace | None = None
    objectives: Annotated[list[ObjectiveSpec], Field(min_length=1)] = [
        ObjectiveSpec(metric="samples_per_s", direction="maximize"),
        ObjectiveSpec(metric="num_gpus", direction="minimize"),
    ]


#: Kind of run -> the schema of its space file.
SPEC_BY_KIND: dict[str, type[SpaceSpec]] = {
    "llm_train": SpaceSpec,
    "vit_train": SpaceSpec,
    "vit_inference": SpaceSpec,
    "llm_inference": ServingSpaceSpec,
    "dlrm_train": DLRMSpaceSpec,
    "dlrm_inference": DLRMSpaceSpec,
}


# ------------------------------------------------------------------------------ the space
@dataclass(frozen=True)
class SearchSpace:
    """A validated search space.

    ``spec`` is the validated file content, ``base`` the fixed parts as a
    :class:`dse.specs.Scenario` (at the smallest GPU count, default parallel plan; with
    ``hardware.gpu``, on the scenario's GPU, by default the first candidate: :meth:`on_gpu`
    gives the space on another).
    ``source_path``/``source_text`` are the file and its text (None for dicts).
    """

    spec: SpaceSpec
    base: Scenario
    source_path: str | None = None
    source_text: str | None = None

    @property
    def name(self) -> str:
        """The study name: ``name`` from the file, else the file's stem, else ``search``."""
        if self.spec.name:
            return self.spec.name
        if self.source_path:
            stem = re.sub(r"[^A-Za-z0-9._-]+", "-", Path(self.source_path).stem).strip("-")
            if stem:
                return stem
        return "search"

    def gpu_counts(self) -> list[int]:
        """The GPU counts to explore, ascending, those above ``constraints.max_gpus`` dropped."""
        counts = _all_gpu_counts(self.spec)
        cap = self.spec.constraints.max_gpus
        return [n for n in counts if cap is None or n <= cap]

    @property
    def objectives(self) -> list[tuple[str, str]]:
        """(metric, direction) pairs, direction 'maximize' or 'minimize'."""
        return [(o.metric, o.direction) for o in self.spec.objectives]

    @property
    def kind(self) -> str:
        """The kind of run searched (:attr:`dse.specs.Scenario.kind`): llm_train, vit_train,
        llm_inference, dlrm_train or dlrm_inference."""
        return self.base.kind

    @property
    def seq_len(self) -> int:
        """Tokens per sequence of the model (LLM spaces; ViT: tokens per image)."""
        return int(transformer_shape(self.base.model).seq_len)

    def global_batches(self) -> list[int]:
        """Candidate global batches in sequences, ascending (tokens // seq_len for ``tokens``);
        for DLRM spaces in samples (empty when only ``parallel.microbatch`` is given); empty for
        serving spaces (their batch is ``parallel.batch``)."""
        if self.spec.global_batch is None:
            return []
        if isinstance(self.spec, DLRMSpaceSpec):
            gb = self.spec.global_batch
            return sorted(set(gb.as_list())) if gb is not None else []
        return _global_batches(self.spec.global_batch, self.seq_len)

    @property
    def knobs(self) -> dict[str, KnobSpec]:
        """The hardware knobs given, name -> :class:`KnobSpec` (values in the knob's unit); the
        GPU choice first, as ``gpu`` with the candidates' codes (:class:`GPUCandidate`)."""
        hw = self.spec.hardware
        knobs = {name: getattr(hw, name) for name in KNOBS if getattr(hw, name) is not None}
        if hw.gpu is None:
            return knobs
        return {GPU_KNOB: KnobSpec(values=[float(code) for code in self.gpu_choices()]), **knobs}

    def gpu_choices(self) -> dict[int, GPUCandidate]:
        """The GPU candidates of ``hardware.gpu`` by code (:class:`GPUCandidate`), in the order
        listed; empty without the knob."""
        from ..presets import find_gpu, gpu_code

        choice = self.spec.hardware.gpu
        if choice is None:
            return {}
        out: dict[int, GPUCandidate] = {}
        for (name, price), own, label in zip(choice.gpus(), choice.overrides(), choice.labels()):
            preset = find_gpu(name) or name
            code = gpu_code(preset) + GPU_REPEAT * sum(c.preset == preset for c in out.values())
            out[code] = GPUCandidate(code, preset, price, own, label or preset)
        return out

    def gpu_labels(self) -> dict[float, str]:
        """What results call each GPU candidate, by code (empty without the knob)."""
        return {float(code): c.label for code, c in self.gpu_choices().items()}

    def on_gpu(self, code: float) -> "SearchSpace":
        """The space with its fixed parts on the GPU candidate of ``code`` (a value of the
        ``gpu`` knob): the scenario's cluster-wide settings (:data:`CLUSTER_WIDE_FIELDS`) on that
        preset with the candidate's own overrides, at its price; the space itself for 0 or
        without the knob."""
        from ..specs import ClusterSpec

        code = int(round(float(code)))
        choices = self.gpu_choices()
        if code not in choices:
            if code == 0 or not choices:
                return self
            raise single("hardware.gpu", "not a GPU candidate of this space", code, self.source_path)
        c = choices[code]
        cluster = self.base.cluster
        kept = {k: getattr(cluster, k) for k in CLUSTER_WIDE_FIELDS if k in cluster.model_fields_set}
        gpu_cluster = ClusterSpec(**{**kept, **c.cluster, "gpu": c.preset, "num_gpus": cluster.num_gpus,
                                     **({} if c.price is None else {"price_per_gpu_hour": c.price})})
        return SearchSpace(spec=self.spec, base=self.base.model_copy(update={"cluster": gpu_cluster}),
                           source_path=self.source_path, source_text=self.source_text)

    def gpu_variants(self) -> list["SearchSpace"]:
        """The space on each of its GPU candidates (:meth:`on_gpu`), or the space alone."""
        return [self.on_gpu(code) for code in self.gpu_choices()] or [self]

    def is_discrete_hardware(self) -> bool:
        """True when every knob lists its ``values`` (also True with no knobs)."""
        return all(k.values is not None for k in self.knobs.values())

    def scenario(self, num_gpus: int) -> Scenario:
        """The fixed parts as a scenario with ``num_gpus`` GPUs (default parallel plan)."""
        if isinstance(num_gpus, (bool, np.bool_)) or int(num_gpus) != num_gpus or num_gpus < 1:
            raise single("num_gpus", "must be a positive integer", num_gpus, self.source_path)
        n = int(num_gpus)
        cluster = self.base.cluster.model_copy(update={"num_gpus": n})
        return self.base.model_copy(update={"cluster": cluster, "name": f"{self.name}-{n}gpus"})

    def base_columns(self, num_gpus: int) -> dict[str, float]:
        """Cost-model columns (SI units) of the fixed parts with ``num_gpus`` GPUs, for the
        space's kind of run (LLM training: :data:`dse.costmodel.COLUMNS`; serving: those plus
        the serving columns; DLRM: :data:`dse.costmodel.dlrm.COLUMNS`); the plan columns hold the
        default plan (overwrite them with :func:`dse.search.enumerate.plan_grid`)."""
        from .evaluation import workload

        return workload(self).base(self, num_gpus)


def hardware_columns(base: dict[str, Any], knobs: dict[str, Any],
                     price_model: PriceModelSpec | None = None) -> dict[str, Any]:
    """A new dict of cost-model columns: ``base`` with the knob values applied.

    ``knobs`` maps knob names (:data:`KNOBS`) to values in the knob's unit, scalars or numpy
    arrays (vectorized). Conversions to SI: hbm_gb -> hbm_bytes = x * 2**30; hbm_tbps ->
    hbm_bw = x * 1e12 bytes/s; peak_scale multiplies peak_flops and peak_flops_16 (FLOP/s);
    nvlink_gbps -> nvlink_bw = x * 1e9 / 2 bytes/s (one direction); nvlink_domain -> GPUs;
    nvlink_mesh -> 1 (full mesh) or 0 (switch);
    gpus_per_node -> nvlink_domain (servers whose NVLink switch joins their GPUs) unless
    nvlink_domain is set too;
    scaleout_gbitps -> scaleout_bw = x * 1e9 / 8 bytes/s; host_link_gbps -> host_link_bw =
    x * 1e9 / 2 bytes/s (one direction); exp_tera_per_s -> exp_rate = x * 1e12 exponentials/s;
    l2_mb -> l2_bytes = x * 2**20 bytes;
    price_per_gpu_hour (USD) and power_w (W) as they are. ``price_model`` then prices the point
    (:class:`PriceModelSpec`): each listed knob's ratio is that of the column it sets to
    ``base``'s (peak_scale: the factor itself). The ``gpu`` knob sets no column here: ``base``
    must already be that GPU's (:meth:`SearchSpace.on_gpu`).
    """
    unknown = [k for k in knobs if k not in KNOBS and k != GPU_KNOB]
    if unknown:
        raise single("hardware." + unknown[0], f"unknown hardware knob; allowed: {', '.join(KNOBS)}", unknown[0])
    out = dict(base)

    def value(name: str) -> Any:
        x = knobs[name]
        return np.asarray(x, dtype=np.float64) if isinstance(x, (np.ndarray, list, tuple)) else float(x)

    if "hbm_gb" in knobs:
        out["hbm_bytes"] = value("hbm_gb") * 2.0**30
    if "hbm_tbps" in knobs:
        out["hbm_bw"] = value("hbm_tbps") * 1e12
    if "peak_scale" in knobs:
        scale = value("peak_scale")
        out["peak_flops"] = np.asarray(base["peak_flops"], dtype=np.float64) * scale
        out["peak_flops_16"] = np.asarray(base["peak_flops_16"], dtype=np.float64) * scale
        if np.ndim(out["peak_flops"]) == 0:
            out["peak_flops"] = float(out["peak_flops"])
            out["peak_flops_16"] = float(out["peak_flops_16"])
    if "gpus_per_node" in knobs and "nvlink_domain" not in knobs:
        out["nvlink_domain"] = value("gpus_per_node")
    if "nvlink_gbps" in knobs:
        out["nvlink_bw"] = value("nvlink_gbps") * 1e9 / 2.0
    if "nvlink_domain" in knobs:
        out["nvlink_domain"] = value("nvlink_domain")
    if "nvlink_mesh" in knobs:
        out["nvlink_mesh"] = value("nvlink_mesh")
    if "scaleout_gbitps" in knobs:
        out["scaleout_bw"] = value("scaleout_gbitps") * 1e9 / 8.0
    if "host_link_gbps" in knobs:
        out["host_link_bw"] = value("host_link_gbps") * 1e9 / 2.0
    if "exp_tera_per_s" in knobs:
        out["exp_rate"] = value("exp_tera_per_s") * 1e12
    if "l2_mb" in knobs:
        out["l2_bytes"] = value("l2_mb") * 2.0**20
    if "price_per_gpu_hour" in knobs:
        out["price_per_gpu_hour"] = value("price_per_gpu_hour")
    if "power_w" in knobs:
        out["power_w"] = value("power_w")
    if price_model is not None:
        price = price_model.usd_per_hour or base["price_per_gpu_hour"]
        for name, exponent in price_model.exponents.items():
            if name not in knobs:
                continue
            if name == "peak_scale":
                ratio = value("peak_scale")
            else:
                col = KNOBS[name][0][0]
                ratio = np.asarray(out[col], dtype=np.float64) / float(np.asarray(base[col], dtype=np.float64))
            price = price * np.power(ratio, exponent)
        out["price_per_gpu_hour"] = price if np.ndim(price) else float(price)
    return out


# ------------------------------------------------------------------------------ loading
def load_space(path: str | Path) -> SearchSpace:
    """Read and validate a search-space file (``.json`` as JSON, anything else as YAML).

    Raises :class:`dse.errors.InputError` naming the file and every bad field.
    """
    path = Path(path)
    data, text = read_document(path)
    return space_from_dict(data, source=str(path), text=text)


def space_from_dict(data: Any, source: str | None = None, text: str | None = None) -> SearchSpace:
    """Validate a search-space mapping. ``source`` (a file name) is named in errors and kept as
    ``source_path``; ``text`` is kept as ``source_text``."""
    if not isinstance(data, dict):
        raise single("", "expected a mapping of keys (scenario, gpus, parallel, global_batch, ...)",
                     type(data).__name__, source)
    problems: list[FieldProblem] = []
    data, madmax_problems = _resolve_madmax(data, source)
    data = _first_candidate_gpu(data)
    problems += madmax_problems
    kind = _raw_kind(data.get("scenario"))
    schema = SPEC_BY_KIND.get(kind, SpaceSpec)
    spec: SpaceSpec | None = None
    try:
        spec = schema.model_validate(data)
    except ValidationError as err:
        found = _problems(err, schema, kind)
        if madmax_problems:  # the scenario comes from the triplet: not missing
            found = [p for p in found if p.field not in ("scenario", "madmax")]
        problems += found

    smallest = min(_all_gpu_counts(spec)) if spec is not None else _smallest_gpus(data.get("gpus"))
    base, scenario_problems = (None, []) if madmax_problems else _validate_scenario(data.get("scenario"), smallest)
    problems += scenario_problems
    if base is not None and base.kind not in SEARCHABLE_KINDS:
        problems.append(FieldProblem("scenario", repr(base.kind),
                                     f"this kind of run is not searchable; searchable kinds: "
                                     f"{', '.join(SEARCHABLE_KINDS)}"))
        base = None

    if spec is not None and not madmax_problems:
        problems += _cross_checks(spec, base)
    if problems:
        raise InputError(_dedupe(problems), source)
    assert spec is not None and base is not None
    return SearchSpace(spec=spec, base=base, source_path=source, source_text=text)


def _first_candidate_gpu(data: dict) -> dict:
    """With ``hardware.gpu`` and no ``scenario.cluster.gpu``, the scenario's GPU (that of its
    validation and of :attr:`SearchSpace.base`) is the first known candidate."""
    from ..presets import find_gpu

    scenario, hardware = data.get("scenario"), data.get("hardware")
    choice = hardware.get("gpu") if isinstance(hardware, dict) else None
    values = choice.get("values") if isinstance(choice, dict) else None
    if not isinstance(scenario, dict) or not isinstance(values, list):
        return data
    cluster = scenario.get("cluster", {})
    if not isinstance(cluster, dict) or "gpu" in cluster:
        return data
    names = [v.get("gpu") if isinstance(v, dict) else v for v in values]
    known = [n for n in names if isinstance(n, str) and find_gpu(n) is not None]
    if not known:
        return data
    return {**data, "scenario": {**scenario, "cluster": {**cluster, "gpu": known[0]}}}


def _raw_kind(raw: Any) -> str:
    """The kind of run an unvalidated ``scenario`` block describes (llm_train when unclear)."""
    if not isinstance(raw, dict):
        return "llm_train"
    model = raw.get("model")
    family = model.get("family") if isinstance(model, dict) else None
    family = family if family in ("dlrm", "vit") else "llm"
    task = "inference" if raw.get("workload") == "inference" else "train"
    return f"{family}_{task}"


def _resolve_madmax(data: dict, source: str | None) -> tuple[dict, list[FieldProblem]]:
    """``madmax: {model, system, task}`` in place of ``scenario``: the fixed parts imported from
    the MAD-Max triplet (:func:`dse.madmax.search_scenario`; paths relative to the space file)."""
    ref = data.get("madmax")
    if ref is None:
        return data, []
    if "scenario" in data:
        return data, [FieldProblem("madmax", "", "give either scenario or madmax (a MAD-Max model, "
                                   "system and task naming the fixed parts), not both")]
    keys = ("model", "system", "task")
    if not isinstance(ref, dict) or set(ref) != set(keys) or not all(isinstance(ref[k], str) for k in keys):
        return data, [FieldProblem("madmax", short(ref), "give model, system and task: paths of MAD-Max "
                                   "JSON files, relative to the space file")]
    from ..madmax import search_scenario

    base = Path(source).parent if source else Path(".")
    try:
        fixed, _ = search_scenario(ref["model"], ref["system"], ref["task"], base=base)
    except InputError as err:
        where = err.source or "MAD-Max file"
        return data, [FieldProblem(f"madmax ({where}){'.' + p.field if p.field else ''}", p.given, p.message)
                      for p in err.problems]
    except OSError as err:
        return data, [FieldProblem("madmax", "", f"cannot read the MAD-Max triplet: {err}")]
    return {**data, "scenario": fixed}, []


def _all_gpu_counts(spec: SpaceSpec) -> list[int]:
    gpus = spec.gpus
    counts = gpus.counts() if isinstance(gpus, GpuRange) else list(gpus)
    return sorted(set(counts))


def _smallest_gpus(raw: Any) -> int:
    """The smallest GPU count of an unvalidated ``gpus`` value (1 when it cannot tell)."""
    if isinstance(raw, list):
        ints = [v for v in raw if isinstance(v, int) and not isinstance(v, bool) and v > 0]
        return min(ints) if ints else 1
    if isinstance(raw, dict):
        v = raw.get("min")
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return 1


def _global_batches(gb: GlobalBatchSpace, seq_len: int) -> list[int]:
    seqs = gb.as_list("sequences")
    if seqs is None:
        seqs = [t // seq_len for t in gb.as_list("tokens") or []]
    return sorted(set(seqs))


def _validate_scenario(raw: Any, num_gpus: int) -> tuple[Scenario | None, list[FieldProblem]]:
    """Validate the ``scenario`` block at ``num_gpus`` GPUs; problems prefixed ``scenario.``."""
    from ..scenario import scenario_from_dict

    if not isinstance(raw, dict):
        return None, []  # reported by the schema (missing, or not a mapping)
    problems = []
    kind = _raw_kind(raw)
    for key in raw:
        if key == "parallel":
            schema = SPEC_BY_KIND.get(kind, SpaceSpec).model_fields["parallel"].annotation
            problems.append(FieldProblem(
                "scenario.parallel", "",
                "the parallel plan is what is searched: list candidate values in the top-level "
                f"'parallel' block ({', '.join(schema.model_fields)})"
                + (" and the batch in 'global_batch'" if kind in ("llm_train", "vit_train", "vit_inference") else "")))
        elif key not in SCENARIO_KEYS:
            problems.append(FieldProblem(f"scenario.{key}", "",
                                         f"unknown key '{key}'; allowed keys: {', '.join(SCENARIO_KEYS)}"))
    cluster = raw.get("cluster")
    if isinstance(cluster, dict) and "num_gpus" in cluster:
        problems.append(FieldProblem("scenario.cluster.num_gpus", short(cluster["num_gpus"]),
                                     "the GPU count is searched: give it in the top-level 'gpus' "
                                     "(a list, {min, max, scale: pow2} or {min, max, step})"))
    inference = raw.get("inference")
    if kind == "llm_inference" and not isinstance(inference, dict):
        problems.append(FieldProblem("scenario.inference", short(inference),
                                     "a serving space needs the request shape: inference: "
                                     "{input_len, output_len} (and optionally mode, concurrency)"))
    elif isinstance(inference, dict) and "batch" in inference:
        problems.append(FieldProblem("scenario.inference.batch", short(inference["batch"]),
                                     "the batch in flight is searched: list candidates (or auto) "
                                     "in the top-level parallel.batch"))
    elif kind != "llm_inference" and inference is not None:
        problems.append(FieldProblem("scenario.inference", "",
                                     "an inference block is for LLM serving (workload: inference)"))
    data = {k: v for k, v in raw.items() if k in SCENARIO_KEYS}
    if isinstance(cluster, dict):
        data["cluster"] = {**{k: v for k, v in cluster.items() if k != "num_gpus"}, "num_gpus": num_gpus}
    try:
        base = scenario_from_dict(data)
    except InputError as err:
        for p in err.problems:
            message = p.message
            if (p.given.startswith("'") and p.given.endswith("'")
                    and message in ("input should be a valid integer", "input should be a valid number")):
                message = string_number_message(p.given[1:-1])
            if p.field.startswith("cluster.") and message.startswith("unknown key"):
                message = message.replace("num_gpus, ", "")
            problems.append(FieldProblem("scenario." + p.field if p.field else "scenario", p.given, message))
        return None, problems
    return (None if problems else base), problems


def _cross_checks(spec: SpaceSpec, base: Scenario | None) -> list[FieldProblem]:
    """Checks that need several fields or the resolved model."""
    problems = []
    metrics = [o.metric for o in spec.objectives]
    kind = next((k for k, schema in SPEC_BY_KIND.items() if type(spec) is schema), "llm_train")
    if base is not None:
        kind = base.kind
    allowed = METRICS_BY_KIND.get(kind, OBJECTIVE_METRICS)
    for i, m in enumerate(metrics):
        if m not in allowed:
            problems.append(FieldProblem(f"objectives.{i}.metric", repr(m),
                                         f"not a metric of {kind} runs; allowed: {', '.join(allowed)}"))
    given = spec.constraints.model_fields_set
    for name, (_, _, kinds) in METRIC_CONSTRAINTS.items():
        value = getattr(spec.constraints, name)
        unset = value is None or value == type(spec.constraints).model_fields[name].default
        if name in given and not unset and kind not in kinds:
            usable = [n for n, (_, _, ks) in METRIC_CONSTRAINTS.items() if kind in ks]
            problems.append(FieldProblem(
                f"constraints.{name}", short(getattr(spec.constraints, name)),
                f"does not apply to {kind} runs; constraints for them: "
                f"{', '.join(['max_gpus', 'max_memory_fraction', *usable])}"))
    if spec.hardware.host_link_gbps is not None and kind not in ("llm_train", "vit_train", "vit_inference"):
        problems.append(FieldProblem("hardware.host_link_gbps", short(spec.hardware.host_link_gbps),
                                     f"only training offloads activations over the host link; {kind} runs "
                                     "do not use it"))
    if spec.hardware.exp_tera_per_s is not None and kind not in ("llm_train", "vit_train", "vit_inference",
                                                                 "llm_inference"):
        problems.append(FieldProblem("hardware.exp_tera_per_s", short(spec.hardware.exp_tera_per_s),
                                     f"only the attention models (LLM and ViT training, LLM serving) use the "
                                     f"exponential rate; {kind} runs have no softmax term"))
    if spec.hardware.l2_mb is not None and kind not in ("dlrm_train", "dlrm_inference"):
        problems.append(FieldProblem("hardware.l2_mb", short(spec.hardware.l2_mb),
                                     f"only the DLRM model has an L2 cache term (its embedding lookups); {kind} "
                                     "runs do not use it"))
    if "time_to_train_s" in metrics and spec.train_tokens is None:
        i = metrics.index("time_to_train_s")
        problems.append(FieldProblem(f"objectives.{i}.metric", "'time_to_train_s'",
                                     "time_to_train_s needs train_tokens (tokens to train on, e.g. 1.0e+12)"))
    cap = spec.constraints.max_gpus
    counts = _all_gpu_counts(spec)
    if cap is not None and not any(n <= cap for n in counts):
        problems.append(FieldProblem("constraints.max_gpus", str(cap),
                                     f"below every GPU count in gpus (smallest {counts[0]})"))
    pm = spec.price_model
    if pm is not None:
        if spec.hardware.price_per_gpu_hour is not None:
            problems.append(FieldProblem("price_model", "price_model and hardware.price_per_gpu_hour",
                                         "the price is either a knob or a model of the other knobs: keep one"))
        unused = [k for k in pm.exponents if getattr(spec.hardware, k) is None]
        if unused:
            knobs = [k for k in PRICED_KNOBS if getattr(spec.hardware, k) is not None]
            problems.append(FieldProblem(f"price_model.exponents.{unused[0]}", unused[0],
                                         "prices a knob this space does not vary; its knobs: "
                                         + (", ".join(knobs) or "none")))
    if base is None:
        return problems
    from ..hardware import resolve_hardware
    from ..specs import ClusterSpec

    gpu_problems = _gpu_choice_checks(spec, base) if spec.hardware.gpu is not None else []
    problems += gpu_problems
    # the GPUs the space runs on: the candidates of hardware.gpu (those that resolve), else the scenario's
    if spec.hardware.gpu is None:
        gpus = [(base.cluster.gpu, resolve_hardware(base.cluster, base.precision), "")]
    else:
        bad = {p.field for p in gpu_problems}
        choice = spec.hardware.gpu
        gpus = [(name, resolve_hardware(ClusterSpec(**own, gpu=name, num_gpus=1, price_per_gpu_hour=price),
                                        base.precision), f"hardware.gpu.values.{i}")
                for i, ((name, price), own) in enumerate(zip(choice.gpus(), choice.overrides()))
                if not any(f == f"hardware.gpu.values.{i}" or f.startswith(f"hardware.gpu.values.{i}.") for f in bad)]
    if spec.hardware.power_w is not None:
        from ..hardware import power_limit_problem

        knob = spec.hardware.power_w
        lowest = min(knob.values) if knob.values is not None else knob.low
        for _, hw, _ in gpus:
            problem = None if lowest is None else power_limit_problem(lowest, hw.gpu, hw.power_ref_w, hw.power_idle)
            if problem:
                problems.append(FieldProblem("hardware.power_w", short(lowest), problem))
    if pm is not None and pm.usd_per_hour is None:
        for name, hw, field in gpus:
            if hw.price_per_gpu_hour <= 0:
                given = f"{{gpu: {name}, price_per_gpu_hour: USD}} in {field}" if field else "the base GPU's price, USD per GPU-hour"
                problems.append(FieldProblem("price_model.usd_per_hour", "null",
                                             f"the {name} preset has no price to scale: give {given}"))
    priced = [m for m in ("cost_per_mtok_usd", "cost_per_msample_usd", "cluster_usd_per_hour") if m in metrics]
    budget = spec.constraints.max_cluster_usd_per_hour
    unpriced = (spec.hardware.gpu is None and spec.hardware.price_per_gpu_hour is None and pm is None
                and gpus[0][1].price_per_gpu_hour <= 0)
    if priced and unpriced:
        i = metrics.index(priced[0])
        problems.append(FieldProblem(
            f"objectives.{i}.metric", repr(priced[0]),
            f"the {base.cluster.gpu} preset has no price, so every cost would be unknown: set "
            "scenario.cluster.price_per_gpu_hour (USD) or a price_per_gpu_hour knob"))
    if budget is not None and unpriced:
        problems.append(FieldProblem(
            "constraints.max_cluster_usd_per_hour", short(budget),
            f"the {base.cluster.gpu} preset has no price, so no configuration could be shown to fit the budget: "
            "set scenario.cluster.price_per_gpu_hour (USD) or a price_per_gpu_hour knob"))
    checks = {"llm_train": _training_checks, "vit_train": _training_checks, "vit_inference": _training_checks,
              "llm_inference": _serving_checks,
              "dlrm_train": _dlrm_checks, "dlrm_inference": _dlrm_checks}
    return problems + checks[kind](spec, base)


def _tp_divides(m: Any, t: int) -> bool:
    """tp divides heads and the FFN widths, and divides the kv heads or is a multiple of them
    (a whole KV head per rank, replicated)."""
    ffn = [m.ffn_hidden] + ([m.moe.expert_ffn_hidden] if m.moe else [])
    return m.heads % t == 0 and bool(kv_heads_fit(m.kv, t)) and all(f % t == 0 for f in ffn)


def transformer_shape(model: Any) -> Any:
    """The model as LLM training sees it: a ViT's encoder as a ModelSpec (tokens per image as
    seq_len, no experts); any other model as it is."""
    if getattr(model, "family", None) == "vit":
        from ..workloads.vit import as_llm_model

        return as_llm_model(model)
    return model


def _training_checks(spec: SpaceSpec, base: Scenario) -> list[FieldProblem]:
    problems = []
    m = transformer_shape(base.model)
    s = m.seq_len
    tokens = spec.global_batch.as_list("tokens")
    if tokens is not None:
        small = [t for t in tokens if t < s]
        if small:
            problems.append(FieldProblem(
                "global_batch.tokens", ", ".join(map(str, small)),
                f"a global batch must hold at least one sequence of seq_len {s} tokens "
                f"(sequences = tokens // seq_len)"))
    par = spec.parallel
    ffn = [m.ffn_hidden] + ([m.moe.expert_ffn_hidden] if m.moe else [])
    if not any(_tp_divides(m, t) for t in par.tp):
        problems.append(FieldProblem(
            "parallel.tp", str(par.tp),
            f"no candidate divides heads {m.heads} and ffn_hidden {'/'.join(map(str, ffn))} and divides "
            f"or is a multiple of kv_heads {m.kv} of {m.name}"))
    if not any(s % c == 0 for c in par.cp):
        problems.append(FieldProblem("parallel.cp", str(par.cp), f"no candidate divides seq_len {s}"))
    too_many = [o for o in par.offload_layers if o >= m.layers]
    if too_many:
        problems.append(FieldProblem("parallel.offload_layers", str(too_many),
                                     f"offloads at most model.layers - 1 = {m.layers - 1} layers "
                                     f"(allowed 0 to {m.layers - 1})"))
    problems += _ep_checks(par.ep, m)
    if not any(m.layers + 2 >= p * v and (v == 1 or p > 1) for p in par.pp for v in par.vpp):
        problems.append(FieldProblem(
            "parallel.pp", f"pp {par.pp}, vpp {par.vpp}",
            f"no pp*vpp is at most layers {m.layers} + 2 (every pipeline chunk needs a layer, the "
            "embedding and the loss may take one each; "
            "vpp > 1 also needs pp > 1)"))
    return problems


def _ep_checks(eps: list[int], m: Any) -> list[FieldProblem]:
    if m.moe is None and 1 not in eps:
        return [FieldProblem("parallel.ep", str(eps),
                             f"{m.name} is dense: expert parallelism needs experts; use ep: [1]")]
    if m.moe is not None and not any(m.moe.experts % e == 0 for e in eps):
        return [FieldProblem("parallel.ep", str(eps), f"no candidate divides experts {m.moe.experts}")]
    return []


def _gpu_problems(name: str, base: Scenario, field: str) -> list[FieldProblem]:
    """What is wrong with ``name`` as a GPU the space runs on (unknown, or without the
    scenario's precision), reported at ``field``."""
    from ..hardware import resolve_hardware
    from ..presets import did_you_mean, find_gpu, gpu_table
    from ..specs import ClusterSpec

    canonical = find_gpu(name)
    if canonical is None:
        return [FieldProblem(field, repr(name),
                             f"unknown GPU{did_you_mean(name, 'gpu')}; allowed: {', '.join(gpu_table())}")]
    try:
        resolve_hardware(ClusterSpec(gpu=canonical, num_gpus=1), base.precision)
    except InputError as err:
        return [FieldProblem(field, repr(name), p.message) for p in err.problems]
    return []


def _candidate_cluster_problems(gpu: str, own: dict[str, Any], base: Scenario, field: str) -> list[FieldProblem]:
    """What is wrong with a GPU candidate's own ``cluster`` overrides (reported at
    ``field.cluster.<key>``): a key that is not one, or a value the cluster schema refuses."""
    from ..hardware import resolve_hardware
    from ..specs import ClusterSpec

    if not own:
        return []
    taken = {"gpu": "the candidate's gpu", "num_gpus": "the searched GPU counts (gpus)",
             "price_per_gpu_hour": "the candidate's own price_per_gpu_hour"}
    problems = [FieldProblem(f"{field}.cluster.{k}", short(own[k]), f"set by {taken[k]}, not here") for k in own
                if k in taken]
    if problems:
        return problems
    try:
        cluster = ClusterSpec.model_validate({**own, "gpu": gpu, "num_gpus": 1})
        resolve_hardware(cluster, base.precision)
    except ValidationError as err:
        return [FieldProblem(f"{field}.cluster.{p.field}" if p.field else f"{field}.cluster", p.given,
                             p.message.replace("keys: gpu, ", "keys: ").replace("num_gpus, ", "")
                             .replace("price_per_gpu_hour, ", ""))
                for p in problems_from(err, ClusterSpec)]
    except InputError as err:
        return [FieldProblem(f"{field}.cluster", short(own), p.message) for p in err.problems]
    return []


def _gpu_choice_checks(spec: SpaceSpec, base: Scenario) -> list[FieldProblem]:
    """``hardware.gpu``: known presets that run the scenario's precision, each called once (a
    preset listed twice needs a ``name`` for each listing); the scenario's cluster block holds only cluster-wide settings and its GPU is a candidate; the
    price of each candidate is its own (no price knob, no base price of a price model, no other
    prefill GPU); a cost objective needs every candidate priced."""
    from ..hardware import resolve_hardware
    from ..presets import find_gpu
    from ..specs import ClusterSpec

    choice = spec.hardware.gpu
    problems: list[FieldProblem] = []
    seen: dict[str, int] = {}
    priced = [m for m in ("cost_per_mtok_usd", "cost_per_msample_usd", "cluster_usd_per_hour")
              if m in [o.metric for o in spec.objectives]]
    if spec.constraints.max_cluster_usd_per_hour is not None:
        priced.append("the budget constraints.max_cluster_usd_per_hour")
    for i, ((name, price), own, label) in enumerate(zip(choice.gpus(), choice.overrides(), choice.labels())):
        field = f"hardware.gpu.values.{i}"
        found = _gpu_problems(name, base, field)
        problems += found
        canonical = find_gpu(name)
        if found or canonical is None:
            continue
        found = _candidate_cluster_problems(canonical, own, base, field)
        problems += found
        if found:
            continue
        called = label or canonical  # what results call it: unique
        if called in seen:
            problems.append(FieldProblem(
                field, repr(name), f"candidate {seen[called]} is already called {called}: list each GPU once, or "
                f"name each listing of one GPU ({{gpu: {canonical}, name: cloud-b-{canonical.lower()}, ...}})"))
            continue
        seen[called] = i
        if priced and price is None and resolve_hardware(ClusterSpec(gpu=canonical, num_gpus=1, **own),
                                                         base.precision).price_per_gpu_hour <= 0:
            problems.append(FieldProblem(field, repr(name), f"the {canonical} preset has no price, so "
                                         f"{priced[0]} would be unknown for it: give {{gpu: {canonical}, "
                                         "price_per_gpu_hour: USD}"))
    cluster = base.cluster
    named = list(dict.fromkeys(g for g in (find_gpu(n) for n, _ in choice.gpus()) if g is not None))
    if named and find_gpu(cluster.gpu) not in named:
        problems.append(FieldProblem("scenario.cluster.gpu", repr(cluster.gpu),
                                     f"with hardware.gpu the GPU is searched: drop scenario.cluster.gpu or list it "
                                     f"among the candidates ({', '.join(named)})"))
    for key in sorted(cluster.model_fields_set - set(CLUSTER_WIDE_FIELDS)):
        knob = f" or vary it with hardware.{key}" if key in KNOBS else ""
        value = getattr(cluster, key)
        value = value.model_dump(exclude_none=True) if hasattr(value, "model_dump") else value
        problems.append(FieldProblem(f"scenario.cluster.{key}", short(value),
                                     "describes one GPU, but hardware.gpu searches several, each at its preset's "
                                     f"figures: give it per candidate ({{gpu: NAME, cluster: {{{key}: ...}}}} in "
                                     f"hardware.gpu.values){knob}; the cluster-wide settings that apply to every "
                                     f"candidate: {', '.join(CLUSTER_WIDE_FIELDS[2:])}"))
    if spec.hardware.price_per_gpu_hour is not None:
        problems.append(FieldProblem("hardware.price_per_gpu_hour", short(spec.hardware.price_per_gpu_hour),
                                     "with hardware.gpu each candidate has its own price: give it as "
                                     "{gpu: NAME, price_per_gpu_hour: USD} among hardware.gpu.values"))
    if spec.price_model is not None and spec.price_model.usd_per_hour is not None:
        problems.append(FieldProblem("price_model.usd_per_hour", short(spec.price_model.usd_per_hour),
                                     "with hardware.gpu the price model scales each candidate's own price "
                                     "(its preset's or the one given in hardware.gpu.values): drop usd_per_hour"))
    disaggregated = getattr(spec.parallel, "disaggregated", None)
    if disaggregated is not None and disaggregated.gpu is not None:
        problems.append(FieldProblem("parallel.disaggregated.gpu", short(disaggregated.gpu),
                                     "with hardware.gpu every instance runs on the searched GPU; to put the "
                                     "prefill instances on another GPU than the decode instances, fix "
                                     "scenario.cluster.gpu and keep parallel.disaggregated.gpu, without hardware.gpu"))
    return problems


def _serving_checks(spec: SpaceSpec, base: Scenario) -> list[FieldProblem]:
    problems = []
    m, par = base.model, spec.parallel
    if base.inference is not None and base.inference.request_rate is not None and par.batch not in ("auto", ["auto"]):
        problems.append(FieldProblem("parallel.batch", str(par.batch),
                                     "with scenario.inference.request_rate the offered load sets the "
                                     "batch in flight: use batch: [auto]"))
    ffn = [m.ffn_hidden] + ([m.moe.expert_ffn_hidden] if m.moe else [])
    if not any(_tp_divides(m, t) for t in par.tp):
        problems.append(FieldProblem(
            "parallel.tp", str(par.tp),
            f"no candidate divides heads {m.heads} and ffn_hidden {'/'.join(map(str, ffn))} and "
            f"divides or is a multiple of kv_heads {m.kv} of {m.name}"))
    if not any(m.layers >= p for p in par.pp):
        problems.append(FieldProblem("parallel.pp", str(par.pp),
                                     f"no candidate is at most layers {m.layers} (every stage needs a layer)"))
    serve = base.inference
    for name, _ in par.disaggregated.gpus() if par.disaggregated is not None else []:
        problems += _gpu_problems(name, base, "parallel.disaggregated.gpu")
    if par.disaggregated is not None and serve is not None and serve.phase != "both":
        problems.append(FieldProblem(
            "parallel.disaggregated", "",
            "disaggregated deployments are scored beside engines that serve whole requests (offline, at an "
            f"offered request_rate or for concurrency clients): the scenario's inference block keeps phase both "
            f"(it has phase {serve.phase})"))
    if serve is not None and serve.phase == "disaggregated":
        problems.append(FieldProblem(
            "scenario.inference.phase", "'disaggregated'",
            "a search scores engines or instances (phase both, prefill or decode); a disaggregated deployment "
            "of chosen instances is scored by dse evaluate: search each phase's instances, then evaluate the "
            "deployment of the best pair"))
        return problems
    if serve is not None and m.context_len is not None and serve.input_len + serve.output_len > m.context_len:
        problems.append(FieldProblem(
            "scenario.inference.input_len", str(serve.input_len),
            f"input_len {serve.input_len} + output_len {serve.output_len} = {serve.input_len + serve.output_len} "
            f"tokens exceed the context window of {m.name}, {m.context_len} tokens (model.context_len): "
            "every plan would be refused"))
    drafts = par.speculative_tokens or []
    if any(k > 0 for k in drafts) and (base.inference is None or base.inference.draft_acceptance is None):
        problems.append(FieldProblem("parallel.speculative_tokens", str(drafts),
                                     "speculative decoding needs the probability a draft token is accepted: "
                                     "set scenario.inference.draft_acceptance (0-1, e.g. 0.8)"))
    return problems + _ep_checks(par.ep, m)


def _dlrm_checks(spec: SpaceSpec, base: Scenario) -> list[FieldProblem]:
    problems = []
    par = spec.parallel
    if par.microbatch is None and spec.global_batch is None:
        problems.append(FieldProblem("parallel.microbatch", "",
                                     "give the samples per GPU (parallel.microbatch) or the global "
                                     "batch (global_batch: {samples: ...}), or both"))
    if "hybrid" in par.emb_sharding and any(t.pooling > 1.0 for t in base.model.tables):
        problems.append(FieldProblem("parallel.emb_sharding", "'hybrid'",
                                     "hybrid sharding (HugeCTR hybrid embedding) needs one-hot tables "
                                     f"(pooling 1); {base.model.name} has multi-hot tables"))
    return problems


# ------------------------------------------------------------------------------ messages
_FIELD_HINTS = {
    "gpus": "a list of GPU counts, {min, max, scale: pow2} or {min, max, step}",
    "parallel.sp": "auto, or a list of true/false",
    "parallel.batch": "auto, or a list of positive integers and auto",
    "global_batch.sequences": "a positive integer or a list of them",
    "global_batch.tokens": "a positive integer or a list of them",
    "name": "a name of letters, digits, '-', '_' and '.'",
}


def _problems(err: ValidationError, schema: type[SpaceSpec] = None, kind: str = "llm_train") -> list[FieldProblem]:
    """pydantic's errors as FieldProblems, with the space's hints; unknown ``parallel`` keys
    name the kind of run whose plan dimensions are allowed."""
    found = problems_from(err, schema or SpaceSpec, hints=_FIELD_HINTS,
                          key_labels={"hardware": "hardware knob"})
    out = []
    for p in found:
        if p.field.startswith("parallel.") and p.message.startswith("unknown key"):
            p = FieldProblem(p.field, p.given, p.message + f" (the plan dimensions of {kind} spaces)")
        out.append(p)
    return out


def _dedupe(problems: list[FieldProblem]) -> list[FieldProblem]:
    seen, out = set(), []
    for p in problems:
        key = (p.field, p.message)
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


__all__ = [
    "KNOBS", "OBJECTIVE_METRICS", "SERVING_METRICS", "DLRM_METRICS", "METRICS_BY_KIND", "METRIC_CONSTRAINTS",
    "SEARCHABLE_KINDS", "GPU_KNOB", "GPU_LABEL", "GPU_REPEAT", "GPUCandidate", "CLUSTER_WIDE_FIELDS", "GPUChoiceSpace", "GPUCandidateSpec", "PricedGPUSpec", "ServingParallelSpace", "DLRMParallelSpace", "ServingSpaceSpec", "DLRMSpaceSpec", "SearchSpace", "SpaceSpec", "KnobSpec", "GpuRange",
    "ParallelSpace", "GlobalBatchSpace", "HardwareSpace", "ObjectiveSpec", "ConstraintsSpec",
    "SearchSettings", "hardware_columns", "load_space", "space_from_dict",
]
