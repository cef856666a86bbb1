"""Multi-head latent attention (DeepSeek-V3, Kimi-K2): hand-computed parameter, FLOP and KV-cache
counts, the TP behaviour of the latent cache, spec errors and finiteness over random plans."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel import evaluate_training
from dse.costmodel.flops import model_flops_per_token
from dse.costmodel.inference import evaluate_inference
from dse.errors import InputError
from dse.workloads.inference import inference_columns

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

# DeepSeek-V3 (config.json)
H, A, QR, KR, NOPE, ROPE, DV = 7168, 128, 1536, 512, 128, 64, 128
DQK = NOPE + ROPE


def mla_attention_params():
    """One layer's MLA projections: down (h -> q_r + kv_r + rope), query up (q_r -> a d_qk),
    key/value up (kv_r -> a (nope + v)), output (a v -> h), and the two latent norms."""
    return H * (QR + KR + ROPE) + QR * A * DQK + KR * A * (NOPE + DV) + A * DV * H + QR + KR


def training(model="deepseek-v3", parallel=None, num_gpus=256, precision="bf16"):
    scenario = dse.load_scenario({
        "model": model, "precision": precision,
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": num_gpus},
        "parallel": parallel or {"tp": 1, "pp": 16, "ep": 16, "global_batch": 1024, "recompute": "full"},
    })
    return dse.scenario_columns(scenario)


def serving(tp=8, model="deepseek-v3", input_len=1024, output_len=1024, **inference):
    scenario = dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": model,
        "cluster": {"gpu": "H200-SXM-141GB", "num_gpus": tp}, "parallel": {"tp": tp},
        "inference": {"input_len": input_len, "output_len": output_len, **inference},
    })
    return inference_columns(scenario)


def one_serving(cols):
    return {k: float(v[0]) for k, v in evaluate_inference(cols).items()}


def test_deepseek_v3_has_671b_parameters_37b_active():
    out = evaluate_training(training())
    attn = mla_attention_params() + 2 * H  # + the two layer norms
    dense_ffn, expert = 3 * H * 18432, 3 * H * 2048
    emb = 2 * 129280 * H
    total = 61 * attn + 3 * dense_ffn + 58 * (H * 256 + 257 * expert) + emb
    active = 61 * attn + 3 * dense_ffn + 58 * (H * 256 + 9 * expert) + emb
    assert out["params_total"][0] == pytest.approx(total, rel=1e-12)
    assert out["params_active"][0] == pytest.approx(active, rel=1e-12)
    assert total == pytest.approx(671e9, rel=0.001)  # the technical report's 671B
    assert active == pytest.approx(37e9, rel=0.02)  # and 37B activated


def test_training_flops_count_the_latent_projections_and_the_wider_query_key_heads():
    """Model FLOPs per token: 3 x (2 x linear weights + the attention core 2 s a (d_qk + d_v))
    per layer, plus the LM head; the core of a causal sequence counted at the full s^2."""
    cols = training()
    s = cols["seq_len"]
    attn = mla_attention_params()
    dense_ffn, expert, router = 3 * H * 18432, 3 * H * 2048, H * 256
    core = 2 * s * A * (DQK + DV)
    fwd = (3 * (2 * (attn + dense_ffn) + core) + 58 * (2 * (attn + 9 * expert + router) + core)
           + 2 * H * 129280)
    assert float(model_flops_per_token(cols)) == pytest.approx(3 * fwd, rel=1e-12)


def test_serving_caches_the_latent_and_rotary_key_on_every_tp_rank():
    """61 layers x (512 + 64) FP8 elements per token, the same on every rank whatever the TP
    degree (the latent is not split over heads); a GQA cache would shrink with TP."""
    for tp in (1, 8):
        out = one_serving(serving(tp=tp, batch=1))
        assert out["kv_bytes_per_token"] == 61 * (KR + ROPE) * 1.0


def test_latent_decode_reads_far_less_than_the_equivalent_multi_head_cache():
    """The same model with standard attention (128 KV heads of 192) caches 2 x 128 x 192 per token
    and layer: 85x the latent's 576; long-context decode is then much slower."""
    mla = serving(batch=32, input_len=32768, output_len=1024)
    mha = {**mla, "mla_kv_rank": 0.0}
    a, b = one_serving(mla), one_serving(mha)
    assert b["kv_bytes_per_token"] / a["kv_bytes_per_token"] == pytest.approx(2 * A * DQK / 8 / (KR + ROPE))
    assert a["itl_ms"] < b["itl_ms"]


