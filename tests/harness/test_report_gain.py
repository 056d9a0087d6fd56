"""The gain-over-base table: paired by seed and task, hand-computed means, anchors left out."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from searchgym.harness.report_gain import gain_rows, gain_section, gain_table


@dataclass
class Run:
    label: str
    seed: int
    predictions: list
    config: dict = field(default_factory=dict)


def _preds(successes: dict[str, float]) -> list[dict]:
    return [{"task_id": t, "family": t.split("-")[0], "success": s} for t, s in successes.items()]


BASE = {0: {"bridge-1": 0, "bridge-2": 1, "comparison-1": 0, "comparison-2": 0},
        1: {"bridge-1": 1, "bridge-2": 0, "comparison-1": 1, "comparison-2": 0}}
GRPO = {0: {"bridge-1": 1, "bridge-2": 1, "comparison-1": 1, "comparison-2": 0},
        1: {"bridge-1": 1, "bridge-2": 0, "comparison-1": 0, "comparison-2": 1}}


def _records(extra=()):
    runs = [Run("sft", k, _preds(v)) for k, v in BASE.items()]
    runs += [Run("grpo", k, _preds(v)) for k, v in GRPO.items()]
    runs += [Run("reader", k, _preds({t: 1 for t in v}), {"trains": False}) for k, v in BASE.items()]
    return runs + list(extra)


def test_gain_is_the_paired_mean_difference_per_family():
    rows = {(r["method"], r["family"]): r for r in gain_rows(_records(), resamples=200)}
    # seed 0: bridge +1, 0; comparison +1, 0.  seed 1: bridge 0, 0; comparison -1, +1
    assert rows[("grpo", "bridge")]["gain"] == pytest.approx(0.25)
    assert rows[("grpo", "comparison")]["gain"] == pytest.approx(0.25)
    assert rows[("grpo", "all")]["gain"] == pytest.approx(0.25)
    assert rows[("grpo", "all")]["seeds"] == 2 and rows[("grpo", "all")]["n"] == 4
    low, high = rows[("grpo", "all")]["gain_low"], rows[("grpo", "all")]["gain_high"]
    assert -1.0 <= low <= 0.25 <= high <= 1.0


def test_methods_that_do_not_train_and_the_base_itself_have_no_gain_row():
    methods = {r["method"] for r in gain_rows(_records(), resamples=50)}
    assert methods == {"grpo"}


def test_a_method_is_compared_on_the_seeds_it_shares_with_the_base():
    extra = [Run("coma", 1, _preds({t: 0 for t in BASE[1]}))]
    rows = {(r["method"], r["family"]): r for r in gain_rows(_records(extra), resamples=50)}
    assert rows[("coma", "all")]["seeds"] == 1
    assert rows[("coma", "all")]["gain"] == pytest.approx(-0.5)


def test_no_base_no_section_and_the_table_shows_the_comparison_chance():
    assert gain_section([Run("grpo", 0, _preds(GRPO[0]))]) == []
    table = gain_table(gain_rows(_records(), resamples=50))
    assert "comparison (chance 0.5)" in table.splitlines()[0]
    assert "| grpo | 2 | +0.250 [" in table


def test_only_runs_started_from_the_bases_own_file_are_paired_with_it():
    """Before: a variant with its own base settings (g2=grpo[sft_epochs=3]) and a run from scratch were
    shown as gains over the sft row (+0.013 and +0.006 with --budget 0: no RL step at all)."""
    def base(sha):
        return {"base": {"key": sha[:4], "sha256": sha}}

    runs = [Run("sft", k, _preds(v), base(f"base{k}")) for k, v in BASE.items()]
    runs += [Run("grpo", k, _preds(v), {"options": {"init": "sft"}, **base(f"base{k}")}) for k, v in GRPO.items()]
    runs += [Run("g2", k, _preds(v), base(f"other{k}")) for k, v in GRPO.items()]
    runs += [Run("scr", k, _preds(v), {"options": {"init": "scratch"}}) for k, v in GRPO.items()]
    runs += [Run("half", 0, _preds(GRPO[0]), base("base0")), Run("half", 1, _preds(GRPO[1]), base("other1"))]
    rows = {(r["method"], r["family"]): r for r in gain_rows(runs, resamples=200)}
    assert {m for m, _ in rows} == {"grpo", "half"} and rows[("half", "all")]["seeds"] == 1
    section = "\n".join(gain_section(runs, resamples=200))
    assert "Not in this table, as they did not start from the `sft` base: g2 (another base), scr (no base)." in section
