"""Figures of one configuration: the two-stream timeline and the time breakdown (serialized
against overlapped communication, as MAD-Max draws it; prefill against decode for serving).

Both take what :func:`dse.trace.scenario_trace` returns: the events and ``meta``, whose
``breakdown`` holds the bars (the cost model's own terms) and ``kind`` the kind of run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .trace import COMPUTE, Event

#: Colours per kind of operation (Okabe-Ito first, then Tol's muted and light palettes). Greys
#: are left to the blocks of later passes (light: forward/prefill, dark: backward/decode); the
#: bubble and the overlap slowdown are white and hatched (:data:`KIND_HATCHES`), as in the search
#: figures (:data:`dse.search.plots.TIME_PARTS`).
KIND_COLOURS = {
    "gemm": "#0072B2", "attention": "#56B4E9", "elementwise": "#BBCC33", "head": "#000000",
    "recompute": "#CC79A7", "tp": "#E69F00", "ep": "#D55E00", "cp": "#009E73", "fsdp": "#F0E442",
    "dp": "#882255", "pp": "#44AA99", "bubble": "#FFFFFF", "optimizer": "#332288",
    "slowdown": "#FFFFFF", "forward": "#C8C8C8", "backward": "#7A7A7A", "offload": "#999933",
    "host": "#661100", "power_cap": "#CC3311", "adp_wait": "#FFFFFF", "queue": "#FFFFFF",
    # serving
    "kv_read": "#117733", "overhead": "#DDCC77", "prefill": "#C8C8C8", "decode": "#7A7A7A",
    # DLRM
    "embedding": "#117733", "a2a": "#AA4499", "emb_ar": "#CC6677", "interaction": "#88CCEE",
}
KIND_LABELS = {
    "gemm": "GEMMs", "attention": "attention", "elementwise": "elementwise", "head": "LM head",
    "recompute": "recompute", "tp": "TP collectives", "ep": "expert all-to-all",
    "cp": "CP K/V ring", "fsdp": "FSDP gathers", "dp": "DP reduction", "pp": "pipeline p2p",
    "bubble": "bubble", "optimizer": "optimizer", "slowdown": "overlap slowdown",
    "forward": "later fwd (block)", "backward": "later bwd (block)", "offload": "activation offload",
    "host": "host launch stall", "power_cap": "power limit (slowed clocks)",
    "adp_wait": "waiting for attention-DP ranks", "queue": "waiting for room (token budget)",
    "kv_read": "KV-cache reads", "overhead": "engine overhead", "prefill": "later prefill (block)",
    "decode": "later decode (block)",
    "embedding": "embedding lookup/update", "a2a": "embedding all-to-all", "emb_ar": "emb. grad all-reduce",
    "interaction": "interaction",
}
#: Hatches of the kinds that are time lost rather than work (drawn in :data:`HATCH_COLOUR`).
KIND_HATCHES = {"bubble": "....", "slowdown": "////", "adp_wait": "xx", "queue": "\\\\"}
HATCH_COLOUR = "#333333"
#: Labels that differ per kind of run.
KIND_LABELS_BY_RUN = {
    "llm_inference": {"tp": "TP all-reduce", "pp": "pipeline send", "attention": "prompt attention",
                      "prefill": "prefill (block)", "decode": "decode (block)"},
    "dlrm_train": {"optimizer": "dense optimizer", "overhead": "launch overhead", "ep": "MoE all-to-all",
                   "tp": "TP all-reduce", "dp": "dense grad all-reduce", "elementwise": "loss"},
    "vit_train": {"head": "classifier head"},
    "vit_inference": {"head": "classifier head"},
}
KIND_LABELS_BY_RUN["dlrm_inference"] = KIND_LABELS_BY_RUN["dlrm_train"]


def _labels(meta: dict[str, Any]) -> dict[str, str]:
    return {**KIND_LABELS, **KIND_LABELS_BY_RUN.get(meta.get("kind", ""), {}), **meta.get("labels", {})}


#: Legend: inches per row of entries, and the room below the lowest axes' tick labels.
LEGEND_ROW_IN = 0.15
AXIS_LABEL_IN = 0.45


def _legend_layout(names: list[str], width_chars: int = 60) -> tuple[int, int]:
    """(columns, rows) of a legend whose longest entry fits ``width_chars`` per figure width."""
    longest = max((len(n) for n in names), default=1) + 4
    ncol = max(1, min(4, width_chars // longest))
    return ncol, -(-len(names) // ncol)


def _unit(seconds: float) -> tuple[str, float]:
    """A readable time unit for a span: (name, factor from seconds)."""
    if seconds >= 1.0:
        return "s", 1.0
    if seconds >= 1e-3:
        return "ms", 1e3
    return "µs", 1e6


def _zoom(events: list[Event], meta: dict[str, Any]) -> tuple[list[Event], str]:
    """The events of the lower panel and its title, per kind of run."""
    kind = meta.get("kind", "llm_train")
    if kind == "llm_inference":
        phase = "decode" if any(e.phase == "decode" for e in events) else "prefill"
        first = [e for e in events if e.phase == phase and e.step == 0 and e.layer in (0, 1)]
        layers = max((e.layer for e in events if e.layer is not None), default=0) + 1
        what = "first decode step" if phase == "decode" else "first prefill iteration"
        return first, f"{what}: layers 0-1 of {layers} on this GPU"
    if kind in ("dlrm_train", "dlrm_inference"):
        forward = [e for e in events if e.phase == "forward"]
        if any(e.kind == "a2a" for e in forward):
            return forward, "forward: embedding all-to-all under the bottom MLP"
        return forward, f"forward (no all-to-all under '{meta.get('emb_sharding', '')}' embeddings)"
    first = [e for e in events if e.microbatch == 0 and e.phase in ("forward", "backward")]
    if kind == "vit_inference" or not any(e.phase == "backward" for e in first):
        return first, "first microbatch: forward (nothing runs backward)"
    return first, "first microbatch: forward, then backward"


def _top_title(meta: dict[str, Any], total: float) -> str:
    kind = meta.get("kind", "llm_train")
    unit, f = _unit(total)
    if kind == "llm_inference":
        from .report import fmt

        u, g = _unit(meta["itl_s"])
        if meta.get("phase") == "prefill instance":
            v, h = _unit(meta["ttft_s"])
            n = int(meta["prefill_iterations"])
            return f"TTFT {fmt(meta['ttft_s'] * h, 3)} {v}: the prompt's {n} iteration{'s' * (n != 1)}"
        return (f"TTFT {fmt(meta['ttft_s'] * g, 3)} {u}, then {meta['decode_steps_shown']}/"
                f"{meta['decode_steps_total']} decode steps × ITL {fmt(meta['itl_s'] * g, 3)} {u}")
    if kind in ("dlrm_train", "dlrm_inference"):
        what = "training" if kind == "dlrm_train" else "inference"
        return f"one {what} step ({total * f:.3g} {unit}; embeddings: {meta.get('emb_sharding', '?')})"
    if kind == "vit_inference":
        return f"one step: a forward pass ({total * f:.3g} {unit})"
    return f"one iteration ({total * f:.3g} {unit})"


def plot_timeline(events: list[Event], meta: dict[str, Any], out_dir: str | Path, stem: str = "timeline") -> list[Path]:
    """Two panels: the whole trace, and a zoom (the first microbatch of a training iteration,
    the first decode step of a request, the forward of a DLRM step)."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    import matplotlib as mpl

    from .search.plots import RC, _save

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    total = max(e.end for e in events)
    zoomed, zoom_title = _zoom(events, meta)
    zoom_start = min((e.start for e in zoomed), default=0.0)
    zoom_end = max((e.end for e in zoomed), default=total)
    labels = _labels(meta)
    kinds = []
    for e in events:
        if e.kind not in kinds:
            kinds.append(e.kind)
    ncol, rows = _legend_layout([labels.get(k, k) for k in kinds])
    legend_in = AXIS_LABEL_IN + LEGEND_ROW_IN * rows
    height = 2.9 + legend_in
    with mpl.rc_context(RC):
        fig = Figure(figsize=(3.5, height))
        top, bottom = fig.subplots(2, 1, gridspec_kw={"height_ratios": [1, 1.3], "hspace": 1.1})
        unit, f = _unit(total)
        _draw(top, events, 0.0, total, scale=f)
        if meta.get("kind") == "llm_inference":
            if meta.get("decode_steps_shown"):
                top.axvline(meta["ttft_s"] * f, color="#333333", linewidth=0.6, linestyle="--")
            for ax in (top, bottom):
                ax.text(0.01, 0.0, "collectives run in-stream (compute row)", transform=ax.get_yaxis_transform(),
                        va="center", fontsize=6, color="#555555",
                        bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5})
        top.set_title(_top_title(meta, total), fontsize=7, loc="left")
        top.set_xlabel(f"time ({unit})")
        zunit, zf = _unit(max(zoom_end - zoom_start, 1e-12))
        _draw(bottom, zoomed, zoom_start, zoom_end, scale=zf)
        bottom.set_title(zoom_title, fontsize=7, loc="left")
        start_unit, sf = _unit(max(zoom_start, 1e-12))
        bottom.set_xlabel(f"time ({zunit})" + (f" from {zoom_start * sf:.3g} {start_unit}" if zoom_start > 0 else ""))
        handles = [Patch(label=labels.get(k, k), **_style(k, edge=True)) for k in kinds]
        fig.legend(handles=handles, loc="lower center", ncol=ncol, frameon=False, fontsize=6.5,
                   bbox_to_anchor=(0.5, 0.0), handlelength=1.0, columnspacing=0.8)
        fig.suptitle(_suptitle(meta), fontsize=8, y=0.99)
        fig.subplots_adjust(left=0.2, right=0.97, top=1.0 - 0.5 / height, bottom=legend_in / height)
        return _save(fig, out_dir, stem)