@pytest.mark.parametrize("model, message", [
    ({"kv_heads": 8}, "kv_heads .* must be null or equal heads"),
    ({"head_dim": 128}, "head_dim .* must be null or qk_nope_head_dim"),
    ({"mla": {"kv_lora_rank": 0, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}},
     "kv_lora_rank"),
    ({"mla": {"kv_lora_rank": 512, "qk_nope_head_dim": 128, "v_head_dim": 128}}, "qk_rope_head_dim"),
])
def test_bad_mla_fields_are_clear_errors(model, message):
    base = {"preset": "deepseek-v3", **model}
    with pytest.raises(InputError, match=message):
        dse.load_scenario({"model": base, "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
                           "parallel": {"tp": 8}})


@PROPERTY
@given(tp=st.sampled_from([1, 2, 4, 8]), pp=st.sampled_from([1, 2, 4]), ep=st.sampled_from([1, 4, 8]),
       cp=st.sampled_from([1, 2]), mb=st.sampled_from([1, 2]), recompute=st.sampled_from(["none", "selective", "full"]),
       zero=st.sampled_from([0, 1, 3]), fp8=st.booleans(), kv_rank=st.sampled_from([128, 512, 1024]),
       q_rank=st.sampled_from([0, 768, 1536]))
def test_mla_training_is_finite_and_a_wider_latent_never_needs_less_memory(tp, pp, ep, cp, mb, recompute, zero,
                                                                           fp8, kv_rank, q_rank):
    n = tp * pp * cp * 16
    par = {"tp": tp, "pp": pp, "ep": ep, "cp": cp, "microbatch": mb, "global_batch": 256,
           "recompute": recompute, "zero": zero}
    model = {"preset": "deepseek-v3", "layers": 16, "mla": {"kv_lora_rank": kv_rank, "q_lora_rank": q_rank,
             "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128}, "moe": {
             "experts": 32, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 1}}
    cols = training(model, par, num_gpus=n, precision="fp8" if fp8 else "bf16")
    wider = training({**model, "mla": {**model["mla"], "kv_lora_rank": kv_rank * 2}}, par, num_gpus=n,
                     precision="fp8" if fp8 else "bf16")
    out, out_w = evaluate_training(cols), evaluate_training(wider)
    for key in ("iteration_time_s", "memory_per_gpu_bytes", "mfu", "tokens_per_s"):
        assert np.isfinite(out[key][0]), key
    assert out_w["memory_per_gpu_bytes"][0] >= out["memory_per_gpu_bytes"][0]
    assert out_w["iteration_time_s"][0] >= out["iteration_time_s"][0] * (1 - 1e-12)


# ----------------------------------------------------------------------------- DeepSeek-style dispatch
def deepseek_training(dispatcher="alltoall", cross=False, groups=True):
    moe = {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 3}
    if groups:
        moe.update(expert_groups=8, top_groups=4)
    scenario = dse.load_scenario({
        "model": {"preset": "deepseek-v3", "moe": moe}, "precision": "fp8",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 2048, "nvlink_gbps": 400},
        "parallel": {"tp": 1, "pp": 16, "ep": 64, "recompute": "full", "global_batch": 15360},
        "training": {"moe_dispatcher": dispatcher, "ep_overlap_across_microbatches": cross, "overlap": {"ep": True}},
    })
    return {k: float(v[0]) for k, v in evaluate_training(dse.scenario_columns(scenario)).items()}


def test_deduplicated_group_limited_dispatch_and_cross_microbatch_overlap_each_cut_exposed_ep():
    base = deepseek_training()
    dedup = deepseek_training("deepep", groups=False)
    limited = deepseek_training("deepep")
    both = deepseek_training("deepep", cross=True)
    assert base["exposed_ep_s"] > dedup["exposed_ep_s"] > limited["exposed_ep_s"] > both["exposed_ep_s"]
    assert both["iteration_time_s"] < base["iteration_time_s"]
    # the group limit only matters to the deduplicated dispatch
    assert deepseek_training(groups=False)["iteration_time_s"] == pytest.approx(base["iteration_time_s"], rel=1e-12)


