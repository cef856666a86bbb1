#!/usr/bin/env python3
"""Check the closed-loop opening wave of dse's serving model against a discrete-event simulation.

A benchmark client with --max-concurrency C and --num-prompts N (vLLM/SGLang bench_serving,
InferenceMAX) sends its first C requests together, then one whenever one finishes. This script
simulates such a run on an engine that, every iteration, decodes one token for each sequence in
flight and fills the rest of a token budget with prompt chunks, first come first served, an
iteration taking ``t_dec(n_dec) + prompt tokens / prefill rate`` seconds. Lengths are uniform
over [0.8 X, X] (InferenceMAX's --random-range-ratio 0.8). It prints, per case:

* the first wave's mean TTFT, simulated and as dse computes it
  (:func:`dse.costmodel.inference.first_wave_iterations` times the iteration at half the wave
  decoding);
* the mean TTFT of the later requests in a run of 10 and of 60 requests per client (they arrive
  staggered by the first wave's prefill and meet the steady state);
* the run's output tokens/s at 10 requests per client over 60 (the throughput dse leaves at the
  steady state's);
* with every request of one length (a closed loop in lockstep), the mean TTFT of the requests
  after the first wave, simulated with each client's next request reaching the engine 2 ms after
  its last token (and at once, for comparison), and as dse computes it (``lockstep_dse``, the
  formula of ``dse.costmodel.inference``'s ``lockstep_ttft``).

    python scripts/closed_loop_sim.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dse.costmodel.inference import first_wave_iterations  # noqa: E402

RATIO = 0.8
BUDGET = 8192  # tokens an iteration carries
PREFILL_RATE = 46_000.0
DELAY = 0.002  # s from a client's last token to its next request at the engine (HTTP, tokenizer)  # prompt tokens/s of a full chunk (DeepSeek-R1 on 8 B200, as dse puts it)


def decode_time(n_dec: float) -> float:
    """Seconds of an iteration's decode part: a fixed step and a per-sequence share."""
    return 0.010 + 0.02 * n_dec / 64


def simulate(clients: int, prompt: int, output: int, per_client: int, seed: int = 0, ratio: float = RATIO,
             delay: float = 0.0):
    """(first wave's mean TTFT s, later requests' mean TTFT s, output tokens/s) of one run whose
    lengths are uniform over [ratio X, X] (1: fixed) and whose clients' next requests reach the
    engine ``delay`` seconds after their last token (an iteration that started before misses them)."""
    rng = np.random.default_rng(seed)
    total = clients * per_client
    prompts = rng.integers(int(ratio * prompt), prompt + 1, total)
    outputs = rng.integers(int(ratio * output), output + 1, total)
    queue = [[i, prompts[i]] for i in range(clients)]  # [request, prompt tokens left]
    pending: list[int] = []  # requests sent, not yet at the engine
    decoding: dict[int, int] = {}  # request -> output tokens left
    arrival, first = np.zeros(total), np.full(total, np.nan)
    t, done, sent = 0.0, 0, clients
    while done < total:
        if not queue and not decoding:  # idle: wait for the next request
            t = max(t, min(arrival[k] for k in pending) + delay)
        here = [k for k in pending if arrival[k] + delay <= t + 1e-12]
        pending = [k for k in pending if k not in here]
        queue += [[k, prompts[k]] for k in here]
        room, took, ready = BUDGET - len(decoding), 0, []
        for item in queue:
            if room <= 0:
                break
            take = min(room, item[1])
            item[1] -= take
            room -= take
            took += take
            if item[1] == 0:
                ready.append(item[0])
        queue = [item for item in queue if item[1] > 0]
        t += decode_time(len(decoding)) + took / PREFILL_RATE
        finished = [k for k in decoding if decoding[k] <= 1]
        decoding = {k: v - 1 for k, v in decoding.items() if v > 1}
        for k in ready:
            first[k] = t
            if outputs[k] > 1:
                decoding[k] = outputs[k] - 1
            else:
                finished.append(k)
        for _ in finished:
            done += 1
            if sent < total:  # the client sends its next request at once
                arrival[sent] = t
                pending.append(sent)
                sent += 1
    ttft = first - arrival
    return ttft[:clients].mean(), ttft[clients:].mean(), outputs.sum() / t


