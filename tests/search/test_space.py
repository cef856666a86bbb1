"""Search-space files (dse/search/space.py): loading, strict validation, the messages users see,
and the knob unit conversions."""

import copy
import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from dse.costmodel.dlrm import REQUIRED as DLRM_REQUIRED
from dse.costmodel.inference import INFERENCE_REQUIRED
from dse.costmodel.inputs import REQUIRED
from dse.errors import InputError
from dse.search.space import (
    KNOBS,
    METRICS_BY_KIND,
    SearchSpace,
    hardware_columns,
    load_space,
    space_from_dict,
)

ROOT = Path(__file__).resolve().parents[2]
SPACES = sorted((ROOT / "search_spaces").glob("*.yaml"))
QUICKSTART = ROOT / "search_spaces" / "quickstart.yaml"


def quickstart() -> dict:
    return yaml.safe_load(QUICKSTART.read_text())


def load_error(tmp_path, data=None, text=None, name="space.yaml") -> InputError:
    """Write ``data`` (or ``text``) to a file, load it, return the InputError."""
    path = tmp_path / name
    path.write_text(text if text is not None else yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(InputError) as info:
        load_space(path)
    err = info.value
    assert err.source == str(path)
    assert str(path) in str(err)
    return err


def fields(err: InputError) -> dict[str, str]:
    return {p.field: p.message for p in err.problems}


def edited(**top) -> dict:
    data = quickstart()
    data.update(top)
    return data


# ---------------------------------------------------------------------------- shipped spaces
def test_every_space_is_shipped():
    names = {p.stem for p in SPACES}
    assert {"quickstart", "llama2_70b_h100", "llama2_70b_a100", "llama2_70b_b200", "llama3_405b_h100",
            "mixtral_8x7b_h100", "codesign_h100"} <= names


@pytest.mark.parametrize("path", SPACES, ids=[p.stem for p in SPACES])
def test_shipped_space_loads(path):
    space = load_space(path)
    assert isinstance(space, SearchSpace)
    assert space.source_path == str(path)
    assert space.source_text == path.read_text()
    assert space.gpu_counts() == sorted(space.gpu_counts()) and space.gpu_counts()
    if space.kind in ("llm_train", "vit_train"):
        assert space.global_batches() and all(b >= 1 for b in space.global_batches())
    assert space.objectives and all(m in METRICS_BY_KIND[space.kind] for m, _ in space.objectives)
    n = space.gpu_counts()[0]
    assert space.scenario(n).cluster.num_gpus == n
    cols = space.base_columns(n)
    required = {"llm_train": REQUIRED, "vit_train": REQUIRED, "llm_inference": REQUIRED + INFERENCE_REQUIRED,
                "dlrm_train": DLRM_REQUIRED}[space.kind]
    assert set(required) <= set(cols)
    assert cols["num_gpus"] == n


def test_quickstart_content():
    space = load_space(QUICKSTART)
    assert space.name == "quickstart"
    assert space.gpu_counts() == [8, 16, 32, 64]
    assert space.global_batches() == [256]
    assert space.seq_len == 4096
    assert space.knobs == {} and space.is_discrete_hardware()
    assert space.objectives == [("tokens_per_s", "maximize"), ("num_gpus", "minimize")]
    assert space.spec.search.mode == "auto" and space.spec.search.n_trials == 40
    assert space.scenario(32).model.name == "Llama-2-7B"
    assert space.base_columns(32)["hbm_bytes"] == 80 * 2**30


def test_codesign_knobs():
    space = load_space(ROOT / "search_spaces" / "codesign_h100.yaml")
    assert space.gpu_counts() == [1024]
    assert set(space.knobs) == {"scaleout_gbitps", "nvlink_domain", "hbm_gb", "hbm_tbps", "peak_scale"}
    assert not space.is_discrete_hardware()
    assert space.knobs["scaleout_gbitps"].log and space.knobs["scaleout_gbitps"].low == 100
    assert space.knobs["nvlink_domain"].values == [8, 16, 36, 72]
    assert ("cost_per_mtok_usd", "minimize") in space.objectives


def test_pow2_range_and_tokens():
    space = load_space(ROOT / "search_spaces" / "llama3_405b_h100.yaml")
    assert space.gpu_counts() == [2**k for k in range(6, 15)]
    assert space.global_batches() == [16777216 // 8192]


def test_a_fine_tuning_space_keeps_its_finetune_block():
    """scenario.finetune (frozen layers, LoRA) reaches the cost-model columns of every point."""
    data = {"scenario": {"model": "llama2-7b", "workload": "finetune", "cluster": {"gpu": "H100"},
                         "finetune": {"frozen_layers": 8, "lora": {"rank": 16}}},
            "gpus": [8], "global_batch": {"sequences": [64]}}
    cols = space_from_dict(data).base_columns(8)
    assert (cols["frozen_layers"], cols["lora_rank"]) == (8, 16)
    with pytest.raises(InputError, match="finetune"):  # a finetune block needs workload: finetune
        space_from_dict({**data, "scenario": {**data["scenario"], "workload": "train"}})


def test_json_file_and_dict_and_defaults(tmp_path):
    data = quickstart()
    path = tmp_path / "q.json"
    path.write_text(json.dumps(data))
    assert load_space(path).gpu_counts() == [8, 16, 32, 64]
    minimal = {"scenario": {"model": "llama2-7b", "cluster": {"gpu": "H100"}}, "gpus": [16],
               "global_batch": {"sequences": [64, 32, 64]}}
    space = space_from_dict(minimal)
    assert space.source_path is None and space.source_text is None and space.name == "search"
    assert space.global_batches() == [32, 64]
    assert space.objectives == [("tokens_per_s", "maximize"), ("num_gpus", "minimize")]
    assert space.spec.parallel.tp == [1, 2, 4, 8] and space.spec.parallel.sp == "auto"
    assert space.spec.search.sampler == "tpe" and space.spec.search.max_exhaustive == 50_000_000
    assert space.scenario(16).cluster.gpu == "H100-SXM-80GB"  # alias resolved
    assert load_space(_write(tmp_path, "my study.yaml", minimal)).name == "my-study"


def _write(tmp_path, name, data):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_gpu_ranges_and_cap():
    space = space_from_dict(edited(gpus={"min": 8, "max": 64, "step": 8}, constraints={"max_gpus": 40}))
    assert space.gpu_counts() == [8, 16, 24, 32, 40]
    space = space_from_dict(edited(gpus={"min": 64, "max": 1024, "scale": "pow2"}, constraints={"max_gpus": 300}))
    assert space.gpu_counts() == [64, 128, 256]
    space = space_from_dict(edited(gpus=[64, 8, 8]))
    assert space.gpu_counts() == [8, 64]


# ---------------------------------------------------------------------------- errors
def test_unknown_top_level_key(tmp_path):
    err = load_error(tmp_path, edited(parallelism={"tp": [1]}))
    msg = fields(err)["parallelism"]
    assert "unknown key 'parallelism'" in msg and "parallel" in msg and "global_batch" in msg


@pytest.mark.parametrize("where, key, expect", [
    ("parallel", "tpp", "allowed keys: tp, pp, vpp"),
    ("search", "trials", "n_trials"),
    ("constraints", "max_gpu", "max_gpus"),
])
def test_unknown_nested_key(tmp_path, where, key, expect):
    data = quickstart()
    data.setdefault(where, {})[key] = 1
    err = load_error(tmp_path, data)
    msg = fields(err)[f"{where}.{key}"]
    assert f"unknown key '{key}'" in msg and expect in msg


def test_unknown_deeply_nested_keys(tmp_path):
    data = edited(hardware={"hbm_gb": {"values": [80], "lo": 1}},
                  objectives=[{"metric": "mfu", "direction": "maximize", "weight": 1}],
                  gpus={"min": 8, "max": 64, "scale": "pow2", "base": 2})
    got = fields(load_error(tmp_path, data))
    assert "allowed keys: values, low, high, log, step" in got["hardware.hbm_gb.lo"]
    assert "allowed keys: metric, direction" in got["objectives.0.weight"]
    assert "allowed keys: min, max, scale, step" in got["gpus.base"]


def test_number_given_as_string_yaml_exponent(tmp_path):
    text = QUICKSTART.read_text() + "\ntrain_tokens: 1.0e12\n"
    err = load_error(tmp_path, text=text)
    msg = fields(err)["train_tokens"]
    assert "not a string" in msg and "1.0e+12" in msg
    text = QUICKSTART.read_text() + "\nhardware:\n  peak_scale: {low: 1e-1, high: 2}\n"
    msg = fields(load_error(tmp_path, text=text))["hardware.peak_scale.low"]
    assert "1.0e-1" in msg
    # written the YAML 1.1 way it loads
    space = load_space(_text(tmp_path, QUICKSTART.read_text() + "\ntrain_tokens: 1.0e+12\n"))
    assert space.spec.train_tokens == 1e12


def _text(tmp_path, text):
    path = tmp_path / "ok.yaml"
    path.write_text(text)
    return path


def test_quoted_numbers(tmp_path):
    data = edited(gpus=[8, "16"], global_batch={"sequences": "256"})
    data["scenario"]["cluster"]["hbm_gb"] = "96"
    got = fields(load_error(tmp_path, data))
    assert "not a string" in got["gpus.1"]
    assert "not a string" in got["global_batch.sequences"]
    assert "not a string" in got["scenario.cluster.hbm_gb"]


def test_empty_lists(tmp_path):
    data = quickstart()
    data["parallel"]["tp"] = []
    data["parallel"]["recompute"] = []
    data["gpus"] = []
    got = fields(load_error(tmp_path, data))
    assert got["parallel.tp"] == "must not be empty"
    assert got["parallel.recompute"] == "must not be empty"
    assert got["gpus"] == "must not be empty"
    got = fields(load_error(tmp_path, edited(hardware={"hbm_gb": {"values": []}}, objectives=[])))
    assert got["hardware.hbm_gb.values"] == "must not be empty"
    assert got["objectives"] == "must not be empty"


def test_bad_knob_name_lists_allowed_knobs(tmp_path):
    err = load_error(tmp_path, edited(hardware={"gpus_per_server": {"values": [4, 8]}}))
    msg = fields(err)["hardware.gpus_per_server"]
    assert "unknown hardware knob 'gpus_per_server'" in msg
    for knob in KNOBS:
        assert knob in msg


def test_bad_knob_values(tmp_path):
    data = edited(hardware={
        "scaleout_gbitps": {"low": 0, "high": 800, "log": True},
        "hbm_tbps": {"low": 4, "high": 3},
        "nvlink_domain": {"values": [8, 12.5]},
        "hbm_gb": {"values": [80, float("nan")]},
        "power_w": {"values": [700], "low": 500},
        "peak_scale": {"values": [0, 1]},
        "nvlink_gbps": {"low": 100, "high": 900, "log": True, "step": 100},
    })
    got = fields(load_error(tmp_path, data))
    assert "low > 0" in got["hardware.scaleout_gbitps"]
    assert "below high" in got["hardware.hbm_tbps"]
    assert "whole numbers" in got["hardware.nvlink_domain"]
    assert "finite" in got["hardware.hbm_gb.values.1"]
    assert "not both" in got["hardware.power_w"]
    assert "> 0" in got["hardware.peak_scale"]
    assert "step" in got["hardware.nvlink_gbps"]


def test_objective_metric_not_allowed(tmp_path):
    err = load_error(tmp_path, edited(objectives=[{"metric": "flops", "direction": "maximize"},
                                                   {"metric": "mfu", "direction": "up"}]))
    got = fields(err)
    assert "tokens_per_s_per_gpu" in got["objectives.0.metric"] and "time_to_train_s" in got["objectives.0.metric"]
    assert "maximize" in got["objectives.1.direction"]
    err = load_error(tmp_path, edited(objectives=[{"metric": "mfu", "direction": "maximize"}] * 2))
    assert "once" in fields(err)["objectives"]


def test_time_to_train_needs_train_tokens(tmp_path):
    objectives = [{"metric": "time_to_train_s", "direction": "minimize"}]
    err = load_error(tmp_path, edited(objectives=objectives))
    assert "train_tokens" in fields(err)["objectives.0.metric"]
    space = space_from_dict(edited(objectives=objectives, train_tokens=2.0e12))
    assert space.objectives == [("time_to_train_s", "minimize")]


def test_cost_objective_needs_a_price(tmp_path):
    data = edited(objectives=[{"metric": "cost_per_mtok_usd", "direction": "minimize"}])
    data["scenario"]["cluster"] = {"gpu": "B200"}
    assert "no price" in fields(load_error(tmp_path, data))["objectives.0.metric"]
    data["scenario"]["cluster"]["price_per_gpu_hour"] = 6.0
    assert space_from_dict(data).base_columns(8)["price_per_gpu_hour"] == 6.0


def test_scenario_errors_are_prefixed(tmp_path):
    data = quickstart()
    data["scenario"]["model"] = {"preset": "llama2-7b", "layers": 0}
    data["scenario"]["cluster"]["hbm_gbs"] = 96
    got = fields(load_error(tmp_path, data))
    assert "scenario.model.layers" in got
    assert "unknown key 'hbm_gbs'" in got["scenario.cluster.hbm_gbs"]
    assert "num_gpus" not in got["scenario.cluster.hbm_gbs"]  # not allowed here

    data = quickstart()
    data["scenario"]["model"] = "llama-9"
    got = fields(load_error(tmp_path, data))
    assert "unknown model preset" in got["scenario.model"]

    data = quickstart()
    data["scenario"]["cluster"] = {"gpu": "A100-SXM-80GB"}
    data["scenario"]["precision"] = "fp8"
    got = fields(load_error(tmp_path, data))
    assert "no fp8" in got["scenario.precision"]


def test_scenario_must_not_fix_what_is_searched(tmp_path):
    data = quickstart()
    data["scenario"]["parallel"] = {"tp": 2}
    data["scenario"]["cluster"]["num_gpus"] = 8
    data["scenario"]["id"] = "x"
    got = fields(load_error(tmp_path, data))
    assert "top-level 'parallel'" in got["scenario.parallel"]
    assert "'gpus'" in got["scenario.cluster.num_gpus"]
    assert "allowed keys: model, precision, workload, cluster, training" in got["scenario.id"]


def test_pow2_range_needs_powers_of_two(tmp_path):
    got = fields(load_error(tmp_path, edited(gpus={"min": 48, "max": 1024, "scale": "pow2"})))
    assert "power of two" in got["gpus"] and "48" in got["gpus"]
    got = fields(load_error(tmp_path, edited(gpus={"min": 128, "max": 64, "scale": "pow2"})))
    assert "must not exceed" in got["gpus"]
    got = fields(load_error(tmp_path, edited(gpus="8")))
    assert "list of GPU counts" in got["gpus"]


def test_bad_values_in_lists(tmp_path):
    data = quickstart()
    data["parallel"].update(tp=[0, 2], zero=[4], recompute=["some"], sp=[True, "no"], microbatch=[1.5])
    got = fields(load_error(tmp_path, data))
    assert "greater than 0" in got["parallel.tp.0"]
    assert "3" in got["parallel.zero.0"]
    assert "'selective'" in got["parallel.recompute.0"]
    assert "parallel.sp.1" in got
    assert "whole number" in got["parallel.microbatch.0"]
    got = fields(load_error(tmp_path, edited(global_batch={"sequences": 256, "tokens": 1048576})))
    assert "exactly one" in got["global_batch"]
    got = fields(load_error(tmp_path, edited(global_batch={"tokens": [1024, 1048576]})))
    assert "seq_len 4096" in got["global_batch.tokens"]


def test_no_candidate_fits_the_model(tmp_path):
    data = quickstart()
    data["parallel"].update(tp=[3, 5], ep=[2], cp=[3])
    got = fields(load_error(tmp_path, data))
    assert "heads 32" in got["parallel.tp"]
    assert "dense" in got["parallel.ep"]
    assert "seq_len 4096" in got["parallel.cp"]


def test_many_problems_at_once(tmp_path):
    data = edited(foo=1, gpus=[8, "16"], search={"mode": "fast"})
    data["scenario"]["precision"] = "int4"
    err = load_error(tmp_path, data)
    assert {"foo", "gpus.1", "search.mode", "scenario.precision"} <= set(fields(err))
    assert f"invalid input ({len(err.problems)} problems)" in str(err)


def test_file_problems(tmp_path):
    missing = tmp_path / "nope.yaml"
    with pytest.raises(InputError, match="cannot read"):
        load_space(missing)
    load_error(tmp_path, text="gpus: [8\n")
    load_error(tmp_path, text="- 1\n- 2\n")
    err = load_error(tmp_path, text='{"gpus": [NaN]}', name="bad.json")
    assert "parse" in str(err)


# ---------------------------------------------------------------------------- units
def test_hardware_columns_unit_conversions():
    space = load_space(QUICKSTART)
    base = space.base_columns(8)
    knobs = {"hbm_gb": 141.0, "hbm_tbps": 4.8, "peak_scale": 2.0, "nvlink_gbps": 1800.0,
             "nvlink_domain": 72.0, "scaleout_gbitps": 800.0, "price_per_gpu_hour": 3.5, "power_w": 1000.0}
    before = copy.deepcopy(base)
    out = hardware_columns(base, knobs)
    assert base == before  # a new dict
    assert out["hbm_bytes"] == 141.0 * 2**30
    assert out["hbm_bw"] == pytest.approx(4.8e12)
    assert out["peak_flops"] == pytest.approx(2.0 * base["peak_flops"])
    assert out["peak_flops_16"] == pytest.approx(2.0 * base["peak_flops_16"])
    assert out["nvlink_bw"] == pytest.approx(900e9)
    assert out["nvlink_domain"] == 72.0
    assert out["scaleout_bw"] == pytest.approx(100e9)
    assert out["price_per_gpu_hour"] == 3.5 and out["power_w"] == 1000.0
    assert out["layers"] == base["layers"]
    # the preset figures are what the scenario layer gives (dse/hardware.py units)
    assert base["hbm_bytes"] == 80 * 2**30 and base["nvlink_bw"] == pytest.approx(450e9)
    assert base["scaleout_bw"] == pytest.approx(50e9) and base["hbm_bw"] == pytest.approx(3.35e12)


def test_hardware_columns_vectorized():
    space = load_space(QUICKSTART)
    base = space.base_columns(8)
    out = hardware_columns(base, {"hbm_gb": np.array([80.0, 192.0]), "peak_scale": np.array([0.5, 1.0])})
    np.testing.assert_allclose(out["hbm_bytes"], [80 * 2**30, 192 * 2**30])
    np.testing.assert_allclose(out["peak_flops"], [0.5 * base["peak_flops"], base["peak_flops"]])
    with pytest.raises(InputError, match="gpus_per_server"):
        hardware_columns(base, {"gpus_per_server": 4})
    # gpus_per_node sets the NVLink domain (servers whose switch joins their GPUs) ...
    assert hardware_columns(base, {"gpus_per_node": 4})["nvlink_domain"] == 4.0
    # ... unless the domain is a knob too
    assert hardware_columns(base, {"gpus_per_node": 4, "nvlink_domain": 72})["nvlink_domain"] == 72.0


# ---------------------------------------------------------------------------- price model
def test_a_price_model_prices_each_hardware_point_by_hand():
    """price = 10 USD x (2.0)^1 x (192/80)^0.5 for twice the peak and 192 of 80 GiB."""
    from dse.search.space import PriceModelSpec

    base = {"price_per_gpu_hour": 12.0, "peak_flops": 1e15, "peak_flops_16": 1e15, "hbm_bytes": 80 * 2.0**30}
    model = PriceModelSpec(usd_per_hour=10.0, exponents={"peak_scale": 1.0, "hbm_gb": 0.5})
    out = hardware_columns(base, {"peak_scale": 2.0, "hbm_gb": 192.0}, model)
    assert out["price_per_gpu_hour"] == pytest.approx(10.0 * 2.0 * (192 / 80) ** 0.5, rel=1e-12)
    # vectorized over points; without usd_per_hour the scenario's price is the base
    model = PriceModelSpec(exponents={"hbm_gb": 1.0})
    out = hardware_columns(base, {"hbm_gb": np.array([80.0, 160.0])}, model)
    np.testing.assert_allclose(out["price_per_gpu_hour"], [12.0, 24.0], rtol=1e-12)
    assert hardware_columns(base, {"hbm_gb": 160.0})["price_per_gpu_hour"] == 12.0  # no model: fixed


def test_price_model_errors_name_the_field(tmp_path):
    data = yaml.safe_load((ROOT / "search_spaces" / "codesign_h100.yaml").read_text())
    bad = copy.deepcopy(data)
    bad["price_model"]["exponents"]["bogus"] = 1.0
    assert "unknown or unpriceable knob 'bogus'" in str(load_error(tmp_path, bad))
    bad = copy.deepcopy(data)
    bad["price_model"]["exponents"]["nvlink_gbps"] = 1.0  # not a knob of this space
    assert "price_model.exponents.nvlink_gbps" in fields(load_error(tmp_path, bad))
    bad = copy.deepcopy(data)
    bad["hardware"]["price_per_gpu_hour"] = {"values": [10.0, 12.0]}
    assert "price_model" in fields(load_error(tmp_path, bad))
    bad = copy.deepcopy(data)
    bad["scenario"]["cluster"] = {"gpu": "H200-SXM-141GB"}  # no preset price
    del bad["price_model"]["usd_per_hour"]
    assert "price_model.usd_per_hour" in fields(load_error(tmp_path, bad))
