"""Shared helpers of the paper-figure scripts (``scripts/figures/fig*.py``).

Every figure script is one command (``python scripts/figures/figN_name.py [--quick]``) that
writes into :func:`out_dir` (``results/figures/`` of the repository, or ``$DSE_FIGURES_DIR``):

* ``<stem>.png`` (300 dpi) and ``<stem>.pdf`` (TrueType fonts, no creation date) by :func:`save`;
* ``<stem>.csv``, the data behind the figure, by :func:`write_csv`;
* one sentence with the figure's numbers in ``findings.json`` by :func:`finding` (a JSON object
  ``{stem: sentence}``; writers merge under a lock and replace the file atomically, so scripts may
  run in parallel).

The style is that of the search figures (:mod:`dse.search.plots`): 3.5 in wide (one column of a
two-column paper), 8 pt text, Okabe-Ito colours, styles applied in a ``matplotlib.rc_context``
(:func:`style`), figures drawn on ``matplotlib.figure.Figure`` (no pyplot, no GUI backend).

Use from a script in this folder::

    from common import GPU_COLORS, figure, finding, save, style, write_csv
    with style():
        fig = figure(2.6)
        ax = fig.add_subplot()
        ...
        save(fig, "fig9_example")
    write_csv(frame, "fig9_example")
    finding("fig9_example", "One sentence with the numbers.")
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(REPO))

from dse.search.plots import OKABE_ITO, RC, WIDTH_IN, _save, _si  # noqa: E402
from dse.search.results import _atomic  # noqa: E402
from dse.search.results import write_csv as _write_csv  # noqa: E402

#: Environment variable that redirects the output folder (tests use it).
ENV_OUT = "DSE_FIGURES_DIR"
FINDINGS = "findings.json"

#: Okabe-Ito colours in a fixed order for categorical series (yellow last: weak on white).
PALETTE = [OKABE_ITO[k] for k in ("blue", "orange", "green", "vermillion", "purple", "sky", "black", "yellow")]
#: One colour per GPU generation, the same in every figure.
GPU_COLORS = {
    "V100": OKABE_ITO["purple"],
    "A100": OKABE_ITO["blue"],
    "H100": OKABE_ITO["orange"],
    "H200": OKABE_ITO["sky"],
    "B200": OKABE_ITO["green"],
    "GB200": OKABE_ITO["vermillion"],
    "MI300X": OKABE_ITO["yellow"],
    "MI325X": OKABE_ITO["black"],
    "RTX PRO 6000": "#999999",
}
#: One marker per GPU generation (a second cue besides colour).
GPU_MARKERS = {"V100": "v", "A100": "o", "H100": "s", "H200": "P", "B200": "D", "GB200": "X", "MI300X": "^",
               "MI325X": "<", "RTX PRO 6000": "*"}
#: Exposed-communication kinds: (column, label, colour), the colours of dse.search.plots.TIME_PARTS.
COMM_KINDS = (
    ("exposed_tp_s", "TP", OKABE_ITO["orange"]),
    ("exposed_cp_s", "CP", OKABE_ITO["sky"]),
    ("exposed_pp_s", "PP", OKABE_ITO["yellow"]),
    ("exposed_fsdp_s", "FSDP", OKABE_ITO["green"]),
    ("exposed_dp_s", "DP", OKABE_ITO["vermillion"]),
    ("exposed_ep_s", "EP", OKABE_ITO["purple"]),
)

__all__ = [
    "REPO", "OKABE_ITO", "PALETTE", "GPU_COLORS", "GPU_MARKERS", "COMM_KINDS", "WIDTH_IN", "RC",
    "out_dir", "style", "figure", "save", "write_csv", "finding", "read_findings", "parser",
    "Timer", "gpu_family", "gpu_axis", "gpus_label", "si", "short_plan", "fmt_int",
]


# ----------------------------------------------------------------------------- output files
#: The data folder that sits beside the repository (``../shared``: validation cases, MAD-Max tables).
SHARED = REPO.parent / "shared"


def require_shared(stem: str, *paths: Path) -> None:
    """Exit with status 2 and one line naming what is missing when a figure's input data from
    ``../shared`` is not beside this checkout (instead of a traceback)."""
    missing = [p for p in paths if not p.exists()]
    if missing:
        names = ", ".join(str(p) for p in missing)
        print(f"{stem}: needs {names} (the shared data folder beside the repository, ../shared); "
              "not found, so this figure is skipped", file=sys.stderr)
        sys.exit(2)


def out_dir() -> Path:
    """The output folder, created: ``$DSE_FIGURES_DIR`` if set, else ``<repo>/results/figures``."""
    env = os.environ.get(ENV_OUT)
    path = Path(env) if env else REPO / "results" / "figures"
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def style() -> Iterator[None]:
    """The paper style (dse.search.plots.RC) for the block; nothing global changes."""
    import matplotlib as mpl

    with mpl.rc_context(RC):
        yield


def figure(height: float, width: float = WIDTH_IN, layout: str = "constrained") -> Any:
    """A new ``matplotlib.figure.Figure`` of one column's width (call inside :func:`style`)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout=layout)


