"""LLM serving scenarios (``workload: inference`` with an LLM model): kind ``llm_inference``.

Columns: :func:`dse.api.scenario_columns` (model, hardware, parallel plan; ``dp`` replicas of a
``tp x pp`` model each) plus the serving columns of
:data:`dse.costmodel.inference.INFERENCE_COLUMNS` from the scenario's ``inference`` block, its
precision and the per-family serving calibration (``infer_*`` keys of
``dse/data/calibration.yaml``). One vectorized :func:`evaluate_inference` call scores them all.

Precision: ``fp8`` stores weights and the KV cache in FP8 (1 byte), ``fp4`` weights in NVFP4
(0.5 byte plus an FP8 scale per 16 weights: 0.5625 byte) with an FP8 KV cache, ``fp32``/``tf32`` 4 bytes, otherwise 2 bytes; the embedding and
LM head stay 16-bit. ``inference.kv_cache_dtype`` sets the KV cache apart from the weights (e.g.
bf16 weights with an FP8 cache); ``inference.weight_dtype`` the linear layers' weights apart from
the GEMM math (weight-only quantization: bf16 with mxfp4 weights is W4A16, the GEMMs at the
family's ``infer_dequant_matmul`` fraction of the bf16 peak, which widens the weights in the main
loop, reading 17/32 byte per weight; fp8 with mxfp4 weights is W4A8, native on Blackwell); ``inference.quant_scope`` which of them are quantized (all, or
the FFNs only, optionally without the first and last layers: Meta's Llama 3.1 FP8). ``inference.batch`` fixes the sequences in flight per replica;
``inference.concurrency`` bounds them (online clients of the whole deployment: concurrency / dp
per replica); ``inference.request_rate`` (requests/s
offered to the deployment) sets the mean batch that serves that load (Little's law) and the
latencies at it, or marks the plan infeasible when the load exceeds its capacity; otherwise the
throughput-maximising batch within memory is chosen (``offline_max_throughput``).

``inference.phase: disaggregated`` is a whole disaggregated deployment over ``cluster.num_gpus``:
prefill instances (``inference.prefill``: their plan and count) and decode instances (the
``parallel`` plan, dp replicas each, default 1). Both instances are scored as scenarios of phase
``prefill`` and ``decode`` in the same vectorized call, composed by
:mod:`dse.costmodel.disaggregated`, and the decode instance scored again at its share of the
deployment's load (:func:`deployment_instances`); the row holds the deployment's figures and the
plan of each kind of instance (``prefill_*``, ``decode_*`` columns).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..api import attach_metrics, scenario_columns
from ..costmodel import disaggregated as dis
from ..costmodel import inference as inf
from ..costmodel import training as tr
from ..costmodel.inputs import COLUMNS
from ..errors import InputError, single
from ..hardware import resolve_hardware
from ..presets import gpu_calibration, prefill_gpu_code
from ..specs import ClusterSpec, ParallelSpec, Scenario
from . import register

GIB = 2.0**30

#: NVFP4 stores 16 E2M1 values (8 bytes) with one E4M3 block scale (1 byte), plus one FP32 scale
#: per tensor: 9/16 byte per weight.
NVFP4_WEIGHT_BYTES = 9.0 / 16.0

#: precision -> (weight bytes, KV-cache bytes, activation bytes)
PRECISION_BYTES = {
    "fp8": (1.0, 1.0, 2.0),
    "fp4": (NVFP4_WEIGHT_BYTES, 1.0, 2.0),
    "fp32": (4.0, 4.0, 4.0),
    "tf32": (4.0, 4.0, 4.0),
    "bf16": (2.0, 2.0, 2.0),
    "fp16": (2.0, 2.0, 2.0),
}

#: inference.weight_dtype -> bytes per weight: MXFP4 = 32 E2M1 values with one E8M0 scale
#: (17/32 byte), NVFP4 as above, INT4 with one fp16 scale per group of 128 (AWQ/GPTQ: 0.515625)
WEIGHT_DTYPE_BYTES = {"fp8": 1.0, "nvfp4": NVFP4_WEIGHT_BYTES, "mxfp4": 17.0 / 32.0, "int4": 0.5 + 2.0 / 128.0}

#: inference.kv_cache_dtype -> bytes per KV-cache element
KV_CACHE_BYTES = {"fp8": 1.0, "bf16": 2.0, "fp16": 2.0, "fp32": 4.0}

#: calibration.yaml key -> (inference column, factor to SI)
CALIBRATION_KEYS = {
    "infer_matmul": ("infer_matmul", 1.0),
    "infer_attention": ("infer_attention", 1.0),
    "infer_hbm": ("infer_hbm", 1.0),
    "infer_step_us": ("step_overhead", 1e-6),
    "infer_seq_us": ("seq_overhead", 1e-6),
    "infer_collective_us": ("collective_overhead", 1e-6),
    "infer_dequant_matmul": ("dequant_matmul", 1.0),
    "infer_mixed_fp8_native": ("mixed_fp8_native", 1.0),
    "infer_mla_decode_fp8": ("mla_decode_fp8", 1.0),
    "infer_mla_decode": ("infer_mla_decode", 1.0),
}


#: inference.window_scope -> the window_scope column (what of the attention the windows cut)
WINDOW_SCOPE = {"prefill": 0.0, "compute": 1.0, "all": 2.0}


def inference_columns(scenario: Scenario) -> dict[str, float]:
    """Every cost-model column (shared and serving) of one LLM inference scenario, SI units."""
    if scenario.inference is None:
        raise single("inference", "an inference scenario needs an inference block "
                     "{input_len, output_len, batch, concurrency, mode}", None)
    if scenario.inference.phase == "disaggregated":
        raise single("inference.phase", "a disaggregated deployment is scored through its prefill and decode "
                     "instances by dse evaluate (and dse.evaluate); a what-if, a trace or a search takes one engine "
                     "or instance (phase both, prefill or decode; a serving search space with "
                     "parallel.disaggregated also scores deployments)", "disaggregated")
    row = scenario_columns(scenario)
    wb, kvb, ab = PRECISION_BYTES.get(scenario.precision, (2.0, 2.0, 2.0))
    spec = scenario.inference
    gemm_in = 0.0  # GEMM input activations quantised like the weights
    if spec.weight_dtype is not None:
        gemm_in, wb = wb, WEIGHT_DTYPE_BYTES[spec.weight_dtype]
        if wb > gemm_in:
            raise single("inference.weight_dtype",
                         f"weight_dtype {spec.weight_dtype} ({wb:g} byte per weight) is wider than the "
                         f"{scenario.precision} GEMMs ({gemm_in:g} byte): weight-only quantization stores "
                         f"weights narrower than the math; allowed here: "
                         f"{sorted(k for k, v in WEIGHT_DTYPE_BYTES.items() if v <= gemm_in)}", spec.weight_dtype)
    row.update(weight_bytes=wb, act_bytes=ab)
    serving = {k: default for k, (default, _) in inf.INFERENCE_COLUMNS.items() if default is not None}
    serving.update({
        "input_len": float(spec.input_len),
        "output_len": float(spec.output_len),
        "output_len_cv": float(spec.output_len_cv),
        "context_len": float(scenario.model.context_len or 0),
        "batch": float(spec.batch or 0),
        "max_batch": float(spec.max_batch or inf.INFERENCE_COLUMNS["max_batch"][0]),
        "concurrency": float(spec.concurrency or 0),
        "request_rate": float(spec.request_rate or 0),
        "num_requests": float(spec.num_requests or 0),
        "kv_bytes": KV_CACHE_BYTES[spec.kv_cache_dtype] if spec.kv_cache_dtype else kvb,
        "head_bytes": max(ab, 2.0),
        "window_scope": WINDOW_SCOPE[spec.window_scope],
        "phase": {"both": 0.0, "prefill": 1.0, "decode": 2.0}[spec.phase],
        "gemm_in_bytes": gemm_in,
        "adp_balance": float(spec.attention_dp_balance),
        "ep_imbalance": float(spec.moe_load_imbalance or 0.0),
        "tbo": float(spec.two_batch_overlap),
        "sbo": float(spec.single_batch_overlap),
        "mem_utilization": float(spec.gpu_memory_utilization or spec.mem_fraction_static or 0.0),
        "mem_static": float(spec.mem_fraction_static is not None),
        "kv_reserve_output": 1.0 if spec.kv_allocation == "upfront" else 0.5,
        "attn_16bit": float(spec.quant_scope != "all"),
        "end_layers_16bit": float(spec.quant_scope == "ffn_except_end_layers"),
        "spec_tokens": float(spec.speculative_tokens),
        "spec_acceptance": float(spec.draft_acceptance or 0.0),
        "draft_layers": float(spec.draft_layers),
    })
    calib = gpu_calibration(scenario.cluster.gpu)  # the family's, and what this GPU measures apart from it
    for key, (column, factor) in CALIBRATION_KEYS.items():
        if calib.get(key) is not None:
            serving[column] = float(calib[key]) * factor
    if spec.max_num_tokens is not None:  # a fixed token budget per iteration
        serving["max_num_tokens"] = serving["min_num_tokens"] = float(spec.max_num_tokens)
    row["seq_len"] = serving["input_len"] + serving["output_len"]
    # the serving engine's expert dispatch (the inference block's, not the training block's)
    row["moe_dedup"] = float(spec.moe_dispatcher == "deepep")
    row["dispatch_bytes"] = {None: 0.0, "fp8": 1.0, "nvfp4": NVFP4_WEIGHT_BYTES}[spec.moe_dispatch_dtype]
    row.update(serving)
    return {k: float(v) for k, v in row.items()}


#: Serving ``phase`` code of a disaggregated deployment's row (0-2 are the cost model's).
PHASE_DISAGGREGATED = 3.0

#: Columns of a disaggregated deployment's row that describe one instance (left empty there).
INSTANCE_ONLY = dis.INSTANCE_ONLY

#: Columns only a disaggregated deployment's row fills (an engine's are empty).
DEPLOYMENT_ONLY = ("prefill_instances", "decode_instances", "idle_gpus", "kv_transfer_s", "prefill_prompt_s",
                   "prefill_wait_s", "max_requests_per_s", "prefill_busy", "prefill_requests_per_s",
                   "decode_requests_per_s", "bound_by", "decode_batch", "link_bytes_per_s",
                   "prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "prefill_num_gpus", "prefill_max_num_tokens",
                   "decode_tp", "decode_pp", "decode_dp", "decode_ep", "decode_num_gpus")


def prefill_cluster(cluster: ClusterSpec, gpu: str | None, num_gpus: int, price: float | None = None) -> ClusterSpec:
    """The cluster of a deployment's prefill instances on ``num_gpus`` GPUs: the deployment's
    cluster, or another GPU preset as it is (``gpu``; the cluster's overrides describe the decode
    GPUs), at ``price`` USD per GPU-hour when given."""
    out = (cluster.model_copy(update={"num_gpus": num_gpus}) if gpu is None else
           ClusterSpec(gpu=gpu, num_gpus=num_gpus, rail_optimized=cluster.rail_optimized))
    return out if price is None else out.model_copy(update={"price_per_gpu_hour": price})


def heterogeneous(scenario: Scenario) -> bool:
    """Whether a disaggregated deployment runs its prefill instances on another GPU than its
    decode instances (``inference.prefill.gpu``)."""
    pre = scenario.inference.prefill if scenario.inference is not None else None
    return pre is not None and pre.gpu is not None and pre.gpu != scenario.cluster.gpu


def instance_scenarios(scenario: Scenario) -> tuple[Scenario, Scenario]:
    """The prefill and the decode instance of a disaggregated deployment (``inference.phase:
    disaggregated``) as scenarios of phase ``prefill`` and ``decode``, at full load. Prefill
    instances on another GPU (``inference.prefill.gpu``) take that preset as it is: the cluster
    block's overrides describe the decode GPUs."""
    serve, pre, par = scenario.inference, scenario.inference.prefill, scenario.parallel
    serve = serve.model_copy(update={"request_rate": None, "concurrency": None})  # the deployment's load
    dp = par.dp or 1
    n_prefill = pre.tp * pre.pp * pre.dp
    cluster = prefill_cluster(scenario.cluster, pre.gpu if heterogeneous(scenario) else None, n_prefill,
                              pre.price_per_gpu_hour)
    prefill = scenario.model_copy(update={
        "name": f"{scenario.name or 'deployment'}: prefill instance",
        "cluster": cluster,
        "parallel": ParallelSpec(tp=pre.tp, pp=pre.pp, dp=pre.dp, ep=pre.ep),
        "inference": serve.model_copy(update={
            "phase": "prefill", "prefill": None, "batch": None, "speculative_tokens": 0, "draft_acceptance": None,
            "max_num_tokens": pre.max_num_tokens or serve.max_num_tokens}),
    })
    decode = scenario.model_copy(update={
        "name": f"{scenario.name or 'deployment'}: decode instance",
        "cluster": scenario.cluster.model_copy(update={"num_gpus": par.tp * par.pp * par.cp * dp}),
        "parallel": par.model_copy(update={"dp": dp}),
        "inference": serve.model_copy(update={"phase": "decode", "prefill": None}),
    })
    return prefill, decode


