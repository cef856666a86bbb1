"""Enumeration (dse/search/enumerate.py): the software grid is exactly the set of plans whose
degrees divide, checked against a plain-Python brute force and against the cost model's own
feasibility bits; the hardware grid is the product of the knob values."""

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import yaml

from dse.api import RECOMPUTE_CODE
from dse.costmodel import evaluate_training
from dse.costmodel.training import HOST_MEMORY, OUT_OF_MEMORY
from dse.errors import InputError
from dse.search.enumerate import SOFTWARE_COLUMNS, hardware_grid, software_grid, space_size
from dse.search.space import load_space, space_from_dict

ROOT = Path(__file__).resolve().parents[2]
SPACES = sorted((ROOT / "search_spaces").glob("*.yaml"))

#: A dense model with awkward numbers (40 heads, 40 layers, FFN 13824) and non power-of-two GPUs.
DENSE = {
    "scenario": {"model": "llama2-13b", "precision": "bf16", "cluster": {"gpu": "H100-SXM-80GB"}},
    "gpus": [8, 12, 16, 24, 40],
    "parallel": {"tp": [1, 2, 3, 4, 5, 8], "pp": [1, 2, 3, 4, 5], "vpp": [1, 2, 4], "cp": [1, 2, 3],
                 "ep": [1, 2], "zero": [0, 3], "sp": [True, False], "recompute": ["none", "full"],
                 "microbatch": [1, 2, 3]},
    "global_batch": {"sequences": [60, 64, 120]},
}
#: A mixture of experts with 6 experts and an expert FFN that tp 4 does not divide.
MOE = {
    "scenario": {"model": {"preset": "mixtral-8x7b",
                           "moe": {"experts": 6, "top_k": 2, "expert_ffn_hidden": 14334}},
                 "cluster": {"gpu": "H100"}},
    "gpus": [8, 12, 16, 24, 32],
    "parallel": {"tp": [1, 2, 4, 8], "pp": [1, 2, 4], "vpp": [1, 2], "cp": [1, 2],
                 "ep": [1, 2, 3, 4, 6, 8], "etp": ["tp", 1, 2], "zero": [1], "sp": [True, False], "recompute": ["selective"],
                 "microbatch": [1, 2]},
    "global_batch": {"tokens": [262144, 524288, 786432, 1000000]},
}
#: Grouped-query and multi-query attention at tp beyond the KV heads: 48 query heads and 8 KV heads
#: (tp 16 replicates them, tp 12 neither divides nor fills them) or one KV head (every tp fills it).
GQA = {
    "scenario": {"model": {"preset": "llama2-70b", "heads": 48, "head_dim": 128, "ffn_hidden": 24576},
                 "cluster": {"gpu": "H100"}},
    "gpus": [16, 32, 48],
    "parallel": {"tp": [1, 4, 8, 12, 16], "pp": [1, 2], "zero": [1], "recompute": ["full"], "microbatch": [1]},
    "global_batch": {"sequences": [96]},
}
MQA = {**GQA, "scenario": {**GQA["scenario"], "model": {**GQA["scenario"]["model"], "kv_heads": 1}}}
#: Mixtral itself, with sp listed as [true] only, the experts folded (etp 1) or split as the attention.
MIXTRAL = {
    "scenario": {"model": "mixtral-8x7b", "cluster": {"gpu": "H100"}},
    "gpus": {"min": 8, "max": 64, "scale": "pow2"},
    "parallel": {"tp": [1, 2, 4], "pp": [1, 2, 4], "vpp": [1, 2, 4], "cp": [1, 2], "ep": [1, 2, 4, 8],
                 "etp": [1, "tp"], "zero": [0, 1], "shard_group": [0, 2, 8], "sp": [True],
                 "recompute": ["none", "full"],
                 "offload_layers": [0, 4, 12],
                 "microbatch": [1, 2, 4]},
    "global_batch": {"sequences": [128, 256]},
}