def save(fig: Any, stem: str) -> list[Path]:
    """Write ``<stem>.png`` (300 dpi) and ``<stem>.pdf`` (fonttype 42, no CreationDate) into
    :func:`out_dir`, atomically; returns the two paths."""
    with style():  # pdf.fonttype and savefig.dpi are read when saving
        return _save(fig, out_dir(), stem)


def write_csv(df: pd.DataFrame, stem: str) -> Path:
    """Write ``df`` (without its index) as ``<stem>.csv`` into :func:`out_dir`, atomically."""
    return _write_csv(df.reset_index(drop=True), out_dir() / f"{stem}.csv")


def finding(stem: str, sentence: str) -> Path:
    """Record the one-sentence finding of figure ``stem`` in ``findings.json`` (merged with the
    other figures' under an exclusive lock, then replaced atomically); returns the file's path."""
    folder = out_dir()
    path = folder / FINDINGS
    fd = os.open(folder, os.O_RDONLY)  # lock the folder itself: no lock file is left behind
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        data = read_findings(folder)
        data[stem] = " ".join(sentence.split())
        text = json.dumps(dict(sorted(data.items())), indent=2, ensure_ascii=False) + "\n"
        with _atomic(path) as fh:
            fh.write(text.encode())
    finally:
        os.close(fd)  # releases the lock
    return path


def read_findings(folder: Path | None = None) -> dict[str, str]:
    """The findings recorded so far, ``{stem: sentence}`` (empty when none or unreadable)."""
    path = (folder or out_dir()) / FINDINGS
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


# ----------------------------------------------------------------------------- command line
def parser(doc: str | None, quick: bool = True) -> argparse.ArgumentParser:
    """An argument parser with the script's docstring as help and (optionally) ``--quick``."""
    p = argparse.ArgumentParser(description=(doc or "").strip().splitlines()[0] if doc else None)
    if quick:
        p.add_argument("--quick", action="store_true",
                       help="a reduced run (fewer GPU counts; seconds, for tests): the same files")
    return p


class Timer:
    """``with Timer("fig1_pareto"):`` prints the wall time of the block and the files written."""

    def __init__(self, stem: str):
        self.stem = stem
        self.start = 0.0
        self.seconds = 0.0

    def __enter__(self) -> "Timer":
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.seconds = time.perf_counter() - self.start
        if exc[0] is None:
            print(f"{self.stem}: {self.seconds:.1f} s -> {out_dir()}/{self.stem}.{{png,pdf,csv}}")
        return False


# ----------------------------------------------------------------------------- formatting
def gpu_family(name: str) -> str:
    """'H100-SXM-80GB' -> 'H100', 'GB200' -> 'GB200', 'V100 - 16GB' -> 'V100', 'RTX-PRO-6000-Server' ->
    'RTX PRO 6000'."""
    parts = str(name).replace(" ", "-").split("-")
    if parts[0].upper() == "RTX" and len(parts) >= 3:  # RTX PRO 6000: the series and model, not 'RTX'
        return " ".join(p.upper() for p in parts[:3])
    return parts[0].upper()


def gpu_axis(ax: Any, counts: Sequence[float], axis: str = "x") -> None:
    """A log2 axis with the given GPU counts as ticks (64, 128, ..., 8k, 16k)."""
    from matplotlib import ticker

    counts = sorted({float(c) for c in counts if c > 0})
    set_scale = ax.set_xscale if axis == "x" else ax.set_yscale
    target = ax.xaxis if axis == "x" else ax.yaxis
    set_scale("log", base=2)
    if len(counts) > 9:  # every other power of two
        counts = counts[::2]
    target.set_major_locator(ticker.FixedLocator(counts))
    target.set_major_formatter(ticker.FuncFormatter(gpus_label))
    target.set_minor_locator(ticker.NullLocator())


