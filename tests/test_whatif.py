"""Hardware what-ifs (dse.whatif) and the ``dse whatif`` command."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from dse.errors import InputError
from dse.whatif import (
    BOTTLENECKS,
    VARY_KNOBS,
    bottleneck,
    parse_vary,
    placement,
    plan_text,
    plot_whatif,
    sensitivity,
    software_space,
    to_record,
    whatif,
)

ROOT = Path(__file__).resolve().parents[1]
LLAMA70 = ROOT / "scenarios" / "llama2_70b_h100.yaml"
DSE = Path(sys.executable).parent / "dse"
#: Llama-2-7B on one 8-GPU server: every parallel group fits in one NVLink domain.
SMALL = {"name": "llama2-7b-8", "model": "llama2-7b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
         "parallel": {"tp": 1, "global_batch": 64}}
TIME_PARTS = ("time_compute_s", "time_bubble_s", "exposed_tp_s", "exposed_ep_s", "exposed_cp_s",
              "exposed_fsdp_s", "exposed_pp_s", "exposed_dp_s", "exposed_offload_s", "host_stall_s",
              "time_overlap_slowdown_s", "time_power_cap_s")


# ---------------------------------------------------------------------------- parse_vary
@pytest.mark.parametrize("text, knob, values", [
    ("nvlink_domain=8,16,36,72", "nvlink_domain", [8, 16, 36, 72]),
    ("scaleout_gbitps=100:400:4", "scaleout_gbitps", [100, 200, 300, 400]),
    ("scaleout_gbitps=100:1600:5:log", "scaleout_gbitps", [100, 200, 400, 800, 1600]),
    ("hbm_gb = 80", "hbm_gb", [80]),
    ("peak_scale=2,1,1.5", "peak_scale", [1, 1.5, 2]),  # sorted
    ("num_gpus=8:64:3:log", "num_gpus", [8, 23, 64]),  # whole numbers rounded
    ("nvlink_domain=8:9:3", "nvlink_domain", [8, 9]),  # a range's points rounded and deduplicated
    ("price_per_gpu_hour=0,2", "price_per_gpu_hour", [0, 2]),
    ("nvlink_mesh=1,0", "nvlink_mesh", [0, 1]),
])
def test_parse_vary_forms(text, knob, values):
    name, got = parse_vary(text)
    assert name == knob
    np.testing.assert_allclose(got, values, rtol=1e-9)


@pytest.mark.parametrize("text, needle", [
    ("bogus=1,2", "unknown knob 'bogus'"),
    ("scaleout_gbitps", "KNOB=LO:HI:N"),
    ("scaleout_gbitps=", "no values"),
    ("scaleout_gbitps=a,b", "finite numbers"),
    ("scaleout_gbitps=nan", "finite numbers"),
    ("scaleout_gbitps=400:100:3", "must be below HI"),
    ("scaleout_gbitps=0:100:3:log", "LO > 0"),
    ("scaleout_gbitps=1:100:1", ">= 2"),
    ("scaleout_gbitps=1:100:3:cubic", "'log'"),
    ("scaleout_gbitps=1:2", "3 parts"),
    ("hbm_gb=-1", "> 0"),
    ("nvlink_domain=0", "whole numbers >= 1"),
    ("nvlink_domain=8,8.5,16", "listed values must be whole"),  # not silently 8
    ("nvlink_mesh=0,2", "0 or 1"),
])
def test_parse_vary_errors_name_the_option_the_text_and_what_is_allowed(text, needle):
    with pytest.raises(InputError) as info:
        parse_vary(text)
    message = str(info.value)
    assert "--vary" in message and needle in message
    assert repr(text) in message  # what was given
    if needle.startswith("unknown knob"):
        assert all(k in message for k in VARY_KNOBS)


def test_software_space_defaults_and_the_scenarios_own_plan():
    from dse.scenario import load_scenario

    spec = load_scenario(LLAMA70)
    par = software_space(spec).spec.parallel
    assert par.tp == [1, 2, 4, 8] and par.pp == [1, 2, 4, 8, 16] and par.cp == [1, 2] and par.ep == [1]
    assert par.vpp == [1, 2, 4, 5]  # the scenario's vpp 5 is a candidate too
    assert par.zero == [0, 1, 2, 3] and par.microbatch == [1, 2, 4, 8] and par.sp == "auto"
    assert software_space(spec).global_batches() == [128]
    moe = software_space(load_scenario(ROOT / "scenarios" / "mixtral_8x7b_h100.yaml"), [32, 64])
    assert moe.spec.parallel.ep == [1, 2, 4, 8] and moe.gpu_counts() == [32, 64]


def test_a_fine_tune_is_explored_as_the_fine_tune_it_is():
    """The what-if keeps the scenario's finetune block: its best plan is never worse than the
    scenario's own (a Llama-2-7B with 30 of 32 layers frozen was scored as full training, its best
    plan 61 % below its own)."""
    scenario = {"name": "frozen", "workload": "finetune", "model": "llama2-7b",
                "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8},
                "parallel": {"tp": 1, "pp": 1, "zero": 3, "microbatch": 4, "global_batch": 64},
                "finetune": {"frozen_layers": 30, "freeze_embeddings": True}}
    result = whatif(scenario, {})
    best = result.points["best_tokens_per_s_per_gpu"].max()
    assert result.own["feasible"] and best >= result.own["tokens_per_s_per_gpu"] * (1 - 1e-9)
    from dse.scenario import load_scenario

    base = software_space(load_scenario(scenario)).base
    assert (base.workload, base.finetune.frozen_layers) == ("finetune", 30)


# ---------------------------------------------------------------------------- what-ifs
@pytest.fixture(scope="module")
def scaleout():
    return whatif(LLAMA70, {"scaleout_gbitps": [100, 400, 1600]})


def test_best_throughput_never_falls_with_more_scaleout_bandwidth(scaleout):
    pts = scaleout.points
    assert list(pts["scaleout_gbitps"]) == [100, 400, 1600]
    best = pts["best_tokens_per_s"].to_numpy()
    assert np.isfinite(best).all()
    assert (np.diff(best) >= -1e-9 * best[:-1]).all(), best
    assert (pts["feasible_plans"] > 0).all() and (pts["plans"] >= pts["feasible_plans"]).all()
    # the best plan beats (or equals) the scenario's own plan at its own hardware
    assert scaleout.base["best_tokens_per_s"] >= scaleout.own["tokens_per_s"] * (1 - 1e-9)
    # the 400 Gbit/s point is the scenario's own hardware
    assert math.isclose(pts["best_tokens_per_s"].iloc[1], scaleout.base["best_tokens_per_s"], rel_tol=1e-12)
    # time parts add up to the iteration; the compute split adds up to compute
    for _, row in pts.iterrows():
        assert math.isclose(sum(row[c] for c in TIME_PARTS), row["iteration_time_s"], rel_tol=1e-9)
        assert math.isclose(row["time_compute_flops_s"] + row["time_compute_hbm_s"], row["time_compute_s"],
                            rel_tol=1e-9)
    for column in ("best_tokens_per_s_per_gpu", "best_mfu", "best_cost_per_mtok_usd", "best_energy_per_token_j",
                   "tp", "pp", "dp", "cp", "ep", "vpp", "zero", "sp", "recompute", "microbatch"):
        assert column in pts.columns


def test_a_lower_power_limit_trades_throughput_for_energy_and_the_time_parts_still_add_up():
    result = whatif(SMALL, {"power_w": [400.0, 550.0, 700.0]})
    pts = result.points.sort_values("power_w")
    best, energy = pts["best_tokens_per_s"].to_numpy(), pts["best_energy_per_token_j"].to_numpy()
    assert (np.diff(best) >= -1e-9 * best[:-1]).all() and best[0] < best[-1]  # the GEMM-bound step slows
    assert energy[0] < energy[-1]  # ... at a lower voltage: less energy per token
    assert (pts["best_power_per_gpu_w"] <= pts["power_w"] * (1 + 1e-6)).all()
    for _, row in pts.iterrows():
        assert math.isclose(sum(row[c] for c in TIME_PARTS), row["iteration_time_s"], rel_tol=1e-9)
    assert pts["time_power_cap_s"].iloc[0] > 0 and pts["time_power_cap_s"].iloc[-1] == 0


def test_a_larger_nvlink_domain_never_lowers_the_best_throughput():
    result = whatif(LLAMA70, {"nvlink_domain": [8, 72]})
    small, large = result.points.sort_values("nvlink_domain")["best_tokens_per_s"]
    assert large >= small * (1 - 1e-12)


def test_two_knob_heatmap_writes_png_pdf_and_csvs(tmp_path):
    result = whatif(LLAMA70, {"scaleout_gbitps": [100, 400], "nvlink_domain": [8, 16, 72]})
    assert len(result.points) == 6 and result.knobs == ["scaleout_gbitps", "nvlink_domain"]
    paths = plot_whatif(result, tmp_path)
    names = {p.name for p in paths}
    stem = "whatif_scaleout_gbitps_nvlink_domain"
    assert {"whatif.csv", "sensitivity.csv", f"{stem}.png", f"{stem}.pdf"} <= names
    png, pdf = tmp_path / f"{stem}.png", tmp_path / f"{stem}.pdf"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and pdf.read_bytes()[:5] == b"%PDF-"
    assert b"CreationDate" not in pdf.read_bytes()
    first = pdf.read_bytes()
    plot_whatif(result, tmp_path)  # same data, same bytes
    assert pdf.read_bytes() == first
    import pandas as pd

    assert len(pd.read_csv(tmp_path / "whatif.csv")) == 6
    assert set(pd.read_csv(tmp_path / "sensitivity.csv")["knob"]) >= {"peak_scale", "hbm_gb", "scaleout_gbitps"}


def test_one_knob_curve_and_three_knobs_no_figure(tmp_path, scaleout):
    paths = plot_whatif(scaleout, tmp_path / "one")
    assert {"whatif_scaleout_gbitps.png", "whatif_scaleout_gbitps.pdf"} <= {p.name for p in paths}
    three = whatif(SMALL, {"hbm_gb": [40, 80], "peak_scale": [1, 2], "scaleout_gbitps": [100, 400]})
    paths = plot_whatif(three, tmp_path / "three")
    assert sorted(p.name for p in paths) == ["sensitivity.csv", "whatif.csv"]
    assert len(three.points) == 8


@pytest.mark.parametrize("knob, values", [("host_link_gbps", [64, 900]), ("exp_tera_per_s", [2.5, 10.7])])
def test_every_knob_can_be_varied(knob, values, tmp_path):
    """Each hardware knob of the search spaces varies in a what-if too, with its own axis label
    (host_link_gbps raised KeyError before); the softmax exponential rate moves training attention."""
    assert knob in VARY_KNOBS
    result = whatif(SMALL, {knob: values})
    best = result.points.sort_values(knob)["best_tokens_per_s"].to_numpy()
    assert best[1] >= best[0] * (1 - 1e-12)
    if knob == "exp_tera_per_s":
        assert best[1] > best[0]
    assert {f"whatif_{knob}.png"} <= {p.name for p in plot_whatif(result, tmp_path)}


def test_more_gpus_and_infeasible_points_are_reported_not_dropped():
    result = whatif(SMALL, {"num_gpus": [3, 8]})
    pts = result.points.set_index("num_gpus")
    assert pts.loc[3.0, "feasible_plans"] == 0 and math.isnan(pts.loc[3.0, "best_tokens_per_s"])
    assert pts.loc[8.0, "best_tokens_per_s"] > 0
    assert pts.loc[3.0, "plans"] == 0  # no candidate lays out on 3 GPUs: the note says why
    assert any(n.startswith("no plan lays out on 3 GPUs (") and "global batch (64 sequences)" in n
               for n in result.notes), result.notes
    json.dumps(to_record(result), allow_nan=False)  # NaN as null


def test_bad_knob_or_value_in_the_api_is_an_input_error():
    with pytest.raises(InputError, match="vary.bogus"):
        whatif(SMALL, {"bogus": [1]})
    with pytest.raises(InputError, match="hbm_gb must be > 0"):
        whatif(SMALL, {"hbm_gb": [0]})


# ---------------------------------------------------------------------------- sensitivity
@pytest.fixture(scope="module")
def small_sens():
    return sensitivity(SMALL).set_index("knob")


def test_elasticity_to_peak_flops_is_between_0_and_1_2_when_compute_heavy(small_sens):
    e = small_sens.loc["peak_scale", "elasticity"]
    assert 0.0 < e <= 1.2, e
    assert small_sens.loc["peak_scale", "plan"] == "fixed" and small_sens.loc["hbm_gb", "plan"] == "re-optimized"


def test_elasticity_to_the_softmax_exponential_rate_is_small_and_positive(small_sens):
    """Llama-2-7B at 4,096 tokens on H100: the exponentials are a few percent of the step, so a
    faster SFU helps a little and never hurts; the tensor peaks matter far more."""
    e = small_sens.loc["exp_tera_per_s", "elasticity"]
    assert 0.0 < e < 0.1, e
    assert e < small_sens.loc["peak_scale", "elasticity"]
    assert small_sens.loc["exp_tera_per_s", "base"] == pytest.approx(3.9)


def test_elasticity_to_scaleout_is_zero_when_every_group_is_inside_one_nvlink_domain(small_sens):
    assert abs(small_sens.loc["scaleout_gbitps", "elasticity"]) < 1e-6
    assert abs(small_sens.loc["scaleout_gbitps", "elasticity_reoptimized"]) < 1e-6
    assert small_sens.loc["nvlink_domain", "plus"] == 16  # one step up: 8 -> 16


def test_sensitivity_of_a_given_plan(scaleout):
    sens = sensitivity(LLAMA70, plan_row=scaleout.base).set_index("knob")
    assert sens.loc["peak_scale", "tokens_per_s"] == pytest.approx(scaleout.base["best_tokens_per_s"], rel=1e-9)
    assert set(sens.columns) >= {"base", "minus", "plus", "tokens_per_s_minus", "tokens_per_s_plus", "elasticity"}
    with pytest.raises(InputError, match="rel_step"):
        sensitivity(LLAMA70, rel_step=0)


# ---------------------------------------------------------------------------- bottleneck
def test_bottleneck_names_a_resource_and_shares_sum_to_one(scaleout):
    for bound in (scaleout.bound, bottleneck(scaleout.points.iloc[0]), bottleneck(scaleout.base, scaleout.sensitivity)):
        assert bound["bottleneck"] in BOTTLENECKS
        assert sum(bound["shares"].values()) == pytest.approx(1.0, abs=1e-6)
        assert all(v >= 0 for v in bound["shares"].values())
        assert isinstance(bound["explanation"], str) and "%" in bound["explanation"]


@pytest.mark.parametrize("column, name", [("exposed_offload_s", "host_link"), ("host_stall_s", "host")])
def test_bottleneck_names_the_host_link_and_the_host(column, name):
    row = {"iteration_time_s": 1.0, "time_compute_s": 0.35, "time_bubble_s": 0.05, column: 0.6,
           "memory_per_gpu_bytes": 40 * 2**30, "hbm_bytes": 80 * 2**30}
    bound = bottleneck(row)
    assert bound["bottleneck"] == name and name in BOTTLENECKS
    assert bound["shares"][name] == pytest.approx(0.6)
    assert "60" in bound["explanation"] and ("host" in bound["explanation"])


def test_bottleneck_of_an_evaluated_row_and_group_placement():
    import dse

    row = dse.evaluate(LLAMA70).iloc[0]  # no compute split: one 'compute' share
    bound = bottleneck(row)
    assert bound["bottleneck"] in BOTTLENECKS and "memory_bandwidth" not in bound["shares"]
    assert sum(bound["shares"].values()) == pytest.approx(1.0, abs=1e-6)
    where = placement({"tp": 4, "pp": 4, "dp": 4, "cp": 1, "ep": 1, "nvlink_domain": 8})
    assert where["tp"] == "nvlink" and where["dp"] == "scaleout" and where["pp"] == "scaleout"
    where = placement({"tp": 4, "pp": 4, "dp": 4, "cp": 1, "ep": 1, "nvlink_domain": 72})
    assert where["dp"] == "nvlink" and where["pp"] == "nvlink"


def test_scaleout_bound_case():
    slow = {"model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 512, "scaleout_gbitps": 10},
            "parallel": {"global_batch": 256}}
    result = whatif(slow)
    assert result.bound["bottleneck"] == "scaleout"
    sens = result.sensitivity.set_index("knob")
    assert sens.loc["scaleout_gbitps", "elasticity"] > 0.1


# ---------------------------------------------------------------------------- CLI
def run(*args, cwd=ROOT):
    if not DSE.exists():
        pytest.fail(f"console script {DSE} not found: install the package (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS", "TTY_COMPATIBLE")}
    env.update(NO_COLOR="1", TERM="dumb")
    return subprocess.run([str(DSE), *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=120)


def test_cli_whatif_good_call(tmp_path):
    result = run("whatif", LLAMA70, "--vary", "scaleout_gbitps=100,400", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "elasticity" in result.stdout and "bottleneck:" in result.stdout and "tp2" in result.stdout
    assert (tmp_path / "whatif.csv").exists() and (tmp_path / "whatif_scaleout_gbitps.png").exists()


def test_cli_whatif_json_and_no_vary(tmp_path):
    result = run("whatif", LLAMA70, "--json", "--no-plots", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    rec = json.loads(result.stdout)
    assert rec["knobs"] == [] and len(rec["points"]) == 1
    assert rec["bound"]["bottleneck"] in BOTTLENECKS
    assert {r["knob"] for r in rec["sensitivity"]} >= {"peak_scale", "hbm_tbps", "hbm_gb", "nvlink_gbps",
                                                       "scaleout_gbitps", "nvlink_domain"}
    assert not list(tmp_path.glob("*.png"))


@pytest.mark.parametrize("args, needle", [
    (("--vary", "bogus=1,2"), "unknown knob 'bogus'"),
    (("--vary", "hbm_gb=1:2"), "--vary"),
    (("--vary", "hbm_gb=80", "--vary", "hbm_gb=90"), "given twice"),
])
def test_cli_whatif_bad_input_exits_2_without_traceback(tmp_path, args, needle):
    result = run("whatif", LLAMA70, *args, "--out", tmp_path)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    assert needle in result.stderr
    result = run("whatif", tmp_path / "missing.yaml", "--out", tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr


# ---------------------------------------------------------------------------- serving what-ifs
#: Llama-3.1-8B FP8 served on 2 H100s, 1000-token prompts and answers (offline, batch auto).
SERVING = {"name": "llama31-8b-serve", "model": "llama3.1-8b", "precision": "fp8", "workload": "inference",
           "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 2}, "parallel": {"tp": 1},
           "inference": {"input_len": 1000, "output_len": 1000}}
GPT_OSS = ROOT / "scenarios" / "gpt_oss_120b_b200_serving.yaml"


def serving(**inference):
    return {**SERVING, "inference": {**SERVING["inference"], **inference}}


def test_serving_space_plans_batches_and_the_scenarios_own_values():
    from dse.whatif import SERVING_BATCHES, _scenario

    space = software_space(_scenario(serving(batch=100)))
    assert space.kind == "llm_inference"
    par = space.spec.parallel
    assert par.tp == [1, 2, 4, 8] and par.pp == [1, 2, 4] and par.ep == [1]
    assert par.batches() == [0, *sorted({*SERVING_BATCHES, 100})]  # 0 = auto
    assert "batch" not in space.spec.scenario["inference"]  # the plan sets it
    clients = software_space(_scenario(serving(concurrency=64)))
    assert clients.spec.parallel.batches() == [0]  # the clients set the batch
    bounded = software_space(_scenario(SERVING), max_itl_ms=20.0)
    assert bounded.spec.constraints.max_itl_ms == 20.0


@pytest.mark.parametrize("knob, values", [("hbm_tbps", [2.0, 3.35, 5.0, 8.0]), ("hbm_gb", [40.0, 80.0, 141.0]),
                                          ("peak_scale", [0.5, 1.0, 2.0]), ("nvlink_gbps", [100.0, 900.0])])
def test_serving_best_throughput_never_falls_with_more_of_a_resource(knob, values):
    points = whatif(SERVING, {knob: values}).points.sort_values(knob)
    best = points["best_tokens_per_s_per_gpu"].to_numpy()
    assert np.isfinite(best).all()
    assert (np.diff(best) >= -1e-9 * best[:-1]).all(), best


def test_serving_latency_bound_is_met_and_costs_throughput():
    free = whatif(SERVING, {"hbm_tbps": [3.35, 5.0]})
    bound = 0.7 * float(free.base["best_itl_ms"])
    tight = whatif(SERVING, {"hbm_tbps": [3.35, 5.0]}, max_itl_ms=bound)
    assert (tight.points["best_itl_ms"] <= bound + 1e-9).all()
    assert (tight.points["best_tokens_per_s"].to_numpy() <= free.points["best_tokens_per_s"].to_numpy()).all()
    assert float(tight.base["best_tokens_per_s"]) < float(free.base["best_tokens_per_s"])
    assert tight.bounds == {"max_itl_ms": bound} and "ITL <= " in tight.notes[-1]
    # a bound nothing meets leaves the point without a plan, reported, not dropped
    none = whatif(SERVING, {"hbm_tbps": [3.35]}, max_itl_ms=1e-3)
    assert none.points["feasible_plans"].eq(0).all() and math.isnan(float(none.points["best_tokens_per_s"].iloc[0]))


def test_serving_bottleneck_parts_add_up_and_name_the_engine_time():
    result = whatif(SERVING, {})
    base, bound = result.base, result.bound
    assert math.isclose(sum(bound["shares"].values()), 1.0, rel_tol=1e-9)
    assert 0.0 < float(base["time_engine_s"]) <= float(base["time_compute_s"])
    parts = float(base["time_compute_flops_s"]) + float(base["time_compute_hbm_s"]) + float(base["time_engine_s"])
    assert math.isclose(parts, float(base["time_compute_s"]), rel_tol=1e-9)
    assert bound["bottleneck"] in BOTTLENECKS and "one output token per sequence" in bound["explanation"]
    assert {"compute", "memory_bandwidth", "engine"} <= set(bound["shares"])


def test_serving_sensitivity_small_batch_decode_is_bound_by_hbm_bandwidth():
    # 8 clients: decode reads every weight per step for 8 tokens, so bandwidth, not FLOP/s, sets the pace
    sens = sensitivity(serving(concurrency=8)).set_index("knob")
    assert "host_link_gbps" not in sens.index
    # the softmax units pace only the prompts' attention: a small share of a decode-bound run
    assert 0.0 <= sens.loc["exp_tera_per_s", "elasticity"] < 0.1 * sens.loc["hbm_tbps", "elasticity"]
    assert 0.3 < sens.loc["hbm_tbps", "elasticity"] <= 1.0 + 1e-9
    assert sens.loc["hbm_tbps", "elasticity"] > 3 * max(sens.loc["peak_scale", "elasticity"], 0.0)
    assert sens.loc["scaleout_gbitps", "elasticity"] == 0.0  # tp 1 on one server: nothing crosses it


def test_serving_what_if_tries_draft_counts_when_an_acceptance_is_stated():
    plain = whatif(SERVING, {"hbm_tbps": [3.35]}, max_itl_ms=10.0)
    drafted = whatif(serving(draft_acceptance=0.7, draft_layers=2.0), {"hbm_tbps": [3.35]}, max_itl_ms=10.0)
    assert set(plain.points["spec_tokens"]) == {0.0}
    assert int(drafted.points["plans"].iloc[0]) == 5 * int(plain.points["plans"].iloc[0])  # 0-4 drafts
    # 0 drafts is among the candidates, so stating an acceptance never lowers the best
    best, base = drafted.points["best_tokens_per_s"].iloc[0], plain.points["best_tokens_per_s"].iloc[0]
    assert best >= base * (1 - 1e-9)
    # under a tight ITL bound the drafts buy a larger batch: the best plan drafts
    row = drafted.points.iloc[0]
    assert row["spec_tokens"] > 0 and best > base
    assert f"spec{int(row['spec_tokens'])}" in plan_text(row)


def test_serving_what_if_errors_name_the_field_and_the_alternative():
    with pytest.raises(InputError, match="vary.host_link_gbps.*serving does not offload"):
        whatif(SERVING, {"host_link_gbps": [128.0, 900.0]})
    with pytest.raises(InputError, match="max_itl_ms.*serving"):
        whatif(SMALL, max_itl_ms=50.0)
    with pytest.raises(InputError, match="max_ttft_ms.*positive"):
        whatif(SERVING, max_ttft_ms=-1.0)


def test_cli_whatif_serving_table_figure_and_json(tmp_path):
    result = run("whatif", GPT_OSS, "--vary", "hbm_tbps=6,8,10", "--max-itl-ms", "60", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "ITL ms" in result.stdout and "output tokens/s per GPU" in result.stdout and " b" in result.stdout
    assert (tmp_path / "whatif_hbm_tbps.png").exists() and (tmp_path / "whatif_hbm_tbps.pdf").exists()
    rec = json.loads(run("whatif", GPT_OSS, "--max-itl-ms", "60", "--json", "--no-plots", "--out", tmp_path).stdout)
    assert rec["bounds"] == {"max_itl_ms": 60.0} and rec["base"]["best_itl_ms"] <= 60.0
    assert rec["base"]["batch"] >= 1 and rec["own_plan"]["plan"].startswith("tp1 pp1 dp2 ep2 b")


#: A DLRM (26 tables of 4M rows) trained on 16 A100s in two 8-GPU servers.
DLRM = {"name": "dlrm-16", "workload": "train", "precision": "fp16",
        "model": {"name": "DLRM-small", "family": "dlrm", "dense_features": 13,
                  "tables": {"count": 26, "rows": 4000000, "dim": 128, "pooling": 1},
                  "bottom_mlp": [512, 256, 128], "top_mlp": [1024, 1024, 512, 256, 1], "interaction": "dot"},
        "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 16, "gpus_per_node": 8},
        "parallel": {"emb_sharding": "table", "microbatch": 4096, "global_batch": 65536}}


def test_dlrm_what_if_ranks_sharding_plans_by_samples_per_s():
    from dse.whatif import DLRM_PLAN_COLUMNS, DLRM_TIME_COLUMNS, dlrm_plan_text

    result = whatif(DLRM, {"scaleout_gbitps": [100.0, 400.0, 1600.0]})
    pts = result.points.sort_values("scaleout_gbitps")
    best = pts["best_samples_per_s_per_gpu"].to_numpy()
    assert np.isfinite(best).all() and (np.diff(best) >= -1e-9 * best[:-1]).all()  # more network, never slower
    assert set(DLRM_PLAN_COLUMNS) <= set(pts.columns) and "best_tokens_per_s" not in pts.columns
    assert (pts["global_batch"] == 65536).all() and (pts["microbatch"] == 4096).all()
    assert int(result.base["plans"]) >= 8 * 2  # every sharding under both planners
    label = dlrm_plan_text(result.base)
    assert label.split("/")[0] in ("table", "row", "column", "table_row", "auto", "hier_auto", "node_sharded",
                                   "data_parallel") and " mb4096" in label
    parts = sum(float(result.base[k]) for k in DLRM_TIME_COLUMNS[1:2] + DLRM_TIME_COLUMNS[4:])
    assert math.isclose(parts, float(result.base["iteration_time_s"]), rel_tol=1e-6)
    assert math.isclose(sum(result.bound["shares"].values()), 1.0, rel_tol=1e-9)
    sens = result.sensitivity.set_index("knob")
    assert {"samples_per_s", "samples_per_s_minus", "samples_per_s_plus"} <= set(sens.columns)
    assert "exp_tera_per_s" not in sens.index
    assert sens.loc["scaleout_gbitps", "elasticity"] >= 0.0
    with pytest.raises(InputError, match="vary.host_link_gbps"):
        whatif(DLRM, {"host_link_gbps": [64.0]})
    assert sens.loc["l2_mb", "base"] == 40.0  # the A100's L2, a DLRM knob
    cache = whatif(DLRM, {"l2_mb": [0.0, 40.0, 160.0]}).points.sort_values("l2_mb")["best_samples_per_s_per_gpu"]
    assert np.all(np.diff(cache.to_numpy()) >= 0.0) and cache.iloc[-1] > cache.iloc[0]
    with pytest.raises(InputError, match="vary.l2_mb.*DLRM"):
        whatif(SMALL, {"l2_mb": [40.0, 80.0]})


def test_cli_whatif_dlrm_case_prints_samples(tmp_path):
    shared = ROOT.parent / "shared" / "validation" / "dlrm_vit.jsonl"
    if not shared.exists():
        pytest.skip(f"{shared} not present")
    case = next(json.loads(line)["id"] for line in shared.read_text().splitlines()
                if "dle-tf2-dlrm-dgxa100-8gpu" in line)
    result = run("whatif", f"{shared}:{case}", "--vary", "hbm_tbps=1,2", "--out", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "samples/s/GPU" in result.stdout and "samples/s per GPU" in result.stdout and "bottleneck:" in result.stdout
    assert (tmp_path / "whatif_hbm_tbps.png").exists()


def test_vit_what_if_scores_image_models():
    """A ViT (no experts, tokens = patches + 1 per image) has its own what-if (it crashed on the
    missing experts field)."""
    vit = {"name": "vit-b16", "workload": "train", "precision": "bf16",
           "model": {"name": "ViT-B/16", "family": "vit", "layers": 12, "hidden": 768, "heads": 12,
                     "ffn_hidden": 3072, "patch": 16, "image_size": 224, "classes": 1000},
           "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 8}, "parallel": {"tp": 1, "global_batch": 1024}}
    result = whatif(vit, {"hbm_tbps": [1.0, 2.0]})
    best = result.points.sort_values("hbm_tbps")["best_samples_per_s_per_gpu"].to_numpy()  # images, as evaluate
    assert np.isfinite(best).all() and best[1] >= best[0]
    assert (result.points["ep"] == 1).all()
    own = result.own  # the same unit as dse evaluate's images/s per GPU
    assert own["samples_per_s_per_gpu"] == pytest.approx(own["samples_per_s"] / 8, rel=1e-12)
    assert own["energy_per_sample_j"] == pytest.approx(own["energy_per_token_j"] * 197, rel=1e-12)  # 14^2 + 1


def test_serving_report_says_when_the_scenarios_own_plan_misses_the_bound():
    from rich.console import Console

    from dse.whatif import report_renderables

    result = whatif(serving(batch=512), max_itl_ms=15.0)
    assert float(result.own["itl_ms"]) > 15.0  # 512 sequences per iteration take longer
    console = Console(width=200, record=True)
    for item in report_renderables(result):
        console.print(item)
    text = console.export_text()
    assert "ITL " in text and "> 15 ms" in text and "output tokens/s per GPU, ITL" in text


def test_at_an_offered_load_each_point_takes_the_fewest_gpus_that_serve_it():
    """A serving scenario with a request rate: every plan that keeps up serves the same tokens/s,
    so each hardware point's best is the fewest GPUs of the ladder with a plan that serves the
    load within the bounds (none on one step fewer), then the lowest ITL; more HBM bandwidth
    never needs more GPUs; no throughput sensitivity is printed."""
    from dse.whatif import LOAD_GPU_COUNTS, _score, _scenario, report_renderables, serving_space

    scenario = serving(mode="online", request_rate=40.0)
    result = whatif(scenario, {"hbm_tbps": [2.0, 3.35, 8.0]}, max_itl_ms=50.0)
    pts = result.points.sort_values("hbm_tbps")
    gpus = pts["num_gpus"].to_numpy()
    assert (np.diff(gpus) <= 0).all() and gpus[0] > gpus[-1], gpus
    tokens = 40.0 * scenario["inference"]["output_len"]
    np.testing.assert_allclose(pts["best_tokens_per_s"], tokens, rtol=1e-9)  # the load, whatever the point
    assert (pts["best_itl_ms"] <= 50.0).all()
    space = serving_space(_scenario(scenario), list(LOAD_GPU_COUNTS), max_itl_ms=50.0)
    for _, row in pts.iterrows():
        fewer = [n for n in LOAD_GPU_COUNTS if n < row["num_gpus"]]
        if fewer:  # one step fewer serves nothing
            assert _score(space, fewer[-1], {"hbm_tbps": row["hbm_tbps"]})[0] is None
    assert result.sensitivity.empty and "offered load of 40 requests/s" in " ".join(result.notes)
    text = " ".join(str(getattr(item, "plain", "")) for item in report_renderables(result))
    assert "fewest GPUs serving 40 requests/s" in text and "Sensitivity" not in text


def test_heatmap_colour_scale_spans_at_least_five_percent_around_the_median():
    """A grid whose values differ by 2% gets close colours (scale: median +/- 5%, said on the
    colour bar); a wide one keeps its own range."""
    from dse.whatif import _colour_limits

    narrow = np.array([1198.0, 1200.0, 1211.0, 1217.0, 1224.0])
    lo, hi, anchored = _colour_limits(narrow)
    assert anchored and lo == pytest.approx(1211 * 0.95) and hi == pytest.approx(1211 * 1.05)
    assert _colour_limits(np.array([100.0, 150.0, 200.0])) == (100.0, 200.0, False)
    assert _colour_limits(np.array([]))[2] is False


def test_narrow_heatmap_says_so_on_its_colour_bar():
    import matplotlib as mpl

    from dse.search.plots import RC
    from dse.whatif import _heatmap_figure

    result = whatif(LLAMA70, {"scaleout_gbitps": [200, 400], "nvlink_domain": [8, 16]})
    best = result.points["best_tokens_per_s_per_gpu"]
    assert best.max() - best.min() < 0.1 * best.median()  # a narrow grid
    with mpl.rc_context(RC):
        fig = _heatmap_figure(result)
    assert "median \u00b15%" in fig.axes[-1].get_ylabel()  # the colour bar


def test_a_vit_inference_what_if_keeps_forward_pass_plans():
    """ViT inference: the what-if scores forward passes (no recompute, ZeRO 0 or FSDP) and more
    scale-out bandwidth never lowers the best images per second."""
    vit = {"name": "vit-h-inference", "workload": "inference", "precision": "bf16",
           "model": {"name": "ViT-H/14", "family": "vit", "layers": 32, "hidden": 1280, "heads": 16,
                     "ffn_hidden": 5120, "patch": 14, "image_size": 224},
           "cluster": {"gpu": "A100-SXM-80GB", "num_gpus": 16},
           "parallel": {"tp": 1, "dp": 16, "zero": 3, "microbatch": 32, "global_batch": 512}}
    result = whatif(vit, {"scaleout_gbitps": [25, 100, 400]})
    points = result.points
    assert set(points["recompute"]) == {"none"} and set(points["zero"]) <= {0, 3}
    best = points["best_samples_per_s"].to_numpy()  # images/s
    assert np.all(np.diff(best) >= -1e-9 * best.max())


def test_a_plan_label_names_folded_experts():
    from dse.whatif import plan_text

    row = {"tp": 2.0, "pp": 1.0, "dp": 32.0, "cp": 1.0, "ep": 8.0, "vpp": 1.0, "zero": 1.0, "sp": 1.0,
           "recompute": 0.0, "microbatch": 1.0}
    assert "etp" not in plan_text({**row, "etp": 0.0}) and "etp" not in plan_text({**row, "etp": 2.0})
    assert "etp1" in plan_text({**row, "etp": 1.0})


# ---------------------------------------------------------------------------- disaggregated deployments
DISAGGREGATED = ROOT / "scenarios" / "llama3_70b_disaggregated_h100.yaml"


def _deployment(**inference):
    import yaml

    data = yaml.safe_load(DISAGGREGATED.read_text())
    data["inference"].update(inference)
    return data


def test_a_disaggregated_what_if_searches_deployments_and_its_own_scores_as_dse_evaluate():
    """The space of a disaggregated scenario holds deployments only (the scenario's prefill plan
    and replicas among them); the scenario's own deployment scores in it as dse.evaluate scores
    the scenario, so the best is never below it."""
    import dse
    from dse.search.evaluation import score_point
    from dse.whatif import _scenario

    spec = _scenario(_deployment())
    space = software_space(spec)
    pre = space.spec.parallel.disaggregated
    assert pre is not None and pre.engines is False
    assert 2 in pre.tp and pre.max_num_tokens == [8192] and pre.instances == ["auto"]
    assert space.spec.scenario["inference"]["phase"] == "both" and "prefill" not in space.spec.scenario["inference"]
    scored = score_point(space, 32, {})
    assert (scored["phase"] == 3).all()
    own = dse.evaluate(spec).iloc[0]
    mine = scored[(scored["prefill_tp"] == 2) & (scored["tp"] == 4) & (scored["pp"] == 1) & (scored["batch_auto"] == 1)]
    assert len(mine) == 1
    for key in ("tokens_per_s_per_gpu", "ttft_ms", "itl_ms", "prefill_instances", "decode_instances"):
        assert float(mine[key].iloc[0]) == pytest.approx(float(own[key]), rel=1e-9), key
    result = whatif(spec, {})
    assert float(result.base["best_tokens_per_s_per_gpu"]) >= float(own["tokens_per_s_per_gpu"]) * (1 - 1e-9)
    assert plan_text(result.own).startswith("P 10x tp2 mnt8192 + D 3x tp4 b")


@pytest.mark.parametrize("knob, values", [("hbm_tbps", [2.0, 3.35, 5.0]), ("peak_scale", [0.5, 1.0, 2.0]),
                                          ("scaleout_gbitps", [25.0, 100.0, 400.0])])
def test_the_best_deployment_never_falls_with_more_of_a_resource(knob, values):
    points = whatif(_deployment(), {knob: values}).points.sort_values(knob)
    best = points["best_tokens_per_s_per_gpu"].to_numpy()
    assert np.isfinite(best).all() and (points["phase"] == 3).all()
    assert (np.diff(best) >= -1e-9 * best[:-1]).all(), best
    # every point's split fits its GPUs
    used = (points["prefill_instances"] * points["prefill_tp"] * points["prefill_pp"] * points["prefill_dp"]
            + points["decode_instances"] * points["tp"] * points["pp"] * points["dp"] + points["idle_gpus"])
    np.testing.assert_allclose(used, points["num_gpus"])


def test_a_deployments_bottleneck_is_the_side_that_bounds_its_requests():
    result = whatif(_deployment(), {"scaleout_gbitps": [0.5, 400.0]})
    slow, fast = (result.points.sort_values("scaleout_gbitps").iloc[i] for i in (0, 1))
    # at half a Gbit/s no split moves the prompts' KV caches as fast as the instances make and take them
    assert bottleneck(slow)["bottleneck"] == "kv_link" and float(slow["bound_by"]) in (2.0, 3.0)
    assert float(slow["best_tokens_per_s_per_gpu"]) < 0.5 * float(fast["best_tokens_per_s_per_gpu"])
    bound = result.bound
    assert bound["bottleneck"] in ("prefill_instances", "decode_instances") and bound["bottleneck"] in BOTTLENECKS
    base = result.base
    prefill = float(base["prefill_instances"]) * float(base["prefill_requests_per_s"])
    decode = float(base["decode_instances"]) * float(base["decode_requests_per_s"])
    side = "prefill_instances" if prefill <= decode else "decode_instances"
    assert bound["bottleneck"] == side and f"= {prefill:.4g} requests/s" in bound["explanation"]
    assert bound["shares"] == {} and "KV transfer" in bound["explanation"]


def test_a_deployment_at_an_offered_rate_takes_the_fewest_gpus_within_the_ttft_bound(tmp_path):
    from dse.whatif import LOAD_GPU_COUNTS, _score, _scenario, report_renderables, serving_space

    scenario = _deployment(request_rate=10.0)
    result = whatif(scenario, {"hbm_tbps": [3.35, 8.0]}, max_ttft_ms=1500.0)
    pts = result.points
    assert (pts["best_ttft_ms"] <= 1500.0).all() and (pts["phase"] == 3).all()
    np.testing.assert_allclose(pts["best_tokens_per_s"], 10.0 * 500, rtol=1e-9)
    space = serving_space(_scenario(scenario), list(LOAD_GPU_COUNTS), max_ttft_ms=1500.0)
    for _, row in pts.iterrows():
        fewer = [n for n in LOAD_GPU_COUNTS if n < row["num_gpus"]]
        assert _score(space, fewer[-1], {"hbm_tbps": row["hbm_tbps"]})[0] is None
    text = " ".join(str(getattr(item, "plain", "")) for item in report_renderables(result))
    assert "fewest GPUs serving 10 requests/s" in text and "(P " in text
    assert plot_whatif(result, tmp_path)  # a curve over the two bandwidths


def test_cli_whatif_of_a_disaggregated_scenario(tmp_path):
    rec = json.loads(run("whatif", DISAGGREGATED, "--vary", "hbm_tbps=3.35,5", "--json", "--no-plots",
                         "--out", tmp_path).stdout)
    assert rec["base"]["phase"] == 3 and rec["bound"]["bottleneck"] in BOTTLENECKS
    assert rec["own_plan"]["plan"].startswith("P 10x tp2") and rec["own_plan"]["feasible"]
    assert all(p["best_tokens_per_s_per_gpu"] > 0 and p["decode_instances"] >= 1 for p in rec["points"])


def test_a_two_gpu_deployments_what_if_keeps_its_prefill_gpu_and_varies_the_decode_gpu():
    """H100 prefill with H200 decode: every plan keeps its prefill instances on H100s (the knobs
    vary the cluster's H200s), the scenario's own deployment scores as dse.evaluate scores it, and
    more decode bandwidth never lowers the best."""
    import dse
    from dse.search.evaluation import score_point
    from dse.presets import prefill_gpu_code
    from dse.whatif import _scenario

    path = ROOT / "scenarios" / "llama3_70b_disaggregated_h100_h200.yaml"
    spec = _scenario(path)
    space = software_space(spec)
    code = prefill_gpu_code("H100-SXM-80GB", "H200-SXM-141GB")
    scored = score_point(space, 32, {})
    assert (scored["prefill_gpu"] == code).all()
    own = dse.evaluate(spec).iloc[0]
    mine = scored[(scored["prefill_tp"] == 2) & (scored["tp"] == 4) & (scored["pp"] == 1) & (scored["batch_auto"] == 1)]
    for key in ("tokens_per_s_per_gpu", "ttft_ms", "itl_ms", "cost_per_mtok_usd"):
        assert float(mine[key].iloc[0]) == pytest.approx(float(own[key]), rel=1e-9), key
    result = whatif(path, {"hbm_tbps": [3.35, 4.8, 8.0]})
    best = result.points.sort_values("hbm_tbps")["best_tokens_per_s_per_gpu"].to_numpy()
    assert (np.diff(best) >= -1e-9 * best[:-1]).all()
    assert plan_text(result.base).startswith("P ") and "H100-SXM-80GB" in plan_text(result.base)
    assert any("stay on H100-SXM-80GB" in n for n in result.notes)


def test_a_switch_in_an_amd_server_serves_more_within_a_tight_latency_bound():
    # eight MI300X in a full mesh: a tensor-parallel group of four drives three of each GPU's seven
    # links; the same GPUs behind a switch drive all of them (the co-design question of a switched
    # scale-up network for these GPUs)
    serving = {"name": "mi300x", "model": "llama3.1-70b", "precision": "fp8", "workload": "inference",
               "cluster": {"gpu": "MI300X", "num_gpus": 8}, "parallel": {"tp": 8},
               "inference": {"input_len": 1000, "output_len": 1000, "mode": "offline_max_throughput"}}
    rows = whatif(serving, {"nvlink_mesh": [0, 1]}, max_itl_ms=15.0).points.set_index("nvlink_mesh")
    assert rows.loc[0, "best_tokens_per_s_per_gpu"] > 1.2 * rows.loc[1, "best_tokens_per_s_per_gpu"]
