"""What would make an out-of-memory training plan fit: the plan's memory knobs, one change at a time.

An LLM or ViT training scenario that needs more HBM than its GPUs have is scored again with each
change that trades time for memory without touching the model, the cluster or the global batch:
more recomputation (``parallel.recompute`` selective, full), a higher ZeRO stage
(``parallel.zero``), a smaller microbatch (halved, down to one sequence or image: more
accumulation steps for the same global batch), and all three at once (the most frugal plan
of this kind). The global batch stays what it was (a plan that leaves it out runs one microbatch
per step; its variants keep that many samples per step). Every variant is evaluated in one
vectorized call; those that fit are returned, fastest first, with their memory per GPU and
throughput, so a user sees what the fix costs.

Plans that are infeasible for another reason as well (degrees that do not divide, ...) get no
remedy: fixing memory would not make them run.
"""

from __future__ import annotations

from dataclasses import dataclass

from .costmodel.training import OUT_OF_MEMORY
from .specs import ModelSpec, Scenario, ViTSpec

RECOMPUTE_ORDER = ("none", "selective", "full")


@dataclass(frozen=True)
class Remedy:
    """One change to the parallel plan and what the plan does with it."""

    change: str  #: what was changed, e.g. "recompute selective"
    memory_per_gpu_bytes: float  #: peak memory per GPU with the change, bytes
    tokens_per_s_per_gpu: float | None  #: throughput with the change (LLM), tokens/s per GPU
    samples_per_s: float  #: throughput with the change, samples (sequences or images)/s
    slowdown: float  #: the fastest fitting variant's throughput over this one's (1 = fastest)


def _variants(scenario: Scenario, global_batch: int | None) -> list[tuple[str, Scenario]]:
    plan = scenario.parallel
    keep = {"global_batch": global_batch} if plan.global_batch is None and global_batch else {}
    out: list[tuple[str, dict]] = []
    current = RECOMPUTE_ORDER.index(plan.recompute)
    for level in RECOMPUTE_ORDER[current + 1:]:
        out.append((f"recompute {level}", {"recompute": level}))
    for stage in range(plan.zero + 1, 4):
        out.append((f"zero {stage}", {"zero": stage}))
    micro = plan.microbatch or 1
    smaller = micro // 2
    while smaller >= 1:
        out.append((f"microbatch {smaller}", {"microbatch": smaller, **keep}))
        smaller //= 2
    frugal = {"recompute": "full", "zero": 3, "microbatch": 1}
    if any(getattr(plan, k) != v for k, v in frugal.items()) and len(out) > 1:
        out.append(("recompute full, zero 3, microbatch 1", {**frugal, **keep}))
    return [(name, scenario.model_copy(update={"parallel": plan.model_copy(update=change)}))
            for name, change in out]


def memory_remedies(scenario: Scenario, row: dict | None = None, limit: int = 3) -> list[Remedy]:
    """Up to ``limit`` single changes of the plan (recompute, ZeRO stage, microbatch, or all
    three) that make an out-of-memory training ``scenario`` fit, fastest first; empty when it
    fits already, is infeasible for another reason too, or is not LLM/ViT training.

    ``row``: the scenario's evaluated row (a mapping with ``infeasible_mask``), if at hand."""
    from .api import evaluate

    if scenario.workload == "inference" or not isinstance(scenario.model, (ModelSpec, ViTSpec)):
        return []
    if row is None:
        row = evaluate(scenario, explain=False).iloc[0].to_dict()
    if int(row.get("infeasible_mask", 0) or 0) != OUT_OF_MEMORY:
        return []
    global_batch = row.get("global_batch")
    variants = _variants(scenario, int(global_batch) if global_batch and global_batch == global_batch else None)
    if not variants:
        return []
    frame = evaluate([v for _, v in variants], explain=False)
    fits = []
    for (name, _), (_, r) in zip(variants, frame.iterrows()):
        if bool(r["feasible"]):
            fits.append((float(r["samples_per_s"]), name, r))
    if not fits:
        return []
    fits.sort(key=lambda item: -item[0])
    best = fits[0][0]
    out = []
    for rate, name, r in fits[:limit]:
        tps = r.get("tokens_per_s_per_gpu")
        out.append(Remedy(change=name, memory_per_gpu_bytes=float(r["memory_per_gpu_bytes"]),
                          tokens_per_s_per_gpu=None if tps is None or tps != tps else float(tps),
                          samples_per_s=rate, slowdown=best / rate))
    return out
