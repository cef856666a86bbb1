"""Importing MAD-Max configurations (``dse import-madmax``, :mod:`dse.madmax`).

The MAD-Max JSON files are generated from the tables in ``../shared/madmax/`` (one file per CSV
row, empty cells dropped); a few of them are committed in ``tests/data/madmax/`` so the unit and
CLI tests run without the shared folder.
"""

import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import yaml

import dse
from dse.errors import InputError
from dse.hardware import resolve_hardware
from dse.madmax import closest_gpu, import_madmax, read_triplet, scenario_yaml, search_scenario, to_scenario
from dse.scenario import load_scenario, scenario_from_dict
from dse.workloads import supported

FIXTURES = Path(__file__).parent / "data" / "madmax"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "madmax"
DSE = Path(sys.executable).parent / "dse"

LLAMA7B = FIXTURES / "model_cfgs/llm/llama_7b.json"
GPT4 = FIXTURES / "model_cfgs/llm_moe/gpt4_1.8t.json"
VIT_L = FIXTURES / "model_cfgs/vit/vit_l.json"
DLRM_A_SMALL = FIXTURES / "model_cfgs/dlrm/dlrm_a_small.json"
ZIONEX_8 = FIXTURES / "system_cfgs/zionex/zionex_8.json"
ZIONEX_128 = FIXTURES / "system_cfgs/zionex/zionex_128.json"
H100_64 = FIXTURES / "system_cfgs/cloud_A/cloud_A_h100.80_64.json"
LLM_TRAIN = FIXTURES / "task_cfgs/llm/llm_train.json"
LLM_INFERENCE = FIXTURES / "task_cfgs/llm/llm_inference.json"
VIT_TRAIN = FIXTURES / "task_cfgs/vit/vit_train.json"
DLRM_TRAIN = FIXTURES / "task_cfgs/dlrm/dlrm_train.json"

needs_shared = pytest.mark.skipif(not (SHARED / "models.csv").exists(), reason="../shared/madmax not present")


# ------------------------------------------------------------------------------ helpers
def csv_configs(folder=SHARED):
    """{table: {MAD-Max path: config dict}} from the CSV tables, empty cells dropped."""
    from dse.madmax import csv_configs as read

    return read(folder)


def write_json(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2))
    return path


def load(path):
    return json.loads(Path(path).read_text())


def family(model_type):
    return "LLM" if model_type.startswith("LLM") else ("ViT" if model_type == "ViT" else "DLRM")


def task_family(path):
    folder = path.split("/")[1]
    return {"llm": "LLM", "llm_moe": "LLM", "vit": "ViT"}.get(folder, "DLRM")


def task_gpus(task):
    key = "mlp_parallel_degree" if "mlp_parallel_degree" in task else "transformer_parallel_degree"
    return math.prod(task[key])


