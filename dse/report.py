"""Turn results into JSON-ready dicts and readable rich tables (used by the CLI).

Nothing here computes a figure: it formats the columns that :func:`dse.evaluate` and
:func:`dse.validate.validate_cases` return.
"""

from __future__ import annotations

import math
from typing import Any

from .costmodel.training import DEGREES_PRODUCT

GIB = 2.0**30

#: Headline metrics of an evaluation, in output order.
METRIC_KEYS = (
    "iteration_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "samples_per_s",
    "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu", "memory_per_gpu_bytes",
    "hbm_bytes", "exposed_comm_s", "params_total", "params_active", "power_per_gpu_w", "energy_per_token_j",
    "cost_per_mtok_usd",
)
#: Metrics that divide by (or multiply with) the cluster's GPU count: not shown for a plan whose
#: degrees do not multiply to it.
PER_GPU_KEYS = ("tokens_per_s_per_gpu", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu",
                "energy_per_token_j", "cost_per_mtok_usd")
COMM_KINDS = ("tp", "ep", "cp", "fsdp", "pp", "dp")
#: Parts of one iteration that add up to ``iteration_time_s``: name -> evaluate column.
TIME_PARTS = {
    "compute": "time_compute_s",
    "bubble": "time_bubble_s",
    **{f"exposed_{k}": f"exposed_{k}_s" for k in COMM_KINDS},
    "exposed_offload": "exposed_offload_s",
    "host_stall": "host_stall_s",
    "overlap_slowdown": "time_overlap_slowdown_s",
    "power_cap": "time_power_cap_s",
}
#: Communication hidden behind compute (not part of the sum): name -> evaluate column (each
#: reported when the cost model returns it).
OVERLAPPED_PARTS = {f"overlapped_{k}": f"overlapped_{k}_s" for k in (*COMM_KINDS, "offload")}
MEMORY_PARTS = {k: f"memory_{k}_bytes"
                for k in ("weights", "grads", "optimizer", "activations", "logits", "buffers", "reserved")}
#: Serving metrics of LLM inference rows (reported when the row has them), and their extra
#: memory part.
SERVING_KEYS = ("ttft_ms", "itl_ms", "requests_per_s", "batch", "batch_max", "kv_cache_bytes",
                "prefill_time_s", "decode_step_s", "chunk_iteration_s", "chunk_share", "input_len", "output_len", "spec_tokens", "spec_acceptance",
                "draft_layers", "spec_gain", "weight_bytes", "gemm_in_bytes", "act_bytes", "kv_bytes",
                "dequant_matmul", "mixed_fp8_native", "concurrency", "request_rate", "batch_running",
                "phase", "input_tokens_per_s", "input_tokens_per_s_per_gpu", "num_requests", "finite_run_factor",
                "opening_wave_ttft_ms", "lockstep_group")
#: Serving ``phase`` codes (disaggregated serving): a whole engine, a prefill or a decode instance
PHASE_NAMES = {0: "both", 1: "prefill", 2: "decode"}
#: Serving: bytes per linear-layer weight -> the format's name
WEIGHT_FORMATS = {4.0: "32-bit", 2.0: "16-bit", 1.0: "FP8", 9.0 / 16.0: "NVFP4", 17.0 / 32.0: "MXFP4",
                  0.5 + 2.0 / 128.0: "INT4"}
SERVING_MEMORY_PARTS = {"kv_cache": "memory_kv_cache_bytes", "left unused by the engine's rule": "memory_engine_free_bytes"}
#: Serving: the parts of one decode step (ITL) and of one chunk iteration, evaluate columns
#: (they add up to ``iteration_time_s``; the serving model overlaps no collective).
#: The serving time part of attention-DP ranks waiting for one that runs a prompt chunk.
ADP_WAIT = "waiting for other attention-DP ranks' prompt chunks"
SERVING_TIME_PARTS = {"GEMMs": "time_gemm_s", "attention": "time_attention_s",
                      "elementwise, LM head, engine overhead": "time_other_s",
                      "tp all-reduce": "exposed_tp_s", "expert all-to-all": "exposed_ep_s",
                      ADP_WAIT: "time_adp_wait_s",
                      "pipeline send": "exposed_pp_s", "power limit (slowed clocks)": "time_power_cap_s"}
#: DLRM rows (kinds dlrm_train, dlrm_inference): headline metrics, the parts of one step
#: (they add up to ``iteration_time_s``) with the hidden part of each collective, and memory.
DLRM_KINDS = ("dlrm_train", "dlrm_inference")
VIT_KINDS = ("vit_train", "vit_inference")
DLRM_KEYS = ("samples_per_s_per_gpu", "dense_params", "embedding_params", "power_per_gpu_w", "energy_per_sample_j",
             "cost_per_msample_usd", "emb_lookups_per_gpu", "emb_a2a_bytes_per_gpu", "emb_exchange_bytes_per_gpu",
             "emb_table_bytes_per_gpu", "emb_gather_bytes_per_gpu", "emb_gather_hbm_bytes_per_gpu",
             "flops_per_sample")
DLRM_TIME_PARTS = {
    "embedding lookup + update": ("time_embedding_s", None),
    "MLPs": ("time_mlp_s", None),
    "interaction": ("time_interaction_s", None),
    "loss + dense optimizer": ("time_loss_optimizer_s", None),
    "tp all-reduces (blocking)": ("time_tp_s", None),
    "MoE all-to-alls (blocking)": ("time_moe_a2a_s", None),
    "embedding all-to-all, exposed": ("exposed_a2a_s", "overlapped_a2a_s"),
    "dense gradient all-reduce, exposed": ("exposed_dense_allreduce_s", "overlapped_dense_allreduce_s"),
    "embedding gradient all-reduce, exposed": ("exposed_emb_allreduce_s", "overlapped_emb_allreduce_s"),
    "overlap slowdown": ("time_overlap_slowdown_s", None),
    "kernel launches + step overhead": ("time_overhead_s", None),
    "power limit (slowed clocks)": ("time_power_cap_s", None),
}
DLRM_MEMORY_PARTS = {
    "embedding tables": "memory_embeddings_bytes", "embedding optimizer state": "memory_emb_optimizer_bytes",
    "dense weights": "memory_dense_weights_bytes", "dense gradients": "memory_grads_bytes",
    "dense optimizer state": "memory_dense_optimizer_bytes", "activations": "memory_activations_bytes",
    "all-to-all buffers, indices": "memory_buffers_bytes", "reserved": "memory_reserved_bytes",
}
#: Sources whose cases were all skipped are folded into one summary row beyond this many.
MAX_SKIPPED_SOURCE_ROWS = 3
RECOMPUTE_NAMES = {0: "none", 1: "selective", 2: "full"}
PLAN_INTS = ("tp", "pp", "dp", "cp", "ep", "vpp", "zero", "microbatch", "global_batch", "microbatches")


