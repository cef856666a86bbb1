"""Compare the cost model with published measurements (validation cases).

A validation case is one JSON object a line: a complete scenario plus ``target: {metric, value}``
(format: ``../shared/validation/README.md``; DLRM/ViT cases: ``DLRM_VIT.md``). Every case ends in
exactly one status, none is dropped:

* ``ok``: predicted by the model; ``error`` = (predicted - measured) / measured (signed fraction),
  ``feasible`` says whether the model thinks the run fits (a case that really ran but is predicted
  infeasible still gets its prediction and is counted in ``infeasible``);
* ``skipped``: a kind of run the model does not cover yet, with the reason;
* ``error``: the case does not validate as a scenario; ``reason`` holds the InputError message.

An ``online`` serving case with neither a batch nor a concurrency is served at the offered
request rate its notes state (:func:`offered_rate`; ``reason`` says so).

A case whose own ``notes`` flag it ``OUTLIER`` (its source measured far below the same hardware
elsewhere, e.g. an input-bound MLPerf submission) is predicted and counted like any other, and
also marked ``flagged``: the summary's ``unflagged`` block gives the error figures without them.

Before a case is scored, the software settings of its source (``dse/data/software.yaml``: which
kernels and overlaps the framework of that paper used) are merged in by
:func:`dse.sources.apply_software`; settings the case states itself win. All ``ok`` cases are
scored in one vectorized :func:`dse.evaluate` call.

>>> from dse.validate import validate_cases
>>> cases, summary = validate_cases(["../shared/validation/llm.jsonl"])
>>> summary["overall"]["mape_pct"]
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError, single
from .scenario import load_jsonl, scenario_from_dict
from .sources import apply_software
from .workloads import supported

#: target.metric of a case -> the column of :func:`dse.evaluate` that predicts it.
METRICS: dict[str, str] = {
    "iter_time_s": "iteration_time_s",
    "tokens_per_s_per_gpu": "tokens_per_s_per_gpu",
    "tokens_per_s": "tokens_per_s",
    "model_tflops_per_gpu": "model_tflops_per_gpu",
    "hardware_tflops_per_gpu": "hardware_tflops_per_gpu",
    "mfu": "mfu",
    "hfu": "hfu",
    "samples_per_s": "samples_per_s",
    "step_time_s": "iteration_time_s",
    "tflops_per_gpu": "model_tflops_per_gpu",
    "ttft_ms": "ttft_ms",
    "itl_ms": "itl_ms",
    "requests_per_s": "requests_per_s",
    "input_tokens_per_s": "input_tokens_per_s",
    "input_tokens_per_s_per_gpu": "input_tokens_per_s_per_gpu",
    "power_per_gpu_w": "power_per_gpu_w",
    "memory_per_gpu_gib": "memory_per_gpu_bytes",
}

#: metrics whose column is in other units: measured = column x scale (GiB = 2^30 bytes)
METRIC_SCALE: dict[str, float] = {"memory_per_gpu_gib": 2.0**-30}
#: the most memory one GPU plausibly has, GiB: a larger memory_per_gpu_gib is a unit mistake
MAX_MEMORY_GIB = 4096

#: The target metrics each kind of run predicts.
KIND_METRICS: dict[str, tuple[str, ...]] = {
    "llm_train": ("iter_time_s", "tokens_per_s_per_gpu", "tokens_per_s", "model_tflops_per_gpu",
                  "hardware_tflops_per_gpu", "mfu", "hfu", "samples_per_s", "power_per_gpu_w",
                  "memory_per_gpu_gib"),
    "llm_inference": ("tokens_per_s", "tokens_per_s_per_gpu", "ttft_ms", "itl_ms", "requests_per_s",
                      "input_tokens_per_s", "input_tokens_per_s_per_gpu", "power_per_gpu_w"),
    "dlrm_train": ("samples_per_s", "step_time_s", "power_per_gpu_w"),
    "vit_train": ("tflops_per_gpu", "mfu", "samples_per_s", "step_time_s", "power_per_gpu_w"),
}

SKIP_REASONS = {
    "llm_inference": "inference (prefill/decode) is not modelled yet",
    "dlrm_train": "DLRM is not modelled yet",
    "vit_train": "ViT is not modelled yet",
}

#: Columns of the cases DataFrame, in order.
CASE_COLUMNS = (
    "file", "line", "id", "source", "reliability", "workload", "gpu", "precision", "family", "model", "metric",
    "column", "measured", "predicted",
    "error", "abs_pct_error", "feasible", "infeasible_reason", "status", "reason", "flagged",
)

#: The word in a case's ``notes`` by which its data set flags it as an outlier.
OUTLIER_FLAG = "OUTLIER"

def validate_cases(
    paths: str | Path | Iterable[str | Path], source: str | None = None, by: Iterable[str] = ()
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Predict every case of the JSON-lines ``paths`` and compare with its measured figure.

    ``source``: keep only cases whose ``source`` contains this substring (case-insensitive);
    ``by``: also summarize per value of these case fields (:data:`GROUP_FIELDS`).
    Returns ``(cases, summary)``: one row per case (columns :data:`CASE_COLUMNS`) and the
    summary of :func:`summarize`. Raises :class:`dse.errors.InputError` for a file that cannot
    be read or a line that is not a JSON object; a case that is not a valid scenario is reported
    with status ``error`` instead.
    """
    if isinstance(paths, (str, Path)):
        paths = [paths]
    rows: list[dict[str, Any]] = []
    scenarios = []  # (row index, Scenario) of the cases to evaluate
    for path in paths:
        for line, obj in load_jsonl(path):
            if source is not None and source.lower() not in str(obj.get("source", "")).lower():
                continue
            row, scenario = _classify(obj, f"{path}:{line}")
            row.update(file=str(path), line=line)
            if scenario is not None:
                scenarios.append((len(rows), scenario))
            rows.append(row)

    cases = pd.DataFrame(rows, columns=list(CASE_COLUMNS))
    cases = cases.astype({"measured": "float64", "predicted": "float64", "error": "float64",
                          "abs_pct_error": "float64", "line": "int64"})
    if scenarios:
        _predict(cases, scenarios)
    return cases, summarize(cases, by)


