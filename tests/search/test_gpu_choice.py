"""The GPU as a search dimension (``hardware.gpu``): each candidate scores as the same space on
that GPU alone, the results name it, the drivers propose it by name, and every misuse is a
clear error naming the field."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dse.errors import InputError
from dse.presets import gpu_code, gpu_name
from dse.search.enumerate import plan_grid, space_size
from dse.search.evaluation import score_point
from dse.search.runner import run_search
from dse.search.space import space_from_dict

H100, H200, B200 = "H100-SXM-80GB", "H200-SXM-141GB", "B200-180GB"
PRICES = {H100: 2.5, H200: 3.5, B200: 6.0}

#: Llama-3.1-8B serving on 1-8 of three GPUs, each with a stated price.
SERVING = {
    "name": "serving-gpus",
    "scenario": {"model": "llama3.1-8b", "precision": "fp8", "workload": "inference",
                 "inference": {"input_len": 1000, "output_len": 200}},
    "gpus": [1, 2, 8],
    "hardware": {"gpu": {"values": [{"gpu": g, "price_per_gpu_hour": p} for g, p in PRICES.items()]}},
    "parallel": {"tp": [1, 2, 8], "pp": [1, 2], "batch": [1, 64, 4096, "auto"]},
    "objectives": [{"metric": "cost_per_mtok_usd", "direction": "minimize"},
                   {"metric": "itl_ms", "direction": "minimize"}],
    "search": {"n_trials": 12, "batch_size": 4},
}
#: Llama-2-7B training on 8-16 A100s or H100s, bf16, with a cluster-wide scale-out setting.
TRAINING = {
    "name": "training-gpus",
    "scenario": {"model": "llama2-7b", "precision": "bf16", "cluster": {"scaleout_gbitps": 200.0}},
    "gpus": [8, 16],
    "hardware": {"gpu": {"values": ["A100-SXM-80GB", H100]}, "hbm_gb": {"values": [40.0, 80.0]}},
    "parallel": {"tp": [1, 2, 4], "pp": [1, 2], "zero": [0, 3], "microbatch": [1, 2]},
    "global_batch": {"sequences": 256},
}
#: A small DLRM on 12 GPUs: whole 4-GPU GB200 trays, but not whole 8-GPU A100 servers.
DLRM = {
    "name": "dlrm-gpus",
    "scenario": {
        "workload": "train", "precision": "bf16",
        "model": {"name": "dlrm-small", "family": "dlrm", "dense_features": 13,
                  "tables": {"count": 16, "rows": 1000000, "dim": 64, "pooling": 4},
                  "bottom_mlp": [256, 64], "top_mlp": [256, 1]},
    },
    "gpus": [12],
    "hardware": {"gpu": {"values": ["A100-SXM-80GB", "GB200"]}},
    "parallel": {"emb_sharding": ["table", "table_row"], "emb_planner": ["cost"], "tp": [1],
                 "zero": [0], "microbatch": [1024]},
}


def edited(data: dict, **edits) -> dict:
    data = copy.deepcopy(data)
    data.update(edits)
    return data


def problems(data: dict) -> dict[str, str]:
    with pytest.raises(InputError) as info:
        space_from_dict(data)
    return {p.field: p.message for p in info.value.problems}


def on_one_gpu(data: dict, gpu: str, price: float | None = None) -> dict:
    """The same space with the cluster on ``gpu`` (at ``price``) and no gpu knob."""
    data = copy.deepcopy(data)
    hardware = {k: v for k, v in data["hardware"].items() if k != "gpu"}
    data["hardware"] = hardware or None
    cluster = {**data["scenario"].get("cluster", {}), "gpu": gpu}
    if price is not None:
        cluster["price_per_gpu_hour"] = price
    data["scenario"]["cluster"] = cluster
    return data


# ------------------------------------------------------------------------------ scoring
@pytest.mark.parametrize("gpu", [H100, H200, B200])
def test_each_candidate_scores_as_the_space_on_that_gpu_alone(gpu):
    s = space_from_dict(SERVING)
    alone = space_from_dict(on_one_gpu(SERVING, gpu, PRICES[gpu]))
    for n in s.gpu_counts():
        got = score_point(s, n, {"gpu": float(gpu_code(gpu))})
        ref = score_point(alone, n, {})
        assert (got["hw.gpu"] == gpu_code(gpu)).all()
        for col in ref.columns:
            if col == "price_per_gpu_hour" or ref[col].dtype == object:
                continue
            np.testing.assert_allclose(got[col].to_numpy(dtype=float), ref[col].to_numpy(dtype=float),
                                       rtol=1e-12, equal_nan=True, err_msg=f"{gpu} {n} {col}")
        assert got["price_per_gpu_hour"].eq(PRICES[gpu]).all()  # kept: it differs between candidates


def test_a_searched_training_point_scores_as_dse_evaluate_on_that_gpu():
    import dse

    s = space_from_dict(TRAINING)
    df = score_point(s, 16, {"gpu": float(gpu_code(H100)), "hbm_gb": 80.0})
    ok = df[df["feasible"]]
    assert len(ok) > 10
    for _, row in ok.head(6).iterrows():
        ref = dse.evaluate(dse.load_scenario({
            "model": "llama2-7b", "precision": "bf16",
            "cluster": {"gpu": H100, "num_gpus": 16, "scaleout_gbitps": 200.0, "hbm_gb": 80.0},
            "parallel": {"tp": int(row.tp), "pp": int(row.pp), "zero": int(row.zero),
                         "microbatch": int(row.microbatch), "global_batch": 256}})).iloc[0]
        for key in ("tokens_per_s", "iteration_time_s", "memory_per_gpu_bytes", "mfu"):
            assert row[key] == pytest.approx(ref[key], rel=1e-9), key
    # the cluster-wide setting applies to every candidate; each keeps its own peak
    a100 = score_point(s, 16, {"gpu": float(gpu_code("A100-SXM-80GB")), "hbm_gb": 80.0})
    assert a100["scaleout_bw"].eq(200e9 / 8).all() and df["scaleout_bw"].eq(200e9 / 8).all()
    assert a100["peak_flops"].iat[0] < df["peak_flops"].iat[0]


def test_the_gpu_choice_holds_every_single_gpu_space_and_its_front_dominates_theirs(tmp_path):
    """The space over the candidates is the union of the spaces on each: same size, and its best
    cost is the best of theirs (the Pareto front over GPUs is never worse than any one's)."""
    union = space_size(space_from_dict(SERVING))["total"]
    alone = [space_from_dict(on_one_gpu(SERVING, g, p)) for g, p in PRICES.items()]
    assert union == sum(space_size(a)["total"] for a in alone)
    result = run_search(space_from_dict(SERVING), out_dir=tmp_path / "all", mode="exhaustive", workers=1)
    df = pd.read_parquet(tmp_path / "all" / "configs.parquet")
    assert len(df) == union and set(df["hw.gpu"]) == {float(gpu_code(g)) for g in PRICES}
    best = df[df["feasible"]]["cost_per_mtok_usd"].min()
    bests = [pd.concat([score_point(a, n, {}) for n in a.gpu_counts()]).query("feasible")["cost_per_mtok_usd"].min()
             for a in alone]
    assert best == pytest.approx(min(bests), rel=1e-12)
    from dse.search.results import summarize

    summary, top = summarize(result.out_dir, k=3)
    assert summary["top"][0]["hw.gpu"] in PRICES and summary["pareto"][0]["hw.gpu"] in PRICES  # by name
    # which GPU, answered: the best on each, best first, each as the best of that GPU alone
    per_gpu = summary["best_per_gpu"]
    assert sorted(r["hw.gpu"] for r in per_gpu) == sorted(PRICES)
    costs = [r["cost_per_mtok_usd"] for r in per_gpu]
    assert costs == sorted(costs) and costs == pytest.approx(sorted(bests), rel=1e-12)
    from io import StringIO

    from rich.console import Console

    from dse.search.results import render_results

    out = StringIO()
    render_results(Console(file=out, width=200), summary, top)
    assert "Best on each GPU of hardware.gpu (3, best first)" in out.getvalue()


def test_dlrm_node_plans_follow_each_candidates_server():
    s = space_from_dict(DLRM)
    a100, gb200 = s.on_gpu(gpu_code("A100-SXM-80GB")), s.on_gpu(gpu_code("GB200"))
    assert len(plan_grid(gb200, 12)["num_gpus"]) > len(plan_grid(a100, 12)["num_gpus"])
    assert space_size(s)["total"] == len(plan_grid(a100, 12)["num_gpus"]) + len(plan_grid(gb200, 12)["num_gpus"])
    on_gb200 = score_point(s, 12, {"gpu": float(gpu_code("GB200"))})
    on_a100 = score_point(s, 12, {"gpu": float(gpu_code("A100-SXM-80GB"))})
    table_row = 3.0  # dse.costmodel.dlrm.SHARDING["table_row"]
    from dse.costmodel.dlrm import SHARDING

    assert SHARDING["table_row"] == table_row
    assert (on_gb200["emb_sharding"] == table_row).any() and not (on_a100["emb_sharding"] == table_row).any()


def test_a_price_model_scales_each_candidates_own_price():
    data = edited(TRAINING, price_model={"exponents": {"hbm_gb": 1.0}},
                  hardware={"gpu": {"values": [{"gpu": "A100-SXM-80GB", "price_per_gpu_hour": 2.0},
                                               {"gpu": H100, "price_per_gpu_hour": 4.0}]},
                            "hbm_gb": {"values": [40.0, 80.0]}})
    s = space_from_dict(data)
    for gpu, price in (("A100-SXM-80GB", 2.0), (H100, 4.0)):
        df = score_point(s, 8, {"gpu": float(gpu_code(gpu)), "hbm_gb": 40.0})
        own_gib = s.on_gpu(gpu_code(gpu)).base_columns(8)["hbm_bytes"] / 2**30
        assert df["price_per_gpu_hour"].iat[0] == pytest.approx(price * 40.0 / own_gib, rel=1e-12)


# ------------------------------------------------------------------------------ drivers
@pytest.mark.parametrize("mode", ["nested", "optuna"])
def test_optuna_proposes_the_gpu_by_name_and_a_resumed_study_reads_it(mode, tmp_path):
    import optuna

    from dse.search.drivers import score_trials, trial_point

    s = space_from_dict(SERVING)
    run_search(s, out_dir=tmp_path, mode=mode, workers=1)
    study = optuna.load_study(study_name=s.name, storage=optuna.storages.JournalStorage(
        optuna.storages.journal.JournalFileBackend(str(tmp_path / "study.journal"))))
    trials = study.get_trials(deepcopy=False)
    assert {t.params["hw.gpu"] for t in trials} <= set(PRICES) and len(trials) == 12
    codes = {dict(trial_point(t.params, s)[1])["gpu"] for t in trials}
    assert codes <= {float(gpu_code(g)) for g in PRICES}
    rescored = score_trials(s, mode, trials)
    assert set(rescored["hw.gpu"]) == codes
    # a second run resumes the same study: the stored names read back as the same points
    again = run_search(s, out_dir=tmp_path, mode=mode, workers=1, n_trials=6)
    assert again.report.trials_total == 18 and again.report.trials_failed == 0


# ------------------------------------------------------------------------------ naming
def test_results_and_show_name_the_gpu():
    from dse.search.results import _plain

    assert _plain("hw.gpu", float(gpu_code(B200))) == B200 and gpu_name(gpu_code(H200)) == H200
    s = space_from_dict(SERVING)
    assert list(s.knobs) == ["gpu"] and s.base.cluster.gpu == H100  # the first candidate stands in
    assert s.knobs["gpu"].values == [float(gpu_code(g)) for g in PRICES]


# ------------------------------------------------------------------------------ errors
def test_an_unknown_gpu_names_the_candidate_and_the_closest_presets():
    bad = edited(SERVING, hardware={"gpu": {"values": [H100, "H2000-SXM-141GB"]}})
    found = problems(bad)
    assert "unknown GPU" in found["hardware.gpu.values.1"] and "H200-SXM-141GB" in found["hardware.gpu.values.1"]


def test_a_candidate_without_the_precision_is_refused():
    bad = edited(SERVING, hardware={"gpu": {"values": [H100, "A100-SXM-80GB"]}})
    assert "fp8" in problems(bad)["hardware.gpu.values.1"]


def test_a_gpu_listed_twice_is_refused():
    bad = edited(TRAINING, hardware={"gpu": {"values": [H100, "h100-sxm-80gb"]}})
    assert "candidate 0 is already called H100-SXM-80GB" in problems(bad)["hardware.gpu.values.1"]
    # named apart, one preset may be listed twice (two clouds' instances of it), but not under one name
    twice = edited(TRAINING, hardware={"gpu": {"values": [{"gpu": H100, "name": "cloud-a"},
                                                          {"gpu": H100, "name": "cloud-a"}]}})
    assert "already called cloud-a" in problems(twice)["hardware.gpu.values.1"]


def test_an_unpriced_candidate_under_a_cost_objective_is_refused():
    bad = edited(SERVING, hardware={"gpu": {"values": [H100, B200]}})  # the B200 preset has no price
    assert "has no price" in problems(bad)["hardware.gpu.values.1"]
    # without a cost objective its cost is simply unknown
    fine = edited(bad, objectives=[{"metric": "tokens_per_s_per_gpu", "direction": "maximize"}])
    df = score_point(space_from_dict(fine), 1, {"gpu": float(gpu_code(B200))})
    assert df["cost_per_mtok_usd"].isna().all()


@pytest.mark.parametrize("cluster, field", [
    ({"hbm_gb": 100.0}, "scenario.cluster.hbm_gb"),
    ({"price_per_gpu_hour": 3.0}, "scenario.cluster.price_per_gpu_hour"),
    ({"gpu": H200}, "scenario.cluster.gpu"),
])
def test_a_cluster_block_describing_one_gpu_conflicts(cluster, field):
    bad = copy.deepcopy(TRAINING)
    bad["scenario"]["cluster"] = cluster
    assert field in problems(bad)


def test_per_gpu_prices_conflict_with_a_price_knob_and_a_base_price():
    knob = edited(TRAINING, hardware={**TRAINING["hardware"], "price_per_gpu_hour": {"values": [2.0, 3.0]}})
    assert "own price" in problems(knob)["hardware.price_per_gpu_hour"]
    base = edited(TRAINING, price_model={"usd_per_hour": 3.0, "exponents": {"hbm_gb": 1.0}})
    assert "drop usd_per_hour" in problems(base)["price_model.usd_per_hour"]


def test_a_prefill_gpu_conflicts_with_the_gpu_choice():
    bad = edited(SERVING, parallel={**SERVING["parallel"], "disaggregated": {"tp": [1], "gpu": [H100]}})
    assert "without hardware.gpu" in problems(bad)["parallel.disaggregated.gpu"]


def test_the_figure_draws_each_candidates_front_under_the_overall_one():
    import matplotlib as mpl

    from dse.search.plots import RC, plot_pair

    s = space_from_dict(SERVING)
    df = pd.concat([score_point(s, n, {"gpu": float(gpu_code(g))}) for n in s.gpu_counts() for g in PRICES],
                   ignore_index=True)
    with mpl.rc_context(RC):
        fig = plot_pair(df, ("cost_per_mtok_usd", "minimize"), ("itl_ms", "minimize"), title="gpus")
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:4] == ["Pareto front of the two axes (all GPUs)", *(f"front on {g}" for g in PRICES)]
    one = df[df["hw.gpu"] == gpu_code(H100)]
    with mpl.rc_context(RC):  # a single GPU: one front, as before
        labels = [t.get_text() for t in plot_pair(one, ("cost_per_mtok_usd", "minimize"),
                                                  ("itl_ms", "minimize")).legends[0].get_texts()]
    assert labels[0] == "Pareto front of the two axes" and not any(lab.startswith("front on") for lab in labels)