def run(*args):
    if not DSE.exists():
        pytest.fail(f"console script {DSE} not found: install the package (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS", "TTY_COMPATIBLE")}
    env.update(NO_COLOR="1", TERM="dumb")
    return subprocess.run([str(DSE), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


# ------------------------------------------------------------------------------ reading
@needs_shared
def test_committed_fixtures_are_the_csv_rows():
    tables = csv_configs()
    rows = {path: cfg for table in tables.values() for path, cfg in table.items()}
    files = sorted(FIXTURES.rglob("*.json"))
    assert len(files) >= 10
    for file in files:
        assert load(file) == rows[str(file.relative_to(FIXTURES))], file


def test_read_triplet_ignores_unknown_keys(tmp_path):
    system = write_json(tmp_path / "sys.json", {**load(ZIONEX_8), "rack": "r12", "notes": [1, 2]})
    model, sysd, task = read_triplet(LLAMA7B, system, LLM_TRAIN)
    assert "rack" not in sysd and sysd["num_devices"] == 8
    assert model["type"] == "LLM" and task["transformer_parallel"] == ["fsdp"]


def test_wrong_type_in_system_file_names_file_and_field(tmp_path):
    system = write_json(tmp_path / "bad_system.json", {**load(ZIONEX_8), "num_devices": "8"})
    with pytest.raises(InputError) as info:
        read_triplet(LLAMA7B, system, LLM_TRAIN)
    text = str(info.value)
    assert str(system) in text and "num_devices" in text and "not a string" in text
    system = write_json(tmp_path / "bad_util.json", {**load(ZIONEX_8), "nvlink_util": 1.5})
    with pytest.raises(InputError, match="nvlink_util"):
        import_madmax(LLAMA7B, system, LLM_TRAIN)


def test_missing_model_key_names_the_field(tmp_path):
    model = load(LLAMA7B)
    del model["attention_dim"]
    with pytest.raises(InputError, match=r"attention_dim: required field is missing \(a LLM model needs it\)"):
        import_madmax(write_json(tmp_path / "m.json", model), ZIONEX_8, LLM_TRAIN)


# ------------------------------------------------------------------------------ mapping
def test_llm_pretrain_mapping():
    scenario, notes = import_madmax(LLAMA7B, ZIONEX_128, LLM_TRAIN)
    m = scenario["model"]
    assert m == {"name": "LLaMA_7B", "family": "dense", "layers": 32, "hidden": 4096, "heads": 32,
                 "kv_heads": 32, "ffn_hidden": 10924, "ffn_act": "gelu", "vocab": 50257, "seq_len": 2048,
                 "tied_embeddings": True}
    assert scenario["workload"] == "train" and scenario["precision"] == "fp16"
    cl = scenario["cluster"]
    assert cl["gpu"] == "A100-SXM-40GB" and cl["num_gpus"] == 128 and cl["gpus_per_node"] == 8
    assert cl["peak_tflops"] == {"fp16": 312.0, "bf16": 312.0}
    assert cl["efficiency"]["matmul"] == 0.705 and cl["efficiency"]["hbm"] == 0.836
    # llm_train is fsdp over 2048 GPUs: fitted to the system's 128, with a note
    p = scenario["parallel"]
    assert (p["tp"], p["dp"], p["zero"], p["microbatch"], p["global_batch"]) == (1, 128, 3, 1, 128)
    assert any("[2048] multiplies to 2048 GPUs but the system has 128" in n for n in notes)
    assert any("MAD-Max itself would reject" in n for n in notes)
    with pytest.raises(InputError) as info:
        import_madmax(LLAMA7B, ZIONEX_128, LLM_TRAIN, strict=True)
    assert str(LLM_TRAIN) in str(info.value) and "transformer_parallel_degree" in str(info.value)


def test_to_scenario_on_dicts_equals_the_file_import():
    scenario, _ = import_madmax(GPT4, ZIONEX_128, LLM_TRAIN)
    assert to_scenario(load(GPT4), load(ZIONEX_128), load(LLM_TRAIN)) == scenario
    assert scenario["model"]["moe"] == {"experts": 16, "top_k": 2, "expert_ffn_hidden": 42816}
    assert scenario["model"]["family"] == "moe"


def test_non_integer_head_dim_is_rounded_with_a_note():
    scenario, notes = import_madmax(GPT4, ZIONEX_128, LLM_TRAIN)  # 10704 / 96 = 111.5
    assert scenario["model"]["head_dim"] == 112
    assert any("head_dim = 112" in n and "+0.45%" in n for n in notes)
    scenario_from_dict(scenario)


def test_llm_inference_mapping_and_ffn_padding():
    scenario, notes = import_madmax(LLAMA7B, ZIONEX_128, LLM_INFERENCE)
    assert scenario["workload"] == "inference"
    assert scenario["inference"] == {"input_len": 2048, "output_len": 1, "batch": 16,
                                     "mode": "offline_max_throughput"}
    p = scenario["parallel"]  # [tp 16, ddp 128] fitted to 128 GPUs: tp 16, dp 8
    assert (p["tp"], p["dp"], p["sp"]) == (16, 8, False)
    # serving takes its batch from the inference block: no training options in the plan
    assert not {"zero", "microbatch", "global_batch", "recompute", "vpp"} & set(p)
    assert scenario["model"]["ffn_hidden"] == 10928  # 10924 padded to a multiple of tp 16
    assert any("ffn_hidden = 10928" in n for n in notes)
    assert any("one node (8 GPUs) or the whole cluster" in n for n in notes)


def test_llm_finetune_mapping(tmp_path):
    task = {**load(LLM_TRAIN), "name": "llm_finetune", "type": "finetune", "freeze_emb": True,
            "freeze_transformer": False, "min_frozen_layer": 24}
    scenario, notes = import_madmax(LLAMA7B, ZIONEX_128, write_json(tmp_path / "ft.json", task))
    assert scenario["workload"] == "finetune"
    assert scenario["finetune"] == {"freeze_embeddings": True, "frozen_layers": 8}
    assert any("top ones (index >= min_frozen_layer)" in n for n in notes)
    task["freeze_transformer"] = True
    scenario, _ = import_madmax(LLAMA7B, ZIONEX_128, write_json(tmp_path / "ft2.json", task))
    assert scenario["finetune"]["frozen_layers"] == 32
    assert scenario_from_dict(scenario).finetune.frozen_layers == 32
    row = dse.evaluate(scenario).iloc[0]
    assert row["feasible"] or row["infeasible_reason"]


def test_dlrm_finetune_mapping(tmp_path):
    task = {**load(DLRM_TRAIN), "type": "finetune", "freeze_emb": True, "freeze_bot_mlp": True}
    scenario, notes = import_madmax(DLRM_A_SMALL, ZIONEX_128, write_json(tmp_path / "ft.json", task))
    assert scenario["workload"] == "finetune"
    assert scenario["finetune"] == {"freeze_embeddings": True, "freeze_bottom_mlp": True, "freeze_top_mlp": False}
    assert any("freeze_top_mlp not given: false" in n for n in notes)
    task["freeze_top_mlp"] = True  # everything frozen: MAD-Max asserts against it
    with pytest.raises(InputError, match="every component is frozen"):
        import_madmax(DLRM_A_SMALL, ZIONEX_128, write_json(tmp_path / "ft2.json", task), strict=True)


def test_search_space_fixed_parts():
    fixed, notes = search_scenario(*(p.relative_to(FIXTURES) for p in (LLAMA7B, ZIONEX_128, LLM_TRAIN)),
                                   base=FIXTURES)
    assert "parallel" not in fixed and "num_gpus" not in fixed["cluster"]
    assert fixed["cluster"]["gpus_per_node"] == 8 and fixed["model"]["name"] == "LLaMA_7B"


def test_vit_mapping():
    scenario, _ = import_madmax(VIT_L, ZIONEX_128, VIT_TRAIN)
    assert scenario["model"] == {"name": "ViT_L", "family": "vit", "layers": 24, "hidden": 1024, "heads": 16,
                                 "ffn_hidden": 4096, "patch": 16, "image_size": 224}
    p = scenario["parallel"]
    assert (p["dp"], p["zero"], p["microbatch"], p["global_batch"]) == (128, 3, 16, 2048)
    assert scenario_from_dict(scenario).kind == "vit_train"


def test_dlrm_mapping(tmp_path):
    scenario, notes = import_madmax(DLRM_A_SMALL, ZIONEX_128, DLRM_TRAIN)
    m = scenario["model"]
    assert m["family"] == "dlrm" and m["tables"] == {"count": 4096, "rows": 130000, "dim": 94, "pooling": 15.0}
    assert m["bottom_mlp"] == [3994] * 10 and m["top_mlp"] == [3994] * 10 and m["dense_features"] == 3994
    assert m["interaction"] == "concat"  # MAD-Max's DLRM has no interaction
    # f32_flops 156 TFLOP/s is the A100's TF32 tensor-core rate: 4-byte values at TF32 math, so the
    # power model counts tensor-core work at that rate (as fp32 it was 8x the CUDA-core peak)
    assert scenario["precision"] == "tf32"
    assert scenario["cluster"]["peak_tflops"]["tf32"] == 156.0 and "fp32" not in scenario["cluster"]["peak_tflops"]
    assert scenario["cluster"]["efficiency"]["gather"] == scenario["cluster"]["efficiency"]["hbm"] == 0.836
    row = dse.evaluate(scenario).iloc[0]
    assert row["power_per_gpu_w"] < 0.9 * 400.0  # the A100's 400 W TDP: a communication-bound step
    # bytes_per_emb_param 2: FP16 tables
    assert scenario["training"] == {"grad_reduce_bytes": 4, "dlrm": {"emb_dtype": "fp16"}}
    assert any("training.dlrm.emb_dtype = fp16" in n for n in notes)
    p = scenario["parallel"]
    assert (p["dp"], p["zero"], p["emb_sharding"], p["microbatch"], p["global_batch"]) == (128, 3, "table", 512, 65536)
    assert any("no dense-feature count" in n for n in notes)
    # DLRM_MoE with [tp, ddp] and a 2-level [ddp, mp] embedding plan
    model = {**load(DLRM_A_SMALL), "type": "DLRM_MoE", "num_experts": 16, "num_active_experts": 2}
    task = {**load(DLRM_TRAIN), "mlp_parallel": ["tp", "ddp"], "mlp_parallel_degree": [8, 16],
            "emb_parallel": ["ddp", "mp"], "emb_parallel_degree": [8, 16], "local_mlp_bs": 4096, "local_emb_bs": 8192}
    scenario, notes = import_madmax(write_json(tmp_path / "m.json", model), ZIONEX_128,
                                    write_json(tmp_path / "t.json", task), strict=True)
    p = scenario["parallel"]
    assert (p["tp"], p["dp"], p["emb_sharding"], p["global_batch"]) == (8, 16, "hier_auto", 65536)
    assert scenario["model"]["moe"] == {"experts": 16, "top_k": 2}


def test_yaml_round_trip_keeps_the_scenario():
    scenario, notes = import_madmax(GPT4, H100_64, LLM_TRAIN)
    text = scenario_yaml(scenario, notes, sources=(GPT4, H100_64, LLM_TRAIN))
    head = text.split("\nname:")[0]
    assert all(line.startswith("#") for line in head.splitlines())
    assert yaml.safe_load(text) == scenario
    assert scenario_from_dict(yaml.safe_load(text)) == scenario_from_dict(scenario)


# ------------------------------------------------------------------------------ hardware meaning
def _assert_madmax_bandwidths(system, scenario):
    spec = scenario_from_dict(scenario)
    hw = resolve_hardware(spec.cluster, spec.precision)
    gpn = system["num_devices"] // system["num_nodes"]
    intra = system["num_nvlinks"] * system["bw_per_nvlink"] / 2 * system["nvlink_util"]
    inter = system["num_ibroce_ports"] * system["ibroce_bw"] / 2 * system["ibroce_util"] / gpn
    assert hw.nvlink_bw * hw.eff_nvlink == pytest.approx(intra, rel=1e-9)
    assert hw.scaleout_bw * hw.eff_scaleout == pytest.approx(inter, rel=1e-9)
    assert hw.hbm_bw * hw.eff_hbm == pytest.approx(system["mem_bw"] * system["mem_bw_util"], rel=1e-9)
    assert hw.hbm_bytes == pytest.approx(system["mem_cap"], rel=1e-9)
    assert hw.peak_flops * hw.eff_matmul == pytest.approx(system["f16_flops"] * system["flops_util"], rel=1e-9)
    assert hw.peak_flops_16 == pytest.approx(system["f16_flops"], rel=1e-9)
    assert hw.matmul_k_half == 0 and hw.eff_attention == system["flops_util"]
    assert (hw.gpus_per_node, hw.nvlink_domain) == (gpn, gpn)


def test_effective_bandwidths_are_madmax_formulas():
    for system in (ZIONEX_8, ZIONEX_128, H100_64):
        scenario, _ = import_madmax(LLAMA7B, system, LLM_TRAIN)
        _assert_madmax_bandwidths(load(system), scenario)


@needs_shared
def test_effective_bandwidths_of_every_system(tmp_path):
    tables = csv_configs()
    model, task = load(LLAMA7B), load(LLM_TRAIN)
    for path, system in tables["systems"].items():
        _assert_madmax_bandwidths(system, to_scenario(model, system, task))


@needs_shared
def test_closest_gpu_presets():
    systems = csv_configs()["systems"]
    expect = {
        "system_cfgs/cloud_A/cloud_A_h100.80_64.json": "H100-SXM-80GB",      # PCIe peaks, 18 NVLinks
        "system_cfgs/cloud_A/cloud_A_a100.80_64.json": "A100-SXM-80GB",
        "system_cfgs/cloud_A/cloud_A_v100.16_512.json": "V100-SXM2-16GB",
        "system_cfgs/cloud_A/cloud_A_v100.32_256.json": "V100-SXM2-32GB",
        "system_cfgs/cloud_B/cloud_B_a100.80_64.json": "A100-PCIe-80GB",     # NC A100 v4: no NVLink
        "system_cfgs/cloud_B/cloud_B_v100.16_512.json": "V100-SXM2-16GB",
        "system_cfgs/zionex/zionex_128.json": "A100-SXM-40GB",
        "system_cfgs/dc_A/dc_A_128.json": "A100-SXM-40GB",
    }
    for path, gpu in expect.items():
        assert closest_gpu(systems[path]) == gpu, path


# ------------------------------------------------------------------------------ what dse cannot express
@pytest.mark.parametrize("change, field, needle", [
    ({"emb_parallel": ["mp"]}, "emb_parallel", "model-parallel (all-to-all) LLM embedding"),
    ({"transformer_parallel": ["ddp", "tp"], "transformer_parallel_degree": [8, 16]}, "transformer_parallel",
     "order of levels"),
    ({"transformer_parallel": ["fsdp", "ddp"], "transformer_parallel_degree": [8, 16]}, "transformer_parallel",
     "hybrid sharding"),
    ({"transformer_parallel": ["zero2"]}, "transformer_parallel", "unknown strategy 'zero2'"),
    ({"transformer_parallel": ["tp", "ddp"], "transformer_parallel_degree": [16]}, "transformer_parallel_degree",
     "one degree per strategy"),
])
def test_unsupported_llm_strategies(tmp_path, change, field, needle):
    task = write_json(tmp_path / "task.json", {**load(LLM_TRAIN), **change})
    with pytest.raises(InputError) as info:
        import_madmax(LLAMA7B, ZIONEX_128, task)
    err = info.value
    assert err.source == str(task) and err.problems[0].field == field
    assert needle in str(err)
    if "degree" not in field:
        assert "supported" in str(err)


def test_two_level_embedding_plans_and_fp64(tmp_path):
    task = write_json(tmp_path / "task.json", {**load(DLRM_TRAIN), "emb_parallel": ["mp", "ddp"],
                                               "emb_parallel_degree": [8, 16]})
    scenario, notes = import_madmax(DLRM_A_SMALL, ZIONEX_128, task)  # MAD-Max's 2D sharding
    assert scenario["parallel"]["emb_sharding"] == "node_sharded"
    assert any("sharded inside a node, every node a replica" in n for n in notes)
    bad = write_json(tmp_path / "bad.json", {**load(DLRM_TRAIN), "emb_parallel": ["mp", "mp"],
                                             "emb_parallel_degree": [8, 16]})
    with pytest.raises(InputError, match=r"\[mp, ddp\] \(node_sharded\)"):
        import_madmax(DLRM_A_SMALL, ZIONEX_128, bad)
    model = write_json(tmp_path / "fp64.json", {**load(LLAMA7B), "bytes_per_nonemb_param": 8})
    with pytest.raises(InputError, match="no FP64 precision") as info:
        import_madmax(model, ZIONEX_128, LLM_TRAIN)
    assert info.value.source == str(model)


def test_int8_model_runs_as_fp8_at_the_int8_rate(tmp_path):
    model = write_json(tmp_path / "int8.json", {**load(LLAMA7B), "bytes_per_nonemb_param": 1})
    scenario, notes = import_madmax(model, ZIONEX_128, LLM_TRAIN)  # A100: no FP8 in the preset
    assert scenario["precision"] == "fp8" and scenario["cluster"]["peak_tflops"]["fp8"] == 624.0
    assert scenario["cluster"]["efficiency"]["matmul_fp8"] == 0.705
    spec = scenario_from_dict(scenario)
    hw = resolve_hardware(spec.cluster, spec.precision)
    assert hw.peak_flops * hw.eff_matmul == pytest.approx(624e12 * 0.705)
    assert any("dse has no INT8 format" in n for n in notes)


def test_degrees_that_cannot_fit_the_system():
    with pytest.raises(InputError, match=r"inner levels \[16\] \(16 GPUs\) do not divide 8"):
        import_madmax(LLAMA7B, ZIONEX_8, LLM_INFERENCE)


# ------------------------------------------------------------------------------ CLI
def test_cli_prints_and_writes_the_scenario(tmp_path):
    result = run("import-madmax", VIT_L, ZIONEX_128, VIT_TRAIN)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# dse scenario imported from a MAD-Max configuration")
    expected, notes = import_madmax(VIT_L, ZIONEX_128, VIT_TRAIN)
    assert yaml.safe_load(result.stdout) == expected
    assert all(f"# - {n.split()[0]}" in result.stdout for n in notes)
    out = tmp_path / "sub" / "vit.yaml"
    result = run("import-madmax", VIT_L, ZIONEX_128, VIT_TRAIN, "--out", out)
    assert result.returncode == 0 and f"wrote {out}" in result.stdout
    assert load_scenario(out) == scenario_from_dict(expected)


def test_cli_unsupported_strategy_exits_2_without_traceback(tmp_path):
    task = write_json(tmp_path / "emb_mp.json", {**load(LLM_TRAIN), "emb_parallel": ["mp"]})
    result = run("import-madmax", LLAMA7B, ZIONEX_128, task)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout and result.stdout == ""
    assert str(task) in result.stderr and "emb_parallel" in result.stderr and "supported: ddp" in result.stderr
    system = write_json(tmp_path / "sys.json", {**load(ZIONEX_8), "mem_bw": "1.555e12"})
    result = run("import-madmax", LLAMA7B, system, LLM_TRAIN)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert str(system) in result.stderr and "mem_bw" in result.stderr
    result = run("import-madmax", LLAMA7B, ZIONEX_128, LLM_TRAIN, "--strict")
    assert result.returncode == 2 and "transformer_parallel_degree" in result.stderr


# ------------------------------------------------------------------------------ every shipped configuration
@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """Import a broad set of triplets generated from the CSV tables and evaluate the kinds dse
    models: every model x every task of its family (LLM, ViT, DLRM) x every system whose GPU
    count the task's degrees name (for the 4096-table DLRMs, two of them) plus one other system;
    and every system with some model. Each triplet is imported without and with ``strict``.
    Every LLM and ViT triplet of an evaluable kind is evaluated; DLRM ones (slow to evaluate)
    once per model and task (4096-table models: once per model), consistent triplets first."""
    root = tmp_path_factory.mktemp("madmax")
    tables = csv_configs()
    for configs in tables.values():
        for path, cfg in configs.items():
            write_json(root / path, cfg)
    models, systems, tasks = (list(tables[k].items()) for k in ("models", "systems", "tasks"))
    triplets = set()
    for i, (mpath, model) in enumerate(models):
        fam = family(model["type"])
        for j, (tpath, task) in enumerate(tasks):
            if task_family(tpath) != fam:
                continue
            fits = [spath for spath, system in systems if system["num_devices"] == task_gpus(task)]
            others = [spath for spath, system in systems if system["num_devices"] != task_gpus(task)]
            if model.get("num_tables", 0) > 1000:
                fits = [fits[(i + j + n) % len(fits)] for n in range(2)] if fits else []
            triplets.update((mpath, spath, tpath) for spath in fits + [others[(7 * i + j) % len(others)]])
    for k, (spath, _) in enumerate(systems):
        mpath, model = models[k % len(models)]
        family_tasks = [t for t, _ in tasks if task_family(t) == family(model["type"])]
        triplets.add((mpath, spath, family_tasks[k % len(family_tasks)]))
    out = {"triplets": sorted(triplets), "imported": {}, "strict": {}, "errors": {}}
    read = {}
    specs = {}
    for trip in out["triplets"]:
        key = tuple(root / p for p in trip)
        try:
            if key not in read:
                read[key] = read_triplet(*key)
            scenario = to_scenario(*read[key])
            specs[trip] = scenario_from_dict(scenario)  # what import_madmax checks
            out["imported"][trip] = scenario
        except InputError as err:
            out["errors"][trip] = str(err)
            continue
        try:
            out["strict"][trip] = to_scenario(*read[key], strict=True)
        except InputError:
            pass
    evaluable, seen = [], set()
    for trip in sorted(specs, key=lambda t: t not in out["strict"]):  # consistent triplets first
        spec = specs[trip]
        if not supported(spec.kind):
            continue
        if spec.kind.startswith("dlrm"):  # DLRM evaluation is slow: one per model and task
            key = (trip[0],) if len(spec.model.tables) > 1000 else (trip[0], trip[2])
            if key in seen:
                continue
            seen.add(key)
        evaluable.append(trip)
    frame = dse.evaluate([specs[t] for t in evaluable])
    out["evaluated"] = dict(zip(evaluable, frame.to_dict("records")))
    out["kinds"] = Counter(spec.kind for spec in specs.values())
    out["specs"] = specs
    out["tables"] = tables
    return out


@needs_shared
def test_every_shipped_configuration_imports(sweep):
    tables, imported = sweep["tables"], sweep["imported"]
    models = {t[0] for t in imported}
    systems = {t[1] for t in imported}
    tasks = {t[2] for t in imported}
    assert models == set(tables["models"]), set(tables["models"]) - models
    assert systems == set(tables["systems"]), set(tables["systems"]) - systems
    assert tasks == set(tables["tasks"]), set(tables["tasks"]) - tasks
    # every internally consistent triplet (MAD-Max would run it) imports the same way without --strict
    assert sweep["strict"], "no internally consistent triplet"
    for trip, scenario in sweep["strict"].items():
        assert imported[trip] == scenario, trip
    # the only lenient failures are task degrees that cannot be fitted to a smaller system
    for trip, message in sweep["errors"].items():
        assert "cannot be fitted" in message, (trip, message)
    consistent_tasks = {t[2] for t in sweep["strict"]}
    assert "task_cfgs/llm/llm_train.json" in consistent_tasks and "task_cfgs/vit/vit_train.json" in consistent_tasks
    print(f"\nMAD-Max triplets: {len(sweep['triplets'])} tried, {len(imported)} import "
          f"({len(sweep['strict'])} internally consistent), {len(sweep['errors'])} rejected, "
          f"{len(sweep['evaluated'])} evaluated; kinds {dict(sweep['kinds'])}")


@needs_shared
def test_imported_configurations_evaluate(sweep):
    evaluated = sweep["evaluated"]
    assert any(trip[0].startswith("model_cfgs/llm/") for trip in evaluated)
    for trip, row in evaluated.items():
        assert isinstance(row["feasible"], bool), trip
        if row["feasible"]:
            assert row["iteration_time_s"] > 0, trip
        else:
            assert row["infeasible_reason"], trip
    # every internally consistent LLM/ViT triplet of an evaluable kind was evaluated
    for trip in sweep["strict"]:
        kind = sweep["specs"][trip].kind
        if supported(kind) and not kind.startswith("dlrm"):
            assert trip in evaluated, trip
    assert sum(row["feasible"] for row in evaluated.values()) > 0
    # the importer writes a batch that agrees with its plan: no triplet fails on that
    for trip, row in evaluated.items():
        assert "global_batch" not in str(row["infeasible_reason"]), (trip, row["infeasible_reason"])
    moe = [t for t in sweep["strict"] if t[2] == "task_cfgs/dlrm_moe/dlrm_moe_train.json"]
    assert moe, "the DLRM-MoE task (tp 8 x ddp 16) imports"
    plan = sweep["imported"][moe[0]]["parallel"]  # local_mlp_bs 4096 per tp group of 8
    assert (plan["tp"], plan["microbatch"], plan["global_batch"]) == (8, 512, 65536)


def test_cloud_systems_take_their_providers_price(tmp_path):
    """A system named Cloud<X>-... gets its provider's price per GPU-hour for its GPU and instance
    size from MAD-Max's cloud_prices.csv (Cloud_C's a2-highgpu-8g A100-40GB: 3.67375 USD, where the
    A100-40GB preset's is Cloud_A's p4d 4.0975); ZionEX keeps the preset's."""
    system = {**load(ZIONEX_128), "name": "CloudC-128-a2-highgpu-8g"}
    scenario, notes = import_madmax(DLRM_A_SMALL, write_json(tmp_path / "c.json", system), DLRM_TRAIN)
    assert scenario["cluster"]["price_per_gpu_hour"] == 3.67375
    assert any("Cloud_C's price" in n for n in notes)
    scenario, _ = import_madmax(DLRM_A_SMALL, write_json(tmp_path / "c16.json", {
        **system, "name": "CloudC-128-a2-megagpu-16g", "num_nodes": 8}), DLRM_TRAIN)
    assert scenario["cluster"]["price_per_gpu_hour"] == 3.48375
    scenario, _ = import_madmax(DLRM_A_SMALL, ZIONEX_128, DLRM_TRAIN)
    assert "price_per_gpu_hour" not in scenario["cluster"]
