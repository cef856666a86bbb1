"""Python API: evaluate scenarios into a DataFrame (the CLI is a thin layer over this).

>>> import dse
>>> df = dse.evaluate("scenarios/llama2_70b_h100.yaml")
>>> df[["tokens_per_s_per_gpu", "mfu", "feasible"]]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .costmodel import COLUMNS, describe, evaluate_training
from .errors import InputError, single
from .hardware import resolve_hardware
from .presets import gpu_calibration
from .scenario import load_scenario
from .specs import Scenario

RECOMPUTE_CODE = {"none": 0.0, "selective": 1.0, "full": 2.0}


def full_recompute_fraction(num_layers: int | None, layers: int, chunks: int) -> float:
    """The share of layers a full recompute of ``num_layers`` per model chunk re-runs, of
    ``layers`` over ``chunks`` chunks (pp x vpp): every layer when None, at most 1."""
    if num_layers is None:
        return 1.0
    return min(1.0, num_layers / max(layers / max(chunks, 1), 1.0))


def scenario_columns(scenario: Scenario) -> dict[str, float]:
    """The cost-model columns (SI units) of one scenario."""
    m, cl, p, tr = scenario.model, scenario.cluster, scenario.parallel, scenario.training
    hw = resolve_hardware(cl, scenario.precision)
    moe = m.moe
    dp = p.dp if p.dp is not None else max(cl.num_gpus // (p.tp * p.pp * p.cp), 1)
    microbatch = p.microbatch or 1
    row: dict[str, float] = {k: default for k, (default, _) in COLUMNS.items() if default is not None}
    host = gpu_calibration(cl.gpu) if (moe is not None and not tr.moe_cuda_graphs) else {}
    row.update({
        "layers": m.layers,
        "hidden": m.hidden,
        "heads": m.heads,
        "kv_heads": m.kv,
        "head_dim": m.dhead,
        "ffn_hidden": m.ffn_hidden,
        "ffn_mats": 3.0 if m.ffn_act == "swiglu" else 2.0,
        "vocab": m.vocab,
        "seq_len": m.seq_len,
        "experts": moe.experts if moe else 0.0,
        "top_k": moe.top_k if moe else 0.0,
        "expert_ffn_hidden": moe.expert_ffn_hidden if moe else 0.0,
        "shared_experts": moe.shared_experts if moe else 0.0,
        "moe_layers": (m.layers - moe.dense_layers) if moe else 0.0,
        "expert_groups": float(moe.expert_groups or 0) if moe else 0.0,
        "top_groups": float(moe.top_groups or 0) if moe else 0.0,
        "router_skew": float(moe.router_skew) if moe else 0.0,
        "tied_embeddings": float(m.tied_embeddings),
        "dropout": float(m.dropout),
        "causal": 1.0,
        "mla_kv_rank": float(m.mla.kv_lora_rank) if m.mla else 0.0,
        "mla_q_rank": float(m.mla.q_lora_rank) if m.mla else 0.0,
        "mla_rope_dim": float(m.mla.qk_rope_head_dim) if m.mla else 0.0,
        "mla_v_dim": float(m.mla.v_head_dim) if m.mla else 0.0,
        "attn_window": float(m.attention_window or 0),
        "window_fraction": m.windowed_layers / m.layers,
        "attn_chunked": float(m.attention_window_kind == "chunked"),
        "input_proj_dim": 0.0,
        "head_fraction": 1.0,
        **{k: v for k, v in hw.columns().items() if k in COLUMNS},  # the LLM model has no L2 term
        "num_gpus": cl.num_gpus,
        "tp": p.tp,
        "pp": p.pp,
        "dp": dp,
        "cp": p.cp,
        "ep": p.ep,
        "etp": float(p.etp or 0),
        "sp": float(p.sp if p.sp is not None else p.tp > 1),
        "vpp": p.vpp,
        "zero": p.zero,
        "shard_group": float(p.shard_group or 0),
        "recompute": RECOMPUTE_CODE[p.recompute],
        "rc_full_fraction": full_recompute_fraction(tr.recompute_num_layers, m.layers, p.pp * p.vpp),
        "offload_layers": float(tr.offload_activation_layers),
        "microbatch": microbatch,
        "global_batch": p.global_batch or dp * microbatch,
        "act_bytes": 2.0,
        "weight_bytes": 2.0,
        "fp8": float(scenario.precision in ("fp8", "fp4")),
        "grad_bytes": 4.0 if tr.fp32_grad_accumulation else 2.0,
        "grad_reduce_bytes": float(tr.grad_reduce_bytes),
        "optimizer_bytes": 12.0 if tr.optimizer_moments == "fp32" else 8.0,
        "fp8_up_cache": float(tr.fp8_activation_cache),
        "fp8_params": float(tr.fp8_params),
        "flash_attention": float(tr.flash_attention),
        "ce_fp32": float(tr.cross_entropy == "fp32"),
        "fsdp_accumulate": float(tr.fsdp_unsharded_accumulation),
        "moe_dedup": float(tr.moe_dispatcher == "deepep"),
        "rc_core_attn": float("core_attn" in tr.recompute_modules),
        "rc_norm": float("layernorm" in tr.recompute_modules),
        "rc_mla_up": float("mla_up_proj" in tr.recompute_modules),
        "rc_moe_act": float("moe_act" in tr.recompute_modules),
        "rc_mlp": float("mlp" in tr.recompute_modules),
        "rc_moe": float("moe" in tr.recompute_modules),
        "ep_cross_overlap": float(tr.ep_overlap_across_microbatches),
        "moe_imbalance": float(tr.moe_load_imbalance),
        "dispatch_bytes": 1.0 if tr.moe_dispatch_dtype == "fp8" else 0.0,
        "moe_host_layer": float(host.get("moe_host_layer_us") or 0.0) * 1e-6,
        "moe_host_expert": float(host.get("moe_host_expert_us") or 0.0) * 1e-6,
        "overlap_dp": float(tr.overlap.dp),
        "overlap_fsdp": float(tr.overlap.fsdp_prefetch),
        "overlap_tp": float(tr.overlap.tp),
        "overlap_ep": float(tr.overlap.ep),
        "overlap_cp": float(tr.overlap.cp),
        "overlap_pp": float(tr.overlap.pp),
    })
    ft = scenario.finetune
    if ft is not None:
        row.update(frozen_layers=ft.frozen_layers, freeze_embeddings=float(ft.freeze_embeddings))
        if ft.lora is not None:
            row.update(lora_rank=ft.lora.rank, lora_qkv=float("qkv" in ft.lora.targets),
                       lora_out=float("out" in ft.lora.targets), lora_ffn=float("ffn" in ft.lora.targets))
    return {k: float(v) for k, v in row.items()}


def _as_scenarios(scenarios: Any) -> list[Scenario]:
    if isinstance(scenarios, (Scenario, str, Path, Mapping)):
        scenarios = [scenarios]
    out = []
    for i, item in enumerate(scenarios):
        if isinstance(item, Scenario):
            out.append(item)
        elif isinstance(item, Mapping):  # a dict has no file name: say which scenario of the list it is
            try:
                out.append(load_scenario(dict(item)))
            except InputError as err:
                name = item.get("name")
                raise (err if err.source is not None else
                       err.with_source(f"scenario {i}" + (f" ({name})" if name else ""))) from None
        else:
            out.append(load_scenario(item))
    return out


def evaluate(scenarios: Scenario | str | Path | Mapping | Iterable, explain: bool = True) -> pd.DataFrame:
    """Evaluate one or more scenarios (specs, dicts or file paths), one vectorized call per
    kind of run (LLM training, LLM inference, DLRM, ViT, ...).

    Returns one row per scenario, in order: the input columns (SI units), every metric of the
    kind's cost model, ``feasible`` (bool), ``infeasible_reason`` and ``kind``. A kind that is
    not modelled is an :class:`dse.errors.InputError` naming the scenario.
    """
    from .workloads import evaluator

    specs = _as_scenarios(scenarios)
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(specs):
        groups.setdefault(s.kind, []).append(i)
    parts = []
    for kind, index in groups.items():
        fn = evaluator(kind)
        if fn is None:
            first = specs[index[0]]
            label = f"scenario {index[0]}" + (f" ({first.name})" if first.name else "")
            raise single("workload", f"'{kind}' is not modelled yet", first.workload, source=label)
        frame = fn([specs[i] for i in index], explain=explain)
        parts.append(frame.assign(kind=kind, _order=index))
    if not parts:
        return evaluate_frame(pd.DataFrame(columns=list(COLUMNS)), explain=explain).assign(kind=[])
    out = pd.concat(parts, ignore_index=True).sort_values("_order", kind="stable")
    return unpriced_as_missing(out.drop(columns="_order").reset_index(drop=True))


#: Metrics that are a price times a time: unknown (NaN) for a GPU without a price.
COST_METRICS = ("cost_per_mtok_usd", "cost_per_msample_usd")


def unpriced_as_missing(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its cost metrics NaN where the GPU has no price (``price_per_gpu_hour``
    0: the cost model computes 0, which a table sorted by cost would read as free)."""
    if "price_per_gpu_hour" not in frame:
        return frame
    unpriced = ~(pd.to_numeric(frame["price_per_gpu_hour"], errors="coerce") > 0)
    for name in COST_METRICS:
        if name in frame and unpriced.any():
            frame[name] = frame[name].astype(np.float64).where(~unpriced)
    return frame


