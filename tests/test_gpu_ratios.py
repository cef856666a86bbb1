"""scripts/gpu_ratios.py: published runs that differ only in the GPU, compared in pairs."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import pytest

import dse

ROOT = Path(__file__).resolve().parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("gpu_ratios", ROOT / "scripts" / "gpu_ratios.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gpu_ratios = _module()


def case(gpu: str, value: float, tp: int = 1, case_id: str | None = None) -> dict:
    return {"id": case_id or f"{gpu}-tp{tp}", "source": "test", "workload": "inference", "precision": "fp8",
            "model": "llama3.1-8b", "cluster": {"gpu": gpu, "num_gpus": tp, "gpus_per_node": 8},
            "parallel": {"tp": tp}, "inference": {"input_len": 1000, "output_len": 200, "mode": "offline_max_throughput"},
            "target": {"metric": "tokens_per_s", "value": value}, "notes": f"measured on {gpu}"}


def test_the_same_run_on_two_gpus_is_one_pair_with_its_ratios(tmp_path):
    path = tmp_path / "cases.jsonl"
    rows = [case("H100-SXM-80GB", 10000.0), case("H200-SXM-141GB", 11500.0), case("H100-SXM-80GB", 9000.0, tp=2)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    pairs = gpu_ratios.gpu_pairs(files=[path])
    assert len(pairs) == 1  # the TP 2 run has no partner on another GPU
    pair = pairs.iloc[0]
    predicted = {g: float(dse.evaluate(dse.load_scenario({k: v for k, v in case(g, 0.0).items()
                                                           if k not in ("id", "source", "target", "notes")}))
                          ["tokens_per_s"].iat[0]) for g in ("H100-SXM-80GB", "H200-SXM-141GB")}
    assert pair["measured_ratio"] == pytest.approx(10000.0 / 11500.0)
    assert pair["predicted_ratio"] == pytest.approx(predicted["H100-SXM-80GB"] / predicted["H200-SXM-141GB"])
    assert pair["ratio_error"] == pytest.approx(pair["predicted_ratio"] / pair["measured_ratio"] - 1.0)
    assert bool(pair["ordered"]) == (pair["predicted_ratio"] < 1.0)  # measured: the H200 is 15% faster
    # a near tie is left out of the order count
    tie = gpu_ratios.gpu_pairs(min_gap=0.2, files=[path])
    assert math.isnan(tie.iloc[0]["ordered"])
    block = gpu_ratios.summary(pairs)["overall"]
    assert block["pairs"] == 1 and block["ratio_mape_pct"] == round(100 * abs(pair["ratio_error"]), 1)


def test_the_run_key_ignores_the_gpu_and_the_bookkeeping_only():
    a, b = case("H100-SXM-80GB", 1.0, case_id="a"), case("B200-180GB", 2.0, case_id="b")
    assert gpu_ratios.run_key(a) == gpu_ratios.run_key(b)
    other = case("B200-180GB", 2.0)
    other["inference"]["output_len"] = 400
    assert gpu_ratios.run_key(a) != gpu_ratios.run_key(other)
