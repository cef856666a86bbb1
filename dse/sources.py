"""Software facts of published sources (``data/software.yaml``), applied to validation cases.

Each entry: ``match`` (text the case's ``source`` contains), optional ``when`` (dotted case
fields and the values they must equal), one or more of the blocks ``training`` / ``cluster`` /
``parallel`` (settings as a scenario writes them, checked against the scenario schema) and
``why`` (the fact and where it comes from). The file is checked when it is loaded; a bad entry
is an :class:`~dse.errors.InputError` naming the entry and the field.
"""

from __future__ import annotations

import copy
from functools import cache
from importlib.resources import files
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from .errors import FieldProblem, InputError
from .inputs import problems_from, short
from .specs import IGNORED_CASE_KEYS, ClusterSpec, ParallelSpec, Scenario, TrainingSpec

#: Blocks of a case that a software entry may set.
BLOCKS = ("training", "cluster", "parallel")
#: The keys of an entry.
ENTRY_KEYS = ("match", "when") + BLOCKS + ("why",)
#: The schema each block is checked against.
_BLOCK_SPECS: dict[str, type[BaseModel]] = {"training": TrainingSpec, "cluster": ClusterSpec,
                                            "parallel": ParallelSpec}
#: Required cluster fields a cluster block need not state (the case states them).
_CLUSTER_FILL = {"gpu": "A100-SXM-80GB", "num_gpus": 1}


@cache
def software_table() -> list[dict[str, Any]]:
    """The entries of ``data/software.yaml`` (checked): match, when, blocks, why."""
    path = files("dse") / "data" / "software.yaml"
    return check_software(yaml.safe_load(path.read_text(encoding="utf-8")), "dse/data/software.yaml")


def check_software(data: Any, source: str = "software.yaml") -> list[dict[str, Any]]:
    """``data`` if it is a valid list of software entries, else an InputError naming every bad
    field as ``[index].field`` (block fields with their dotted path, e.g.
    ``[7].training.dlrm.emb_dtype``)."""
    if not isinstance(data, list) or not data:
        raise InputError([FieldProblem("", short(data), "expected a non-empty list of software entries")], source)
    problems: list[FieldProblem] = []
    for i, entry in enumerate(data):
        problems += _entry_problems(i, entry)
    if problems:
        raise InputError(problems, source)
    return data


def _entry_problems(i: int, entry: Any) -> list[FieldProblem]:
    at = f"[{i}]"
    if not isinstance(entry, dict):
        return [FieldProblem(at, short(entry), "expected a mapping with keys " + ", ".join(ENTRY_KEYS))]
    out = [FieldProblem(f"{at}.{key}", "", f"unknown key '{key}'; allowed keys: {', '.join(ENTRY_KEYS)}")
           for key in entry if key not in ENTRY_KEYS]
    for key in ("match", "why"):
        value = entry.get(key)
        if not isinstance(value, str) or not value.strip():
            out.append(FieldProblem(f"{at}.{key}", "" if key not in entry else short(value),
                                    "required: a non-empty string" if key in entry else "required field is missing"))
    when = entry.get("when")
    if when is not None:
        if not isinstance(when, dict):
            out.append(FieldProblem(f"{at}.when", short(when), "expected a mapping of dotted case fields to values"))
        else:
            tops = tuple(Scenario.model_fields) + IGNORED_CASE_KEYS
            for path, value in when.items():
                if not isinstance(path, str) or path.split(".")[0] not in tops:
                    out.append(FieldProblem(f"{at}.when", short(path),
                                            f"not a dotted case field; the first part must be one of {', '.join(tops)}"))
                elif isinstance(value, (dict, list)):
                    out.append(FieldProblem(f"{at}.when.{path}", short(value), "must be a single value (string, number, bool, null)"))
    if not any(entry.get(block) for block in BLOCKS):
        out.append(FieldProblem(at, "", f"states no setting: give at least one of {', '.join(BLOCKS)}"))
    for block, spec in _BLOCK_SPECS.items():
        if block not in entry:
            continue
        value = entry[block]
        if not isinstance(value, dict):
            out.append(FieldProblem(f"{at}.{block}", short(value), "expected a mapping of keys"))
            continue
        data = {**_CLUSTER_FILL, **value} if block == "cluster" else value
        try:
            spec.model_validate(data)
        except ValidationError as err:
            out += [FieldProblem(f"{at}.{block}.{p.field}", p.given, p.message) for p in problems_from(err, spec)]
    return out


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