def deployment_instances(scenario: Scenario, row: Mapping[str, Any]) -> tuple[Scenario, Scenario]:
    """The two instances of an evaluated disaggregated deployment (``row``, from :func:`evaluate`)
    at its operating point: the prefill instance loaded, the decode instance at its share of the
    deployment's requests/s."""
    prefill, decode = instance_scenarios(scenario)
    n_d, rate = float(row["decode_instances"]), float(row["requests_per_s"])
    if dis.decode_slack(n_d, rate, float(row["decode_requests_per_s"])):
        decode = decode.model_copy(update={"inference": decode.inference.model_copy(
            update={"batch": None, "request_rate": rate / n_d})})
    return prefill, decode


def _deployments(scenarios: list[Scenario], explain: bool) -> pd.DataFrame:
    """Disaggregated deployments through :func:`dse.costmodel.disaggregated.evaluate_deployments`:
    one row each, the deployment's figures and each kind of instance's plan."""
    pairs = [instance_scenarios(s) for s in scenarios]
    names = list(COLUMNS) + [k for k in inf.INFERENCE_COLUMNS if k not in COLUMNS]
    columns = []
    for s, pair in zip(scenarios, pairs):
        try:
            resolve_hardware(s.cluster, s.precision)
            columns.append([inference_columns(x) for x in pair])
        except InputError as err:
            raise err.with_source(f"scenario ({s.name})" if s.name else "scenario") from None
    pre_in = pd.DataFrame([c[0] for c in columns], columns=names)
    dec_in = pd.DataFrame([c[1] for c in columns], columns=names)
    N = np.array([float(s.cluster.num_gpus) for s in scenarios])
    fixed = np.array([float(s.inference.prefill.instances or 0) for s in scenarios])
    rate = np.array([float(s.inference.request_rate or 0.0) for s in scenarios])
    clients = np.array([float(s.inference.concurrency or 0.0) for s in scenarios])
    same = np.array([0.0 if heterogeneous(s) else 1.0 for s in scenarios])
    rows, pre_out, at_out = dis.evaluate_deployments(
        {k: pre_in[k].to_numpy(np.float64) for k in names}, {k: dec_in[k].to_numpy(np.float64) for k in names},
        N, fixed, rate, clients, same)
    pre = attach_metrics(pre_in, pre_out, explain, explainer=describe)
    at = attach_metrics(dec_in, at_out, explain, explainer=describe)
    columns = {**rows, "num_gpus": N, "request_rate": rate, "concurrency": clients,
               "phase": np.full(len(scenarios), PHASE_DISAGGREGATED)}
    for key in ("tp", "pp", "dp", "ep", "num_gpus"):
        columns[f"prefill_{key}"] = pre[key].to_numpy()
        columns[f"decode_{key}"] = at[key].to_numpy()
    columns["prefill_max_num_tokens"] = pre["max_num_tokens"].to_numpy()
    columns["feasible"] = rows["feasible"] > 0
    columns["infeasible_mask"] = rows["infeasible_mask"].astype(np.int64)
    # the decode instance's inputs, then the deployment's columns in place of its own (one concat:
    # no frame built column by column)
    frame = pd.concat([dec_in.drop(columns=[k for k in columns if k in dec_in.columns]),
                       pd.DataFrame(columns, index=dec_in.index)], axis=1).copy()  # copy: consolidated
    reasons = []
    for i in range(len(scenarios)):
        why = []
        if explain and not frame["feasible"].iat[i]:
            for label, side in (("prefill instance", pre), ("decode instance", at)):
                if side["infeasible_reason"].iat[i]:
                    why.append(f"{label}: {side['infeasible_reason'].iat[i]}")
            if int(frame["infeasible_mask"].iat[i]) & dis.NO_SPLIT:
                why.append(f"no split of {int(N[i])} GPUs holds a prefill instance of {int(pre['num_gpus'].iat[i])} GPUs"
                           + (f" x {int(fixed[i])}" if fixed[i] else "")
                           + f" and a decode instance of {int(at['num_gpus'].iat[i])}")
            if int(frame["infeasible_mask"].iat[i]) & inf.RATE_EXCEEDS:
                f = lambda k: float(frame[k].iat[i])  # noqa: E731
                why.append(f"offered request_rate {rate[i]:.4g} req/s exceeds what the deployment serves: "
                           f"{f('max_requests_per_s'):.4g} req/s = min({_i(f('prefill_instances'))} prefill "
                           f"instances x {f('prefill_requests_per_s'):.4g}, {_i(f('decode_instances'))} decode "
                           f"instances x {f('decode_requests_per_s'):.4g})")
        reasons.append("; ".join(why))
    frame["infeasible_reason"] = reasons
    return frame.assign(name=[s.name for s in scenarios], gpu=[s.cluster.gpu for s in scenarios],
                        prefill_gpu=[float(prefill_gpu_code(pair[0].cluster.gpu, s.cluster.gpu))
                                     for s, pair in zip(scenarios, pairs)],
                        model=[s.model.name for s in scenarios], precision=[s.precision for s in scenarios])


