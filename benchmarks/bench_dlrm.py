"""Throughput of the vectorized DLRM cost model.

Scores N random training plans of the MLPerf DLRM-DCNv2 model (26 multi-hot Criteo tables,
214 lookups per sample, 3 low-rank cross layers) on H100-SXM-80GB columns in one vectorized
``evaluate_dlrm`` call (best of 3 after one warm-up): every embedding sharding dse knows, 8 to
1,024 GPUs, 4 or 8 GPUs per node, 256-16,384 samples per GPU, Adagrad or SGD. Then a few hundred
of the same plans one at a time (the rate of a Python loop). The last line printed is one JSON
object.

    python benchmarks/bench_dlrm.py [--n 200000] [--seed 0] [--loop-n 300]

Single core, as benchmarks/bench_costmodel.py: the thread-count variables are pinned to 1.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from dse.costmodel import dlrm as cm  # noqa: E402
from dse.scenario import load_jsonl, scenario_from_dict  # noqa: E402
from dse.sources import apply_software  # noqa: E402
from dse.workloads import dlrm as wl  # noqa: E402

CASES = Path(__file__).resolve().parents[1] / "validation" / "mlperf_dcnv2.jsonl"
CASE_ID = "mlperf-dcnv2-v4.0-nvidia-dgxh100-n1"
PLAN_COLUMNS = ("num_gpus", "gpus_per_node", "microbatch", "global_batch", "emb_sharding", "emb_optimizer")


def base() -> tuple[dict, dict[str, float]]:
    """The DCNv2 model constants and the H100 columns of one MLPerf case (scalars)."""
    case = next(c for _, c in load_jsonl(CASES) if c["id"] == CASE_ID)
    s = scenario_from_dict(apply_software(case))
    cols = wl.scenario_columns(s)
    return wl.model_constants(s.model), {k: v for k, v in cols.items() if k not in PLAN_COLUMNS}


def random_plans(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    num_gpus = 2.0 ** rng.integers(3, 11, n)  # 8..1024
    b = 2.0 ** rng.integers(8, 15, n)  # 256..16384
    return {
        "num_gpus": num_gpus,
        "gpus_per_node": rng.choice([4.0, 8.0], n),
        "microbatch": b,
        "global_batch": b * num_gpus,
        "emb_sharding": rng.choice(np.array(sorted(cm.SHARDING.values()), dtype=float), n),
        "emb_optimizer": rng.choice([float(cm.OPTIMIZER["sgd"]), float(cm.OPTIMIZER["adagrad"])], n),
    }


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--loop-n", type=int, default=300)
    args = parser.parse_args(argv)
    model, cols = base()
    plans = random_plans(args.n, args.seed)
    batch = {**{k: np.full(args.n, v) for k, v in cols.items()}, **plans}
    cm.evaluate_dlrm(model, {k: v[:1000] for k, v in batch.items()})  # warm-up (placement caches)
    times = []
    for _ in range(3):
        start = time.perf_counter()
        out = cm.evaluate_dlrm(model, batch)
        times.append(time.perf_counter() - start)
    vec = args.n / min(times)
    feasible = float(np.mean(out["feasible"]))
    start = time.perf_counter()
    for i in range(args.loop_n):
        cm.evaluate_dlrm(model, {k: v[i:i + 1] for k, v in batch.items()})
    loop = args.loop_n / (time.perf_counter() - start)
    result = {"configs": args.n, "vectorized_configs_per_s": vec, "loop_configs_per_s": loop,
              "speedup": vec / loop, "feasible_fraction": feasible}
    print(f"DLRM-DCNv2 on H100: {args.n:,} plans in {min(times):.2f} s = {vec:,.0f} configs/s vectorized "
          f"(best of 3); one at a time {loop:,.0f} configs/s ({vec / loop:,.0f}x); {100 * feasible:.0f}% feasible")
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
