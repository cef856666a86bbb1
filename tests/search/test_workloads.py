"""Searching other kinds of run than LLM training: LLM serving (llm_inference), DLRM and ViT spaces.

Grid validity (every enumerated plan passes the cost model's divisibility checks), end-to-end runs
through ``run_search`` (exhaustive, nested and pure Optuna), the per-kind validation of the
``parallel`` block, objectives and constraints, and MAD-Max triplets in place of ``scenario``.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from dse.costmodel import dlrm as cm
from dse.costmodel.training import OUT_OF_MEMORY
from dse.errors import InputError
from dse.search.enumerate import dlrm_grid, plan_grid, serving_grid, space_size
from dse.search.evaluation import apply_constraints, plan_columns, score_point
from dse.search.runner import run_search
from dse.search.space import load_space, space_from_dict

ROOT = Path(__file__).resolve().parents[2]
SPACES = ROOT / "search_spaces"
MADMAX = ROOT / "tests" / "data" / "madmax"

#: A small serving space: Llama-3.1-8B, 1000 + 200 tokens, on 1-8 H100s.
SERVING = {
    "name": "serving-test",
    "scenario": {
        "model": "llama3.1-8b", "precision": "fp8", "workload": "inference",
        "cluster": {"gpu": "H100-SXM-80GB"},
        "inference": {"input_len": 1000, "output_len": 200},
    },
    "gpus": [1, 2, 4, 8],
    "parallel": {"tp": [1, 2, 4, 8, 16], "pp": [1, 2, 3], "batch": [1, 8, 64, 512, 4096, "auto"]},
    "objectives": [{"metric": "tokens_per_s_per_gpu", "direction": "maximize"},
                   {"metric": "itl_ms", "direction": "minimize"}],
    "search": {"n_trials": 12, "batch_size": 4},
}
#: A MoE serving space (expert parallelism).
SERVING_MOE = {
    **SERVING,
    "scenario": {**SERVING["scenario"], "model": "mixtral-8x7b"},
    "gpus": [2, 4, 8],
    "parallel": {"tp": [1, 2, 4, 8], "pp": [1, 2], "ep": [1, 2, 4, 8], "batch": [16, "auto"]},
}
#: A small DLRM: 64 tables (one hot enough to need sharding), dot interaction, on 8-32 A100s.
DLRM = {
    "name": "dlrm-test",
    "scenario": {
        "workload": "train", "precision": "bf16",
        "model": {
            "name": "dlrm-small", "family": "dlrm", "dense_features": 13,
            "tables": {"count": 64, "rows": 4000000, "dim": 128, "pooling": 4},
            "bottom_mlp": [512, 256, 128], "top_mlp": [1024, 512, 256, 1],
        },
        "cluster": {"gpu": "A100-SXM-80GB"},
    },
    "gpus": [8, 12, 16, 32],
    "parallel": {"emb_sharding": ["table", "row", "column", "table_row", "auto", "hier_auto", "node_sharded",
                                  "data_parallel"],
                 "emb_planner": ["cost", "memory"], "tp": [1, 2, 4, 8], "zero": [0, 3],
                 "microbatch": [256, 1024, 4096]},
    "hardware": {"scaleout_gbitps": {"values": [100, 400]}},
    "search": {"n_trials": 8, "batch_size": 4},
}

#: A small ViT space: ViT-H/14 on 8-32 A100s, images as sequences.
VIT = {
    "name": "vit-test",
    "scenario": {
        "workload": "train", "precision": "bf16",
        "model": {"name": "ViT-H/14", "family": "vit", "layers": 32, "hidden": 1280, "heads": 16,
                  "ffn_hidden": 5120, "patch": 14, "image_size": 224},
        "cluster": {"gpu": "A100-SXM-80GB"},
    },
    "gpus": [8, 16, 32],
    "parallel": {"tp": [1, 2, 3, 4], "pp": [1, 2], "cp": [1, 2], "zero": [0, 3],
                 "recompute": ["none", "full"], "microbatch": [16, 32, 64]},
    "global_batch": {"sequences": 2048},
    "objectives": [{"metric": "samples_per_s_per_gpu", "direction": "maximize"},
                   {"metric": "cost_per_msample_usd", "direction": "minimize"}],
    "search": {"n_trials": 10, "batch_size": 5},
}


def space(data: dict, **edits):
    data = copy.deepcopy(data)
    data.update(edits)
    return space_from_dict(data)


def problems(data: dict, **edits) -> dict[str, str]:
    data = copy.deepcopy(data)
    data.update(edits)
    with pytest.raises(InputError) as info:
        space_from_dict(data)
    return {p.field: p.message for p in info.value.problems}


# ---------------------------------------------------------------------------- grids
@pytest.mark.parametrize("data", [SERVING, SERVING_MOE], ids=["dense", "moe"])
def test_serving_grid_plans_divide_and_the_cost_model_agrees(data):
    s = space(data)
    assert s.kind == "llm_inference"
    m = s.base.model
    for n in s.gpu_counts():
        g = serving_grid(s, n)
        assert len(g["num_gpus"]) > 0
        tp, pp, dp, ep = g["tp"], g["pp"], g["dp"], g["ep"]
        np.testing.assert_array_equal(tp * pp * dp, float(n))
        assert (m.heads % tp == 0).all() and (m.layers >= pp).all() and (m.ffn_hidden % tp == 0).all()
        assert ((m.kv % tp == 0) | (tp % m.kv == 0)).all()
        if m.moe is None:
            assert (ep == 1).all()
        else:
            assert (m.moe.experts % ep == 0).all() and ((tp * dp) % ep == 0).all() and (ep > 1).any()
        # with memory to spare nothing is infeasible except, for listed batches, out of memory
        df = score_point(s, n, {})
        assert ((df["infeasible_mask"] & ~OUT_OF_MEMORY) == 0).all()
        assert set(df["batch_auto"]) <= {0.0, 1.0}
        # auto batches always fit (the cost model picks the largest batch that does)
        auto = df[df["batch_auto"] > 0]
        assert len(auto) and (auto["infeasible_mask"] == 0).all()


def test_serving_grid_drops_what_does_not_divide():
    s = space(SERVING)
    g = serving_grid(s, 4)
    assert 16.0 not in g["tp"] and 3.0 not in g["pp"]  # tp 16 > 4 GPUs, 4 % pp 3
    assert set(g["batch"]) == {0.0, 1.0, 8.0, 64.0, 512.0, 4096.0}  # 0 = auto
    assert len(plan_grid(s, 4)["num_gpus"]) == len(g["num_gpus"])


def test_serving_grid_tries_speculative_decoding_when_the_scenario_states_an_acceptance():
    g = serving_grid(space(SERVING), 4)
    assert set(g["spec_tokens"]) == {0.0}  # the scenario's own: none
    data = copy.deepcopy(SERVING)
    data["parallel"] = {**data["parallel"], "speculative_tokens": [0, 3]}
    assert "parallel.speculative_tokens" in problems(data)  # no acceptance to score drafts with
    data["scenario"]["inference"] = {**data["scenario"]["inference"], "draft_acceptance": 0.8}
    s = space(data)
    g = serving_grid(s, 4)
    assert set(g["spec_tokens"]) == {0.0, 3.0}
    df = score_point(s, 4, {})
    # drafting pays for itself at small batches (the verification reads the same weights)
    small = df[(df["batch"] == 1) & (df["tp"] == 4)].set_index("spec_tokens")["tokens_per_s"]
    assert small.loc[3.0] > 1.5 * small.loc[0.0]


def test_a_serving_space_beyond_the_models_context_window_is_refused_before_any_work():
    data = copy.deepcopy(SERVING)
    data["scenario"]["model"] = "llama2-7b"
    data["scenario"]["inference"] = {"input_len": 4000, "output_len": 200}
    found = problems(data)
    assert "4000 + output_len 200 = 4200 tokens exceed the context window of Llama-2-7B, 4096" in \
        found["scenario.inference.input_len"]
    data["scenario"]["inference"] = {"input_len": 3896, "output_len": 200}  # exactly the window
    assert space(data).kind == "llm_inference"


def test_a_disaggregated_deployment_is_not_a_search_scenario():
    data = copy.deepcopy(SERVING)
    data["scenario"]["inference"] = {**data["scenario"]["inference"], "phase": "disaggregated", "prefill": {"tp": 2}}
    assert "search each phase's instances" in problems(data)["scenario.inference.phase"]


def test_dlrm_grid_plans_divide_and_the_cost_model_agrees():
    s = space(DLRM)
    assert s.kind == "dlrm_train"
    size = space_size(s)
    assert size["hardware_points"] == 2 and size["software"][12] > 0
    for n in s.gpu_counts():
        g = dlrm_grid(s, n)
        np.testing.assert_array_equal(g["tp"] * g["dp"], float(n))
        np.testing.assert_array_equal(g["global_batch"], g["microbatch"] * n)
        assert (n % g["tp"] == 0).all() and set(g["zero"]) <= {0.0, 3.0}
        hier = np.isin(g["emb_sharding"], cm.NODE_PLANS)
        assert not hier.any() if n % 8 else hier.any()  # 12 GPUs are not whole nodes
        # the planner choice only for the shardings it places: no duplicate plans
        unplanned = ~np.isin(g["emb_sharding"], cm.PLANNED)
        assert (g["emb_planner"][unplanned] == 0).all()
        df = score_point(s, n, {"scaleout_gbitps": 400.0})
        memory_bits = cm.OUT_OF_MEMORY | cm.TABLE_TOO_LARGE
        assert ((df["infeasible_mask"] & ~memory_bits) == 0).all()


def test_dlrm_global_batch_in_samples():
    s = space(DLRM, global_batch={"samples": [8192, 32768]})
    g = dlrm_grid(s, 8)
    assert set(g["global_batch"]) == {8192.0, 32768.0} and set(g["microbatch"]) == {1024.0, 4096.0}
    only_gb = copy.deepcopy(DLRM)
    del only_gb["parallel"]["microbatch"]
    s = space(only_gb, global_batch={"samples": [8192, 32768]})
    assert set(dlrm_grid(s, 32)["microbatch"]) == {256.0, 1024.0}
    assert set(dlrm_grid(s, 12)["microbatch"]) == set()  # 12 divides neither: no plan


# ---------------------------------------------------------------------------- end to end
def _check_run(run, out: Path):
    df = pd.read_parquet(out / "configs.parquet")
    front = pd.read_csv(out / "pareto.csv")
    assert len(df) and df["feasible"].any() and len(front)
    for metric, _ in run_objectives(out):
        assert np.isfinite(front[metric]).all()
    return df, front


def run_objectives(out: Path):
    import json

    manifest = json.loads((out / "manifest.json").read_text())
    return [(o["metric"], o["direction"]) for o in manifest["objectives"]]


@pytest.mark.parametrize("mode", ["exhaustive", "nested", "optuna"])
def test_serving_space_runs_end_to_end(mode, tmp_path):
    s = space(SERVING, constraints={"max_itl_ms": 40.0})
    run = run_search(s, out_dir=tmp_path, mode=mode, progress=False, plots=mode == "exhaustive")
    df, front = _check_run(run, tmp_path)
    assert set(plan_columns(s)) <= set(df.columns)
    assert (df.loc[df["feasible"], "itl_ms"] <= 40.0).all()
    if mode == "exhaustive":
        assert len(df) == run.report.space_size
        assert (df["itl_ms"] > 40.0).any()  # the constraint removed something
        assert (tmp_path / "tokens_per_s_per_gpu_vs_itl_ms.png").exists()
    else:
        assert run.report.trials_complete == 12


#: A serving space that also holds disaggregated deployments (Llama 3.1 70B, 4000 + 500 tokens).
DISAGGREGATED = {
    **SERVING,
    "scenario": {**SERVING["scenario"], "model": "llama3.1-70b", "inference": {"input_len": 4000, "output_len": 500}},
    "gpus": [8, 16],
    "parallel": {"tp": [2, 4, 8], "batch": [16, 64, "auto"],
                 "disaggregated": {"tp": [1, 2, 4], "max_num_tokens": [8192]}},
}


def test_the_serving_grid_holds_deployments_whose_instances_fit_together():
    s = space(DISAGGREGATED)
    g = serving_grid(s, 8)
    dep = g["phase"] == 3
    assert dep.any() and (~dep).any()
    assert (g["tp"][dep] * g["pp"][dep] + g["prefill_tp"][dep] * g["prefill_pp"][dep] <= 8).all()
    assert (g["dp"][dep] == 1).all() and set(g["prefill_max_num_tokens"][dep]) == {8192}
    assert (g["prefill_tp"][~dep] == 0).all() and (g["tp"][~dep] * g["dp"][~dep] == 8).all()
    # tp 8 decodes need a prefill instance beside them: none fits in 8 GPUs
    assert not (dep & (g["tp"] == 8)).any()
    assert not (serving_grid(space(SERVING), 4)["phase"] == 3).any()  # engines only without the block


def test_engines_false_keeps_only_the_deployments():
    only = {**DISAGGREGATED, "parallel": {**DISAGGREGATED["parallel"],
                                          "disaggregated": {**DISAGGREGATED["parallel"]["disaggregated"],
                                                            "engines": False}}}
    both, alone = serving_grid(space(DISAGGREGATED), 16), serving_grid(space(only), 16)
    dep = both["phase"] == 3
    assert (alone["phase"] == 3).all() and len(alone["phase"]) == int(dep.sum()) > 0
    for key, values in alone.items():  # the same deployments, in the same order
        np.testing.assert_array_equal(values, both[key][dep], err_msg=key)


#: Deployments of H200 decode instances whose prefill instances try an H100 (priced), their own
#: H200 and a B200 (no price in its preset).
TWO_GPUS = {
    **DISAGGREGATED,
    "scenario": {**DISAGGREGATED["scenario"], "cluster": {"gpu": "H200-SXM-141GB", "price_per_gpu_hour": 4.0}},
    "gpus": [32],
    "parallel": {"tp": [2, 4], "batch": ["auto"],
                 "disaggregated": {"tp": [1, 2], "max_num_tokens": [8192], "engines": False,
                                   "gpu": [{"gpu": "h100-sxm-80gb", "price_per_gpu_hour": 3.0}, "H200-SXM-141GB",
                                           "B200-180GB"]}},
}


def test_prefill_instances_on_other_gpus_score_as_dse_evaluate_scores_their_scenario():
    import dse
    from dse.search.results import _plain
    from dse.presets import prefill_gpu_code

    s = space(TWO_GPUS)
    grid = serving_grid(s, 32)
    h100, b200 = prefill_gpu_code("H100-SXM-80GB", "H200-SXM-141GB"), prefill_gpu_code("B200-180GB", "H200-SXM-141GB")
    assert set(grid["prefill_gpu"]) == {0.0, h100, b200} and prefill_gpu_code("H200-SXM-141GB", "H200-SXM-141GB") == 0
    df = score_point(s, 32, {})
    assert _plain("prefill_gpu", h100) == "H100-SXM-80GB" and _plain("prefill_gpu", 0.0) == "same"
    for code, gpu, price in ((h100, "H100-SXM-80GB", 3.0), (0.0, None, None)):
        for _, row in df[df["prefill_gpu"] == code].iterrows():
            prefill = {"tp": int(row["prefill_tp"]), "max_num_tokens": 8192}
            if gpu:
                prefill.update(gpu=gpu, price_per_gpu_hour=price)
            ref = dse.evaluate(dse.load_scenario({
                "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
                "cluster": {"gpu": "H200-SXM-141GB", "num_gpus": 32, "price_per_gpu_hour": 4.0},
                "parallel": {"tp": int(row["tp"])},
                "inference": {"input_len": 4000, "output_len": 500, "phase": "disaggregated", "prefill": prefill}})).iloc[0]
            for key in ("prefill_instances", "decode_instances", "tokens_per_s_per_gpu", "ttft_ms", "itl_ms",
                        "cost_per_mtok_usd", "power_per_gpu_w", "link_bytes_per_s"):
                assert row[key] == pytest.approx(ref[key], rel=1e-9), (gpu, key)
    # an unpriced kind of GPU leaves the deployment's cost unknown, not free
    assert df.loc[df["prefill_gpu"] == b200, "cost_per_mtok_usd"].isna().all()
    assert df.loc[df["prefill_gpu"] != b200, "cost_per_mtok_usd"].gt(0).all()


@pytest.mark.parametrize("gpu, needle", [("H1000", "unknown GPU"), ("A100-SXM-80GB", "no fp8 tensor cores")])
def test_a_bad_prefill_gpu_in_a_space_names_the_field(gpu, needle):
    bad = {**TWO_GPUS, "parallel": {**TWO_GPUS["parallel"],
                                    "disaggregated": {**TWO_GPUS["parallel"]["disaggregated"], "gpu": [gpu]}}}
    with pytest.raises(InputError, match=f"parallel.disaggregated.gpu.*{needle}"):
        space(bad)


def test_a_deployments_only_space_too_small_for_any_pair_says_so():
    from dse.search.enumerate import check_not_empty

    only = {**DISAGGREGATED, "gpus": [2],
            "parallel": {**DISAGGREGATED["parallel"], "tp": [4, 8],
                         "disaggregated": {"tp": [2, 4], "engines": False}}}
    with pytest.raises(InputError, match="beside a prefill instance of parallel.disaggregated"):
        check_not_empty(space(only))


def test_a_searched_deployment_scores_as_dse_evaluate_scores_its_scenario():
    import dse

    s = space(DISAGGREGATED)
    df = score_point(s, 16, {})
    dep = df[(df["phase"] == 3) & (df["batch_auto"] == 1)]
    assert len(dep) and dep["feasible"].any()
    for _, row in dep.iterrows():
        scenario = dse.load_scenario({
            "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
            "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16}, "parallel": {"tp": int(row["tp"])},
            "inference": {"input_len": 4000, "output_len": 500, "phase": "disaggregated",
                          "prefill": {"tp": int(row["prefill_tp"]), "max_num_tokens": 8192}}})
        ref = dse.evaluate(scenario).iloc[0]
        for key in ("prefill_instances", "decode_instances", "tokens_per_s_per_gpu", "ttft_ms", "itl_ms",
                    "memory_per_gpu_bytes", "power_per_gpu_w"):
            assert row[key] == pytest.approx(ref[key], rel=1e-9), key
        assert bool(row["feasible"]) == bool(ref["feasible"])


def test_disaggregated_deployments_search_end_to_end_and_beat_engines_at_a_tight_itl(tmp_path):
    from dse.search.results import summarize

    s = space(DISAGGREGATED, constraints={"max_itl_ms": 30.0})
    run = run_search(s, out_dir=tmp_path, mode="exhaustive", progress=False, plots=True)
    df, front = _check_run(run, tmp_path)
    ok = df[df["feasible"]]
    assert (ok["phase"] == 3).any() and (ok["phase"] == 0).any()
    best = ok.loc[ok["tokens_per_s_per_gpu"].idxmax()]
    assert best["phase"] == 3  # at 30 ms a decode step that never carries a prompt wins
    engines = ok[ok["phase"] == 0]["tokens_per_s_per_gpu"].max()
    assert best["tokens_per_s_per_gpu"] > 1.3 * engines
    summary, top = summarize(tmp_path)
    assert summary["top"][0]["phase"] == "disaggregated"
    assert summary["top"][0]["prefill_instances"] >= 1 and summary["top"][0]["decode_instances"] >= 1
    assert (tmp_path / "best_breakdown.png").exists()


def test_a_space_of_decode_instances_scores_decode_instances():
    import dse

    data = copy.deepcopy(SERVING)
    data["scenario"]["inference"] = {**data["scenario"]["inference"], "phase": "decode"}
    df = score_point(space(data), 4, {})
    assert set(df["phase"]) == {2}
    row = df[(df["tp"] == 2) & (df["batch"] == 64)].iloc[0]
    ref = dse.evaluate(dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": "llama3.1-8b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 4}, "parallel": {"tp": 2},
        "inference": {"input_len": 1000, "output_len": 200, "phase": "decode", "batch": 64}})).iloc[0]
    assert row["tokens_per_s_per_gpu"] == pytest.approx(ref["tokens_per_s_per_gpu"], rel=1e-9)


def test_deployments_are_searched_beside_whole_engines_offline_at_a_rate_or_for_clients():
    data = copy.deepcopy(DISAGGREGATED)
    data["scenario"]["inference"] = {**data["scenario"]["inference"], "phase": "decode"}
    assert "scored beside engines that serve whole requests" in problems(data)["parallel.disaggregated"]
    data = copy.deepcopy(DISAGGREGATED)
    data["scenario"]["inference"] = {**data["scenario"]["inference"], "concurrency": 64}
    data["parallel"]["batch"] = ["auto"]
    df = score_point(space(data), 16, {})
    dep = df[(df["phase"] == 3) & df["feasible"]]
    assert len(dep)
    e2e = (dep["ttft_ms"] + (500 - 1) * dep["itl_ms"]) * 1e-3
    assert np.allclose(dep["requests_per_s"] * e2e, 64, rtol=1e-3)
    data = copy.deepcopy(DISAGGREGATED)
    data["scenario"]["inference"] = {**data["scenario"]["inference"], "request_rate": 5.0}
    data["parallel"]["batch"] = ["auto"]
    df = score_point(space(data), 16, {})
    dep = df[(df["phase"] == 3) & df["feasible"]]
    assert len(dep) and (dep["requests_per_s"] == 5.0).all() and (dep["prefill_wait_s"] > 0).all()
    assert (dep["max_requests_per_s"] >= 5.0).all()


def test_wide_expert_parallel_deployments_are_searched_and_score_as_their_scenario():
    import dse

    data = copy.deepcopy(SERVING)
    data["scenario"] = {**data["scenario"], "model": "gpt-oss-120b", "inference": {"input_len": 1000, "output_len": 200}}
    data["gpus"] = [8]
    data["parallel"] = {"tp": [1], "ep": [1, 4], "batch": ["auto"],
                        "disaggregated": {"tp": [1], "dp": [2, 4], "ep": [1, 2, 4], "decode_dp": [4]}}
    df = score_point(space(data), 8, {})
    wide = df[(df["phase"] == 3) & (df["ep"] == 4) & (df["dp"] == 4) & (df["prefill_ep"] == 2)]
    assert len(wide)
    row = wide.iloc[0]
    ref = dse.evaluate(dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": "gpt-oss-120b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 1, "dp": 4, "ep": 4},
        "inference": {"input_len": 1000, "output_len": 200, "phase": "disaggregated",
                      "prefill": {"tp": 1, "dp": int(row["prefill_dp"]), "ep": 2}}})).iloc[0]
    for key in ("prefill_instances", "decode_instances", "tokens_per_s_per_gpu", "itl_ms", "ttft_ms"):
        assert row[key] == pytest.approx(ref[key], rel=1e-9), key


def test_deployments_try_the_stated_prefill_instance_counts_and_score_as_their_scenario():
    import dse

    data = copy.deepcopy(DISAGGREGATED)
    data["scenario"]["inference"] = {**data["scenario"]["inference"], "request_rate": 6.0}
    data["parallel"] = {"tp": [4], "batch": ["auto"],
                        "disaggregated": {"tp": [2], "max_num_tokens": [4096], "instances": ["auto", 4, 7]}}
    s = space(data)
    grid = serving_grid(s, 16)
    dep = grid["phase"] == 3
    # 7 prefill instances of 2 GPUs leave no room for a decode instance of 4 on 16 GPUs: not listed
    assert set(grid["prefill_count"][dep]) == {0, 4}
    df = score_point(s, 16, {})
    four = df[(df["phase"] == 3) & (df["prefill_count"] == 4)].iloc[0]
    assert four["prefill_instances"] == 4 and four["decode_instances"] == 2
    ref = dse.evaluate(dse.load_scenario({
        "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16}, "parallel": {"tp": 4},
        "inference": {"input_len": 4000, "output_len": 500, "phase": "disaggregated", "request_rate": 6.0,
                      "prefill": {"tp": 2, "max_num_tokens": 4096, "instances": 4}}})).iloc[0]
    for key in ("prefill_instances", "decode_instances", "ttft_ms", "itl_ms", "prefill_wait_s"):
        assert four[key] == pytest.approx(ref[key], rel=1e-9), key
    with pytest.raises(InputError, match="parallel.disaggregated.instances"):
        space({**data, "parallel": {**data["parallel"], "disaggregated": {"tp": [2], "instances": [0]}}})


@pytest.mark.parametrize("mode", ["exhaustive", "nested"])
def test_dlrm_space_runs_end_to_end(mode, tmp_path):
    s = space(DLRM)
    run = run_search(s, out_dir=tmp_path, mode=mode, progress=False, plots=mode == "exhaustive")
    df, front = _check_run(run, tmp_path)
    assert {"emb_sharding", "emb_planner", "samples_per_s", "samples_per_s_per_gpu"} <= set(df.columns)
    from dse.costmodel.dlrm import SHARDING
    assert set(front["emb_sharding"]) <= set(SHARDING) and set(front["emb_planner"]) <= {"cost", "memory"}
    if mode == "exhaustive":
        assert len(df) == run.report.space_size
        assert (tmp_path / "samples_per_s_vs_num_gpus.png").exists()


def test_vit_grid_uses_the_encoder_shape_and_the_cost_model_agrees():
    from dse.api import evaluate
    from dse.scenario import scenario_from_dict

    s = space(VIT)
    assert s.kind == "vit_train" and s.seq_len == 257  # (224/14)^2 patches + the class token
    for n in s.gpu_counts():
        g = plan_grid(s, n)
        assert set(g["tp"]) <= {1.0, 2.0, 4.0}  # 3 divides neither 16 heads nor 5120
        assert set(g["cp"]) == {1.0}  # 257 tokens: cp 2 does not divide
        np.testing.assert_array_equal(g["tp"] * g["pp"] * g["dp"] * g["cp"], float(n))
        np.testing.assert_array_equal(g["global_batch"] % (g["dp"] * g["microbatch"]), 0.0)
        df = score_point(s, n, {})
        assert ((df["infeasible_mask"] & ~OUT_OF_MEMORY) == 0).all()
        np.testing.assert_allclose(df["samples_per_s_per_gpu"], df["samples_per_s"] / n)
        np.testing.assert_allclose(df["tokens_per_s"], df["samples_per_s"] * 257, rtol=1e-12)
    # one plan scored by the search equals the same plan as a ViT scenario through dse.evaluate
    row = score_point(s, 16, {}).iloc[7]
    plan = {k: int(row[k]) for k in ("tp", "pp", "dp", "cp", "zero", "microbatch", "global_batch")}
    plan["recompute"] = {0: "none", 1: "selective", 2: "full"}[int(row["recompute"])]
    scenario = {**VIT["scenario"], "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 16}, "parallel": plan}
    ref = evaluate([scenario_from_dict(scenario)])
    assert row["samples_per_s"] == pytest.approx(ref["samples_per_s"].iat[0], rel=1e-9)
    assert row["cost_per_msample_usd"] == pytest.approx(
        ref["cost_per_mtok_usd"].iat[0] * 257, rel=1e-9)


@pytest.mark.parametrize("mode", ["exhaustive", "optuna"])
def test_vit_space_runs_end_to_end(mode, tmp_path):
    s = space(VIT)
    run = run_search(s, out_dir=tmp_path, mode=mode, progress=False, plots=mode == "exhaustive")
    df, front = _check_run(run, tmp_path)
    assert {"samples_per_s", "samples_per_s_per_gpu", "cost_per_msample_usd", "energy_per_sample_j"} <= set(df.columns)
    if mode == "exhaustive":
        assert len(df) == run.report.space_size
        assert (tmp_path / "samples_per_s_per_gpu_vs_cost_per_msample_usd.png").exists()
    else:
        assert run.report.trials_complete == 10


def test_vit_space_checks_name_the_encoder():
    got = problems(VIT, parallel={"tp": [3, 5], "cp": [2]})
    assert "heads 16" in got["parallel.tp"] and "seq_len 257" in got["parallel.cp"]
    got = problems(VIT, objectives=[{"metric": "itl_ms", "direction": "minimize"}])
    assert "not a metric of vit_train" in got["objectives.0.metric"]
    assert load_space(SPACES / "vit_22b_h100.yaml").kind == "vit_train"

def test_a_vit_inference_space_searches_forward_passes(tmp_path):
    """workload inference on a ViT: the plans of the training grid without what only a backward
    needs (recompute, activation offloading, ZeRO 1 and 2: a forward pass keeps no gradient or
    optimizer state), each scored as dse.evaluate scores that scenario, and faster than training."""
    from dse.api import evaluate
    from dse.scenario import scenario_from_dict

    data = copy.deepcopy(VIT)
    data["scenario"]["workload"] = "inference"
    data["parallel"]["zero"] = [0, 1, 2, 3]
    s = space_from_dict(data)
    assert s.kind == "vit_inference"
    g = plan_grid(s, 16)
    assert set(g["recompute"]) == {0.0} and set(g["offload_layers"]) == {0.0} and set(g["zero"]) == {0.0, 3.0}
    df = score_point(s, 16, {})
    row = df.iloc[3]
    plan = {k: int(row[k]) for k in ("tp", "pp", "dp", "cp", "zero", "microbatch", "global_batch")}
    scenario = {**data["scenario"], "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 16}, "parallel": plan}
    assert row["samples_per_s"] == pytest.approx(evaluate([scenario_from_dict(scenario)])["samples_per_s"].iat[0],
                                                 rel=1e-9)
    train = score_point(space(VIT), 16, {})
    assert df["samples_per_s"].max() > 2 * train["samples_per_s"].max()
    run = run_search(s, out_dir=tmp_path, mode="exhaustive", progress=False, plots=False)
    frame, _ = _check_run(run, tmp_path)
    assert len(frame) == run.report.space_size and (frame["recompute"] == 0).all()


@pytest.mark.parametrize("name", ["llama3_70b_serving_h100", "llama3_70b_serving_h200", "dlrm_a_zionex",
                                  "dlrm_a_p4d"])
def test_shipped_spaces_load_with_their_kind(name):
    s = load_space(SPACES / f"{name}.yaml")
    assert s.kind == ("llm_inference" if "serving" in name else "dlrm_train")
    assert space_size(s)["total"] > 0


# ---------------------------------------------------------------------------- validation
@pytest.mark.parametrize("data,key,allowed", [
    (SERVING, "cp", "tp, pp, ep, batch"),
    (SERVING, "microbatch", "tp, pp, ep, batch"),
    (DLRM, "pp", "emb_sharding, emb_planner, tp, zero, microbatch"),
    (DLRM, "recompute", "emb_sharding, emb_planner, tp, zero, microbatch"),
])
def test_parallel_keys_of_another_kind_are_named(data, key, allowed):
    bad = copy.deepcopy(data)
    bad["parallel"][key] = [1]
    got = problems(bad)
    msg = got[f"parallel.{key}"]
    assert f"unknown key '{key}'" in msg and allowed in msg and data["name"] and "spaces" in msg


def test_training_keys_stay_strict_for_serving_and_dlrm_values():
    got = problems(SERVING, parallel={"tp": [0], "batch": ["max"]})
    assert "parallel.tp.0" in got and any(f.startswith("parallel.batch") for f in got)
    got = problems(DLRM, parallel={"emb_sharding": ["diagonal"], "zero": [1], "emb_planner": ["fast"]})
    assert "'table'" in got["parallel.emb_sharding.0"] and "parallel.zero.0" in got
    assert "parallel.emb_planner.0" in got


def test_kind_specific_fields_and_metrics():
    got = problems(SERVING, global_batch={"sequences": 8})
    assert "parallel.batch" in got["global_batch"]
    got = problems(SERVING, objectives=[{"metric": "samples_per_s_per_gpu", "direction": "maximize"}])
    assert "not a metric of llm_inference" in got["objectives.0.metric"]
    got = problems(DLRM, constraints={"max_itl_ms": 50.0})
    assert "does not apply to dlrm_train" in got["constraints.max_itl_ms"]
    got = problems(SERVING, scenario={**SERVING["scenario"], "inference": {"input_len": 10, "output_len": 10,
                                                                          "batch": 8}})
    assert "parallel.batch" in got["scenario.inference.batch"]
    no_shape = copy.deepcopy(SERVING)
    del no_shape["scenario"]["inference"]
    assert "input_len" in problems(no_shape)["scenario.inference"]
    no_batch = copy.deepcopy(DLRM)
    del no_batch["parallel"]["microbatch"]
    assert "global_batch" in problems(no_batch)["parallel.microbatch"]
    got = problems(DLRM, parallel={**DLRM["parallel"], "emb_sharding": ["hybrid"]})
    assert "one-hot" in got["parallel.emb_sharding"]
    got = problems(SERVING, parallel={"tp": [3], "pp": [64]})
    assert "heads 32" in got["parallel.tp"] and "layers 32" in got["parallel.pp"]


def test_max_itl_filters_and_ttft_too():
    loose = space(SERVING)
    df = score_point(loose, 4, {})
    base = apply_constraints(df, loose)
    tight = apply_constraints(df, space(SERVING, constraints={"max_itl_ms": 20.0, "max_ttft_ms": 500.0}))
    assert not (tight & ~base).any() and (base & ~tight).any()
    assert (df.loc[tight, "itl_ms"] <= 20.0).all() and (df.loc[tight, "ttft_ms"] <= 500.0).all()


_SCORED = {}


def _scored():
    if not _SCORED:
        s = space(SERVING)
        _SCORED["df"] = pd.concat([score_point(s, n, {}) for n in (1, 8)], ignore_index=True)
    return _SCORED["df"]


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.floats(1.0, 500.0), st.floats(0.0, 500.0))
def test_raising_max_itl_never_shrinks_the_feasible_set(limit, more):
    df = _scored()
    low = apply_constraints(df, space(SERVING, constraints={"max_itl_ms": limit}))
    high = apply_constraints(df, space(SERVING, constraints={"max_itl_ms": limit + more}))
    assert not (low & ~high).any()
    assert low.sum() <= high.sum()


# ---------------------------------------------------------------------------- MAD-Max triplets
def test_madmax_triplet_in_place_of_scenario(tmp_path):
    rel = Path("..") / "madmax"
    folder = tmp_path / "spaces"
    folder.mkdir()
    (tmp_path / "madmax").symlink_to(MADMAX, target_is_directory=True)
    data = {
        "madmax": {"model": str(rel / "model_cfgs/dlrm/dlrm_a_small.json"),
                   "system": str(rel / "system_cfgs/zionex/zionex_128.json"),
                   "task": str(rel / "task_cfgs/dlrm/dlrm_train.json")},
        "gpus": [64, 128],
        "parallel": {"emb_sharding": ["table", "auto"], "microbatch": [256, 512], "zero": [0, 3]},
    }
    path = folder / "dlrm.yaml"
    path.write_text(yaml.safe_dump(data))
    s = load_space(path)
    assert s.kind == "dlrm_train" and s.base.model.name == "DLRM_A_Small"
    assert s.base.cluster.gpus_per_node == 8 and len(s.base.model.tables) == 4096
    df = score_point(s, 128, {})
    assert len(df) == 8 and np.isfinite(df["samples_per_s"]).all()

    serving = {**data, "madmax": {"model": str(rel / "model_cfgs/llm/llama_7b.json"),
                                  "system": str(rel / "system_cfgs/cloud_A/cloud_A_h100.80_64.json"),
                                  "task": str(rel / "task_cfgs/llm/llm_inference.json")},
               "gpus": [8], "parallel": {"tp": [1, 8], "batch": ["auto"]}}
    path.write_text(yaml.safe_dump(serving))
    s = load_space(path)
    assert s.kind == "llm_inference" and s.base.inference.batch is None
    assert (score_point(s, 8, {})["feasible"]).all()


def test_madmax_errors_name_the_field(tmp_path):
    got = problems({"madmax": {"model": "m.json", "system": "s.json"}, "gpus": [8]})
    assert "model, system and task" in got["madmax"]
    got = problems({**SERVING, "madmax": {"model": "a", "system": "b", "task": "c"}})
    assert "not both" in got["madmax"]
    path = tmp_path / "space.yaml"
    path.write_text(yaml.safe_dump({"madmax": {"model": "missing.json", "system": "s.json", "task": "t.json"},
                                    "gpus": [8]}))
    with pytest.raises(InputError) as info:
        load_space(path)
    assert any(p.field.startswith("madmax") for p in info.value.problems)


def test_dlrm_inference_space():
    s = space(DLRM, scenario={**DLRM["scenario"], "workload": "inference"},
              parallel={"emb_sharding": ["table", "data_parallel"], "microbatch": [4096]})
    assert s.kind == "dlrm_inference"
    df = score_point(s, 8, {"scaleout_gbitps": 100.0})
    assert len(df) == 2 and np.isfinite(df["samples_per_s"]).all()
    trained = score_point(space(DLRM, parallel={"emb_sharding": ["table", "data_parallel"], "microbatch": [4096]}),
                          8, {"scaleout_gbitps": 100.0})
    assert (df["iteration_time_s"].to_numpy() < trained["iteration_time_s"].to_numpy()).all()  # no backward


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 5000), st.floats(allow_nan=True), st.text(max_size=6),
                    st.lists(st.one_of(st.integers(-1, 4096), st.sampled_from(["auto", "table", "cost", "1"])),
                             max_size=4))


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(st.sampled_from(["serving", "dlrm"]),
       st.dictionaries(st.sampled_from(["tp", "pp", "ep", "batch", "cp", "emb_sharding", "emb_planner", "zero",
                                        "microbatch", "sp"]), _VALUES, max_size=4))
def test_mutated_parallel_blocks_load_or_name_the_field(which, parallel):
    data = copy.deepcopy(SERVING if which == "serving" else DLRM)
    data["parallel"].update(parallel)
    try:
        s = space_from_dict(data)
    except InputError as err:
        assert err.problems and all(p.field and p.message for p in err.problems)
        return
    for n in s.gpu_counts():
        grid = plan_grid(s, n)
        assert all(len(v) == len(grid["num_gpus"]) for v in grid.values())


def test_the_offload_space_finds_offloading_and_matches_dse_evaluate():
    """search_spaces/llama3_70b_gb200_offload.yaml: the offload dimension reaches the cost model,
    a searched plan with offloaded layers equals the same scenario through dse.evaluate, and
    Megatron-Bridge's GB200 plan (FSDP, 40 layers offloaded) is feasible only with them."""
    from dse.api import evaluate
    from dse.scenario import scenario_from_dict

    s = load_space(SPACES / "llama3_70b_gb200_offload.yaml")
    df = score_point(s, 64, {})
    assert set(df["offload_layers"]) == {0.0, 10.0, 20.0, 40.0, 60.0}
    fsdp = df[(df.tp == 1) & (df.pp == 1) & (df.zero == 3) & (df.recompute == 0) & (df.microbatch == 2)]
    by_offload = fsdp.set_index("offload_layers")
    assert not by_offload.loc[0.0, "feasible"] and by_offload.loc[40.0, "feasible"]
    row = by_offload.loc[40.0]
    scenario = {"model": "llama3-70b", "precision": "fp8", "cluster": {"gpu": "GB200", "num_gpus": 64},
                "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 2, "global_batch": 256},
                "training": {"offload_activation_layers": 40}}
    ref = evaluate([scenario_from_dict(scenario)])
    for metric in ("tokens_per_s", "memory_per_gpu_bytes"):
        assert row[metric] == pytest.approx(ref[metric].iat[0], rel=1e-12)


