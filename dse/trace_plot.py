"""Figures of one configuration: the two-stream timeline and the time breakdown (serialized
against overlapped communication, as MAD-Max draws it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .trace import COMPUTE, Event

#: Okabe-Ito colours per kind of operation.
KIND_COLOURS = {
    "gemm": "#0072B2", "attention": "#56B4E9", "elementwise": "#999999", "head": "#000000",
    "recompute": "#CC79A7", "tp": "#E69F00", "ep": "#D55E00", "cp": "#009E73", "fsdp": "#F0E442",
    "dp": "#882255", "pp": "#44AA99", "bubble": "#DDDDDD", "optimizer": "#332288",
    "slowdown": "#BBBBBB", "forward": "#C8C8C8", "backward": "#7A7A7A",
}
KIND_LABELS = {
    "gemm": "GEMMs", "attention": "attention", "elementwise": "elementwise", "head": "LM head",
    "recompute": "recompute", "tp": "TP collectives", "ep": "expert all-to-all",
    "cp": "CP K/V ring", "fsdp": "FSDP gathers", "dp": "DP reduction", "pp": "pipeline p2p",
    "bubble": "bubble", "optimizer": "optimizer", "slowdown": "overlap slowdown",
    "forward": "later fwd (block)", "backward": "later bwd (block)",
}


def plot_timeline(events: list[Event], meta: dict[str, Any], out_dir: str | Path, stem: str = "timeline") -> list[Path]:
    """Two panels: the whole iteration, and the first microbatch's forward and backward."""
    from matplotlib.figure import Figure

    import matplotlib as mpl

    from .search.plots import RC, _save

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    first = [e for e in events if e.microbatch == 0 and e.phase in ("forward", "backward")]
    zoom_start = min((e.start for e in first), default=0.0)
    zoom_end = max((e.end for e in first), default=max(e.end for e in events))
    with mpl.rc_context(RC):
        fig = Figure(figsize=(3.5, 3.3))
        top, bottom = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1, 1.3], "hspace": 0.9})
        total = max(e.end for e in events)
        _draw(top, events, 0.0, total, scale=1.0)
        top.set_title(f"one iteration ({total:.3g} s)", fontsize=8, loc="left")
        top.set_xlabel("time (s)")
        _draw(bottom, first, zoom_start, zoom_end, scale=1e3)
        bottom.set_title("first microbatch: forward, then backward", fontsize=8, loc="left")
        bottom.set_xlabel(f"time (ms) from {zoom_start:.3g} s")
        kinds = []
        for e in events:
            if e.kind not in kinds:
                kinds.append(e.kind)
        from matplotlib.patches import Patch

        handles = [Patch(facecolor=KIND_COLOURS.get(k, "#777777"), label=KIND_LABELS.get(k, k)) for k in kinds]
        fig.legend(handles=handles, loc="lower center", ncol=3, frameon=False, fontsize=6.5,
                   bbox_to_anchor=(0.5, -0.02), handlelength=1.0, columnspacing=0.8)
        title = f"{meta.get('model', '')} on {meta.get('num_gpus', '')}x {meta.get('gpu', '')}"
        fig.suptitle(title, fontsize=8, y=0.99)
        fig.subplots_adjust(left=0.2, right=0.97, top=0.86, bottom=0.33)
        return _save(fig, out_dir, stem)


def _draw(ax, events, start, end, scale):
    for e in events:
        if e.end < start or e.start > end:
            continue
        y = 1 if e.stream == COMPUTE else 0
        ax.broken_barh([((e.start - start) * scale, e.duration * scale)], (y - 0.4, 0.8),
                       facecolors=KIND_COLOURS.get(e.kind, "#777777"), edgecolor="none")
    ax.set_yticks([0, 1], ["comm.", "compute"])
    ax.set_xlim(0, (end - start) * scale)
    ax.set_ylim(-0.6, 1.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_breakdown(row: dict[str, float], out_dir: str | Path, stem: str = "breakdown") -> list[Path]:
    """MAD-Max's breakdown: the iteration if every collective ran serialized after compute,
    against the iteration with overlap (exposed communication only), seconds."""
    from matplotlib.figure import Figure

    import matplotlib as mpl

    from .search.plots import RC, _save

    kinds = ["tp", "ep", "cp", "fsdp", "pp", "dp"]
    compute = row["time_compute_s"] + row["time_overlap_slowdown_s"]
    bubble = row["time_bubble_s"]
    serialized = {k: row[f"exposed_{k}_s"] + row.get(f"overlapped_{k}_s", 0.0) for k in kinds}
    exposed = {k: row[f"exposed_{k}_s"] for k in kinds}
    with mpl.rc_context(RC):
        fig = Figure(figsize=(3.5, 2.1))
        ax = fig.subplots()
        for y, label, comm in ((1, "serialized", serialized), (0, "overlapped", exposed)):
            left = 0.0
            for name, value, colour in [("compute", compute, KIND_COLOURS["gemm"]),
                                        ("bubble", bubble, KIND_COLOURS["bubble"])] + [
                    (k, comm[k], KIND_COLOURS[k]) for k in kinds]:
                if value > 0:
                    ax.barh(y, value, left=left, color=colour, edgecolor="white", linewidth=0.3,
                            label=None if y == 0 else (KIND_LABELS.get(name, name) if name != "compute" else "compute"))
                    left += value
            ax.text(left, y, f" {left:.3g} s", va="center", fontsize=7)
        ax.set_yticks([0, 1], ["overlapped\n(model)", "serialized"])
        ax.set_xlabel("time per iteration (s)")
        ax.set_xlim(0, max(sum(serialized.values()) + compute + bubble, 1e-12) * 1.22)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        fig.legend(loc="lower center", ncol=4, frameon=False, fontsize=6.5, bbox_to_anchor=(0.5, -0.02),
                   handlelength=1.0, columnspacing=0.8)
        fig.subplots_adjust(left=0.22, right=0.97, top=0.95, bottom=0.42)
        return _save(fig, Path(out_dir), stem)
