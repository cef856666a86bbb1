"""Disaggregated serving deployments (dse/costmodel/disaggregated.py and phase disaggregated in
dse/workloads/inference.py): the split of the GPUs by hand, the KV link's time and caps, the
composition against the instances evaluated on their own, and properties (hypothesis)."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dse
from dse.costmodel import disaggregated as dis
from dse.errors import InputError
from dse.presets import prefill_gpu_name
from dse.workloads.inference import deployment_instances, instance_scenarios

DSE = Path(sys.executable).parent / "dse"
PROPERTY = settings(max_examples=80, deadline=None, derandomize=True, database=None)


def instance(**changes):
    """Evaluated-instance figures (what combine reads), a 4-GPU instance by default."""
    base = {"num_gpus": 4.0, "dp": 1.0, "requests_per_s": 5.0, "ttft_ms": 1000.0, "itl_ms": 40.0,
            "kv_prompt_bytes": 1e8, "memory_per_gpu_bytes": 60e9, "power_per_gpu_w": 600.0,
            "model_tflops_per_gpu": 400.0, "mfu": 0.4, "infeasible_mask": 0.0}
    return {**base, **changes}


def deploy(prefill=None, decode=None, num_gpus=16, link_bw=50e9, latency=10e-6, fixed=0.0, at=None, rate=0.0):
    return dis.combine(prefill or instance(), decode or instance(requests_per_s=12.0), num_gpus, 4000, 500,
                       link_bw, latency, 150.0, 3.0, fixed, decode_at_load=at, request_rate=rate)


# ---------------------------------------------------------------------------- the split, by hand
def test_the_split_balances_prefill_against_decode_and_keeps_the_fewest_prefill_instances_on_ties():
    # 16 GPUs, instances of 4: (1, 3) serves min(5, 36) = 5; (2, 2) 10; (3, 1) min(15, 12) = 12
    out = dis.split(16, 4, 4, 5.0, 12.0)
    assert (out["prefill_instances"][0], out["decode_instances"][0]) == (3, 1)
    assert out["requests_per_s"][0] == 12.0 and out["idle_gpus"][0] == 0
    # equal service: (2, 2) and (3, 1) both serve 10 -> the fewer prefill instances
    out = dis.split(16, 4, 4, 5.0, 10.0)
    assert (out["prefill_instances"][0], out["decode_instances"][0]) == (2, 2)
    # GPUs that fit no instance are idle: 18 = 3 x 4 + 1 x 4 + 2
    out = dis.split(18, 4, 4, 5.0, 12.0)
    assert out["idle_gpus"][0] == 2 and out["requests_per_s"][0] == 12.0


def test_a_stated_count_is_kept_and_a_split_without_room_for_both_is_refused():
    out = dis.split([16, 16, 7], [4, 4, 4], [4, 8, 4], 5.0, 12.0, [1, 2, 0])
    assert (out["prefill_instances"][0], out["decode_instances"][0]) == (1, 3)
    assert out["ok"].tolist() == [1.0, 1.0, 0.0]  # 2 x 4 + 1 x 8 fits 16; 7 GPUs hold no 4 + 4
    assert (out["prefill_instances"][1], out["decode_instances"][1]) == (2, 1)
    assert out["requests_per_s"][2] == 0 and out["idle_gpus"][2] == 7


# ---------------------------------------------------------------------------- composition, by hand
def test_ttft_adds_the_prefill_the_kv_transfer_and_the_first_decode_iteration():
    out = deploy(decode=instance(requests_per_s=12.0, kv_prompt_bytes=5e7, ttft_ms=30.0))
    t_x = 1e8 / 50e9 + 10e-6  # the larger of the two per-GPU shards over one GPU's link
    assert out["kv_transfer_s"][0] == pytest.approx(t_x)
    assert out["ttft_ms"][0] == pytest.approx(1000.0 + 1e3 * t_x + 30.0)
    assert out["itl_ms"][0] == 40.0
    R = 12.0  # (3, 1): decode-bound
    assert out["requests_per_s"][0] == R and out["tokens_per_s"][0] == R * 500
    assert out["tokens_per_s_per_gpu"][0] == pytest.approx(R * 500 / 16)
    assert out["input_tokens_per_s"][0] == pytest.approx(R * 4000)
    assert dis.BOUND[int(out["bound_by"][0])] == "decode instances"
    # power: the 3 prefill instances (12 GPUs) could run 15 prompts/s and get 12: busy 0.8 of the time,
    # at 600 W, idle (150 W) the rest; the decode instance's 4 GPUs at 600 W
    assert out["prefill_busy"][0] == pytest.approx(0.8)
    watts = 12 * (150.0 + 0.8 * 450.0) + 4 * 600.0
    assert out["power_per_gpu_w"][0] == pytest.approx(watts / 16)
    assert out["energy_per_token_j"][0] == pytest.approx(watts / (R * 500))
    assert out["model_tflops_per_gpu"][0] == pytest.approx((12 * 0.8 * 400.0 + 4 * 400.0) / 16)
    assert out["samples_per_s"][0] == R
    assert out["cost_per_mtok_usd"][0] == pytest.approx(16 * 3.0 / 3600 / (R * 500) * 1e6)


def test_a_narrow_link_caps_the_rate_and_says_so():
    # 1e8 bytes per prompt per GPU over 0.2 GB/s: at most 2 prompts/s per prefill instance
    out = deploy(link_bw=2e8)
    assert out["prefill_requests_per_s"][0] == pytest.approx(2.0)
    assert out["decode_requests_per_s"][0] == pytest.approx(2.0)  # the decode side receives as much
    assert dis.BOUND[int(out["bound_by"][0])] in ("prefill KV send", "decode KV receive")
    assert out["requests_per_s"][0] == pytest.approx(2.0 * min(out["prefill_instances"][0], out["decode_instances"][0]))


def test_an_infeasible_instance_or_split_makes_the_deployment_infeasible_with_its_bits():
    out = deploy(prefill=instance(infeasible_mask=float(1 << 7)))
    assert out["feasible"][0] == 0 and int(out["infeasible_mask"][0]) & (1 << 7)
    out = deploy(num_gpus=7)
    assert out["feasible"][0] == 0 and int(out["infeasible_mask"][0]) & dis.NO_SPLIT
    assert out["tokens_per_s"][0] == 0


def test_the_decode_instance_at_its_share_of_the_load_sets_the_latency_and_power():
    light = instance(requests_per_s=12.0, itl_ms=15.0, ttft_ms=15.0, power_per_gpu_w=400.0)
    out = deploy(num_gpus=12, at=light)  # (2, 1): prefill-bound, 10 of the decode's 12 requests/s
    assert out["requests_per_s"][0] == 10.0 and out["itl_ms"][0] == 15.0
    assert out["power_per_gpu_w"][0] == pytest.approx((8 * 600.0 + 4 * 400.0) / 12)


def test_an_offered_rate_is_served_and_its_prompts_queue_at_the_prefill_instances_by_hand():
    # (3, 1) on 16 GPUs serves at most 12 req/s; 6 offered: the 3 prefill instances (one replica
    # each, 5 prompts/s) run at rho = 6 / 15 = 0.4, S = 1 / 5 s: M/D/1 wait 0.4 x 0.2 / (2 x 0.6)
    out = deploy(rate=6.0)
    wait = 0.4 * 0.2 / (2 * 0.6)
    assert out["prefill_wait_s"][0] == pytest.approx(wait)
    t_x = 1e8 / 50e9 + 10e-6
    assert out["ttft_ms"][0] == pytest.approx(1000.0 + 1e3 * (wait + t_x) + 1000.0)
    assert out["requests_per_s"][0] == 6.0 and out["tokens_per_s"][0] == 6.0 * 500
    assert out["max_requests_per_s"][0] == 12.0 and out["feasible"][0] == 1
    assert out["prefill_busy"][0] == pytest.approx(0.4)
    # two replicas per prefill instance: each serves half the instance's rate, so S doubles
    two = deploy(prefill=instance(dp=2.0), rate=6.0)
    assert two["prefill_wait_s"][0] == pytest.approx(2 * wait)
    # offline (no rate) the deployment runs at its capacity and nobody waits
    assert deploy()["prefill_wait_s"][0] == 0 and deploy()["requests_per_s"][0] == 12.0


def test_a_prompt_runs_alone_at_no_load_and_in_a_full_budget_at_the_capacity():
    assert dis.prompt_time(0.6, 0.3, 0.0) == pytest.approx(0.3)
    assert dis.prompt_time(0.6, 0.3, 1.0) == pytest.approx(0.6)
    assert dis.prompt_time(0.6, 0.3, 0.25) == pytest.approx(0.375)
    assert dis.prompt_time(0.6, 0.9, 0.5) == pytest.approx(0.6)  # never longer alone than loaded
    # offline the deployment's prompt time is the loaded instance's; at a rate, shorter
    offline = dse.evaluate(scenario(16, prefill={"tp": 2, "max_num_tokens": 8192})).iloc[0]
    light = dse.evaluate(scenario(16, prefill={"tp": 2, "max_num_tokens": 8192}, request_rate=1.0)).iloc[0]
    assert light["prefill_prompt_s"] < offline["prefill_prompt_s"]
    assert light["ttft_ms"] < offline["ttft_ms"]


def test_a_rate_above_what_the_deployment_serves_is_infeasible_with_the_arithmetic():
    out = deploy(rate=13.0)
    assert out["feasible"][0] == 0 and int(out["infeasible_mask"][0]) & dis.RATE_EXCEEDS
    assert out["requests_per_s"][0] == 12.0  # what it does serve
    row = dse.evaluate(scenario(16, request_rate=500.0)).iloc[0]
    assert not row["feasible"]
    assert "offered request_rate 500 req/s exceeds what the deployment serves" in row["infeasible_reason"]
    assert f"{row['max_requests_per_s']:.4g} req/s = min(" in row["infeasible_reason"]


@PROPERTY
@given(lo=st.floats(0.01, 0.98), hi=st.floats(0.01, 0.98), rp=st.floats(0.1, 50.0), dp=st.sampled_from([1, 2, 4]))
def test_a_heavier_offered_load_never_shortens_the_prefill_wait(lo, hi, rp, dp):
    lo, hi = sorted((lo, hi))
    p = instance(requests_per_s=rp, dp=float(dp))
    d = instance(requests_per_s=1e6)  # a decode side with room for any rate: prefill-bound
    cap = deploy(p, d)["max_requests_per_s"][0]
    a, b = deploy(p, d, rate=lo * cap), deploy(p, d, rate=hi * cap)
    assert b["prefill_wait_s"][0] >= a["prefill_wait_s"][0] - 1e-15
    assert b["ttft_ms"][0] >= a["ttft_ms"][0] - 1e-9
    assert a["feasible"][0] == b["feasible"][0] == 1


@PROPERTY
@given(bw=st.floats(1e8, 1e12), more=st.floats(1.0, 100.0), gpus=st.integers(2, 64),
       rp=st.floats(0.1, 50.0), rd=st.floats(0.1, 50.0), gp=st.sampled_from([1, 2, 4, 8]),
       gd=st.sampled_from([1, 2, 4, 8]))
def test_more_link_bandwidth_or_more_gpus_never_serve_fewer_requests(bw, more, gpus, rp, rd, gp, gd):
    p, d = instance(num_gpus=gp, requests_per_s=rp), instance(num_gpus=gd, requests_per_s=rd)
    a = deploy(p, d, num_gpus=gpus, link_bw=bw)
    b = deploy(p, d, num_gpus=gpus, link_bw=bw * more)
    c = deploy(p, d, num_gpus=gpus + gp + gd, link_bw=bw)
    assert b["requests_per_s"][0] >= a["requests_per_s"][0] * (1 - 1e-12)
    assert b["ttft_ms"][0] <= a["ttft_ms"][0] + 1e-9
    assert c["requests_per_s"][0] >= a["requests_per_s"][0] * (1 - 1e-12)
    # never more than either side can do with all the GPUs
    assert a["requests_per_s"][0] <= gpus / gp * min(rp, bw / 1e8) + 1e-9


# ---------------------------------------------------------------------------- through dse.evaluate
def scenario(num_gpus=16, prefill=None, cluster=None, **inference):
    return dse.load_scenario({
        "name": "disagg", "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": num_gpus, **(cluster or {})}, "parallel": {"tp": 4},
        "inference": {"input_len": 4000, "output_len": 500, "phase": "disaggregated",
                      "prefill": prefill or {"tp": 2}, **inference},
    })


def test_a_deployment_is_its_instances_evaluated_on_their_own_and_composed():
    for gpus in (16, 12):  # prefill TP 2, decode TP 4: prefill-bound (4 + 2), decode-bound (4 + 1)
        s = scenario(gpus)
        row = dse.evaluate(s).iloc[0]
        pre_s, dec_s = instance_scenarios(s)
        pre, dec = dse.evaluate(pre_s).iloc[0], dse.evaluate(dec_s).iloc[0]
        n_p, n_d = row["prefill_instances"], row["decode_instances"]
        assert n_p * 2 + n_d * 4 + row["idle_gpus"] == gpus
        R = min(n_p * pre["requests_per_s"], n_d * dec["requests_per_s"])
        assert row["requests_per_s"] == pytest.approx(R, rel=1e-9)
        assert row["tokens_per_s_per_gpu"] == pytest.approx(R * 500 / gpus, rel=1e-9)
        _, at_load = deployment_instances(s, row)
        at = dse.evaluate(at_load).iloc[0]
        assert row["itl_ms"] == pytest.approx(at["itl_ms"], rel=1e-9)
        assert row["ttft_ms"] == pytest.approx(pre["ttft_ms"] + 1e3 * row["kv_transfer_s"] + at["ttft_ms"], rel=1e-9)
        assert row["feasible"] and row["phase"] == 3
        assert row["kv_prompt_bytes"] == pre["kv_prompt_bytes"]
        if row["bound_by"] == 0:  # the decode side has room: it runs a smaller batch, a shorter step
            assert at["batch"] < dec["batch"] and at["itl_ms"] < dec["itl_ms"]
            assert at["requests_per_s"] == pytest.approx(R / n_d, rel=1e-6)


def test_a_deployment_mixes_with_engines_in_one_call_in_order():
    engine = dse.load_scenario({"name": "engine", "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
                                "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 4}, "parallel": {"tp": 4},
                                "inference": {"input_len": 4000, "output_len": 500}})
    df = dse.evaluate([engine, scenario(), engine])
    assert list(df["name"]) == ["engine", "disagg", "engine"]
    assert list(df["phase"]) == [0, 3, 0]
    assert df["tokens_per_s"].iat[0] == df["tokens_per_s"].iat[2]


def test_a_deployment_without_room_for_both_instances_is_infeasible_with_the_arithmetic():
    row = dse.evaluate(scenario(num_gpus=5)).iloc[0]
    assert not row["feasible"]
    assert "no split of 5 GPUs holds a prefill instance of 2 GPUs and a decode instance of 4" in row["infeasible_reason"]


def test_prefill_on_another_gpu_runs_on_its_own_hardware_price_and_power():
    """H100 prefill instances with H200 decode instances: each side is its own GPU's instance,
    the KV cache crosses the scale-out network (at the slower NIC) even inside one NVLink domain's
    size, each GPU is paid at its own price, and naming the cluster's own GPU changes nothing."""
    mixed = scenario(16, {"tp": 2, "gpu": "h100-sxm-80gb", "price_per_gpu_hour": 2.0},
                     {"gpu": "H200-SXM-141GB", "price_per_gpu_hour": 3.0, "nvlink_domain": 72})
    assert mixed.inference.prefill.gpu == "H100-SXM-80GB"  # the preset's own spelling
    row = dse.evaluate(mixed).iloc[0]
    pre_s, dec_s = instance_scenarios(mixed)
    assert pre_s.cluster.gpu == "H100-SXM-80GB" and dec_s.cluster.gpu == "H200-SXM-141GB"
    pre = dse.evaluate(pre_s).iloc[0]
    R = min(row["prefill_instances"] * pre["requests_per_s"],
            row["decode_instances"] * dse.evaluate(dec_s).iloc[0]["requests_per_s"])
    assert row["requests_per_s"] == pytest.approx(R, rel=1e-9)
    assert prefill_gpu_name(row["prefill_gpu"]) == "H100-SXM-80GB"  # the results' code, as a search row's
    # 16 GPUs fit the 72-GPU NVLink domain, but two kinds of server meet over the NICs (400 Gbit/s)
    assert row["link_bytes_per_s"] == pytest.approx(50e9 * pre["eff_scaleout"], rel=1e-9)
    gpus_p = row["prefill_instances"] * 2
    dollars_per_s = (gpus_p * 2.0 + (16 - gpus_p) * 3.0) / 3600
    assert row["cost_per_mtok_usd"] == pytest.approx(dollars_per_s / row["tokens_per_s"] * 1e6, rel=1e-9)
    # the memory shown is the fuller instance's, the larger share of its own GPU's HBM
    _, at_s = deployment_instances(mixed, row)
    at = dse.evaluate(at_s).iloc[0]
    shares = {"prefill": pre["memory_per_gpu_bytes"] / pre["hbm_bytes"], "decode": at["memory_per_gpu_bytes"] / at["hbm_bytes"]}
    fuller = pre if shares["prefill"] > shares["decode"] else at
    assert row["hbm_bytes"] == fuller["hbm_bytes"] and row["memory_per_gpu_bytes"] == fuller["memory_per_gpu_bytes"]
    light = scenario(16, {"tp": 2, "gpu": "H100-SXM-80GB"}, {"gpu": "H200-SXM-141GB"}, request_rate=0.5)
    low = dse.evaluate(light).iloc[0]  # decodes hold a few sequences: the H100 prefill GPUs are the fuller
    pre_light = dse.evaluate(instance_scenarios(light)[0]).iloc[0]
    assert low["hbm_bytes"] == pre_light["hbm_bytes"] < row["hbm_bytes"]
    assert low["memory_per_gpu_bytes"] == pre_light["memory_per_gpu_bytes"]
    same = scenario(16, {"tp": 2, "gpu": "H100-SXM-80GB"})
    plain = dse.evaluate(scenario(16)).iloc[0]
    for key in ("tokens_per_s", "ttft_ms", "itl_ms", "cost_per_mtok_usd", "power_per_gpu_w", "mfu"):
        assert dse.evaluate(same).iloc[0][key] == pytest.approx(plain[key], rel=1e-12), key