def _classify(obj: dict[str, Any], where: str) -> tuple[dict[str, Any], Any]:
    """The case's row (status decided unless it is to be evaluated) and its Scenario or None."""
    target = obj.get("target")
    metric = target.get("metric") if isinstance(target, dict) else None
    value = target.get("value") if isinstance(target, dict) else None
    measured = float(value) if _is_number(value) else math.nan
    row: dict[str, Any] = {
        "id": str(obj.get("id", "")),
        "source": str(obj.get("source", "")),
        "reliability": str(obj.get("reliability", "")),
        "workload": str(obj.get("workload", "")),
        "gpu": str((obj.get("cluster") or {}).get("gpu", "")) if isinstance(obj.get("cluster"), dict) else "",
        "precision": str(obj.get("precision", "")),
        "family": str(obj["model"].get("family", "")) if isinstance(obj.get("model"), dict) else str(obj.get("model", "")),
        "model": str(obj["model"].get("name", "")) if isinstance(obj.get("model"), dict) else str(obj.get("model", "")),
        "metric": "" if metric is None else str(metric),
        "column": METRICS.get(metric, "") if isinstance(metric, str) else "",
        "measured": measured,
        "predicted": math.nan,
        "error": math.nan,
        "abs_pct_error": math.nan,
        "feasible": None,
        "infeasible_reason": "",
        "status": "skipped",
        "reason": "",
        "flagged": OUTLIER_FLAG in str(obj.get("notes", "")),
    }
    label = f"{where} ({row['id']})" if row["id"] else where
    kind = _kind(obj)
    if not supported(kind):
        row["reason"] = SKIP_REASONS.get(kind, f"'{kind}' is not modelled yet")
        return row, None
    if not isinstance(target, dict) or not isinstance(metric, str):
        return _error(row, single("target", "must be {metric, value}", target, label).render()), None
    allowed = KIND_METRICS.get(kind, tuple(METRICS))
    if metric not in allowed:
        row["reason"] = f"metric '{metric}' is not predicted for {kind}; predicted metrics: {', '.join(allowed)}"
        return row, None
    if not (math.isfinite(measured) and measured > 0):
        return _error(row, single("target.value", "must be a positive number", value, label).render()), None
    if metric == "memory_per_gpu_gib" and measured > MAX_MEMORY_GIB:
        return _error(row, single("target.value", f"memory_per_gpu_gib is in GiB (2^30 bytes): at most "
                                  f"{MAX_MEMORY_GIB:,} (is it in bytes? {measured / 2**30:.4g} GiB)",
                                  value, label).render()), None
    rate = offered_rate(obj)
    if rate is not None:  # an online case states its offered load in the notes
        obj = {**obj, "inference": {**obj["inference"], "request_rate": rate}}
        row["reason"] = f"request_rate {rate:g} req/s read from the notes"
    queued = queued_requests(obj)
    if queued is not None:  # an offline case states its request count in the notes
        obj = {**obj, "inference": {**obj["inference"], "num_requests": queued}}
        row["reason"] = f"num_requests {queued} read from the notes"
    try:
        scenario = scenario_from_dict(apply_software(obj))  # also checks the GPU has the precision
    except InputError as err:
        return _error(row, err.with_source(label).render()), None
    row["status"] = "ok"
    return row, scenario