def _num(value: Any) -> float | None:
    """A finite float, or None (JSON has no NaN)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _int(value: Any) -> int | None:
    x = _num(value)
    return None if x is None else int(round(x))


def evaluation_record(row: Any, source: str | None = None) -> dict[str, Any]:
    """One evaluated scenario (a row of :func:`dse.evaluate`) as a JSON-ready dict."""
    rec: dict[str, Any] = {
        "name": row.get("name") or None,
        "source": source,
        "model": row.get("model"),
        "gpu": row.get("gpu"),
        "precision": row.get("precision"),
        "num_gpus": _int(row["num_gpus"]),
        "parallel": {k: _int(row[k]) for k in PLAN_INTS},
    }
    rec["parallel"]["sp"] = bool(row["sp"] > 0)
    if float(row.get("etp", 0) or 0) > 0 and _int(row["etp"]) != _int(row["tp"]):  # folded experts
        rec["parallel"]["etp"] = _int(row["etp"])
    if float(row.get("shard_group", 0) or 0) > 0:  # hybrid sharding
        rec["parallel"]["shard_group"] = _int(row["shard_group"])
    layers, pp = _num(row.get("layers")), _int(row["pp"])
    if layers and pp and pp > 1 and int(layers) % pp:  # uneven pipeline stages
        rec["parallel"]["stage_layers"] = {"first": int(layers) % pp, "more": int(layers) // pp + 1,
                                           "rest": int(layers) // pp}
    vpp = _int(row.get("vpp"))
    if layers and pp and vpp and vpp > 1:  # virtual stages that do not split a stage's layers evenly
        full = -(-int(layers) // pp)
        if full % vpp:
            rec["parallel"]["chunk_layers"] = {"stage": full, "longest": -(-full // vpp), "shortest": full // vpp}
    rec["parallel"]["recompute"] = RECOMPUTE_NAMES.get(_int(row["recompute"]), str(row["recompute"]))
    if pp and pp > 1 and _num(row.get("memory_peak_stage")) is not None:  # the stage the memory describes
        rec["memory_peak_stage"] = ("first", "second", "last")[_int(row["memory_peak_stage"])]
    if (_num(row.get("offload_layers")) or 0) > 0:
        rec["parallel"]["offload_layers"] = _int(row["offload_layers"])
        rec["parallel"]["host_offload_bytes"] = _num(row.get("host_memory_offload_bytes"))
    rec["attention"] = _attention_text(row, layers)
    rec["scale_up"] = _mesh_text(row)
    for key in METRIC_KEYS:
        rec[key] = _num(row[key])
    rec["feasible"] = bool(row["feasible"])
    rec["infeasible_reason"] = str(row["infeasible_reason"]) or None
    if row.get("kind") not in DLRM_KINDS and int(row.get("infeasible_mask", 0) or 0) & DEGREES_PRODUCT:
        # the plan runs on another number of GPUs than the cluster has: figures per GPU, and
        # energy and cost per token (the cluster's GPUs times the plan's time), mean nothing
        for key in (*PER_GPU_KEYS, "tokens_per_s", "samples_per_s"):
            rec[key] = None
        rec["per_gpu_note"] = ("throughput, figures per GPU, energy and cost are not shown: the plan's degrees do "
                               f"not multiply to the cluster's {_int(row['num_gpus'])} GPUs")
    rec["breakdown"] = {
        "time_s": {**{k: _num(row[c]) for k, c in TIME_PARTS.items() if c in row},
                   **{k: _num(row[c]) for k, c in OVERLAPPED_PARTS.items() if c in row}},
        "memory_bytes": {k: _num(row[c]) for k, c in MEMORY_PARTS.items() if c in row},
    }
    kind = row.get("kind")
    rec["kind"] = None if kind is None else str(kind)
    if _num(row.get("itl_ms")) is not None:  # an LLM serving row
        rec["serving"] = {k: _num(row[k]) for k in SERVING_KEYS if k in row}
        rec["serving"]["phase"] = PHASE_NAMES.get(_int(row.get("phase", 0)) or 0, "both")
        if "per_gpu_note" in rec:  # degrees that do not lay out on the cluster: no rates either
            for key in ("requests_per_s", "input_tokens_per_s", "input_tokens_per_s_per_gpu"):
                rec["serving"][key] = None
        rec["serving"]["decode_step_parts_s"] = {k: _num(row[c]) for k, c in SERVING_TIME_PARTS.items() if c in row}
        rec["breakdown"]["memory_bytes"].update(
            {k: _num(row[c]) for k, c in SERVING_MEMORY_PARTS.items() if c in row})
    if kind in DLRM_KINDS:
        rec["dlrm"] = {
            "workload": "inference" if kind == "dlrm_inference" else "training",
            "emb_sharding": str(row["emb_sharding"]),
            "emb_sharding_stated": bool(row.get("emb_sharding_stated", False)),
            "samples_per_gpu": _int(row["microbatch"]),
            **{k: _num(row[k]) for k in DLRM_KEYS if k in row},
            "time_s": {k: _num(row[c]) for k, (c, _) in DLRM_TIME_PARTS.items() if c in row},
            "hidden_s": {k: _num(row[h]) for k, (_, h) in DLRM_TIME_PARTS.items() if h is not None and h in row},
            "memory_bytes": {k: _num(row[c]) for k, c in DLRM_MEMORY_PARTS.items() if c in row},
        }
    return rec


def _mesh_text(row: Any) -> str | None:
    """How a full-mesh domain links its GPUs (one link between each pair), or None behind a switch."""
    if (_num(row.get("nvlink_mesh")) or 0) <= 0:
        return None
    domain, bw = _num(row.get("nvlink_domain")) or 0.0, _num(row.get("nvlink_bw"))
    if domain < 2 or bw is None:
        return None
    link = bw / (domain - 1.0) / 1e9
    return (f"{int(domain)} GPUs per domain in a full mesh: one {link:.3g} GB/s link (per direction) between each "
            f"pair, so a group of k of them drives k - 1 of each GPU's {int(domain) - 1} links")


def _attention_text(row: Any, layers: float | None) -> str | None:
    """What is special about a model's attention (latent, local) and its expert dispatch, or None."""
    notes = []
    kv_rank = _num(row.get("mla_kv_rank")) or 0.0
    if kv_rank > 0:
        notes.append(f"multi-head latent attention (a {int(kv_rank)}-wide key/value latent and a "
                     f"{_int(row.get('mla_rope_dim'))}-wide rotary key cached per token and layer)")
    window = _num(row.get("attn_window")) or 0.0
    if window > 0 and layers:
        kind = "chunked attention over" if (_num(row.get("attn_chunked")) or 0) > 0 else "a sliding window of"
        windowed = round((_num(row.get("window_fraction")) or 0.0) * layers)
        notes.append(f"{kind} {int(window)} tokens on {windowed} of {int(layers)} layers")
    if (_num(row.get("moe_dedup")) or 0) > 0:
        notes.append("expert dispatch deduplicated per NVLink domain (DeepEP)")
    serving = _num(row.get("ep_imbalance")) is not None  # training states its own (training.moe_load_imbalance)
    exchanged = (_num(row.get("moe_layers")) or 0) > 0 and (_num(row.get("ep")) or 1) > (_num(row.get("tp")) or 1)
    if serving and exchanged and (_num(row.get("tbo")) or 0) > 0:
        notes.append("two-batch overlap (each half's expert exchanges under the other's work)")
    elif serving and exchanged and (_num(row.get("sbo")) or 0) > 0:
        notes.append("single-batch overlap (the combine under the routed experts' down GEMM and the shared experts)")
    imbalance = _num(row.get("ep_load_imbalance" if serving else "moe_imbalance")) or 1.0
    if imbalance > 1.0 + 1e-9 and (_num(row.get("ep")) or 1.0) > 1.0:
        stated = not serving or (_num(row.get("ep_imbalance")) or 0.0) > 0
        why = ("as stated" if stated else
               f"expected from the router's load spread, moe.router_skew {_num(row.get('router_skew')) or 0.0:g}; "
               "state inference.moe_load_imbalance for a measured or balanced (EPLB) figure")
        notes.append(f"the busiest of the {_int(row.get('ep'))} expert-parallel ranks receives {imbalance:.3g}x the "
                     f"mean routed tokens and paces every MoE layer ({why})")
    if (_num(row.get("ep_cross_overlap")) or 0) > 0:
        notes.append("expert all-to-alls overlapped across microbatches")
    return "; ".join(notes) or None