def _suptitle(meta: dict[str, Any]) -> str:
    what = {"llm_inference": "serving", "dlrm_train": "training", "dlrm_inference": "inference",
            "vit_train": "training", "vit_inference": "inference", "llm_train": ""}.get(meta.get("kind", ""), "")
    if meta.get("phase") in ("prefill instance", "decode instance"):
        what = meta["phase"]
    model = str(meta.get("model", ""))
    if len(model) > 28:
        model = model[:27] + "…"
    return f"{model} {what} on {meta.get('num_gpus', '')}x {meta.get('gpu', '')}".replace("  ", " ")


def _style(kind: str, edge: bool) -> dict[str, Any]:
    """Fill (and hatch) of a kind of operation. ``edge``: outline it (a legend patch, a bar), so a
    white hatched part stands out from the background; else the hatch alone is drawn."""
    face = KIND_COLOURS.get(kind, "#777777")
    hatch = KIND_HATCHES.get(kind)
    if hatch is None:
        return {"facecolor": face, "edgecolor": "white" if edge else "none", "linewidth": 0.3 if edge else 0.0}
    # the hatch takes the edge's colour; a zero-width edge draws the hatch only
    return {"facecolor": face, "hatch": hatch, "edgecolor": HATCH_COLOUR, "linewidth": 0.4 if edge else 0.0}


