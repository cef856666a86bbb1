"""DLRM training and inference evaluators (kinds ``dlrm_train`` and ``dlrm_inference``).

Scenarios are grouped by model (the same tables and widths) and every group is scored with one
vectorized :func:`dse.costmodel.dlrm.evaluate_dlrm` call. Assumptions about what a scenario does
not state (see :func:`scenario_columns`):

* precision: ``fp16``/``bf16`` = mixed precision, 2-byte activations, fp32 master weights;
  ``tf32`` = an FP32 model whose GEMMs run at the TF32 peak (4-byte activations); ``fp32`` =
  FP32 everywhere (FP32 peak).
* the embedding software is the scenario's ``training.dlrm`` block
  (:class:`dse.specs.DLRMTrainingSpec`): table dtype (default FP32, TorchRec's default; the
  pooled vectors are exchanged in it), table placement (default cost-balanced) and optimizer
  (default SGD for the dot-interaction DLRM, Adagrad for DCN-v2, as the MLPerf references train
  them), for every candidate sharding alike. What a published source's framework did (HugeCTR's
  FP16 tables, Merlin Distributed Embeddings' memory-balanced placement) is a fact of that source
  in ``dse/data/software.yaml``, applied to its validation cases.
* ``parallel.emb_sharding: null`` (not stated): every sharding is scored and the fastest
  feasible one is reported (column ``emb_sharding``), as a planner would choose; ``hybrid`` is
  only a candidate for one-hot tables (HugeCTR's hybrid embedding needs them).
* dense layers: data parallel over num_gpus / tp replicas, tensor parallel with ``parallel.tp``,
  FSDP with ``parallel.zero: 3``; ``parallel.microbatch`` is the samples per GPU and
  ``global_batch`` = microbatch x num_gpus (no gradient accumulation).
* fine-tuning (``workload: finetune``): ``finetune.freeze_embeddings`` / ``freeze_bottom_mlp`` /
  ``freeze_top_mlp`` drop the frozen parts' weight gradients, updates, optimizer state and
  gradient communication (activation gradients still flow where a trainable part is below).
* calibration: the ``dlrm_*`` keys of the GPU family in ``dse/data/calibration.yaml``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from ..costmodel import dlrm as cm
from ..errors import InputError
from ..hardware import resolve_hardware
from ..presets import calibration_table, gpu_calibration, gpu_preset
from ..specs import DLRMSpec, Scenario
from . import register

GIB = 2.0**30

#: Defaults of the DLRM calibration keys when a family has none.
DLRM_CALIBRATION = {
    "dlrm_gather": 0.6,
    "dlrm_op_latency_us": 4.0,
    "dlrm_step_overhead_us": 0.0,
    "dlrm_popularity_zipf": 1.05,
}
#: Bytes per stored (and exchanged) embedding element of ``training.dlrm.emb_dtype``.
EMB_BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0}
#: ``emb_planner`` codes of ``training.dlrm.emb_placement``.
EMB_PLACEMENT = {"cost_balanced": 0.0, "memory_balanced": 1.0}
#: Candidates scored when ``emb_sharding`` is not stated.
CANDIDATES = ("table", "column", "row", "table_row", "auto", "hier_auto", "node_sharded", "data_parallel", "hybrid")


def model_constants(m: DLRMSpec) -> dict:
    """The cost-model constants of a DLRM spec."""
    tf = m.transformer.model_dump() if m.transformer is not None else None
    return cm.model_constants(
        [(t.rows, t.dim, t.pooling) for t in m.tables], m.dense_features, m.bottom_mlp, m.top_mlp,
        interaction=m.interaction, cross_layers=m.cross_layers, cross_rank=m.cross_rank,
        moe_experts=m.moe.experts if m.moe else 0, moe_top_k=m.moe.top_k if m.moe else 0,
        transformer=tf, name=m.name,
    )


def dlrm_calibration(family: str, table: dict | None = None) -> dict[str, float | None]:
    """The DLRM calibration of a GPU family, or of one GPU's ``table`` (presets.gpu_calibration)
    (defaults where it has none); ``dlrm_matmul`` is None unless it has its own DLRM GEMM efficiency."""
    table = calibration_table().get(family, {}) if table is None else table
    out: dict[str, float | None] = {k: float(table.get(k, v)) for k, v in DLRM_CALIBRATION.items()}
    out["dlrm_matmul"] = float(table["dlrm_matmul"]) if table.get("dlrm_matmul") is not None else None
    return out


def scenario_columns(s: Scenario, sharding: str | None = None) -> dict[str, float]:
    """The DLRM cost-model columns (SI units) of one scenario; ``sharding`` overrides the plan's."""
    m, cl, p = s.model, s.cluster, s.parallel
    hw = resolve_hardware(cl, s.precision)
    cal = dlrm_calibration(hw.family, gpu_calibration(cl.gpu))
    n = cl.num_gpus
    b = p.microbatch or max((p.global_batch or n) // n, 1)
    shard = sharding or p.emb_sharding or "table"
    act = 4.0 if s.precision in ("tf32", "fp32") else 2.0
    sw = s.training.dlrm
    opt = cm.OPTIMIZER[sw.optimizer or ("adagrad" if m.interaction == "dcnv2" else "sgd")]
    ft = s.finetune
    gpn = min(cl.gpus_per_node or gpu_preset(cl.gpu)["gpus_per_node"], n)
    row = {
        **{k: v for k, v in hw.columns().items() if k in cm.COLUMNS},
        "gpus_per_node": gpn,
        "eff_gather": (cl.efficiency.gather if cl.efficiency is not None and cl.efficiency.gather is not None
                       else cal["dlrm_gather"]),
        # DLRM GEMM efficiency: the family's LLM figure unless the family has a DLRM fit (a
        # family whose LLM figure was not fitted, e.g. volta); only for 16-bit GEMMs, and never
        # over a scenario's own cluster.efficiency.matmul
        **({"eff_matmul": cal["dlrm_matmul"]} if cal["dlrm_matmul"] is not None and s.precision in ("fp16", "bf16")
           and (cl.efficiency is None or cl.efficiency.matmul is None) else {}),
        "op_latency": cal["dlrm_op_latency_us"] * 1e-6,
        "step_overhead": cal["dlrm_step_overhead_us"] * 1e-6,
        "popularity_zipf": cal["dlrm_popularity_zipf"],
        "num_gpus": n,
        "microbatch": b,
        "global_batch": p.global_batch or b * n,
        "emb_sharding": cm.SHARDING[shard],
        "emb_planner": EMB_PLACEMENT[sw.emb_placement],
        "tp": p.tp,
        "zero": p.zero,
        "ep": p.ep,
        "act_bytes": act,
        "emb_bytes": EMB_BYTES[sw.emb_dtype],
        # quantized tables pool into dequantized (16-bit) vectors unless the exchange is stated
        "exchange_bytes": (EMB_BYTES[sw.exchange_dtype] if sw.exchange_dtype
                           else 2.0 if EMB_BYTES[sw.emb_dtype] < 2.0 else 0.0),
        "grad_bytes": act,
        "emb_optimizer": opt,
        "dense_optimizer": opt,
        "master_weights": 1.0 if act < 4.0 else 0.0,
        "train": 0.0 if s.workload == "inference" else 1.0,
        "freeze_emb": float(bool(ft and ft.freeze_embeddings)),
        "freeze_bottom": float(bool(ft and ft.freeze_bottom_mlp)),
        "freeze_top": float(bool(ft and ft.freeze_top_mlp)),
        "overlap_a2a": 1.0,
        "overlap_dp": float(s.training.overlap.dp),
    }
    return {k: float(v) for k, v in row.items()}


def _candidates(s: Scenario) -> tuple[str, ...]:
    if s.parallel.emb_sharding is not None:
        return (s.parallel.emb_sharding,)
    one_hot = all(t.pooling <= 1.0 for t in s.model.tables)
    return tuple(c for c in CANDIDATES if one_hot or c != "hybrid")


def _model_key(m: DLRMSpec) -> str:
    return json.dumps(m.model_dump(mode="json"), sort_keys=True)


def evaluate_dlrm_scenarios(specs: list[Scenario], explain: bool = True) -> pd.DataFrame:
    """DLRM scenarios (training, fine-tuning or inference) -> one row each, in order."""
    frames: list[pd.DataFrame] = []
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(specs):
        groups.setdefault(_model_key(s.model), []).append(i)
    for _, index in groups.items():
        model = model_constants(specs[index[0]].model)
        rows, owner, names = [], [], []
        for i in index:
            s = specs[i]
            try:
                for shard in _candidates(s):
                    rows.append(scenario_columns(s, shard))
                    owner.append(i)
                    names.append(shard)
            except InputError as err:
                raise err.with_source(f"scenario {i}" + (f" ({s.name})" if s.name else "")) from None
        cols = pd.DataFrame(rows)
        metrics = cm.evaluate_dlrm(model, {k: cols[k].to_numpy() for k in cols})
        full = cols.assign(**metrics, _owner=owner, _sharding=names)
        # the best candidate per scenario: feasible first, then the shortest step
        full["_rank"] = np.where(full["feasible"] > 0, 0.0, 1.0)
        best = full.sort_values(["_owner", "_rank", "iteration_time_s"], kind="stable").groupby("_owner").head(1)
        frames.append(best)
    out = pd.concat(frames).set_index("_owner").sort_index()
    out = out.reset_index(drop=True)
    return _finish(out, specs, explain)


def _finish(out: pd.DataFrame, specs: list[Scenario], explain: bool) -> pd.DataFrame:
    """Standard columns (names, plan, LLM-report-compatible parts) and infeasible reasons."""
    out["name"] = [s.name for s in specs]
    out["gpu"] = [s.cluster.gpu for s in specs]
    out["model"] = [s.model.name for s in specs]
    out["precision"] = [s.precision for s in specs]
    out["workload"] = [s.workload for s in specs]
    out["emb_sharding"] = out.pop("_sharding")
    out["emb_sharding_stated"] = [s.parallel.emb_sharding is not None for s in specs]
    out["feasible"] = out["feasible"] > 0
    out["infeasible_mask"] = out["infeasible_mask"].astype(np.int64)
    out = out.drop(columns=[c for c in ("_rank",) if c in out])
    # columns the LLM report reads (dse evaluate): the plan, tokens (none), the time parts
    n = out["num_gpus"]
    out["dp"] = n / out["tp"]
    for k, v in {"pp": 1.0, "cp": 1.0, "vpp": 1.0, "sp": 0.0, "recompute": 0.0, "microbatches": 1.0}.items():
        out[k] = v
    for k in ("tokens_per_s", "tokens_per_s_per_gpu", "hardware_tflops_per_gpu", "hfu",
              "energy_per_token_j", "cost_per_mtok_usd"):
        out[k] = math.nan
    out["hardware_tflops_per_gpu"] = out["model_tflops_per_gpu"]
    out["hfu"] = out["mfu"]
    out["params_total"] = out["dense_params"] + out["embedding_params"]
    out["params_active"] = out["params_total"]
    out["time_bubble_s"] = 0.0
    # the DLRM report's parts (dse.report), before the LLM-compatible columns merge them
    out["time_loss_optimizer_s"] = out["time_compute_s"] - out["time_mlp_s"] - out["time_interaction_s"]
    out["exposed_dense_allreduce_s"] = out["exposed_dp_s"]
    out["overlapped_dense_allreduce_s"] = out["overlapped_dp_s"]
    out["memory_dense_weights_bytes"] = out["memory_weights_bytes"]
    out["memory_dense_optimizer_bytes"] = out["memory_optimizer_bytes"]
    out["exposed_tp_s"] = out["time_tp_s"]
    out["exposed_ep_s"] = out["exposed_a2a_s"] + out["time_moe_a2a_s"]
    out["exposed_cp_s"] = 0.0
    out["exposed_fsdp_s"] = 0.0
    out["exposed_pp_s"] = 0.0
    out["exposed_dp_s"] = out["exposed_dp_s"] + out["exposed_emb_allreduce_s"]
    out["overlapped_ep_s"] = out["overlapped_a2a_s"]
    out["overlapped_dp_s"] = out["overlapped_dp_s"] + out["overlapped_emb_allreduce_s"]
    for k in ("overlapped_tp_s", "overlapped_cp_s", "overlapped_fsdp_s", "overlapped_pp_s"):
        out[k] = 0.0
    # compute = everything on the compute stream: the parts then add up to the iteration
    out["time_compute_s"] = (out["iteration_time_s"] - out["exposed_tp_s"] - out["exposed_ep_s"]
                             - out["exposed_dp_s"] - out["time_overlap_slowdown_s"])
    out["memory_weights_bytes"] = out["memory_weights_bytes"] + out["memory_embeddings_bytes"]
    out["memory_optimizer_bytes"] = out["memory_optimizer_bytes"] + out["memory_emb_optimizer_bytes"]
    reasons = np.full(len(out), "", dtype=object)
    if explain:
        for i in np.flatnonzero(~out["feasible"].to_numpy()):
            reasons[i] = describe(int(out["infeasible_mask"].iat[i]), out.iloc[i], specs[i])
    out["infeasible_reason"] = reasons
    return out


#: A few words per ``infeasible_mask`` bit of a DLRM plan (see :func:`describe` for one plan's
#: arithmetic).
LABELS = {
    cm.TABLE_TOO_LARGE: "an embedding table (shard) larger than a GPU's HBM",
    cm.OUT_OF_MEMORY: "out of memory",
    cm.BATCH_GPUS: "global batch is not microbatch x GPUs",
    cm.GPUS_TP: "GPU count not divisible by tp",
    cm.EXPERTS_EP: "ep does not divide the experts or the GPUs",
    cm.NODES: "node-level sharding on a GPU count that is not whole nodes",
    cm.HYBRID_MULTIHOT: "hybrid sharding needs one-hot tables",
}


def describe(mask: int, row: pd.Series, s: Scenario) -> str:
    """The reasons a DLRM configuration is infeasible, with the arithmetic."""
    reasons = []
    n = int(row["num_gpus"])
    if mask & cm.TABLE_TOO_LARGE:
        t = int(row["emb_max_shard_table"])
        tab = s.model.tables[t]
        need = row["emb_max_shard_bytes"]
        elems = row.get("emb_max_shard_elems", tab.rows * tab.dim)
        state = need > elems * row["emb_bytes"] * (1 + 1e-9)
        share = elems / (tab.rows * tab.dim)
        part = ("the whole table" if share > 1 - 1e-9 else
                f"its largest shard under '{row['emb_sharding']}' sharding, {share:.3g} of the table"
                + (": a table larger than a GPU's even share is split by columns, as Merlin Distributed "
                   "Embeddings does" if row["emb_sharding"] == "table" else ""))
        reasons.append(
            f"embedding table {t} ({tab.rows:,} rows x {tab.dim} x {row['emb_bytes']:g} B"
            f"{' + optimizer state' if state else ''}; {part}) needs {need / GIB:.1f} GiB "
            f"> {(row['hbm_bytes'] - row['memory_reserved']) / GIB:.1f} GiB of HBM free per GPU"
        )
    if mask & cm.OUT_OF_MEMORY:
        reasons.append(
            f"out of memory: needs {row['memory_per_gpu_bytes'] / GIB:.1f} GiB per GPU > "
            f"{row['hbm_bytes'] / GIB:.1f} GiB HBM (embedding tables {row['memory_embeddings_bytes'] / GIB:.1f}, "
            f"their optimizer state {row['memory_emb_optimizer_bytes'] / GIB:.1f}, dense weights/grads/optimizer "
            f"{(row['memory_weights_bytes'] - row['memory_embeddings_bytes'] + row['memory_grads_bytes'] + row['memory_optimizer_bytes'] - row['memory_emb_optimizer_bytes']) / GIB:.2f}, "
            f"activations {row['memory_activations_bytes'] / GIB:.1f}, buffers {row['memory_buffers_bytes'] / GIB:.1f}, "
            f"reserved {row['memory_reserved_bytes'] / GIB:.1f} GiB; sharding '{row['emb_sharding']}')"
        )
    if mask & cm.BATCH_GPUS:
        reasons.append(f"global_batch {row['global_batch']:g} != microbatch {row['microbatch']:g} x num_gpus {n}")
    if mask & cm.GPUS_TP:
        reasons.append(f"num_gpus {n} not divisible by tp {row['tp']:g}")
    if mask & cm.EXPERTS_EP:
        reasons.append(f"ep {row['ep']:g} must divide the experts and num_gpus {n}")
    if mask & cm.NODES:
        reasons.append(f"num_gpus {n} not a multiple of gpus_per_node {row['gpus_per_node']:g} "
                       f"('{row['emb_sharding']}' shards inside a node)")
    if mask & cm.HYBRID_MULTIHOT:
        reasons.append("'hybrid' sharding (HugeCTR hybrid embedding) needs one-hot tables (pooling 1)")
    return "; ".join(reasons)


@register("dlrm_train")
def evaluate_train(specs: list[Scenario], explain: bool = True) -> pd.DataFrame:
    """DLRM training and fine-tuning scenarios."""
    return evaluate_dlrm_scenarios(specs, explain)


@register("dlrm_inference")
def evaluate_inference(specs: list[Scenario], explain: bool = True) -> pd.DataFrame:
    """DLRM inference (forward only: no gradients, no optimizer, no backward all-to-all)."""
    return evaluate_dlrm_scenarios(specs, explain)