def brute_force(space, num_gpus):
    """Every candidate combination with plain loops, kept when the degrees divide."""
    m, par = space.base.model, space.spec.parallel
    moe = m.moe
    rows = set()
    for tp, pp, cp, ep, vpp, zero, rc, off, mb, gb in itertools.product(
            par.tp, par.pp, par.cp, par.ep, par.vpp, par.zero, par.recompute, par.offload_layers, par.microbatch,
            space.global_batches()):
        if num_gpus % (tp * pp * cp):
            continue
        dp = num_gpus // (tp * pp * cp)
        if m.heads % tp or (m.kv % tp and tp % m.kv) or m.ffn_hidden % tp:
            continue
        if moe is not None and moe.expert_ffn_hidden % tp:
            continue
        if m.layers + 2 < pp * vpp or m.seq_len % cp:
            continue
        if off > math.ceil(m.layers / pp):  # a stage offloads only layers it holds
            continue
        if gb % (dp * mb):
            continue
        if vpp > 1 and (pp < 2 or (gb // (dp * mb)) % pp):
            continue
        if moe is None and ep != 1:
            continue
        if moe is not None and moe.experts % ep:
            continue
        if par.sp == "auto":
            sps = [int(tp > 1)]
        else:
            sps = [0] if tp == 1 else sorted({int(v) for v in par.sp})
        for e in par.etp:
            etp = 0 if e == "tp" or e == tp else e  # 0: the experts split as the attention
            run = etp or tp
            if moe is None and etp:
                continue
            if moe is not None and ((tp * dp * cp) % (run * ep) or moe.expert_ffn_hidden % run):
                continue
            for sg in par.shard_group:
                if sg and not (zero >= 1 and sg < dp * cp and (dp * cp) % sg == 0):
                    continue
                for sp in sps:
                    if moe is not None and tp > 1 and not sp:  # MoE with tp needs sequence parallelism
                        continue
                    rows.add((tp, pp, dp, cp, ep, etp, vpp, zero, sg, sp, RECOMPUTE_CODE[rc], off, mb, gb,
                              num_gpus))
    return rows


def as_rows(grid):
    return [tuple(float(grid[k][i]) for k in SOFTWARE_COLUMNS) for i in range(len(grid["tp"]))]


def check_cost_model_agrees(space, num_gpus, grid):
    """The cost model flags no grid row for anything but memory (HBM or, offloading, host memory)."""
    if not len(grid["tp"]):
        return
    cols = dict(space.base_columns(num_gpus))
    cols.update(grid)
    mask = evaluate_training(cols, outputs=["infeasible_mask"])["infeasible_mask"].astype(np.int64)
    bad = mask & ~(OUT_OF_MEMORY | HOST_MEMORY)
    assert not bad.any(), f"{int(np.count_nonzero(bad))} rows flagged {sorted(set(bad[bad > 0].tolist()))}"


# ---------------------------------------------------------------------------- software grid
@pytest.mark.parametrize("data", [DENSE, MOE, MIXTRAL, GQA, MQA], ids=["dense", "moe", "mixtral", "gqa", "mqa"])
def test_grid_equals_brute_force(data):
    space = space_from_dict(data)
    nonempty = 0
    for n in space.gpu_counts():
        grid = software_grid(space, n)
        rows = as_rows(grid)
        assert len(rows) == len(set(rows)), "duplicate rows"
        assert set(rows) == {tuple(map(float, r)) for r in brute_force(space, n)}
        assert rows == sorted(rows), "rows are sorted lexicographically by SOFTWARE_COLUMNS"
        nonempty += bool(rows)
        check_cost_model_agrees(space, n, grid)
    assert nonempty >= 3


def test_tp_beyond_the_kv_heads_is_kept_where_it_fills_them():
    """8 KV heads: tp 16 holds one replicated head a rank, tp 12 neither splits nor fills them;
    one KV head: every tp that divides the 48 query heads."""
    assert set(software_grid(space_from_dict(GQA), 48)["tp"]) == {1.0, 4.0, 8.0, 16.0}
    assert set(software_grid(space_from_dict(MQA), 48)["tp"]) == {1.0, 4.0, 8.0, 12.0, 16.0}


def test_grid_columns_and_degree_product():
    space = space_from_dict(MOE)
    grid = software_grid(space, 24)
    assert tuple(grid) == SOFTWARE_COLUMNS
    n = len(grid["tp"])
    assert n > 0
    for k, v in grid.items():
        assert v.dtype == np.float64 and v.shape == (n,), k
    np.testing.assert_array_equal(grid["tp"] * grid["pp"] * grid["dp"] * grid["cp"], 24.0)
    assert set(grid["ep"]) <= {1.0, 2.0, 3.0, 6.0}  # divisors of 6 experts; 4 and 8 never
    assert 4.0 not in set(grid["tp"])  # expert_ffn_hidden 14334 % 4 != 0
    assert set(grid["sp"][grid["tp"] == 1]) == {0.0}  # sequence parallelism needs tp > 1
    # etp: 0 (as tp), 1 or 2 (never equal to the row's tp), folded only with sp on at tp > 1
    assert set(grid["etp"]) == {0.0, 1.0, 2.0}
    assert not np.any(grid["etp"] == grid["tp"])
    folded = grid["etp"] > 0
    assert np.all(grid["sp"][folded & (grid["tp"] > 1)] == 1.0)
    etp = np.where(folded, grid["etp"], grid["tp"])
    np.testing.assert_array_equal(np.mod(grid["tp"] * grid["dp"] * grid["cp"], etp * grid["ep"]), 0.0)


def test_sp_list_at_tp_one_is_off():
    grid = software_grid(space_from_dict(MIXTRAL), 16)
    tp1 = grid["tp"] == 1
    assert tp1.any() and (~tp1).any()
    assert not grid["sp"][tp1].any() and grid["sp"][~tp1].all()


def test_grid_is_deterministic():
    space = space_from_dict(DENSE)
    a, b = software_grid(space, 24), software_grid(space, 24)
    for k in SOFTWARE_COLUMNS:
        np.testing.assert_array_equal(a[k], b[k])


def test_offloading_more_layers_than_the_model_has_is_refused():
    data = {**MIXTRAL, "parallel": {**MIXTRAL["parallel"], "offload_layers": [0, 40]}}
    with pytest.raises(InputError, match=r"parallel.offload_layers.*allowed 0 to 31"):
        software_grid(space_from_dict(data), 16)


def test_empty_grid_when_nothing_divides():
    space = space_from_dict({**DENSE, "gpus": [7]})
    grid = software_grid(space, 7)
    assert all(len(v) == 0 for v in grid.values()) and tuple(grid) == SOFTWARE_COLUMNS


@pytest.mark.parametrize("path", SPACES, ids=[p.stem for p in SPACES])
def test_shipped_grids_only_fail_on_memory(path):
    space = load_space(path)
    if space.kind != "llm_train":
        pytest.skip("serving and DLRM grids: tests/search/test_workloads.py")
    for n in space.gpu_counts():
        grid = software_grid(space, n)
        np.testing.assert_array_equal(grid["tp"] * grid["pp"] * grid["dp"] * grid["cp"], float(n))
        check_cost_model_agrees(space, n, grid)


# ---------------------------------------------------------------------------- sizes
def test_space_size_quickstart():
    space = load_space(ROOT / "search_spaces" / "quickstart.yaml")
    size = space_size(space)
    assert set(size["software"]) == {8, 16, 32, 64}
    for n, count in size["software"].items():
        assert count == len(software_grid(space, n)["tp"]) == len(brute_force(space, n))
    assert size["software_total"] == sum(size["software"].values())
    assert size["hardware_points"] == 1 and size["total"] == size["software_total"]


def test_space_size_continuous_hardware():
    size = space_size(load_space(ROOT / "search_spaces" / "codesign_h100.yaml"))
    assert size["hardware_points"] is None
    assert size["total"] == size["software_total"] == size["software"][1024] > 0


# ---------------------------------------------------------------------------- hardware grid
def test_hardware_grid_is_the_product():
    data = yaml.safe_load((ROOT / "search_spaces" / "quickstart.yaml").read_text())
    data["hardware"] = {"hbm_gb": {"values": [80, 141, 192]}, "nvlink_domain": {"values": [72, 8]},
                        "scaleout_gbitps": {"low": 100, "high": 400, "step": 100}}
    space = space_from_dict(data)
    grid = hardware_grid(space)
    assert set(grid) == {"hbm_gb", "nvlink_domain", "scaleout_gbitps"}
    assert all(len(v) == 3 * 2 * 4 for v in grid.values())
    points = set(zip(*(grid[k].tolist() for k in ("hbm_gb", "nvlink_domain", "scaleout_gbitps"))))
    assert points == set(itertools.product([80.0, 141.0, 192.0], [8.0, 72.0], [100.0, 200.0, 300.0, 400.0]))
    size = space_size(space)
    assert size["hardware_points"] == 24 and size["total"] == 24 * size["software_total"]
    assert not space.is_discrete_hardware()  # a stepped range is not a list of values
    assert hardware_grid(load_space(ROOT / "search_spaces" / "quickstart.yaml")) == {}


def test_hardware_grid_step_stops_at_high():
    data = yaml.safe_load((ROOT / "search_spaces" / "quickstart.yaml").read_text())
    data["hardware"] = {"peak_scale": {"low": 0.5, "high": 2.0, "step": 0.3}}
    grid = hardware_grid(space_from_dict(data))
    np.testing.assert_allclose(grid["peak_scale"], [0.5, 0.8, 1.1, 1.4, 1.7, 2.0])


def test_hardware_grid_rejects_continuous_knob():
    space = load_space(ROOT / "search_spaces" / "codesign_h100.yaml")
    with pytest.raises(InputError) as info:
        hardware_grid(space)
    assert "hardware.scaleout_gbitps" in str(info.value) or "hardware.peak_scale" in str(info.value)
    assert space.source_path in str(info.value)


@pytest.mark.parametrize("gpus,parallel,reason", [
    (12, {}, "no global batch (256 sequences) is a multiple of dp*microbatch (dp = 12/(tp*pp*cp): 3, 6, 12; "
             "microbatch: 1, 2, 4)"),
    (6, {"tp": [2, 4], "pp": [2]}, "no product tp*pp*cp divides 6 GPUs (tp 2, 4; pp 2; cp 1)"),
    (6, {"pp": [4]}, "no pp of parallel.pp (4) divides 6 GPUs"),
    (8, {}, None),
])
def test_no_plan_reason_names_the_check_that_left_no_plan(gpus, parallel, reason):
    from dse.search.enumerate import check_not_empty, no_plan_reason

    data = yaml.safe_load((ROOT / "search_spaces" / "quickstart.yaml").read_text())
    data["gpus"] = [gpus]
    data["parallel"].update(parallel)
    space = space_from_dict(data)
    assert no_plan_reason(space, gpus) == reason
    if reason is None:
        check_not_empty(space)
    else:
        with pytest.raises(InputError, match="no valid configuration") as err:
            check_not_empty(space)
        assert reason in str(err.value)
