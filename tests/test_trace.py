"""The two-stream schedule of one iteration and its Chrome trace."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dse.trace import COMM, COMPUTE, chrome_trace, scenario_trace

ROOT = Path(__file__).resolve().parents[1]
DSE = Path(sys.executable).parent / "dse"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def fsdp_scenario(**parallel):
    return {"model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16},
            "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 2, "global_batch": 64, **parallel}}


@pytest.mark.parametrize("scenario", SCENARIOS + [fsdp_scenario(), fsdp_scenario(cp=2, tp=2)],
                         ids=lambda s: s.name if isinstance(s, Path) else "fsdp")
def test_compute_stream_adds_up_to_the_iteration_time(scenario):
    events, meta = scenario_trace(scenario)
    compute = sorted((e for e in events if e.stream == COMPUTE), key=lambda e: e.start)
    # the compute stream never runs two operations at once ...
    for a, b in zip(compute, compute[1:]):
        assert b.start >= a.end - 1e-12, (a, b)
    # ... and ends exactly where the model's iteration ends
    assert compute[-1].end == pytest.approx(meta["iteration_time_s"], rel=1e-9)
    assert all(e.duration > 0 for e in events)


def test_fsdp_gathers_and_cp_ring_run_on_the_communication_stream():
    events, _ = scenario_trace(fsdp_scenario(cp=2, tp=2))
    comm_kinds = {e.kind for e in events if e.stream == COMM}
    assert {"fsdp", "cp"} <= comm_kinds
    # every layer of the first microbatch is laid out op by op, forward and backward
    layers = {(e.phase, e.layer) for e in events if e.microbatch == 0 and e.layer is not None}
    assert layers == {(p, layer) for p in ("forward", "backward") for layer in range(32)}


def test_chrome_trace_format():
    events, meta = scenario_trace(ROOT / "scenarios" / "llama2_70b_h100.yaml")
    trace = json.loads(json.dumps(chrome_trace(events, meta)))
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(events)
    assert {"name", "cat", "ts", "dur", "pid", "tid", "args"} <= set(complete[0])
    names = {e["args"]["name"] for e in trace["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    assert names == {"compute stream", "communication stream"}
    end_us = max(e["ts"] + e["dur"] for e in complete)
    assert end_us == pytest.approx(meta["iteration_time_s"] * 1e6, rel=1e-6)


def test_cli_writes_trace_and_figures(tmp_path):
    trace, plots = tmp_path / "t.json", tmp_path / "figs"
    result = subprocess.run([str(DSE), "evaluate", str(ROOT / "scenarios" / "mixtral_8x7b_h100.yaml"),
                             "--trace", str(trace), "--plot", str(plots), "--json"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert len(record["files"]) == 5
    assert json.loads(trace.read_text())["traceEvents"]
    for stem in ("breakdown", "timeline"):
        for ext in ("png", "pdf"):
            assert (plots / f"{stem}.{ext}").stat().st_size > 1000
