"""Software facts of published sources (``data/software.yaml``), applied to validation cases."""

from __future__ import annotations

import copy
from functools import cache
from importlib.resources import files
from typing import Any

import yaml

#: Blocks of a case that a software entry may set.
BLOCKS = ("training", "cluster", "parallel")


@cache
def software_table() -> list[dict[str, Any]]:
    """The entries of ``data/software.yaml``: match, when, training/cluster, why."""
    return yaml.safe_load((files("dse") / "data" / "software.yaml").read_text(encoding="utf-8"))


def _get(case: dict[str, Any], dotted: str) -> Any:
    node: Any = case
    for part in dotted.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def matching_entries(case: dict[str, Any]) -> list[dict[str, Any]]:
    """Every software entry whose ``match`` is in the case's source and whose ``when`` holds."""
    source = case.get("source")
    if not isinstance(source, str):  # a malformed case: no software facts (validation reports it)
        return []
    return [
        entry
        for entry in software_table()
        if entry["match"] in source
        and all(_get(case, path) == value for path, value in (entry.get("when") or {}).items())
    ]


def apply_software(case: dict[str, Any]) -> dict[str, Any]:
    """A copy of a validation case with its source's software settings merged in.

    Entries apply in file order. Settings the case states itself win over all of them; a field
    the case lists in ``inferred`` (not stated by its source, filled by a convention of the case
    file such as "no recompute" or "an A100 is the 80 GB part") yields to an entry that sets
    it, since the entry records what that source's own documents say.
    """
    entries = matching_entries(case)
    if not entries:
        return case
    inferred = case.get("inferred")
    inferred = {p for p in inferred if isinstance(p, str)} if isinstance(inferred, list) else set()
    out = copy.deepcopy(case)
    for block in BLOCKS:
        merged: dict[str, Any] = {}
        for entry in entries:
            merged = _merge(merged, entry.get(block) or {})
        if merged:
            stated = case.get(block) if isinstance(case.get(block), dict) else {}
            stated = _drop(stated, block, merged, inferred)
            out[block] = copy.deepcopy(_merge(merged, stated))
    return out


def _drop(stated: dict[str, Any], prefix: str, facts: dict[str, Any], inferred: set[str]) -> dict[str, Any]:
    """``stated`` without the inferred fields that ``facts`` sets (dotted paths under ``prefix``)."""
    out = {}
    for key, value in stated.items():
        path = f"{prefix}.{key}"
        if key in facts and path in inferred:
            continue
        if isinstance(value, dict) and isinstance(facts.get(key), dict):
            value = _drop(value, path, facts[key], inferred)
        out[key] = value
    return out


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out