def _engines(scenarios: list[Scenario], explain: bool) -> pd.DataFrame:
    """Engines and instances (phases both, prefill, decode) in one vectorized call."""
    rows = []
    for i, s in enumerate(scenarios):
        try:
            resolve_hardware(s.cluster, s.precision)  # precision check with the standard message
            rows.append(inference_columns(s))
        except InputError as err:
            raise err.with_source(f"scenario {i}" + (f" ({s.name})" if s.name else "")) from None
    names = list(COLUMNS) + [k for k in inf.INFERENCE_COLUMNS if k not in COLUMNS]
    frame = pd.DataFrame(rows, columns=names)
    return evaluate_frame(frame, explain=explain).assign(
        name=[s.name for s in scenarios], gpu=[s.cluster.gpu for s in scenarios],
        model=[s.model.name for s in scenarios], precision=[s.precision for s in scenarios],
    )


@register("llm_inference")
def evaluate(scenarios: list[Scenario], explain: bool = True) -> pd.DataFrame:
    """LLM serving scenarios in one vectorized call: one row each, input columns and metrics,
    ``feasible`` (bool) and ``infeasible_reason``; disaggregated deployments (phase
    disaggregated) through their instances, see the module docstring."""
    split = [s.inference is not None and s.inference.phase == "disaggregated" for s in scenarios]
    if not any(split):
        return _engines(scenarios, explain)
    if all(split):
        return _deployments(scenarios, explain)
    engines = _engines([s for s, d in zip(scenarios, split) if not d], explain)
    deployments = _deployments([s for s, d in zip(scenarios, split) if d], explain)
    order = np.argsort(np.concatenate([np.flatnonzero(~np.array(split)), np.flatnonzero(split)]), kind="stable")
    # copy: the concat of two frames of different columns is one block a column until consolidated
    return pd.concat([engines, deployments], ignore_index=True).iloc[order].reset_index(drop=True).copy()


