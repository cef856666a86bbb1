"""The Python API (dse/api.py): scenario_columns, evaluate and evaluate_frame."""

import numpy as np
import pandas as pd
import pytest
import yaml

import dse
from dse.api import evaluate, evaluate_frame, scenario_columns
from dse.costmodel import COLUMNS
from dse.errors import InputError
from dse.presets import model_preset
from dse.scenario import load_scenario
from dse.specs import ClusterSpec, ModelSpec, Scenario


def scenario(name="s", model="llama2-7b", gpu="H100-SXM-80GB", num_gpus=8, **parallel):
    """A small scenario dict; ``parallel`` defaults to tp=2, microbatch=1."""
    return {
        "name": name,
        "model": model,
        "cluster": {"gpu": gpu, "num_gpus": num_gpus},
        "parallel": {"tp": 2, "microbatch": 1, **parallel},
    }


def columns(**kwargs):
    return scenario_columns(load_scenario(scenario(**kwargs)))


# ---------------------------------------------------------------------------- evaluate
def test_evaluate_one_scenario_dict():
    df = evaluate(scenario(name="one"))
    assert isinstance(df, pd.DataFrame)
    assert len(df) == 1
    assert df["feasible"].dtype == bool
    assert bool(df["feasible"].iat[0]) is True
    assert df["infeasible_reason"].iat[0] == ""
    assert df["name"].iat[0] == "one"
    assert df["gpu"].iat[0] == "H100-SXM-80GB"
    assert df["model"].iat[0] == "Llama-2-7B"
    assert df["precision"].iat[0] == "bf16"
    # tokens_per_s_per_gpu = tokens_per_s / num_gpus, num_gpus = 8
    assert df["tokens_per_s"].iat[0] > 0
    assert df["tokens_per_s_per_gpu"].iat[0] == pytest.approx(df["tokens_per_s"].iat[0] / 8, rel=1e-12)
    for col in COLUMNS:
        assert col in df.columns


def test_evaluate_gpu_column_is_canonical():
    df = evaluate(scenario(gpu="h100"))
    assert df["gpu"].iat[0] == "H100-SXM-80GB"


def test_evaluate_list_keeps_order_and_names():
    df = evaluate([scenario(name="a", tp=2), scenario(name="b", tp=4), scenario(name="c", tp=8)])
    assert len(df) == 3
    assert list(df["name"]) == ["a", "b", "c"]
    assert list(df["tp"]) == [2.0, 4.0, 8.0]
    # dp = 8 // tp: 4, 2, 1
    assert list(df["dp"]) == [4.0, 2.0, 1.0]
    assert df["feasible"].all()
    per_gpu = df["tokens_per_s"].to_numpy() / df["num_gpus"].to_numpy()
    np.testing.assert_allclose(df["tokens_per_s_per_gpu"].to_numpy(), per_gpu, rtol=1e-12)


def test_evaluate_accepts_scenario_objects_and_files(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(scenario(name="from-file")), encoding="utf-8")
    spec = load_scenario(scenario(name="from-spec"))
    df = evaluate([str(path), spec])
    assert list(df["name"]) == ["from-file", "from-spec"]


def test_infeasible_degree_product_gives_reason_with_arithmetic():
    df = evaluate(scenario(name="bad", tp=2, dp=3))
    assert bool(df["feasible"].iat[0]) is False
    # tp*pp*dp*cp = 2*1*3*1 = 6, but the cluster has 8 GPUs
    assert "tp*pp*dp*cp = 2*1*3*1 = 6 != num_gpus 8" in df["infeasible_reason"].iat[0]
    assert df["infeasible_mask"].iat[0] != 0


def test_feasible_and_infeasible_rows_side_by_side():
    df = evaluate([scenario(name="ok"), scenario(name="bad", tp=2, dp=3)])
    assert list(df["feasible"]) == [True, False]
    assert df["infeasible_reason"].iat[0] == ""
    assert df["infeasible_reason"].iat[1] != ""


@pytest.fixture
def only_llm_training(monkeypatch):
    """As if only LLM training were modelled (a kind without an evaluator must be an error)."""
    import dse.api
    import dse.workloads

    monkeypatch.setattr(dse.workloads, "evaluator",
                        lambda kind: dse.api.evaluate_llm_training if kind == "llm_train" else None)


def test_inference_workload_raises_naming_the_scenario(only_llm_training):
    serve = {**scenario(name="serve"), "workload": "inference", "parallel": {"tp": 2},
             "inference": {"input_len": 128, "output_len": 128}}
    with pytest.raises(InputError) as info:
        evaluate([scenario(name="ok"), serve])
    err = info.value
    assert err.source == "scenario 1 (serve)"
    assert err.problems[0].field == "workload"
    assert "llm_inference" in err.problems[0].message and "not modelled" in err.problems[0].message
    assert "scenario 1 (serve)" in str(err)


