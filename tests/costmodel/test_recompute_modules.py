"""Selective recompute of named modules (training.recompute_modules, Megatron-core's
recompute_modules): hand-computed activation savings, no effect without selective recompute, and
the property that recomputing more never needs more memory and never runs faster."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel import evaluate_training
from dse.errors import InputError

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
MODULES = ["core_attn", "layernorm", "mla_up_proj", "moe_act", "mlp", "moe"]


def run(model="llama2-7b", modules=("core_attn",), recompute="selective", parallel=None, num_gpus=8,
        precision="bf16"):
    scenario = dse.load_scenario({
        "model": model, "precision": precision,
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": num_gpus},
        "parallel": {"tp": 1, "pp": 1, "global_batch": 64, "microbatch": 1, "recompute": recompute,
                     **(parallel or {})},
        "training": {"recompute_modules": list(modules)},
    })
    return {k: float(v[0]) for k, v in evaluate_training(dse.scenario_columns(scenario)).items()}


def test_layernorm_and_mlp_recompute_save_their_outputs_by_hand():
    """Llama-2-7B, tp = pp = 1, bf16 (act 2 bytes): layernorm drops the QKV and FFN inputs
    (2 T h x 2 bytes), mlp the up-projection outputs and the activation output (T f (2 + 1) x 2
    bytes). 32 layers store the saving, one layer re-materialises it: 31 x per-layer saving."""
    T, h, f = 4096, 4096, 11008
    base = run()
    more = run(modules=("core_attn", "layernorm", "mlp"))
    per_layer = 2 * T * h * 2 + T * f * 3 * 2
    assert base["memory_activations_bytes"] - more["memory_activations_bytes"] == pytest.approx(31 * per_layer)
    assert more["iteration_time_s"] > base["iteration_time_s"]


def test_modules_do_nothing_without_selective_recompute():
    for recompute in ("none", "full"):
        a = run(recompute=recompute)
        b = run(recompute=recompute, modules=MODULES)
        for key, value in a.items():
            assert b[key] == pytest.approx(value, rel=1e-12), (recompute, key)


def test_unknown_module_is_a_clear_error():
    with pytest.raises(InputError, match="recompute_modules"):
        run(modules=("attention",))


@PROPERTY
@given(base=st.sets(st.sampled_from(MODULES), min_size=1), extra=st.sampled_from(MODULES),
       model=st.sampled_from(["llama2-7b", "mixtral-8x7b", "deepseek-v3"]), tp=st.sampled_from([1, 2, 8]),
       fp8=st.booleans())
def test_recomputing_more_never_needs_more_memory_and_never_runs_faster(base, extra, model, tp, fp8):
    parallel = {"tp": tp, "pp": 1}
    num_gpus = tp * 8
    if model == "deepseek-v3":
        parallel = {"tp": tp, "pp": 16, "ep": 8}
        num_gpus = tp * 16 * 8
        model = {"preset": "deepseek-v3", "layers": 16}
    elif model == "mixtral-8x7b":
        parallel["ep"] = 8
    precision = "fp8" if fp8 else "bf16"
    a = run(model, sorted(base), parallel=parallel, num_gpus=num_gpus, precision=precision)
    b = run(model, sorted(base | {extra}), parallel=parallel, num_gpus=num_gpus, precision=precision)
    assert b["memory_per_gpu_bytes"] <= a["memory_per_gpu_bytes"] * (1 + 1e-12)
    assert b["iteration_time_s"] >= a["iteration_time_s"] * (1 - 1e-12)
    assert np.isfinite(b["iteration_time_s"]) and np.isfinite(b["memory_per_gpu_bytes"])
