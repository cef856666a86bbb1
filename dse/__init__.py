"""dse: design-space exploration for large-model training and serving on GPU clusters.

The cost model (:mod:`dse.costmodel`) is pure array functions; :func:`evaluate` scores
scenarios into a DataFrame; :func:`run_search` runs (or resumes) the search a space file
describes and :func:`load_results` reads its results folder back; :func:`dse.whatif.whatif`
sweeps hardware knobs; :func:`validate_cases` compares predictions with published measurements.
Heavy modules (numpy, pandas) load on first use, so ``dse --version`` and error messages stay
fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "evaluate": "dse.api",
    "evaluate_frame": "dse.api",
    "scenario_columns": "dse.api",
    "load_scenario": "dse.scenario",
    "InputError": "dse.errors",
    "run_search": "dse.search.runner",
    "load_results": "dse.search.results",
    "validate_cases": "dse.validate",
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'dse' has no attribute {name!r}")