def test_host_link_knob_sets_the_column_and_only_training_takes_it():
    from dse.search.space import hardware_columns

    assert hardware_columns({"host_link_bw": 1.0}, {"host_link_gbps": 128})["host_link_bw"] == 64e9
    s = load_space(SPACES / "llama3_70b_gb200_offload.yaml")
    assert [float(v) for v in s.spec.hardware.host_link_gbps.values] == [128.0, 900.0]
    # over PCIe Gen5 a 3.6 GiB layer copy (76 ms a direction) outlasts the layer: exposed
    slow = score_point(s, 64, {"host_link_gbps": 128.0})
    fsdp = slow[(slow.tp == 1) & (slow.pp == 1) & (slow.zero == 3) & (slow.recompute == 0)
                & (slow.microbatch == 2) & (slow.offload_layers == 40)]
    assert (fsdp["exposed_offload_s"] > 0).all()
    got = problems(SERVING, hardware={"host_link_gbps": {"values": [128, 900]}})
    assert "only training offloads activations" in got["hardware.host_link_gbps"]


def test_exponential_rate_knob_sets_the_column_and_serving_takes_it():
    from dse.search.space import hardware_columns

    assert hardware_columns({"exp_rate": 1.0}, {"exp_tera_per_s": 10.7})["exp_rate"] == pytest.approx(10.7e12)
    s = space(SERVING, hardware={"exp_tera_per_s": {"values": [2.5, 10.7]}})
    slow, fast = (score_point(s, 4, {"exp_tera_per_s": v}) for v in (2.5, 10.7))
    assert (fast["ttft_ms"] <= slow["ttft_ms"] * (1 + 1e-12)).all() and (fast["ttft_ms"] < slow["ttft_ms"]).any()


