"""The two-stream schedule of one training iteration, as a Chrome/Perfetto trace.

The cost model scores configurations in closed form; this lays the same numbers out in time for
one configuration, as seen by the bottleneck pipeline stage (the last one, which also runs the
LM head): a compute stream and a communication stream, every layer of the first microbatches
op by op (GEMMs, attention, elementwise work, exposed collectives on the compute stream;
prefetched FSDP gathers, the context-parallel K/V ring and overlapped collectives on the
communication stream), later microbatches as one block per pass, the pipeline bubble, the
data-parallel gradient reduction and the optimizer step. The events add up to the model's
iteration time exactly. Open the file in ui.perfetto.dev or chrome://tracing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMPUTE, COMM = 0, 1
#: Microbatches laid out op by op; the rest are one block per pass (keeps the file small).
DETAILED_MICROBATCHES = 2


@dataclass(frozen=True)
class Event:
    """One operation: name, kind (category), stream (0 compute, 1 communication), start and
    duration in seconds, and where it belongs (microbatch, layer, pass)."""

    name: str
    kind: str
    stream: int
    start: float
    duration: float
    microbatch: int | None = None
    layer: int | None = None
    phase: str | None = None

    @property
    def end(self) -> float:
        return self.start + self.duration


def schedule(row: dict[str, float]) -> list[Event]:
    """The events of one iteration for one configuration.

    ``row`` holds the cost-model columns and the outputs of
    :func:`dse.costmodel.training.evaluate_training_detail` for that configuration.
    """
    g = {k: float(v) for k, v in row.items() if isinstance(v, (int, float))}
    events: list[Event] = []
    t = 0.0
    L = max(int(round(g["detail_layers_per_stage"])), 1)
    m = max(int(round(g["microbatches"])), 1)
    bubble = g["time_bubble_s"]
    pp_exposed = g["exposed_pp_s"]

    def add(name, kind, stream, start, duration, **where):
        if duration > 0:
            events.append(Event(name, kind, stream, start, duration, **where))

    if bubble > 0:
        add("pipeline bubble (fill)", "bubble", COMPUTE, t, bubble / 2)
        t += bubble / 2
    last_backward_start = t
    for mb in range(m):
        detailed = mb < DETAILED_MICROBATCHES
        # ---- forward
        if detailed:
            t = _forward(g, L, mb, t, add)
        else:
            span = L * g["detail_layer_f_time"] + g["detail_head_f"] + g["detail_fsdp_first"]
            add(f"forward, microbatch {mb}", "forward", COMPUTE, t, span, microbatch=mb, phase="forward")
            t += span
        # ---- backward
        last_backward_start = t
        if detailed:
            t = _backward(g, L, mb, t, add)
        else:
            span = (L * (g["detail_layer_b_time"] + g["detail_slowdown_per_layer"]) + g["detail_head_b"]
                    + g["detail_fsdp_first"])
            add(f"backward, microbatch {mb}", "backward", COMPUTE, t, span, microbatch=mb, phase="backward")
            t += span
        if pp_exposed > 0:
            add("pipeline send/recv (exposed)", "pp", COMPUTE, t, pp_exposed / m, microbatch=mb)
            t += pp_exposed / m
    if bubble > 0:
        add("pipeline bubble (drain)", "bubble", COMPUTE, t, bubble / 2)
        t += bubble / 2
    # data-parallel reduction: starts under the last backward, the rest is exposed
    add("dp gradient reduction", "dp", COMM, last_backward_start, g["detail_grad_sync"], phase="step")
    add("dp gradient reduction (exposed)", "dp", COMPUTE, t, g["detail_grad_exposed"], phase="step")
    t += g["detail_grad_exposed"]
    add("dp parameter all-gather (exposed)", "dp", COMPUTE, t, g["detail_param_exposed"], phase="step")
    t += g["detail_param_exposed"]
    slowdown_dp = g["time_overlap_slowdown_s"] - m * L * g["detail_slowdown_per_layer"]
    add("overlap slowdown (dp)", "slowdown", COMPUTE, t, max(slowdown_dp, 0.0), phase="step")
    t += max(slowdown_dp, 0.0)
    add("optimizer step", "optimizer", COMPUTE, t, g["detail_optimizer"], phase="step")
    return events


def _forward(g, L, mb, t, add) -> float:
    if g["detail_fsdp_first"] > 0:
        add("fsdp gather (first layer)", "fsdp", COMM, t, g["detail_fsdp_first"], microbatch=mb, phase="forward")
        t += g["detail_fsdp_first"]
    for layer in range(L):
        start = t
        where = dict(microbatch=mb, layer=layer, phase="forward")
        add("fsdp gather (next layer)", "fsdp", COMM, start, g["detail_fsdp_f"], **where)
        ops = [("QKV projection", "gemm", g["detail_qkv_f"])]
        add("context-parallel K/V ring", "cp", COMM, start + g["detail_qkv_f"], g["detail_cp_f"], **where)
        ops += [("attention", "attention", g["detail_attn_f"]), ("output projection", "gemm", g["detail_out_f"]),
                ("tp all-reduce (exposed)", "tp", g["detail_tp_exposed_f"] / 2),
                ("FFN / experts", "gemm", g["detail_ffn_f"]),
                ("expert all-to-all (exposed)", "ep", g["detail_ep_exposed_f"]),
                ("tp all-reduce (exposed)", "tp", g["detail_tp_exposed_f"] / 2),
                ("norms, residuals, activation", "elementwise", g["detail_elem_f"])]
        for name, kind, duration in ops:
            add(name, kind, COMPUTE, t, duration, **where)
            t += max(duration, 0.0)
        t = start + g["detail_layer_f_time"]  # waits for communication the layer could not hide
    add("LM head + loss", "head", COMPUTE, t, g["detail_head_f"], microbatch=mb, phase="forward")
    return t + g["detail_head_f"]


def _backward(g, L, mb, t, add) -> float:
    add("LM head + loss backward", "head", COMPUTE, t, g["detail_head_b"], microbatch=mb, phase="backward")
    t += g["detail_head_b"]
    if g["detail_fsdp_first"] > 0:
        add("fsdp gather (first layer)", "fsdp", COMM, t, g["detail_fsdp_first"], microbatch=mb, phase="backward")
        t += g["detail_fsdp_first"]
    for layer in reversed(range(L)):
        start = t
        where = dict(microbatch=mb, layer=layer, phase="backward")
        add("fsdp gather + gradient reduce-scatter", "fsdp", COMM, start, g["detail_fsdp_b"], **where)
        ops = [("recompute forward", "recompute", g["detail_recompute"]),
               ("FFN / experts backward", "gemm", g["detail_ffn_b"]),
               ("tp all-reduce (exposed)", "tp", g["detail_tp_exposed_b"] / 2),
               ("expert all-to-all (exposed)", "ep", g["detail_ep_exposed_b"]),
               ("output projection backward", "gemm", g["detail_out_b"])]
        ring_start = t + sum(max(d, 0.0) for _, _, d in ops)
        ops += [("attention backward", "attention", g["detail_attn_b"]),
                ("QKV projection backward", "gemm", g["detail_qkv_b"]),
                ("tp all-reduce (exposed)", "tp", g["detail_tp_exposed_b"] / 2),
                ("norms, residuals, activation backward", "elementwise", 2.0 * g["detail_elem_f"])]
        add("context-parallel K/V ring", "cp", COMM, ring_start, g["detail_cp_b"], **where)
        for name, kind, duration in ops:
            add(name, kind, COMPUTE, t, duration, **where)
            t += max(duration, 0.0)
        t = start + g["detail_layer_b_time"]
        add("overlap slowdown", "slowdown", COMPUTE, t, g["detail_slowdown_per_layer"], **where)
        t += g["detail_slowdown_per_layer"]
    return t


def chrome_trace(events: list[Event], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The events in the Chrome trace-event format (microseconds), with stream names."""
    out: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": 0, "args": {"name": "bottleneck pipeline stage"}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": COMPUTE, "args": {"name": "compute stream"}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": COMM, "args": {"name": "communication stream"}},
    ]
    for e in events:
        args = {"kind": e.kind, "duration_ms": round(e.duration * 1e3, 6)}
        for key in ("microbatch", "layer", "phase"):
            value = getattr(e, key)
            if value is not None:
                args[key] = value
        out.append({"name": e.name, "cat": e.kind, "ph": "X", "pid": 0, "tid": e.stream,
                    "ts": round(e.start * 1e6, 3), "dur": round(e.duration * 1e6, 3), "args": args})
    return {"traceEvents": out, "displayTimeUnit": "ms", "otherData": meta or {}}


def scenario_trace(scenario) -> tuple[list[Event], dict[str, Any]]:
    """Events and summary of one scenario (a :class:`dse.specs.Scenario`, dict or path)."""
    from .api import _as_scenarios, scenario_columns
    from .costmodel.training import evaluate_training_detail

    spec = _as_scenarios(scenario)[0]
    cols = scenario_columns(spec)
    out = evaluate_training_detail(cols)
    row = {**cols, **{k: float(v[0]) for k, v in out.items()}}
    events = schedule(row)
    meta = {
        "scenario": spec.name, "model": spec.model.name, "gpu": spec.cluster.gpu,
        "num_gpus": spec.cluster.num_gpus, "iteration_time_s": row["iteration_time_s"],
        "layout": ("the bottleneck (last) pipeline stage; the first "
                   f"{DETAILED_MICROBATCHES} microbatches op by op, later ones one block per pass"),
    }
    return events, meta


def write_trace(scenario, path: str | Path) -> Path:
    """Write the Chrome/Perfetto trace of one scenario's iteration to ``path``."""
    from .search.results import write_json

    events, meta = scenario_trace(scenario)
    return write_json(chrome_trace(events, meta), path)
