"""A disaggregated serving deployment from its prefill and decode instances, for N deployments at once.

Units are SI. A deployment of ``num_gpus`` GPUs runs ``n_p`` prefill instances of ``g_p`` GPUs and
``n_d`` decode instances of ``g_d`` GPUs (the GPUs left over idle). A prefill instance runs prompts
only, at ``R_p`` prompts/s (its first token included), and ships each prompt's KV cache to a decode
instance, which decodes the rest of the request at ``R_d`` requests/s (DistServe, Zhong et al.
OSDI 2024; TensorRT-LLM's and Dynamo's context and generation servers). Both are the serving
model's instance phases (:mod:`dse.costmodel.inference`, ``phase`` 1 and 2); this module only
composes them:

* **KV transfer.** Every GPU of a prefill replica sends its shard of the prompt's KV
  (``kv_p`` bytes), every GPU of a decode replica receives its own (``kv_d``), over one link per
  GPU of bandwidth ``bw`` (the scale-out NIC, or NVLink when the whole deployment is one NVLink
  domain of one kind of GPU; prefill and decode instances on different GPUs meet over the
  scale-out network, at the slower kind's NIC) and latency ``lat``:
  ``t_x = max(kv_p, kv_d) / bw + lat`` per request, after its prompt (engines overlap it with
  other prompts, not with its own last layers: counted whole). The links
  also cap the rates: a replica's GPU ships ``kv_p`` per prompt, so an instance of ``dp_p`` replicas
  ships at most ``dp_p bw / kv_p`` prompts/s, and receives at most ``dp_d bw / kv_d``.
* **Throughput.** The deployment serves ``R = min(n_p R_p', n_d R_d')`` requests/s (R' the capped
  rates), ``R O`` output tokens/s, over all ``num_gpus``. Without a stated ``n_p`` every split with
  at least one instance of each is tried and the one serving the most requests wins (fewer
  prefill instances on ties): the ratio that balances ``n_p R_p'`` against ``n_d R_d'``.
* **Latency.** TTFT = the prompt's time in a loaded prefill instance + ``t_x`` + the decode
  instance's first iteration; ITL is the decode instance's. The caller evaluates the decode
  instance at its share of the load, ``R / n_d`` (a decode side with room to spare runs a smaller
  batch and a shorter step), and passes those figures; offline, a prefill side with room to
  spare is counted as loaded (its TTFT an upper bound; at an offered load, below).
* **Offered load (online).** With ``request_rate`` r > 0 for the deployment (Poisson arrivals)
  the deployment serves r, not its capacity: r above ``min(n_p R_p', n_d R_d')`` is infeasible
  (``RATE_EXCEEDS``). Each prefill replica is then a queue with deterministic service (M/D/1, as
  DistServe models a prefill instance): a prompt waits ``W = rho S / (2 (1 - rho))`` before its
  own prefill, with ``S = dp_p / R_p'`` the replica's time per prompt at full load and
  ``rho = r / (n_p R_p')`` (held at most 0.99: at the capacity the wait grows without bound;
  prompt lengths that vary lengthen it further, by (1 + cv^2) in M/G/1). TTFT adds W; the decode
  instances run at ``r / n_d`` each; the prefill GPUs are busy ``b = r / (n_p R_p)`` of the
  time (``rho`` without the link caps). The prompt's own prefill takes ``D = D_1 + b (D_full -
  D_1)``: alone on its replica (``D_1``, an iteration of that one prompt) at no load, with a full
  token budget of prompts (``D_full``) at the capacity, the prompts an iteration packs growing
  with the load.
* **Clients (closed loop).** With ``concurrency`` N > 0 clients that each send their next request
  when the last one ends, the deployment serves the rate at which N requests are in it (Little's
  law): ``r (TTFT(r) + (O - 1) ITL(r)) = N``, found by bisection in log r below the capacity, and
  is then scored at that rate as above. Where even the capacity leaves clients over, the
  deployment runs at its capacity and the clients' wait for it counts in TTFT:
  ``TTFT = N / r - (O - 1) ITL``.
* **Power, energy, cost.** Each instance's average power per GPU at its operating point, idle GPUs
  at the idle floor; energy per output token is the deployment's power over its tokens/s. Each
  kind of GPU at its own price and idle floor (the GPUs left over are the decode kind), the MFU
  over the sum of every GPU's peak.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .inference import RATE_EXCEEDS

#: Infeasibility bit: no split of num_gpus holds a prefill and a decode instance (or the stated
#: number of prefill instances leaves no room for a decode instance).
NO_SPLIT = 1 << 17

#: Queue utilisation at which the prefill wait is evaluated when the offered rate meets the
#: capacity (M/D/1's wait diverges at 1).
RHO_MAX = 0.99

#: Which side bounds the deployment's throughput (the ``bound_by`` output).
BOUND = {0: "prefill instances", 1: "decode instances", 2: "prefill KV send", 3: "decode KV receive"}


#: What :func:`combine` reads of each instance's evaluation.
INSTANCE_KEYS = ("num_gpus", "dp", "requests_per_s", "ttft_ms", "itl_ms", "kv_prompt_bytes", "memory_per_gpu_bytes",
                 "power_per_gpu_w", "model_tflops_per_gpu", "mfu", "infeasible_mask")


def _col(x: Any, n: int) -> np.ndarray:
    return np.broadcast_to(np.asarray(x, dtype=np.float64), (n,)).astype(np.float64)


def split(num_gpus: Any, prefill_gpus: Any, decode_gpus: Any, prefill_rate: Any, decode_rate: Any,
          prefill_instances: Any = 0.0) -> dict[str, np.ndarray]:
    """The instance counts of N deployments: ``n_p`` (``prefill_instances``, or with 0 the count
    that serves the most requests/s) and ``n_d = floor((num_gpus - n_p g_p) / g_d)``.

    Rates are requests/s of one instance (already capped by its links). Returns ``n_p``, ``n_d``,
    ``requests_per_s`` and ``idle_gpus``; ``ok`` is 0 where no split holds both kinds.
    """
    n = max(np.broadcast(num_gpus, prefill_gpus, decode_gpus, prefill_rate, decode_rate,
                         prefill_instances).size, 1)
    N, gp, gd = _col(num_gpus, n), _col(prefill_gpus, n), _col(decode_gpus, n)
    Rp, Rd, fixed = _col(prefill_rate, n), _col(decode_rate, n), _col(prefill_instances, n)
    most = np.floor(np.maximum(N - gd, 0.0) / gp)  # prefill instances that leave room for one decode
    # the served rate rises with n_p up to where n_p R_p meets n_d R_d, n_d = (N - n_p g_p) / g_d,
    # and falls after it in steps of g_d / g_p prefill instances: the best lies in a window around
    # the crossing n_p = N R_d / (g_p R_d + g_d R_p), at most that step wide
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.nan_to_num(N * Rd / (gp * Rd + gd * Rp), nan=1.0, posinf=1.0)
    step = np.ceil(gd / gp)
    width = int(np.max(step, initial=1.0)) + 4
    first = np.clip(np.floor(cross) - step - 1.0, 1.0, np.maximum(most, 1.0))
    tried = first[:, None] + np.arange(width, dtype=np.float64)[None, :]
    cand = np.where(fixed[:, None] > 0, fixed[:, None], tried)  # (n, width), ascending
    nd = np.floor((N[:, None] - cand * gp[:, None]) / gd[:, None])
    valid = (nd >= 1.0) & (cand >= 1.0)
    served = np.where(valid, np.minimum(cand * Rp[:, None], nd * Rd[:, None]), -1.0)
    best = np.argmax(served, axis=1)  # the first (fewest prefill instances) of equal ones
    rows = np.arange(n)
    ok = valid[rows, best]
    np_, nd_ = np.where(ok, cand[rows, best], 0.0), np.where(ok, nd[rows, best], 0.0)
    return {"prefill_instances": np_, "decode_instances": nd_,
            "requests_per_s": np.where(ok, np.minimum(np_ * Rp, nd_ * Rd), 0.0),
            "idle_gpus": np.where(ok, N - np_ * gp - nd_ * gd, N), "ok": ok.astype(np.float64)}


def served(capacity: Any, request_rate: Any) -> tuple[np.ndarray, np.ndarray]:
    """(requests/s the deployments serve, where the offered rate exceeds their capacity): the
    offered ``request_rate`` where one is given (> 0) and within ``capacity``, else the capacity."""
    cap, rate = np.asarray(capacity, dtype=np.float64), np.asarray(request_rate, dtype=np.float64)
    exceeded = (rate > 0) & (rate > cap * (1.0 + 1e-9))
    return np.where((rate > 0) & ~exceeded, rate, cap), exceeded


def prefill_wait(rate: Any, instances: Any, replicas: Any, prefill_rate: Any, clients: Any = 0.0) -> np.ndarray:
    """Mean wait (s) of a prompt for its prefill replica under Poisson arrivals at ``rate``
    requests/s over ``instances`` instances of ``replicas`` replicas each, an instance serving at
    most ``prefill_rate`` prompts/s: M/D/1 per replica, ``rho S / (2 (1 - rho))`` with
    ``S = replicas / prefill_rate`` and ``rho`` held at most :data:`RHO_MAX`; 0 with no rate.
    With ``clients`` N > 0 (a closed loop) a prompt never waits behind its own client: the wait
    is scaled by (N - 1) / N, none for one client, the open queue's for many."""
    r, n, dp = (np.asarray(x, dtype=np.float64) for x in (rate, instances, replicas))
    N = np.asarray(clients, dtype=np.float64)
    others = np.where(N > 0, np.maximum(N - 1.0, 0.0) / np.maximum(N, 1.0), 1.0)
    mu = n * np.asarray(prefill_rate, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.clip(np.where(mu > 0, r / mu, 0.0), 0.0, RHO_MAX)
        service = np.where(mu > 0, np.maximum(dp, 1.0) * n / np.where(mu > 0, mu, 1.0), 0.0)
    return np.where(r > 0, others * rho * service / (2.0 * (1.0 - rho)), 0.0)


def prompt_time(loaded_s: Any, alone_s: Any, busy: Any) -> np.ndarray:
    """Seconds of a prompt's own prefill on a replica ``busy`` (0-1) of the time: alone at no load
    (``alone_s``), in a full token budget of prompts (``loaded_s``) at the capacity, linear between."""
    b = np.clip(np.asarray(busy, dtype=np.float64), 0.0, 1.0)
    alone = np.minimum(np.asarray(alone_s, dtype=np.float64), np.asarray(loaded_s, dtype=np.float64))
    return alone + b * (np.asarray(loaded_s, dtype=np.float64) - alone)


def kv_transfer_time(prefill_bytes: Any, decode_bytes: Any, link_bw: Any, link_latency: Any) -> np.ndarray:
    """Seconds to ship one prompt's KV cache: the larger per-GPU shard (bytes) over one GPU's link
    (bytes/s), plus its latency (s)."""
    return (np.maximum(np.asarray(prefill_bytes, dtype=np.float64), np.asarray(decode_bytes, dtype=np.float64))
            / np.asarray(link_bw, dtype=np.float64) + np.asarray(link_latency, dtype=np.float64))


def decode_slack(decode_instances: Any, requests_per_s: Any, decode_rate: Any) -> np.ndarray:
    """Where the decode instances have room to spare: the deployment's requests/s below what its
    ``decode_instances`` serve at full load (``decode_rate`` each); they then run at their share."""
    n_d, R = np.asarray(decode_instances, dtype=np.float64), np.asarray(requests_per_s, dtype=np.float64)
    return (n_d > 0) & (R > 0) & (R < n_d * np.asarray(decode_rate, dtype=np.float64) * (1.0 - 1e-9))


def link_caps(prefill: Mapping[str, Any], decode: Mapping[str, Any], link_bw: Any) -> dict[str, np.ndarray]:
    """Each instance's requests/s after its KV links (``kv_prompt_bytes`` per GPU per request,
    ``dp`` replicas, ``link_bw`` bytes/s per GPU) and which of the two limits bounds it."""
    bw = np.asarray(link_bw, dtype=np.float64)
    f = lambda side, k: np.asarray(side[k], dtype=np.float64)  # noqa: E731
    kv_p, kv_d = f(prefill, "kv_prompt_bytes"), f(decode, "kv_prompt_bytes")
    rate_p, rate_d = f(prefill, "requests_per_s"), f(decode, "requests_per_s")
    with np.errstate(divide="ignore"):
        send = np.where(kv_p > 0, f(prefill, "dp") * bw / np.where(kv_p > 0, kv_p, 1.0), np.inf)
        recv = np.where(kv_d > 0, f(decode, "dp") * bw / np.where(kv_d > 0, kv_d, 1.0), np.inf)
    return {"prefill_rate": np.minimum(rate_p, send), "decode_rate": np.minimum(rate_d, recv),
            "prefill_link_bound": (send < rate_p).astype(np.float64),
            "decode_link_bound": (recv < rate_d).astype(np.float64)}


def combine(prefill: Mapping[str, Any], decode: Mapping[str, Any], num_gpus: Any, input_len: Any, output_len: Any,
            link_bw: Any, link_latency: Any, idle_power_w: Any, price_per_gpu_hour: Any,
            prefill_instances: Any = 0.0, decode_at_load: Mapping[str, Any] | None = None,
            caps: Mapping[str, np.ndarray] | None = None, parts: Mapping[str, np.ndarray] | None = None,
            request_rate: Any = 0.0, concurrency: Any = 0.0, prefill_idle_power_w: Any = None,
            prefill_price_per_gpu_hour: Any = None) -> dict[str, np.ndarray]:
    """The deployment metrics of N (prefill instance, decode instance) pairs.

    ``prefill`` and ``decode`` map the serving model's outputs of each instance (at full load:
    ``requests_per_s``, ``ttft_ms``, ``itl_ms``, ``kv_prompt_bytes``, ``memory_per_gpu_bytes``,
    ``power_per_gpu_w``, ``model_tflops_per_gpu``, ``mfu``, ``infeasible_mask``) plus their plan
    (``num_gpus``, ``dp``). ``decode_at_load`` holds the decode instance's outputs at its share of
    the load (default: at full load). ``link_bw`` is bytes/s per GPU, ``link_latency`` seconds,
    ``idle_power_w`` the idle board power of a GPU (W), ``price_per_gpu_hour`` USD. A prefill side
    with room to spare works the share of the time its load needs and idles the rest (its FLOPs,
    power); see the module docstring for the rest. ``caps`` and ``parts`` are :func:`link_caps` and
    :func:`split` of these pairs when the caller has them already. ``request_rate`` (requests/s,
    0 = offline) is the deployment's offered load: see "Offered load" in the module docstring;
    ``concurrency`` the closed loop of clients that set it, if any (their prompts' wait).
    ``prefill_idle_power_w`` and ``prefill_price_per_gpu_hour`` are the prefill GPUs' when they
    are another kind (default: the decode GPUs', which the idle GPUs left over are too).
    """
    n = max(np.asarray(prefill["requests_per_s"]).size, 1)
    p = {k: _col(prefill[k], n) for k in INSTANCE_KEYS}
    d = {k: _col(decode[k], n) for k in INSTANCE_KEYS}
    at = {k: _col((decode_at_load if decode_at_load is not None else decode)[k], n) for k in INSTANCE_KEYS}
    N, I, O = _col(num_gpus, n), _col(input_len, n), _col(output_len, n)
    bw, lat = _col(link_bw, n), _col(link_latency, n)
    idle_w = _col(idle_power_w, n)
    idle_wp = _col(idle_power_w if prefill_idle_power_w is None else prefill_idle_power_w, n)
    if caps is None:
        caps = link_caps(p, d, bw)
    if parts is None:
        parts = split(N, p["num_gpus"], d["num_gpus"], caps["prefill_rate"], caps["decode_rate"], prefill_instances)
    np_, nd_ = parts["prefill_instances"], parts["decode_instances"]
    rate = _col(request_rate, n)
    R, exceeded = served(parts["requests_per_s"], rate)
    wait = prefill_wait(np.where(exceeded, 0.0, rate), np_, p["dp"], caps["prefill_rate"], _col(concurrency, n))
    prefill_side = np_ * caps["prefill_rate"] <= nd_ * caps["decode_rate"]
    bound = np.where(prefill_side, np.where(caps["prefill_link_bound"] > 0, 2.0, 0.0),
                     np.where(caps["decode_link_bound"] > 0, 3.0, 1.0))
    t_x = kv_transfer_time(p["kv_prompt_bytes"], d["kv_prompt_bytes"], bw, lat)
    tokens = R * O
    gpus_p, gpus_d = np_ * p["num_gpus"], nd_ * d["num_gpus"]
    # the prefill instances' busy share: the prompts they get over those their compute could run
    busy = np.clip(np.where(np_ * p["requests_per_s"] > 0, R / np.maximum(np_ * p["requests_per_s"], 1e-300), 0.0),
                   0.0, 1.0)
    # the prompt's own prefill: the loaded instance's offline (every instance as loaded as the
    # split lets it be), between alone and loaded at an offered load
    loaded_s = p["ttft_ms"] * 1e-3
    alone_s = _col(prefill.get("prefill_time_s", prefill["ttft_ms"] * 1e-3), n)
    prompt_s = np.where(rate > 0, prompt_time(loaded_s, alone_s, busy), loaded_s)
    watts_p = idle_wp + busy * (p["power_per_gpu_w"] - idle_wp)
    watts = gpus_p * watts_p + gpus_d * at["power_per_gpu_w"] + parts["idle_gpus"] * idle_w
    price = _col(price_per_gpu_hour, n)
    price_p = _col(price_per_gpu_hour if prefill_price_per_gpu_hour is None else prefill_price_per_gpu_hour, n)
    dollars_s = (gpus_p * price_p + (gpus_d + parts["idle_gpus"]) * price) / 3600.0  # USD per second
    flops = gpus_p * busy * p["model_tflops_per_gpu"] + gpus_d * at["model_tflops_per_gpu"]
    # each kind's peak, the idle GPUs the decode kind's: the MFU is over all of them
    peak_sum = gpus_p * _peak_tflops(p) + (gpus_d + parts["idle_gpus"]) * _peak_tflops(at)
    mask = (p["infeasible_mask"].astype(np.int64) | d["infeasible_mask"].astype(np.int64)
            | np.where(parts["ok"] > 0, 0, NO_SPLIT) | np.where(exceeded, RATE_EXCEEDS, 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            "prefill_instances": np_, "decode_instances": nd_, "idle_gpus": parts["idle_gpus"],
            "requests_per_s": R, "samples_per_s": R, "tokens_per_s": tokens,
            "tokens_per_s_per_gpu": tokens / np.maximum(N, 1.0), "input_tokens_per_s": R * I,
            "ttft_ms": (prompt_s + wait + t_x) * 1e3 + at["ttft_ms"], "itl_ms": at["itl_ms"],
            "kv_transfer_s": t_x, "prefill_prompt_s": prompt_s, "prefill_wait_s": wait, "prefill_busy": busy,
            "max_requests_per_s": parts["requests_per_s"],
            "prefill_requests_per_s": caps["prefill_rate"], "decode_requests_per_s": caps["decode_rate"],
            "bound_by": bound,
            "memory_per_gpu_bytes": np.maximum(p["memory_per_gpu_bytes"], at["memory_per_gpu_bytes"]),
            "power_per_gpu_w": watts / np.maximum(N, 1.0),
            "energy_per_token_j": np.where(tokens > 0, watts / tokens, 0.0),
            "cost_per_mtok_usd": np.where(tokens > 0, dollars_s / tokens * 1e6, 0.0),
            # the mean price of a GPU of the deployment; 0 (unpriced: its cost unknown, not free)
            # when a kind of GPU it runs has no price
            "price_per_gpu_hour": np.where(((gpus_p > 0) & (price_p <= 0)) | ((gpus_d + parts["idle_gpus"] > 0)
                                                                             & (price <= 0)),
                                           0.0, dollars_s * 3600.0 / np.maximum(N, 1.0)),
            "model_tflops_per_gpu": flops / np.maximum(N, 1.0),
            "mfu": np.where(peak_sum > 0, flops / np.maximum(peak_sum, 1e-30), 0.0),
            "infeasible_mask": mask.astype(np.float64),
        }
    out["input_tokens_per_s_per_gpu"] = out["input_tokens_per_s"] / np.maximum(N, 1.0)
    out["feasible"] = (mask == 0).astype(np.float64)
    return {k: np.nan_to_num(np.asarray(v, dtype=np.float64), nan=0.0, posinf=np.finfo(np.float64).max)
            for k, v in out.items()}


def _peak_tflops(instance: Mapping[str, np.ndarray]) -> np.ndarray:
    """An instance's peak TFLOP/s per GPU, from its model TFLOP/s and MFU (0 without work)."""
    mfu = instance["mfu"]
    return np.where(mfu > 0, instance["model_tflops_per_gpu"] / np.maximum(mfu, 1e-30), 0.0)


def _link(prefill: Mapping[str, Any], decode: Mapping[str, Any], num_gpus: np.ndarray,
          shared: Any = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """(bytes/s per GPU, latency s) of the KV link between the instances: NVLink when the whole
    deployment is one NVLink domain of one kind of GPU (``shared`` > 0; one link of a mesh), the
    scale-out network otherwise, at the slower of the two kinds' NICs."""
    p = lambda k: np.asarray(prefill[k], dtype=np.float64)  # noqa: E731
    d = lambda k: np.asarray(decode[k], dtype=np.float64)  # noqa: E731
    inside = (num_gpus <= d("nvlink_domain")) & (np.asarray(shared, dtype=np.float64) > 0)
    out = np.minimum(p("scaleout_bw") * p("eff_scaleout"), d("scaleout_bw") * d("eff_scaleout"))
    # a mesh links each pair of GPUs by one of its domain - 1 links (collectives.domain_bw)
    mesh = np.asarray(decode.get("nvlink_mesh", 0.0), dtype=np.float64) > 0
    one_link = np.where(mesh, 1.0 / np.maximum(d("nvlink_domain") - 1.0, 1.0), 1.0)
    bw = np.where(inside, d("nvlink_bw") * d("eff_nvlink") * one_link, out)
    lat = np.where(inside, d("nvlink_latency"), np.maximum(p("scaleout_latency"), d("scaleout_latency")))
    return bw + 0.0 * num_gpus, lat + 0.0 * num_gpus


#: Outputs of the serving model that describe one instance, not a deployment: a deployment's row
#: leaves them empty (each instance's own evaluation holds them).
INSTANCE_ONLY = ("iteration_time_s", "decode_step_s", "chunk_iteration_s", "chunk_share", "prefill_time_s",
                 "time_compute_s", "time_gemm_s", "time_attention_s", "time_other_s", "time_bubble_s",
                 "exposed_tp_s", "exposed_ep_s", "time_adp_wait_s", "exposed_cp_s", "exposed_fsdp_s",
                 "exposed_pp_s", "exposed_dp_s", "exposed_comm_s", "time_overlap_slowdown_s", "time_power_cap_s",
                 "hardware_tflops_per_gpu", "hfu", "spec_gain", "batch_running", "batch_max", "microbatches",
                 "ep_load_imbalance")


#: Bisection steps in log(rate) for a closed loop of clients, inside the bracket the request time
#: at no load and at the capacity give (a bracket of e-fold ratio x: the rate to x 2^-24).
CLOSED_LOOP_STEPS = 24


def evaluate_deployments(prefill: Mapping[str, Any], decode: Mapping[str, Any], num_gpus: Any,
                         prefill_instances: Any = 0.0, request_rate: Any = 0.0,
                         concurrency: Any = 0.0, same_gpu: Any = 1.0) -> tuple[dict[str, np.ndarray],
                                                                               dict[str, np.ndarray],
                                                                               dict[str, np.ndarray]]:
    """Score N disaggregated deployments of ``num_gpus`` GPUs from the cost-model columns of one
    prefill instance (``phase`` 1) and one decode instance (``phase`` 2) each
    (:data:`dse.costmodel.inputs.COLUMNS` and :data:`dse.costmodel.inference.INFERENCE_COLUMNS`).

    The instances are scored at full load, the GPUs split (``prefill_instances``, 0 = the split
    that serves the most), the decode instances scored again at their share of the deployment's
    requests/s where they have room to spare (the offered ``request_rate``, requests/s for the
    deployment, where one is given > 0, or the rate at which ``concurrency`` closed-loop clients
    keep their requests in it; the instances' own columns take neither), and :func:`combine`
    composes the two. ``same_gpu`` is 0 where the prefill instances run on another kind of GPU
    than the decode instances (their columns' hardware, price and power are then each side's own,
    and the KV cache crosses the scale-out network). Returns (the
    deployments' rows: every output of the serving model, the deployment's figures in place of an
    instance's, :data:`INSTANCE_ONLY` NaN, the memory of the fuller instance (the larger share of
    its GPU's HBM, ``hbm_bytes``), ``batch`` the
    decode plan's (its largest-that-fits where the plan leaves it to the engine) and
    ``decode_batch`` what a decode instance holds at its load; the prefill instance's outputs; the
    decode instance's outputs at its load), each a dict of arrays of length N.
    """
    from .inference import evaluate_inference

    pre = evaluate_inference(prefill)
    dec = evaluate_inference(decode)
    n = len(pre["requests_per_s"])
    N, fixed = _col(num_gpus, n), _col(prefill_instances, n)
    plan = lambda cols: {k: _col(cols[k], n) for k in ("num_gpus", "dp")}  # noqa: E731
    pre_plan, dec_plan = {**pre, **plan(prefill)}, {**dec, **plan(decode)}
    bw, lat = _link(prefill, decode, N, _col(same_gpu, n))
    caps = link_caps(pre_plan, dec_plan, bw)
    parts = split(N, pre_plan["num_gpus"], dec_plan["num_gpus"], caps["prefill_rate"], caps["decode_rate"], fixed)
    n_d = parts["decode_instances"]

    def at_share(R: np.ndarray) -> dict[str, np.ndarray]:
        """The decode instances' outputs at their share of R requests/s (the batch Little's law
        gives) where they have room to spare, else at full load."""
        slack = decode_slack(n_d, R, caps["decode_rate"])
        if not np.any(slack):
            return dec
        fed = dict(decode)
        fed["batch"] = np.where(slack, 0.0, _col(decode.get("batch", 0.0), n))
        fed["request_rate"] = np.where(slack, R / np.maximum(n_d, 1.0), _col(decode.get("request_rate", 0.0), n))
        return evaluate_inference(fed)

    rate = _col(request_rate, n)
    clients = _col(concurrency, n)
    O = _col(prefill["output_len"], n)
    capacity = parts["requests_per_s"]
    saturated = np.zeros(n, dtype=bool)
    if np.any(clients > 0):
        t_x = kv_transfer_time(pre["kv_prompt_bytes"], dec["kv_prompt_bytes"], bw, lat)
        n_p = parts["prefill_instances"]

        def in_flight(r: np.ndarray) -> np.ndarray:
            """Requests in the deployment at r requests/s: r x (TTFT + (O - 1) ITL)."""
            a = at_share(r)
            busy = r / np.maximum(n_p * pre["requests_per_s"], 1e-300)
            ttft = (prompt_time(pre["ttft_ms"] * 1e-3, pre["prefill_time_s"], busy) + a["ttft_ms"] * 1e-3 + t_x
                    + prefill_wait(r, n_p, pre_plan["dp"], caps["prefill_rate"], clients))
            return r * (ttft + (O - 1.0) * a["itl_ms"] * 1e-3)

        # the request time grows with the rate, so the clients' rate N / time(r) lies between
        # N / time(capacity) and N / time(0+), within the capacity
        top = np.maximum(capacity * (1.0 - 1e-9), 1e-300)
        near_zero = top * 1e-9
        t_full = in_flight(top) / top
        t_idle = in_flight(near_zero) / near_zero
        saturated = (clients > 0) & (capacity > 0) & (top * t_full <= clients)
        lo = np.log(np.clip(clients / np.maximum(t_full, 1e-300), near_zero, top))
        hi = np.log(np.clip(clients / np.maximum(t_idle, 1e-300), near_zero, top))
        for _ in range(CLOSED_LOOP_STEPS):
            mid = 0.5 * (lo + hi)
            over = in_flight(np.exp(mid)) > clients
            lo, hi = np.where(over, lo, mid), np.where(over, mid, hi)
        rate = np.where(clients > 0, np.where(saturated, capacity, np.exp(0.5 * (lo + hi))), rate)
    R, _ = served(capacity, rate)
    at = at_share(R)
    g = lambda k, default=0.0: _col(decode.get(k, default), n)  # noqa: E731
    gp = lambda k, default=0.0: _col(prefill.get(k, default), n)  # noqa: E731
    idle_w = g("power_idle") * np.where(g("power_ref_w") > 0, g("power_ref_w"), g("power_w"))
    idle_wp = gp("power_idle") * np.where(gp("power_ref_w") > 0, gp("power_ref_w"), gp("power_w"))
    metrics = combine(pre_plan, dec_plan, N, _col(prefill["input_len"], n), _col(prefill["output_len"], n), bw, lat,
                      idle_w, g("price_per_gpu_hour"), fixed, decode_at_load={**at, **plan(decode)},
                      caps=caps, parts=parts, request_rate=rate, concurrency=clients,
                      prefill_idle_power_w=idle_wp, prefill_price_per_gpu_hour=gp("price_per_gpu_hour"))
    if np.any(saturated):  # clients beyond the capacity wait for it before their first token
        queued = np.maximum(clients / np.maximum(R, 1e-300) - (O - 1.0) * at["itl_ms"] * 1e-3
                            - metrics["ttft_ms"] * 1e-3, 0.0)
        metrics["ttft_ms"] = np.where(saturated, metrics["ttft_ms"] + queued * 1e3, metrics["ttft_ms"])
        metrics["prefill_wait_s"] = np.where(saturated, metrics["prefill_wait_s"] + queued, metrics["prefill_wait_s"])
    rows = dict(at)
    # the fuller instance: the larger share of its own GPU's HBM (the two kinds may differ)
    hbm_p, hbm_d = gp("hbm_bytes", 1.0), g("hbm_bytes", 1.0)
    heavier = pre["memory_per_gpu_bytes"] * hbm_d > at["memory_per_gpu_bytes"] * hbm_p
    for key in rows:
        if key.startswith("memory_"):
            rows[key] = np.where(heavier, pre[key], at[key])
    rows.update({k: np.full(n, np.nan) for k in INSTANCE_ONLY if k in rows})
    rows.update(metrics)
    rows["memory_per_gpu_bytes"] = np.where(heavier, pre["memory_per_gpu_bytes"], at["memory_per_gpu_bytes"])
    rows["hbm_bytes"] = np.where(heavier, hbm_p, hbm_d)  # of the fuller instance's GPU
    stated = g("batch")
    rows["batch"] = np.where(stated > 0, stated, dec["batch"])
    rows["decode_batch"] = at["batch"]
    rows["link_bytes_per_s"] = bw
    rows["kv_prompt_bytes"] = pre["kv_prompt_bytes"]
    return rows, pre, at
