"""Figures of a results folder, and the ``dse plot`` / ``dse show`` commands run as a user would."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import matplotlib as mpl
import numpy as np
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


# ------------------------------------------------------------------------ presentation details
def _texts(fig):
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text)]


def _staircase(ax):
    return next(line for line in ax.get_lines() if line.get_drawstyle().startswith("steps"))


@pytest.mark.parametrize("y, x", [(("tokens_per_s", "maximize"), ("cost_per_mtok_usd", "minimize")),
                                  (("cost_per_mtok_usd", "minimize"), ("tokens_per_s", "maximize"))])
def test_the_staircase_ends_at_the_front_points(folder, y, x):
    """The step line runs from the first front point to the last, not on to the axis' edge."""
    from dse.search.pareto import feasible_rows, pareto_front
    from dse.search.plots import RC, plot_pair

    df = pd.read_parquet(folder / "configs.parquet")
    front = pareto_front(feasible_rows(df), [y, x], feasible_only=True)[x[0]].to_numpy(float)
    with mpl.rc_context(RC):
        line = _staircase(plot_pair(df, y, x).axes[0])
    xs = line.get_xdata()
    assert min(xs) == pytest.approx(front.min()) and max(xs) == pytest.approx(front.max())
    data = feasible_rows(df)[x[0]]
    # there is data beyond the front's last point; the line used to run on to it
    assert max(xs) < data.max() if x[1] == "minimize" else min(xs) > data.min()


def test_a_log_axis_labels_the_range_of_its_data():
    """A log axis from 1.4 to 70 is labelled 2, 5, 10, 20, 50 (10 alone before); one spanning
    four decades keeps one label per decade."""
    from dse.search.plots import RC, _log_subs, plot_pair

    assert _log_subs(1.4, 70) == (1.0, 2.0, 5.0)
    assert _log_subs(10, 1e5) == (1.0,)
    cost = np.geomspace(1.4, 70, 40)
    df = pd.DataFrame({"cost_per_mtok_usd": cost, "tokens_per_s": 1e6 / cost, "feasible": True})
    with mpl.rc_context(RC):
        fig = plot_pair(df, ("tokens_per_s", "maximize"), ("cost_per_mtok_usd", "minimize"))
        ax = fig.axes[0]
        fig.canvas.draw()
        lo, hi = ax.get_xlim()
        shown = [t.get_text() for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi]
    assert shown == ["2", "5", "10", "20", "50"]


def _row(**values):
    from dse.search.results import GIB

    base = {"num_gpus": 64, "tp": 8, "pp": 1, "dp": 8, "iteration_time_s": 2.0, "time_compute_s": 1.8,
            "exposed_tp_s": 0.2, "memory_weights_bytes": 20 * GIB, "memory_activations_bytes": 45.4 * GIB,
            "hbm_bytes": 80 * GIB}
    return pd.Series({**base, **values}, dtype=float)


def test_memory_panel_legend_has_the_unit_and_the_total_clears_the_capacity_line():
    from dse.search.plots import RC, hbm_label, plot_breakdown

    assert hbm_label(80) == "HBM capacity (80 GiB)"
    with mpl.rc_context(RC):
        fig = plot_breakdown(_row())
        fig.canvas.draw()
    assert "HBM capacity (80 GiB)" in _texts(fig)
    memory = fig.axes[-1]
    total = next(t for t in memory.texts if t.get_text().strip() == "65.4 GiB")
    line = next(x for x in memory.get_lines() if x.get_linestyle() == "--")
    # the label sits right of the dashed line (it would run through it at the bar's end)
    box = total.get_window_extent().transformed(memory.transData.inverted())
    assert box.x0 > line.get_xdata()[0] and box.x1 <= memory.get_xlim()[1]


def test_serving_breakdown_is_in_ms_per_engine_iteration():
    from dse.search.plots import RC, plot_breakdown

    row = _row(iteration_time_s=0.0658, time_compute_s=0.0613, exposed_tp_s=0.0045, itl_ms=65.8)
    with mpl.rc_context(RC):
        texts = _texts(plot_breakdown(row))
    assert "mean time per engine iteration (ms)" in texts and " 65.8 ms" in texts
    with mpl.rc_context(RC):  # training keeps seconds per iteration
        assert "time per iteration (s)" in _texts(plot_breakdown(_row()))


def test_labels_name_output_tokens_for_serving_and_gpu_ticks_one_style():
    from dse.search.plots import _gpus, metric_label

    assert metric_label("tokens_per_s_per_gpu", serving=True) == "throughput per GPU (output tokens/s)"
    assert metric_label("tokens_per_s_per_gpu") == "throughput per GPU (tokens/s)"
    assert [_gpus(x) for x in (512, 1024, 4096, 16384, 1536)] == ["512", "1k", "4k", "16k", "1536"]


def test_a_run_that_counts_samples_draws_them_against_gpus_not_tokens(folder, tmp_path):
    """A ViT space's objectives are images/s against GPUs: the tokens/s figure would repeat it
    in patch tokens."""
    df = pd.read_parquet(folder / "configs.parquet")
    df["samples_per_s"] = df["tokens_per_s"] / 257.0
    out = tmp_path / "vit"
    write_table(df, out / "configs.parquet")
    paths = plot_results(out, [("samples_per_s", "maximize"), ("num_gpus", "minimize")])
    names = {p.stem for p in paths}
    assert "samples_per_s_vs_num_gpus" in names and "throughput_vs_gpus" not in names
