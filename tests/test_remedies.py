"""dse.remedies: the plan changes that make an out-of-memory training plan fit."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dse import evaluate
from dse.cli import app
from dse.remedies import memory_remedies
from dse.scenario import load_scenario

GIB = 2.0**30


def plan(**parallel):
    return load_scenario({"name": "oom", "model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
                          "parallel": {"tp": 1, "dp": 8, **parallel}})


def test_every_remedy_fits_and_they_come_fastest_first():
    oom = plan(zero=1, microbatch=16)
    row = evaluate(oom).iloc[0]
    assert not row["feasible"] and "out of memory" in row["infeasible_reason"]
    fixes = memory_remedies(oom, limit=10)
    assert fixes, "a 7B model on 8 H100s fits with a smaller microbatch or more recompute"
    assert [f.slowdown for f in fixes] == sorted(f.slowdown for f in fixes) and fixes[0].slowdown == 1.0
    for fix in fixes:
        assert fix.memory_per_gpu_bytes <= 80 * 1e9  # the H100's HBM
    # each change, applied by hand, gives the figures reported for it
    by_name = {f.change: f for f in fixes}
    again = evaluate(plan(zero=1, microbatch=2, global_batch=128)).iloc[0]
    assert bool(again["feasible"])
    assert by_name["microbatch 2"].memory_per_gpu_bytes == pytest.approx(again["memory_per_gpu_bytes"], rel=1e-12)
    assert by_name["microbatch 2"].samples_per_s == pytest.approx(again["samples_per_s"], rel=1e-12)


def test_a_smaller_microbatch_keeps_the_samples_per_step():
    """A plan without a global batch runs one microbatch per step (16 x 8 = 128 sequences): its
    microbatch-2 remedy accumulates 8 microbatches to the same 128, it does not shrink the step."""
    fixes = {f.change: f for f in memory_remedies(plan(zero=1, microbatch=16), limit=10)}
    fixed = evaluate(plan(zero=1, microbatch=2, global_batch=128)).iloc[0]
    shrunk = evaluate(plan(zero=1, microbatch=2)).iloc[0]
    assert fixes["microbatch 2"].samples_per_s == pytest.approx(fixed["samples_per_s"], rel=1e-12)
    assert fixes["microbatch 2"].samples_per_s != pytest.approx(shrunk["samples_per_s"], rel=1e-3)


def test_no_remedy_for_a_plan_that_fits_or_fails_for_another_reason():
    assert memory_remedies(plan(zero=1, microbatch=1)) == []
    # degrees that do not multiply to the GPUs: fixing memory would not make it run
    bad = load_scenario({"name": "bad", "model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
                         "parallel": {"tp": 1, "dp": 4, "zero": 1, "microbatch": 16}})
    row = evaluate(bad).iloc[0]
    assert not row["feasible"] and "out of memory" in row["infeasible_reason"]
    assert memory_remedies(bad) == []


def test_no_remedy_when_nothing_in_reach_fits():
    """Llama 2 70B on one GPU does not fit whatever the recompute, ZeRO stage or microbatch."""
    huge = load_scenario({"name": "huge", "model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1},
                          "parallel": {"tp": 1, "dp": 1, "microbatch": 4}})
    assert not evaluate(huge).iloc[0]["feasible"]
    assert memory_remedies(huge) == []


def test_serving_scenarios_get_no_training_remedy():
    serve = load_scenario({"workload": "inference", "model": "llama2-70b",
                           "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 1}, "parallel": {"tp": 1},
                           "inference": {"input_len": 128, "output_len": 128, "batch": 64}})
    assert memory_remedies(serve) == []


def test_cli_prints_and_records_the_remedies(tmp_path):
    path = tmp_path / "oom.json"
    path.write_text(json.dumps({"name": "oom", "model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
                                "parallel": {"tp": 1, "dp": 8, "zero": 1, "microbatch": 16}}))
    text = CliRunner().invoke(app, ["evaluate", str(path)])
    assert text.exit_code == 0, text.output
    assert "INFEASIBLE: out of memory" in text.output and "fits with microbatch 2:" in text.output
    out = CliRunner().invoke(app, ["evaluate", str(path), "--json"])
    rec = json.loads(out.output)
    assert rec["fits_with"][0]["change"] == "microbatch 2"
    assert rec["fits_with"][0]["memory_per_gpu_bytes"] < 80 * GIB
