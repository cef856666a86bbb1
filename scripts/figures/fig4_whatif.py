#!/usr/bin/env python3
"""Figure 4: what-if heatmaps of the best throughput over hardware knobs (dse whatif).

(a) fig4_whatif_network: Llama-2-70B pre-training on 1,024 H100-class GPUs, best tokens/s per GPU
over scale-out bandwidth per GPU x NVLink domain size (every valid plan scored at every point).
(b) fig4_whatif_memory: Llama-2-70B on 64 H100-class GPUs, over HBM capacity x HBM bandwidth.
(c) fig4_whatif_serving: Llama-3.1-70B FP8 served on 8 H100-class GPUs (1,000-token prompts and
answers, every output token within 50 ms), best output tokens/s per GPU over the same two knobs
(every serving plan and batch scored at every point).
Each writes PNG, PDF and the CSV of its points.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import Timer, finding, parser, save, style, write_csv  # noqa: E402

from dse.whatif import _heatmap_figure, whatif  # noqa: E402

NETWORK = {
    "model": "llama2-70b", "precision": "bf16",
    "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1024},
    "parallel": {"tp": 8, "pp": 4, "global_batch": 1024},
}
MEMORY = {
    "model": "llama2-70b", "precision": "bf16",
    "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
    "parallel": {"tp": 4, "pp": 4, "global_batch": 128},
}
SERVING = {
    "model": "llama3.1-70b", "precision": "fp8", "workload": "inference",
    "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
    "parallel": {"tp": 8},
    "inference": {"input_len": 1000, "output_len": 1000},
}
SERVING_ITL_MS = 50.0


def spread(result) -> tuple[float, float, str]:
    col = result.points["best_tokens_per_s_per_gpu"]
    return float(col.min()), float(col.max()), ""


def main() -> None:
    opts = parser(__doc__, quick=True).parse_args()
    with Timer("fig4_whatif"):
        scaleout = [50, 100, 200, 400, 800, 1600] if not opts.quick else [100, 400, 1600]
        domains = [8, 16, 36, 72] if not opts.quick else [8, 72]
        net = whatif(NETWORK, {"scaleout_gbitps": scaleout, "nvlink_domain": domains})
        hbm_gb = [40, 80, 141, 192] if not opts.quick else [40, 141]
        hbm_tbps = [2.0, 3.35, 4.8, 8.0] if not opts.quick else [2.0, 8.0]
        mem = whatif(MEMORY, {"hbm_gb": hbm_gb, "hbm_tbps": hbm_tbps})
        srv = whatif(SERVING, {"hbm_gb": hbm_gb, "hbm_tbps": hbm_tbps}, max_itl_ms=SERVING_ITL_MS)
        for stem, result in (("fig4_whatif_network", net), ("fig4_whatif_memory", mem), ("fig4_whatif_serving", srv)):
            with style():
                save(_heatmap_figure(result), stem)
            write_csv(result.points, stem)
        p = net.points
        low = p[(p.scaleout_gbitps == min(scaleout)) & (p.nvlink_domain == 8)]["best_tokens_per_s_per_gpu"].iloc[0]
        at400 = p[(p.scaleout_gbitps == 400) & (p.nvlink_domain == 8)]["best_tokens_per_s_per_gpu"].iloc[0]
        best = p["best_tokens_per_s_per_gpu"].max()
        q = mem.points
        worst_mem = q["best_tokens_per_s_per_gpu"].min()
        best_mem = q["best_tokens_per_s_per_gpu"].max()
        cap_row = q.loc[q["best_tokens_per_s_per_gpu"].idxmax()]
        low_row = q.loc[q["best_tokens_per_s_per_gpu"].idxmin()]

        def plan(r):
            return f"tp{int(r['tp'])} pp{int(r['pp'])} dp{int(r['dp'])}"

        finding("fig4_whatif_network", (
            f"At 1,024 GPUs, Llama-2-70B gains {best / low - 1:.0%} tokens/s per GPU from the slowest network "
            f"({min(scaleout)} Gbit/s per GPU, 8-GPU NVLink domains: {low:,.0f}) to the fastest "
            f"({best:,.0f}), but only {best / at400 - 1:.1%} beyond today's 400 Gbit/s with 8-GPU domains: "
            f"once the data-parallel traffic hides under compute, a bigger NVLink domain buys little."))
        finding("fig4_whatif_memory", (
            f"On 64 GPUs, HBM capacity and bandwidth move the best Llama-2-70B throughput from "
            f"{worst_mem:,.0f} to {best_mem:,.0f} tokens/s per GPU (+{best_mem / worst_mem - 1:.0%}); the best "
            f"point is {cap_row['hbm_gb']:.0f} GiB at {cap_row['hbm_tbps']:.2f} TB/s, where the larger memory "
            f"lets {plan(cap_row)} fit instead of {plan(low_row)} at {low_row['hbm_gb']:.0f} GiB; capacity "
            f"matters more than bandwidth here."))
        r = srv.points

        def at(gb, tbps):
            return r[(r.hbm_gb == gb) & (r.hbm_tbps == tbps)].iloc[0]

        lo_gb, hi_gb, lo_bw, hi_bw = min(hbm_gb), max(hbm_gb), min(hbm_tbps), max(hbm_tbps)
        base = at(80 if 80 in hbm_gb else lo_gb, 3.35 if 3.35 in hbm_tbps else lo_bw)
        more_bw, more_gb = at(base["hbm_gb"], hi_bw), at(hi_gb, base["hbm_tbps"])
        per = "best_tokens_per_s_per_gpu"
        finding("fig4_whatif_serving", (
            f"Serving Llama-3.1-70B FP8 on 8 GPUs with every token within {SERVING_ITL_MS:.0f} ms, "
            f"{base['hbm_tbps']:.2f} TB/s and {base['hbm_gb']:.0f} GiB give {base[per]:,.0f} output tokens/s per GPU "
            f"({base['batch']:.0f} sequences per replica, {plan(base)}); {hi_bw:g} TB/s at the same capacity gives "
            f"{more_bw[per]:,.0f} ({more_bw[per] / base[per] - 1:+.0%}), {hi_gb:.0f} GiB at the same bandwidth "
            f"{more_gb[per]:,.0f} ({more_gb[per] / base[per] - 1:+.0%}): under a latency bound the decode step's "
            f"weight and KV reads cap the batch, so bandwidth, not capacity, is what serving buys."))


if __name__ == "__main__":
    main()
