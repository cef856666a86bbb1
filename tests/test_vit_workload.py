"""ViT training (dse/workloads/vit.py): token and FLOP counts by hand, and the MAD-Max sheet's
software facts (dse/data/software.yaml) doing what they say."""

import json
from pathlib import Path

import numpy as np
import pytest

from dse.api import evaluate, scenario_columns
from dse.costmodel.flops import model_flops_per_token, model_params
from dse.costmodel.inputs import broadcast_columns
from dse.scenario import scenario_from_dict
from dse.sources import apply_software
from dse.workloads.vit import vit_columns

DLRM_VIT = Path(__file__).resolve().parents[2] / "shared" / "validation" / "dlrm_vit.jsonl"
MADMAX_SOURCE = "samhsia/MADMax artifact_sheets/[B] ViT Validation.xlsx, Sheet1 row 11"


def vit_case(name="ViT-L/16", layers=24, hidden=1024, heads=16, ffn=4096, patch=16, gpus=32,
             microbatch=128, recompute="none", inferred=(), source="a ViT paper"):
    """A ViT training case like those of dlrm_vit.jsonl (classes unstated: ImageNet-1k)."""
    return {
        "id": "vit-test", "source": source, "workload": "train", "precision": "bf16",
        "model": {"name": name, "family": "vit", "layers": layers, "hidden": hidden, "heads": heads,
                  "ffn_hidden": ffn, "patch": patch, "image_size": 224},
        "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": gpus, "gpus_per_node": 8},
        "parallel": {"tp": 1, "pp": 1, "dp": gpus, "zero": 3, "recompute": recompute,
                     "microbatch": microbatch, "global_batch": microbatch * gpus},
        "target": {"metric": "tflops_per_gpu", "value": 50.0},
        "inferred": list(inferred),
    }


def columns(case):
    cols, _ = broadcast_columns(vit_columns(scenario_from_dict(case)))
    return cols


# ---------------------------------------------------------------------------- counts by hand
def test_vit_l16_tokens_patch_embedding_and_head():
    cols = columns(vit_case())
    assert cols["seq_len"] == 197  # (224/16)^2 patches + 1 class token
    assert cols["input_proj_dim"] == 768  # 3 channels x 16 x 16 pixels per patch
    assert cols["head_fraction"] == pytest.approx(1 / 197)  # the head sees the class token only
    assert cols["causal"] == 0  # bidirectional attention


def test_vit_l16_model_flops_by_hand():
    h, L, s = 1024, 24, 197
    # per token and layer: QKV 2*h*3h + output 2*h*h + MLP 2*2*h*4h = 24 h^2, scores and
    # weighted values 4*s*h; per image the 1000-class head on the class token, 2*h*1000
    layer = 24 * h * h + 4 * s * h
    assert layer == 25_972_736
    fwd_image = s * L * layer + 2 * h * 1000
    assert fwd_image == 122_801_143_808
    # the sheet's 0.122 TFLOPs/sample is 2*N*T + 4*T^2*d*L (no head): 122,799,095,808
    assert fwd_image - 2 * h * 1000 == 2 * (12 * h * h * L) * s + 4 * s * s * h * L
    per_token = model_flops_per_token(columns(vit_case()))
    assert float(per_token) == pytest.approx(3 * fwd_image / s, rel=1e-12)


def test_vit_10b14_model_flops_match_the_sheet():
    h, L, s = 5120, 32, 257  # (224/14)^2 + 1 tokens
    cols = columns(vit_case("ViT-10B/14", L, h, 32, 4 * h, 14))
    assert cols["seq_len"] == s and cols["input_proj_dim"] == 3 * 14 * 14
    fwd_image = float(model_flops_per_token(cols)) * s / 3
    sheet = 2 * (12 * h * h * L) * s + 4 * s * s * h * L  # 5.2174e12; the sheet says 5.218
    assert sheet == 5_217_379_287_040
    assert fwd_image == pytest.approx(sheet + 2 * h * 1000, rel=1e-12)


def test_vit_l16_parameters_by_hand():
    h, L = 1024, 24
    layer = 12 * h * h + 2 * h  # QKV + output + 2-matrix MLP weights, + the norms' 2h
    patch_embedding, head = 768 * h, 1000 * h
    total, active = model_params(columns(vit_case()))
    assert float(total) == float(active) == L * layer + patch_embedding + head == 303_849_472


