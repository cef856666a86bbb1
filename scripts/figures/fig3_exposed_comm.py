"""Figure 3: exposed communication as a share of the iteration time, by strategy and scale.

Llama-2-70B pre-training (4M-token batches of 1,024 sequences, bf16) on 64 to 4,096
H100-SXM-80GB GPUs (powers of two), four ways:

* "FSDP": ZeRO-3 over data parallelism only (tp = pp = cp = 1);
* "DP + ZeRO-1, tp8": tensor parallelism inside the 8-GPU NVLink node, ZeRO-1 data parallelism;
* "Megatron 3D (tp8 + pp)": tp 8, pp [2, 4, 8, 16], interleaved vpp [1, 2, 4, 5], ZeRO [0, 1];
* "best found": the fastest plan of the whole space (tp [1, 2, 4, 8], pp [1, 2, 4, 8, 16],
  vpp [1, 2, 4, 5], cp [1, 2, 4], ZeRO [0, 1, 3]).

Inside every strategy the microbatch [1, 2, 4], the recompute mode [none, selective, full] (and
the listed degrees) are searched exhaustively (:func:`dse.search.evaluation.score_point`) and
the fastest plan that fits in memory is kept. Each bar stacks the exposed (not hidden behind
compute) time of each kind of communication, as a percentage of the iteration time; the number
on a bar is the total. The grey band is MAD-Max's observation that 14-32% of GPU hours go to
exposed communication (Hsia et al., ISCA 2024). A strategy with no valid plan at a scale (FSDP
beyond 1,024 GPUs: one sequence per GPU at most) is marked "n/a".

Writes fig3_exposed_comm.{png,pdf,csv} and its finding.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from common import (
    COMM_KINDS, OKABE_ITO, Timer, figure, finding, gpus_label, parser, save, short_plan, style, write_csv,
)
from dse.search.evaluation import score_point
from dse.search.space import space_from_dict

STEM = "fig3_exposed_comm"
MADMAX_BAND = (14.0, 32.0)  # % of GPU hours that are exposed communication (MAD-Max, Hsia et al. 2024)
SEARCHED = {"recompute": ["none", "selective", "full"], "microbatch": [1, 2, 4], "ep": [1], "sp": "auto"}
STRATEGIES = {
    "FSDP (ZeRO-3, dp only)": {"tp": [1], "pp": [1], "vpp": [1], "cp": [1], "zero": [3]},
    "DP + ZeRO-1, tp8": {"tp": [8], "pp": [1], "vpp": [1], "cp": [1], "zero": [1]},
    "Megatron 3D (tp8 + pp)": {"tp": [8], "pp": [2, 4, 8, 16], "vpp": [1, 2, 4, 5], "cp": [1], "zero": [0, 1]},
    "best found": {"tp": [1, 2, 4, 8], "pp": [1, 2, 4, 8, 16], "vpp": [1, 2, 4, 5], "cp": [1, 2, 4],
                   "zero": [0, 1, 3]},
}
KIND_COLUMNS = [c for c, _, _ in COMM_KINDS if c != "exposed_ep_s"]  # a dense model: no expert parallelism


def space(parallel: dict, counts: list[int]):
    return space_from_dict({
        "name": "fig3",
        "scenario": {"model": "llama2-70b", "precision": "bf16", "workload": "train",
                     "cluster": {"gpu": "H100-SXM-80GB"}},
        "gpus": counts,
        "parallel": {**parallel, **SEARCHED},
        "global_batch": {"tokens": 4 * 1024 * 1024},
        "constraints": {"max_memory_fraction": 1.0},
    })


def best_per_strategy(counts: list[int]) -> pd.DataFrame:
    rows = []
    for name, parallel in STRATEGIES.items():
        sp = space(parallel, counts)
        for n in counts:
            df = score_point(sp, n, {})
            ok = df[df["feasible"]] if len(df) else df
            base = {"strategy": name, "num_gpus": n, "plans_scored": len(df), "plans_feasible": len(ok)}
            if ok.empty:
                base["why_none"] = "no plan whose degrees divide" if df.empty else "no plan fits in memory"
                rows.append(base)
                continue
            best = ok.loc[ok["tokens_per_s"].idxmax()]
            it = float(best["iteration_time_s"])
            row = {**base, "plan": short_plan(best, extras=True), "why_none": "",
                   **{k: float(best[k]) for k in ("tp", "pp", "dp", "cp", "vpp", "zero", "recompute", "microbatch",
                                                  "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "iteration_time_s",
                                                  "time_compute_s", "time_bubble_s", "exposed_comm_s")}}
            for col in KIND_COLUMNS:
                row[col] = float(best[col])
                row["share_" + col.removeprefix("exposed_").removesuffix("_s")] = 100.0 * float(best[col]) / it
            row["share_total"] = 100.0 * float(best["exposed_comm_s"]) / it
            rows.append(row)
    return pd.DataFrame(rows)


def draw(data: pd.DataFrame, counts: list[int]):
    fig = figure(3.9)
    axes = fig.subplots(2, 2, sharex=True, sharey=True)
    x = np.arange(len(counts))
    top = max(float(np.nanmax(data["share_total"])), MADMAX_BAND[1]) * 1.12
    handles = {}
    for ax, name in zip(axes.ravel(), STRATEGIES):
        sub = data[data["strategy"] == name].set_index("num_gpus").reindex(counts)
        band = ax.axhspan(*MADMAX_BAND, color=OKABE_ITO["grey"], alpha=0.22, linewidth=0, zorder=0)
        handles["MAD-Max: 14-32%"] = band
        bottom = np.zeros(len(counts))
        for col, label, color in COMM_KINDS:
            if col not in KIND_COLUMNS:
                continue
            key = "share_" + col.removeprefix("exposed_").removesuffix("_s")
            v = sub[key].fillna(0.0).to_numpy(float)
            bars = ax.bar(x, v, bottom=bottom, width=0.72, color=color, edgecolor="#333333", linewidth=0.3,
                          zorder=2)
            handles.setdefault(label, bars)
            bottom += v
        for i, n in enumerate(counts):
            total = sub["share_total"].iat[i]
            if pd.isna(total):
                ax.text(x[i], top * 0.02, "n/a", ha="center", va="bottom", fontsize=6, rotation=90,
                        color=OKABE_ITO["black"])
            else:  # the total, so that a bar too small to see still reads
                ax.text(x[i], total + top * 0.015, f"{total:.0f}" if total >= 0.5 else "<1", ha="center",
                        va="bottom", fontsize=5.5, color="#333333")
        ax.set_title(name, loc="left", fontsize=7.5)
        ax.set_xticks(x, [gpus_label(n) if i % 2 == 0 else "" for i, n in enumerate(counts)])
        ax.tick_params(axis="x", length=2)
        ax.grid(axis="x", visible=False)
        ax.set_ylim(0, top)
        ax.set_xlim(-0.6, len(counts) - 0.4)
    fig.supylabel("exposed communication (% of iteration time)", fontsize=8)
    for ax in axes[-1, :]:
        ax.set_xlabel("GPUs")
    order = [k for _, k, _ in COMM_KINDS if k in handles] + ["MAD-Max: 14-32%"]
    fig.legend([handles[k] for k in order], [f"exposed {k}" if k != order[-1] else k for k in order],
               loc="outside lower center", ncols=3, handlelength=1.2, columnspacing=1.0, handletextpad=0.4)
    return fig


def main() -> None:
    args = parser(__doc__).parse_args()
    counts = [64, 128, 256] if args.quick else [2**k for k in range(6, 13)]
    with Timer(STEM):
        data = best_per_strategy(counts)
        with style():
            save(draw(data, counts), STEM)
        write_csv(data, STEM)
        finding(STEM, sentence(data, counts))


def sentence(data: pd.DataFrame, counts: list[int]) -> str:
    def rng(name: str) -> str:
        s = data.loc[data["strategy"] == name, "share_total"].dropna()
        if s.empty:
            return "n/a"
        low = f"{s.min():.0f}" if s.min() >= 0.5 else "<1"
        return f"{low}-{s.max():.0f}%"

    best = data[data["strategy"] == "best found"].set_index("num_gpus")
    fixed = data[data["strategy"] != "best found"]
    worst = fixed.loc[fixed["share_total"].idxmax()]
    n_in = int(((fixed["share_total"] >= MADMAX_BAND[0]) & (fixed["share_total"] <= MADMAX_BAND[1])).sum())
    n_fixed = int(fixed["share_total"].notna().sum())
    lo, hi = counts[0], counts[-1]
    speed = []
    for name in STRATEGIES:
        if name == "best found":
            continue
        s = data[(data["strategy"] == name) & (data["num_gpus"] == hi)]
        if len(s) and pd.notna(s["tokens_per_s"].iat[0]):
            speed.append(f"{best.loc[hi, 'tokens_per_s'] / s['tokens_per_s'].iat[0]:.2f}x {name}")
    return (
        f"Llama-2-70B on {lo:,}-{hi:,} H100s: the fixed strategies expose {rng('FSDP (ZeRO-3, dp only)')} (FSDP), "
        f"{rng('DP + ZeRO-1, tp8')} (DP + ZeRO-1, tp8) and {rng('Megatron 3D (tp8 + pp)')} (Megatron 3D) of the "
        f"iteration as communication ({n_in} of {n_fixed} points inside MAD-Max's 14-32% of GPU hours; the worst, "
        f"{worst['share_total']:.0f}%, is {worst['strategy']} at {int(worst['num_gpus']):,} GPUs), while the best plan "
        f"found keeps it to {rng('best found')} ({best.loc[lo, 'plan']} at {lo:,} GPUs, {best.loc[hi, 'plan']} at "
        f"{hi:,}) and at {hi:,} GPUs trains " + ", ".join(speed) + " as fast."
    )


if __name__ == "__main__":
    main()
