"""Figure 1: training throughput against GPU count, Pareto staircases of an exhaustive search.

Llama-2-70B (4M-token batches) and Llama-3-405B (16M-token batches) on A100-SXM-80GB (bf16),
H100-SXM-80GB (fp8) and B200-180GB (fp8) clusters of 64 to 16,384 GPUs (powers of two). Each of
the six curves is an exhaustive :func:`dse.search.runner.run_search` over

    tp [1, 2, 4, 8], pp [1, 2, 4, 8, 16], vpp [1, 2, 4], cp [1, 2], zero [1, 3],
    recompute [none, selective, full], microbatch [1, 2]

(plans whose degrees do not divide are left out by the enumeration: pp*vpp must divide the
layers, so vpp 4 never pairs with pp 16 for the 80 layers of Llama-2-70B). Llama-3-405B has 126
layers: pp must divide both 126 and a power-of-two GPU count, so only pp 1 and 2 (and with
63 layers per stage only vpp 1) remain; it searches pp [1, 2] with cp [1, 2, 4] instead.

Writes fig1_pareto.{png,pdf,csv} (the CSV: the best plan at every GPU count of every curve and
whether it is on the Pareto front) and its finding.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from common import (
    GPU_COLORS, GPU_MARKERS, Timer, figure, finding, gpu_axis, gpu_family, parser, place_labels, save,
    short_plan, si, style, write_csv,
)
from dse.search.pareto import feasible_rows, pareto_front
from dse.search.runner import run_search
from dse.search.space import space_from_dict

STEM = "fig1_pareto"
OBJECTIVES = [("tokens_per_s", "maximize"), ("num_gpus", "minimize")]
GPUS = (("A100-SXM-80GB", "bf16"), ("H100-SXM-80GB", "fp8"), ("B200-180GB", "fp8"))
MODELS = {
    "llama2-70b": {"label": "Llama-2-70B, 4M-token batch", "tokens": 4 * 1024 * 1024,
                   "pp": [1, 2, 4, 8, 16], "cp": [1, 2]},
    "llama3-405b": {"label": "Llama-3-405B, 16M-token batch (uneven stages)",
                    "tokens": 16 * 1024 * 1024, "pp": [1, 2, 4, 8, 16], "cp": [1, 2, 4]},
}
#: GPU counts whose best plan is written next to the point, in order of preference (each curve's
#: first point comes first); a label that would cover data or another label is moved or left out.
ANNOTATE = (512, 4096, 16384, 2048, 128, 256, 1024, 8192)
#: Labels per curve at most, and the fewest doublings between two labels of a curve.
MAX_LABELS, MIN_GAP = 3, 2


def space(model: str, gpu: str, precision: str, gpus_max: int) -> dict:
    m = MODELS[model]
    return {
        "name": f"fig1-{model}-{gpu}",
        "scenario": {"model": model, "precision": precision, "workload": "train", "cluster": {"gpu": gpu}},
        "gpus": {"min": 64, "max": gpus_max, "scale": "pow2"},
        "parallel": {"tp": [1, 2, 4, 8], "pp": m["pp"], "vpp": [1, 2, 4], "cp": m["cp"], "ep": [1],
                     "zero": [1, 3], "sp": "auto", "recompute": ["none", "selective", "full"],
                     "microbatch": [1, 2]},
        "global_batch": {"tokens": m["tokens"]},
        "objectives": [{"metric": k, "direction": d} for k, d in OBJECTIVES],
        "constraints": {"max_memory_fraction": 1.0},
        "search": {"mode": "exhaustive"},
    }


def search(model: str, gpu: str, precision: str, gpus_max: int, tmp: Path) -> tuple[pd.DataFrame, int]:
    """Best feasible plan per GPU count, flagged when on the Pareto front; and the configs scored."""
    summary = run_search(space_from_dict(space(model, gpu, precision, gpus_max)), out_dir=tmp / f"{model}-{gpu}",
                         mode="exhaustive", progress=False, plots=False)
    df = pd.read_parquet(summary.out_dir / "configs.parquet")
    ok = feasible_rows(df)
    best = ok.loc[ok.groupby("num_gpus")["tokens_per_s"].idxmax()].sort_values("num_gpus")
    front = pareto_front(ok, OBJECTIVES)
    best = best.assign(on_front=best["num_gpus"].isin(front["num_gpus"]).to_numpy())
    keep = ["num_gpus", "tp", "pp", "dp", "cp", "vpp", "zero", "recompute", "microbatch", "global_batch",
            "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "memory_per_gpu_bytes", "iteration_time_s",
            "exposed_comm_s", "on_front"]
    out = best[keep].assign(model=model, gpu=gpu, precision=precision, plan=[short_plan(r) for _, r in best.iterrows()])
    scored = {int(n): int(c) for n, c in df.groupby("num_gpus").size().items()}
    feasible = {int(n): int(c) for n, c in ok.groupby("num_gpus").size().items()}
    out["configs_scored"] = out["num_gpus"].map(scored)
    out["configs_feasible"] = out["num_gpus"].map(feasible)
    return out, len(df)


def draw(data: pd.DataFrame, counts: list[int]):
    fig = figure(5.4)
    axes = fig.subplots(2, 1, sharex=True)
    panels = []
    for ax, (model, m) in zip(axes, MODELS.items()):
        sub = data[data["model"] == model]
        labels: list = []
        panels.append((ax, labels))
        for gpu, precision in GPUS:
            fam = gpu_family(gpu)
            cur = sub[sub["gpu"] == gpu].sort_values("num_gpus")
            if cur.empty:
                continue
            color = GPU_COLORS[fam]
            x = cur["num_gpus"].to_numpy(float)
            y = cur["tokens_per_s"].to_numpy(float)
            on = cur["on_front"].to_numpy(bool)
            fx, fy = x[on], y[on]
            # staircase: the best throughput reachable with at most x GPUs, to the last count searched
            sx, sy = np.append(fx, counts[-1]), np.append(fy, fy[-1])
            ax.step(sx, sy, where="post", color=color, linewidth=1.2, zorder=3)
            ax.scatter(fx, fy, s=16, marker=GPU_MARKERS[fam], color=color, zorder=4, linewidths=0,
                       label=f"{fam} ({precision})")
            if (~on).any():  # a best plan that more GPUs do not improve: off the front
                ax.scatter(x[~on], y[~on], s=16, marker=GPU_MARKERS[fam], facecolors="white", edgecolors=color,
                           linewidths=0.7, zorder=4)
            labels.append((cur, color))
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(si)
        ax.yaxis.set_minor_formatter(lambda *_: "")
        ax.set_ylabel("throughput (tokens/s)")
        ax.set_title(m["label"], loc="left")
        ax.legend(loc="upper left", handletextpad=0.3, borderaxespad=0.2)
    gpu_axis(axes[-1], counts)
    axes[-1].set_xlabel("GPUs")
    axes[0].tick_params(labelbottom=True)
    lo, hi = counts[0], counts[-1]
    for ax in axes:
        ax.set_xlim(lo / 1.25, hi * 1.6)
        lo_y, hi_y = ax.get_ylim()
        ax.set_ylim(lo_y / 1.6, hi_y * 1.3)  # room for labels below the lowest and above the highest curve
    for ax, labels in panels:
        items = []
        for rank in range(MAX_LABELS):  # round robin: every curve gets its first label before any its second
            for cur, color in labels:
                picks = pick_counts(cur["num_gpus"].astype(int).tolist())
                if rank < len(picks):
                    row = cur[cur["num_gpus"] == picks[rank]].iloc[0]
                    items.append((row["num_gpus"], row["tokens_per_s"], row["plan"], color))
        place_labels(ax, items)
    return fig


def pick_counts(counts: list[int]) -> list[int]:
    """The GPU counts of a curve to label, preferred first, at least MIN_GAP doublings apart."""
    order = [counts[0]] + [n for n in ANNOTATE if n in counts and n != counts[0]]
    chosen: list[int] = []
    for n in order:
        if all(abs(np.log2(n) - np.log2(c)) >= MIN_GAP for c in chosen):
            chosen.append(n)
    return chosen


def main() -> None:
    args = parser(__doc__).parse_args()
    gpus_max = 512 if args.quick else 16384
    counts = [2**k for k in range(6, int(np.log2(gpus_max)) + 1)]
    with Timer(STEM):
        frames, total = [], 0
        with tempfile.TemporaryDirectory(prefix="dse-fig1-") as tmp:
            for model in MODELS:
                for gpu, precision in GPUS:
                    best, n = search(model, gpu, precision, gpus_max, Path(tmp))
                    frames.append(best)
                    total += n
        data = pd.concat(frames, ignore_index=True)
        with style():
            save(draw(data, counts), STEM)
        cols = ["model", "gpu", "precision", "num_gpus", "plan", "tp", "pp", "dp", "cp", "vpp", "zero", "recompute",
                "microbatch", "global_batch", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "memory_per_gpu_bytes",
                "iteration_time_s", "exposed_comm_s", "on_front", "configs_scored", "configs_feasible"]
        write_csv(data[cols], STEM)
        finding(STEM, sentence(data, counts, total))


def sentence(data: pd.DataFrame, counts: list[int], total: int) -> str:
    at = 1024 if 1024 in counts else counts[-1]
    parts = []
    for model in MODELS:
        sub = data[(data["model"] == model) & (data["num_gpus"] == at)].set_index("gpu")
        per = {gpu_family(g): float(sub.loc[g, "tokens_per_s_per_gpu"]) for g, _ in GPUS if g in sub.index}
        text = ", ".join(f"{k} {v:,.0f}" for k, v in per.items())
        ratio = ""
        if {"A100", "H100", "B200"} <= per.keys():
            ratio = (f" (B200/H100/A100 = {per['B200'] / per['A100']:.1f} : {per['H100'] / per['A100']:.1f} : 1,"
                     f" best plans {sub.loc['B200-180GB', 'plan']} / {sub.loc['H100-SXM-80GB', 'plan']} /"
                     f" {sub.loc['A100-SXM-80GB', 'plan']})")
        parts.append(f"{MODELS[model]['label'].split(',')[0]} {text} tokens/s per GPU{ratio}")
    return (f"At {at:,} GPUs the best plan of an exhaustive search ({total:,} plans scored) trains "
            + "; ".join(parts) + " (A100 bf16, H100 and B200 fp8).")


if __name__ == "__main__":
    main()
