"""Activation offloading (training.offload_activation_layers, the cost-model column
``offload_layers``): memory and exposed copy time against hand arithmetic, properties, and
the scenario checks."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dse
from dse.costmodel import evaluate_training
from dse.errors import InputError

from test_properties import PROPERTY, RTOL, batch, configs, describe_failures

GIB = 2.0**30


def _llama70b_fsdp(gpu="GB200", offload=0, **cluster):
    """Llama 3 70B FP8, Megatron-FSDP over 64 GPUs, 2 x 8192 tokens per microbatch, no recompute:
    Megatron-Bridge 26.04's GB200 preset (which offloads 40 of the 80 layers)."""
    return dse.load_scenario({
        "model": {"name": "llama3-70b", "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8,
                  "ffn_hidden": 28672, "ffn_act": "swiglu", "vocab": 128256, "seq_len": 8192},
        "precision": "fp8",
        "cluster": {"gpu": gpu, "num_gpus": 64, **cluster},
        "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 2, "global_batch": 256},
        "training": {"offload_activation_layers": offload},
    })


def _one(scenario):
    return {k: float(v[0]) for k, v in evaluate_training(dse.scenario_columns(scenario)).items()}


def _layer_bytes():
    """One Llama 3 70B layer's saved activations for 16,384 tokens in FP8 with a flash kernel,
    no TP (Korthikanti's terms rederived, memory.py's docstring; Llama trains without dropout, so
    no masks): attention: norm input (2), QKV input (1, FP8) per h; Q, K, V (2 bytes: 64 + 2 x 8
    heads of 128) and the output-projection input (1 byte, 64 heads of 128); FFN: norm input, FFN
    input (2 + 1 per h), the two up-projection outputs (2 x 2 bytes per f) and the SwiGLU output
    (1 byte per f)."""
    T, h, f, d = 16384, 8192, 28672, 128
    attention = T * h * 3 + T * d * ((64 + 16) * 2 + 64 * 1)
    ffn = T * h * 3 + T * f * (2 * 2 + 1)
    return attention + ffn


def test_offloaded_layers_leave_hbm_but_one_copy_in_flight():
    base, off = _one(_llama70b_fsdp()), _one(_llama70b_fsdp(offload=40))
    layer = _layer_bytes()
    assert layer / GIB == pytest.approx(3.375)  # 0.8125 GiB attention + 2.5625 GiB FFN
    # 40 layers leave; one layer's buffer stays for the copy in flight
    assert base["memory_activations_bytes"] - off["memory_activations_bytes"] == pytest.approx(39 * layer, rel=1e-12)
    assert base["feasible"] == 0.0 and off["feasible"] == 1.0  # 305.9 GiB > 186 GiB; 174.3 GiB fits


def test_copies_hide_under_the_layers_on_nvlink_c2c():
    """3.375 GiB at 900/2 GB/s x 0.8 = 10.1 ms per layer and direction, below the layer's
    forward (13.4 ms) and backward (27.3 ms): nothing is exposed and the step time does not change."""
    base, off = _one(_llama70b_fsdp()), _one(_llama70b_fsdp(offload=40))
    detail = dse.costmodel.training.evaluate_training_detail(dse.scenario_columns(_llama70b_fsdp(offload=40)))
    assert _layer_bytes() / (450e9 * 0.8) < float(detail["detail_layer_f_time"][0])
    assert off["exposed_offload_s"] == 0.0
    assert off["iteration_time_s"] == pytest.approx(base["iteration_time_s"], rel=1e-12)
    copy = _layer_bytes() / (450e9 * 0.8)
    microbatches = 256 / (64 * 2)
    assert off["overlapped_offload_s"] == pytest.approx(microbatches * 40 * 2 * copy, rel=1e-12)


def test_a_slow_host_link_exposes_what_the_layer_cannot_hide():
    """At 2 GB/s (1 GB/s a direction, 0.8 GB/s effective) a 3.375 GiB copy takes 4.53 s, longer
    than the layer's forward and backward: the rest waits, per offloaded layer and microbatch."""
    slow = _llama70b_fsdp(offload=40, host_link_gbps=2.0)
    cols = dse.scenario_columns(slow)
    out = _one(slow)
    detail = {k: float(v[0]) for k, v in
              dse.costmodel.training.evaluate_training_detail(cols).items() if k.startswith("detail_")}
    copy = _layer_bytes() / (1e9 * 0.8)
    fwd, bwd = detail["detail_layer_f_time"], detail["detail_layer_b_time"]
    assert copy > bwd > fwd
    expected = 2 * 40 * ((copy - fwd) + (copy - bwd))  # 2 microbatches
    assert out["exposed_offload_s"] == pytest.approx(expected, rel=1e-9)
    base = _one(_llama70b_fsdp(host_link_gbps=2.0))
    assert out["iteration_time_s"] == pytest.approx(base["iteration_time_s"] + expected, rel=1e-9)


def test_the_breakdown_still_adds_up_with_exposed_copies():
    out = _one(_llama70b_fsdp(offload=40, host_link_gbps=16.0))
    assert out["exposed_offload_s"] > 0
    parts = ("time_compute_s", "time_bubble_s", "exposed_tp_s", "exposed_ep_s", "exposed_cp_s", "exposed_fsdp_s",
             "exposed_pp_s", "exposed_dp_s", "exposed_offload_s", "time_overlap_slowdown_s")
    assert sum(out[p] for p in parts) == pytest.approx(out["iteration_time_s"], rel=1e-9)


