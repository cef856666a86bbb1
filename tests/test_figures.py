"""The paper-figure scripts (scripts/figures/) and ``dse validate --plot``, run as a user would.

Each script runs as a subprocess into a temporary folder (``DSE_FIGURES_DIR``), the searches
reduced with ``--quick``; the test checks the PNG, PDF and CSV and the recorded findings.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPTS = REPO / "scripts" / "figures"
SHARED = REPO.parent / "shared" / "validation"
DSE = Path(sys.executable).parent / "dse"

needs_validation = pytest.mark.skipif(not (SHARED / "llm.jsonl").exists(), reason="../shared/validation not present")


def run_script(name: str, out: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "DSE_FIGURES_DIR": str(out), "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(SCRIPTS / name), *args], cwd=out, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc


def assert_outputs(out: Path, stem: str) -> None:
    for ext in ("png", "pdf", "csv"):
        path = out / f"{stem}.{ext}"
        assert path.is_file() and path.stat().st_size > 0, path
    assert (out / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    pdf = (out / f"{stem}.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"CreationDate" not in pdf
    assert len(pd.read_csv(out / f"{stem}.csv")) > 0


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    """Every script run once into one folder (so findings.json merges their sentences)."""
    out = tmp_path_factory.mktemp("figures")
    runs = [("fig1_pareto.py", "--quick"), ("fig2_cloud.py", "--quick"), ("fig3_exposed_comm.py", "--quick")]
    if (SHARED / "llm.jsonl").exists():
        runs.append(("fig5_validation.py",))
    for name, *args in runs:
        run_script(name, out, *args)
    return out


@pytest.mark.parametrize("stem", ["fig1_pareto", "fig2_cloud", "fig3_exposed_comm"])
def test_quick_figures_write_png_pdf_csv(figures, stem):
    assert_outputs(figures, stem)


@needs_validation
def test_fig5_writes_png_pdf_csv(figures):
    assert_outputs(figures, "fig5_validation")
    points = pd.read_csv(figures / "fig5_validation.csv")
    assert {"id", "source_short", "measured", "predicted", "error_pct"} <= set(points.columns)
    assert points["predicted"].notna().all()


def test_findings_hold_one_sentence_per_figure(figures):
    findings = json.loads((figures / "findings.json").read_text())
    stems = ["fig1_pareto", "fig2_cloud", "fig3_exposed_comm"]
    if (SHARED / "llm.jsonl").exists():
        stems.append("fig5_validation")
    for stem in stems:
        assert stem in findings
        text = findings[stem]
        assert text.endswith(".") and any(ch.isdigit() for ch in text), text
    assert "tokens/s per GPU" in findings["fig1_pareto"]
    assert "cheapest" in findings["fig2_cloud"] and "fastest" in findings["fig2_cloud"]
    assert "MAD-Max" in findings["fig3_exposed_comm"]
    if "fig5_validation" in findings:
        assert "MAPE" in findings["fig5_validation"] and "worst source" in findings["fig5_validation"]


def test_fig1_quick_csv_has_every_curve(figures):
    data = pd.read_csv(figures / "fig1_pareto.csv")
    assert set(data["model"]) == {"llama2-70b", "llama3-405b"}
    assert set(data["gpu"]) == {"A100-SXM-80GB", "H100-SXM-80GB", "B200-180GB"}
    assert data["num_gpus"].max() <= 512  # --quick
    # the throughput of the Pareto points grows with the GPU count
    for _, curve in data[data["on_front"]].groupby(["model", "gpu"]):
        assert curve.sort_values("num_gpus")["tokens_per_s"].is_monotonic_increasing


MADMAX = REPO.parent / "shared" / "madmax"


@pytest.mark.skipif(not (MADMAX / "models.csv").exists(), reason="../shared/madmax not present")
def test_fig2_has_an_llm_and_a_dlrm_a_panel(figures):
    data = pd.read_csv(figures / "fig2_cloud.csv")
    assert set(data["workload"]) == {"llama2-13b", "dlrm-a"}
    dlrm = data[data["workload"] == "dlrm-a"]
    # the same instances and GPU counts as the LLM panel (--quick: 64-256 GPUs)
    llm = data[data["workload"] == "llama2-13b"]
    assert set(zip(dlrm["instance"], dlrm["num_gpus"])) == set(zip(llm["instance"], llm["num_gpus"]))
    done = dlrm[dlrm["time_days"].notna()]
    assert len(done) > 0 and done["samples_per_s"].gt(0).all()
    # every option scored every sharding x dense plan; the best is a sharding the cost model has
    assert (dlrm["plans_scored"] == 7 * 4 * 2).all()
    assert set(done["emb_sharding"]) <= {"table", "row", "table_row", "auto", "hier_auto", "node_sharded",
                                         "data_parallel"}
    # time = 1e12 samples / rate, cost = GPUs x hours x price
    seconds = 1e12 / done["samples_per_s"]
    assert (done["time_days"] * 86400 / seconds).round(9).eq(1).all()
    cost = done["price_per_gpu_hour"] * done["num_gpus"] * seconds / 3600
    assert (done["cost_usd"] / cost).round(9).eq(1).all()
    # energy = (modelled GPU power + the node's other power per GPU) x GPUs x time; the GPU's
    # power lies within its power limit, which the communication-bound DLRM does not reach
    assert (done["power_per_gpu_w"] <= done["power_w"] + 1e-9).all()
    assert (done["power_per_gpu_w"] < done["power_w"]).any()
    assert (done["energy_mwh"] * 3.6e9 / (done["num_gpus"] * seconds) > done["power_per_gpu_w"]).all()
    findings = json.loads((figures / "findings.json").read_text())
    assert "DLRM-A" in findings["fig2_cloud"]


def test_finding_merges_and_replaces(tmp_path, monkeypatch):
    monkeypatch.setenv("DSE_FIGURES_DIR", str(tmp_path / "out"))
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import common

    common.finding("figA", "First  sentence\nwith 1 number.")
    common.finding("figB", "Second, 2.")
    common.finding("figA", "Replaced, 3.")
    data = json.loads((tmp_path / "out" / "findings.json").read_text())
    assert data == {"figA": "Replaced, 3.", "figB": "Second, 2."}
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.endswith(".tmp")]


def _record(args):
    import common

    common.finding(*args)


def test_finding_keeps_every_sentence_of_parallel_writers(tmp_path, monkeypatch):
    import multiprocessing

    monkeypatch.setenv("DSE_FIGURES_DIR", str(tmp_path))
    monkeypatch.syspath_prepend(str(SCRIPTS))
    import common  # noqa: F401  (imported before the workers fork)

    with multiprocessing.get_context("fork").Pool(8) as pool:
        pool.map(_record, [(f"fig{i}", f"Sentence {i}.") for i in range(32)])
    data = json.loads((tmp_path / "findings.json").read_text())
    assert data == {f"fig{i}": f"Sentence {i}." for i in range(32)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["findings.json"]


def test_short_source_names():
    from dse.validation_plot import short_names, short_source

    assert short_source("Korthikanti et al. MLSys'23 (arXiv 2205.05198) Table 3 + Table 5") == "Korthikanti MLSys'23"
    assert short_source("NVIDIA NeMo 24.07 performance_summary.md (Pretraining (FP8) table)") == \
        "NeMo 24.07 pre-train FP8"
    assert short_source("mosaicml/llm-foundry scripts/train/benchmarking/README.md, section 'A100 40GB with "
                        "1600 Gbps node-node interconnect (RoCE)'") == "llm-foundry A100 40GB"
    names = short_names(["Narayanan et al. SC'21 (arXiv) Table 1; x", "Narayanan et al. SC'21 (arXiv) Table 2 (y)",
                         "MLPerf Training v1.0 (a): Dell", "MLPerf Training v1.0 (a): NVIDIA"])
    assert names["Narayanan et al. SC'21 (arXiv) Table 1; x"] == "Narayanan SC'21 T1"
    assert names["Narayanan et al. SC'21 (arXiv) Table 2 (y)"] == "Narayanan SC'21 T2"
    mlperf = {names["MLPerf Training v1.0 (a): Dell"], names["MLPerf Training v1.0 (a): NVIDIA"]}
    assert mlperf == {"MLPerf Training v1.0"}
    # a Megatron-Bridge table names the NeMo container it ran in: it is Megatron-Bridge, by release
    assert short_source("Megatron-Bridge docs/performance-summary.md, 26.04 NeMo container, Pre-Training "
                        "Performance") == "Megatron-Bridge 26.04"


@needs_validation
def test_dse_validate_plot_writes_the_figure(tmp_path):
    out = tmp_path / "plots"
    proc = subprocess.run([str(DSE), "validate", str(SHARED / "llm.jsonl"), "--source", "korthikanti", "--plot",
                           str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    png = out / "validation.png"
    assert png.is_file() and png.stat().st_size > 0
    assert (out / "validation.pdf").stat().st_size > 0
    points = pd.read_csv(out / "validation.csv")
    assert len(points) == 8 and points["source"].str.contains("Korthikanti").all()
    assert "validation.png" in proc.stdout


@needs_validation
def test_dse_validate_plot_keeps_json_clean(tmp_path):
    proc = subprocess.run([str(DSE), "validate", str(SHARED / "llm.jsonl"), "--source", "korthikanti", "--json",
                           "--plot", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["overall"]["evaluated"] == 8
    assert (tmp_path / "validation.png").is_file()


def test_validation_figure_counts_one_case_in_the_singular():
    import matplotlib as mpl
    from matplotlib.text import Text

    from dse.search.plots import RC
    from dse.validation_plot import cases_text, plot_validation

    assert (cases_text(1), cases_text(2)) == ("1 case", "2 cases")
    cases = pd.DataFrame({"status": "ok", "source": "NVIDIA NIM LLM Benchmarking 1.0.0",
                          "metric": ["ttft_ms", "itl_ms", "itl_ms"], "measured": [400.0, 20.0, 30.0],
                          "predicted": [450.0, 21.0, 29.0], "feasible": True})
    with mpl.rc_context(RC):
        texts = [t.get_text() for t in plot_validation(cases).findobj(Text)]
    assert "1 case" in texts and "2 cases" in texts and "1 cases" not in texts


def test_fig8_fronts_and_the_kv_link(tmp_path):
    run_script("fig8_disaggregated.py", tmp_path, "--quick")
    assert_outputs(tmp_path, "fig8_disaggregated")
    data = pd.read_csv(tmp_path / "fig8_disaggregated.csv")
    fronts = data[data["panel"] == "front"]
    assert set(zip(fronts["gpu"], fronts["kind"])) == {(g, k) for g in ("H100", "H200") for k in ("engines", "deployments")}
    for _, curve in fronts.groupby(["gpu", "kind"]):  # a staircase: more throughput only at a longer ITL
        curve = curve.sort_values("itl_ms")
        assert curve["tokens_per_s_per_gpu"].is_monotonic_increasing and curve["itl_ms"].is_monotonic_increasing
    link = data[(data["panel"] == "link") & (data["kind"] == "deployments")]
    for _, curve in link.groupby("gpu"):  # a faster NIC never lowers the best deployment
        assert curve.sort_values("scaleout_gbitps")["tokens_per_s_per_gpu"].is_monotonic_increasing
        assert (curve["itl_ms"] <= 40.0 + 1e-9).all()
    finding = json.loads((tmp_path / "findings.json").read_text())["fig8_disaggregated"]
    assert "Gbit/s" in finding and finding.endswith(".")


def test_fig9_which_gpu_per_dollar(tmp_path):
    run_script("fig9_gpu_choice.py", tmp_path, "--quick")
    assert_outputs(tmp_path, "fig9_gpu_choice")
    data = pd.read_csv(tmp_path / "fig9_gpu_choice.csv")
    serving, training = data[data["panel"] == "serving"], data[data["panel"] == "training"]
    assert set(serving["gpu"]) == {"H100", "H200", "B200"} and set(training["gpu"]) == {"H100", "H200", "B200", "GB200"}
    amd = data[data["panel"] == "serving_amd"]
    assert set(amd["gpu"]) == {"H100", "MI300X", "MI325X"}
    rtx = data[data["panel"] == "serving_rtx"]
    assert set(rtx["gpu"]) == {"RTX PRO 6000", "B200"}
    loose = rtx[rtx["itl_bound_ms"] == 100.0].set_index("gpu")["cost_per_mtok_usd"]
    assert loose["RTX PRO 6000"] < loose["B200"]  # the PCIe server is cheapest only at a loose bound
    for _, curve in pd.concat([serving, amd, rtx]).groupby(["panel", "gpu"]):  # a looser bound never costs more
        curve = curve.sort_values("itl_bound_ms")
        assert curve["cost_per_mtok_usd"].is_monotonic_decreasing and (curve["itl_ms"] <= curve["itl_bound_ms"]).all()
    for _, pts in training.groupby("gpu"):  # more GPUs of one kind: sooner, never cheaper per token here
        pts = pts.sort_values("num_gpus")
        assert pts["days"].is_monotonic_decreasing and pts["cost_per_mtok_usd"].is_monotonic_increasing
    finding = json.loads((tmp_path / "findings.json").read_text())["fig9_gpu_choice"]
    assert "GB200" in finding and finding.endswith(".")
