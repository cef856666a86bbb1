"""Optuna storages for searches: the journal file of a results folder by default, any
database URL (PostgreSQL for many hosts, SQLite for one) on request.

A journal file is an append-only log: a kill leaves at most a half-written last line, which
Optuna skips on reading, and several processes on one host may append to it under a file lock.
A database is what many hosts share: every ``dse search`` process given the same
``--storage postgresql://...`` and study name works on the same study.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from ..errors import single

#: Seconds after which a journal lock is taken to be left by a dead process. Optuna's default
#: (30 s) makes every restart after a kill wait that long; a journal write takes milliseconds.
LOCK_GRACE_S = 3


def journal_storage(path: str | Path):
    """An append-only journal file storage (several processes on one host may share it).

    A process killed in the middle of an append can leave a partial last line; the next append
    would glue onto it and make the file unreadable. So the tail is checked (under the
    journal's lock, so no live writer is mid-append) and a partial line is cut off.
    """
    from optuna.storages import JournalStorage
    from optuna.storages.journal import JournalFileBackend, JournalFileSymlinkLock

    path = str(path)
    stale = Path(path + ".lock")
    if stale.is_symlink() or stale.exists():
        print(f"note: {stale.name} is left by a search that was stopped while writing the journal (or another "
              f"process is writing it now); Optuna takes it over after {LOCK_GRACE_S} s and warns that it did",
              file=sys.stderr, flush=True)
    lock = JournalFileSymlinkLock(path, grace_period=LOCK_GRACE_S)
    backend = JournalFileBackend(path, lock_obj=lock)  # creates the file if missing
    repair_journal_tail(path, lock)
    return JournalStorage(backend)


def repair_journal_tail(path: str | Path, lock) -> int:
    """Cut a partial last line (no newline) off the journal; return the bytes removed."""
    from optuna.storages.journal._file import get_lock_file

    path = Path(path)
    if not path.exists() or path.stat().st_size == 0:
        return 0
    with open(path, "rb") as fh:
        fh.seek(-1, 2)
        if fh.read(1) == b"\n":
            return 0
    with get_lock_file(lock):
        data = path.read_bytes()
        keep = data.rfind(b"\n") + 1
        if keep == len(data):
            return 0
        with open(path, "r+b") as fh:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())
        return len(data) - keep


def database_storage(url: str):
    """An RDB storage for ``url``, checked by connecting once. Connections are pinged before
    use, so a worker survives the database restarting between its trials."""
    import time

    import optuna

    for attempt in range(5):
        try:
            return optuna.storages.RDBStorage(url, engine_kwargs={"pool_pre_ping": True})
        except (ModuleNotFoundError, ImportError) as err:
            raise single("--storage", f"the database driver is not installed ({err}); "
                         "install it (PostgreSQL: pip install 'psycopg[binary]')", url) from None
        except Exception as err:  # noqa: BLE001 - sqlalchemy's errors name the cause; show it
            # workers started together race to create Optuna's tables: the losers retry and
            # find them made
            if ("already exists" in str(err) or "duplicate key" in str(err)) and attempt < 4:
                time.sleep(0.2 * (attempt + 1))
                continue
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise single("--storage", f"cannot open the database: {first}", url) from None
    raise AssertionError("unreachable")


def storage_for(url: str | None, out_dir: Path) -> tuple[Any, str]:
    """The storage object and its printable URL: the journal file in the results folder when
    ``url`` is None, a journal file for ``*.journal`` / ``journal:PATH``, a database otherwise
    (``postgresql://``, ``mysql://``, ``sqlite:///``)."""
    if url is None:
        path = out_dir / "study.journal"
        return journal_storage(path), f"journal:{path}"
    if url.endswith(".journal") or url.startswith("journal:"):
        path = url.removeprefix("journal:")
        return journal_storage(path), f"journal:{path}"
    if "://" not in url:
        raise single("--storage", "not a storage URL; allowed: postgresql://USER@HOST:PORT/DB, "
                     "mysql://..., sqlite:///PATH, PATH.journal or journal:PATH", url)
    return database_storage(url), redact_url(url)


def redacted_command(argv: list[str]) -> str:
    """A command line with the password of every database URL in it hidden (``--storage URL``
    or ``--storage=URL``), for the manifest."""
    out = []
    for token in argv:
        key, eq, value = token.partition("=") if token.startswith("--") and "=" in token else ("", "", token)
        if "://" in value:
            value = redact_url(value)
        out.append(f"{key}{eq}{value}" if eq else value)
    return " ".join(out)


def redact_url(url: str) -> str:
    """The URL without its password (for the manifest and messages)."""
    from sqlalchemy.engine import make_url

    import re

    try:
        url = make_url(url).render_as_string(hide_password=True)
    except Exception:  # noqa: BLE001 - an odd URL is kept as given, its query still masked
        pass
    # libpq also takes the password as a query parameter
    return re.sub(r"((?:ssl)?password=)[^&;]*", r"\1***", url, flags=re.IGNORECASE)
