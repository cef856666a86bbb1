"""The results folder: finalize writes the CSV exports and the constrained front; reading it back;
atomic writes. ``make_results`` (a synthetic folder scored by the real cost model) is shared with
test_plots.py."""

import itertools
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import dse
from dse.api import scenario_columns
from dse.costmodel import evaluate_training
from dse.errors import InputError
from dse.search.pareto import pareto_mask
from dse.search.results import (finalize, infeasible_counts, read_results, read_table_metadata, summarize,
                                top_configs, write_json, write_table)

OBJECTIVES = [("tokens_per_s", "maximize"), ("num_gpus", "minimize"), ("cost_per_mtok_usd", "minimize")]
PLAN = ("num_gpus", "tp", "pp", "dp", "cp", "ep", "vpp", "zero", "sp", "recompute", "microbatch", "global_batch")


def make_results(out: Path, study: str = "synthetic", duplicates: int = 20) -> pd.DataFrame:
    """configs.parquet + manifest.json of a few hundred Llama-2-70B plans on 8-256 H100s at two HBM
    sizes, scored by the cost model (some run out of memory), plus ``duplicates`` repeated rows
    (the same configuration scored by another trial)."""
    base = scenario_columns(dse.load_scenario({
        "name": study, "model": "llama2-70b", "cluster": {"gpu": "H100-SXM-80GB", "num_gpus": 8},
        "parallel": {"tp": 1, "pp": 1, "global_batch": 256},
    }))
    rows = []
    for gpus, tp, pp, recompute, hbm_gb in itertools.product([8, 16, 32, 64, 128, 256], [1, 2, 4, 8],
                                                             [1, 2, 4, 8], [0, 2], [80, 141]):
        if gpus % (tp * pp):
            continue
        rows.append({"num_gpus": gpus, "tp": tp, "pp": pp, "dp": gpus // (tp * pp), "cp": 1, "ep": 1, "vpp": 1,
                     "zero": 1, "sp": float(tp > 1), "recompute": recompute, "microbatch": 1, "global_batch": 256,
                     "hw.hbm_gb": float(hbm_gb)})
    plan = pd.DataFrame(rows).astype(float)
    columns = {**base, **{c: plan[c].to_numpy() for c in PLAN}, "hbm_bytes": plan["hw.hbm_gb"].to_numpy() * 2**30}
    metrics = evaluate_training(columns)
    df = plan.assign(hbm_bytes=columns["hbm_bytes"], **metrics)
    df.insert(0, "trial", np.arange(len(df), dtype=np.int64))
    df["feasible"] = df["feasible"] > 0
    df["infeasible_mask"] = df["infeasible_mask"].astype(np.int64)
    dupes = df.sample(duplicates, random_state=0).assign(trial=-1)
    df = pd.concat([df, dupes], ignore_index=True)
    out.mkdir(parents=True, exist_ok=True)
    write_table(df, out / "configs.parquet")
    manifest = {"study": study, "mode": "exhaustive",
                "objectives": [{"metric": m, "direction": d} for m, d in OBJECTIVES],
                "counts": {"scored": len(df), "feasible": int(df["feasible"].sum())}}
    write_json(manifest, out / "manifest.json")
    return df


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("results") / "synthetic"
    df = make_results(out)
    return out, df


def test_synthetic_folder_is_realistic(results):
    _, df = results
    assert 200 <= len(df) <= 1000
    assert 0 < df["feasible"].sum() < len(df)  # some plans run out of memory


def test_the_summary_counts_the_infeasible_configurations_by_reason(results):
    out, df = results
    summary, _ = summarize(out)
    oom = int((~df["feasible"]).sum())
    assert summary["infeasible"] == [{"reason": "out of memory", "configurations": oom}]
    # a configuration failing two checks counts under each; the most common comes first
    from dse.costmodel import training as tr

    mixed = pd.DataFrame({"infeasible_mask": [0, tr.OUT_OF_MEMORY, tr.OUT_OF_MEMORY | tr.BATCH_DP, tr.BATCH_DP,
                                              tr.BATCH_DP]})
    assert infeasible_counts(mixed) == [
        {"reason": "global batch not divisible by dp*microbatch", "configurations": 3},
        {"reason": "out of memory", "configurations": 2}]
    assert infeasible_counts(mixed.iloc[:1]) == []


def test_finalize_writes_csv_exports_and_the_constrained_front(results):
    out, df = results
    counts = finalize(out, OBJECTIVES)
    assert counts == {"scored": len(df), "feasible": int(df["feasible"].sum()), "pareto": counts["pareto"]}
    configs = pd.read_csv(out / "configs.csv")
    assert len(configs) == len(df) and list(configs.columns) == list(df.columns)
    # coded plan columns by name, for a spreadsheet
    assert set(configs["recompute"]) <= {"none", "selective", "full"} and df["recompute"].dtype.kind == "f"
    front = pd.read_csv(out / "pareto.csv")
    assert len(front) == counts["pareto"] > 1
    assert list(front.columns) == list(df.columns)  # every column of the front rows
    assert front["feasible"].astype(bool).all()
    # non-dominated among the feasible rows, each point once
    feasible = df[df["feasible"]]
    values = feasible[[m for m, _ in OBJECTIVES]].to_numpy()
    signs = np.array([-1.0 if d == "maximize" else 1.0 for _, d in OBJECTIVES])
    for point in front[[m for m, _ in OBJECTIVES]].to_numpy() * signs:
        w = values * signs
        assert not ((w <= point).all(axis=1) & (w < point).any(axis=1)).any()
    assert not front.duplicated(subset=[m for m, _ in OBJECTIVES]).any()
    mask = pareto_mask(values, [d for _, d in OBJECTIVES])
    assert mask.sum() == len(front)
    # best first by the first objective
    assert front["tokens_per_s"].is_monotonic_decreasing