def test_the_shipped_gpu_space_holds_the_readme_figures():
    """README (Searching): with Llama-3.1-70B at RunPod's prices one B200 is cheapest down to 25 ms
    per output token (0.59 USD/Mtok against 0.71 on H100s, 0.72 on H200s; 0.31 at 100 ms) and
    at 15 ms four H200s are (1.81; H100 1.87, B200 2.03)."""
    from pathlib import Path

    from dse.search.space import load_space

    s = load_space(Path(__file__).resolve().parents[2] / "search_spaces" / "llama3_70b_serving_gpus.yaml")
    df = pd.concat([score_point(s, n, {"gpu": float(code)}) for n in s.gpu_counts() for code in s.gpu_choices()],
                   ignore_index=True)
    ok = df[df["feasible"]]

    def cheapest(limit: float) -> dict[str, tuple[float, float]]:
        rows = ok[ok["itl_ms"] <= limit]
        best = rows.loc[rows.groupby("hw.gpu")["cost_per_mtok_usd"].idxmin()]
        return {gpu_name(r["hw.gpu"]): (round(r["cost_per_mtok_usd"], 2), r["num_gpus"]) for _, r in best.iterrows()}

    assert cheapest(25.0) == {B200: (0.59, 1.0), H100: (0.71, 4.0), H200: (0.72, 2.0)}
    assert cheapest(100.0)[B200] == (0.31, 1.0)
    assert cheapest(15.0) == {H200: (1.81, 4.0), H100: (1.87, 8.0), B200: (2.03, 4.0)}


