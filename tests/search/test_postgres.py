"""Many `dse search` processes on one PostgreSQL study: per-process budgets add up, a killed
worker loses no completed trial and its running trials are re-queued, every host's results
folder sees the whole study.

Needs a PostgreSQL server: set DSE_TEST_POSTGRES_URL (``.ci/run`` sets it to
postgresql://postgres@127.0.0.1:5432/test). Without it these tests are skipped.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import optuna
import pandas as pd
import pytest
from optuna.trial import TrialState

from dse.search.storage import database_storage
from dse.search.workers import machine_key

from .test_workers import dead_pid, record

URL = os.environ.get("DSE_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="set DSE_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:5432/test (as .ci/run does) "
                    "to run the multi-worker PostgreSQL tests")

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "search_spaces" / "quickstart.yaml"
DSE = Path(sys.executable).parent / "dse"


@pytest.fixture
def study_name():
    name = f"test-{uuid.uuid4().hex[:10]}"
    yield name
    try:
        optuna.delete_study(study_name=name, storage=URL)
    except KeyError:
        pass


def worker(out: Path, study: str, *extra: str) -> subprocess.Popen:
    cmd = [str(DSE), "search", str(QUICKSTART), "--mode", "optuna", "--sampler", "random", "--storage", URL,
           "--study-name", study, "--out", str(out), "--no-plots", "--json", *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def trials(study: str, state=None):
    try:
        loaded = optuna.load_study(study_name=study, storage=database_storage(URL))
    except KeyError:  # the workers have not created it yet
        return []
    return loaded.get_trials(deepcopy=False, states=None if state is None else (state,))


def test_k_workers_with_n_trials_each_leave_k_times_n(tmp_path, study_name, procs):
    # two "hosts": each worker has its own results folder
    procs += [worker(tmp_path / f"host{i}", study_name, "--n-trials", "8") for i in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outs]
    reports = [json.loads(o[0])["report"] for o in outs]
    assert [r["trials_this_process"] for r in reports] == [8, 8]
    done = trials(study_name, TrialState.COMPLETE)
    assert len(done) == 16 and len({t.number for t in done}) == 16
    assert not trials(study_name, TrialState.RUNNING)
    # `dse show` on either host reads the shared study: all 16 trials, scored there if need be
    for i in range(2):
        shown = subprocess.run([str(DSE), "show", str(tmp_path / f"host{i}"), "--json"],
                               capture_output=True, text=True, timeout=120)
        assert shown.returncode == 0, shown.stderr
        configs = pd.read_parquet(tmp_path / f"host{i}" / "configs.parquet")
        assert sorted(configs["trial"]) == sorted(t.number for t in done)


@pytest.fixture
def procs():
    """Worker processes a test starts; any still running at the end are killed."""
    started: list[subprocess.Popen] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_a_killed_worker_loses_nothing_and_its_trials_are_requeued(tmp_path, study_name, procs):
    a = worker(tmp_path / "a", study_name, "--n-trials", "100000", "--heartbeat", "1")
    b = worker(tmp_path / "b", study_name, "--n-trials", "100000", "--heartbeat", "1")
    procs += [a, b]
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(trials(study_name, TrialState.COMPLETE)) < 10:
        time.sleep(0.5)
    a.kill()
    a.wait()
    before = {t.number: t.values for t in trials(study_name, TrialState.COMPLETE)}
    assert len(before) >= 10
    # b keeps going and reaps what a left running (a ran on this machine: known dead at once)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        time.sleep(0.5)
        left = [t for t in trials(study_name, TrialState.RUNNING)
                if t.number < min(before) + len(before) and t.number not in before]
        if not left and len(trials(study_name, TrialState.COMPLETE)) >= len(before) + 4:
            break
    b.send_signal(signal.SIGKILL)
    b.wait()
    target = len(trials(study_name, TrialState.COMPLETE)) + 4
    c = worker(tmp_path / "c", study_name, "--total-trials", str(target))
    procs.append(c)
    out, err = c.communicate(timeout=180)
    assert c.returncode == 0, err
    every = trials(study_name)
    after = {t.number: t.values for t in every if t.state == TrialState.COMPLETE}
    assert all(after[n] == v for n, v in before.items())  # nothing completed was lost or changed
    assert len(after) == target
    assert not [t for t in every if t.state == TrialState.RUNNING]
    failed = [t for t in every if t.state == TrialState.FAIL]
    retries = [t.user_attrs["dse_retry_of"] for t in every if "dse_retry_of" in t.user_attrs]
    had_config = [t.number for t in failed if t.params or t.system_attrs.get("fixed_params")]
    assert sorted(retries) == sorted(had_config)  # each re-queued once
    # a retry b was running when it was killed fails too and is re-queued in its turn: follow each
    # chain of retries to its end, which is completed (or still queued for the next run), never lost
    by_number = {t.number: t for t in every}
    retry_of = {t.user_attrs["dse_retry_of"]: t.number for t in every if "dse_retry_of" in t.user_attrs}
    for first in had_config:
        last = by_number[retry_of[first]]
        while last.number in retry_of:
            last = by_number[retry_of[last.number]]
        assert last.state in (TrialState.COMPLETE, TrialState.WAITING), (first, last.number, last.state)


def test_reaper_on_postgres_fails_a_silent_remote_worker_once(study_name):
    from dse.search.workers import Reaper

    study = optuna.create_study(study_name=study_name, storage=database_storage(URL), directions=["maximize"])
    far, gone = study.ask(), study.ask()
    for t in (far, gone):
        t.suggest_float("x", 0.0, 1.0)
    record(study, "far", "another-host|boot|pid:[1]", 4242, [far.number], beat=3)
    record(study, "gone", machine_key(), dead_pid(), [gone.number])
    reapers = [Reaper(study, grace=0.3), Reaper(optuna.load_study(study_name=study_name, storage=URL), grace=0.3)]
    first = [r.reap() for r in reapers]
    assert sorted(sum(first, [])) == [gone.number]  # the local dead one at once, by one reaper
    time.sleep(0.4)
    second = [r.reap() for r in reapers]
    assert sorted(sum(second, [])) == [far.number]  # the silent remote one after the grace
    waiting = study.get_trials(deepcopy=False, states=(TrialState.WAITING,))
    assert sorted(t.user_attrs["dse_retry_of"] for t in waiting) == sorted([far.number, gone.number])


def test_bad_storage_url_is_a_clear_error(tmp_path):
    result = subprocess.run([str(DSE), "search", str(QUICKSTART), "--mode", "optuna", "--out", str(tmp_path),
                             "--storage", "postgresql://postgres@127.0.0.1:1/none", "--n-trials", "2"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "--storage" in result.stderr and "Traceback" not in result.stderr
