"""Evaluators per kind of run (``Scenario.kind``): each turns a list of scenarios into one
DataFrame with one vectorized cost-model call, with the standard metric columns
(``iteration_time_s``, ``samples_per_s``, ``feasible``, ``infeasible_reason``, ...) plus its own.

``llm_train`` is :func:`dse.api.evaluate_llm_training`; the others live in this package, one
module each, and register themselves with :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

import pandas as pd

#: kind -> module that registers its evaluator (imported on first use).
MODULES = {
    "llm_inference": "dse.workloads.inference",
    "dlrm_train": "dse.workloads.dlrm",
    "dlrm_inference": "dse.workloads.dlrm",
    "vit_train": "dse.workloads.vit",
    "vit_inference": "dse.workloads.vit",
}
_EVALUATORS: dict[str, Callable[[list], pd.DataFrame]] = {}


def register(kind: str) -> Callable:
    """Decorator: ``@register("dlrm_train") def evaluate(scenarios, explain) -> DataFrame``."""

    def wrap(fn: Callable) -> Callable:
        _EVALUATORS[kind] = fn
        return fn

    return wrap


def evaluator(kind: str) -> Callable | None:
    """The evaluator of a kind of run, or None when it is not modelled (yet)."""
    if kind == "llm_train":
        from ..api import evaluate_llm_training

        return evaluate_llm_training
    if kind not in _EVALUATORS and kind in MODULES:
        try:
            import_module(MODULES[kind])
        except ModuleNotFoundError as err:
            if err.name != MODULES[kind]:
                raise
    return _EVALUATORS.get(kind)


def supported(kind: str) -> bool:
    return evaluator(kind) is not None