def test_the_shipped_amd_space_holds_the_readme_figures():
    """README (Searching): at the note's prices one MI325X or MI300X serves Llama-3.1-70B for about
    half what H100s cost down to 25 ms per output token (0.37 and 0.43 USD/Mtok against 0.92 on four
    H100s; 0.18 / 0.21 / 0.42 at 100 ms), and at 15 ms eight H100s (2.42) beat any AMD group: a
    tensor-parallel group on a mesh of Infinity Fabric links and RCCL's all-reduce latency."""
    from pathlib import Path

    from dse.search.space import load_space

    s = load_space(Path(__file__).resolve().parents[2] / "search_spaces" / "llama3_70b_serving_amd.yaml")
    ok = pd.concat([score_point(s, n, {"gpu": float(code)}) for n in s.gpu_counts() for code in s.gpu_choices()],
                   ignore_index=True).query("feasible")

    def cheapest(limit: float) -> dict[str, tuple[float, float]]:
        rows = ok[ok["itl_ms"] <= limit]
        best = rows.loc[rows.groupby("hw.gpu")["cost_per_mtok_usd"].idxmin()]
        return {gpu_name(r["hw.gpu"]): (round(r["cost_per_mtok_usd"], 2), r["num_gpus"]) for _, r in best.iterrows()}

    assert cheapest(25.0) == {"MI325X": (0.37, 1.0), "MI300X": (0.43, 1.0), H100: (0.92, 4.0)}
    assert {g: c for g, (c, _) in cheapest(100.0).items()} == {"MI325X": 0.18, "MI300X": 0.21, H100: 0.42}
    tight = cheapest(15.0)
    assert tight[H100] == (2.42, 8.0) and min(c for g, (c, _) in tight.items() if g != H100) > 3 * 2.42


