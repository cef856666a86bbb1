"""Many `dse search` processes on one study: who holds which trial, and which trials a dead
worker left behind.

Every search process is a *worker*. While it runs it keeps a record in the study's user
attributes, ``dse:worker:<id>`` = ``{"host", "pid", "beat", "trials", "done"}``: the trial
numbers it has asked and not yet told, and a beat counter that a background thread bumps every
``interval`` seconds. Any worker may *reap* trials left RUNNING by a dead one: it fails them and
queues their parameters again, so the study finishes every configuration once.

A RUNNING trial is stale when

* its worker ran on this machine (same host name, boot and PID namespace) and that process is
  gone: known at once, so a restart after a kill resumes without waiting out a grace period
  (the reaper only lets the dead worker's last writes land, ``Reaper.settle``, 1 s);
* its worker's beat has not moved for ``grace`` seconds of the reaper's own clock (a host that
  died or lost its network): no clock is compared across hosts, so skew does not matter;
* its worker has finished (``done``) and still holds it: it left its trial loop between
  asking and telling the trial (Ctrl-C, an error), and the record it wrote on leaving says so;
* no worker claims it (its worker was killed between asking it and recording the claim) and
  no live worker is between those two steps, or it stays unclaimed for ``grace`` seconds.

The reaper reads the RUNNING trials before the records: a trial asked by a live worker was asked
after that worker wrote ``asking``, so the records read next show it asking or holding it.

Only one reaper can fail a given trial (the storage refuses to finish a finished trial), and
only the one that did queues it again, so a trial is re-queued once.

Failing a trial and queuing it again are two writes. A reaper states what it is about to fail
first, in ``dse:reaping:<id>`` (the trial numbers; empty once every retry is queued), so a reaper
killed between the two writes leaves the list behind. :meth:`Reaper.repair` queues such a failed
trial whose retry is missing: at once when the reaper's worker has finished or its process is
gone, otherwise when the list has stood unchanged for ``grace`` seconds (a live reaper empties it
within milliseconds). Two reapers repairing the same list in the same instant may both queue
it: a configuration scored twice, never one lost.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

#: Prefix of the study user attributes holding the worker records.
PREFIX = "dse:worker:"
#: Prefix of the study user attributes holding the trials a reaper is failing and queuing again.
REAPING = "dse:reaping:"
#: User attribute of a queued retry: the number of the trial it repeats.
RETRY_OF = "dse_retry_of"


def _read(path: str) -> str:
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError:
        return ""


def machine_key() -> str:
    """This process's machine as other workers must see it: host name, boot id and PID
    namespace (two containers of one host share the boot id but not the PID namespace)."""
    try:
        pid_ns = os.readlink("/proc/self/ns/pid")
    except OSError:
        pid_ns = ""
    return "|".join((socket.gethostname(), _read("/proc/sys/kernel/random/boot_id"), pid_ns))


def process_start(pid: int) -> str:
    """When ``pid`` started (clock ticks since boot, from /proc), to tell a reused PID from the
    original process; empty where /proc is not available."""
    stat = _read(f"/proc/{pid}/stat")
    if not stat:
        return ""
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else ""


def process_alive(pid: int, started: str) -> bool:
    """Whether the process ``pid`` that started at ``started`` still runs on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not started or process_start(pid) in ("", started)


def records(study) -> dict[str, dict]:
    """The worker records of a study, by key."""
    return {k: v for k, v in study.user_attrs.items() if k.startswith(PREFIX) and isinstance(v, dict)}


def local_worker_gone(record: dict) -> bool | None:
    """For a worker on this machine, whether its process has ended; None for another machine's."""
    if record.get("host") != machine_key():
        return None
    return not process_alive(int(record.get("pid", 0)), str(record.get("started", "")))


def another_worker_live(study) -> bool:
    """Whether a worker that has not finished, and is not known dead, is on the study."""
    return any(not r.get("done") and local_worker_gone(r) is not True for r in records(study).values())


