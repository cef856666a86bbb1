"""The vectorized cost model: pure functions from arrays of configurations to arrays of metrics.

No Optuna, no I/O, no printing here. Entry point: :func:`evaluate_training`.
"""

from .inputs import COLUMNS, broadcast_columns
from .reasons import describe
from .training import OUTPUTS, evaluate_training

__all__ = ["COLUMNS", "OUTPUTS", "broadcast_columns", "describe", "evaluate_training"]
