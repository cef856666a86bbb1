"""The vectorized DLRM cost model (dse/costmodel/dlrm.py).

Hand-computed quantities (FLOPs, interaction width, gathered bytes, pooled all-to-all bytes,
table memory), the table planner's balance, infeasibility with the table named, and properties
over random configurations (hypothesis): more HBM bandwidth is never slower, more HBM capacity
never turns a feasible configuration infeasible, every output is finite. Structural checks
only: no calibrated number is hard-coded.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dse.costmodel import dlrm as cm

GIB = 2.0**30
PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: The 26 Criteo 1TB tables of MLPerf DLRM v1 (40M-row cap), dim 128, one-hot.
CRITEO = [40_000_000, 39_060, 17_295, 7_424, 20_265, 3, 7_122, 1_543, 63, 40_000_000, 3_067_956,
          405_282, 10, 2_209, 11_938, 155, 4, 976, 14, 40_000_000, 40_000_000, 40_000_000, 590_152,
          12_973, 108, 36]


def mlperf_model(pooling=1.0, interaction="dot"):
    return cm.model_constants([(r, 128, pooling) for r in CRITEO], 13, [512, 256, 128],
                              [1024, 1024, 512, 256, 1], interaction=interaction,
                              cross_layers=3 if interaction == "dcnv2" else 0,
                              cross_rank=512 if interaction == "dcnv2" else None)


def hw(**over):
    """A100-SXM-80GB-like columns (SI), efficiencies fixed so the arithmetic is checkable."""
    cols = {
        "peak_flops": 312e12, "peak_flops_16": 312e12, "hbm_bytes": 80 * GIB, "hbm_bw": 2.039e12,
        "nvlink_bw": 300e9, "nvlink_domain": 8.0, "scaleout_bw": 25e9, "gpus_per_node": 8.0,
        "nvlink_latency": 4e-6, "scaleout_latency": 8e-6, "memory_reserved": 3 * GIB,
        "eff_matmul": 0.85, "matmul_k_half": 768.0, "eff_hbm": 0.85, "eff_nvlink": 0.8,
        "eff_scaleout": 0.8, "overlap_slowdown": 0.5, "eff_gather": 0.6, "op_latency": 3e-6,
        "step_overhead": 2e-5, "popularity_zipf": 1.0,
    }
    cols.update(over)
    return cols


def plan(n=8, b=1024, sharding="table", **over):
    cols = hw(num_gpus=float(n), microbatch=float(b), global_batch=float(b * n),
              emb_sharding=float(cm.SHARDING[sharding]))
    cols.update(over)
    return cols


def run(model, cols):
    return {k: float(v[0]) for k, v in cm.evaluate_dlrm(model, {k: np.array([v]) for k, v in cols.items()}).items()}


# ------------------------------------------------------------------------- hand-computed
def test_mlp_and_dot_interaction_flops_of_mlperf_dlrm():
    m = mlperf_model()
    sh = cm.layer_shapes(m)
    # dot: 27 vectors (bottom output + 26 pooled) -> 27*26/2 = 351 pairs + the 128-wide bottom output
    assert sh["top_in"] == 351 + 128 == 479
    bottom = 2 * (13 * 512 + 512 * 256 + 256 * 128)                        # 340,992
    top = 2 * (479 * 1024 + 1024 * 1024 + 1024 * 512 + 512 * 256 + 256 * 1)  # 4,389,376
    dot = 2 * 27**2 * 128                                                   # 186,624: the Gram matrix
    assert (bottom, top, dot) == (340_992, 4_389_376, 186_624)
    assert cm.flops_per_sample(m) == bottom + top + dot == 4_916_992


def test_dcnv2_low_rank_flops_and_params():
    m = mlperf_model(interaction="dcnv2")
    D0 = 128 + 26 * 128  # bottom output + 26 pooled vectors
    assert cm.layer_shapes(m)["top_in"] == D0 == 3456
    cross = 3 * 2 * (2 * D0 * 512)  # x_l -> U (V^T x_l): two GEMMs per layer
    top = 2 * (D0 * 1024 + 1024 * 1024 + 1024 * 512 + 512 * 256 + 256)
    bottom = 2 * (13 * 512 + 512 * 256 + 256 * 128)
    assert cm.flops_per_sample(m) == bottom + cross + top
    assert cm.dense_params(m)["interaction"] == 3 * (2 * D0 * 512 + D0)


def test_embedding_gather_bytes_and_lookups_single_gpu():
    m = cm.model_constants([(1000, 16, 2.0), (2000, 32, 3.0)], 4, [16], [8, 1])
    out = run(m, plan(n=1, b=100, emb_bytes=4.0))
    assert out["emb_lookups_per_gpu"] == 100 * (2 + 3)
    # rows read: b * sum(pooling * dim) elements of 4 bytes
    assert out["emb_gather_bytes_per_gpu"] == 100 * (2 * 16 + 3 * 32) * 4 == 51_200
    assert out["emb_a2a_bytes_per_gpu"] == 0.0  # one GPU: nothing to exchange


@pytest.mark.parametrize("pooling", [1.0, 10.0])
def test_pooled_all_to_all_bytes(pooling):
    # 8 equal tables on 8 GPUs, one each: every GPU sends the pooled vectors of its table for all
    # B samples and receives b samples x 8 tables: b * T * d * bytes, independent of pooling
    m = cm.model_constants([(10_000, 64, pooling)] * 8, 4, [64], [8, 1])
    out = run(m, plan(n=8, b=1000, emb_bytes=4.0))
    assert out["emb_a2a_bytes_per_gpu"] == 1000 * 8 * 64 * 4 == 2_048_000
    assert out["emb_lookups_per_gpu"] == 8000 * pooling  # the global batch's lookups into one table


def test_table_memory_with_optimizer_state():
    m = cm.model_constants([(1_000_000, 64, 1.0), (500_000, 32, 1.0)], 4, [64], [8, 1])
    size = 1_000_000 * 64 + 500_000 * 32
    rows = 1_500_000
    sgd = run(m, plan(n=1, b=64, emb_bytes=4.0, emb_optimizer=cm.OPTIMIZER["sgd"]))
    assert sgd["memory_embeddings_bytes"] == size * 4 and sgd["memory_emb_optimizer_bytes"] == 0
    ada = run(m, plan(n=1, b=64, emb_bytes=2.0, emb_optimizer=cm.OPTIMIZER["adagrad"]))
    assert ada["memory_embeddings_bytes"] == size * 2 and ada["memory_emb_optimizer_bytes"] == size * 4
    row = run(m, plan(n=1, b=64, emb_bytes=4.0, emb_optimizer=cm.OPTIMIZER["rowwise_adagrad"]))
    assert row["memory_emb_optimizer_bytes"] == rows * 4
    adam = run(m, plan(n=1, b=64, emb_bytes=4.0, emb_optimizer=cm.OPTIMIZER["adam"]))
    assert adam["memory_emb_optimizer_bytes"] == size * 8
    # row-wise over 4 GPUs: a quarter each
    rw = run(m, plan(n=4, b=64, sharding="row", emb_bytes=4.0))
    assert rw["memory_embeddings_bytes"] == pytest.approx(size * 4 / 4)


def test_unique_rows_touched_by_uniform_one_hot_lookups():
    def u(R, L):
        return float(cm._unique_rows(np.array(R), np.array(L), 1.0, 0.0))

    assert u(1e6, 1.0) == pytest.approx(1.0, rel=1e-6)
    assert u(10.0, 1e6) == pytest.approx(10.0)
    assert u(1000.0, 1000.0) == pytest.approx(1000.0 * (1 - math.exp(-1)))


def _exact_distinct(R, S, alpha):
    """sum over the R categories of P(drawn at least once in S draws)."""
    p = np.arange(1.0, R + 1.0) ** -alpha
    p /= p.sum()
    with np.errstate(divide="ignore"):
        return float(np.sum(-np.expm1(S * np.log1p(-p))))


@pytest.mark.parametrize(("R", "alpha"), [(R, a) for R in (1000, 400_000, 4_000_000)
                                           for a in (0.05, 0.2, 0.5, 0.95, 1.0, 1.4, 2.0)]
                         + [(40_000_000, 0.95)])  # Criteo's largest tables at the fitted exponent
def test_distinct_keys_against_the_exact_zipf_sum(R, alpha):
    p = np.arange(1.0, R + 1.0) ** -alpha
    p /= p.sum()
    for S in (1, 10, 6912, 5_500_000, 1e9):
        exact = float(np.sum(-np.expm1(S * np.log1p(-p))))
        assert float(cm.distinct_keys(S, R, alpha)) == pytest.approx(exact, rel=0.015), S


@pytest.mark.parametrize("R", [1, 3, 17, 63])
@pytest.mark.parametrize("S", [1, 2, 10, 1000])
def test_distinct_keys_of_small_tables_stay_between_one_and_the_draws_or_rows(R, S):
    for alpha in (0.0, 0.5, 1.0, 2.0):
        d = float(cm.distinct_keys(S, R, alpha))
        assert min(S, 1) <= d <= min(S, R) + 1e-9
        # Poisson draws: a few rows drawn about as often as there are rows are off by up to 13%
        assert d == pytest.approx(_exact_distinct(R, S, alpha), rel=0.15)


@pytest.mark.parametrize("vary", ["samples", "samples+alpha", "samples+alpha+split"])
def test_rows_touched_per_configuration_equal_the_elementwise_path(vary):
    S = np.array([[6912.0], [55296.0], [6912.0], [1.0], [55296.0]])
    alpha = np.array([[0.95], [0.95], [0.0], [0.95], [0.95]]) if "alpha" in vary else 0.95
    split = np.array([[1.0], [8.0], [1.0], [2.0], [8.0]]) if "split" in vary else 1.0
    rows, pool = np.array([[3.0, 4e5, 4e7]]), np.array([[1.0, 20.0, 100.0]])
    grouped = cm._unique_rows(rows, S, pool, alpha, split=split)  # 4 distinct rows of 5 configs
    a = np.broadcast_to(alpha, (5, 1))
    elementwise = rows / split * cm._touched_fraction(rows, S, pool, a)
    assert grouped.shape == (5, 3)
    np.testing.assert_allclose(grouped, elementwise, rtol=1e-12)


@pytest.mark.parametrize("alpha", [0.0, 0.002, 0.01, 0.049, 0.05, 0.1])
def test_distinct_keys_of_nearly_uniform_popularity_is_finite_and_near_uniform(alpha):
    for S, R in ((6912.0, 4e7), (0.0, 1e5), (1e7, 100.0), (55296.0, 2e4)):
        d = float(cm.distinct_keys(S, R, alpha))
        assert math.isfinite(d)
        assert d == pytest.approx(_exact_distinct(int(R), S, alpha) if S else 0.0, rel=0.015, abs=1e-9)


def test_the_memo_of_touched_rows_survives_being_full(monkeypatch):
    monkeypatch.setattr(cm, "_TOUCHED", {})
    monkeypatch.setattr(cm, "_TOUCHED_MAX", 4)
    rows, pool = np.array([[4e5, 4e7]]), np.array([[1.0, 20.0]])
    for first in (0.0, 3.0):  # the second call finds some keys and must evict
        S = np.arange(first + 1.0, first + 7.0)[:, None] * 1000.0
        got = cm._unique_rows(rows, S, pool, 0.95)
        np.testing.assert_allclose(got, rows * cm._touched_fraction(rows, S, pool, np.full_like(S, 0.95)), rtol=1e-12)


def _plan_of(model, **cols):
    c, N = cm.broadcast({k: np.atleast_1d(np.asarray(v, float)) for k, v in cols.items()})
    return cm._embedding_plan(model, c, N, cm._hybrid_cost(model, c))


@pytest.mark.parametrize("alpha", [0.0, 0.95])
@pytest.mark.parametrize("pooling", [1.0, 20.0])
def test_each_sharding_touches_the_rows_its_samples_reach(alpha, pooling):
    """Call-site invariants: a replica touches what its own b samples reach, whatever the GPU
    count; a row-wise shard touches 1/n of what the global batch reaches; the cross-node update of
    node_sharded tables is the global batch's touched rows over a node's GPUs."""
    m = mlperf_model(pooling=pooling)
    b, n = 2048.0, 16.0

    def plan_of(sharding, gpus, batch, **over):
        return _plan_of(m, **plan(n=gpus, b=batch, sharding=sharding, popularity_zipf=alpha, **over))

    one = plan_of("data_parallel", 1, b)["uniq_rows"][0]
    assert plan_of("data_parallel", n, b)["uniq_rows"][0] == pytest.approx(one, rel=1e-12)
    whole_batch = plan_of("data_parallel", 1, b * n)["uniq_rows"][0]
    assert plan_of("row", n, b)["uniq_rows"][0] == pytest.approx(whole_batch / n, rel=1e-12)
    assert whole_batch < n * one  # a bigger batch repeats rows
    if alpha:  # skewed keys repeat more
        flat = _plan_of(m, **plan(n=1, b=b * n, sharding="data_parallel", popularity_zipf=0.0))["uniq_rows"][0]
        assert whole_batch < flat
    ns = plan_of("node_sharded", n, b, gpus_per_node=8.0)
    rows = np.asarray(CRITEO, float)
    mp = ns["replicated_tables"][0]
    tw = np.argsort(rows, kind="stable")[int(mp):]  # the tables not replicated
    full = cm._unique_rows(rows[tw][None, :], np.array([[b * n]]), pooling, alpha)
    assert ns["xnode_elems"][0] == pytest.approx((full @ np.full(len(tw), 128.0))[0] / 8.0, rel=1e-9)


def test_hybrid_takes_uniform_popularity():
    out = run(mlperf_model(), plan(n=64, b=1024, sharding="hybrid", emb_bytes=2.0, popularity_zipf=0.0))
    assert math.isfinite(out["iteration_time_s"]) and out["iteration_time_s"] > 0


def test_distinct_keys_broadcasts_and_is_uniform_at_alpha_zero():
    got = cm.distinct_keys(np.array([[10.0], [1e4]]), np.array([100.0, 1e6]), np.array([0.0, 1.05]))
    assert got.shape == (2, 2)
    assert got[1, 0] == pytest.approx(100.0 * -math.expm1(-100.0))
    assert got[0, 1] == pytest.approx(_exact_distinct(10**6, 10.0, 1.05), rel=0.015)


def test_skewed_keys_touch_fewer_rows_and_multi_hot_rows_follow_their_key():
    R, S, pool = 40e6, 55296.0, 100.0
    uniform = float(cm._unique_rows(np.array(R), np.array(S), pool, 0.0))
    skewed = float(cm._unique_rows(np.array(R), np.array(S), pool, 1.0))
    keys = float(cm.distinct_keys(S, R, 1.0))
    assert keys < 0.7 * S  # Criteo-like skew repeats keys within a batch
    # every distinct key brings its own pool rows; 3M of them among 40M rows collide ~4% of the time
    assert 0.95 * keys * pool < skewed < keys * pool
    assert uniform == pytest.approx(R * -math.expm1(-S * pool / R), rel=0.01)
    # a row-split shard of a table touches its share of the same rows
    shard = float(cm._unique_rows(np.array(R), np.array(S), pool, 1.0, split=8.0))
    assert shard == pytest.approx(skewed / 8, rel=1e-6)


def test_more_skew_never_touches_more_rows():
    R, S = np.array([3.0, 1e3, 4e5, 4e7])[None, :], np.array([1.0, 1e3, 5e4, 5e6])[:, None]
    alphas = [0.0, 0.5, 0.85, 1.0, 1.2, 2.0]
    rows = [cm._unique_rows(R, S, 4.0, a) for a in alphas]
    for lo, hi in zip(rows[1:], rows[:-1]):
        assert np.all(lo <= hi * (1 + 1e-9))


def test_skew_shortens_the_embedding_update_of_multi_hot_tables():
    m = mlperf_model(pooling=20.0, interaction="dcnv2")
    flat = run(m, plan(n=8, b=6912, sharding="table", emb_optimizer=1.0, popularity_zipf=0.0))
    skew = run(m, plan(n=8, b=6912, sharding="table", emb_optimizer=1.0, popularity_zipf=1.0))
    assert skew["time_embedding_bwd_s"] < flat["time_embedding_bwd_s"]
    assert skew["time_embedding_fwd_s"] == pytest.approx(flat["time_embedding_fwd_s"])  # every lookup gathered


def _simulated_lru_misses(R, S, pool, alpha, capacity, seed=0):
    """Misses of an LRU cache of ``capacity`` rows over the lookups of S samples into R rows:
    each sample's key Zipf(alpha), each key with pool - 1 companion rows fixed by it (uniform)."""
    from collections import OrderedDict

    rng = np.random.default_rng(seed)
    p = np.arange(1.0, R + 1.0) ** -alpha
    keys = rng.choice(R, size=S, p=p / p.sum())
    companions = rng.integers(0, R, size=(R, max(int(pool) - 1, 0)))
    cache, misses = OrderedDict(), 0
    for k in keys:
        for row in (k, *companions[k]):
            if row in cache:
                cache.move_to_end(row)
            else:
                misses += 1
                cache[row] = None
                if len(cache) > capacity:
                    cache.popitem(last=False)
    return misses / (S * pool)


