"""Scenario loading (dse/scenario.py): presets, strict validation and the messages users see."""

import json
import math
from pathlib import Path

import pytest

from dse.errors import InputError
from dse.presets import model_preset
from dse.scenario import load_jsonl, load_scenario, scenario_from_dict

SHARED = Path(__file__).resolve().parents[2] / "shared"
LLM_JSONL = SHARED / "validation" / "llm.jsonl"


def base(**changes):
    """A small valid scenario dict; ``changes`` replace top-level keys."""
    scenario = {
        "model": "llama2-7b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
        "parallel": {"tp": 2, "dp": 4, "microbatch": 1, "global_batch": 32},
    }
    scenario.update(changes)
    return scenario


def problem_text(data):
    with pytest.raises(InputError) as info:
        scenario_from_dict(data)
    return str(info.value)


# ---------------------------------------------------------------------------- validation cases
def test_llm_jsonl_lines_load_as_scenarios_as_they_are():
    if not LLM_JSONL.exists():
        pytest.skip(f"{LLM_JSONL} not found: the shared/ folder beside the repo holds the validation cases")
    rows = load_jsonl(LLM_JSONL)
    assert len(rows) > 300
    for line, obj in rows:
        scenario = scenario_from_dict(obj)
        assert scenario.name == obj["id"], f"line {line}"
        assert scenario.model.layers == obj["model"]["layers"]
        assert scenario.cluster.num_gpus == obj["cluster"]["num_gpus"]


def test_case_keys_are_accepted_and_ignored():
    case = base(id="x1", source="a paper", reliability="A", target={"metric": "mfu", "value": 0.5},
                also={}, inferred=["parallel.dp"], notes="free text")
    scenario = scenario_from_dict(case)
    assert scenario.name == "x1"


# ---------------------------------------------------------------------------- presets
def test_model_preset_by_name():
    scenario = scenario_from_dict(base(model="llama2-70b"))
    preset = model_preset("llama2-70b")
    assert scenario.model.layers == preset["layers"] == 80
    assert scenario.model.kv == 8


def test_model_preset_name_is_case_insensitive_and_takes_aliases():
    assert scenario_from_dict(base(model="LLAMA2-70B")).model.hidden == 8192
    assert scenario_from_dict(base(model="Llama-2-70B")).model.hidden == 8192


def test_model_preset_with_overrides():
    scenario = scenario_from_dict(base(model={"preset": "llama2-70b", "seq_len": 8192, "layers": 40}))
    assert scenario.model.seq_len == 8192
    assert scenario.model.layers == 40
    assert scenario.model.hidden == 8192  # from the preset


def test_unknown_model_preset_lists_presets():
    text = problem_text(base(model="llama9-1t"))
    assert "model" in text and "'llama9-1t'" in text
    assert "llama2-70b" in text and "allowed" in text


def test_inline_model():
    model = {"name": "tiny", "layers": 2, "hidden": 256, "heads": 4, "ffn_hidden": 1024, "vocab": 1000,
             "seq_len": 128}
    scenario = scenario_from_dict(base(model=model))
    assert scenario.model.dhead == 64 and scenario.model.kv == 4


# ---------------------------------------------------------------------------- strictness
def test_unknown_top_level_key_lists_allowed_keys():
    text = problem_text(base(paralel={"tp": 2}))
    assert "unknown key 'paralel'" in text
    assert "allowed keys" in text
    for key in ("model", "cluster", "parallel", "precision", "workload"):
        assert key in text


def test_unknown_nested_key_names_its_path_and_allowed_keys():
    text = problem_text(base(cluster={"gpu": "H100-SXM-80GB", "num_gpus": 8, "foo": 1}))
    assert "cluster.foo" in text
    assert "unknown key 'foo'" in text
    assert "allowed keys" in text and "num_gpus" in text and "hbm_gb" in text


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "my_run.yaml"
    path.write_text("model: llama2-7b\ncluster: {gpu: H100-SXM-80GB, num_gpus: 8, foo: 1}\n")
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert str(path) in str(info.value) and "cluster.foo" in str(info.value)


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as info:
        load_scenario(tmp_path / "nope.yaml")
    assert "nope.yaml" in str(info.value) and "cannot read" in str(info.value)


def test_string_where_a_number_belongs_is_an_error():
    text = problem_text(base(cluster={"gpu": "H100-SXM-80GB", "num_gpus": "8"}))
    assert "cluster.num_gpus" in text and "'8'" in text


