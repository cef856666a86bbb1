"""Checks of the shipped preset files dse/data/gpus.yaml and dse/data/models.yaml."""

import importlib.resources
import json
import math
from pathlib import Path

import pytest
import yaml

GPU_KEYS = {
    "aliases", "family", "peak_tflops", "hbm_gb", "hbm_tbps", "nvlink_gbps", "nvlink_domain",
    "gpus_per_node", "scaleout_gbitps", "host_link_gbps", "host_memory_gb", "exp_tera_per_s", "power_w", "price_per_gpu_hour", "sources",
    "l2_mb",
}
#: optional keys: a domain that is not switched (a full mesh of direct links); calibration keys a
#: GPU measures apart from its family
GPU_OPTIONAL_KEYS = {"nvlink_topology", "efficiency"}
PEAK_KEYS = {"fp32", "tf32", "fp16", "bf16", "fp8", "fp4"}
GPU_FAMILIES = {"volta", "ampere", "ada", "hopper", "blackwell", "blackwell_rtx", "tpu", "cdna3", "cdna4"}
MODEL_KEYS = {
    "aliases", "name", "family", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden",
    "ffn_act", "vocab", "seq_len", "moe", "source",
}
#: optional keys of models with local attention
WINDOW_KEYS = {"attention_window", "attention_window_kind", "full_attention_every"}
MOE_KEYS = {"experts", "top_k", "expert_ffn_hidden", "shared_experts", "dense_layers"}
MODEL_FAMILIES = {"dense", "moe"}
FFN_ACTS = {"gelu", "swiglu"}
COMPARED_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab")

LLM_JSONL = Path(__file__).resolve().parents[3] / "shared" / "validation" / "llm.jsonl"


def _load(name):
    text = (importlib.resources.files("dse") / "data" / name).read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert isinstance(data, dict) and data, f"{name}: expected a non-empty top-level mapping"
    return data


@pytest.fixture(scope="module")
def gpus():
    return _load("gpus.yaml")


@pytest.fixture(scope="module")
def models():
    return _load("models.yaml")


def _is_pos_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x > 0


def _is_pos_int(x):
    return isinstance(x, int) and not isinstance(x, bool) and x > 0


def _is_nonneg_int(x):
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _lookup_table(presets):
    """Map every lower-cased id and alias to its preset id; fail on any collision."""
    table = {}
    for pid, entry in presets.items():
        aliases = entry["aliases"]
        assert isinstance(aliases, list), f"{pid}: aliases must be a list"
        for name in [pid, *aliases]:
            assert isinstance(name, str) and name.strip() == name and name, f"{pid}: bad alias {name!r}"
            key = name.lower()
            assert key not in table, f"{name!r} ({pid}) collides with an id or alias of {table[key]}"
            table[key] = pid
    return table


def _llm_cases():
    if not LLM_JSONL.exists():
        pytest.skip(f"{LLM_JSONL} not present")
    with LLM_JSONL.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------------------------------- GPUs

def test_gpu_entries_have_exactly_the_schema_keys(gpus):
    for name, entry in gpus.items():
        assert isinstance(entry, dict), name
        keys = set(entry) - GPU_OPTIONAL_KEYS
        assert keys == GPU_KEYS, f"{name}: keys differ by {keys ^ GPU_KEYS}"
        assert entry.get("nvlink_topology", "switch") in ("switch", "mesh"), name
        assert set(entry["peak_tflops"]) == PEAK_KEYS, f"{name}: peak_tflops keys {set(entry['peak_tflops'])}"