def test_host_link_comes_from_the_gpu_preset_or_the_cluster():
    assert dse.scenario_columns(_llama70b_fsdp("GB200"))["host_link_bw"] == 450e9  # NVLink-C2C 900 GB/s
    assert dse.scenario_columns(_llama70b_fsdp("H100-SXM-80GB"))["host_link_bw"] == 64e9  # PCIe Gen5 x16
    assert dse.scenario_columns(_llama70b_fsdp("H100", host_link_gbps=64))["host_link_bw"] == 32e9


@pytest.mark.parametrize("offload, message", [
    (80, "must be less than model.layers (80): allowed 0 to 79"),
    (200, "must be less than model.layers (80)"),
])
def test_offloading_every_layer_is_refused_with_the_arithmetic(offload, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _llama70b_fsdp(offload=offload)


def test_offloading_a_dlrm_is_refused():
    with pytest.raises(InputError, match="a dlrm model has none"):
        dse.load_scenario({
            "model": {"name": "small-dlrm", "family": "dlrm", "dense_features": 13,
                      "tables": [{"rows": 1000, "dim": 64, "pooling": 1.0}], "bottom_mlp": [64],
                      "top_mlp": [64, 1], "interaction": "dot"},
            "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8},
            "training": {"offload_activation_layers": 2}})


# ------------------------------------------------------------------------------ properties
offloads = st.sampled_from([1.0, 2.0, 5.0, 10.0])


@PROPERTY
@given(rows=configs, k=offloads)
def test_offloading_more_layers_never_needs_more_memory(rows, k):
    n = len(rows)
    levels = [0.0, k, 2 * k]
    out = evaluate_training(batch(rows * 3, offload_layers=np.repeat(levels, n)))
    mem = out["memory_per_gpu_bytes"].reshape(3, n)
    worse = np.any(mem[1:] > mem[:-1] * (1 + RTOL), axis=0)
    assert not worse.any(), (describe_failures(rows, worse), mem[:, worse][:, :3])


@PROPERTY
@given(rows=configs, k=offloads, f=st.floats(1.0, 64.0), link=st.floats(4e9, 5e11))
def test_offloading_is_never_faster_and_a_faster_host_link_never_slower(rows, k, f, link):
    n = len(rows)
    cols = [batch(rows, offload_layers=0.0, host_link_bw=link),
            batch(rows, offload_layers=k, host_link_bw=link),
            batch(rows, offload_layers=k, host_link_bw=link * f)]
    joined = {key: np.concatenate([np.broadcast_to(c[key], (n,)) for c in cols]) for key in cols[0]}
    it = evaluate_training(joined)["iteration_time_s"].reshape(3, n)
    faster = it[1] < it[0] * (1 - RTOL)
    slower = it[2] > it[1] * (1 + RTOL)
    assert not faster.any(), describe_failures(rows, faster)
    assert not slower.any(), describe_failures(rows, slower)


def test_offloading_more_than_the_host_holds_is_infeasible_with_the_arithmetic():
    """GB200: 240 GB of Grace memory per GPU. Llama 3 70B FSDP at microbatch 2 keeps 3.375 GiB a
    layer: 40 layers need 135 GiB (fits), 79 layers 266.6 GiB (does not)."""
    ok, full = _one(_llama70b_fsdp(offload=40)), _one(_llama70b_fsdp(offload=79))
    assert ok["host_memory_offload_bytes"] == pytest.approx(40 * _layer_bytes(), rel=1e-12)
    assert ok["feasible"] == 1.0
    assert full["host_memory_offload_bytes"] == pytest.approx(79 * _layer_bytes(), rel=1e-12)
    frame = dse.evaluate(_llama70b_fsdp(offload=79))
    assert not frame["feasible"].iat[0]
    assert ("out of host memory: the offloaded activations of 79 layers need 266.6 GiB per GPU > "
            "240.0 GiB of host memory per GPU") in frame["infeasible_reason"].iat[0]
    # an HGX server's host memory is the server's: unchecked unless the scenario states it
    h100 = _one(_llama70b_fsdp("H100-SXM-80GB", offload=79))
    assert not int(h100["infeasible_mask"]) & dse.costmodel.training.HOST_MEMORY
    stated = _one(_llama70b_fsdp("H100-SXM-80GB", offload=79, host_memory_gb=256))
    assert int(stated["infeasible_mask"]) & dse.costmodel.training.HOST_MEMORY


def test_copies_hide_under_the_layers_wall_time_with_the_moe_host_stall():
    """A host-bound MoE layer takes longer than its GPU time; the offload copies run under the
    whole of it. Regression: gpt-oss-120b on 64 B300 (tp 2, pp 8, cp 2, ep 4, two layers
    offloaded) got slower with twice the FLOP/s, 7.04 -> 7.12 s, because a faster GPU shrank the
    copies' window one for one while the host kept the layer's time."""
    def scenario(scale):
        return dse.load_scenario({
            "workload": "train", "precision": "bf16", "model": {"preset": "gpt-oss-120b", "seq_len": 4096},
            "cluster": {"gpu": "B300", "num_gpus": 64, "peak_tflops": {"bf16": 2250 * scale}},
            "parallel": {"tp": 2, "pp": 8, "dp": 2, "cp": 2, "ep": 4, "zero": 1, "microbatch": 2,
                         "global_batch": 256},
            "training": {"offload_activation_layers": 2}})

    out = dse.evaluate([scenario(1.0), scenario(2.0)])
    assert out["host_stall_s"].iloc[0] > 0 and out["exposed_offload_s"].iloc[0] > 0
    assert out["iteration_time_s"].iloc[1] < out["iteration_time_s"].iloc[0]
