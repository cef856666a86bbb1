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
import optuna
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
    for key in ("dse_version", "dse_model", "git_commit", "libraries", "space_file", "space_sha256", "seed",
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


def test_resuming_a_study_scored_by_another_dse_says_so(tmp_path, monkeypatch):
    """A study records which dse scored it; resuming it with another one keeps the trials (their
    values cannot change) and says that they are that version's."""
    from dse.search import drivers

    first = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=8,
                       progress=False, plots=False)
    assert not any("another version of dse" in n for n in first.report.notes)
    same = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=12,
                      progress=False, plots=False)
    assert not any("another version of dse" in n for n in same.report.notes)
    monkeypatch.setattr(drivers, "model_fingerprint", lambda: "another-dse")
    other = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=16,
                       progress=False, plots=False)
    assert any("12 of the study's 12 earlier trials were scored by another version of dse" in n
               for n in other.report.notes)
    assert other.report.trials_complete == 16
    # the other dse again: only the first 12 are not its own
    again = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=20,
                       progress=False, plots=False)
    assert any("12 of the study's 16 earlier trials" in n for n in again.report.notes)
    # back to the first dse: the 4 + 4 trials the other one scored are counted
    monkeypatch.undo()
    back = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=24,
                      progress=False, plots=False)
    assert any("8 of the study's 20 earlier trials" in n for n in back.report.notes)


def test_resuming_a_study_that_recorded_no_dse_says_its_trials_may_be_another_versions(tmp_path):
    """A study an earlier dse wrote holds no record of its version: its trials count as another
    version's, once; the trials this dse adds are its own."""
    import optuna

    from dse.search import drivers

    run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=6,
               progress=False, plots=False)
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(
        str(tmp_path / "study.journal")))
    study = optuna.load_study(study_name=optuna.get_all_study_names(storage)[0], storage=storage)
    study.set_user_attr(drivers.MODEL_ATTR, [])  # as a study of an earlier dse has none
    again = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=9,
                       progress=False, plots=False)
    assert any("6 of the study's 6 earlier trials" in n and "did not record itself" in n for n in again.report.notes)
    once = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=12,
                      progress=False, plots=False)
    assert any("6 of the study's 9 earlier trials" in n for n in once.report.notes)


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


