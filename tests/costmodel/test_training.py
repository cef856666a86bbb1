"""End-to-end checks of dse.costmodel.evaluate_training on scenarios built through the API.

These check the *structure* of the training model (feasibility bits and their messages, the
time breakdown, throughput identities, the pipeline bubble, ZeRO-3 and MoE communication)
rather than calibrated numbers, so they survive recalibration of the efficiency figures.
"""

import numpy as np
import pytest

import dse
from dse.costmodel import describe, evaluate_training
from dse.costmodel import training as tr

REL = 1e-9
BREAKDOWN = (
    "time_compute_s", "time_bubble_s", "exposed_tp_s", "exposed_ep_s", "exposed_cp_s",
    "exposed_fsdp_s", "exposed_pp_s", "exposed_dp_s", "exposed_offload_s", "host_stall_s",
    "time_overlap_slowdown_s",
)


def columns(parallel, model="llama2-70b", num_gpus=64, cluster=None, training=None, precision="bf16"):
    """Cost-model columns of one scenario, through dse.load_scenario + dse.scenario_columns."""
    scenario = {
        "model": model,
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": num_gpus, **(cluster or {})},
        "parallel": parallel,
        "precision": precision,
    }
    if training is not None:
        scenario["training"] = training
    return dse.scenario_columns(dse.load_scenario(scenario))


def run(cols):
    """Evaluate one scenario (scalar columns); returns (outputs as floats, mask, reason)."""
    out = {k: float(v[0]) for k, v in evaluate_training(cols).items()}
    mask = int(out["infeasible_mask"])
    return out, mask, describe(mask, {**cols, **out})


def run_batch(rows):
    """Evaluate a list of column dicts as one vectorized batch."""
    batch = {k: np.array([r[k] for r in rows], dtype=np.float64) for k in rows[0]}
    return evaluate_training(batch)


# ----------------------------------------------------------------------------- feasibility
def test_feasible_baseline():
    out, mask, reason = run(columns({"tp": 8, "pp": 8, "global_batch": 64}))
    assert mask == 0 and out["feasible"] == 1.0 and reason == ""


def test_degrees_product():
    # 8*2*3*1 = 48 GPUs of 64
    _, mask, reason = run(columns({"tp": 8, "pp": 2, "dp": 3, "global_batch": 48}))
    assert mask & tr.DEGREES_PRODUCT
    assert "tp*pp*dp*cp = 8*2*3*1 = 48 != num_gpus 64" in reason


def test_kv_heads_that_neither_divide_nor_are_a_multiple_of_tp():
    # 48 query heads split 12 ways, but 8 KV heads neither split 12 ways nor fill whole heads
    cols = {**columns({"tp": 12, "dp": 1, "global_batch": 64}, num_gpus=12), "heads": 48.0, "kv_heads": 8.0,
            "hidden": 6144.0, "head_dim": 128.0}
    _, mask, reason = run(cols)
    assert mask & tr.HEADS_TP
    assert "kv_heads 8 must divide or be a multiple of tp 12" in reason and "heads 48" not in reason
    _, mask, reason = run({**cols, "heads": 40.0})  # 40 query heads do not split 12 ways either
    assert mask & tr.HEADS_TP and "heads 40 must be divisible by tp 12" in reason
    _, mask, reason = run({**cols, "heads": 40.0, "kv_heads": 4.0})  # 4 KV heads fill 12 ranks
    assert mask & tr.HEADS_TP and "heads 40" in reason and "kv_heads" not in reason


def test_fewer_kv_heads_than_tp_ranks_are_replicated_a_whole_head_per_rank():
    """Llama-2-70B's 8 KV heads at tp 16 (Megatron-core and GSPMD replicate a KV head over the
    ranks whose query heads read it; it was infeasible): every rank holds, projects, keeps and
    passes one whole K and V head, so per GPU the plan costs what the same model with 16 KV heads
    costs, in time, memory, hardware FLOPs and power (under a power limit too); only the model
    FLOPs (MFU's numerator) know the difference."""
    base = columns({"tp": 16, "cp": 2, "dp": 2, "global_batch": 64}, num_gpus=64)
    out, mask, reason = run(base)
    assert mask == 0, reason
    keys = ("iteration_time_s", "memory_per_gpu_bytes", "memory_weights_bytes", "memory_activations_bytes",
            "hardware_tflops_per_gpu", "hfu", "power_per_gpu_w", "energy_per_token_j", *BREAKDOWN)
    capped = {**base, "power_w": 400.0}
    out_capped = run(capped)[0]
    for kv in (16.0, 4.0, 1.0):  # 16 KV heads split 16 ways; 4 or 1 (multi-query) replicated too
        other, mask, _ = run({**base, "kv_heads": kv})
        assert mask == 0
        for key in keys:
            assert out[key] == pytest.approx(other[key], rel=REL, abs=1e-12), (kv, key)
        assert (out["mfu"] < other["mfu"]) == (kv > 8)  # the same time for fewer model FLOPs
        assert out_capped["iteration_time_s"] == pytest.approx(
            run({**capped, "kv_heads": kv})[0]["iteration_time_s"], rel=REL), kv
    # 32 KV heads at tp 16 split two a rank: more than one whole head costs more
    assert run({**base, "kv_heads": 32.0})[0]["memory_weights_bytes"] > out["memory_weights_bytes"]


def test_fewer_layers_than_pipeline_chunks():
    # 80 layers over 16*8 = 128 chunks: some chunk would be empty
    _, mask, reason = run(columns({"tp": 4, "pp": 16, "vpp": 8, "global_batch": 128}))
    assert mask & tr.LAYERS_PP
    assert "layers 80 + 2 fewer than pp*vpp = 16*8 = 128" in reason
    # 126 layers on 16*8 = 128 chunks: the embedding and the loss take the two extra chunks
    _, mask, reason = run(columns({"tp": 8, "pp": 16, "vpp": 8, "global_batch": 128},
                                  model={"preset": "llama3-405b"}, num_gpus=128))
    assert mask & tr.LAYERS_PP == 0, reason