def test_a_serving_space_can_trade_throughput_for_average_power(tmp_path):
    """power_per_gpu_w is an objective: the exhaustive front of tokens/s per GPU against the
    average power holds plans that draw less than the most productive one, and every row has
    its power between the idle floor and the power limit."""
    s = space(SERVING, objectives=[{"metric": "tokens_per_s_per_gpu", "direction": "maximize"},
                                   {"metric": "power_per_gpu_w", "direction": "minimize"}])
    run = run_search(s, out_dir=tmp_path, mode="exhaustive", progress=False, plots=False)
    df, front = _check_run(run, tmp_path)
    ok = df[df["feasible"]]
    assert ((ok["power_per_gpu_w"] > 0.1 * 700) & (ok["power_per_gpu_w"] <= 700 + 1e-6)).all()
    assert len(front) > 1
    top = front.loc[front["tokens_per_s_per_gpu"].idxmax()]
    assert front["power_per_gpu_w"].min() < top["power_per_gpu_w"]


def test_l2_cache_knob_sets_the_column_and_only_a_dlrm_takes_it():
    from dse.search.space import hardware_columns

    assert hardware_columns({"l2_bytes": 1.0}, {"l2_mb": 126})["l2_bytes"] == 126 * 2**20
    assert hardware_columns({"l2_bytes": 1.0}, {"l2_mb": 0})["l2_bytes"] == 0.0  # no cache is a value
    got = problems(SERVING, hardware={"l2_mb": {"values": [50, 126]}})
    assert "only the DLRM model has an L2 cache term" in got["hardware.l2_mb"]
    s = space(DLRM, hardware={"l2_mb": {"values": [0, 50, 200]}})
    rows = {mb: score_point(s, 16, {"l2_mb": float(mb)}) for mb in (0, 50, 200)}
    best = [float(rows[mb]["samples_per_s"].max()) for mb in (0, 50, 200)]
    assert best[0] < best[1] <= best[2] * (1 + 1e-9)  # the lookups of the rows it holds skip HBM


def test_the_shipped_two_gpu_space_holds_its_header():
    """search_spaces/llama3_70b_disaggregated_two_gpus.yaml says: the cheapest deployment runs 22
    H100 prefill instances of TP 1 and 10 H200 decode instances of TP 1 at 1.33 USD per million
    tokens and a 32 ms ITL; the cheapest all-H200 one costs 1.57."""
    from dse.presets import prefill_gpu_code

    s = load_space(Path(__file__).resolve().parents[2] / "search_spaces" / "llama3_70b_disaggregated_two_gpus.yaml")
    df = score_point(s, 32, {})
    ok = df[df["feasible"]]
    h100 = prefill_gpu_code("H100-SXM-80GB", "H200-SXM-141GB")
    best = ok.sort_values("cost_per_mtok_usd").iloc[0]
    assert best["prefill_gpu"] == h100 and (best["prefill_instances"], best["decode_instances"]) == (22, 10)
    assert (best["prefill_tp"], best["tp"]) == (1, 1) and round(best["itl_ms"]) == 32
    assert round(best["cost_per_mtok_usd"], 2) == 1.33
    assert round(ok[ok["prefill_gpu"] == 0]["cost_per_mtok_usd"].min(), 2) == 1.57
