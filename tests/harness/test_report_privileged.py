"""The oracle is marked privileged wherever a report names it; random and the reader are not."""

from __future__ import annotations

from searchgym.harness.methods import PRIVILEGED_METHOD_NAMES, load_method, privileged, shown_label
from searchgym.harness.report import RunRecord, anchors_note, metric_table, privileged_labels


def _record(label: str, config: dict) -> RunRecord:
    return RunRecord(label, 0, config, {}, [])


def test_privileged_runs_are_read_from_the_config_or_the_oracles_path():
    records = [_record("oracle", {"privileged": True}), _record("reader", {"privileged": False}),
               _record("old_oracle", {"method_path": "searchgym.harness.methods:oracle_method"}),
               _record("random", {"method_path": "searchgym.harness.methods:random_method"})]
    assert privileged_labels(records) == {"oracle", "old_oracle"}
    assert privileged(load_method("oracle")) and not privileged(load_method("reader"))
    assert not privileged(load_method("random")) and PRIVILEGED_METHOD_NAMES == {"oracle"}


def test_tables_and_notes_mark_the_oracle():
    row = {"aggregate": True, "family": "all", "success": 1.0, "success_low": 1.0, "success_high": 1.0}
    rows = [{**row, "method": m} for m in ("random", "oracle")] + [
        {"aggregate": False, "method": m, "seed": 0} for m in ("random", "oracle")]
    table = metric_table(rows, "success", ["random", "oracle"], {"oracle"})
    assert "| oracle (privileged) | 1 | 1.000 [1.000, 1.000] |" in table and "| random | 1 |" in table
    assert shown_label("reader", {"oracle"}) == "reader"
    assert anchors_note(["random", "oracle"], {"oracle"}) == (
        "oracle (privileged) reads the task's gold evidence chain: an upper bound, not an agent. "
        "random reads only what an agent sees.")
    assert anchors_note(["random", "reader"], set()) == ""


def test_the_oracle_is_marked_in_summary_csv_the_runs_table_and_as_a_reference(tmp_path):
    """Before: summary.csv and load_results had no marker, the Runs table and the significance heading
    named it bare, and with no learner the report chose the oracle as the reference by itself."""
    import csv

    from harness_helpers import TINY_QA

    from searchgym.cli import main
    from searchgym.harness.results import load_results, load_summary

    out = tmp_path / "out"
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "oracle,random", "--budget", "0", "--no-progress",
                 "--out", str(out)]) == 0
    rows = list(csv.DictReader((out / "summary.csv").open()))
    assert {(r["method"], r["privileged"]) for r in rows} == {("oracle", "True"), ("random", "False")}
    assert load_summary(out).groupby("method").privileged.all().to_dict() == {"oracle": True, "random": False}
    assert load_results(out).groupby("method").privileged.all().to_dict() == {"oracle": True, "random": False}
    text = (out / "results.md").read_text()
    assert "## Significance: random against each other method" in text  # not the oracle, which bounds
    assert "| oracle (privileged) | 0 |" in text  # the Runs table
    assert main(["report", "--out", str(out), "--reference", "oracle"]) == 0
    text = (out / "results.md").read_text()
    assert "## Significance: oracle (privileged) against" in text and "| oracle (privileged) vs |" in text
