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
* ``power_w`` = tdp_gpus_per_node_W / gpus_per_node, the GPU's power limit; the energy is each
  GPU's average board power as the cost model gives it (``power_per_gpu_w``: an idle floor and
  the tensor- and memory-bound shares of the step, ``dse/costmodel/power.py``) plus its share of
  the node's other power at MAD-Max's figure (CPUs, memory, NICs, fans: tdp_other_per_node_W /
  gpus_per_node), times GPUs x time (MAD-Max counts tdp_per_gpu_W x GPUs x time);
* V100 (Volta) has no fused flash-attention kernel: its runs use ``flash_attention: false``.

For each instance and GPU count the best plan of an exhaustive search over a modest space
(tp [1, 2, 4, 8], pp [1, 2, 4, 8], vpp [1, 2], zero [0, 1, 3], recompute [none, selective,
full], microbatch [1, 2, 4]; every plan scored by :func:`dse.search.evaluation.score_point`, the
unit of work of the exhaustive driver) gives the time to train (days), the cost (USD) and the
energy (MWh). At a fixed GPU count the fastest plan is also the cheapest (cost is proportional to
GPUs x time); its energy also follows the power its steps draw.

The second column asks the same of MAD-Max's own recommendation model, DLRM-A (``DLRM_A`` of
``../shared/madmax/models.csv``: 4,096 tables of 2.08M rows x 94, 15 lookups each, FP16 tables
as its bytes_per_emb_param says; ten 3994-wide bottom and top layers), imported with
:func:`dse.madmax.to_scenario` together with the batch of MAD-Max's cloud task
(``dlrm_train_cloud``: 65,536 samples per step, kept fixed at every GPU count), trained on
10^12 samples in fp16 mixed precision (MAD-Max's 4-byte dense weights would leave V100 without
tensor cores) on the same instances. As in MAD-Max (and ``scripts/calibrate_dlrm.py --madmax``)
the top MLP reads no feature interaction (``interaction: concat``: square mlp_dim layers). Every
(instance, GPU count) scores all the embedding shardings the DLRM cost model supports
(table-wise, row-wise, table-row-wise, HugeCTR-style auto and hierarchical auto, MAD-Max's
node-sharded 2D plan, replicated;
not hybrid, which needs one-hot tables, nor column-wise: with 4,096 identical tables the
table-wise plan is already even on every GPU count here, and column slicing multiplies the shards
by 23, was 0.2% or more slower than table-wise on every instance at 64, 512 and 2,048 GPUs, and
would add ten seconds of planning) times the dense plans tp [1, 2, 4, 8] x zero [0, 3], all in
one vectorized :func:`dse.costmodel.dlrm.evaluate_dlrm` call, and keeps the fastest feasible
plan (the first in that order on a tie: the auto planner places identical tables as table-wise
does, so the two tie).

Writes fig2_cloud.{png,pdf,csv} and its finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from common import (
    OKABE_ITO, SHARED, WIDTH_IN, Timer, figure, finding, log_axis, parser, place_labels, place_note,
    require_shared, save, short_plan, style, write_csv,
)
from dse.costmodel import dlrm as cm
from dse.madmax import to_scenario
from dse.scenario import scenario_from_dict
from dse.search.evaluation import score_point
from dse.search.pareto import pareto_mask
from dse.search.space import space_from_dict
from dse.specs import ClusterSpec, ParallelSpec
from dse.workloads import dlrm as wl

STEM = "fig2_cloud"
MADMAX = SHARED / "madmax"
PRICES = MADMAX / "cloud_prices.csv"
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
]


@dataclass
class DLRMWorkload:
    """A MAD-Max DLRM to train: its model and task rows, the samples and the plan space."""

    key: str
    label: str
    model: str  # models.csv name
    task: str  # tasks.csv name
    system: str  # systems.csv name the import needs (its cluster is replaced by each instance's)
    train_samples: float
    precision: str
    tp: tuple[int, ...] = (1, 2, 4, 8)
    zero: tuple[int, ...] = (0, 3)
    skip: tuple[str, ...] = ("column",)  # see the module docstring