# ---------------------------------------------------------------------------------- formatting
def _with_unit(x: float | None, unit: str) -> str:
    """``fmt(x)`` and its unit, or a bare '-' when there is no figure."""
    return "-" if fmt(x) == "-" else f"{fmt(x)} {unit}"


def fmt(x: float | None, digits: int = 4) -> str:
    """A compact human number: thousands separators from 1000 up, else ``digits`` significant."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def _gpu_text(rec: dict[str, Any]) -> str:
    """The GPU preset's name, with the figures the scenario overrides (an H800: an H100 with
    nvlink_gbps 400)."""
    over = rec.get("gpu_overrides") or {}
    if not over:
        return str(rec["gpu"])

    def value(v: Any) -> str:
        if isinstance(v, dict):  # peak_tflops per precision
            return "/".join(f"{k2} {value(v2)}" for k2, v2 in v.items())
        return f"{v:.4g}" if isinstance(v, (int, float)) else str(v)

    return f"{rec['gpu']} (" + ", ".join(f"{k} {value(v)}" for k, v in over.items()) + ")"


def _plural(n: Any, one: str, many: str) -> str:
    """``1 microbatch``, ``4 microbatches``."""
    return f"{n} {one if n == 1 else many}"


def _usd(x: float | None) -> str:
    """Dollars with cents below 1,000, whole dollars with separators above, 4 digits below 1."""
    if x is None or not math.isfinite(x):
        return "-"
    if abs(x) >= 1000:
        return f"{x:,.0f} USD"
    return f"{x:.2f} USD" if abs(x) >= 1 else f"{x:.4g} USD"


def short(text: str, width: int = 40) -> str:
    """``text`` cut to ``width`` characters with an ellipsis."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _decoding_rows(perf: Any, rec: dict[str, Any], serving: dict[str, Any]) -> None:
    """The throughput rows of an engine that decodes: requests, batch, output tokens."""
    batch, running, most = serving.get("batch"), serving.get("batch_running"), serving.get("batch_max")
    waits = batch is not None and running is not None and batch > running + 1e-9
    perf.add_row("requests/s", fmt(serving.get("requests_per_s")))
    perf.add_row("batch per replica (the largest an offline engine runs: memory, token budget, max_batch)",
                 f"{fmt(batch)} ({fmt(most)})" + (f": the token budget lets {fmt(running)} decode at once; "
                                                   "the rest wait, in TTFT" if waits and rec["feasible"] else ""))
    perf.add_row("output tokens/s (total)", fmt(rec["tokens_per_s"]))
    perf.add_row("output tokens/s per GPU", fmt(rec["tokens_per_s_per_gpu"]))
    requests, factor = serving.get("num_requests") or 0, serving.get("finite_run_factor")
    if requests > 0 and factor is not None and rec["feasible"]:
        perf.add_row(f"a run of {fmt(requests)} requests, over the steady state",
                     f"{100 * factor:.1f} %" + (": its replicas drain their last wave at a smaller batch"
                                                 if factor < 1 - 1e-9 else ""))