@pytest.mark.parametrize(("R", "pool", "alpha", "capacity"), [
    (20_000, 1, 0.95, 500), (20_000, 1, 0.95, 4_000), (200_000, 4, 1.05, 3_000), (50_000, 1, 0.5, 10_000),
    (5_000, 3, 0.95, 20_000)])  # the last: every touched row fits, only the first touches miss
def test_lru_miss_fraction_against_a_simulated_cache(R, pool, alpha, capacity):
    S = 30_000
    simulated = _simulated_lru_misses(R, S, pool, alpha, capacity)
    predicted = float(cm.lru_miss_fraction(R, S, pool, alpha, capacity))
    assert predicted == pytest.approx(simulated, abs=0.03)  # Che's approximation, distinct_keys' 1.5%


def test_lru_miss_fraction_limits():
    R, S, pool = 4e7, 55296.0, 20.0
    caps = np.geomspace(1.0, 1e10, 300)
    m = cm.lru_miss_fraction(R, S, pool, 0.95, caps)
    assert np.all((m >= 0.0) & (m <= 1.0))
    assert np.all(np.diff(m) <= 1e-3)  # a bigger cache never misses more (finite differences: 1e-3)
    assert float(cm.lru_miss_fraction(R, S, pool, 0.95, 0.0)) == 1.0  # no cache
    assert float(cm.lru_miss_fraction(R, S, pool, 0.95, pool / 2)) == 1.0  # not one sample's rows
    touched = float(cm._unique_rows(np.array(R), np.array(S), pool, 0.95))
    assert m[-1] == pytest.approx(touched / (S * pool), rel=1e-12)  # all held: only first touches miss
    assert float(cm.lru_miss_fraction(3.0, S, 1.0, 0.95, 1e5)) == pytest.approx(3.0 / S)  # a tiny table
    # uniform keys into a huge table barely repeat: nearly every lookup misses whatever the cache
    assert float(cm.lru_miss_fraction(R, S, pool, 0.0, 1e5)) > 0.99


