#!/usr/bin/env python3
"""Write validation/torchtitan_llama3.jsonl: the torchtitan team's Llama 3.1 8B/70B/405B pre-training
benchmarks on H100 (end of 2024), each run as two cases: throughput (tokens/s per GPU) and peak memory
per GPU (GiB) -- the one public table that gives both for FSDP, TP, PP and CP plans -- and the two
H200 runs of Llama 3.1 8B that Trainy added to the same folder (June 2025), also with both.

Usage: python validation/build_torchtitan.py   (no network: every number below was read from the file
named in SOURCE and is kept here as a literal).

The stack: torchtitan @9dec370 with torch @1963fc8 and torchao @eab345c (2024-12-23/26). FSDP2 shards
parameters, gradients and AdamW states over the data-parallel ranks (zero 3; bf16 compute, fp32 gradient
reduction); tensor parallelism shards the norms along the sequence (sp) and computes the loss on the
vocabulary shards (loss parallel); "Float8" is torchao's tensorwise-scaled FP8 for the nn.Linear layers
(dse precision fp8); "AsyncTP" overlaps the TP collectives with the matmuls (training.overlap.tp);
"torch.compile" fuses the elementwise work, which dse does not distinguish (an eager row and its compiled
twin get the same prediction: the difference is the data's measure of that). Memory is what torchtitan
logs: the peak of PyTorch's reserved memory, the maximum over all GPUs (footnote 1): it holds the caching
allocator's unused blocks, and not the CUDA context or NCCL's buffers.

The hardware (the page's "Hardware"): Grand Teton hosts of 8 H100 with NVLink, 96 GB HBM2e at
2.4 TB/s, 400 Gb/s RDMA per GPU, at the default 500 W power limit, with a tensor-core peak "between SXM
and NVL" that the page does not know: the H100-SXM preset with hbm_gb 95 (PyTorch's reading of a 96 GB
part, INFERRED), hbm_tbps 2.4 and power_w 500; the SXM peak stays (INFERRED).

Filled where the page is silent (each case's ``inferred``): the sequence length of Tables 1, 3, 4 and 5
(8,192, the llama3 configs' seq_len); microbatch = the local batch (no gradient accumulation) without PP,
and torchtitan's default pipeline microbatch of 1 sequence with PP; interleaved 1F1B's two stages per rank
(vpp 2); the selective checkpointing of Tables 1 and 3 is torchtitan's op-level policy (``selective_ac_option
'op'`` in the 8B config: every other matmul output and the attention outputs saved, the rest recomputed),
which dse cannot state: written as recompute_modules [mlp] (the FFN's up-projection and activation outputs
recomputed), which keeps about 12.5 h bytes a token of a layer against the policy's ~15 h.

The H200 page (``H200_RUNS``): Llama 3.1 8B on 4 and 8 hosts of 8 H200 (400 Gb/s per GPU), FSDP over all
GPUs, the 8B config's defaults (seq_len 8192, op-level selective checkpointing: recompute_modules [mlp]
as above) with local batch 2, torch.compile and torchao Float8 whose FSDP all-gather sends the FP8
weights (``--float8.enable_fsdp_float8_all_gather``: training.fp8_params, FSDP gathers 1 byte a
weight); TPS and memory at the 100th iteration. The preset H200 at its 700 W (the page states no
limit; INFERRED).
"""
import os

from case_files import LLAMA31, write_cases

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "torchtitan_llama3.jsonl")

SOURCE_H200 = ("torchtitan benchmarks/llama3_8b_h200_2025-06_torchtitan.md (pytorch/torchtitan @bcdeaa37; "
               "Trainy, torchtitan e7c0cae, torch 2.8.0a0+5228986c39, torchao 0afa4c1, 2025-06)")
#: (hosts, TPS/GPU, memory GiB) as the H200 page prints them
H200_RUNS = [(4, 10938, 47.96), (8, 10753, 46.97)]
SOURCE = ("torchtitan benchmarks/llama3_h100_202412_torchtitan.md (pytorch/torchtitan @31a17bfd; torchtitan 9dec370, "
          "torch 1963fc8, torchao eab345c, 2024-12)")