@pytest.mark.parametrize("prefill, message", [
    ({"tp": 2, "gpu": "H1000"}, "inference.prefill.gpu: unknown GPU"),
    ({"tp": 2, "gpu": "A100-SXM-80GB"}, "inference.prefill.gpu: A100-SXM-80GB has no fp8 tensor cores"),
])
def test_a_bad_prefill_gpu_is_a_clear_error(prefill, message):
    with pytest.raises(InputError, match=message):
        scenario(16, prefill)


@pytest.mark.parametrize("inference, message", [
    ({"phase": "disaggregated"}, "phase disaggregated needs a prefill block"),
    ({"prefill": {"tp": 2}}, "a prefill block describes the prefill instances of phase disaggregated"),
])
def test_bad_disaggregated_blocks_are_clear_errors(inference, message):
    with pytest.raises(InputError, match=message):
        dse.load_scenario({"workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
                           "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
                           "inference": {"input_len": 100, "output_len": 10, **inference}})


def test_cli_evaluate_prints_the_deployment_and_each_instance(tmp_path):
    path = tmp_path / "d.json"
    path.write_text(json.dumps({
        "name": "d", "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 16}, "parallel": {"tp": 4},
        "inference": {"input_len": 4000, "output_len": 500, "phase": "disaggregated", "prefill": {"tp": 4}}}))
    env = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "PATH": ""}
    text = subprocess.run([str(DSE), "evaluate", str(path)], capture_output=True, text=True, env=env, timeout=120)
    assert text.returncode == 0, text.stderr
    for words in ("3 prefill instance(s)", "1 decode instance(s)", "Deployment", "KV transfer",
                  "one prefill instance, loaded", "one decode instance, at its share of the load"):
        assert words in text.stdout, words
    out = subprocess.run([str(DSE), "evaluate", str(path), "--json"], capture_output=True, text=True, env=env,
                         timeout=120)
    rec = json.loads(out.stdout)
    assert rec["deployment"]["prefill_instances"] == 3 and set(rec["instances"]) == {"prefill", "decode"}
    assert rec["instances"]["decode"]["serving"]["phase"] == "decode"
    traced = subprocess.run([str(DSE), "evaluate", str(path), "--trace", str(tmp_path / "t.json")],
                            capture_output=True, text=True, env=env, timeout=120)
    assert traced.returncode == 0, traced.stderr
    assert (tmp_path / "t.prefill.json").is_file() and (tmp_path / "t.decode.json").is_file()


