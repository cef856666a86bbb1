"""A paper figure whose input data (../shared) is not beside the checkout stops with one line
naming the missing files and exit status 2, not a traceback."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPTS = Path(__file__).resolve().parents[1] / "scripts" / "figures"


@pytest.mark.parametrize("stem, needed", [("fig2_cloud", "madmax/cloud_prices.csv"),
                                          ("fig5_validation", "validation/llm.jsonl")])
def test_a_figure_without_the_shared_data_says_what_is_missing(tmp_path, stem, needed):
    checkout = tmp_path / "repo"  # a checkout with no ../shared beside it
    shutil.copytree(SCRIPTS, checkout / "scripts" / "figures")
    env = {**os.environ, "DSE_FIGURES_DIR": str(tmp_path / "out"), "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(checkout / "scripts" / "figures" / f"{stem}.py"), "--quick"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert str(tmp_path / "shared" / needed) in proc.stderr and "not found" in proc.stderr
