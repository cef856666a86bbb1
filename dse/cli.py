"""The ``dse`` command line: ``evaluate``, ``validate``, ``search``, ``plot``, ``show``, ``whatif``,
``figures`` and ``import-madmax``.

A thin layer over :func:`dse.evaluate` and :func:`dse.validate.validate_cases`. Bad input
(a missing or unparsable file, an unknown key, a wrong type, an unknown preset, a precision the
GPU lacks) prints the InputError's message, which names the file, the field, the given value and
what is allowed, to stderr and exits with code 2, never with a traceback. numpy, pandas and the
cost model are imported inside the commands.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer

EXIT_BAD_INPUT = 2

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    help="Design-space exploration for training and serving large models (LLM, MoE, ViT, DLRM) on GPU clusters.",
)


def _console(stderr: bool = False) -> Any:
    """A rich console; 160 columns when writing to a pipe or file (rich would use 80)."""
    from rich.console import Console

    width = None
    if not (sys.stderr if stderr else sys.stdout).isatty() and "COLUMNS" not in os.environ:
        width = 200
    return Console(stderr=stderr, width=width, highlight=False, soft_wrap=stderr)


def _fail(message: str) -> NoReturn:
    from rich.text import Text

    _console(stderr=True).print(Text(message, style="red"))
    raise typer.Exit(EXIT_BAD_INPUT)


def _bad_input(err: Exception, source: str | None = None) -> NoReturn:
    """Print an InputError or OSError as one clear message and exit 2."""
    from .errors import InputError

    if isinstance(err, InputError):
        if err.source is None and source is not None:
            err = err.with_source(source)
        _fail(str(err))
    name = getattr(err, "filename", None) or source or ""
    _fail(f"{name}: cannot read file: {getattr(err, 'strerror', None) or err}")


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"dse {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """Design-space exploration for training and serving large models (LLM, MoE, ViT, DLRM) on GPU clusters."""


def _load(arg: str) -> tuple[Any, str]:
    """The Scenario named by ``arg`` (a YAML/JSON file, FILE.jsonl or FILE.jsonl:ID) and its label."""
    from .scenario import load_scenario

    path = Path(arg)
    if not path.exists() and ":" in arg:
        file, key = arg.rsplit(":", 1)
        if file.lower().endswith(".jsonl"):
            return _load_jsonl(Path(file), key)
    if path.suffix.lower() == ".jsonl":
        return _load_jsonl(path, None)
    if path.suffix.lower() == ".json" and path.is_file():
        from .errors import InputError
        from .scenario import read_mapping, scenario_from_dict
        from .sources import apply_software

        data = read_mapping(path)
        if isinstance(data.get("source"), str) and "target" in data:  # a validation case saved alone
            try:
                return scenario_from_dict(apply_software(data)), str(path)
            except InputError as err:
                raise err.with_source(str(path)) from None
    return load_scenario(path), str(path)


def _load_jsonl(path: Path, key: str | None) -> tuple[Any, str]:
    """One case of a JSON-lines file: by id, by line number, or the only one."""
    from .errors import InputError, single
    from .scenario import load_jsonl, scenario_from_dict
    from .sources import apply_software

    rows = load_jsonl(path)
    ids = [str(obj.get("id", "")) for _, obj in rows]
    listing = ", ".join(i for i in ids[:8] if i) + (", ..." if len(ids) > 8 else "")
    if key is None:
        if len(rows) != 1:
            raise single("", f"{len(rows)} cases in the file; choose one as FILE.jsonl:ID (ids: {listing})",
                         source=str(path))
        line, obj = rows[0]
    else:
        found = [(n, o) for n, o in rows if str(o.get("id", "")) == key]
        if not found and key.isdigit():
            found = [(n, o) for n, o in rows if n == int(key)]
        if not found:
            raise single("id", f"no case with this id or line number; ids: {listing}", key, source=str(path))
        line, obj = found[0]
    label = f"{path}:{line}"
    try:  # a validation case: with its source's software settings, as `dse validate` scores it
        return scenario_from_dict(apply_software(obj)), label
    except InputError as err:
        raise err.with_source(label) from None


@app.command()
def evaluate(
    scenario: str = typer.Argument(
        ..., metavar="SCENARIO", help="Scenario file (YAML or JSON), or FILE.jsonl:ID for one validation case."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
    trace: Path | None = typer.Option(None, "--trace", help="Write the two-stream schedule as a Chrome/Perfetto "
                                      "trace (JSON; open it in ui.perfetto.dev): one training iteration or DLRM "
                                      "step, or a serving request's prefill and first decode steps (a "
                                      "disaggregated deployment: FILE.prefill.json and FILE.decode.json)."),
    plot: Path | None = typer.Option(None, "--plot", help="Write the time breakdown and the stream timeline "
                                     "(PNG and PDF) into this folder (a disaggregated deployment: its prefill "
                                     "and decode subfolders)."),
) -> None:
    """Evaluate one scenario: throughput, MFU, memory per GPU and where the time goes."""
    from .errors import InputError

    label = scenario
    try:
        spec, label = _load(scenario)
        from .api import evaluate as evaluate_scenarios

        frame = evaluate_scenarios(spec, explain=True)
    except (InputError, OSError) as err:
        _bad_input(err, label)

    from .report import evaluation_record, render_evaluation

    row = frame.iloc[0]
    rec = evaluation_record(row, source=label)
    rec["name"] = rec["name"] or Path(label.split(":")[0]).stem
    if spec.inference is not None and spec.inference.phase == "disaggregated":
        return _evaluate_deployment(spec, row, rec, label, as_json, trace, plot)
    if spec.kind in ("llm_train", "vit_train", "vit_inference"):
        from .trace import layer_compute

        rec["layer"] = layer_compute(spec)
    overrides = {}
    for key in ("peak_tflops", "hbm_gb", "hbm_tbps", "l2_mb", "nvlink_gbps", "nvlink_topology", "scaleout_gbitps",
                "host_link_gbps", "exp_tera_per_s", "power_w", "price_per_gpu_hour"):
        value = getattr(spec.cluster, key, None)
        if value is not None:
            overrides[key] = value.model_dump(exclude_none=True) if hasattr(value, "model_dump") else value
    if overrides:  # the GPU preset as the scenario changed it (an H800 is an H100 with less NVLink)
        rec["gpu_overrides"] = overrides
    inf = spec.inference
    if (inf is not None and inf.mode == "online"
            and inf.batch is None and inf.concurrency is None and inf.request_rate is None):
        rec["notes"] = ["mode online with no concurrency, request_rate or batch: modelled as an offline "
                        "engine with every request queued at once; give one of them for an online load"]
    if not rec["feasible"]:
        from dataclasses import asdict

        from .remedies import memory_remedies

        fixes = memory_remedies(spec, row=row.to_dict())
        if fixes:
            rec["fits_with"] = [asdict(f) for f in fixes]
    written = _drawings(spec, label, trace, plot)
    if as_json:
        if written:
            rec["files"] = [str(p) for p in written]
        typer.echo(json.dumps(rec, indent=2, allow_nan=False))
    else:
        render_evaluation(_console(), rec)
        for path in written:
            typer.echo(f"wrote {path}")


def _drawings(spec: Any, label: str, trace: Path | None, plot: Path | None) -> list[Path]:
    """Write the Chrome/Perfetto trace (``--trace FILE``) and the breakdown and timeline plots
    (``--plot DIR``) of one scenario's schedule; the paths written."""
    written: list[Path] = []
    if trace is None and plot is None:
        return written
    from .errors import InputError
    from .trace import chrome_trace, scenario_trace

    try:
        events, meta = scenario_trace(spec)
    except InputError as err:
        _bad_input(err, label)
    for option, path in (("--trace", trace), ("--plot", plot)):
        if path is None:
            continue
        try:
            if option == "--trace":
                from .search.results import write_json

                written.append(write_json(chrome_trace(events, meta), path))
            else:
                from .trace_plot import plot_breakdown, plot_timeline

                written += plot_breakdown(meta["breakdown"], path, meta=meta) + plot_timeline(events, meta, path)
        except InputError as err:
            _bad_input(err, str(path))
        except OSError as err:  # a write, not a read: name the option and the path
            blocked = getattr(err, "errno", None) in (17, 20)
            _fail(f"{option} {path}: cannot write: {getattr(err, 'strerror', None) or err}"
                  + (" (a file is in the way of a folder in the path)" if blocked else ""))
    return written