def test_tflops_per_gpu_is_images_per_s_times_3_forward_flops():
    frame = evaluate([scenario_from_dict(vit_case())])
    fwd_image = 122_801_143_808
    expected = frame["samples_per_s"].iat[0] * 3 * fwd_image / 32 / 1e12
    assert frame["tflops_per_gpu"].iat[0] == pytest.approx(expected, rel=1e-9)


# ---------------------------------------------------------------------------- software facts
def test_madmax_vit_gets_the_40gb_a100_and_full_recompute_in_place_of_conventions():
    case = vit_case(source=MADMAX_SOURCE, inferred=["cluster.gpu", "parallel.recompute"])
    out = apply_software(case)
    assert out["cluster"]["gpu"] == "A100-SXM-40GB"
    assert out["parallel"]["recompute"] == "full"
    # the network facts of the older entry still apply; the rest of the case is untouched
    assert out["cluster"]["scaleout_gbitps"] == 100 and out["cluster"]["num_gpus"] == 32
    assert out["parallel"]["microbatch"] == 128 and out["model"] == case["model"]


def test_fields_the_case_states_win_over_the_madmax_facts():
    case = vit_case(source=MADMAX_SOURCE, recompute="selective")  # stated: not in `inferred`
    out = apply_software(case)
    assert out["cluster"]["gpu"] == "A100-SXM-80GB"
    assert out["parallel"]["recompute"] == "selective"


def test_madmax_facts_change_memory_and_hardware_flops_as_they_should():
    """ViT-10B/14 on 32 GPUs at 128 images per GPU: about 170 GiB of activations without
    recompute; with full recompute it fits a 40 GB A100 and runs 4/3 of the model FLOPs."""
    plain = vit_case("ViT-10B/14", 32, 5120, 32, 20480, 14, source=MADMAX_SOURCE)
    fixed = apply_software(dict(plain, inferred=["cluster.gpu", "parallel.recompute"]))
    before, after = evaluate([scenario_from_dict(apply_software(plain)), scenario_from_dict(fixed)]).itertuples()
    assert not before.feasible and before.memory_activations_bytes > 150 * 2**30
    assert after.feasible and after.memory_per_gpu_bytes < 40e9
    assert after.hardware_tflops_per_gpu == pytest.approx(after.tflops_per_gpu * 4 / 3, rel=1e-3)
    assert after.iteration_time_s > before.iteration_time_s  # the recomputed forward costs time


def test_every_madmax_vit_case_fits_once_the_facts_apply():
    if not DLRM_VIT.exists():
        pytest.skip(f"{DLRM_VIT} not found: the shared/ folder beside the repo holds the cases")
    cases = [json.loads(line) for line in DLRM_VIT.read_text(encoding="utf-8").splitlines()
             if '"family":"vit"' in line.replace(" ", "")]
    madmax = [c for c in cases if "MADMax" in c["source"]]
    assert len(madmax) == 9
    frame = evaluate([scenario_from_dict(apply_software(c)) for c in madmax])
    assert set(frame["gpu"]) == {"A100-SXM-40GB"}
    assert np.all(frame["feasible"].to_numpy(dtype=bool))


# ---------------------------------------------------------------------------- GEMM efficiency
def test_vit_gemms_run_at_the_family_figure_times_vit_matmul():
    from dse.presets import calibration_table

    ampere = calibration_table()["ampere"]
    assert 0.0 < ampere["vit_matmul"] < 1.0  # the ViT stacks run GEMMs below Megatron's figure
    cols = columns(vit_case())
    assert float(cols["eff_matmul"]) == pytest.approx(ampere["matmul"] * ampere["vit_matmul"], rel=1e-12)


def test_a_stated_gemm_efficiency_wins_over_vit_matmul():
    case = vit_case()
    case["cluster"]["efficiency"] = {"matmul": 0.8}
    assert float(columns(case)["eff_matmul"]) == 0.8


def test_vit_matmul_slows_gemm_bound_vit_and_leaves_llm_training_alone():
    load = scenario_from_dict
    vit = vit_case()
    megatron_like = dict(vit, cluster={**vit["cluster"], "efficiency": {"matmul": 0.85}})
    slow, fast = evaluate([load(vit), load(megatron_like)]).itertuples()
    assert slow.samples_per_s < fast.samples_per_s
    llm = {"workload": "train", "precision": "bf16", "model": "llama3-8b",
           "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8},
           "parallel": {"tp": 1, "pp": 1, "dp": 8, "microbatch": 1, "global_batch": 64}}
    cols, _ = broadcast_columns(scenario_columns(load(llm)))
    assert float(cols["eff_matmul"]) == 0.85  # ampere's LLM figure, untouched