def test_gpu_figures_are_positive_and_finite(gpus):
    for name, e in gpus.items():
        assert e["family"] in GPU_FAMILIES, f"{name}: family {e['family']!r}"
        for fmt, v in e["peak_tflops"].items():
            assert v is None or _is_pos_number(v), f"{name}: peak_tflops.{fmt} = {v!r}"
        # every GPU has FP32 and FP16 peaks, only the newer formats may be missing; a TPU has
        # bf16 matrix units only (no published FP32 or FP16 peak)
        if e["family"] == "tpu":
            assert e["peak_tflops"]["bf16"] is not None and e["peak_tflops"]["fp16"] is None, name
        else:
            assert e["peak_tflops"]["fp32"] is not None and e["peak_tflops"]["fp16"] is not None, name
        for key in ("hbm_gb", "hbm_tbps", "nvlink_gbps", "scaleout_gbitps", "host_link_gbps", "exp_tera_per_s", "power_w"):
            assert _is_pos_number(e[key]), f"{name}: {key} = {e[key]!r}"
        for key in ("nvlink_domain", "gpus_per_node"):
            assert _is_pos_int(e[key]), f"{name}: {key} = {e[key]!r}"
        price = e["price_per_gpu_hour"]
        assert price is None or _is_pos_number(price), f"{name}: price_per_gpu_hour = {price!r}"
        host = e["host_memory_gb"]
        assert host is None or _is_pos_number(host), f"{name}: host_memory_gb = {host!r}"
        l2 = e["l2_mb"]
        assert l2 is None or _is_pos_number(l2), f"{name}: l2_mb = {l2!r}"
        assert (l2 is None) == (e["family"] == "tpu"), f"{name}: every GPU has an L2 figure, a TPU none"
        assert isinstance(e["sources"], str) and e["sources"].strip(), f"{name}: sources"


def test_gpu_figures_are_plausible(gpus):
    for name, e in gpus.items():
        p = e["peak_tflops"]
        if e["family"] == "tpu":  # bf16 matrix units only: nothing below to compare
            assert all(p[f] is None for f in ("fp32", "tf32", "fp16", "fp8", "fp4")), name
            continue
        # tensor-core peaks rise as precision falls; FP32 (CUDA cores) is below the 16-bit tensor peak
        assert p["fp32"] < p["fp16"], name
        if p["bf16"] is not None:
            assert p["bf16"] == p["fp16"], name
        if p["fp8"] is not None:
            assert p["fp8"] >= p["fp16"], name
        if p["fp4"] is not None:
            assert p["fp8"] is not None and p["fp4"] >= p["fp8"], name
        if p["tf32"] is not None:
            assert p["tf32"] < p["fp16"], name
        assert e["hbm_gb"] < 1000 and e["hbm_tbps"] < 100, name  # catch unit mix-ups (MB, GB/s)
        # 1 (PCIe), a bridge of 2 or 4 cards, or at least the server (HGX, NVL72)
        assert e["nvlink_domain"] in (1, 2, 4) or e["nvlink_domain"] >= e["gpus_per_node"], name


def test_gpu_aliases_are_unique(gpus):
    _lookup_table(gpus)


def test_every_llm_jsonl_gpu_is_a_preset(gpus):
    cases = _llm_cases()
    missing = sorted({c["cluster"]["gpu"] for c in cases} - set(gpus))
    assert not missing, f"GPUs named in llm.jsonl without a gpus.yaml entry: {missing}"


def test_every_canonical_gpu_of_the_shared_datasheet_is_a_preset(gpus):
    """../shared/validation/gpus.md lists the canonical GPU names a validation case may use."""
    sheet = LLM_JSONL.parent / "gpus.md"
    if not sheet.exists():
        pytest.skip(f"{sheet} not present")
    rows = [ln.split("|")[1].strip() for ln in sheet.read_text(encoding="utf-8").splitlines()
            if ln.startswith("| ") and not ln.startswith("| GPU ")]
    assert len(rows) >= 10, rows
    missing = sorted(set(rows) - set(gpus))
    assert not missing, f"GPUs of gpus.md without a gpus.yaml entry: {missing}"


# -------------------------------------------------------------------------------------- models