def test_finalize_defaults_to_the_manifest_objectives(results, tmp_path):
    out, df = results
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("configs.parquet", "manifest.json"):
        (copy / name).write_bytes((out / name).read_bytes())
    assert finalize(copy) == finalize(out, OBJECTIVES)


def test_read_results(results, tmp_path):
    out, df = results
    back, manifest = read_results(out)
    assert len(back) == len(df) and manifest["study"] == "synthetic"
    assert back["feasible"].dtype == bool and back["trial"].dtype == np.int64
    some, _ = read_results(out, columns=["tokens_per_s", "hw.*", "no_such_column"])
    assert list(some.columns) == ["hw.hbm_gb", "tokens_per_s"]
    with pytest.raises(InputError, match="not a dse results folder"):
        read_results(tmp_path)  # empty folder
    with pytest.raises(InputError, match="does not exist"):
        read_results(tmp_path / "missing")
    (tmp_path / "configs.parquet").write_bytes((out / "configs.parquet").read_bytes())
    with pytest.raises(InputError, match="no manifest.json"):
        read_results(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(InputError, match="manifest.json cannot be read"):
        read_results(tmp_path)


def test_load_results_is_the_csv_view_for_a_notebook(results, tmp_path):
    out, df = results
    table, manifest = dse.load_results(out)
    assert len(table) == len(df) and manifest["study"] == "synthetic"
    assert set(table["recompute"]) == {"none", "full"}  # named, as configs.csv
    assert np.array_equal(table["tokens_per_s"].to_numpy(), df["tokens_per_s"].to_numpy())
    feasible, _ = dse.load_results(out, feasible_only=True)
    assert len(feasible) == int(df["feasible"].sum()) and feasible["feasible"].all()
    with pytest.raises(InputError, match="not a dse results folder"):
        dse.load_results(tmp_path)


def test_top_configs_are_the_best_feasible_each_once(results):
    out, df = results
    top = top_configs(df, OBJECTIVES, 10)
    assert len(top) == 10 and top["feasible"].all()
    assert top["tokens_per_s"].is_monotonic_decreasing
    assert top["tokens_per_s"].iloc[0] == df.loc[df["feasible"], "tokens_per_s"].max()
    assert not top.drop(columns="trial").duplicated().any()
    # a configuration repeated by another trial counts once
    best = top.iloc[[0]]
    doubled = pd.concat([best.assign(trial=7), best.assign(trial=8), df.iloc[:5]], ignore_index=True)
    assert top_configs(doubled, OBJECTIVES, 2)["trial"].tolist()[0] == 7
    assert len(top_configs(doubled, OBJECTIVES, 2)) == min(2, 1 + int(df.iloc[:5]["feasible"].sum()))


def test_a_plan_repeated_over_more_replicas_is_listed_once_at_its_fewest_gpus():
    """Serving replicas are independent: a plan at 1, 2, 4 GPUs (dp 1, 2, 4) has the same per-GPU
    figures and is one entry of the top list (at 1 GPU); a plan whose per-GPU figure changes with
    dp (training's gradient all-reduce) keeps each count."""
    objectives = [("tokens_per_s_per_gpu", "maximize"), ("itl_ms", "minimize")]
    rows = [dict(trial=i, num_gpus=n, tp=1, pp=1, dp=n, batch=64, feasible=True, tokens_per_s=800.0 * n,
                 tokens_per_s_per_gpu=800.0, itl_ms=60.0) for i, n in enumerate((4, 1, 2))]
    rows.append(dict(trial=3, num_gpus=2, tp=2, pp=1, dp=1, batch=64, feasible=True, tokens_per_s=1500.0,
                     tokens_per_s_per_gpu=750.0, itl_ms=50.0))
    rows += [dict(trial=4 + i, num_gpus=n, tp=2, pp=1, dp=n // 2, batch=32, feasible=True,
                  tokens_per_s=700.0 * n - i, tokens_per_s_per_gpu=700.0 - i / n, itl_ms=40.0) for i, n in
             enumerate((2, 4))]
    top = top_configs(pd.DataFrame(rows), objectives, 10)
    assert top["num_gpus"].tolist() == [1, 2, 2, 4]
    assert top["tokens_per_s_per_gpu"].tolist()[:2] == [800.0, 750.0]


def test_write_table_is_atomic(tmp_path, monkeypatch):
    df = pd.DataFrame({"a": [1, 2, 3], "b": [0.5, np.nan, 2.0], "ok": [True, False, True]})
    path = write_table(df, tmp_path / "t.parquet", metadata={"study": "x"})
    assert sorted(os.listdir(tmp_path)) == ["t.parquet"]  # no temporary file left behind
    pd.testing.assert_frame_equal(pq.read_table(path).to_pandas(), df)
    assert read_table_metadata(path) == {"study": "x"}
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).compression == "ZSTD"

    # a write that fails halfway leaves the previous file as it was, and no temporary file
    before = path.read_bytes()

    def broken(table, where, **kwargs):
        where.write(b"PAR1 half a file")
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", broken)
    with pytest.raises(OSError, match="disk full"):
        write_table(df.iloc[:1], path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["t.parquet"]


def test_write_json_is_strict_json(tmp_path):
    path = write_json({"x": float("nan"), "n": np.int64(3), "f": np.float32(0.5), "p": Path("a")}, tmp_path / "m.json")
    assert json.loads(path.read_text()) == {"x": None, "n": 3, "f": 0.5, "p": "a"}
    assert sorted(os.listdir(tmp_path)) == ["m.json"]
