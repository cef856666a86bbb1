#!/usr/bin/env python3
"""Figure 9: which GPU per dollar, searched with the GPU as a dimension (``hardware.gpu``).

(a) Serving Llama-3.1-70B in FP8, 1,000 + 1,000 tokens, on 1-16 H100, H200 or B200
(``search_spaces/llama3_70b_serving_gpus.yaml``, every serving plan and batch): the least USD per
million output tokens each GPU reaches within each bound on the time per output token. (b)
Pre-training Llama-3-70B in FP8 on 128-1,024 H100, H200, B200 or GB200
(``search_spaces/llama3_70b_training_gpus.yaml``, every parallel plan): the fastest plan at each
GPU count, its time to train 15T tokens against its USD per million tokens. (c) Serving as in (a) on
H100, MI300X or MI325X (``search_spaces/llama3_70b_serving_amd.yaml``) at one note's prices, NVIDIA
against AMD. (d) Llama-3.1-70B in NVFP4 on 1-8 RTX PRO 6000 Blackwell Server Edition (PCIe, no NVLink)
or B200 (``search_spaces/llama3_70b_serving_rtx.yaml``) at one provider's prices. Prices are the
spaces' (stated, sourced in their headers). Writes PNG, PDF and the CSV of its points.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from common import (  # noqa: E402
    GPU_COLORS, GPU_MARKERS, REPO, WIDTH_IN, Timer, figure, finding, gpu_family, parser, save, style, write_csv,
)
from matplotlib import ticker  # noqa: E402

from dse.presets import gpu_name  # noqa: E402
from dse.search.evaluation import score_point  # noqa: E402
from dse.search.space import load_space  # noqa: E402

SPACES = REPO / "search_spaces"
ITL_BOUNDS_MS = np.arange(14.0, 100.5, 0.5)


def scored(stem: str) -> pd.DataFrame:
    """Every feasible configuration of a shipped space, over all its GPU candidates and counts."""
    space = load_space(SPACES / f"{stem}.yaml")
    df = pd.concat([score_point(space, n, {"gpu": float(code)}) for n in space.gpu_counts()
                    for code in space.gpu_choices()], ignore_index=True)
    ok = df[df["feasible"].to_numpy(dtype=bool)].copy()
    ok["gpu"] = [gpu_family(gpu_name(c)) for c in ok["hw.gpu"]]
    return ok


def serving_curves(ok: pd.DataFrame, panel: str = "serving") -> pd.DataFrame:
    """Per GPU, the least cost per million output tokens within each ITL bound."""
    rows = []
    for gpu, plans in ok.groupby("gpu", sort=False):
        itl, cost = plans["itl_ms"].to_numpy(), plans["cost_per_mtok_usd"].to_numpy()
        for bound in ITL_BOUNDS_MS:
            within = itl <= bound
            if within.any():
                best = plans.iloc[int(np.flatnonzero(within)[np.argmin(cost[within])])]
                rows.append({"panel": panel, "gpu": gpu, "itl_bound_ms": bound,
                             "cost_per_mtok_usd": float(best["cost_per_mtok_usd"]), "num_gpus": best["num_gpus"],
                             "tp": best["tp"], "itl_ms": float(best["itl_ms"]), "days": np.nan})
    return pd.DataFrame(rows)


def training_points(ok: pd.DataFrame) -> pd.DataFrame:
    """Per GPU and GPU count, the fastest plan: its days to train and its cost."""
    best = ok.loc[ok.groupby(["gpu", "num_gpus"], sort=False)["tokens_per_s"].idxmax()]
    return pd.DataFrame({"panel": "training", "gpu": best["gpu"], "itl_bound_ms": np.nan,
                         "cost_per_mtok_usd": best["cost_per_mtok_usd"], "num_gpus": best["num_gpus"],
                         "tp": best["tp"], "itl_ms": np.nan, "days": best["time_to_train_s"] / 86400.0})


def main() -> None:
    parser(__doc__, quick=True).parse_args()  # the spaces are small: --quick runs them whole too
    with Timer("fig9_gpu_choice"):
        serving = serving_curves(scored("llama3_70b_serving_gpus"))
        training = training_points(scored("llama3_70b_training_gpus"))
        amd = serving_curves(scored("llama3_70b_serving_amd"), panel="serving_amd")
        rtx = serving_curves(scored("llama3_70b_serving_rtx"), panel="serving_rtx")
        df = pd.concat([serving, training, amd, rtx], ignore_index=True)
        with style():
            fig = figure(5.2, width=2 * WIDTH_IN)
            axes = fig.subplots(2, 2).ravel()
            for ax, curves in ((axes[0], serving), (axes[2], amd), (axes[3], rtx)):
                for gpu, curve in curves.groupby("gpu", sort=False):
                    ax.step(curve["itl_bound_ms"], curve["cost_per_mtok_usd"], where="post", color=GPU_COLORS[gpu],
                            label=gpu)
            for gpu, pts in training.groupby("gpu", sort=False):
                pts = pts.sort_values("num_gpus")
                axes[1].plot(pts["days"], pts["cost_per_mtok_usd"], color=GPU_COLORS[gpu], marker=GPU_MARKERS[gpu],
                             ms=3, label=gpu)
                if gpu == "GB200":
                    for _, p in pts.iterrows():
                        axes[1].annotate(f"{p['num_gpus']:.0f}", (p["days"], p["cost_per_mtok_usd"]),
                                         textcoords="offset points", xytext=(0, -8), ha="center", fontsize=6)
            for ax in (axes[0], axes[2], axes[3]):
                ax.set_xscale("log")
                ax.xaxis.set_major_locator(ticker.FixedLocator([15, 20, 30, 50, 100]))
                ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                ax.xaxis.set_minor_formatter(ticker.NullFormatter())
                ax.set_yscale("log")
                ax.yaxis.set_major_locator(ticker.FixedLocator([0.2, 0.3, 0.5, 1.0, 2.0, 3.0]))
                ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
                ax.yaxis.set_minor_formatter(ticker.NullFormatter())
                ax.set_xlabel("bound on ms per output token")
                ax.set_ylabel("USD per million output tokens")
            axes[0].set_title("(a) serving Llama-3.1-70B", loc="left")
            axes[2].set_ylim(top=4.0)  # the AMD groups below 20 ms cost 8-17: off the scale
            axes[2].set_title("(c) the same, NVIDIA or AMD", loc="left")
            axes[3].set_title("(d) NVFP4, a PCIe server or B200", loc="left")
            axes[3].yaxis.set_major_locator(ticker.FixedLocator([0.1, 0.15, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0]))
            axes[3].set_ylim(0.09, 4.0)  # the RTX groups below 17 ms cost 5-10: off the scale
            axes[1].set_xscale("log")
            axes[1].xaxis.set_major_locator(ticker.FixedLocator([30, 50, 100, 200, 500, 1000]))
            axes[1].xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            axes[1].xaxis.set_minor_formatter(ticker.NullFormatter())
            axes[1].set_xlabel("days to train 15T tokens")
            axes[1].set_ylabel("USD per million tokens")
            axes[1].set_ylim(bottom=0)
            axes[1].set_title("(b) training Llama-3-70B", loc="left")
            from matplotlib.lines import Line2D

            gpus = list(dict.fromkeys([*serving["gpu"], *training["gpu"], *amd["gpu"], *rtx["gpu"]]))
            handles = [Line2D([], [], color=GPU_COLORS[g], marker=GPU_MARKERS[g], ms=3) for g in gpus]
            fig.legend(handles, gpus, loc="outside lower center", ncols=len(gpus), frameon=False)
            save(fig, "fig9_gpu_choice")
        write_csv(df, "fig9_gpu_choice")

        def cheapest(bound: float) -> list[tuple[str, float]]:
            at = serving[serving["itl_bound_ms"] == bound].sort_values("cost_per_mtok_usd")
            return list(zip(at["gpu"], at["cost_per_mtok_usd"]))

        loose, tight = cheapest(50.0), cheapest(15.0)
        at_amd = amd[amd["itl_bound_ms"] == 25.0].set_index("gpu")["cost_per_mtok_usd"]
        tight_amd = amd[amd["itl_bound_ms"] == 15.0].sort_values("cost_per_mtok_usd")
        at_rtx = {b: rtx[rtx["itl_bound_ms"] == b].set_index("gpu")["cost_per_mtok_usd"] for b in (30.0, 100.0)}
        cost = training.groupby("gpu")["cost_per_mtok_usd"].min().sort_values()
        days = training[training["num_gpus"] == training["num_gpus"].max()].set_index("gpu")["days"]
        finding("fig9_gpu_choice", (
            f"Serving Llama-3.1-70B at the stated prices, the cheapest GPU depends on the latency bound: within "
            f"50 ms per output token {loose[0][0]} ({loose[0][1]:.2f} USD per million output tokens, "
            f"{loose[-1][0]} {loose[-1][1]:.2f}), within 15 ms {tight[0][0]} ({tight[0][1]:.2f}, "
            f"{tight[-1][0]} {tight[-1][1]:.2f}), as a tighter bound needs tensor-parallel groups whose price "
            f"doubles with each step; pre-training Llama-3-70B costs least on {cost.index[0]} "
            f"({cost.iloc[0]:.2f} USD per million tokens against {cost.iloc[-1]:.2f} on {cost.index[-1]}), and "
            f"1,024 {cost.index[0]}s train 15T tokens in {days[cost.index[0]]:.0f} days against "
            f"{days.max():.0f} on the slowest; against AMD at one note's prices, one MI300X serves within 25 ms "
            f"for {at_amd['MI300X']:.2f} and one MI325X for {at_amd['MI325X']:.2f} against {at_amd['H100']:.2f} on "
            f"H100s, but within 15 ms {tight_amd['gpu'].iloc[0]} is cheapest "
            f"({tight_amd['cost_per_mtok_usd'].iloc[0]:.2f}); in NVFP4 one RTX PRO 6000 (PCIe) serves within 100 ms "
            f"for {at_rtx[100.0]['RTX PRO 6000']:.2f} against {at_rtx[100.0]['B200']:.2f} on a B200, and within "
            f"30 ms for {at_rtx[30.0]['RTX PRO 6000']:.2f} against {at_rtx[30.0]['B200']:.2f}."))


if __name__ == "__main__":
    main()