def _predict(cases: pd.DataFrame, scenarios: list) -> None:
    """Fill predicted, error, feasible of the ok cases with one :func:`dse.evaluate` call."""
    from .api import evaluate

    index = [i for i, _ in scenarios]
    frame = evaluate([s for _, s in scenarios], explain=True)
    columns = cases.loc[index, "column"].to_numpy()
    scales = [METRIC_SCALE.get(m, 1.0) for m in cases.loc[index, "metric"]]
    predicted = np.array([frame[col].iat[k] * scales[k] for k, col in enumerate(columns)], dtype=np.float64)
    measured = cases.loc[index, "measured"].to_numpy(dtype=np.float64)
    error = (predicted - measured) / measured
    cases.loc[index, "predicted"] = predicted
    cases.loc[index, "error"] = error
    cases.loc[index, "abs_pct_error"] = np.abs(error) * 100.0
    cases.loc[index, "feasible"] = frame["feasible"].to_numpy(dtype=bool)
    cases.loc[index, "infeasible_reason"] = frame["infeasible_reason"].to_numpy(dtype=object)
    # a plan whose degrees do not multiply to the case's GPU count runs on other hardware than was
    # measured: no prediction (the case is wrong), not an error in the MAPE
    from .costmodel.training import DEGREES_PRODUCT

    kinds = frame["kind"].astype(str).to_numpy() if "kind" in frame else np.full(len(index), "")
    masks = frame["infeasible_mask"].fillna(0).astype(np.int64).to_numpy()
    unlaid = ~np.char.startswith(kinds.astype(str), "dlrm") & ((masks & DEGREES_PRODUCT) != 0)
    if unlaid.any():
        rows = np.asarray(index)[unlaid]
        cases.loc[rows, ["predicted", "error", "abs_pct_error"]] = math.nan
        cases.loc[rows, "status"] = "error"
        cases.loc[rows, "reason"] = [
            f"{cases.at[i, 'file']}:{cases.at[i, 'line']} ({cases.at[i, 'id']}): the plan cannot run on the case's "
            f"GPUs: {r}" for i, r in zip(rows, frame["infeasible_reason"].to_numpy()[unlaid])]
    bad = ~np.isfinite(predicted) & ~unlaid
    if bad.any():  # never report a NaN as a prediction
        rows = np.asarray(index)[bad]
        cases.loc[rows, ["predicted", "error", "abs_pct_error"]] = math.nan
        cases.loc[rows, "status"] = "error"
        cases.loc[rows, "reason"] = "the model returned a non-finite prediction (a bug: please report it)"


#: Case fields the summary can be grouped by (``dse validate --by``).
GROUP_FIELDS = ("source", "reliability", "gpu", "precision", "family", "model", "workload", "metric")


def summarize(cases: pd.DataFrame, by: Iterable[str] = ()) -> dict[str, Any]:
    """Error statistics per source and overall.

    Each block has: ``count`` (cases), ``evaluated`` (status ok), ``skipped``, ``errors``,
    ``infeasible`` (ok cases the model predicts infeasible, although they ran), and over the ok
    cases the absolute percentage error (APE = 100*|predicted - measured|/measured):
    ``mape_pct`` (its mean), ``median_ape_pct``, ``max_ape_pct`` (None when nothing was
    evaluated). ``skip_reasons`` counts the cases per skip reason. ``unflagged`` is the overall
    block without the cases their data set flags as outliers (``flagged``), ``flagged`` their count.
    ``by`` (fields of :data:`GROUP_FIELDS`) adds ``by: {fields, groups: {"value / value": block}}``.
    """
    by_source = {str(src): _block(group) for src, group in cases.groupby("source", sort=False)}
    skipped = cases[cases["status"] == "skipped"]
    flagged = cases["flagged"].fillna(False).astype(bool)
    by = list(by)
    unknown = [f for f in by if f not in GROUP_FIELDS]
    if unknown:
        raise single("--by", f"group by one or more of {', '.join(GROUP_FIELDS)}", ",".join(unknown), None)
    grouped = {}
    if by:
        for key, group in cases.groupby(by, sort=True):
            key = key if isinstance(key, tuple) else (key,)
            grouped[" / ".join(str(k) or "-" for k in key)] = _block(group)
    return {
        "overall": _block(cases),
        **({"by": {"fields": by, "groups": grouped}} if by else {}),
        "flagged": int(flagged.sum()),
        "unflagged": _block(cases[~flagged]),
        "by_source": by_source,
        "skip_reasons": {str(k): int(v) for k, v in skipped["reason"].value_counts(sort=True).items()},
    }