def render_evaluation(console: Any, rec: dict[str, Any]) -> None:
    """Print one evaluation (from :func:`evaluation_record`) as rich tables: throughput,
    memory per GPU and where the time goes, in the terms of the kind of run (training
    iterations, serving TTFT/ITL, DLRM samples and embedding traffic)."""
    from rich.table import Table
    from rich.text import Text

    if rec.get("dlrm"):
        return _render_dlrm(console, rec)

    p = rec["parallel"]
    title = f"{rec['model']} on {rec['num_gpus']}x {_gpu_text(rec)}, {rec['precision']}"
    if rec.get("name"):
        title = f"{rec['name']}: {title}"
    console.print(Text(title, style="bold"))
    plan = (
        f"plan: tp {p['tp']} · pp {p['pp']} · dp {p['dp']} · cp {p['cp']} · ep {p['ep']} · "
        f"{'experts split etp ' + str(p['etp']) + ' ways · ' if p.get('etp') else ''}"
        f"sp {'on' if p['sp'] else 'off'} · vpp {p['vpp']} · zero {p['zero']}"
        f"{' over groups of ' + str(p['shard_group']) if p.get('shard_group') else ''} · recompute {p['recompute']} · "
        f"microbatch {p['microbatch']} · global batch {p['global_batch']} "
        f"({_plural(p['microbatches'], 'microbatch', 'microbatches')} per pipeline)"
    )
    stages = p.get("stage_layers")
    if stages:
        short = p["pp"] - stages["first"]  # stages holding one layer fewer
        where = ("the last, which holds the output head" if short == 1 else
                 "among them the first and the last, which hold the embedding and the output head")
        plan += (f"\nuneven stages: {stages['more']} layers on {stages['first']}, {stages['rest']} on "
                 f"{short} ({where})")
    chunks = p.get("chunk_layers")
    if chunks:
        plan += (f"\nuneven virtual stages: a stage's {chunks['stage']} layers in {p['vpp']} chunks of "
                 f"{chunks['shortest']} to {chunks['longest']} layers (the longest sets the pipeline bubble)")
    if p.get("offload_layers"):
        plan += f"\nactivation offloading: {p['offload_layers']} layers a stage keep their activations in host memory"
        if p.get("host_offload_bytes"):
            plan += f" ({p['host_offload_bytes'] / 2**30:.1f} GiB per GPU)"
    serving = rec.get("serving")
    if serving:  # LLM inference: the serving plan instead of the training one
        phase = serving.get("phase")
        if phase == "prefill":  # a disaggregated deployment's prefill instance: prompts, no decoding
            plan = (f"serving, prefill instance (disaggregated: its KV caches go to decode instances): tp {p['tp']} · "
                    f"pp {p['pp']} · ep {p['ep']} · {p['dp']} replica(s) · {_int(serving.get('input_len'))}-token "
                    f"prompts, {fmt(serving.get('batch'))} per iteration (the token budget)")
        else:
            plan = (f"serving{', decode instance (prompts prefilled elsewhere)' if phase == 'decode' else ''}: "
                    f"tp {p['tp']} · pp {p['pp']} · ep {p['ep']} · {p['dp']} replica(s) · "
                    f"{_int(serving.get('input_len'))} prompt + {_int(serving.get('output_len'))} output tokens · "
                    f"batch {_plural(_int(serving.get('batch')), 'sequence', 'sequences')} per replica")
        drafts = serving.get("spec_tokens") or 0
        if drafts > 0:
            plan += (f"\nspeculative decoding: {_int(drafts)} draft tokens per iteration "
                     f"({fmt(serving.get('draft_layers'))} target layer(s) + LM head each), accepted with "
                     f"probability {float(serving.get('spec_acceptance') or 0.0):g}: "
                     f"{float(serving.get('spec_gain') or 1.0):.3g} tokens per sequence and iteration")
    if serving and serving.get("weight_bytes") is not None:
        plan += "\n" + _serving_numbers(serving)
    console.print(Text(plan))
    if rec.get("attention"):
        console.print(Text(f"attention and experts: {rec['attention']}"))
    if rec.get("scale_up"):
        console.print(Text(f"scale-up: {rec['scale_up']}"))
    if rec["feasible"]:
        console.print(Text("feasible", style="bold green"))
    else:
        console.print(Text(f"INFEASIBLE: {rec['infeasible_reason']}", style="bold red"))
        for fix in rec.get("fits_with") or []:
            rate = (f"{fix['tokens_per_s_per_gpu']:,.4g} tokens/s per GPU" if fix.get("tokens_per_s_per_gpu")
                    else f"{fix['samples_per_s']:,.4g} samples/s")
            console.print(Text(f"  fits with {fix['change']}: {fix['memory_per_gpu_bytes'] / GIB:.1f} GiB per GPU, "
                               f"{rate}" + (f" ({fix['slowdown']:.2f}x slower than the first)"
                                            if fix["slowdown"] > 1.0 + 1e-9 else "")))
    if rec.get("per_gpu_note"):
        console.print(Text(rec["per_gpu_note"]))
    for note in rec.get("notes") or []:
        console.print(Text(f"note: {note}", style="yellow"))
    console.print()

    perf = Table(title="Throughput", title_justify="left", show_header=False, box=None, padding=(0, 2))
    perf.add_column(style="cyan")
    perf.add_column(justify="right")
    pct = lambda x: "-" if x is None else f"{100 * x:.1f} %"  # noqa: E731
    if serving:
        ttft = serving.get("ttft_ms")
        chunk_ms = 1e3 * (serving.get("chunk_iteration_s") or 0.0)  # one iteration carrying a prompt chunk
        one_iteration = ttft is not None and chunk_ms > 0 and abs(ttft - chunk_ms) <= 1e-9 * chunk_ms
        offline = not (serving.get("concurrency") or 0) > 0 and not (serving.get("request_rate") or 0) > 0
        batch, running = serving.get("batch"), serving.get("batch_running")
        waits = batch is not None and running is not None and batch > running + 1e-9
        opening = serving.get("opening_wave_ttft_ms") or 0.0
        group = serving.get("lockstep_group") or 0.0
        ttft_note = [(f"{fmt(opening)} ms of it the run's opening wave (its clients' first prompts queued together)"
                      if opening > 0 else ""),
                     (f"prompts arrive {fmt(group)} at a time (clients in lockstep: one output length) and go in "
                      "together" if group > 1.0 + 1e-9 else ""),
                     ("one iteration (the prompt fits one iteration's token budget)" if one_iteration else ""),
                     ("with the wait for room in the token budget" if waits else
                      "the service time in a full engine, not the wait in an offline run's queue" if offline else "")]
        ttft_note = "; ".join(n for n in ttft_note if n)
        perf.add_row("time to first token (TTFT)", f"{fmt(ttft)} ms" + (f": {ttft_note}" if ttft_note else ""))
        if serving.get("phase") == "prefill":  # no decoding here: prompts and their tokens
            perf.add_row("iteration (one token budget of prompts)", f"{fmt(serving.get('itl_ms'))} ms")
            perf.add_row("prompts/s (first tokens)", fmt(serving.get("requests_per_s")))
            perf.add_row("input tokens/s (total)", fmt(serving.get("input_tokens_per_s")))
            perf.add_row("input tokens/s per GPU", fmt(serving.get("input_tokens_per_s_per_gpu")))
        else:
            perf.add_row("inter-token latency (ITL)", f"{fmt(serving.get('itl_ms'))} ms")
            _decoding_rows(perf, rec, serving)
        perf.add_row("model TFLOP/s per GPU", fmt(rec["model_tflops_per_gpu"]))
        perf.add_row("MFU", pct(rec["mfu"]))
    elif rec.get("kind") in VIT_KINDS:  # samples are images; tokens are patches (+ class token)
        images = rec["samples_per_s"]
        patches = rec["tokens_per_s"] / images if images else None
        forward_only = rec["kind"] == "vit_inference"
        perf.add_row("step time (one forward pass)" if forward_only else "iteration time",
                     f"{fmt(rec['iteration_time_s'])} s")
        perf.add_row("images/s (total)", fmt(images))
        perf.add_row("images/s per GPU", fmt(images / rec["num_gpus"] if images else None))
        perf.add_row("tokens per image", fmt(patches))
        perf.add_row("model TFLOP/s per GPU", fmt(rec["model_tflops_per_gpu"]))
        if not forward_only:  # nothing is recomputed in a forward pass: hardware = model FLOPs
            perf.add_row("hardware TFLOP/s per GPU", fmt(rec["hardware_tflops_per_gpu"]))
        perf.add_row("MFU", pct(rec["mfu"]))
        if not forward_only:
            perf.add_row("HFU", pct(rec["hfu"]))
    else:
        perf.add_row("iteration time", f"{fmt(rec['iteration_time_s'])} s")
        perf.add_row("tokens/s (total)", fmt(rec["tokens_per_s"]))
        perf.add_row("tokens/s per GPU", fmt(rec["tokens_per_s_per_gpu"]))
        perf.add_row("samples/s", fmt(rec["samples_per_s"]))
        perf.add_row("model TFLOP/s per GPU", fmt(rec["model_tflops_per_gpu"]))
        perf.add_row("hardware TFLOP/s per GPU", fmt(rec["hardware_tflops_per_gpu"]))
        perf.add_row("MFU", pct(rec["mfu"]))
        perf.add_row("HFU", pct(rec["hfu"]))
    perf.add_row("parameters (total / active)",
                 f"{fmt(rec['params_total'] / 1e9)} B / {fmt(rec['params_active'] / 1e9)} B")
    if rec.get("power_per_gpu_w"):
        perf.add_row("average power per GPU", f"{fmt(rec['power_per_gpu_w'])} W")
    if rec.get("kind") in VIT_KINDS and rec["samples_per_s"]:
        per_image = rec["tokens_per_s"] / rec["samples_per_s"]
        energy = rec["energy_per_token_j"]
        perf.add_row("energy per image", _with_unit(None if energy is None else energy * per_image, "J"))
        if rec["cost_per_mtok_usd"]:
            perf.add_row("cost per million images", _usd(rec['cost_per_mtok_usd'] * per_image))
    elif serving and serving.get("phase") == "prefill":  # per input token: it emits only first tokens
        per_input = (rec["tokens_per_s_per_gpu"] or 0.0) / max(serving.get("input_tokens_per_s_per_gpu") or 0.0, 1e-300)
        energy = rec["energy_per_token_j"]
        perf.add_row("energy per input token", _with_unit(None if energy is None else energy * per_input, "J"))
        if rec["cost_per_mtok_usd"]:
            perf.add_row("cost per million input tokens", _usd(rec["cost_per_mtok_usd"] * per_input))
    else:
        perf.add_row("energy per token", _with_unit(rec["energy_per_token_j"], "J"))
        if rec["cost_per_mtok_usd"]:
            perf.add_row("cost per million tokens", _usd(rec['cost_per_mtok_usd']))
    console.print(perf)
    console.print()

    hbm = rec["hbm_bytes"] or math.nan
    mem = _memory_table()
    for key, value in rec["breakdown"]["memory_bytes"].items():
        if (serving or rec.get("kind") == "vit_inference") and not value and key in ("grads", "optimizer", "buffers"):
            continue  # serving and inference keep no gradients or optimizer state
        mem.add_row(key, f"{value / GIB:.2f}", f"{100 * value / hbm:.1f}")
    _memory_total(mem, rec["memory_per_gpu_bytes"], hbm)
    console.print(mem)
    if stage := _stage_words(rec):
        console.print(stage, style="dim")
    console.print()

    it = rec["iteration_time_s"]
    if serving and serving.get("decode_step_parts_s"):
        title = ("Time per iteration (a token budget of whole prompts; the serving model overlaps no collective)"
                 if serving.get("phase") == "prefill" else
                 "Time per engine iteration (the mean of decode steps and those that carry a prompt chunk; ITL, "
                 "what a sequence decodes through, leaves out its own prompt's; the serving model overlaps no "
                 "collective)"
                 if not (serving.get("spec_tokens") or 0) > 0 else
                 "Time per engine iteration (drafts and verification; ITL is what a sequence decodes through, "
                 "its own prompt left out, over the tokens each step emits; "
                 "no collective overlapped)")
        _time_table(console, title,
                    "ms", 1e3, {k: (v, None) for k, v in serving["decode_step_parts_s"].items()},
                    "mean iteration", it)
        share, chunk_s, dec_s = (serving.get(k) for k in ("chunk_share", "chunk_iteration_s", "decode_step_s"))
        if share is not None and 0.0 < share < 1.0 and chunk_s and dec_s:
            console.print(Text(f"{fmt(dec_s * 1e3)} ms a decode-only step, {fmt(chunk_s * 1e3)} ms one that carries a "
                               f"prompt chunk ({100 * share:.3g} % of the iterations"
                               + ("; other attention-DP ranks' chunks hold up more of them, the waiting row"
                                  if (serving["decode_step_parts_s"].get(ADP_WAIT) or 0) > 0 else "")
                               + "): a bound on the mean ITL is not one on the slowest token", style="dim"))
        return
    times = rec["breakdown"]["time_s"]
    tt = Table(title="Time per iteration", title_justify="left", box=None, padding=(0, 2))
    tt.add_column("part", style="cyan")
    tt.add_column("s", justify="right")
    tt.add_column("% of iteration", justify="right")
    tt.add_column("hidden comm, s", justify="right")
    for key in (k for k in TIME_PARTS if k in times):
        hidden = times.get(key.replace("exposed_", "overlapped_")) if key.startswith("exposed_") else None
        tt.add_row(key.replace("_", " "), f"{times[key]:.4g}", f"{100 * times[key] / it:.1f}",
                   "-" if hidden is None else f"{hidden:.4g}")
    tt.add_row(Text("iteration", style="bold"), Text(f"{it:.4g}", style="bold"), "100.0", "")
    console.print(tt)
    console.print(Text(f"exposed communication: {rec['exposed_comm_s']:.4g} s; hidden communication "
                       "runs under compute and costs only the overlap slowdown.", style="dim"))
    if times.get("host_stall", 0.0) > 0:
        console.print(Text("host stall: the MoE dispatch reads the routed-token counts on the host every layer, "
                           "so the host's kernel launches of a layer run beside the GPU's work instead of ahead "
                           "of it; larger microbatches and fewer experts per GPU shorten it, and MoE layers "
                           "captured in CUDA graphs remove it (training.moe_cuda_graphs: true).", style="dim"))
    if rec.get("layer"):
        console.print()
        _layer_table(console, rec["layer"], forward_only=rec.get("kind") == "vit_inference")


