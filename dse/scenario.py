"""Read scenarios from YAML/JSON files, JSON-lines files and dicts, with clear errors.

``model`` may be a preset name (``"llama2-70b"``), a dict with ``preset`` plus overrides
(``{preset: llama2-70b, seq_len: 8192}``) or a full inline model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from .errors import FieldProblem, InputError, single
from .inputs import problems_from, read_document, reject_constant
from .presets import did_you_mean, find_gpu, find_model, gpu_table, model_preset, model_table
from .specs import IGNORED_CASE_KEYS, ClusterSpec, Scenario


def load_scenario(source: str | Path | dict[str, Any]) -> Scenario:
    """A :class:`Scenario` from a file path (YAML or JSON) or a dict.

    Raises :class:`dse.errors.InputError` naming the file and every bad field.
    """
    if isinstance(source, dict):
        return scenario_from_dict(source)
    path = Path(source)
    data = read_mapping(path)
    if isinstance(data.get("scenario"), dict):  # a search space: fixed parts plus dimensions
        raise single("scenario", "this file is a search space (a 'scenario' block of fixed parts and the "
                     "dimensions to explore), not one scenario: run `dse search` on it; `dse evaluate` and "
                     "`dse whatif` take one scenario (scenarios/*.yaml)", source=str(path))
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
            obj = json.loads(line, parse_constant=reject_constant)
        except (json.JSONDecodeError, ValueError) as err:
            raise single(f"line {number}", f"not valid JSON: {err}", source=str(path)) from None
        if not isinstance(obj, dict):
            raise single(f"line {number}", "expected a JSON object", type(obj).__name__, str(path))
        rows.append((number, obj))
    return rows


def read_mapping(path: Path) -> dict[str, Any]:
    """Parse a YAML or JSON file that must hold one mapping."""
    data, _ = read_document(path)
    if not isinstance(data, dict):
        raise single("", "expected a mapping of keys (model, cluster, parallel, ...)",
                     type(data).__name__, str(path))
    return data


def scenario_from_dict(data: dict[str, Any]) -> Scenario:
    """Validate a scenario dict (presets resolved), raising InputError on any bad field."""
    data = dict(data)
    problems: list[FieldProblem] = []
    for key in ("precision", "workload"):  # names of formats and workloads, any case (FP8, BF16)
        if isinstance(data.get(key), str):
            data[key] = data[key].lower()
    inference = data.get("inference")
    if isinstance(inference, dict) and isinstance(inference.get("batch"), str) and inference["batch"].lower() == "auto":
        # a search space's word for the throughput-maximising batch: a scenario leaves it out
        data["inference"] = {k: v for k, v in inference.items() if k != "batch"}
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
                                     f"unknown GPU{did_you_mean(cluster['gpu'], 'gpu')}; allowed: "
                                     f"{', '.join(gpu_table())}"))
    prefill = inference.get("prefill") if isinstance(inference, dict) else None
    prefill_gpu = prefill.get("gpu") if isinstance(prefill, dict) else None
    if isinstance(prefill_gpu, str) and find_gpu(prefill_gpu) is None:
        problems.append(FieldProblem("inference.prefill.gpu", repr(prefill_gpu),
                                     f"unknown GPU{did_you_mean(prefill_gpu, 'gpu')}; allowed: "
                                     f"{', '.join(gpu_table())}"))
    if problems:
        raise InputError(problems)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as err:
        raise InputError(problems_from(err, Scenario, extra_keys=IGNORED_CASE_KEYS)) from None
    if isinstance(cluster, dict) and isinstance(cluster.get("gpu"), str):
        canonical = find_gpu(cluster["gpu"])
        scenario = scenario.model_copy(update={"cluster": scenario.cluster.model_copy(update={"gpu": canonical})})
    from .hardware import resolve_hardware

    resolve_hardware(scenario.cluster, scenario.precision)  # a precision the GPU lacks, ...
    pre = scenario.inference.prefill if scenario.inference is not None else None
    if pre is not None and pre.gpu is not None:
        canonical = find_gpu(pre.gpu)
        inference = scenario.inference.model_copy(update={"prefill": pre.model_copy(update={"gpu": canonical})})
        scenario = scenario.model_copy(update={"inference": inference})
        try:  # the prefill GPU runs the same precision
            resolve_hardware(ClusterSpec(gpu=canonical, num_gpus=1), scenario.precision)
        except InputError as err:
            raise InputError([FieldProblem("inference.prefill.gpu", repr(pre.gpu), p.message)
                              for p in err.problems]) from None
    return scenario


def _model_from_preset(name: str, field: str) -> dict[str, Any] | FieldProblem:
    if find_model(name) is None:
        return FieldProblem(field, repr(name), f"unknown model preset{did_you_mean(name, 'model')}; allowed: "
                                               f"{', '.join(model_table())}")
    return model_preset(name)