def _evaluate_deployment(spec: Any, row: Any, rec: dict[str, Any], label: str, as_json: bool,
                         trace: Path | None, plot: Path | None) -> None:
    """``dse evaluate`` of a disaggregated deployment: its figures, then each kind of instance at
    its operating point (evaluated as a scenario of phase prefill or decode). ``--trace FILE``
    writes each instance's schedule beside FILE (``FILE.prefill.json``, ``FILE.decode.json``
    for ``FILE.json``), ``--plot DIR`` its drawings in ``DIR/prefill`` and ``DIR/decode``."""
    from .api import evaluate as evaluate_scenarios
    from .report import deployment_record, evaluation_record, render_deployment
    from .workloads.inference import deployment_instances

    rec["deployment"] = deployment_record(row)
    for key in ("breakdown", "attention"):
        rec.pop(key, None)
    instances = {}
    written: list[Path] = []
    for side, scenario in zip(("prefill", "decode"), deployment_instances(spec, row)):
        one = evaluate_scenarios(scenario, explain=True).iloc[0]
        instances[side] = evaluation_record(one, source=label)
        written += _drawings(scenario, label, None if trace is None else trace.with_name(
            f"{trace.stem}.{side}{trace.suffix or '.json'}"), None if plot is None else plot / side)
    rec["instances"] = instances
    if as_json:
        if written:
            rec["files"] = [str(p) for p in written]
        typer.echo(json.dumps(rec, indent=2, allow_nan=False))
    else:
        render_deployment(_console(), rec, instances)
        for path in written:
            typer.echo(f"wrote {path}")


