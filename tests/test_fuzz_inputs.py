"""Property-based fuzzing of the input loaders (scenarios, search spaces, validation cases, MAD-Max).

Each test takes a valid shipped document and mutates it: a random leaf (at a random dotted path)
is replaced by a hostile value (wrong type, zero, negative, NaN, infinite, huge, ...), a key is
deleted, an unknown key is added at some level, or a parallel degree is set to a value that does
not divide. For every mutated document the loader must either succeed -- and then the cost model
returns only finite numbers, or marks the row infeasible with a reason -- or raise
:class:`dse.errors.InputError` whose message names a field. Any other exception is a bug.

Runs derandomized (reproducible in CI); ``pytest -s`` prints how many inputs each loader saw.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import dse
from dse.errors import InputError
from dse.madmax import read_triplet, to_scenario
from dse.scenario import scenario_from_dict
from dse.search.enumerate import plan_grid
from dse.search.space import space_from_dict
from dse.validate import validate_cases

ROOT = Path(__file__).resolve().parents[1]
MADMAX = ROOT / "tests" / "data" / "madmax"
VALIDATION = ROOT.parent / "shared" / "validation" / "llm.jsonl"
DSE = Path(sys.executable).parent / "dse"

FUZZ = settings(max_examples=400, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])

#: How many generated inputs each loader saw (printed by the last test).
COUNTS: Counter = Counter()
_names = itertools.count()

# ------------------------------------------------------------------------------ seed documents
SCENARIOS = {p.name: yaml.safe_load(p.read_text()) for p in sorted((ROOT / "scenarios").glob("*.yaml"))}
SPACE = yaml.safe_load((ROOT / "search_spaces" / "quickstart.yaml").read_text())
#: One space of each kind: LLM training, LLM serving, DLRM training.
SPACE_SEEDS = [SPACE] + [yaml.safe_load((ROOT / "search_spaces" / f"{name}.yaml").read_text())
                         for name in ("llama3_70b_serving_h100", "dlrm_a_p4d")]


def _case_lines() -> list[dict[str, Any]]:
    if VALIDATION.exists():
        lines = [json.loads(l) for l in VALIDATION.read_text().splitlines() if l.strip()]
        return lines[:3]
    # a stand-in (same shape as ../shared/validation/llm.jsonl) when the shared folder is absent
    return [{"id": "standin", "source": "fuzz", "workload": "train", "precision": "fp16",
             "model": {"name": "GPT-1.7B", "family": "dense", "layers": 24, "hidden": 2304, "heads": 24,
                       "kv_heads": 24, "head_dim": None, "ffn_hidden": 9216, "ffn_act": "gelu",
                       "vocab": 51200, "seq_len": 2048, "moe": None},
             "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 32, "gpus_per_node": 8},
             "parallel": {"tp": 1, "pp": 1, "dp": 32, "cp": 1, "ep": 1, "sp": False, "vpp": 1, "zero": 0,
                          "recompute": "full", "microbatch": 16, "global_batch": 512},
             "inference": None, "target": {"metric": "hardware_tflops_per_gpu", "value": 137.0}}]


CASES = _case_lines()
# a validation case is also a scenario (with an inline model): fuzz scenario_from_dict with it too
# and the cases with the newest model and engine keys: latent attention, group-limited routing and
# the deduplicated dispatch (DeepSeek-V3), local attention, weight-only quantization and
# window_scope (GPT-OSS serving), LoRA with FP8 weights, a ViT with its training facts, a
# multi-hot DCN-v2 DLRM
NEW_KEY_CASES = [json.loads((ROOT / "validation" / name).read_text().splitlines()[0])
                 for name in ("deepseek_v3_report.jsonl", "trtllm_windowed.jsonl", "mlperf_lora.jsonl",
                              "jax_toolbox_vit.jsonl", "mlperf_dcnv2.jsonl")]
SCENARIO_SEEDS = list(SCENARIOS.values()) + CASES[:1] + NEW_KEY_CASES


def _read(rel: str) -> dict[str, Any]:
    return json.loads((MADMAX / rel).read_text())


TRIPLETS = [
    ("model_cfgs/llm/llama_7b.json", "system_cfgs/cloud_A/cloud_A_h100.80_64.json", "task_cfgs/llm/llm_train.json"),
    ("model_cfgs/llm/llama_7b.json", "system_cfgs/zionex/zionex_128.json", "task_cfgs/llm/llm_train.json"),
    ("model_cfgs/llm_moe/gpt4_1.8t.json", "system_cfgs/zionex/zionex_128.json", "task_cfgs/llm/llm_train.json"),
    ("model_cfgs/vit/vit_l.json", "system_cfgs/zionex/zionex_128.json", "task_cfgs/vit/vit_train.json"),
    ("model_cfgs/dlrm/dlrm_a_small.json", "system_cfgs/zionex/zionex_128.json", "task_cfgs/dlrm/dlrm_train.json"),
    ("model_cfgs/llm/llama_7b.json", "system_cfgs/zionex/zionex_128.json", "task_cfgs/llm/llm_inference.json"),
]
TRIPLET_DOCS = [tuple(_read(r) for r in t) for t in TRIPLETS]

# ------------------------------------------------------------------------------ mutations
HOSTILE = [None, "", "abc", "1e3", [], {}, 0, -1, -1e308, 1e308, float("nan"), float("inf"),
           float("-inf"), True, 2**70, [1, 2], {"x": 1}]
#: values that divide nothing sensible (GPU counts, layers, heads, batches are powers of two etc.)
NON_DIVIDING = [3, 5, 6, 7, 11, 12, 24, 48, 96, 100, 127, 1000003]

#: dotted paths of degrees (and counts they must divide) per kind of document
SCENARIO_DEGREES = ["parallel.tp", "parallel.pp", "parallel.dp", "parallel.cp", "parallel.ep", "parallel.vpp",
                    "parallel.microbatch", "parallel.global_batch", "cluster.num_gpus", "cluster.gpus_per_node"]
SPACE_DEGREES = ["parallel.tp", "parallel.pp", "parallel.vpp", "parallel.cp", "parallel.ep",
                 "parallel.microbatch", "parallel.batch", "gpus", "global_batch.sequences",
                 "global_batch.samples"]
MADMAX_DEGREES = ["system.num_devices", "system.num_nodes", "task.emb_parallel_degree",
                  "task.transformer_parallel_degree", "task.mlp_parallel_degree",
                  "task.local_emb_bs", "task.local_transformer_bs", "task.local_mlp_bs"]


def _paths(doc: Any, prefix: tuple = ()) -> tuple[list[tuple], list[tuple]]:
    """(every leaf path, every mapping path) of ``doc``; list items are int parts."""
    leaves, maps = [], []
    if isinstance(doc, dict):
        maps.append(prefix)
        for k, v in doc.items():
            sub_leaves, sub_maps = _paths(v, prefix + (k,))
            leaves += sub_leaves or [prefix + (k,)]
            maps += sub_maps
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            sub_leaves, sub_maps = _paths(v, prefix + (i,))
            leaves += sub_leaves or [prefix + (i,)]
            maps += sub_maps
    return leaves, maps


def _get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def _set(doc: Any, path: tuple, value: Any) -> None:
    parent = _get(doc, path[:-1])
    if isinstance(parent, dict) or (isinstance(parent, list) and path[-1] < len(parent)):
        parent[path[-1]] = value


@st.composite
def mutated(draw, seeds: list[Any], degrees: list[str]) -> tuple[Any, list[str]]:
    """A deep copy of one of ``seeds`` with 1-3 mutations; also returns what was done."""
    doc = copy.deepcopy(draw(st.sampled_from(seeds)))
    done = []
    for _ in range(draw(st.integers(1, 3))):
        leaves, maps = _paths(doc)
        kind = draw(st.sampled_from(["replace", "replace", "delete", "add", "degree", "empty_range"]))
        if kind == "replace" and leaves:
            path = draw(st.sampled_from(leaves))
            value = copy.deepcopy(draw(st.sampled_from(HOSTILE)))
            _set(doc, path, value)
            done.append(f"{'.'.join(map(str, path))} = {value!r}")
        elif kind == "delete":
            keyed = [m + (k,) for m in maps for k in _get(doc, m)]
            if keyed:
                path = draw(st.sampled_from(keyed))
                del _get(doc, path[:-1])[path[-1]]
                done.append(f"del {'.'.join(map(str, path))}")
        elif kind == "add" and maps:
            path = draw(st.sampled_from(maps))
            key = draw(st.sampled_from(["bogus", "Tp", "num_gpu", "x"]))
            _get(doc, path)[key] = draw(st.sampled_from([1, "abc", None, {"y": 2}]))
            done.append(f"add {'.'.join(map(str, path + (key,)))}")
        elif kind == "degree":
            dotted = draw(st.sampled_from(degrees))
            path = tuple(dotted.split("."))
            try:
                old = _get(doc, path)
            except (KeyError, TypeError, IndexError):
                continue
            value = draw(st.sampled_from(NON_DIVIDING))
            new = [value] if isinstance(old, list) else value
            _set(doc, path, new)
            done.append(f"{dotted} = {new!r}")
        elif kind == "empty_range":
            dotted = draw(st.sampled_from(degrees))
            path = tuple(dotted.split("."))
            try:
                old = _get(doc, path)
            except (KeyError, TypeError, IndexError):
                continue
            new = draw(st.sampled_from([[], {"min": 64, "max": 8}, {"min": 8, "max": 8, "step": 0},
                                        {"min": 0, "max": 0}, [0], [-4]]))
            if not isinstance(old, list) and isinstance(new, list) and new:
                new = new[0]
            _set(doc, path, new)
            done.append(f"{dotted} = {new!r}")
    return doc, done


# ------------------------------------------------------------------------------ checks
def _check_input_error(err: InputError, loader: str = "") -> None:
    if loader:
        COUNTS[f"{loader} -> InputError"] += 1
    text = str(err)
    assert ":" in text, f"InputError does not name a field: {text!r}"
    assert "Traceback" not in text


#: columns a kind of run leaves NaN on purpose (not applicable: DLRM has no tokens; dse/workloads/dlrm.py)
NOT_APPLICABLE = {"dlrm_train": {"tokens_per_s", "tokens_per_s_per_gpu", "energy_per_token_j", "cost_per_mtok_usd"}}


def _check_frame(frame) -> None:
    """Every row: all numbers finite, or infeasible with a non-empty reason."""
    assert len(frame) > 0
    for i in range(len(frame)):
        row = frame.iloc[i]
        skip = set(NOT_APPLICABLE.get(str(row.get("kind", "")), set()))
        if str(row.get("kind", "")) == "llm_inference":  # a deployment's one-instance columns, an engine's
            from dse.workloads.inference import DEPLOYMENT_ONLY, INSTANCE_ONLY, PHASE_DISAGGREGATED

            skip |= set(INSTANCE_ONLY if row.get("phase") == PHASE_DISAGGREGATED else DEPLOYMENT_ONLY)
        if not float(row.get("price_per_gpu_hour", 0.0) or 0.0) > 0:  # no price: no cost (NaN)
            skip |= {"cost_per_mtok_usd", "cost_per_msample_usd"}
        numeric = frame.drop(columns=[c for c in skip if c in frame]).select_dtypes(include=[np.number])
        finite = bool(np.all(np.isfinite(numeric.iloc[i].to_numpy(dtype=np.float64))))
        if bool(row["feasible"]):
            assert finite, f"feasible row with non-finite numbers: " \
                           f"{[c for c in numeric if not np.isfinite(numeric[c].iat[i])]}"
        else:
            assert str(row["infeasible_reason"]).strip(), "infeasible row without a reason"


def _evaluate_scenario(scenario) -> None:
    try:
        frame = dse.evaluate(scenario, explain=True)
    except InputError as err:  # e.g. a kind of run that is not modelled yet
        _check_input_error(err)
        return
    _check_frame(frame)


def check_scenario(doc: Any) -> None:
    COUNTS["scenario_from_dict"] += 1
    try:
        scenario = scenario_from_dict(doc)
    except InputError as err:
        _check_input_error(err, "scenario_from_dict")
        return
    COUNTS["scenario_from_dict -> evaluated"] += 1
    _evaluate_scenario(scenario)


def check_space(doc: Any) -> None:
    COUNTS["space_from_dict"] += 1
    try:
        space = space_from_dict(doc, source="fuzz.yaml")
    except InputError as err:
        _check_input_error(err, "space_from_dict")
        return
    COUNTS["space_from_dict -> loaded"] += 1
    counts = space.gpu_counts()
    assert counts and all(isinstance(n, int) and n > 0 for n in counts)
    assert all(isinstance(b, int) and b > 0 for b in space.global_batches())
    grid = plan_grid(space, counts[0])  # the plans of the smallest GPU count enumerate cleanly
    assert all(len(v) == len(grid["num_gpus"]) for v in grid.values())


def check_case(doc: Any, folder: Path) -> None:
    COUNTS["validate_cases"] += 1
    path = folder / f"case_{next(_names)}.jsonl"
    path.write_text(json.dumps(doc) + "\n")  # NaN/Infinity written as JSON constants on purpose
    try:
        cases, summary = validate_cases(path)
    except InputError as err:
        _check_input_error(err, "validate_cases")
        return
    assert len(cases) == 1
    row = cases.iloc[0]
    COUNTS[f"validate_cases -> status {row['status']}"] += 1
    assert row["status"] in ("ok", "skipped", "error"), row["status"]
    if row["status"] != "ok":
        assert str(row["reason"]).strip(), "case skipped or in error without a reason"
        assert "a bug" not in str(row["reason"]), row["reason"]
    else:
        assert math.isfinite(row["predicted"]) and math.isfinite(row["error"]), row.to_dict()
        if not row["feasible"]:
            assert str(row["infeasible_reason"]).strip()


def check_madmax(triplet: tuple, folder: Path) -> None:
    COUNTS["read_triplet+to_scenario"] += 1
    n = next(_names)
    paths = []
    for part, doc in zip(("model", "system", "task"), triplet):
        path = folder / f"{part}_{n}.json"
        path.write_text(json.dumps(doc))
        paths.append(path)
    try:
        model, system, task = read_triplet(*paths)
        scenario = scenario_from_dict(to_scenario(model, system, task))
    except InputError as err:
        _check_input_error(err, "read_triplet+to_scenario")
        return
    COUNTS["read_triplet+to_scenario -> evaluated"] += 1
    _evaluate_scenario(scenario)


# ------------------------------------------------------------------------------ tests
@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def test_seeds_are_valid(folder):
    """The unmutated documents load (so mutations start from something valid)."""
    for doc in SCENARIO_SEEDS:
        scenario_from_dict(doc)
    for doc in SPACE_SEEDS:
        space_from_dict(doc)
    cases, _ = validate_cases(_write_lines(folder / "seeds.jsonl", CASES))
    assert set(cases["status"]) <= {"ok", "skipped"}
    for a, b, c in TRIPLET_DOCS:
        to_scenario(a, b, c)


def _write_lines(path: Path, docs: list) -> Path:
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    return path


@FUZZ
@given(mutated(SCENARIO_SEEDS, SCENARIO_DEGREES))
def test_fuzz_scenario_from_dict(sample):
    doc, _ = sample
    check_scenario(doc)


@FUZZ
@given(mutated(SPACE_SEEDS, SPACE_DEGREES + [f"scenario.{p}" for p in ("cluster.gpus_per_node",)]))
def test_fuzz_space_from_dict(sample):
    doc, _ = sample
    check_space(doc)


@settings(FUZZ, max_examples=250)
@given(mutated(CASES, SCENARIO_DEGREES + ["target.value"]))
def test_fuzz_validation_case(folder, sample):
    doc, _ = sample
    check_case(doc, folder)


@settings(FUZZ, max_examples=10)
@example(1)
@given(st.sampled_from([1, -1, 2**70, 1e308, float("nan"), True]))
def test_validation_case_source_not_a_string(folder, source):
    doc = dict(CASES[0], source=source)
    path = _write_lines(folder / f"source_{next(_names)}.jsonl", [doc])
    try:
        cases, _ = validate_cases(path)
    except InputError as err:
        _check_input_error(err)
        return
    assert cases.iloc[0]["status"] in ("ok", "skipped", "error")


def _triplet_dicts() -> list[dict[str, Any]]:
    return [{"model": m, "system": s, "task": t} for m, s, t in TRIPLET_DOCS]


@settings(FUZZ, max_examples=400)
@given(mutated(_triplet_dicts(), MADMAX_DEGREES))
def test_fuzz_madmax(folder, sample):
    doc, _ = sample
    if not isinstance(doc, dict) or not all(k in doc for k in ("model", "system", "task")):
        return  # the mutation removed a whole file: nothing to write
    check_madmax((doc["model"], doc["system"], doc["task"]), folder)


def test_cli_evaluate_mutated_scenarios(tmp_path):
    """20 mutated scenario files through the real ``dse evaluate``: exit 0 or 2, no traceback."""
    samples = []

    @settings(FUZZ, max_examples=20)
    @given(mutated(list(SCENARIOS.values()), SCENARIO_DEGREES))
    def collect(sample):
        samples.append(sample[0])

    collect()
    assert len(samples) >= 20
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    for i, doc in enumerate(samples[:20]):
        COUNTS["dse evaluate (CLI)"] += 1
        path = tmp_path / f"s{i}.yaml"
        path.write_text(yaml.safe_dump(doc, allow_unicode=True))
        proc = subprocess.run([str(DSE), "evaluate", str(path), "--json"], capture_output=True, text=True,
                              env=env, timeout=120)
        assert proc.returncode in (0, 2), (doc, proc.returncode, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr, (doc, proc.stderr[-2000:])
        if proc.returncode == 2:
            assert ":" in proc.stderr
        else:
            json.loads(proc.stdout, parse_constant=_no_constant)  # one JSON object, no NaN


def test_zz_report_counts():
    """Print how many generated inputs each loader saw (``pytest -s``)."""
    print("\nfuzzed inputs per loader:")
    for name, n in sorted(COUNTS.items()):
        print(f"  {name:28s} {n}")


def _no_constant(name: str) -> float:
    raise AssertionError(f"dse evaluate --json printed {name}")
