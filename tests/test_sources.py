"""Software facts of published sources (dse/sources.py, dse/data/software.yaml)."""

import copy
import json
from pathlib import Path

import pytest

import dse
from dse.errors import InputError
from dse.scenario import scenario_from_dict
from dse.sources import BLOCKS, ENTRY_KEYS, apply_software, check_software, matching_entries, software_table

LLM_JSONL = Path(__file__).resolve().parents[2] / "shared" / "validation" / "llm.jsonl"
DLRM_VIT = LLM_JSONL.parent / "dlrm_vit.jsonl"
DLE = "NVIDIA/DeepLearningExamples TensorFlow2/Recommendation/DLRM_and_DCNv2"

NARAYANAN = "Narayanan et al. SC'21 (arXiv 2104.04473) Table 1; MBS/interleave from run_table_1.sh"
NEMO = "NVIDIA NeMo 24.07 performance_summary.md (Pretraining (FP8) table)"


def case(source, zero=0, **extra):
    """A validation-case-like dict."""
    return {
        "id": "c1",
        "source": source,
        "model": "gpt-175b",
        "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 384, "gpus_per_node": 8},
        "parallel": {"tp": 8, "pp": 1, "dp": 48, "zero": zero},
        **extra,
    }


def first_llm_line():
    if not LLM_JSONL.exists():
        pytest.skip(f"{LLM_JSONL} not found: the shared/ folder beside the repo holds the validation cases")
    with LLM_JSONL.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                return json.loads(line)
    pytest.skip("llm.jsonl is empty")


# ---------------------------------------------------------------------------- apply_software
def test_narayanan_gets_megatron_2021_settings():
    out = apply_software(case(NARAYANAN))
    assert out["training"] == {"flash_attention": False, "overlap": {"dp": False, "pp": False}}
    # zero 0: the DeepSpeed entry does not apply, the cluster block is untouched
    assert out["cluster"] == {"gpu": "A100-SXM-80GB", "num_gpus": 384, "gpus_per_node": 8}
    assert len(matching_entries(case(NARAYANAN))) == 1


def test_narayanan_zero3_also_loses_rail_optimization_and_keeps_its_cluster():
    out = apply_software(case(NARAYANAN, zero=3))
    assert out["training"] == {"flash_attention": False, "overlap": {"dp": False, "pp": False}}
    assert out["cluster"] == {"gpu": "A100-SXM-80GB", "num_gpus": 384, "gpus_per_node": 8,
                              "rail_optimized": False}
    assert len(matching_entries(case(NARAYANAN, zero=3))) == 2


def test_case_cluster_setting_wins_over_the_source():
    c = case(NARAYANAN, zero=3)
    c["cluster"]["rail_optimized"] = True
    assert apply_software(c)["cluster"]["rail_optimized"] is True


def test_nemo_overlaps_tp():
    out = apply_software(case(NEMO))
    assert out["training"] == {"overlap": {"tp": True}}
    assert out["cluster"] == case(NEMO)["cluster"]


def test_case_training_settings_win_and_merge_deeply():
    c = case(NARAYANAN, training={"flash_attention": True, "overlap": {"dp": True}})
    out = apply_software(c)
    # flash_attention and overlap.dp from the case; overlap.pp from the source
    assert out["training"] == {"flash_attention": True, "overlap": {"dp": True, "pp": False}}


def test_unknown_source_is_unchanged():
    c = case("Some other paper, Table 9")
    before = copy.deepcopy(c)
    assert apply_software(c) == before
    no_source = {k: v for k, v in c.items() if k != "source"}
    assert apply_software(no_source) == no_source
    assert matching_entries(c) == []


def test_match_is_case_sensitive_substring():
    assert "training" not in apply_software(case("narayanan et al. sc'21"))
    assert apply_software(case("see " + NARAYANAN))["training"]["flash_attention"] is False


def test_input_case_is_not_modified():
    c = case(NARAYANAN, zero=3, training={"overlap": {"tp": True}})
    before = copy.deepcopy(c)
    apply_software(c)
    assert c == before


def test_other_keys_are_kept():
    c = case(NARAYANAN, target={"metric": "mfu", "value": 0.5})
    out = apply_software(c)
    for key in ("id", "source", "model", "parallel", "target"):
        assert out[key] == c[key]


def test_result_does_not_share_dicts_with_the_cached_table():
    out = apply_software(case(NARAYANAN))
    overlap = out["training"]["overlap"]
    saved = dict(overlap)
    overlap["dp"] = True
    try:
        assert apply_software(case(NARAYANAN))["training"]["overlap"]["dp"] is False
    finally:
        overlap.clear()
        overlap.update(saved)