@pytest.mark.parametrize("sharding", ["data_parallel", "row", "table", "column", "table_row", "auto", "hier_auto",
                                      "node_sharded", "hybrid"])
def test_the_l2_serves_part_of_the_forward_gather_of_every_sharding(sharding):
    """Call-site invariants of the cache: without one every gathered element is read from HBM;
    with one fewer are, and a replica reads what its own b samples miss (a cache per GPU)."""
    m = mlperf_model(pooling=1.0 if sharding == "hybrid" else 3.0)
    kw = dict(n=16, b=2048, sharding=sharding, gpus_per_node=8.0, emb_bytes=2.0)
    none = _plan_of(m, **plan(**kw, l2_bytes=0.0))
    l2 = _plan_of(m, **plan(**kw, l2_bytes=50 * 2.0**20))
    assert none["miss_elems"][0] == pytest.approx(none["gather_elems"][0], rel=1e-12)
    assert 0.0 < l2["miss_elems"][0] < 0.95 * l2["gather_elems"][0]
    assert l2["gather_elems"][0] == none["gather_elems"][0]
    if sharding == "data_parallel":
        rows, pool = np.asarray(CRITEO, float), 3.0
        miss = cm.lru_miss_fraction(rows, 2048.0, pool, 1.0, 50 * 2.0**20 / 2.0 / 128.0)
        assert l2["miss_elems"][0] == pytest.approx(2048.0 * pool * 128.0 * miss.sum(), rel=1e-9)
    if sharding == "row":  # a shard per GPU: the table's global batch with 16 caches
        rows, pool = np.asarray(CRITEO, float), 3.0
        miss = cm.lru_miss_fraction(rows, 2048.0 * 16, pool, 1.0, 16 * 50 * 2.0**20 / 2.0 / 128.0)
        assert l2["miss_elems"][0] == pytest.approx(2048.0 * pool * 128.0 * miss.sum(), rel=1e-9)


