#!/usr/bin/env python3
"""Figure 6: the timeline of one training iteration for a chosen configuration.

The two-stream schedule the cost model assumes (dse.trace), for Llama-2-70B on 64 H100s
(scenarios/llama2_70b_h100.yaml, or --scenario FILE): the whole iteration, then the first
microbatch's forward and backward op by op. Writes fig6_timeline.{png,pdf}, the events as
fig6_timeline.csv and the Chrome/Perfetto trace fig6_timeline.trace.json.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from common import REPO, Timer, finding, out_dir, parser, write_csv  # noqa: E402

import dse  # noqa: E402
from dse.search.results import write_json  # noqa: E402
from dse.trace import chrome_trace, scenario_trace  # noqa: E402
from dse.trace_plot import plot_timeline  # noqa: E402

STEM = "fig6_timeline"


def main() -> None:
    args = parser(__doc__, quick=True)
    args.add_argument("--scenario", default=str(REPO / "scenarios" / "llama2_70b_h100.yaml"))
    opts = args.parse_args()
    with Timer(STEM):
        events, meta = scenario_trace(opts.scenario)
        plot_timeline(events, meta, out_dir(), stem=STEM)
        write_json(chrome_trace(events, meta), out_dir() / f"{STEM}.trace.json")
        table = pd.DataFrame([{"name": e.name, "kind": e.kind, "stream": "compute" if e.stream == 0 else "comm",
                               "start_s": e.start, "duration_s": e.duration, "microbatch": e.microbatch,
                               "layer": e.layer, "phase": e.phase} for e in events])
        write_csv(table, STEM)
        row = dse.evaluate(opts.scenario).iloc[0]
        total = row["iteration_time_s"]
        exposed = row["exposed_comm_s"]
        hidden = sum(row[c] for c in row.index if c.startswith("overlapped_"))
        plan = (f"tp{int(row['tp'])} pp{int(row['pp'])} dp{int(row['dp'])} vpp{int(row['vpp'])}"
                f" zero{int(row['zero'])}")
        finding(STEM, (
            f"One iteration of {meta['model']} on {meta['num_gpus']} {meta['gpu']} ({plan}) takes "
            f"{total:.2f} s: {row['time_compute_s'] / total:.0%} compute, "
            f"{row['time_bubble_s'] / total:.0%} pipeline bubble, {exposed / total:.0%} exposed "
            f"communication (tensor-parallel all-reduces {row['exposed_tp_s'] / total:.0%}), while "
            f"{hidden:.2f} s of communication runs hidden under compute."))


if __name__ == "__main__":
    main()