def test_model_entries_have_exactly_the_schema_keys(models):
    for pid, entry in models.items():
        assert isinstance(entry, dict), pid
        assert pid == pid.lower(), f"{pid}: ids are lowercase"
        keys = (set(entry) - (WINDOW_KEYS if "attention_window" in entry else set())
                - {"mla", "dropout", "tied_embeddings", "context_len"})
        assert keys == MODEL_KEYS, f"{pid}: keys differ by {keys ^ MODEL_KEYS}"
        if entry["moe"] is not None:
            assert set(entry["moe"]) - {"expert_groups", "top_groups", "router_skew"} == MOE_KEYS, f"{pid}: moe keys {set(entry['moe'])}"


def test_a_stated_context_window_is_a_whole_number_of_tokens_no_shorter_than_training(models):
    stated = {pid: m["context_len"] for pid, m in models.items() if "context_len" in m}
    assert len(stated) >= 15  # the released models'
    for pid, ctx in stated.items():
        assert isinstance(ctx, int) and ctx >= models[pid]["seq_len"], (pid, ctx)


def test_model_figures_are_valid(models):
    for pid, m in models.items():
        assert m["family"] in MODEL_FAMILIES, f"{pid}: family {m['family']!r}"
        assert m["ffn_act"] in FFN_ACTS, f"{pid}: ffn_act {m['ffn_act']!r}"
        for key in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len"):
            assert _is_pos_int(m[key]), f"{pid}: {key} = {m[key]!r}"
        assert m["head_dim"] is None or _is_pos_int(m["head_dim"]), f"{pid}: head_dim = {m['head_dim']!r}"
        assert isinstance(m["name"], str) and m["name"].strip(), f"{pid}: name"
        assert isinstance(m["source"], str) and m["source"].strip(), f"{pid}: source"
        if m["family"] == "moe":
            moe = m["moe"]
            assert moe is not None, f"{pid}: moe family needs a moe block"
            assert _is_pos_int(moe["experts"]) and _is_pos_int(moe["top_k"]), pid
            assert moe["top_k"] <= moe["experts"], pid
            assert _is_pos_int(moe["expert_ffn_hidden"]), pid
            assert _is_nonneg_int(moe["shared_experts"]) and _is_nonneg_int(moe["dense_layers"]), pid
            assert moe["dense_layers"] < m["layers"], pid
            if moe["dense_layers"] == 0:  # llm.jsonl convention: all-MoE models carry the expert size
                assert m["ffn_hidden"] == moe["expert_ffn_hidden"], pid
        else:
            assert m["moe"] is None, f"{pid}: dense model with a moe block"


def test_model_shapes_are_consistent(models):
    for pid, m in models.items():
        if m["head_dim"] is None:
            assert m["hidden"] % m["heads"] == 0, f"{pid}: hidden {m['hidden']} not divisible by heads {m['heads']}"
        assert m["heads"] % m["kv_heads"] == 0, f"{pid}: heads {m['heads']} not divisible by kv_heads {m['kv_heads']}"


def test_model_aliases_are_unique_and_names_resolve(models):
    table = _lookup_table(models)
    for pid, m in models.items():
        assert table.get(m["name"].lower()) == pid, f"{pid}: its name {m['name']!r} is not an id or alias of it"


def test_every_llm_jsonl_model_resolves_to_a_matching_preset(models):
    cases = _llm_cases()
    table = _lookup_table(models)
    seen = {}
    for case in cases:
        seen.setdefault(case["model"]["name"], case["model"])
    problems = []
    for name, jm in seen.items():
        pid = table.get(name.lower())
        if pid is None:
            problems.append(f"{name!r}: no preset id or alias")
            continue
        pm = models[pid]
        for key in COMPARED_FIELDS:
            if pm[key] != jm[key]:
                problems.append(f"{name!r} -> {pid}: {key} {pm[key]} != {jm[key]} in llm.jsonl")
    assert not problems, "\n".join(problems)
