#!/usr/bin/env python3
"""Would refitting a family's serving numbers on every source help the sources it is not fitted to?

Pools a family's serving runs from several case files (runs with a throughput or time-per-token
target and no offered rate in their notes, engines serving whole requests), fits the four
serving numbers of ``scripts/calibrate_inference.py`` on all sources but one, and scores the one
left out at that fit and at the shipped numbers (``dse/data/calibration.yaml``).

    python scripts/serving_refit_by_source.py [--family blackwell]

About 3 minutes a source on two cores. docs/calibration.md (2026-12-07, the seventh session) has
its figures for blackwell.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import calibrate_inference as ci  # noqa: E402  (same folder)
from dse.presets import gpu_calibration  # noqa: E402
from dse.validate import offered_rate  # noqa: E402

#: source label -> (case file, reliability kept or None)
SOURCES = {
    "v1.0 (fitted)": [("trtllm_v1", "A")],
    "developer guide": [("trtllm_devguide", None), ("trtllm_windowed", None), ("trtllm_mla", None)],
    "release 1.2": [("trtllm_r12_blackwell_ultra", None)],
    "MLPerf": [("mlperf_inference", None), ("mlperf_inference_more", None)],
    "InferenceMAX": [("inferencemax", None)],
}
FAMILY_GPUS = {"blackwell": ("B200", "GB200", "B300", "GB300")}


def pooled(family: str, folder: Path) -> tuple[pd.DataFrame, list[str]]:
    """The family's cases of every source (calibrate_inference's columns) and each one's source."""
    frames, labels = [], []
    for label, files in SOURCES.items():
        path = folder / f"{label.split()[0]}.jsonl"
        with path.open("w") as out:
            for name, rel in files:
                for line in (ROOT / "validation" / f"{name}.jsonl").read_text().splitlines():
                    c = json.loads(line)
                    if (c.get("workload") != "inference" or c["cluster"]["gpu"].split("-")[0] not in FAMILY_GPUS[family]
                            or (rel and c.get("reliability") != rel) or c["target"]["metric"] == "ttft_ms"
                            or offered_rate(c) is not None or (c["inference"] or {}).get("phase", "both") != "both"):
                        continue
                    out.write(line + "\n")
        cases = ci.load_cases(path)
        frames.append(cases)
        labels += [label] * len(cases)
    return pd.concat(frames, ignore_index=True), labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", default="blackwell", choices=sorted(FAMILY_GPUS))
    args = parser.parse_args()
    calib = gpu_calibration("B200-180GB" if args.family == "blackwell" else args.family)
    shipped = {k: float(calib[k]) for k in ci.PARAMS}
    with tempfile.TemporaryDirectory() as tmp:
        cases, labels = pooled(args.family, Path(tmp))
    src = pd.Series(labels)
    print(f"{args.family}: {len(cases)} runs {src.value_counts().to_dict()}; shipped {shipped}")
    for label in SOURCES:
        train = cases[(src != label).to_numpy()].reset_index(drop=True)
        test = cases[(src == label).to_numpy()].reset_index(drop=True)
        if test.empty:
            continue
        params, _ = ci.fit(train)
        refit = ci.score(test, params)["error"].abs().mean() * 100
        now = ci.score(test, shipped)["error"].abs().mean() * 100
        print(f"  {label:16s} n={len(test):3d} held out: refit {refit:5.1f}%  shipped {now:5.1f}%  fit {params}",
              flush=True)


if __name__ == "__main__":
    main()
