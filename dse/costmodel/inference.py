"""LLM serving (prefill + decode with in-flight batching) of N configurations at once.

Units are SI; one multiply-add is 2 FLOPs. Notation: t tensor-parallel, p pipeline-parallel
degree, B sequences in flight per model replica (the batch), I prompt tokens (input_len), O
generated tokens (output_len), l layers, h hidden, a query heads, g KV heads, d head dim, f FFN
hidden, V vocabulary, E experts, k top-k.

**Steady state of in-flight batching.** An engine that keeps B sequences in flight (TensorRT-LLM,
vLLM, SGLang) admits a new request whenever one finishes; with fixed I and O every slot cycles
through one prefill and O-1 decode steps, so the average engine iteration carries

    n_dec = B (O-1)/O decode tokens  +  n_pre = B I/O prompt tokens (chunked prefill)

and emits B output tokens (one per sequence; the last prompt chunk emits the first token). This
is the mix trtllm-bench sizes its engines for (max_num_tokens = B (1 + I/O)). Output throughput of
a replica is B / t_iter; time per output token (ITL) is the mean iteration a sequence decodes
through, which carries the other B - 1 sequences' prompt chunks but not its own (they come before
its first token): t_iter in a full engine, the decode step alone for one client.

**Offered load (online).** With ``request_rate`` r > 0 (requests/s for the deployment, r/dp
per replica) the engine is not full: it holds the mean batch B that Little's law gives,
``B = (r/dp) O t_iter(B)`` (a request stays O iterations), found by bisection in log B between
one sequence and the throughput-maximising batch. Throughput is then the offered r O tokens/s;
ITL is as above at B; TTFT is the wait for the running iteration (half of one, when one runs:
the engine is busy 1 - exp(-B) of the time) plus the arriving prompt's own prefill iteration(s)
alongside the decodes (queueing beyond that is not modelled). A rate above what
the throughput-maximising batch serves is infeasible (``RATE_EXCEEDS``).

**Chunked prefill.** An iteration's token budget is ``clip(n_dec + n_pre, min_num_tokens,
max_num_tokens)`` (trtllm-bench never builds an engine below 2048 tokens). An iteration that
takes prompt tokens takes those admitted since the last one: n_pre on average, at least one whole
prompt, and at most the room the decode tokens leave, ``C = min(budget - n_dec, max(I, n_pre))``
(a longer prompt is chunked at that room); such iterations are a fraction ``phi = n_pre / C``,
the others only decode. At small batches (long sequences, little free memory, few clients) a
prompt iteration is compute-bound and the decode-only ones memory-bound, so prompt FLOPs no longer
hide under the weight reads: ``t_iter = phi t(n_dec + C) + (1 - phi) t(n_dec)``; a prompt's first
token comes after ``ceil(I / C)`` prompt iterations. With clients (a concurrency or an offered
rate) the prompts in flight share that room: as a processor-sharing queue of the other sequences'
load ``rho = n_pre / (budget - n_dec) (b - 1)/b`` the first token takes ``1 / (1 - rho)`` times
as long (rho capped at 0.9; a lone client shares with nobody).

**Attention data parallelism** (dp replicas whose tokens meet in the experts, ep > t): every MoE
layer's dispatch waits for the slowest rank, so a replica's own work takes a prompt chunk's time
whenever any of the R = ep/t ranks runs one, ``1 - (1 - phi)^R`` of the iterations instead of
phi; the others wait in the all-to-all (ranks without requests send no prompts: with fewer
clients than ranks the other ranks' phi is scaled by the requests they hold, (B R - 1)/(R - 1)
capped at one). An engine that schedules prompts on every rank in the same iterations
(``adp_balance``: TensorRT-LLM's attention_dp_config enable_balance) keeps phi.

**One iteration** runs every layer over the n_dec + n_pre tokens (prompt and decode tokens
share the GEMMs; their attention runs in separate kernels):

* every linear layer as a roofline of ``2 M K N / (peak * eff * K/(K+K_half))`` against
  ``(w K N + x M K + a M N) / (hbm_bw * infer_hbm)``, smoothed at the ridge
  (``(x^2 + y^2)^(1/2)``, :data:`ROOF_Q`): at small batch the weights read once per iteration
  dominate (memory-bound decode), at large batch the FLOPs (compute-bound);
  ``eff = eff_matmul * infer_matmul`` (the training GEMM efficiency times a serving factor that
  absorbs the kernels a serving step runs besides GEMMs); a GEMM whose weights are narrower
  than its inputs (weight-only quantization, W4A16) widens them in its main loop on the CUDA
  cores, which caps its tensor work at ``dequant_matmul`` of the inputs' peak (Hopper: 0.30),
  except FP4/FP6 weights with FP8 inputs where the tensor cores take them natively
  (``mixed_fp8_native``: Blackwell);
* MoE layers read only the experts the iteration's tokens touch: E (1 - (1 - k/E)^M) of them
  for M tokens, each GEMM over M k / E_hit tokens; with experts split over ep > 1 ranks the
  busiest rank receives ``ep_imbalance`` times the mean of the routed copies (a trained router
  is not uniform), and its expert GEMMs, permutes and exchanges pace the layer. Unstated (0), it
  is :func:`expected_moe_imbalance` of the ranks' expert counts and the router's skew
  (``router_skew``: 0, uniform routing, unless the model states it);
* decode attention reads each sequence's KV cache, ``n_dec * ctx * 2 l max(g, t)/t d kv_bytes``
  bytes per GPU (KV heads replicated when tp > g) with ctx = I + O/2 the mean context (roofline against its 4 n_dec ctx a d FLOPs);
  with output lengths of spread ``output_len_cv`` the requests in flight are length-biased, and
  O here and in the KV reservation below becomes E[O^2]/E[O] = O (1 + cv^2);
* prefill attention does the causal half of the I^2 work of each prompt,
  ``2 (n_pre/I) I^2 a d`` FLOPs per layer, at the fused-attention efficiency;
* windowed layers (``attn_window`` W over a fraction ``window_fraction`` of the layers) attend
  to at most W keys (sliding) or to the keys since their W-token chunk began (chunked): ctx and
  I/2 above become the mean keys per query averaged over the layers
  (:func:`dse.costmodel.flops.layer_mean_keys`), and those layers cache only W tokens per
  sequence (``window_scope`` 2; an engine that sizes the cache for the whole context is 1, one
  that windows only the prompt attention 0);
* elementwise HBM traffic (norms, residuals, rotary, activation, quantisation, KV writes);
* tensor parallelism: 2 all-reduces per layer of the iteration's tokens (alpha-beta model of
  :mod:`collectives`, plus a calibrated fixed time per call, ``collective_overhead``, which
  dominates when an iteration carries few tokens); expert parallelism beyond the TP group adds
  dispatch + combine all-to-alls, each a collective call that pays ``collective_overhead`` too,
  each TP rank sending its 1/tp share of the tokens (within it, experts split ep ways and each sharded tp/ep ways,
  combined by the same all-reduce, as TensorRT-LLM's MoE does): every routed copy crosses, or
  with ``moe_dedup`` (DeepEP) a token crosses once per destination NVLink domain and moves once
  per destination GPU (:func:`dse.costmodel.collectives.dedup_dispatch_time`); the dispatch at
  ``dispatch_bytes`` an element when the tokens are quantized before it (FP8), the combine at
  the activations' bytes. With ``tbo`` (two-batch overlap) the iteration's tokens run as two
  micro-batches and each MoE layer's exchanges of one hide under the other's work: the layer
  takes the two halves' work (the weights read by each) and whatever of the two halves'
  exchanges that work does not cover, a hidden exchange still costing ``overlap_slowdown`` of
  its time (its kernels take SMs and bandwidth), as in training; with ``sbo`` (single-batch
  overlap) one batch's combine streams out under its own routed experts' down GEMM and shared
  experts, hiding as much of it as they take (at the same cost);
* the LM head on the B output tokens (16-bit: FP8/FP4 quantisation keeps it unquantised), the
  fp32 logits and their gather across TP ranks;
* a fixed engine overhead per iteration plus a per-sequence one (scheduling, sampling).

The calibrated numbers (``infer_*`` keys per GPU family in ``dse/data/calibration.yaml``, fitted
by ``scripts/calibrate_inference.py``) enter as the columns infer_matmul, infer_attention,
infer_hbm, step_overhead, seq_overhead and collective_overhead.

Pipeline parallelism splits the batch into p microbatches of B/p that follow each other
through the stages: a stage holds l/p layers (the fullest ceil(l/p) when p does not divide l: it
sets the pace and the memory), the period of one iteration is p stage times
(plus p point-to-point activation transfers), so throughput is B / (p t_stage) and ITL
p t_stage; with fewer microbatches in flight than stages an iteration is one microbatch's trip
through the stages, which runs the LM head and the engine's overhead once, not p times.

**Memory per GPU**: weights (linear layers at weight_bytes, embedding and LM head at
head_bytes, sharded t ways, l/p layers; a partly quantized checkpoint keeps its attention
projections, ``attn_16bit``, or its first and last layers, ``end_layers_16bit``, at 16 bits,
which its GEMMs then read and run at the 16-bit rate; a speculative draft's ``draft_layers``
layers add their weights and their own KV cache), the engine's activation workspace for one iteration's
tokens and the fp32 logits, a reserve (``memory_reserved``), and the KV cache. The engine gives
``kv_mem_fraction`` of the memory left to the KV cache (TensorRT-LLM's
kv_cache_free_gpu_mem_fraction, 0.9 by default), or, with ``mem_utilization`` u (vLLM's
gpu_memory_utilization), what u of the whole memory leaves after weights, reserve and the
activations of a whole token budget (vLLM sizes its cache after a profiling pass over
max_num_batched_tokens tokens, so a larger budget leaves a smaller cache) rather than of the
running batch's tokens; reserving for each sequence
``ceil((I + kv_reserve_output * O) / kv_block) * kv_block`` tokens of
``2 (l/p) max(g, t)/t d kv_bytes`` bytes (TensorRT-LLM's GUARANTEED_NO_EVICT scheduler reserves
prompt + all output tokens; on-demand paging engines about half the output).

**Choosing the batch**: with ``batch`` = 0 every candidate batch (powers of two and the largest
one that fits in memory, within max_batch, max_num_tokens and concurrency / dp: the clients are
the deployment's, shared by its replicas) is scored on a second array axis and the
throughput-maximising one is kept, as an offline max-throughput benchmark's engine fills its KV
cache. No Python loop runs over configurations.

**A finite offline run** (``num_requests`` N > 0, an engine offline): the steady state above is
what a long run serves. A benchmark of N requests queued at once gives each of the dp replicas
n = N / dp of them; in-flight batching of equal requests runs them in waves (sequences freed
together, refilled together): k = floor(n / B) full waves at the batch B chosen above, then one
of the r = n - k B left at batch r, whose step reads the same weights for fewer tokens. The run
takes ``k T(B) + T(r)`` with ``T(b) = b O / (tokens/s of a replica at batch b)`` (the model
again, at batch r), so its tokens/s are the steady state's times ``n T(B) / (B (k T(B) + T(r)))``
(``finite_run_factor``, 1 when r = 0), its power the time-weighted mean of the two; a share
that fits at once (k = 0) is scored at batch n throughout. Attention data parallelism splits a
run over many replicas, each with a short queue: the drain costs it most.

**A closed loop of clients** (``concurrency`` C with ``num_requests`` N: vLLM's and SGLang's
bench_serving with --max-concurrency and --num-prompts, genai-perf's concurrency mode): each
client sends its next request when its last one finishes, and the first min(C, N) are sent
together at the start. A replica then meets n = min(B, N / dp) prompts at once on an idle
engine and takes them first come first served in chunks of the token budget the decodes of the
prompts already served leave (half the wave's on average, ``max_num_tokens - (n - 1)/2``):
prompt j's first token comes after (j + 1) I / chunk such iterations, (n + 1) I / (2 chunk) on
average (at least its own prompt's chunks). Their completions are then spread over that wave's
prefill time, so later prompts arrive staggered and meet the steady state; each client opens
with one such prompt in N / C, so the run's mean TTFT is the steady state's plus the first
wave's excess over it times C / N. A discrete-event simulation of such an engine
(``scripts/closed_loop_sim.py``: lengths uniform over [0.8 X, X], 4-256 clients, 10 requests
each) puts the first wave's mean within 16% of this (5.5% on average) and the run's throughput
within 1.2% of a long run's, so the throughput is left at the steady state's. Clients beyond the
batch B the engine runs (memory, max_batch) hold a request each all the same: by Little's law it
waits C / (dp B) - 1 times its O iterations for a slot before its prompt goes in (TTFT).

**Lockstep** (a closed loop whose requests all have one output length, ``output_len_cv`` 0:
genai-perf with ignore_eos and min_tokens = max_tokens, vLLM's random data set): the prompts
that went in together finish together, their clients send their next requests together, and
so on: the arrivals never spread out. A replica's C clients form groups of n_g = room / I
prompts (the prompts one iteration's token budget takes alongside the others' decodes, at least
one, at most C); a group's next prompts reach the engine just after the iteration that follows
its last token has started, so they wait for it (the previous group's prefill iteration, or a
decode iteration for the first group of a cycle; nothing when one group holds every client and
the engine idles), then go in together, alongside the other C - n_g sequences' decodes, in
n_g I / room iterations (the last one partial for a single group, filled by the next group's
prompts otherwise). The TTFT grows with the clients: a group's first tokens all wait for its
whole prefill. ``scripts/closed_loop_sim.py`` simulates such an engine (4-256 clients, prompts
of 128-8192 tokens, next requests 2 ms after the last token): this mean is within 10% of the
simulated one on average (at most 39% off); a discrete-uniform spread of lengths
(InferenceMAX's [0.8 X, X]) dissolves the groups after the opening wave, and the steady state
above holds (any spread above half a token, ``output_len_cv`` x ``output_len`` >= 0.5). On the
NIM genai-perf runs of ``validation/nim_genai_perf.jsonl`` (fixed lengths, 1-250 clients) the
mean TTFT's error is 28% with lockstep and 72% without.

**Disaggregated serving** (``phase``): a decode instance (2) runs iterations of decode tokens
only, one per sequence in flight (requests arrive with their prompt's KV, so the cache and the
reads are as above), TTFT being one iteration; a prefill instance (1) runs iterations of
``max_num_tokens`` prompt tokens (whole prompts, longer ones chunked), p microbatches in the
pipeline, holding only their KV until it is shipped out; its throughput is prompts (and first
tokens) per second, ``input_tokens_per_s`` their tokens. A deployment of P prefill and D decode
GPUs serves min(P x prefill requests/s per GPU, D x decode requests/s per GPU).

**Speculative decoding** (``spec_tokens`` k > 0, ``spec_acceptance`` alpha, ``draft_layers``):
each iteration first drafts k tokens per decoding sequence, one after the other, each through
``draft_layers`` layers of the target's shape and the LM head (DeepSeek's MTP module is one
layer), then the target verifies them at once: 1 + k query tokens per sequence through every
GEMM, one read of the sequence's KV cache for all of them (their attention FLOPs times 1 + k),
logits for every drafted position. With each draft accepted with probability alpha given the
ones before it, a sequence emits ``gain = (1 - alpha^(k+1)) / (1 - alpha)`` tokens per iteration
(k + 1 at alpha = 1), so a request stays ``O_it = 1 + (O - 1) / gain`` iterations instead of O:
the prompt share of an iteration, throughput (B O / O_it per iteration) and Little's law use
O_it, and ITL, the time per output token, is the iteration a sequence decodes through over gain. At small batch the
verification reads the same weights as one token, so tokens/s grows almost with gain; at large
batch it multiplies the GEMM FLOPs and the gain shrinks or turns into a loss. Check: one MTP
module accepted 85-90% of the time gives DeepSeek-V3 at one client 1.7-1.8x the tokens/s
(``tests/costmodel/test_speculative.py``), where its report states 1.8x.

TTFT is the service time of one prompt in a loaded engine: the ceil(I / C) iterations that carry
its chunks together with the decode tokens of the other sequences (no queueing: an offline
benchmark that queues all requests at once reports a TTFT dominated by its queue, which depends
on the request count). A fixed ``batch`` above what the token budget runs holds its sequences
but decodes only that many at once; the others wait, and Little's law adds their wait to TTFT.
``prefill_time_s`` is the prompt alone on an idle engine (in chunks of the whole token budget,
``max_num_tokens``, as an arriving prompt meets an empty engine online), ``decode_step_s`` an iteration without prompt tokens,
``chunk_iteration_s`` one with a prompt chunk and ``chunk_share`` the fraction of iterations that
carry one: ITL is a mean over a sequence's decode iterations, and a latency bound on it
(``max_itl_ms``) is not a bound on the slowest token, which waits for a chunk iteration.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import collectives as coll
from . import power
from .flops import attention_core_flops_per_key, is_mla, layer_mean_keys, mla_projection_shapes, softmax_exp_factor
from .inputs import COLUMNS, broadcast_columns
from .training import (
    DEGREES_PRODUCT,
    EP_DENSE,
    EXPERTS_EP,
    FFN_TP,
    HEADS_TP,
    LAYERS_PP,
    OUT_OF_MEMORY,
    kv_heads_fit,
)

#: Configurations scored per inner call (each carries a grid of candidate batches).
CHUNK = 1 << 12

#: Extra infeasibility bit: context parallelism is not modelled for serving.
CONTEXT_PARALLEL = 1 << 10
#: Extra infeasibility bit: KV heads neither divide nor are a multiple of tp.
KV_HEADS_TP = 1 << 11
#: Extra infeasibility bit: the offered request rate exceeds what the plan can serve.
RATE_EXCEEDS = 1 << 12
#: Extra infeasibility bit: prompt + output exceed the model's context window.
CONTEXT_EXCEEDED = 1 << 16
#: Extra infeasibility bit: a fixed batch above the engine's max_batch.
BATCH_ABOVE_MAX = 1 << 18

#: Bisection steps (in log batch) that solve Little's law for an offered request rate.
RATE_STEPS = 24

#: Relative throughput difference below which the larger of two candidate batches is kept.
TIE = 1e-6

#: Candidate batch sizes scored for every configuration (plus its memory-limited maximum).
BATCH_GRID = 2.0 ** np.arange(0, 17)

#: The serving columns (on top of the shared model / hardware / plan columns of
#: :data:`dse.costmodel.inputs.COLUMNS`): name -> (default, unit / meaning); None = required.
INFERENCE_COLUMNS: dict[str, tuple[float | None, str]] = {
    "input_len": (None, "prompt tokens per request (ISL)"),
    "output_len": (None, "generated tokens per request (OSL), >= 1"),
    "context_len": (0.0, "the longest sequence (prompt + output) the model serves, tokens (its trained "
                         "positions); 0 = not checked"),
    "batch": (0.0, "sequences in flight per model replica; 0 = choose the throughput-maximising "
                   "batch within memory (offline max throughput)"),
    "concurrency": (0.0, "upper bound on sequences in flight over the whole deployment (online clients, "
                           "shared by the dp replicas); 0 = none"),
    "request_rate": (0.0, "offered requests/s for the whole deployment (online serving): the engine "
                          "runs the mean batch that serves it; 0 = offline (throughput-maximising batch)"),
    "output_len_cv": (0.0, "coefficient of variation of the requests' output lengths (output_len is "
                           "their mean): the requests in flight average output_len (1 + cv^2) "
                           "(length-biased), which sets their context and KV cache; 0 = fixed lengths "
                           "(a closed loop of clients then runs in lockstep)"),
    "num_requests": (0.0, "requests of a finite run: offline, all queued at its start (each replica drains "
                          "its last wave at a smaller batch); with a concurrency, a closed loop whose "
                          "first prompts arrive together (they queue for the first token); 0 = the steady state"),
    "kv_bytes": (2.0, "bytes per KV-cache element (1 for an FP8 KV cache)"),
    "head_bytes": (2.0, "bytes per weight of the embedding and LM head (FP8/FP4 checkpoints keep "
                        "them 16-bit)"),
    "max_batch": (4096.0, "largest batch the engine runs (trtllm-bench caps its engines' "
                          "max_batch_size at 4096)"),
    "max_num_tokens": (32768.0, "most tokens one iteration may carry (trtllm-bench caps its engines' "
                                "max_num_tokens at 32768): bounds B (1 + I/O) per microbatch"),
    "min_num_tokens": (2048.0, "least token budget of an iteration (trtllm-bench builds engines with "
                               "max_num_tokens >= 2048): prompts are chunked at the budget left by "
                               "the decode tokens; set both to an engine's fixed budget (vLLM "
                               "max_num_batched_tokens)"),
    "mem_utilization": (0.0, "fraction of the GPU's whole memory the engine may fill with weights, "
                             "workspace, reserve and KV cache (vLLM gpu_memory_utilization: the workspace "
                             "is that of the token budget it profiles at start-up, max_num_tokens when "
                             "stated, else the batch's need, at least min_num_tokens); "
                             "0 = TensorRT-LLM's rule, kv_mem_fraction of what is left"),
    "mem_static": (0.0, "1: mem_utilization covers the weights and the KV pool only, the workspace "
                        "living outside it (SGLang's mem_fraction_static); 0: it covers the workspace too"),
    "kv_mem_fraction": (0.9, "fraction of the memory left after weights, workspace and reserve "
                             "that the engine gives the KV cache"),
    "kv_reserve_output": (1.0, "fraction of the output tokens whose KV blocks are reserved per "
                               "sequence on admission (1: TensorRT-LLM GUARANTEED_NO_EVICT)"),
    "kv_block": (64.0, "tokens per KV-cache block (paged KV cache)"),
    "attn_16bit": (0.0, "1 if a quantized checkpoint keeps the attention projections 16-bit (only the "
                         "FFN and expert matrices quantized: Meta's Llama 3.1 FP8); 0 = quantized too"),
    "end_layers_16bit": (0.0, "1 if a quantized checkpoint keeps its first and last transformer layers "
                              "entirely 16-bit (Meta's Llama 3.1 FP8); 0 = none"),
    "tbo": (0.0, "1 if the engine splits each iteration's tokens in two micro-batches whose expert all-to-alls "
                 "run under the other's compute (SGLang's two-batch overlap; needs ep > tp); 0 = one batch, "
                 "exchanges exposed"),
    "sbo": (0.0, "1 if each MoE layer's combine all-to-all streams out under the routed experts' down GEMM "
                 "and the shared experts (SGLang's single-batch overlap); needs ep > tp; ignored with tbo"),
    "adp_balance": (0.0, "1 if the engine schedules prompts on every attention-DP rank in the same "
                         "iterations (TensorRT-LLM attention_dp_config enable_balance); 0 = each rank "
                         "on its own, the others waiting for it at every MoE layer"),
    "gemm_in_bytes": (0.0, "bytes per GEMM input activation element; 0 = quantised like the weights "
                           "(min(weight_bytes, act_bytes)); weight-only quantization keeps the "
                           "precision's (2 for W4A16)"),
    "phase": (0.0, "what the engine runs: 0 prompts and decodes together; 1 prompts only (a prefill "
                   "instance of a disaggregated deployment: its KV is shipped out); 2 decodes only "
                   "(a decode instance: requests arrive with their prompt's KV)"),
    "window_scope": (2.0, "what local (windowed) attention layers save in the engine: 2 prompt attention, "
                          "decode KV reads and KV cache; 1 prompt and decode attention only (cache sized "
                          "for the whole context); 0 prompt attention only"),
    "spec_tokens": (0.0, "speculative decoding: draft tokens proposed per sequence and iteration (k); "
                         "0 = none"),
    "spec_acceptance": (0.0, "probability that a draft token is accepted, given the ones before it were "
                             "(alpha, 0-1): an iteration emits (1 - alpha^(k+1)) / (1 - alpha) tokens per "
                             "sequence on average"),
    "draft_layers": (1.0, "cost of drafting one token in layers of the target model's shape (DeepSeek's "
                          "MTP module: 1; a separate draft model: its layers' equivalent), plus one LM head"),
    "infer_matmul": (1.19, "serving GEMM efficiency as a factor on eff_matmul (per family, "
                           "calibration.yaml; default: hopper's)"),
    "infer_attention": (0.731, "fraction of the attention peak (16-bit; FP8 with an FP8 KV cache) the fused "
                             "serving attention kernel's matmuls reach, its softmax exponentials aside: they "
                             "add (1 + (R/P)^2)^(1/2) (flops.softmax_exp_factor) (per family, "
                             "calibration.yaml; default: hopper's)"),
    "infer_mla_decode": (0.763, "fraction of its peak (16-bit; FP8 where mla_decode_fp8) a latent-attention "
                                "(MLA) decode kernel reaches (per family; default: hopper's, FlashMLA)"),
    "infer_hbm": (0.874, "fraction of HBM bandwidth the weight and KV-cache reads reach"),
    "step_overhead": (200e-6, "fixed time per engine iteration (launches, scheduling), s"),
    "seq_overhead": (3.23e-6, "time per sequence in flight per iteration (sampling, bookkeeping), s"),
    "dequant_matmul": (1.0, "fraction of the GEMM inputs' peak a GEMM reaches when its weights are narrower "
                            "than its inputs and widened in its main loop (weight-only quantization; per "
                            "family, calibration.yaml); 1 = no loss"),
    "mixed_fp8_native": (0.0, "1 where the tensor cores multiply FP4/FP6 weights by FP8 inputs natively "
                              "(Blackwell): a W4A8 GEMM then pays no widening"),
    "mla_decode_fp8": (1.0, "1 where latent-attention (MLA) decode kernels multiply an FP8 KV cache in FP8; "
                            "0 where they widen it and run at the 16-bit peak (Hopper's FlashMLA)"),
    "ep_imbalance": (0.0, "routed token copies the busiest expert-parallel rank receives over the mean "
                           "(max/mean, >= 1): it paces each MoE layer's expert GEMMs and exchanges; 0 = "
                           "expected_moe_imbalance of the model's router_skew"),
    "collective_overhead": (75.6e-6, "fixed time of each collective call in a serving iteration (launch and "
                                 "cross-GPU synchronisation): tensor-parallel all-reduces, expert dispatches "
                                 "and combines, s"),
}
INFERENCE_REQUIRED = tuple(k for k, (v, _) in INFERENCE_COLUMNS.items() if v is None)

#: Bytes of fp32 logits per vocabulary entry and output token, and the passes over them
#: (written by the LM head, read by the sampler).
LOGIT_BYTES = 4.0
LOGIT_PASSES = 2.0

#: Elementwise passes over h-sized activations per token and layer (two norms, two residual
#: adds, rotary, quantisation and copies), as HBM traffic.
ELEM_PASSES = 8.0


#: Coefficient of variation of a trained router's load over the experts of a layer (the spread of
#: expert popularity), for :func:`expected_moe_imbalance`: the value that reproduces TensorRT-LLM's
#: measured imbalance of DeepSeek-R1 at 32-way expert parallelism without a load balancer, the
#: busiest rank receiving (max - mean) / mean = 1.56 more routed tokens than the mean, averaged over
#: layers and iterations (examples/wide_ep/ep_load_balancer/README.md: 256 experts, 8 per rank).
ROUTER_SKEW = 2.16


def _expected_max_normal(n: int) -> float:
    """Expected largest of n independent standard normal draws (numerical integration)."""
    if n <= 1:
        return 0.0
    x = np.linspace(-8.0, 8.0, 16001)
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    cdf = np.cumsum(pdf) * (x[1] - x[0])
    return float(np.trapezoid(x * n * pdf * np.clip(cdf, 0.0, 1.0) ** (n - 1), x))


#: ln(n) and the expected maximum of n standard normals at n = 1, 2, 4, ..., 2^14, interpolated in ln n.
_MAX_NORMAL_LOG_N = np.log(2.0 ** np.arange(15))
_MAX_NORMAL = np.array([_expected_max_normal(2 ** i) for i in range(15)])


def expected_moe_imbalance(experts: Any, ep: Any, skew: Any = ROUTER_SKEW) -> np.ndarray:
    """Expected routed copies of the busiest of ``ep`` expert-parallel ranks over the mean (>= 1).

    A rank holds n = E/ep of the E experts; if the experts' loads spread with coefficient of
    variation ``skew`` (a trained router's popularity), a rank's load, the sum of n of them drawn
    without replacement, spreads with ``skew sqrt((E - n)/(E - 1)) / sqrt(n)``, and the busiest
    of ep ranks sits about ``z_ep`` of those above the mean (z_ep the expected maximum of ep
    standard normals): ``1 + skew sqrt((E - n)/(E - 1)/n) z_ep``, at most ep. It falls as ranks
    hold more experts (1.24 for 256 experts over 4 ranks, 1.51 over 8, 2.56 over 32). A load
    balancer with redundant experts (EPLB) brings it to about 1.1 (TensorRT-LLM measured 1.12 for
    DeepSeek-R1 over 36 ranks): state that as ``inference.moe_load_imbalance``.
    """
    E = np.maximum(np.asarray(experts, dtype=np.float64), 1.0)
    R = np.maximum(np.asarray(ep, dtype=np.float64), 1.0)
    n = np.maximum(E / R, 1.0)
    z = np.interp(np.log(R), _MAX_NORMAL_LOG_N, _MAX_NORMAL)
    spread = np.maximum(np.asarray(skew, dtype=np.float64), 0.0) * np.sqrt(np.maximum(E - n, 0.0) / np.maximum(E - 1.0, 1.0) / n)
    return np.where(R > 1.0, np.minimum(1.0 + spread * z, R), 1.0)


def first_wave_iterations(n: Any, x: Any) -> np.ndarray:
    """Mean number of iterations after which a prompt of a wave of n, arriving together and taken
    first come first served, has its first token, each prompt x chunks long (its tokens over an
    iteration's prompt tokens): prompt j (1..n) finishes in iteration ceil(j x), whose mean is
    (n + 1) x / 2 plus the mean round-up, ceil(x) - x for a lone prompt and about half an
    iteration for many; at least a prompt's own ceil(x), at most the wave's ceil(n x)."""
    n, x = np.asarray(n, dtype=np.float64), np.asarray(x, dtype=np.float64)
    own, whole = np.ceil(x - 1e-9), np.ceil(n * x - 1e-9)
    mean = 0.5 * (n + 1.0) * x + 0.5 * (1.0 - 1.0 / n) + (own - x) / n
    return np.minimum(np.maximum(mean, own), np.maximum(whole, own))


def split_columns(batch: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(shared cost-model columns, serving columns) of a batch; KeyError for unknown names."""
    unknown = sorted(set(batch) - set(COLUMNS) - set(INFERENCE_COLUMNS))
    if unknown:
        raise KeyError(f"unknown inference cost-model columns: {unknown}; known: "
                       f"{sorted(set(COLUMNS) | set(INFERENCE_COLUMNS))}")
    missing = [k for k in INFERENCE_REQUIRED if k not in batch]
    if missing:
        raise KeyError(f"missing required inference columns: {missing}")
    shared = {k: v for k, v in batch.items() if k in COLUMNS}
    own = {k: v for k, v in batch.items() if k in INFERENCE_COLUMNS}
    shared.setdefault("global_batch", 1.0)  # a training column, unused here
    if "seq_len" not in shared:
        shared["seq_len"] = (np.asarray(own["input_len"], dtype=np.float64)
                             + np.asarray(own["output_len"], dtype=np.float64))
    return shared, own


def _broadcast_own(own: Mapping[str, Any]) -> dict[str, np.ndarray]:
    out = {}
    for name, (default, _) in INFERENCE_COLUMNS.items():
        value = np.asarray(own.get(name, default), dtype=np.float64)
        if value.ndim > 1:
            raise ValueError(f"column {name!r} must be a scalar or a 1-d array, got {value.shape}")
        out[name] = value
    return out


def evaluate_inference(batch: Mapping[str, Any], outputs: Sequence[str] | None = None,
                       detail: bool = False) -> dict[str, np.ndarray]:
    """Score N serving configurations.

    ``batch`` maps :data:`dse.costmodel.inputs.COLUMNS` and :data:`INFERENCE_COLUMNS` names to
    arrays of length N or scalars (``global_batch`` and ``seq_len`` may be left out). Returns a
    dict of finite float arrays of length N (every metric, or only ``outputs``); with
    ``detail`` also the per-op terms (see :func:`evaluate_inference_detail`).
    """
    shared, own = split_columns(batch)
    cols, n = broadcast_columns(shared)
    own_cols = _broadcast_own(own)
    lengths = {v.shape[0] for v in (*cols.values(), *own_cols.values()) if v.ndim == 1 and v.shape[0] != 1}
    if len(lengths) > 1:
        raise ValueError(f"columns have different lengths: {sorted(lengths)}")
    n = lengths.pop() if lengths else 1
    c = {**cols, **own_cols}
    if n == 0:
        with np.errstate(all="ignore"):
            empty = _evaluate({k: (np.ones(1) if v.ndim else v) for k, v in c.items()}, 1, detail)
        return {k: np.empty(0) for k in (empty if outputs is None else outputs)}
    out: dict[str, np.ndarray] = {}
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        chunk = {k: (v[start:stop] if v.ndim and v.shape[0] == n else v) for k, v in c.items()}
        part = _finite_run(chunk, _evaluate(chunk, stop - start, detail), stop - start)
        if not out:
            out = {k: np.empty(n) for k in (part if outputs is None else outputs)}
        for k, v in out.items():
            v[start:stop] = part[k]
    return out


#: Outputs that are rates of the whole run (a finite run's factor scales them).
RUN_RATES = ("tokens_per_s", "tokens_per_s_per_gpu", "requests_per_s", "samples_per_s", "input_tokens_per_s",
             "input_tokens_per_s_per_gpu", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu")


def _finite_run(c: Mapping[str, Any], out: dict[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
    """A finite offline run of ``num_requests`` (see "A finite offline run" in the module
    docstring): the steady-state ``out`` of the rows that run one, re-scored as k full waves at
    their batch and a last wave at the batch of the requests left; ``finite_run_factor`` (the
    run's tokens/s over the steady state's) for every row, 1 where there is no finite run."""
    N = np.broadcast_to(np.asarray(c.get("num_requests", 0.0), dtype=np.float64), (n,))
    col = lambda k: np.broadcast_to(np.asarray(c[k], dtype=np.float64), (n,))  # noqa: E731
    run = ((N > 0) & (col("phase") == 0) & (col("request_rate") <= 0) & (col("concurrency") <= 0)
           & (out["feasible"] > 0) & (out["batch"] > 0) & (out["tokens_per_s"] > 0))
    if not run.any():
        return out
    replicas = np.maximum(col("dp"), 1.0)
    share = N / replicas  # requests of one replica
    B = out["batch"]
    waves = np.where(run, np.floor(share / B + 1e-9), 0.0)
    rest = np.where(run, np.where(waves > 0, share - waves * B, share), 0.0)
    last = run & (rest > 1e-9)
    if not last.any():
        return out
    tail = _evaluate({**c, "batch": np.where(last, rest, col("batch"))}, n)
    # the last wave's time over a full wave's, T(r) / T(B) = r x tokens/s(B) / (B x tokens/s(r)),
    # so that the run takes k + ratio full waves and serves n / (B (k + ratio)) of the steady state
    ratio = np.where(last, rest * out["tokens_per_s"] / np.maximum(B * tail["tokens_per_s"], 1e-300), 0.0)
    factor = np.where(last & (waves > 0), share / np.maximum(B * (waves + ratio), 1e-300), 1.0)
    alone = last & (waves == 0)  # the whole share at once: the run is that batch's
    result = {k: np.where(alone, tail[k], v) if k in tail else v for k, v in out.items()}
    scaled = last & (waves > 0)
    for key in RUN_RATES:
        result[key] = np.where(scaled, out[key] * factor, result[key])
    watts = np.where(scaled, (waves * out["power_per_gpu_w"] + ratio * tail["power_per_gpu_w"])
                     / np.maximum(waves + ratio, 1e-300), result["power_per_gpu_w"])
    per_gpu = np.maximum(result["tokens_per_s_per_gpu"], 1e-30)
    result["power_per_gpu_w"] = watts
    result["energy_per_token_j"] = np.where(scaled, watts / per_gpu, result["energy_per_token_j"])
    result["cost_per_mtok_usd"] = np.where(scaled, col("price_per_gpu_hour") / 3600.0 / per_gpu * 1e6,
                                           result["cost_per_mtok_usd"])
    result["finite_run_factor"] = np.where(alone, tail["tokens_per_s"] / np.maximum(out["tokens_per_s"], 1e-300),
                                           factor)
    return result


def evaluate_inference_detail(batch: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """:func:`evaluate_inference` plus the per-op terms behind TTFT and ITL (``detail_*``), for
    laying out one request's schedule (:mod:`dse.trace`), not for sweeps.

    ``detail_prefill_<op>`` are the parts of one chunk iteration of one pipeline stage (the
    iterations that carry a prompt chunk; TTFT = ``detail_prefill_chunks`` x ``pp`` x their
    sum), ``detail_decode_<op>`` those of the mean iteration of one stage that a decoding
    sequence runs through: decode steps and those carrying the other sequences' prompt chunks,
    not its own (ITL = ``pp`` x their sum / the tokens a step emits). Ops: qkv, out, ffn (GEMMs), attn_pre, attn_dec (prompt and KV-cache attention), elem
    (elementwise traffic and KV writes), head (LM head, logits), overhead (engine), tp, ep, pp.
    ``detail_layers_per_stage`` and ``detail_chunk_tokens`` (prompt tokens per chunk) too.
    """
    return evaluate_inference(batch, detail=True)


DETAIL_OPS = ("qkv", "out", "ffn", "attn_pre", "attn_dec", "elem", "head", "overhead", "tp", "ep", "pp", "adp_wait")


#: Exponent of the smooth roofline ``(x^q + y^q)^(1/q)`` (q -> infinity: the max). With q = 2 an
#: op at the ridge point (FLOP time = byte time) reaches 1/sqrt(2) = 71% of both peaks: a GEMM
#: cannot stream its weights at full bandwidth while its tensor cores run flat out. This matters
#: for decode at batches of ~100-300 sequences per GPU (the ridge of FP8/FP16 GEMMs).
ROOF_Q = 2.0


def roof(x, y):
    """Time of an op bound by two resources: their max, smoothed near the ridge when ROOF_Q > 0."""
    if ROOF_Q <= 0:
        return np.maximum(x, y)
    m = np.maximum(np.maximum(x, y), 1e-300)
    return m * ((x / m) ** ROOF_Q + (y / m) ** ROOF_Q) ** (1.0 / ROOF_Q)


def _col(v: np.ndarray) -> np.ndarray:
    """A column as an (n, 1) array (scalars stay 0-d): configurations x candidate batches."""
    v = np.asarray(v, dtype=np.float64)
    if v.ndim == 1:
        return v.reshape(-1, 1)
    return v


def _evaluate(cin: dict[str, np.ndarray], n: int, detail: bool = False) -> dict[str, np.ndarray]:
    c = {k: _col(v) for k, v in cin.items()}
    t, p, dp, cp, ep = c["tp"], c["pp"], c["dp"], c["cp"], c["ep"]
    h, a, g, d = c["hidden"], c["heads"], c["kv_heads"], c["head_dim"]
    f, V, mats = c["ffn_hidden"], c["vocab"], c["ffn_mats"]
    I = np.maximum(c["input_len"], 1.0)
    O = np.maximum(c["output_len"], 1.0)
    ab = c["act_bytes"]
    wb = c["weight_bytes"]
    kvb = c["kv_bytes"]
    hb = c["head_bytes"]
    # GEMM activation operands are quantised like the weights (FP8, FP4) unless the weights alone
    # are (weight-only quantization: W4A16 reads 16-bit activations)
    xb = np.where(c["gemm_in_bytes"] > 0, c["gemm_in_bytes"], np.minimum(wb, ab))

    layers = c["layers"]
    # keys a token attends to, averaged over the layers (windowed layers stop at their window):
    # a prompt token over its own prompt (I/2 for full attention), a decode token over its
    # context (I + O/2 for full attention)
    scope = c["window_scope"]
    keys_pre = layer_mean_keys(0.0, I, c)
    # the requests in flight are length-biased: a request of O' output tokens stays O' iterations,
    # so their output lengths average E[O'^2]/E[O'] = O (1 + cv^2) (O with fixed lengths)
    O_held = O * (1.0 + np.square(c["output_len_cv"]))
    keys_dec = np.where(scope >= 1.0, layer_mean_keys(I, I + O_held, c), I + O_held / 2.0)
    L = np.ceil(layers / p - 1e-9)  # layers of the fullest stage (uneven when p does not divide them)
    moe_frac = np.where(c["experts"] > 0, c["moe_layers"] / layers, 0.0)
    dense_frac = 1.0 - moe_frac
    is_moe = c["experts"] > 0

    a_loc = a / t
    g_loc = np.maximum(g, t) / t  # KV heads per GPU (replicated when tp > kv_heads)
    # cached elements per token and layer on one GPU and the decode attention FLOPs per cached
    # token: 2 g d and 4 a d (split over TP); MLA caches the kv latent and the rotary key (every
    # TP rank holds all of it) and decodes in the latent space (weights absorbed): scores over
    # kv_rank + rope and values over kv_rank per head
    kv_elems = 2.0 * g_loc * d
    dec_flops_key = 4.0 * a_loc * d
    core_key = attention_core_flops_per_key(c)  # prefill (keys and values rebuilt per head)
    mla = is_mla(c)
    any_mla = bool(np.any(mla))
    mla_shapes = mla_projection_shapes(c, a_loc) if any_mla else ()
    if any_mla:
        kv_elems = np.where(mla, c["mla_kv_rank"] + c["mla_rope_dim"], kv_elems)
        dec_flops_key = np.where(mla, 2.0 * a_loc * (2.0 * c["mla_kv_rank"] + c["mla_rope_dim"]), dec_flops_key)
    f_loc = f / t
    E = np.maximum(c["experts"], 1.0)
    k = np.where(is_moe, np.maximum(c["top_k"], 1.0), 0.0)
    fe = c["expert_ffn_hidden"]
    etp = np.maximum(t / ep, 1.0)  # ways each expert is sharded
    pool = np.maximum(ep / t, 1.0)  # replicas whose tokens meet in one expert group
    adp_free = (pool > 1.0) & (c["adp_balance"] <= 0)  # attention-DP ranks that wait for each other
    any_adp = bool(np.any(adp_free))
    E_loc = E / ep
    # the busiest EP rank's routed copies over the mean: stated, or a trained router's expected
    imb = np.where(c["ep_imbalance"] > 0, c["ep_imbalance"], expected_moe_imbalance(E, ep, c["router_skew"]))
    imb = np.where(ep > 1.0, np.clip(imb, 1.0, np.maximum(ep, 1.0)), 1.0)
    fe_loc = fe / etp
    S = c["shared_experts"]

    # speculative decoding: every decoding sequence runs 1 + k query tokens through the target
    # (its own token and k drafts, verified at once, its KV read once) and emits `gain` tokens
    # per iteration on average (the accepted drafts and one token of the target's); a request
    # then stays O_it = 1 + (O - 1) / gain iterations instead of O
    nspec = np.maximum(c["spec_tokens"], 0.0)
    q_tok = 1.0 + nspec
    alpha = np.clip(c["spec_acceptance"], 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(alpha >= 1.0, q_tok, (1.0 - alpha ** q_tok) / np.maximum(1.0 - alpha, 1e-300))
    gain = np.where(nspec > 0, gain, 1.0)
    O_it = 1.0 + (O - 1.0) / gain
    any_spec = bool(np.any(nspec > 0))

    # ------------------------------------------------------------------ rates
    mm_rate = c["peak_flops"] * c["eff_matmul"] * c["infer_matmul"]
    mm16_rate = c["peak_flops_16"] * c["eff_matmul"] * c["infer_matmul"]
    # weight-only quantization (weights narrower than the GEMM inputs) widens the weights in the
    # GEMM's main loop, which caps its tensor work at dequant_matmul of the inputs' peak, except
    # where the tensor cores take FP4/FP6 weights with FP8 inputs as they are
    widen = (c["gemm_in_bytes"] > wb) & ~((c["mixed_fp8_native"] > 0) & (c["gemm_in_bytes"] <= 1.0))
    if np.any(widen):
        mm_rate = np.where(widen, np.minimum(mm_rate, c["peak_flops"] * c["dequant_matmul"]), mm_rate)
    # fused attention runs in FP8 when the KV cache is FP8 (TensorRT-LLM's FP8 context FMHA); its
    # softmax exponentials run on the special-function units beside the matmuls, P tensor FLOPs per
    # exponential (4d; 2(d_qk + d_v) for MLA) against R = peak / exp_rate the GPU does in the time
    # of one: the kernel takes (1 + (R/P)^2)^(1/2) of its tensor time (smooth maximum, as training)
    attn_peak = np.where(kvb <= 1.0, np.minimum(c["peak_flops"], 2.0 * c["peak_flops_16"]), c["peak_flops_16"])
    per_exp = attention_core_flops_per_key(c) / np.maximum(a, 1.0)
    attn_rate = attn_peak * c["infer_attention"] / softmax_exp_factor(per_exp, attn_peak, c["exp_rate"], 0.0, 1.0)
    # MLA decode is compute-bound (every head reads the one latent: ~2 a FLOPs per cached byte),
    # its own kernel; where it widens an FP8 cache to 16 bits (FlashMLA on Hopper) it runs at the
    # 16-bit peak
    dec_rate = attn_rate
    if any_mla:
        mla_peak = np.where(c["mla_decode_fp8"] <= 0, c["peak_flops_16"], attn_peak)
        dec_rate = np.where(mla, mla_peak * c["infer_mla_decode"], attn_rate)
    hbm = c["hbm_bw"] * c["infer_hbm"]
    k_half = c["matmul_k_half"]
    net = coll.Network(
        c["nvlink_bw"] * c["eff_nvlink"], c["scaleout_bw"] * c["eff_scaleout"],
        c["nvlink_latency"], c["scaleout_latency"], c["nvlink_domain"], c["rail_optimized"], c["nvlink_mesh"],
    )

    def gemm(M, K, N, ops=1.0, wbytes=wb, rate=mm_rate, xbytes=xb):
        """``ops`` GEMMs (M x K) @ (K x N): roofline of FLOPs (at a depth-dependent fraction of
        the rate) against the weights read once plus the activations in and out."""
        flops = 2.0 * M * K * N * ops
        rate_k = rate * K / (K + k_half)
        traffic = ops * (wbytes * K * N + xbytes * M * K + ab * M * N)
        return roof(flops / rate_k, traffic / hbm)

    # checkpoints that quantize only part of the model (quant_scope): 16-bit attention
    # projections, and 16-bit first and last layers, run as 16-bit GEMMs reading 16-bit weights
    w16 = np.maximum(wb, 2.0)
    x16 = np.maximum(xb, ab)
    attn16 = c["attn_16bit"] > 0
    wb_attn = np.where(attn16, w16, wb)
    xb_attn = np.where(attn16, x16, xb)
    rate_attn = np.where(attn16 & (wb < 2.0), mm16_rate, mm_rate)
    rate16 = np.where(wb < 2.0, mm16_rate, mm_rate)
    # layers of the fullest stage kept 16-bit: both ends on one stage, one on a pipeline's first
    n16 = np.minimum(np.where(c["end_layers_16bit"] > 0, np.where(p > 1, 1.0, 2.0), 0.0), L)
    u16 = n16 / L  # fraction of the stage's layers in 16 bits
    any_end16 = bool(np.any(n16 > 0))

    def layer_gemms(M, w_b, x_b, r, w_a, x_a, r_a):
        """One layer's GEMM times over M tokens: (qkv, out, dense FFN, MoE FFN, routed experts,
        routed down projection + shared experts), the linear weights at w_b bytes (attention
        projections at w_a), inputs at x_b (x_a), rates r (r_a)."""
        qkv = gemm(M, h, (a_loc + 2.0 * g_loc) * d, wbytes=w_a, rate=r_a, xbytes=x_a)
        out = gemm(M, a_loc * d, h, wbytes=w_a, rate=r_a, xbytes=x_a)
        if any_mla:  # absorbed or not, the up-projections' weights are read and applied per token
            qkv = np.where(mla, sum(gemm(M, K, N, wbytes=w_a, rate=r_a, xbytes=x_a) for K, N in mla_shapes[:3]), qkv)
            out = np.where(mla, gemm(M, *mla_shapes[3], wbytes=w_a, rate=r_a, xbytes=x_a), out)
        up = gemm(M, h, (mats - 1.0) * f_loc, wbytes=w_b, rate=r, xbytes=x_b)
        down = gemm(M, f_loc, h, wbytes=w_b, rate=r, xbytes=x_b)
        dense_ffn = up + down

        # MoE: experts touched by the iteration's (pooled) tokens, uniform routing
        Mp = M * pool
        hit = 1.0 - np.power(np.clip(1.0 - k / E, 0.0, 1.0), Mp)
        touched = np.maximum(E_loc * hit, 1e-9)
        Me = Mp * k / np.maximum(E * hit, 1e-9) * imb
        experts_down = gemm(Me, fe_loc, h, touched, wbytes=w_b, rate=r, xbytes=x_b)
        experts = gemm(Me, h, (mats - 1.0) * fe_loc, touched, wbytes=w_b, rate=r, xbytes=x_b) + experts_down
        router = gemm(M, h, E, wbytes=ab, rate=mm16_rate)
        shared = S * (gemm(M, h, (mats - 1.0) * fe / t, wbytes=w_b, rate=r, xbytes=x_b)
                      + gemm(M, fe / t, h, wbytes=w_b, rate=r, xbytes=x_b))
        moe_ffn = np.where(is_moe, experts + router + shared, 0.0)
        return qkv, out, dense_ffn, moe_ffn, experts, experts_down + shared

    disp_b = np.where(c["dispatch_bytes"] > 0, c["dispatch_bytes"], ab)
    dedup = c["moe_dedup"] > 0
    any_dedup = bool(np.any(dedup & is_moe))
    tbo = (c["tbo"] > 0) & is_moe & (ep > t)
    any_tbo = bool(np.any(tbo))
    # single-batch overlap: each MoE layer's combine streams out under the routed experts' down
    # GEMM and the shared experts (SGLang's --enable-single-batch-overlap); two-batch overlap wins
    sbo = (c["sbo"] > 0) & is_moe & (ep > t) & ~tbo
    any_sbo = bool(np.any(sbo))
    hidden_share = 1.0 - np.clip(c["overlap_slowdown"], 0.0, 1.0)  # a hidden exchange still slows its cover

    def exchange(M, nbytes):
        """One expert all-to-all of M tokens per replica, ``nbytes`` an element, s: the busiest
        rank receives ``imb`` times the mean, and the exchange waits for it; plus the fixed time
        of a collective call (``collective_overhead``: launch and cross-GPU synchronisation, as
        each tensor-parallel all-reduce pays it)."""
        one = coll.all_to_all_time(M * k * h * nbytes / t, ep, 1.0, net)
        if any_dedup:
            one = np.where(dedup, coll.dedup_dispatch_time(M * h * nbytes / t, k, ep, 1.0, net,
                                                           c["expert_groups"], c["top_groups"]), one)
        return imb * one + c["collective_overhead"]

    # ------------------------------------------------------------------ one pipeline stage
    def stage(n_dec, n_pre, n_out, pre_attn_flops, ctx, spec=True, halves=True):
        """Time of one stage over one microbatch iteration, and its parts.

        n_dec decoding sequences (each attends to ``ctx`` cached tokens), n_pre prompt tokens
        whose causal attention costs ``pre_attn_flops`` per layer (whole model, divided by t
        here), n_out sequences emitting through the LM head. With speculative decoding (``spec``)
        every decoding sequence runs 1 + k tokens through the target and k draft steps
        before. Returns a dict of arrays (:func:`pipelined` makes p of them one iteration).
        """
        q = q_tok if (spec and any_spec) else 1.0
        M = q * n_dec + n_pre
        qkv, out, dense_ffn, moe_ffn, routed_ffn, cover = layer_gemms(M, wb, xb, mm_rate, wb_attn, xb_attn, rate_attn)
        if any_end16:  # the stage's 16-bit end layers, averaged in per layer
            ends = layer_gemms(M, w16, x16, rate16, w16, x16, rate16)
            qkv, out, dense_ffn, moe_ffn, routed_ffn, cover = (
                (1.0 - u16) * mine + u16 * end
                for mine, end in zip((qkv, out, dense_ffn, moe_ffn, routed_ffn, cover), ends))
        proj = qkv + out

        # attention: decode reads the KV cache, prefill is causal FLOPs
        kv_read = n_dec * ctx * kv_elems * kvb  # once per sequence, for all its query tokens
        dec_attn = roof(kv_read / hbm, q * n_dec * ctx * dec_flops_key / dec_rate)
        pre_attn = pre_attn_flops / t / attn_rate
        attn = dec_attn + pre_attn

        # elementwise traffic, KV writes
        kv_write = M * kv_elems * kvb
        elem_dense = ELEM_PASSES * M * h * ab + mats * M * f_loc * ab + kv_write
        routed = M * k * pool / ep * imb  # routed token copies this GPU processes
        elem_moe = (ELEM_PASSES * M * h * ab + mats * routed * fe_loc * ab + 4.0 * routed * h * ab
                    + S * mats * M * fe / t * ab + kv_write)
        elem = (dense_frac * elem_dense + moe_frac * elem_moe) / hbm

        # communication per layer: 2 TP all-reduces; EP beyond the TP group: 2 all-to-alls, each
        # of a replica's t ranks dispatching its 1/t share of the replica's M tokens (they hold
        # the same tokens after the attention's all-reduce)
        call = np.where(t > 1, c["collective_overhead"], 0.0)
        tp_comm = 2.0 * (coll.allreduce_time(M * h * ab, t, 1.0, net) + call)
        # the dispatch at dispatch_bytes an element (tokens quantized before it), the combine at
        # act bytes; DeepEP-style (moe_dedup) a token crosses once per destination NVLink domain
        # and moves once per destination GPU, else once per routed copy
        combine = exchange(M, ab)
        if any_sbo:  # the combine under the down GEMM and shared experts: what they cover is hidden
            combine = np.where(sbo, combine - np.minimum(combine, cover) * hidden_share, combine)
        ep_comm = np.where(is_moe & (ep > t), exchange(M, disp_b) + combine, 0.0)

        gemms = L * (dense_frac * (proj + dense_ffn) + moe_frac * (proj + moe_ffn))
        attn_t = L * attn
        elem_t = L * elem
        tp_t = L * tp_comm
        ep_t = L * moe_frac * ep_comm

        # LM head (16-bit) on the output tokens, fp32 logits written, read, gathered over TP
        n_logit = n_out + (q - 1.0) * n_dec  # a verifying sequence scores every drafted position
        head = gemm(n_logit, h, V / t, wbytes=hb, rate=mm16_rate)
        logits = n_logit * V * LOGIT_BYTES
        head = head + LOGIT_PASSES * logits / hbm + coll.allgather_time(logits, t, 1.0, net)

        p2p = np.where(p > 1, coll.p2p_time(M * h * ab, t * p <= c["nvlink_domain"], net), 0.0)
        overhead = c["step_overhead"] + c["seq_overhead"] * n_out
        compute = gemms + attn_t + elem_t + head + overhead
        total = compute + tp_t + ep_t + p2p
        parts = {"total": total, "compute": compute, "gemm": gemms, "attention": attn_t,
                 "other": elem_t + head + overhead, "tp": tp_t, "ep": ep_t, "pp": p2p,
                 # the same terms split per op (they add up to ``total``), for dse.trace
                 "qkv": L * qkv, "out": L * out, "ffn": L * (dense_frac * dense_ffn + moe_frac * moe_ffn),
                 "attn_dec": L * dec_attn, "attn_pre": L * pre_attn, "elem": elem_t, "head": head,
                 "overhead": overhead, "adp_wait": 0.0 * total,
                 # the MoE layers' work besides their expert exchanges (what two-batch overlap hides them under)
                 "moe_work": L * moe_frac * (proj + moe_ffn + attn + elem_moe / hbm + tp_comm)}
        if any_adp:  # what the pooled replicas run together: the routed experts, their all-to-alls
            parts["pooled"] = L * moe_frac * np.where(is_moe, routed_ffn, 0.0) + ep_t
        if spec and any_spec:
            # k draft steps before the verification, one token per decoding sequence each:
            # draft_layers layers of the target's shape and the LM head (counted in the ops they
            # are: GEMMs, KV reads, elementwise, collectives, head); none without decodes
            one = stage(n_dec, 0.0, n_dec, 0.0, ctx, spec=False, halves=False)  # within this stage's batch
            per_layer = np.where(n_dec > 0, nspec * c["draft_layers"] / L, 0.0)
            heads = np.where(n_dec > 0, nspec, 0.0)
            for op in ("qkv", "out", "ffn", "attn_dec", "elem", "tp", "ep", "gemm", "attention", "pooled", "moe_work"):
                if op in parts:
                    parts[op] = parts[op] + per_layer * one[op]
            parts["head"] = parts["head"] + heads * one["head"]
            extra_compute = per_layer * (one["gemm"] + one["attention"] + one["elem"]) + heads * one["head"]
            parts["other"] = parts["other"] + per_layer * one["elem"] + heads * one["head"]
            parts["compute"] = parts["compute"] + extra_compute
            parts["total"] = parts["total"] + extra_compute + per_layer * (one["tp"] + one["ep"])
        if any_tbo and halves:
            # two-batch overlap: the tokens in two micro-batches, each MoE layer's expert exchanges
            # of one under the other's work, so a MoE layer takes the longer of the two halves'
            # work and the two halves' exchanges; the weights are read once per half, the LM
            # head and the engine overhead run once
            half = stage(0.5 * n_dec, 0.5 * n_pre, 0.5 * n_out, 0.5 * pre_attn_flops, ctx, spec, halves=False)
            once, half_once = parts["head"] + parts["overhead"], half["head"] + half["overhead"]
            # a hidden exchange still slows the work it runs under (its kernels take SMs and HBM
            # bandwidth): overlap_slowdown of its time, as in training
            hidden = 2.0 * np.minimum(half["moe_work"], half["ep"]) * hidden_share
            out = {key: np.where(tbo, 2.0 * half[key], parts[key]) for key in parts}
            for key in ("head", "overhead"):
                out[key] = parts[key]
            for key in ("other", "compute"):
                out[key] = np.where(tbo, 2.0 * (half[key] - half_once) + once, parts[key])
            out["ep"] = np.where(tbo, 2.0 * half["ep"] - hidden, parts["ep"])  # what stays exposed
            if "pooled" in out:  # what the pooled replicas run together: their exposed exchanges
                out["pooled"] = np.where(tbo, 2.0 * half["pooled"] - hidden, parts["pooled"])
            out["total"] = np.where(tbo, 2.0 * (half["total"] - half_once) + once - hidden, parts["total"])
            return out
        return parts

    def pipelined(parts, m):
        """``parts`` of a stage whose p copies make one iteration of m microbatches in flight:
        the period is the longer of one microbatch's trip through the p stages (the LM head and
        the engine overhead once) and the last stage's m passes (each with its head), so the
        head and overhead keep a share g of each stage's in [1/p, 1] (1 once m = p)."""
        if np.all(p <= 1):
            return parts
        ho = parts["head"] + parts["overhead"]
        layers = parts["total"] - ho
        period = np.maximum(p * layers + ho, m * parts["total"])
        # exactly 1 with a full pipeline (and one stage): those rows keep their bits
        g = np.where((m < p) & (ho > 0), np.clip((period - p * layers) / np.maximum(p * ho, 1e-300), 0.0, 1.0), 1.0)
        cut = (1.0 - g) * ho  # per stage
        out = dict(parts)
        trip = g < 1.0
        out["head"] = np.where(trip, parts["head"] * g, parts["head"])
        out["overhead"] = np.where(trip, parts["overhead"] * g, parts["overhead"])
        for key in ("other", "compute", "total"):
            out[key] = np.where(trip, parts[key] - cut, parts[key])
        return out

    # ------------------------------------------------------------------ memory per GPU
    attn_w = h * (a_loc + 2.0 * g_loc) * d + a_loc * d * h
    if any_mla:
        attn_w = np.where(mla, sum(K * N for K, N in mla_shapes), attn_w)

    def layer_weights(w_b, w_a):
        """Bytes of one dense and one MoE layer, linear weights at w_b (attention at w_a)."""
        w_dense = w_a * attn_w + w_b * mats * h * f_loc + 2.0 * h * ab
        w_moe = (w_a * attn_w + w_b * (E_loc * mats * h * fe_loc + S * mats * h * fe / t)
                 + ab * (h * c["experts"] + 2.0 * h))
        return dense_frac * w_dense + moe_frac * w_moe

    emb = hb * V * h / t
    # speculative decoding: the draft's layers (draft_layers of the target's shape) hold their
    # weights and their own KV cache, counted on the fullest stage (the memory it reports)
    n_draft = np.where(nspec > 0, c["draft_layers"], 0.0)
    weights = ((L - n16 + n_draft) * layer_weights(wb, wb_attn) + n16 * layer_weights(w16, w16)
               + emb * np.where(p > 1, 1.0, 2.0 - c["tied_embeddings"]))
    kv_tok = (L + n_draft) * kv_elems * kvb  # KV bytes per token per GPU
    blk = np.maximum(c["kv_block"], 1.0)
    reserve = np.ceil((I + c["kv_reserve_output"] * O_held) / blk) * blk
    # windowed layers keep only their window's tokens (a cyclic or window-evicted cache)
    win = c["attn_window"]
    win_frac = np.where((win > 0) & (scope >= 2.0), c["window_fraction"], 0.0)
    win_reserve = np.minimum(reserve, np.ceil(win / blk - 1e-9) * blk)
    kv_seq = ((1.0 - win_frac) * reserve + win_frac * win_reserve) * kv_tok
    # one prompt's KV on this GPU, what a disaggregated prefill instance ships per request (the
    # target's layers; windowed layers keep their window's tokens)
    kv_prompt = ((1.0 - win_frac) * I + win_frac * np.minimum(I, np.maximum(win, 1.0))) * L * kv_elems * kvb
    decode_only = c["phase"] == 2.0
    prefill_only = c["phase"] == 1.0
    C_pre = np.maximum(c["max_num_tokens"], 1.0)  # a prefill instance's prompt tokens per iteration
    # iteration tokens per sequence in flight (a decode instance: one per sequence)
    tok_ratio = np.where(decode_only, q_tok, q_tok + I / O_it)
    # output tokens a sequence emits per iteration, on average over its life in the engine
    emit = np.where(decode_only, gain, O / O_it)
    # the routed copies' FFN activations per token of the replica: an all-gather dispatch (every
    # rank's tokens on every rank, TensorRT-LLM's attention-DP path) sizes them for the pool's
    # tokens, a DeepEP-style one for the copies the GPU receives (k pool / ep per token)
    routed_per_token = np.where(dedup, np.minimum(k * pool / np.maximum(ep, 1.0) * imb, k * pool), k * pool)
    ffn_max = np.maximum(f_loc, np.where(is_moe, np.maximum(routed_per_token * fe_loc, fe_loc), 0.0))
    ws_tok = ab * (4.0 * h + (a_loc + 2.0 * g_loc) * d + mats * ffn_max)  # activations per token
    ws_seq = V * LOGIT_BYTES  # fp32 logits per output token (gathered, full vocabulary)
    reserved = c["memory_reserved"]
    kv_frac = np.clip(c["kv_mem_fraction"], 1e-6, 1.0)
    maxtok = np.maximum(c["max_num_tokens"], 1.0)

    # the KV cache's room: kv_frac of what weights, workspace and reserve leave (TensorRT-LLM), or
    # a fraction of the whole memory less all of those (vLLM: mem_utilization), where the engine
    # sized its activations by a profiling pass over its token budget at start-up: the budget it
    # was given, or (none given) the one its batch needs, at least min_num_tokens
    util = np.clip(c["mem_utilization"], 0.0, 1.0)
    by_total = util > 0
    margin = np.where(by_total, (1.0 - util) * c["hbm_bytes"], 0.0)
    # SGLang's static pool: the fraction holds the weights and the KV pool; the workspace
    # (activations, CUDA graphs) takes its memory from the rest
    static = by_total & (c["mem_static"] > 0)
    hi_tok = np.maximum(maxtok, I)  # tokens of the largest iteration (a whole prompt at least)
    lo_tok = np.where(by_total, np.minimum(c["min_num_tokens"], hi_tok), 0.0)

    def workspace(b):
        return np.clip(b * tok_ratio, lo_tok, hi_tok) * ws_tok + b * ws_seq

    # largest batch whose KV fits in the engine's share of free memory: the workspace is
    # piecewise linear in the batch (flat at lo_tok, rising, flat at hi_tok), so the batch is
    # the least of the flat-low solution and the larger of the rising and flat-high ones
    free0 = c["hbm_bytes"] - weights - reserved

    def kv_room(free, ws):
        return np.where(by_total, free - margin + np.where(static, ws, 0.0), kv_frac * free)

    room0 = np.where(by_total, free0 - margin, kv_frac * free0)
    ws_frac = np.where(static, 0.0, np.where(by_total, 1.0, kv_frac))  # the workspace's share of the room
    per_seq = kv_seq + ws_frac * ws_seq / p
    b_mem = np.minimum((room0 - ws_frac * lo_tok * ws_tok) / per_seq,
                       np.maximum(room0 / (per_seq + ws_frac * tok_ratio * ws_tok / p),
                                  (room0 - ws_frac * hi_tok * ws_tok) / per_seq))
    b_mem = np.floor(np.maximum(b_mem, 0.0))
    b_tok = np.floor(p * maxtok / tok_ratio)
    cap = np.minimum(np.minimum(b_mem, b_tok), np.maximum(c["max_batch"], 1.0))
    # clients spread over the replicas: conc / dp sequences in flight per replica on average
    # (below one, a replica idles part of the time and runs one sequence when busy)
    conc = c["concurrency"] / dp
    cap = np.where(conc > 0, np.minimum(cap, conc), cap)

    # ------------------------------------------------------------------ candidate batches
    fixed = c["batch"] > 0
    cand = np.empty((n, BATCH_GRID.size + 1))
    cand[:, :-1] = BATCH_GRID
    cand[:, -1:] = np.maximum(cap, 1.0)
    cand = np.where(fixed, c["batch"], cand)
    ok = fixed | (cand <= np.maximum(cap, 1.0))

    def iteration(B, seen_too=False):
        """The mean iteration of a full engine at batch B (per microbatch stage): decode tokens
        every iteration, prompts in chunks of the token budget left by them, in a fraction phi
        of the iterations. Returns (mean stage time parts, chunk-iteration parts, chunk, b,
        prompt load: the prompt tokens admitted an iteration over the room the decodes leave,
        phi)."""
        m = np.minimum(p, B)
        b = B / m
        # a decode instance: every sequence decodes every iteration, no prompt comes in
        n_dec = np.where(decode_only, b, b * (O_it - 1.0) / O_it)
        n_pre = np.where(decode_only, 0.0, b * I / O_it)
        dec_tok = q_tok * n_dec  # decode tokens (with their drafts)
        budget = np.clip(dec_tok + n_pre, c["min_num_tokens"], np.maximum(c["max_num_tokens"], dec_tok + n_pre))
        room = np.maximum(budget - dec_tok, 1.0)  # prompt tokens the decodes leave an iteration
        # prompt tokens of an iteration that takes some: the prompts admitted since the last one
        # (n_pre a iteration on average, at least one whole prompt), chunked at the room left
        chunk = np.minimum(room, np.maximum(I, n_pre))
        phi = np.clip(n_pre / chunk, 0.0, 1.0)
        mix = pipelined(stage(n_dec, chunk, b, chunk * keys_pre * core_key, keys_dec), m)
        dec = pipelined(stage(n_dec, 0.0, b, 0.0, keys_dec), m)
        mean = {key: phi * mix[key] + (1.0 - phi) * dec[key] for key in mix}
        # what one decoding sequence sees between its tokens: the prompts of the B - 1 others in
        # the replica only (its own went in before its first token; over a pipeline's m slots),
        # in a fraction n_pre (B - 1)/B / chunk of the slots, and its own decode token in every
        # one of its iterations (n_dec counts a sequence's decode share, (O - 1)/O of one)
        seen = None
        if seen_too:
            phi_seen = np.clip(n_pre * np.clip((B - 1.0) / B, 0.0, 1.0) / chunk, 0.0, 1.0)
            n_seen = np.where(decode_only, n_dec, n_dec + 1.0 / (np.maximum(m, 1.0) * O_it))
            mix_seen = pipelined(stage(n_seen, chunk, b, chunk * keys_pre * core_key, keys_dec), m)
            dec_seen = pipelined(stage(n_seen, 0.0, b, 0.0, keys_dec), m)
            seen = {key: phi_seen * mix_seen[key] + (1.0 - phi_seen) * dec_seen[key] for key in mix_seen}
        # attention data parallelism (experts pooled over R replicas): every MoE layer's dispatch
        # waits for the slowest rank, so a replica's own work (attention, projections, dense and
        # shared parts) takes a prompt chunk's time whenever ANY of the R ranks runs one, with
        # probability 1 - (1 - phi)^R, not in a fraction phi of the iterations; the ranks that
        # run none wait in the all-to-all. An engine that schedules prompts on every rank in the
        # same iterations (adp_balance) keeps phi.
        # the other ranks run prompts only while they hold requests: of the B x pool requests in
        # the expert group, B pool - 1 are the others', over pool - 1 ranks (fewer clients than
        # ranks leave most of them idle; one client leaves them all idle)
        others_held = np.maximum(B * pool - 1.0, 0.0) / np.maximum(pool - 1.0, 1.0)
        phi_other = phi * np.minimum(others_held, 1.0)
        if any_adp:
            p_any = np.where(adp_free, 1.0 - (1.0 - phi) * (1.0 - phi_other) ** (pool - 1.0), phi)
            wait = np.maximum(p_any - phi, 0.0) * np.maximum((mix["total"] - mix["pooled"]) - (dec["total"] - dec["pooled"]), 0.0)
            mean["total"] = mean["total"] + wait
            mean["adp_wait"] = mean["adp_wait"] + wait
        if any_adp and seen_too:
            p_seen = np.where(adp_free, 1.0 - (1.0 - phi_seen) * (1.0 - phi_other) ** (pool - 1.0), phi_seen)
            wait_seen = np.maximum(p_seen - phi_seen, 0.0) * np.maximum(
                (mix_seen["total"] - mix_seen["pooled"]) - (dec_seen["total"] - dec_seen["pooled"]), 0.0)
            seen["total"] = seen["total"] + wait_seen
            seen["adp_wait"] = seen["adp_wait"] + wait_seen
        return mean, mix, chunk, b, n_pre / room, phi, seen

    # a closed loop of clients over a finite run (concurrency and num_requests): the first
    # min(clients, requests) prompts arrive together at its start, the rest as earlier ones finish
    n_req = c["num_requests"] / dp  # requests a replica serves
    closed = (c["concurrency"] > 0) & (n_req > 0) & (c["request_rate"] <= 0) & ~decode_only & ~prefill_only
    waves = np.maximum(c["num_requests"] / np.maximum(c["concurrency"], 1.0), 1.0)  # requests a client sends

    def first_wave_ttft(B_run):
        """Mean time to first token of the prompts that open a closed-loop run (s): N of them
        (the clients a replica runs, at most its share of the requests) arrive together at an
        idle engine, which takes them first come first served in chunks of the token budget
        the decodes of the prompts already served leave (half the wave's, on average, as they
        join); prompt j's first token comes after (j + 1) I / chunk iterations, (N + 1) I / (2
        chunk) on average (:func:`first_wave_iterations`)."""
        N = np.maximum(np.minimum(B_run, n_req), 1.0)
        n_dec = 0.5 * (N - 1.0)
        room = np.maximum(maxtok - q_tok * n_dec, 1.0)
        chunk = np.minimum(room, N * I)  # the wave's prompt tokens of one iteration
        k_mean = first_wave_iterations(N, I / chunk)
        m = np.minimum(p, N)
        wave = pipelined(stage(n_dec, chunk, n_dec + np.minimum(chunk / I, N), chunk * keys_pre * core_key,
                               keys_dec), m)
        return k_mean * p * wave["total"]

    def lockstep_ttft(C):
        """Mean time to first token (s) of a closed loop of ``C`` clients a replica whose requests
        all have one output length, and the prompts per group (see "Lockstep" in the module
        docstring): groups of n_g = room / I prompts (the prompts one iteration's token budget
        takes, at least one, at most C) arrive together, each while the previous group's prefill
        iteration runs (the first group of a cycle meets a decode iteration; a single group, an
        idle engine), and go in together alongside the other C - n_g sequences' decodes."""
        n0 = np.clip(maxtok / I, 1.0, C)
        room = np.maximum(maxtok - q_tok * (C - n0), 1.0)  # prompt tokens the others' decodes leave
        n_g = np.clip(room / I, 1.0, C)
        n_d = C - n_g  # the other groups' sequences, decoding
        pre = np.minimum(room, n_g * I)  # prompt tokens of each of the group's iterations
        m = np.minimum(p, np.maximum(C, 1.0))
        mix_g = pipelined(stage(n_d / m, pre, n_d / m + pre / I, pre * keys_pre * core_key, keys_dec), m)
        dec_g = pipelined(stage(n_d / m, 0.0, n_d / m, 0.0, keys_dec), m)
        groups = C / n_g
        single = n_g >= C
        wait = np.where(single, 0.0, ((groups - 1.0) * mix_g["total"] + dec_g["total"]) / groups)
        # iterations of the group's prompt tokens: the last one partial for a single group, full
        # (the next group's prompts fill it) when others follow
        x = n_g * I / pre
        k = np.ceil(x - 1e-9)
        own = np.where(single, x * mix_g["total"] + (k - x) * dec_g["total"], k * mix_g["total"])
        return p * (wait + own), n_g

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s_c = iteration(cand)[0]
        thr = cand * emit / (p * s_c["total"])
        thr = np.where(ok & np.isfinite(thr), thr, -1.0)
        # the largest batch within a hair of the best throughput: an engine fills its KV cache
        near = thr >= np.max(thr, axis=1, keepdims=True) * (1.0 - TIE)
        best = np.argmax(np.where(near, cand, -1.0), axis=1)[:, None]
        B = np.take_along_axis(cand, best, axis=1)
        B = np.where(conc > 0, np.minimum(B, conc), B)  # fewer clients than replicas

        # online: an offered rate r per replica keeps B = r * O_it * t_iter(B) sequences in flight
        # (Little's law; a request stays O_it iterations, O without drafts). lambda(B) =
        # B / (O_it t_iter(B)) grows with B,
        # so bisect for lambda(B) = r between one sequence and the capacity batch; below one
        # sequence the engine idles between requests (B = 1 sets the latencies).
        rate = c["request_rate"] / dp
        online = (rate > 0) & ~fixed
        saturated = np.zeros_like(online)
        if np.any(online):
            cap_total = np.take_along_axis(np.broadcast_to(s_c["total"], cand.shape), best, axis=1)
            saturated = online & (rate * O_it * p * cap_total > B * (1.0 + 1e-9))
            lo, hi = np.ones_like(B), np.maximum(B, 1.0)
            for _ in range(RATE_STEPS):
                mid = np.sqrt(lo * hi)
                s_mid = iteration(mid)[0]
                short = mid < rate * O_it * p * s_mid["total"]  # serves less than r: needs more in flight
                lo, hi = np.where(short, mid, lo), np.where(short, hi, mid)
            B = np.where(online & ~saturated, hi, B)

        # a fixed batch above what the token budget runs: the engine holds B sequences, but an
        # iteration carries at most max_num_tokens tokens, so only B_dec of them decode (with
        # their share of prompt tokens); the rest wait for room, which lengthens their TTFT
        B_dec = np.where(fixed & ~prefill_only, np.minimum(B, np.maximum(b_tok, 1.0)), B)
        s, mix, chunk, b, load, phi, seen = iteration(B_dec, seen_too=True)
        itl = p * s["total"]  # the mean iteration (throughput); a sequence's own tokens see `seen`
        seen_share = seen["total"] / np.maximum(s["total"], 1e-300)
        others = np.clip((b - 1.0) / b, 0.0, 1.0)  # the sequences a prompt shares the engine with
        m_dec = np.minimum(p, B_dec)
        dec_s = pipelined(stage(b, 0.0, b, 0.0, keys_dec), m_dec)
        chunks = np.ceil(I / chunk - 1e-9)  # iterations a prompt's chunks take
        ttft = chunks * p * mix["total"]
        if np.any(online):
            # online: an arriving prompt waits for the running iteration (half of one on average)
            # and then goes in whole (chunked only beyond the token budget left by the decodes),
            # alongside the decodes of the sequences it finds in flight, not in the full engine's
            # steady-state chunks. Arrivals see the time average (Poisson arrivals): B_L = r O_it
            # t_iter in flight by Little's law, which the batch B solves above one sequence and
            # which goes to 0 with the rate (B stops at one: no decode of its own to meet)
            B_L = rate * O_it * p * s["total"]
            b_met = b * np.clip(B_L / np.maximum(B_dec, 1e-30), 0.0, 1.0)
            n_dec = b_met * (O_it - 1.0) / O_it
            c_on = np.clip(c["max_num_tokens"] - q_tok * n_dec, 1.0, I)
            pre_on = pipelined(stage(n_dec, c_on, n_dec + 1.0, c_on * keys_pre * core_key, keys_dec), m_dec)
            # the running iteration is there only while a request is in flight: with B_L requests
            # in flight on average (Little's law) the engine is busy 1 - exp(-B_L) of the time
            busy = 1.0 - np.exp(-B_L)
            ttft_on = busy * 0.5 * s["total"] + np.ceil(I / c_on - 1e-9) * p * pre_on["total"]
            ttft = np.where(online & ~saturated, ttft_on, ttft)
        # clients (a concurrency or an offered rate): prompts that arrive while others are being
        # prefilled share the prompt room of each iteration; as a processor-sharing queue whose
        # load is the other sequences' prompt demand over that room, rho = n_pre / room (b - 1)/b,
        # the first token takes 1 / (1 - rho) times the prompt's own prefill (rho capped at 0.9;
        # a lone client shares with nobody; a full offline engine's first-token time is its queue
        # of waiting requests, which is not modelled)
        clients = ((c["concurrency"] > 0) | online) & ~saturated
        ttft = np.where(clients, ttft / (1.0 - np.clip(load * others, 0.0, 0.9)), ttft)
        # a closed loop of requests of one output length stays in lockstep (see "Lockstep" in the
        # module docstring): its prompts arrive in groups that were prefilled together
        lock = (c["concurrency"] > 0) & ~online & ~decode_only & ~prefill_only & (c["output_len_cv"] * O < 0.5)
        group = 0.0 * ttft  # prompts that arrive together (0: arrivals spread over time)
        if np.any(lock):
            ttft_lock, n_g = lockstep_ttft(np.minimum(np.maximum(conc, 1.0), np.maximum(B_dec, 1.0)))
            ttft = np.where(lock, ttft_lock, ttft)
            group = np.where(lock, n_g, 0.0)
        # a lone prompt on an idle engine goes in chunks of the whole token budget (no decodes
        # share it), as the online TTFT's prompt does when the engine is empty
        solo = np.minimum(C_pre, I)
        prefill = np.ceil(I / solo) * p * pipelined(stage(0.0, solo, 1.0, solo * keys_pre * core_key, I), 1.0)["total"]
        # a decode instance: a request's first token came from the prefill instance; its first
        # decode token waits one iteration
        ttft = np.where(decode_only, itl, ttft)
        # Little's law: B in flight served B_dec at a time stay B / B_dec times as long as O_it
        # iterations; the difference is spent waiting before the first token. Clients beyond the
        # batch the engine runs (memory, max_batch) hold a request too: it waits for a slot
        held = np.where((c["concurrency"] > 0) & ~online, np.maximum(B, conc), B)
        queue = np.where(decode_only, 0.0, np.maximum(held / np.maximum(B_dec, 1e-30) - 1.0, 0.0) * O_it * itl)
        ttft = ttft + queue
        opening = 0.0 * ttft  # the mean TTFT a closed loop's opening wave adds (s)
        if np.any(closed):
            opening = np.where(closed, np.maximum(first_wave_ttft(B_dec) - ttft, 0.0) / waves, 0.0)
            ttft = ttft + opening
        if np.any(prefill_only):
            # a prefill instance: iterations of max_num_tokens prompt tokens (whole prompts, a longer
            # prompt chunked), p microbatches in the pipeline; each prompt emits its first token
            pre_s = stage(0.0, C_pre, C_pre / I, C_pre * keys_pre * core_key, I)
            pre_t = pre_s["total"]
            B = np.where(prefill_only, C_pre / I, B)  # prompts per microbatch
            b = np.where(prefill_only, C_pre / I, b)
            itl = np.where(prefill_only, p * pre_t, itl)
            ttft = np.where(prefill_only, np.ceil(I / C_pre - 1e-9) * p * pre_t, ttft)
            s = {key: np.where(prefill_only, pre_s[key], s[key]) for key in s}
            seen = {key: np.where(prefill_only, pre_s[key], seen[key]) for key in seen}
            mix = {key: np.where(prefill_only, pre_s[key], mix[key]) for key in mix}
            chunk = np.where(prefill_only, np.minimum(C_pre, I), chunk)

    # ------------------------------------------------------------------ memory at the batch
    kv_cache = B * kv_seq
    ws = workspace(b)
    if np.any(prefill_only):  # the prompts of the p microbatches in flight, until shipped out
        kv_cache = np.where(prefill_only, p * C_pre * kv_tok, kv_cache)
        ws = np.where(prefill_only, C_pre * ws_tok + C_pre / I * ws_seq, ws)
    free = c["hbm_bytes"] - weights - reserved - ws
    headroom = np.maximum(np.where(by_total, margin - np.where(static, ws, 0.0), (1.0 - kv_frac) * free), 0.0)
    memory = weights + ws + reserved + kv_cache + headroom

    # ------------------------------------------------------------------ feasibility
    mask = np.zeros((n, 1), dtype=np.int64)

    def flag(cond, bit):
        nonlocal mask
        mask = mask | np.where(cond, bit, 0)

    flag(t * p * dp * cp != c["num_gpus"], DEGREES_PRODUCT)
    flag(np.mod(a, t) != 0, HEADS_TP)
    flag(~kv_heads_fit(g, t), KV_HEADS_TP)
    flag(layers < p, LAYERS_PP)
    ep_nests = np.mod(np.maximum(t, ep), np.minimum(t, ep)) == 0  # ep divides tp or tp divides ep
    flag(is_moe & ((np.mod(c["experts"], ep) != 0) | (np.mod(t * dp, ep) != 0) | ~ep_nests), EXPERTS_EP)
    flag((np.mod(f, t) != 0) | (is_moe & (np.mod(fe, etp) != 0)), FFN_TP)
    flag(~is_moe & (ep > 1), EP_DENSE)
    flag(cp > 1, CONTEXT_PARALLEL)
    flag(kv_cache > kv_room(free, ws) * (1.0 + 1e-9) + 0.5, OUT_OF_MEMORY)
    flag(static & (ws > margin * (1.0 + 1e-9) + 0.5), OUT_OF_MEMORY)  # SGLang: the workspace outside the pool
    flag(saturated, RATE_EXCEEDS)
    flag((c["context_len"] > 0) & (I + O > c["context_len"]), CONTEXT_EXCEEDED)
    flag((c["batch"] > 0) & (c["batch"] > np.maximum(c["max_batch"], 1.0)), BATCH_ABOVE_MAX)

    # ------------------------------------------------------------------ metrics
    n_gpus = c["num_gpus"]
    tokens_s = np.where(online & ~saturated, c["request_rate"] * O + 0.0 * itl, dp * B_dec * emit / itl)
    # a prefill instance completes B prompts per stage time, one output (first) token each
    tokens_s = np.where(prefill_only, dp * B / (itl / p), tokens_s)
    requests_s = np.where(prefill_only, tokens_s, tokens_s / O)
    per_gpu = tokens_s / n_gpus
    # model FLOPs per request: linear layers over I + O tokens, LM head on O, attention
    attn_w_full = h * (a + 2.0 * g) * d + a * d * h
    if any_mla:
        attn_w_full = np.where(mla, sum(K * N for K, N in mla_projection_shapes(c, a)), attn_w_full)
    active = layers * (dense_frac * (attn_w_full + mats * h * f)
                       + moe_frac * (attn_w_full + (k + S) * mats * h * fe + h * c["experts"]))
    req_flops = (2.0 * active * (I + O - 1.0) + 2.0 * h * V * O  # the last token is not fed back
                 + layers * (I * keys_pre * core_key + (O - 1.0) * keys_dec * dec_flops_key * t))
    tflops = per_gpu * req_flops / O / 1e12
    head_flops = 2.0 * h * V
    token_flops = 2.0 * active + head_flops + layers * keys_dec * dec_flops_key * t  # one decode token
    prompt_flops = 2.0 * active * I + head_flops + layers * I * keys_pre * core_key  # one prompt
    tflops = np.where(decode_only, per_gpu * token_flops / 1e12,
                      np.where(prefill_only, requests_s / n_gpus * prompt_flops / 1e12, tflops))
    total_params = layers * (dense_frac * (attn_w_full + mats * h * f)
                             + moe_frac * (attn_w_full + c["experts"] * mats * h * fe + S * mats * h * fe
                                           + h * c["experts"])) + V * h * (2.0 - c["tied_embeddings"])
    active_params = active + V * h * (2.0 - c["tied_embeddings"])
    zero = 0.0 * itl
    # average board power per second of serving: an iteration keeps the GPU busy for its compute
    # less the engine's host-side time; below capacity (an offered rate the batch of one over-
    # serves) the engine idles between iterations a fraction 1 - duty of the time. Of the busy
    # time the FLOPs at the achieved GEMM rate are tensor time, the rest memory-bound (weight and
    # KV-cache streaming, elementwise), as are the collectives (they move data); host time idles
    duty = np.clip(tokens_s / np.maximum(dp * B_dec * emit / itl, 1e-30), 0.0, 1.0)
    duty = np.where(prefill_only, 1.0, duty)
    per_s = duty * p / np.maximum(itl, 1e-30)  # stage iterations a GPU runs per second
    tensor_s, memory_s = power.busy_split(tflops * 1e12, c["peak_flops"] * c["eff_matmul"] * c["infer_matmul"],
                                          per_s * np.maximum(s["compute"] - s["overhead"], 0.0))
    comm_s = per_s * (s["tp"] + s["ep"] + s["pp"])
    # of the rest, HBM paces at most the streaming of the stage's weights (each of its passes)
    # and of its KV cache (once an iteration); the others (GEMMs and attention below the GEMM
    # rate) draw the datasheet's memory share whatever a what-if does to the bandwidth
    hbm_paced = np.minimum(per_s * (weights + kv_cache / np.maximum(p, 1.0)) / hbm, memory_s)
    watts, stretch = power.step_power(c, tensor_s, hbm_paced, 1.0, comm_s + memory_s - hbm_paced)
    # a power limit below the datasheet's slows every iteration by the stretch: the latencies
    # grow and a full engine serves proportionally less (an offered rate is still served, at
    # the longer latencies: the batch it holds is not re-solved)
    power_cap_s = itl * (stretch - 1.0)
    itl, ttft, prefill, opening = itl * stretch, ttft * stretch, prefill * stretch, opening * stretch
    slowed = np.where(online & ~saturated, 1.0, stretch)
    tokens_s, requests_s, per_gpu, tflops = tokens_s / slowed, requests_s / slowed, per_gpu / slowed, tflops / slowed
    out = {
        "tokens_per_s": tokens_s,
        "tokens_per_s_per_gpu": per_gpu,
        "requests_per_s": requests_s,
        "samples_per_s": requests_s,
        "input_tokens_per_s": requests_s * I,
        "input_tokens_per_s_per_gpu": requests_s * I / n_gpus,
        "ttft_ms": ttft * 1e3,
        # per output token: the iterations a sequence decodes through (others' prompts in some) / gain
        "itl_ms": np.where(prefill_only, itl, itl * seen_share / gain) * 1e3,
        "iteration_time_s": itl,
        "spec_gain": gain + zero,  # tokens a decoding sequence emits per iteration (1 without drafts)
        "decode_step_s": p * dec_s["total"] * stretch,
        # an iteration that carries a prompt chunk, and the share of iterations that do (ITL is a
        # mean over a sequence's decode iterations: decode-only steps, and some with a chunk)
        "chunk_iteration_s": p * mix["total"] * stretch,
        "chunk_share": np.where(decode_only | prefill_only, np.where(prefill_only, 1.0, 0.0), phi) + zero,
        "prefill_time_s": prefill,
        "batch": B,
        "batch_running": B_dec + zero,  # sequences that decode each iteration (the rest wait)
        "batch_max": np.maximum(cap, 0.0) + zero,
        "microbatches": np.minimum(p, B),
        "kv_cache_bytes": kv_cache,
        "kv_bytes_per_token": kv_tok,
        "kv_prompt_bytes": kv_prompt + zero,
        "memory_per_gpu_bytes": memory,
        "memory_weights_bytes": weights + zero,
        "memory_kv_cache_bytes": kv_cache,
        "memory_activations_bytes": ws,
        "memory_grads_bytes": zero,
        "memory_optimizer_bytes": zero,
        "memory_buffers_bytes": zero,
        "memory_reserved_bytes": reserved + zero,
        # what the engine's rule leaves unused: 1 - gpu_memory_utilization of the whole memory
        # (vLLM), or 1 - kv_mem_fraction of what weights, workspace and reserve leave (TensorRT-LLM)
        "memory_engine_free_bytes": headroom + zero,
        "memory_excess_bytes": np.maximum(kv_cache - kv_room(free, ws), 0.0),
        "time_compute_s": p * s["compute"],
        "time_gemm_s": p * s["gemm"],
        "time_attention_s": p * s["attention"],
        "time_other_s": p * s["other"],
        "time_bubble_s": zero,
        "exposed_tp_s": p * s["tp"],
        "exposed_ep_s": p * s["ep"],
        "time_adp_wait_s": p * s["adp_wait"],
        "exposed_cp_s": zero,
        "exposed_fsdp_s": zero,
        "exposed_pp_s": p * s["pp"],
        "exposed_dp_s": zero,
        "time_overlap_slowdown_s": zero,
        "time_power_cap_s": power_cap_s,
        "model_tflops_per_gpu": tflops,
        "hardware_tflops_per_gpu": tflops,
        "mfu": tflops * 1e12 / c["peak_flops"],
        "hfu": tflops * 1e12 / c["peak_flops"],
        "params_total": total_params + zero,
        "params_active": active_params + zero,
        "power_per_gpu_w": watts,
        "energy_per_token_j": watts / np.maximum(per_gpu, 1e-30),
        "cost_per_mtok_usd": c["price_per_gpu_hour"] / 3600.0 / np.maximum(per_gpu, 1e-30) * 1e6,
        "infeasible_mask": mask.astype(np.float64),
        "ep_load_imbalance": np.where(is_moe, imb, 1.0),
        "finite_run_factor": 1.0 + zero,  # a steady state; _finite_run scores finite runs
        "opening_wave_ttft_ms": opening * 1e3,
        "lockstep_group": group,
    }
    out["exposed_comm_s"] = out["exposed_tp_s"] + out["exposed_ep_s"] + out["exposed_pp_s"]
    out["feasible"] = (mask == 0).astype(np.float64)
    if detail:
        # a decode instance's first token is one decode iteration (its prompt was prefilled elsewhere)
        out.update({f"detail_prefill_{k}": np.where(decode_only, seen[k], mix[k]) for k in DETAIL_OPS})
        out.update({f"detail_decode_{k}": seen[k] for k in DETAIL_OPS})
        out.update(detail_prefill_chunks=np.where(decode_only, 1.0, chunks), detail_layers_per_stage=L,
                   detail_chunk_tokens=np.where(decode_only, 0.0, chunk),
                   detail_queue_s=queue,
                   detail_decode_tokens=b * q_tok * (O_it - 1.0) / O_it, detail_microbatch_sequences=b)
    result = {}
    for key, v in out.items():
        v = np.broadcast_to(np.asarray(v, dtype=np.float64), (n, 1)).reshape(n)
        result[key] = np.nan_to_num(v, nan=0.0, posinf=np.finfo(np.float64).max, neginf=0.0)
    return result


#: Names of the arrays :func:`evaluate_inference` returns that every serving study needs.
OUTPUTS = (
    "tokens_per_s", "tokens_per_s_per_gpu", "requests_per_s", "input_tokens_per_s",
    "input_tokens_per_s_per_gpu", "ttft_ms", "itl_ms",
    "iteration_time_s", "decode_step_s", "chunk_iteration_s", "chunk_share", "prefill_time_s", "batch",
    "kv_cache_bytes",
    "memory_per_gpu_bytes", "feasible", "infeasible_mask",
)