def test_the_rtx_space_finds_the_pcie_server_cheapest_only_at_loose_latency():
    """README (Searching): at one provider's prices (RTX PRO 6000 0.66, B200 3.75 USD per GPU-hour) one
    RTX PRO 6000 serves Llama-3.1-70B in NVFP4 cheapest when 100 ms per output token is allowed (0.11
    USD/Mtok against 0.15) and from about 67 ms up, B200 at 60 ms and below: at 30 ms the RTX needs tensor
    parallelism over PCIe and costs 3x (0.63 on four, against 0.19 on one B200)."""
    from pathlib import Path

    from dse.search.space import load_space

    s = load_space(Path(__file__).resolve().parents[2] / "search_spaces" / "llama3_70b_serving_rtx.yaml")
    ok = pd.concat([score_point(s, n, {"gpu": float(code)}) for n in s.gpu_counts() for code in s.gpu_choices()],
                   ignore_index=True).query("feasible")
    rtx, b200 = "RTX-PRO-6000-Server", "B200-180GB"

    def cheapest(limit: float) -> dict[str, tuple[float, float, float]]:
        rows = ok[ok["itl_ms"] <= limit]
        best = rows.loc[rows.groupby("hw.gpu")["cost_per_mtok_usd"].idxmin()]
        return {gpu_name(r["hw.gpu"]): (round(r["cost_per_mtok_usd"], 2), r["num_gpus"], r["tp"])
                for _, r in best.iterrows()}

    assert cheapest(100.0) == {rtx: (0.11, 1.0, 1.0), b200: (0.15, 1.0, 1.0)}
    tight = cheapest(30.0)
    assert tight[b200] == (0.19, 1.0, 1.0) and tight[rtx][0] > 3 * tight[b200][0] and tight[rtx][2] > 1
    # the crossover: the RTX is cheaper at every limit from 70 ms up, B200 at every one up to 60 ms
    for limit in (70.0, 80.0, 100.0):
        costs = cheapest(limit)
        assert costs[rtx][0] < costs[b200][0], limit
    for limit in (20.0, 40.0, 60.0):
        costs = cheapest(limit)
        assert costs[b200][0] < costs[rtx][0], limit