def test_inference_workload_without_name_gives_index(only_llm_training):
    serve = {**scenario(), "workload": "inference", "parallel": {"tp": 2},
             "inference": {"input_len": 128, "output_len": 128}}
    del serve["name"]
    with pytest.raises(InputError) as info:
        evaluate(serve)
    assert info.value.source == "scenario 0"


def test_a_bad_dict_in_a_list_is_named_by_its_place():
    bad = {**scenario(), "workload": "inference", "parallel": {"tp": 2}}  # no inference block
    del bad["name"]
    with pytest.raises(InputError) as info:
        evaluate([scenario(name="good"), bad])
    assert info.value.source == "scenario 1" and "needs an inference block" in str(info.value)


def test_serving_scenario_with_training_options_names_them():
    serve = {**scenario(name="serve"), "workload": "inference", "parallel": {"tp": 2, "zero": 1},
             "training": {"overlap": {"tp": True}, "cross_entropy": "fp32"},
             "inference": {"input_len": 128, "output_len": 128}}
    with pytest.raises(InputError) as info:
        evaluate(serve)
    message = str(info.value)
    assert info.value.problems[0].field == "training.overlap.tp"  # the first of them, not "(top level)"
    for field in ("training.overlap.tp = True", "training.cross_entropy = fp32", "parallel.zero = 1"):
        assert field in message
    assert "workload: inference" in message
    # the defaults written out are no training options
    ok = {**serve, "parallel": {"tp": 2, "zero": 0, "recompute": "none"}, "training": {"cross_entropy": "fused"}}
    assert bool(evaluate(ok)["feasible"].iat[0]) is True


def test_finetune_block_needs_finetune_workload():
    with pytest.raises(InputError, match="a finetune block describes fine-tuning") as info:
        evaluate({**scenario(name="t"), "finetune": {"frozen_layers": 4}})
    assert info.value.problems[0].field == "finetune"


def test_finetune_is_evaluated():
    df = evaluate({**scenario(name="ft"), "workload": "finetune"})
    assert bool(df["feasible"].iat[0]) is True


def test_hardware_error_of_a_spec_built_directly_names_the_scenario():
    # a Scenario built without scenario_from_dict skips the GPU check until evaluation
    spec = Scenario(name="direct", model=ModelSpec.model_validate(model_preset("llama2-7b")),
                    cluster=ClusterSpec(gpu="Z9000", num_gpus=8))
    with pytest.raises(InputError) as info:
        evaluate(spec)
    assert info.value.source == "scenario 0 (direct)"
    assert info.value.problems[0].field == "cluster.gpu"


def test_lazy_exports():
    assert dse.evaluate is evaluate
    assert dse.evaluate_frame is evaluate_frame
    assert dse.scenario_columns is scenario_columns


# ---------------------------------------------------------------------------- scenario_columns
def test_columns_are_the_cost_model_columns_as_floats():
    row = columns()
    assert set(row) == set(COLUMNS)
    assert all(isinstance(v, float) for v in row.values())


def test_dp_defaults_to_gpus_over_tp_pp_cp():
    row = columns(num_gpus=64, tp=2, pp=4, cp=2)
    assert row["dp"] == 4.0  # 64 // (2*4*2) = 64 // 16 = 4


def test_dp_default_rounds_down():
    row = columns(num_gpus=12, tp=8)
    assert row["dp"] == 1.0  # 12 // 8 = 1 (the product 8 != 12 is then infeasible)


def test_explicit_dp_wins():
    assert columns(num_gpus=8, tp=2, dp=2)["dp"] == 2.0


def test_sp_defaults_to_tp_greater_than_one():
    assert columns(tp=1)["sp"] == 0.0
    assert columns(tp=2)["sp"] == 1.0
    assert columns(tp=2, sp=False)["sp"] == 0.0
    assert columns(tp=1, sp=True)["sp"] == 1.0


def test_global_batch_defaults_to_dp_times_microbatch():
    row = columns(num_gpus=16, tp=2, microbatch=3)
    assert row["dp"] == 8.0  # 16 // 2
    assert row["global_batch"] == 24.0  # dp * microbatch = 8 * 3
    assert columns(num_gpus=16, tp=2, microbatch=3, global_batch=48)["global_batch"] == 48.0


def test_microbatch_defaults_to_one():
    row = scenario_columns(load_scenario({"model": "llama2-7b", "cluster": {"gpu": "H100", "num_gpus": 8},
                                          "parallel": {"tp": 4}}))
    assert row["microbatch"] == 1.0
    assert row["global_batch"] == 2.0  # dp = 8 // 4 = 2; 2 * 1