@app.command()
def validate(
    files: list[Path] = typer.Argument(..., metavar="FILE.jsonl...", help="JSON-lines files of validation cases."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object {cases, summary}."),
    source: str | None = typer.Option(
        None, "--source", help="Only cases whose source contains this text (any case)."
    ),
    plot: Path | None = typer.Option(
        None, "--plot", metavar="DIR",
        help="Also draw predicted against measured: DIR/validation.png and .pdf, points in DIR/validation.csv.",
    ),
    by: str | None = typer.Option(
        None, "--by", metavar="FIELDS",
        help="Summarize per value of these case fields, comma-separated: source, reliability, gpu, "
             "precision, family, model, workload, metric (e.g. --by gpu,precision or --by model).",
    ),
    full: bool = typer.Option(False, "--wide", help="Print case ids and sources whole (wrapped), not cut "
                              "to the terminal's width."),
) -> None:
    """Predict published measurements and report the error per case and per source.

    Exits 2 if a file cannot be read or a case is not a valid scenario (after printing the report).
    """
    from .errors import InputError

    try:
        from .validate import cases_records, validate_cases

        fields = [f.strip() for f in by.split(",") if f.strip()] if by else []
        cases, summary = validate_cases(files, source=source, by=fields)
    except (InputError, OSError) as err:
        _bad_input(err)
    if len(cases) == 0:
        names = ", ".join(str(f) for f in files)
        _fail(f"{names}: no case whose source contains '{source}' (--source matches any part of a case's "
              "source, in any case)" if source else f"{names}: no validation case (the files hold no JSON line)")

    records = cases_records(cases)
    if as_json:
        keys = ("id", "source", "gpu", "precision", "family", "metric", "measured", "predicted", "error", "status",
                "reason", "feasible", "infeasible_reason", "flagged", "file", "line")
        out = {"cases": [{k: r[k] for k in keys} for r in records], "summary": summary}
        typer.echo(json.dumps(out, indent=2, allow_nan=False))
    else:
        from .report import render_validation

        render_validation(_console(), records, summary, whole=full)
    if plot is not None:
        try:
            from .validation_plot import save_validation

            paths = save_validation(cases, summary, plot)
        except OSError as err:
            _fail(f"--plot {plot}: cannot write the figure: {err.strerror or err}")
        if not as_json:
            typer.echo("figure: " + ", ".join(str(p) for p in paths))
    errors = [r for r in records if r["status"] == "error"]
    if errors:
        _fail("\n".join(r["reason"] for r in errors))


@app.command()
def search(
    space: Path = typer.Argument(..., metavar="SPACE", help="A search-space file (search_spaces/*.yaml)."),
    out: Path | None = typer.Option(None, "--out", help="Results folder (default: results/<study>)."),
    study_name: str | None = typer.Option(None, "--study-name", help="Optuna study name (default: the space's name)."),
    storage: str | None = typer.Option(None, "--storage", help="Optuna storage URL, shared by every process given it (postgresql://USER@HOST:PORT/DB for many hosts) (default: the journal file in the results folder)."),
    n_trials: int | None = typer.Option(None, "--n-trials", min=1, help="Trials this process completes (K processes given N leave K*N)."),
    total_trials: int | None = typer.Option(None, "--total-trials", min=1, help="Stop when the study holds this many completed trials, counting earlier runs and other workers (default without --n-trials: the space's n_trials)."),
    timeout: float | None = typer.Option(None, "--timeout", min=0.0, help="Stop asking new trials after this many seconds."),
    workers: int = typer.Option(1, "--workers", min=1, help="joblib worker processes scoring trials or chunks."),
    backend: str = typer.Option("loky", "--backend", help="joblib backend: loky (processes), threading, or dask (with --scheduler)."),
    scheduler: str | None = typer.Option(None, "--scheduler", help="Dask scheduler address for --backend dask, e.g. tcp://HOST:8786."),
    heartbeat: float = typer.Option(10.0, "--heartbeat", min=0.1, help="Seconds between this worker's liveness records; a worker silent for 3 heartbeats is taken as dead and its running trials are re-queued."),
    seed: int | None = typer.Option(None, "--seed", help="Sampler seed (default: the space's)."),
    mode: str | None = typer.Option(None, "--mode", help="nested | exhaustive | optuna | auto (default: the space's)."),
    sampler: str | None = typer.Option(None, "--sampler", help="tpe | nsga2 | random (default: the space's)."),
    no_plots: bool = typer.Option(False, "--no-plots", help="Skip the figures (dse plot makes them later)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary instead of the table."),
) -> None:
    """Run (or resume) a design-space exploration; leave every scored configuration, the Pareto
    front, figures and a manifest in the results folder."""
    from .errors import InputError

    if mode not in (None, "nested", "exhaustive", "optuna", "auto"):
        _fail(f"--mode: not an allowed value; allowed: nested, exhaustive, optuna, auto (given: {mode!r})")
    if sampler not in (None, "tpe", "nsga2", "random"):
        _fail(f"--sampler: not an allowed value; allowed: tpe, nsga2, random (given: {sampler!r})")
    if backend not in ("loky", "threading", "dask"):
        _fail(f"--backend: not an allowed value; allowed: loky, threading, dask (given: {backend!r})")
    try:
        from .search.runner import run_search, summary_dict

        summary = run_search(space, out_dir=out, study_name=study_name, storage=storage,
                             n_trials=n_trials, timeout=timeout, workers=workers, backend=backend,
                             seed=seed, mode=mode, sampler=sampler, progress=not as_json,
                             plots=not no_plots, total_trials=total_trials, scheduler=scheduler,
                             heartbeat=heartbeat)
    except (InputError, OSError) as err:
        _bad_input(err, str(space))
    except ValueError as err:  # e.g. an existing study with other objectives
        _fail(f"{space}: {err}")
    if as_json:
        typer.echo(json.dumps(summary_dict(summary), indent=2, default=str))
        return
    from .search.results import render_results, summarize

    report = summary.report
    console = _console()
    scored = summary.counts.get("scored", 0)
    if report.space_size:
        size = f"{report.space_size:,} configurations; scored {scored:,} ({scored / report.space_size:.1%} of it)"
    else:
        size = f"continuous hardware knobs, per point every valid plan; scored {scored:,}"
    console.print(f"[bold]{summary.study_name}[/]: mode [bold]{summary.mode}[/] ({summary.mode_reason})\n"
                  f"space: {size}, {summary.counts.get('feasible', 0):,} feasible, in {summary.wall_time_s:.1f} s")
    if report.trials_total:
        console.print(f"trials in the study: {report.trials_complete} complete, {report.trials_failed} failed "
                      f"({report.trials_this_process} completed by this process); sampler {report.sampler}")
    for note in report.notes:
        console.print(f"note: {note}")
    top_summary, frame = summarize(summary.out_dir, 5)
    render_results(console, top_summary, frame)
    figures = ", figures" if any(Path(f).suffix in (".png", ".pdf") for f in summary.files) else ""
    console.print(f"results in {summary.out_dir}/ (configs.parquet, configs.csv, pareto.csv{figures}, manifest.json)")


@app.command()
def plot(
    results_dir: Path = typer.Argument(..., metavar="RESULTS_DIR", help="A results folder (results/<study>)."),
    storage: str | None = typer.Option(None, "--storage", help="The shared study's storage URL, if the manifest's (stored without password) does not open."),
) -> None:
    """Regenerate the figures of a search's results folder (PNG and PDF) and print their paths.
    A folder whose study is in a database is first brought up to date with every worker's trials."""
    from .errors import InputError

    try:
        from .search.plots import plot_results
        from .search.runner import refresh_from_study

        refresh_from_study(results_dir, storage)

        paths = plot_results(results_dir, require_manifest=True)
    except (InputError, OSError) as err:
        _bad_input(err, str(results_dir))
    for path in paths:
        typer.echo(str(path))


@app.command()
def show(
    results_dir: Path = typer.Argument(..., metavar="RESULTS_DIR", help="A results folder (results/<study>)."),
    top: int = typer.Option(10, "--top", min=1, help="How many of the best feasible configurations to list."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object {study, ..., top, pareto}."),
    storage: str | None = typer.Option(None, "--storage", help="The shared study's storage URL, if the manifest's (stored without password) does not open."),
) -> None:
    """Summarize a search's results folder: counts, the best configurations, the Pareto front size.
    A folder whose study is in a database is first brought up to date with every worker's trials."""
    from .errors import InputError

    try:
        from .search.results import summarize
        from .search.runner import refresh_from_study

        refresh_from_study(results_dir, storage)

        summary, frame = summarize(results_dir, top)
    except (InputError, OSError) as err:
        _bad_input(err, str(results_dir))
    if as_json:
        typer.echo(json.dumps(summary, indent=2, allow_nan=False))
    else:
        from .search.results import render_results

        render_results(_console(), summary, frame)


@app.command()
def whatif(
    scenario: str = typer.Argument(
        ..., metavar="SCENARIO", help="Scenario file (YAML or JSON), or FILE.jsonl:ID for one validation case."
    ),
    vary: list[str] = typer.Option(
        [], "--vary", metavar="KNOB=RANGE",
        help="A hardware knob and its values: KNOB=V1,V2,... | KNOB=LO:HI:N | KNOB=LO:HI:N:log. Knobs: hbm_gb, "
             "hbm_tbps, peak_scale, nvlink_gbps, nvlink_domain, nvlink_mesh (1 mesh, 0 switch), gpus_per_node, "
             "scaleout_gbitps, "
             "host_link_gbps, exp_tera_per_s, l2_mb, price_per_gpu_hour, power_w, num_gpus (serving and DLRM: not "
             "host_link_gbps, exp_tera_per_s; l2_mb: DLRM only). Repeat for a grid.",
    ),
    max_itl_ms: float | None = typer.Option(
        None, "--max-itl-ms", help="Serving: keep only plans whose time per output token is at most this (ms)."),
    max_ttft_ms: float | None = typer.Option(
        None, "--max-ttft-ms", help="Serving: keep only plans whose time to the first token is at most this (ms)."),
    out: Path | None = typer.Option(None, "--out", help="Output folder (default: results/whatif-SCENARIO_STEM)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
    no_plots: bool = typer.Option(False, "--no-plots", help="Write the CSV files only."),
) -> None:
    """Best software configuration per hardware point: curves and heatmaps of the best throughput
    (cost, energy) against hardware knobs, the elasticity of the best plan to each knob and the
    resource that bounds it, for training, serving and DLRM scenarios (a serving scenario with an
    offered request_rate: the fewest GPUs that serve it per point). Without --vary: only the
    sensitivity and the bottleneck."""
    from .errors import InputError

    from .whatif import parse_vary

    grid: dict[str, Any] = {}
    for text in vary:
        try:
            name, values = parse_vary(text)
        except InputError as err:
            _bad_input(err)
        if name in grid:
            _fail(f"invalid input: --vary: {name} is given twice; give each knob once (given: {text!r})")
        grid[name] = values
    label = scenario
    try:
        spec, label = _load(scenario)
        from .whatif import figure_note, out_dir_for, plot_whatif, to_record
        from .whatif import whatif as run_whatif

        result = run_whatif(spec, grid, max_itl_ms=max_itl_ms, max_ttft_ms=max_ttft_ms)
        folder = out if out is not None else out_dir_for(scenario)
        paths = plot_whatif(result, folder, figures=not no_plots)
    except (InputError, OSError) as err:
        _bad_input(err, label)

    if as_json:
        rec = to_record(result)
        rec["files"] = [str(p) for p in paths]
        typer.echo(json.dumps(rec, indent=2, allow_nan=False))
        return
    from .whatif import report_renderables

    console = _console()
    for item in report_renderables(result):
        console.print(item)
    note = figure_note(result) if not no_plots else "--no-plots: no figure"
    files = ", ".join(p.name for p in paths)
    console.print(f"written to {folder}/: {files}" + (f" ({note})" if note else ""))


@app.command("import-madmax")
def import_madmax(
    model: Path = typer.Argument(..., metavar="MODEL.json", help="MAD-Max model file (model_cfgs/...)."),
    system: Path = typer.Argument(..., metavar="SYSTEM.json", help="MAD-Max system file (system_cfgs/...)."),
    task: Path = typer.Argument(..., metavar="TASK.json", help="MAD-Max task file (task_cfgs/...)."),
    out: Path | None = typer.Option(None, "--out", help="Write the scenario YAML to this file instead of printing it."),
    strict: bool = typer.Option(False, "--strict", help="Reject what MAD-Max itself rejects (degrees that do not "
                                "multiply to the GPU count, ...) instead of converting it with a note."),
) -> None:
    """Convert a MAD-Max (model, system, task) triplet into a dse scenario (YAML, with every
    assumption as a comment at the top): same peak FLOP/s, utilizations and effective bandwidths,
    same parallel degrees and local batches. A strategy dse cannot express exits with code 2."""
    from .errors import InputError

    try:
        from .madmax import import_madmax as convert
        from .madmax import scenario_yaml

        scenario, notes = convert(model, system, task, strict=strict)
        text = scenario_yaml(scenario, notes, sources=(model, system, task))
    except (InputError, OSError) as err:
        _bad_input(err)
    if out is None:
        typer.echo(text, nl=False)
        return
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as err:
        _fail(f"--out {out}: cannot write the scenario: {err.strerror or err}")
    typer.echo(f"wrote {out} ({len(notes)} assumptions noted at the top)")


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def figures(ctx: typer.Context) -> None:
    """Regenerate every paper figure into results/figures/ (runs scripts/make_figures of this
    checkout with this Python; options such as --quick, --only, --docs pass through)."""
    import subprocess

    script = Path(__file__).resolve().parents[1] / "scripts" / "make_figures"
    if not script.exists():
        _fail(f"{script}: not found; `dse figures` needs a source checkout of dse")
    raise typer.Exit(subprocess.run([sys.executable, str(script), *ctx.args]).returncode)


def main() -> None:
    """Console-script entry point."""
    app()


if __name__ == "__main__":
    main()