def _serving_numbers(serving: dict[str, Any]) -> str:
    """The serving number formats in words: the linear layers' weights, their GEMMs' inputs and
    the KV cache, and what a weight-only format costs on this GPU."""
    wb, kvb = float(serving["weight_bytes"]), float(serving.get("kv_bytes") or 2.0)
    gemm_in = float(serving.get("gemm_in_bytes") or 0.0)
    name = next((n for b, n in WEIGHT_FORMATS.items() if abs(b - wb) < 1e-9), f"{wb:g}-byte")
    kv = {1.0: "FP8", 2.0: "16-bit", 4.0: "32-bit"}.get(kvb, f"{kvb:g}-byte")
    text = f"numbers: {name} weights ({wb:g} byte each)"
    if gemm_in > wb:  # weight-only quantization
        inputs = {1.0: "FP8", 2.0: "16-bit"}.get(gemm_in, f"{gemm_in:g}-byte")
        bits = f"W{wb * 8:.3g}A{gemm_in * 8:.0f}"
        text += f" under {inputs} GEMM inputs ({bits}"
        if serving.get("mixed_fp8_native") and gemm_in <= 1.0:
            text += ": the tensor cores take them as they are)"
        else:
            cap = float(serving.get("dequant_matmul") or 1.0)
            text += (f": widened in the GEMM's main loop, so a GEMM's tensor work runs at most at "
                     f"{cap:.0%} of the {inputs} peak; small batches, bound by the weight reads, gain, "
                     "large ones lose)" if cap < 1.0 else ": widened in the GEMM's main loop at no cost here)")
    return text + f" · {kv} KV cache"


def _layer_table(console: Any, layer: dict[str, Any], forward_only: bool = False) -> None:
    """Compute of one transformer layer and microbatch (from :func:`dse.trace.layer_compute`), ms,
    with the share the softmax exponentials take of the attention; forward only for inference."""
    from rich.table import Table
    from rich.text import Text

    ops = {k: (f, 0.0 if forward_only else b) for k, (f, b) in layer["ops"].items()}
    total = sum(f + b for f, b in ops.values()) or math.nan
    tt = Table(title="Compute of one layer and microbatch (bottleneck stage)", title_justify="left", box=None,
               padding=(0, 2))
    columns = (("op", "left"), ("forward, ms", "right"), ("backward, ms", "right"), ("% of the layer", "right"))
    for name, justify in columns:
        if not (forward_only and name.startswith("backward")):
            tt.add_column(name, justify=justify, style="cyan" if name == "op" else None)
    for name, (f, b) in ops.items():
        if f or b:
            middle = [f"{f * 1e3:.4g}"] + ([] if forward_only else [f"{b * 1e3:.4g}"])
            tt.add_row(name, *middle, f"{100 * (f + b) / total:.1f}")
    fwd, bwd = sum(f for f, _ in ops.values()), sum(b for _, b in ops.values())
    middle = [Text(f"{fwd * 1e3:.4g}", style="bold")] + ([] if forward_only else [Text(f"{bwd * 1e3:.4g}", style="bold")])
    tt.add_row(Text("layer", style="bold"), *middle, "100.0")
    console.print(tt)
    attn = sum(ops.get("attention", (0.0, 0.0)))
    soft = layer.get("softmax_s", (0.0, 0.0))
    soft = soft[0] if forward_only else sum(soft)
    if attn > 0 and soft > 0:
        console.print(Text(f"softmax exponentials: {soft * 1e3:.4g} ms of the attention's {attn * 1e3:.4g} ms "
                           f"({100 * soft / attn:.0f}%) is time the special-function units add over a free "
                           "exponential (cluster.exp_tera_per_s; dse whatif --vary exp_tera_per_s=...).",
                           style="dim"))


