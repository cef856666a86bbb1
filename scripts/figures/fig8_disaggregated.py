#!/usr/bin/env python3
"""Figure 8: disaggregated serving against aggregated engines, and the link it needs.

Llama-3.1-70B (FP8 weights and KV cache) served on 32 GPUs, 4,000-token prompts and 500-token
answers. (a) The throughput-latency front of every serving plan dse scores on 32 H100s and on 32
H200s: aggregated engines (tensor, pipeline parallelism and replicas, every batch) against
disaggregated deployments (prefill instances of TP 1-8 packing 8,192 prompt tokens an iteration,
decode instances of the engines' plans, the GPUs split as serves the most): the best output
tokens/s per GPU at each time per output token. (b) The scale-out link that carries each prompt's
KV cache from a prefill to a decode instance: the best deployment at ITL <= 40 ms against the NIC
bandwidth per GPU (dse whatif), the best engine (whose tensor parallelism stays in a server) as a
dashed line. Writes PNG, PDF and the CSV of its points.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402
from common import PALETTE, Timer, figure, finding, parser, save, style, write_csv  # noqa: E402

from dse.search.evaluation import score_point  # noqa: E402
from dse.whatif import _scenario, serving_space, whatif  # noqa: E402

GPUS = {"H100": "H100-SXM-80GB", "H200": "H200-SXM-141GB"}
NUM_GPUS = 32
ITL_MS = 40.0


def scenario(gpu: str, disaggregated: bool) -> dict:
    inference = {"input_len": 4000, "output_len": 500}
    if disaggregated:
        inference.update(phase="disaggregated", prefill={"tp": 2, "max_num_tokens": 8192})
    return {"name": f"{gpu} {'deployments' if disaggregated else 'engines'}", "workload": "inference",
            "precision": "fp8", "model": "llama3.1-70b", "cluster": {"gpu": GPUS[gpu], "num_gpus": NUM_GPUS},
            "parallel": {"tp": 4}, "inference": inference}


def front(gpu: str, disaggregated: bool) -> pd.DataFrame:
    """Every feasible plan's (ITL, output tokens/s per GPU) and the front: the best tokens/s per GPU
    at or below each plan's ITL."""
    scored = score_point(serving_space(_scenario(scenario(gpu, disaggregated))), NUM_GPUS, {})
    ok = scored[scored["feasible"].to_numpy(dtype=bool)].sort_values("itl_ms")
    best = np.maximum.accumulate(ok["tokens_per_s_per_gpu"].to_numpy())
    keep = np.r_[True, best[1:] > best[:-1] * (1 + 1e-9)]  # the staircase's corners
    return pd.DataFrame({"panel": "front", "gpu": gpu, "kind": "deployments" if disaggregated else "engines",
                         "itl_ms": ok["itl_ms"].to_numpy()[keep], "tokens_per_s_per_gpu": best[keep],
                         "scaleout_gbitps": np.nan, "ttft_ms": ok["ttft_ms"].to_numpy()[keep]})


def link(gpu: str, nics: list[float]) -> pd.DataFrame:
    """The best deployment (and engine) at ITL <= ITL_MS over the NIC bandwidth per GPU."""
    rows = []
    for disaggregated in (True, False):
        pts = whatif(scenario(gpu, disaggregated), {"scaleout_gbitps": nics}, max_itl_ms=ITL_MS).points
        rows.append(pd.DataFrame({"panel": "link", "gpu": gpu, "kind": "deployments" if disaggregated else "engines",
                                  "itl_ms": pts["best_itl_ms"], "tokens_per_s_per_gpu": pts["best_tokens_per_s_per_gpu"],
                                  "scaleout_gbitps": pts["scaleout_gbitps"], "ttft_ms": pts["best_ttft_ms"]}))
    return pd.concat(rows, ignore_index=True)


def at_itl(df: pd.DataFrame, gpu: str, kind: str, itl: float) -> float:
    f = df[(df["panel"] == "front") & (df["gpu"] == gpu) & (df["kind"] == kind) & (df["itl_ms"] <= itl)]
    return float(f["tokens_per_s_per_gpu"].max()) if len(f) else float("nan")


