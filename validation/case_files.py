"""What the ``build_*.py`` scripts of this folder share: writing a JSON-lines case file."""

from __future__ import annotations

import json
from statistics import median

__all__ = ["median", "write_cases"]  # median: the builders' median of runs and of intervals


def write_cases(cases: list[dict], path: str) -> None:
    """Write ``cases`` (ids unique) to ``path``, one compact JSON object a line, and say so."""
    ids = [c["id"] for c in cases]
    assert len(set(ids)) == len(ids), "case ids must be unique"
    with open(path, "w") as fh:
        for c in cases:
            fh.write(json.dumps(c, separators=(",", ":")) + "\n")
    print(f"wrote {len(cases)} cases to {path}")
