"""Import MAD-Max configurations: a (model, system, task) JSON triplet -> a ``dse`` scenario.

MAD-Max (Hsia et al., ISCA 2024) describes a run with three JSON files (keys in
``../shared/madmax/README.md``). :func:`import_madmax` reads them, checks the keys it uses (unknown
keys are ignored: MAD-Max files may carry more), and writes a scenario that keeps MAD-Max's
physical meaning: the same peak FLOP/s and utilization, the same effective HBM, intra-node and
inter-node bandwidths, the same parallel degrees and local batch sizes. Every assumption it makes
is returned as a note (``dse import-madmax`` prints them as comments above the YAML).

Mapping (MAD-Max key -> dse field)

================================  ==========================================================
model ``name``                    ``model.name``
``bytes_per_nonemb_param``        ``precision``: 4 -> fp32, 2 -> fp16, 1 -> fp8 (at the INT8
                                  rate); 8 (FP64) is an error; ``training.grad_reduce_bytes``
LLM / LLM_MoE                     inline ``ModelSpec`` (family dense / moe): layers =
                                  ``num_transformer_layers``, hidden = ``attention_dim``, heads =
                                  kv_heads = ``num_transformer_heads`` (multi-head attention),
                                  ffn_hidden = ``transformer_fc_dim`` (2-matrix GELU), vocab =
                                  ``entries_per_table``, seq_len = ``transformer_seq_len``, tied
                                  embeddings; MoE: experts = ``num_experts``, top_k =
                                  ``num_active_experts``, expert_ffn_hidden = ``transformer_fc_dim``
DLRM / _MoE / _Transformer        ``DLRMSpec``: ``num_tables`` x {rows ``entries_per_table``, dim
                                  ``emb_dim``, pooling ``pooling_size``}; bottom_mlp / top_mlp =
                                  [``mlp_dim``] x ``num_bot_mlp_layers`` / ``num_top_mlp_layers``;
                                  dense_features = ``mlp_dim``; interaction concat (none); moe {experts,
                                  top_k}; transformer {layers, heads, hidden, ffn_hidden, seq_len}
``bytes_per_emb_param`` (DLRM)    ``training.dlrm.emb_dtype``: 4 -> fp32, 2 -> fp16, 1 -> int8
ViT                               ``ViTSpec``: layers, hidden = ``attention_dim``, heads,
                                  ffn_hidden = ``transformer_fc_dim``, patch = ``patch_dim``,
                                  image_size
system ``num_devices``            ``cluster.num_gpus``
``num_devices / num_nodes``       ``cluster.gpus_per_node`` and ``cluster.nvlink_domain``
``f16_flops`` (+ f32 / i8)        ``cluster.peak_tflops.{fp16, bf16}`` (+ ``tf32`` where f32 is the
                                  GPU's TF32 rate, else ``fp32`` / ``fp8``)
``flops_util``                    ``cluster.efficiency.matmul`` (``matmul_fp8`` for fp8) and
                                  ``efficiency.attention``; ``efficiency.matmul_k_half: 0``
``mem_cap``                       ``cluster.hbm_gb`` = mem_cap / 2**30
``mem_bw``, ``mem_bw_util``       ``cluster.hbm_tbps`` = mem_bw / 1e12, ``efficiency.hbm`` and
                                  ``efficiency.gather`` (DLRM embedding rows)
``num_nvlinks x bw_per_nvlink``   ``cluster.nvlink_gbps`` (both directions, per GPU, GB/s)
``nvlink_util``                   ``cluster.efficiency.nvlink``
``num_ibroce_ports x ibroce_bw``  ``cluster.scaleout_gbitps`` = ports x bw/2 x 8 / 1e9 / GPUs
                                  per node (one direction, per GPU, Gbit/s)
``ibroce_util``                   ``cluster.efficiency.scaleout``
``ar_perc_intra``                 not mapped: dse places every group on the two-level network
                                  itself (a note compares the two all-reduce bandwidths)
task ``type``                     ``workload``: pretrain -> train, finetune -> finetune with a
                                  ``finetune`` block, inference -> inference (LLM: an
                                  ``inference`` block, input_len = seq_len, output_len = 1)
``transformer_parallel`` (+deg)   ``parallel``: tp -> tp; ddp -> dp, zero 0; fsdp -> dp, zero 3;
``mlp_parallel`` (DLRM)           pp -> pp; innermost level first, as in dse
``emb_parallel`` (DLRM)           ``parallel.emb_sharding``: [mp] -> table, [ddp] ->
                                  data_parallel, [ddp, mp] -> hier_auto, [mp, ddp] ->
                                  node_sharded
``local_transformer_bs``          ``parallel.microbatch`` (LLM, ViT; DLRM: ``local_mlp_bs``);
                                  ``global_batch`` = microbatch x dp
``freeze_*``, ``min_frozen_layer``  ``finetune`` {freeze_embeddings, freeze_bottom_mlp,
                                  freeze_top_mlp, frozen_layers}
================================  ==========================================================

Effective bandwidths are MAD-Max's, exactly: ``GPUs.get_eff_bw`` gives intra = links x bw/2 x
util and inter = ports x bw/2 x util / GPUs per node (one direction, per GPU), and dse's
:func:`dse.hardware.resolve_hardware` gives ``nvlink_bw * eff_nvlink`` and
``scaleout_bw * eff_scaleout``, which equal them.

MAD-Max rejects a triplet whose parallel degrees do not multiply to the system's GPU count (and a
few other things: more than two levels, FSDP not first, a first level that is neither one node
nor the whole cluster, different global batches for the embeddings and the dense layers, ...).
By default the importer still converts such a triplet when dse can give it a meaning, and says
so in a note; for degrees it keeps the inner levels and sets the outermost one to what the GPU
count leaves. ``strict=True`` (``--strict``) rejects what MAD-Max rejects. A strategy dse cannot
express (an LLM embedding sharded with all-to-all, hybrid FSDP, tensor parallelism outside a
data-parallel level) is always an :class:`dse.errors.InputError` that names the task file and
field and lists what is supported.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .errors import FieldProblem, InputError, single
from .inputs import problems_from, read_document

PositiveInt = Annotated[int, Field(strict=True, gt=0)]
NonNegInt = Annotated[int, Field(strict=True, ge=0)]
PositiveFloat = Annotated[float, Field(strict=True, gt=0, allow_inf_nan=False)]
NonNegFloat = Annotated[float, Field(strict=True, ge=0, allow_inf_nan=False)]
Fraction = Annotated[float, Field(strict=True, gt=0, le=1, allow_inf_nan=False)]
Share = Annotated[float, Field(strict=True, ge=0, le=1, allow_inf_nan=False)]

MODEL_TYPES = ("DLRM", "DLRM_MoE", "DLRM_Transformer", "LLM", "LLM_MoE", "ViT")
TASK_TYPES = ("pretrain", "finetune", "inference")
#: Keys each model type needs (besides name, type and bytes_per_nonemb_param).
_TRANSFORMER = ("num_transformer_layers", "num_transformer_heads", "attention_dim", "transformer_fc_dim")
_DLRM = ("num_bot_mlp_layers", "num_top_mlp_layers", "mlp_dim", "num_tables", "entries_per_table",
         "emb_dim", "pooling_size")
REQUIRED_MODEL_KEYS = {
    "DLRM": _DLRM,
    "DLRM_MoE": _DLRM + ("num_experts", "num_active_experts"),
    "DLRM_Transformer": _DLRM + _TRANSFORMER + ("transformer_seq_len",),
    "LLM": ("entries_per_table",) + _TRANSFORMER + ("transformer_seq_len",),
    "LLM_MoE": ("entries_per_table",) + _TRANSFORMER + ("transformer_seq_len", "num_experts",
                                                         "num_active_experts"),
    "ViT": _TRANSFORMER + ("image_size", "patch_dim"),
}
PRECISION_OF_BYTES = {4: "fp32", 2: "fp16", 1: "fp8"}
#: bytes_per_emb_param -> training.dlrm.emb_dtype (DLRM embedding storage).
EMB_DTYPES = {4: "fp32", 2: "fp16", 1: "int8"}
#: dse's order of parallel levels, innermost first (tp inside the NVLink domain, pp outermost).
_LEVEL_RANK = {"tp": 0, "ddp": 1, "fsdp": 1, "pp": 2}


class _MadMaxFile(BaseModel):
    """A MAD-Max JSON file: keys this importer uses are type-checked, other keys are ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore", strict=True)


