#!/usr/bin/env python3
"""Write validation/nemo_long_context.jsonl: NeMo's long-sequence pre-training table, context
parallelism from 1 to 32 ways at 4K to 1M tokens a sequence: Llama 2 7B in FP8 on DGX-H100
(NeMo 24.03.01) and Llama 3 8B in FP8 on DGX-B200 (NeMo 25.04.rc2), the "With CP" columns.

Usage: python validation/build_nemo_long_context.py   (no network: every number below was read from
the page named in SOURCE and is kept here as a literal).

What the page states for each row: sequence length, batch size (the global batch: 4M tokens a step
at every length), TP, PP, DP, CP and "TFLOPS / GPU". Its "# of GPUs" column is the sequence length
in K in the HTML version of the B200 table, 4 to 128 times TP x PP x DP x CP; the Markdown version of
the same table gives TP x PP x DP x CP (2 to 256 GPUs), and so does the H100 table in both: the
product is used. The "Without CP" column is not used (its plans are not given).

The metric: NeMo's model TFLOP/s per GPU count, per token, ``L h^2 (12 + 12 g/a + 18 f/h + 12 s/h +
6 V/(L h))`` FLOPs (the 24.07 performance table's LLAMA3-8B row, 697 TFLOP/s at 12,036 tokens/s/GPU,
fits it to 0.02%): full, not causal, attention scores (12 s h a layer). At 1M tokens that term is 98%
of the count, twice the work a causal kernel does; the targets are therefore the tokens/s per GPU the
figure implies, ``TFLOP/s / FLOPs per token`` (also: the page's figure). That the 24.03 (H100) table
used the same formula is INFERRED (the B200 figures would be 71% of the BF16 peak in attention under a
causal count, which no 2025 kernel reaches; 36% under the full count).

Filled where the page is silent (each case's ``inferred``): microbatch 1 (one sequence of up to 1M
tokens), sp = (tp > 1), the distributed optimizer (zero 1), no activation recompute (every plan fits
without it in dse's memory model), 8 GPUs a node, vpp 1 for the one PP 2 row, and the software:
Transformer Engine's fused attention with its p2p ring for CP (Megatron-core's default cp_comm_type).
"""
import os

from case_files import write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nemo_long_context.jsonl")

SOURCE = ("NVIDIA NeMo docs/source/performance/performance_long_sequence.md (NVIDIA/NeMo @9421f21a, tables "
          "'LLAMA3-8B (FP8) - B200' and 'LLAMA2-7B (FP8) - H100', 'With CP' columns; the H100 table is the same "
          "at @0aa26711)")

MODELS = {
    "llama2-7b": {"name": "Llama 2 7B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 32,
                  "head_dim": None, "ffn_hidden": 11008, "ffn_act": "swiglu", "vocab": 32000, "moe": None},
    "llama3-8b": {"name": "Llama 3 8B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
                  "head_dim": None, "ffn_hidden": 14336, "ffn_act": "swiglu", "vocab": 128256, "moe": None},
}
#: (model, GPU, container, sequence length in K, global batch, tp, pp, dp, cp, TFLOPS/GPU) as printed
RUNS = [
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 8, 512, 1, 1, 2, 1, 1671),
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 16, 256, 1, 1, 4, 1, 1717),
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 32, 128, 1, 1, 4, 2, 1624),
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 64, 64, 1, 1, 4, 4, 1600),
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 128, 32, 2, 1, 4, 4, 1588),
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 256, 16, 4, 1, 4, 4, 1590),
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 512, 8, 4, 1, 4, 8, 1619),
    ("llama3-8b", "B200-180GB", "NeMo 25.04.rc2, DGX-B200", 1024, 4, 4, 1, 4, 16, 1608),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 4, 1024, 1, 1, 4, 1, 768),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 8, 512, 1, 2, 4, 1, 730),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 16, 256, 2, 1, 8, 1, 660),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 32, 128, 2, 1, 8, 2, 610),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 64, 64, 4, 1, 8, 2, 574),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 128, 32, 4, 1, 8, 4, 555),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 256, 16, 4, 1, 8, 8, 549),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 512, 8, 8, 1, 4, 16, 549),
    ("llama2-7b", "H100-SXM-80GB", "NeMo 24.03.01, DGX-H100", 1024, 4, 8, 1, 4, 32, 536),
]


def nemo_flops_per_token(model: dict, seq: int) -> float:
    """NeMo's model FLOPs per token of a Llama (full attention scores: 12 s h a layer)."""
    L, h, a, g = model["layers"], model["hidden"], model["heads"], model["kv_heads"]
    f, V = model["ffn_hidden"], model["vocab"]
    return L * h * h * (12 + 12 * g / a + 18 * f / h + 12 * seq / h + 6 * V / (L * h))


def cases():
    for key, gpu, container, seq_k, gbs, tp, pp, dp, cp, tflops in RUNS:
        model = MODELS[key]
        seq = seq_k * 1024
        gpus = tp * pp * dp * cp
        assert gbs * seq == 4 * 1024 * 1024, (key, seq_k)
        tps = tflops * 1e12 / nemo_flops_per_token(model, seq)
        inferred = ["cluster.gpus_per_node", "parallel.microbatch", "parallel.sp", "parallel.zero",
                    "parallel.recompute", "target.value"]
        if pp > 1:
            inferred.append("parallel.vpp")
        if gpu.startswith("H100"):
            inferred.append("also.model_tflops_per_gpu")
        yield {
            "id": f"nemo_longseq_{key}_{gpu.split('-')[0].lower()}_{seq_k}k_tp{tp}pp{pp}dp{dp}cp{cp}",
            "source": SOURCE,
            "reliability": "A" if gpu.startswith("B200") else "B",
            "workload": "train",
            "precision": "fp8",
            "model": {**model, "seq_len": seq},
            "cluster": {"gpu": gpu, "num_gpus": gpus, "gpus_per_node": 8},
            "parallel": {"tp": tp, "pp": pp, "dp": dp, "cp": cp, "ep": 1, "sp": tp > 1, "vpp": 1, "zero": 1,
                         "recompute": "none", "microbatch": 1, "global_batch": gbs},
            "inference": None,
            "target": {"metric": "tokens_per_s_per_gpu", "value": round(tps, 1)},
            "also": {"model_tflops_per_gpu": float(tflops)},
            "inferred": sorted(inferred),
            "notes": (f"{container}, {model['name']} FP8, {seq_k}K tokens a sequence, global batch {gbs} "
                      f"(4M tokens a step), TP {tp} PP {pp} DP {dp} CP {cp} on {gpus} GPUs; the page's "
                      f"{tflops:,} TFLOPS/GPU under NeMo's full-attention FLOP count "
                      f"({nemo_flops_per_token(model, seq) / 1e9:.1f} GFLOP a token) is {tps:,.1f} tokens/s per GPU."),
        }


def main():
    write_cases(list(cases()), OUT)


if __name__ == "__main__":
    main()
