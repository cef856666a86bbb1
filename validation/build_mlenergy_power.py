"""Write validation/mlenergy_power.jsonl: average GPU board power of LLM serving on H100s,
measured by The ML.ENERGY Benchmark v3.0 (vLLM 0.11.1, December 2025).

Source: ML.ENERGY blog, "LLM Inference Energy: A Longitudinal Analysis" (2026-02-09), figure
"Average GPU power vs. batch size for Llama 3.1 models on H100 GPUs" (github.com/ml-energy/blog,
docs/posts/assets/llm-energy-over-time/llama-power-light.svg). The figure is a vector plot: each
point's value was read from its coordinates mapped through the axis ticks (error under 1 W), not
by eye. Its y-axis is the power of all the run's GPUs (the TDP line is drawn at N x 700 W), so
the figures below are that sum over N. Power is the Zeus/NVML energy counter over the
benchmark's steady state (the v3 methodology); batch is vLLM's max_num_seqs, and the benchmark
flags runs whose mean batch falls below 85% of it, so the engine holds that many sequences.

Not stated in the figure and filled (listed in each case's ``inferred``): the task's prompt and
response lengths (LM Arena chat; the v3 post gives a mean response of 717 tokens for its Text
Conversation task, written as output_len 700, and short chat prompts, written as input_len 200),
vLLM's token budget per iteration (8,192, its server default with chunked prefill), its
gpu_memory_utilization (0.9, its default) and the KV cache type (the checkpoint's BF16; FP8 for
the FP8 405B checkpoint as dse's default). vLLM allocates KV blocks as tokens arrive
(kv_allocation on_demand), and the benchmark measures a steady state of requests that arrived
over time, so a sequence holds its prompt and about half its response on average.

    python validation/build_mlenergy_power.py
"""

from __future__ import annotations

import json
from pathlib import Path

from case_files import LLAMA31

SOURCE = ("ML.ENERGY blog 'LLM Inference Energy: A Longitudinal Analysis' (2026-02-09), figure 'Average GPU "
          "power vs. batch size for Llama 3.1 models on H100 GPUs' (ML.ENERGY Benchmark v3.0, vLLM 0.11.1; "
          "github.com/ml-energy/blog docs/posts/assets/llm-energy-over-time/llama-power-light.svg)")

MODELS = LLAMA31

#: model -> (GPUs = TP degree, precision, {max_num_seqs: total power of the run's GPUs, W})
RUNS = {
    "8B": (1, "bf16", {16: 513, 32: 560, 64: 610, 96: 644, 128: 669, 192: 688, 256: 691, 384: 687, 512: 688,
                       768: 685}),
    "70B": (4, "bf16", {16: 1804, 32: 1794, 64: 2002, 96: 2102, 128: 2184, 192: 2293, 256: 2354, 384: 2344,
                        512: 2493, 768: 2535, 1024: 2548}),
    "405B": (8, "fp8", {16: 3384, 32: 3744, 64: 4162, 96: 4475, 128: 4606, 192: 4813, 256: 4875}),
}

INPUT_LEN, OUTPUT_LEN, MAX_NUM_TOKENS = 200, 700, 8192


def cases():
    for model, (gpus, precision, points) in RUNS.items():
        for batch, total_w in points.items():
            yield {
                "id": f"mlenergy-v3_llama3.1-{model.lower()}_h100_tp{gpus}_b{batch}_power",
                "source": SOURCE,
                "reliability": "B",
                "workload": "inference",
                "precision": precision,
                "model": {**MODELS[model], "seq_len": INPUT_LEN + OUTPUT_LEN},
                "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": gpus, "gpus_per_node": 8},
                "parallel": {"tp": gpus, "pp": 1, "dp": 1, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 0,
                             "recompute": "none", "microbatch": None, "global_batch": None},
                "inference": {"input_len": INPUT_LEN, "output_len": OUTPUT_LEN, "batch": batch, "concurrency": None,
                              "mode": "offline_max_throughput", "max_num_tokens": MAX_NUM_TOKENS,
                              "gpu_memory_utilization": 0.9, "kv_allocation": "on_demand"},
                "target": {"metric": "power_per_gpu_w", "value": round(total_w / gpus, 1)},
                "also": {"power_all_gpus_w": total_w},
                "inferred": ["inference.input_len", "inference.output_len", "inference.max_num_tokens",
                             "inference.gpu_memory_utilization", "model.seq_len", "cluster.gpus_per_node"],
                "notes": (f"Llama 3.1 {model} ({'FP8 checkpoint' if precision == 'fp8' else 'BF16'}) on {gpus} H100 "
                          f"SXM (TP{gpus}), vLLM 0.11.1, LM Arena chat task, max_num_seqs {batch}; the figure's point "
                          f"is {total_w} W for the {gpus} GPU(s), i.e. {total_w / gpus:.1f} W per GPU (read from the "
                          "SVG's coordinates through its axis ticks). Prompt and response lengths are the task's "
                          "means as far as the post states them (response about 717 tokens; short prompts)."),
            }


def main() -> None:
    out = Path(__file__).with_name("mlenergy_power.jsonl")
    rows = list(cases())
    out.write_text("".join(json.dumps(row) + "\n" for row in rows))
    print(f"wrote {len(rows)} cases to {out}")


if __name__ == "__main__":
    main()
