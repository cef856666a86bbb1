#!/usr/bin/env python3
"""What each DeepSeek-V3 training technique is worth in dse's model: the technical report's run
(validation/deepseek_v3_report.jsonl, 1,543 tokens/s per GPU measured) with its dispatch and
overlap options removed one at a time.

    python scripts/deepseek_v3_ablation.py

Prints tokens/s per GPU and the error against the report for each variant.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import dse

CASE = Path(__file__).resolve().parents[1] / "validation" / "deepseek_v3_report.jsonl"


def variants(case: dict) -> dict[str, dict]:
    """name -> case with some of the report's techniques taken out."""
    out = {"as the report runs it (DeepEP, group-limited routing, FP8 dispatch, cross-microbatch overlap)": case}

    def edit(name, fn):
        c = copy.deepcopy(case)
        fn(c)
        out[name] = c

    edit("with a 16-bit dispatch", lambda c: c["training"].pop("moe_dispatch_dtype"))
    edit("without the group limit (top_groups)", lambda c: [c["model"]["moe"].pop(k) for k in ("expert_groups", "top_groups")])
    keep = {k: case["training"][k] for k in ("recompute_modules", "optimizer_moments", "fp8_activation_cache")
            if k in case["training"]}  # the memory plan stays
    edit("DeepEP dispatch only (overlap under the layer's shared expert)",
         lambda c: c.update(training={**keep, "overlap": {"ep": True}, "moe_dispatcher": "deepep"}))
    edit("plain all-to-all, overlapped under the shared expert",
         lambda c: c.update(training={**keep, "overlap": {"ep": True}}))
    edit("plain all-to-all, not overlapped", lambda c: c.update(training=dict(keep)))
    return out


def main() -> None:
    case = json.loads(CASE.read_text().splitlines()[0])
    measured = case["target"]["value"]
    print(f"DeepSeek-V3 on 2048 H800: measured {measured:,.0f} tokens/s per GPU")
    for name, c in variants(case).items():
        row = dse.evaluate(dse.load_scenario(c)).iloc[0]
        got = float(row["tokens_per_s_per_gpu"])
        print(f"  {got:8,.0f}  {100 * (got / measured - 1):+6.1f}%  {name}")


if __name__ == "__main__":
    main()