@PROPERTY
@given(gpus=st.integers(2, 3000), gp=st.sampled_from([1, 2, 4, 8]), gd=st.sampled_from([1, 2, 4, 8, 16, 32]),
       rp=st.floats(0.1, 50.0), rd=st.floats(0.1, 50.0))
def test_the_split_is_the_best_of_every_split_and_the_fewest_prefill_instances_among_equals(gpus, gp, gd, rp, rd):
    best, count = -1.0, 0
    for n_p in range(1, (gpus - gd) // gp + 1):
        n_d = (gpus - n_p * gp) // gd
        if n_d >= 1 and min(n_p * rp, n_d * rd) > best * (1 + 1e-12):
            best, count = min(n_p * rp, n_d * rd), n_p
    out = dis.split(gpus, gp, gd, rp, rd)
    if count == 0:
        assert out["ok"][0] == 0
    else:
        assert out["requests_per_s"][0] == pytest.approx(best, rel=1e-12)
        assert out["prefill_instances"][0] == count


def test_an_offered_rate_runs_the_decode_instances_at_their_share_and_composes_the_ttft():
    budget = {"tp": 2, "max_num_tokens": 8192}
    s = scenario(16, prefill=budget, request_rate=4.0)
    row = dse.evaluate(s).iloc[0]
    offline = dse.evaluate(scenario(16, prefill=budget)).iloc[0]
    assert row["feasible"] and row["requests_per_s"] == 4.0 and row["request_rate"] == 4.0
    assert row["tokens_per_s"] == pytest.approx(4.0 * 500)
    assert row["max_requests_per_s"] == pytest.approx(offline["requests_per_s"], rel=1e-9)
    pre_s, _ = instance_scenarios(s)
    pre = dse.evaluate(pre_s).iloc[0]
    _, at_load = deployment_instances(s, row)
    assert at_load.inference.request_rate == pytest.approx(4.0 / row["decode_instances"])
    at = dse.evaluate(at_load).iloc[0]
    assert row["itl_ms"] == pytest.approx(at["itl_ms"], rel=1e-9) and row["itl_ms"] < offline["itl_ms"]
    # the prompt's own prefill: between alone on its replica and in a full budget, by the load
    alone, loaded = pre["prefill_time_s"], pre["ttft_ms"] * 1e-3
    assert alone < loaded  # 8,192-token budget: two 4,000-token prompts an iteration when full
    assert row["prefill_prompt_s"] == pytest.approx(alone + row["prefill_busy"] * (loaded - alone), rel=1e-9)
    assert row["ttft_ms"] == pytest.approx(
        1e3 * (row["prefill_prompt_s"] + row["prefill_wait_s"] + row["kv_transfer_s"]) + at["ttft_ms"], rel=1e-9)
    assert 0 < row["prefill_wait_s"]


def test_a_stated_decode_batch_is_the_rows_batch_and_its_load_the_decode_batch():
    row = dse.evaluate(scenario(16, batch=64)).iloc[0]
    assert row["batch"] == 64 and row["decode_batch"] <= 64
    if row["bound_by"] == 0:  # the decode side has room to spare: it holds fewer
        assert row["decode_batch"] < 64


def test_the_rate_driven_deployment_space_serves_its_load_on_fewer_gpus_than_engines():
    """search_spaces/llama3_70b_disaggregated_rate_h100.yaml, as its header says: at 10 req/s
    (4,000 + 500 tokens) a deployment meets the constraints on 12 GPUs, engines first on 16."""
    from dse.search.space import load_space
    from dse.search.evaluation import score_point

    space = load_space(Path(__file__).resolve().parents[2] / "search_spaces" / "llama3_70b_disaggregated_rate_h100.yaml")
    fewest = {}
    for gpus in (12, 16):
        df = score_point(space, gpus, {})
        ok = df[df["feasible"]]
        for phase in (0, 3):
            if (ok["phase"] == phase).any():
                fewest.setdefault(phase, gpus)
        dep = ok[ok["phase"] == 3]
        assert (dep["requests_per_s"] == 10.0).all() and (dep["prefill_wait_s"] > 0).all()
    assert fewest == {3: 12, 0: 16}


# ---------------------------------------------------------------------------- closed-loop clients
def test_one_client_never_queues_and_many_queue_as_the_open_queue():
    # 3 instances of 5 prompts/s, 6 req/s: the open queue's wait, scaled by (N - 1) / N
    open_wait = dis.prefill_wait(6.0, 3, 1, 5.0)
    assert dis.prefill_wait(6.0, 3, 1, 5.0, clients=1) == 0.0
    assert dis.prefill_wait(6.0, 3, 1, 5.0, clients=4) == pytest.approx(0.75 * open_wait)
    assert dis.prefill_wait(6.0, 3, 1, 5.0, clients=1e6) == pytest.approx(open_wait, rel=1e-5)


@pytest.mark.parametrize("clients", [1, 16, 128])
def test_clients_keep_their_requests_in_the_deployment(clients):
    """Little's law for the closed loop: rate x (TTFT + (O - 1) ITL) = the clients."""
    row = dse.evaluate(scenario(16, concurrency=clients)).iloc[0]
    assert row["feasible"] and row["concurrency"] == clients
    e2e = (row["ttft_ms"] + (500 - 1) * row["itl_ms"]) * 1e-3
    assert row["requests_per_s"] * e2e == pytest.approx(clients, rel=1e-4)
    assert row["requests_per_s"] < row["max_requests_per_s"]
    if clients == 1:
        assert row["prefill_wait_s"] == 0.0


def test_more_clients_than_the_capacity_serves_wait_for_it_before_their_first_token():
    many = dse.evaluate(scenario(16, concurrency=4096)).iloc[0]
    assert many["requests_per_s"] == pytest.approx(many["max_requests_per_s"], rel=1e-9)
    e2e = (many["ttft_ms"] + (500 - 1) * many["itl_ms"]) * 1e-3
    assert many["requests_per_s"] * e2e == pytest.approx(4096, rel=1e-6)
    fewer = dse.evaluate(scenario(16, concurrency=2048)).iloc[0]
    assert fewer["ttft_ms"] < many["ttft_ms"]


@settings(max_examples=8, deadline=None, derandomize=True, database=None)
@given(clients=st.lists(st.integers(1, 3000), min_size=6, max_size=6, unique=True), gpus=st.sampled_from([12, 16, 32]))
def test_more_clients_never_serve_fewer_requests_nor_shorten_the_first_token(clients, gpus):
    clients = sorted(clients)
    rows = dse.evaluate([scenario(gpus, concurrency=n) for n in clients])  # one vectorized call
    rate, ttft = rows["requests_per_s"].to_numpy(), rows["ttft_ms"].to_numpy()
    assert (np.diff(rate) >= -1e-6 * rate[1:]).all()
    assert (np.diff(ttft) >= -1e-6 * ttft[1:]).all()
    e2e = (ttft + (500 - 1) * rows["itl_ms"].to_numpy()) * 1e-3
    assert np.allclose(rate * e2e, clients, rtol=1e-4)


def test_a_deployment_takes_clients_or_a_rate_not_both():
    with pytest.raises(InputError, match="concurrency .* or request_rate .*not both"):
        scenario(16, concurrency=8, request_rate=2.0)


def test_the_shipped_two_gpu_deployment_holds_its_header():
    """scenarios/llama3_70b_disaggregated_h100_h200.yaml says: 24 H100s and 8 H200s, 594 output
    tokens/s per GPU at 1.52 USD per million tokens; 32 H200s the same 594 at 1.87, 32 H100s 537 at
    1.55."""
    import yaml

    path = Path(__file__).resolve().parents[2] / "scenarios" / "llama3_70b_disaggregated_h100_h200.yaml"
    data = yaml.safe_load(path.read_text())
    row = dse.evaluate(dse.load_scenario(data)).iloc[0]
    assert (row["prefill_instances"], row["decode_instances"]) == (12, 2)
    assert round(row["tokens_per_s_per_gpu"]) == 594 and round(row["cost_per_mtok_usd"], 2) == 1.52

    def alone(gpu, price):
        d = yaml.safe_load(path.read_text())
        d["cluster"].update(gpu=gpu, price_per_gpu_hour=price)
        d["inference"]["prefill"].update(gpu=gpu, price_per_gpu_hour=price)
        return dse.evaluate(dse.load_scenario(d)).iloc[0]

    h200, h100 = alone("H200-SXM-141GB", 4.0), alone("H100-SXM-80GB", 3.0)
    assert round(h200["tokens_per_s_per_gpu"]) == 594 and round(h200["cost_per_mtok_usd"], 2) == 1.87
    assert round(h100["tokens_per_s_per_gpu"]) == 537 and round(h100["cost_per_mtok_usd"], 2) == 1.55