@dataclass
class Worker:
    """This process's record in a study, kept fresh by a heartbeat thread.

    ``interval`` is in seconds; the record is written at most once per ``interval`` by the
    thread, and at once when the set of held trials changes.
    """

    study: Any
    interval: float = 10.0
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    def __post_init__(self) -> None:
        self.host = machine_key()
        self.pid = os.getpid()
        self.started = process_start(self.pid)
        self.beat = 0
        self.held: set[int] = set()
        self.asking = False
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def key(self) -> str:
        return PREFIX + self.id

    def _record(self, done: bool = False) -> dict[str, Any]:
        return {"host": self.host, "pid": self.pid, "started": self.started, "beat": self.beat,
                "trials": sorted(self.held), "asking": self.asking, "done": done}

    def _write(self, done: bool = False) -> None:
        # build and store under one lock: a heartbeat must never store a record older than the
        # one a hold() just stored (it would drop claims and look like an idle, unclaimed worker)
        with self._lock:
            self.beat += 1
            self.study.set_user_attr(self.key, self._record(done))

    def start_asking(self) -> None:
        """Record that this worker is about to ask trials it has not claimed yet (call before
        asking; :meth:`hold` ends it). While no live worker is asking, a RUNNING trial nobody
        claims can only be a dead worker's."""
        with self._lock:
            self.asking = True
            self._write()

    def hold(self, numbers: list[int]) -> None:
        """Record that this worker now holds these trials (call right after asking them)."""
        with self._lock:
            self.held.update(numbers)
            self.asking = False
            self._write()

    def release(self, numbers: list[int]) -> None:
        """Forget told trials (written with the next beat, which is enough: a told trial is no
        longer RUNNING, so nobody reaps it)."""
        with self._lock:
            self.held.difference_update(numbers)

    def __enter__(self) -> Worker:
        self._write()
        self._thread = threading.Thread(target=self._beat, name=f"dse-heartbeat-{self.id}", daemon=True)
        self._thread.start()
        return self

    def _beat(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self._write()
            except Exception:  # noqa: BLE001 - a missed beat only delays others' verdict
                pass

    def __exit__(self, *exc) -> bool:
        """Stop the heartbeat and write the record as done. Trials still held (the loop was left
        by Ctrl-C or an error before telling them) stay in the record: the :class:`Reaper` of
        any worker, this command run again included, fails them and queues them again."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        try:
            self._write(done=True)
        except Exception:  # noqa: BLE001 - exiting anyway; the record then goes stale
            pass
        return False


@dataclass
class Reaper:
    """Finds and fails trials that dead workers left RUNNING, and queues them again.

    ``grace`` (seconds) is how long a remote worker's beat, or an unclaimed RUNNING trial, may
    stay unchanged before it counts as dead. The reaper remembers what it saw with its own
    monotonic clock, so its verdict on remote workers needs two looks ``grace`` apart.
    ``settle`` (seconds) is how long it waits, once it has found stale trials, before it reads
    and fails them: a killed worker's last write (a parameter it had sent, whose COMMIT the
    database still carries out after the client is gone) lands in that time and goes with the
    retry, instead of landing on a trial already failed and read without it. ``grace`` is also
    how long another reaper's list of trials it is failing may stand unchanged before
    :meth:`repair` takes it as abandoned.
    """

    study: Any
    grace: float = 30.0
    settle: float = 1.0
    own: str | None = None  # the reaping worker's own record key (never reaped)
    _beats: dict[str, tuple[int, float]] = field(default_factory=dict)
    _unclaimed: dict[int, float] = field(default_factory=dict)
    _intents: dict[str, tuple[tuple[int, ...], float]] = field(default_factory=dict)
    #: the study user attribute where this reaper lists the trials it is failing
    intent_key: str = field(init=False)

    def __post_init__(self) -> None:
        own = self.own[len(PREFIX):] if self.own and self.own.startswith(PREFIX) else None
        self.intent_key = REAPING + (own or uuid.uuid4().hex[:12])

    def dead_workers(self, found: dict[str, dict], now: float) -> set[str]:
        dead = set()
        for key, record in found.items():
            if key == self.own:
                continue
            if record.get("done"):
                # it left its trial loop: the trials it still holds (an interrupt or an error
                # stopped it between asking and telling them) will never be told
                if record.get("trials"):
                    dead.add(key)
                continue
            gone = local_worker_gone(record)
            if gone is not None:
                if gone:
                    dead.add(key)
                continue
            beat = record.get("beat")
            seen = self._beats.get(key)
            if seen is None or seen[0] != beat:
                self._beats[key] = (beat, now)
            elif now - seen[1] >= self.grace:
                dead.add(key)
        return dead

    def reap(self) -> list[int]:
        """Fail the stale RUNNING trials and queue their parameters again; return the numbers
        of the trials this call failed."""
        from optuna.exceptions import UpdateFinishedTrialError
        from optuna.trial import TrialState

        running = self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if not running:
            self._unclaimed.clear()
            return []
        now = time.monotonic()
        records_now = records(self.study)
        dead = self.dead_workers(records_now, now)
        claimed: dict[int, str] = {}
        for key, record in records_now.items():
            for number in record.get("trials", []):
                claimed[int(number)] = key
        someone_asking = any(record.get("asking") and not record.get("done") and key not in dead
                             for key, record in records_now.items())
        stale = []
        for trial in running:
            owner = claimed.get(trial.number)
            if owner is not None:
                if owner in dead:
                    stale.append(trial)
                continue
            first = self._unclaimed.setdefault(trial.number, now)
            if not someone_asking or now - first >= self.grace:
                stale.append(trial)
        numbers = {t.number for t in running}
        self._unclaimed = {n: seen for n, seen in self._unclaimed.items() if n in numbers}
        if stale and self.settle > 0:
            time.sleep(self.settle)  # the dead workers' last commits land (see the class docstring)
        failed = []
        storage = self.study._storage
        if stale:  # what this call fails, for a repair if it dies before queuing them again
            self.study.set_user_attr(self.intent_key, sorted(t.number for t in stale))
        for trial in stale:
            try:
                if not storage.set_trial_state_values(trial._trial_id, state=TrialState.FAIL):
                    continue
            except UpdateFinishedTrialError:  # told meanwhile, or another reaper got it first
                continue
            failed.append(trial.number)
            self._unclaimed.pop(trial.number, None)
            # read the trial again now that it is failed: the list above was fetched before the
            # owner was found dead, and a worker killed meanwhile may have written parameters in
            # between (they would be lost to the retry). Past the owner's death nothing more lands
            # but a commit it had already sent, which the settle above waited for.
            trial = storage.get_trial(trial._trial_id)
            # a re-queued trial that died before suggesting has its configuration only in the
            # parameters it was queued with (Optuna keeps them as the "fixed_params" attribute)
            self._queue_again(trial)
        if stale:
            self.study.set_user_attr(self.intent_key, [])
        return failed

    def _queue_again(self, trial) -> bool:
        """Queue a failed trial's configuration as a new trial; False when it has none."""
        # a re-queued trial that died before suggesting has its configuration only in the
        # parameters it was queued with (Optuna keeps them as the "fixed_params" attribute)
        params = {**(trial.system_attrs.get("fixed_params") or {}), **trial.params}
        if params:
            self.study.enqueue_trial(params, user_attrs={RETRY_OF: trial.number})
        return bool(params)

    def repair(self) -> list[int]:
        """Queue again the failed trials whose reaper died before it queued them; return their
        numbers. See the module docstring for when a reaper's list counts as abandoned."""
        from optuna.trial import TrialState

        attrs = self.study.user_attrs
        lists = {k: tuple(v) for k, v in attrs.items()
                 if k.startswith(REAPING) and k != self.intent_key and isinstance(v, list) and v}
        self._intents = {k: seen for k, seen in self._intents.items() if k in lists}
        if not lists:
            return []
        now = time.monotonic()
        due = []
        for key, numbers in lists.items():
            owner = attrs.get(PREFIX + key[len(REAPING):])
            gone = isinstance(owner, dict) and (owner.get("done") or local_worker_gone(owner) is True)
            seen = self._intents.get(key)
            if seen is None or seen[0] != numbers:
                self._intents[key] = seen = (numbers, now)
            if gone or now - seen[1] >= self.grace:
                due.append(key)
        if not due:
            return []
        trials = self.study.get_trials(deepcopy=False)
        retried = {t.user_attrs.get(RETRY_OF) for t in trials}
        by_number = {t.number: t for t in trials}
        queued = []
        for key in due:
            for number in lists[key]:
                trial = by_number.get(number)
                if trial is None or trial.state != TrialState.FAIL or number in retried:
                    continue  # still running (the usual reaping takes it), told, or queued
                if self._queue_again(trial):
                    queued.append(number)
                    retried.add(number)
            self.study.set_user_attr(key, [])
            self._intents.pop(key, None)
        return queued