def _draw(ax, events, start, end, scale):
    groups: dict[tuple[int, str], list[tuple[float, float]]] = {}
    for e in events:  # one collection per stream and kind (thousands of ops draw fast)
        if e.end < start or e.start > end:
            continue
        y = 1 if e.stream == COMPUTE else 0
        groups.setdefault((y, e.kind), []).append(((e.start - start) * scale, e.duration * scale))
    for (y, kind), spans in groups.items():
        ax.broken_barh(spans, (y - 0.4, 0.8), **_style(kind, edge=False))
    ax.set_yticks([0, 1], ["comm.", "compute"])
    ax.set_xlim(0, (end - start) * scale)
    ax.set_ylim(-0.6, 1.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)


def plot_breakdown(breakdown: dict[str, Any], out_dir: str | Path, stem: str = "breakdown",
                   meta: dict[str, Any] | None = None) -> list[Path]:
    """Horizontal stacked bars of ``breakdown`` (``meta["breakdown"]``: bars of (name, kind,
    time) parts). Training and DLRM: MAD-Max's serialized bar (every collective after
    compute) against the model's overlap; serving: the prefill (TTFT) against a decode step
    (ITL). A training row (the columns of :func:`dse.evaluate`) is accepted too."""
    from matplotlib.figure import Figure

    import matplotlib as mpl

    from .search.plots import RC, _save
    from .trace import training_breakdown

    if "bars" not in breakdown:  # a row of dse.evaluate (LLM training)
        breakdown = training_breakdown(breakdown)
    meta = meta or {}
    labels = _labels(meta)
    bars = breakdown["bars"]
    unit = breakdown.get("unit", "s")
    names: list[str] = []
    for bar in bars:
        for name, _, _ in bar["parts"]:
            if labels.get(name, name) not in names:
                names.append(labels.get(name, name))
    ncol, rows = _legend_layout(names)
    legend_in = AXIS_LABEL_IN + LEGEND_ROW_IN * rows
    height = 1.5 + legend_in
    with mpl.rc_context(RC):
        fig = Figure(figsize=(3.5, height))
        ax = fig.subplots()
        seen: dict[str, Any] = {}
        longest = max(bar["total_s"] for bar in bars)
        for y, bar in zip(range(len(bars) - 1, -1, -1), bars):
            left = 0.0
            for name, kind, value in bar["parts"]:
                label = labels.get(name, name)
                ax.barh(y, value, left=left, label=None if label in seen else label, **_style(kind, edge=True))
                seen[label] = True
                left += value
            ax.text(left + 0.01 * longest, y, f"{left:.3g} {unit}", va="center", fontsize=7)
        ax.set_yticks(list(range(len(bars) - 1, -1, -1)), [bar["label"] for bar in bars])
        ax.set_xlabel(breakdown.get("xlabel", f"time ({unit})"))
        ax.set_xlim(0, max(longest, 1e-12) * 1.25)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        if meta.get("kind") == "llm_inference":
            ax.set_title("the serving model runs collectives in-stream (no overlap)", fontsize=6.5, loc="left")
        handles, names = ax.get_legend_handles_labels()
        fig.legend(handles, names, loc="lower center", ncol=ncol, frameon=False, fontsize=6.5,
                   bbox_to_anchor=(0.5, 0.0), handlelength=1.0, columnspacing=0.8)
        fig.subplots_adjust(left=0.22, right=0.97, top=1.0 - 0.2 / height, bottom=legend_in / height)
        return _save(fig, Path(out_dir), stem)