MODELS = LLAMA31
CLUSTER = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "hbm_gb": 95.0, "hbm_tbps": 2.4, "power_w": 500}

# (table, label, model, GPUs, tp, pp, vpp, cp, fsdp, seq, local batch, recompute, fp8, compile, async TP,
#  TPS/GPU, memory GiB) -- as the tables print them
RUNS = [
    (1, "FSDP", "8B", 8, 1, 1, 1, 1, 8, 8192, 2, "selective", False, False, False, 5762, 82.4),
    (1, "FSDP + torch.compile", "8B", 8, 1, 1, 1, 1, 8, 8192, 2, "selective", False, True, False, 6667, 77.0),
    (1, "FSDP + torch.compile + Float8", "8B", 8, 1, 1, 1, 1, 8, 8192, 2, "selective", True, True, False, 8532, 76.8),
    (2, "FSDP 8, CP 1", "8B", 8, 1, 1, 1, 1, 8, 32768, 1, "full", True, True, False, 3890, 83.9),
    (2, "FSDP 4, CP 2", "8B", 8, 1, 1, 1, 2, 4, 65536, 1, "full", True, True, False, 2540, 84.2),
    (2, "FSDP 2, CP 4", "8B", 8, 1, 1, 1, 4, 2, 131072, 1, "full", True, True, False, 1071, 84.0),
    (2, "FSDP 1, CP 8", "8B", 8, 1, 1, 1, 8, 1, 262144, 1, "full", True, True, False, 548, 84.5),
    (3, "FSDP", "8B", 128, 1, 1, 1, 1, 128, 8192, 2, "selective", False, False, False, 5605, 67.0),
    (3, "FSDP + torch.compile", "8B", 128, 1, 1, 1, 1, 128, 8192, 2, "selective", False, True, False, 6514, 62.0),
    (3, "FSDP + torch.compile + Float8", "8B", 128, 1, 1, 1, 1, 128, 8192, 2, "selective", True, True, False,
     8380, 61.8),
    (4, "2D", "70B", 256, 8, 1, 1, 1, 32, 8192, 16, "full", True, True, False, 829, 71.9),
    (4, "2D + AsyncTP", "70B", 256, 8, 1, 1, 1, 32, 8192, 16, "full", True, True, True, 876, 67.6),
    (5, "1F1B", "405B", 512, 8, 8, 1, 1, 8, 8192, 32, "full", True, True, True, 100, 82.5),
    (5, "Interleaved 1F1B", "405B", 512, 8, 8, 2, 1, 8, 8192, 32, "full", True, True, True, 128, 72.7),
    (6, "FSDP 8, CP 1", "405B", 512, 8, 8, 1, 1, 8, 32768, 8, "full", True, True, True, 76, 75.3),
    (6, "FSDP 4, CP 2", "405B", 512, 8, 8, 1, 2, 4, 65536, 8, "full", True, True, True, 47, 75.9),
    (6, "FSDP 2, CP 4", "405B", 512, 8, 8, 1, 4, 2, 131072, 8, "full", True, True, True, 31, 77.1),
    (6, "FSDP 1, CP 8", "405B", 512, 8, 8, 1, 8, 1, 262144, 8, "full", True, True, True, 16, 84.9),
]


def both_metrics(stem, base, tps, mem, inferred, note):
    """The run's two cases: tokens/s per GPU (id ``stem_tps``) and peak memory (``stem_mem``)."""
    for metric, value, also in (("tokens_per_s_per_gpu", tps, {"memory_per_gpu_gib": mem}),
                                ("memory_per_gpu_gib", mem, {"tokens_per_s_per_gpu": tps})):
        kind = "tps" if metric.startswith("tokens") else "mem"
        yield {"id": f"{stem}_{kind}", **base, "target": {"metric": metric, "value": value}, "also": also,
               "inferred": sorted(inferred), "notes": note}