def gpus_label(x: float, _pos: Any = None) -> str:
    """GPU-count tick label: 64, 512, 1k, 16k."""
    if x <= 0:
        return ""
    return f"{x / 1024:g}k" if x >= 1024 and x % 1024 == 0 else f"{x:g}"


def si(x: float, _pos: Any = None) -> str:
    """Short number: 1.5k, 2M, 0.25 (also a matplotlib tick formatter)."""
    return _si(x, _pos)


def fmt_int(x: float) -> str:
    """12,345."""
    return f"{x:,.0f}" if math.isfinite(x) else "n/a"


def short_plan(row: Any, keys: Sequence[str] = ("tp", "pp", "cp", "vpp"), fsdp: bool = True,
               extras: bool = False) -> str:
    """'tp8 pp4 cp2' (degrees of 1 and vpp 1 left out; dp is the rest); ``fsdp`` appends 'fsdp'
    for ZeRO-3, ``extras`` the recompute mode. 'dp' when nothing else is listed."""
    def v(k: str) -> float:
        try:
            x = float(row[k])
        except (KeyError, TypeError, ValueError):
            return math.nan
        return x

    parts = [f"{k}{v(k):g}" for k in keys if math.isfinite(v(k)) and v(k) > 1]
    if fsdp and v("zero") >= 3:
        parts.append("fsdp")
    if extras:
        rc = v("recompute")
        if rc == 1:
            parts.append("sel.rc")
        elif rc == 2:
            parts.append("full rc")
    return " ".join(parts) if parts else "dp"


def finite(values: Any) -> np.ndarray:
    """A float array with the non-finite values removed."""
    a = np.asarray(values, dtype=np.float64)
    return a[np.isfinite(a)]


# ----------------------------------------------------------------------------- labels
#: Where :func:`place_labels` tries a label, in order: (dx, dy) offset in points, ha, va.
LABEL_SPOTS = (
    ((3.5, -3.0), "left", "top"),       # below right
    ((-3.5, 3.0), "right", "bottom"),   # above left
    ((-3.5, -3.0), "right", "top"),     # below left
    ((3.5, 3.0), "left", "bottom"),     # above right
    ((4.0, 0.0), "left", "center"),     # right
    ((3.5, -9.0), "left", "top"),       # further below right
    ((-3.5, 9.0), "right", "bottom"),   # further above left
)


def _renderer(fig: Any) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()  # fixes the (constrained) layout before anything is measured
    return fig.canvas.get_renderer()


def _obstacles(ax: Any, step_px: float = 1.5) -> np.ndarray:
    """Display coordinates of what a label must not cover: points along every line of ``ax``
    (step lines as drawn) and the centre and outline of every scatter marker."""
    from matplotlib.cbook import STEP_LOOKUP_MAP

    pts = []
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        x, y = (np.asarray(a, dtype=float) for a in line.get_data())
        style = line.get_drawstyle()
        if style in STEP_LOOKUP_MAP and style != "default":
            x, y = STEP_LOOKUP_MAP[style](x, y)
        xy = line.get_transform().transform(np.column_stack([x, y]))
        xy = xy[np.isfinite(xy).all(axis=1)]
        for a, b in zip(xy[:-1], xy[1:]):
            n = max(int(np.hypot(*(b - a)) / step_px), 1)
            pts.append(a + (b - a) * np.linspace(0.0, 1.0, n + 1)[:, None])
        if line.get_marker() not in (None, "None", "", " "):
            pts.append(xy)
    for coll in ax.collections:
        offsets = np.asarray(coll.get_offsets(), dtype=float)
        if offsets.size and coll.get_visible():
            xy = coll.get_offset_transform().transform(offsets)
            xy = xy[np.isfinite(xy).all(axis=1)]
            sizes = np.asarray(coll.get_sizes(), dtype=float)
            radius = (np.sqrt(sizes.max()) / 2.0 if sizes.size else 0.0) * ax.get_figure().dpi / 72.0
            ring = radius * np.column_stack([np.cos(np.arange(8) * np.pi / 4), np.sin(np.arange(8) * np.pi / 4)])
            pts.append(xy)
            pts.append((xy[:, None, :] + ring[None, :, :]).reshape(-1, 2))
    return np.concatenate(pts) if pts else np.empty((0, 2))