DLRM_WORKLOADS = [
    DLRMWorkload(key="dlrm-a", label="DLRM-A (MAD-Max), $10^{12}$ samples, fp16", model="DLRM_A",
                 task="dlrm_train_cloud", system="CloudA-128-p4d.24xlarge", train_samples=1e12, precision="fp16"),
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
            "power_w": float(r["tdp_gpus_per_node_W"]) / per_node,
        }
        if no_nvlink:
            cluster["nvlink_gbps"] = PCIE_GBPS
        short_gpu = base.replace(" - ", "-")
        variant = " no NVLink" if no_nvlink else (f" {per_node}/node" if per_node != 8 else "")
        out.append({
            "row": int(r["row"]), "provider": str(r["provider"]), "gpu_name": name, "gpu_type": short_gpu,
            "preset": preset, "no_nvlink": no_nvlink, "gpus_per_node": per_node,
            "instance": f"{r['provider']} {short_gpu}{variant}", "cluster": cluster,
            "other_w": float(r["tdp_other_per_node_W"]) / per_node,
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
                "power_per_gpu_w": float(best["power_per_gpu_w"]),
                "energy_mwh": (float(best["power_per_gpu_w"]) + it["other_w"]) * n * seconds / 3.6e9,
            })
    return pd.DataFrame(rows)


def madmax_row(table: str, name: str) -> dict:
    """One configuration of ../shared/madmax/<table>.csv by name, as the MAD-Max JSON file holds it."""
    from dse.madmax import csv_configs

    for config in csv_configs(MADMAX)[table].values():
        if config.get("name") == name:
            return config
    raise KeyError(f"{name} not in {table}.csv")


def dlrm_scenario(work: DLRMWorkload):
    """The imported MAD-Max scenario (model, embedding dtype, global batch) at the figure's precision."""
    imported = to_scenario(madmax_row("models", work.model), madmax_row("systems", work.system),
                           madmax_row("tasks", work.task))
    imported["precision"] = work.precision
    training = {k: v for k, v in (imported.get("training") or {}).items() if k == "dlrm"}
    return scenario_from_dict({**imported, "training": training}), int(imported["parallel"]["global_batch"])