def first_wave_dse(clients: int, prompt: int) -> float:
    """dse's first-wave mean TTFT on the same engine: iterations times the iteration at half the
    wave decoding, whose chunk is the budget those decodes leave (the wave's tokens at most)."""
    mean_prompt = 0.5 * (RATIO * prompt + prompt)
    n_dec = 0.5 * (clients - 1)
    chunk = min(BUDGET - n_dec, clients * mean_prompt)
    k = float(first_wave_iterations(clients, mean_prompt / chunk))
    return k * (decode_time(n_dec) + chunk / PREFILL_RATE)


def lockstep_dse(clients: int, prompt: int) -> float:
    """dse's steady TTFT of a closed loop of fixed lengths on the same engine
    (:func:`dse.costmodel.inference` ``lockstep_ttft``): groups of n_g = room / I prompts, each
    arriving while the previous group's prefill iteration runs (the first group of a cycle meets a
    decode iteration, a single group an idle engine), and going in together."""
    n0 = min(max(BUDGET / prompt, 1.0), clients)
    room = max(BUDGET - (clients - n0), 1.0)
    n_g = min(max(room / prompt, 1.0), clients)
    pre = min(room, n_g * prompt)
    mix = decode_time(clients - n_g) + pre / PREFILL_RATE
    groups = clients / n_g
    wait = ((groups - 1.0) * mix + decode_time(clients - n_g)) / groups if n_g < clients else 0.0
    # iterations of the group's prompt tokens: the last one is partial for a single group, full
    # (the next group's prompts fill it) when others follow
    x = n_g * prompt / pre
    k = np.ceil(x - 1e-9)
    return wait + (x * mix + (k - x) * decode_time(clients - n_g) if n_g >= clients else k * mix)


def main() -> None:
    print(f"{'clients':>7} {'ISL':>5} {'OSL':>5} | first wave: sim    dse   err | later TTFT: 10/client 60/client"
          f" | tokens/s 10 over 60")
    errors = []
    for clients in (4, 16, 64, 256):
        for prompt, output in ((1024, 1024), (8192, 1024), (1024, 8192), (4096, 256)):
            wave, later, tps = simulate(clients, prompt, output, 10)
            _, later60, tps60 = simulate(clients, prompt, output, 60)
            model = first_wave_dse(clients, prompt)
            errors.append(model / wave - 1)
            print(f"{clients:7d} {prompt:5d} {output:5d} | {wave:10.3f} {model:7.3f} {100 * errors[-1]:+5.1f}% |"
                  f" {later:10.3f} s {later60:8.3f} s | {tps / tps60:.3f}")
    print(f"first wave: mean |error| {100 * np.mean(np.abs(errors)):.1f}%, max {100 * np.max(np.abs(errors)):.1f}%")
    print()
    print("fixed lengths (every request the same prompt and output): clients in lockstep")
    print(f"{'clients':>7} {'ISL':>5} {'OSL':>5} | later TTFT, next request {DELAY * 1e3:.0f} ms after the last token: "
          f"sim    dse   err | (arriving at once: sim)")
    errors = []
    for clients in (4, 16, 64, 256):
        for prompt, output in ((128, 1024), (1024, 1024), (8192, 1024), (4096, 256), (2000, 500)):
            _, later, _ = simulate(clients, prompt, output, 8, ratio=1.0, delay=DELAY)
            _, at_once, _ = simulate(clients, prompt, output, 8, ratio=1.0)
            model = lockstep_dse(clients, prompt)
            errors.append(model / later - 1)
            print(f"{clients:7d} {prompt:5d} {output:5d} | {later:55.3f} {model:6.3f} {100 * errors[-1]:+5.1f}% |"
                  f" {at_once:7.3f}")
    print(f"lockstep: mean |error| {100 * np.mean(np.abs(errors)):.1f}%, max {100 * np.max(np.abs(errors)):.1f}%")


if __name__ == "__main__":
    main()