def test_an_l2_shortens_the_lookups_and_the_gradient_reads_not_the_updates():
    m = mlperf_model(pooling=3.0, interaction="dcnv2")
    cols = dict(n=8, b=6912, sharding="table", emb_optimizer=1.0, emb_bytes=4.0)
    none = run(m, plan(**cols, l2_bytes=0.0))
    l2 = run(m, plan(**cols, l2_bytes=50 * 2.0**20))
    held = run(m, plan(**cols, l2_bytes=1e15))  # holds every received gradient
    assert l2["time_embedding_fwd_s"] < none["time_embedding_fwd_s"]
    assert held["time_embedding_bwd_s"] < l2["time_embedding_bwd_s"] < none["time_embedding_bwd_s"]
    assert l2["emb_gather_bytes_per_gpu"] == none["emb_gather_bytes_per_gpu"]  # what is looked up
    # what an L2 takes off the backward is the per-lookup reads of the pooled gradients (4-byte
    # values here, as the tables), at the gather rate; the touched rows' update stays
    gradient_reads = none["emb_gather_bytes_per_gpu"] / (2.039e12 * 0.6)
    assert none["time_embedding_bwd_s"] - held["time_embedding_bwd_s"] == pytest.approx(gradient_reads, rel=1e-9)


def test_row_wise_reduce_scatters_partial_sums_of_all_samples():
    m = cm.model_constants([(100_000, 64, 1.0)] * 4, 4, [64], [8, 1])
    out = run(m, plan(n=8, b=100, sharding="row", emb_bytes=4.0))
    assert out["emb_rs_bytes_per_gpu"] == 800 * 4 * 64 * 4  # B samples x all tables, full buffer
    assert out["emb_a2a_bytes_per_gpu"] == 0.0


