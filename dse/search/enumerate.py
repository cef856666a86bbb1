"""Enumerate the discrete parts of a search space, vectorized.

:func:`software_grid` lists every parallel plan of one GPU count whose degrees divide (the
divisibility checks of :func:`dse.costmodel.training._evaluate`), so the cost model never sees
a plan that is infeasible for any reason other than memory. The grid is built one dimension at a
time (cross product with the next dimension's candidates, then a boolean filter as soon as a
check can be evaluated); no Python loop runs over configurations.

:func:`hardware_grid` is the cartesian product of the discrete hardware knobs, and
:func:`space_size` counts both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..costmodel.training import kv_heads_fit
from ..errors import single
from .space import GPU_KNOB, SearchSpace, transformer_shape

#: Columns of :func:`software_grid`, in the order the rows are sorted by.
SOFTWARE_COLUMNS = (
    "tp", "pp", "dp", "cp", "ep", "etp", "vpp", "zero", "shard_group", "sp", "recompute", "offload_layers", "microbatch",
    "global_batch", "num_gpus",
)


#: Kinds of run the training model scores (their plans are :func:`software_grid`'s): LLM and ViT
#: training, and ViT inference (one forward pass on the same plan).
TRAINING_MODEL_KINDS = ("llm_train", "vit_train", "vit_inference")

def _cross(rows: dict[str, np.ndarray], name: str, values: list[int] | np.ndarray) -> dict[str, np.ndarray]:
    """Every row combined with every value of a new column ``name`` (row-major)."""
    values = np.asarray(values, dtype=np.int64)
    n = len(next(iter(rows.values()))) if rows else 1
    out = {k: np.repeat(v, len(values)) for k, v in rows.items()}
    out[name] = np.tile(values, n)
    return out


def _keep(rows: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
    return {k: v[mask] for k, v in rows.items()}


def software_grid(space: SearchSpace, num_gpus: int, why: list[str] | None = None) -> dict[str, np.ndarray]:
    """Every valid software configuration of ``space`` on ``num_gpus`` GPUs.

    Returns the cost-model plan columns (:data:`SOFTWARE_COLUMNS`) as float64 arrays of equal
    length: tp, pp, dp, cp, ep, etp, vpp, zero, shard_group (0 = all dp*cp ranks), sp (0/1), recompute (0 none, 1 selective, 2 full, as
    :data:`dse.api.RECOMPUTE_CODE`), offload_layers (per stage; more than a stage holds are
    left out), microbatch and global_batch (sequences), num_gpus. Rows are
    unique and sorted lexicographically by those columns.

    Kept: dp = num_gpus / (tp*pp*cp) a positive integer; heads and ffn_hidden (and
    expert_ffn_hidden for MoE) divisible by tp, kv_heads divisible by tp or a multiple of it (each
    rank then holds a whole, replicated KV head); layers + 2 at least pp*vpp (stages may be uneven, as
    Megatron-core's first/last stages; the cost model paces them by the fullest); vpp > 1 only with pp > 1 and
    microbatches per pipeline (global_batch / (dp*microbatch)) divisible by pp; global_batch by
    dp*microbatch; seq_len by cp; MoE: experts divisible by ep, tp*dp*cp by etp*ep and
    expert_ffn_hidden by etp (etp 0: tp's); MoE with tp > 1 only with sequence parallelism;
    dense: ep = 1 and etp 0.
    ``sp: auto`` gives sp = (tp > 1); with a list, tp = 1 rows have sp = 0 (sequence
    parallelism needs tp > 1) and tp > 1 rows take every listed value. Memory is not checked
    (the cost model flags out-of-memory plans).

    ``why``, when given, receives the check that left no plan (if one did), in words.
    """
    from ..api import RECOMPUTE_CODE

    if space.kind not in TRAINING_MODEL_KINDS:
        raise ValueError(f"software_grid enumerates LLM and ViT training plans; this space is {space.kind} "
                         "(use plan_grid)")
    n_gpus = int(num_gpus)
    if n_gpus < 1 or n_gpus != num_gpus:
        raise single("num_gpus", "must be a positive integer", num_gpus, space.source_path)
    par = space.spec.parallel
    model = transformer_shape(space.base.model)
    heads, kv, layers, seq = model.heads, model.kv, model.layers, model.seq_len
    ffn = [model.ffn_hidden] + ([model.moe.expert_ffn_hidden] if model.moe else [])

    def uniq(values: list[int]) -> list[int]:
        return sorted(set(int(v) for v in values))

    # candidates that pass the checks involving only the model
    tps = [t for t in uniq(par.tp)
           if heads % t == 0 and kv_heads_fit(kv, t) and all(f % t == 0 for f in ffn)]
    cps = [c for c in uniq(par.cp) if seq % c == 0]
    if model.moe is None:
        eps = [e for e in uniq(par.ep) if e == 1]
    else:
        eps = [e for e in uniq(par.ep) if model.moe.experts % e == 0]
    pps = [p for p in uniq(par.pp) if n_gpus % p == 0]
    vpps = uniq(par.vpp)
    batches = space.global_batches()
    micro = uniq(par.microbatch)

    def none_left(rows: dict[str, np.ndarray], reason: Any) -> bool:
        """Whether ``rows`` is empty; then ``why`` gets ``reason()`` (the first one only)."""
        if len(rows["tp"]):
            return False
        if why is not None and not why:
            why.append(reason())
        return True

    def listed(values: Any) -> str:
        return ", ".join(str(int(v)) for v in sorted(set(np.asarray(values).tolist())))

    rows: dict[str, np.ndarray] = {"tp": np.asarray(tps, dtype=np.int64)}
    none_left(rows, lambda: f"no tp of parallel.tp ({listed(par.tp)}) divides the model's heads ({heads}) and "
                            f"ffn_hidden ({', '.join(str(f) for f in ffn)}) and divides or is a multiple of "
                            f"its kv_heads ({kv})")
    rows = _cross(rows, "pp", pps)
    none_left(rows, lambda: f"no pp of parallel.pp ({listed(par.pp)}) divides {n_gpus} GPUs")
    rows = _cross(rows, "cp", cps)
    none_left(rows, lambda: f"no cp of parallel.cp ({listed(par.cp)}) divides seq_len ({seq})")
    tpc = rows["tp"] * rows["pp"] * rows["cp"]
    rows = _keep(rows, n_gpus % tpc == 0)
    none_left(rows, lambda: f"no product tp*pp*cp divides {n_gpus} GPUs (tp {listed(tps)}; pp {listed(pps)}; "
                            f"cp {listed(cps)})")
    rows["dp"] = n_gpus // (rows["tp"] * rows["pp"] * rows["cp"])

    rows = _cross(rows, "ep", eps)
    if model.moe is None:
        none_left(rows, lambda: f"a dense model takes ep = 1 only, and parallel.ep ({listed(par.ep)}) lacks it")
    else:
        none_left(rows, lambda: f"no ep of parallel.ep ({listed(par.ep)}) divides the {model.moe.experts} experts")

    # the experts' tensor-parallel split: 0 = tp's (etp listed equal to tp is the same plan)
    etps = sorted({0 if e == "tp" else int(e) for e in par.etp})
    rows = _cross(rows, "etp", etps)
    rows["etp"] = np.where(rows["etp"] == rows["tp"], 0, rows["etp"])
    if model.moe is None:
        rows = _keep(rows, rows["etp"] == 0)
        none_left(rows, lambda: "a dense model has no experts to split: parallel.etp takes tp only")
    else:
        etp_run = np.where(rows["etp"] > 0, rows["etp"], rows["tp"])
        whole = rows["tp"] * rows["dp"] * rows["cp"]
        rows = _keep(rows, (whole % (etp_run * rows["ep"]) == 0) & (model.moe.expert_ffn_hidden % etp_run == 0))
        none_left(rows, lambda: "no etp*ep divides tp*dp*cp with etp dividing expert_ffn_hidden "
                                f"({model.moe.expert_ffn_hidden})")

    rows = _cross(rows, "vpp", vpps)
    pv = rows["pp"] * rows["vpp"]
    rows = _keep(rows, (layers + 2 >= pv) & ((rows["vpp"] == 1) | (rows["pp"] > 1)))
    none_left(rows, lambda: f"no pp*vpp fits the {layers} layers (pp*vpp <= layers + 2, vpp > 1 only with pp > 1)")

    dps = rows["dp"]
    rows = _cross(rows, "microbatch", micro)
    rows = _cross(rows, "global_batch", batches)
    per_step = rows["dp"] * rows["microbatch"]
    ok = rows["global_batch"] % per_step == 0
    divides = bool(ok.any())
    microbatches = rows["global_batch"] // per_step
    ok &= (rows["vpp"] == 1) | (microbatches % rows["pp"] == 0)
    rows = _keep(rows, ok)
    none_left(rows, lambda: (
        f"no global batch ({listed(batches)} sequences) is a multiple of dp*microbatch (dp = "
        f"{n_gpus}/(tp*pp*cp): {listed(dps)}; microbatch: {listed(micro)})" if not divides else
        "with vpp > 1, no plan has its microbatches per step (global_batch / (dp*microbatch)) a multiple of pp"))

    forward_only = space.kind == "vit_inference"
    # a forward pass keeps no gradient or optimizer state: ZeRO 1 and 2 equal 0; only FSDP (3)
    # changes anything, and nothing is recomputed or offloaded for a backward
    zeros = uniq(par.zero)
    if forward_only:
        zeros = sorted({0 if z < 3 else 3 for z in zeros})
    rows = _cross(rows, "zero", zeros)
    # hybrid sharding: a proper divisor of dp*cp with ZeRO >= 1 (a group of all ranks is 0)
    rows = _cross(rows, "shard_group", uniq(par.shard_group))
    sg, dpc = rows["shard_group"], rows["dp"] * rows["cp"]
    rows = _keep(rows, (sg == 0) | ((rows["zero"] >= 1) & (sg < dpc) & (dpc % np.maximum(sg, 1) == 0)))
    none_left(rows, lambda: f"no shard_group of parallel.shard_group ({listed(par.shard_group)}) is 0 or a proper "
                            "divisor of dp*cp with ZeRO >= 1")
    rows = _cross(rows, "recompute", [0] if forward_only else sorted(int(RECOMPUTE_CODE[r]) for r in set(par.recompute)))
    # (offloading model.layers or more is refused when the space loads)
    rows = _cross(rows, "offload_layers", [0] if forward_only else uniq(par.offload_layers))
    # a stage offloads only layers it holds: ceil(layers / pp) at most
    rows = _keep(rows, rows["offload_layers"] <= -(-layers // rows["pp"]))
    none_left(rows, lambda: f"every offload_layers ({listed(par.offload_layers)}) exceeds the layers a pipeline "
                            "stage holds")

    if par.sp == "auto":
        rows["sp"] = (rows["tp"] > 1).astype(np.int64)
    else:
        choices = sorted(set(int(v) for v in par.sp))
        rows = _cross(rows, "sp", choices)
        # tp = 1: one row, sp off (the listed values are equivalent there)
        rows = _keep(rows, (rows["tp"] > 1) | (rows["sp"] == choices[0]))
        rows["sp"] = np.where(rows["tp"] > 1, rows["sp"], 0)

    # a MoE model with tp > 1 needs the attention's tokens sequence-sharded (Megatron-core)
    if model.moe is not None:
        rows = _keep(rows, (rows["sp"] == 1) | (rows["tp"] == 1))
        none_left(rows, lambda: "a MoE model with tp > 1 needs sequence parallelism: no plan with tp > 1 has sp on")

    n = len(rows["tp"])
    rows["num_gpus"] = np.full(n, n_gpus, dtype=np.int64)
    order = np.lexsort([rows[k] for k in reversed(SOFTWARE_COLUMNS)])
    out = {k: rows[k][order].astype(np.float64) for k in SOFTWARE_COLUMNS}
    if len(etps) > 1:  # an etp listed equal to tp duplicates the tp row
        table = np.stack([out[k] for k in SOFTWARE_COLUMNS], axis=1)
        keep = np.ones(len(table), dtype=bool)
        keep[1:] = np.any(table[1:] != table[:-1], axis=1)
        out = {k: v[keep] for k, v in out.items()}
    return out


#: Columns of :func:`serving_grid` (LLM serving plans), in sort order.
SERVING_COLUMNS = ("phase", "tp", "pp", "dp", "ep", "batch", "spec_tokens", "prefill_tp", "prefill_pp", "prefill_dp",
                   "prefill_ep", "prefill_max_num_tokens", "prefill_count", "prefill_gpu", "num_gpus")
#: ``phase`` of a serving plan: the scenario's (0 engine, 1 prefill or 2 decode instance), or 3 a
#: disaggregated deployment.
PHASE_CODES = {"both": 0, "prefill": 1, "decode": 2}
DEPLOYMENT = 3
#: Columns of :func:`dlrm_grid` (DLRM plans), in sort order.
DLRM_COLUMNS = ("emb_sharding", "emb_planner", "tp", "dp", "zero", "microbatch", "global_batch", "num_gpus")


def _check_gpus(space: SearchSpace, num_gpus: int) -> int:
    n_gpus = int(num_gpus)
    if n_gpus < 1 or n_gpus != num_gpus:
        raise single("num_gpus", "must be a positive integer", num_gpus, space.source_path)
    return n_gpus


def _finish(rows: dict[str, np.ndarray], n_gpus: int, columns: tuple[str, ...]) -> dict[str, np.ndarray]:
    n = len(next(iter(rows.values())))
    rows["num_gpus"] = np.full(n, n_gpus, dtype=np.int64)
    order = np.lexsort([rows[k] for k in reversed(columns)])
    return {k: np.asarray(rows[k])[order].astype(np.float64) for k in columns}


def serving_grid(space: SearchSpace, num_gpus: int) -> dict[str, np.ndarray]:
    """Every valid LLM serving plan of ``space`` on ``num_gpus`` GPUs (kind llm_inference).

    Columns :data:`SERVING_COLUMNS` as float64 arrays: tp, pp, dp = num_gpus / (tp*pp) replicas,
    ep, batch (sequences in flight per replica; 0 = auto, the cost model picks the
    throughput-maximising batch that fits), spec_tokens (draft tokens per iteration of
    speculative decoding; the scenario's own when the space lists none) and num_gpus. Kept (the checks of
    :func:`dse.costmodel.inference.evaluate_inference`): heads and ffn_hidden divisible by tp,
    kv_heads divisible by tp or a multiple of it, layers by pp, tp*pp dividing num_gpus; MoE:
    experts and tp*dp divisible by ep, ep dividing tp or a multiple of it, expert_ffn_hidden by
    max(tp/ep, 1); dense: ep = 1. Memory is left to the cost model. With
    ``parallel.disaggregated`` also its deployments (phase 3, the prefill plan in the
    ``prefill_*`` columns), or only them when it says ``engines: false``.
    """
    n_gpus = _check_gpus(space, num_gpus)
    par = space.spec.parallel
    m = space.base.model
    tps = [t for t in sorted(set(par.tp)) if _tp_fits(m, t)]
    pps = [p for p in sorted(set(par.pp)) if m.layers >= p and n_gpus % p == 0]
    rows: dict[str, np.ndarray] = {"tp": np.asarray(tps, dtype=np.int64)}
    rows = _cross(rows, "pp", pps)
    rows = _keep(rows, n_gpus % (rows["tp"] * rows["pp"]) == 0)
    rows["dp"] = n_gpus // (rows["tp"] * rows["pp"])
    rows = _keep(rows, _ep_rows(rows, m, par.ep))
    rows = _serving_tail(space, rows)
    serve = space.base.inference
    rows["phase"] = np.full(len(rows["tp"]), PHASE_CODES[serve.phase if serve is not None else "both"], dtype=np.int64)
    for key in ("prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "prefill_max_num_tokens", "prefill_count",
                "prefill_gpu"):
        rows[key] = np.zeros(len(rows["tp"]), dtype=np.int64)
    if par.disaggregated is not None:
        deployments = _deployment_rows(space, n_gpus)
        rows = ({k: np.concatenate([rows[k], v]) for k, v in deployments.items()} if par.disaggregated.engines
                else deployments)
    return _finish(rows, n_gpus, SERVING_COLUMNS)


def _tp_fits(m: Any, t: int) -> bool:
    return m.heads % t == 0 and bool(kv_heads_fit(m.kv, t)) and m.ffn_hidden % t == 0


def _ep_rows(rows: dict[str, np.ndarray], m: Any, eps: list[int]) -> np.ndarray:
    """Cross ``rows`` (tp, dp) with the expert-parallel degrees in place; the mask of the valid ones."""
    if m.moe is None:
        rows.update(_cross(rows, "ep", [e for e in sorted(set(eps)) if e == 1]))
    else:
        rows.update(_cross(rows, "ep", [e for e in sorted(set(eps)) if m.moe.experts % e == 0]))
    n = len(rows["ep"])
    if m.moe is None:
        return np.ones(n, dtype=bool)
    tp, ep = rows["tp"], rows["ep"]
    ok = ((tp * rows["dp"]) % ep == 0) & (np.maximum(tp, ep) % np.minimum(tp, ep) == 0)
    return ok & (m.moe.expert_ffn_hidden % np.maximum(tp // ep, 1) == 0)


def _serving_tail(space: SearchSpace, rows: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Rows crossed with the batch and speculative-decoding candidates."""
    par = space.spec.parallel
    rows = _cross(rows, "batch", par.batches())
    drafts = par.speculative_tokens
    if drafts is None:
        drafts = [space.base.inference.speculative_tokens if space.base.inference is not None else 0]
    return _cross(rows, "spec_tokens", sorted(set(drafts)))


def _deployment_rows(space: SearchSpace, n_gpus: int) -> dict[str, np.ndarray]:
    """Disaggregated deployments on ``n_gpus`` GPUs: a decode instance plan (one replica of tp*pp
    GPUs, the space's degrees, batches and drafts) with a prefill instance plan of
    ``parallel.disaggregated``, both fitting together (the split is the cost model's)."""
    par, m = space.spec.parallel, space.base.model
    pre = par.disaggregated
    dec = {"tp": np.asarray([t for t in sorted(set(par.tp)) if _tp_fits(m, t)], dtype=np.int64)}
    dec = _cross(dec, "pp", [p for p in sorted(set(par.pp)) if m.layers >= p])
    dec = _cross(dec, "dp", sorted(set(pre.decode_dp)))
    dec = _keep(dec, _ep_rows(dec, m, par.ep))
    dec = _serving_tail(space, dec)
    probe = {"tp": np.asarray([t for t in sorted(set(pre.tp)) if _tp_fits(m, t)], dtype=np.int64)}
    probe = _cross(probe, "pp", [p for p in sorted(set(pre.pp)) if m.layers >= p])
    probe = _cross(probe, "dp", sorted(set(pre.dp)))
    probe = _keep(probe, _ep_rows(probe, m, pre.ep))
    pre_rows = {f"prefill_{k}": v for k, v in probe.items()}
    pre_rows = _cross(pre_rows, "prefill_max_num_tokens", sorted(set(pre.max_num_tokens or [0])))
    pre_rows = _cross(pre_rows, "prefill_count", pre.instance_counts())  # 0 = the split that serves the most
    from ..presets import prefill_gpu_code

    gpu = space.base.cluster.gpu  # 0: the prefill instances on the cluster's GPU, else another preset's code
    names = [name for name, _ in pre.gpus()] or [gpu]
    pre_rows = _cross(pre_rows, "prefill_gpu", sorted({prefill_gpu_code(g, gpu) for g in names}))
    n_dec, n_pre = len(dec["tp"]), len(pre_rows["prefill_tp"])
    rows = {k: np.repeat(v, n_pre) for k, v in dec.items()}
    rows.update({k: np.tile(v, n_dec) for k, v in pre_rows.items()})
    rows = _keep(rows, rows["tp"] * rows["pp"] * rows["dp"]
                 + np.maximum(rows["prefill_count"], 1) * rows["prefill_tp"] * rows["prefill_pp"] * rows["prefill_dp"]
                 <= n_gpus)
    rows["phase"] = np.full(len(rows["tp"]), DEPLOYMENT, dtype=np.int64)
    return rows


def dlrm_grid(space: SearchSpace, num_gpus: int) -> dict[str, np.ndarray]:
    """Every valid DLRM plan of ``space`` on ``num_gpus`` GPUs (kinds dlrm_train, dlrm_inference).

    Columns :data:`DLRM_COLUMNS` as float64 arrays: emb_sharding (code of
    :data:`dse.costmodel.dlrm.SHARDING`), emb_planner (0 cost-balanced, 1 memory-balanced; only
    the first listed planner for shardings the planner does not place), tp (dense layers; it
    divides num_gpus), dp = num_gpus / tp, zero (0 or 3), microbatch (samples per GPU) and
    global_batch = microbatch * num_gpus (with ``global_batch.samples`` only the listed ones, so
    microbatch = samples / num_gpus must be whole), num_gpus. Hierarchical shardings (table_row,
    hier_auto, node_sharded) need whole nodes: num_gpus a multiple of the GPUs per node.
    """
    from ..costmodel.dlrm import NODE_PLANS, PLANNED, SHARDING
    from ..workloads.dlrm import scenario_columns

    from .space import EMB_PLANNERS

    n_gpus = _check_gpus(space, num_gpus)
    par = space.spec.parallel
    gpn = int(scenario_columns(space.scenario(n_gpus))["gpus_per_node"])
    shardings = sorted(SHARDING[s] for s in set(par.emb_sharding)
                       if SHARDING[s] not in NODE_PLANS or n_gpus % gpn == 0)
    planners = [EMB_PLANNERS[p] for p in dict.fromkeys(par.emb_planner)]
    rows: dict[str, np.ndarray] = {"emb_sharding": np.asarray(shardings, dtype=np.int64)}
    rows = _cross(rows, "emb_planner", sorted(planners))
    rows = _keep(rows, np.isin(rows["emb_sharding"], PLANNED) | (rows["emb_planner"] == planners[0]))
    rows = _cross(rows, "tp", [t for t in sorted(set(par.tp)) if n_gpus % t == 0])
    rows["dp"] = n_gpus // rows["tp"]
    rows = _cross(rows, "zero", sorted(set(par.zero)))
    batches = space.global_batches()
    if par.microbatch is not None:
        rows = _cross(rows, "microbatch", sorted(set(par.microbatch)))
        rows["global_batch"] = rows["microbatch"] * n_gpus
        if batches:
            rows = _keep(rows, np.isin(rows["global_batch"], batches))
    else:
        micro = sorted(b // n_gpus for b in batches if b % n_gpus == 0)
        rows = _cross(rows, "microbatch", micro)
        rows["global_batch"] = rows["microbatch"] * n_gpus
    return _finish(rows, n_gpus, DLRM_COLUMNS)


#: Kinds of run whose valid plans depend on the GPU (a DLRM's node plans need whole servers):
#: their grids are built per GPU candidate of ``hardware.gpu``; the others share one.
GPU_DEPENDENT_GRIDS = ("dlrm_train", "dlrm_inference")


def grid_variants(space: SearchSpace) -> list[SearchSpace]:
    """The spaces whose plan grids may differ: one per GPU candidate for the kinds of
    :data:`GPU_DEPENDENT_GRIDS`, else the space alone."""
    return space.gpu_variants() if space.kind in GPU_DEPENDENT_GRIDS else [space]


#: Kind of run -> its grid builder (space, num_gpus) -> plan columns.
GRID_BUILDERS = {
    "llm_train": software_grid,
    "vit_train": software_grid,
    "vit_inference": software_grid,
    "llm_inference": serving_grid,
    "dlrm_train": dlrm_grid,
    "dlrm_inference": dlrm_grid,
}


def plan_grid(space: SearchSpace, num_gpus: int) -> dict[str, np.ndarray]:
    """Every valid plan of ``space`` on ``num_gpus`` GPUs, whatever its kind of run
    (:data:`GRID_BUILDERS`)."""
    return GRID_BUILDERS[space.kind](space, num_gpus)


def no_plan_reason(space: SearchSpace, num_gpus: int) -> str | None:
    """Why ``space`` has no valid plan on ``num_gpus`` GPUs, in words (None if it has one).
    Training spaces name the check that left no plan; the others refer to the checks of their
    grid builder."""
    if space.kind in TRAINING_MODEL_KINDS:
        why: list[str] = []
        if len(software_grid(space, num_gpus, why)["num_gpus"]):
            return None
        return why[0] if why else "no plan passes the checks"
    if len(plan_grid(space, num_gpus)["num_gpus"]):
        return None
    pre = getattr(space.spec.parallel, "disaggregated", None)
    if space.kind == "llm_inference" and pre is not None and not pre.engines:
        return (f"no decode instance of parallel (tp*pp*decode_dp GPUs) beside a prefill instance of "
                f"parallel.disaggregated (tp*pp*dp GPUs, times its stated instances) fits in {num_gpus} GPUs")
    if space.kind == "llm_inference":
        return (f"no tp*pp of parallel divides {num_gpus} GPUs with tp dividing the model's heads and "
                "ffn_hidden, pp at most its layers (and, for MoE, an ep of parallel.ep that fits)")
    return (f"no plan of parallel fits {num_gpus} GPUs: tp must divide them, hierarchical shardings "
            "need whole nodes, and global_batch = microbatch * GPUs must be one listed")


def unused_candidates(space: SearchSpace) -> list[str]:
    """Notes on the candidates no valid plan uses: GPU counts without a plan, and (training,
    serving) degrees of ``parallel`` that no plan at any GPU count takes (a tp that does not
    divide the heads, a pp above the layers, ...). Such values cost nothing, but a user who
    listed them should know they were not tried."""
    counts = space.gpu_counts()
    grids = {n: plan_grid(space, n) for n in counts}
    notes = []
    empty = [n for n in counts if not len(grids[n]["num_gpus"])]
    if empty and len(empty) < len(counts):
        shown = ", ".join(str(n) for n in empty[:8]) + (" ..." if len(empty) > 8 else "")
        notes.append(f"no plan fits {shown} GPUs ({no_plan_reason(space, empty[0])}): nothing is scored there")
    par = space.spec.parallel
    for name in ("tp", "pp", "cp", "ep", "vpp", "microbatch"):
        listed = getattr(par, name, None)
        if not isinstance(listed, list) or not listed:
            continue
        used = set()
        for grid in grids.values():
            if name in grid:
                used |= {int(v) for v in np.unique(grid[name])}
        unused = sorted({int(v) for v in listed} - used)
        if unused and used:
            notes.append(f"parallel.{name}: {', '.join(map(str, unused))} take part in no valid plan at these GPU "
                         "counts (the model's shape, the GPU counts or the global batch leave none with them)")
    return notes


def check_not_empty(space: SearchSpace) -> None:
    """Raise :class:`dse.errors.InputError` (field ``gpus``) when the space holds no valid
    configuration at any of its GPU counts, saying why for each count."""
    counts = space.gpu_counts()
    if any(len(plan_grid(v, n)["num_gpus"]) for v in grid_variants(space) for n in counts):
        return
    reasons = [f"on {n} GPUs, {no_plan_reason(space, n)}" for n in counts[:4]]
    if len(counts) > 4:
        reasons.append(f"and likewise on the {len(counts) - 4} other GPU counts")
    fields = "gpus or parallel" if space.kind == "llm_inference" else "gpus, parallel or global_batch"
    raise single("gpus", "the space holds no valid configuration, no plan fits any GPU count: "
                 + "; ".join(reasons) + f"; change {fields}",
                 counts, space.source_path)


def hardware_grid(space: SearchSpace) -> dict[str, np.ndarray]:
    """The cartesian product of the hardware knobs' values, knob name -> float64 array (in the
    knob's own unit, see :data:`dse.search.space.KNOBS`), all of one length; row-major in the
    order of :attr:`SearchSpace.knobs`, each knob's values ascending. No knobs: an empty dict
    (one hardware point, the scenario's own hardware).

    A knob given as ``values`` contributes them; a range with ``step`` contributes low,
    low+step, ... <= high. A continuous range (no step) raises :class:`dse.errors.InputError`
    naming the knob.
    """
    grids: list[tuple[str, np.ndarray]] = []
    for name, knob in space.knobs.items():
        values = knob.grid()
        if values is None:
            raise single(
                f"hardware.{name}",
                "continuous knob (low/high without step) has no grid: give values: [...] or a step, "
                "or search it with mode nested/optuna",
                f"low {knob.low:g}, high {knob.high:g}", space.source_path)
        grids.append((name, values))
    if not grids:
        return {}
    mesh = np.meshgrid(*[v for _, v in grids], indexing="ij")
    return {name: m.ravel().astype(np.float64) for (name, _), m in zip(grids, mesh)}


def space_size(space: SearchSpace) -> dict[str, Any]:
    """How big the discrete parts of a space are.

    Returns ``software`` (GPU count -> number of valid software configurations of a hardware
    point, for every count of :meth:`SearchSpace.gpu_counts`; with a ``gpu`` knob the most over
    its candidates, which differ only for a DLRM's node plans on servers of other sizes),
    ``software_total`` (their sum), ``hardware_points`` (points of :func:`hardware_grid`: 1 with
    no knobs, None when a knob is continuous without ``step``) and ``total`` (the configurations
    of all hardware points, software_total * hardware_points when every point has the same plans;
    when hardware_points is None, the configurations per hardware point, i.e. software_total).
    """
    # per GPU candidate (the gpu knob) only where the plans differ: a DLRM's node plans
    variants = grid_variants(space)
    per_gpu = [{n: int(len(plan_grid(v, n)["num_gpus"])) for n in space.gpu_counts()} for v in variants]
    candidates = max(len(space.gpu_choices()), 1)
    software = {n: max(sw[n] for sw in per_gpu) for n in per_gpu[0]}
    total_sw = int(sum(software.values()))
    knobs = {k: v for k, v in space.knobs.items() if k != GPU_KNOB}
    if all(k.is_gridable for k in knobs.values()):
        points = 1
        for knob in knobs.values():
            points *= int(len(knob.grid()))
    else:
        points = None
    each = points if points is not None else 1
    return {
        "software": software,
        "software_total": total_sw,
        "hardware_points": None if points is None else points * candidates,
        "total": (sum(sum(sw.values()) for sw in per_gpu) * (candidates // len(variants)) * each
                  if points is not None else total_sw),
    }