@pytest.mark.parametrize("moe, message", [
    ({"expert_groups": 8}, "expert_groups and top_groups go together"),
    ({"expert_groups": 7, "top_groups": 4}, "must divide experts"),
    ({"expert_groups": 8, "top_groups": 9}, "must not exceed expert_groups"),
    ({"expert_groups": 64, "top_groups": 1}, "exceeds the experts of top_groups groups"),
])
def test_bad_group_limits_are_clear_errors(moe, message):
    block = {"experts": 256, "top_k": 8, "expert_ffn_hidden": 2048, "shared_experts": 1, "dense_layers": 3, **moe}
    with pytest.raises(InputError, match=message):
        dse.load_scenario({"model": {"preset": "deepseek-v3", "moe": block},
                           "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 8}})


def test_the_mla_down_projection_is_replicated_over_tensor_parallel_ranks():
    """Two TP ranks each hold all of h x (q_rank + kv_rank + rope) and the latent norms, and half
    of every other weight: 2 x W(tp 2) - W(tp 1) = layers x replicated x 2 bytes (bf16)."""
    model = {"name": "mla-toy", "family": "dense", "layers": 4, "hidden": 1024, "heads": 8, "ffn_hidden": 4096,
             "ffn_act": "swiglu", "vocab": 32000, "seq_len": 2048,
             "mla": {"kv_lora_rank": 256, "q_lora_rank": 512, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32,
                     "v_head_dim": 64}}
    w = {tp: float(evaluate_training(training(model, {"tp": tp, "pp": 1, "global_batch": 8}, num_gpus=tp))["memory_weights_bytes"][0])
         for tp in (1, 2)}
    replicated = 1024 * (512 + 256 + 32) + 512 + 256
    assert 2 * w[2] - w[1] == pytest.approx(4 * replicated * 2)


def dep8(gpu="H200-SXM-141GB", kv_cache_dtype=None):
    """DeepSeek-V3 FP8 in attention data parallel with expert parallelism on 8 GPUs (tp 1: all 128
    heads read one latent on every GPU), decode instance, 16K-token contexts."""
    scenario = dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": "deepseek-v3",
        "cluster": {"gpu": gpu, "num_gpus": 8}, "parallel": {"tp": 1, "dp": 8, "ep": 8},
        "inference": {"input_len": 16384, "output_len": 1024, "batch": 32, "phase": "decode",
                      **({"kv_cache_dtype": kv_cache_dtype} if kv_cache_dtype else {})},
    })
    return inference_columns(scenario)


def test_hopper_decodes_latent_attention_at_the_16_bit_peak():
    """MLA decode is compute-bound at tp 1 (2 x 128 heads x (512 + 512 + 64) FLOPs per 576-byte
    cached FP8 token, 483 FLOP/B, above H200's ridge): FlashMLA, Hopper's kernel, widens the FP8
    cache to BF16, so its attention takes up to twice the FP8-rate time (the roofline's smooth
    ridge keeps it a little under 2x); Blackwell's kernels multiply FP8."""
    hopper = dep8()
    assert hopper["mla_decode_fp8"] == 0.0 and dep8("B200-180GB")["mla_decode_fp8"] == 1.0
    as_fp8 = one_serving({**hopper, "mla_decode_fp8": 1.0})
    widened = one_serving(hopper)
    ratio = widened["time_attention_s"] / as_fp8["time_attention_s"]
    assert 1.6 < ratio <= 2.0 + 1e-9
    assert widened["itl_ms"] > as_fp8["itl_ms"]
    # a 16-bit cache runs at the 16-bit peak anyway; a GQA model has no latent decode
    bf16 = dep8(kv_cache_dtype="bf16")
    assert one_serving(bf16) == one_serving({**bf16, "mla_decode_fp8": 1.0})
    gqa = serving(model="llama3.1-70b", tp=8)
    assert one_serving({**gqa, "mla_decode_fp8": 0.0}) == one_serving({**gqa, "mla_decode_fp8": 1.0})


def test_blackwell_mla_decode_reproduces_the_kernel_time_it_cites():
    """calibration.yaml: TensorRT-LLM's trtllm-gen MLA decode on B200, FP8 cache and math, 128 heads,
    q_len 1, 8,192 cached tokens, batch 256, took 285.2 us (flashinfer PR #2805). Its FLOPs, 2 x 128 x
    (2 x 512 + 64) per query and cached token, at infer_mla_decode of the FP8 peak give that time back."""
    from dse.presets import calibration_table, gpu_preset

    flops = 256 * 8192 * 2.0 * 128 * (2 * 512 + 64)
    rate = gpu_preset("B200")["peak_tflops"]["fp8"] * 1e12 * calibration_table()["blackwell"]["infer_mla_decode"]
    assert flops / rate == pytest.approx(285.2e-6, rel=0.01)