def place_labels(ax: Any, items: Sequence[tuple], fontsize: float = 6.0, pad_pt: float = 1.0,
                 spots: Sequence = LABEL_SPOTS, avoid: Sequence[Any] = ()) -> list[Any]:
    """Write short labels next to data points where they cover no line, marker, legend or other
    label and stay inside the axes; a label with no free spot is left out.

    ``items``: ``(x, y, text, color)`` tuples in data coordinates, most important first.
    ``avoid``: more artists (or Bbox objects in display pixels) to keep clear of; ``pad_pt``: the
    clearance around a label (points). Call after
    everything else is drawn on the figure (its layout is fixed here). Returns the placed
    annotations (``in_layout`` False, so the layout stays as measured).
    """
    from matplotlib.transforms import Bbox

    fig = ax.get_figure()
    renderer = _renderer(fig)
    obstacles = _obstacles(ax)
    frame = ax.get_window_extent(renderer)
    pad_px = pad_pt * fig.dpi / 72.0
    taken: list[Any] = []
    for artist in [ax.get_legend(), *avoid]:
        if artist is None:
            continue
        taken.append(artist if isinstance(artist, Bbox) else artist.get_window_extent(renderer))
    placed = []
    for x, y, text, color in items:
        for (dx, dy), ha, va in spots:
            ann = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va,
                              fontsize=fontsize, color=color, zorder=6, annotation_clip=False)
            ann.set_in_layout(False)
            box = ann.get_window_extent(renderer)
            grown = box.padded(pad_px)
            inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0 and box.y1 <= frame.y1)
            hits = obstacles.size and bool(
                ((obstacles[:, 0] >= grown.x0) & (obstacles[:, 0] <= grown.x1)
                 & (obstacles[:, 1] >= grown.y0) & (obstacles[:, 1] <= grown.y1)).any())
            if inside and not hits and not any(box.overlaps(t) for t in taken):
                taken.append(grown)
                placed.append(ann)
                break
            ann.remove()
    return placed


#: Corners :func:`place_note` tries: (x, y) in axes fractions, ha, va.
NOTE_CORNERS = (
    ((0.02, 0.98), "left", "top"),
    ((0.98, 0.98), "right", "top"),
    ((0.98, 0.02), "right", "bottom"),
    ((0.02, 0.02), "left", "bottom"),
)


def place_note(ax: Any, text: str, fontsize: float = 6.0, color: str = "#000000", grow: float = 1.35,
               tries: int = 12, corners: Sequence = NOTE_CORNERS, **kwargs: Any) -> Any:
    """Write a short note in a corner of ``ax`` where it covers no data (lines, markers), the
    legend or labels already placed; when every corner is taken, raise the top of the y axis
    (by ``grow`` per try, log or linear) until the first corner is free. Returns the Text."""
    fig = ax.get_figure()
    for attempt in range(tries + 1):
        renderer = _renderer(fig)
        obstacles = _obstacles(ax)
        taken = [t.get_window_extent(renderer) for t in ax.texts]
        if ax.get_legend() is not None:
            taken.append(ax.get_legend().get_window_extent(renderer))
        for (x, y), ha, va in corners:
            note = ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=fontsize, color=color,
                           zorder=6, **kwargs)
            note.set_in_layout(False)
            box = note.get_window_extent(renderer)
            hits = obstacles.size and bool(
                ((obstacles[:, 0] >= box.x0) & (obstacles[:, 0] <= box.x1)
                 & (obstacles[:, 1] >= box.y0) & (obstacles[:, 1] <= box.y1)).any())
            if not hits and not any(box.overlaps(t) for t in taken):
                return note
            note.remove()
        if attempt == tries:
            break
        lo, hi = ax.get_ylim()
        if ax.get_yscale() == "log":
            ax.set_ylim(lo, hi * grow)
        else:
            ax.set_ylim(lo, hi + (hi - lo) * (grow - 1.0))
        corners = corners[:1]
    (x, y), ha, va = corners[0]
    note = ax.text(x, y, text, transform=ax.transAxes, ha=ha, va=va, fontsize=fontsize, color=color, zorder=6,
                   **kwargs)
    note.set_in_layout(False)
    return note


def log_axis(ax: Any, axis: str = "y", subs: Sequence[float] = (1.0, 2.0, 5.0)) -> None:
    """A log axis labelled at 1, 2, 5 x 10^k (short SI labels: 200k, 1M), no minor labels."""
    from matplotlib import ticker

    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    target.set_major_locator(ticker.LogLocator(base=10.0, subs=tuple(subs)))
    target.set_major_formatter(ticker.FuncFormatter(si))
    target.set_minor_locator(ticker.LogLocator(base=10.0, subs=tuple(np.arange(1.0, 10.0))))
    target.set_minor_formatter(ticker.NullFormatter())