def test_uneven_pipeline_stages_are_feasible_and_paced_by_the_fullest_stage():
    # 80 layers over 16*2 = 32 chunks (Megatron-core's uneven first/last stages): feasible
    out, mask, reason = run(columns({"tp": 4, "pp": 16, "vpp": 2, "global_batch": 64}))
    assert mask & tr.LAYERS_PP == 0, reason
    # pp = 3 on 80 layers: stages of 27, 27, 26 (+ head); the steady state runs at the slower of
    # a 27-layer stage and the 26-layer last stage with its head, so between 78 and 81 layers
    # split evenly, and the first stage holds 27 layers of weights (as 81 layers would)
    plan = {"tp": 8, "pp": 3, "global_batch": 48}
    by_layers = {n: run(columns(plan, model={"preset": "llama2-70b", "layers": n}, num_gpus=24))[0]
                 for n in (78, 80, 81)}
    for key in ("iteration_time_s", "memory_weights_bytes"):
        assert by_layers[78][key] < by_layers[80][key] <= by_layers[81][key]
    assert by_layers[80]["memory_weights_bytes"] == pytest.approx(by_layers[81]["memory_weights_bytes"], rel=REL)
    detail = {k: float(v[0]) for k, v in tr.evaluate_training_detail(
        columns(plan, model={"preset": "llama2-70b", "layers": 80}, num_gpus=24)).items()}
    assert detail["detail_layers_per_stage"] in (26.0, 27.0)
    assert sum(by_layers[80][k] for k in BREAKDOWN) == pytest.approx(by_layers[80]["iteration_time_s"], rel=REL)


def test_two_short_stages_are_the_first_and_the_last():
    """Llama 3.1 405B: 126 layers on 16 stages are 14 stages of 8 and two of 7, the first (with
    the embedding) and the last (with the head), as Meta's plan and Megatron-core's
    account_for_embedding/loss_in_pipeline_split place them. 1F1B (vpp 1) with 16 microbatches:
    the first stage keeps 16 microbatches of 7 layers (112 layer-microbatches), the second 15 of
    8 (120), so the second stage is the memory peak; its weights are 8 layers with no embedding."""
    plan = {"tp": 8, "pp": 16, "global_batch": 16 * 16, "microbatch": 1}
    cols = columns(plan, model={"preset": "llama3-405b"}, num_gpus=16 * 8 * 16)
    out, _, _ = run(cols)
    c = {k: float(np.asarray(v)) for k, v in cols.items()}
    # one layer's activations at tp 8 with sequence parallelism, bf16, flash attention
    T, h, f, d, a, g = 8192.0, c["hidden"], c["ffn_hidden"], c["head_dim"], c["heads"], c["kv_heads"]
    # attention: norm input, QKV input (2 bytes each) per h (no dropout, no masks); Q, K, V and
    # the output-projection input. FFN: norm input, FFN input; two up outputs and the SwiGLU out
    layer = (T * h * 4 / 8 + T * d * ((a + 2 * g) * 2 + a * 2) / 8
             + T * h * 4 / 8 + T * f * (2 * 2 + 2) / 8)
    assert out["memory_activations_bytes"] == pytest.approx(15 * 8 * layer, rel=1e-9)
    seven = run(columns(plan, model={"preset": "llama3-405b", "layers": 7 * 16}, num_gpus=16 * 8 * 16))[0]
    eight = run(columns(plan, model={"preset": "llama3-405b", "layers": 8 * 16}, num_gpus=16 * 8 * 16))[0]
    # the first stage of an even 7-layer split holds 16 x 7 layer-microbatches plus the embedding
    # output; the uneven split's peak (120) lies between it and an even 8-layer split's (128)
    assert seven["memory_activations_bytes"] < out["memory_activations_bytes"] < eight["memory_activations_bytes"]


def test_batch_not_divisible_by_dp_microbatch():
    # 100 sequences over dp*microbatch = 8*2 = 16
    _, mask, reason = run(columns({"tp": 8, "dp": 8, "microbatch": 2, "global_batch": 100}))
    assert mask & tr.BATCH_DP
    assert "global_batch 100 not divisible by dp*microbatch = 8*2 = 16" in reason


def test_experts_not_divisible_by_ep():
    # Mixtral 8x7B: 8 experts, ep = 16 (divides dp*cp = 16 but not 8 experts)
    _, mask, reason = run(columns({"tp": 4, "dp": 16, "ep": 16, "global_batch": 64}, model="mixtral-8x7b"))
    assert mask & tr.EXPERTS_EP
    assert "ep 16 must divide experts 8 and dp*cp = 16" in reason


def test_ep_on_dense_model():
    _, mask, reason = run(columns({"tp": 8, "dp": 8, "ep": 2, "global_batch": 64}))
    assert mask & tr.EP_DENSE
    assert "ep 2 > 1 but the model has no experts" in reason


def test_vpp_without_pipeline():
    # vpp = 2 with pp = 1; microbatches = 64/(8*1) = 8
    _, mask, reason = run(columns({"tp": 8, "dp": 8, "vpp": 2, "global_batch": 64}))
    assert mask & tr.INTERLEAVE
    assert "vpp 2 > 1 needs pp > 1 and microbatches 8 divisible by pp 1" in reason


def test_out_of_memory_on_tiny_hbm():
    out, mask, reason = run(columns({"tp": 8, "pp": 8, "global_batch": 64}, cluster={"hbm_gb": 1.0}))
    assert mask == tr.OUT_OF_MEMORY
    assert out["memory_excess_bytes"] == pytest.approx(out["memory_per_gpu_bytes"] - 2.0**30, rel=REL)
    gib = out["memory_per_gpu_bytes"] / 2.0**30
    assert f"out of memory: needs {gib:.1f} GiB per GPU > 1.0 GiB HBM" in reason
    # the parts listed in the message add up to the total
    parts = ("weights", "grads", "optimizer", "activations", "buffers", "reserved")
    total = sum(out[f"memory_{p}_bytes"] for p in parts)
    assert total == pytest.approx(out["memory_per_gpu_bytes"], rel=REL)