class MadMaxModel(_MadMaxFile):
    """Model file (``model_cfgs/*/*.json``)."""

    name: str | None = None
    type: Literal["DLRM", "DLRM_MoE", "DLRM_Transformer", "LLM", "LLM_MoE", "ViT"]
    bytes_per_nonemb_param: Literal[1, 2, 4, 8]
    bytes_per_emb_param: PositiveInt | None = None
    num_bot_mlp_layers: PositiveInt | None = None
    num_top_mlp_layers: PositiveInt | None = None
    mlp_dim: PositiveInt | None = None
    num_tables: PositiveInt | None = None
    entries_per_table: PositiveInt | None = None
    emb_dim: PositiveInt | None = None
    pooling_size: PositiveFloat | None = None
    num_experts: PositiveInt | None = None
    num_active_experts: PositiveInt | None = None
    num_transformer_layers: PositiveInt | None = None
    num_transformer_heads: PositiveInt | None = None
    attention_dim: PositiveInt | None = None
    transformer_fc_dim: PositiveInt | None = None
    transformer_seq_len: PositiveInt | None = None
    image_size: PositiveInt | None = None
    patch_dim: PositiveInt | None = None


#: MAD-Max's cloud prices (its ``cloud_prices.csv``, the paper's cost figures), USD per GPU-hour,
#: by provider, GPU, GB per GPU and GPUs per instance. A system file named ``Cloud<X>-...``
#: takes its provider's price for its GPU; other systems keep the GPU preset's.
CLOUD_PRICES: dict[tuple[str, str, int, int], float] = {
    ("Cloud_A", "V100", 16, 8): 3.06, ("Cloud_A", "V100", 32, 8): 3.90125,
    ("Cloud_A", "A100", 40, 8): 4.0975, ("Cloud_A", "A100", 80, 8): 5.12125,
    ("Cloud_A", "H100", 80, 8): 12.29,
    ("Cloud_B", "V100", 16, 4): 3.365, ("Cloud_B", "V100", 32, 8): 2.75375,
    ("Cloud_B", "A100", 80, 4): 3.6725, ("Cloud_B", "A100", 40, 8): 3.4, ("Cloud_B", "A100", 80, 8): 4.09625,
    ("Cloud_C", "V100", 16, 8): 2.48, ("Cloud_C", "A100", 40, 8): 3.67375, ("Cloud_C", "A100", 40, 16): 3.48375,
    ("Cloud_C", "A100", 80, 8): 5.70875,
}


def cloud_price(system_name: str | None, gpu: str, mem_cap: float, gpus_per_node: int) -> tuple[str, float] | None:
    """(provider, USD per GPU-hour) of a MAD-Max cloud system, or None (not a cloud system, or no
    price for its GPU)."""
    import re

    match = re.match(r"Cloud_?([A-Z])\b", system_name or "")
    gen = re.match(r"[A-Z]\d+", gpu)
    if match is None or gen is None:
        return None
    provider = f"Cloud_{match.group(1)}"
    price = CLOUD_PRICES.get((provider, gen.group(0), round(mem_cap / 1e9), gpus_per_node))
    return None if price is None else (provider, price)


class MadMaxSystem(_MadMaxFile):
    """System file (``system_cfgs/*/*.json``); FLOP rates in FLOP/s, bandwidths in bytes/s."""

    name: str | None = None
    type: Literal["GPU"] = "GPU"
    num_devices: PositiveInt
    num_nodes: PositiveInt
    f64_flops: NonNegFloat | None = None
    f32_flops: PositiveFloat | None = None
    f16_flops: PositiveFloat
    i8_ops: PositiveFloat | None = None
    flops_util: Fraction
    mem_cap: PositiveFloat
    mem_bw: PositiveFloat
    mem_bw_util: Fraction
    num_nvlinks: NonNegInt
    bw_per_nvlink: NonNegFloat
    nvlink_util: Fraction
    num_ibroce_ports: NonNegInt
    ibroce_bw: NonNegFloat
    ibroce_util: Fraction
    ar_perc_intra: Share


class MadMaxTask(_MadMaxFile):
    """Task file (``task_cfgs/*/*.json``): strategies and degrees per component, innermost first."""

    name: str | None = None
    type: Literal["pretrain", "finetune", "inference"]
    mlp_parallel: list[str] | None = None
    mlp_parallel_degree: list[PositiveInt] | None = None
    emb_parallel: list[str] | None = None
    emb_parallel_degree: list[PositiveInt] | None = None
    transformer_parallel: list[str] | None = None
    transformer_parallel_degree: list[PositiveInt] | None = None
    local_mlp_bs: PositiveInt | None = None
    local_emb_bs: PositiveInt | None = None
    local_transformer_bs: PositiveInt | None = None
    freeze_emb: bool | None = None
    freeze_bot_mlp: bool | None = None
    freeze_top_mlp: bool | None = None
    freeze_transformer: bool | None = None
    min_frozen_layer: NonNegInt | None = None


@dataclass(frozen=True)
class _Sources:
    """Labels of the three files, for error messages."""

    model: str = "model"
    system: str = "system"
    task: str = "task"


# ------------------------------------------------------------------------------ reading
def _validate(cls: type[_MadMaxFile], data: Any, source: str) -> _MadMaxFile:
    if isinstance(data, _MadMaxFile):
        return data
    if not isinstance(data, dict):
        raise single("", "expected a JSON object (a mapping of MAD-Max keys)", type(data).__name__, source)
    try:
        parsed = cls.model_validate(data)
    except ValidationError as err:
        raise InputError(problems_from(err, cls), source) from None
    if isinstance(parsed, MadMaxModel):
        missing = [k for k in REQUIRED_MODEL_KEYS[parsed.type] if getattr(parsed, k) is None]
        if missing:
            raise InputError([FieldProblem(k, "", f"required field is missing (a {parsed.type} model needs it)")
                              for k in missing], source)
    return parsed