def test_hier_auto_plans_over_nodes_and_row_splits_inside_them():
    """HugeCTR's hierarchical plan: big tables placed over nodes (a node's memory is its GPUs'),
    each node's tables split by rows over its GPUs, nothing reduced across nodes; MAD-Max's 2D plan
    (node_sharded) is the transpose: every node holds all the tables, sharded over its GPUs, and
    the touched rows' gradients are reduced across nodes."""
    m = cm.model_constants([(40_000_000, 128, 4.0)] * 8, 13, [128], [256, 1])  # big, none replicated
    n, gpn, b = 32, 8, 1024
    hier = run(m, plan(n=n, b=b, sharding="hier_auto", emb_bytes=4.0))
    node = run(m, plan(n=n, b=b, sharding="node_sharded", emb_bytes=4.0))
    total = 8 * 40_000_000 * 128 * 4.0
    # 8 tables over 4 nodes: 2 a node, split over its 8 GPUs -> 1/32 of the bytes per GPU
    assert hier["emb_table_bytes_per_gpu"] == pytest.approx(total / n, rel=1e-9)
    # node_sharded: every node holds all 8 tables over its 8 GPUs -> 1/8 of the bytes per GPU
    assert node["emb_table_bytes_per_gpu"] == pytest.approx(total / gpn, rel=1e-9)
    # inside the node: partial sums of the node's 2 tables for every sample of the job
    assert hier["emb_rs_bytes_per_gpu"] == pytest.approx(b * n * 2 * 128 * 4.0, rel=1e-9)
    # what a GPU sends in all: that reduce-scatter plus the cross-node all-to-all (no flat one)
    assert hier["emb_a2a_bytes_per_gpu"] == 0.0
    assert hier["emb_exchange_bytes_per_gpu"] > hier["emb_rs_bytes_per_gpu"]
    assert hier["emb_allreduce_s"] == 0.0 and node["emb_allreduce_s"] > 0.0
    assert hier["iteration_time_s"] < node["iteration_time_s"]
    # lookups: a node serves all samples for its 2 tables, its GPUs a row slice each
    assert hier["emb_lookups_per_gpu"] == pytest.approx(b * n * 2 * 4.0 / gpn, rel=1e-9)


