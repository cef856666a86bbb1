"""Speed of hardware what-ifs (``dse whatif``): hardware points per second, per kind of run.

Every point of a what-if scores every plan of the scenario at that hardware in one vectorized
cost-model call and keeps the best (:func:`dse.whatif.whatif`). This times a 5 x 4 grid of two
knobs for a training scenario (Llama-2-70B on 1,024 H100s: scale-out bandwidth x NVLink domain), a
serving scenario (Llama-3.1-70B FP8 on 8 H100s within a 50 ms ITL: HBM capacity x bandwidth), a
disaggregated deployment (scenarios/llama3_70b_disaggregated_h100.yaml, 32 H100s within a 40 ms
ITL: HBM bandwidth x the NIC that carries the KV caches) and a DLRM (MAD-Max's DLRM-A on
ZionEX-128: scale-out bandwidth x GPUs per server), best of 3 after a warm-up, the sensitivity and
bottleneck included. The last line printed is one JSON object.

    python benchmarks/bench_whatif.py [--repeat 3]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from dse.whatif import whatif  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TRAINING = {"model": "llama2-70b", "precision": "bf16", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1024},
            "parallel": {"tp": 8, "pp": 4, "global_batch": 1024}}
SERVING = {"model": "llama3.1-70b", "precision": "fp8", "workload": "inference",
           "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 8},
           "inference": {"input_len": 1000, "output_len": 1000}}
CASES = {
    "training": (TRAINING, {"scaleout_gbitps": [100, 200, 400, 800, 1600], "nvlink_domain": [8, 16, 36, 72]}, {}),
    "serving": (SERVING, {"hbm_tbps": [2.0, 3.35, 4.8, 6.0, 8.0], "hbm_gb": [40, 80, 141, 192]}, {"max_itl_ms": 50.0}),
    "disaggregated": (str(ROOT / "scenarios" / "llama3_70b_disaggregated_h100.yaml"),
                      {"hbm_tbps": [2.0, 3.35, 4.8, 6.0, 8.0], "scaleout_gbitps": [25, 50, 100, 400]},
                      {"max_itl_ms": 40.0}),
    "dlrm": (str(ROOT / "scenarios" / "dlrm_a_zionex128.yaml"),
             {"scaleout_gbitps": [100, 200, 400, 800, 1600], "gpus_per_node": [4, 8, 16, 32]}, {}),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    out = {}
    for name, (scenario, vary, bounds) in CASES.items():
        result = whatif(scenario, vary, **bounds)  # warm-up (imports, caches)
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            result = whatif(scenario, vary, **bounds)
            times.append(time.perf_counter() - start)
        points = len(result.points)
        plans = int(result.points["plans"].sum())
        best = min(times)
        out[name] = {"points": points, "plans_scored": plans, "seconds": best, "points_per_s": points / best,
                     "plans_per_s": plans / best}
        print(f"{name}: {points} hardware points x {plans / points:,.0f} plans in {best:.2f} s "
              f"({points / best:.1f} points/s, {plans / best:,.0f} plans/s; best of {args.repeat}, "
              f"sensitivity and bottleneck included)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