def test_seq_not_divisible_by_cp():
    _, mask, reason = run(columns({"tp": 8, "cp": 2, "dp": 4, "global_batch": 64},
                                  model={"preset": "llama2-70b", "seq_len": 4095}))
    assert mask & tr.SEQ_CP
    assert "seq_len 4095 not divisible by cp 2" in reason


def test_feasible_iff_mask_zero_and_dataframe_reasons():
    df = dse.evaluate([
        {"model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
         "parallel": {"tp": 8, "pp": 8, "global_batch": 64}},
        {"model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
         "parallel": {"tp": 8, "pp": 8, "vpp": 11, "global_batch": 64}},
    ])
    assert list(df["feasible"]) == [True, False]
    assert list(df["infeasible_mask"] == 0) == [True, False]
    assert df["infeasible_reason"].iat[0] == ""
    assert "fewer than pp*vpp = 8*11 = 88" in df["infeasible_reason"].iat[1]


# ----------------------------------------------------------------------------- time identities
PLANS = [
    {"tp": 8, "pp": 8, "global_batch": 64},
    {"tp": 8, "pp": 4, "vpp": 5, "global_batch": 128, "recompute": "selective"},
    {"tp": 4, "pp": 4, "cp": 2, "global_batch": 64, "recompute": "full"},
    {"tp": 8, "dp": 8, "zero": 3, "global_batch": 64, "recompute": "full"},
    {"tp": 2, "pp": 8, "zero": 1, "global_batch": 256, "microbatch": 2},
    {"tp": 8, "pp": 2, "zero": 2, "global_batch": 64, "sp": False},
    {"tp": 4, "pp": 16, "vpp": 2, "global_batch": 64},  # uneven: 80 layers over 32 chunks
]


