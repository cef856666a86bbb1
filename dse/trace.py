"""The two-stream schedule of one configuration, as a Chrome/Perfetto trace.

The cost models score configurations in closed form; this lays the same numbers out in time for
one configuration, on a compute stream and a communication stream, from the cost model's own
terms (the ``*_detail`` functions of :mod:`dse.costmodel`), never recomputed here:

* LLM and ViT training (:func:`schedule`): one iteration as seen by the bottleneck pipeline
  stage (the last one, which also runs the LM / classifier head): every layer of the first
  microbatches op by op (GEMMs, attention, elementwise work, exposed collectives on the compute
  stream; prefetched FSDP gathers, the context-parallel K/V ring and overlapped collectives on
  the communication stream), later microbatches as one block per pass, the pipeline bubble, the
  data-parallel gradient reduction and the optimizer step. The events add up to the model's
  iteration time exactly.
* LLM inference (:func:`inference_schedule`): one request on one GPU of a loaded engine: the
  prefill (the iterations that carry its prompt chunks, with the other sequences' decode
  tokens; they add up to TTFT), then a few decode steps of ITL each (the mean engine
  iteration). Per layer the GEMMs, prompt attention, KV-cache reads, elementwise work and the
  tensor-parallel all-reduces / expert all-to-alls, per stage the LM head, engine overhead and
  pipeline send. The serving model serialises its collectives with compute, so they are on the
  compute stream.
* DLRM training and inference (:func:`dlrm_schedule`): one step on the critical GPU: forward
  (embedding lookup, bottom MLP while the pooled embeddings' all-to-all runs on the
  communication stream, interaction, top MLP, loss), backward (top MLP, interaction, bottom
  MLP while the gradient all-to-all runs, sparse embedding update, dense optimizer, the
  gradient all-reduces under the backward), the overlap slowdown and the kernel-launch
  overhead.

In the inference and DLRM traces the compute stream is the critical path: compute, blocking
collectives, and the part of each overlapped collective the compute has to wait for (named
"... (exposed)"); the communication stream shows each overlapped collective for its whole
time. The compute stream ends exactly at the model's time. Open the file in ui.perfetto.dev
or chrome://tracing.
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .costmodel.inference import DETAIL_OPS

COMPUTE, COMM = 0, 1
#: Microbatches laid out op by op; the rest are one block per pass (keeps the file small).
DETAILED_MICROBATCHES = 2
#: Decode steps of an inference trace (the first op by op, the others one block per microbatch).
DECODE_STEPS = 3
#: Prefill iterations drawn one by one; beyond this many, the rest are one block.
PREFILL_ITERATIONS = 3


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
    step: int | None = None

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
    offload_exposed = g.get("exposed_offload_s", 0.0)
    host_stall = g.get("host_stall_s", 0.0)

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
            span = L * g["detail_layer_f_time"] + g["detail_head_f"] + g["detail_fsdp_first"] + g.get("detail_in_f", 0.0)
            add(f"forward, microbatch {mb}", "forward", COMPUTE, t, span, microbatch=mb, phase="forward")
            t += span
        # ---- backward
        last_backward_start = t
        if detailed:
            t = _backward(g, L, mb, t, add)
        else:
            span = (L * (g["detail_layer_b_time"] + g["detail_slowdown_per_layer"]) + g["detail_head_b"]
                    + g["detail_fsdp_first"] + g.get("detail_in_b", 0.0))
            add(f"backward, microbatch {mb}", "backward", COMPUTE, t, span, microbatch=mb, phase="backward")
            t += span
        if offload_exposed > 0:  # host copies of offloaded activations the layers could not hide
            add("activation offload copies (exposed)", "offload", COMPUTE, t, offload_exposed / m, microbatch=mb)
            t += offload_exposed / m
        if host_stall > 0:  # MoE layers the host launched slower than the GPU ran them
            add("waiting for the host to launch MoE layers", "host", COMPUTE, t, host_stall / m, microbatch=mb)
            t += host_stall / m
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
    add("patch embedding", "gemm", COMPUTE, t, g.get("detail_in_f", 0.0), microbatch=mb, phase="forward")
    t += g.get("detail_in_f", 0.0)
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
        ffn_start = t + sum(max(d, 0.0) for _, _, d in ops[:4])
        for name, kind, duration in ops:
            add(name, kind, COMPUTE, t, duration, **where)
            t += max(duration, 0.0)
        _hidden(g, "f", start, ffn_start, add, where)
        t = start + g["detail_layer_f_time"]  # waits for communication the layer could not hide
    add("LM head + loss", "head", COMPUTE, t, g["detail_head_f"], microbatch=mb, phase="forward")
    return t + g["detail_head_f"]


def _hidden(g, d, start, ffn_start, add, where) -> None:
    """The parts of a layer's expert all-to-alls and tensor-parallel collectives that overlap its
    compute, on the communication stream after the layer's FSDP gather and K/V ring: the expert
    all-to-alls from the FFN block on, under its shared experts (or from the layer's start when
    they hide under another microbatch's layer), the tensor-parallel collectives after them."""
    cursor = start + max(g[f"detail_fsdp_{d}"], 0.0) + max(g[f"detail_cp_{d}"], 0.0)
    for kind, name in (("ep", "expert all-to-all (overlapped)"), ("tp", "tp collectives (overlapped)")):
        hidden = g[f"detail_{kind}_{d}"] - g[f"detail_{kind}_exposed_{d}"]
        if g.get(f"overlap_{kind}", 0.0) <= 0 or hidden <= 1e-15:
            continue
        at = cursor
        if kind == "ep" and g.get("ep_cross_overlap", 0.0) <= 0:
            at = max(cursor, ffn_start)
        add(name, kind, COMM, at, hidden, **where)
        cursor = at + hidden


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
                ("norms, residuals, activation backward", "elementwise", ELEM_BACKWARD * g["detail_elem_f"])]
        add("context-parallel K/V ring", "cp", COMM, ring_start, g["detail_cp_b"], **where)
        ffn_start = t + max(g["detail_recompute"], 0.0)
        for name, kind, duration in ops:
            add(name, kind, COMPUTE, t, duration, **where)
            t += max(duration, 0.0)
        _hidden(g, "b", start, ffn_start, add, where)
        t = start + g["detail_layer_b_time"]
        add("overlap slowdown", "slowdown", COMPUTE, t, g["detail_slowdown_per_layer"], **where)
        t += g["detail_slowdown_per_layer"]
    add("patch embedding backward", "gemm", COMPUTE, t, g.get("detail_in_b", 0.0), microbatch=mb, phase="backward")
    return t + g.get("detail_in_b", 0.0)