def dlrm_best_plans(work: DLRMWorkload, inst: pd.DataFrame, counts: list[int]) -> pd.DataFrame:
    """The fastest feasible DLRM plan of every (instance, GPU count): every sharding x dense plan of
    every option scored in one vectorized cost-model call."""
    base, batch = dlrm_scenario(work)
    model = wl.model_constants(base.model)
    one_hot = all(t.pooling <= 1.0 for t in base.model.tables)
    shards = [c for c in wl.CANDIDATES if c not in work.skip and (one_hot or c != "hybrid")]
    rows, meta = [], []
    for _, it in inst.iterrows():
        for n in counts:
            cluster = ClusterSpec.model_validate({**it["cluster"], "num_gpus": n})
            for tp in work.tp:
                for zero in work.zero:
                    plan = ParallelSpec(tp=tp, zero=zero, global_batch=batch, microbatch=batch // n)
                    cols = wl.scenario_columns(base.model_copy(update={"cluster": cluster, "parallel": plan}))
                    for shard in shards:  # only the sharding code differs between these rows
                        rows.append({**cols, "emb_sharding": float(cm.SHARDING[shard])})
                        meta.append((int(it["row"]), n, tp, zero, shard))
    table = pd.DataFrame(rows)
    out = cm.evaluate_dlrm(model, {k: table[k].to_numpy() for k in table})
    scored = pd.DataFrame(meta, columns=["row", "num_gpus", "tp", "zero", "emb_sharding"]).assign(
        iteration_time_s=out["iteration_time_s"], feasible=out["feasible"] > 0,
        memory_per_gpu_bytes=out["memory_per_gpu_bytes"], mfu=out["mfu"], power_per_gpu_w=out["power_per_gpu_w"])
    per_option = len(work.tp) * len(work.zero) * len(shards)
    feasible = scored[scored["feasible"]]
    fastest = feasible.loc[feasible.groupby(["row", "num_gpus"])["iteration_time_s"].idxmin()]
    fastest = fastest.set_index(["row", "num_gpus"])
    n_ok = feasible.groupby(["row", "num_gpus"]).size()
    result = []
    for _, it in inst.iterrows():
        for n in counts:
            key = (int(it["row"]), n)
            base_row = {"workload": work.key, **{k: it[k] for k in ("row", "provider", "instance", "gpu_type", "preset",
                                                                    "gpus_per_node", "no_nvlink")},
                        "num_gpus": n, "plans_scored": per_option, "plans_feasible": int(n_ok.get(key, 0)),
                        "price_per_gpu_hour": it["cluster"]["price_per_gpu_hour"], "power_w": it["cluster"]["power_w"],
                        "scaleout_gbitps": it["cluster"]["scaleout_gbitps"],
                        "nvlink_domain": it["cluster"]["nvlink_domain"]}
            if key not in fastest.index:
                result.append(base_row)
                continue
            best = fastest.loc[key]
            samples_per_s = batch / float(best["iteration_time_s"])
            seconds = work.train_samples / samples_per_s
            fsdp = " fsdp" if best["zero"] == 3 else ""
            result.append({
                **base_row, "plan": f"tp{int(best['tp'])}{fsdp} {best['emb_sharding']}",
                "tp": float(best["tp"]), "dp": float(n // best["tp"]), "zero": float(best["zero"]),
                "emb_sharding": best["emb_sharding"], "microbatch": float(batch // n),
                "samples_per_s": samples_per_s, "mfu": float(best["mfu"]),
                "memory_per_gpu_bytes": float(best["memory_per_gpu_bytes"]),
                "time_days": seconds / DAY,
                "cost_usd": it["cluster"]["price_per_gpu_hour"] * n * seconds / HOURS,
                "power_per_gpu_w": float(best["power_per_gpu_w"]),
                "energy_mwh": (float(best["power_per_gpu_w"]) + it["other_w"]) * n * seconds / 3.6e9,
            })
    return pd.DataFrame(result)


def all_workloads() -> list:
    """The figure's columns, left to right: the LLMs, then the DLRMs."""
    return [*WORKLOADS, *DLRM_WORKLOADS]


def usd(x: float) -> str:
    """$0.42M (from $100k), $38k."""
    return f"${x / 1e6:.2f}M" if x >= 1e5 else f"${x / 1e3:.0f}k"


def frontier(df: pd.DataFrame, y: str) -> pd.Series:
    """True for the points no other point beats in both time and ``y`` (both minimized)."""
    good = df["time_days"].notna().to_numpy()
    mask = np.zeros(len(df), dtype=bool)
    mask[good] = pareto_mask(df.loc[good, ["time_days", y]].to_numpy(float), ["minimize", "minimize"])
    return pd.Series(mask, index=df.index)


def draw(data: pd.DataFrame, counts: list[int]):
    works = all_workloads()
    n_work = len(works)
    fig = figure(5.0, width=WIDTH_IN * n_work)
    axes = np.atleast_2d(fig.subplots(2, n_work, sharex="col", squeeze=False))
    for col, work in enumerate(works):
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
            # room for the tags below the front, and above the data for the note of 2-3 lines (so that
            # place_note fits it at once instead of redrawing the figure to grow the axis)
            lo = sub[metric].min() / 1.6
            ax.set_ylim(lo, headroom(ax, lo, sub[metric].max() * 1.2, lines=2 if row == 0 else 3))
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
                value = usd(pt[metric]) if metric == "cost_usd" else f"{pt[metric]:,.0f} MWh"
                lines.append(f"{tag} {what}: {pt['instance']} x{int(pt['num_gpus']):,}, "
                             f"{pt['time_days']:.2g} days, {value}")
                items.append((pt["time_days"], pt[metric], tag, OKABE_ITO["black"]))
            place_labels(ax, items, fontsize=7, spots=LABEL_SPOTS)
            if metric == "energy_mwh":
                lines.append("modelled GPU power + its share of the node's other power")
            place_note(ax, "\n".join(lines))
    legend(fig, data)
    return fig


def headroom(ax, lo: float, hi: float, lines: int, fontsize: float = 6.0) -> float:
    """The top of a log y axis from ``lo`` that keeps the data (up to ``hi``) below a note of
    ``lines`` lines in the top corner (axes height from the subplot grid, before the layout)."""
    fig = ax.get_figure()
    height_pt = ax.get_position().height * fig.get_figheight() * 72.0
    note = (lines * fontsize * 1.2 + 6.0) / height_pt  # fraction of the axes height
    return float(lo * (hi / lo) ** (1.0 / max(1.0 - note, 0.4)))


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
    require_shared(STEM, *(MADMAX / f"{t}.csv" for t in ("cloud_prices", "models", "systems", "tasks")))
    counts = [64, 128, 256] if args.quick else [2**k for k in range(6, 12)]
    with Timer(STEM):
        inst = instances()
        data = pd.concat([best_plans(w, inst, counts) for w in WORKLOADS]
                         + [dlrm_best_plans(w, inst, counts) for w in DLRM_WORKLOADS], ignore_index=True)
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
    for work in all_workloads():
        sub = data[(data["workload"] == work.key) & data["time_days"].notna()]
        fast = sub.loc[sub["time_days"].idxmin()]
        cheap = sub.loc[sub["cost_usd"].idxmin()]
        frugal = sub.loc[sub["energy_mwh"].idxmin()]
        plan = f" with {fast['plan']}" if isinstance(work, DLRMWorkload) else ""
        parts.append(
            f"{work.label.replace('$10^{12}$', '1e12')}: the fastest option is {fast['instance']} "
            f"x{int(fast['num_gpus'])}{plan} "
            f"({fast['time_days']:.2g} days, {usd(fast['cost_usd'])}), the cheapest {cheap['instance']} "
            f"x{int(cheap['num_gpus'])} ({cheap['time_days']:.3g} days, {usd(cheap['cost_usd'])}): the fastest "
            f"costs {fast['cost_usd'] / cheap['cost_usd']:.2f}x the cheapest and finishes "
            f"{cheap['time_days'] / fast['time_days']:.0f}x sooner; the least energy is "
            f"{frugal['instance']} x{int(frugal['num_gpus'])} ({frugal['energy_mwh']:.0f} MWh vs "
            f"{fast['energy_mwh']:.0f} MWh for the fastest); {int(sub['front_cost'].sum())} of {len(sub)} "
            f"(instance, GPU count) options are on the time-cost Pareto front"
            + (dlrm_clause(sub, cheap) if isinstance(work, DLRMWorkload) else "")
        )
    return "; ".join(parts) + "."


def dlrm_clause(sub: pd.DataFrame, cheap: pd.Series) -> str:
    """What sets the DLRM ranking: the same GPU at the same count on every provider, by network
    bandwidth per GPU, and the plans that won."""
    same = sub[(sub["gpu_type"] == cheap["gpu_type"]) & (sub["num_gpus"] == cheap["num_gpus"])]
    same = same.sort_values("time_days")
    runs = ", ".join(f"{r['time_days']:.0f} days on {r['instance']} ({r['scaleout_gbitps']:g} Gbit/s per GPU)"
                     for _, r in same.iterrows())
    tps = sorted({int(t) for t in sub["tp"].dropna()})
    shardings = sorted(set(sub["emb_sharding"].dropna()))
    return (f"; network bandwidth per GPU orders the instances for the embedding all-to-all: "
            f"{cheap['gpu_type']} x{int(cheap['num_gpus'])} takes {runs}; every fastest plan places the "
            f"tables {'/'.join(shardings)}-wise (the auto planner ties) with tp{'/'.join(map(str, tps))} "
            f"dense layers")


if __name__ == "__main__":
    main()