@pytest.mark.parametrize(("recompute", "code"), [("none", 0.0), ("selective", 1.0), ("full", 2.0)])
def test_recompute_codes(recompute, code):
    assert columns(recompute=recompute)["recompute"] == code


def test_ffn_mats():
    assert columns(model="llama2-7b")["ffn_mats"] == 3.0  # swiglu: gate, up, down
    assert columns(model="gpt3-175b")["ffn_mats"] == 2.0  # gelu: up, down


def test_model_columns():
    row = columns(model="llama2-70b")
    assert (row["layers"], row["hidden"], row["heads"], row["kv_heads"]) == (80.0, 8192.0, 64.0, 8.0)
    assert row["head_dim"] == 128.0  # 8192 / 64
    assert row["experts"] == 0.0 and row["moe_layers"] == 0.0


def test_moe_columns():
    row = columns(model="mixtral-8x7b")
    spec = model_preset("mixtral-8x7b")
    assert row["experts"] == 8.0
    assert row["top_k"] == 2.0
    # moe_layers = layers - dense_layers
    assert row["moe_layers"] == spec["layers"] - spec["moe"]["dense_layers"]


def test_precision_and_training_columns():
    s = {**scenario(), "precision": "fp8",
         "training": {"fp32_grad_accumulation": True, "flash_attention": False, "overlap": {"tp": True, "dp": False}}}
    row = scenario_columns(load_scenario(s))
    assert row["fp8"] == 1.0
    assert row["peak_flops"] == pytest.approx(1978.9e12, rel=1e-12)
    assert row["grad_bytes"] == 4.0
    assert row["flash_attention"] == 0.0
    assert (row["overlap_tp"], row["overlap_dp"], row["overlap_pp"]) == (1.0, 0.0, 1.0)
    assert columns()["fp8"] == 0.0
    assert columns()["grad_bytes"] == 2.0


def test_hardware_columns_are_si():
    row = columns()
    assert row["hbm_bytes"] == 80 * 2**30
    assert row["nvlink_bw"] == pytest.approx(450e9, rel=1e-12)  # 900 GB/s / 2
    assert row["num_gpus"] == 8.0


# ---------------------------------------------------------------------------- evaluate_frame
METRICS = ("iteration_time_s", "tokens_per_s", "tokens_per_s_per_gpu", "mfu", "hfu",
           "memory_per_gpu_bytes", "infeasible_mask")


def test_evaluate_frame_matches_evaluate():
    dicts = [scenario(name="a", tp=2), scenario(name="b", tp=4, recompute="full"),
             scenario(name="c", tp=2, dp=3)]
    frame = pd.DataFrame([scenario_columns(load_scenario(d)) for d in dicts])
    scored = evaluate_frame(frame)
    direct = evaluate(dicts)
    for metric in METRICS:
        np.testing.assert_allclose(scored[metric].to_numpy(dtype=float), direct[metric].to_numpy(dtype=float),
                                   rtol=1e-12, err_msg=metric)
    assert list(scored["feasible"]) == list(direct["feasible"]) == [True, True, False]
    assert list(scored["infeasible_reason"]) == list(direct["infeasible_reason"])


def test_evaluate_frame_without_explain_leaves_reasons_empty():
    frame = pd.DataFrame([columns(tp=2, dp=3)])
    out = evaluate_frame(frame, explain=False)
    assert bool(out["feasible"].iat[0]) is False
    assert out["infeasible_reason"].iat[0] == ""


def test_evaluate_frame_does_not_modify_its_input():
    frame = pd.DataFrame([columns()])
    before = frame.copy()
    evaluate_frame(frame)
    pd.testing.assert_frame_equal(frame, before)


def test_evaluate_frame_on_empty_frame():
    out = evaluate_frame(pd.DataFrame({k: pd.Series(dtype=float) for k in COLUMNS}))
    assert len(out) == 0
    assert "tokens_per_s" in out.columns


def test_a_gpu_without_a_price_has_no_cost_rather_than_a_free_one():
    """The cost model computes 0 from a price of 0; a table sorted by cost would read that as free."""
    import math

    base = {"model": "llama2-7b", "parallel": {"tp": 1, "dp": 8, "global_batch": 64}, "precision": "bf16"}
    out = dse.evaluate([{**base, "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}},
                        {**base, "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8, "price_per_gpu_hour": 0}}])
    assert out["cost_per_mtok_usd"].iloc[0] > 0
    assert math.isnan(out["cost_per_mtok_usd"].iloc[1])
