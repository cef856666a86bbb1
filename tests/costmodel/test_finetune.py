"""Fine-tuning in the training model: frozen layers, frozen embeddings, LoRA adapters."""

from __future__ import annotations

import numpy as np
import pytest

import dse
from dse.api import scenario_columns
from dse.costmodel import evaluate_training

BASE = {"model": "llama2-70b", "workload": "finetune", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 64},
        "parallel": {"tp": 4, "pp": 4, "microbatch": 1, "global_batch": 64, "zero": 1}}


def run(**finetune):
    cols = scenario_columns(dse.load_scenario({**BASE, "finetune": finetune} if finetune else BASE))
    return {k: float(v[0]) for k, v in evaluate_training(cols).items()}


def test_full_finetune_equals_training():
    full = run()
    train = {k: float(v[0]) for k, v in evaluate_training(
        scenario_columns(dse.load_scenario({**BASE, "workload": "train"}))).items()}
    assert full["iteration_time_s"] == pytest.approx(train["iteration_time_s"], rel=1e-12)


@pytest.mark.parametrize("frozen", [20, 40, 60, 80])
def test_freezing_never_costs_time_or_memory(frozen):
    full, part = run(), run(frozen_layers=frozen, freeze_embeddings=True)
    assert part["iteration_time_s"] <= full["iteration_time_s"] * (1 + 1e-12)
    assert part["memory_per_gpu_bytes"] <= full["memory_per_gpu_bytes"] * (1 + 1e-12)
    assert part["memory_optimizer_bytes"] <= full["memory_optimizer_bytes"] * (1 + 1e-12)


def test_everything_frozen_is_a_forward_pass():
    out = run(frozen_layers=80, freeze_embeddings=True)
    full = run()
    assert out["memory_grads_bytes"] == 0 and out["memory_optimizer_bytes"] == 0
    assert out["exposed_dp_s"] == 0 and out["overlapped_dp_s"] == 0
    # the forward is a third of forward + backward (no recompute here); nothing, the head included, runs backward
    assert out["time_compute_s"] < 0.36 * full["time_compute_s"]


def test_frozen_layers_with_trainable_embeddings_still_propagate_gradients():
    flow = run(frozen_layers=40)                       # embeddings trainable: dgrad through all layers
    stop = run(frozen_layers=40, freeze_embeddings=True)  # nothing trainable below: no backward there
    assert stop["memory_activations_bytes"] <= flow["memory_activations_bytes"]


def test_lora_trains_adapters_only():
    full, lora = run(), run(lora={"rank": 16})
    # 16 * (K + N) per adapted matrix instead of K * N: orders of magnitude less optimizer state
    assert lora["memory_optimizer_bytes"] < 0.05 * full["memory_optimizer_bytes"]
    assert lora["iteration_time_s"] < full["iteration_time_s"]
    bigger = run(lora={"rank": 256, "targets": ["qkv", "out", "ffn"]})
    assert bigger["memory_optimizer_bytes"] > lora["memory_optimizer_bytes"]
    assert np.isfinite(list(bigger.values())).all()


def test_frozen_linear_layers_keep_no_inputs_by_hand():
    """Llama-2-70B, TP 4 with sequence parallelism (the default), 4,096 tokens, bf16: a frozen layer
    drops the inputs of its four linear layers; LoRA on qkv and out keeps those two and adds the
    rank-16 intermediates."""
    full, lora = run(), run(lora={"rank": 16})
    frozen = run(frozen_layers=80)  # embeddings trainable: gradients flow through every layer
    T, h, f, a, d, t, L = 4096, 8192, 28672, 64, 128, 4, 20  # 80 layers over pp 4
    in_flight = 4  # min(microbatches, pp) with 1F1B on the first stage
    qkv_in = ffn_in = T * h * 2.0 / t  # scattered over the TP ranks by sequence parallelism
    out_in, down_in = T * a * d * 2.0 / t, T * f * 2.0 / t
    per_layer_frozen = qkv_in + out_in + ffn_in + down_in
    per_layer_lora = ffn_in + down_in - T * 16 * 2.0 * 2  # two adapters' x A intermediates kept
    drop = full["memory_activations_bytes"] - frozen["memory_activations_bytes"]
    assert drop == pytest.approx(L * in_flight * per_layer_frozen, rel=1e-9)
    assert full["memory_activations_bytes"] - lora["memory_activations_bytes"] == pytest.approx(
        L * in_flight * per_layer_lora, rel=1e-9)
    # full recompute keeps only the layer inputs: nothing more to drop
    rc = {**BASE["parallel"], "recompute": "full"}
    cols = lambda ft: scenario_columns(dse.load_scenario({**BASE, "parallel": rc, **ft}))  # noqa: E731
    a_full = float(evaluate_training(cols({}))["memory_activations_bytes"][0])
    a_lora = float(evaluate_training(cols({"finetune": {"lora": {"rank": 16}}}))["memory_activations_bytes"][0])
    assert a_lora == pytest.approx(a_full, rel=1e-12)


