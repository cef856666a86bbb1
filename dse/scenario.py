"""Read scenarios from YAML/JSON files, JSON-lines files and dicts, with clear errors.

``model`` may be a preset name (``"llama2-70b"``), a dict with ``preset`` plus overrides
(``{preset: llama2-70b, seq_len: 8192}``) or a full inline model.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from .errors import FieldProblem, InputError, single, string_number_message
from .presets import find_gpu, find_model, model_preset, model_table, gpu_table
from .specs import IGNORED_CASE_KEYS, Scenario


def load_scenario(source: str | Path | dict[str, Any]) -> Scenario:
    """A :class:`Scenario` from a file path (YAML or JSON) or a dict.

    Raises :class:`dse.errors.InputError` naming the file and every bad field.
    """
    if isinstance(source, dict):
        return scenario_from_dict(source)
    path = Path(source)
    data = read_mapping(path)
    try:
        return scenario_from_dict(data)
    except InputError as err:
        raise err.with_source(str(path)) from None


def load_jsonl(path: str | Path) -> list[tuple[int, dict[str, Any]]]:
    """The objects of a JSON-lines file with their line numbers (blank lines skipped)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise single("", f"cannot read file: {err.strerror}", source=str(path)) from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line, parse_constant=_reject_constant)
        except (json.JSONDecodeError, ValueError) as err:
            raise single(f"line {number}", f"not valid JSON: {err}", source=str(path)) from None
        if not isinstance(obj, dict):
            raise single(f"line {number}", "expected a JSON object", type(obj).__name__, str(path))
        rows.append((number, obj))
    return rows


def read_mapping(path: Path) -> dict[str, Any]:
    """Parse a YAML or JSON file that must hold one mapping."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise single("", f"cannot read file: {err.strerror}", source=str(path)) from None
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text, parse_constant=_reject_constant)
        else:
            data = yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError, ValueError) as err:
        raise single("", f"cannot parse file: {err}", source=str(path)) from None
    if not isinstance(data, dict):
        raise single("", "expected a mapping of keys (model, cluster, parallel, ...)",
                     type(data).__name__, str(path))
    return data


def _reject_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def scenario_from_dict(data: dict[str, Any]) -> Scenario:
    """Validate a scenario dict (presets resolved), raising InputError on any bad field."""
    data = dict(data)
    problems: list[FieldProblem] = []
    model = data.get("model")
    if isinstance(model, str):
        resolved = _model_from_preset(model, "model")
        if isinstance(resolved, FieldProblem):
            problems.append(resolved)
        else:
            data["model"] = resolved
    elif isinstance(model, dict) and "preset" in model:
        name = model["preset"]
        resolved = _model_from_preset(name, "model.preset") if isinstance(name, str) else FieldProblem(
            "model.preset", repr(name), "must be a preset name (string)")
        if isinstance(resolved, FieldProblem):
            problems.append(resolved)
        else:
            data["model"] = {**resolved, **{k: v for k, v in model.items() if k != "preset"}}
    cluster = data.get("cluster")
    if isinstance(cluster, dict) and isinstance(cluster.get("gpu"), str) and find_gpu(cluster["gpu"]) is None:
        problems.append(FieldProblem("cluster.gpu", repr(cluster["gpu"]),
                                     f"unknown GPU; allowed: {', '.join(gpu_table())}"))
    if problems:
        raise InputError(problems)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as err:
        raise InputError(_problems(err, Scenario)) from None
    if isinstance(cluster, dict) and isinstance(cluster.get("gpu"), str):
        canonical = find_gpu(cluster["gpu"])
        scenario = scenario.model_copy(update={"cluster": scenario.cluster.model_copy(update={"gpu": canonical})})
    from .hardware import resolve_hardware

    resolve_hardware(scenario.cluster, scenario.precision)  # a precision the GPU lacks, ...
    return scenario


def _model_from_preset(name: str, field: str) -> dict[str, Any] | FieldProblem:
    if find_model(name) is None:
        return FieldProblem(field, repr(name), f"unknown model preset; allowed: {', '.join(model_table())}")
    return model_preset(name)


def _problems(err: ValidationError, root: type[BaseModel]) -> list[FieldProblem]:
    """Turn pydantic's errors into FieldProblems that say what is allowed."""
    problems = []
    seen = set()
    for e in err.errors():
        loc = [p for p in e["loc"] if not (isinstance(p, str) and p in ("int", "bool", "str", "float"))]
        # union members appear as extra path parts ("function-after[...]", spec class names)
        loc = [p for p in loc if not (isinstance(p, str) and ("[" in p or p in _SPEC_NAMES))]
        field = ".".join(str(p) for p in loc)
        kind = e["type"]
        given = e.get("input")
        if kind == "extra_forbidden":
            allowed = _allowed_keys(root, loc[:-1])
            msg = f"unknown key '{loc[-1]}'; allowed keys: {', '.join(allowed)}"
            given = ""
        elif kind == "missing":
            msg = "required field is missing"
            given = ""
        elif kind in ("literal_error", "enum"):
            msg = "not an allowed value; allowed: " + e["ctx"]["expected"]
        elif kind == "value_error":
            msg = str(e["ctx"]["error"]) if "ctx" in e else e["msg"]
            given = ""
        else:
            msg = e["msg"].lower()
            if isinstance(given, float) and not math.isfinite(given):
                msg = "must be a finite number"
            elif isinstance(given, str) and kind in ("float_type", "int_type", "float_parsing", "int_parsing"):
                msg = string_number_message(given)
        key = (field, msg)
        if key in seen:
            continue
        seen.add(key)
        problems.append(FieldProblem(field, "" if given == "" else _short(given), msg))
    return problems


def _spec_names() -> set[str]:
    from . import specs

    return {name for name, obj in vars(specs).items() if isinstance(obj, type) and issubclass(obj, BaseModel)}


_SPEC_NAMES = _spec_names()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _allowed_keys(root: type[BaseModel], loc: list[Any]) -> list[str]:
    """Field names of the spec class at ``loc`` (for 'unknown key' messages)."""
    cls: Any = root
    for part in loc:
        if isinstance(part, int):
            continue
        field = getattr(cls, "model_fields", {}).get(part)
        if field is None:
            return []
        cls = _spec_class(field.annotation)
        if cls is None:
            return []
    names = list(getattr(cls, "model_fields", {}))
    if cls is Scenario:
        names += list(IGNORED_CASE_KEYS)
    return names


def _spec_class(annotation: Any) -> Any:
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = _spec_class(arg)
        if found is not None:
            return found
    return None