# ---------------------------------------------------------------------------- software.yaml
def test_software_entries_are_well_formed():
    entries = software_table()
    assert entries
    for entry in entries:
        assert set(entry) <= set(ENTRY_KEYS), entry
        assert isinstance(entry["match"], str) and entry["match"]
        assert isinstance(entry["why"], str) and entry["why"].strip()
        assert any(entry.get(block) for block in BLOCKS), entry["match"]
        for block in BLOCKS:
            assert isinstance(entry.get(block) or {}, dict)
        assert isinstance(entry.get("when") or {}, dict)


def _merged(base, over):
    out = dict(base)
    for key, value in over.items():
        out[key] = _merged(out.get(key) or {}, value) if isinstance(value, dict) else value
    return out


def _attr(obj, dotted):
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _dotted(block, prefix):
    for key, value in block.items():
        if isinstance(value, dict):
            yield from _dotted(value, f"{prefix}.{key}")
        else:
            yield f"{prefix}.{key}", value


@pytest.mark.parametrize("index", range(len(software_table())))
def test_each_entry_applied_to_a_real_case_validates(index):
    line = first_llm_line()
    entry = software_table()[index]
    c = dict(line)
    for dotted, value in (entry.get("when") or {}).items():  # a plan the entry applies to
        block, _, key = dotted.partition(".")
        if block == "parallel" and key:  # (model or precision conditions would make another kind of case)
            c[block] = _merged(c.get(block) or {}, {key: value})
    for block in BLOCKS:
        if entry.get(block):
            c[block] = _merged(c.get(block) or {}, entry[block])
    scenario = scenario_from_dict(c)
    for block in BLOCKS:
        for dotted, value in _dotted(entry.get(block) or {}, block):
            assert _attr(scenario, dotted) == value, dotted


def test_every_llm_case_validates_after_apply_software():
    if not LLM_JSONL.exists():
        pytest.skip(f"{LLM_JSONL} not found")
    lines = [json.loads(t) for t in LLM_JSONL.read_text(encoding="utf-8").splitlines() if t.strip()]
    touched = 0
    for obj in lines:
        out = apply_software(obj)
        touched += out is not obj
        scenario_from_dict(out)
    assert touched > 0  # the Narayanan, Korthikanti and NeMo cases are in the file


# ---------------------------------------------------------------------------- schema errors
def _table_with(**changes):
    table = copy.deepcopy(software_table())
    table[0].update(changes)
    return table


@pytest.mark.parametrize("changes, field, words", [
    ({"training": {"dlrm": {"emb_dtype": "fp4"}}}, "[0].training.dlrm.emb_dtype", "allowed: 'fp32', 'fp16', 'bf16', 'fp8' or 'int8'"),
    ({"training": {"dlrm": {"emb_placement": "random"}}}, "[0].training.dlrm.emb_placement", "allowed"),
    ({"training": {"dlrm": {"optimiser": "adam"}}}, "[0].training.dlrm.optimiser", "unknown key"),
    ({"cluster": {"rail_optimized": "no"}}, "[0].cluster.rail_optimized", "boolean"),
    ({"parallel": {"emb_sharding": "tables"}}, "[0].parallel.emb_sharding", "allowed"),
    ({"why": ""}, "[0].why", "non-empty string"),
    ({"match": 3}, "[0].match", "non-empty string"),
    ({"when": {"modle.family": "dlrm"}}, "[0].when", "dotted case field"),
    ({"when": {"precision": ["fp16"]}}, "[0].when.precision", "single value"),
    ({"becasue": "x"}, "[0].becasue", "unknown key"),
])
def test_a_bad_fact_is_an_error_naming_the_field(changes, field, words):
    with pytest.raises(InputError) as err:
        check_software(_table_with(**changes), "software.yaml")
    text = str(err.value)
    assert text.startswith("software.yaml: ") and f"{field}: " in text and words in text, text


def test_an_entry_without_settings_or_a_non_list_file_is_an_error():
    with pytest.raises(InputError, match=r"\[0\]: states no setting"):
        check_software([{"match": "x", "why": "y"}])
    with pytest.raises(InputError, match="non-empty list"):
        check_software({"match": "x"})


def test_the_shipped_file_passes_the_check():
    assert check_software(copy.deepcopy(software_table())) == software_table()