@pytest.mark.parametrize("plan", PLANS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_breakdown_sums_to_iteration_time(plan):
    out, _, _ = run(columns(plan))
    total = sum(out[k] for k in BREAKDOWN)
    assert total == pytest.approx(out["iteration_time_s"], rel=REL)
    exposed = [k for k in BREAKDOWN if k.startswith("exposed_")]
    assert out["exposed_comm_s"] == pytest.approx(sum(out[k] for k in exposed), rel=REL)
    assert all(out[k] >= 0.0 for k in BREAKDOWN)


def test_moe_breakdown_sums_to_iteration_time():
    out, _, _ = run(columns({"tp": 2, "dp": 32, "ep": 8, "global_batch": 256}, model="mixtral-8x7b"))
    assert sum(out[k] for k in BREAKDOWN) == pytest.approx(out["iteration_time_s"], rel=REL)


@pytest.mark.parametrize("plan", PLANS[:3], ids=["tp8pp8", "vpp", "cp"])
def test_throughput_identities(plan):
    cols = columns(plan)
    out, _, _ = run(cols)
    tokens = cols["global_batch"] * cols["seq_len"]
    assert out["tokens_per_s"] == pytest.approx(tokens / out["iteration_time_s"], rel=REL)
    assert out["tokens_per_s_per_gpu"] == pytest.approx(out["tokens_per_s"] / cols["num_gpus"], rel=REL)
    assert out["samples_per_s"] == pytest.approx(cols["global_batch"] / out["iteration_time_s"], rel=REL)
    assert out["mfu"] == pytest.approx(out["model_tflops_per_gpu"] * 1e12 / cols["peak_flops"], rel=REL)
    assert out["hfu"] == pytest.approx(out["hardware_tflops_per_gpu"] * 1e12 / cols["peak_flops"], rel=REL)
    # model FLOPs of Llama-2-70B are 444,491,366,400 per token (test_flops.py):
    # model TFLOP/s per GPU = flops/token * tokens/s per GPU / 1e12
    assert out["model_tflops_per_gpu"] == pytest.approx(
        444_491_366_400.0 * out["tokens_per_s_per_gpu"] / 1e12, rel=REL
    )


def test_hfu_vs_mfu_by_recompute():
    rows = [columns({"tp": 8, "pp": 8, "global_batch": 64, "recompute": r}) for r in ("none", "selective", "full")]
    out = run_batch(rows)
    mfu, hfu = out["mfu"], out["hfu"]
    assert hfu[0] == mfu[0]  # no recompute: hardware FLOPs = model FLOPs
    assert hfu[1] > mfu[1] and hfu[2] > mfu[2]
    # Llama-2-70B per token: selective adds 10,737,418,240, full 147,639,500,800 FLOPs to the
    # model's 444,491,366,400 (test_flops.py): hfu/mfu = 1.02416, 1.33216
    assert hfu[1] / mfu[1] == pytest.approx(1 + 10_737_418_240 / 444_491_366_400, rel=REL)
    assert hfu[2] / mfu[2] == pytest.approx(1 + 147_639_500_800 / 444_491_366_400, rel=REL)
    # and recompute costs time
    assert out["iteration_time_s"][0] < out["iteration_time_s"][1] < out["iteration_time_s"][2]


# ----------------------------------------------------------------------------- pipeline bubble
def _step_last(layers, pp, vpp, tp=8):
    """Per-microbatch time of the last pipeline stage and the bubble for ``layers`` layers.

    iteration - exposed_pp = m*step_last + bubble + (dp, optimizer terms independent of m), so
    step_last is the slope in m (global_batch 64 -> 128 at dp = 1, microbatch 1).
    """
    rows = []
    for gb in (64, 128):
        c = columns({"tp": tp, "pp": pp, "vpp": vpp, "global_batch": gb}, num_gpus=tp * pp,
                    model={"preset": "llama2-70b", "layers": layers})
        rows.append(c)
    out = run_batch(rows)
    assert np.all((out["infeasible_mask"].astype(int) & ~tr.OUT_OF_MEMORY) == 0)
    base = out["iteration_time_s"] - out["exposed_pp_s"]
    step = (base[1] - base[0]) / (128 - 64)
    assert out["time_bubble_s"][0] == pytest.approx(out["time_bubble_s"][1], rel=REL)  # no m in it
    return step, out["time_bubble_s"][0]


@pytest.mark.parametrize("pp,vpp", [(2, 1), (4, 1), (4, 5), (8, 2)])
def test_bubble_is_pp_minus_1_over_vpp_stage_times(pp, vpp):
    # step_last(L) = L*X + H with X the time of one layer (compute + exposed comm + slowdown)
    # and H the LM head. Two layer counts (80 and 160 at the same pp) give X and H; the bubble
    # must be (pp-1)/vpp times the mean stage time L*X + H/pp.
    l1, l2 = 80, 160
    s1, bubble = _step_last(l1, pp, vpp)
    s2, _ = _step_last(l2, pp, vpp)
    L1, L2 = l1 / pp, l2 / pp
    X = (s1 - s2) / (L1 - L2)
    H = s1 - L1 * X
    assert X > 0 and H > 0
    assert bubble == pytest.approx((pp - 1) / vpp * (L1 * X + H / pp), rel=1e-7)


def test_uneven_virtual_stages_take_the_longest_chunks_bubble():
    """80 layers on pp 4 are 20 a stage: vpp 5 splits them into chunks of 4, vpp 7 into chunks of
    2 or 3. The warm-up and cool-down pass pp - 1 chunks, each the longest, so the bubble is
    (pp - 1) * 3/20 of the stage time at vpp 7, not (pp - 1)/7."""
    s5, b5 = _step_last(80, 4, 5)
    s7, b7 = _step_last(80, 4, 7)
    assert s7 == pytest.approx(s5, rel=1e-9)  # the steady state does not see the chunking
    assert b7 / b5 == pytest.approx((3 / 20) / (4 / 20), rel=1e-9)


def test_bubble_grows_with_pp_at_fixed_m_and_shrinks_with_vpp():
    # tp = 8, dp = 1, m = 64 microbatches, pp = 1, 2, 4, 8 on 8*pp GPUs
    rows = [columns({"tp": 8, "pp": pp, "global_batch": 64}, num_gpus=8 * pp) for pp in (1, 2, 4, 8)]
    out = run_batch(rows)
    np.testing.assert_array_equal(out["microbatches"], 64.0)
    bubble = out["time_bubble_s"]
    assert bubble[0] == 0.0
    assert np.all(np.diff(bubble) > 0)
    assert np.all(np.diff(bubble / out["iteration_time_s"]) > 0)
    # vpp = 1, 2, 5 at pp = 4: bubble exactly 1/vpp of the plain 1F1B bubble
    no_pp_overlap = {"overlap": {"pp": False}}
    rows = [columns({"tp": 8, "pp": 4, "vpp": v, "global_batch": 64}, num_gpus=32, training=no_pp_overlap)
            for v in (1, 2, 5)]
    out = run_batch(rows)
    b = out["time_bubble_s"]
    np.testing.assert_allclose(b, b[0] / np.array([1.0, 2.0, 5.0]), rtol=REL)
    # more chunks, more point-to-point transfers when they are not overlapped:
    # 2*(m*vpp + pp - 1) transfers of one boundary activation each, m = 64, pp = 4
    # -> 134, 262, 646 transfers
    pp_exp = out["exposed_pp_s"]
    np.testing.assert_allclose(pp_exp / pp_exp[0], np.array([134.0, 262.0, 646.0]) / 134.0, rtol=REL)


# ----------------------------------------------------------------------------- ZeRO and MoE
def test_zero3_uses_fsdp_and_no_dp_allreduce():
    rows = [columns({"tp": 8, "dp": 8, "zero": z, "global_batch": 64}) for z in (0, 1, 2, 3)]
    out = run_batch(rows)
    # ZeRO 0-2: no per-layer gathers; data-parallel gradient reduction present
    np.testing.assert_array_equal(out["exposed_fsdp_s"][:3], 0.0)
    np.testing.assert_array_equal(out["overlapped_fsdp_s"][:3], 0.0)
    assert np.all(out["exposed_dp_s"][:3] + out["overlapped_dp_s"][:3] > 0)
    # ZeRO-3: parameter gathers / gradient reduce-scatters per layer, no dp all-reduce
    assert out["exposed_fsdp_s"][3] + out["overlapped_fsdp_s"][3] > 0
    assert out["exposed_dp_s"][3] == 0.0 and out["overlapped_dp_s"][3] == 0.0
    # and sharding shrinks what each GPU holds: dp = 8 shards, plus a working set of whole
    # layers: one Llama-2-70B layer per GPU at tp = 8 is 855,654,400/8 = 106,956,800 params
    w, g, o = out["memory_weights_bytes"], out["memory_grads_bytes"], out["memory_optimizer_bytes"]
    layer = 106_956_800.0
    grad_bytes = rows[0]["grad_bytes"]
    assert o[1] == pytest.approx(o[0] / 8, rel=REL)  # optimizer sharded from ZeRO-1
    # gradients from ZeRO-2, plus one layer's gradient bucket before its reduce-scatter
    assert g[2] == pytest.approx(g[0] / 8 + layer * grad_bytes, rel=REL)
    # weights at ZeRO-3, plus two gathered layers (one prefetched), 2 bytes each
    assert w[3] == pytest.approx(w[0] / 8 + 2 * layer * 2.0, rel=REL)


def test_static_memory_pipeline_stages_hand_computed():
    # Llama-2-70B, tp = 8, pp = 2, ZeRO-0. Per GPU one layer is 855,654,400/8 = 106,956,800
    # params and the embedding (or the untied LM head) 32000*8192/8 = 32,768,000.
    # Each stage: 40 layers + one V*h/t matrix = 4,278,272,000 + 32,768,000 = 4,311,040,000
    # params -> weights 2 B = 8,622,080,000 B; optimizer 12 B = 51,732,480,000 B;
    # gradients grad_bytes each.
    cols = columns({"tp": 8, "pp": 2, "global_batch": 64})
    out, _, _ = run(cols)
    assert out["memory_weights_bytes"] == pytest.approx(8_622_080_000.0, rel=REL)
    assert out["memory_optimizer_bytes"] == pytest.approx(51_732_480_000.0, rel=REL)
    assert out["memory_grads_bytes"] == pytest.approx(4_311_040_000.0 * cols["grad_bytes"], rel=REL)


def test_hybrid_sharding_hand_computed():
    # Llama-2-70B, tp 8, pp 2, dp 8, ZeRO-1: each GPU's stage holds 4,311,040,000 params (see
    # above); the optimizer's 12 bytes a parameter are sharded over dp = 8 ranks, or over a
    # shard group of 4 (two replicas, which then all-reduce their gradient shards)
    plan = {"tp": 8, "pp": 2, "zero": 1, "global_batch": 64}
    full, _, _ = run(columns(plan, num_gpus=128))
    hsdp, mask, _ = run(columns({**plan, "shard_group": 4}, num_gpus=128))
    assert full["memory_optimizer_bytes"] == pytest.approx(12 * 4_311_040_000 / 8, rel=REL)
    assert hsdp["memory_optimizer_bytes"] == pytest.approx(12 * 4_311_040_000 / 4, rel=REL)
    assert mask == 0
    # the same plan with shard_group = dp is plain ZeRO-1
    same, _, _ = run(columns({**plan, "shard_group": 8}, num_gpus=128))
    assert same["iteration_time_s"] == pytest.approx(full["iteration_time_s"], rel=REL)
    _, mask, reason = run(columns({**plan, "shard_group": 3}, num_gpus=128))
    assert mask & tr.SHARD_GROUP and "shard_group 3 must divide dp*cp = 8*1 = 8" in reason


def test_static_memory_single_stage_holds_embedding_and_head():
    # regression: memory used to count only one V*h/t matrix at pp = 1
    # Llama-2-70B, tp = 8, pp = 1, ZeRO-0: 80 layers + embedding + LM head (untied)
    # = 80*106,956,800 + 2*32,768,000 = 8,556,544,000 + 65,536,000 = 8,622,080,000 params
    # -> weights 17,244,160,000 B, optimizer 103,464,960,000 B
    out, _, _ = run(columns({"tp": 8, "dp": 8, "global_batch": 64}))
    assert out["memory_weights_bytes"] == pytest.approx(17_244_160_000.0, rel=REL)
    assert out["memory_optimizer_bytes"] == pytest.approx(103_464_960_000.0, rel=REL)


def detail(cols):
    return {k: float(v[0]) for k, v in tr.evaluate_training_detail(cols).items()}


def test_moe_elementwise_traffic_hand_computed():
    # Mixtral-8x7B (every layer MoE, top-2, h 4096, expert FFN 14336), tp 1, one microbatch of
    # 4096 tokens: Tk = 8192 routed copies. With ep = 2 each rank holds 4 experts, so the tokens
    # it receives are sorted by expert and back: 4 more passes over Tk*h at 2 bytes.
    plan = {"tp": 1, "dp": 8, "microbatch": 1, "global_batch": 64}
    one, two = (columns({**plan, "ep": ep}, model="mixtral-8x7b", num_gpus=8) for ep in (1, 2))
    hbm = one["hbm_bw"] * one["eff_hbm"]
    T, h = 4096.0, 4096.0
    Tk = 2 * T
    sort = 4 * Tk * h * 2.0 / hbm
    assert detail(two)["detail_elem_f"] - detail(one)["detail_elem_f"] == pytest.approx(sort, rel=1e-9)
    # FP8: every GEMM input is cast (read 2 bytes, write 1); a MoE layer casts the routed copies:
    # 3 * (T*(h + a*d) + Tk*(h + fe)) bytes, a*d = h = 4096, fe = 14336
    fp8 = columns({**plan, "ep": 1}, model="mixtral-8x7b", num_gpus=8, precision="fp8")
    cast = 3.0 * (T * (h + h) + Tk * (h + 14336.0)) / hbm
    assert detail(fp8)["detail_elem_f"] - detail(one)["detail_elem_f"] == pytest.approx(cast, rel=1e-9)


def _net(cols):
    from dse.costmodel import collectives as coll
    return coll.Network(cols["nvlink_bw"] * cols["eff_nvlink"], cols["scaleout_bw"] * cols["eff_scaleout"],
                        cols["nvlink_latency"], cols["scaleout_latency"], cols["nvlink_domain"],
                        cols["rail_optimized"])


def test_moe_tensor_parallel_experts_gather_the_routed_copies():
    """Mixtral-8x7B (every layer MoE, top-2, no shared expert), tp 2 with sequence parallelism,
    ep 1, microbatch 1 of 4096 tokens: the dispatcher all-gathers the Tk = 8192 routed copies over
    the TP group before the experts and reduce-scatters their outputs (an all-reduce's worth of
    Tk*h*2 bytes forward), while the layer's TP collectives on its T tokens are the attention's
    AG + RS alone (a dense layer's FFN adds another pair)."""
    from dse.costmodel import collectives as coll
    plan = {"tp": 2, "dp": 32, "ep": 1, "sp": True, "microbatch": 1, "global_batch": 256}
    cols = columns(plan, model="mixtral-8x7b")
    net = _net(cols)
    T, h = 4096.0, 4096.0
    d = detail(cols)
    assert d["detail_ep_f"] == pytest.approx(float(coll.allreduce_time(2 * T * h * 2.0, 2.0, 1.0, net)), rel=1e-9)
    assert d["detail_tp_f"] == pytest.approx(float(coll.allreduce_time(T * h * 2.0, 2.0, 1.0, net)), rel=1e-9)
    # the expert GEMMs keep their gathered input whole on both TP ranks; sequence parallelism
    # halves only the kept expert output (Tk*h*2 bytes -> half)
    from dse.costmodel.memory import _expert_bytes
    assert _expert_bytes(T, cols, 2.0, 2.0, 2.0) - _expert_bytes(T, cols, 2.0, 1.0, 2.0) == pytest.approx(
        -2 * T * h * 2.0 / 2, rel=1e-9)


def test_folded_experts_hand_computed():
    """Mixtral-8x7B on 64 H100 with tp 2, ep 8, microbatch 1 of 4096 tokens. etp 1 folds the
    experts into their own layout: the 8 EP ranks are consecutive GPUs (one node), each holds
    whole experts (1/8 of them, not 1/16) and runs its EP rank's copies without a TP gather; the
    attention is still split 2 ways. Same FLOPs per GPU either way."""
    from dse.costmodel import collectives as coll
    plan = {"tp": 2, "dp": 32, "ep": 8, "sp": True, "microbatch": 1, "global_batch": 256}
    split, folded = (columns({**plan, "etp": e}, model="mixtral-8x7b") for e in (None, 1))
    assert split["etp"] == 0.0 and folded["etp"] == 1.0
    net = _net(folded)
    T, h = 4096.0, 4096.0
    send = 2 * T * h * 2.0 / 2  # a TP rank's sequence shard of the Tk = 2T routed copies, 2 bytes
    d_split, d_folded = detail(split), detail(folded)
    assert d_folded["detail_ep_f"] == pytest.approx(2 * float(coll.all_to_all_time(send, 8.0, 1.0, net)), rel=1e-9)
    gather = 0.5 * float(coll.allreduce_time(2 * T * h * 2.0, 2.0, 1.0, net))
    assert d_split["detail_ep_f"] == pytest.approx(2 * (float(coll.all_to_all_time(send, 8.0, 2.0, net)) + gather),
                                                   rel=1e-9)
    assert d_folded["detail_ep_f"] < d_split["detail_ep_f"]  # inside a node, no gather
    (o_split, _, _), (o_folded, _, _) = run(split), run(folded)
    experts = 32 * 8 * 3 * h * 14336.0  # 32 layers of 8 experts of 3 matrices, bf16 below
    assert o_folded["memory_weights_bytes"] - o_split["memory_weights_bytes"] == pytest.approx(
        2.0 * experts * (1 / 8 - 1 / 16), rel=1e-9)
    assert o_folded["hardware_tflops_per_gpu"] * o_folded["iteration_time_s"] == pytest.approx(
        o_split["hardware_tflops_per_gpu"] * o_split["iteration_time_s"], rel=1e-9)


def test_folded_experts_infeasible_with_reasons():
    cases = [({"tp": 2, "dp": 32, "ep": 8, "etp": 1, "sp": False}, "needs sequence parallelism"),
             ({"tp": 2, "dp": 32, "ep": 8, "sp": False}, "needs sequence parallelism"),  # Megatron-core
             ({"tp": 2, "dp": 32, "ep": 8, "etp": 16}, "etp*ep = 16*8 = 128 must divide tp*dp*cp = 2*32*1 = 64"),
             ({"tp": 2, "dp": 32, "ep": 8, "etp": 3}, "expert_ffn_hidden 14336 must be divisible by etp 3")]
    for plan, words in cases:
        out, mask, reason = run(columns({**plan, "global_batch": 256}, model="mixtral-8x7b"))
        assert mask and words in reason, reason
    _, mask, reason = run(columns({"tp": 8, "dp": 8, "etp": 1, "global_batch": 64}))
    assert "no experts" in reason


def test_the_dispatch_hides_only_under_the_shared_experts_within_a_microbatch():
    """The routed experts wait for the dispatch and feed the combine: within one microbatch the
    all-to-alls can hide only under the shared experts' GEMMs (Megatron-core's
    moe_shared_expert_overlap). Mixtral has none, so overlap.ep hides nothing there; DeepSeek-V3
    (one shared expert) hides some; across microbatches the whole layer is the window."""
    def ep_parts(model, ep, num_gpus, training):
        cols = columns({"tp": 1, "dp": num_gpus, "ep": ep, "global_batch": num_gpus}, model=model,
                       num_gpus=num_gpus, training=training)
        out, _, _ = run(cols)
        return out["exposed_ep_s"], out["overlapped_ep_s"]

    off = ep_parts("mixtral-8x7b", 8, 64, {"overlap": {"ep": False}})
    on = ep_parts("mixtral-8x7b", 8, 64, {"overlap": {"ep": True}})
    assert on[1] == 0.0 and on[0] == pytest.approx(off[0], rel=1e-9)
    cross = ep_parts("mixtral-8x7b", 8, 64, {"overlap": {"ep": True}, "ep_overlap_across_microbatches": True})
    assert cross[1] > 0.0 and cross[0] < off[0]
    shared = ep_parts("deepseek-v3", 64, 256, {"overlap": {"ep": True}})
    assert shared[1] > 0.0


def test_moe_expert_parallel_all_to_all():
    rows = [columns({"tp": 2, "dp": 32, "ep": ep, "global_batch": 256}, model="mixtral-8x7b") for ep in (1, 8)]
    out = run_batch(rows)
    # ep = 1: no all-to-all, only the TP gathers of the routed copies; ep = 8 adds the all-to-alls
    assert 0.0 < out["exposed_ep_s"][0] < out["exposed_ep_s"][1]
    assert np.all((out["infeasible_mask"].astype(int) & ~tr.OUT_OF_MEMORY) == 0)
    # ep spreads the experts: less expert memory per GPU
    assert out["memory_weights_bytes"][1] < out["memory_weights_bytes"][0]


# ----------------------------------------------------------------------------- finiteness
def test_every_output_finite_for_a_mixed_batch():
    plans = PLANS + [
        {"tp": 16, "global_batch": 64},  # fewer KV heads than ranks: replicated
        {"tp": 3, "pp": 3, "dp": 7, "global_batch": 10},  # nothing divides
        {"tp": 4, "pp": 16, "vpp": 2, "global_batch": 64},
        {"tp": 8, "dp": 8, "vpp": 3, "ep": 2, "global_batch": 7, "microbatch": 4},
        {"tp": 1, "pp": 1, "dp": 64, "zero": 3, "global_batch": 64},
        {"tp": 1, "pp": 1, "dp": 1, "global_batch": 1},
    ]
    rows = [columns(p) for p in plans]
    rows += [columns({"tp": 2, "dp": 32, "ep": 8, "global_batch": 256}, model="mixtral-8x7b")]
    rows += [columns({"tp": 8, "pp": 4, "global_batch": 64}, precision="fp8")]
    rows += [columns({"tp": 8, "pp": 8, "global_batch": 64}, cluster={"hbm_gb": 1.0})]
    rows += [columns({"tp": 8, "pp": 4, "global_batch": 64},
                     training={"flash_attention": False, "overlap": {"tp": True, "pp": True, "dp": False}})]
    out = run_batch(rows)
    for name, values in out.items():
        assert values.shape == (len(rows),), name
        assert np.all(np.isfinite(values)), f"{name}: {values}"
    np.testing.assert_array_equal(out["feasible"] == 1.0, out["infeasible_mask"] == 0.0)
    assert set(tr.OUTPUTS) <= set(out)


# ----------------------------------------------------------------------------- loss and FSDP accumulation
def _detail(cols):
    return {k: float(v[0]) for k, v in tr.evaluate_training_detail(cols).items()}


def test_fp32_cross_entropy_keeps_12_bytes_a_logit_and_moves_40():
    """Llama-3 8B, one GPU's whole model (tp 1, pp 1), microbatch 1 x 8192 tokens, vocab 128256:
    the fused loss keeps the 16-bit logits and their gradient (2 x 2 bytes a logit), PyTorch's
    fp32 cross-entropy 12 bytes at its backward's peak: 8 more, 8192 x 128256 x 8 = 8.4 GB. Its
    passes move 18 + 22 bytes a logit instead of 12 + 12: 6 more in forward, 10 in backward."""
    plan = {"tp": 1, "pp": 1, "zero": 3, "microbatch": 1, "global_batch": 8}
    fused = columns(plan, model="llama3-8b", num_gpus=8)
    fp32 = columns(plan, model="llama3-8b", num_gpus=8, training={"cross_entropy": "fp32"})
    assert (fused["ce_fp32"], fp32["ce_fp32"]) == (0.0, 1.0)
    a, b = run(fused)[0], run(fp32)[0]
    logits = 8192 * 128256
    assert (a["memory_logits_bytes"], b["memory_logits_bytes"]) == pytest.approx((4 * logits, 12 * logits), rel=1e-9)
    assert b["memory_activations_bytes"] == pytest.approx(a["memory_activations_bytes"], rel=1e-12)
    assert b["memory_per_gpu_bytes"] - a["memory_per_gpu_bytes"] == pytest.approx(8 * logits, rel=1e-9)
    da, db = _detail(fused), _detail(fp32)
    hbm = fused["hbm_bw"] * fused["eff_hbm"]
    assert db["detail_head_f"] - da["detail_head_f"] == pytest.approx(6 * logits / hbm, rel=1e-9)
    assert db["detail_head_b"] - da["detail_head_b"] == pytest.approx(10 * logits / hbm, rel=1e-9)
    assert b["iteration_time_s"] > a["iteration_time_s"]


def test_fsdp_unsharded_accumulation_holds_the_stage_and_gathers_once_a_step():
    """Llama-2-70B, zero 3 over dp 8, pp 8 (10 layers a stage), 8 microbatches a step: kept whole,
    a stage's weights are its 16-bit parameters unsharded, and its gradients gain an unsharded
    copy at the reduction's precision (4 bytes: fp32); the layer's gathers and reduce-scatters
    run once a step, 1/8 of them per microbatch. With one microbatch a step nothing changes."""
    plan = {"tp": 1, "pp": 8, "zero": 3, "microbatch": 1, "global_batch": 64}
    train = {"grad_reduce_bytes": 4, "fp32_grad_accumulation": True}
    per_mb = columns(plan, training=train)
    whole = columns(plan, training={**train, "fsdp_unsharded_accumulation": True})
    a, b = run(per_mb)[0], run(whole)[0]
    da, db = _detail(per_mb), _detail(whole)
    assert db["detail_fsdp_f"] == pytest.approx(da["detail_fsdp_f"] / 8, rel=1e-12)
    assert b["exposed_fsdp_s"] < a["exposed_fsdp_s"]
    # weights: unsharded stage at 2 bytes; the gradients: + the stage unsharded at 4 bytes
    stage = b["memory_weights_bytes"] / 2.0
    assert b["memory_grads_bytes"] - a["memory_grads_bytes"] == pytest.approx(4.0 * stage, rel=1e-9)
    assert stage > 10 * 0.85e9  # 10 layers of ~0.86 B parameters and the embedding or head
    assert b["memory_weights_bytes"] > a["memory_weights_bytes"]
    one = {**plan, "global_batch": 8}
    assert run(columns(one, training={**train, "fsdp_unsharded_accumulation": True}))[0] == \
        run(columns(one, training=train))[0]


def test_fsdp_unsharded_accumulation_needs_zero_3():
    with pytest.raises(dse.InputError, match=r"training.fsdp_unsharded_accumulation describes FSDP \(parallel.zero 3\); "
                                             r"parallel.zero is 1"):
        columns({"tp": 1, "pp": 8, "zero": 1, "microbatch": 1, "global_batch": 64},
                training={"fsdp_unsharded_accumulation": True})


def test_sequence_parallel_backward_gathers_the_inputs_again():
    """With sp the QKV and FC1 inputs are kept as sequence shards: the backward all-gathers them
    again for the weight gradients, one all-reduce's worth more than the 2 + 2 of a layer
    (Korthikanti et al. 2022, sec. 4.2.2), launched under the input-gradient GEMMs: the TP
    traffic is 5/4 of the same plan without sp, its exposed part the same (the GEMMs are longer)."""
    import dse

    def tp(sp):
        r = dse.evaluate({"model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
                          "parallel": {"tp": 8, "pp": 1, "sp": sp, "zero": 1, "microbatch": 1,
                                       "global_batch": 64, "recompute": "none"}}).iloc[0]
        return r["exposed_tp_s"], r["overlapped_tp_s"]

    (exp_sp, hid_sp), (exp_no, hid_no) = tp(True), tp(False)
    assert hid_no == 0.0 and exp_sp == pytest.approx(exp_no, rel=1e-9)
    assert exp_sp + hid_sp == pytest.approx(1.25 * exp_no, rel=1e-9)


def test_zero2_reduce_scatters_every_microbatch():
    """ZeRO-2 keeps only its gradient shard, so each of a step's m microbatches reduce-scatters its
    gradients (DeepSpeed stage 2): m - 1 more than ZeRO-1, which accumulates them whole. At one
    microbatch the two communicate alike; at eight ZeRO-2 moves 7 more reduce-scatters."""
    import dse

    def dp(zero, global_batch):
        r = dse.evaluate({"model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
                          "parallel": {"tp": 1, "pp": 1, "zero": zero, "microbatch": 1,
                                       "global_batch": global_batch}}).iloc[0]
        return r["exposed_dp_s"] + r["overlapped_dp_s"], r["iteration_time_s"]

    assert dp(2, 64) == pytest.approx(dp(1, 64), rel=1e-12)
    (z1, t1), (z2, t2) = dp(1, 512), dp(2, 512)
    assert z2 > z1 and t2 > t1
    (z1_one, _), (z2_one, _) = dp(1, 64), dp(2, 64)
    # the extra traffic is 7 reduce-scatters: ZeRO-1's step traffic is one reduce-scatter and one
    # all-gather of the same bytes (at 2-byte gradients and weights: the same time)
    assert z2 - z1 == pytest.approx(7 * z1_one / 2, rel=1e-6)


def test_the_busiest_expert_rank_paces_the_moe_layers():
    """moe_load_imbalance = max/mean routed copies per EP rank: the dispatch of the busiest rank
    takes that many times as long (it receives that many times the mean), its expert GEMMs run
    that many more tokens and it keeps that many more routed activations; the FLOPs counted do
    not change (the other ranks wait), so the time and MFU pay for it."""
    plan = {"tp": 1, "dp": 64, "ep": 8, "zero": 1, "microbatch": 1, "global_batch": 256}
    even, skew = (columns(plan, model="mixtral-8x7b", training={"moe_load_imbalance": f}) for f in (1.0, 1.5))
    d_even, d_skew = detail(even), detail(skew)
    assert d_skew["detail_ep_f"] == pytest.approx(1.5 * d_even["detail_ep_f"], rel=1e-12)
    (o_even, _, _), (o_skew, _, _) = run(even), run(skew)
    assert o_skew["iteration_time_s"] > o_even["iteration_time_s"]
    assert o_skew["memory_activations_bytes"] > o_even["memory_activations_bytes"]
    assert o_skew["mfu"] < o_even["mfu"]
    assert o_skew["hardware_tflops_per_gpu"] * o_skew["iteration_time_s"] == pytest.approx(
        o_even["hardware_tflops_per_gpu"] * o_even["iteration_time_s"], rel=1e-12)
    # a dense model has no experts to imbalance
    dense = [columns({"tp": 8, "dp": 8, "global_batch": 64}, training={"moe_load_imbalance": f}) for f in (1.0, 2.0)]
    assert run(dense[0])[0]["iteration_time_s"] == run(dense[1])[0]["iteration_time_s"]


def test_an_fp8_dispatch_halves_the_exchange_into_the_experts_only():
    """DeepSeek-V3 quantizes the tokens to FP8 before the dispatch (and the gradients going back
    in); the exchange out of the experts stays 16-bit. Mixtral tp 1, ep 8 inside a node: the
    dispatch moves half the bytes, the combine the same."""
    from dse.costmodel import collectives as coll
    plan = {"tp": 1, "dp": 64, "ep": 8, "microbatch": 1, "global_batch": 256}
    bf16, fp8 = (columns(plan, model="mixtral-8x7b", training=t) for t in ({}, {"moe_dispatch_dtype": "fp8"}))
    net = _net(bf16)
    Tk, h = 2 * 4096.0, 4096.0
    one = lambda nbytes: float(coll.all_to_all_time(Tk * h * nbytes, 8.0, 1.0, net))  # noqa: E731
    assert detail(bf16)["detail_ep_f"] == pytest.approx(2 * one(2.0), rel=1e-12)
    assert detail(fp8)["detail_ep_f"] == pytest.approx(one(1.0) + one(2.0), rel=1e-12)


@pytest.mark.parametrize("precision", ["fp8", "bf16"])
def test_the_lm_head_runs_16_bit_in_an_fp8_recipe(precision):
    """FP8 training keeps the LM head 16-bit (Megatron-core's output layer is not a Transformer
    Engine module; torchtitan's float8 conversion skips it): its three GEMMs (forward, data and
    weight gradient) run at peak_flops_16 x eff_matmul_16 x K / (K + k_half). Halving
    eff_matmul_16 adds exactly their time at the full rate; a BF16 run's head runs at eff_matmul."""
    cols = columns({"tp": 1, "dp": 1, "microbatch": 1, "global_batch": 2}, model="llama2-7b", num_gpus=1,
                   precision=precision)
    base, _, _ = run(cols)
    slow, _, _ = run({**cols, "eff_matmul_16": cols["eff_matmul_16"] / 2.0})
    if precision == "bf16":
        assert slow["time_compute_s"] == pytest.approx(base["time_compute_s"], rel=REL)
        return
    T, h, V, kh = cols["seq_len"], cols["hidden"], cols["vocab"], cols["matmul_k_half"]
    rate = cols["peak_flops_16"] * cols["eff_matmul_16"]
    head = sum(2.0 * T * h * V / (rate * K / (K + kh)) for K in (h, V, T))  # K: h, V, then the tokens
    assert slow["time_compute_s"] - base["time_compute_s"] == pytest.approx(2 * head, rel=1e-6)
