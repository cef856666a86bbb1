"""Throughput of the disaggregated-deployment model: offline, at an offered rate, for closed-loop clients.

Scores N random Llama-3.1-70B FP8 deployments on 8-64 H100-SXM-80GB (prefill and decode tensor
parallel degrees, prefill token budget, prompt and answer lengths varied) in one vectorized
``evaluate_deployments`` call, best of 3 after a warm-up: offline (every instance as loaded as the
split lets it be), at 2 requests/s (the decode side at its share, an M/D/1 prefill queue) and for
64 clients (the rate Little's law gives, by bisection: each step scores the decode side again).
The last line printed is one JSON object.

    python benchmarks/bench_disaggregated.py [--n 5000] [--seed 0]
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
from dse.costmodel.disaggregated import evaluate_deployments  # noqa: E402
from dse.workloads.inference import inference_columns, instance_scenarios  # noqa: E402


def columns(n: int, seed: int) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], np.ndarray]:
    """N random deployments as (prefill instance columns, decode instance columns, GPU counts)."""
    scenario = dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16}, "parallel": {"tp": 4},
        "inference": {"input_len": 4000, "output_len": 500, "phase": "disaggregated",
                      "prefill": {"tp": 2, "max_num_tokens": 8192}},
    })
    pre_s, dec_s = instance_scenarios(scenario)
    rng = np.random.default_rng(seed)
    pre = {k: np.full(n, v, dtype=np.float64) for k, v in inference_columns(pre_s).items()}
    dec = {k: np.full(n, v, dtype=np.float64) for k, v in inference_columns(dec_s).items()}
    pre["tp"] = rng.choice([1.0, 2.0, 4.0, 8.0], n)
    pre["num_gpus"] = pre["tp"]
    budget = rng.choice([4096.0, 8192.0, 16384.0], n)
    pre["max_num_tokens"], pre["min_num_tokens"] = budget, budget
    dec["tp"] = rng.choice([2.0, 4.0, 8.0], n)
    dec["num_gpus"] = dec["tp"]
    for side in (pre, dec):
        side["input_len"] = rng.choice([1000.0, 4000.0, 8000.0], n) if side is pre else pre["input_len"]
        side["output_len"] = rng.choice([200.0, 500.0, 1000.0], n) if side is pre else pre["output_len"]
        side["seq_len"] = side["input_len"] + side["output_len"]
    num_gpus = rng.choice([8.0, 16.0, 32.0, 64.0], n)
    return pre, dec, num_gpus


def rate(pre: dict, dec: dict, num_gpus: np.ndarray, repeats: int = 3, **load: float) -> tuple[float, float]:
    """(deployments per second, feasible fraction), best of ``repeats`` after a warm-up."""
    n = len(num_gpus)
    kwargs = {k: np.full(n, v) for k, v in load.items()}
    evaluate_deployments(pre, dec, num_gpus, **kwargs)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        rows, _, _ = evaluate_deployments(pre, dec, num_gpus, **kwargs)
        best = min(best, time.perf_counter() - start)
    return n / best, float(rows["feasible"].mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    pre, dec, num_gpus = columns(args.n, args.seed)
    offline, f_off = rate(pre, dec, num_gpus)
    at_rate, f_rate = rate(pre, dec, num_gpus, request_rate=2.0)
    clients, f_cl = rate(pre, dec, num_gpus, concurrency=64.0)
    print(f"disaggregated deployments: Llama-3.1-70B FP8 on 8-64 H100-SXM-80GB, {args.n:,} random deployments "
          f"(seed {args.seed})")
    print(f"  offline (the split that serves the most): {offline:,.0f} deployments/s, feasible {f_off:.0%}")
    print(f"  at 2 req/s (M/D/1 prefill queue):          {at_rate:,.0f} deployments/s, feasible {f_rate:.0%}")
    print(f"  64 closed-loop clients (bisection):        {clients:,.0f} deployments/s, feasible {f_cl:.0%}")
    print(json.dumps({"n_deployments": args.n, "offline_per_s": offline, "rate_per_s": at_rate,
                      "clients_per_s": clients}))


if __name__ == "__main__":
    main()
