"""scripts/compare_predictions.py: the cases whose prediction moved between two revisions."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from dse.validate import validate_cases

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "validation" / "llm.jsonl"


def load_script():
    spec = importlib.util.spec_from_file_location("compare_predictions", ROOT / "scripts" / "compare_predictions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def cases_file(tmp_path):
    if not SHARED.exists():
        pytest.skip("../shared/validation/llm.jsonl is not beside the project")
    lines = [line for line in SHARED.read_text().splitlines() if line.strip()][:3]
    path = tmp_path / "three.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_other_tree_scores_what_validate_gives_in_process(cases_file):
    script = load_script()
    scored = script.score(ROOT, [str(cases_file)])
    cases, _ = validate_cases([str(cases_file)])
    assert len(scored) == len(cases) == 3
    for record in cases.to_dict("records"):
        predicted, measured, feasible, _ = scored[f"{record['file']}:{record['line']}:{record['id']}"]
        assert predicted == pytest.approx(record["predicted"], rel=1e-12)
        assert measured == record["measured"] and feasible == bool(record["feasible"])


def test_only_the_cases_that_moved_are_listed(cases_file, monkeypatch, capsys):
    script = load_script()
    now = script.score(ROOT, [str(cases_file)])
    keys = sorted(now)
    before = {k: list(v) for k, v in now.items()}
    before[keys[0]][0] *= 1.1  # the base predicted 10% more for the first case
    before[keys[1]][0] *= 1.0 + 1e-12  # float noise on the second
    sides = iter([before, now])
    monkeypatch.setattr(script, "score", lambda tree, files: next(sides))
    done = subprocess.CompletedProcess([], 0, "", "")
    monkeypatch.setattr(script.subprocess, "run", lambda *a, **k: done)  # no worktree
    assert script.main([str(cases_file)]) == 0
    out = capsys.readouterr().out
    assert "1 of 3 predictions moved" in out
    assert keys[0].split(":", 2)[2] in out and keys[1].split(":", 2)[2] not in out
