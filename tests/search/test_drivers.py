"""The search drivers end to end: agreement with the exhaustive sweep, outputs, resume."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dse.costmodel.training import OUT_OF_MEMORY
from dse.search.runner import run_search

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "search_spaces" / "quickstart.yaml"
CODESIGN_SMALL = ROOT / "search_spaces" / "codesign_small.yaml"
DSE = Path(sys.executable).parent / "dse"


def best_per_gpus(out: Path) -> pd.Series:
    df = pd.read_parquet(out / "configs.parquet")
    return df[df["feasible"]].groupby("num_gpus")["tokens_per_s"].max()


@pytest.fixture(scope="module")
def exhaustive(tmp_path_factory):
    out = tmp_path_factory.mktemp("exhaustive")
    return run_search(CODESIGN_SMALL, out_dir=out, mode="exhaustive", progress=False, plots=False)


def test_exhaustive_scores_the_whole_space_once(exhaustive):
    df = pd.read_parquet(exhaustive.out_dir / "configs.parquet")
    assert exhaustive.report.space_size == len(df) == 17856
    keys = [c for c in df.columns if c in ("num_gpus", "tp", "pp", "dp", "zero", "recompute", "microbatch")
            or c.startswith("hw.")]
    assert not df.duplicated(subset=keys).any()


@pytest.mark.parametrize("sampler", ["tpe", "nsga2"])
def test_nested_search_finds_the_exhaustive_best_per_gpu_count(exhaustive, tmp_path, sampler):
    """In its default budget (the space's n_trials), within 1% for every GPU count."""
    run = run_search(CODESIGN_SMALL, out_dir=tmp_path, sampler=sampler, progress=False, plots=False)
    assert run.mode == "nested" and run.report.trials_complete == 100
    reference, found = best_per_gpus(exhaustive.out_dir), best_per_gpus(tmp_path)
    found = found.reindex(reference.index)
    assert (found >= 0.99 * reference).all(), (reference, found)


def test_optuna_mode_never_proposes_degrees_that_do_not_divide(tmp_path):
    run = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", n_trials=120,
                     progress=False, plots=False)
    df = pd.read_parquet(tmp_path / "configs.parquet")
    assert run.report.trials_complete == 120 and len(df) == 120
    assert ((df["infeasible_mask"] & ~OUT_OF_MEMORY) == 0).all()
    assert np.allclose(df["tp"] * df["pp"] * df["dp"] * df["cp"], df["num_gpus"])


def test_outputs_exist_and_parse(tmp_path):
    run_search(QUICKSTART, out_dir=tmp_path, mode="nested", n_trials=16, progress=False)
    configs = pd.read_parquet(tmp_path / "configs.parquet")
    csv = pd.read_csv(tmp_path / "configs.csv")
    assert len(csv) == len(configs) > 0
    pareto = pd.read_csv(tmp_path / "pareto.csv")
    assert {"num_gpus", "tokens_per_s", "feasible"} <= set(pareto.columns)
    assert pareto["feasible"].all()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    for key in ("dse_version", "git_commit", "libraries", "space_file", "space_sha256", "seed",
                "sampler", "mode", "counts", "wall_time_s"):
        assert key in manifest
    assert manifest["counts"]["scored"] == len(configs)
    for stem in ("throughput_vs_gpus", "best_breakdown"):
        for ext in ("png", "pdf"):
            assert (tmp_path / f"{stem}.{ext}").stat().st_size > 1000


def test_rerun_resumes_and_keeps_completed_trials(tmp_path):
    first = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=24,
                       progress=False, plots=False)
    before = pd.read_parquet(tmp_path / "configs.parquet")
    second = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=40,
                        progress=False, plots=False)
    after = pd.read_parquet(tmp_path / "configs.parquet")
    assert first.report.trials_complete == 24 and second.report.trials_complete == 40
    kept = after[after["trial"] < 24].sort_values("trial").reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, before.sort_values("trial").reset_index(drop=True))


def test_exhaustive_rerun_rescores_only_missing_chunks(tmp_path):
    run_search(QUICKSTART, out_dir=tmp_path, mode="exhaustive", progress=False, plots=False)
    shards = sorted((tmp_path / "shards").glob("*.parquet"))
    assert len(shards) == 4  # one per GPU count
    kept = {p: p.stat().st_mtime_ns for p in shards[1:]}
    shards[0].unlink()
    again = run_search(QUICKSTART, out_dir=tmp_path, mode="exhaustive", progress=False, plots=False)
    assert shards[0].exists() and all(p.stat().st_mtime_ns == t for p, t in kept.items())
    assert again.counts["scored"] == 558


def test_killed_search_resumes_without_losing_completed_trials(tmp_path):
    """SIGKILL a running `dse search`, run the same command again: trials completed before the
    kill are all there with the same values, and the study reaches its target."""
    import optuna
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna.trial import TrialState

    cmd = [str(DSE), "search", str(QUICKSTART), "--out", str(tmp_path), "--mode", "optuna",
           "--sampler", "random", "--total-trials", "3000", "--no-plots", "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    journal = tmp_path / "study.journal"
    storage = None
    deadline = time.monotonic() + 60
    done_before: dict[int, list[float]] = {}
    while time.monotonic() < deadline:
        time.sleep(0.3)
        if journal.exists():
            storage = storage or JournalStorage(JournalFileBackend(str(journal)))
            try:
                study = optuna.load_study(study_name="quickstart", storage=storage)
            except KeyError:
                continue
            done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
            if len(done) >= 100:
                break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    study = optuna.load_study(study_name="quickstart",
                              storage=JournalStorage(JournalFileBackend(str(journal))))
    done_before = {t.number: t.values for t in study.get_trials(states=(TrialState.COMPLETE,))}
    assert 100 <= len(done_before) < 3000

    rerun = subprocess.run(cmd[:-4] + ["--total-trials", str(len(done_before) + 40), "--no-plots", "--json"],
                           capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    study = optuna.load_study(study_name="quickstart",
                              storage=JournalStorage(JournalFileBackend(str(journal))))
    after = {t.number: t.values for t in study.get_trials(states=(TrialState.COMPLETE,))}
    assert all(after[n] == v for n, v in done_before.items())
    assert len(after) == len(done_before) + 40
    assert not study.get_trials(states=(TrialState.RUNNING,))
    configs = pd.read_parquet(tmp_path / "configs.parquet")
    assert set(configs["trial"]) <= set(after)


def test_bad_space_file_fails_cleanly(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(QUICKSTART.read_text().replace("gpus: [8, 16, 32, 64]", "gpus: [8, 16, 32, 64]\nbogus: 1"))
    result = subprocess.run([str(DSE), "search", str(bad), "--out", str(tmp_path / "out")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "bad.yaml" in result.stderr and "bogus" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_unwritable_results_folder_is_reported_before_work(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = subprocess.run([str(DSE), "search", str(QUICKSTART), "--out", str(blocker / "sub")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--out" in result.stderr and "Traceback" not in result.stderr
