"""run_search's guarantees: determinism, the study as the record (trials re-scored from their
parameters), budgets per process and per study, and a full disk reported before any work."""

from __future__ import annotations

import shutil
from collections import namedtuple
from pathlib import Path

import optuna
import pandas as pd
import pytest

from dse.errors import InputError
from dse.search import runner
from dse.search.runner import finalize_run, run_search
from dse.search.space import load_space
from dse.search.storage import storage_for

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "search_spaces" / "quickstart.yaml"
CODESIGN_SMALL = ROOT / "search_spaces" / "codesign_small.yaml"


def trial_table(out: Path, name: str) -> list[tuple]:
    storage, _ = storage_for(None, out)
    study = optuna.load_study(study_name=name, storage=storage)
    return [(t.number, t.state.name, tuple(sorted(t.params.items())), tuple(t.values or ())) for t in study.trials]


@pytest.mark.parametrize("mode,sampler", [("nested", "tpe"), ("optuna", "nsga2")])
def test_same_space_seed_and_workers_give_the_same_trials_and_front(tmp_path, mode, sampler):
    runs = []
    for i in range(2):
        out = tmp_path / f"run{i}"
        run_search(CODESIGN_SMALL, out_dir=out, mode=mode, sampler=sampler, total_trials=24, workers=2,
                   seed=3, progress=False, plots=False)
        runs.append(out)
    assert trial_table(runs[0], "codesign-small") == trial_table(runs[1], "codesign-small")
    pd.testing.assert_frame_equal(pd.read_csv(runs[0] / "pareto.csv"), pd.read_csv(runs[1] / "pareto.csv"))


def test_exhaustive_front_does_not_depend_on_the_worker_count(tmp_path):
    fronts = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        run_search(QUICKSTART, out_dir=out, mode="exhaustive", workers=workers, progress=False, plots=False)
        fronts.append(pd.read_csv(out / "pareto.csv"))
    pd.testing.assert_frame_equal(*fronts)


@pytest.mark.parametrize("mode", ["nested", "optuna"])
def test_configs_are_rebuilt_from_the_study_when_shards_are_missing(tmp_path, mode):
    """What another host scored (its shards are not here) is re-scored from the trials'
    parameters, to the same numbers."""
    run_search(CODESIGN_SMALL, out_dir=tmp_path, mode=mode, sampler="random", total_trials=20,
               progress=False, plots=False)
    before = pd.read_parquet(tmp_path / "configs.parquet")
    shards = sorted((tmp_path / "shards").glob("*.parquet"))
    for shard in shards[: len(shards) // 2 + 1]:  # lose most of them
        shard.unlink()
    space = load_space(CODESIGN_SMALL)
    storage, _ = storage_for(None, tmp_path)
    finalize_run(tmp_path, space, storage, "codesign-small", mode)
    after = pd.read_parquet(tmp_path / "configs.parquet")
    pd.testing.assert_frame_equal(after, before, check_like=True)


def test_n_trials_counts_this_process_and_total_trials_the_study(tmp_path):
    first = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", n_trials=10,
                       progress=False, plots=False)
    second = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", n_trials=10,
                        progress=False, plots=False)
    assert first.report.trials_this_process == second.report.trials_this_process == 10
    assert second.report.trials_complete == 20
    third = run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", total_trials=25,
                       progress=False, plots=False)
    assert third.report.trials_this_process == 5 and third.report.trials_complete == 25


