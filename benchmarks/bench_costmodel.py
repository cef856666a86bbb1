"""Throughput of the vectorized training cost model.

Scores N random Llama-2-70B training configurations on H100-SXM-80GB hardware columns in one
vectorized ``evaluate_training`` call (best of 3 after one warm-up), then a few thousand of the
same configurations one at a time through ``evaluate_training`` with scalar columns (the rate
of a Python loop, extrapolated). The last line printed is one JSON object.

    python benchmarks/bench_costmodel.py [--n 1000000] [--seed 0] [--loop-n 3000]

Single core: numpy's elementwise ufuncs run on one thread anyway; the thread-count variables
are pinned to 1 before numpy is imported so that no BLAS pool (unused here) can add threads.
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
from dse.costmodel import evaluate_training  # noqa: E402

PLAN_COLUMNS = ("tp", "pp", "vpp", "cp", "dp", "microbatch", "zero", "recompute", "sp", "num_gpus", "global_batch")


def base_columns() -> dict[str, float]:
    """Llama-2-70B on H100-SXM-80GB, bf16: model, hardware and numerics columns (scalars)."""
    scenario = {"model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64}, "precision": "bf16"}
    cols = dse.scenario_columns(dse.load_scenario(scenario))
    return {k: v for k, v in cols.items() if k not in PLAN_COLUMNS}


def random_plans(n: int, seed: int) -> dict[str, np.ndarray]:
    """n random parallel plans (float64 arrays); dp = floor(num_gpus / (tp*pp*cp)), at least 1."""
    rng = np.random.default_rng(seed)
    tp = 2.0 ** rng.integers(0, 4, n)  # 1, 2, 4, 8
    pp = rng.integers(1, 17, n).astype(np.float64)  # 1..16
    vpp = rng.integers(1, 5, n).astype(np.float64)  # 1..4
    cp = rng.integers(1, 3, n).astype(np.float64)  # 1..2
    num_gpus = 2.0 ** rng.integers(6, 15, n)  # 64..16384
    dp = np.maximum(np.floor(num_gpus / (tp * pp * cp)), 1.0)
    return {
        "tp": tp, "pp": pp, "vpp": vpp, "cp": cp, "dp": dp, "num_gpus": num_gpus,
        "microbatch": rng.integers(1, 9, n).astype(np.float64),  # 1..8
        "zero": rng.integers(0, 4, n).astype(np.float64),  # 0..3
        "recompute": rng.integers(0, 3, n).astype(np.float64),  # none, selective, full
        "sp": rng.integers(0, 2, n).astype(np.float64),
        "global_batch": rng.choice([1024.0, 1536.0, 2048.0, 3072.0, 4096.0], n),
    }


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="configurations in the vectorized call")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--loop-n", type=int, default=3000, help="configurations scored one at a time")
    parser.add_argument("--repeat", type=int, default=3, help="timed vectorized calls (best taken)")
    args = parser.parse_args(argv)

    base = base_columns()
    plans = random_plans(args.n, args.seed)
    batch = {**base, **plans}  # model/hardware columns as scalars, plan columns as arrays

    out = evaluate_training(batch)  # warm-up
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        out = evaluate_training(batch)
        times.append(time.perf_counter() - start)
    best = min(times)
    configs_per_s = args.n / best
    feasible = out["feasible"] > 0
    feasible_fraction = float(feasible.mean())

    # the same model, one configuration per call, scalar columns
    loop_n = min(args.loop_n, args.n)
    rows = [{**base, **{k: float(v[i]) for k, v in plans.items()}} for i in range(loop_n)]
    evaluate_training(rows[0])  # warm-up
    start = time.perf_counter()
    loop_iter = []
    for row in rows:
        loop_iter.append(evaluate_training(row)["iteration_time_s"][0])
    loop_time = time.perf_counter() - start
    loop_configs_per_s = loop_n / loop_time
    # the loop scores the same model: its first rows must agree with the vectorized call
    np.testing.assert_allclose(loop_iter, out["iteration_time_s"][:loop_n], rtol=1e-12)

    best_i = int(np.argmax(np.where(feasible, out["tokens_per_s_per_gpu"], -np.inf))) if feasible.any() else 0
    print(f"cost model: Llama-2-70B on H100-SXM-80GB, {args.n:,} random training configurations (seed {args.seed})")
    print(f"  vectorized: {best:.3f} s per call (best of {args.repeat}; {', '.join(f'{t:.3f}' for t in times)})"
          f" -> {configs_per_s:,.0f} configs/s")
    print(f"  one at a time: {loop_n:,} configs in {loop_time:.2f} s -> {loop_configs_per_s:,.0f} configs/s"
          f" (the full batch would take {args.n / loop_configs_per_s / 60:.1f} min)")
    print(f"  speedup {configs_per_s / loop_configs_per_s:,.0f}x; feasible {feasible_fraction:.1%}")
    if feasible.any():
        plan = ", ".join(f"{k}={plans[k][best_i]:g}" for k in PLAN_COLUMNS)
        print(f"  best feasible tokens/s/GPU {out['tokens_per_s_per_gpu'][best_i]:,.0f} (MFU {out['mfu'][best_i]:.1%}): {plan}")
    result = {
        "configs_per_s": configs_per_s,
        "loop_configs_per_s": loop_configs_per_s,
        "n_configs": args.n,
        "speedup": configs_per_s / loop_configs_per_s,
        "feasible_fraction": feasible_fraction,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