def test_calibrate_vit_refits_the_shipped_factor():
    """scripts/calibrate_vit.py on MAD-Max's sheet finds the factor calibration.yaml holds."""
    if not DLRM_VIT.exists():
        pytest.skip(f"{DLRM_VIT} not found: the shared/ folder beside the repo holds the cases")
    import importlib.util

    from dse.presets import calibration_table

    path = Path(__file__).resolve().parents[1] / "scripts" / "calibrate_vit.py"
    spec = importlib.util.spec_from_file_location("calibrate_vit", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    cases = script.vit_cases([DLRM_VIT])
    assert len(cases) == 9
    assert script.fit(cases) == {"ampere": calibration_table()["ampere"]["vit_matmul"]}
    err = script.errors(cases, np.array([1.0, calibration_table()["ampere"]["vit_matmul"]]))
    assert script.loss(err[1]) < script.loss(err[0])  # the fitted factor beats the LLM figure


# ---------------------------------------------------------------------------- inference
def inference_case(**changes):
    """The same ViT run as inference (MAD-Max's vit_inference task): one forward pass per batch."""
    case = vit_case(recompute="full", **changes)
    case["workload"] = "inference"
    return case


def test_vit_inference_is_the_training_forward_alone():
    """An inference step is one forward pass: its compute is the training step's forward part
    (every layer, the patch embedding and the class-token head), nothing runs backward, no
    gradient, optimizer state, recompute or stored activation exists, model FLOPs are a third
    of the training step's (2 N per token instead of 6 N), and it is faster than training."""
    from dse.costmodel.training import evaluate_training_detail

    train, infer = vit_case(), inference_case()
    t = evaluate(scenario_from_dict(train)).iloc[0]
    i = evaluate(scenario_from_dict(infer)).iloc[0]
    assert scenario_from_dict(infer).kind == "vit_inference" and bool(i["feasible"])
    cols = columns(infer)
    assert cols["forward_only"] == 1 and cols["frozen_layers"] == 24 and cols["recompute"] == 0
    detail = {k: float(v[0]) for k, v in evaluate_training_detail(columns(train)).items()}
    fwd_layer = sum(detail[f"detail_{op}_f"] for op in ("qkv", "attn", "out", "ffn", "elem"))
    # one microbatch of 128 images per GPU: 24 layers forward plus the patch embedding and head
    assert i["time_compute_s"] >= 24 * fwd_layer * (1 - 1e-9)
    assert i["time_compute_s"] < 1.05 * 24 * fwd_layer
    assert i["memory_grads_bytes"] == 0 and i["memory_optimizer_bytes"] == 0
    assert i["memory_activations_bytes"] < 0.05 * t["memory_activations_bytes"]
    assert i["exposed_dp_s"] == 0
    assert i["model_tflops_per_gpu"] * i["iteration_time_s"] == pytest.approx(
        t["model_tflops_per_gpu"] * t["iteration_time_s"] / 3, rel=1e-9)
    assert i["hardware_tflops_per_gpu"] == pytest.approx(i["model_tflops_per_gpu"], rel=1e-12)
    assert i["samples_per_s"] > 2 * t["samples_per_s"]


def test_vit_inference_reports_images_and_no_backward(tmp_path):
    """`dse evaluate` of a ViT inference scenario: images per second, a forward-only layer table,
    no gradient or optimizer rows."""
    import yaml
    from rich.console import Console

    from dse.report import evaluation_record, render_evaluation
    from dse.trace import layer_compute

    spec = scenario_from_dict(inference_case())
    rec = evaluation_record(evaluate(spec).iloc[0])
    rec["layer"] = layer_compute(spec)
    console = Console(record=True, width=140, color_system=None)
    render_evaluation(console, rec)
    text = console.export_text()
    for row in ("step time (one forward pass)", "images/s per GPU", "energy per image", "forward, ms"):
        assert row in text, row
    for row in ("backward, ms", "HFU", "grads", "optimizer", "tokens/s"):
        assert row not in text, row
    assert yaml.safe_dump(rec)  # JSON-ready