def test_the_cloud_instance_space_names_each_instance_and_agrees_with_figure_2():
    """README (Searching): over MAD-Max's priced A100/H100 instances, Llama-2-13B trains cheapest on 64
    of Cloud_B's A100-40GB (0.42 USD per million tokens, as figure 2 finds) and fastest per GPU on
    Cloud_A's H100s; the A100-80GB without NVLink is the slowest per GPU of them."""
    from pathlib import Path

    from dse.search.space import load_space

    s = load_space(Path(__file__).resolve().parents[2] / "search_spaces" / "llama2_13b_cloud_instances.yaml")
    assert len(s.gpu_labels()) == 9 and len(set(s.gpu_choices())) == 9  # one preset listed up to four times
    ok = pd.concat([score_point(s, n, {"gpu": float(code)}) for n in (64, 128) for code in s.gpu_choices()],
                   ignore_index=True).query("feasible")
    best = ok.loc[ok.groupby("gpu")["cost_per_mtok_usd"].idxmin()].set_index("gpu")
    assert best["cost_per_mtok_usd"].idxmin() == "Cloud_B-A100-40GB"
    assert round(best.loc["Cloud_B-A100-40GB", "cost_per_mtok_usd"], 2) == 0.42
    assert best.loc["Cloud_B-A100-40GB", "num_gpus"] == 64
    per_gpu = ok.groupby("gpu")["tokens_per_s_per_gpu"].max()
    assert per_gpu.idxmax() == "Cloud_A-H100-80GB" and per_gpu.idxmin() == "Cloud_B-A100-80GB-noNVLink"