def test_yaml_string_float_is_an_error(tmp_path):
    # PyYAML (YAML 1.1) reads 1e-3 as the string '1e-3': it must not pass as a number
    path = tmp_path / "s.yaml"
    path.write_text("model: llama2-7b\ncluster: {gpu: H100-SXM-80GB, num_gpus: 8, nvlink_latency_us: 1e-3}\n")
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert "cluster.nvlink_latency_us" in str(info.value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_nan_and_inf_are_rejected(value):
    text = problem_text(base(cluster={"gpu": "H100-SXM-80GB", "num_gpus": 8, "hbm_gb": value}))
    assert "cluster.hbm_gb" in text


@pytest.mark.parametrize("literal", [".nan", ".inf"])
def test_nan_and_inf_in_yaml_are_rejected(tmp_path, literal):
    path = tmp_path / "s.yaml"
    path.write_text(f"model: llama2-7b\ncluster: {{gpu: H100-SXM-80GB, num_gpus: 8, hbm_tbps: {literal}}}\n")
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert "cluster.hbm_tbps" in str(info.value)


def test_nan_in_json_is_rejected(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(base())[:-1] + ', "precision": NaN}')
    with pytest.raises(InputError) as info:
        load_scenario(path)
    assert "s.json" in str(info.value)


@pytest.mark.parametrize("tp", [-1, 0])
def test_non_positive_tp_is_rejected(tp):
    text = problem_text(base(parallel={"tp": tp}))
    assert "parallel.tp" in text and str(tp) in text


def test_unknown_enum_value_lists_allowed_values():
    text = problem_text(base(parallel={"recompute": "partial"}))
    assert "parallel.recompute" in text and "selective" in text and "full" in text


def test_unknown_gpu_lists_allowed_gpus():
    text = problem_text(base(cluster={"gpu": "Z100", "num_gpus": 8}))
    assert "cluster.gpu" in text and "'Z100'" in text
    for gpu in ("A100-SXM-80GB", "H100-SXM-80GB", "GB200"):
        assert gpu in text


def test_gpu_alias_resolves_to_canonical_name():
    scenario = scenario_from_dict(base(cluster={"gpu": "h100", "num_gpus": 8}))
    assert scenario.cluster.gpu == "H100-SXM-80GB"


def test_fp8_on_a100_is_an_error_naming_the_precision_field():
    # caught when the scenario is read, before anything is evaluated
    with pytest.raises(InputError) as info:
        scenario_from_dict(base(precision="fp8", cluster={"gpu": "A100-SXM-80GB", "num_gpus": 8}))
    text = str(info.value)
    assert "precision" in text and "fp8" in text
    assert "bf16" in text  # what is allowed


def test_several_problems_are_reported_at_once():
    text = problem_text(base(cluster={"gpu": "H100-SXM-80GB", "num_gpus": "8", "foo": 1},
                             parallel={"tp": -1}))
    assert "3 problems" in text
    for field in ("cluster.num_gpus", "cluster.foo", "parallel.tp"):
        assert field in text


def test_an_inference_block_on_a_training_scenario_is_refused():
    scenario = {"model": "llama3-8b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
                "inference": {"input_len": 100, "output_len": 100, "kv_allocation": "on_demand"}}
    with pytest.raises(InputError, match="an inference block describes serving \\(workload: inference\\); "
                                         "this scenario's workload is train"):
        load_scenario(scenario)
    assert load_scenario({**scenario, "workload": "inference"}).inference.kv_allocation == "on_demand"


def test_precision_any_case_batch_auto_and_did_you_mean():
    """FP8 and fp8 name the same format; a serving scenario may say batch: auto (a search space's
    word) for the throughput-maximising batch; an unknown preset suggests the ones it resembles."""
    base = {"workload": "Inference", "precision": "FP8", "model": "llama3.1-70b",
            "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 8},
            "inference": {"input_len": 100, "output_len": 100, "batch": "auto"}}
    s = load_scenario(base)
    assert (s.precision, s.workload, s.inference.batch) == ("fp8", "inference", None)
    with pytest.raises(InputError, match=r"unknown model preset \(did you mean llama3\.1-70b"):
        load_scenario({**base, "model": "llama-3.1-70b-instruct"})
    with pytest.raises(InputError, match=r"unknown GPU \(did you mean H100"):
        load_scenario({**base, "cluster": {"gpu": "H100-SXM5-80G", "num_gpus": 8}})
    with pytest.raises(InputError, match=r"unknown model preset; allowed"):
        load_scenario({**base, "model": "qqqqqq"})


def test_an_expert_imbalance_below_one_and_a_negative_router_skew_are_refused():
    serving = base(workload="inference", model="deepseek-v3", parallel={"tp": 1, "dp": 8, "ep": 8},
                   inference={"input_len": 128, "output_len": 128, "moe_load_imbalance": 0.9})
    text = problem_text(serving)
    assert "inference.moe_load_imbalance" in text and "1" in text
    model = dict(model_preset("deepseek-v3"))
    model["moe"] = {**model["moe"], "router_skew": -1.0}
    text = problem_text(base(model=model))
    assert "model.moe.router_skew" in text


def test_the_deepseek_preset_carries_its_router_skew():
    assert model_preset("deepseek-v3")["moe"]["router_skew"] == 2.16


def test_a_batch_above_max_batch_is_refused_naming_both():
    serving = base(workload="inference", parallel={"tp": 8},
                   inference={"input_len": 128, "output_len": 128, "batch": 512, "max_batch": 256})
    text = problem_text(serving)
    assert "batch (512) exceeds max_batch (256)" in text


def test_two_and_single_batch_overlap_are_alternatives():
    serving = base(workload="inference", model="deepseek-v3", parallel={"tp": 1, "dp": 8, "ep": 8},
                   inference={"input_len": 128, "output_len": 128, "two_batch_overlap": True,
                              "single_batch_overlap": True})
    assert "two_batch_overlap and single_batch_overlap are alternatives" in problem_text(serving)
