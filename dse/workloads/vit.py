"""Vision transformers (training and inference): the LLM training model with an encoder's attention.

A ViT layer is a transformer layer over (image/patch)^2 + 1 tokens with bidirectional attention
(no causal halving of the s^2 work) and a 2-matrix GELU MLP; the input side is the patch
embedding, a GEMM of channels*patch^2 by hidden per token, instead of a vocabulary lookup; the
classifier head sees only the class token. Samples are images: ``global_batch`` counts images and
``samples_per_s`` is images per second. Everything else (parallelism, memory, overlap) is
:mod:`dse.costmodel.training`. Inference (``workload: inference``, as MAD-Max's ViT inference
task) is the same model run forward only: one pass over ``global_batch`` images, every weight
frozen, no activation kept for a backward, FSDP gathering each layer's weights once.

The GEMMs run at the family's training GEMM efficiency times ``vit_matmul`` (calibration.yaml):
the ViT training stacks that published their throughput (PyTorch FSDP in MAD-Max's sheet, T5X/XLA
in JAX-Toolbox) run their GEMM-bound blocks well below what Megatron-LM's fused kernels reach,
which is what the LLM figure was fitted on. A scenario that sets ``cluster.efficiency.matmul``
(or ``matmul_fp8``/``matmul_fp4`` for its precision) gets exactly that figure instead.
"""

from __future__ import annotations

import pandas as pd

from ..api import evaluate_frame, scenario_columns
from ..costmodel import COLUMNS
from ..errors import InputError
from ..hardware import matmul_efficiency_key
from ..presets import gpu_calibration
from ..specs import ModelSpec, Scenario, ViTSpec
from . import register

#: Classifier width when the model does not state it (ImageNet-1k).
DEFAULT_CLASSES = 1000


def vit_matmul_factor(scenario: Scenario) -> float:
    """The factor on the family's GEMM efficiency for ViT training (calibration.yaml
    ``vit_matmul``; 1 when the scenario sets its own GEMM efficiency or the family has none)."""
    key = matmul_efficiency_key(scenario.precision)
    eff = scenario.cluster.efficiency
    if eff is not None and getattr(eff, key) is not None:
        return 1.0
    return float(gpu_calibration(scenario.cluster.gpu).get("vit_matmul") or 1.0)


def as_llm_model(model: ViTSpec) -> ModelSpec:
    """The transformer-layer shape of a ViT as a ModelSpec (vocab = classes)."""
    return ModelSpec(
        name=model.name, family="dense", layers=model.layers, hidden=model.hidden, heads=model.heads,
        kv_heads=model.heads, ffn_hidden=model.ffn_hidden, ffn_act="gelu",
        vocab=model.classes or DEFAULT_CLASSES, seq_len=model.tokens, dropout=model.dropout,
    )


def vit_columns(scenario: Scenario) -> dict[str, float]:
    """The training cost-model columns of a ViT scenario."""
    model = scenario.model
    assert isinstance(model, ViTSpec)
    as_llm = scenario.model_copy(update={"model": as_llm_model(model)})
    cols = scenario_columns(as_llm)  # checks the GPU and precision
    factor = vit_matmul_factor(scenario)
    # the stack's GEMMs run slower, but a FLOP costs the GPU the same energy: the tensor power
    # share (drawn over the FLOPs at the achieved rate, dse.costmodel.power) scales with the rate
    cols.update(causal=0.0, input_proj_dim=float(model.channels * model.patch**2),
                head_fraction=1.0 / model.tokens,
                eff_matmul=cols["eff_matmul"] * factor, power_tensor=cols["power_tensor"] * factor)
    if scenario.workload == "inference":
        # one forward pass over the batch (MAD-Max's ViT inference): every layer, the patch
        # embedding and the head frozen with no gradient to carry, so nothing runs backward,
        # nothing is kept for it or recomputed, and no gradient is synchronised
        cols.update(frozen_layers=float(model.layers), freeze_embeddings=1.0, lora_rank=0.0,
                    forward_only=1.0, recompute=0.0)
    return cols


@register("vit_train")
@register("vit_inference")
def evaluate(specs: list[Scenario], explain: bool = True) -> pd.DataFrame:
    """ViT training (and forward-only inference) scenarios in one vectorized call;
    ``step_time_s`` and ``tflops_per_gpu`` (model FLOP/s per GPU, as the validation cases count
    them) are added, and the per-image figures ``samples_per_s_per_gpu``, ``cost_per_msample_usd``
    and ``energy_per_sample_j`` (a sample is an image of ``seq_len`` tokens, as the search counts
    them). An inference step is one forward pass over ``global_batch`` images."""
    rows = []
    for i, s in enumerate(specs):
        try:
            rows.append(vit_columns(s))
        except InputError as err:
            raise err.with_source(f"scenario {i}" + (f" ({s.name})" if s.name else "")) from None
    frame = evaluate_frame(pd.DataFrame(rows, columns=list(COLUMNS)), explain=explain)
    tokens = frame["seq_len"]  # per image: the patches and the class token
    return frame.assign(
        name=[s.name for s in specs], gpu=[s.cluster.gpu for s in specs],
        model=[s.model.name for s in specs], precision=[s.precision for s in specs],
        step_time_s=frame["iteration_time_s"], tflops_per_gpu=frame["model_tflops_per_gpu"],
        samples_per_s_per_gpu=frame["samples_per_s"] / frame["num_gpus"],
        cost_per_msample_usd=frame["cost_per_mtok_usd"] * tokens,
        energy_per_sample_j=frame["energy_per_token_j"] * tokens,
    )
