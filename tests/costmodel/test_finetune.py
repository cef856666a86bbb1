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
    # the forward is a third of forward + backward (no recompute here), the head still runs backward
    assert out["time_compute_s"] < 0.45 * full["time_compute_s"]


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