def test_the_shipped_training_gpu_space_holds_the_readme_figures():
    """README (Searching): pre-training Llama-3-70B in FP8 on 128-1,024 GPUs costs least on GB200
    (0.29 USD/Mtok at 4,373 tokens/s per GPU; B200 0.42, H100 0.48, H200 0.56), and 1,024 GB200s
    train 15T tokens in 40.6 days, 1,024 H100s in 112.8."""
    from pathlib import Path

    from dse.search.space import load_space

    s = load_space(Path(__file__).resolve().parents[2] / "search_spaces" / "llama3_70b_training_gpus.yaml")
    ok = pd.concat([score_point(s, n, {"gpu": float(code)}) for n in s.gpu_counts() for code in s.gpu_choices()],
                   ignore_index=True).query("feasible")
    by_gpu = {gpu_name(g): rows for g, rows in ok.groupby("hw.gpu")}
    cheapest = {g: round(rows["cost_per_mtok_usd"].min(), 2) for g, rows in by_gpu.items()}
    assert cheapest == {"GB200": 0.29, B200: 0.42, H100: 0.48, H200: 0.56}
    best = by_gpu["GB200"].loc[by_gpu["GB200"]["cost_per_mtok_usd"].idxmin()]
    assert round(best["tokens_per_s_per_gpu"]) == 4373
    days = {g: round(rows.loc[rows["num_gpus"] == 1024, "time_to_train_s"].min() / 86400, 1) for g, rows in by_gpu.items()}
    assert days["GB200"] == 40.6 and days[H100] == 112.8


# ------------------------------------------------------------------------------ a budget
def test_a_budget_keeps_what_each_gpus_price_affords():
    from dse.search.evaluation import apply_constraints

    s = space_from_dict(SERVING)
    df = pd.concat([score_point(s, n, {"gpu": float(gpu_code(g))}) for n in s.gpu_counts() for g in PRICES],
                   ignore_index=True)
    price = df["hw.gpu"].map({float(gpu_code(g)): p for g, p in PRICES.items()})
    assert np.allclose(df["cluster_usd_per_hour"], df["num_gpus"] * price)
    budget = space_from_dict(edited(SERVING, constraints={"max_cluster_usd_per_hour": 10.0}))
    kept = apply_constraints(df, budget)
    assert (kept == (df["feasible"] & (df["num_gpus"] * price <= 10.0))).all()
    # 10 USD/h buys two H100s or H200s, one B200 (8 GPUs of any kind are over it)
    assert set(zip(df.loc[kept, "hw.gpu"].map(gpu_name), df.loc[kept, "num_gpus"])) == {
        (H100, 1.0), (H100, 2.0), (H200, 1.0), (H200, 2.0), (B200, 1.0)}
    # scoring under the budget marks the rest infeasible, and the objective may name the price
    scored = score_point(budget, 8, {"gpu": float(gpu_code(H100))})
    assert not scored["feasible"].any() and scored["cluster_usd_per_hour"].eq(8 * PRICES[H100]).all()
    cheap = space_from_dict(edited(SERVING, objectives=[{"metric": "tokens_per_s", "direction": "maximize"},
                                                        {"metric": "cluster_usd_per_hour", "direction": "minimize"}]))
    assert cheap.objectives[1] == ("cluster_usd_per_hour", "minimize")


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(st.floats(1.0, 60.0), st.floats(0.0, 60.0))
def test_raising_the_budget_never_shrinks_the_feasible_set(budget, more):
    from dse.search.evaluation import apply_constraints

    df = _scored_serving()
    low = apply_constraints(df, space_from_dict(edited(SERVING, constraints={"max_cluster_usd_per_hour": budget})))
    high = apply_constraints(df, space_from_dict(edited(SERVING, constraints={"max_cluster_usd_per_hour": budget + more})))
    assert not (low & ~high).any()


_SCORED: dict[str, pd.DataFrame] = {}


def _scored_serving() -> pd.DataFrame:
    if not _SCORED:
        s = space_from_dict(SERVING)
        _SCORED["df"] = pd.concat([score_point(s, n, {"gpu": float(gpu_code(g))}) for n in s.gpu_counts()
                                   for g in PRICES], ignore_index=True)
    return _SCORED["df"]


def test_a_budget_needs_a_price():
    unpriced = {**TRAINING, "hardware": None, "constraints": {"max_cluster_usd_per_hour": 100.0},
                "scenario": {**TRAINING["scenario"], "cluster": {"gpu": H200}}}
    assert "no price" in problems(unpriced)["constraints.max_cluster_usd_per_hour"]
    one_unpriced = edited(SERVING, hardware={"gpu": {"values": [{"gpu": H100, "price_per_gpu_hour": 2.5}, B200]}},
                          objectives=[{"metric": "tokens_per_s_per_gpu", "direction": "maximize"}],
                          constraints={"max_cluster_usd_per_hour": 50.0})
    assert "max_cluster_usd_per_hour" in problems(one_unpriced)["hardware.gpu.values.1"]


