"""Paper figures of a results folder, regenerated from its files alone.

:func:`plot_results` reads ``configs.parquet`` (and ``manifest.json`` for the study name and the
objectives) and writes, as PNG (300 dpi) and PDF (TrueType fonts, no creation date, so the same
data gives the same bytes):

* ``throughput_vs_gpus``: every feasible configuration as a faint point (tokens/s against GPUs on
  a log2 axis), a sample of the infeasible ones as grey crosses, the best configuration of each
  GPU count, and the staircase of the feasible (constrained) Pareto front;
* ``<y>_vs_<x>``: the same for every other pair of the study's objectives;
* ``best_breakdown``: where the best configuration's iteration time and memory go.

Sized for one column of a two-column paper (3.5 in wide, 8 pt text), Okabe-Ito colours
(colour-blind safe), styles set in a ``matplotlib.rc_context`` only: nothing global changes.
Large tables are sampled for the faint points (drawn rasterized), never for the front.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .pareto import feasible_rows, pareto_front
from .results import GIB, PLAN_COLUMNS, _atomic, manifest_objectives, read_manifest, read_results, top_configs
from .space import GPU_LABEL

#: Okabe & Ito (2008), colour-blind safe.
OKABE_ITO = {
    "black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
    "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00", "purple": "#CC79A7",
    "grey": "#999999",
}
#: Colours of the fronts of each GPU candidate (``hardware.gpu``), in the order of their codes.
GPU_COLORS = (OKABE_ITO["orange"], OKABE_ITO["blue"], OKABE_ITO["green"], OKABE_ITO["purple"],
              OKABE_ITO["yellow"], OKABE_ITO["vermillion"])
WIDTH_IN = 3.5
#: Faint points drawn at most (a uniform sample beyond): the front is always exact.
MAX_POINTS = 20_000
MAX_INFEASIBLE = 2_000
SEED = 0

RC = {
    "font.size": 8, "axes.titlesize": 8, "axes.labelsize": 8, "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5, "legend.fontsize": 7.5, "figure.titlesize": 8,
    "font.family": "DejaVu Sans",
    "pdf.fonttype": 42, "ps.fonttype": 42, "svg.fonttype": "none", "savefig.dpi": 300,
    "axes.linewidth": 0.6, "axes.spines.top": False, "axes.spines.right": False,
    "axes.grid": True, "grid.linewidth": 0.4, "grid.alpha": 0.35, "axes.axisbelow": True,
    "xtick.major.width": 0.6, "ytick.major.width": 0.6, "xtick.minor.width": 0.4, "ytick.minor.width": 0.4,
    "lines.linewidth": 1.2, "legend.frameon": False, "legend.handlelength": 1.6,
    "legend.columnspacing": 1.2, "legend.borderaxespad": 0.3,
}

#: metric -> (axis label, unit, factor from the stored SI value to the unit).
METRICS: dict[str, tuple[str, str, float]] = {
    "tokens_per_s": ("throughput", "tokens/s", 1.0),
    "tokens_per_s_per_gpu": ("throughput per GPU", "tokens/s", 1.0),
    "samples_per_s": ("throughput", "samples/s", 1.0),
    "samples_per_s_per_gpu": ("throughput per GPU", "samples/s", 1.0),
    "requests_per_s": ("throughput", "requests/s", 1.0),
    "input_tokens_per_s": ("prompt throughput", "tokens/s", 1.0),
    "input_tokens_per_s_per_gpu": ("prompt throughput per GPU", "tokens/s", 1.0),
    "itl_ms": ("time per output token", "ms", 1.0),
    "ttft_ms": ("time to first token", "ms", 1.0),
    "cost_per_msample_usd": ("cost", "USD per million samples", 1.0),
    "energy_per_sample_j": ("energy", "J/sample", 1.0),
    "num_gpus": ("GPUs", "", 1.0),
    "mfu": ("MFU", "%", 100.0),
    "hfu": ("HFU", "%", 100.0),
    "model_tflops_per_gpu": ("model TFLOP/s per GPU", "", 1.0),
    "iteration_time_s": ("iteration time", "s", 1.0),
    "memory_per_gpu_bytes": ("memory per GPU", "GiB", 1.0 / GIB),
    "hbm_bytes": ("HBM per GPU", "GiB", 1.0 / GIB),
    "exposed_comm_s": ("exposed communication", "s", 1.0),
    "cost_per_mtok_usd": ("cost", "USD per million tokens", 1.0),
    "cluster_usd_per_hour": ("price of the GPUs", "USD per hour", 1.0),
    "energy_per_token_j": ("energy", "J/token", 1.0),
    "power_per_gpu_w": ("average power per GPU", "W", 1.0),
    "time_to_train_s": ("time to train", "days", 1.0 / 86400.0),
    # hardware knobs, in the units of their names
    "hw.hbm_gb": ("HBM per GPU", "GiB", 1.0),
    "hw.hbm_tbps": ("HBM bandwidth", "TB/s", 1.0),
    "hw.nvlink_gbps": ("NVLink bandwidth", "GB/s", 1.0),
    "hw.nvlink_domain": ("NVLink domain", "GPUs", 1.0),
    "hw.scaleout_gbitps": ("scale-out bandwidth", "Gbit/s", 1.0),
    "hw.host_link_gbps": ("host link bandwidth", "GB/s", 1.0),
    "hw.exp_tera_per_s": ("exponential rate (softmax)", "T/s", 1.0),
    "hw.l2_mb": ("L2 cache", "MiB", 1.0),
    "hw.power_w": ("power per GPU", "W", 1.0),
    "hw.price_per_gpu_hour": ("price", "USD per GPU-hour", 1.0),
    "hw.peak_scale": ("peak compute scale", "", 1.0),
}
#: Parts of the iteration time (they add up to it): label, column, colour, hatch.
TIME_PARTS = (
    ("compute", "time_compute_s", OKABE_ITO["blue"], None),
    ("bubble", "time_bubble_s", "#FFFFFF", "...."),
    ("exposed TP", "exposed_tp_s", OKABE_ITO["orange"], None),
    ("exposed EP", "exposed_ep_s", OKABE_ITO["purple"], None),
    ("waiting for attention-DP ranks", "time_adp_wait_s", "#FFFFFF", "xx"),
    ("exposed CP", "exposed_cp_s", OKABE_ITO["sky"], None),
    ("exposed FSDP", "exposed_fsdp_s", OKABE_ITO["green"], None),
    ("exposed PP", "exposed_pp_s", OKABE_ITO["yellow"], None),
    ("exposed DP", "exposed_dp_s", OKABE_ITO["vermillion"], None),
    ("exposed activation offload", "exposed_offload_s", "#999933", None),
    ("host-bound (MoE launches)", "host_stall_s", "#882255", None),
    ("exposed emb. all-to-all", "exposed_a2a_s", OKABE_ITO["grey"], None),
    ("exposed emb. all-reduce", "exposed_emb_allreduce_s", OKABE_ITO["black"], None),
    ("overhead", "time_overhead_s", "#E8E8E8", None),
    ("overlap slowdown", "time_overlap_slowdown_s", "#FFFFFF", "////"),
    ("power limit (slowed clocks)", "time_power_cap_s", "#CC3311", None),
)
MEMORY_PARTS = (
    ("embedding tables", "memory_embeddings_bytes", OKABE_ITO["vermillion"]),
    ("embedding optimizer", "memory_emb_optimizer_bytes", OKABE_ITO["yellow"]),
    ("weights", "memory_weights_bytes", OKABE_ITO["blue"]),
    ("KV cache", "memory_kv_cache_bytes", OKABE_ITO["black"]),
    ("gradients", "memory_grads_bytes", OKABE_ITO["sky"]),
    ("optimizer", "memory_optimizer_bytes", OKABE_ITO["green"]),
    ("activations", "memory_activations_bytes", OKABE_ITO["orange"]),
    ("logits (loss)", "memory_logits_bytes", "#882255"),
    ("buffers", "memory_buffers_bytes", OKABE_ITO["purple"]),
    ("reserved", "memory_reserved_bytes", "#D9D9D9"),
    ("left unused by the engine", "memory_engine_free_bytes", "#F2F2F2"),
)


def metric_label(metric: str, serving: bool = False) -> str:
    """Axis label with its unit, e.g. ``throughput (tokens/s)``; a serving run's tokens are the
    output tokens it generates."""
    name, unit, _ = METRICS.get(metric, (metric.removeprefix("hw."), "", 1.0))
    if serving and metric in ("tokens_per_s", "tokens_per_s_per_gpu"):
        unit = "output tokens/s"
    return f"{name} ({unit})" if unit else name


def _factor(metric: str) -> float:
    return METRICS.get(metric, ("", "", 1.0))[2]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_")


def _si(x: float, _pos: Any = None) -> str:
    """1.5k, 2M, 0.25: short tick labels."""
    if x == 0 or not math.isfinite(x):
        return "0"
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def _gpus(x: float, _pos: Any = None) -> str:
    if x <= 0:
        return ""
    return f"{x / 1024:g}k" if x >= 1024 and x % 1024 == 0 else f"{x:g}"


def _set_scale(ax: Any, axis: str, metric: str, values: np.ndarray) -> None:
    """log2 for GPU counts, log10 for positive values spanning more than 30x, else linear."""
    from matplotlib import ticker

    finite = values[np.isfinite(values)]
    positive = finite.size and (finite > 0).all()
    spread = finite.max() / finite.min() if positive else 1.0
    target = ax.xaxis if axis == "x" else ax.yaxis
    setter = ax.set_xscale if axis == "x" else ax.set_yscale
    if metric == "num_gpus" or (metric.startswith("hw.") and positive and spread >= 4 and _powers_of_two(finite)):
        if positive:
            setter("log", base=2)
            target.set_major_locator(ticker.FixedLocator(_log2_ticks(finite)))
            target.set_minor_locator(ticker.NullLocator())
        else:
            target.set_major_locator(ticker.MaxNLocator(nbins=6, integer=True))
        target.set_major_formatter(ticker.FuncFormatter(_gpus))
        return
    if positive and spread > 30:
        setter("log")
        target.set_major_locator(ticker.LogLocator(base=10.0, subs=_log_subs(finite.min(), finite.max())))
        target.set_major_formatter(ticker.FuncFormatter(_si))
        target.set_minor_locator(ticker.LogLocator(base=10.0, subs=tuple(np.arange(1.0, 10.0))))
        target.set_minor_formatter(ticker.NullFormatter())
    else:
        target.set_major_locator(ticker.MaxNLocator(nbins=5))
        target.set_major_formatter(ticker.FuncFormatter(_si))


#: Labelled ticks per decade of a log10 axis, sparsest first.
LOG_SUBS = ((1.0,), (1.0, 3.0), (1.0, 2.0, 5.0), (1.0, 2.0, 3.0, 5.0))


def _log_subs(lo: float, hi: float, least: int = 4) -> tuple[float, ...]:
    """The sparsest :data:`LOG_SUBS` that labels at least ``least`` ticks between ``lo`` and ``hi``
    (a front at 1.5-5 USD on an axis to 70 gets 2, 5, 10, 20, 50, not 10 alone)."""
    for subs in LOG_SUBS:
        if _log_tick_count(lo, hi, subs) >= least:
            return subs
    return LOG_SUBS[-1]


def _log_tick_count(lo: float, hi: float, subs: tuple[float, ...]) -> int:
    """How many ticks ``subs`` x 10^k fall in [lo, hi]."""
    decades = range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
    return sum(1 for k in decades for s in subs if lo * (1 - 1e-9) <= s * 10.0**k <= hi * (1 + 1e-9))


def _log2_ticks(values: np.ndarray, most: int = 7) -> list[float]:
    """The values themselves when few (GPU counts need not be powers of two), else every n-th
    power of two across their range."""
    u = np.unique(values)
    if u.size <= most:
        return [float(v) for v in u]
    lo, hi = int(np.floor(np.log2(u[0]))), int(np.ceil(np.log2(u[-1])))
    stride = -(-(hi - lo + 1) // most)
    return [2.0**e for e in range(lo, hi + 1) if (e - lo) % stride == 0]


def _powers_of_two(values: np.ndarray) -> bool:
    u = np.unique(values)
    return bool(u.size <= 64 and np.allclose(np.log2(u), np.round(np.log2(u))))


def _sample(n: int, cap: int) -> np.ndarray:
    if n <= cap:
        return np.arange(n)
    return np.sort(np.random.default_rng(SEED).choice(n, size=cap, replace=False))


def _count(n: int) -> str:
    return f"{n:,}" if n < 10_000 else _si(float(f"{n:.3g}"))


def _new_figure(height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(WIDTH_IN, height), layout="constrained")


def _save(fig: Any, out: Path, stem: str) -> list[Path]:
    paths = []
    for ext in ("png", "pdf"):
        path = out / f"{stem}.{ext}"
        kwargs: dict[str, Any] = {"format": ext}
        if ext == "pdf":
            kwargs["metadata"] = {"CreationDate": None}
        with _atomic(path) as fh:
            fig.savefig(fh, **kwargs)
        paths.append(path)
    return paths


# ------------------------------------------------------------------------------- front plots
def _staircase(px: np.ndarray, py: np.ndarray, xdir: str) -> tuple[np.ndarray, np.ndarray, str]:
    """The step line through the front points (sorted by x): y is the best reachable for x up to
    (minimize) or from (maximize) each point. It starts at the first point and ends at the last:
    nothing was measured beyond them. Returns (x, y, ``where`` of ``Axes.step``)."""
    return px, py, "post" if xdir == "minimize" else "pre"


def plot_pair(df: pd.DataFrame, y: tuple[str, str], x: tuple[str, str], title: str | None = None) -> Any:
    """One objective against another: faint feasible points, grey crosses for a sample of the
    infeasible, the best ``y`` at each ``x`` (when ``x`` is the GPU count or a hardware knob of
    few values) and the staircase of
    the feasible (constrained) Pareto front of the pair. Returns the matplotlib Figure."""
    (ym, ydir), (xm, xdir) = y, x
    fig = _new_figure(2.9)
    ax = fig.add_subplot()
    serving = "itl_ms" in df.columns  # its tokens are output tokens
    kinds = "phase" in df.columns and bool((df["phase"] == 3).any())  # disaggregated deployments too
    gpu_col = GPU_LABEL if GPU_LABEL in df.columns else "hw.gpu"  # the GPU candidate, by name or code
    by_gpu = not kinds and gpu_col in df.columns and df[gpu_col].nunique() > 1  # a front per GPU too
    df = df[list(dict.fromkeys([xm, ym, *(["feasible"] if "feasible" in df.columns else []),
                                *(["phase"] if kinds else []),
                                *([gpu_col, "hw.gpu"] if by_gpu and "hw.gpu" in df.columns else [])]))]  # small copies
    ok = feasible_rows(df)
    bad = df[~df["feasible"].fillna(False).astype(bool).to_numpy()] if "feasible" in df.columns else df.iloc[:0]
    xf, yf = _factor(xm), _factor(ym)

    def xy(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        return (frame[xm].to_numpy(dtype=float) * xf, frame[ym].to_numpy(dtype=float) * yf)

    legend: dict[str, tuple[Any, str]] = {}  # role -> (handle, label); shown front first
    if len(bad):
        idx = _sample(len(bad), MAX_INFEASIBLE)
        bx, by = xy(bad.iloc[idx])
        shown = "" if len(idx) == len(bad) else f"; {_si(len(idx))} shown"
        legend["infeasible"] = (
            ax.scatter(bx, by, s=6, marker="x", linewidths=0.5, color=OKABE_ITO["grey"], alpha=0.35,
                       rasterized=True, zorder=1),
            f"infeasible ({_count(len(bad))}{shown})")
    if len(ok):
        idx = _sample(len(ok), MAX_POINTS)
        fx, fy = xy(ok.iloc[idx])
        shown = "" if len(idx) == len(ok) else f"; {_si(len(idx))} shown"
        alpha = float(np.clip(30.0 / math.sqrt(len(idx)), 0.08, 0.6))
        legend["feasible"] = (
            ax.scatter(fx, fy, s=5, linewidths=0, color=OKABE_ITO["sky"], alpha=alpha, rasterized=True, zorder=2),
            f"feasible ({_count(len(ok))}{shown})")
        xs = ok[xm].to_numpy(dtype=float)
        # the best y at each x value, when x is a discrete choice (GPUs, a hardware knob's values)
        if (xm == "num_gpus" or xm.startswith("hw.")) and np.unique(xs[np.isfinite(xs)]).size <= 64:
            col = ok[ym].astype(float)
            groups = col.groupby(ok[xm].to_numpy())
            best = ok.loc[(groups.idxmax() if ydir == "maximize" else groups.idxmin()).dropna().to_numpy()]
            bx, by = xy(best)
            what = "GPU count" if xm == "num_gpus" else METRICS.get(xm, (xm.removeprefix("hw."),))[0]
            legend["best"] = (
                ax.scatter(bx, by, s=24, facecolors="none", edgecolors=OKABE_ITO["vermillion"], linewidths=0.9,
                           zorder=4),
                f"best per {what}")
        # the front of the two axes; with disaggregated deployments, one front per kind of serving
        sets = ([("front", ok, OKABE_ITO["black"], "Pareto front of the two axes")] if not kinds else
                [("front", ok[ok["phase"] != 3], OKABE_ITO["black"], "front of engines"),
                 ("front2", ok[ok["phase"] == 3], OKABE_ITO["vermillion"], "front of disaggregated")])
        if by_gpu:  # each GPU candidate's own front, under the overall one
            from ..presets import gpu_name

            # in the order of their codes: the preset table's (by generation), then listings
            names = ok.groupby(gpu_col)["hw.gpu"].min().sort_values().index if "hw.gpu" in ok else pd.unique(ok[gpu_col])
            sets += [(f"gpu{i}", ok[ok[gpu_col] == name], GPU_COLORS[i % len(GPU_COLORS)],
                      f"front on {name if gpu_col == GPU_LABEL else gpu_name(name) or name}")
                     for i, name in enumerate(names)]
        for role, rows, color, label in sets:
            if not len(rows):
                continue
            front = pareto_front(rows, [y, x], feasible_only=True).sort_values(xm, kind="stable")
            px, py = xy(front)
            good = np.isfinite(px) & np.isfinite(py)
            px, py = px[good], py[good]
            if px.size:
                sx, sy, where = _staircase(px, py, xdir)
                if by_gpu and role == "front":  # the envelope of the GPUs' fronts: a band under them
                    (line,) = ax.step(sx, sy, where=where, color=OKABE_ITO["grey"], linewidth=4.0, alpha=0.45,
                                      solid_capstyle="butt", zorder=4)
                    legend[role] = (line, "Pareto front of the two axes (all GPUs)")
                    continue
                (line,) = ax.step(sx, sy, where=where, color=color, linewidth=1.2, zorder=5)
                pts = ax.scatter(px, py, s=12, color=color, zorder=6, linewidths=0)
                legend[role] = ((line, pts), label)
    else:
        ax.text(0.5, 0.96, "no feasible configuration", transform=ax.transAxes, ha="center", va="top",
                color=OKABE_ITO["vermillion"])
    _set_scale(ax, "x", xm, df[xm].to_numpy(dtype=float) * xf)
    _set_scale(ax, "y", ym, df[ym].to_numpy(dtype=float) * yf)
    ax.set_xlabel(metric_label(xm, serving))
    ax.set_ylabel(metric_label(ym, serving))
    # a long study name goes on its own line rather than running off the figure
    sep = ":\n" if title and len(title) > 18 else ": "
    ax.set_title(f"{title + sep if title else ''}feasible (constrained) front", loc="left")
    gpus = sorted((k for k in legend if k.startswith("gpu")), key=lambda k: int(k[3:]))
    order = [legend[k] for k in ("front", "front2", *gpus, "best", "feasible", "infeasible") if k in legend]
    if order:
        # two columns (filled column by column) when the labels fit across the figure, else one
        half = -(-len(order) // 2)
        widest = max(len(lab) for _, lab in order[:half]) + max((len(lab) for _, lab in order[half:]), default=0)
        leg = fig.legend([h for h, _ in order], [lab for _, lab in order], loc="outside lower center",
                         ncols=2 if widest <= 46 else 1, handletextpad=0.4, markerscale=1.5)
        for handle in leg.legend_handles:
            if handle is not None and handle.get_alpha() is not None:
                handle.set_alpha(0.9)
    return fig


# ---------------------------------------------------------------------------- breakdown plot
def _plan_text(row: pd.Series) -> str:
    def v(c: str) -> float:
        return float(row[c]) if c in row.index and pd.notna(row[c]) else math.nan

    parts = [f"{v('num_gpus'):g} GPUs:"]
    if v("phase") == 3:  # a disaggregated deployment: each kind of instance
        tokens = f", {v('prefill_max_num_tokens'):g}-token iterations" if v("prefill_max_num_tokens") > 0 else ""
        from ..presets import prefill_gpu_name

        on = prefill_gpu_name(v("prefill_gpu")) if v("prefill_gpu") > 0 else None  # another GPU than the cluster's
        parts.append(f"{v('prefill_instances'):g} prefill{f' ({on})' if on else ''} x tp{v('prefill_tp'):g}"
                     + (f" pp{v('prefill_pp'):g}" if v("prefill_pp") > 1 else "")
                     + (f" dp{v('prefill_dp'):g}" if v("prefill_dp") > 1 else "")
                     + (f" ep{v('prefill_ep'):g}" if v("prefill_ep") > 1 else "") + tokens
                     + f"\n+ {v('decode_instances'):g} decode x tp{v('tp'):g}"
                     + (f" pp{v('pp'):g}" if v("pp") > 1 else "")
                     + (f" dp{v('dp'):g}" if v("dp") > 1 else "")
                     + (f" ep{v('ep'):g}" if v("ep") > 1 else "")
                     + (f" batch {v('batch'):.3g}" if math.isfinite(v("batch")) else ""))
        return " ".join(parts)
    if math.isfinite(v("emb_sharding")):
        from .results import PLANNER_NAMES, SHARDING_NAMES

        parts.append(f"emb {SHARDING_NAMES.get(int(v('emb_sharding')), '?')}"
                     + (f"/{PLANNER_NAMES.get(int(v('emb_planner')), '?')}"
                        if math.isfinite(v("emb_planner")) and int(v("emb_sharding")) in (0, 2, 3, 5, 6) else ""))
    for c in ("tp", "pp", "dp", "cp", "ep", "etp", "vpp"):
        if c == "etp" and not (math.isfinite(v(c)) and v(c) > 0 and v(c) != v("tp")):
            continue  # 0: the experts split as the attention
        if math.isfinite(v(c)) and (v(c) != 1 or c in ("tp", "pp", "dp", "etp")):
            parts.append(f"{c}{v(c):g}")
    if math.isfinite(v("zero")) and v("zero") > 0:
        parts.append(f"zero{v('zero'):g}" + (f"/{v('shard_group'):g}" if v("shard_group") > 0 else ""))
    if v("sp") > 0:
        parts.append("sp")
    if v("recompute") > 0:
        parts.append({1: "sel. recompute", 2: "full recompute"}.get(int(v("recompute")), "recompute"))
    if v("offload_layers") > 0:
        parts.append(f"offload {v('offload_layers'):g} layers")
    if math.isfinite(v("batch")):
        parts.append(f"batch {v('batch'):g}" + (" (auto)" if v("batch_auto") > 0 else ""))
    if math.isfinite(v("spec_tokens")) and v("spec_tokens") > 0:
        parts.append(f"{v('spec_tokens'):g} draft tokens")
    if math.isfinite(v("microbatch")):
        parts.append(f"mb{v('microbatch'):g}")
    if math.isfinite(v("global_batch")):
        parts.append(f"gb{v('global_batch'):.0f}")
    text = " ".join(parts)
    hw = []
    for c in row.index:
        if c == "hw.gpu" and pd.notna(row[c]):  # the GPU candidate, by name
            from ..presets import gpu_name

            label = row.get(GPU_LABEL)
            hw.append(str(label) if isinstance(label, str) and label else str(gpu_name(row[c]) or row[c]))
        elif str(c).startswith("hw.") and pd.notna(row[c]):
            name, unit, f = METRICS.get(c, (c.removeprefix("hw."), "", 1.0))
            hw.append(f"{name} {float(row[c]) * f:.4g}{' ' + unit if unit else ''}")
    return text + ("\n" + _wrap_items(hw) if hw else "")


def _wrap_items(items: list[str], width: int = 58) -> str:
    """``items`` joined by commas, on as many lines of at most ``width`` characters as they need
    (a long hardware line would run off the figure)."""
    lines = [""]
    for item in items:
        sep = ", " if lines[-1] else ""
        if lines[-1] and len(lines[-1]) + len(sep) + len(item) + 1 > width:
            lines[-1] += ","
            lines.append(item)
        else:
            lines[-1] += sep + item
    return "\n".join(lines)


def _stacked(ax: Any, parts: list[tuple[str, float, str, str | None]]) -> list[Any]:
    left = 0.0
    handles = []
    for label, value, color, hatch in parts:
        bar = ax.barh([0], [value], left=left, height=0.6, color=color, edgecolor="#333333", linewidth=0.4,
                      hatch=hatch, label=label)
        handles.append(bar)
        left += value
    ax.set_yticks([])
    ax.set_ylim(-0.45, 0.45)
    ax.spines["left"].set_visible(False)
    ax.grid(axis="y", visible=False)
    return handles


def plot_breakdown(row: pd.Series | None, objective: tuple[str, str] | None = None) -> Any:
    """The time and memory breakdown of one configuration (two panels). Returns the Figure."""
    fig = _new_figure(3.6)
    if row is None:
        ax = fig.add_subplot()
        ax.axis("off")
        ax.text(0.5, 0.5, "no feasible configuration", ha="center", va="center", color=OKABE_ITO["vermillion"])
        return fig

    def val(c: str) -> float:
        x = float(row[c]) if c in row.index and pd.notna(row[c]) else 0.0
        return x if math.isfinite(x) else 0.0

    head = "best configuration"
    if objective is not None and objective[0] in row.index:
        m, d = objective
        name, unit, f = METRICS.get(m, (m, "", 1.0))
        head += f" ({'max' if d == 'maximize' else 'min'} {name}: {_si(float(row[m]) * f)}{' ' + unit if unit else ''})"
    title = head + "\n" + _plan_text(row)
    fig.suptitle(title, x=0.02, ha="left", linespacing=1.35)
    fig.set_size_inches(WIDTH_IN, 3.6 + 0.16 * max(title.count("\n") - 2, 0))  # room for a long title
    panels = fig.subfigures(2, 1, hspace=0.04)
    legend_kw = {"loc": "outside lower center", "ncols": 3, "handlelength": 1.2, "columnspacing": 1.0,
                 "handletextpad": 0.4}

    ax = panels[0].add_subplot()
    if val("phase") == 3:  # a disaggregated deployment: how its GPUs are split (each instance: dse evaluate)
        split = [("prefill instances", val("prefill_instances") * val("prefill_tp") * max(val("prefill_pp"), 1.0)
                  * max(val("prefill_dp"), 1.0), OKABE_ITO["orange"], None),
                 ("decode instances", val("decode_instances") * val("tp") * max(val("pp"), 1.0) * max(val("dp"), 1.0),
                  OKABE_ITO["blue"], None),
                 ("idle", val("idle_gpus"), "#FFFFFF", "....")]
        split = [p for p in split if p[1] > 0]
        handles = _stacked(ax, split)
        total = sum(p[1] for p in split)
        ax.set_xlim(0, total * 1.2 or 1.0)
        ax.text(total, 0, f" {total:g} GPUs", va="center", ha="left")
        ax.set_xlabel("GPUs of the deployment")
        panels[0].legend(handles, [p[0] for p in split], **legend_kw)
    else:
        # time per iteration (serving: per decode step, in ms as the text report gives it)
        what, unit, scale = _time_axis(row)
        time_parts = [(lab, val(c) * scale, col, h) for lab, c, col, h in TIME_PARTS if val(c) > 0]
        handles = _stacked(ax, time_parts)
        total = sum(p[1] for p in time_parts)
        it = val("iteration_time_s") * scale or total
        ax.set_xlim(0, max(it, total) * 1.2 or 1.0)
        ax.text(total, 0, f" {it:.3g} {unit}", va="center", ha="left")
        ax.set_xlabel(f"{what} ({unit})")
        panels[0].legend(handles, [p[0] for p in time_parts], **legend_kw)

    # memory per GPU
    ax = panels[1].add_subplot()
    mem_parts = [(lab, val(c) / GIB, col, None) for lab, c, col in MEMORY_PARTS if val(c) > 0]
    handles = _stacked(ax, mem_parts)
    used = sum(p[1] for p in mem_parts)
    hbm = val("hbm_bytes") / GIB or val("hw.hbm_gb")
    total_text = f" {used:.3g} GiB"
    xmax, label_x = _memory_extent(used, hbm, total_text)
    ax.set_xlim(0, xmax)
    labels = [p[0] for p in mem_parts]
    if hbm > 0:
        handles.append(ax.axvline(hbm, color=OKABE_ITO["vermillion"], linestyle="--", linewidth=1.2))
        labels.append(hbm_label(hbm))
    ax.text(label_x, 0, total_text, va="center", ha="left")
    ax.set_xlabel("memory per GPU (GiB)" if val("phase") != 3 else "memory per GPU of the fuller instance (GiB)")
    panels[1].legend(handles, labels, **legend_kw)
    return fig


def _time_axis(row: pd.Series) -> tuple[str, str, float]:
    """(what the time bar is, unit, factor from seconds): a serving row (it has an ITL) in ms per
    engine iteration (the mean of decode steps and those with a prompt chunk), as ``dse
    evaluate`` reports it; else seconds per iteration."""
    itl = float(row["itl_ms"]) if "itl_ms" in row.index and pd.notna(row["itl_ms"]) else math.nan
    if not math.isfinite(itl):
        return "time per iteration", "s", 1.0
    return "mean time per engine iteration", "ms", 1e3


def hbm_label(hbm_gib: float) -> str:
    """The legend entry of the HBM capacity line, with its unit."""
    return f"HBM capacity ({hbm_gib:.3g} GiB)"


#: Room the memory total's label takes, as a fraction of the axis (8 pt text on a 3.5 in figure).
LABEL_FRACTION_PER_CHAR = 0.021


def _memory_extent(used: float, hbm: float, text: str) -> tuple[float, float]:
    """(x limit, x of the total's label) of the memory bar. The label sits right of the bar; when
    the HBM capacity line would run through it, right of the line instead (the axis widened to
    fit it)."""
    xmax = max(used, hbm) * 1.2 or 1.0
    width = LABEL_FRACTION_PER_CHAR * len(text) * xmax
    if hbm <= 0 or not used - 0.01 * xmax <= hbm <= used + width:
        return xmax, used
    at = max(used, hbm) + 0.01 * xmax  # clear of the dashed line
    return max(xmax, (at + width) * 1.04), at


# --------------------------------------------------------------------------------- everything
def _needed_columns(objectives: Sequence[tuple[str, str]]) -> list[str]:
    cols = ["trial", "feasible", "tokens_per_s", "iteration_time_s", "hbm_bytes", "batch_auto", "itl_ms",
            "prefill_instances", "decode_instances", "idle_gpus", *PLAN_COLUMNS, "hw.*", GPU_LABEL]
    cols += [c for _, c, _, _ in TIME_PARTS] + [c for _, c, _ in MEMORY_PARTS]
    cols += [m for m, _ in objectives]
    return cols


def figure_pairs(objectives: Sequence[tuple[str, str]]) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """(y, x) objective pairs drawn besides throughput vs GPUs: each pair of the study's objectives,
    the first of the pair on y."""
    base = {("tokens_per_s", "maximize"), ("num_gpus", "minimize")}
    return [(a, b) for a, b in combinations(objectives, 2) if {a, b} != base and a[0] != b[0]]


def plot_results(out_dir: str | Path, objectives: Sequence[Any] | None = None,
                 require_manifest: bool = False) -> list[Path]:
    """Regenerate every figure of a results folder from its files; return the paths written.

    ``objectives`` defaults to the manifest's (or tokens/s up, GPUs down without one: the runner
    plots before it writes the manifest; ``dse plot`` requires it).
    """
    import matplotlib as mpl  # figures are drawn on matplotlib.figure.Figure: no pyplot, no GUI backend

    from .pareto import normalize_objectives

    out = Path(out_dir)
    manifest = (read_manifest(out) or {}) if out.is_dir() else {}
    objectives = normalize_objectives(objectives) if objectives is not None else manifest_objectives(manifest)
    df, manifest = read_results(out, require_manifest=require_manifest, columns=_needed_columns(objectives))
    if "feasible" not in df.columns:
        df["feasible"] = True
    study = manifest.get("study") or out.name
    written: list[Path] = []
    with mpl.rc_context(RC):
        # (a run that counts samples, a ViT's images, shows them against GPUs instead of tokens)
        by_samples = {"samples_per_s", "num_gpus"} <= {m for m, _ in objectives}
        if {"tokens_per_s", "num_gpus"} <= set(df.columns) and not by_samples:
            fig = plot_pair(df, ("tokens_per_s", "maximize"), ("num_gpus", "minimize"), title=study)
            written += _save(fig, out, "throughput_vs_gpus")
        for y, x in figure_pairs(objectives):
            if y[0] in df.columns and x[0] in df.columns:
                fig = plot_pair(df, y, x, title=study)
                written += _save(fig, out, f"{_safe(y[0])}_vs_{_safe(x[0])}")
        present = [o for o in objectives if o[0] in df.columns]
        top = top_configs(df, present, 1) if present else df.iloc[:0]
        fig = plot_breakdown(top.iloc[0] if len(top) else None, present[0] if present else None)
        written += _save(fig, out, "best_breakdown")
    return written
