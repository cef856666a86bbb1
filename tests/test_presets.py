"""Preset lookup (dse/presets.py): GPUs and models by id or alias, case-insensitively only."""

import pytest

from dse.presets import find_gpu, find_model, gpu_preset, gpu_table, model_preset, model_table
from dse.specs import ModelSpec


# ---------------------------------------------------------------------------- GPUs
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("H100-SXM-80GB", "H100-SXM-80GB"),  # id
        ("h100-sxm-80gb", "H100-SXM-80GB"),  # id, other case
        ("H100", "H100-SXM-80GB"),  # alias
        ("h100 80gb", "H100-SXM-80GB"),  # alias with a space, other case
        ("  a100  ", "A100-SXM-80GB"),  # surrounding blanks are stripped; bare A100 = 80 GB part
        ("A100-40GB", "A100-SXM-40GB"),
        ("gb200 nvl72", "GB200"),
        ("V100-SXM-32GB", "V100-SXM2-32GB"),
    ],
)
def test_find_gpu(name, expected):
    assert find_gpu(name) == expected


def test_find_gpu_unknown_is_none():
    assert find_gpu("H100-PCIe") is None
    assert find_gpu("") is None


def test_find_gpu_does_not_normalise_separators():
    # "H100 80GB" is an alias; "H100_80GB" is not
    assert find_gpu("H100 80GB") == "H100-SXM-80GB"
    assert find_gpu("H100_80GB") is None


def test_gpu_preset_has_canonical_name_and_raises_keyerror():
    preset = gpu_preset("h200")
    assert preset["name"] == "H200-SXM-141GB"
    assert preset["hbm_gb"] == 141
    assert preset["family"] == "hopper"
    with pytest.raises(KeyError):
        gpu_preset("no-such-gpu")


def test_every_gpu_alias_resolves_to_its_entry():
    for key, entry in gpu_table().items():
        for alias in [key, *entry.get("aliases", [])]:
            assert find_gpu(alias.upper()) == key, alias
            assert find_gpu(alias.lower()) == key, alias


# ---------------------------------------------------------------------------- models
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("llama2-70b", "llama2-70b"),  # id
        ("LLAMA2-70B", "llama2-70b"),  # id, other case
        ("Llama 2 70B", "llama2-70b"),  # alias
        ("META-LLAMA/LLAMA-2-70B-HF", "llama2-70b"),  # alias, other case
        ("GPT3-175B (NeMo)", "gpt3-175b"),  # the preset's name field
        ("mixtral 8x7b", "mixtral-8x7b"),
    ],
)
def test_find_model(name, expected):
    assert find_model(name) == expected


def test_separator_variants_are_different_presets():
    # models.yaml: GPT3_175B is MAD-Max's preset (madmax-gpt3-175b), gpt3-175b NeMo's
    assert find_model("GPT3_175B") == "madmax-gpt3-175b"
    assert find_model("gpt3_175b") == "madmax-gpt3-175b"
    assert find_model("gpt3-175b") == "gpt3-175b"
    assert find_model("GPT3-175B") == "gpt3-175b"
    # LLaMA2_70B (MAD-Max, 2-matrix FFN, vocab 50257) vs llama2-70b (Meta, SwiGLU, vocab 32000)
    assert find_model("llama2_70b") == "madmax-llama2-70b"
    assert find_model("LLAMA2-70B") == "llama2-70b"
    madmax, meta = model_preset("LLaMA2_70B"), model_preset("llama2-70b")
    assert (madmax["vocab"], madmax["ffn_act"]) == (50257, "gelu")
    assert (meta["vocab"], meta["ffn_act"]) == (32000, "swiglu")


def test_unlisted_separator_variant_is_unknown():
    # neither "gpt3 175b" nor "gpt3.175b" is an id or alias: no normalisation of separators
    assert find_model("gpt3 175b") is None
    assert find_model("gpt3.175b") is None


def test_unknown_model():
    assert find_model("no-such-model") is None
    with pytest.raises(KeyError):
        model_preset("no-such-model")


def test_model_preset_is_a_model_spec_dict():
    preset = model_preset("Llama 2 70B")
    assert "aliases" not in preset and "source" not in preset
    spec = ModelSpec.model_validate(preset)
    assert spec.name == "Llama-2-70B"
    assert (spec.layers, spec.hidden, spec.heads, spec.kv) == (80, 8192, 64, 8)
    assert spec.dhead == 128  # 8192 / 64


def test_moe_preset_is_a_model_spec_dict():
    spec = ModelSpec.model_validate(model_preset("mixtral-8x7b"))
    assert spec.family == "moe"
    assert (spec.moe.experts, spec.moe.top_k) == (8, 2)


def test_every_model_preset_validates_as_model_spec():
    for key in model_table():
        spec = ModelSpec.model_validate(model_preset(key))
        assert spec.layers == model_table()[key]["layers"], key


def test_model_preset_does_not_change_the_table():
    preset = model_preset("llama2-7b")
    preset["layers"] = 1
    assert model_preset("llama2-7b")["layers"] == 32
    assert "aliases" in model_table()["llama2-7b"]


def test_model_preset_nested_moe_is_not_shared_with_the_cache():
    preset = model_preset("mixtral-8x7b")
    original = preset["moe"]["experts"]
    preset["moe"]["experts"] = 1
    try:
        assert model_preset("mixtral-8x7b")["moe"]["experts"] == 8
    finally:
        preset["moe"]["experts"] = original
