"""A base fitted to imitate the oracle, and the RL runs from it, are marked privileged as the oracle is.

Before: ``sft_demonstrator=oracle`` gave an unmarked ``sft`` row (privileged=False), and RL runs started
from that base were unmarked too."""

from __future__ import annotations

from searchgym.harness.methods import BASELINE_METHODS
from searchgym.harness.privileged_runs import imitated_oracle, run_reads_private_state
from searchgym.harness.report import RunRecord, anchors_note, metric_table, privileged_labels

SFT = BASELINE_METHODS["sft"]
GRPO = "searchgym.harness.method_specs:grpo"


def _record(label: str, config: dict) -> RunRecord:
    return RunRecord(label, 0, config, {}, [])


def test_what_a_run_records_marks_it():
    # what the runner judges before the run (its identity: the method's path and options)
    assert run_reads_private_state({"method_path": SFT, "options": {"sft_demonstrator": "oracle"}})
    assert run_reads_private_state({"method_path": GRPO, "options": {"init": "sft", "sft.sft_demonstrator": "oracle"}})
    # a config.json written before: privileged False, but the base it recorded imitated the oracle
    assert run_reads_private_state({"privileged": False, "method_path": GRPO,
                                    "base": {"settings": {"sft_demonstrator": "oracle"}}})
    # the reader's base, a learner from scratch whatever its sft options say, and the reader are not
    assert not run_reads_private_state({"method_path": SFT, "options": {"sft_demonstrator": "reader"}})
    assert not run_reads_private_state({"method_path": SFT, "options": {}, "base": {"settings": {}}})
    assert not run_reads_private_state({"method_path": GRPO, "options": {"sft_demonstrator": "oracle"}})
    assert not imitated_oracle({"method_path": BASELINE_METHODS["reader"], "options": {"sft_demonstrator": "oracle"}})


def test_results_md_marks_the_rows_and_says_why():
    taught = {"base": {"settings": {"sft_demonstrator": "oracle"}}}
    records = [_record("sft", {"method_path": SFT, **taught}), _record("grpo", {"method_path": GRPO, **taught}),
               _record("oracle", {"privileged": True}), _record("reader", {"privileged": False})]
    privileged = privileged_labels(records)
    assert privileged == {"sft", "grpo", "oracle"}
    row = {"aggregate": True, "family": "all", "success": 0.5, "success_low": 0.5, "success_high": 0.5}
    rows = [{**row, "method": m} for m in ("sft", "reader")] + [
        {"aggregate": False, "method": m, "seed": 0} for m in ("sft", "reader")]
    table = metric_table(rows, "success", ["sft", "reader"], privileged)
    assert "| sft (privileged) | 1 |" in table and "| reader | 1 |" in table
    labels = ["sft", "grpo", "reader", "oracle"]
    note = anchors_note(labels, privileged, {r.label for r in records if imitated_oracle(r.config)})
    assert note.startswith("oracle (privileged) reads the task's gold evidence chain")
    assert "sft, grpo (privileged) is, or started from, a supervised base fitted to imitate the privileged oracle" in note
    assert anchors_note(["random", "oracle"], {"oracle"}) == (  # unchanged where no base imitated the oracle
        "oracle (privileged) reads the task's gold evidence chain: an upper bound, not an agent. "
        "random reads only what an agent sees.")