def test_fp8_params_hold_one_byte_per_weight():
    base = {**BASE, "precision": "fp8", "workload": "train"}
    two = scenario_columns(dse.load_scenario(base))
    one = scenario_columns(dse.load_scenario({**base, "training": {"fp8_params": True}}))
    w2 = float(evaluate_training(two)["memory_weights_bytes"][0])
    w1 = float(evaluate_training(one)["memory_weights_bytes"][0])
    assert w1 == pytest.approx(w2 / 3.0, rel=1e-12)  # FP8 alone instead of bf16 + FP8 copies
    # in bf16 the switch changes nothing
    bf = scenario_columns(dse.load_scenario({**BASE, "workload": "train", "training": {"fp8_params": True}}))
    ref = scenario_columns(dse.load_scenario({**BASE, "workload": "train"}))
    assert float(evaluate_training(bf)["memory_per_gpu_bytes"][0]) == float(
        evaluate_training(ref)["memory_per_gpu_bytes"][0])


def test_a_batch_mixing_fine_tunes_and_full_training_scores_each_row_as_alone():
    """The cost model skips the fine-tuning terms for a batch with nothing frozen; a batch that
    mixes LoRA, frozen layers and full training must still score every row as on its own."""
    from dse.costmodel.inputs import COLUMNS

    rows = [scenario_columns(s) for s in (
        dse.load_scenario({**BASE, "workload": "finetune", "finetune": {"lora": {"rank": 16}}}),
        dse.load_scenario({**BASE, "workload": "finetune", "finetune": {"frozen_layers": 40}}),
        dse.load_scenario(BASE))]
    alone = [evaluate_training(r) for r in rows]
    together = evaluate_training({k: np.array([r[k] for r in rows]) for k in rows[0] if k in COLUMNS})
    for i, out in enumerate(alone):
        for key in ("iteration_time_s", "memory_per_gpu_bytes", "memory_activations_bytes"):
            assert together[key][i] == pytest.approx(out[key][0], rel=1e-12), (i, key)


# ---------------------------------------------------------------------------- executed FLOPs
def columns(**finetune):
    return scenario_columns(dse.load_scenario({**BASE, "finetune": finetune} if finetune else BASE))


@pytest.mark.parametrize("model", ["llama2-70b", "mixtral-8x7b", "deepseek-v3"])
def test_nothing_frozen_runs_exactly_the_model_flops(model):
    from dse.costmodel.flops import executed_flops_per_token, model_flops_per_token

    cols = scenario_columns(dse.load_scenario({**BASE, "model": model}))
    assert executed_flops_per_token(cols) == pytest.approx(model_flops_per_token(cols), rel=1e-12)


def test_executed_flops_of_frozen_and_lora_runs_by_hand():
    """Per token, by hand for Llama-2-70B: a layer's forward F = linear + core; trainable 3F;
    frozen with a gradient through it 2 linear + 3 core; frozen with nothing trainable below F.
    The head 2 h V: 3x trainable, 2x frozen, 1x when nothing trains. LoRA rank 16 on QKV and the
    output projection adds 3 x 2 r (K + N) per adapted matrix and layer."""
    from dse.costmodel.flops import executed_flops_per_token, layer_forward_flops_per_token

    c = columns()
    F, _, core = (float(x) for x in layer_forward_flops_per_token(c))
    lin = F - core
    L, h, V, a, g, d = (float(c[k]) for k in ("layers", "hidden", "vocab", "heads", "kv_heads", "head_dim"))
    head = 2 * h * V
    ex = lambda **ft: float(executed_flops_per_token(columns(**ft)))  # noqa: E731
    assert ex(frozen_layers=20) == pytest.approx(60 * 3 * F + 20 * (2 * lin + 3 * core) + 3 * head, rel=1e-12)
    assert ex(frozen_layers=20, freeze_embeddings=True) == pytest.approx(60 * 3 * F + 20 * F + 2 * head, rel=1e-12)
    assert ex(frozen_layers=80, freeze_embeddings=True) == pytest.approx(80 * F + head, rel=1e-12)
    adapters = 3 * L * 2 * 16 * ((h + (a + 2 * g) * d) + (a * d + h))
    assert ex(lora={"rank": 16}) == pytest.approx(80 * (2 * lin + 3 * core) + 2 * head + adapters, rel=1e-12)
    # LoRA on the top 20 layers only (frozen_layers 60): the 60 below have nothing trainable under
    # them (LoRA freezes the embeddings too) and run forward only
    assert ex(lora={"rank": 16}, frozen_layers=60) == pytest.approx(
        20 * (2 * lin + 3 * core) + 60 * F + 2 * head + adapters / 4, rel=1e-12)


