"""Worker records and the reaper: trials that dead workers left RUNNING are failed once and
queued again; live workers' trials are left alone. Run on the journal storage here, and on
PostgreSQL in test_postgres.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import optuna
import pytest
from optuna.trial import TrialState

from dse.search.storage import journal_storage
from dse.search.workers import (PREFIX, REAPING, RETRY_OF, Reaper, Worker, machine_key, process_alive,
                                process_start)


def make_study(tmp_path, name="s"):
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    return optuna.create_study(study_name=name, storage=journal_storage(tmp_path / "study.journal"),
                               directions=["maximize"])


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def record(study, key, host, pid, trials, beat=1, started=""):
    study.set_user_attr(PREFIX + key, {"host": host, "pid": pid, "started": started, "beat": beat,
                                       "trials": trials, "done": False})


def waiting(study):
    return study.get_trials(deepcopy=False, states=(TrialState.WAITING,))


def test_dead_local_worker_is_reaped_at_once(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    record(study, "gone", machine_key(), dead_pid(), [trial.number])
    failed = Reaper(study, grace=3600).reap()
    assert failed == [trial.number]
    assert study.trials[trial.number].state == TrialState.FAIL
    (retry,) = waiting(study)
    assert retry.system_attrs["fixed_params"] == study.trials[trial.number].params  # asked again as they were
    assert retry.user_attrs["dse_retry_of"] == trial.number


def test_parameters_written_while_the_reaper_looks_go_with_the_retry(tmp_path, monkeypatch):
    """The reaper lists RUNNING trials before it finds their owner dead; parameters the owner
    wrote in between (its last writes before it was killed) are queued with the retry."""
    import dse.search.workers as workers

    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    record(study, "gone", machine_key(), dead_pid(), [trial.number])
    looked = workers.records

    def records_after_last_write(s):  # the owner's last parameter lands after the listing
        found = looked(s)
        trial.suggest_int("y", 1, 8)
        return found

    monkeypatch.setattr(workers, "records", records_after_last_write)
    assert Reaper(study, grace=3600).reap() == [trial.number]
    (retry,) = waiting(study)
    assert set(retry.system_attrs["fixed_params"]) == {"x", "y"}


def test_a_write_that_lands_after_the_owner_died_goes_with_the_retry(tmp_path, monkeypatch):
    """A killed worker's last parameter, sent before it died, may reach the storage after the
    reaper found it dead (the database completes a COMMIT it had received): the reaper settles
    before failing and reading the trial, so the retry carries it (CI flake: a failed trial with
    parameters and no retry)."""
    import dse.search.workers as workers

    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    record(study, "gone", machine_key(), dead_pid(), [trial.number])
    waits = []

    def settle(seconds):  # the owner's in-flight commit lands while the reaper waits
        waits.append(seconds)
        trial.suggest_int("y", 1, 8)

    monkeypatch.setattr(workers.time, "sleep", settle)
    assert Reaper(study, grace=3600, settle=0.5).reap() == [trial.number]
    assert waits == [0.5]
    (retry,) = waiting(study)
    assert set(retry.system_attrs["fixed_params"]) == {"x", "y"}
    # nothing stale: no wait
    assert Reaper(study, grace=3600, settle=0.5).reap() == [] and waits == [0.5]


def test_live_local_worker_keeps_its_trials(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        record(study, "alive", machine_key(), sleeper.pid, [trial.number], started=process_start(sleeper.pid))
        reaper = Reaper(study, grace=0.0)
        assert reaper.reap() == [] and reaper.reap() == []
        assert study.trials[trial.number].state == TrialState.RUNNING
    finally:
        sleeper.kill()
        sleeper.wait()


def test_reused_pid_is_not_the_dead_worker():
    """A PID is only the worker's if the process also started when the worker did."""
    assert process_alive(dead_pid(), "") is False
    import os

    me = os.getpid()
    assert process_alive(me, process_start(me)) is True
    assert process_alive(me, "1") is False


