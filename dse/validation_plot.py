"""The validation figure: predicted against measured for every evaluated validation case.

:func:`plot_validation` draws, from the cases of :func:`dse.validate.validate_cases` (only those
with status ``ok``: skipped and invalid cases have no prediction):

* one log-log panel per metric kind (tokens/s per GPU, hardware TFLOP/s per GPU, iteration
  time, ...), predicted against measured, with the y = x line and the +/-10% and +/-20% bands;
* a cell with the overall numbers (cases, MAPE, median and maximum error, share within 10% and 20%);
* a strip of the signed error (predicted / measured - 1, in %) of every case, one row per source
  (worst MAPE on top), with each source's MAPE and case count.

One colour and one marker per source (short names from :func:`short_names`; sources that share a
short name, such as the submissions of one MLPerf round, form one group), the same in every
panel; a hollow marker is a case the model predicts does not fit in memory (it ran, so its
prediction is kept). :func:`save_validation` writes the figure as PNG (300 dpi) and PDF, and the
points as CSV; ``dse validate FILE... --plot DIR`` calls it. Style: :mod:`dse.search.plots`
(3.5 in wide, 8 pt, Okabe-Ito colours, no global matplotlib state changed).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .search.plots import OKABE_ITO, RC, WIDTH_IN, _save, _si

#: target.metric of a case -> (panel title, factor from the stored value to the plotted unit).
METRIC_LABELS: dict[str, tuple[str, float]] = {
    "tokens_per_s_per_gpu": ("tokens/s per GPU", 1.0),
    "tokens_per_s": ("tokens/s", 1.0),
    "samples_per_s": ("samples/s", 1.0),
    "hardware_tflops_per_gpu": ("hardware TFLOP/s/GPU", 1.0),
    "model_tflops_per_gpu": ("model TFLOP/s/GPU", 1.0),
    "iter_time_s": ("iteration time (s)", 1.0),
    "step_time_s": ("step time (s)", 1.0),
    "tflops_per_gpu": ("model TFLOP/s/GPU (ViT sheet)", 1.0),
    "ttft_ms": ("time to first token (ms)", 1.0),
    "itl_ms": ("time per output token (ms)", 1.0),
    "requests_per_s": ("requests/s", 1.0),
    "mfu": ("MFU (%)", 100.0),
    "hfu": ("HFU (%)", 100.0),
    "power_per_gpu_w": ("power per GPU (W)", 1.0),
    "memory_per_gpu_gib": ("peak memory per GPU (GiB)", 1.0),
}
#: Colours and markers of the sources, in order (Okabe-Ito; yellow left out: weak on white).
COLORS = [OKABE_ITO[k] for k in ("blue", "orange", "green", "vermillion", "purple", "sky", "black")]
MARKERS = ["o", "s", "D", "^", "v", "P", "X", "<", ">", "h"]
BANDS = ((20.0, "#EBEBEB"), (10.0, "#D2D2D2"))  # +/- percent, fill colour (outer first)

CSV_COLUMNS = ("id", "source", "source_short", "metric", "measured", "predicted", "error_pct", "abs_pct_error",
               "feasible", "file", "line")

_GPU = re.compile(r"\b(V100|A100|H100|H200|GH200|B200|B300|GB200|GB300|L40S|MI\d+X?)\b[ -]?(\d+ ?GB)?", re.I)


def short_source(source: str, table: bool = False, limit: int = 26) -> str:
    """A short name for a validation source: 'Korthikanti MLSys'23', 'NeMo 24.07 pre-train FP8',
    'llm-foundry A100 40GB', 'MLPerf Training v1.0', else its first words (a GitHub
    'owner/repo ...' reference: the repository's name). ``table`` appends the first table
    number the source names ('Narayanan SC'21 T2')."""
    s = " ".join(str(source).split())
    found = re.search(r"\bTable (\d+)", s)
    suffix = f" T{found.group(1)}" if table and found else ""
    author = re.match(r"^([A-Z][\w'-]+) et al\.?,?\s+([^\s(,;]+)", s)
    if author:
        return f"{author.group(1)} {author.group(2)}"[: limit - len(suffix)] + suffix
    if "megatron-bridge" in s.lower():
        version = re.search(r"\b(\d\d\.\d\d(?:\.\d+)?)\b", s)
        return ("Megatron-Bridge" + (f" {version.group(1)}" if version else ""))[:limit]
    if "llm-foundry" in s.lower():
        gpu = _GPU.search(s)
        name = "llm-foundry"
        if gpu:
            name += f" {gpu.group(1)}" + (f" {gpu.group(2).replace(' ', '')}" if gpu.group(2) else "")
        return name[:limit]
    if re.search(r"\bNeMo\b", s):
        version = re.search(r"NeMo\s+([\d.]+)", s)
        name = "NeMo" + (f" {version.group(1)}" if version else "")
        if re.search(r"pre-?train", s, re.I):
            name += " pre-train"
        elif re.search(r"fine-?tun", s, re.I):
            name += " fine-tune"
        fmt = re.search(r"\b(FP8|BF16|FP16|FP4)\b", s, re.I)
        if fmt:
            name += f" {fmt.group(1).upper()}"
        return name[:limit]
    repo = re.match(r"^[\w.-]+/([\w.-]+)(?:\s|$)", s)
    if repo:
        return repo.group(1)[: limit - len(suffix)] + suffix
    head = re.split(r"[(,;:]", s, maxsplit=1)[0].replace("NVIDIA ", "").strip()
    name = ""
    for word in head.split():
        if len(name) + len(word) + 1 > limit - len(suffix):
            break
        name = f"{name} {word}".strip()
    return (name or s[: limit - len(suffix)]) + suffix


def short_names(sources: list[str]) -> dict[str, str]:
    """source -> short name. Sources whose short names clash are told apart by their table
    number when that separates them all; otherwise they share the name and are drawn as one
    group (e.g. the many submissions of one MLPerf round)."""
    sources = list(dict.fromkeys(str(s) for s in sources))
    base = {src: short_source(src) for src in sources}
    out = {}
    for name in dict.fromkeys(base.values()):
        members = [src for src in sources if base[src] == name]
        with_table = {src: short_source(src, table=True) for src in members}
        distinct = len(members) > 1 and len(set(with_table.values())) == len(members)
        for src in members:
            out[src] = with_table[src] if distinct else name
    return out


def evaluated_cases(cases: pd.DataFrame) -> pd.DataFrame:
    """The ok cases with a finite prediction, with ``source_short`` and ``error_pct`` (signed, %)."""
    ok = cases[(cases["status"] == "ok") & np.isfinite(cases["predicted"].astype(float))
               & np.isfinite(cases["measured"].astype(float))].copy()
    names = short_names(list(dict.fromkeys(ok["source"].astype(str))))
    ok["source_short"] = ok["source"].astype(str).map(names)
    ok["error_pct"] = (ok["predicted"] / ok["measured"] - 1.0) * 100.0
    return ok


def _source_styles(ok: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """short source name -> (colour, marker), most cases first."""
    order = ok["source_short"].value_counts(sort=True).index.tolist()
    return {src: (COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)]) for i, src in enumerate(order)}


def _log_ticks(axis: Any, lo: float, hi: float) -> None:
    from matplotlib import ticker

    span = math.log10(hi / lo)
    if span < 0.35:  # less than a factor of ~2.2: log ticks would be one or none, or crowd
        axis.set_major_locator(ticker.MaxNLocator(nbins=3, steps=[1, 2, 2.5, 5, 10]))
        axis.set_major_formatter(ticker.FuncFormatter(_si))
        axis.set_minor_locator(ticker.NullLocator())
        return
    subs = (1.0,) if span > 1.5 else (1.0, 2.0, 5.0) if span > 0.7 else (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    axis.set_major_locator(ticker.LogLocator(base=10.0, subs=subs))
    axis.set_major_formatter(ticker.FuncFormatter(_si))
    axis.set_minor_locator(ticker.LogLocator(base=10.0, subs=tuple(np.arange(1.0, 10.0))))
    axis.set_minor_formatter(ticker.NullFormatter())


def _scatter_panel(ax: Any, sub: pd.DataFrame, metric: str, styles: Mapping[str, tuple[str, str]]) -> None:
    title, factor = METRIC_LABELS.get(metric, (metric, 1.0))
    m = sub["measured"].to_numpy(float) * factor
    p = sub["predicted"].to_numpy(float) * factor
    both = np.concatenate([m, p])
    both = both[both > 0]
    lo, hi = both.min(), both.max()
    span = max(math.log10(hi / lo), 0.3)
    lo, hi = lo / 10 ** (0.08 * span), hi * 10 ** (0.08 * span)
    xs = np.geomspace(lo, hi, 50)
    for pct, color in BANDS:
        ax.fill_between(xs, xs * (1 - pct / 100), xs * (1 + pct / 100), color=color, linewidth=0, zorder=0)
    ax.plot(xs, xs, color=OKABE_ITO["black"], linewidth=0.7, zorder=1)
    for src, group in sub.groupby("source_short", sort=False):
        color, marker = styles[src]
        hollow = group["feasible"].map(lambda f: f is not None and not bool(f)).to_numpy(bool)
        gm, gp = group["measured"].to_numpy(float) * factor, group["predicted"].to_numpy(float) * factor
        ax.scatter(gm[~hollow], gp[~hollow], s=9, marker=marker, color=color, linewidths=0, alpha=0.85, zorder=3)
        if hollow.any():
            ax.scatter(gm[hollow], gp[hollow], s=11, marker=marker, facecolors="white", edgecolors=color,
                       linewidths=0.7, zorder=4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal", adjustable="box")
    _log_ticks(ax.xaxis, lo, hi)
    _log_ticks(ax.yaxis, lo, hi)
    ax.set_title(title, loc="left", fontsize=7)
    ax.text(0.97, 0.03, cases_text(len(sub)), transform=ax.transAxes, ha="right", va="bottom", fontsize=6)
    ax.tick_params(labelsize=6.5)


def cases_text(n: int) -> str:
    """``1 case``, ``16 cases``."""
    return f"{n} case" if n == 1 else f"{n} cases"


def _stats_text(ok: pd.DataFrame, summary: Mapping[str, Any] | None) -> str:
    ape = ok["error_pct"].abs().to_numpy(float)
    overall = (summary or {}).get("overall", {}) if summary else {}
    lines = [f"{cases_text(len(ok))} predicted"]
    if overall.get("count"):
        lines[0] += f" of {overall['count']}"
        if overall.get("skipped"):
            lines.append(f"({overall['skipped']} skipped: not modelled)")
    if len(ape):
        lines += [
            f"MAPE {ape.mean():.1f}%",
            f"median {np.median(ape):.1f}%, max {ape.max():.0f}%",
            f"within 10%: {100 * (ape <= 10).mean():.0f}% of cases",
            f"within 20%: {100 * (ape <= 20).mean():.0f}%",
        ]
    infeasible = int(ok["feasible"].map(lambda f: f is not None and not bool(f)).sum())
    if infeasible:
        lines.append(f"hollow: predicted OOM ({infeasible})")
    lines += ["", "bands: y = x, \u00b110%, \u00b120%"]
    return "\n".join(lines)


def plot_validation(cases: pd.DataFrame, summary: Mapping[str, Any] | None = None) -> Any:
    """The validation figure of ``cases`` (:func:`dse.validate.validate_cases`); returns the
    matplotlib Figure (drawn inside the paper style; save it with :func:`save_validation` or
    inside ``matplotlib.rc_context(dse.search.plots.RC)``)."""
    import matplotlib as mpl
    from matplotlib.figure import Figure

    ok = evaluated_cases(cases)
    with mpl.rc_context(RC):
        if ok.empty:
            fig = Figure(figsize=(WIDTH_IN, 1.2), layout="constrained")
            ax = fig.add_subplot()
            ax.axis("off")
            ax.text(0.5, 0.5, "no evaluated validation case", ha="center", va="center",
                    color=OKABE_ITO["vermillion"])
            return fig
        styles = _source_styles(ok)
        order = [m for m in METRIC_LABELS if m in set(ok["metric"])]
        order += sorted(set(ok["metric"]) - set(order))
        ncols = 2
        nrows = -(-(len(order) + 1) // ncols)
        sources = ok.groupby("source_short", sort=False)["error_pct"].apply(lambda e: e.abs().mean()).sort_values()
        strip_h = 0.35 + 0.2 * len(sources)
        fig = Figure(figsize=(WIDTH_IN, 1.62 * nrows + strip_h + 0.35), layout="constrained")
        top, bottom = fig.subfigures(2, 1, height_ratios=[1.62 * nrows, strip_h + 0.35], hspace=0.02)
        axes = top.subplots(nrows, ncols, squeeze=False)
        for ax, metric in zip(axes.ravel(), order):
            _scatter_panel(ax, ok[ok["metric"] == metric], metric, styles)
        for ax in axes[:, 0]:
            ax.set_ylabel("predicted")
        for i, ax in enumerate(axes.ravel()):
            if i < len(order) and (i + ncols >= len(order) or i // ncols == nrows - 1):
                ax.set_xlabel("measured")
        spare = axes.ravel()[len(order):]
        for ax in spare:
            ax.axis("off")
        spare[0].text(0.02, 0.98, _stats_text(ok, summary), transform=spare[0].transAxes, ha="left", va="top",
                      fontsize=7, linespacing=1.35)
        _strip(bottom.add_subplot(), ok, sources, styles)
    return fig


def _strip(ax: Any, ok: pd.DataFrame, sources: pd.Series, styles: Mapping[str, tuple[str, str]]) -> None:
    err = ok["error_pct"].to_numpy(float)
    # beyond +/-100% the axis would squash every other case: such points sit at the edge as arrows
    lim = min(max(25.0, float(np.abs(err).max()) * 1.08), 105.0)
    clip = 100.0
    for pct, color in BANDS:
        ax.axvspan(-pct, pct, color=color, linewidth=0, zorder=0)
    ax.axvline(0.0, color=OKABE_ITO["black"], linewidth=0.7, zorder=1)
    rng = np.random.default_rng(0)
    labels: list[str] = []
    right: list[str] = []
    for y, (src, mape) in enumerate(sources.items()):
        group = ok[ok["source_short"] == src]
        color, marker = styles[src]
        raw = group["error_pct"].to_numpy(float)
        e = np.clip(raw, -clip, clip)
        jitter = rng.uniform(-0.22, 0.22, len(e))
        beyond = np.abs(raw) > clip
        if beyond.any():
            ax.scatter(e[beyond], y + jitter[beyond], s=22, marker=5, color=color, zorder=5)  # caret: off scale

        hollow = group["feasible"].map(lambda f: f is not None and not bool(f)).to_numpy(bool)
        ax.scatter(e[~hollow], y + jitter[~hollow], s=9, marker=marker, color=color, linewidths=0, alpha=0.85,
                   zorder=3)
        if hollow.any():
            ax.scatter(e[hollow], y + jitter[hollow], s=11, marker=marker, facecolors="white", edgecolors=color,
                       linewidths=0.7, zorder=4)
        labels.append(src)
        # off-scale cases (carets at the edge): counted beside the source's MAPE
        off = raw[beyond]
        for side in (1.0, -1.0):  # how many sit at each edge, in the margin beyond it
            count = int(np.count_nonzero(np.sign(off) == side))
            if count:
                ax.text(side * (clip + 4.0), y, f"{count}", ha="left" if side > 0 else "right", va="center",
                        fontsize=5.5, color=color)
        right.append(f"{mape:.1f}% ({len(e)})")
    ax.set_yticks(np.arange(len(labels)), labels, fontsize=6.5)
    for tick, src in zip(ax.get_yticklabels(), sources.index):
        tick.set_color(styles[src][0])
    ax.set_ylim(-0.6, len(labels) - 0.4)
    off_scale = np.abs(err) > clip
    ax.set_xlim(-lim - (14.0 if (err < -clip).any() else 0.0), lim + (14.0 if (err > clip).any() else 0.0))

    twin = ax.twinx()  # each source's MAPE and case count, outside the data on the right
    twin.set_ylim(ax.get_ylim())
    twin.set_yticks(np.arange(len(right)), right, fontsize=6.5)
    for tick, src in zip(twin.get_yticklabels(), sources.index):
        tick.set_color(styles[src][0])
    twin.tick_params(axis="y", length=0)
    twin.grid(False)
    twin.spines["right"].set_visible(False)
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="y", length=0)
    ax.set_xlabel("error: predicted / measured \u2212 1 (%)"
                  + (f"\n(at an edge: how many cases lie past \u00b1{clip:.0f}%)" if off_scale.any() else ""))
    ax.set_title("error per source", loc="left", fontsize=7)
    twin.set_title("MAPE (cases)", loc="right", fontsize=7)


def validation_table(cases: pd.DataFrame) -> pd.DataFrame:
    """The points of the figure: one row per evaluated case (columns :data:`CSV_COLUMNS`)."""
    ok = evaluated_cases(cases)
    ok["feasible"] = ok["feasible"].map(lambda f: None if f is None else bool(f))
    return ok[list(CSV_COLUMNS)].reset_index(drop=True)


def save_validation(cases: pd.DataFrame, summary: Mapping[str, Any] | None, out_dir: str | Path,
                    stem: str = "validation") -> list[Path]:
    """Write ``<stem>.png``, ``<stem>.pdf`` and ``<stem>.csv`` (the points) into ``out_dir``
    (created); returns the paths."""
    import matplotlib as mpl

    from .search.results import write_csv

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    fig = plot_validation(cases, summary)
    with mpl.rc_context(RC):
        paths = _save(fig, out, stem)
    paths.append(write_csv(validation_table(cases), out / f"{stem}.csv"))
    return paths
