"""DLRM training and inference step time, memory and throughput of N configurations at once.

A deep learning recommendation model (Naumov et al. 2019): dense features through a bottom MLP,
T embedding tables (rows R_t, dimension d_t, pooling p_t = lookups per sample summed into one
vector), a feature interaction (``dot``: the Gram matrix of the T+1 vectors; ``dcnv2``: DCN-v2
cross layers x_{l+1} = x0 * (W x_l + b) + x_l, W optionally low rank U V^T; ``concat``: none,
MAD-Max's DLRM-A), a top MLP; MAD-Max's variants replace the MLP layers by mixture-of-experts
layers (``moe_experts``, ``moe_top_k``) or put a transformer over the pooled sparse features.

The model constants (tables, widths) are a dict of scalars and arrays of length T; the
configurations (plan, hardware, numerics) are columns of length N (:data:`COLUMNS`). Per GPU and
step, with b samples per GPU, n GPUs and B = b*n:

* dense layers (data parallel over the b samples, or tensor parallel / FSDP): every GEMM as in
  :mod:`dse.costmodel.training` -- ``max(F / (peak*eff*K/(K+K_half)), bytes / (hbm*eff_hbm))`` with
  K the reduction depth; backward = data-gradient + weight-gradient GEMMs (none for frozen
  weights, no data gradient where nothing below needs it); bias/activation passes as HBM traffic.
* interaction: ``dot`` is a batched Gram matrix, 2*(T+1)^2*d FLOPs per sample, HBM bound in
  practice; ``dcnv2`` cross layers are GEMMs (D0 x D0, or D0 x r and r x D0) plus 4 elementwise
  passes over D0 per layer.
* embeddings, HBM bound: forward gathers every looked-up row (lookups x d x storage bytes), from
  HBM at the random-access efficiency ``eff_gather`` those the GPU's L2 (``l2_bytes``) misses
  (:func:`lru_miss_fraction`: the hottest rows of each table stay cached), and writes the
  pooled vectors; backward reads the
  pooled gradient once per lookup, sorts the indices and read-modify-writes every *touched* row
  (plus its optimizer state: SGD none, Adagrad one fp32 value per element, row-wise Adagrad one
  per row, Adam two per element). Touched rows (:func:`_unique_rows`): a sample's lookups into a
  table are its key, drawn with Zipf(``popularity_zipf``) popularity (0: uniform), and pooling - 1
  further rows fixed by that key and spread uniformly over the table (how MLPerf's synthetic
  multi-hot Criteo derives them), so a batch touches the rows of its distinct keys
  (:func:`distinct_keys`); for uniform keys this is R*(1 - exp(-L/R)) for L lookups into R rows.
* embedding communication is sized by the *pooled* vectors, in the tables' dtype (frameworks cast
  to the compute dtype after the exchange) unless ``exchange_bytes`` says otherwise (HugeCTR's
  embedding collection under mixed precision exchanges FP16 vectors and gradients of FP32
  tables): table-wise and column-wise sharding
  all-to-all b*(T)*d values per GPU forward (the gradients backward); row-wise reduce-scatters
  partial sums of all B samples (n times more bytes, perfectly balanced lookups); ``table_row``
  row-splits tables inside a node (reduce-scatter) and all-to-alls across nodes; replicated
  tables all-reduce their gradients (dense); ``hybrid`` (HugeCTR, one-hot tables only) serves the
  frequent categories from a replica (their gradients all-reduced) and all-to-alls the rest;
  ``auto`` replicates tables whose dense gradient all-reduce is cheaper than the all-to-all it
  saves (R <= b*act/grad bytes), splits tables hotter than a GPU's fair share column-wise and
  places the rest table-wise; ``hier_auto`` is HugeCTR's hierarchical plan (its MLPerf DLRM-DCNv2
  planner): the same replication, the rest planned table-wise over *nodes* (a node's memory is its
  GPUs'), each node's tables row-split over its GPUs as in ``table_row``, so a sample's pooled
  vectors are reduce-scattered inside the node and cross nodes in one all-to-all between
  same-rank GPUs; ``node_sharded`` plans inside a node and replicates across nodes (MAD-Max's 2D
  sharding), reducing the touched rows' gradients across nodes. The hybrid
  frequent set is HugeCTR's own trade-off: per configuration, the popularity threshold that
  minimises all-to-all + all-reduce + update time, with category popularity Zipf(``popularity_zipf``).
* the table-wise planner (:func:`plan_tables`) is greedy longest-processing-time on the lookup +
  all-to-all cost of each table (``emb_planner`` 0) or on its bytes (1, Merlin Distributed
  Embeddings' ``memory_balanced``), one plan per distinct GPU count (no loop over
  configurations); a table larger than the even memory share is first split column-wise (Merlin
  Distributed Embeddings, TorchRec), and configurations whose cost-balanced plan does not fit in
  HBM are re-planned memory-balanced.
* network: the two-level alpha-beta model of :mod:`dse.costmodel.collectives`; GPUs without
  NVLink share their server's PCIe uplinks (:func:`_network`). Replicated embedding gradients
  travel in the same bucketed all-reduce as the dense gradients.
* one step is a forward and a backward phase, each on a compute stream and a communication
  stream (:func:`dse.costmodel.training.two_stream_layer`): the all-to-all hides under the bottom
  MLP, the gradient all-reduces under the backward, hidden communication costs
  ``overlap_slowdown`` of its time on the compute stream; ``op_latency`` per kernel and
  ``step_overhead`` per step are added.
* memory per GPU: the embedding shards placed on the GPU with their optimizer state, the dense
  weights (+ fp32 master copy under mixed precision), gradients and optimizer state, the saved
  activations of b samples, all-to-all buffers and the framework reserve; compared with HBM.

Every line is an array operation over configurations; the planner loops over the distinct GPU
counts (and, for ``auto``, the distinct replication sets) only.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from typing import Any

import numpy as np

from . import collectives as coll
from . import power
from .training import two_stream_layer

#: emb_sharding codes (``parallel.emb_sharding``).
SHARDING = {"table": 0, "row": 1, "column": 2, "table_row": 3, "hybrid": 4, "auto": 5,
            "hier_auto": 6, "data_parallel": 7, "node_sharded": 8}
SHARDING_NAMES = {v: k for k, v in SHARDING.items()}
#: Embedding / dense optimizer codes.
OPTIMIZER = {"sgd": 0, "adagrad": 1, "rowwise_adagrad": 2, "adam": 3}
#: Interaction codes (``concat`` = no interaction: MAD-Max's DLRM models).
INTERACTION = {"concat": 0, "dot": 1, "dcnv2": 2}

#: Shardings placed by the table planner (cost-balanced, or memory-balanced when asked or needed).
PLANNED = [0, 2, 3, 5, 6, 8]  # table, column, table_row, auto, hier_auto, node_sharded
#: Shardings that need whole nodes (num_gpus a multiple of gpus_per_node).
NODE_PLANS = [3, 6, 8]  # table_row, hier_auto, node_sharded

#: Bits of ``infeasible_mask``.
OUT_OF_MEMORY = 1 << 0
TABLE_TOO_LARGE = 1 << 1
BATCH_GPUS = 1 << 2
GPUS_TP = 1 << 3
EXPERTS_EP = 1 << 4
NODES = 1 << 5
HYBRID_MULTIHOT = 1 << 6

#: Configurations x embedding shards per planner matrix (bounds memory: evaluated in chunks).
CHUNK_ELEMENTS = 1 << 22
#: Bytes of one lookup index read by the forward gather (int32 keys).
INDEX_BYTES = 4.0
#: HBM bytes per lookup of the backward's index sort and segment bookkeeping (radix sort of
#: (key, position) pairs: about four read+write passes of 8 bytes).
SORT_BYTES_PER_LOOKUP = 32.0
#: Elementwise passes (read or write of one activation tensor) of a bias + ReLU layer, forward
#: and backward (dReLU, bias gradient), beyond the GEMM's own input read and output write.
ELEM_PASSES_F = 2.0
ELEM_PASSES_B = 3.0
#: Elementwise passes over x0 per DCN-v2 cross layer (x0 * u + x_l: three reads, one write);
#: backward twice that.
CROSS_PASSES = 4.0
#: Minimum columns of a column-wise shard (vectorized loads of 4 values).
MIN_COLUMNS = 4.0
#: Kernels per dense layer (forward GEMM, data-gradient and weight-gradient GEMM, bias
#: gradient) and per step outside the layers (embedding gather/update/sort, interaction forward
#: and backward, loss, optimizer, concatenations), for the per-kernel latency term.
KERNELS_PER_LAYER_TRAIN = 4.0
KERNELS_PER_LAYER_INFER = 1.0
KERNELS_FIXED_TRAIN = 16.0
KERNELS_FIXED_INFER = 5.0

#: Cost-model columns: name -> (default, meaning). ``None`` = required.
COLUMNS: dict[str, tuple[float | None, str]] = {
    # hardware (SI), as dse.hardware.Hardware.columns()
    "peak_flops": (None, "dense matmul peak at the run's precision, FLOP/s"),
    "peak_flops_16": (None, "dense bf16/fp16 peak (attention of the transformer variant), FLOP/s"),
    "hbm_bytes": (None, "HBM capacity, bytes"),
    "hbm_bw": (None, "HBM bandwidth, bytes/s"),
    "nvlink_bw": (None, "NVLink bandwidth per GPU, one direction, bytes/s"),
    "nvlink_domain": (8.0, "GPUs in one NVLink domain"),
    "nvlink_mesh": (0.0, "1 if a domain's GPUs are linked point to point (full mesh), 0 behind a switch"),
    "scaleout_bw": (None, "scale-out bandwidth per GPU, one direction, bytes/s"),
    "nvlink_latency": (3e-6, "per-step latency of an NVLink collective, s"),
    "scaleout_latency": (8e-6, "per-step latency of a scale-out collective, s"),
    "memory_reserved": (3e9, "HBM not available to the model, bytes"),
    "eff_matmul": (0.8, "fraction of peak_flops a deep GEMM reaches"),
    "matmul_k_half": (0.0, "GEMM depth at half efficiency"),
    "eff_attention": (0.4, "fraction of peak_flops_16 the attention kernel reaches"),
    "eff_hbm": (0.85, "fraction of hbm_bw streaming kernels reach"),
    "eff_nvlink": (0.8, "fraction of nvlink_bw collectives reach"),
    "eff_scaleout": (0.8, "fraction of scaleout_bw collectives reach"),
    "overlap_slowdown": (0.0, "compute slowdown while hidden communication runs (fraction)"),
    "rail_optimized": (1.0, "1 if collectives spanning domains use every GPU's NIC"),
    **power.POWER_COLUMNS,  # board power limit and the power model
    "price_per_gpu_hour": (0.0, "USD per GPU-hour"),
    "gpus_per_node": (8.0, "GPUs of the job per node (hierarchical sharding)"),
    "l2_bytes": (0.0, "L2 cache per GPU, bytes: the forward's lookups of rows it holds do not read HBM "
                      "(lru_miss_fraction); 0 = every lookup reads HBM"),
    # DLRM calibration (dse/data/calibration.yaml, keys dlrm_*)
    "eff_gather": (0.6, "fraction of hbm_bw random row gathers/updates reach"),
    "op_latency": (4e-6, "fixed time per kernel (launch, ramp and tail), s"),
    "step_overhead": (0.0, "fixed time per step (synchronisation, input pipeline), s"),
    "popularity_zipf": (1.05, "Zipf exponent of category popularity: the hybrid plan's frequent set and "
                              "the distinct keys of a batch (0: uniform)"),
    # plan
    "num_gpus": (None, "GPUs in the job"),
    "microbatch": (None, "samples per GPU per step (b)"),
    "global_batch": (None, "samples per step (B = b * num_gpus)"),
    "emb_sharding": (0.0, "embedding sharding code (SHARDING)"),
    "emb_planner": (0.0, "table placement: 0 cost-balanced greedy (memory-balanced where it does not fit), "
                         "1 memory-balanced greedy (Merlin Distributed Embeddings' default)"),
    "tp": (1.0, "tensor-parallel degree of the dense layers"),
    "zero": (0.0, "3 = FSDP (dense weights, gradients, optimizer state sharded)"),
    "ep": (1.0, "expert-parallel degree (DLRM-MoE)"),
    # numerics
    "act_bytes": (2.0, "bytes per activation element (dense layers)"),
    "emb_bytes": (4.0, "bytes per stored embedding element (and per exchanged pooled element)"),
    "exchange_bytes": (0.0, "bytes per pooled embedding element and pooled-gradient element the "
                            "embeddings write, read and exchange (all-to-all, reduce-scatter); 0: "
                            "emb_bytes (HugeCTR's embedding collection under mixed precision: 2 with "
                            "4-byte tables)"),
    "grad_bytes": (2.0, "bytes per dense gradient element communicated"),
    "emb_optimizer": (0.0, "embedding optimizer code (OPTIMIZER)"),
    "dense_optimizer": (0.0, "dense optimizer code (OPTIMIZER)"),
    "master_weights": (1.0, "1 if an fp32 master copy of the dense weights is kept"),
    # workload
    "train": (1.0, "1 training (forward + backward + update), 0 inference (forward only)"),
    "freeze_emb": (0.0, "1: embeddings frozen (no update, no gradient all-to-all)"),
    "freeze_bottom": (0.0, "1: bottom MLP frozen"),
    "freeze_top": (0.0, "1: top MLP (and interaction weights) frozen"),
    "overlap_a2a": (1.0, "the embedding all-to-all may overlap the bottom MLP"),
    "overlap_dp": (1.0, "gradient all-reduces may overlap the backward"),
}
REQUIRED = tuple(k for k, (d, _) in COLUMNS.items() if d is None)


# ======================================================================== model constants
def model_constants(
    tables: list[tuple[float, float, float]], dense_features: int, bottom_mlp: list[int],
    top_mlp: list[int], interaction: str = "dot", cross_layers: int = 0, cross_rank: int | None = None,
    moe_experts: int = 0, moe_top_k: int = 0, transformer: Mapping[str, int] | None = None,
    name: str = "dlrm",
) -> dict[str, Any]:
    """The model dict :func:`evaluate_dlrm` takes, from tables [(rows, dim, pooling)] and widths."""
    rows, dim, pooling = (np.asarray(x, dtype=np.float64) for x in zip(*tables))
    tf = dict(transformer or {})
    return {
        "name": name, "rows": rows, "dim": dim, "pooling": pooling,
        "dense_features": float(dense_features), "bottom_mlp": [float(w) for w in bottom_mlp],
        "top_mlp": [float(w) for w in top_mlp], "interaction": interaction,
        "cross_layers": float(cross_layers), "cross_rank": float(cross_rank or 0),
        "moe_experts": float(moe_experts), "moe_top_k": float(moe_top_k),
        "tf_layers": float(tf.get("layers", 0)), "tf_heads": float(tf.get("heads", 1)),
        "tf_hidden": float(tf.get("hidden", 0)), "tf_ffn": float(tf.get("ffn_hidden", 0)),
        "tf_seq_len": float(tf.get("seq_len", 0)),
    }


def layer_shapes(model: Mapping[str, Any]) -> dict[str, Any]:
    """Shapes of the dense part: (K, N) of every bottom / top MLP layer, interaction sizes.

    ``dot``: the bottom output (width d0) and the T pooled vectors form T+1 vectors of dim d0
    (tables of another width are projected, as TorchRec's interaction arch requires); the top
    input is the (T+1)T/2 distinct pairs plus the bottom output. ``dcnv2``: x0 = concat(bottom
    output, pooled vectors), D0 wide, feeds the cross layers and then the top MLP.
    ``concat``: the top input is the concatenation (MAD-Max ignores the interaction: its top
    MLP input width is the given top width). A transformer over the pooled features (sequence
    tf_seq_len, width tf_hidden) feeds the top MLP with its mean over the sequence plus d0.
    """
    T = float(len(model["dim"]))
    F = model["dense_features"]
    bottom = [F, *model["bottom_mlp"]]
    bot = list(zip(bottom[:-1], bottom[1:]))
    d0 = bottom[-1]
    dsum = float(np.sum(model["dim"]))
    kind = model["interaction"]
    pairs = (T + 1.0) * T / 2.0
    D0 = d0 + dsum
    if model["tf_layers"] > 0:
        top_in = d0 + model["tf_hidden"]
    elif kind == "dot":
        top_in = pairs + d0
    elif kind == "dcnv2":
        top_in = D0
    else:  # concat: MAD-Max's DLRM has square MLP layers; keep the top's own first width
        top_in = model["top_mlp"][0] if model["top_mlp"] else D0
    topw = [top_in, *model["top_mlp"]]
    top = list(zip(topw[:-1], topw[1:]))
    return {"bottom": bot, "top": top, "d0": d0, "T": T, "pairs": pairs, "D0": D0, "top_in": top_in,
            "dsum": dsum}


def dense_params(model: Mapping[str, Any]) -> dict[str, float]:
    """Parameters of the dense part (weights + biases), split bottom / interaction / top / experts."""
    sh = layer_shapes(model)
    E = model["moe_experts"]
    moe = E > 0

    def mlp(layers):
        dense = expert = 0.0
        for K, N in layers:
            p = K * N + N
            if moe and N > 1:
                expert += E * p
                dense += K * E  # router
            else:
                dense += p
        return dense, expert

    bd, be = mlp(sh["bottom"])
    td, te = mlp(sh["top"])
    inter = 0.0
    if model["interaction"] == "dcnv2" and model["tf_layers"] == 0:
        D0, r, Lc = sh["D0"], model["cross_rank"], model["cross_layers"]
        inter = Lc * ((2.0 * D0 * r if r > 0 else D0 * D0) + D0)
    if model["tf_layers"] > 0:
        h, f = model["tf_hidden"], model["tf_ffn"]
        dmean = float(np.mean(model["dim"]))
        inter = model["tf_layers"] * (4.0 * h * h + 2.0 * h * f + 9.0 * h + f) + (dmean * h if dmean != h else 0.0)
    return {"bottom": bd, "top": td, "interaction": inter, "experts_bottom": be, "experts_top": te,
            "total": bd + td + inter + be + te}


def flops_per_sample(model: Mapping[str, Any]) -> float:
    """Forward FLOPs of one sample through the dense part (MLPs, interaction, transformer; MoE
    layers count top_k experts). Training is 3x (weight and data gradients)."""
    sh = layer_shapes(model)
    k = max(model["moe_top_k"], 1.0) if model["moe_experts"] > 0 else 1.0
    total = 0.0
    for K, N in sh["bottom"] + sh["top"]:
        total += 2.0 * K * N * (k if (model["moe_experts"] > 0 and N > 1) else 1.0)
    T, d0 = sh["T"], sh["d0"]
    if model["tf_layers"] > 0:
        s, h, f = model["tf_seq_len"], model["tf_hidden"], model["tf_ffn"]
        total += model["tf_layers"] * (2.0 * s * (4.0 * h * h + 2.0 * h * f) + 4.0 * s * s * h)
    elif model["interaction"] == "dot":
        total += 2.0 * (T + 1.0) ** 2 * d0
    elif model["interaction"] == "dcnv2":
        D0, r = sh["D0"], model["cross_rank"]
        total += model["cross_layers"] * 2.0 * (2.0 * D0 * r if r > 0 else D0 * D0)
    return total


# ======================================================================== planner
def plan_tables(cost: np.ndarray, n: int, second: np.ndarray | None = None) -> np.ndarray:
    """Greedy longest-processing-time placement: shards in decreasing ``cost``, each to the GPU
    with the least cost so far. Returns the GPU index of every shard. The makespan is at most
    4/3 of the optimum (Graham 1969) and at most the ideal mean plus the largest shard.

    ``second`` (e.g. the bytes of a cost-balanced plan) breaks the ties of ``cost``: shards of
    equal cost go larger first, to the GPU with the least of it among those of equal cost, so a
    tie does not leave the placement to the tables' order (two 40M-row tables of the same width
    and pooling on one GPU while smaller ones of that cost filled the others)."""
    S = len(cost)
    gpu = np.zeros(S, dtype=np.int64)
    if S == 0:
        return gpu
    second = np.zeros(S) if second is None else np.asarray(second, dtype=np.float64)
    order = np.lexsort((-second, -cost))  # by cost, then by the second key, both decreasing
    heap = [(0.0, 0.0, g) for g in range(min(n, S))]
    heapq.heapify(heap)
    for s in order:
        load, load2, g = heapq.heappop(heap)
        gpu[s] = g
        heapq.heappush(heap, (load + float(cost[s]), load2 + float(second[s]), g))
    return gpu


def table_shards(model: Mapping[str, Any], n: int, column_wise: bool, tables: np.ndarray | None = None,
                 split_hot: bool = False):
    """Shards (table index, column fraction) for table-wise or column-wise placement on n GPUs.

    Table-wise: a table larger than the even memory share (sum of table sizes / n) is split into
    the fewest column slices below it; with ``split_hot`` (the ``auto`` planner) also a table
    whose lookup + all-to-all cost exceeds the even cost share. Column-wise: every table into
    min(n, d/MIN_COLUMNS) slices. Column slices move no more bytes than the whole table."""
    rows, dim, pool = model["rows"], model["dim"], model["pooling"]
    idx = np.arange(len(rows)) if tables is None else tables
    size = rows[idx] * dim[idx]
    share = max(float(size.sum()) / max(n, 1), 1.0)
    cap = np.minimum(float(n), np.maximum(np.floor(dim[idx] / MIN_COLUMNS), 1.0))
    if column_wise:
        k = cap
    else:
        need = np.ceil(size / share - 1e-9)
        if split_hot:
            cost = dim[idx] * (pool[idx] + 1.0)
            need = np.maximum(need, np.ceil(cost / max(float(cost.sum()) / max(n, 1), 1e-30) - 1e-9))
        k = np.minimum(cap, np.maximum(need, 1.0))
    k = k.astype(np.int64)
    t = np.repeat(idx, k)
    frac = np.repeat(1.0 / k, k)
    return t, frac


def placement(model: Mapping[str, Any], n: int, column_wise: bool, tables: np.ndarray | None = None,
              split_hot: bool = False) -> dict[str, Any]:
    """The shards of :func:`table_shards` placed on ``n`` GPUs by the cost-balanced (index 0) and
    the memory-balanced (index 1) greedy planner, with per-GPU per-sample loads and the shards
    grouped by type (same rows, pooling and width) for the per-configuration sums. Cached on the
    model dict: one plan per distinct (n, strategy), whatever the number of configurations."""
    rows, dim, pool = model["rows"], model["dim"], model["pooling"]
    key = (int(n), bool(column_wise), bool(split_hot), None if tables is None else np.asarray(tables).tobytes(),
           rows.tobytes(), dim.tobytes(), pool.tobytes())
    cache = model.setdefault("_placements", {}) if isinstance(model, dict) else {}
    if key in cache:
        return cache[key]
    t, frac = table_shards(model, n, column_wise, tables, split_hot)
    cost = frac * dim[t] * (pool[t] + 1.0)
    mem = frac * rows[t] * dim[t]
    G = max(min(int(n), len(t)), 1)
    kinds = np.stack([rows[t], pool[t], dim[t] * frac], axis=1) if len(t) else np.zeros((0, 3))
    types, kind = np.unique(kinds, axis=0, return_inverse=True)
    kind = kind.reshape(-1)
    plans = []
    for weights, ties in ((cost, mem), (mem, cost)):
        gpu = plan_tables(weights, int(n), ties)
        counts = np.zeros((len(types), G))
        np.add.at(counts, (kind, gpu), 1.0)
        plans.append({
            "gpu": gpu,
            "counts": counts,  # shards of each type on each GPU
            "lookups": np.bincount(gpu, weights=pool[t], minlength=G),
            "gather": np.bincount(gpu, weights=pool[t] * dim[t] * frac, minlength=G),
            "out": np.bincount(gpu, weights=dim[t] * frac, minlength=G),
            "mem": np.bincount(gpu, weights=mem, minlength=G),
            "rows": np.bincount(gpu, weights=rows[t], minlength=G),
        })
    biggest = int(np.argmax(mem)) if len(t) else 0
    out = {"plans": plans, "type_rows": types[:, 0], "type_pool": types[:, 1], "type_width": types[:, 2],
           "shards": len(t), "max_shard": float(mem[biggest]) if len(t) else 0.0,
           "max_shard_table": int(t[biggest]) if len(t) else 0}
    cache[key] = out
    return out


#: Natural-log grid of u (expected draws of one category) on which :func:`_zipf_scaled_tail` is
#: tabulated: 1e-15 is below the rarest category's draws of any table up to 1e10 rows with an
#: exponent under 1 (larger exponents leave only negligible counts there), and a category drawn
#: 1e4 times is touched for certain.
_ZIPF_LOG_U = np.linspace(np.log(1e-15), np.log(1e4), 4097)
_ZIPF_TAILS: dict[float, np.ndarray] = {}
#: Exponents below this count as uniform popularity (their distinct counts are within 1% of it).
ZIPF_MIN = 0.05


def _zipf_scaled_tail(s: float) -> np.ndarray:
    """G(u) = u^s * integral from u to 1e4 of (1 - exp(-v)) v^(-s-1) dv on :data:`_ZIPF_LOG_U`,
    for s = 1 / Zipf exponent; bounded by 1/s (the unscaled integral overflows for large s).
    By the recurrence G(u_i) = e^(-s d) G(u_i+1) + the step's integral (trapezoid in log v of a
    bounded integrand), d the grid step; cached per exponent."""
    key = round(s, 9)
    if key not in _ZIPF_TAILS:
        t = _ZIPF_LOG_U
        d = np.diff(t)
        hit = -np.expm1(-np.exp(t))  # 1 - exp(-v) on the grid
        decay = np.exp(-s * d)
        step = 0.5 * d * (hit[:-1] + hit[1:] * decay)
        G = np.zeros_like(t)
        for i in range(len(t) - 2, -1, -1):
            G[i] = decay[i] * G[i + 1] + step[i]
        _ZIPF_TAILS[key] = G
    return _ZIPF_TAILS[key]


#: The most popular categories :func:`distinct_keys` sums exactly (the rest as an integral).
ZIPF_HEAD = 16


def distinct_keys(S, R, alpha):
    """Expected distinct categories among S draws from R categories, the k-th most popular drawn
    with probability p_k = k^-alpha / H_R (Zipf; alpha 0: uniform, R (1 - exp(-S/R))). Arrays
    broadcast.

    Each category is missed with probability exp(-S p_k) (Poisson draws, as the uniform
    formula): the :data:`ZIPF_HEAD` most popular terms are summed as they are, the rest as the
    integral over k from ZIPF_HEAD + 1/2 to R + 1/2 of 1 - exp(-c k^-alpha), c = S / H_R (H_R
    likewise). The categories drawn more than 1e4 times (k below k_top) count as touched; with
    u = c k^-alpha the rest is s [k G(u)] between k_top and R + 1/2 (s = 1/alpha, G of
    :func:`_zipf_scaled_tail`). Exponents below :data:`ZIPF_MIN` are uniform. Within 1.5% of the
    exact sum for tables of 1,000 rows and more (tests/costmodel/test_dlrm.py)."""
    shape = np.broadcast_shapes(np.shape(S), np.shape(R), np.shape(alpha))
    S, R, alpha = (np.atleast_1d(x) for x in np.broadcast_arrays(
        np.asarray(S, float), np.maximum(np.asarray(R, float), 1.0), np.asarray(alpha, float)))
    out = np.maximum(R * -np.expm1(-S / R), np.minimum(S, 1.0))  # uniform
    u_min, top = float(np.exp(_ZIPF_LOG_U[0])), float(np.exp(_ZIPF_LOG_U[-1]))
    for a in np.unique(alpha[alpha >= ZIPF_MIN]):
        m = alpha == a
        Sm, Rm, a, s = S[m], np.maximum(np.round(R[m]), 1.0), float(a), 1.0 / float(a)  # whole categories
        heads = np.arange(1.0, ZIPF_HEAD + 1.0)
        lo, hi = ZIPF_HEAD + 0.5, Rm + 0.5
        rest = np.where(Rm > ZIPF_HEAD, ((hi ** (1.0 - a) - lo ** (1.0 - a)) / (1.0 - a) if abs(a - 1.0) > 1e-9
                                         else np.log(hi / lo)), 0.0)
        H = rest + sum(np.where(k <= Rm, k ** -a, 0.0) for k in heads)  # one pass per head term
        head = sum(np.where(k <= Rm, -np.expm1(-Sm * k ** -a / H), 0.0) for k in heads)
        c = Sm / H
        G_grid = _zipf_scaled_tail(s)

        def G(u):
            inside = np.interp(np.log(np.clip(u, u_min, top)), _ZIPF_LOG_U, G_grid)
            return np.where(u < u_min, G_grid[0] * (np.maximum(u, 0.0) / u_min) ** min(s, 1.0), inside)

        k_top = np.clip((c / top) ** s, lo, np.maximum(hi, lo))  # categories drawn > 1e4 times
        body = np.where(Rm > ZIPF_HEAD, (k_top - lo) + s * (hi * G(c * hi ** -a) - k_top * G(c * k_top ** -a)), 0.0)
        # no skew touches more rows than uniform draws (the sum is Schur-concave in p)
        out[m] = np.clip(head + body, np.minimum(Sm, 1.0), out[m])
    return out.reshape(shape)


def _per_configuration(*cols):
    """Distinct rows of the per-configuration columns ``cols`` (each N x 1 or scalar):
    (the distinct values, N x len(cols); the index of each configuration's row), or None when
    they are not per-configuration columns. Sorts only the columns that vary."""
    n = max(np.shape(c)[0] if np.ndim(c) == 2 else 1 for c in cols)
    if n < 2 or any(np.ndim(c) not in (0, 2) or np.ndim(c) == 2 and np.shape(c)[1] != 1 for c in cols):
        return None
    full = np.column_stack([np.broadcast_to(np.asarray(c, float).reshape(-1, 1), (n, 1)) for c in cols])
    varying = [j for j in range(full.shape[1]) if full[:, j].min() != full[:, j].max()]
    if not varying:
        return full[:1], np.zeros(n, dtype=np.int64)
    if not np.all(np.isfinite(full)):  # the complex-number key below needs finite values
        _, first, inverse = np.unique(full, axis=0, return_index=True, return_inverse=True)
    elif len(varying) == 1:
        _, first, inverse = np.unique(full[:, varying[0]], return_index=True, return_inverse=True)
    else:  # fold in one column at a time: complex numbers (the codes so far, the next column) sort
        # by real, then imaginary part
        inverse = full[:, varying[0]]
        for j in varying[1:]:
            _, first, inverse = np.unique(inverse + 1j * full[:, j], return_index=True, return_inverse=True)
            inverse = inverse.reshape(-1).astype(np.float64)
        inverse = inverse.astype(np.int64)
    return full[first], inverse.reshape(-1)


def _touched_fraction(rows, samples, pool, alpha):
    """Share of a table's ``rows`` that ``samples`` samples touch (see :func:`_unique_rows`)."""
    p = np.maximum(pool, 1.0)
    hit = np.minimum(pool, 1.0)  # a pooling below 1: a sample looks the table up with that chance
    D = distinct_keys(samples if np.all(hit == 1.0) else samples * hit, rows, alpha)
    return -np.expm1(np.log1p(-np.minimum(D / rows, 1.0 - 1e-12)) - D * (p - 1.0) / rows)


def _unique_rows(rows, samples, pool, alpha, split=1.0):
    """Expected distinct rows one shard touches per step of a table of ``rows`` rows, split
    ``split`` ways by rows (modulo; 1 = the whole table), looked up ``pool`` times by each of
    ``samples`` samples: the samples' keys are Zipf(``alpha``) draws, each key with pool - 1 more
    rows fixed by it and uniform over the table, so a row is untouched if it is none of the D
    distinct keys (:func:`distinct_keys`) and none of their companions:
    rows/split (1 - (1 - D/rows) exp(-D (pool-1)/rows)) (one-hot: D/split; uniform keys:
    rows/split (1 - exp(-samples/rows))). ``samples``, ``alpha`` and ``split`` per configuration
    (N x 1, or scalars), ``rows`` and ``pool`` per table type (1 x T, or scalars): the fraction is
    computed once per distinct (samples, alpha, split), of which a search has few."""
    per_type = _per_type(rows, pool)
    if per_type is not None:
        row, p, _ = per_type
        table = _grouped("touched", row.tobytes() + p.tobytes(), (samples, alpha, split), lambda m: row[None, :] / m[:, 2:3]
                         * _touched_fraction(row[None, :], m[:, 0:1], p[None, :], m[:, 1:2]))
        if table is not None:
            return table.reshape(np.broadcast_shapes(*map(np.shape, (rows, samples, pool, alpha, split))))
    return np.maximum(rows, 1.0) / split * _touched_fraction(np.maximum(rows, 1.0), samples, pool, alpha)


#: Per-type values (touched rows, L2 misses) per (tables, samples, exponent, split, cache): the
#: same few recur across the plans of one evaluation and across evaluations of one model (a pure
#: function's memo, bounded).
_TOUCHED: dict[tuple, np.ndarray] = {}
_TOUCHED_MAX = 1 << 16


def _per_type(rows, pool, width=1.0):
    """The 1-D (rows, pool, width) of tables given per table type (1 x T or scalars), or None
    when they vary per configuration."""
    if any(np.ndim(x) > 2 or np.shape(x)[:1] not in ((), (1,)) for x in (rows, pool, width)):
        return None
    shape = np.broadcast_shapes(np.shape(rows), np.shape(pool), np.shape(width))
    return tuple(np.broadcast_to(np.asarray(x, float), shape).reshape(-1).copy() for x in
                 (np.maximum(rows, 1.0), pool, width))


def _grouped(kind: str, tables: bytes, cols, compute):
    """``compute(u)`` (one row of per-type values per row of u) for each configuration's row of
    the per-configuration columns ``cols`` (N x 1 or scalars), once per distinct row and
    memoized in :data:`_TOUCHED` under ``kind`` and the tables' bytes; None when ``cols`` are
    not per-configuration columns."""
    if all(np.size(x) == 1 for x in cols):  # one configuration (a loop)
        n = max((np.shape(x)[0] for x in cols if np.ndim(x) == 2), default=1)
        u, inverse = np.array([[float(np.reshape(x, -1)[0]) for x in cols]]), np.zeros(n, dtype=np.int64)
    else:
        groups = _per_configuration(*cols)
        if groups is None:
            return None
        u, inverse = groups
    keys = [(kind, tables, *map(float, r)) for r in u]
    if len(_TOUCHED) + len(keys) > _TOUCHED_MAX:
        _TOUCHED.clear()  # before the look-up: every key asked for is then present below
    missing = [i for i, k in enumerate(keys) if k not in _TOUCHED]
    if missing:
        for i, v in zip(missing, compute(u[missing])):
            _TOUCHED[keys[i]] = v
    return np.take(np.stack([_TOUCHED[k] for k in keys]), inverse, axis=0)


#: A cache that holds fewer rows than this many samples touch is taken to miss every lookup (its
#: hits, repeats among the last few samples' keys, are a few percent; the distinct counts of a
#: handful of draws are too coarse to difference).
LRU_MIN_SAMPLES = 16.0


def lru_miss_fraction(rows, samples, pool, alpha, capacity):
    """Share of one step's lookups into a table that an LRU cache of ``capacity`` rows (the
    GPU's L2) misses, the table's rows popular as in :func:`_unique_rows` (Zipf keys, pool - 1
    companions each); arrays broadcast.

    Che's approximation (Che, Tung and Wang 2002): a row stays cached for T draws, the T at
    which the draws touch ``capacity`` distinct rows, r(T) = capacity with r the rows touched
    by T samples; a draw misses where its row was not drawn in the T before, r'(T) rows per
    sample. The cache starts a step cold (the dense layers between two steps' lookups stream
    far more than it holds): misses = r(S) if the step touches no more than the cache holds,
    else capacity + (S - T) r'(T), of the S x pool lookups of S samples (all of them where the
    cache holds fewer rows than :data:`LRU_MIN_SAMPLES` samples touch). A row-split shard of
    the table (modulo) with its own cache sees the same fraction as the table with all the
    shards' caches: pass the table's samples and the summed capacity."""
    rows, S, pool, alpha, cap = (np.asarray(x, float) for x in np.broadcast_arrays(
        np.maximum(rows, 1.0), samples, pool, alpha, np.maximum(capacity, 0.0)))

    def r(T):
        return rows * _touched_fraction(rows, T, pool, alpha)

    whole = r(S)
    fits = whole <= cap
    lo, hi = np.full_like(S, np.log(LRU_MIN_SAMPLES)), np.log(np.maximum(S, LRU_MIN_SAMPLES))
    for _ in range(24):  # bisection in log T, to 2^-24 of log S
        mid = 0.5 * (lo + hi)
        below = r(np.exp(mid)) < cap
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    T = np.exp(0.5 * (lo + hi))
    h = 0.01
    slope = (r(T * (1.0 + h)) - r(T * (1.0 - h))) / (2.0 * h * T)
    lookups = np.maximum(S * pool, 1e-30)
    misses = np.where(fits, whole, np.where(
        r(np.full_like(S, LRU_MIN_SAMPLES)) >= cap, lookups,  # a cache this small: every lookup misses
        cap + np.maximum(S - T, 0.0) * np.maximum(slope, 0.0)))
    return np.clip(misses / lookups, 0.0, 1.0)


def _rows_and_misses(rows, samples, pool, width, alpha, cache_elems, split=1.0):
    """(:func:`_unique_rows`, :func:`lru_miss_fraction`) of tables (``rows``, ``pool``, ``width``
    per table type, 1 x T or scalars) for each configuration's ``samples``, ``alpha``, row
    ``split`` and cache size in elements (``cache_elems``, N x 1 or scalars: L2 bytes x the
    caches serving a table / bytes per element; a table's cache rows ``cache_elems / width``):
    both computed once per distinct (samples, alpha, split, cache) of a search and memoized."""
    row, p, w = _per_type(rows, pool, width)

    def compute(m):
        S, a, k = m[:, 0:1], m[:, 1:2], m[:, 2:3]
        touched = row[None, :] / k * _touched_fraction(row[None, :], S, p[None, :], a)
        return np.hstack([touched, lru_miss_fraction(row[None, :], S, p[None, :], a, m[:, 3:4] / w[None, :])])

    table = _grouped("rows+l2", row.tobytes() + p.tobytes() + w.tobytes(), (samples, alpha, split, cache_elems),
                     compute)
    if table is None:  # columns that are not per configuration: element by element
        return (_unique_rows(rows, samples, pool, alpha, split),
                lru_miss_fraction(rows, samples, pool, alpha, np.asarray(cache_elems) / width))
    return table[:, :len(row)], table[:, len(row):]


def table_types(model: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Tables grouped by (rows, pooling): per type its rows, pooling, number of tables, summed
    width and mean width, so that per-table sums over configurations cost (configs x types)."""
    key = ("_types", model["rows"].tobytes(), model["pooling"].tobytes(), model["dim"].tobytes())
    cache = model.setdefault("_placements", {}) if isinstance(model, dict) else {}
    if key not in cache:
        rp = np.stack([model["rows"], model["pooling"]], axis=1)
        types, inv = np.unique(rp, axis=0, return_inverse=True)
        inv = inv.reshape(-1)
        cache[key] = {"rows": types[:, 0], "pool": types[:, 1],
                      "count": np.bincount(inv, minlength=len(types)).astype(np.float64),
                      "dim": np.bincount(inv, weights=model["dim"], minlength=len(types))}
        cache[key]["width"] = cache[key]["dim"] / np.maximum(cache[key]["count"], 1.0)
    return cache[key]


def zipf_mass(k, alpha):
    """Sum_{i=1..k} i^-alpha (integral approximation, exact at k = 1); 0 for k < 1."""
    k = np.asarray(k, dtype=np.float64)
    one = np.abs(alpha - 1.0) < 1e-6
    tail = np.where(one, np.log(np.maximum(k, 1.0)),
                    (np.maximum(k, 1.0) ** (1.0 - alpha) - 1.0) / np.where(one, 1.0, 1.0 - alpha))
    return np.where(k >= 1.0, 1.0 + tail, 0.0)


#: Thresholds (expected occurrences of a category per sample) scanned for the frequent set.
HYBRID_THRESHOLDS = np.concatenate([[np.inf], np.logspace(1, -9, 41)])


def hybrid_curve(rows, pool, alpha):
    """For every threshold theta of :data:`HYBRID_THRESHOLDS`: the frequent rows of each table
    type (categories expected more than theta times per sample, category k of a table drawn with
    probability k^-alpha / H(R)) and the share of the table's lookups they serve.
    Returns (frequent rows, served fraction), each (thresholds x types)."""
    H = zipf_mass(rows, alpha)
    theta = HYBRID_THRESHOLDS[:, None]
    with np.errstate(divide="ignore", over="ignore"):
        k = np.floor((pool[None, :] / (theta * H[None, :])) ** (1.0 / alpha))
    k = np.clip(np.nan_to_num(k, nan=0.0, posinf=1e30), 0.0, rows[None, :])
    return k, zipf_mass(k, alpha) / H[None, :]


def hybrid_choice(model, c, mask, cost):
    """HugeCTR's hybrid embedding picks the frequent set by a bandwidth cost model: per
    configuration, the threshold minimising ``cost(f, k)`` (all-to-all of the infrequent
    lookups plus the all-reduce and update of the frequent rows). Returns (served fraction,
    frequent rows per table), each (N x table types), zero outside ``mask``."""
    ty = table_types(model)
    N, K = len(mask), len(ty["rows"])
    f_out, n_out = np.zeros((N, K)), np.zeros((N, K))
    idx = np.flatnonzero(mask)
    if not len(idx) or cost is None:
        return f_out, n_out
    for a in np.unique(c["popularity_zipf"][idx]):
        sub = idx[c["popularity_zipf"][idx] == a]
        k, f = hybrid_curve(ty["rows"], ty["pool"], max(float(a), ZIPF_MIN))  # 0: uniform, nearly
        t = cost(sub, f, k)  # (len(sub) x thresholds)
        best = np.argmin(t, axis=1)
        f_out[sub], n_out[sub] = f[best], k[best]
    return f_out, n_out


# ======================================================================== evaluation
def broadcast(batch: Mapping[str, Any]) -> tuple[dict[str, np.ndarray], int]:
    unknown = sorted(set(batch) - set(COLUMNS))
    if unknown:
        raise KeyError(f"unknown DLRM cost-model columns: {unknown}; known: {sorted(COLUMNS)}")
    missing = [k for k in REQUIRED if k not in batch]
    if missing:
        raise KeyError(f"missing required DLRM cost-model columns: {missing}")
    cols = {k: np.asarray(batch.get(k, d), dtype=np.float64) for k, (d, _) in COLUMNS.items()}
    lengths = {v.shape[0] for v in cols.values() if v.ndim == 1 and v.shape[0] != 1}
    if len(lengths) > 1:
        raise ValueError(f"DLRM columns have different lengths: {sorted(lengths)}")
    n = lengths.pop() if lengths else 1
    return {k: np.broadcast_to(v.reshape(-1) if v.ndim else v, (n,)).astype(np.float64) for k, v in cols.items()}, n


def evaluate_dlrm(model: Mapping[str, Any], batch: Mapping[str, Any], detail: bool = False) -> dict[str, np.ndarray]:
    """Score N configurations of one DLRM. ``model``: :func:`model_constants`; ``batch``: columns
    of :data:`COLUMNS` (arrays of length N or scalars). Returns float arrays of length N, all
    finite (see the module docstring for the model); with ``detail`` also the per-phase terms
    of :func:`evaluate_dlrm_detail`."""
    c, N = broadcast(batch)
    # the planner's (configurations x shards) matrices: chunks of at most ~4M elements
    chunk = max(256, CHUNK_ELEMENTS // max(len(model["rows"]), 1))
    if N > chunk:
        parts = [_evaluate_chunk(model, {k: v[i:i + chunk] for k, v in c.items()}, min(chunk, N - i), detail)
                 for i in range(0, N, chunk)]
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    return _evaluate_chunk(model, c, N, detail)


def evaluate_dlrm_detail(model: Mapping[str, Any], batch: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """:func:`evaluate_dlrm` plus the terms of one step's two phases behind it (``detail_*``),
    for laying out the schedule of a few configurations (:mod:`dse.trace`), not for sweeps.

    Forward compute: ``emb_f`` (embedding gather), ``bot_f``, ``inter_f``, ``top_f``, ``loss``,
    ``tp_f``, ``moe_f`` (serialised tensor-parallel all-reduces and expert all-to-alls);
    backward: ``top_b``, ``inter_b``, ``bot_b``, ``emb_b`` (sparse update), ``opt`` (dense
    optimizer), ``tp_b``, ``moe_b``. Collectives of the communication stream, their full time
    and exposed part: ``a2a_f``/``a2a_f_exposed``, ``fsdp_f``/``fsdp_f_exposed`` (forward),
    ``a2a_b``, ``dp_b``, ``emb_ar_b``, ``fsdp_b`` with ``_exposed`` (backward). ``fwd``/``bwd``
    are the phase times (compute + exposed), ``slowdown`` and ``overhead`` the rest of the step:
    ``iteration_time_s = fwd + bwd + slowdown + overhead``.
    """
    return evaluate_dlrm(model, batch, detail=True)


def _evaluate_chunk(model, c, N, detail=False) -> dict[str, np.ndarray]:
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        out = _evaluate(model, c, N, _embedding_plan(model, c, N, _hybrid_cost(model, c)), detail)
        # a cost-balanced placement that does not fit: place by memory instead, as planners do
        code = np.round(c["emb_sharding"])
        retry = np.flatnonzero((c["emb_planner"] < 0.5) & np.isin(code, PLANNED) & (out["memory_excess_bytes"] > 0))
        if len(retry):
            c2 = {k: v[retry] for k, v in c.items()}
            c2["emb_planner"] = np.ones(len(retry))
            out2 = _evaluate(model, c2, len(retry), _embedding_plan(model, c2, len(retry), _hybrid_cost(model, c2)),
                             detail)
            use = out2["memory_per_gpu_bytes"] < out["memory_per_gpu_bytes"][retry]
            for k in out:
                v = np.array(np.broadcast_to(out[k], (N,)), dtype=np.float64)
                v[retry[use]] = np.broadcast_to(out2[k], (len(retry),))[use]
                out[k] = v
    # a step time that is not a number must never read as the fastest: it becomes +inf (1e30)
    out["iteration_time_s"] = np.where(np.isnan(out["iteration_time_s"]), np.inf, out["iteration_time_s"])
    for k, v in out.items():
        out[k] = np.nan_to_num(np.broadcast_to(np.asarray(v, dtype=np.float64), (N,)).copy(),
                               nan=0.0, posinf=1e30, neginf=-1e30)
    return out


def _embedding_plan(model, c, N, hybrid_cost=None) -> dict[str, np.ndarray]:
    """Per-configuration embedding work of the critical GPU (the one with the most embedding
    traffic) and memory of the fullest GPU, for the chosen sharding. Per-step quantities."""
    rows, dim, pool = model["rows"], model["dim"], model["pooling"]
    T = len(rows)
    n = np.maximum(np.round(c["num_gpus"]), 1.0)
    b = c["microbatch"]
    B = b * n
    gpn = np.clip(np.round(c["gpus_per_node"]), 1.0, n)
    code = np.round(c["emb_sharding"]).astype(np.int64)
    eb, act = c["emb_bytes"], c["act_bytes"]  # storage / exchange bytes; activation bytes
    out = {k: np.zeros(N) for k in (
        "lookups", "gather_elems", "miss_elems", "out_elems", "uniq_elems", "uniq_rows", "mem_elems", "mem_rows",
        "a2a_elems", "a2a_group", "a2a_stride", "rs_elems", "rs_group", "a2a2_elems", "a2a2_group",
        "a2a2_stride", "rep_elems", "xnode_elems", "xnode_group", "max_shard_elems", "max_shard_table",
        "replicated_tables", "plan_memory_balanced", "frequent_fraction", "frequent_rows")}
    out["a2a_group"][:] = n
    out["a2a_stride"][:] = 1.0
    out["rs_group"][:] = 1.0
    out["a2a2_group"][:] = 1.0
    out["a2a2_stride"][:] = 1.0
    out["xnode_group"][:] = 1.0
    sizes = rows * dim
    planner = np.round(c["emb_planner"])
    ty = table_types(model)
    cache = c["l2_bytes"] / eb  # elements of table rows one GPU's L2 holds
    alpha = c["popularity_zipf"]

    def put(mask, **kv):
        for k, v in kv.items():
            out[k][mask] = np.broadcast_to(v, (N,))[mask] if np.ndim(v) else v

    def tablewise(mask, tables, n_bins, Bsrc, column_wise=False, split_hot=False, row_split=1.0):
        """Place ``tables`` on ``n_bins`` GPUs for the configs in ``mask`` (same n_bins), serving
        Bsrc samples (array), each bin's tables row-split over ``row_split`` GPUs (their L2s
        cache it together); returns the per-config critical-GPU quantities of a bin."""
        idx = np.flatnonzero(mask)
        pl = placement(model, int(n_bins), column_wise, tables, split_hot)
        if pl["shards"] == 0:
            return None
        Bs = Bsrc[idx][:, None]
        types = (pl["type_rows"][None, :], Bs, pl["type_pool"][None, :])
        # rows each such shard touches, share of its lookups the L2 misses
        U, M = _rows_and_misses(*types, pl["type_width"][None, :], alpha[idx, None], cache[idx, None] * row_split)
        uniq_per_shard = U * pl["type_width"][None, :]  # elements each shard of a type updates
        miss_per_shard = Bs * M * (pl["type_pool"] * pl["type_width"])[None, :]  # and reads from HBM
        best = None
        for which, ld in enumerate(pl["plans"]):
            # elements each GPU moves: lookups, L2 misses and pooled output per sample, updates
            traffic = (Bs * (ld["gather"] + ld["out"])[None, :]
                       + (miss_per_shard + 2.0 * uniq_per_shard) @ ld["counts"])
            g = np.argmax(traffic, axis=1)  # the GPU with the most embedding traffic
            on_g = ld["counts"][:, g].T  # its shards of each type
            stats = {
                "lookups": Bs[:, 0] * ld["lookups"][g],
                "gather_elems": Bs[:, 0] * ld["gather"][g],
                "miss_elems": np.einsum("nt,nt->n", miss_per_shard, on_g),
                "out_elems": Bs[:, 0] * ld["out"][g],
                "uniq_elems": np.einsum("nt,nt->n", uniq_per_shard, on_g),
                "uniq_rows": np.einsum("nt,nt->n", U, on_g),
                "mem_elems": np.full(len(idx), ld["mem"].max()),
                "mem_rows": np.full(len(idx), ld["rows"].max()),
                "max_out": Bs[:, 0] * ld["out"].max(),
                "plan": np.full(len(idx), float(which)),
            }
            if best is None:
                best = stats
            else:  # the memory-balanced plan where asked for
                use = planner[idx] > 0
                best = {k: np.where(use, stats[k], best[k]) for k in stats}
        return idx, best, pl["max_shard"], pl["max_shard_table"]

    # ------------------------------------------------------------ data parallel (replicated)
    m = code == SHARDING["data_parallel"]
    if m.any():
        U, M = _rows_and_misses(ty["rows"][None, :], b[:, None], ty["pool"][None, :], ty["width"][None, :],
                                alpha[:, None], cache[:, None])
        put(m, lookups=b * pool.sum(), gather_elems=b * (pool * dim).sum(), out_elems=b * dim.sum(),
            miss_elems=b * ((M * ty["pool"][None, :]) @ ty["dim"]),
            uniq_elems=U @ ty["dim"], uniq_rows=U @ ty["count"], mem_elems=sizes.sum(), mem_rows=rows.sum(),
            rep_elems=sizes.sum(), max_shard_elems=sizes.max(), max_shard_table=float(np.argmax(sizes)),
            replicated_tables=float(T))
        out["a2a_group"][m] = 1.0

    # ------------------------------------------------------------ row-wise over all GPUs
    m = code == SHARDING["row"]
    if m.any():
        U, M = _rows_and_misses(ty["rows"][None, :], B[:, None], ty["pool"][None, :], ty["width"][None, :],
                                alpha[:, None], (cache * n)[:, None], split=n[:, None])  # a shard and a cache per GPU
        put(m, lookups=B * pool.sum() / n, gather_elems=B * (pool * dim).sum() / n, out_elems=B * dim.sum(),
            miss_elems=B / n * ((M * ty["pool"][None, :]) @ ty["dim"]),
            uniq_elems=U @ ty["dim"], uniq_rows=U @ ty["count"], mem_elems=sizes.sum() / n, mem_rows=rows.sum() / n,
            rs_elems=B * dim.sum(), rs_group=n, max_shard_elems=sizes.max() / n,
            max_shard_table=float(np.argmax(sizes)))
        out["a2a_group"][m] = 1.0

    # ------------------------------------------------------------ hybrid (HugeCTR MLPerf v1)
    m = code == SHARDING["hybrid"]
    if m.any():
        f_y, n_y = hybrid_choice(model, c, m, hybrid_cost)  # per table type (N x types)
        nf = n_y @ ty["count"]
        nf_el = n_y @ ty["dim"]
        Li = B[:, None] * ty["pool"][None, :] * (1.0 - f_y) / n[:, None]
        Ri = np.maximum(ty["rows"][None, :] - n_y, 0.0) / n[:, None]
        # the infrequent tail is close to uniform: the Zipf head it lacks is the frequent set
        Ui = distinct_keys(Li, np.maximum(Ri, 1.0), 0.0)  # each infrequent lookup a uniform draw
        look = (b[:, None] * f_y + B[:, None] * (1.0 - f_y) / n[:, None]) * ty["pool"][None, :]
        # the cache keeps the hottest rows, all frequent: of a replica's b samples' lookups
        # (the whole table's popularity) the infrequent share misses, the rest of the misses
        # fall on the frequent set; every lookup of the uniform infrequent shard misses
        _, M = _rows_and_misses(ty["rows"][None, :], b[:, None], ty["pool"][None, :], ty["width"][None, :],
                                alpha[:, None], cache[:, None])
        miss = (b[:, None] * np.maximum(M - (1.0 - f_y), 0.0) + B[:, None] * (1.0 - f_y) / n[:, None]) * ty["pool"][None, :]
        put(m, lookups=look @ ty["count"], gather_elems=look @ ty["dim"], miss_elems=miss @ ty["dim"],
            out_elems=b * dim.sum(), uniq_elems=Ui @ ty["dim"] + nf_el, uniq_rows=Ui @ ty["count"] + nf,
            mem_elems=sizes.sum() / n + nf_el, mem_rows=rows.sum() / n + nf,
            a2a_elems=b * ((1.0 - f_y) @ ty["dim"]), rep_elems=nf_el, max_shard_elems=sizes.max() / n,
            max_shard_table=float(np.argmax(sizes)),
            frequent_fraction=(f_y * ty["pool"][None, :]) @ ty["count"] / max(pool.sum(), 1e-30),
            frequent_rows=nf)

    # ------------------------------------------------------------ table-wise and column-wise
    for name, column_wise in (("table", False), ("column", True)):
        m = code == SHARDING[name]
        for nv in np.unique(n[m]):
            sub = m & (n == nv)
            res = tablewise(sub, None, nv, B, column_wise)
            if res is None:
                continue
            idx, st, mshard, tshard = res
            out["lookups"][idx] = st["lookups"]
            out["gather_elems"][idx] = st["gather_elems"]
            out["miss_elems"][idx] = st["miss_elems"]
            out["out_elems"][idx] = st["out_elems"]
            out["uniq_elems"][idx] = st["uniq_elems"]
            out["uniq_rows"][idx] = st["uniq_rows"]
            out["mem_elems"][idx] = st["mem_elems"]
            out["mem_rows"][idx] = st["mem_rows"]
            out["a2a_elems"][idx] = np.maximum(st["max_out"], b[idx] * dim.sum())
            out["max_shard_elems"][idx] = mshard
            out["max_shard_table"][idx] = tshard
            out["plan_memory_balanced"][idx] = st["plan"]

    # ------------------------------------------------------------ table-wise across nodes, row-wise inside
    m = code == SHARDING["table_row"]
    for nv, gv in {(a, g) for a, g in zip(n[m], gpn[m])}:
        sub = m & (n == nv) & (gpn == gv)
        nodes = max(int(nv // gv), 1)
        res = tablewise(sub, None, nodes, B, False, row_split=gv)
        if res is None:
            continue
        idx, st, mshard, tshard = res
        g = gv
        out["lookups"][idx] = st["lookups"] / g
        out["gather_elems"][idx] = st["gather_elems"] / g
        out["miss_elems"][idx] = st["miss_elems"] / g
        out["out_elems"][idx] = st["max_out"]
        out["uniq_elems"][idx] = st["uniq_elems"] / g
        out["uniq_rows"][idx] = st["uniq_rows"] / g
        out["mem_elems"][idx] = st["mem_elems"] / g
        out["mem_rows"][idx] = st["mem_rows"] / g
        out["rs_elems"][idx] = st["max_out"]          # partial sums of the node's tables, B samples
        out["rs_group"][idx] = g
        out["a2a_group"][idx] = 1.0
        out["a2a2_elems"][idx] = np.maximum(st["max_out"] / g, b[idx] * dim.sum())
        out["a2a2_group"][idx] = nodes
        out["a2a2_stride"][idx] = g
        out["max_shard_elems"][idx] = mshard / g
        out["max_shard_table"][idx] = tshard
        out["plan_memory_balanced"][idx] = st["plan"]

    # ------------------------------------------------------------ auto / hier_auto / node_sharded
    for name in ("auto", "hier_auto", "node_sharded"):
        m = code == SHARDING[name]
        if not m.any():
            continue
        hier = name == "node_sharded"  # planned inside a node, nodes are replicas
        nodewise = name == "hier_auto"  # planned over nodes, row-split inside each
        # bins the model-parallel tables are planned over: all GPUs, a node's GPUs, or the nodes
        group = np.where(hier, gpn, np.where(nodewise, np.maximum(np.floor(n / gpn), 1.0), n))
        # replicated: the tables with rows <= b * act / grad_bytes (all of them on a 1-GPU group),
        # i.e. the first ``k`` tables in increasing rows
        sorted_rows = np.sort(rows)
        k_rep = np.searchsorted(sorted_rows, b * act / c["grad_bytes"], side="right").astype(np.float64)
        k_rep = np.where((group <= 1.0) & ~(nodewise & (n > 1.0)), float(T), k_rep)
        idx_m = np.flatnonzero(m)
        key = np.stack([group[idx_m], n[idx_m], k_rep[idx_m], gpn[idx_m]], axis=1)
        uniq, inverse = np.unique(key, axis=0, return_inverse=True)
        for j, row in enumerate(uniq):  # distinct (group, GPUs, replicated set), not configurations
            gv, nv, kr, per_node = float(row[0]), float(row[1]), int(row[2]), float(row[3])
            members = idx_m[inverse.reshape(-1) == j]
            r = np.zeros(T, dtype=bool)
            r[np.argsort(rows, kind="stable")[:kr]] = True
            sub = np.zeros(N, dtype=bool)
            sub[members] = True
            # samples whose lookups a bin serves: the group's (auto, node_sharded) or, planned
            # over nodes, every sample of the job; a node's work is then split over its GPUs
            Bg = b * nv if nodewise else b * gv
            split = per_node if nodewise else 1.0
            tw = np.flatnonzero(~r)  # model-parallel tables (hot ones split column-wise)
            repl = np.flatnonzero(r)
            bi = b[members]
            rep_tables = (rows[repl][None, :], bi[:, None], pool[repl][None, :])
            Ur, Mr = _rows_and_misses(*rep_tables, dim[repl][None, :], alpha[members, None], cache[members, None])
            look = bi * pool[repl].sum()
            gath = bi * (pool * dim)[repl].sum()
            miss = bi * (Mr @ (pool * dim)[repl])
            uniq = Ur @ dim[repl]
            urows = Ur.sum(axis=1)
            mem = np.full(len(members), sizes[repl].sum())
            mrows = np.full(len(members), rows[repl].sum())
            a2a = np.zeros(len(members))
            mshard, tshard = float(sizes[repl].max(initial=0.0)), int(np.argmax(sizes))
            plan = np.zeros(len(members))
            out_el = bi * dim.sum()
            if len(tw):
                _, st, mshard, tshard = tablewise(sub, tw, gv, Bg, False, split_hot=True, row_split=split)
                look = look + st["lookups"] / split
                gath = gath + st["gather_elems"] / split
                miss = miss + st["miss_elems"] / split
                uniq = uniq + st["uniq_elems"] / split
                urows = urows + st["uniq_rows"] / split
                mem = mem + st["mem_elems"] / split
                mrows = mrows + st["mem_rows"] / split
                mshard = mshard / split
                plan = st["plan"]
                if nodewise:
                    # row-split inside the node: partial sums of the node's tables for every
                    # sample, reduce-scattered over its GPUs, then one all-to-all across nodes
                    # between same-rank GPUs (as table_row)
                    out_el = bi * dim[repl].sum() + st["max_out"]
                    out["rs_elems"][members] = st["max_out"]
                    out["rs_group"][members] = per_node
                    out["a2a2_elems"][members] = np.maximum(st["max_out"] / per_node, bi * dim[tw].sum())
                    out["a2a2_group"][members] = gv
                    out["a2a2_stride"][members] = per_node
                else:
                    a2a = np.maximum(st["max_out"], bi * dim[tw].sum())
            out["lookups"][members] = look
            out["gather_elems"][members] = gath
            out["miss_elems"][members] = miss
            out["out_elems"][members] = out_el
            out["uniq_elems"][members] = uniq
            out["uniq_rows"][members] = urows
            out["mem_elems"][members] = mem
            out["mem_rows"][members] = mrows
            out["a2a_elems"][members] = a2a
            out["a2a_group"][members] = 1.0 if nodewise else gv
            out["rep_elems"][members] = sizes[repl].sum()
            out["replicated_tables"][members] = float(len(repl))
            out["max_shard_elems"][members] = mshard
            out["max_shard_table"][members] = tshard
            out["plan_memory_balanced"][members] = plan
            if hier and nv > gv:
                # model-parallel tables are replicated across nodes: reduce the rows the whole
                # global batch touches in this GPU's share over the n/gpn nodes
                Bn = b[members] * nv
                touched = _unique_rows(rows[tw][None, :], Bn[:, None], pool[tw][None, :],
                                       alpha[members, None], split=gv) @ dim[tw]
                out["xnode_elems"][members] = touched
                out["xnode_group"][members] = nv / gv
    return out


def _hybrid_cost(model, c):
    """The cost function :func:`hybrid_choice` minimises, for the configurations ``c``."""
    p_dense = dense_params(model)
    p_rep = p_dense["bottom"] + p_dense["top"] + p_dense["interaction"]

    def cost(sub, f, k):
        """Step time a frequent set adds or saves (configs ``sub`` x thresholds): the all-to-all
        of the infrequent lookups forward and backward, the growth of the fused gradient
        all-reduce, the update of the replicated frequent rows."""
        col = {key: v[sub][:, None] for key, v in c.items()}
        net = _network(col)
        nn_ = np.maximum(np.round(col["num_gpus"]), 1.0)
        ty = table_types(model)
        a2a = 2.0 * coll.all_to_all_time(col["microbatch"] * ((1.0 - f) @ ty["dim"])[None, :]
                                         * exchange_bytes(col), nn_, 1.0, net)
        freq_el = (k @ ty["dim"])[None, :]  # k frequent rows in each table of the type
        dense = p_rep / np.maximum(col["tp"], 1.0) * col["grad_bytes"]
        ar = (coll.allreduce_time(dense + freq_el * col["grad_bytes"], nn_, 1.0, net)
              - coll.allreduce_time(dense + 0.0 * freq_el, nn_, 1.0, net))
        upd = freq_el * 2.0 * col["emb_bytes"] / (col["hbm_bw"] * col["eff_gather"])
        return a2a + ar + upd

    return cost


#: x16 host uplinks (CPU root complexes or PCIe-switch uplinks) the GPUs of a PCIe server share.
PCIE_HOST_LINKS = 2.0


def exchange_bytes(c) -> np.ndarray:
    """Bytes per pooled element and pooled-gradient element: ``exchange_bytes``, or the tables'
    ``emb_bytes`` where it is 0."""
    return np.where(c["exchange_bytes"] > 0, c["exchange_bytes"], c["emb_bytes"])


def _network(c) -> coll.Network:
    """The two-level network. GPUs without NVLink (``nvlink_domain`` 1, where ``nvlink_bw`` is
    the PCIe link) exchange data inside a server through its PCIe fabric: the node is the inner
    domain, and its GPUs share about :data:`PCIE_HOST_LINKS` x16 uplinks, so each GPU gets
    min(1, PCIE_HOST_LINKS / gpus_per_node) of its link."""
    gpn = np.maximum(np.round(c["gpus_per_node"]), 1.0)
    pcie = (c["nvlink_domain"] <= 1.0) & (gpn > 1.0)
    domain = np.where(pcie, gpn, c["nvlink_domain"])
    inner = c["nvlink_bw"] * c["eff_nvlink"] * np.where(pcie, np.minimum(1.0, PCIE_HOST_LINKS / gpn), 1.0)
    return coll.Network(inner, c["scaleout_bw"] * c["eff_scaleout"], c["nvlink_latency"],
                        c["scaleout_latency"], domain, c["rail_optimized"], np.where(pcie, 0.0, c["nvlink_mesh"]))


def _evaluate(model, c, N, emb, detail=False) -> dict[str, np.ndarray]:
    # nothing is exchanged inside a group of one GPU
    emb["a2a_elems"] = np.where(emb["a2a_group"] > 1, emb["a2a_elems"], 0.0)
    emb["a2a2_elems"] = np.where(emb["a2a2_group"] > 1, emb["a2a2_elems"], 0.0)
    emb["rs_elems"] = np.where(emb["rs_group"] > 1, emb["rs_elems"], 0.0)
    sh = layer_shapes(model)
    n = np.maximum(np.round(c["num_gpus"]), 1.0)
    b = c["microbatch"]
    B = b * n
    tp = np.maximum(np.round(c["tp"]), 1.0)
    ep = np.maximum(np.round(c["ep"]), 1.0)
    dp = np.maximum(n / tp, 1.0)
    fsdp = c["zero"] >= 3
    act, eb = c["act_bytes"], c["emb_bytes"]
    xb = exchange_bytes(c)  # pooled vectors and their gradients
    train = c["train"] > 0
    fz_emb = (c["freeze_emb"] > 0) | ~train
    fz_bot = (c["freeze_bottom"] > 0) | ~train
    fz_top = (c["freeze_top"] > 0) | ~train
    hbm = c["hbm_bw"] * c["eff_hbm"]
    gat = c["hbm_bw"] * c["eff_gather"]
    mm_rate = c["peak_flops"] * c["eff_matmul"]
    # the depth at half efficiency is a fixed cost per output tile: in multiply-adds it scales
    # with the format's peak (FP32 CUDA-core or TF32 GEMMs amortise it over fewer K)
    k_half = c["matmul_k_half"] * np.minimum(c["peak_flops"] / np.maximum(c["peak_flops_16"], 1.0), 1.0)

    def gemm(M, K, Nn, ops=1.0):
        """``ops`` GEMMs (M x K) @ (K x Nn): roofline with the depth efficiency K/(K+K_half)."""
        flops = 2.0 * M * K * Nn * ops
        depth = np.maximum(K, 1.0)
        rate = mm_rate * depth / (depth + k_half)
        traffic = ops * act * (M * K + K * Nn + M * Nn)
        return np.maximum(flops / rate, traffic / hbm)

    E, topk = model["moe_experts"], max(model["moe_top_k"], 1.0)
    moe = E > 0
    local_e = np.maximum(E / ep, 1.0)

    # a tensor-parallel group runs its tp GPUs' samples through every GEMM, each GPU holding
    # 1/tp of the weights (Megatron column/row pairs): b tp rows per GPU, N/tp columns
    bt = b * tp

    def mlp(layers, frozen, need_dgrad_in):
        """Forward, backward time and activation-elements of an MLP over b samples per GPU.

        ``need_dgrad_in``: whether the gradient w.r.t. the MLP's input is needed (the bottom
        MLP's input are dense features: never; the top MLP's: when anything below trains).
        Tensor parallel splits every GEMM tp ways over the group's b tp samples."""
        f = bwd = 0.0
        act_el = 0.0
        a2a_moe_f = 0.0
        kernels = 0.0
        for i, (K, Nn) in enumerate(layers):
            is_moe = moe and Nn > 1
            if is_moe:
                tok = bt * topk / local_e
                lf = gemm(tok, K, Nn / tp, local_e) + gemm(bt, K, E)
                ld = gemm(tok, Nn / tp, K, local_e)
                lw = gemm(K, tok, Nn / tp, local_e) + gemm(K, bt, E)
                a2a_moe_f = a2a_moe_f + 2.0 * coll.all_to_all_time(b * topk * K * act, ep, 1.0, net)
                rows_ = bt * topk
            else:
                lf = gemm(bt, K, Nn / tp)
                ld = gemm(bt, Nn / tp, K)
                lw = gemm(K, bt, Nn / tp)
                rows_ = bt
            ew = rows_ * Nn / tp * act / hbm
            f = f + lf + ELEM_PASSES_F * ew
            # the data gradient of the first layer only when something below it trains
            dg = np.where(need_dgrad_in, 1.0, 0.0) if i == 0 else 1.0
            bwd = bwd + np.where(frozen, 0.0, lw) + dg * ld + ELEM_PASSES_B * ew
            act_el = act_el + rows_ * (K + 2.0 * Nn / tp)
            kernels += 1.0
        return f, bwd, act_el, a2a_moe_f, kernels

    net = _network(c)

    # ---------------------------------------------------------------- dense compute
    # who needs gradients: the top MLP's input gradient if the interaction, embeddings or bottom
    # MLP train; the bottom MLP's backward only if it trains (its input is data)
    below_top = ~(fz_emb & fz_bot)
    bot_f, bot_b_full, bot_act, bot_moe_a2a, k_bot = mlp(sh["bottom"], fz_bot, False)
    bot_b = np.where(fz_bot, 0.0, bot_b_full)
    top_f, top_b, top_act, top_moe_a2a, k_top = mlp(sh["top"], fz_top, below_top)
    # the top's first layer data gradient is needed only when something below trains
    T, d0, D0, I = sh["T"], sh["d0"], sh["D0"], sh["top_in"]
    inter_f = inter_b = 0.0
    inter_act = 0.0
    k_inter = 2.0
    if model["tf_layers"] > 0:
        s, h, ff, Lt = model["tf_seq_len"], model["tf_hidden"], model["tf_ffn"], model["tf_layers"]
        tok = bt * s
        dmean = float(np.mean(model["dim"]))
        proj_f = gemm(tok, dmean, h) if dmean != h else 0.0
        lay_f = gemm(tok, h, 3.0 * h / tp) + gemm(tok, h / tp, h) + gemm(tok, h, ff / tp) + gemm(tok, ff / tp, h)
        lay_b = 2.0 * lay_f
        attn = 4.0 * tok * s * h / tp / (c["peak_flops_16"] * c["eff_attention"])
        elem = (16.0 * tok * h + 2.0 * tok * ff / tp) * act / hbm
        inter_f = proj_f + Lt * (lay_f + attn + elem)
        inter_b = 2.0 * proj_f + Lt * (lay_b + 2.5 * attn + 2.0 * elem)
        inter_act = Lt * tok * (10.0 * h + 2.0 * ff / tp) + tok * h
        k_inter += Lt * 8.0
    elif model["interaction"] == "dot":
        gram = 2.0 * (T + 1.0) ** 2 * d0 * b
        rate = mm_rate * d0 / (d0 + k_half)
        io_f = b * act * ((T + 1.0) * d0 * 2.0 + (T + 1.0) ** 2 + I)  # concat, Gram, pairs + output
        inter_f = np.maximum(gram / rate, io_f / hbm)
        inter_b = np.maximum(2.0 * gram / rate, 2.0 * io_f / hbm)
        inter_act = b * ((T + 1.0) * d0 + I)
    elif model["interaction"] == "dcnv2":
        r, Lc = model["cross_rank"], model["cross_layers"]
        if r > 0:
            cf = gemm(bt, D0, r / tp) + gemm(bt, r / tp, D0)
            cb = gemm(bt, r / tp, D0) + gemm(bt, D0, r / tp) + gemm(D0, bt, r / tp) + gemm(r / tp, bt, D0)
            inter_act = Lc * bt * (4.0 * D0 + r / tp)
        else:
            cf = gemm(bt, D0, D0 / tp)
            cb = gemm(bt, D0 / tp, D0) + gemm(D0, bt, D0 / tp)
            inter_act = Lc * bt * (4.0 * D0 + D0 / tp)
        ew = CROSS_PASSES * bt * D0 * act / hbm  # x0 and x_l replicated in the group
        inter_f = Lc * (cf + ew) + 2.0 * b * D0 * act / hbm  # + the concatenation of x0
        inter_b = Lc * (cb + 2.0 * ew) + 2.0 * b * D0 * act / hbm
        k_inter += Lc * 4.0
    else:  # concat
        inter_f = 2.0 * b * (sh["dsum"] + d0) * act / hbm
        inter_b = inter_f
        inter_act = b * (sh["dsum"] + d0)
    inter_b = np.where(below_top | ~fz_top, inter_b, 0.0)
    loss = 4.0 * b * act / hbm

    # ---------------------------------------------------------------- dense parameters
    dpar = dense_params(model)
    p_bot = dpar["bottom"] + dpar["experts_bottom"] / np.maximum(ep, 1.0)
    p_top = dpar["top"] + dpar["interaction"] + dpar["experts_top"] / np.maximum(ep, 1.0)
    p_gpu = (p_bot + p_top) / tp
    p_train = np.where(fz_bot, 0.0, p_bot) + np.where(fz_top, 0.0, p_top)
    p_train_gpu = p_train / tp
    opt_state = {0: 0.0, 1: 4.0, 2: 4.0, 3: 8.0}
    dcode = np.round(c["dense_optimizer"])
    dense_state = np.select([dcode == k for k in opt_state], list(opt_state.values()), 0.0)
    master = np.where((c["master_weights"] > 0) & (act < 4.0), 4.0, 0.0)
    # dense optimizer step: read/write weights (+master), state, read gradient
    dense_opt = np.where(train, p_train_gpu / np.where(fsdp, dp, 1.0)
                         * (2.0 * (act + master) + 2.0 * dense_state + act) / hbm, 0.0)

    # ---------------------------------------------------------------- embedding compute
    lookups, g_el, out_el = emb["lookups"], emb["gather_elems"], emb["out_elems"]
    # the forward reads from HBM the rows its L2 misses (hits cost their index read)
    emb_f = (emb["miss_elems"] * eb + lookups * INDEX_BYTES) / gat + out_el * xb / hbm
    ecode = np.round(c["emb_optimizer"])
    st_el = np.select([ecode == 1, ecode == 3], [4.0, 8.0], 0.0)  # state bytes per element
    st_row = np.where(ecode == 2, 4.0, 0.0)  # row-wise Adagrad: one fp32 per row
    # each lookup reads its sample's pooled gradient: uniform over the gradients the GPU received
    # (out_el values, read once in full below), an LRU L2 of l2_bytes holds l2_bytes / that of them
    held = np.clip(c["l2_bytes"] / np.maximum(out_el * xb, 1.0), 0.0, 1.0)
    upd_rand = g_el * xb * (1.0 - held) + emb["uniq_elems"] * 2.0 * (eb + st_el) + emb["uniq_rows"] * 2.0 * st_row
    emb_b = np.where(fz_emb, 0.0, upd_rand / gat + (lookups * SORT_BYTES_PER_LOOKUP + out_el * xb) / hbm)

    # ---------------------------------------------------------------- communication
    # embedding all-to-all (pooled values), reduce-scatter of row-wise partial sums, the
    # cross-node all-to-all of table_row; the same sizes again for the gradients
    # the pooled vectors travel in the tables' dtype (frameworks cast to the compute dtype after
    # the exchange: Merlin Distributed Embeddings, TorchRec's default; HugeCTR's hybrid embedding
    # keeps FP16 tables) or in exchange_bytes (HugeCTR's embedding collection: FP16 vectors)
    a2a_one = coll.all_to_all_time(emb["a2a_elems"] * xb, emb["a2a_group"], 1.0, net)
    rs_one = np.where(emb["rs_group"] > 1, coll.allgather_time(emb["rs_elems"] * xb, emb["rs_group"], 1.0, net), 0.0)
    a2a2_one = coll.all_to_all_time(emb["a2a2_elems"] * xb, emb["a2a2_group"], emb["a2a2_stride"], net)
    emb_comm_f = a2a_one + rs_one + a2a2_one
    emb_comm_b = np.where(fz_emb, 0.0, emb_comm_f)
    # replicated tables' gradients (dense all-reduce over all GPUs) and the cross-node reduction
    # of hierarchically sharded tables' touched rows
    rep_el = np.where(fz_emb, 0.0, emb["rep_elems"])
    xnode = np.where(fz_emb | (emb["xnode_group"] <= 1), 0.0,
                     coll.allreduce_time(emb["xnode_elems"] * c["grad_bytes"], emb["xnode_group"],
                                         np.maximum(c["gpus_per_node"], 1.0), net))
    # dense gradients: all-reduce over dp (FSDP: reduce-scatter, plus weight gathers forward and
    # backward); tensor-parallel activation all-reduces (one per column/row pair, each pass)
    gb = c["grad_bytes"]
    p_dense_rep = (dpar["bottom"] + dpar["top"] + dpar["interaction"]) / tp
    p_exp = (dpar["experts_bottom"] + dpar["experts_top"]) / (tp * ep)
    frac_train = np.where(p_gpu > 0, p_train_gpu / np.maximum(p_gpu, 1e-30), 0.0)
    # one bucketed all-reduce carries the dense gradients and the replicated embedding rows'
    # (HugeCTR's grouped all-reduce, DDP buckets); FSDP reduce-scatters the dense part instead
    dense_el = np.where(fsdp, 0.0, p_dense_rep * frac_train)
    fused = dense_el + rep_el
    fused_ar = np.where(train & (fused > 0), coll.allreduce_time(fused * gb, n, 1.0, net), 0.0)
    exp_ar = np.where(train & (p_exp * frac_train > 0) & ~fsdp,
                      coll.allreduce_time(p_exp * frac_train * gb, np.maximum(dp / ep, 1.0), tp * ep, net), 0.0)
    rep_share = np.where(fused > 0, rep_el / np.maximum(fused, 1e-30), 0.0)
    rep_ar = fused_ar * rep_share
    dp_ar = fused_ar * (1.0 - rep_share) + exp_ar
    fsdp_rs = np.where(train & (p_train > 0), coll.allgather_time(p_gpu * frac_train * gb, dp, tp, net), 0.0)
    fsdp_ag = coll.allgather_time(p_gpu * act, dp, tp, net)
    fsdp_f = np.where(fsdp, fsdp_ag, 0.0)
    fsdp_b = np.where(fsdp & train, fsdp_ag + fsdp_rs, 0.0)
    n_dense = float(len(sh["bottom"]) + len(sh["top"]))
    tp_one = coll.allreduce_time(b * tp * np.maximum(np.mean([w for _, w in sh["bottom"] + sh["top"]]), 1.0) * act,
                                 tp, 1.0, net)
    tp_f = np.where(tp > 1, tp_one * np.ceil(n_dense / 2.0), 0.0)
    tp_b = np.where((tp > 1) & train, tp_f, 0.0)
    moe_a2a_f = bot_moe_a2a + top_moe_a2a
    moe_a2a_b = np.where(train, moe_a2a_f, 0.0)

    # ---------------------------------------------------------------- two streams per phase
    slow = c["overlap_slowdown"]
    on_a2a, on_dp = c["overlap_a2a"], c["overlap_dp"]
    comp_f = emb_f + bot_f + inter_f + top_f + loss + tp_f + moe_a2a_f
    fwd_time, fwd_exp, fwd_hid = two_stream_layer(comp_f, [
        (emb_comm_f, bot_f, on_a2a),
        (fsdp_f, bot_f + inter_f + top_f, on_dp),
    ])
    # backward order: the top MLP's gradients come first (the first all-reduce bucket), the
    # interaction's give the pooled vectors' gradients, whose all-to-all goes first on the
    # communication stream (the sparse update waits for it) under the bottom MLP's backward;
    # the dense optimizer step waits for the all-reduce: the stream runs from the end of the
    # interaction's backward (the top MLP's without an all-to-all) to the optimizer step
    bwd_window = inter_b + bot_b + emb_b
    comp_b = np.where(train, top_b + inter_b + bot_b + emb_b + dense_opt + tp_b + moe_a2a_b, 0.0)
    # FSDP's gathers hold the stream first: the all-to-all starts after them, so only the part
    # of the bottom MLP's backward that follows can hide it
    fsdp_delay = np.where(on_dp > 0, np.maximum(fsdp_b - (top_b + inter_b), 0.0), 0.0)
    bwd_time, bwd_exp, bwd_hid = two_stream_layer(comp_b, [
        (emb_comm_b, np.maximum(bot_b - fsdp_delay, 0.0), on_a2a),
        (dp_ar, bwd_window, on_dp),
        (rep_ar + xnode, bwd_window, on_dp),
        (fsdp_b, bwd_window, on_dp),
    ], lead=np.where(fsdp_b > 0, 0.0, top_b + np.where((emb_comm_b > 0) & (on_a2a > 0), inter_b, 0.0)),
        tail=dense_opt)  # FSDP's gathers hold the stream from the backward's start
    # the exposed time in schedule order: the sparse update waits for the all-to-all, which only
    # the bottom MLP's backward covers (after FSDP's gathers, which hold the stream from the
    # start); the all-reduces take the rest of what the stream spills
    ov = [on_a2a > 0, on_dp > 0, on_dp > 0, on_dp > 0]
    times = [emb_comm_b, dp_ar, rep_ar + xnode, fsdp_b]
    reorder = bool(np.any(ov[0] & (emb_comm_b > 0)))  # (nothing to reorder without an overlapped all-to-all)
    if reorder:
        spill = sum(np.where(o, e, 0.0) for o, e in zip(ov, bwd_exp))
        rest = sum(np.where(o, t, 0.0) for o, t in zip(ov[1:], times[1:]))
        a2a_wait = np.maximum(np.maximum(top_b + inter_b, fsdp_b) + emb_comm_b - (top_b + inter_b + bot_b), 0.0)
        a2a_exp = np.clip(a2a_wait, np.maximum(spill - rest, 0.0), np.minimum(spill, emb_comm_b))
        a2a_exp = np.where(ov[0], a2a_exp, bwd_exp[0])
        rest_spill = spill - np.where(ov[0], a2a_exp, 0.0)
        share = np.minimum(rest_spill / np.maximum(rest, 1e-30), 1.0)
        bwd_exp = [a2a_exp] + [np.where(o, t * share, e) for o, t, e in zip(ov[1:], times[1:], bwd_exp[1:])]
        bwd_hid = [np.where(o, t - e, 0.0) for o, t, e in zip(ov, times, bwd_exp)]
    bwd_time = np.where(train, bwd_time, 0.0)
    hidden = sum(fwd_hid) + np.where(train, sum(bwd_hid), 0.0)
    kernels = np.where(train, KERNELS_PER_LAYER_TRAIN * (k_bot + k_top) + KERNELS_FIXED_TRAIN + 3.0 * k_inter,
                       KERNELS_PER_LAYER_INFER * (k_bot + k_top) + KERNELS_FIXED_INFER + k_inter)
    overhead = c["op_latency"] * kernels + c["step_overhead"]
    iteration = fwd_time + bwd_time + slow * hidden + overhead

    # ---------------------------------------------------------------- memory per GPU
    emb_weights = emb["mem_elems"] * eb
    emb_state = np.where(fz_emb, 0.0, emb["mem_elems"] * st_el + emb["mem_rows"] * st_row)
    shard_d = np.where(fsdp, dp, 1.0)
    # FSDP gathers two layers' weights at a time, unless there is nothing to shard (one rank)
    dense_w = p_gpu * (act + master) / shard_d + np.where(fsdp & (shard_d > 1),
                                                           2.0 * p_gpu / np.maximum(n_dense, 1.0) * act, 0.0)
    dense_g = p_train_gpu * act / shard_d
    dense_o = p_train_gpu * dense_state / shard_d
    act_el = bot_act + top_act + inter_act + b * sh["dsum"]  # + the received pooled vectors
    activations = np.where(train, act_el * act, act_el * act / np.maximum(n_dense, 1.0))
    buffers = 2.0 * xb * (emb["a2a_elems"] + emb["rs_elems"] / np.maximum(emb["rs_group"], 1.0)
                           + emb["a2a2_elems"]) + np.where(train, lookups * (INDEX_BYTES + 8.0), lookups * INDEX_BYTES)
    reserved = c["memory_reserved"]
    memory = emb_weights + emb_state + dense_w + dense_g + dense_o + activations + buffers + reserved

    # ---------------------------------------------------------------- feasibility
    mask = np.zeros(N, dtype=np.int64)

    def flag(cond, bit):
        nonlocal mask
        mask = mask | np.where(cond, bit, 0)

    shard_bytes = emb["max_shard_elems"] * (eb + np.where(fz_emb, 0.0, st_el))
    flag(shard_bytes > c["hbm_bytes"] - reserved, TABLE_TOO_LARGE)
    flag(memory > c["hbm_bytes"], OUT_OF_MEMORY)
    flag(np.abs(c["global_batch"] - B) > 0.5, BATCH_GPUS)
    flag(np.mod(n, tp) != 0, GPUS_TP)
    flag(moe & ((np.mod(E, ep) != 0) | (np.mod(n, ep) != 0)), EXPERTS_EP)
    hier_codes = np.isin(np.round(c["emb_sharding"]), NODE_PLANS)
    flag(hier_codes & (np.mod(n, np.maximum(np.round(c["gpus_per_node"]), 1.0)) != 0), NODES)
    flag((np.round(c["emb_sharding"]) == SHARDING["hybrid"]) & bool(np.any(model["pooling"] > 1.0)), HYBRID_MULTIHOT)

    # ---------------------------------------------------------------- outputs
    samples = B
    fl = flops_per_sample(model)
    passes = np.where(train, 3.0, 1.0)
    exposed_f = fwd_time - comp_f
    exposed_b = np.where(train, bwd_time - comp_b, 0.0)
    # average board power: MLP and interaction FLOPs at the achieved GEMM rate are tensor time;
    # the rest of the compute stream's busy time (embedding gathers and updates, elementwise,
    # the optimizer) is memory-bound, and so is exposed communication; fixed kernel overheads idle;
    # a power limit below the datasheet's stretches the step
    compute_s = bot_f + inter_f + top_f + loss + np.where(train, top_b + inter_b + bot_b + dense_opt, 0.0)
    busy_s = compute_s + emb_f + np.where(train, emb_b, 0.0) + slow * hidden
    tensor_s, memory_s = power.busy_split(fl * passes * samples / n, c["peak_flops"] * c["eff_matmul"],
                                          busy_s)
    comm_s = fwd_time - comp_f + np.where(train, bwd_time - comp_b, 0.0)  # exposed: moves data
    # the slowdown under overlapped collectives is their time too, not HBM-bound work's
    contention = np.minimum(slow * hidden, memory_s)
    watts, stretch = power.step_power(c, tensor_s, memory_s - contention, iteration, comm_s + contention)
    power_cap_s = iteration * (stretch - 1.0)  # a power limit below the datasheet's slows the step
    iteration = iteration + power_cap_s
    per_gpu_time = iteration * n
    out = {
        "iteration_time_s": iteration,
        "samples_per_s": samples / iteration,
        "samples_per_s_per_gpu": samples / per_gpu_time,
        "model_tflops_per_gpu": fl * passes * samples / per_gpu_time / 1e12,
        "mfu": fl * passes * samples / per_gpu_time / c["peak_flops"],
        "flops_per_sample": fl + 0.0 * b,
        "memory_per_gpu_bytes": memory,
        "memory_embeddings_bytes": emb_weights,
        "memory_emb_optimizer_bytes": emb_state,
        "memory_weights_bytes": dense_w,
        "memory_grads_bytes": dense_g,
        "memory_optimizer_bytes": dense_o,
        "memory_activations_bytes": activations,
        "memory_buffers_bytes": buffers,
        "memory_reserved_bytes": reserved + 0.0 * b,
        "memory_excess_bytes": np.maximum(memory - c["hbm_bytes"], 0.0),
        "time_compute_s": compute_s,
        "time_mlp_s": bot_f + top_f + np.where(train, top_b + bot_b, 0.0),
        "time_interaction_s": inter_f + np.where(train, inter_b, 0.0),
        "time_embedding_s": emb_f + np.where(train, emb_b, 0.0),
        "time_embedding_fwd_s": emb_f,
        "time_embedding_bwd_s": np.where(train, emb_b, 0.0),
        "time_overhead_s": overhead,
        "kernels": kernels + 0.0 * b,
        "time_overlap_slowdown_s": slow * hidden,
        "time_power_cap_s": power_cap_s + 0.0 * b,
        "time_tp_s": tp_f + tp_b,
        "time_moe_a2a_s": moe_a2a_f + moe_a2a_b,
        "a2a_s": emb_comm_f + emb_comm_b,
        "exposed_a2a_s": fwd_exp[0] + np.where(train, bwd_exp[0], 0.0),
        "overlapped_a2a_s": fwd_hid[0] + np.where(train, bwd_hid[0], 0.0),
        "dp_allreduce_s": dp_ar + fsdp_f + fsdp_b,
        "exposed_dp_s": fwd_exp[1] + np.where(train, bwd_exp[1] + bwd_exp[3], 0.0),
        "overlapped_dp_s": fwd_hid[1] + np.where(train, bwd_hid[1] + bwd_hid[3], 0.0),
        "emb_allreduce_s": rep_ar + xnode,
        "exposed_emb_allreduce_s": np.where(train, bwd_exp[2], 0.0),
        "overlapped_emb_allreduce_s": np.where(train, bwd_hid[2], 0.0),
        "exposed_comm_s": exposed_f + exposed_b,
        "emb_lookups_per_gpu": lookups,
        "emb_gather_bytes_per_gpu": g_el * eb,
        "emb_gather_hbm_bytes_per_gpu": emb["miss_elems"] * eb,  # what the L2 misses
        "emb_a2a_bytes_per_gpu": emb["a2a_elems"] * xb,
        "emb_rs_bytes_per_gpu": emb["rs_elems"] * xb,
        # everything a GPU sends of the pooled vectors per pass: the all-to-all, the reduce-scatter
        # of row-split tables and the cross-node all-to-all of hierarchical plans
        "emb_exchange_bytes_per_gpu": (emb["a2a_elems"] + emb["rs_elems"] + emb["a2a2_elems"]) * xb,
        "emb_table_bytes_per_gpu": emb_weights,
        "emb_max_shard_bytes": shard_bytes,
        "emb_max_shard_elems": emb["max_shard_elems"] + 0.0 * b,
        "emb_max_shard_table": emb["max_shard_table"],
        "emb_replicated_tables": emb["replicated_tables"],
        "emb_plan_memory_balanced": emb["plan_memory_balanced"],
        "emb_frequent_fraction": emb["frequent_fraction"],
        "emb_frequent_rows": emb["frequent_rows"],
        "dense_params": dpar["total"] + 0.0 * b,
        "embedding_params": float(np.sum(model["rows"] * model["dim"])) + 0.0 * b,
        "power_per_gpu_w": watts + 0.0 * b,
        "energy_per_sample_j": watts * per_gpu_time / samples,
        "cost_per_msample_usd": c["price_per_gpu_hour"] * per_gpu_time / 3600.0 / samples * 1e6,
        "infeasible_mask": mask.astype(np.float64),
        "feasible": (mask == 0).astype(np.float64),
    }
    if detail:
        on_b = lambda x: np.where(train, x, 0.0)  # noqa: E731
        out.update({f"detail_{k}": v + 0.0 * b for k, v in {
            "emb_f": emb_f, "bot_f": bot_f, "inter_f": inter_f, "top_f": top_f, "loss": loss, "tp_f": tp_f,
            "moe_f": moe_a2a_f, "a2a_f": emb_comm_f, "a2a_f_exposed": fwd_exp[0], "fsdp_f": fsdp_f,
            "fsdp_f_exposed": fwd_exp[1], "fwd": fwd_time,
            "top_b": on_b(top_b), "inter_b": on_b(inter_b), "bot_b": on_b(bot_b), "emb_b": on_b(emb_b),
            "opt": on_b(dense_opt), "tp_b": on_b(tp_b), "moe_b": on_b(moe_a2a_b),
            "a2a_b": on_b(emb_comm_b), "a2a_b_exposed": on_b(bwd_exp[0]), "dp_b": on_b(dp_ar),
            "dp_b_exposed": on_b(bwd_exp[1]), "emb_ar_b": on_b(rep_ar + xnode), "emb_ar_b_exposed": on_b(bwd_exp[2]),
            "fsdp_b": on_b(fsdp_b), "fsdp_b_exposed": on_b(bwd_exp[3]), "bwd": bwd_time,
            "slowdown": slow * hidden, "overhead": overhead,
        }.items()})
    return out
