#!/usr/bin/env python3
"""Fit the DLRM calibration numbers of ``dse/data/calibration.yaml`` to published DLRM runs.

Four numbers per GPU family, the same for every DLRM case of the family:

* ``dlrm_gather``: fraction of HBM bandwidth the embedding gathers and row updates reach
  (random rows of a few hundred bytes);
* ``dlrm_op_latency_us``: fixed time per kernel (launch gap, ramp-up and tail of a small
  kernel); a step runs about 4 kernels per dense layer plus ~20 for embeddings, interaction,
  loss and optimizer;
* ``dlrm_step_overhead_us``: fixed time per step (synchronisation, input pipeline hand-off);
* ``dlrm_popularity_zipf``: the Zipf exponent of category popularity from which HugeCTR's hybrid
  embedding picks its frequent (replicated) categories (only the MLPerf v1 runs use it).

Everything else (GEMM efficiency and depth, HBM streaming efficiency, network efficiencies and
latencies, overlap slowdown) is the LLM calibration of the family. The loss is the mean over
sources of each source's mean absolute percentage error, each case capped at 50%; the two runs
flagged OUTLIER in their notes are left out of the fit and reported apart. Families with few
runs take the best-measured family's numbers (hopper: ampere's).

    python scripts/calibrate_dlrm.py [../shared/validation/dlrm_vit.jsonl] [--write] [--cv] [--madmax]

``--cv`` adds a leave-one-source-out check (fit without the source, predict it); ``--madmax``
prints the DLRM-A on ZionEX-128 comparison with MAD-Max (docs/dlrm_madmax_comparison.md).
Every grid point is scored in one vectorized call per model (grid x cases x shardings rows);
the two latency terms are added to the scored step times analytically.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dse.costmodel import dlrm as cm  # noqa: E402
from dse.hardware import resolve_hardware  # noqa: E402
from dse.presets import calibration_table  # noqa: E402
from dse.scenario import load_jsonl, scenario_from_dict  # noqa: E402
from dse.sources import apply_software  # noqa: E402
from dse.workloads import dlrm as wl  # noqa: E402

CAP = 0.5
GRID = {
    "eff_gather": np.round(np.arange(0.40, 0.851, 0.05), 2),
    "popularity_zipf": np.round(np.arange(0.8, 1.41, 0.05), 2),
    "eff_matmul": np.round(np.arange(0.55, 0.951, 0.05), 2),  # 16-bit DLRM GEMMs; only where the LLM figure is not fitted
}
#: Families whose LLM matmul efficiency was not fitted (calibration.yaml says so): the DLRM fit
#: sets their 16-bit DLRM GEMM efficiency (dlrm_matmul); the others keep the LLM figure.
FIT_MATMUL = ("volta",)
#: Prior for the gather efficiency where the runs cannot tell it (random rows of 256-512 bytes
#: lose about a third of the streaming bandwidth to DRAM row misses and TLB misses).
GATHER_PRIOR = 0.6
#: The prior wins unless the best fit is better by more than this (loss, fraction).
GATHER_PRIOR_TOLERANCE = 0.005
OP_LATENCY_US = np.arange(0.0, 10.01, 0.5)
STEP_OVERHEAD_US = np.arange(0.0, 400.1, 10.0)
KEYS = {"eff_gather": "dlrm_gather", "op_latency": "dlrm_op_latency_us",
        "step_overhead": "dlrm_step_overhead_us", "popularity_zipf": "dlrm_popularity_zipf", "eff_matmul": "dlrm_matmul"}
#: Families with fewer fit cases take the best-measured family's numbers.
MIN_CASES = 8


def source_group(source: str) -> str:
    """A short source name: 'MLPerf v1.0' ..., 'DLE TF2 DLRM (DGX A100)', 'DLE TF2 DCNv2'."""
    m = re.match(r"MLPerf Training (v\d\.\d)", source)
    if m:
        return f"MLPerf {m.group(1)}"
    if "DCNv2.md" in source:
        return "DLE TF2 DCNv2"
    if "DLRM.md" in source:
        table = re.search(r"Training performance: NVIDIA ([^(']+)", source)
        return f"DLE TF2 DLRM ({table.group(1).strip()})" if table else "DLE TF2 DLRM"
    return source[:40]


def load_cases(path: Path) -> tuple[pd.DataFrame, dict]:
    """One row per (case, candidate sharding) with its cost-model columns; the models by key."""
    rows, models = [], {}
    for _, case in load_jsonl(path):
        if (case.get("model") or {}).get("family") != "dlrm" or case.get("workload") == "inference":
            continue
        s = scenario_from_dict(apply_software(case))
        hw = resolve_hardware(s.cluster, s.precision)
        key = wl._model_key(s.model)
        models.setdefault(key, wl.model_constants(s.model))
        for shard in wl._candidates(s):
            col = wl.scenario_columns(s, shard)
            col.update(case_id=case["id"], family=hw.family, source=case["source"],
                       group=source_group(case["source"]), outlier="OUTLIER" in (case.get("notes") or ""),
                       metric=case["target"]["metric"], measured=float(case["target"]["value"]),
                       model_key=key, sharding=shard)
            rows.append(col)
    return pd.DataFrame(rows), models


def score_grid(cases: pd.DataFrame, models: dict, grid: np.ndarray) -> tuple[np.ndarray, ...]:
    """Step time without the two latency terms, kernels, feasibility: (grid points x rows)."""
    g, n = len(grid), len(cases)
    base, kernels, feasible = np.empty((g, n)), np.empty((g, n)), np.empty((g, n))
    for key, model in models.items():
        idx = np.flatnonzero(cases["model_key"].to_numpy() == key)
        sub = cases.iloc[idx]
        batch = {c: np.tile(sub[c].to_numpy(float), g) for c in cm.COLUMNS if c in sub}
        for j, name in enumerate(GRID):
            value = np.repeat(grid[:, j], len(idx))
            if name == "eff_matmul":  # a NaN point keeps the case's own (LLM) figure
                own = batch["eff_matmul"]
                value = np.where(np.isnan(value) | (np.tile(sub["act_bytes"].to_numpy(float), g) > 2), own, value)
            batch[name] = value
        batch["op_latency"] = 0.0
        batch["step_overhead"] = 0.0
        out = cm.evaluate_dlrm(model, batch)
        base[:, idx] = out["iteration_time_s"].reshape(g, len(idx))
        kernels[:, idx] = out["kernels"].reshape(g, len(idx))
        feasible[:, idx] = out["feasible"].reshape(g, len(idx))
    return base, kernels, feasible


def predict(cases: pd.DataFrame, step: np.ndarray, feasible: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per case (owner): the best candidate's predicted metric. step/feasible: (... x rows).
    Returns (predicted (... x cases), index of the chosen row per case)."""
    owner = pd.factorize(cases["case_id"])[0]
    n_cases = owner.max() + 1
    key = np.where(feasible > 0, step, step + 1e6)  # feasible first, then the shortest step
    best = np.full(key.shape[:-1] + (n_cases,), np.inf)
    choice = np.zeros(key.shape[:-1] + (n_cases,), dtype=np.int64)
    for r in range(key.shape[-1]):
        o = owner[r]
        better = key[..., r] < best[..., o]
        best[..., o] = np.where(better, key[..., r], best[..., o])
        choice[..., o] = np.where(better, r, choice[..., o])
    first = cases.groupby(owner).head(1)
    chosen_step = np.take_along_axis(step, choice, axis=-1)
    B = first["global_batch"].to_numpy(float)
    metric = first["metric"].to_numpy()
    pred = np.where(metric == "samples_per_s", B / chosen_step, chosen_step)
    return pred, choice


