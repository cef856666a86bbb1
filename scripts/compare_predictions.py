#!/usr/bin/env python3
"""What a code change does to every validation prediction: the same case files scored by the
working tree's dse and by another revision's, case by case.

    python scripts/compare_predictions.py [--base REV] [--all] [FILE.jsonl ...]

``--base`` (default HEAD) is checked out into a temporary git worktree; both sides read the case
files as they are now, so only the model differs (a relative change under ``--rtol`` is float
noise, not a move). Files default to ``../shared/validation/*.jsonl``
and ``validation/*.jsonl``. Prints the cases whose prediction or feasibility moved (every case
with ``--all``), then the MAPE of each file on both sides; exits 0 either way.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Run inside the other tree: score the files, print {file:line:id -> [predicted, measured, feasible,
#: flagged]} (the line as well: an id may stand twice in a file).
SCORE = """
import json, math, sys
import dse
from dse.validate import validate_cases
cases, _ = validate_cases(sys.argv[1:])
out = {"dse": dse.__file__, "cases": {}}
for r in cases.to_dict("records"):
    p = r["predicted"]
    out["cases"][f"{r['file']}:{r['line']}:{r['id']}"] = [None if p is None or (isinstance(p, float) and math.isnan(p)) else p,
                                             r["measured"], bool(r["feasible"]), bool(r["flagged"])]
print(json.dumps(out))
"""


def score(tree: Path, files: list[str]) -> dict:
    """The predictions of the dse in ``tree`` for ``files`` (absolute paths)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    run = subprocess.run([sys.executable, "-c", SCORE, *files], cwd=tree, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"scoring with {tree} failed:\n{run.stderr[-2000:]}")
    out = json.loads(run.stdout.strip().splitlines()[-1])
    if not Path(out["dse"]).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"{tree} imported dse from {out['dse']}, not from its own tree")
    return out["cases"]


def mape(rows: list[tuple[float, float]]) -> float:
    errors = [abs(p / m - 1.0) * 100.0 for p, m in rows if p is not None and m]
    return sum(errors) / len(errors) if errors else math.nan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="case files (default: shared and project validation files)")
    parser.add_argument("--base", default="HEAD", help="the revision to compare with (default HEAD)")
    parser.add_argument("--all", action="store_true", help="list every case, not only the ones that moved")
    parser.add_argument("--rtol", type=float, default=1e-9,
                        help="relative change below which a prediction has not moved (default 1e-9: float noise)")
    args = parser.parse_args(argv)
    files = args.files or sorted(str(p) for p in (ROOT.parent / "shared" / "validation").glob("*.jsonl"))
    if not args.files:
        files += sorted(str(p) for p in (ROOT / "validation").glob("*.jsonl"))
    files = [str(Path(f).resolve()) for f in files]
    with tempfile.TemporaryDirectory(prefix="dse-base-") as tmp:
        base_tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(base_tree), args.base],
                       check=True)
        try:
            before = score(base_tree, files)
        finally:  # (not check=True: a failed clean-up must not hide why scoring failed)
            removed = subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base_tree)],
                                     capture_output=True, text=True)
            if removed.returncode != 0:
                print(f"warning: could not remove the worktree {base_tree}: {removed.stderr.strip()} "
                      "(git worktree prune clears it)", file=sys.stderr)
    after = score(ROOT, files)

    moved = 0
    print(f"{'case':70} {'measured':>12} {'before':>12} {'after':>12} {'err before':>10} {'err after':>10}")
    for key in sorted(after):
        b, a = before.get(key), after[key]
        changed = b is None or b[2] != a[2] or (b[0] is None) != (a[0] is None) or (
            a[0] is not None and abs(a[0] - b[0]) > args.rtol * max(abs(a[0]), abs(b[0])))
        moved += changed
        if not (changed or args.all):
            continue
        pb = None if b is None else b[0]

        def err(p):
            return f"{(p / a[1] - 1.0) * 100.0:+.1f}%" if p is not None and a[1] else "-"

        def num(p):
            return f"{p:.5g}" if p is not None else "-"
        feas = "" if b is None or b[2] == a[2] else f"  feasible {b[2]} -> {a[2]}"
        name = key.split(":", 2)[2]
        print(f"{name[:70]:70} {a[1]:12.5g} {num(pb):>12} {num(a[0]):>12} {err(pb):>10} {err(a[0]):>10}{feas}")
    print(f"\n{moved} of {len(after)} predictions moved (base {args.base})\n")
    print(f"{'file':40} {'cases':>6} {'MAPE before':>12} {'MAPE after':>11}")
    for f in files:
        keys = [k for k in after if k.startswith(f + ":")]
        rows_b = [(before[k][0], after[k][1]) for k in keys if k in before]
        rows_a = [(after[k][0], after[k][1]) for k in keys]
        print(f"{Path(f).name:40} {len(keys):6d} {mape(rows_b):11.2f}% {mape(rows_a):10.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