def cases():
    for (table, label, size, gpus, tp, pp, vpp, cp, fsdp, seq, local, recompute, fp8, compiled, async_tp,
         tps, mem) in RUNS:
        assert tp * pp * cp * fsdp == gpus, (table, label)
        inferred = ["cluster.hbm_gb", "cluster.gpus_per_node", "cluster.peak_tflops"]
        if table in (1, 3, 4, 5):
            inferred.append("model.seq_len")
        microbatch = 1 if pp > 1 else local
        inferred.append("parallel.microbatch")
        if vpp > 1:
            inferred.append("parallel.vpp")
        training = {}
        if recompute == "selective":
            training["recompute_modules"] = ["mlp"]
            inferred.append("training.recompute_modules")
        if async_tp:
            training["overlap"] = {"tp": True}
        slug = label.lower().replace(" + ", "_").replace(", ", "_").replace(" ", "").replace(".", "")
        base = {
            "source": SOURCE,
            "reliability": "A" if recompute == "full" else "B",
            "workload": "train",
            "precision": "fp8" if fp8 else "bf16",
            "model": {**MODELS[size], "seq_len": seq},
            "cluster": {**CLUSTER, "num_gpus": gpus},
            "parallel": {"tp": tp, "pp": pp, "dp": fsdp, "cp": cp, "ep": 1, "sp": tp > 1, "vpp": vpp, "zero": 3,
                         "recompute": recompute, "microbatch": microbatch, "global_batch": local * fsdp},
            **({"training": training} if training else {}),
            "inference": None,
        }
        note = (f"Table {table} ('{label}'): Llama 3.1 {size} on {gpus} H100 (96 GB HBM2e, 500 W), FSDP {fsdp}"
                + (f", TP {tp}" if tp > 1 else "") + (f", PP {pp}" if pp > 1 else "") + (f", CP {cp}" if cp > 1 else "")
                + f", local batch {local} of {seq} tokens, {recompute} activation checkpointing"
                + (", Float8" if fp8 else "") + (", torch.compile" if compiled else ", eager")
                + (", AsyncTP" if async_tp else "")
                + f"; measured {tps:,} tokens/s per GPU (the 90th iteration) and {mem} GiB (peak reserved, max over GPUs).")
        yield from both_metrics(f"torchtitan2412_t{table}_{size.lower()}_{gpus}g_{slug}", base, tps, mem,
                                inferred, note)


def h200_cases():
    for hosts, tps, mem in H200_RUNS:
        gpus = 8 * hosts
        base = {
            "source": SOURCE_H200,
            "reliability": "B",
            "workload": "train",
            "precision": "fp8",
            "model": {**MODELS["8B"], "seq_len": 8192},
            "cluster": {"gpu": "H200-SXM-141GB", "num_gpus": gpus, "gpus_per_node": 8},
            "parallel": {"tp": 1, "pp": 1, "dp": gpus, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 3,
                         "recompute": "selective", "microbatch": 2, "global_batch": 2 * gpus},
            "training": {"recompute_modules": ["mlp"], "fp8_params": True},
            "inference": None,
        }
        note = (f"Trainy's H200 run ({hosts} hosts): Llama 3.1 8B on {gpus} H200, FSDP {gpus}, local batch 2 of "
                "8192 tokens, op-level selective checkpointing (the 8B config's default), torch.compile, Float8 "
                f"with FP8 FSDP all-gathers; measured {tps:,} tokens/s per GPU and {mem} GiB at the 100th iteration.")
        inferred = ["model.seq_len", "parallel.recompute", "training.recompute_modules", "cluster.power_w"]
        yield from both_metrics(f"torchtitan2506_h200_8b_{gpus}g_fsdp_float8", base, tps, mem, inferred, note)


def main():
    write_cases([*cases(), *h200_cases()], OUT)


if __name__ == "__main__":
    main()