# ------------------------------------------------------------------------- planner
@pytest.mark.parametrize("seed", range(8))
def test_greedy_planner_is_within_lpt_bound(seed):
    rng = np.random.default_rng(seed)
    cost = rng.lognormal(0.0, 1.5, size=int(rng.integers(5, 200)))
    n = int(rng.integers(2, 64))
    gpu = cm.plan_tables(cost, n)
    loads = np.bincount(gpu, weights=cost, minlength=n)
    ideal = max(cost.sum() / n, cost.max())  # no plan beats this
    assert loads.max() >= cost.sum() / n - 1e-9
    assert loads.max() <= 4.0 / 3.0 * ideal + 1e-9  # Graham's LPT bound
    assert loads.max() <= cost.sum() / n + cost.max() + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_a_tie_in_cost_is_broken_by_bytes_not_by_the_tables_order(seed):
    """One-hot tables of one width cost the same to look up: which GPU gets the two largest must
    not depend on where they sit in the list (the MLPerf DLRM on 4 GPUs went from 30.5 to 20.9 GB
    per GPU when the microbatch doubled, its largest tables paired by their order)."""
    rng = np.random.default_rng(seed)
    rows = rng.choice([40e6, 4e6, 4e5, 1e3], size=26)
    cost = np.ones_like(rows)  # equal width and pooling
    worst = set()
    for perm in (np.arange(26), rng.permutation(26), rng.permutation(26)):
        gpu = cm.plan_tables(cost[perm], 4, rows[perm])
        worst.add(float(np.bincount(gpu, weights=rows[perm], minlength=4).max()))
        assert np.bincount(gpu, minlength=4).max() - np.bincount(gpu, minlength=4).min() <= 1  # cost balanced
    assert len(worst) == 1


def test_cost_balanced_plan_balances_lookups_better_than_memory_balanced():
    # 4 big tables and 20 small ones, all one lookup per sample
    m = cm.model_constants([(10_000_000, 128, 1.0)] * 4 + [(1000, 128, 1.0)] * 20, 13, [128], [64, 1])
    cost = run(m, plan(n=8, b=512, emb_planner=0.0, emb_bytes=4.0))
    mem = run(m, plan(n=8, b=512, emb_planner=1.0, emb_bytes=4.0))
    # each big table exceeds the even memory share and is split in two column halves: 8 halves
    # and 20 small tables on 8 GPUs gather 3 tables' worth each (384 of 24 x 128 values/sample)
    assert cost["emb_gather_bytes_per_gpu"] == 4096 * 384 * 4
    assert mem["emb_gather_bytes_per_gpu"] > cost["emb_gather_bytes_per_gpu"]  # small tables pile up
    assert mem["emb_table_bytes_per_gpu"] < cost["emb_table_bytes_per_gpu"]
    assert cost["iteration_time_s"] < mem["iteration_time_s"]


def test_table_larger_than_the_even_share_is_split_column_wise():
    m = cm.model_constants([(100_000_000, 128, 1.0)] + [(1000, 128, 1.0)] * 7, 13, [128], [64, 1])
    t, frac = cm.table_shards(m, 8, column_wise=False)
    assert (t == 0).sum() > 1 and np.isclose(frac[t == 0].sum(), 1.0)


def test_vectorized_equals_one_at_a_time():
    m = mlperf_model()
    configs = [plan(n=n, b=b, sharding=s, emb_bytes=eb)
               for n, b, s, eb in [(8, 4096, "table", 4.0), (16, 2048, "hybrid", 2.0), (4, 1024, "row", 4.0),
                                   (32, 512, "auto", 2.0), (64, 256, "hier_auto", 2.0), (8, 256, "column", 4.0),
                                   (64, 256, "node_sharded", 2.0),
                                   (16, 1024, "table_row", 4.0), (8, 64, "data_parallel", 2.0)]]
    batch = {k: np.array([c[k] for c in configs]) for k in configs[0]}
    together = cm.evaluate_dlrm(m, batch)
    for i, c in enumerate(configs):
        alone = run(m, c)
        assert together["iteration_time_s"][i] == pytest.approx(alone["iteration_time_s"], rel=1e-12)
        assert together["memory_per_gpu_bytes"][i] == pytest.approx(alone["memory_per_gpu_bytes"], rel=1e-12)


# ------------------------------------------------------------------------- feasibility
def test_table_larger_than_hbm_is_infeasible():
    m = cm.model_constants([(1000, 64, 1.0), (100_000_000, 128, 1.0)], 13, [64], [64, 1])
    out = run(m, plan(n=1, b=512, emb_bytes=4.0, hbm_bytes=40 * GIB))
    assert out["feasible"] == 0.0
    assert int(out["infeasible_mask"]) & cm.TABLE_TOO_LARGE
    assert out["emb_max_shard_table"] == 1
    assert out["emb_max_shard_bytes"] == 100_000_000 * 128 * 4


def test_batch_and_degree_checks():
    m = mlperf_model()
    out = run(m, plan(n=8, b=100, global_batch=1000.0))
    assert int(out["infeasible_mask"]) & cm.BATCH_GPUS
    out = run(m, plan(n=8, b=100, tp=3.0))
    assert int(out["infeasible_mask"]) & cm.GPUS_TP
    out = run(cm.model_constants([(100, 8, 3.0)], 4, [8], [8, 1]), plan(n=8, b=100, sharding="hybrid"))
    assert int(out["infeasible_mask"]) & cm.HYBRID_MULTIHOT


