"""results.md's diagnostics: the zero-variance share is of the groups drawn, also under dynamic sampling."""

from __future__ import annotations

from searchgym.harness.report import RunRecord, diagnostics_table


def _record(label: str, metrics: list[dict]) -> RunRecord:
    return RunRecord(label, 0, {}, {}, [], metrics)


def _zero_variance_cell(table: str, label: str) -> str:
    header, _, *rows = table.splitlines()
    column = [c.strip() for c in header.strip("|").split("|")].index("zero-variance groups")
    row = next(r for r in rows if r.startswith(f"| {label} |"))
    return [c.strip() for c in row.strip("|").split("|")][column]


def test_dynamic_sampling_reports_the_share_among_the_groups_drawn():
    # the update's own count is 0 by construction (it keeps only groups with signal); the share
    # drawn is what says how much signal the base leaves
    filtered = [{"iteration": 1, "groups/zero_variance_fraction": 0.0, "dynamic/zero_variance_fraction": 0.8},
                {"iteration": 2, "groups/zero_variance_fraction": 0.0, "dynamic/zero_variance_fraction": 0.6}]
    plain = [{"iteration": 1, "groups/zero_variance_fraction": 0.5}]
    table = diagnostics_table([_record("grpo_ds", filtered), _record("grpo", plain)])
    assert _zero_variance_cell(table, "grpo_ds") == "0.700"
    assert _zero_variance_cell(table, "grpo") == "0.500"