def read_triplet(model_path: str | Path, system_path: str | Path,
                 task_path: str | Path) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The three MAD-Max JSON files as dicts of the keys this importer uses, type-checked.

    Unknown keys are accepted and dropped; a wrong type, a missing required key or a value out
    of range raises :class:`dse.errors.InputError` naming the file and the field.
    """
    out = []
    for cls, path in ((MadMaxModel, model_path), (MadMaxSystem, system_path), (MadMaxTask, task_path)):
        data, _ = read_document(Path(path))
        out.append(_validate(cls, data, str(path)).model_dump(exclude_none=True))
    return out[0], out[1], out[2]


# ------------------------------------------------------------------------------ converting
def to_scenario(model: dict[str, Any], system: dict[str, Any], task: dict[str, Any],
                strict: bool = False) -> dict[str, Any]:
    """A dse scenario dict (YAML-serialisable) for a MAD-Max triplet of dicts.

    See the module docstring for the mapping; :func:`import_madmax` also returns the notes.
    """
    return _convert(model, system, task, _Sources(), strict)[0]


def csv_configs(folder: str | Path) -> dict[str, dict[str, dict[str, Any]]]:
    """MAD-Max's configurations from the CSV tables of a folder (``models.csv``, ``systems.csv``,
    ``tasks.csv``; one row per JSON file, empty cells for absent keys), as
    ``{table: {file: config}}``: each config is the dict the JSON file holds (numbers as numbers,
    ``[...]`` cells as lists)."""
    import csv
    import json

    def cell(text: str) -> Any:
        text = text.strip()
        if text.startswith("["):
            return json.loads(text)
        for kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                pass
        return text

    out: dict[str, dict[str, dict[str, Any]]] = {}
    for table in ("models", "systems", "tasks"):
        with open(Path(folder) / f"{table}.csv", newline="") as fh:
            out[table] = {row.pop("file"): {k: cell(v) for k, v in row.items() if v.strip()}
                          for row in csv.DictReader(fh)}
    return out


def import_madmax(model_path: str | Path, system_path: str | Path, task_path: str | Path,
                  strict: bool = False) -> tuple[dict[str, Any], list[str]]:
    """Read a MAD-Max triplet and convert it: (scenario dict, notes).

    The scenario is checked with :func:`dse.scenario.scenario_from_dict`. ``notes`` records every
    assumption made for this triplet. ``strict`` rejects what MAD-Max itself rejects (degrees
    that do not multiply to the GPU count, ...) instead of converting it with a note.
    """
    model, system, task = read_triplet(model_path, system_path, task_path)
    sources = _Sources(str(model_path), str(system_path), str(task_path))
    scenario, notes = _convert(model, system, task, sources, strict)
    from .scenario import scenario_from_dict

    try:
        scenario_from_dict(scenario)
    except InputError as err:  # a combination the importer's own checks did not foresee
        raise err.with_source(f"scenario imported from {model_path}, {system_path}, {task_path}") from None
    return scenario, notes


def search_scenario(model_path: str | Path, system_path: str | Path, task_path: str | Path,
                    base: str | Path | None = None) -> tuple[dict[str, Any], list[str]]:
    """The fixed parts of a search space from a MAD-Max triplet: the imported scenario without
    ``parallel`` and ``cluster.num_gpus`` (what a search space's ``scenario`` block holds), and
    the notes. Relative paths are taken from ``base`` (the search-space file's folder)."""
    root = Path(base) if base is not None else Path(".")
    paths = [p if Path(p).is_absolute() else root / p for p in (model_path, system_path, task_path)]
    scenario, notes = import_madmax(*paths)
    fixed = {k: v for k, v in scenario.items() if k not in ("parallel", "name", "inference")}
    fixed["cluster"] = {k: v for k, v in scenario["cluster"].items() if k != "num_gpus"}
    if scenario.get("inference") is not None:  # LLM serving: the request shape; the batch is searched
        fixed["inference"] = {k: v for k, v in scenario["inference"].items() if k != "batch"}
    notes = notes + ["search space: the task's parallel plan (and serving batch) and the system's GPU "
                     "count are dropped (the search explores them); the system's per-GPU and per-node "
                     "figures are kept."]
    return fixed, notes


class _Notes(list):
    def add(self, text: str) -> None:
        if text not in self:
            self.append(text)


def _convert(model: Any, system: Any, task: Any, src: _Sources,
             strict: bool) -> tuple[dict[str, Any], list[str]]:
    m = _validate(MadMaxModel, model, src.model)
    s = _validate(MadMaxSystem, system, src.system)
    t = _validate(MadMaxTask, task, src.task)
    notes = _Notes()
    issues: list[tuple[str, FieldProblem]] = []  # what MAD-Max itself would reject

    cluster, precision = _cluster(m, s, src, notes, issues)
    model_spec = _model(m, src, notes)
    parallel, extra = _parallel(m, s, t, src, notes, issues)
    workload = {"pretrain": "train", "finetune": "finetune", "inference": "inference"}[t.type]
    scenario: dict[str, Any] = {
        "name": f"{_label(m.name, src.model)} / {_label(s.name, src.system)} / {_label(t.name, src.task)}",
        "workload": workload,
        "precision": precision,
        "model": model_spec,
        "cluster": cluster,
        "parallel": parallel,
    }
    grad_bytes = min(m.bytes_per_nonemb_param, 4)
    if grad_bytes != 2:
        scenario["training"] = {"grad_reduce_bytes": grad_bytes}
        notes.add(f"training.grad_reduce_bytes = {grad_bytes}: MAD-Max communicates gradients at "
                  f"bytes_per_nonemb_param ({m.bytes_per_nonemb_param}) bytes each.")
    if model_spec.get("family") == "dlrm" and m.bytes_per_emb_param in EMB_DTYPES:
        dtype = EMB_DTYPES[m.bytes_per_emb_param]
        scenario.setdefault("training", {})["dlrm"] = {"emb_dtype": dtype}
        notes.add(f"training.dlrm.emb_dtype = {dtype}: bytes_per_emb_param ({m.bytes_per_emb_param}) bytes per "
                  "stored embedding element (the pooled vectors are exchanged in it too).")
    scenario.update(extra)
    _pad_ffn(model_spec, parallel["tp"], notes)
    if t.type == "finetune":
        scenario["finetune"] = _finetune(m, t, src, notes, issues)

    if issues:
        if strict:
            for source in (src.model, src.system, src.task):
                found = [p for where, p in issues if where == source]
                if found:
                    raise InputError(found, source)
        reasons = "; ".join(f"{Path(where).name}: {p.field}: {p.message}" for where, p in issues)
        notes.add(f"MAD-Max itself would reject this triplet ({reasons}); converted anyway as noted "
                  "above (--strict rejects it).")
    return scenario, list(notes)


def _pad_ffn(spec: dict[str, Any], tp: int, notes: _Notes) -> None:
    """Pad FFN widths to a multiple of tp, as a tensor-parallel run must (MAD-Max divides by tp)."""
    if tp <= 1 or spec.get("family") not in ("dense", "moe", "vit"):
        return
    for where, block, key in (("ffn_hidden", spec, "ffn_hidden"),
                              ("moe.expert_ffn_hidden", spec.get("moe") or {}, "expert_ffn_hidden")):
        width = block.get(key)
        if width and width % tp:
            padded = -(-width // tp) * tp
            block[key] = padded
            notes.add(f"model.{where} = {padded}: transformer_fc_dim {width} is not a multiple of tp {tp}; a "
                      f"tensor-parallel run pads it to one (+{100 * (padded / width - 1):.2f}% FFN weights and "
                      "FLOPs), while MAD-Max divides the FLOPs by tp regardless.")


def _label(name: str | None, source: str) -> str:
    return name if name else Path(source).stem


# ------------------------------------------------------------------------------ system
def closest_gpu(system: MadMaxSystem | dict[str, Any]) -> str:
    """The dse GPU preset closest to a MAD-Max system.

    The product line (V100, A100, H100, ...) is the one whose fp16 peak and memory capacity are
    nearest (log distance, the peak weighted twice as much); within the line, the variant whose
    capacity, then NVLink bandwidth (SXM against PCIe), then HBM bandwidth are nearest.
    """
    from .presets import gpu_table

    s = system if isinstance(system, MadMaxSystem) else _validate(MadMaxSystem, system, "system")
    mem_gb = s.mem_cap / 1e9  # MAD-Max writes decimal bytes (40e9 for a 40 GB part)
    nvlink = max(s.num_nvlinks * s.bw_per_nvlink / 1e9, 1e-3)

    def dist(a: float, b: float) -> float:
        return abs(math.log(max(a, 1e-9) / max(b, 1e-9)))

    lines: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for name, entry in gpu_table().items():
        p16 = entry["peak_tflops"].get("fp16") or entry["peak_tflops"].get("bf16")
        if p16:
            lines.setdefault(name.split("-")[0], []).append((name, entry))

    def line_score(members: list[tuple[str, dict[str, Any]]]) -> float:
        return min(2 * dist(s.f16_flops / 1e12, e["peak_tflops"].get("fp16") or e["peak_tflops"]["bf16"])
                   + dist(mem_gb, e["hbm_gb"]) for _, e in members)

    line = min(lines.values(), key=line_score)
    best = min(line, key=lambda item: (2 * dist(mem_gb, item[1]["hbm_gb"]) + dist(nvlink, item[1]["nvlink_gbps"])
                                       + 0.5 * dist(s.mem_bw / 1e12, item[1]["hbm_tbps"])))
    return best[0]


def _cluster(m: MadMaxModel, s: MadMaxSystem, src: _Sources, notes: _Notes,
             issues: list) -> tuple[dict[str, Any], str]:
    from .presets import gpu_preset

    if s.num_devices % s.num_nodes:
        raise single("num_nodes", f"num_devices ({s.num_devices}) must be a multiple of num_nodes "
                     f"(GPUs per node = num_devices / num_nodes; MAD-Max asserts it too)", s.num_nodes, src.system)
    gpn = s.num_devices // s.num_nodes
    gpu = closest_gpu(s)
    preset = gpu_preset(gpu)
    notes.add(f"cluster.gpu = {gpu}: the preset closest to the system (fp16 peak "
              f"{s.f16_flops / 1e12:g} TFLOP/s, {s.mem_cap / 1e9:g} GB, NVLink "
              f"{s.num_nvlinks * s.bw_per_nvlink / 1e9:g} GB/s, HBM {s.mem_bw / 1e12:g} TB/s); every figure "
              "MAD-Max gives is overridden below, the preset only supplies what MAD-Max does not describe: "
              "the GPU family's collective latencies, overlap slowdown and memory reserve, power and price.")

    p16 = preset["peak_tflops"].get("fp16") or preset["peak_tflops"].get("bf16")
    diffs = [f"{what} {mine:g} vs {theirs:g}" for what, mine, theirs in (
        ("fp16 TFLOP/s", s.f16_flops / 1e12, p16), ("HBM TB/s", s.mem_bw / 1e12, preset["hbm_tbps"]),
        ("NVLink GB/s", s.num_nvlinks * s.bw_per_nvlink / 1e9, preset["nvlink_gbps"]))
        if theirs and abs(mine / theirs - 1) > 0.02]
    if diffs:
        notes.add(f"MAD-Max's figures differ from the {gpu} datasheet ({', '.join(diffs)}): "
                  "the scenario keeps MAD-Max's.")

    bpp = m.bytes_per_nonemb_param
    if bpp == 8:
        raise single("bytes_per_nonemb_param", "dse has no FP64 precision; supported: 4 (fp32), 2 (fp16), "
                     "1 (fp8 at the INT8 rate)", bpp, src.model)
    precision = PRECISION_OF_BYTES[bpp]
    peaks: dict[str, float] = {"fp16": s.f16_flops / 1e12}
    if preset["peak_tflops"].get("bf16"):
        peaks["bf16"] = s.f16_flops / 1e12
    eff_key = "matmul"
    if bpp == 4:
        if s.f32_flops is None:
            raise single("f32_flops", "required field is missing (the model has 4-byte dense weights: "
                         "MAD-Max runs it at the f32 rate)", "", src.system)
        ratio = s.f32_flops / 1e12 / (preset["peak_tflops"].get("tf32") or math.inf)
        if 0.9 < ratio < 1.1:  # the GPU's TF32 tensor-core rate: 4-byte values, TF32 math
            precision = "tf32"
            peaks["tf32"] = s.f32_flops / 1e12
            notes.add(f"precision tf32 (bytes_per_nonemb_param 4) at MAD-Max's f32_flops, "
                      f"{s.f32_flops / 1e12:g} TFLOP/s, the TF32 tensor-core rate of this GPU: "
                      "cluster.peak_tflops.tf32 is set to it (4-byte parameters and activations; the "
                      "power model counts tensor-core work at that rate).")
        else:
            peaks["fp32"] = s.f32_flops / 1e12
            notes.add(f"precision fp32 (bytes_per_nonemb_param 4) at MAD-Max's f32_flops, "
                      f"{s.f32_flops / 1e12:g} TFLOP/s: cluster.peak_tflops.fp32 is set to it.")
    elif bpp == 1:
        if s.i8_ops is None:
            raise single("i8_ops", "required field is missing (the model has 1-byte dense weights: "
                         "MAD-Max runs it at the INT8 rate)", "", src.system)
        peaks["fp8"] = s.i8_ops / 1e12
        eff_key = "matmul_fp8"
        notes.add(f"precision fp8 for bytes_per_nonemb_param 1: MAD-Max runs INT8 at i8_ops "
                  f"({s.i8_ops / 1e12:g} TOP/s); dse has no INT8 format, so fp8 stands for it, with "
                  "cluster.peak_tflops.fp8 = i8_ops and efficiency.matmul_fp8 = flops_util.")
    else:
        notes.add(f"precision fp16 (bytes_per_nonemb_param 2) at MAD-Max's f16_flops, {s.f16_flops / 1e12:g} TFLOP/s.")
    notes.add("cluster.peak_tflops.fp16" + (" and bf16" if "bf16" in peaks else "") +
              " = f16_flops: attention and other 16-bit work run at MAD-Max's FP16/BF16 rate.")

    efficiency: dict[str, float] = {
        eff_key: s.flops_util,
        "matmul_k_half": 0.0,
        "attention": s.flops_util,
        "hbm": s.mem_bw_util,
        "gather": s.mem_bw_util,
        "nvlink": s.nvlink_util,
        "scaleout": s.ibroce_util,
    }
    notes.add(f"efficiency.{eff_key} = efficiency.attention = flops_util ({s.flops_util:g}) and "
              "matmul_k_half = 0: MAD-Max runs every operation at one fraction of peak, whatever its "
              "shape (dse's calibration would slow shallow GEMMs down).")
    notes.add(f"efficiency.hbm = efficiency.gather = mem_bw_util ({s.mem_bw_util:g}): MAD-Max reads embedding "
              "rows at the same fraction of HBM bandwidth as everything else.")
    cluster: dict[str, Any] = {
        "gpu": gpu,
        "num_gpus": s.num_devices,
        "gpus_per_node": gpn,
        "nvlink_domain": gpn,
        "peak_tflops": peaks,
        "hbm_gb": s.mem_cap / 2**30,
        "hbm_tbps": s.mem_bw / 1e12,
    }
    notes.add(f"cluster.hbm_gb = mem_cap / 2**30 = {s.mem_cap / 2**30:.4g} GiB (MAD-Max's {s.mem_cap:,.0f} bytes). "
              "MAD-Max never checks capacity (it counts weights only); dse checks weights, gradients, "
              "optimizer state, activations and buffers against it, so a triplet may be infeasible.")
    intra = s.num_nvlinks * s.bw_per_nvlink
    if intra > 0:
        cluster["nvlink_gbps"] = intra / 1e9
    elif gpn > 1:
        raise single("num_nvlinks", f"a node of {gpn} GPUs needs an intra-node link (num_nvlinks x "
                     "bw_per_nvlink > 0): MAD-Max divides by this bandwidth", s.num_nvlinks, src.system)
    else:
        notes.add("no intra-node link (num_nvlinks x bw_per_nvlink = 0) and one GPU per node: "
                  "nvlink_gbps keeps the preset's value, which no collective uses.")
    inter_port_total = s.num_ibroce_ports * s.ibroce_bw
    if inter_port_total > 0:
        cluster["scaleout_gbitps"] = inter_port_total / 2 * 8 / 1e9 / gpn
    elif s.num_nodes > 1:
        raise single("num_ibroce_ports", f"{s.num_nodes} nodes need an inter-node network "
                     "(num_ibroce_ports x ibroce_bw > 0)", s.num_ibroce_ports, src.system)
    else:
        notes.add("no inter-node network on a single node: scaleout_gbitps keeps the preset's value, unused.")
    cluster["efficiency"] = efficiency
    e_intra = intra / 2 * s.nvlink_util
    e_inter = inter_port_total / 2 * s.ibroce_util / gpn
    notes.add(f"effective bandwidths per GPU, one direction, as MAD-Max computes them: intra-node = "
              f"num_nvlinks x bw_per_nvlink/2 x nvlink_util = {e_intra / 1e9:.6g} GB/s (cluster.nvlink_gbps "
              f"= {intra / 1e9:g}, both directions, x efficiency.nvlink); inter-node = num_ibroce_ports x "
              f"ibroce_bw/2 x ibroce_util / GPUs per node = {e_inter / 1e9:.6g} GB/s (cluster.scaleout_gbitps "
              f"= {inter_port_total * 4 / 1e9 / gpn:.6g} Gbit/s per GPU, one direction, x efficiency.scaleout).")
    notes.add(f"nvlink_domain = gpus_per_node = {gpn}: MAD-Max's two levels are one node and the "
              "inter-node network; rail_optimized stays true, as MAD-Max shares a node's ports evenly "
              "among its GPUs.")
    notes.add("collective latencies (cluster.*_latency_us) and the memory reserve keep the preset "
              "family's values: MAD-Max has no latency term and no memory check.")
    priced = cloud_price(s.name, gpu, s.mem_cap, gpn)
    if priced is not None:
        cluster["price_per_gpu_hour"] = priced[1]
        notes.add(f"cluster.price_per_gpu_hour = {priced[1]:g} USD: {priced[0]}'s price for this GPU and "
                  f"instance size in MAD-Max's cloud_prices.csv.")
    _ar_note(s, gpn, e_intra, e_inter, notes)
    if s.num_nodes == 1 and s.ar_perc_intra != 1:
        issues.append((src.system, FieldProblem("ar_perc_intra", repr(s.ar_perc_intra),
                                                "must be 1 on a single node")))
    return cluster, precision


def _ar_note(s: MadMaxSystem, gpn: int, e_intra: float, e_inter: float, notes: _Notes) -> None:
    """How MAD-Max's ar_perc_intra all-reduce compares with dse's placement of the same group."""
    n = s.num_devices
    if n <= 1:
        return
    if s.num_nodes > 1:
        madmax = s.ar_perc_intra * e_intra + (1 - s.ar_perc_intra) * e_inter
        k, outer = gpn, n // gpn
        per_byte = (2 * (k - 1) / k / e_intra if k > 1 and e_intra > 0 else 0.0) \
            + 2 * (outer - 1) / outer / k / e_inter
        notes.add(f"ar_perc_intra ({s.ar_perc_intra:g}) is not mapped: MAD-Max runs a multi-node all-reduce "
                  f"at ar_perc_intra x intra + (1 - ar_perc_intra) x inter = {madmax / 1e9:.4g} GB/s (time = "
                  f"bytes / that; all-gather and reduce-scatter at twice it), whatever the group; dse places "
                  f"each group on the two levels itself (tp innermost) and runs it hierarchically (ring "
                  f"reduce-scatter in the node, all-reduce across nodes on 1/{gpn} of the bytes, all-gather): "
                  f"for an all-reduce over all {n} GPUs that is bytes / {1 / per_byte / 1e9:.4g} GB/s, "
                  "with a latency term per step.")
    elif e_intra > 0:
        notes.add(f"single node: MAD-Max runs an all-reduce at the intra-node bandwidth ({e_intra / 1e9:.4g} GB/s, "
                  f"time = bytes / bandwidth); dse's ring moves 2(n-1)/n of the bytes ({2 * (n - 1) / n:.3g}x) "
                  "and adds a latency term per step.")


# ------------------------------------------------------------------------------ model
def _model(m: MadMaxModel, src: _Sources, notes: _Notes) -> dict[str, Any]:
    name = _label(m.name, src.model)
    if m.type in ("LLM", "LLM_MoE"):
        return _llm(m, name, src, notes)
    if m.type == "ViT":
        return _vit(m, name, src, notes)
    return _dlrm(m, name, src, notes)


def _llm(m: MadMaxModel, name: str, src: _Sources, notes: _Notes) -> dict[str, Any]:
    if m.num_experts is not None and m.num_active_experts > m.num_experts:
        raise single("num_active_experts", f"must not exceed num_experts ({m.num_experts}); MAD-Max asserts "
                     "it too", m.num_active_experts, src.model)
    spec: dict[str, Any] = {
        "name": name,
        "family": "moe" if m.type == "LLM_MoE" else "dense",
        "layers": m.num_transformer_layers,
        "hidden": m.attention_dim,
        "heads": m.num_transformer_heads,
        "kv_heads": m.num_transformer_heads,
        "ffn_hidden": m.transformer_fc_dim,
        "ffn_act": "gelu",
        "vocab": m.entries_per_table,
        "seq_len": m.transformer_seq_len,
        "tied_embeddings": True,
    }
    if m.attention_dim % m.num_transformer_heads:
        head_dim = max(1, round(m.attention_dim / m.num_transformer_heads))
        spec["head_dim"] = head_dim
        notes.add(f"head_dim = {head_dim}: attention_dim {m.attention_dim} is not a multiple of "
                  f"num_transformer_heads {m.num_transformer_heads} ({m.attention_dim / m.num_transformer_heads:g} "
                  f"per head, which MAD-Max never needs: its attention is 4 x attention_dim^2 weights); dse "
                  f"rounds to whole heads, so the Q/K/V/output projections have heads x head_dim = "
                  f"{m.num_transformer_heads * head_dim} columns ({100 * (m.num_transformer_heads * head_dim / m.attention_dim - 1):+.2f}% "
                  "attention weights and FLOPs).")
    notes.add("LLM: multi-head attention (kv_heads = heads), a 2-matrix GELU FFN of transformer_fc_dim, "
              "vocab = entries_per_table, no bias or norm weights, as MAD-Max counts it.")
    notes.add("tied_embeddings: MAD-Max has one vocab x attention_dim matrix (the embedding) and no LM head; "
              "dse ties the LM head to it (the same weights) but counts the LM-head FLOPs, and the "
              "attention-score FLOPs, that MAD-Max leaves out. MAD-Max's learned position embedding "
              "(seq_len x attention_dim weights) is not counted by dse.")
    if m.type == "LLM_MoE":
        spec["moe"] = {"experts": m.num_experts, "top_k": m.num_active_experts,
                       "expert_ffn_hidden": m.transformer_fc_dim}
        notes.add("LLM_MoE: every layer's FFN is a mixture of num_experts experts of transformer_fc_dim "
                  "(moe.expert_ffn_hidden = ffn_hidden), top_k = num_active_experts, no shared experts; "
                  "dse adds the router, which MAD-Max leaves out.")
    return spec


def _vit(m: MadMaxModel, name: str, src: _Sources, notes: _Notes) -> dict[str, Any]:
    if m.image_size % m.patch_dim:
        raise single("patch_dim", f"image_size ({m.image_size}) must be a multiple of patch_dim", m.patch_dim, src.model)
    if m.attention_dim % m.num_transformer_heads:
        raise single("num_transformer_heads", f"attention_dim ({m.attention_dim}) must be a multiple of "
                     "num_transformer_heads (dse's ViT has whole heads)", m.num_transformer_heads, src.model)
    tokens = (m.image_size // m.patch_dim) ** 2 + 1
    notes.add(f"ViT: {tokens} tokens per image ((image_size/patch_dim)^2 patches + the class token), a "
              "2-matrix GELU MLP of transformer_fc_dim, 3 input channels, no classifier size (classes null).")
    return {"name": name, "family": "vit", "layers": m.num_transformer_layers, "hidden": m.attention_dim,
            "heads": m.num_transformer_heads, "ffn_hidden": m.transformer_fc_dim, "patch": m.patch_dim,
            "image_size": m.image_size}


def _dlrm(m: MadMaxModel, name: str, src: _Sources, notes: _Notes) -> dict[str, Any]:
    table = {"rows": m.entries_per_table, "dim": m.emb_dim, "pooling": float(m.pooling_size)}
    spec: dict[str, Any] = {
        "name": name,
        "family": "dlrm",
        "dense_features": m.mlp_dim,
        "tables": {"count": m.num_tables, **table} if m.num_tables > 1 else [table],  # MAD-Max's tables are alike
        "bottom_mlp": [m.mlp_dim] * m.num_bot_mlp_layers,
        "top_mlp": [m.mlp_dim] * m.num_top_mlp_layers,
        "interaction": "concat",
    }
    notes.add(f"DLRM: {m.num_tables} identical tables of {m.entries_per_table} rows x {m.emb_dim} "
              f"(pooling {m.pooling_size:g} lookups per table per sample); bottom_mlp and top_mlp are "
              f"{m.num_bot_mlp_layers} and {m.num_top_mlp_layers} layers of mlp_dim ({m.mlp_dim}) outputs, "
              "MAD-Max's 'every MLP layer is mlp_dim x mlp_dim' (no width-1 logit layer is added: dse's "
              "usual convention ends top_mlp with it; its FLOPs are negligible).")
    notes.add(f"DLRM: dense_features = mlp_dim ({m.mlp_dim}), so the first bottom layer is mlp_dim x mlp_dim "
              "as in MAD-Max, which has no dense-feature count.")
    notes.add("DLRM: interaction concat. MAD-Max has no interaction operation (its first top layer is "
              "also mlp_dim x mlp_dim): the top MLP keeps its own first width and the pooled embeddings "
              "and the bottom output are only concatenated.")
    if m.bytes_per_emb_param is not None and m.bytes_per_emb_param not in EMB_DTYPES:
        notes.add(f"bytes_per_emb_param ({m.bytes_per_emb_param}) is not mapped: training.dlrm.emb_dtype "
                  f"takes {' or '.join(f'{b} ({d})' for b, d in EMB_DTYPES.items())} bytes.")
    if m.type == "DLRM_MoE":
        if m.num_active_experts > m.num_experts:
            raise single("num_active_experts", f"must not exceed num_experts ({m.num_experts})",
                         m.num_active_experts, src.model)
        spec["moe"] = {"experts": m.num_experts, "top_k": m.num_active_experts}
        notes.add("DLRM_MoE: moe {experts: num_experts, top_k: num_active_experts}: experts replace the MLP layers.")
    if m.type == "DLRM_Transformer":
        spec["transformer"] = {"layers": m.num_transformer_layers, "heads": m.num_transformer_heads,
                               "hidden": m.attention_dim, "ffn_hidden": m.transformer_fc_dim,
                               "seq_len": m.transformer_seq_len}
        notes.add("DLRM_Transformer: transformer {layers, heads, hidden = attention_dim, ffn_hidden = "
                  "transformer_fc_dim, seq_len = transformer_seq_len} over the sparse features.")
    return spec


# ------------------------------------------------------------------------------ parallel plan
@dataclass
class _Plan:
    tp: int = 1
    dp: int = 1
    pp: int = 1
    zero: int = 0


def _levels(t: MadMaxTask, field: str, n: int, gpn: int, src: _Sources, notes: _Notes,
            issues: list, required: bool = True) -> list[tuple[str, int]] | None:
    """The (strategy, degree) levels of one component, innermost first, fitted to n GPUs."""
    strats = getattr(t, field)
    degs = getattr(t, field + "_degree")
    if strats is None and degs is None and not required:
        return None
    for key, value in ((field, strats), (field + "_degree", degs)):
        if value is None:
            raise single(key, "required field is missing for this model", "", src.task)
        if not value:
            raise single(key, "must not be empty", value, src.task)
    if len(strats) != len(degs):
        raise single(field + "_degree", f"needs one degree per strategy of {field} {strats}", degs, src.task)
    deg_field = field + "_degree"
    if len(set(strats)) != len(strats):
        issues.append((src.task, FieldProblem(field, repr(strats), "a strategy is repeated (MAD-Max: "
                                              "'refactorable')")))
    if len(strats) > 2:
        issues.append((src.task, FieldProblem(field, repr(strats), "at most two levels")))
    if 1 in degs:
        issues.append((src.task, FieldProblem(deg_field, repr(degs), "a degree of 1 is redundant")))
    if "fsdp" in strats and strats.index("fsdp") != 0:
        issues.append((src.task, FieldProblem(field, repr(strats), "fsdp must be the first level")))
    if degs[0] not in (gpn, n) and len(degs) > 1:
        issues.append((src.task, FieldProblem(deg_field, repr(degs), f"the first level must be one node "
                                              f"({gpn} GPUs) or the whole cluster ({n})")))
    total = math.prod(degs)
    if total != n:
        inner = math.prod(degs[:-1])
        if n % inner:
            raise single(deg_field, f"the degrees multiply to {total} GPUs, the system has {n}, and the "
                         f"inner levels {list(degs[:-1])} ({inner} GPUs) do not divide {n}, so the outermost "
                         "level cannot be fitted", degs, src.task)
        issues.append((src.task, FieldProblem(deg_field, repr(degs), f"the degrees multiply to {total}, "
                                              f"not to num_devices ({n})")))
        fitted = list(degs[:-1]) + [n // inner]
        kept = f"the inner levels {list(degs[:-1])} are kept and the outermost" if len(degs) > 1 else "the level"
        notes.add(f"{deg_field} {list(degs)} multiplies to {total} GPUs but the system has {n}: {kept} "
                  f"({strats[-1]}) becomes {fitted[-1]}, so {deg_field} = {fitted}; local batch sizes are "
                  "kept, so the global batch scales with the GPU count.")
        degs = fitted
    return list(zip(strats, degs))


def _dense_plan(levels: list[tuple[str, int]], field: str, allowed: tuple[str, ...], src: _Sources) -> _Plan:
    """tp / dp / pp / zero from dense levels (innermost first), or an error saying what dse lacks."""
    strats = [s for s, _ in levels]
    for s in strats:
        if s not in allowed:
            madmax = {"mp": "MAD-Max uses 'mp' for embedding tables only"}.get(s, "not a MAD-Max strategy")
            raise single(field, f"unknown strategy {s!r} ({madmax}); supported: {', '.join(allowed)}",
                         strats, src.task)
    ranks = [_LEVEL_RANK[s] for s in strats]
    if ranks != sorted(ranks):
        raise single(field, "dse cannot express this order of levels (innermost first): it places tensor "
                     "parallelism innermost (inside the node), data parallelism (ddp/fsdp) around it and "
                     "pipeline parallelism outermost, so a tp or data-parallel level cannot sit outside a "
                     "later kind; supported orders: tp, ddp, fsdp, pp alone, [tp, ddp], [tp, fsdp], [tp, pp], "
                     "[ddp, pp], [fsdp, pp]", strats, src.task)
    if "ddp" in strats and "fsdp" in strats:
        raise single(field, "dse cannot express hybrid sharding (fsdp on one level, ddp on another): its "
                     "ZeRO stage shards over the whole data-parallel group; supported: ddp or fsdp levels, "
                     "not both", strats, src.task)
    plan = _Plan()
    for s, d in levels:
        if s == "tp":
            plan.tp *= d
        elif s == "pp":
            plan.pp *= d
        else:
            plan.dp *= d
            plan.zero = 3 if s == "fsdp" else 0
    return plan


def _parallel(m: MadMaxModel, s: MadMaxSystem, t: MadMaxTask, src: _Sources, notes: _Notes,
              issues: list) -> tuple[dict[str, Any], dict[str, Any]]:
    n, gpn = s.num_devices, s.num_devices // s.num_nodes
    extra: dict[str, Any] = {}
    if m.type in ("LLM", "LLM_MoE", "ViT"):
        levels = _levels(t, "transformer_parallel", n, gpn, src, notes, issues)
        plan = _dense_plan(levels, "transformer_parallel", ("tp", "ddp", "fsdp", "pp"), src)
        micro = _required(t, "local_transformer_bs", src)
        emb = _levels(t, "emb_parallel", n, gpn, src, notes, issues, required=False)
        what = "LLM" if m.type != "ViT" else "ViT"
        if emb is not None:
            if any(st == "mp" for st, _ in emb):
                raise single("emb_parallel", f"dse cannot express a model-parallel (all-to-all) {what} "
                             "embedding: its embedding follows the dense plan (sharded by tp, and by the "
                             "ZeRO stage); supported: ddp", [st for st, _ in emb], src.task)
            bad = [st for st, _ in emb if st != "ddp"]
            if bad:
                raise single("emb_parallel", f"unknown strategy {bad[0]!r}; supported for an {what}: ddp",
                             [st for st, _ in emb], src.task)
            notes.add(f"emb_parallel [ddp]: dse's {what} embedding follows the dense plan (vocab-parallel "
                      "over tp, sharded by ZeRO stage 3), while MAD-Max replicates it and all-reduces its "
                      "gradient; the embedding is a small share of the weights.")
            _check_batches(t, "local_emb_bs", _dup(_orig(t, "emb_parallel")), "local_transformer_bs",
                           _dup(_orig(t, "transformer_parallel")), src, issues, notes)
        elif m.type != "ViT":
            issues.append((src.task, FieldProblem("emb_parallel", "", "required field is missing")))
        if plan.pp > 1:
            notes.add("pp: MAD-Max only shards the weights over a 'pp' level (no bubble, no point-to-point); "
                      "dse models the 1F1B pipeline with one microbatch per step (global_batch = microbatch x "
                      "dp), so the bubble is large.")
        if plan.tp > 1:
            notes.add("sp: false: MAD-Max's tensor parallelism all-reduces the activations after attention "
                      "and after the FFN (Megatron without sequence parallelism).")
    else:
        levels = _levels(t, "mlp_parallel", n, gpn, src, notes, issues)
        plan = _dense_plan(levels, "mlp_parallel", ("tp", "ddp", "fsdp"), src)
        micro = _required(t, "local_mlp_bs", src)
        if plan.tp > 1 and (m.num_bot_mlp_layers % 2 or m.num_top_mlp_layers % 2):
            issues.append((src.model, FieldProblem("num_bot_mlp_layers", "", "tensor parallelism of the MLPs "
                                                   "needs even numbers of bottom and top layers")))
        extra_plan = None
        if m.type == "DLRM_Transformer":
            extra_plan = _levels(t, "transformer_parallel", n, gpn, src, notes, issues, required=False)
            if extra_plan is None:
                notes.add("the task has no transformer_parallel: the transformer follows the MLP plan.")
            else:
                tplan = _dense_plan(extra_plan, "transformer_parallel", ("tp", "ddp", "fsdp"), src)
                if (tplan.tp, tplan.dp, tplan.zero) != (plan.tp, plan.dp, plan.zero):
                    raise single("transformer_parallel", f"dse has one dense plan for the MLPs and the "
                                 f"transformer; mlp_parallel gives tp {plan.tp}, dp {plan.dp}, zero {plan.zero} "
                                 f"and transformer_parallel tp {tplan.tp}, dp {tplan.dp}, zero {tplan.zero}; "
                                 "supported: the same strategies and degrees for both",
                                 [st for st, _ in extra_plan], src.task)
                if t.local_transformer_bs is not None and t.local_transformer_bs != micro:
                    issues.append((src.task, FieldProblem("local_transformer_bs", repr(t.local_transformer_bs),
                                                          f"differs from local_mlp_bs ({micro})")))
                    notes.add(f"local_transformer_bs ({t.local_transformer_bs}) differs from local_mlp_bs "
                              f"({micro}): dse has one batch and uses local_mlp_bs.")
        elif t.transformer_parallel is not None:
            notes.add(f"transformer_parallel is ignored: a {m.type} model has no transformer.")
        emb = _levels(t, "emb_parallel", n, gpn, src, notes, issues)
        extra_sharding = _emb_sharding([st for st, _ in emb], src, notes)
        _check_batches(t, "local_emb_bs", _dup(_orig(t, "emb_parallel")), "local_mlp_bs",
                       _dup(_orig(t, "mlp_parallel")), src, issues, notes)
        if plan.tp > 1:
            notes.add("DLRM tp: MAD-Max splits each pair of MLP layers over the tp group and all-reduces "
                      "the activations after every second layer.")
        extra_parallel = {"emb_sharding": extra_sharding}
    parallel: dict[str, Any] = {"tp": plan.tp, "pp": plan.pp, "dp": plan.dp, "cp": 1, "ep": 1}
    if m.type in ("LLM", "LLM_MoE", "ViT"):
        parallel["sp"] = False
    llm_serving = t.type == "inference" and m.type in ("LLM", "LLM_MoE")
    dlrm = m.type not in ("LLM", "LLM_MoE", "ViT")
    per_gpu = micro
    if dlrm and plan.tp > 1:  # dse's DLRM microbatch is per GPU: a tp group shares its replica's samples
        if micro % plan.tp:
            issues.append((src.task, FieldProblem("local_mlp_bs", repr(micro), f"must be a multiple of the MLPs' "
                                                  f"tp degree ({plan.tp}): dse gives each GPU of a tp group "
                                                  f"local_mlp_bs / tp samples' embeddings")))
        per_gpu = max(micro // plan.tp, 1)
        notes.add(f"DLRM microbatch = local_mlp_bs / tp = {micro} / {plan.tp} = {per_gpu} samples per GPU: dse's "
                  f"DLRM microbatch is per GPU (global_batch = microbatch x num_gpus), and the {plan.tp} GPUs of "
                  "a tp group run their replica's local_mlp_bs samples through the MLPs together.")
    if not llm_serving:  # serving takes its batch from the inference block and has no training options
        parallel.update({"vpp": 1, "zero": plan.zero, "recompute": "none", "microbatch": per_gpu,
                         "global_batch": micro * plan.dp})
    elif plan.zero:
        notes.add("fsdp serving -> dp replicas that each hold the whole model: dse's serving model has no "
                  "sharded weights gathered per layer.")
    if m.type not in ("LLM", "LLM_MoE", "ViT"):
        parallel.update(extra_parallel)
    unit = "images" if m.type == "ViT" else ("sequences" if m.type.startswith("LLM") else "samples")
    unit = unit if micro > 1 else unit[:-1]
    if llm_serving:
        notes.add(f"parallel: tp {plan.tp}, dp {plan.dp} replicas, pp {plan.pp}.")
    else:
        local = (f"microbatch = the local batch ({micro} {unit} per data-parallel replica), global_batch = "
                 f"microbatch x dp = {micro * plan.dp}" if per_gpu == micro else
                 f"global_batch = the local batch x dp = {micro} x {plan.dp} = {micro * plan.dp}")
        notes.add(f"parallel: tp {plan.tp}, dp {plan.dp}, pp {plan.pp}, zero {plan.zero} (ddp -> zero 0, fsdp -> "
                  f"zero 3, which dse also applies to gradients and optimizer state); {local}, one microbatch "
                  "per step (MAD-Max has no gradient accumulation); no recompute, as in MAD-Max.")
    if m.type == "LLM_MoE":
        notes.add("ep = 1: MAD-Max has no expert parallelism for LLMs (the experts follow the transformer "
                  "plan: replicated under ddp, sharded under fsdp).")
    if t.type == "inference":
        if m.type in ("LLM", "LLM_MoE"):
            extra["inference"] = {"input_len": m.transformer_seq_len, "output_len": 1, "batch": micro,
                                  "mode": "offline_max_throughput"}
            notes.add(f"inference: MAD-Max runs one forward pass over the full sequence (no prefill/decode "
                      f"split, no KV cache); dse's equivalent is a prefill of input_len = seq_len "
                      f"({m.transformer_seq_len}) tokens producing output_len = 1 token, batch = "
                      f"local_transformer_bs ({micro}) sequences per replica, mode offline_max_throughput.")
        else:
            notes.add("inference: one forward pass per batch, as in MAD-Max (workload inference, no "
                      "inference block: it describes LLM serving).")
    return parallel, extra


def _required(t: MadMaxTask, key: str, src: _Sources) -> int:
    value = getattr(t, key)
    if value is None:
        raise single(key, "required field is missing for this model", "", src.task)
    return value


def _orig(t: MadMaxTask, field: str) -> list[tuple[str, int]]:
    return list(zip(getattr(t, field) or [], getattr(t, field + "_degree") or []))


def _dup(levels: list[tuple[str, int]]) -> int:
    """MAD-Max's duplicate factor: the product of the replicating (ddp, fsdp) degrees."""
    return math.prod(d for s, d in levels if s in ("ddp", "fsdp"))


def _check_batches(t: MadMaxTask, emb_key: str, emb_dup: int, dense_key: str, dense_dup: int,
                   src: _Sources, issues: list, notes: _Notes) -> None:
    emb_bs, dense_bs = getattr(t, emb_key), getattr(t, dense_key)
    if emb_bs is None or dense_bs is None:
        return
    if emb_bs * emb_dup != dense_bs * dense_dup:
        issues.append((src.task, FieldProblem(emb_key, repr(emb_bs), f"the global batches differ: {emb_key} x "
                                              f"{emb_dup} = {emb_bs * emb_dup}, {dense_key} x {dense_dup} = "
                                              f"{dense_bs * dense_dup}")))
        notes.add(f"{emb_key} ({emb_bs}) gives a global batch of {emb_bs * emb_dup}, {dense_key} ({dense_bs}) "
                  f"one of {dense_bs * dense_dup}: dse has one batch and uses {dense_key}.")


def _emb_sharding(strats: list[str], src: _Sources, notes: _Notes) -> str:
    for st in strats:
        if st not in ("mp", "ddp"):
            raise single("emb_parallel", f"unknown strategy {st!r}; supported for DLRM embeddings: mp, ddp, "
                         "[ddp, mp]", strats, src.task)
    if strats == ["mp"]:
        notes.add("emb_parallel [mp] -> emb_sharding table: tables model-parallel over all GPUs, exchanged "
                  "with all-to-all.")
        return "table"
    if strats == ["ddp"]:
        notes.add("emb_parallel [ddp] -> emb_sharding data_parallel: every table replicated, gradients all-reduced.")
        return "data_parallel"
    if strats == ["ddp", "mp"]:
        notes.add("emb_parallel [ddp, mp] -> emb_sharding hier_auto: tables sharded across nodes with a "
                  "hierarchical all-to-all; inside a node dse splits each table's rows over the GPUs (HugeCTR's "
                  "hierarchical plan) where MAD-Max replicates it: the same cross-node traffic, 1/GPUs-per-node "
                  "of the memory (dse's planner may also replicate small tables, which MAD-Max does not).")
        return "hier_auto"
    if strats == ["mp", "ddp"]:
        notes.add("emb_parallel [mp, ddp] -> emb_sharding node_sharded: tables sharded inside a node, every node "
                  "a replica (MAD-Max's 2D sharding); the touched rows' gradients are reduced across nodes.")
        return "node_sharded"
    raise single("emb_parallel", "unsupported embedding plan; supported: [mp] (table), [ddp] (data_parallel), "
                 "[ddp, mp] (hier_auto), [mp, ddp] (node_sharded)", strats, src.task)


# ------------------------------------------------------------------------------ fine-tuning
def _finetune(m: MadMaxModel, t: MadMaxTask, src: _Sources, notes: _Notes, issues: list) -> dict[str, Any]:
    given = [k for k in ("freeze_emb", "freeze_bot_mlp", "freeze_top_mlp", "freeze_transformer",
                         "min_frozen_layer") if getattr(t, k) is not None]
    block: dict[str, Any] = {"freeze_embeddings": bool(t.freeze_emb)}
    layers = m.num_transformer_layers
    if m.type in ("DLRM", "DLRM_MoE", "DLRM_Transformer"):
        block["freeze_bottom_mlp"] = bool(t.freeze_bot_mlp)
        block["freeze_top_mlp"] = bool(t.freeze_top_mlp)
        if t.freeze_emb and t.freeze_bot_mlp and t.freeze_top_mlp:
            issues.append((src.task, FieldProblem("freeze_emb", "", "every component is frozen")))
    if layers is not None:
        if t.freeze_transformer:
            frozen = layers
        else:
            first = layers if t.min_frozen_layer is None else min(t.min_frozen_layer, layers)
            frozen = layers - first
        block["frozen_layers"] = frozen
        top = "" if frozen in (0, layers) else (
            f" MAD-Max's frozen layers are the top ones (index >= min_frozen_layer), dse's are the bottom "
            f"{frozen}: dse cannot freeze top layers, and skips the backward of frozen bottom layers when "
            "nothing below them trains, which MAD-Max never does.")
        notes.add(f"finetune.frozen_layers = {frozen}: MAD-Max skips the weight-gradient communication of "
                  f"layers >= min_frozen_layer ({t.min_frozen_layer if t.min_frozen_layer is not None else layers}), "
                  f"or of every layer with freeze_transformer, but still runs their full backward compute; "
                  f"dse's frozen_layers counts the frozen layers"
                  + (" of the DLRM's transformer" if m.type == "DLRM_Transformer" else "") + "." + top)
        if t.freeze_transformer and t.freeze_emb and m.type in ("LLM", "LLM_MoE", "ViT"):
            issues.append((src.task, FieldProblem("freeze_transformer", "", "every component is frozen")))
    missing = [k for k in ("freeze_emb", "freeze_bot_mlp", "freeze_top_mlp")
               if k not in given and (k == "freeze_emb" or m.type.startswith("DLRM"))]
    if missing:
        notes.add(f"finetune: {', '.join(missing)} not given: false.")
    notes.add("finetune -> workload finetune with a finetune block (frozen parts get no weight gradients, "
              "optimizer state or gradient communication).")
    return block


# ------------------------------------------------------------------------------ YAML
class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:  # identical tables are written out, not aliased
        return True


def scenario_yaml(scenario: dict[str, Any], notes: list[str], sources: tuple[Any, Any, Any] | None = None,
                  width: int = 100) -> str:
    """The scenario as YAML, with the notes as comments above it."""
    import textwrap

    lines = ["# dse scenario imported from a MAD-Max configuration by `dse import-madmax`"]
    if sources is not None:
        for role, path in zip(("model", "system", "task"), sources):
            lines.append(f"#   {role}: {path}")
    lines.append("# Assumptions:")
    for note in notes:
        wrapped = textwrap.wrap(note, width=width - 4, break_on_hyphens=False) or [""]
        lines.append("# - " + wrapped[0])
        lines += ["#   " + w for w in wrapped[1:]]
    body = yaml.dump(scenario, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=width,
                     allow_unicode=True)
    return "\n".join(lines) + "\n" + body