# ------------------------------------------------------------------------- structure
def test_time_parts_add_up():
    m = mlperf_model()
    for s in ("table", "hybrid", "auto", "row"):
        o = run(m, plan(n=16, b=2048, sharding=s, emb_bytes=2.0))
        parts = (o["time_compute_s"] + o["time_embedding_s"] + o["time_tp_s"] + o["time_moe_a2a_s"]
                 + o["exposed_comm_s"] + o["time_overlap_slowdown_s"] + o["time_overhead_s"])
        assert parts == pytest.approx(o["iteration_time_s"], rel=1e-9)
        assert o["exposed_a2a_s"] + o["overlapped_a2a_s"] == pytest.approx(o["a2a_s"], rel=1e-9)


def test_inference_and_frozen_parts():
    m = mlperf_model()
    train = run(m, plan(n=8, b=4096))
    infer = run(m, plan(n=8, b=4096, train=0.0))
    assert infer["iteration_time_s"] < train["iteration_time_s"] / 2
    assert infer["time_embedding_bwd_s"] == 0 and infer["dp_allreduce_s"] == 0
    assert infer["a2a_s"] == pytest.approx(train["a2a_s"] / 2)
    frozen_emb = run(m, plan(n=8, b=4096, freeze_emb=1.0))
    assert frozen_emb["time_embedding_bwd_s"] == 0 and frozen_emb["memory_emb_optimizer_bytes"] == 0
    assert frozen_emb["a2a_s"] == pytest.approx(train["a2a_s"] / 2)  # no gradient all-to-all
    frozen_mlp = run(m, plan(n=8, b=4096, freeze_bottom=1.0, freeze_top=1.0))
    assert frozen_mlp["dp_allreduce_s"] == 0 and frozen_mlp["memory_grads_bytes"] == 0
    # the top MLP's data gradients still flow to the trainable embeddings
    assert 0 < frozen_mlp["time_mlp_s"] < train["time_mlp_s"]


def test_hybrid_frequent_set_grows_with_skew():
    m = mlperf_model()
    flat = run(m, plan(n=64, b=1024, sharding="hybrid", emb_bytes=2.0, popularity_zipf=0.8))
    skew = run(m, plan(n=64, b=1024, sharding="hybrid", emb_bytes=2.0, popularity_zipf=1.3))
    assert 0.0 <= flat["emb_frequent_fraction"] < skew["emb_frequent_fraction"] <= 1.0
    assert skew["emb_a2a_bytes_per_gpu"] < flat["emb_a2a_bytes_per_gpu"]


def test_pcie_servers_share_their_uplinks():
    m = mlperf_model()
    kw = dict(emb_bytes=2.0, nvlink_bw=32e9, nvlink_domain=1.0)
    four = run(m, plan(n=4, b=4096, gpus_per_node=4.0, **kw))
    eight = run(m, plan(n=8, b=2048, gpus_per_node=8.0, **kw))
    # the same bytes per GPU (b x 26 x 128), half the bandwidth per GPU with 8 GPUs on 2 uplinks
    assert eight["a2a_s"] > 1.5 * four["a2a_s"] * (2048 * 7 / 8) / (4096 * 3 / 4)


# ------------------------------------------------------------------------- properties
MODELS = {"dot": mlperf_model(), "dcnv2": mlperf_model(pooling=3.0, interaction="dcnv2")}


@st.composite
def configs(draw):
    n = draw(st.sampled_from([1, 2, 4, 8, 16, 32, 64]))
    b = draw(st.sampled_from([64, 512, 2048, 8192]))
    shard = draw(st.sampled_from(["table", "row", "column", "table_row", "auto", "hier_auto", "node_sharded",
                                  "data_parallel"]))
    return plan(
        n=n, b=b, sharding=shard,
        hbm_bw=draw(st.floats(0.5e12, 8e12)), hbm_bytes=draw(st.floats(16 * GIB, 192 * GIB)),
        peak_flops=draw(st.floats(5e13, 2e15)), nvlink_bw=draw(st.floats(16e9, 9e11)),
        scaleout_bw=draw(st.floats(3e9, 1e11)), nvlink_domain=draw(st.sampled_from([1.0, 4.0, 8.0, 72.0])),
        gpus_per_node=draw(st.sampled_from([4.0, 8.0])), emb_bytes=draw(st.sampled_from([2.0, 4.0])),
        act_bytes=draw(st.sampled_from([2.0, 4.0])), emb_optimizer=draw(st.sampled_from([0.0, 1.0, 2.0, 3.0])),
        emb_planner=draw(st.sampled_from([0.0, 1.0])), train=draw(st.sampled_from([1.0, 1.0, 0.0])),
        freeze_emb=draw(st.sampled_from([0.0, 0.0, 1.0])), overlap_slowdown=draw(st.floats(0.0, 0.6)),
        tp=draw(st.sampled_from([1.0, 1.0, 2.0])), zero=draw(st.sampled_from([0.0, 3.0])),
        l2_bytes=draw(st.sampled_from([0.0, 6.0, 40.0, 50.0, 126.0])) * 2.0**20,
    )