def test_a_full_disk_is_reported_before_any_work(tmp_path, monkeypatch):
    Usage = namedtuple("Usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: Usage(10 * 2**30, 10 * 2**30 - 2**20, 2**20))
    with pytest.raises(InputError) as err:
        run_search(CODESIGN_SMALL, out_dir=tmp_path, mode="exhaustive", progress=False)
    text = str(err.value)
    assert "--out" in text and "17,856 configurations" in text and "GiB" in text
    assert not (tmp_path / "shards").exists() and not (tmp_path / "study.journal").exists()


def test_disk_estimate_scales_with_the_budget():
    space = load_space(CODESIGN_SMALL)
    assert runner.estimated_rows(space, "exhaustive", 0) == 17856
    assert runner.estimated_rows(space, "optuna", 100) == 100
    assert runner.estimated_rows(space, "nested", 100) == pytest.approx(17856 / 32 / 4 * 100, rel=1e-9)


def test_a_study_of_another_space_is_refused(tmp_path):
    run_search(QUICKSTART, out_dir=tmp_path, mode="optuna", sampler="random", n_trials=2, study_name="shared",
               progress=False, plots=False)
    with pytest.raises(ValueError, match="another search"):
        run_search(QUICKSTART, out_dir=tmp_path, mode="nested", n_trials=2, study_name="shared",
                   progress=False, plots=False)


@pytest.mark.parametrize("path", sorted((ROOT / "search_spaces").glob("*.yaml")), ids=lambda p: p.stem)
def test_the_manifest_space_reloads_as_the_same_space(path):
    """dse show/plot rebuild a shared study's results from the space stored in the manifest."""
    import json

    from dse.search.evaluation import space_key
    from dse.search.space import space_from_dict

    space = load_space(path)
    again = space_from_dict(json.loads(space.spec.model_dump_json()), source=str(path))
    assert space_key(again) == space_key(space)


def test_a_search_without_a_terminal_logs_plain_progress_lines(tmp_path, monkeypatch, capsys):
    """An overnight job writing to a log has no progress bar: it gets one plain line every
    DSE_PROGRESS_EVERY seconds (trials done of the total, configurations scored, best so far);
    with progress off, nothing."""
    monkeypatch.setenv("DSE_PROGRESS_EVERY", "1e-9")
    monkeypatch.delenv("DSE_PROGRESS", raising=False)
    run_search(CODESIGN_SMALL, out_dir=tmp_path / "on", mode="optuna", total_trials=12, progress=True, plots=False)
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.startswith("search optuna:")]
    assert lines and "of 12 trials" in lines[-1] and "configurations scored" in lines[-1] and "best " in lines[-1]
    run_search(CODESIGN_SMALL, out_dir=tmp_path / "off", mode="optuna", total_trials=12, progress=False, plots=False)
    assert "search optuna:" not in capsys.readouterr().err


def test_the_manifest_command_hides_database_passwords():
    from dse.search.storage import redacted_command

    argv = ["dse", "search", "s.yaml", "--storage", "postgresql://postgres:s3cret@127.0.0.1:5432/test",
            "--storage=postgresql://u:pw@h/db", "--out", "r", "--n-trials", "2"]
    line = redacted_command(argv)
    assert "s3cret" not in line and "pw@" not in line
    assert line == ("dse search s.yaml --storage postgresql://postgres:***@127.0.0.1:5432/test "
                    "--storage=postgresql://u:***@h/db --out r --n-trials 2")


def test_exhaustive_mode_refuses_a_storage_and_notes_an_unused_trial_budget(tmp_path):
    """A storage in exhaustive mode would let every host redo the whole sweep: an error that says
    so; a trial budget there is a note, not silence; a resumed sweep says what it kept."""
    with pytest.raises(InputError) as info:
        run_search(QUICKSTART, out_dir=tmp_path / "a", mode="exhaustive",
                   storage="postgresql://u:secret@127.0.0.1:1/x", progress=False, plots=False)
    message = str(info.value)
    assert "--storage" in message and "exhaustive" in message and "secret" not in message
    summary = run_search(QUICKSTART, out_dir=tmp_path / "b", mode="exhaustive", n_trials=2, progress=False,
                         plots=False)
    assert any("does not apply in exhaustive mode" in n for n in summary.report.notes)
    again = run_search(QUICKSTART, out_dir=tmp_path / "b", mode="exhaustive", progress=False, plots=False)
    assert any("were kept from earlier runs" in n for n in again.report.notes)


def test_candidates_no_plan_uses_are_noted(tmp_path):
    from dse.search.enumerate import unused_candidates
    from dse.search.space import space_from_dict

    space = space_from_dict({
        "scenario": {"model": "llama2-7b", "precision": "bf16", "cluster": {"gpu": "H100-SXM-80GB"}},
        "gpus": [8, 24], "parallel": {"tp": [1, 2, 3, 8], "pp": [1, 64], "microbatch": [1]},
        "global_batch": {"sequences": [64]}})
    notes = unused_candidates(space)
    assert any(n.startswith("no plan fits 24 GPUs") for n in notes)
    assert any(n.startswith("parallel.tp: 3 ") for n in notes)
    assert any(n.startswith("parallel.pp: 64 ") for n in notes)


def test_a_stopped_search_folder_says_how_to_finish_it(tmp_path):
    from dse.search.results import read_results

    (tmp_path / "shards").mkdir()
    with pytest.raises(InputError) as info:
        read_results(tmp_path)
    assert "re-run its dse search command" in str(info.value)


def test_redaction_covers_query_string_passwords():
    from dse.search.storage import redacted_command

    line = redacted_command(["dse", "--storage", "postgresql://h/db?user=u&password=secret&sslpassword=x"])
    assert "secret" not in line and "sslpassword=***" in line


def test_an_unknown_objective_value_is_the_worst_for_its_direction():
    from dse.search.evaluation import objective_values

    space = load_space(ROOT / "search_spaces" / "codesign_h100.yaml")  # tokens/s/GPU up, cost down
    row = pd.Series({"tokens_per_s_per_gpu": float("nan"), "cost_per_mtok_usd": float("nan")})
    assert objective_values(row, space) == [float("-inf"), float("inf")]
