"""Average GPU board power over a step, from what the step keeps busy (activity-based).

A GPU's board power is a static part, drawn whenever it is powered and clocked (leakage, clocks,
the memory's refresh and I/O), plus a dynamic part that grows with the work its units do. Per
step of ``period_s`` seconds the cost model knows how long the compute stream was busy and how
many tensor-core FLOPs it ran; it splits the busy time in two:

* ``tensor_s``: the FLOPs at the achieved GEMM rate (``peak_flops * eff_matmul``), the time the
  tensor cores work flat out;
* ``memory_s``: the rest of the busy time, kernels bound by HBM bandwidth (weight and KV-cache
  streaming in decode, elementwise ops, embedding gathers, the optimizer step).

Exposed communication, pipeline bubbles and host-side (engine) time keep the GPU clocked but
idle. The average power is then

    P = TDP * (idle + (1 - idle) * min(1, (tensor * tensor_s + hbm * memory_s) / period_s))

with three numbers per GPU family (``power_idle``, ``power_tensor``, ``power_hbm`` in
``dse/data/calibration.yaml``): the fraction of TDP a clocked GPU draws doing nothing, and the
fraction of the dynamic range (TDP - idle) that tensor-bound and memory-bound kernels draw.
``power_tensor`` near 1 says what measurements show: a large GEMM at its achieved rate runs the
board at its power limit (the clocks then settle where it is met, which the fitted GEMM
efficiency already contains); ``power_hbm`` well below 1 says a memory-bound kernel streams HBM
with most of the SMs stalled, so decode draws a fraction of TDP. The cap at TDP is the power
limit. Node power (CPUs, NICs, fans) is not part of it.

The two shares hold at the rates they were measured at (the GPU's datasheet peak at the run's
precision and its HBM bandwidth, ``power_ref_flops`` and ``power_ref_hbm_bw``): energy per FLOP
and per byte are properties of the silicon, so a what-if GPU with twice the FLOP/s or the
bandwidth draws twice the dynamic power while tensor- or memory-bound (:func:`rate_scaled`), up
to its power limit.
"""

from __future__ import annotations

import numpy as np


def busy_split(flops: np.ndarray, gemm_rate: np.ndarray, busy_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Split a compute stream's busy time (s) into tensor-core time, the FLOPs at the achieved
    GEMM rate (FLOP/s), and memory-bound time, the rest. Returns (tensor_s, memory_s)."""
    busy = np.maximum(busy_s, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        tensor = np.maximum(flops, 0.0) / np.where(gemm_rate > 0, gemm_rate, np.inf)
    tensor = np.minimum(np.where(np.isfinite(tensor), tensor, 0.0), busy)
    return tensor, busy - tensor


def average_power(
    tdp_w: np.ndarray,
    idle: np.ndarray,
    tensor: np.ndarray,
    hbm: np.ndarray,
    tensor_s: np.ndarray,
    memory_s: np.ndarray,
    period_s: np.ndarray,
) -> np.ndarray:
    """Average board power of one GPU over a period, W.

    ``tdp_w`` the board power limit (W); ``idle`` the fraction of it a clocked GPU draws with no
    work; ``tensor`` and ``hbm`` the fractions of the dynamic range (TDP - idle) drawn while
    tensor-bound and memory-bound kernels run; ``tensor_s`` and ``memory_s`` the seconds of each
    in the period of ``period_s`` seconds. Never above ``tdp_w`` (the power limit), never below
    ``idle * tdp_w``.
    """
    idle = np.clip(idle, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        load = (tensor * np.maximum(tensor_s, 0.0) + hbm * np.maximum(memory_s, 0.0)) / period_s
    load = np.clip(np.where(np.isnan(load), 0.0, load), 0.0, 1.0)  # inf: busy all the time
    return tdp_w * (idle + (1.0 - idle) * load)


def rate_scaled(share: np.ndarray, rate: np.ndarray, ref_rate: np.ndarray) -> np.ndarray:
    """A power share measured at ``ref_rate`` (FLOP/s or bytes/s) for a GPU running at ``rate``:
    the same energy per operation, so the share scales with the rate (0 = no reference: as is)."""
    ref = np.asarray(ref_rate, dtype=np.float64)
    return share * np.where(ref > 0, np.asarray(rate, dtype=np.float64) / np.where(ref > 0, ref, 1.0), 1.0)