def test_remote_worker_is_dead_only_after_its_beat_stops_for_the_grace(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    record(study, "far", "another-host|boot|pid:[1]", 12345, [trial.number], beat=7)
    reaper = Reaper(study, grace=0.3)
    assert reaper.reap() == []  # first look: a beat seen now
    time.sleep(0.15)
    record(study, "far", "another-host|boot|pid:[1]", 12345, [trial.number], beat=8)
    assert reaper.reap() == []  # it moved: alive
    time.sleep(0.35)
    assert reaper.reap() == [trial.number]  # unchanged for longer than the grace: dead
    assert len(waiting(study)) == 1


def test_unclaimed_running_trial_is_reaped_at_once_when_no_live_worker_is_asking(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()  # as if its worker died between asking and claiming it
    record(study, "gone", machine_key(), dead_pid(), [])
    study.set_user_attr(PREFIX + "gone", {**study.user_attrs[PREFIX + "gone"], "asking": True})
    assert Reaper(study, grace=3600).reap() == [trial.number]


def test_unclaimed_running_trial_waits_the_grace_while_a_live_worker_is_asking(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()
    with Worker(study, interval=10) as worker:
        worker.start_asking()  # it may be this worker's trial, about to be claimed
        reaper = Reaper(study, grace=0.2)
        assert reaper.reap() == []
        time.sleep(0.25)
        assert reaper.reap() == [trial.number]


def test_two_reapers_requeue_a_trial_once(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    record(study, "gone", machine_key(), dead_pid(), [trial.number])
    other = optuna.load_study(study_name="s", storage=journal_storage(tmp_path / "study.journal"))
    first, second = Reaper(study, grace=3600).reap(), Reaper(other, grace=3600).reap()
    assert sorted(first + second) == [trial.number]
    assert len(waiting(study)) == 1


def test_worker_records_held_trials_and_beats(tmp_path):
    study = make_study(tmp_path)
    with Worker(study, interval=0.05) as worker:
        trial = study.ask()
        worker.hold([trial.number])
        rec = study.user_attrs[worker.key]
        assert rec["trials"] == [trial.number] and rec["host"] == machine_key() and not rec["done"]
        beat = rec["beat"]
        time.sleep(0.3)
        assert optuna.load_study(study_name="s", storage=study._storage).user_attrs[worker.key]["beat"] > beat
        # its own trials are never reaped by itself, nor by others while it beats
        assert Reaper(study, grace=3600, own=worker.key).reap() == []
        assert Reaper(study, grace=3600).reap() == []
    assert study.user_attrs[worker.key]["done"] is True


@pytest.mark.parametrize("grace", [0.0])
def test_finished_worker_trials_are_not_reaped_by_record(tmp_path, grace):
    """A worker that exited cleanly told all its trials: its record is ignored."""
    study = make_study(tmp_path)
    with Worker(study, interval=10) as worker:
        trial = study.ask()
        worker.hold([trial.number])
        study.tell(trial, [1.0])
        worker.release([trial.number])
    assert Reaper(study, grace=grace).reap() == []
    assert study.trials[trial.number].state == TrialState.COMPLETE


def test_a_partial_last_journal_line_is_cut_off(tmp_path):
    """A writer killed mid-append leaves a line without its newline; the next open repairs the
    tail so later appends do not glue onto it and make the journal unreadable."""
    study = make_study(tmp_path)
    study.tell(study.ask(), [1.0])
    journal = tmp_path / "study.journal"
    size = journal.stat().st_size
    with open(journal, "ab") as fh:
        fh.write(b'{"op_code": 6, "worker_id": "x", "trial_id": 0, "par')
    study = optuna.load_study(study_name="s", storage=journal_storage(journal))
    assert journal.stat().st_size == size
    study.tell(study.ask(), [2.0])
    reread = optuna.load_study(study_name="s", storage=journal_storage(journal))
    assert [t.values for t in reread.trials] == [[1.0], [2.0]]


def test_a_lock_left_by_a_killed_writer_is_said_and_taken_over(tmp_path, capsys):
    """A search killed while appending leaves the journal's lock (a symlink); the next open says
    so on stderr, and Optuna takes the lock over after the grace period: the study stays usable."""
    study = make_study(tmp_path)
    study.tell(study.ask(), [1.0])
    journal = tmp_path / "study.journal"
    capsys.readouterr()
    os.symlink(str(journal), str(journal) + ".lock")
    study = optuna.load_study(study_name="s", storage=journal_storage(journal))
    assert "study.journal.lock is left by a search that was stopped" in capsys.readouterr().err
    study.tell(study.ask(), [2.0])
    assert not os.path.lexists(str(journal) + ".lock")
    journal_storage(journal)
    assert "is left by" not in capsys.readouterr().err


def test_a_requeued_trial_that_dies_before_suggesting_is_requeued_again(tmp_path):
    study = make_study(tmp_path)
    study.enqueue_trial({"x": 3.0}, user_attrs={"dse_retry_of": 0})
    trial = study.ask()  # pops the queued trial; its worker dies before trial.suggest_float
    assert trial.params == {}
    record(study, "gone", machine_key(), dead_pid(), [trial.number])
    assert Reaper(study, grace=3600).reap() == [trial.number]
    (retry,) = waiting(study)
    assert retry.system_attrs["fixed_params"] == {"x": 3.0}
    assert retry.user_attrs["dse_retry_of"] == trial.number


def test_a_worker_stopped_by_an_interrupt_has_its_held_trials_reaped_once(tmp_path):
    """Ctrl-C between asking and telling: the worker leaves its loop and writes its record as
    done, still holding the trials. Those are failed and queued again at once (this process
    still lives, and a done record never beats again), by one reaper only."""
    study = make_study(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        with Worker(study, interval=10) as worker:
            worker.start_asking()
            trials = [study.ask() for _ in range(3)]
            for trial in trials:
                trial.suggest_float("x", 0.0, 10.0)
            worker.hold([t.number for t in trials])
            study.tell(trials[0], [1.0])
            worker.release([trials[0].number])
            raise KeyboardInterrupt
    rec = study.user_attrs[worker.key]
    assert rec["done"] is True and rec["trials"] == [trials[1].number, trials[2].number]
    other = optuna.load_study(study_name="s", storage=journal_storage(tmp_path / "study.journal"))
    first, second = Reaper(study, grace=3600).reap(), Reaper(other, grace=3600).reap()
    assert sorted(first + second) == [trials[1].number, trials[2].number]
    assert study.trials[trials[0].number].state == TrialState.COMPLETE
    assert sorted(t.user_attrs["dse_retry_of"] for t in waiting(study)) == [trials[1].number, trials[2].number]


def test_a_finished_remote_worker_that_still_holds_trials_is_reaped_without_waiting(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    study.set_user_attr(PREFIX + "far", {"host": "another-host|boot|pid:[1]", "pid": 12345, "started": "",
                                         "beat": 3, "trials": [trial.number], "done": True})
    assert Reaper(study, grace=3600).reap() == [trial.number]
    assert len(waiting(study)) == 1


KILLED_REAPER = """
import os, signal, sys
import optuna
from dse.search.storage import journal_storage
from dse.search.workers import Reaper, Worker

optuna.logging.set_verbosity(optuna.logging.WARNING)
study = optuna.load_study(study_name="s", storage=journal_storage(sys.argv[1]))
study.enqueue_trial = lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL)  # dies between the writes
with Worker(study, interval=10) as worker:
    Reaper(study, grace=3600, settle=0.0, own=worker.key).reap()
"""


def test_a_reaper_killed_between_failing_and_queuing_a_trial_has_it_queued_once_by_another(tmp_path):
    """Failing a stale trial and queuing it again are two writes: a reaper SIGKILLed between them
    leaves its list of trials behind, and the next reaper queues the failed one (at once: the
    killed reaper's process is gone), once."""
    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    record(study, "gone", machine_key(), dead_pid(), [trial.number])
    child = subprocess.run([sys.executable, "-c", KILLED_REAPER, str(tmp_path / "study.journal")],
                           capture_output=True, text=True, timeout=60)
    assert child.returncode == -9, child.stderr
    study = optuna.load_study(study_name="s", storage=journal_storage(tmp_path / "study.journal"))
    assert study.trials[trial.number].state == TrialState.FAIL and not waiting(study)  # the gap
    (left,) = [k for k, v in study.user_attrs.items() if k.startswith(REAPING)]
    assert study.user_attrs[left] == [trial.number]
    other = optuna.load_study(study_name="s", storage=journal_storage(tmp_path / "study.journal"))
    first, second = Reaper(study, grace=3600).repair(), Reaper(other, grace=3600).repair()
    assert first + second == [trial.number]
    (retry,) = waiting(study)
    assert retry.system_attrs["fixed_params"] == study.trials[trial.number].params
    assert retry.user_attrs[RETRY_OF] == trial.number
    assert study.user_attrs[left] == []


def test_a_live_reapers_list_is_left_alone_for_the_grace(tmp_path):
    """A live reaper empties its list milliseconds after writing it: another reaper queues what
    it lists only once the list has stood unchanged for the grace (the reaper hung or died on
    another host)."""
    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    study.tell(trial, state=TrialState.FAIL)
    with Worker(study, interval=10) as worker:
        study.set_user_attr(REAPING + worker.id, [trial.number])
        reaper = Reaper(study, grace=0.2)
        assert reaper.repair() == []
        time.sleep(0.25)
        assert reaper.repair() == [trial.number]
        assert reaper.repair() == []
    assert len(waiting(study)) == 1


def test_repair_queues_only_failed_trials_without_a_retry(tmp_path):
    study = make_study(tmp_path)
    running, queued, told = study.ask(), study.ask(), study.ask()
    for t in (running, queued, told):
        t.suggest_float("x", 0.0, 10.0)
    study.tell(queued, state=TrialState.FAIL)
    study.enqueue_trial(queued.params, user_attrs={RETRY_OF: queued.number})
    study.tell(told, [1.0])
    study.set_user_attr(PREFIX + "gone", {"host": machine_key(), "pid": dead_pid(), "started": "", "beat": 1,
                                          "trials": [], "done": True})
    study.set_user_attr(REAPING + "gone", [running.number, queued.number, told.number])
    assert Reaper(study, grace=3600).repair() == []
    assert study.trials[running.number].state == TrialState.RUNNING  # the usual reaping's, not this
    assert len(waiting(study)) == 1 and study.user_attrs[REAPING + "gone"] == []


def test_a_reap_empties_its_list(tmp_path):
    study = make_study(tmp_path)
    trial = study.ask()
    trial.suggest_float("x", 0.0, 10.0)
    record(study, "gone", machine_key(), dead_pid(), [trial.number])
    reaper = Reaper(study, grace=3600)
    assert reaper.reap() == [trial.number]
    assert study.user_attrs[reaper.intent_key] == []
    assert Reaper(study, grace=0.0).repair() == [] and len(waiting(study)) == 1