#: the pipeline stage the memory figures describe (record key memory_peak_stage)
PEAK_STAGE_WORDS = {"first": "the first", "second": "the second", "last": "the last, with the output head"}


def _stage_words(rec: dict[str, Any]) -> str:
    """The line under the memory table saying which pipeline stage it describes ("" without a
    pipeline)."""
    stage = rec.get("memory_peak_stage")
    if stage is None:
        return ""
    return (f"  of the pipeline stage that holds the most: {PEAK_STAGE_WORDS[stage]} of "
            f"{rec['parallel']['pp']}")


def _memory_table() -> Any:
    """The empty "Memory per GPU" table: part, GiB, % of HBM."""
    from rich.table import Table

    mem = Table(title="Memory per GPU", title_justify="left", box=None, padding=(0, 2))
    mem.add_column("part", style="cyan")
    mem.add_column("GiB", justify="right")
    mem.add_column("% of HBM", justify="right")
    return mem


def _memory_total(mem: Any, total: float, hbm: float) -> None:
    """The total row (red when over capacity) and the HBM capacity row of a memory table."""
    from rich.text import Text

    style = "bold" if total <= hbm else "bold red"
    mem.add_row(Text("total", style=style), Text(f"{total / GIB:.2f}", style=style),
                Text(f"{100 * total / hbm:.1f}", style=style))
    mem.add_row("HBM capacity", f"{hbm / GIB:.2f}", "100.0")


def _time_table(console: Any, title: str, unit: str, factor: float, parts: dict[str, tuple[Any, Any]],
                total_label: str, total: float) -> None:
    """A table of time parts (name -> (seconds, hidden seconds or None)) that add up to
    ``total`` seconds, shown in ``unit`` (``factor`` per second); parts that are zero are left
    out (the JSON record has them all)."""
    from rich.table import Table
    from rich.text import Text

    hidden_any = any(h for _, h in parts.values())
    tt = Table(title=title, title_justify="left", box=None, padding=(0, 2))
    tt.add_column("part", style="cyan")
    tt.add_column(unit, justify="right")
    tt.add_column(f"% of {total_label}", justify="right")
    if hidden_any:
        tt.add_column(f"hidden comm, {unit}", justify="right")
    for name, (value, hidden) in parts.items():
        if not value and not hidden:
            continue
        cells = [name, f"{(value or 0.0) * factor:.4g}", f"{100 * (value or 0.0) / total:.1f}"]
        if hidden_any:
            cells.append("-" if hidden is None else f"{hidden * factor:.4g}")
        tt.add_row(*cells)
    tt.add_row(Text(total_label, style="bold"), Text(f"{total * factor:.4g}", style="bold"), "100.0",
               *([""] if hidden_any else []))
    console.print(tt)


def _render_dlrm(console: Any, rec: dict[str, Any]) -> None:
    """A DLRM evaluation: samples, embedding memory and traffic, and the parts of one step
    with the exposed and hidden embedding all-to-all and gradient all-reduces."""
    from rich.table import Table
    from rich.text import Text

    d, p = rec["dlrm"], rec["parallel"]
    training = d["workload"] == "training"
    title = f"{rec['model']} {d['workload']} on {rec['num_gpus']}x {_gpu_text(rec)}, {rec['precision']}"
    if rec.get("name"):
        title = f"{rec['name']}: {title}"
    console.print(Text(title, style="bold"))
    chosen = ("stated" if d["emb_sharding_stated"] else "the fastest feasible, chosen by dse" if rec["feasible"]
              else "none of the shardings fits; shown: the fastest")
    console.print(Text(f"plan: {d['samples_per_gpu']} samples per GPU · global batch {p['global_batch']} · "
                       f"embeddings '{d['emb_sharding']}' ({chosen}) · dense layers: tp {p['tp']} · "
                       f"dp {p['dp']} · zero {p['zero']} · ep {p['ep']}"))
    if rec["feasible"]:
        console.print(Text("feasible", style="bold green"))
    else:
        console.print(Text(f"INFEASIBLE: {rec['infeasible_reason']}", style="bold red"))
    console.print()

    it = rec["iteration_time_s"]
    pct = lambda x: "-" if x is None else f"{100 * x:.1f} %"  # noqa: E731
    perf = Table(title="Throughput", title_justify="left", show_header=False, box=None, padding=(0, 2))
    perf.add_column(style="cyan")
    perf.add_column(justify="right")
    perf.add_row("step time", f"{fmt(it * 1e3)} ms")
    perf.add_row("samples/s", fmt(rec["samples_per_s"]))
    perf.add_row("samples/s per GPU", fmt(d.get("samples_per_s_per_gpu")))
    perf.add_row("model TFLOP/s per GPU", fmt(rec["model_tflops_per_gpu"]))
    perf.add_row("MFU", pct(rec["mfu"]))
    perf.add_row("parameters (dense / embedding)",
                 f"{fmt((d.get('dense_params') or 0.0) / 1e6)} M / {fmt((d.get('embedding_params') or 0.0) / 1e9)} B")
    lookups = d.get("emb_lookups_per_gpu")
    a2a = d.get("emb_exchange_bytes_per_gpu", d.get("emb_a2a_bytes_per_gpu"))
    perf.add_row("embedding lookups per GPU per step", fmt(lookups))
    gathered, from_hbm = d.get("emb_gather_bytes_per_gpu"), d.get("emb_gather_hbm_bytes_per_gpu")
    if gathered:
        perf.add_row("rows gathered per GPU per step (read from HBM; the rest L2 hits)",
                     f"{fmt(gathered / 2**20)} MiB ({fmt((from_hbm or 0.0) / 2**20)} MiB)")
    perf.add_row("embeddings exchanged per GPU per step" + (" (each way)" if training else ""),
                 f"{fmt((a2a or 0.0) / 2**20)} MiB")
    exposed = d["time_s"].get("embedding all-to-all, exposed") or 0.0
    hidden = d["hidden_s"].get("embedding all-to-all, exposed") or 0.0
    perf.add_row("all-to-all exposed / hidden", f"{fmt(exposed * 1e3)} ms / {fmt(hidden * 1e3)} ms")
    if d.get("power_per_gpu_w"):
        perf.add_row("average power per GPU", f"{fmt(d['power_per_gpu_w'])} W")
    perf.add_row("energy per sample", f"{fmt((d.get('energy_per_sample_j') or 0.0) * 1e3)} mJ")
    if d.get("cost_per_msample_usd"):
        perf.add_row("cost per million samples", _usd(d['cost_per_msample_usd']))
    console.print(perf)
    console.print()

    hbm = rec["hbm_bytes"] or math.nan
    mem = _memory_table()
    for key, value in d["memory_bytes"].items():
        if value or key in ("embedding tables", "dense weights"):
            mem.add_row(key, f"{(value or 0.0) / GIB:.2f}", f"{100 * (value or 0.0) / hbm:.1f}")
    _memory_total(mem, rec["memory_per_gpu_bytes"], hbm)
    console.print(mem)
    console.print()

    parts = {k: (v, d["hidden_s"].get(k)) for k, v in d["time_s"].items()}
    _time_table(console, "Time per step", "ms", 1e3, parts, "step", it)
    console.print(Text(f"exposed communication: {fmt(rec['exposed_comm_s'] * 1e3)} ms; hidden communication "
                       "runs under compute and costs only the overlap slowdown.", style="dim"))


