"""Shipped presets: GPUs (``data/gpus.yaml``), models (``data/models.yaml``) and the per-family
calibration (``data/calibration.yaml``). Names match case-insensitively, by id or alias."""

from __future__ import annotations

import copy
from functools import cache
from importlib.resources import files
from typing import Any

import yaml


def _load(name: str) -> dict[str, Any]:
    text = (files("dse") / "data" / name).read_text(encoding="utf-8")
    return yaml.safe_load(text)


def _key(name: str) -> str:
    # case-insensitive only: some presets differ just in '-', '_' or spaces (GPT3_175B is
    # MAD-Max's model, gpt3-175b NeMo's)
    return name.strip().lower()


@cache
def gpu_table() -> dict[str, dict[str, Any]]:
    """GPU presets keyed by canonical name."""
    return _load("gpus.yaml")


@cache
def model_table() -> dict[str, dict[str, Any]]:
    """Model presets keyed by preset id."""
    return _load("models.yaml")


@cache
def calibration_table() -> dict[str, dict[str, Any]]:
    """Calibration (efficiencies, latencies) keyed by GPU family."""
    return _load("calibration.yaml")


@cache
def _index(kind: str) -> dict[str, str]:
    table = gpu_table() if kind == "gpu" else model_table()
    index: dict[str, str] = {}
    for key, entry in table.items():
        for alias in [key, entry.get("name", key), *entry.get("aliases", [])]:
            index[_key(str(alias))] = key
    return index


def find_gpu(name: str) -> str | None:
    """Canonical GPU name for ``name`` (id or alias, any case), or None."""
    return _index("gpu").get(_key(name))


def gpu_code(name: str) -> int:
    """A GPU preset's code in rows of results: 1 + its place in the GPU preset table (0 for a
    name that is not a preset). :func:`gpu_name` turns it back."""
    canonical = find_gpu(name)
    return 0 if canonical is None else list(gpu_table()).index(canonical) + 1


def gpu_name(code: float) -> str | None:
    """The GPU preset of a code (:func:`gpu_code`; a search's second listing of one preset adds
    1000, :data:`dse.search.space.GPU_REPEAT`); None for 0 or a code of no preset."""
    i = int(round(float(code))) % 1000
    names = list(gpu_table())
    return names[i - 1] if 1 <= i <= len(names) else None


def prefill_gpu_code(name: str | None, cluster_gpu: str) -> int:
    """The code a row of results gives the GPU of a deployment's prefill instances: 0 for the
    cluster's own (or none named), else its :func:`gpu_code` (:func:`prefill_gpu_name` turns it
    back)."""
    canonical = find_gpu(name) if name else None
    if canonical is None or canonical == find_gpu(cluster_gpu):
        return 0
    return gpu_code(canonical)


def prefill_gpu_name(code: float) -> str | None:
    """The GPU preset of a prefill GPU code (:func:`prefill_gpu_code`); None for 0, the cluster's."""
    return gpu_name(code)


def find_model(name: str) -> str | None:
    """Model preset id for ``name`` (id or alias, any case), or None."""
    return _index("model").get(_key(name))


def closest_names(name: str, kind: str, n: int = 3) -> list[str]:
    """Up to ``n`` preset ids (``kind`` "gpu" or "model") whose ids or aliases look like
    ``name``, most alike first: the "did you mean" of an unknown name."""
    import difflib

    index = _index(kind)
    found = difflib.get_close_matches(_key(name), list(index), n=4 * n, cutoff=0.6)
    return list(dict.fromkeys(index[k] for k in found))[:n]


def did_you_mean(name: str, kind: str) -> str:
    """' (did you mean a or b?)' for the presets (``kind`` "gpu" or "model") that look like
    ``name``, or '': the hint of an unknown-preset error."""
    near = closest_names(name, kind)
    return f" (did you mean {' or '.join(near)}?)" if near else ""


def gpu_calibration(name: str) -> dict[str, Any]:
    """The calibration of one GPU: its family's (calibration.yaml), updated by what this GPU
    measures apart from its family (its gpus.yaml ``efficiency``). Raises KeyError for an
    unknown name."""
    preset = gpu_preset(name)
    return {**calibration_table()[preset["family"]], **(preset.get("efficiency") or {})}


def gpu_preset(name: str) -> dict[str, Any]:
    """The GPU preset entry (raises KeyError for an unknown name)."""
    key = find_gpu(name)
    if key is None:
        raise KeyError(name)
    return {"name": key, **copy.deepcopy(gpu_table()[key])}


def model_preset(name: str) -> dict[str, Any]:
    """The model preset as a ``ModelSpec`` dict (raises KeyError for an unknown name)."""
    key = find_model(name)
    if key is None:
        raise KeyError(name)
    entry = copy.deepcopy(model_table()[key])
    entry.pop("aliases", None)
    entry.pop("source", None)
    return entry
