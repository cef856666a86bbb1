"""Throughput of the vectorized serving cost model: offline, finite runs, a closed loop, and at an offered rate.

Scores N random Llama-3.1-70B FP8 serving configurations on H100-SXM-80GB (tensor and pipeline
parallel degree, replicas, prompt and answer lengths, HBM bandwidth varied) in one vectorized
``evaluate_inference`` call, best of 3 after a warm-up: once offline (the throughput-maximising
batch of each row, a grid of candidate batches), once as offline runs of 1,500 requests (the
model again at each row's last, smaller wave), once as closed loops of 64 clients sending 640
requests (the opening wave's prompts queued together: one iteration more) and once at an offered
request rate (the batch Little's law gives, by bisection on top of the grid). The last line printed is one JSON object.

    python benchmarks/bench_serving.py [--n 20000] [--seed 0]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

import dse  # noqa: E402
from dse.costmodel.inference import evaluate_inference  # noqa: E402
from dse.workloads.inference import inference_columns  # noqa: E402


def columns(n: int, seed: int) -> dict[str, np.ndarray]:
    """N random serving configurations as cost-model columns (SI units)."""
    scenario = dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",  # 128K context: 20K prompts fit
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 8},
        "inference": {"input_len": 1000, "output_len": 1000},
    })
    base = inference_columns(scenario)
    rng = np.random.default_rng(seed)
    cols = {k: np.full(n, v, dtype=np.float64) for k, v in base.items()}
    cols["tp"] = rng.choice([1.0, 2.0, 4.0, 8.0], n)
    cols["pp"] = rng.choice([1.0, 2.0, 4.0], n)
    cols["dp"] = rng.choice([1.0, 2.0, 4.0], n)
    cols["num_gpus"] = cols["tp"] * cols["pp"] * cols["dp"]
    cols["input_len"] = rng.choice([128.0, 1000.0, 2048.0, 20000.0], n)
    cols["output_len"] = rng.choice([128.0, 1000.0, 2048.0], n)
    cols["seq_len"] = cols["input_len"] + cols["output_len"]
    cols["hbm_bw"] = cols["hbm_bw"] * rng.uniform(0.5, 2.0, n)
    return cols


def rate(cols: dict[str, np.ndarray], repeats: int = 3) -> tuple[float, float]:
    """(configurations per second, feasible fraction), best of ``repeats`` after a warm-up."""
    evaluate_inference(cols)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        out = evaluate_inference(cols)
        best = min(best, time.perf_counter() - start)
    return len(cols["tp"]) / best, float(out["feasible"].mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    cols = columns(args.n, args.seed)
    offline, feasible_offline = rate(cols)
    finite, _ = rate({**cols, "num_requests": np.full(args.n, 1500.0)})
    closed, _ = rate({**cols, "concurrency": np.full(args.n, 64.0), "num_requests": np.full(args.n, 640.0)})
    cols["request_rate"] = np.full(args.n, 5.0)
    online, feasible_online = rate(cols)
    print(f"serving cost model: Llama-3.1-70B FP8 on H100-SXM-80GB, {args.n:,} random configurations (seed {args.seed})")
    print(f"  offline (throughput-maximising batch): {offline:,.0f} configs/s, feasible {feasible_offline:.0%}")
    print(f"  offline runs of 1,500 requests (the last wave re-scored): {finite:,.0f} configs/s")
    print(f"  closed loops of 64 clients, 640 requests (the opening wave queued): {closed:,.0f} configs/s")
    print(f"  online at 5 req/s (Little's law batch): {online:,.0f} configs/s, feasible {feasible_online:.0%}")
    print(json.dumps({"n_configs": args.n, "offline_configs_per_s": offline,
                      "finite_run_configs_per_s": finite, "closed_loop_configs_per_s": closed,
                      "online_configs_per_s": online}))


if __name__ == "__main__":
    main()
