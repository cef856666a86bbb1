"""Average GPU board power over a step, from what the step keeps busy (activity-based).

A GPU's board power is a static part, drawn whenever it is powered and clocked (leakage, clocks,
the memory's refresh and I/O), plus a dynamic part that grows with the work its units do. Per
step of ``period_s`` seconds the cost model knows how long the compute stream was busy and how
many tensor-core FLOPs it ran; it splits the busy time in two:

* ``tensor_s``: the FLOPs at the achieved GEMM rate (``peak_flops * eff_matmul``), the time the
  tensor cores work flat out;
* ``memory_s``: the rest of the busy time, kernels bound by HBM bandwidth (weight and KV-cache
  streaming in decode, elementwise ops, embedding gathers, the optimizer step).

Exposed collectives move data through HBM and the links, and the cost models count them with
the memory-bound time. Of that time only what HBM paces (training's elementwise passes and
optimizer step, serving's weight and KV-cache streaming) draws a share scaled with a what-if's
HBM bandwidth; the rest (collectives, GEMMs and attention below the GEMM rate) draws the
datasheet GPU's share (:func:`step_power`). Pipeline bubbles and host-side (engine) time keep
the GPU clocked but idle. The average power is then

    P = TDP * (idle + (1 - idle) * min(1, (tensor * tensor_s + hbm * memory_s) / period_s))

with three numbers per GPU family (``power_idle``, ``power_tensor``, ``power_hbm`` in
``dse/data/calibration.yaml``): the fraction of TDP a clocked GPU draws doing nothing, and the
fraction of the dynamic range (TDP - idle) that tensor-bound and memory-bound kernels draw.
``power_tensor`` above 1 (1.40 fitted) says what measurements show: a GEMM-bound step runs the
board at its power limit (the clocks then settle where it is met, which the fitted GEMM
efficiency already contains); ``power_hbm`` well below 1 says a memory-bound kernel streams HBM
with most of the SMs stalled, so decode draws a fraction of TDP. The cap at TDP is the power
limit. Node power (CPUs, NICs, fans) is not part of it.

A what-if limit below the datasheet's (``power_w`` under ``power_ref_w``) slows the SM clock until
it holds (:func:`capped_power`): tensor-bound time grows as 1/f and its power falls as f^3, so a
GEMM-bound step runs slower at lower power and less energy, while a memory-bound one that already
draws less is untouched.

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
    """Average board power of one GPU over a period at its datasheet limit, W.

    ``tdp_w`` the board power limit (W); ``idle`` the fraction of it a clocked GPU draws with no
    work; ``tensor`` and ``hbm`` the fractions of the dynamic range (TDP - idle) drawn while
    tensor-bound and memory-bound kernels run; ``tensor_s`` and ``memory_s`` the seconds of each
    in the period of ``period_s`` seconds. Never above ``tdp_w`` (the power limit), never below
    ``idle * tdp_w``. (:func:`capped_power` at a limit equal to the datasheet's.)
    """
    return capped_power(tdp_w, tdp_w, idle, tensor, hbm, tensor_s, memory_s, period_s)[0]


def capped_power(
    cap_w: np.ndarray,
    ref_w: np.ndarray,
    idle: np.ndarray,
    tensor: np.ndarray,
    hbm: np.ndarray,
    tensor_s: np.ndarray,
    memory_s: np.ndarray,
    period_s: np.ndarray,
    clock_exp: np.ndarray = 3.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Average board power (W) under a power limit ``cap_w``, and the stretch (>= 1) of the
    period when the limit is below the one the timings were calibrated at.

    ``ref_w`` is the datasheet GPU's limit (0 = ``cap_w``): the cost model's times are those of a
    GPU held at it, so its dynamic power there is at most ``ref_w - idle``; the idle floor,
    ``idle * ref_w``, is the GPU's whatever its limit. Under a lower limit the SM clock falls to
    the fraction f at which the limit holds: tensor-bound time grows as 1/f and its power as
    f^``clock_exp`` (dynamic power C V^2 f with the voltage following the clock: 3; at the
    voltage floor: 1), memory-bound time and power stay (HBM sets their pace). f is found by
    bisection (the step's power falls monotonically with f); a step whose memory-bound power
    alone exceeds the limit is slowed further at constant energy. A higher limit draws what the
    step needs and does not speed it up (the calibration holds no faster clocks).
    """
    ref = np.where(np.asarray(ref_w) > 0, ref_w, cap_w)
    idle_w = np.clip(idle, 0.0, 1.0) * ref
    span = np.maximum(ref - idle_w, 0.0)
    period = np.maximum(np.asarray(period_s, dtype=np.float64), 1e-300)
    t = np.maximum(tensor_s, 0.0)
    e_t, e_m = span * tensor * t, span * hbm * np.maximum(memory_s, 0.0)  # dynamic energy, J per period
    demand = (e_t + e_m) / period
    spent = np.minimum(demand, span)  # the datasheet GPU held its limit: the timings include that
    scale = np.where(demand > 0, spent / np.where(demand > 0, demand, 1.0), 1.0)
    budget = np.maximum(cap_w - idle_w, 1e-9 * span)  # a limit at or below idle is refused at input
    k = np.asarray(clock_exp, dtype=np.float64)

    def power_at(f):
        return scale * (e_t * f ** (k - 1.0) + e_m) / (period - t + t / f)

    binding = spent > budget
    if not np.any(binding):  # every step within its limit (always at the datasheet's): no search
        return idle_w + spent, np.ones(np.shape(spent))
    lo, hi = np.full(np.shape(demand), 0.05), np.ones(np.shape(demand))
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        over = power_at(mid) > budget
        lo, hi = np.where(over, lo, mid), np.where(over, mid, hi)
    f = np.where(binding, lo, 1.0)
    dynamic = np.where(binding, power_at(f), spent)
    # the memory-bound power alone above the limit (no dynamic range at all: nothing to slow)
    extra = np.where(budget > 0, np.maximum(dynamic / np.where(budget > 0, budget, 1.0), 1.0), 1.0)
    stretch = np.where(binding, (period - t + t / f) * extra / period, 1.0)  # exactly 1 when not binding
    return idle_w + dynamic / extra, stretch


def rate_scaled(share: np.ndarray, rate: np.ndarray, ref_rate: np.ndarray) -> np.ndarray:
    """A power share measured at ``ref_rate`` (FLOP/s or bytes/s) for a GPU running at ``rate``:
    the same energy per operation, so the share scales with the rate (0 = no reference: as is)."""
    ref = np.asarray(ref_rate, dtype=np.float64)
    return share * np.where(ref > 0, np.asarray(rate, dtype=np.float64) / np.where(ref > 0, ref, 1.0), 1.0)


#: The cost-model columns of the power model (name -> (default, meaning)); the defaults are
#: hopper's calibration (dse/data/calibration.yaml).
POWER_COLUMNS: dict[str, tuple[float, str]] = {
    "power_w": (700.0, "board power limit per GPU, W (the TDP unless a what-if lowers or raises it)"),
    "power_idle": (0.19, "fraction of the datasheet limit a clocked GPU draws with no kernel working (waiting "
                         "on communication, the host or a pipeline bubble)"),
    "power_tensor": (1.40, "fraction of the dynamic range (limit - idle) drawn while tensor cores run at the "
                           "achieved GEMM rate"),
    "power_hbm": (0.53, "fraction of the dynamic range drawn while HBM-bound kernels run"),
    "power_ref_w": (0.0, "the datasheet power limit the timings hold at, W; a lower power_w slows the clocks "
                         "(capped_power); 0 = power_w"),
    "power_ref_flops": (0.0, "peak_flops at which power_tensor holds (the datasheet GPU's); 0 = peak_flops"),
    "power_ref_hbm_bw": (0.0, "hbm_bw at which power_hbm holds (the datasheet GPU's); 0 = hbm_bw"),
}


def step_power(c: dict[str, np.ndarray], tensor_s: np.ndarray, memory_s: np.ndarray,
               period_s: np.ndarray, other_s: np.ndarray | float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`capped_power` of a step from the cost-model columns ``c`` (:data:`POWER_COLUMNS`,
    peak_flops, hbm_bw): average board power (W) and the period's stretch under the limit.

    ``memory_s`` is busy time whose pace HBM sets: its share scales with the HBM bandwidth (the
    same energy per byte). ``other_s`` is busy time that is neither tensor- nor HBM-bound
    (exposed collectives, whose pace the links set; attention kernels below the GEMM rate): it
    draws the memory-bound share at the datasheet GPU's rates whatever a what-if makes of them,
    so more HBM bandwidth or FLOP/s never bills it more."""
    hbm_scaled = rate_scaled(c["power_hbm"], c["hbm_bw"], c["power_ref_hbm_bw"])
    hbm_datasheet = np.asarray(c["power_hbm"], dtype=np.float64)
    other = np.maximum(np.asarray(other_s, dtype=np.float64), 0.0)
    # one memory-bound share over memory_s + other_s with the same dynamic energy
    total = np.maximum(memory_s, 0.0) + other
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(total > 0, (hbm_scaled * np.maximum(memory_s, 0.0) + hbm_datasheet * other) / total,
                         hbm_scaled)
    return capped_power(
        c["power_w"], c["power_ref_w"], c["power_idle"],
        rate_scaled(c["power_tensor"], c["peak_flops"], c["power_ref_flops"]),
        share, tensor_s, total, period_s)
