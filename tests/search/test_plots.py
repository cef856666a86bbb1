"""Figures of a results folder, and the ``dse plot`` / ``dse show`` commands run as a user would."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import matplotlib as mpl
import pandas as pd
import pytest

from dse.search.plots import figure_pairs, plot_results
from dse.search.results import write_json, write_table

DSE = Path(sys.executable).parent / "dse"


def _load_make_results():
    path = Path(__file__).with_name("test_results.py")
    spec = importlib.util.spec_from_file_location("_search_results_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_results, module.OBJECTIVES


make_results, OBJECTIVES = _load_make_results()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    out = tmp_path_factory.mktemp("plots") / "study-a"
    make_results(out, study="study-a")
    return out


def expected_stems():
    pairs = [f"{y}_vs_{x}" for (y, _), (x, _) in figure_pairs(OBJECTIVES)]
    return ["throughput_vs_gpus", *pairs, "best_breakdown"]


def check_files(paths, stems):
    assert sorted(p.name for p in paths) == sorted(f"{s}.{e}" for s in stems for e in ("png", "pdf"))
    for path in paths:
        data = path.read_bytes()
        assert len(data) > 2000, path
        if path.suffix == ".png":
            assert data.startswith(b"\x89PNG")
        else:
            assert data.startswith(b"%PDF")
            assert b"CreationDate" not in data  # reproducible bytes
            assert b"/FontFile2" in data and b"/Type3" not in data  # embedded TrueType (fonttype 42)


def test_plot_results_writes_every_figure_and_changes_no_global_style(folder):
    before = dict(mpl.rcParams)
    paths = plot_results(folder)
    assert dict(mpl.rcParams) == before
    assert expected_stems() == ["throughput_vs_gpus", "tokens_per_s_vs_cost_per_mtok_usd",
                                "num_gpus_vs_cost_per_mtok_usd", "best_breakdown"]
    check_files(paths, expected_stems())
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_one_point_and_no_feasible_point(folder, tmp_path):
    df = pd.read_parquet(folder / "configs.parquet")
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, rows in (("one", df[df["feasible"]].iloc[[3]]), ("none", df[~df["feasible"]].iloc[:2])):
        out = tmp_path / name
        write_table(rows, out / "configs.parquet")
        write_json(manifest, out / "manifest.json")
        paths = plot_results(out)
        check_files(paths, expected_stems())
    # the same data gives the same PDF bytes
    first = (tmp_path / "one" / "best_breakdown.pdf").read_bytes()
    plot_results(tmp_path / "one")
    assert (tmp_path / "one" / "best_breakdown.pdf").read_bytes() == first


def run(*args):
    if not DSE.exists():
        pytest.fail(f"console script {DSE} not found: install the package (pip install -e .)")
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "COLUMNS", "TTY_COMPATIBLE")}
    env.update(NO_COLOR="1", TERM="dumb")
    return subprocess.run([str(DSE), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


def test_cli_plot_and_show(folder):
    result = run("plot", folder)
    assert result.returncode == 0, result.stderr
    printed = [Path(line) for line in result.stdout.split()]
    assert {p.name for p in printed} == {f"{s}.{e}" for s in expected_stems() for e in ("png", "pdf")}
    assert all(p.is_file() for p in printed)

    result = run("show", folder, "--top", "5")
    assert result.returncode == 0, result.stderr
    assert "study-a" in result.stdout and "exhaustive" in result.stdout
    assert "Pareto front" in result.stdout and "tokens/s" in result.stdout and "hbm_gb" in result.stdout

    result = run("show", folder, "--top", "3", "--json")
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["study"] == "study-a" and len(out["top"]) == 3 and out["pareto"]
    best = out["top"][0]
    assert best["feasible"] is True and isinstance(best["tp"], int) and best["recompute"] in ("none", "full")
    assert best["tokens_per_s"] == max(r["tokens_per_s"] for r in out["pareto"])
    assert out["counts"]["pareto"] == len(out["pareto"])


@pytest.mark.parametrize("command", ["plot", "show"])
def test_cli_on_a_missing_folder_exits_2_without_traceback(command, tmp_path):
    result = run(command, tmp_path / "nope")
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    assert "not a dse results folder" in result.stderr