def _status_text(case: dict[str, Any]) -> Any:
    from rich.text import Text

    status = case["status"]
    if status == "ok":
        flag = ", flagged OUTLIER by its data" if case.get("flagged") else ""
        if case.get("feasible") is False:
            return Text(f"ok, predicted infeasible{flag}", style="yellow")
        return Text(f"ok{flag}", style="dim" if flag else "green")
    if status == "skipped":
        return Text(f"skipped: {case['reason']}", style="dim")
    return Text("error (message on stderr)", style="red")


def render_validation(console: Any, cases: list[dict[str, Any]], summary: dict[str, Any],
                      whole: bool = False) -> None:
    """Print the per-case table and the per-source summary of a validation run.

    The source column of the case table is left out below 140 columns (the summary has it).
    ``whole``: ids and sources printed whole, wrapped, instead of cut with an ellipsis.
    """
    from rich.table import Table
    from rich.text import Text

    wide = console.width >= 140
    rows = []
    infeasible = []
    for c in cases:
        err = c.get("error")
        err_text = Text("-" if err is None else f"{100 * err:+.1f}",
                        style="" if err is None or abs(err) <= 0.2 else "yellow" if abs(err) <= 0.5 else "red")
        rows.append([c["id"], *([c["source"] if whole else short(c["source"], 28)] if wide else []), c["metric"],
                     fmt(c.get("measured")),
                     fmt(c.get("predicted")), err_text, _status_text(c)])
        if c["status"] == "ok" and c.get("feasible") is False:
            infeasible.append(c)

    def width(i: int, header: str) -> int:
        return max([len(header)] + [len(str(r[i])) for r in rows])

    table = Table(title="Validation cases", title_justify="left", box=None, padding=(0, 1))
    headers = ["id", *(["source"] if wide else []), "metric", "measured", "predicted", "error %"]
    widths = [width(i, name) for i, name in enumerate(headers)]
    status_min = 24
    # numbers, metric and source keep their width; the id gives way (ellipsis), then the status wraps
    id_width = max(12, min(widths[0], 48, console.width - sum(widths[1:]) - status_min - 2 * (len(headers) + 1)))
    for i, name in enumerate(headers):
        right = name in ("measured", "predicted", "error %")
        if whole and name in ("id", "source"):  # whole, folded over lines
            table.add_column(name, overflow="fold", ratio=2 if name == "source" else 1, min_width=12)
            continue
        table.add_column(name, no_wrap=True, overflow="ellipsis", width=id_width if i == 0 else widths[i],
                         justify="right" if right else "left")
    table.add_column("status", overflow="fold", ratio=1, min_width=status_min)
    for r in rows:
        table.add_row(*r)
    console.print(table)
    for c in infeasible:
        console.print(Text(f"predicted infeasible although it ran: {c['id']}: {c.get('infeasible_reason')}",
                           style="yellow"))
    console.print()

    st = Table(title="Summary (APE = |predicted - measured| / measured, %)", title_justify="left",
               box=None, padding=(0, 1))
    st.add_column("source", overflow="fold", ratio=1, min_width=16)
    for name in ("cases", "evaluated", "skipped", "errors", "infeasible", "MAPE", "median APE", "max APE"):
        st.add_column(name, justify="right", no_wrap=True, min_width=len(name))

    def add(label: str, b: dict[str, Any], style: str = "") -> None:
        pct = lambda x: "-" if x is None else f"{x:.1f}"  # noqa: E731
        st.add_row(Text(label, style=style), str(b["count"]), str(b["evaluated"]), str(b["skipped"]),
                   str(b["errors"]), str(b["infeasible"]), pct(b["mape_pct"]), pct(b["median_ape_pct"]),
                   pct(b["max_ape_pct"]), style=style)

    grouped = summary.get("by")
    if grouped:  # --by: the groups instead of the sources
        st.columns[0].header = " / ".join(grouped["fields"])
        for label, block in grouped["groups"].items():
            add(label if whole else short(label, 72), block)
    else:
        blocks = summary["by_source"]
        all_skipped = [src for src, b in blocks.items() if b["skipped"] == b["count"]]
        collapse = len(all_skipped) > MAX_SKIPPED_SOURCE_ROWS
        for src, block in blocks.items():
            if not (collapse and src in all_skipped):
                add(src if whole else short(src, 72), block)
        if collapse:
            n = sum(blocks[src]["count"] for src in all_skipped)
            add(f"{len(all_skipped)} more sources, every case skipped ({n} cases; --json lists them)",
                {"count": n, "evaluated": 0, "skipped": n, "errors": 0, "infeasible": 0,
                 "mape_pct": None, "median_ape_pct": None, "max_ape_pct": None}, "dim")
    add("overall", summary["overall"], "bold")
    if summary.get("flagged"):
        add(f"overall without the {summary['flagged']} cases flagged OUTLIER in their notes",
            summary["unflagged"], "bold")
    console.print(st)
    if summary.get("skip_reasons") and not grouped:
        reasons = "; ".join(f"{n} {r}" for r, n in summary["skip_reasons"].items())
        console.print(Text(f"skipped: {reasons}", style="dim"))


#: Columns of a disaggregated deployment's row (dse.workloads.inference, phase disaggregated)
#: in its ``deployment`` record.
DEPLOYMENT_KEYS = ("prefill_instances", "decode_instances", "idle_gpus", "prefill_num_gpus", "decode_num_gpus",
                   "prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "decode_tp", "decode_pp", "decode_dp",
                   "decode_ep", "prefill_max_num_tokens", "prefill_requests_per_s", "decode_requests_per_s",
                   "kv_transfer_s", "prefill_prompt_s", "prefill_wait_s", "prefill_busy", "max_requests_per_s",
                   "request_rate", "concurrency", "kv_prompt_bytes", "link_bytes_per_s", "requests_per_s", "tokens_per_s",
                   "tokens_per_s_per_gpu", "input_tokens_per_s", "ttft_ms", "itl_ms")