def main() -> None:
    opts = parser(__doc__, quick=True).parse_args()
    with Timer("fig8_disaggregated"):
        nics = [5, 10, 25, 50, 100, 400] if not opts.quick else [5, 25, 400]
        parts = [front(gpu, d) for gpu in GPUS for d in (False, True)] + [link(gpu, nics) for gpu in GPUS]
        df = pd.concat(parts, ignore_index=True)
        colors = dict(zip(GPUS, PALETTE))
        with style():
            fig = figure(3.0)
            axes = fig.subplots(1, 2)
            for gpu in GPUS:
                for kind, dash in (("engines", (0, (3, 2))), ("deployments", "-")):
                    f = df[(df["panel"] == "front") & (df["gpu"] == gpu) & (df["kind"] == kind)]
                    axes[0].step(f["itl_ms"], f["tokens_per_s_per_gpu"], where="post", color=colors[gpu],
                                 linestyle=dash, label=f"{gpu} {kind}")
                    g = df[(df["panel"] == "link") & (df["gpu"] == gpu) & (df["kind"] == kind)]
                    if kind == "deployments":
                        axes[1].plot(g["scaleout_gbitps"], g["tokens_per_s_per_gpu"], marker="o", ms=2.5,
                                     color=colors[gpu])
                    else:
                        axes[1].axhline(float(g["tokens_per_s_per_gpu"].max()), color=colors[gpu], linestyle=dash,
                                        linewidth=0.9)
            axes[0].set_xlim(0, 120)
            axes[0].axvline(ITL_MS, color="0.6", linewidth=0.6)
            axes[0].set_xlabel("time per output token (ms)")
            axes[0].set_ylabel("output tokens/s per GPU")
            axes[0].set_title("(a) throughput-latency fronts", loc="left")
            axes[1].set_xscale("log")
            shown = [n for n in nics if n in (5, 25, 100, 400)]
            axes[1].set_xticks(shown, [f"{n:g}" for n in shown])
            axes[1].xaxis.set_minor_locator(NullLocator())
            axes[1].set_xlabel("NIC per GPU (Gbit/s)")
            axes[1].set_ylabel(f"tokens/s per GPU at ITL <= {ITL_MS:g} ms")
            axes[1].set_title("(b) the KV-cache link", loc="left")
            for ax in axes:
                ax.set_ylim(bottom=0)
            fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2, frameon=False)
            save(fig, "fig8_disaggregated")
        write_csv(df, "fig8_disaggregated")
        link_h100 = df[(df["panel"] == "link") & (df["gpu"] == "H100") & (df["kind"] == "deployments")]
        slowest = link_h100.sort_values("scaleout_gbitps").iloc[0]
        enough = link_h100[link_h100["tokens_per_s_per_gpu"] >= 0.99 * link_h100["tokens_per_s_per_gpu"].max()]
        finding("fig8_disaggregated", (
            f"Serving Llama-3.1-70B (4,000-token prompts, 500-token answers) on {NUM_GPUS} GPUs, disaggregated "
            f"deployments serve {at_itl(df, 'H100', 'deployments', ITL_MS):,.0f} output tokens/s per H100 at "
            f"{ITL_MS:g} ms per output token against {at_itl(df, 'H100', 'engines', ITL_MS):,.0f} for the best "
            f"aggregated engine ({at_itl(df, 'H200', 'deployments', ITL_MS):,.0f} against "
            f"{at_itl(df, 'H200', 'engines', ITL_MS):,.0f} per H200), because decode instances never stall on "
            f"another request's prompt; the gap closes as the latency bound loosens. The deployments need the "
            f"scale-out link that ships each prompt's KV cache: at {slowest['scaleout_gbitps']:g} Gbit/s per GPU "
            f"they fall to {slowest['tokens_per_s_per_gpu']:,.0f} tokens/s per H100, and "
            f"{float(enough['scaleout_gbitps'].min()):g} Gbit/s is enough."))


if __name__ == "__main__":
    main()