def evaluate_frame(frame: pd.DataFrame, explain: bool = True) -> pd.DataFrame:
    """Score a DataFrame of inference cost-model columns; returns it with the metrics appended."""
    known = set(COLUMNS) | set(inf.INFERENCE_COLUMNS)
    batch = {k: frame[k].to_numpy(dtype=np.float64) for k in frame.columns if k in known}
    metrics = inf.evaluate_inference(batch) if len(frame) else {}
    return attach_metrics(frame, metrics, explain, explainer=describe)


def _i(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


#: A few words per ``infeasible_mask`` bit of a serving plan (see :func:`describe` for one plan's
#: arithmetic).
LABELS = {
    tr.DEGREES_PRODUCT: "tp*pp*dp*cp is not the GPU count",
    tr.HEADS_TP: "heads not divisible by tp",
    inf.KV_HEADS_TP: "KV heads neither divide nor are a multiple of tp",
    tr.FFN_TP: "FFN width not divisible by tp",
    tr.LAYERS_PP: "fewer layers than pipeline stages",
    tr.EXPERTS_EP: "ep does not divide the experts or the ranks",
    tr.EP_DENSE: "ep > 1 on a model without experts",
    inf.CONTEXT_PARALLEL: "context parallelism (not modelled for serving)",
    inf.CONTEXT_EXCEEDED: "prompt + output beyond the model's context window",
    inf.BATCH_ABOVE_MAX: "batch above the engine's max_batch",
    dis.NO_SPLIT: "no split of the GPUs holds a prefill and a decode instance",
    tr.OUT_OF_MEMORY: "out of memory (the batch's KV cache)",
    inf.RATE_EXCEEDS: "offered request rate above what the plan serves",
}


def describe(mask: int, row: Mapping[str, Any]) -> str:
    """The reasons a serving configuration is infeasible, with the arithmetic ('' when none)."""
    r = {k: float(v) for k, v in row.items() if isinstance(v, (int, float, np.floating, np.integer))}
    g = lambda k, default=0.0: r.get(k, default)  # noqa: E731
    tp, pp, dp, cp, ep = g("tp", 1), g("pp", 1), g("dp", 1), g("cp", 1), g("ep", 1)
    reasons = []
    if mask & tr.DEGREES_PRODUCT:
        reasons.append(f"tp*pp*dp*cp = {_i(tp)}*{_i(pp)}*{_i(dp)}*{_i(cp)} = {_i(tp * pp * dp * cp)} "
                       f"!= num_gpus {_i(g('num_gpus'))}")
    if mask & tr.HEADS_TP:
        reasons.append(f"heads {_i(g('heads'))} must be divisible by tp {_i(tp)}")
    if mask & inf.KV_HEADS_TP:
        reasons.append(f"kv_heads {_i(g('kv_heads'))} must divide or be a multiple of tp {_i(tp)}")
    if mask & tr.FFN_TP:
        f, fe, etp = g("ffn_hidden"), g("expert_ffn_hidden"), max(tp / ep, 1.0)
        if f % tp:
            reasons.append(f"ffn_hidden {_i(f)} must be divisible by tp {_i(tp)}")
        if g("experts") > 0 and fe % etp:
            reasons.append(f"expert_ffn_hidden {_i(fe)} must be divisible by tp/ep = {_i(tp)}/{_i(ep)} = {etp:g} "
                           "(the ways each expert is split)")
    if mask & tr.LAYERS_PP:
        reasons.append(f"layers {_i(g('layers'))} fewer than pp {_i(pp)} (every stage needs a layer)")
    if mask & tr.EXPERTS_EP:
        reasons.append(f"ep {_i(ep)} must divide experts {_i(g('experts'))} and tp*dp = {_i(tp * dp)}, "
                       f"and divide or be a multiple of tp {_i(tp)}")
    if mask & tr.EP_DENSE:
        reasons.append(f"ep {_i(ep)} > 1 but the model has no experts")
    if mask & inf.CONTEXT_PARALLEL:
        reasons.append(f"cp {_i(cp)} > 1: context parallelism is not modelled for serving")
    if mask & inf.CONTEXT_EXCEEDED:
        reasons.append(f"input_len {_i(g('input_len'))} + output_len {_i(g('output_len'))} = "
                       f"{_i(g('input_len') + g('output_len'))} tokens exceed the model's context window of "
                       f"{_i(g('context_len'))} (model.context_len: the positions it was trained on; "
                       "a serving engine refuses longer sequences)")
    if mask & inf.BATCH_ABOVE_MAX:
        reasons.append(f"batch {_i(g('batch'))} exceeds the engine's max_batch {_i(g('max_batch'))} "
                       "(inference.max_batch: the most sequences a replica runs at once)")
    if mask & inf.RATE_EXCEEDS:
        reasons.append(f"offered request_rate {g('request_rate'):.4g} req/s exceeds what the plan serves at "
                       f"its best batch ({_i(g('batch'))} per replica, {_i(dp)} replicas): "
                       f"{g('requests_per_s'):.4g} req/s")
    if mask & tr.OUT_OF_MEMORY:
        weights, work = g("memory_weights_bytes"), g("memory_activations_bytes")
        reserve, hbm = g("memory_reserved"), g("hbm_bytes")
        util = g("mem_utilization", 0.0)
        static = util > 0 and g("mem_static", 0.0) > 0
        left = hbm - weights - (0.0 if static else work) - reserve
        if util > 0:  # vLLM: a fraction of the whole memory (less the profiled workspace)
            room = max(left - (1.0 - util) * hbm, 0.0)
            rule = (f"{util:g} of the {hbm / GIB:.1f} GiB HBM "
                    f"({'mem_fraction_static' if static else 'gpu_memory_utilization'}) - weights")
        else:
            room = g("kv_mem_fraction", 0.9) * max(left, 0.0)
            rule = f"{hbm / GIB:.1f} GiB HBM - weights"
        per_seq = g("kv_cache_bytes") / max(g("batch"), 1.0)
        held = g("kv_reserve_output", 1.0)
        cv = g("output_len_cv", 0.0)
        out_held = g("output_len") * (1.0 + cv * cv)  # the in-flight requests' mean output (length-biased)
        why = [] if held >= 1.0 else ["blocks allocated on demand"]
        if cv > 0:
            why.append(f"output lengths of spread {cv:g} (std/mean): the requests in flight average "
                       f"{_i(g('output_len'))} x (1 + {cv:g}^2) = {_i(out_held)} output tokens")
        holding = "" if not why else (
            f" (holding {_i(g('input_len'))} + {held:g} x {_i(out_held)} tokens on average: " + "; ".join(why) + ")")
        outside = (1.0 - util) * hbm
        if static and work > outside:  # SGLang: the workspace lives outside the static pool
            reasons.append(
                f"out of memory: the workspace (activations of {_i(g('batch'))} sequences and the token budget) "
                f"needs {work / GIB:.2f} GiB but mem_fraction_static {util:g} leaves {outside / GIB:.2f} GiB of the "
                f"{hbm / GIB:.1f} GiB outside the weights and KV pool; lower it or the token budget (max_num_tokens)")
        if static and g("kv_cache_bytes") <= room * (1.0 + 1e-9) + 0.5:
            return "; ".join(reasons)
        reasons.append(
            f"out of memory: {_i(g('batch'))} sequences of {_i(g('input_len'))}+{_i(g('output_len'))} "
            f"tokens{holding} need {g('kv_cache_bytes') / GIB:.2f} GiB of KV cache per GPU "
            f"({per_seq / 2**20:.1f} MiB each) but {rule} {weights / GIB:.1f} "
            + ("" if static else f"- workspace {work / GIB:.1f} ")
            + f"- reserve {reserve / GIB:.1f} GiB leave "
            f"{room / GIB:.2f} GiB for it"
            + ("" if util > 0 else f" (x kv_mem_fraction {g('kv_mem_fraction', 0.9):g})")
            + f"; largest batch that fits: {_i(g('batch_max'))}"
        )
    return "; ".join(reasons)
