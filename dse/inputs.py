"""Reading user files (YAML/JSON) and turning pydantic's errors into messages that name the
field, what was given and what is allowed. Shared by scenarios and search spaces."""

from __future__ import annotations

import json
import math
import typing
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from .errors import FieldProblem, FieldValueError, single, string_number_message

NUMBER_ERRORS = ("float_type", "int_type", "float_parsing", "int_parsing", "finite_number")
_TYPE_PARTS = ("int", "float", "bool", "str", "constrained-int", "constrained-float")


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader that refuses a key given twice in one mapping (plain YAML keeps the
    last one silently: ``num_gpus: 64`` then ``num_gpus: 128`` would run 128)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if isinstance(key, typing.Hashable) and key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key '{key}' is given twice (lines {seen[key]} and {line}); keep one")
            if isinstance(key, typing.Hashable):
                seen[key] = line
        return super().construct_mapping(node, deep=deep)


def _reject_duplicate_json_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads(object_pairs_hook=...)``: a key given twice in one object is an error."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key '{key}' is given twice in one object; keep one")
        out[key] = value
    return out


def read_document(path: Path) -> tuple[Any, str]:
    """Parse a YAML (or, for ``.json``, JSON) file: (data, text). NaN and Infinity in JSON
    and keys given twice in one mapping are rejected; errors name the file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise single("", f"cannot read file: {err.strerror}", source=str(path)) from None
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text, parse_constant=reject_constant, object_pairs_hook=_reject_duplicate_json_keys)
        else:
            data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 (a SafeLoader subclass)
    except (json.JSONDecodeError, yaml.YAMLError, ValueError) as err:
        raise single("", f"cannot parse file: {err}", source=str(path)) from None
    return data, text


def reject_constant(name: str) -> float:
    """``json.loads(parse_constant=...)``: NaN and Infinity are not numbers here."""
    raise ValueError(f"{name} is not a number")


def spec_class(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside an annotation (``X | None``, ``list[X]``, ...), if any."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in typing.get_args(annotation):
        found = spec_class(arg)
        if found is not None:
            return found
    return None


def tagged_classes(annotation: Any) -> dict[str, type[BaseModel]]:
    """The members of a tagged (discriminated) union: tag -> spec class."""
    from pydantic import Tag

    out: dict[str, type[BaseModel]] = {}
    for arg in typing.get_args(annotation):
        meta = getattr(arg, "__metadata__", ())
        tags = [m.tag for m in meta if isinstance(m, Tag)]
        cls = spec_class(arg)
        if tags and cls is not None:
            out[tags[0]] = cls
        out.update(tagged_classes(arg))
    return out


def allowed_keys(root: type[BaseModel], loc: Iterable[Any]) -> list[str]:
    """Field names of the spec class at ``loc`` below ``root`` (for 'unknown key' messages);
    ``loc`` may hold the tags of discriminated unions, as pydantic reports them."""
    cls: Any = root
    tags: dict[str, type[BaseModel]] = {}
    for part in loc:
        if isinstance(part, int):
            continue
        if part in tags:
            cls, tags = tags[part], {}
            continue
        field = getattr(cls, "model_fields", {}).get(part)
        if field is None:
            return []
        tags = tagged_classes(field.annotation)
        cls = spec_class(field.annotation)
        if cls is None:
            return []
    return list(getattr(cls, "model_fields", {}))


def spec_names(root: type[BaseModel]) -> set[str]:
    """Class names of every spec reachable from ``root`` (pydantic puts them in error paths)."""
    names, todo = set(), [root]
    while todo:
        cls = todo.pop()
        if cls.__name__ in names:
            continue
        names.add(cls.__name__)
        for field in cls.model_fields.values():
            for arg in [field.annotation, *typing.get_args(field.annotation)]:
                found = spec_class(arg)
                if found is not None:
                    todo.append(found)
    return names


def union_tags(root: type[BaseModel]) -> set[str]:
    """Tags of every discriminated union below ``root`` (pydantic puts them in error paths)."""
    tags, todo, seen = set(), [root], set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        for field in cls.model_fields.values():
            found = tagged_classes(field.annotation)
            tags |= set(found)
            todo += list(found.values())
            inner = spec_class(field.annotation)
            if inner is not None:
                todo.append(inner)
    return tags


def tagged_fields(root: type[BaseModel]) -> set[str]:
    """Names of the fields below ``root`` that hold a discriminated union (``model``)."""
    names, todo, seen = set(), [root], set()
    while todo:
        cls = todo.pop()
        if cls in seen:
            continue
        seen.add(cls)
        for name, field in cls.model_fields.items():
            found = tagged_classes(field.annotation)
            if found:
                names.add(name)
            todo += list(found.values())
            inner = spec_class(field.annotation)
            if inner is not None:
                todo.append(inner)
    return names


def short(value: Any, limit: int = 80) -> str:
    """``repr`` of a given value, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def problems_from(
    err: ValidationError,
    root: type[BaseModel],
    hints: Mapping[str, str] | None = None,
    extra_keys: Iterable[str] = (),
    key_labels: Mapping[str, str] | None = None,
) -> list[FieldProblem]:
    """Turn pydantic's errors into FieldProblems that say what is allowed.

    ``hints`` maps a dotted field (list indices dropped) to a description of what it takes;
    ``extra_keys`` are keys the root also accepts (listed as allowed); ``key_labels`` maps a
    dotted parent to the word for its keys ("hardware" -> "hardware knob").
    """
    hints = hints or {}
    key_labels = key_labels or {}
    classes, tags, tagged = spec_names(root), union_tags(root), tagged_fields(root)
    out, seen = [], set()
    errors = err.errors()
    # union branches: pydantic puts each member's name after the union's location ('str', 'GPUCandidateSpec')
    branches = {(tuple(e["loc"][:i]), e["loc"][i]) for e in errors for i in range(len(e["loc"]))}
    for e in errors:
        loc = tuple(e["loc"])
        if (e["type"] == "string_type" and isinstance(e.get("input"), dict) and loc and loc[-1] == "str"
                and any(at == loc[:-1] and part != "str" for at, part in branches)):
            # a union of a name and a mapping, given a mapping: its errors are the mapping branch's
            continue
        raw = [p for p in e["loc"] if not _is_type_part(p, classes)]
        # a union tag is pydantic's only right after its union field (model.dlrm.tables, not
        # training.dlrm.emb_dtype, where 'dlrm' is a key)
        loc = [p for i, p in enumerate(raw) if not (p in tags and i > 0 and raw[i - 1] in tagged)]
        field = ".".join(str(p) for p in loc)
        plain = ".".join(str(p) for p in loc if not isinstance(p, int))
        kind = e["type"]
        given: Any = e.get("input")
        if kind == "extra_forbidden":
            allowed = allowed_keys(root, raw[:-1]) + (list(extra_keys) if len(loc) == 1 else [])
            parent = ".".join(str(p) for p in loc[:-1] if not isinstance(p, int))
            label = key_labels.get(parent, "key")
            msg = f"unknown {label} '{loc[-1]}'; allowed {label}s: {', '.join(allowed)}"
            given = ""
        elif kind == "missing":
            msg, given = "required field is missing", ""
        elif kind in ("literal_error", "enum"):
            msg = "not an allowed value; allowed: " + e["ctx"]["expected"]
            if plain in hints:
                msg += f" ({hints[plain]})"
        elif kind == "value_error":
            msg, given = (str(e["ctx"]["error"]) if "ctx" in e else e["msg"]), ""
            at = e.get("ctx", {}).get("error")
            if isinstance(at, FieldValueError):  # a cross-field check that names its field
                field = ".".join(p for p in (field, at.field) if p)
        elif kind in NUMBER_ERRORS and isinstance(given, str):
            msg = string_number_message(given)
        elif kind == "finite_number" or (isinstance(given, float) and not math.isfinite(given)):
            msg = "must be a finite number"
        elif kind == "int_type" and isinstance(given, float):
            msg = "must be a whole number (an integer)"
        elif kind == "too_short" and isinstance(given, list) and not given:
            msg, given = "must not be empty", ""
        elif kind in ("union_tag_not_found", "union_tag_invalid", "model_type", "dict_type",
                      "string_pattern_mismatch") and plain in hints:
            msg = "expected " + hints[plain]
        elif kind in ("model_type", "dict_type"):
            msg = "expected a mapping of keys"
        elif kind == "string_pattern_mismatch":  # the pattern as written (lower-casing would change it)
            msg = f"must match the pattern {e['ctx']['pattern']}"
        else:
            msg = e["msg"].lower()
        if (field, msg) in seen:
            continue
        seen.add((field, msg))
        out.append(FieldProblem(field, "" if given == "" else short(given), msg))
    return out


def _is_type_part(part: Any, names: set[str]) -> bool:
    """Path parts pydantic adds for union members and tags (not user keys)."""
    if not isinstance(part, str):
        return False
    return part.startswith("<") or "[" in part or part in names or part in _TYPE_PARTS