def case_table(cases: pd.DataFrame) -> pd.DataFrame:
    return cases.groupby(pd.factorize(cases["case_id"])[0]).head(1).reset_index(drop=True)


def loss_of(err: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Mean over sources of the capped MAPE; err: (... x cases) signed fractions."""
    ape = np.minimum(np.abs(err), CAP)
    return np.mean([ape[..., groups == gname].mean(axis=-1) for gname in np.unique(groups)], axis=0)


def fit(cases: pd.DataFrame, models: dict, fit_mask: np.ndarray, fixed: dict | None = None):
    """Grid search; ``fit_mask`` selects the cases (per case, in case order) the loss counts."""
    axes = [np.array([fixed[k]], dtype=float) if fixed and k in fixed else v for k, v in GRID.items()]
    grid = np.array(list(itertools.product(*axes)))
    base, kernels, feasible = score_grid(cases, models, grid)
    table = case_table(cases)
    measured = table["measured"].to_numpy()
    groups = table["group"].to_numpy()[fit_mask]
    ops = np.array([fixed["op_latency"]]) if fixed and "op_latency" in fixed else OP_LATENCY_US * 1e-6
    ovs = np.array([fixed["step_overhead"]]) if fixed and "step_overhead" in fixed else STEP_OVERHEAD_US * 1e-6
    best = (np.inf, None)
    prior = (np.inf, None)
    at_prior = np.isclose(grid[:, list(GRID).index("eff_gather")], GATHER_PRIOR)
    for op in ops:
        for ov in ovs:
            step = base + op * kernels + ov
            pred, _ = predict(cases, step, feasible)
            err = (pred - measured) / measured
            loss = loss_of(err[:, fit_mask], groups)
            j = int(np.argmin(loss))
            if loss[j] < best[0]:
                best = (float(loss[j]), {**dict(zip(GRID, grid[j])), "op_latency": op, "step_overhead": ov})
            if at_prior.any():
                jp = int(np.flatnonzero(at_prior)[np.argmin(loss[at_prior])])
                if loss[jp] < prior[0]:
                    prior = (float(loss[jp]), {**dict(zip(GRID, grid[jp])), "op_latency": op, "step_overhead": ov})
    if prior[1] is not None and prior[0] <= best[0] + GATHER_PRIOR_TOLERANCE:
        return prior[1], prior[0]  # the runs cannot tell the gather efficiency: keep the prior
    return best[1], best[0]


def evaluate_with(cases: pd.DataFrame, models: dict, params_by_family: dict) -> pd.DataFrame:
    """Predictions per case with each family's parameters."""
    cases = cases.copy()
    for fam, params in params_by_family.items():
        sel = cases["family"] == fam
        for k, v in params.items():
            if k == "eff_matmul":  # 16-bit GEMMs only, and only a fitted figure
                if np.isnan(v):
                    continue
                sel = sel & (cases["act_bytes"] <= 2)
            cases.loc[sel, k] = v
    step = np.empty(len(cases))
    feas = np.empty(len(cases))
    extra = {}
    for key, model in models.items():
        idx = np.flatnonzero(cases["model_key"].to_numpy() == key)
        sub = cases.iloc[idx]
        out = cm.evaluate_dlrm(model, {c: sub[c].to_numpy(float) for c in cm.COLUMNS if c in sub})
        step[idx] = out["iteration_time_s"]
        feas[idx] = out["feasible"]
        for k in ("emb_frequent_fraction",):
            extra.setdefault(k, np.zeros(len(cases)))[idx] = out[k]
    pred, choice = predict(cases, step, feas)
    table = case_table(cases)
    table["predicted"] = pred
    table["error"] = (pred - table["measured"]) / table["measured"]
    table["chosen"] = cases["sharding"].to_numpy()[choice]
    table["frequent_fraction"] = extra["emb_frequent_fraction"][choice]
    return table


def report(table: pd.DataFrame, title: str) -> None:
    print(f"\n{title}")
    print(f"  {'source':34s} {'cases':>5s} {'MAPE':>7s} {'median':>7s} {'max':>7s}   (excluding OUTLIER rows: n, MAPE)")
    for name, grp in list(table.groupby("group", sort=False)) + [("all DLRM cases", table)]:
        ape = grp["error"].abs() * 100
        clean = grp[~grp["outlier"]]["error"].abs() * 100
        print(f"  {name:34s} {len(grp):5d} {ape.mean():6.1f}% {ape.median():6.1f}% {ape.max():6.1f}%"
              f"   {len(clean):3d} {clean.mean():6.1f}%")
    for _, r in table[table["outlier"]].iterrows():
        print(f"  OUTLIER (flagged in its notes, not fitted): {r['case_id']}: {100 * r['error']:+.1f}%")


def write_calibration(params_by_family: dict, fitted: dict) -> Path:
    """Set (or add) the dlrm_* keys of each family block of calibration.yaml; other lines stay."""
    path = ROOT / "dse/data/calibration.yaml"
    lines = path.read_text().splitlines()
    out, family = [], None

    def block(fam):
        p = params_by_family[fam]
        note = "  # fitted" if fitted.get(fam) else f"  # not fitted: {fitted.get(fam + '_from', 'ampere')}'s"
        gnote = note
        if fitted.get(fam) and np.isclose(p["eff_gather"], GATHER_PRIOR):
            gnote = "  # prior: these runs cannot tell it (see above)"
        lines = [f"  dlrm_gather: {p['eff_gather']:g}{gnote}",
                 f"  dlrm_op_latency_us: {p['op_latency'] * 1e6:g}{note}",
                 f"  dlrm_step_overhead_us: {p['step_overhead'] * 1e6:g}{note}",
                 f"  dlrm_popularity_zipf: {p['popularity_zipf']:g}{note}"]
        if fitted.get(fam) and not np.isnan(p.get("eff_matmul", np.nan)):
            lines.append(f"  dlrm_matmul: {p['eff_matmul']:g}  # fitted (16-bit DLRM GEMMs; the LLM figure is not fitted)")
        return lines

    for line in lines:
        if line and not line.startswith((" ", "#")) and line.rstrip().endswith(":"):
            if family in params_by_family:
                out.extend(block(family))
            family = line.rstrip()[:-1]
            out.append(line)
            continue
        if family in params_by_family and line.strip().startswith("dlrm_"):
            continue  # replaced by the block at the end of the family
        out.append(line)
    if family in params_by_family:
        out.extend(block(family))
    path.write_text("\n".join(out) + "\n")
    return path


#: MAD-Max's DLRM-A on ZionEX-128, task dlrm_train_val_128 (../shared/madmax/*.csv): its own
#: per-component totals, recomputed from its formulas (tasks/dlrm_tasks.py of the MAD-Max
#: artifact): GEMM = FLOPs / (156 TF x 0.705), EMB = lookup bytes / (1555 GB/s x 0.836) forward
#: and again backward, all-to-all = 2 x (per-device lookup bytes / 128) / 7 GB/s each pass,
#: all-reduce = 20 layers x 63.8 MB / 60.0 GB/s; one iteration 54.0 ms, 1.21 M samples/s.
MADMAX = {"gemm_ms": 8.91, "emb_f_ms": 4.55, "emb_b_ms": 4.55, "a2a_ms": 26.40, "ar_ms": 21.27,
          "iteration_ms": 54.0, "samples_per_s": 1.21e6, "a2a_mb_per_pass": 46.2, "gather_gb": 5.91}

#: The dse scenario of DLRM-A on ZionEX-128 (a validation-case-like dict): MAD-Max's models.csv
#: row DLRM_A (20 MLP layers of 3994 x 3994, 4096 tables of 2.08M rows x 94, pooling 15; 4-byte
#: dense parameters -> the FP32/TF32 rate, 2-byte embeddings), systems.csv ZionEX-128 (16 nodes of
#: 8 A100-40GB; 12 NVLinks x 50 GB/s x 0.6667; 8 ports x 25 GB/s x 0.56 per node; flops_util
#: 0.705; mem_bw_util 0.836) and tasks.csv dlrm_train_val_128 (MLPs data parallel over 128,
#: embeddings model parallel over 128, 512 samples per GPU, global batch 65,536).
#: The run as a dse scenario (MAD-Max's utilisations as efficiencies, its effective links), the
#: shipped scenario file, so `dse evaluate` / `dse whatif` run the same thing.
MADMAX_SCENARIO_FILE = ROOT / "scenarios" / "dlrm_a_zionex128.yaml"
MADMAX_SCENARIO = yaml.safe_load(MADMAX_SCENARIO_FILE.read_text())


def madmax_columns() -> tuple[dict, dict]:
    """Model constants and cost-model columns of :data:`MADMAX_SCENARIO`, as dse evaluates it
    (MAD-Max's DLRM has no interaction: ``concat``; its gathers at its mem_bw_util)."""
    s = scenario_from_dict(MADMAX_SCENARIO)
    return wl.model_constants(s.model), wl.scenario_columns(s)


def _eval_one(model, cols, **over) -> dict[str, float]:
    batch = {k: np.array([v]) for k, v in {**cols, **over}.items()}
    return {k: float(v[0]) for k, v in cm.evaluate_dlrm(model, batch).items()}


def madmax_rows() -> tuple[list[tuple[str, str, str]], list[tuple[str, float]], dict]:
    """The comparison table (component, MAD-Max, dse) and the ablation ladder from dse to MAD-Max."""
    model, cols = madmax_columns()
    o = _eval_one(model, cols)
    ms = lambda x: f"{1e3 * x:.2f}"  # noqa: E731
    mm = MADMAX
    table = [
        ("MLP GEMMs, forward + backward", f"{mm['gemm_ms']:.2f}", ms(o["time_mlp_s"])),
        ("interaction (concatenation of the pooled vectors)", "0.00", ms(o["time_interaction_s"])),
        ("embedding lookup (forward)", f"{mm['emb_f_ms']:.2f}", ms(o["time_embedding_fwd_s"])),
        ("embedding backward (sparse SGD update)", f"{mm['emb_b_ms']:.2f}", ms(o["time_embedding_bwd_s"])),
        ("pooled all-to-all, forward + backward", f"{mm['a2a_ms']:.2f}", ms(o["a2a_s"])),
        ("  of which exposed", "-", ms(o["exposed_a2a_s"])),
        ("  of which overlapped", "-", ms(o["overlapped_a2a_s"])),
        ("MLP gradient all-reduce", f"{mm['ar_ms']:.2f}", ms(o["dp_allreduce_s"])),
        ("  of which exposed", "-", ms(o["exposed_dp_s"])),
        ("  of which overlapped", "-", ms(o["overlapped_dp_s"])),
        ("kernel and step overheads", "0.00", ms(o["time_overhead_s"])),
        ("compute slowdown under overlapped communication", "0.00", ms(o["time_overlap_slowdown_s"])),
        ("exposed communication", "36.0", ms(o["exposed_comm_s"])),
        ("iteration", f"{mm['iteration_ms']:.1f}", ms(o["iteration_time_s"])),
        ("samples/s", "1.21 M", f"{o['samples_per_s'] / 1e6:.3f} M"),
        ("all-to-all bytes per GPU per pass", f"{mm['a2a_mb_per_pass']:.1f} MB", f"{o['emb_a2a_bytes_per_gpu'] / 1e6:.0f} MB"),
        ("embedding bytes gathered per GPU", f"{mm['gather_gb']:.2f} GB", f"{o['emb_gather_bytes_per_gpu'] / 1e9:.2f} GB"),
        ("memory per GPU", "13.8 GB (weights only)", f"{o['memory_per_gpu_bytes'] / 1e9:.1f} GB of 40"),
    ]
    # ablation ladder: switch dse's extra physics off one at a time (cumulative)
    steps = [("dse as is", o["iteration_time_s"])]
    cur = dict(cols)
    for label, over in [
        ("without latency terms (network alpha, per-kernel and per-step times)",
         dict(nvlink_latency=0.0, scaleout_latency=0.0, op_latency=0.0, step_overhead=0.0)),
        ("... and without the compute slowdown under overlapped communication", dict(overlap_slowdown=0.0)),
        ("... and without the GEMM depth term (K_half = 0)", dict(matmul_k_half=0.0)),
    ]:
        cur.update(over)
        steps.append((label, _eval_one(model, cur)["iteration_time_s"]))
    # MAD-Max's communication accounting inside dse's schedule: each all-to-all pass takes
    # 2 x (per-device lookup bytes / 128) / 7 GB/s, each all-reduce bytes / 60 GB/s
    a2a_pass = 2.0 * (4096 / 128 * 65536 * 15 * 94 * 2) / 128 / 7e9
    real = (cm.coll.all_to_all_time, cm.coll.allreduce_time)
    try:
        cm.coll.all_to_all_time = lambda size, n, stride, net: np.where((np.asarray(n) > 1) & (size > 0), a2a_pass, 0.0)
        cm.coll.allreduce_time = lambda size, n, stride, net: size / 60.0e9
        with_mm = _eval_one(model, cols)["iteration_time_s"]
        steps.append(("dse with MAD-Max's all-to-all bytes and all-reduce bandwidth", with_mm))
        steps.append(("... and without the compute slowdown under overlapped communication",
                      _eval_one(model, cols, overlap_slowdown=0.0)["iteration_time_s"]))
    finally:
        cm.coll.all_to_all_time, cm.coll.allreduce_time = real
    return table, steps, o


def madmax_comparison() -> None:
    """Print the DLRM-A / ZionEX-128 table and the ladder from dse to MAD-Max."""
    table, steps, _ = madmax_rows()
    print("\nDLRM-A on ZionEX-128 (dlrm_train_val_128), per iteration: MAD-Max vs dse")
    print(f"  {'component':52s} {'MAD-Max':>22s} {'dse':>16s}")
    for name, mm, d in table:
        print(f"  {name:52s} {mm:>22s} {d:>16s}")
    print("\nfrom dse's prediction towards MAD-Max's accounting (iteration, ms):")
    for label, t in steps:
        print(f"  {label:80s} {1e3 * t:9.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("jsonl", nargs="?", default=str(ROOT.parent / "shared/validation/dlrm_vit.jsonl"))
    parser.add_argument("--write", action="store_true", help="write the fit into dse/data/calibration.yaml")
    parser.add_argument("--cv", action="store_true", help="leave-one-source-out check")
    parser.add_argument("--madmax", action="store_true", help="print the DLRM-A / ZionEX-128 comparison")
    args = parser.parse_args()
    if args.madmax:
        madmax_comparison()
        return
    cases, models = load_cases(Path(args.jsonl))
    table = case_table(cases)
    families = table["family"].value_counts()
    print(f"{len(table)} DLRM training cases ({len(cases)} scored rows with the candidate shardings): "
          + ", ".join(f"{f} {k}" for f, k in families.items()))
    params, fitted = {}, {}
    main_family = families.index[0]
    order = [main_family] + [f for f in families.index if f != main_family]
    for fam in order:
        fit_mask = ((table["family"] == fam) & ~table["outlier"]).to_numpy()
        if fit_mask.sum() < MIN_CASES or fam != main_family and fam not in ("volta",):
            params[fam] = dict(params[main_family])
            fitted[fam], fitted[fam + "_from"] = False, main_family
            print(f"{fam}: {int(fit_mask.sum())} cases, takes {main_family}'s numbers")
            continue
        fixed = None if fam in FIT_MATMUL else {"eff_matmul": np.nan}
        if fam != main_family:
            # no hybrid-sharded runs outside the main family: keep its Zipf exponent
            has_hybrid = ((cases["family"] == fam) & (cases["sharding"] == "hybrid")).any()
            if not has_hybrid:
                fixed = {**(fixed or {}), "popularity_zipf": params[main_family]["popularity_zipf"]}
        p, loss = fit(cases, models, fit_mask, fixed)
        params[fam], fitted[fam] = p, True
        print(f"{fam}: {int(fit_mask.sum())} cases, fit " + ", ".join(
            f"{KEYS[k]}={v * (1e6 if k in ('op_latency', 'step_overhead') else 1):g}"
            for k, v in p.items() if not (k == "eff_matmul" and np.isnan(v))) + f", loss {100 * loss:.1f}%")
    for fam in calibration_table():  # every family block of calibration.yaml
        if fam not in params:
            params[fam] = dict(params[main_family])
            fitted[fam], fitted[fam + "_from"] = False, main_family
    result = evaluate_with(cases, models, params)
    report(result, "MAPE per source (fitted numbers)")
    pd.set_option("display.width", 200)
    print()
    print(result[["case_id", "chosen", "measured", "predicted", "error", "frequent_fraction"]]
          .assign(error=lambda d: (100 * d["error"]).round(1), frequent_fraction=lambda d: d["frequent_fraction"].round(3))
          .to_string(index=False))
    if args.cv:
        cross_validate(cases, models, table, params, main_family)
    if args.write:
        print(f"wrote {write_calibration(params, fitted)}")


def cross_validate(cases, models, table, params, main_family) -> None:
    """Leave one source out of the main family's fit, predict it with the others' numbers."""
    print("\nleave-one-source-out (fit without the source, then predict it):")
    fam = main_family
    for held in table.loc[table["family"] == fam, "group"].unique():
        fit_mask = ((table["family"] == fam) & ~table["outlier"] & (table["group"] != held)).to_numpy()
        has_hybrid = ((cases["family"] == fam) & (cases["sharding"] == "hybrid")
                      & (cases["group"] != held)).any()
        fixed = {} if fam in FIT_MATMUL else {"eff_matmul": np.nan}
        if not has_hybrid:
            fixed["popularity_zipf"] = params[fam]["popularity_zipf"]
        p, _ = fit(cases, models, fit_mask, fixed)
        res = evaluate_with(cases, models, {**params, fam: p})
        sel = (res["group"] == held) & (res["family"] == fam)
        ape = res.loc[sel, "error"].abs() * 100
        clean = res.loc[sel & ~res["outlier"], "error"].abs() * 100
        print(f"   {fam} {held:30s} n={sel.sum():3d} held-out MAPE {ape.mean():5.1f}% "
              f"(without OUTLIER rows {clean.mean():5.1f}%) (fit gather={p['eff_gather']:g}, "
              f"op={p['op_latency'] * 1e6:g} us, overhead={p['step_overhead'] * 1e6:g} us, zipf={p['popularity_zipf']:g})")


if __name__ == "__main__":
    main()
