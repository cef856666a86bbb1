"""scripts/make_figures regenerates every figure and the findings report from a checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_make_figures_quick_writes_every_figure_and_the_report(tmp_path):
    env = {**os.environ, "DSE_FIGURES_DIR": str(tmp_path)}
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "make_figures"), "--quick"],
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    stems = ["fig1_pareto", "fig2_cloud", "fig3_exposed_comm", "fig4_whatif_network", "fig4_whatif_memory",
             "fig4_whatif_serving",
             "fig5_validation", "fig6_timeline", "fig7_attention", "fig8_disaggregated", "fig9_gpu_choice"]
    for stem in stems:
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / f"{stem}.{ext}").stat().st_size > 0, (stem, ext)
    report = (tmp_path / "README.md").read_text()
    for stem in stems:
        assert f"![{stem}]({stem}.png)" in report
    assert "(no finding recorded)" not in report