def test_lora_above_frozen_layers_runs_no_backward_below_them():
    """Regression: LoRA on the top layer only (79 frozen) still ran every layer's input-gradient
    backward and kept their activations (3.77 s and 25.8 GiB of activations against 1.66 s and
    0.55 GiB frozen without adapters on 8 H100); below the lowest adapter autograd builds no graph."""
    base = {**BASE, "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
            "parallel": {"tp": 8, "pp": 1, "microbatch": 1, "global_batch": 8, "zero": 1}}

    def one(**ft):
        cols = scenario_columns(dse.load_scenario({**base, "finetune": ft}))
        return {k: float(v[0]) for k, v in evaluate_training(cols).items()}

    top = one(lora={"rank": 16}, frozen_layers=79)
    frozen = one(frozen_layers=79, freeze_embeddings=True)
    assert top["memory_activations_bytes"] < 2 * frozen["memory_activations_bytes"]
    assert top["iteration_time_s"] < 1.1 * frozen["iteration_time_s"]


def test_model_flops_count_what_the_fine_tune_needs():
    """A LoRA run needs no weight gradients of the frozen base (about 2/3 of a full fine-tune's
    6 N), and a forward pass nothing backward, its head included: both the hardware and the model
    FLOPs count only that (without recompute they are equal), so a mostly frozen model's MFU stays
    below 100 % (6 N per token put a Llama-2-7B with 30 of 32 layers frozen at 174 % on an A100);
    the forward pass draws no more power than full fine-tuning."""
    full, lora, fwd = run(), run(lora={"rank": 16}), run(frozen_layers=80, freeze_embeddings=True)
    model_work = lambda o: o["model_tflops_per_gpu"] * o["iteration_time_s"]  # noqa: E731
    work = lambda o: o["hardware_tflops_per_gpu"] * o["iteration_time_s"]  # noqa: E731
    for out in (full, lora, fwd):
        assert model_work(out) == pytest.approx(work(out), rel=1e-9)
        assert 0 < out["mfu"] <= out["hfu"] < 1
    assert work(lora) / work(full) == pytest.approx(2 / 3, abs=0.05)
    assert work(fwd) / work(full) == pytest.approx(1 / 3, abs=0.02)
    assert fwd["power_per_gpu_w"] <= full["power_per_gpu_w"]
    frozen = dse.evaluate({"workload": "finetune", "model": "llama2-7b",
                           "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8},
                           "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 4, "global_batch": 64},
                           "finetune": {"frozen_layers": 30, "freeze_embeddings": True}}).iloc[0]
    assert frozen["feasible"] and 0.3 < frozen["mfu"] < 0.8


def test_fsdp_reduce_scatters_only_trainable_gradients():
    """Under ZeRO-3 a frozen layer's weights are still gathered (the data gradient needs them) but
    it has no gradient to reduce-scatter, and a LoRA layer only its adapters': Llama-2-7B on 16
    H100s, 2 nodes (the reduce-scatter crosses the network). The backward's FSDP traffic of a
    LoRA fine-tune is the gather alone, about half a full fine-tune's."""
    def fsdp(**finetune):
        row = dse.evaluate({"workload": "finetune", "model": "llama2-7b",
                            "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16},
                            "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 1, "global_batch": 16},
                            "finetune": finetune}).iloc[0]
        return row["exposed_fsdp_s"] + row["overlapped_fsdp_s"]

    full, lora = fsdp(), fsdp(lora={"rank": 16})
    assert lora < 0.8 * full
    half = fsdp(frozen_layers=16)
    assert lora < half < full