def evaluate_llm_training(specs: list[Scenario], explain: bool = True) -> pd.DataFrame:
    """LLM training (and full fine-tuning) scenarios, in one vectorized call."""
    rows = []
    for i, s in enumerate(specs):
        try:
            rows.append(scenario_columns(s))
        except InputError as err:
            raise err.with_source(f"scenario {i}" + (f" ({s.name})" if s.name else "")) from None
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    return evaluate_frame(frame, explain=explain).assign(
        name=[s.name for s in specs], gpu=[s.cluster.gpu for s in specs],
        model=[s.model.name for s in specs], precision=[s.precision for s in specs],
    )


def evaluate_frame(frame: pd.DataFrame, explain: bool = True) -> pd.DataFrame:
    """Score a DataFrame of cost-model columns; returns it with the metrics appended.

    With ``explain``, infeasible rows get a sentence with the arithmetic in
    ``infeasible_reason`` (a Python loop over infeasible rows only).
    """
    batch = {k: frame[k].to_numpy(dtype=np.float64) for k in COLUMNS if k in frame}
    return unpriced_as_missing(attach_metrics(frame, evaluate_training(batch), explain))


def attach_metrics(frame: pd.DataFrame, metrics: Mapping[str, np.ndarray], explain: bool = True,
                   explainer=describe) -> pd.DataFrame:
    """``frame`` with the cost model's ``metrics`` appended: ``feasible`` as bool,
    ``infeasible_mask`` as int and ``infeasible_reason`` (``explainer(mask, row)`` for the
    infeasible rows only when ``explain``; '' otherwise)."""
    added = pd.DataFrame({k: v for k, v in metrics.items()}, index=frame.index)
    # one concat (a column added one by one fragments the frame), the metrics in place of inputs
    out = pd.concat([frame.drop(columns=[k for k in added.columns if k in frame.columns]), added], axis=1).copy()
    if not len(frame):
        out["feasible"] = pd.Series(dtype=bool)
        out["infeasible_mask"] = pd.Series(dtype=np.int64)
        out["infeasible_reason"] = pd.Series(dtype=object)
        return out
    out["feasible"] = out["feasible"] > 0
    out["infeasible_mask"] = out["infeasible_mask"].astype(np.int64)
    reasons = np.full(len(out), "", dtype=object)
    if explain:
        for i in np.flatnonzero(~out["feasible"].to_numpy()):
            reasons[i] = explainer(int(out["infeasible_mask"].iat[i]), out.iloc[i].to_dict())
    out["infeasible_reason"] = reasons
    return out