def _block(group: pd.DataFrame) -> dict[str, Any]:
    ok = group[group["status"] == "ok"]
    ape = ok["abs_pct_error"].to_numpy(dtype=np.float64)
    feasible = ok["feasible"].to_numpy()
    return {
        "count": int(len(group)),
        "evaluated": int(len(ok)),
        "skipped": int((group["status"] == "skipped").sum()),
        "errors": int((group["status"] == "error").sum()),
        "infeasible": int(sum(1 for f in feasible if f is not None and not bool(f))),
        "mape_pct": float(ape.mean()) if len(ape) else None,
        "median_ape_pct": float(np.median(ape)) if len(ape) else None,
        "max_ape_pct": float(ape.max()) if len(ape) else None,
    }


def cases_records(cases: pd.DataFrame) -> list[dict[str, Any]]:
    """The cases as JSON-ready dicts (NaN -> None, numpy scalars -> Python)."""
    out = []
    for row in cases.to_dict(orient="records"):
        rec = {}
        for key, value in row.items():
            if isinstance(value, (np.generic,)):
                value = value.item()
            if isinstance(value, float) and not math.isfinite(value):
                value = None
            rec[key] = value
        rec["feasible"] = None if rec["feasible"] is None else bool(rec["feasible"])
        rec["infeasible_reason"] = rec["infeasible_reason"] or None
        out.append(rec)
    return out


#: A request rate in free text: a number and a unit of requests per second.
_RATE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:req(?:uest)?s?\s*/\s*s(?:ec)?|requests?\s+per\s+second|rps|qps)\b",
                   re.IGNORECASE)


def offered_rate(obj: dict[str, Any]) -> float | None:
    """The offered request rate (requests/s) of an ``online`` serving case whose inference block
    states neither a batch, a concurrency nor a rate: the validation format puts it in ``notes``
    ("offered request rate ... 10 req/s"). None when the notes name no rate or several
    different ones (ambiguous: the case is then predicted as an offline engine)."""
    inference = obj.get("inference")
    if not isinstance(inference, dict) or inference.get("mode") != "online":
        return None
    if any(inference.get(k) is not None for k in ("batch", "concurrency", "request_rate")):
        return None
    rates = {float(m.group(1)) for m in _RATE.finditer(str(obj.get("notes", "")))}
    rates.discard(0.0)
    return rates.pop() if len(rates) == 1 else None


#: An offline run's request count in free text: trtllm-bench's "all N requests queued".
_QUEUED = re.compile(r"\ball\s+(\d[\d,]*)\s+requests\s+queued\b", re.IGNORECASE)


def queued_requests(obj: dict[str, Any]) -> int | None:
    """The request count of an ``offline_max_throughput`` case whose inference block states none
    (``num_requests``), from its ``notes`` ("all 3000 requests queued", as the TensorRT-LLM cases
    write it): a finite run drains its last wave at a smaller batch. None when the notes name no
    count or several different ones (the case is then predicted at the steady state)."""
    inference = obj.get("inference")
    if not isinstance(inference, dict) or inference.get("mode", "offline_max_throughput") != "offline_max_throughput":
        return None
    if inference.get("num_requests") is not None or inference.get("phase", "both") != "both":
        return None
    if any(inference.get(k) is not None for k in ("concurrency", "request_rate")):
        return None
    counts = {int(m.group(1).replace(",", "")) for m in _QUEUED.finditer(str(obj.get("notes", "")))}
    counts.discard(0)
    return counts.pop() if len(counts) == 1 else None


def _kind(obj: dict[str, Any]) -> str:
    """The kind of run a case is (as Scenario.kind), read from the raw case: malformed cases
    count as LLM training so that scenario validation reports what is wrong with them."""
    model = obj.get("model")
    family = model.get("family") if isinstance(model, dict) else None
    family = family if family in ("dlrm", "vit") else "llm"
    task = "inference" if obj.get("workload") == "inference" else "train"
    return f"{family}_{task}"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _error(row: dict[str, Any], message: str) -> dict[str, Any]:
    row["status"] = "error"
    row["reason"] = message
    return row
