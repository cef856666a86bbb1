"""Figure 2: which cloud instance trains a model fastest, cheapest and with the least energy?

The question of MAD-Max's Figure 1, asked of an LLM: Llama-2-13B pre-trained on 1e12 tokens
(4M-token batches; fp16, so that V100 can run it) on every GPU instance type of
``../shared/madmax/cloud_prices.csv`` that has a price (the "Internal" rows have none), with 64
to 2,048 GPUs (powers of two). Each row becomes a cluster:

* GPU: V100 16/32 GB -> V100-SXM2-16GB / -32GB, A100 40/80 GB -> A100-SXM-40GB / -80GB,
  H100 80 GB -> H100-SXM-80GB (the dse presets, with their calibration);
* ``gpus_per_node`` as listed; the NVLink domain is the node (Cloud_C's 16-GPU A100 node is
  one 16-GPU NVSwitch domain); rows marked "(no NVLink)": ``nvlink_domain`` 1 and
  ``nvlink_gbps`` 64 (PCIe Gen4 x16, both directions), the convention of the L40S preset, so
  every collective between GPUs crosses the network;
* ``scaleout_gbitps`` = inter_node_bw_per_gpu_GBps * 8 (GB/s -> Gbit/s, one direction);
* ``price_per_gpu_hour`` = hourly_rate_per_gpu_usd;
* ``power_w`` = tdp_per_gpu_W, which already holds the GPU's share of the node's other power
  (CPUs, memory, NICs, fans: tdp_other_per_node_W / gpus_per_node), so energy = power * GPUs * time;
* V100 (Volta) has no fused flash-attention kernel: its runs use ``flash_attention: false``.

For each instance and GPU count the best plan of an exhaustive search over a modest space
(tp [1, 2, 4, 8], pp [1, 2, 4, 8], vpp [1, 2], zero [0, 1, 3], recompute [none, selective,
full], microbatch [1, 2, 4]; every plan scored by :func:`dse.search.evaluation.score_point`, the
unit of work of the exhaustive driver) gives the time to train (days), the cost (USD) and the
energy (MWh). At a fixed GPU count the fastest plan is also the cheapest and the most frugal (cost
and energy are both proportional to GPUs x time).

Writes fig2_cloud.{png,pdf,csv} and its finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from common import (
    OKABE_ITO, REPO, WIDTH_IN, Timer, figure, finding, log_axis, parser, place_labels, place_note, save,
    short_plan, style, write_csv,
)
from dse.search.evaluation import score_point
from dse.search.pareto import pareto_mask
from dse.search.space import space_from_dict

STEM = "fig2_cloud"
PRICES = REPO.parent / "shared" / "madmax" / "cloud_prices.csv"
HOURS, DAY = 3600.0, 86400.0

#: cloud_prices.csv GPU name (without "(no NVLink)") -> dse preset.
PRESETS = {
    "V100 - 16GB": "V100-SXM2-16GB", "V100 - 32GB": "V100-SXM2-32GB",
    "A100 - 40GB": "A100-SXM-40GB", "A100 - 80GB": "A100-SXM-80GB", "H100 - 80GB": "H100-SXM-80GB",
}
#: PCIe Gen4 x16, both directions (GB/s): the GPU-to-GPU link of an instance without NVLink.
PCIE_GBPS = 64
PROVIDER_COLORS = {"Cloud_A": OKABE_ITO["blue"], "Cloud_B": OKABE_ITO["orange"], "Cloud_C": OKABE_ITO["green"]}
GPU_MARKERS = {"V100-16GB": "v", "V100-32GB": "^", "A100-40GB": "o", "A100-80GB": "s", "H100-80GB": "D"}


@dataclass
class Workload:
    """A model to train: what the instances are compared on."""

    key: str
    label: str
    scenario: dict  # the fixed parts of a search space's scenario block (model, precision, ...)
    train_tokens: float
    parallel: dict
    global_batch: dict
    volta_training: dict = field(default_factory=dict)  # training switches for V100 (no flash attention)


WORKLOADS = [
    Workload(
        key="llama2-13b", label="Llama-2-13B, $10^{12}$ tokens, fp16",
        scenario={"model": "llama2-13b", "precision": "fp16", "workload": "train"},
        train_tokens=1e12,
        parallel={"tp": [1, 2, 4, 8], "pp": [1, 2, 4, 8], "vpp": [1, 2], "cp": [1], "ep": [1], "zero": [0, 1, 3],
                  "sp": "auto", "recompute": ["none", "selective", "full"], "microbatch": [1, 2, 4]},
        global_batch={"tokens": 4 * 1024 * 1024},
        volta_training={"flash_attention": False},
    ),
    # ------------------------------------------------------------------ HOOK: DLRM-A
    # When dse models DLRM (the MAD-Max "DLRM_A" of ../shared/madmax/models.csv), add it here and
    # the figure grows a second column (time vs cost, time vs energy) for it; nothing else changes:
    # Workload(key="dlrm-a", label="DLRM-A, <N> samples, fp16",
    #          scenario={"model": "madmax-dlrm-a", "precision": "fp16", "workload": "train"},
    #          train_tokens=<samples>, parallel={...DLRM plan space...}, global_batch={...}),
]


def instances(path: Path = PRICES) -> pd.DataFrame:
    """The priced rows of cloud_prices.csv, with their dse cluster overrides."""
    rows = pd.read_csv(path)
    rows = rows[rows["hourly_rate_per_gpu_usd"].notna()].copy()
    out = []
    for _, r in rows.iterrows():
        name = str(r["gpu"]).strip()
        no_nvlink = "no nvlink" in name.lower()
        base = re.sub(r"\s*\(.*\)\s*$", "", name)
        preset = PRESETS[base]
        per_node = int(r["gpus_per_node"])
        cluster = {
            "gpu": preset,
            "gpus_per_node": per_node,
            "nvlink_domain": 1 if no_nvlink else per_node,
            "scaleout_gbitps": float(r["inter_node_bw_per_gpu_GBps"]) * 8.0,
            "price_per_gpu_hour": float(r["hourly_rate_per_gpu_usd"]),
            "power_w": float(r["tdp_per_gpu_W"]),
        }
        if no_nvlink:
            cluster["nvlink_gbps"] = PCIE_GBPS
        short_gpu = base.replace(" - ", "-")
        variant = " no NVLink" if no_nvlink else (f" {per_node}/node" if per_node != 8 else "")
        out.append({
            "row": int(r["row"]), "provider": str(r["provider"]), "gpu_name": name, "gpu_type": short_gpu,
            "preset": preset, "no_nvlink": no_nvlink, "gpus_per_node": per_node,
            "instance": f"{r['provider']} {short_gpu}{variant}", "cluster": cluster,
        })
    return pd.DataFrame(out)


def best_plans(work: Workload, inst: pd.DataFrame, counts: list[int]) -> pd.DataFrame:
    """The fastest feasible plan of every (instance, GPU count), with time, cost and energy."""
    rows = []
    for _, it in inst.iterrows():
        scenario = dict(work.scenario, cluster=dict(it["cluster"]))
        if it["preset"].startswith("V100") and work.volta_training:
            scenario["training"] = dict(work.volta_training)
        space = space_from_dict({
            "name": f"fig2-{work.key}-{it['row']}", "scenario": scenario, "gpus": counts,
            "parallel": work.parallel, "global_batch": work.global_batch,
            "train_tokens": work.train_tokens, "constraints": {"max_memory_fraction": 1.0},
        })
        for n in counts:
            df = score_point(space, n, {})
            ok = df[df["feasible"]]
            base = {"workload": work.key, **{k: it[k] for k in ("row", "provider", "instance", "gpu_type", "preset",
                                                                "gpus_per_node", "no_nvlink")},
                    "num_gpus": n, "plans_scored": len(df), "plans_feasible": len(ok),
                    "price_per_gpu_hour": it["cluster"]["price_per_gpu_hour"], "power_w": it["cluster"]["power_w"],
                    "scaleout_gbitps": it["cluster"]["scaleout_gbitps"],
                    "nvlink_domain": it["cluster"]["nvlink_domain"]}
            if ok.empty:
                rows.append(base)
                continue
            best = ok.loc[ok["tokens_per_s"].idxmax()]
            seconds = work.train_tokens / float(best["tokens_per_s"])
            rows.append({
                **base, "plan": short_plan(best, extras=True),
                **{k: float(best[k]) for k in ("tp", "pp", "dp", "vpp", "zero", "recompute", "microbatch",
                                               "tokens_per_s", "mfu", "memory_per_gpu_bytes")},
                "time_days": seconds / DAY,
                "cost_usd": it["cluster"]["price_per_gpu_hour"] * n * seconds / HOURS,
                "energy_mwh": it["cluster"]["power_w"] * n * seconds / 3.6e9,
            })
    return pd.DataFrame(rows)


def frontier(df: pd.DataFrame, y: str) -> pd.Series:
    """True for the points no other point beats in both time and ``y`` (both minimized)."""
    good = df["time_days"].notna().to_numpy()
    mask = np.zeros(len(df), dtype=bool)
    mask[good] = pareto_mask(df.loc[good, ["time_days", y]].to_numpy(float), ["minimize", "minimize"])
    return pd.Series(mask, index=df.index)


def draw(data: pd.DataFrame, counts: list[int]):
    n_work = len(WORKLOADS)
    fig = figure(5.0, width=WIDTH_IN * n_work)
    axes = np.atleast_2d(fig.subplots(2, n_work, sharex="col", squeeze=False))
    for col, work in enumerate(WORKLOADS):
        sub = data[(data["workload"] == work.key) & data["time_days"].notna()]
        for row, (metric, label, unit) in enumerate((("cost_usd", "cost", "USD"), ("energy_mwh", "energy", "MWh"))):
            ax = axes[row, col]
            for name, cur in sub.groupby("instance", sort=False):
                cur = cur.sort_values("num_gpus")
                color = PROVIDER_COLORS.get(cur["provider"].iat[0], OKABE_ITO["grey"])
                marker = GPU_MARKERS.get(cur["gpu_type"].iat[0], "o")
                dashed = bool(cur["no_nvlink"].iat[0]) or int(cur["gpus_per_node"].iat[0]) != 8
                hollow = bool(cur["no_nvlink"].iat[0])
                ax.plot(cur["time_days"], cur[metric], color=color, linewidth=0.7, alpha=0.8,
                        linestyle=(0, (2.5, 1.5)) if dashed else "-", zorder=2)
                ax.scatter(cur["time_days"], cur[metric], s=14, marker=marker, zorder=3, linewidths=0.7,
                           facecolors="white" if hollow else color, edgecolors=color)
            on = frontier(sub, metric)
            front = sub[on.to_numpy()].sort_values("time_days")
            fx, fy = front["time_days"].to_numpy(float), front[metric].to_numpy(float)
            # min cost reachable within a time budget: a staircase from the fastest point rightwards
            sx = np.append(fx, sub["time_days"].max() * 1.15)
            sy = np.append(fy, fy[-1])
            ax.step(sx, sy, where="post", color=OKABE_ITO["black"], linewidth=1.0, zorder=4)
            ax.scatter(fx, fy, s=36, facecolors="none", edgecolors=OKABE_ITO["black"], linewidths=0.8, zorder=5)
            log_axis(ax, "x")
            log_axis(ax, "y")
            ax.set_ylim(sub[metric].min() / 1.35, sub[metric].max() * 1.2)  # room for the tags below the front
            ax.set_ylabel(f"{label} ({unit})" if metric != "cost_usd" else "cost (USD)")
            if row == 1:
                ax.set_xlabel("time to train (days)")
            if row == 0:
                ax.set_title(work.label, loc="left")
            # the fastest and the cheapest (or most frugal) options: a tag at the point, details in a corner
            fastest = sub.loc[sub["time_days"].idxmin()]
            cheapest = sub.loc[sub[metric].idxmin()]
            lines, items = [], []
            low = "cheapest" if row == 0 else "least energy"
            for pt, what, tag in ((fastest, "fastest", "A"), (cheapest, low, "B")):
                value = f"${pt[metric] / 1e6:.2f}M" if metric == "cost_usd" else f"{pt[metric]:,.0f} MWh"
                lines.append(f"{tag} {what}: {pt['instance']} x{int(pt['num_gpus']):,}, "
                             f"{pt['time_days']:.2g} days, {value}")
                items.append((pt["time_days"], pt[metric], tag, OKABE_ITO["black"]))
            place_labels(ax, items, fontsize=7, spots=LABEL_SPOTS)
            if metric == "energy_mwh":
                lines.append("power per GPU incl. its share of the node (tdp_per_gpu_W)")
            place_note(ax, "\n".join(lines))
    legend(fig, data)
    return fig


#: Spots for the one-letter tags of the fastest and the cheapest point (above first: the front
#: runs along the bottom of the data).
LABEL_SPOTS = (
    ((0.0, 5.0), "center", "bottom"),
    ((-5.0, 4.0), "right", "bottom"),
    ((5.0, 4.0), "left", "bottom"),
    ((0.0, -5.0), "center", "top"),
    ((6.0, 0.0), "left", "center"),
    ((-6.0, 0.0), "right", "center"),
)


def legend(fig, data: pd.DataFrame) -> None:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=c, marker="", linewidth=1.4, label=p)
               for p, c in PROVIDER_COLORS.items() if p in set(data["provider"])]
    handles += [Line2D([], [], color=OKABE_ITO["black"], marker=m, linestyle="", markersize=4, label=g)
                for g, m in GPU_MARKERS.items() if g in set(data["gpu_type"])]
    handles += [
        Line2D([], [], color=OKABE_ITO["grey"], linestyle=(0, (2.5, 1.5)), marker="o", markersize=4,
               markerfacecolor="white", label="no NVLink (hollow)"),
        Line2D([], [], color=OKABE_ITO["grey"], linestyle=(0, (2.5, 1.5)), label="4 or 16 GPUs/node"),
        Line2D([], [], color=OKABE_ITO["black"], marker="o", markerfacecolor="none", markersize=5.5,
               linewidth=1.0, label="Pareto front"),
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=3, handlelength=1.8, columnspacing=0.9,
               handletextpad=0.4)


def main() -> None:
    args = parser(__doc__).parse_args()
    counts = [64, 128, 256] if args.quick else [2**k for k in range(6, 12)]
    with Timer(STEM):
        inst = instances()
        data = pd.concat([best_plans(w, inst, counts) for w in WORKLOADS], ignore_index=True)
        for metric in ("cost_usd", "energy_mwh"):
            data[f"front_{metric.split('_')[0]}"] = False
            for key, sub in data.groupby("workload"):
                data.loc[sub.index, f"front_{metric.split('_')[0]}"] = frontier(sub, metric).to_numpy()
        with style():
            save(draw(data, counts), STEM)
        write_csv(data, STEM)
        finding(STEM, sentence(data))


def sentence(data: pd.DataFrame) -> str:
    parts = []
    for work in WORKLOADS:
        sub = data[(data["workload"] == work.key) & data["time_days"].notna()]
        fast = sub.loc[sub["time_days"].idxmin()]
        cheap = sub.loc[sub["cost_usd"].idxmin()]
        frugal = sub.loc[sub["energy_mwh"].idxmin()]
        parts.append(
            f"{work.label.replace('$10^{12}$', '1e12')}: the fastest option is {fast['instance']} "
            f"x{int(fast['num_gpus'])} "
            f"({fast['time_days']:.2g} days, ${fast['cost_usd'] / 1e6:.2f}M), the cheapest {cheap['instance']} "
            f"x{int(cheap['num_gpus'])} ({cheap['time_days']:.3g} days, ${cheap['cost_usd'] / 1e6:.2f}M): the fastest "
            f"costs {fast['cost_usd'] / cheap['cost_usd']:.2f}x the cheapest and finishes "
            f"{cheap['time_days'] / fast['time_days']:.0f}x sooner; the least energy is "
            f"{frugal['instance']} x{int(frugal['num_gpus'])} ({frugal['energy_mwh']:.0f} MWh vs "
            f"{fast['energy_mwh']:.0f} MWh for the fastest); {int(sub['front_cost'].sum())} of {len(sub)} "
            f"(instance, GPU count) options are on the time-cost Pareto front"
        )
    return "; ".join(parts) + "."


if __name__ == "__main__":
    main()
