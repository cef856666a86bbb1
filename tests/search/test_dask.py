"""The scoring fan-out on a real Dask cluster (scheduler and worker processes over TCP on
loopback): the same front as on one host, also when a worker dies mid-sweep."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from dse.errors import InputError
from dse.search.runner import run_search
from dse.search.space import load_space, space_from_dict

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
CODESIGN_SMALL = ROOT / "search_spaces" / "codesign_small.yaml"


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1") as local, distributed.Client(local) as client:
        yield local, client


def small_chunks():
    """codesign_small with ~40 chunks of about 600 configurations, so a sweep takes a while."""
    import json

    space = load_space(CODESIGN_SMALL)
    data = json.loads(space.spec.model_dump_json())
    data["search"]["chunk_configs"] = 600
    return space_from_dict(data, source=str(CODESIGN_SMALL))


def front(out: Path) -> pd.DataFrame:
    df = pd.read_csv(out / "pareto.csv")
    keys = [c for c in df.columns if c in ("num_gpus", "tp", "pp", "dp", "zero", "recompute", "microbatch")
            or c.startswith("hw.")]
    return df.sort_values(keys).reset_index(drop=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("loky")
    run_search(small_chunks(), out_dir=out, mode="exhaustive", workers=1, progress=False, plots=False)
    return out


def test_dask_sweep_gives_the_same_front_as_one_process(cluster, reference, tmp_path):
    local, _ = cluster
    run = run_search(small_chunks(), out_dir=tmp_path, mode="exhaustive", backend="dask",
                     scheduler=local.scheduler_address, progress=False, plots=False)
    assert run.counts["scored"] == 17856
    pd.testing.assert_frame_equal(front(tmp_path), front(reference))


def test_a_dask_worker_dying_mid_sweep_loses_nothing(cluster, reference, tmp_path):
    local, client = cluster
    shards = tmp_path / "shards"
    result = {}

    def sweep():
        result["run"] = run_search(small_chunks(), out_dir=tmp_path, mode="exhaustive", backend="dask",
                                   scheduler=local.scheduler_address, progress=False, plots=False)

    thread = threading.Thread(target=sweep)
    thread.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (shards.exists() and any(shards.glob("*.parquet"))):
        time.sleep(0.02)
    pids = client.run(os.getpid)  # worker address -> its process id
    victim = sorted(pids.values())[0]
    written_at_kill = len(list(shards.glob("*.parquet")))
    os.kill(victim, signal.SIGKILL)  # the nanny starts a new worker; its tasks run again
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert written_at_kill < 40, "the sweep ended before the kill: nothing was tested"
    assert result["run"].counts["scored"] == 17856
    pd.testing.assert_frame_equal(front(tmp_path), front(reference))


def test_dask_backend_needs_a_scheduler(tmp_path):
    with pytest.raises(InputError, match="--scheduler"):
        run_search(CODESIGN_SMALL, out_dir=tmp_path, mode="exhaustive", backend="dask", progress=False)


def test_unreachable_scheduler_is_a_clear_error(tmp_path):
    with pytest.raises(InputError, match="Dask scheduler"):
        run_search(CODESIGN_SMALL, out_dir=tmp_path, mode="exhaustive", backend="dask",
                   scheduler="tcp://127.0.0.1:9", progress=False)
