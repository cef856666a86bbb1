"""dse: design-space exploration for large-model training and serving on GPU clusters.

The cost model (:mod:`dse.costmodel`) is pure array functions; :func:`evaluate` scores
scenarios into a DataFrame; :func:`validate` compares predictions with published measurements.
"""

__version__ = "0.1.0"

from .api import evaluate, evaluate_frame, scenario_columns  # noqa: E402
from .errors import InputError  # noqa: E402
from .scenario import load_scenario  # noqa: E402

__all__ = ["InputError", "__version__", "evaluate", "evaluate_frame", "load_scenario", "scenario_columns"]