def _batch(rows):
    return {k: np.array([r[k] for r in rows]) for k in rows[0]}


@PROPERTY
@given(st.lists(configs(), min_size=1, max_size=16), st.floats(1.05, 4.0), st.sampled_from(sorted(MODELS)))
def test_more_hbm_bandwidth_is_never_slower(rows, factor, name):
    m = MODELS[name]
    base = cm.evaluate_dlrm(m, _batch(rows))
    fast = cm.evaluate_dlrm(m, _batch([{**r, "hbm_bw": r["hbm_bw"] * factor} for r in rows]))
    assert np.all(fast["iteration_time_s"] <= base["iteration_time_s"] * (1 + 1e-9))


@PROPERTY
@given(st.lists(configs(), min_size=1, max_size=16), st.floats(1.05, 8.0), st.sampled_from(sorted(MODELS)))
def test_a_bigger_l2_is_never_slower(rows, factor, name):
    m = MODELS[name]
    base = cm.evaluate_dlrm(m, _batch(rows))
    big = cm.evaluate_dlrm(m, _batch([{**r, "l2_bytes": max(r["l2_bytes"], 2.0**20) * factor} for r in rows]))
    assert np.all(big["iteration_time_s"] <= base["iteration_time_s"] * (1 + 1e-6))
    assert np.all(big["time_embedding_fwd_s"] <= base["time_embedding_fwd_s"] * (1 + 1e-3))


@PROPERTY
@given(st.lists(configs(), min_size=1, max_size=16), st.sampled_from(sorted(MODELS)))
def test_fsdp_never_needs_more_memory_than_replicated_dense_layers(rows, name):
    """ZeRO-3 shards the dense layers over the data-parallel ranks and gathers two layers at a
    time: never more than keeping them whole (regression: with one rank it added the gather
    buffers to the unsharded weights, +8 MB on one GPU)."""
    m = MODELS[name]
    whole = cm.evaluate_dlrm(m, _batch([{**r, "zero": 0.0} for r in rows]))
    fsdp = cm.evaluate_dlrm(m, _batch([{**r, "zero": 3.0} for r in rows]))
    assert np.all(fsdp["memory_per_gpu_bytes"] <= whole["memory_per_gpu_bytes"] * (1 + 1e-12))


@PROPERTY
@given(st.lists(configs(), min_size=1, max_size=16), st.floats(1.05, 4.0), st.sampled_from(sorted(MODELS)))
def test_more_hbm_never_turns_feasible_into_infeasible(rows, factor, name):
    m = MODELS[name]
    base = cm.evaluate_dlrm(m, _batch(rows))
    big = cm.evaluate_dlrm(m, _batch([{**r, "hbm_bytes": r["hbm_bytes"] * factor} for r in rows]))
    assert np.all(big["feasible"] >= base["feasible"])


@PROPERTY
@given(st.lists(configs(), min_size=1, max_size=16), st.sampled_from(sorted(MODELS)))
def test_every_output_is_finite(rows, name):
    out = cm.evaluate_dlrm(MODELS[name], _batch(rows))
    for k, v in out.items():
        assert v.shape == (len(rows),) and np.all(np.isfinite(v)), k
    assert np.all(out["iteration_time_s"] > 0) and np.all(out["memory_per_gpu_bytes"] > 0)


@PROPERTY
@given(st.lists(configs(), min_size=1, max_size=16), st.sampled_from([1.0, 2.0, 4.0, 8.0]),
       st.sampled_from(sorted(MODELS)))
def test_tensor_parallel_mlps_never_beat_the_gemm_rate(rows, tp, name):
    """A tensor-parallel group runs its tp GPUs' samples through each GEMM slice, so the model
    FLOPs per GPU never run faster than the calibrated GEMM rate, whatever tp (before the fix
    each GPU pushed only its own samples through its 1/tp slice: MFU could pass 100%)."""
    m = MODELS[name]
    rows = [{**r, "tp": tp, "num_gpus": max(r["num_gpus"], tp)} for r in rows]
    out = cm.evaluate_dlrm(m, _batch(rows))
    assert np.all(out["mfu"] <= np.array([r["eff_matmul"] for r in rows]) * (1 + 1e-9))


def test_tensor_parallel_mlp_gemms_take_the_groups_samples():
    """Compute-bound MLPs: the same FLOPs per GPU at every tp (b tp rows x N/tp columns), so the
    MLP time does not shrink with tp (it grows a little: the row-parallel GEMMs' depth N/tp is
    shorter), where each GPU's own b rows alone would have made it tp times shorter."""
    m = mlperf_model()
    base = run(m, plan(n=8, b=8192))
    for tp in (2.0, 4.0, 8.0):
        o = run(m, plan(n=8, b=8192, tp=tp))
        assert o["time_mlp_s"] >= base["time_mlp_s"]
        assert o["mfu"] <= 0.85