def chrome_trace(events: list[Event], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    """The events in the Chrome trace-event format (microseconds), with stream names."""
    out: list[dict[str, Any]] = [
        {"name": "process_name", "ph": "M", "pid": 0,
         "args": {"name": (meta or {}).get("process", "bottleneck pipeline stage")}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": COMPUTE, "args": {"name": "compute stream"}},
        {"name": "thread_name", "ph": "M", "pid": 0, "tid": COMM, "args": {"name": "communication stream"}},
    ]
    for e in events:
        args = {"kind": e.kind, "duration_ms": round(e.duration * 1e3, 6)}
        for key in ("microbatch", "layer", "phase", "step"):
            value = getattr(e, key)
            if value is not None:
                args[key] = value
        out.append({"name": e.name, "cat": e.kind, "ph": "X", "pid": 0, "tid": e.stream,
                    "ts": round(e.start * 1e6, 3), "dur": round(e.duration * 1e6, 3), "args": args})
    return {"traceEvents": out, "displayTimeUnit": "ms", "otherData": meta or {}}


# ------------------------------------------------------------------------------ LLM inference
#: Inference op -> (event name, kind), in the order of one layer (the tp all-reduces follow the
#: attention output projection and the FFN, the expert all-to-alls surround the FFN).
INFERENCE_OPS = {
    "qkv": ("QKV projection", "gemm"), "attn_pre": ("prompt attention (prefill)", "attention"),
    "attn_dec": ("decode attention (KV-cache reads)", "kv_read"), "out": ("output projection", "gemm"),
    "ffn": ("FFN / experts", "gemm"), "elem": ("norms, residuals, KV writes", "elementwise"),
    "tp": ("tp all-reduce", "tp"), "ep": ("expert all-to-all", "ep"),
    "adp_wait": ("waiting for other attention-DP ranks", "adp_wait"),
}
#: The parts of one serving stage iteration (they add up to it): the cost model's detail ops.
STAGE_OPS = DETAIL_OPS


def inference_schedule(row: dict[str, float], decode_steps: int = DECODE_STEPS) -> list[Event]:
    """One request of a loaded serving engine on one GPU: its prefill iterations (TTFT), then
    ``decode_steps`` decode steps of ITL each.

    ``row`` holds the outputs of :func:`dse.costmodel.inference.evaluate_inference_detail`.
    An iteration of a ``pp``-stage pipeline is ``pp`` microbatch slots of one stage's time;
    the first slot of the first prefill iteration and of the first decode step is op by op.
    """
    g = {k: float(v) for k, v in row.items() if isinstance(v, (int, float))}
    events: list[Event] = []
    L = max(int(round(g["detail_layers_per_stage"])), 1)
    p = max(int(round(g["pp"])), 1)
    chunks = max(int(round(g["detail_prefill_chunks"])), 1)

    def add(name, kind, start, duration, **where):
        if duration > 0:
            events.append(Event(name, kind, COMPUTE, start, duration, **where))

    def stage(prefix, t, detailed, phase, step):
        parts = {op: g[f"detail_{prefix}_{op}"] for op in STAGE_OPS}
        total = sum(parts.values())
        for mb in range(p):
            where = dict(microbatch=mb, phase=phase, step=step)
            if not (detailed and mb == 0):
                add(f"{phase} step {step}, microbatch {mb} (block)", phase, t, total, **where)
                t += total
                continue
            for layer in range(L):
                order = [("qkv", 1), ("attn_pre", 1), ("attn_dec", 1), ("out", 1), ("tp", 2), ("ep", 2),
                         ("adp_wait", 1), ("ffn", 1), ("ep", 2), ("tp", 2), ("elem", 1)]
                for op, split in order:
                    name, kind = INFERENCE_OPS[op]
                    duration = parts[op] / L / split
                    add(name, kind, t, duration, layer=layer, **where)
                    t += max(duration, 0.0)
            add("LM head + logits", "head", t, parts["head"], **where)
            t += parts["head"]
            add("engine overhead (scheduling, sampling)", "overhead", t, parts["overhead"], **where)
            t += parts["overhead"]
            add("pipeline send", "pp", t, parts["pp"], **where)
            t += parts["pp"]
        return t

    t = 0.0
    # a fixed batch above what the token budget runs: the request first waits for room
    add("waiting for room in the token budget (the others decode)", "queue", t, g.get("detail_queue_s", 0.0),
        phase="prefill", step=0)
    t += max(g.get("detail_queue_s", 0.0), 0.0)
    prefill_iteration = p * sum(g[f"detail_prefill_{op}"] for op in STAGE_OPS)
    drawn = chunks if chunks <= PREFILL_ITERATIONS + 1 else PREFILL_ITERATIONS
    for step in range(drawn):
        t = stage("prefill", t, step == 0, "prefill", step)
    if drawn < chunks:
        rest = chunks - drawn
        add(f"prefill iterations {drawn}..{chunks - 1} ({rest} chunk iterations)", "prefill", t,
            rest * prefill_iteration, phase="prefill", step=drawn)
        t += rest * prefill_iteration
    for step in range(decode_steps):
        t = stage("decode", t, step == 0, "decode", step)
    return events


# ------------------------------------------------------------------------------ DLRM
def _comm_stream(items, phase_start, phase_end, phase, add) -> None:
    """Overlapped collectives (name, kind, duration, earliest start) on the communication
    stream, one after the other from their earliest start, moved earlier where needed to end
    within the phase (the model's phase time is at least their sum)."""
    items = [it for it in items if it[2] > 0]
    starts, end = [], phase_start
    for _, _, duration, earliest in items:
        start = max(earliest, end)
        starts.append(start)
        end = start + duration
    limit = phase_end
    for i in reversed(range(len(items))):
        starts[i] = max(min(starts[i], limit - items[i][2]), phase_start)
        limit = starts[i]
    for (name, kind, duration, _), start in zip(items, starts):
        add(name, kind, COMM, start, duration, phase=phase)


def dlrm_schedule(row: dict[str, float], interaction: str = "interaction") -> list[Event]:
    """One DLRM step (training: forward and backward; inference: forward) on the critical GPU.

    ``row`` holds the outputs of :func:`dse.costmodel.dlrm.evaluate_dlrm_detail`; the compute
    stream adds up to ``iteration_time_s``."""
    g = {k[len("detail_"):]: float(v) for k, v in row.items()
         if k.startswith("detail_") and isinstance(v, (int, float))}
    events: list[Event] = []

    def add(name, kind, stream, start, duration, phase=None):
        if duration > 0:
            events.append(Event(name, kind, stream, start, duration, phase=phase))

    def run(ops, t, phase):
        for name, kind, duration in ops:
            add(name, kind, COMPUTE, t, duration, phase)
            t += max(duration, 0.0)
        return t

    # ---- forward: the pooled embeddings' all-to-all under the bottom MLP
    t0 = 0.0
    t = run([("embedding lookup (gather + pool)", "embedding", g["emb_f"]),
             ("bottom MLP", "gemm", g["bot_f"]),
             ("embedding all-to-all (exposed)", "a2a", g["a2a_f_exposed"]),
             ("fsdp weight gather (exposed)", "fsdp", g["fsdp_f_exposed"]),
             (interaction, "interaction", g["inter_f"]),
             ("top MLP", "gemm", g["top_f"]),
             ("tp all-reduces", "tp", g["tp_f"]),
             ("expert all-to-alls (MoE)", "ep", g["moe_f"]),
             ("loss", "elementwise", g["loss"])], t0, "forward")
    _comm_stream([("fsdp weight gather", "fsdp", g["fsdp_f"], t0),
                  ("pooled-embedding all-to-all", "a2a", g["a2a_f"], t0 + g["emb_f"])], t0, t, "forward", add)
    # ---- backward: gradients of the pooled embeddings all-to-all'd back under the bottom MLP's
    # backward; the gradient all-reduces under the whole backward
    t1 = t
    t = run([("top MLP backward", "gemm", g["top_b"]),
             (f"{interaction} backward", "interaction", g["inter_b"]),
             ("bottom MLP backward", "gemm", g["bot_b"]),
             ("fsdp gather + reduce-scatter (exposed)", "fsdp", g["fsdp_b_exposed"]),
             ("embedding gradient all-to-all (exposed)", "a2a", g["a2a_b_exposed"]),
             ("sparse embedding update", "embedding", g["emb_b"]),
             ("dp gradient all-reduce (exposed)", "dp", g["dp_b_exposed"]),
             ("embedding gradient all-reduce (exposed)", "emb_ar", g["emb_ar_b_exposed"]),
             ("tp all-reduces backward", "tp", g["tp_b"]),
             ("expert all-to-alls backward (MoE)", "ep", g["moe_b"]),
             ("dense optimizer step", "optimizer", g["opt"])], t1, "backward")
    # the all-to-all carries the interaction backward's output and goes first; the all-reduces
    # follow (without it they start with the top MLP's gradients); all end before the dense
    # optimizer step (placed last above)
    after_top = t1 + g["top_b"]
    after_inter = after_top + g["inter_b"]
    _comm_stream([("fsdp gather + reduce-scatter", "fsdp", g["fsdp_b"], t1),
                  ("embedding gradient all-to-all", "a2a", g["a2a_b"], after_inter),
                  ("dp gradient all-reduce", "dp", g["dp_b"], after_top),
                  ("embedding gradient all-reduce", "emb_ar", g["emb_ar_b"], after_top)],
                 t1, t - g["opt"], "backward", add)
    t = run([("overlap slowdown", "slowdown", g["slowdown"]),
             ("kernel launches + step overhead", "overhead", g["overhead"])], t, "step")
    return events


# ------------------------------------------------------------------------------ breakdowns
def _bar(label, parts):
    return {"label": label, "parts": [[name, kind, float(v)] for name, kind, v in parts if v > 0],
            "total_s": float(sum(v for _, _, v in parts if v > 0))}


def training_breakdown(row: dict[str, float]) -> dict[str, Any]:
    """MAD-Max's bars of a training iteration: every collective serialized after compute,
    against the model's overlap (exposed communication only)."""
    kinds = ["tp", "ep", "cp", "fsdp", "pp", "dp", "offload"]
    # the slowdown of compute under hidden communication is its own (hatched) part, as in the
    # search figures; a serialized schedule hides nothing, so it has none
    head = [("compute", "gemm", row["time_compute_s"]),
            ("bubble", "bubble", row["time_bubble_s"]), ("host stall", "host", row.get("host_stall_s", 0.0))]
    slowdown = [("overlap slowdown", "slowdown", row["time_overlap_slowdown_s"])]
    # clocks slowed under a power limit below the datasheet's (dse.costmodel.power)
    cap = [("power limit", "power_cap", row.get("time_power_cap_s", 0.0))]
    serialized = [(k, k, row.get(f"exposed_{k}_s", 0.0) + row.get(f"overlapped_{k}_s", 0.0)) for k in kinds] + cap
    exposed = [(k, k, row.get(f"exposed_{k}_s", 0.0)) for k in kinds] + cap
    return {"xlabel": "time per iteration (s)", "unit": "s",
            "bars": [_bar("serialized", head + serialized), _bar("overlapped\n(model)", head + slowdown + exposed)]}


def inference_breakdown(row: dict[str, float]) -> dict[str, Any]:
    """Where TTFT and ITL go (the serving model overlaps nothing), milliseconds."""
    p = row["pp"]
    # a power limit below the datasheet's stretches every iteration (prefill and decode alike)
    stretch = row["iteration_time_s"] / max(row["iteration_time_s"] - row.get("time_power_cap_s", 0.0), 1e-300)
    bars = []
    sides = [("prefill\n(TTFT)", "prefill", p * row["detail_prefill_chunks"])]
    if row.get("phase") != 1.0:  # a prefill instance decodes nothing
        sides.append(("decode step\n(ITL)", "decode", p))
    for label, prefix, times in sides:
        d = {op: times * row[f"detail_{prefix}_{op}"] * 1e3 for op in STAGE_OPS}
        d["queue"] = row.get("detail_queue_s", 0.0) * 1e3 if prefix == "prefill" else 0.0
        bars.append(_bar(label, [("waiting for room (token budget)", "queue", d["queue"]),
                                 ("GEMMs", "gemm", d["qkv"] + d["out"] + d["ffn"]),
                                 ("prompt attention", "attention", d["attn_pre"]),
                                 ("KV-cache reads", "kv_read", d["attn_dec"]),
                                 ("elementwise", "elementwise", d["elem"]), ("LM head", "head", d["head"]),
                                 ("engine overhead", "overhead", d["overhead"]), ("tp", "tp", d["tp"]),
                                 ("ep", "ep", d["ep"]), ("waiting for other ranks", "adp_wait", d["adp_wait"]),
                                 ("pp", "pp", d["pp"]),
                                 ("power limit", "power_cap", (stretch - 1.0) * sum(d.values()))]))
    return {"xlabel": "time (ms)", "unit": "ms", "bars": bars}


def dlrm_breakdown(row: dict[str, float]) -> dict[str, Any]:
    """MAD-Max's bars of a DLRM step: every collective serialized after compute, against the
    model's overlap, milliseconds."""
    g = {k[len("detail_"):]: float(v) * 1e3 for k, v in row.items() if k.startswith("detail_")}
    compute = [("embedding lookup / update", "embedding", g["emb_f"] + g["emb_b"]),
               ("MLP GEMMs", "gemm", g["bot_f"] + g["top_f"] + g["top_b"] + g["bot_b"]),
               ("interaction", "interaction", g["inter_f"] + g["inter_b"]),
               ("loss, optimizer", "optimizer", g["loss"] + g["opt"]),
               ("overhead", "overhead", g["overhead"]),
               ("tp", "tp", g["tp_f"] + g["tp_b"]), ("ep", "ep", g["moe_f"] + g["moe_b"])]
    full = [("a2a", "a2a", g["a2a_f"] + g["a2a_b"]), ("dp", "dp", g["dp_b"]),
            ("emb_ar", "emb_ar", g["emb_ar_b"]), ("fsdp", "fsdp", g["fsdp_f"] + g["fsdp_b"])]
    exposed = [("a2a", "a2a", g["a2a_f_exposed"] + g["a2a_b_exposed"]), ("dp", "dp", g["dp_b_exposed"]),
               ("emb_ar", "emb_ar", g["emb_ar_b_exposed"]),
               ("fsdp", "fsdp", g["fsdp_f_exposed"] + g["fsdp_b_exposed"]),
               ("slowdown", "slowdown", g["slowdown"])]
    cap = [("power limit", "power_cap", float(row.get("time_power_cap_s", 0.0)) * 1e3)]
    return {"xlabel": "time per step (ms)", "unit": "ms",
            "bars": [_bar("serialized", compute + full + cap), _bar("overlapped\n(model)", compute + exposed + cap)]}


# ------------------------------------------------------------------------------ per scenario
def scenario_trace(scenario) -> tuple[list[Event], dict[str, Any]]:
    """Events and summary of one scenario (a :class:`dse.specs.Scenario`, dict or path) of any
    modelled kind. The summary (``meta``) names the kind, the model's own times the trace adds
    up to, what the events represent, and the breakdown bars (``meta["breakdown"]``)."""
    from .api import _as_scenarios
    from .errors import single

    spec = _as_scenarios(scenario)[0]
    kind = spec.kind
    base = {"scenario": spec.name, "kind": kind, "model": spec.model.name, "gpu": spec.cluster.gpu,
            "num_gpus": spec.cluster.num_gpus}
    if kind in ("llm_train", "vit_train", "vit_inference"):
        return _training_trace(spec, base)
    if kind == "llm_inference":
        return _inference_trace(spec, base)
    if kind in ("dlrm_train", "dlrm_inference"):
        return _dlrm_trace(spec, base)
    raise single("workload", f"no schedule is drawn for kind '{kind}'", spec.workload)


def _training_columns(spec) -> dict[str, float]:
    from .api import scenario_columns

    if spec.kind in ("vit_train", "vit_inference"):
        from .workloads.vit import vit_columns

        return vit_columns(spec)
    return scenario_columns(spec)


#: Elementwise passes of a layer's backward per forward pass (norms, residuals, activation).
ELEM_BACKWARD = 2.0


def _layer_ops(g: dict[str, float]) -> dict[str, list[float]]:
    """One layer's compute ops for one microbatch, [forward, backward] seconds, from the cost
    model's detail columns: the ops :func:`schedule` lays out, without the communication."""
    return {
        "QKV projection": [g["detail_qkv_f"], g["detail_qkv_b"]],
        "attention": [g["detail_attn_f"], g["detail_attn_b"]],
        "output projection": [g["detail_out_f"], g["detail_out_b"]],
        "FFN / experts": [g["detail_ffn_f"], g["detail_ffn_b"]],
        "norms, residuals, activation": [g["detail_elem_f"], ELEM_BACKWARD * g["detail_elem_f"]],
        "recompute forward": [0.0, g["detail_recompute"]],
    }


def layer_compute(spec) -> dict[str, Any]:
    """Compute time of one transformer layer for one microbatch on the bottleneck pipeline stage,
    seconds: ``{"ops": {name: [forward, backward]}, "softmax_s": [forward, backward]}``.

    ``softmax_s`` is the time the attention's softmax exponentials add over special-function
    units that took no time (the scenario evaluated again with an unbounded exponential rate):
    what a faster SFU could win. Training and ViT scenarios only.
    """
    from .costmodel.training import evaluate_training_detail

    cols = _training_columns(spec)
    out = {k: float(v[0]) for k, v in evaluate_training_detail(cols).items()}
    softmax = [0.0, 0.0]
    if cols.get("exp_rate", 0.0) > 0:  # without a rate the model has no exponential term
        free = {k: float(v[0]) for k, v in evaluate_training_detail({**cols, "exp_rate": 1e30}).items()}
        softmax = [max(out[k] - free[k], 0.0) for k in ("detail_attn_f", "detail_attn_b")]
    return {"ops": _layer_ops(out), "softmax_s": softmax}


def _training_trace(spec, base):
    from .costmodel.training import evaluate_training_detail

    cols = _training_columns(spec)
    out = evaluate_training_detail(cols)
    row = {**cols, **{k: float(v[0]) for k, v in out.items()}}
    events = schedule(row)
    if spec.kind in ("vit_train", "vit_inference"):  # an image classifier: the head sees the class token only
        events = [_rename(e, "LM head + loss", "classifier head + loss") for e in events]
    meta = {
        **base, "iteration_time_s": row["iteration_time_s"], "totals_s": {"iteration": row["iteration_time_s"]},
        "layout": ("the bottleneck (last) pipeline stage; the first "
                   f"{DETAILED_MICROBATCHES} microbatches op by op, later ones one block per pass"),
        "breakdown": training_breakdown(row),
    }
    if spec.kind in ("vit_train", "vit_inference"):
        meta["labels"] = {"head": "classifier head"}
    return events, meta


def _rename(e: Event, old: str, new: str) -> Event:
    from dataclasses import replace

    return replace(e, name=e.name.replace(old, new)) if old in e.name else e


def _inference_trace(spec, base):
    from .costmodel.inference import evaluate_inference_detail
    from .workloads.inference import inference_columns

    cols = inference_columns(spec)
    out = evaluate_inference_detail(cols)
    row = {**cols, **{k: float(v[0]) for k, v in out.items()}}
    ttft, itl, it = row["ttft_ms"] / 1e3, row["itl_ms"] / 1e3, row["iteration_time_s"]
    tokens = max(int(round(row["output_len"])) - 1, 0)  # output tokens after the first
    per_step = row["spec_gain"]  # tokens a decode step emits (more than one with drafts)
    prefill_only = row.get("phase") == 1.0  # a prefill instance: the prompt, then its KV ships out
    decode_total = int(math.ceil(tokens / per_step - 1e-9)) if tokens and not prefill_only else 0
    steps = min(DECODE_STEPS, decode_total)
    events = inference_schedule(row, steps)
    chunks = int(round(row["detail_prefill_chunks"]))
    each = ("ITL counting only the other sequences' prompts in them" if per_step < 1 + 1e-9 else
            f"drafts and their verification, {per_step:.3g} tokens each, so ITL = the step / {per_step:.3g}")
    meta = {
        **base, "process": "one GPU of a serving replica", "ttft_s": ttft, "itl_s": itl, "iteration_time_s": it,
        "batch": row["batch"], "input_len": row["input_len"], "output_len": row["output_len"],
        "prefill_iterations": chunks, "decode_steps_shown": steps, "decode_steps_total": decode_total,
        "trace_end_s": ttft + steps * itl * per_step,
        "totals_s": {"ttft": ttft, "itl": itl, "request": ttft + (0 if prefill_only else tokens) * itl},
        "phase": {0.0: "engine", 1.0: "prefill instance", 2.0: "decode instance"}.get(row.get("phase", 0.0), "engine"),
        "layout": (f"one prompt on one GPU of a loaded prefill instance: its {chunks} iteration(s) of up to "
                   f"{int(round(row['detail_chunk_tokens']))} prompt tokens each (= TTFT; its KV cache then ships "
                   "to a decode instance, which emits the other tokens); the first iteration op by op for the first "
                   "pipeline microbatch" if prefill_only else
                   f"one request on one GPU of a loaded engine ({int(row['batch'])} sequences in flight per "
                   + ("replica): its first token (one decode iteration: a decode instance's prompts were "
                      "prefilled elsewhere; = TTFT)" if row.get("phase") == 2.0 else
                      f"replica): its prefill ({chunks} iteration(s) carrying {int(round(row['detail_chunk_tokens']))} "
                      "prompt tokens each with the other sequences' decode tokens; = TTFT)")
                   + f", then {steps} of its "
                   f"{decode_total} decode steps (each the mean iteration it decodes through, {each}); the first prefill "
                   "iteration and the first decode step op by op for the first pipeline microbatch"),
        "breakdown": inference_breakdown(row),
    }
    return events, meta


INTERACTION_NAMES = {"dot": "dot interaction", "dcnv2": "DCN-v2 cross layers", "concat": "concatenation"}


def _dlrm_trace(spec, base):
    from .api import evaluate
    from .costmodel.dlrm import evaluate_dlrm_detail
    from .workloads.dlrm import model_constants, scenario_columns

    chosen = evaluate(spec, explain=False).iloc[0]  # the sharding the evaluator picks
    cols = scenario_columns(spec, str(chosen["emb_sharding"]))
    out = evaluate_dlrm_detail(model_constants(spec.model), cols)
    row = {**cols, **{k: float(v[0]) for k, v in out.items()}}
    m = spec.model
    inter = "transformer" if m.transformer is not None else INTERACTION_NAMES.get(m.interaction, m.interaction)
    events = dlrm_schedule(row, inter)
    train = spec.kind == "dlrm_train"
    meta = {
        **base, "process": "critical GPU (most embedding traffic)", "iteration_time_s": row["iteration_time_s"],
        "totals_s": {"step": row["iteration_time_s"]},
        "emb_sharding": str(chosen["emb_sharding"]), "samples_per_gpu": row["microbatch"],
        "layout": ("one " + ("training step (forward, backward, update)" if train else "inference step (forward)")
                   + " on the GPU with the most embedding traffic; overlapped collectives on the "
                   "communication stream, the part the compute waits for on the compute stream"),
        "breakdown": dlrm_breakdown(row),
    }
    return events, meta


def write_trace(scenario, path: str | Path) -> Path:
    """Write the Chrome/Perfetto trace of one scenario's iteration to ``path``."""
    from .search.results import write_json

    events, meta = scenario_trace(scenario)
    return write_json(chrome_trace(events, meta), path)
