"""Figure 5: predicted against measured for every validation case the model predicts.

Every case of ``../shared/validation/llm.jsonl`` and ``dlrm_vit.jsonl`` goes through
:func:`dse.validate.validate_cases`; those with status ``ok`` (the others are kinds of runs not
modelled yet: inference, DLRM, ViT) are drawn by :func:`dse.validation_plot.plot_validation`,
the figure ``dse validate FILE... --plot DIR`` writes: one log-log panel per metric kind with the
y = x line and the +/-10% and +/-20% bands, the overall numbers, and the signed error of every
case per source (worst MAPE on top).

Writes fig5_validation.{png,pdf,csv} (the CSV: one row per predicted case) and its finding.
"""

from __future__ import annotations

from common import SHARED, Timer, finding, parser, require_shared, save, write_csv
from dse.validate import validate_cases
from dse.validation_plot import evaluated_cases, plot_validation, validation_table

STEM = "fig5_validation"
FILES = [SHARED / "validation" / "llm.jsonl", SHARED / "validation" / "dlrm_vit.jsonl"]


def main() -> None:
    parser(__doc__).parse_args()  # --quick is accepted (every script takes it) and changes nothing here
    require_shared(STEM, *FILES)
    with Timer(STEM):
        cases, summary = validate_cases(FILES)
        save(plot_validation(cases, summary), STEM)
        write_csv(validation_table(cases), STEM)
        finding(STEM, sentence(cases, summary))


def sentence(cases, summary) -> str:
    ok = evaluated_cases(cases)
    ape = ok["error_pct"].abs()
    overall = summary["overall"]
    groups = ok.assign(ape=ape).groupby("source_short")["ape"].agg(["mean", "max", "size"]).sort_values("mean")
    worst_name, worst = groups.index[-1], groups.iloc[-1]
    best_name, best = groups.index[0], groups.iloc[0]
    far = ok.loc[ape.idxmax()]
    return (
        f"Over the {len(ok)} measured runs the model predicts ({overall['count']} cases, {overall['skipped']} of kinds "
        f"not modelled yet skipped) the MAPE is {ape.mean():.1f}% (median {ape.median():.1f}%; "
        f"{100 * (ape <= 10).mean():.0f}% of cases within 10%, {100 * (ape <= 20).mean():.0f}% within 20%); "
        f"the worst source is {worst_name} (MAPE {worst['mean']:.1f}% over {int(worst['size'])} cases, "
        f"max {worst['max']:.0f}%), the best {best_name} ({best['mean']:.1f}% over {int(best['size'])}), and the "
        f"largest single error is {far['error_pct']:+.0f}% ({far['id']}, {far['source_short']})."
    )


if __name__ == "__main__":
    main()