def deployment_record(row: Any) -> dict[str, Any]:
    """The deployment figures of a disaggregated serving row: the split, each kind of instance's
    plan and rate, the KV link and which side bounds the throughput."""
    from .costmodel.disaggregated import BOUND

    rec = {k: _num(row.get(k)) for k in DEPLOYMENT_KEYS}
    for k in ("prefill_instances", "decode_instances", "idle_gpus", "prefill_num_gpus", "decode_num_gpus",
              "prefill_tp", "prefill_pp", "prefill_dp", "prefill_ep", "decode_tp", "decode_pp", "decode_dp",
              "decode_ep"):
        rec[k] = _int(row.get(k))
    rec["bound_by"] = BOUND.get(_int(row.get("bound_by")) or 0)
    from .presets import prefill_gpu_name

    rec["decode_gpu"] = str(row.get("gpu") or "")
    rec["prefill_gpu"] = prefill_gpu_name(_num(row.get("prefill_gpu")) or 0.0) or rec["decode_gpu"]
    return rec


def render_deployment(console: Any, rec: dict[str, Any], instances: dict[str, dict[str, Any]]) -> None:
    """Print a disaggregated deployment (``rec`` from :func:`evaluation_record` with its
    ``deployment`` record) and then each kind of instance at its operating point."""
    from rich.rule import Rule
    from rich.table import Table
    from rich.text import Text

    dep = rec["deployment"]
    mixed = bool(dep.get("prefill_gpu")) and dep.get("prefill_gpu") != dep.get("decode_gpu")
    gpus = (f"{rec['num_gpus']} GPUs (prefill {dep['prefill_gpu']}, decode {_gpu_text(rec)})" if mixed
            else f"{rec['num_gpus']}x {_gpu_text(rec)}")
    title = f"{rec['model']} on {gpus}, {rec['precision']}"
    console.print(Text(f"{rec['name']}: {title}" if rec.get("name") else title, style="bold"))

    def plan(side: str) -> str:
        noun = f"{dep[side + '_gpu']} GPU" if mixed else "GPU"
        return (f"tp {dep[side + '_tp']} · pp {dep[side + '_pp']} · dp {dep[side + '_dp']} · ep {dep[side + '_ep']} "
                f"on {_plural(dep[side + '_num_gpus'], noun, noun + 's')}")

    n_p, n_d, idle = dep["prefill_instances"] or 0, dep["decode_instances"] or 0, dep["idle_gpus"] or 0
    serving = rec.get("serving") or {}
    console.print(Text(
        f"serving, disaggregated: {n_p} prefill instance(s) ({plan('prefill')}) + {n_d} decode instance(s) "
        f"({plan('decode')}){f' + {idle} idle GPU(s)' if idle else ''} · {_int(serving.get('input_len'))} prompt + "
        f"{_int(serving.get('output_len'))} output tokens"))
    if serving.get("weight_bytes") is not None:
        console.print(Text(_serving_numbers(serving)))
    if rec["feasible"]:
        console.print(Text("feasible", style="bold green"))
    else:
        console.print(Text(f"INFEASIBLE: {rec['infeasible_reason']}", style="bold red"))
    console.print()
    decode = instances.get("decode", {}).get("serving") or {}
    prefill = instances.get("prefill", {}).get("serving") or {}
    offered, clients = dep.get("request_rate") or 0, dep.get("concurrency") or 0
    online = offered > 0 or clients > 0
    most, served_now = dep.get("max_requests_per_s") or 0, dep.get("requests_per_s") or 0
    queue_ms = fmt((dep.get("prefill_wait_s") or 0) * 1e3)
    bound = f"bound by the {dep['bound_by']}"
    if offered > 0 and offered > most * (1 + 1e-9):  # more than the deployment serves
        wait, served = " + a queue that grows without bound", f"{fmt(served_now)} of the {fmt(offered)} offered: {bound}"
    elif clients > 0:
        held = _plural(_int(clients), "client keeps", "clients keep")
        served = (f"{fmt(served_now)}: what {held} in flight (each sends its next request when the last ends); "
                  f"at most {fmt(most)}, {bound}")
        wait = (f" + queueing {queue_ms} ms (the clients beyond what the capacity serves wait)"
                if served_now >= most * (1 - 1e-6) else
                f" + queueing {queue_ms} ms (M/D/1; prefill instances {100 * (dep.get('prefill_busy') or 0):.0f}% busy)")
    elif online:
        served = f"{fmt(served_now)}: offered (Poisson arrivals); at most {fmt(most)}, {bound}"
        wait = f" + queueing {queue_ms} ms (M/D/1; prefill instances {100 * (dep.get('prefill_busy') or 0):.0f}% busy)"
    else:
        served, wait = f"{fmt(served_now)}: {bound}", ""
    prompt_ms = 1e3 * dep["prefill_prompt_s"] if dep.get("prefill_prompt_s") is not None else prefill.get("ttft_ms")
    ttft_parts = (f"prefill {fmt(prompt_ms)} ms{wait} + KV transfer {fmt((dep['kv_transfer_s'] or 0) * 1e3)} ms"
                  f" + first decode iteration {fmt(decode.get('ttft_ms'))} ms")
    rows = [
        ("time to first token (TTFT)", f"{fmt(dep['ttft_ms'])} ms: {ttft_parts}"),
        ("inter-token latency (ITL)", f"{fmt(dep['itl_ms'])} ms: a decode instance at its share of the load"),
        ("requests/s", served),
        ("capacity, requests/s", f"prefill {fmt(dep['prefill_requests_per_s'])} x {n_p} = "
                                 f"{fmt((dep['prefill_requests_per_s'] or 0) * n_p)} · decode "
                                 f"{fmt(dep['decode_requests_per_s'])} x {n_d} = "
                                 f"{fmt((dep['decode_requests_per_s'] or 0) * n_d)}"),
        ("KV shipped per request", f"{fmt((dep['kv_prompt_bytes'] or 0) / 2**20)} MiB per prefill GPU at "
                                   f"{fmt((dep['link_bytes_per_s'] or 0) / 1e9)} GB/s per GPU"),
        ("output tokens/s (total)", fmt(dep["tokens_per_s"])),
        ("output tokens/s per GPU", fmt(dep["tokens_per_s_per_gpu"])),
        ("MFU", f"{100 * (rec.get('mfu') or 0):.1f} %"),
        ("average power per GPU", _with_unit(rec.get("power_per_gpu_w"), "W")),
        ("energy per token", _with_unit(rec.get("energy_per_token_j"), "J")),
        ("cost per million tokens", _usd(rec.get("cost_per_mtok_usd"))),
        ("memory per GPU (the fuller instance)", f"{fmt((rec.get('memory_per_gpu_bytes') or 0) / 2**30)} GiB of "
                                                 f"{fmt((rec.get('hbm_bytes') or 0) / 2**30)}"),
    ]
    table = Table(title="Deployment", title_justify="left", box=None, padding=(0, 2))
    table.add_column("")
    table.add_column("", justify="right")
    for label, value in rows:
        table.add_row(label, value)
    console.print(table)
    if online:
        console.print(Text("The prompt's prefill lies between a lone prompt's and a full token budget's, by the "
                           "prefill instances' load.", style="dim"))
    for side, words in (("prefill", "prefill instance, loaded"), ("decode", "decode instance, at its share of the load")):
        if side in instances:
            console.print()
            console.print(Rule(f"one {words}", align="left"))
            render_evaluation(console, instances[side])