# ------------------------------------------------------------------------------ a candidate's own servers
def test_a_candidates_own_cluster_overrides_score_as_that_cluster_alone():
    """{gpu, cluster: {...}}: the candidate's servers differ from its preset's (a slower NIC,
    smaller servers); it scores as the space with that cluster block, and the other candidate
    keeps its preset's figures and the cluster-wide setting."""
    data = edited(TRAINING, hardware={"gpu": {"values": [
        {"gpu": "A100-SXM-80GB", "price_per_gpu_hour": 2.0, "cluster": {"scaleout_gbitps": 50.0, "gpus_per_node": 4}},
        H100]}})
    s = space_from_dict(data)
    a100 = score_point(s, 16, {"gpu": float(gpu_code("A100-SXM-80GB"))})
    alone = copy.deepcopy(TRAINING)
    alone["hardware"] = None
    alone["scenario"]["cluster"] = {"gpu": "A100-SXM-80GB", "price_per_gpu_hour": 2.0, "scaleout_gbitps": 50.0,
                                    "gpus_per_node": 4}
    ref = score_point(space_from_dict(alone), 16, {})
    for col in ("tokens_per_s", "iteration_time_s", "scaleout_bw", "nvlink_domain", "cost_per_mtok_usd"):
        np.testing.assert_allclose(a100[col].to_numpy(dtype=float), ref[col].to_numpy(dtype=float), rtol=1e-12)
    assert a100["scaleout_bw"].eq(50e9 / 8).all() and a100["nvlink_domain"].eq(4).all()
    h100 = score_point(s, 16, {"gpu": float(gpu_code(H100))})
    assert h100["scaleout_bw"].eq(200e9 / 8).all() and h100["nvlink_domain"].eq(8).all()


@pytest.mark.parametrize("cluster, field, needle", [
    ({"scaleout_gbitps": -5.0}, "hardware.gpu.values.0.cluster.scaleout_gbitps", "greater than 0"),
    ({"gpus_per_nod": 4}, "hardware.gpu.values.0.cluster.gpus_per_nod", "allowed keys: gpus_per_node"),
    ({"gpu": B200}, "hardware.gpu.values.0.cluster.gpu", "the candidate's gpu"),
    ({"price_per_gpu_hour": 1.0}, "hardware.gpu.values.0.cluster.price_per_gpu_hour", "own price_per_gpu_hour"),
])
def test_a_bad_candidate_override_names_its_field(cluster, field, needle):
    bad = edited(TRAINING, hardware={"gpu": {"values": [{"gpu": "A100-SXM-80GB", "cluster": cluster}, H100]}})
    found = problems(bad)
    assert needle in found[field] and "scenario.cluster.gpu" not in found


def test_a_stored_trial_on_a_gpu_the_space_does_not_list_is_a_clear_error():
    from dse.search.drivers import trial_point

    s = space_from_dict(SERVING)
    assert trial_point({"num_gpus": 2, "hw.gpu": H200}, s) == (2, (("gpu", float(gpu_code(H200))),))
    with pytest.raises(InputError, match="not a candidate of this space's hardware.gpu"):
        trial_point({"num_gpus": 2, "hw.gpu": "A100-SXM-80GB"}, s)


@settings(max_examples=8, deadline=None, derandomize=True, database=None)
@given(st.sets(st.sampled_from([H100, H200, B200]), min_size=1), st.sampled_from([1, 2, 8]))
def test_more_gpu_candidates_never_lose(subset, n):
    """Adding candidates never lowers the best reachable: the best tokens/s per GPU over a subset
    of GPUs at a count is the largest of each GPU's own best, and never above the full set's."""
    def best(gpus: set[str]) -> float:
        data = edited(SERVING, hardware={"gpu": {"values": [{"gpu": g, "price_per_gpu_hour": PRICES[g]}
                                                            for g in sorted(gpus)]}})
        s = space_from_dict(data)
        df = pd.concat([score_point(s, n, {"gpu": float(c)}) for c in s.gpu_choices()], ignore_index=True)
        return float(df.loc[df["feasible"], "tokens_per_s_per_gpu"].max())

    alone = {g: best({g}) for g in subset}
    assert best(subset) == max(alone.values())
    assert best(subset) <= best(set(PRICES))


# ------------------------------------------------------------------------------ one GPU, two instances
#: MAD-Max's cloud_prices.csv: A100-40GB on Cloud_A (6.25 GB/s per GPU to the network, 4.0975 USD
#: per GPU-hour) and on Cloud_B (25 GB/s, 3.40 USD).
CLOUDS = edited(TRAINING, hardware={"gpu": {"values": [
    {"gpu": "A100-SXM-40GB", "name": "cloud-a-a100", "price_per_gpu_hour": 4.0975, "cluster": {"scaleout_gbitps": 50.0}},
    {"gpu": "A100-SXM-40GB", "name": "cloud-b-a100", "price_per_gpu_hour": 3.40, "cluster": {"scaleout_gbitps": 200.0}},
]}}, objectives=[{"metric": "cost_per_mtok_usd", "direction": "minimize"},
                 {"metric": "tokens_per_s", "direction": "maximize"}])


