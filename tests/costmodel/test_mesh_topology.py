"""A full-mesh domain (AMD Infinity Fabric: one direct link from each GPU to each other) against a
switched one (NVSwitch) at the same bandwidth per GPU, through whole scenarios: a group smaller
than the domain is slower on the mesh, one that fills it is not."""

import pytest

from dse.api import evaluate


def serving(tp, topology):
    return {
        "name": "mesh", "workload": "inference", "precision": "fp8", "model": "llama3.1-70b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": tp, "nvlink_topology": topology},
        "parallel": {"tp": tp},
        "inference": {"input_len": 2048, "output_len": 256, "batch": 32},
    }


def training(tp, pp, topology):
    return {
        "name": "mesh", "workload": "train", "precision": "bf16", "model": "llama3.1-8b",
        "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8, "nvlink_topology": topology},
        "parallel": {"tp": tp, "pp": pp, "microbatch": 1, "global_batch": 64},
    }


def one(scenario, column):
    return float(evaluate(scenario, explain=False)[column].iloc[0])


def test_a_tensor_parallel_pair_serves_slower_on_a_mesh():
    switch, mesh = (one(serving(2, t), "itl_ms") for t in ("switch", "mesh"))
    assert mesh > switch * 1.02


def test_a_group_that_fills_the_domain_is_the_same_on_both():
    assert one(serving(8, "mesh"), "itl_ms") == pytest.approx(one(serving(8, "switch"), "itl_ms"), rel=1e-12)


def test_pipeline_sends_use_one_link_of_a_mesh():
    switch, mesh = (one(training(1, 8, t), "exposed_pp_s") for t in ("switch", "mesh"))
    assert mesh > switch
    assert one(training(8, 1, "mesh"), "iteration_time_s") == pytest.approx(
        one(training(8, 1, "switch"), "iteration_time_s"), rel=1e-12)
