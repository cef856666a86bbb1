#!/usr/bin/env python3
"""Figure 7: what the attention design is worth when serving at long context.

One model, Llama-3.1-70B (FP8, 8 H200s at TP 8, offline max throughput, 1,000 output tokens per
request), with its attention changed and nothing else: multi-head (64 KV heads), its own
grouped-query attention (8 KV heads), latent attention (MLA with DeepSeek-V3's ranks: a 512-wide
latent and a 64-wide rotary key cached per token) and GQA with a 4,096-token sliding window on
three layers of four; MLA also with attention data parallelism (8 replicas of TP 1), since its
latent is replicated on every TP rank. (a) KV cache per request over its replica's GPUs; (b) output
tokens/s per GPU at the throughput-maximising batch that fits, over prompt lengths of 1K to 127K
tokens (the model's 131,072-token window holds the prompt and its answer). Writes PNG, PDF and the
CSV of its points.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from matplotlib.ticker import NullLocator  # noqa: E402
from common import PALETTE, Timer, figure, finding, log_axis, parser, save, style, write_csv  # noqa: E402

import dse  # noqa: E402

BASE = {"preset": "llama3.1-70b"}
#: name -> model overrides (the attention only)
VARIANTS = {
    "MHA (64 KV heads)": {"kv_heads": 64},
    "GQA (8 KV heads)": {},
    "MLA, TP 8": {"kv_heads": 64, "mla": {"kv_lora_rank": 512, "q_lora_rank": 1536,
                                                           "qk_nope_head_dim": 64, "qk_rope_head_dim": 64,
                                                           "v_head_dim": 128}},
    "GQA + 4K windows": {"attention_window": 4096, "full_attention_every": 4},
}
MLA = VARIANTS["MLA, TP 8"]
#: name -> (model overrides, parallel plan): TP 8 unless stated; MLA's latent is replicated on
#: every TP rank, so latent attention is also served with attention data parallelism (8 replicas)
PLANS = {name: (model, {"tp": 8}) for name, model in VARIANTS.items()}
PLANS["MLA, 8 DP replicas"] = (MLA, {"tp": 1, "dp": 8})
OUTPUT_LEN = 1000
#: the longest prompt: the model's context window (131,072 positions) less the answer
LONGEST = 131072 - OUTPUT_LEN


def scenario(model: dict, parallel: dict, input_len: int) -> dict:
    return {"workload": "inference", "precision": "fp8", "model": {**BASE, **model},
            "cluster": {"gpu": "H200-SXM-141GB", "num_gpus": 8}, "parallel": parallel,
            "inference": {"input_len": input_len, "output_len": OUTPUT_LEN}}


def points(lengths: list[int]) -> pd.DataFrame:
    specs, names, isl = [], [], []
    for name, (model, parallel) in PLANS.items():
        for n in lengths:
            specs.append(scenario(model, parallel, n))
            names.append(name)
            isl.append(n)
    df = dse.evaluate(specs)
    return pd.DataFrame({
        "attention": names, "input_len": isl,
        # the cache of one request over the GPUs of its replica (tp x pp of them)
        "kv_cache_gb_per_request": (df["kv_cache_bytes"] * df["tp"] * df["pp"] / df["batch"].clip(lower=1)).to_numpy() / 1e9,
        "tokens_per_s_per_gpu": df["tokens_per_s_per_gpu"].to_numpy(),
        "batch": df["batch"].to_numpy(), "feasible": df["feasible"].to_numpy(),
    })


def main() -> None:
    opts = parser(__doc__, quick=True).parse_args()
    with Timer("fig7_attention"):
        lengths = [1024, 4096, 16384, 65536, LONGEST] if not opts.quick else [1024, 16384, LONGEST]
        df = points(lengths)
        with style():
            fig = figure(2.5)
            axes = fig.subplots(1, 2)
            for (name, group), color in zip(df.groupby("attention", sort=False), PALETTE):
                ok = group[group["feasible"]]
                axes[0].plot(group["input_len"], group["kv_cache_gb_per_request"], marker="o", ms=2.5,
                             color=color, label=name)
                axes[1].plot(ok["input_len"], ok["tokens_per_s_per_gpu"], marker="o", ms=2.5, color=color)
            for ax, label, title in ((axes[0], "KV cache per request (GB)", "(a) memory"),
                                     (axes[1], "output tokens/s per GPU", "(b) throughput")):
                ax.set_xscale("log", base=2)
                ticks = [n for n in lengths if n != 65536]  # 64K and 128K would collide
                ax.set_xticks(ticks, [f"{round(n / 1024)}K" for n in ticks])
                ax.xaxis.set_minor_locator(NullLocator())
                ax.set_xlabel("prompt tokens")
                ax.set_ylabel(label)
                ax.set_title(title, loc="left")
                log_axis(ax, "y")
            fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2, frameon=False)
            save(fig, "fig7_attention")
        write_csv(df, "fig7_attention")
        at = df[df["input_len"] == max(lengths)].set_index("attention")
        gqa, mla = at.loc["GQA (8 KV heads)"], at.loc["MLA, TP 8"]
        mha, win = at.loc["MHA (64 KV heads)"], at.loc["GQA + 4K windows"]
        mla_dp = at.loc["MLA, 8 DP replicas"]
        finding("fig7_attention", (
            f"Serving Llama-3.1-70B on 8 H200s with {max(lengths):,}-token prompts, the attention design "
            f"alone sets the KV cache per request ({mha['kv_cache_gb_per_request']:.0f} GB multi-head, "
            f"{gqa['kv_cache_gb_per_request']:.1f} GB grouped-query, {mla['kv_cache_gb_per_request']:.1f} GB latent, "
            f"{win['kv_cache_gb_per_request']:.1f} GB with 4K windows on three layers of four) and with it the batch "
            f"that fits: {gqa['tokens_per_s_per_gpu']:,.0f} output tokens/s per GPU with GQA, "
            f"{win['tokens_per_s_per_gpu']:,.0f} with windows, {mha['tokens_per_s_per_gpu']:,.0f} multi-head. "
            f"Latent attention under TP 8 ({mla['tokens_per_s_per_gpu']:,.0f}) loses to GQA because every rank "
            f"holds the whole latent; served by 8 data-parallel replicas its cache is "
            f"{mla_dp['kv_cache_gb_per_request']:.1f} GB per request and it reaches "
            f"{mla_dp['tokens_per_s_per_gpu']:,.0f}."))


if __name__ == "__main__":
    main()