def edited(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """QUICKSTART with ``old`` replaced by ``new``, as tmp_path/name."""
    text = QUICKSTART.read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return path


PLAN = ["num_gpus", "tp", "pp", "dp", "cp", "zero", "recompute", "microbatch"]


def test_exhaustive_rerun_of_an_edited_space_scores_exactly_the_new_space(tmp_path):
    """Chunks scored for an earlier version of the space are not kept: a grown space gets its
    new configurations scored, a shrunk one loses the configurations it no longer holds, and
    each configuration of the current space is in configs.parquet once, as a fresh run has it."""
    out = tmp_path / "out"
    grown = edited(tmp_path, "grown.yaml", "microbatch: [1, 2, 4]", "microbatch: [1, 2, 4, 8]")
    shrunk = edited(tmp_path, "shrunk.yaml", "gpus: [8, 16, 32, 64]", "gpus: [8, 16]")
    run_search(QUICKSTART, out_dir=out, mode="exhaustive", progress=False, plots=False)
    for space, size in ((grown, 738), (shrunk, 270)):
        again = run_search(space, out_dir=out, mode="exhaustive", progress=False, plots=False)
        fresh = run_search(space, out_dir=tmp_path / f"fresh-{space.stem}", mode="exhaustive",
                           progress=False, plots=False)
        assert again.report.space_size == again.counts["scored"] == fresh.counts["scored"] == size
        got, want = (pd.read_parquet(o / "configs.parquet").sort_values(PLAN).reset_index(drop=True)
                     for o in (out, fresh.out_dir))
        assert not got.duplicated(subset=PLAN).any()
        pd.testing.assert_frame_equal(got, want)
        pd.testing.assert_frame_equal(pd.read_csv(out / "pareto.csv"), pd.read_csv(fresh.out_dir / "pareto.csv"))
        assert any("another version of the space" in n for n in again.report.notes)
    assert set(pd.read_parquet(out / "configs.parquet")["num_gpus"]) == {8, 16}
    # the same space again is a resume: every chunk kept, nothing re-scored
    kept = {p: p.stat().st_mtime_ns for p in (out / "shards").glob("*.parquet")}
    again = run_search(shrunk, out_dir=out, mode="exhaustive", progress=False, plots=False)
    assert again.counts["scored"] == 270 and "2 of 2 chunks kept from earlier runs" in again.report.notes
    assert {p: p.stat().st_mtime_ns for p in (out / "shards").glob("*.parquet")} == kept


def test_exhaustive_rerun_says_whether_the_space_or_dse_changed(tmp_path, monkeypatch):
    from dse.search import drivers
    from dse.search.space import load_space

    out = tmp_path / "out"
    run_search(QUICKSTART, out_dir=out, mode="exhaustive", progress=False, plots=False)
    (sidecar,) = (out / "shards").glob("exhaustive-*.json")
    assert sidecar.name == f"{drivers.exhaustive_prefix(load_space(QUICKSTART))[:-1]}.json"
    monkeypatch.setattr(drivers, "model_fingerprint", lambda: "another-dse")
    again = run_search(QUICKSTART, out_dir=out, mode="exhaustive", progress=False, plots=False)
    (note,) = [n for n in again.report.notes if n.startswith("removed")]
    assert "another version of dse" in note and "space" not in note
    assert [p.name for p in (out / "shards").glob("exhaustive-*.json")] != [sidecar.name]
    grown = edited(tmp_path, "grown.yaml", "microbatch: [1, 2, 4]", "microbatch: [1, 2, 4, 8]")
    monkeypatch.setattr(drivers, "model_fingerprint", lambda: "a-third-dse")
    third = run_search(grown, out_dir=out, mode="exhaustive", progress=False, plots=False)
    (note,) = [n for n in third.report.notes if n.startswith("removed")]
    assert "space and with another version of dse" in note


def test_exhaustive_chunks_are_keyed_by_what_they_score(tmp_path):
    from dse.search.drivers import chunk_key
    from dse.search.space import load_space

    base = chunk_key(load_space(QUICKSTART))
    same = edited(tmp_path, "same.yaml", "n_trials: 40", "n_trials: 400")  # an Optuna setting only
    assert chunk_key(load_space(same)) == base
    for old, new in (("microbatch: [1, 2, 4]", "microbatch: [1, 2]"),
                     ("max_memory_fraction: 1.0", "max_memory_fraction: 0.9"),
                     ("max_exhaustive: 50000000", "max_exhaustive: 50000000\n  chunk_configs: 10")):
        assert chunk_key(load_space(edited(tmp_path, "other.yaml", old, new))) != base, old


def test_exhaustive_chunks_of_another_dse_are_scored_afresh(tmp_path, monkeypatch):
    """A resume after dse changed (another cost model or calibration) does not keep the chunks
    the earlier dse scored: they are removed, said so, and the space is scored again."""
    from dse.search import drivers
    from dse.search.space import load_space

    out = tmp_path / "out"
    first = run_search(QUICKSTART, out_dir=out, mode="exhaustive", progress=False, plots=False)
    base = drivers.chunk_key(load_space(QUICKSTART))
    monkeypatch.setattr(drivers, "model_fingerprint", lambda: "another-dse")
    assert drivers.chunk_key(load_space(QUICKSTART)) != base
    again = run_search(QUICKSTART, out_dir=out, mode="exhaustive", progress=False, plots=False)
    assert any("another version of dse" in n for n in again.report.notes)
    assert not any("kept from earlier runs" in n for n in again.report.notes)
    assert again.counts["scored"] == first.counts["scored"]
    assert all(p.name.startswith(drivers.exhaustive_prefix(load_space(QUICKSTART)))
               for p in (out / "shards").glob("exhaustive-*.parquet"))


def test_the_model_fingerprint_follows_the_package_files():
    from dse.search.drivers import model_fingerprint

    assert model_fingerprint() == model_fingerprint() and len(model_fingerprint()) == 16


def interrupt_after(monkeypatch, n: int, in_lock_cleanup: bool = False) -> None:
    """Raise KeyboardInterrupt (as Ctrl-C does) in the search loop once ``n`` trials are told;
    ``in_lock_cleanup``: as when Ctrl-C lands in Optuna's journal lock, whose cleanup then
    fails with an OSError raised while handling it."""
    from dse.search import runner

    told = []

    def update(self, info):
        told.append(info)
        if len(told) == n:
            try:
                raise KeyboardInterrupt
            except KeyboardInterrupt:
                if in_lock_cleanup:
                    raise FileNotFoundError(2, "No such file or directory", "study.journal.lock1234.rename")
                raise

    monkeypatch.setattr(runner._Progress, "update", update)


@pytest.mark.parametrize("mode,in_lock_cleanup", [("optuna", False), ("nested", False), ("optuna", True)])
def test_interrupted_search_resumes_with_its_running_trials_requeued_once(tmp_path, monkeypatch, capsys, mode,
                                                                          in_lock_cleanup):
    """Ctrl-C in the middle of a batch (batch_size 8: trials 8-10 told, 11-15 still running):
    the run says how to resume and raises KeyboardInterrupt; the re-run fails and re-queues
    the 5 running trials once each and completes the study."""
    from optuna.trial import TrialState

    from dse.search.storage import storage_for

    interrupt_after(monkeypatch, 11, in_lock_cleanup)
    with pytest.raises(KeyboardInterrupt):
        run_search(QUICKSTART, out_dir=tmp_path, mode=mode, sampler="random", total_trials=24,
                   progress=False, plots=False)
    err = capsys.readouterr().err
    assert "search interrupted" in err and "run the same command again" in err and str(tmp_path) in err
    storage, _ = storage_for(None, tmp_path)
    study = optuna.load_study(study_name="quickstart", storage=storage)
    running = sorted(t.number for t in study.get_trials(states=(TrialState.RUNNING,)))
    assert running == [11, 12, 13, 14, 15]

    monkeypatch.undo()
    rerun = run_search(QUICKSTART, out_dir=tmp_path, mode=mode, sampler="random", total_trials=24,
                       progress=False, plots=False)
    assert rerun.report.requeued == 5
    study = optuna.load_study(study_name="quickstart", storage=storage)
    by_state = {s: sorted(t.number for t in study.trials if t.state == s) for s in TrialState}
    assert by_state[TrialState.RUNNING] == [] and by_state[TrialState.WAITING] == []
    assert by_state[TrialState.FAIL] == running and len(by_state[TrialState.COMPLETE]) == 24
    retries = sorted(t.user_attrs["dse_retry_of"] for t in study.trials if "dse_retry_of" in t.user_attrs)
    assert retries == running  # each once
    configs = pd.read_parquet(tmp_path / "configs.parquet")
    assert set(configs["trial"]) <= set(by_state[TrialState.COMPLETE])
    if mode == "optuna":
        assert len(configs) == 24


@pytest.mark.parametrize("mode", ["optuna", "nested"])
def test_a_sigterm_whose_exception_is_swallowed_still_stops_the_search(tmp_path, monkeypatch, capsys, mode):
    """SIGTERM's handler raises KeyboardInterrupt wherever the main thread is; a library may swallow
    it there (a signal landing in a cleanup). The handler also sets a flag the drivers check before
    every batch, so the search stops within one batch all the same, saying how to resume."""
    from dse.search import runner

    told = []

    def update(self, info):
        told.append(info)
        if len(told) == 9:  # the signal arrives; its exception is lost where it lands
            try:
                runner._terminate_as_interrupt(signal.SIGTERM, None)
            except KeyboardInterrupt:
                pass

    monkeypatch.setattr(runner._Progress, "update", update)
    with pytest.raises(KeyboardInterrupt):
        run_search(QUICKSTART, out_dir=tmp_path, mode=mode, sampler="random", total_trials=400,
                   progress=False, plots=False)
    assert "search interrupted" in capsys.readouterr().err
    assert len(told) < 40  # stopped within a batch or two of the signal, not after 400 trials
    monkeypatch.undo()
    rerun = run_search(QUICKSTART, out_dir=tmp_path, mode=mode, sampler="random", total_trials=24,
                       progress=False, plots=False)  # a new search in the same process is not stopped
    assert rerun.report.trials_total >= 24


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_sigint_stops_the_search_with_a_resume_hint_and_the_rerun_requeues(tmp_path, sig):
    """The real thing: SIGINT (Ctrl-C) or SIGTERM (a batch scheduler) a running `dse search`;
    it exits 130 saying how to resume; the same command run again leaves no trial RUNNING: it fails each trial the
    interrupt left running and re-queues once each of those that had their parameters."""
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend
    from optuna.trial import TrialState

    cmd = [str(DSE), "search", str(QUICKSTART), "--out", str(tmp_path), "--mode", "optuna",
           "--sampler", "random", "--no-plots", "--json"]
    # SIGINT as a terminal sends it (a background job may have inherited it ignored)
    # far more trials than run before the signal, even on a loaded machine (3,000 could all finish
    # while the poll below loaded the journal, and the search then exited 0)
    proc = subprocess.Popen(cmd + ["--total-trials", "200000"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    journal = tmp_path / "study.journal"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.2)
        if journal.exists():
            try:
                study = optuna.load_study(study_name="quickstart",
                                          storage=JournalStorage(JournalFileBackend(str(journal))))
            except KeyError:
                continue
            if len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))) >= 24:
                break
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=180)  # a loaded machine (parallel test workers) stops it slowly
    assert proc.returncode == 130, err
    assert "search interrupted" in err and "run the same command again" in err and "Traceback" not in err
    study = optuna.load_study(study_name="quickstart", storage=JournalStorage(JournalFileBackend(str(journal))))
    left = sorted(t.number for t in study.get_trials(states=(TrialState.RUNNING,)))
    # a trial interrupted before its parameters were suggested holds no configuration to retry
    with_params = sorted(t.number for t in study.get_trials(states=(TrialState.RUNNING,)) if t.params)
    done = len(study.get_trials(states=(TrialState.COMPLETE,)))
    assert 24 <= done < 200000

    rerun = subprocess.run(cmd + ["--total-trials", str(done + 16)], capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    study = optuna.load_study(study_name="quickstart", storage=JournalStorage(JournalFileBackend(str(journal))))
    assert not study.get_trials(states=(TrialState.RUNNING,))
    assert len(study.get_trials(states=(TrialState.COMPLETE,))) == done + 16
    assert sorted(t.number for t in study.get_trials(states=(TrialState.FAIL,))) == left
    assert sorted(t.user_attrs["dse_retry_of"] for t in study.trials if "dse_retry_of" in t.user_attrs) == with_params
    assert json.loads(rerun.stdout)["report"]["requeued"] == len(left)


def test_a_space_without_a_valid_configuration_is_refused_with_the_reason(tmp_path):
    """No degrees give a data-parallel size that divides the global batch on 12 GPUs: an input
    error (exit 2) that says so, before any work; no results, no claim of figures."""
    from dse.errors import InputError

    space = edited(tmp_path, "twelve.yaml", "gpus: [8, 16, 32, 64]", "gpus: [12]")
    with pytest.raises(InputError) as err:
        run_search(space, out_dir=tmp_path / "out", progress=False, plots=False)
    text = str(err.value)
    assert "twelve.yaml" in text and "no valid configuration" in text and "on 12 GPUs" in text
    assert "global batch (256 sequences)" in text and "dp = 12/(tp*pp*cp): 3, 6, 12" in text
    assert not (tmp_path / "out").exists()
    for mode in ("exhaustive", "nested", "optuna"):
        result = subprocess.run([str(DSE), "search", str(space), "--out", str(tmp_path / "out"), "--mode", mode],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2, (mode, result.stdout, result.stderr)
        assert "no valid configuration" in result.stderr and "Traceback" not in result.stderr
        assert "results in" not in result.stdout and "continuous" not in result.stdout
    assert not (tmp_path / "out").exists()