# ---------------------------------------------------------------------------- DLRM facts
def dlrm_case(case_id):
    if not DLRM_VIT.exists():
        pytest.skip(f"{DLRM_VIT} not found")
    for text in DLRM_VIT.read_text(encoding="utf-8").splitlines():
        if text.strip() and json.loads(text)["id"] == case_id:
            return json.loads(text)
    pytest.skip(f"{case_id} not in {DLRM_VIT}")


def test_dlrm_facts_load_with_their_reasons():
    entries = [e for e in software_table() if (e.get("training") or {}).get("dlrm")]
    by_match = {e["match"]: e for e in entries if e["match"] != "MLPerf Training v"}
    mlperf = {e["when"]["model.interaction"]: e for e in entries if e["match"] == "MLPerf Training v"}
    assert mlperf["dot"]["training"]["dlrm"] == {"emb_dtype": "fp16"}
    assert mlperf["dcnv2"]["training"]["dlrm"] == {"exchange_dtype": "fp16"}
    assert by_match[DLE]["training"]["dlrm"] == {"emb_dtype": "fp32", "emb_placement": "memory_balanced"}
    assert "HugeCTR" in mlperf["dot"]["why"] and "emb_type" in mlperf["dcnv2"]["why"]
    assert "memory_balanced" in by_match[DLE]["why"]


def _samples_per_s(case):
    row = dse.evaluate(scenario_from_dict(case)).iloc[0]
    return row["global_batch"] / row["iteration_time_s"]


#: Predicted samples/s of three validation cases before the DLRM software facts moved from
#: dse/workloads/dlrm.py into software.yaml (dse validate at commit fe6fdab; refresh these
#: when the DLRM model or calibration changes: the DLE figure was refreshed when the backward's
#: all-to-all began to wait for the interaction's backward, all three when a batch's repeated keys
#: began to touch fewer rows and the DLRM numbers were refitted, 2026-12-01, and again when the
#: L2 cache began to serve the forward's lookups of the rows it holds and the backward's reads
#: of the pooled gradients, 2026-12-02).
BEFORE_THE_MOVE = {
    "mlperf-v2.0-NVIDIA-dgxa100_ngc22.04_merlin_hugectr-dlrm": 36348207.412821576,  # hybrid, stated
    "mlperf-v2.0-Inspur-nf5488a5_hugectr-dlrm": 35663329.45288999,  # plan not stated: best candidate
    "dle-tf2-dlrm-dgxa100-8gpu-large-mixedprecision": 12239612.04724463,  # table-wise
}


@pytest.mark.parametrize("case_id", list(BEFORE_THE_MOVE))
def test_dlrm_validation_figures_unchanged_and_made_by_the_fact(case_id):
    case = dlrm_case(case_id)
    with_fact = apply_software(case)
    assert with_fact["training"]["dlrm"]  # the source's fact applies
    predicted = _samples_per_s(with_fact)
    assert predicted == pytest.approx(BEFORE_THE_MOVE[case_id], rel=1e-9)
    # without the fact (the code defaults: FP32 tables, cost-balanced placement) the figure moves
    without = _samples_per_s(case)
    assert abs(without / predicted - 1) > 0.1


def test_each_dlrm_fact_matters_on_its_own():
    # MLPerf: FP16 tables halve the all-to-all and gather bytes: faster than FP32 tables
    mlperf = apply_software(dlrm_case("mlperf-v2.0-NVIDIA-dgxa100_ngc22.04_merlin_hugectr-dlrm"))
    fp32 = copy.deepcopy(mlperf)
    fp32["training"]["dlrm"]["emb_dtype"] = "fp32"
    assert _samples_per_s(fp32) < _samples_per_s(mlperf)
    # DLE: memory-balanced placement (not the dtype, which is the default) makes its figure
    dle = apply_software(dlrm_case("dle-tf2-dlrm-dgxa100-8gpu-large-mixedprecision"))
    cost = copy.deepcopy(dle)
    cost["training"]["dlrm"]["emb_placement"] = "cost_balanced"
    assert _samples_per_s(cost) > 1.5 * _samples_per_s(dle)


def test_dlrm_facts_do_not_touch_other_cases():
    c = dlrm_case("mlperf-v2.0-NVIDIA-dgxa100_ngc22.04_merlin_hugectr-dlrm")
    assert "training" not in apply_software({**c, "precision": "tf32"})  # the fact is for fp16 runs
    assert "training" not in apply_software({**c, "source": "Some other DLRM paper"})