def test_one_gpu_listed_twice_under_two_names_is_two_candidates(tmp_path):
    from dse.search.results import summarize

    s = space_from_dict(CLOUDS)
    a100 = gpu_code("A100-SXM-40GB")
    assert list(s.gpu_choices()) == [a100, a100 + 1000] and gpu_name(a100 + 1000) == "A100-SXM-40GB"
    assert s.gpu_labels() == {float(a100): "cloud-a-a100", float(a100 + 1000): "cloud-b-a100"}
    for code, (nic, price) in ((a100, (50.0, 4.0975)), (a100 + 1000, (200.0, 3.40))):
        got = score_point(s, 16, {"gpu": float(code)})
        alone = copy.deepcopy(TRAINING)
        alone["hardware"] = None
        alone["scenario"]["cluster"] = {"gpu": "A100-SXM-40GB", "scaleout_gbitps": nic, "price_per_gpu_hour": price}
        ref = score_point(space_from_dict(alone), 16, {})
        np.testing.assert_allclose(got["tokens_per_s"], ref["tokens_per_s"], rtol=1e-12)
        np.testing.assert_allclose(got["cost_per_mtok_usd"], ref["cost_per_mtok_usd"], rtol=1e-12)
        assert set(got["gpu"]) == {s.gpu_labels()[float(code)]}
    run_search(s, out_dir=tmp_path, mode="exhaustive", workers=1)
    summary, _ = summarize(tmp_path)
    assert {r["gpu"] for r in summary["best_per_gpu"]} == {"cloud-a-a100", "cloud-b-a100"}
    assert summary["best_per_gpu"][0]["gpu"] == "cloud-b-a100"  # the faster network at the lower price


def test_optuna_proposes_a_named_candidate_by_its_name(tmp_path):
    import optuna

    from dse.search.drivers import trial_point

    s = space_from_dict(edited(CLOUDS, search={"n_trials": 6, "batch_size": 3}))
    run_search(s, out_dir=tmp_path, mode="optuna", workers=1)
    study = optuna.load_study(study_name=s.name, storage=optuna.storages.JournalStorage(
        optuna.storages.journal.JournalFileBackend(str(tmp_path / "study.journal"))))
    names = {t.params["hw.gpu"] for t in study.get_trials(deepcopy=False)}
    assert names <= {"cloud-a-a100", "cloud-b-a100"}
    codes = {dict(trial_point(t.params, s)[1])["gpu"] for t in study.get_trials(deepcopy=False)}
    assert codes <= {float(c) for c in s.gpu_choices()}


def test_the_nvlink_topology_is_a_hardware_knob_of_zero_or_one():
    hardware = {**SERVING["hardware"], "nvlink_mesh": {"values": [0, 1]}}
    space = space_from_dict(edited(SERVING, hardware=hardware))
    assert space.spec.hardware.nvlink_mesh.values == [0, 1]
    # the same plans behind a switch and in a mesh: the mesh is never faster, and slower for some
    switch, mesh = (score_point(space, 8, {"gpu": float(gpu_code(H100)), "nvlink_mesh": m}) for m in (0.0, 1.0))
    assert (mesh["hw.nvlink_mesh"] == 1.0).all() and len(mesh) == len(switch)
    ok = switch["feasible"].to_numpy(dtype=bool) & mesh["feasible"].to_numpy(dtype=bool)
    slow, fast = mesh["itl_ms"].to_numpy()[ok], switch["itl_ms"].to_numpy()[ok]
    assert (slow >= fast * (1 - 1e-12)).all() and (slow > fast * 1.01).any()
    with pytest.raises(InputError, match="nvlink_mesh takes 0 or 1"):
        space_from_dict(edited(SERVING, hardware={**SERVING["hardware"], "nvlink_mesh": {"values": [0, 2]}}))


def test_a_bad_candidate_mapping_reports_its_own_field_not_the_name_form():
    values = [{"gpu": H100, "name": "Cloud A", "price_per_gpu_hour": 2.0}, {"gpu": H200, "price_per_gpu_hour": 3.0}]
    found = problems(edited(SERVING, hardware={"gpu": {"values": values}}))
    # one problem, at the candidate's name, with the pattern as written (not lower-cased)
    assert found == {"hardware.gpu.values.0.name": "must match the pattern ^[A-Za-z0-9._-]+$"}
