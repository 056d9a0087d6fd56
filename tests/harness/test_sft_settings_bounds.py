"""`compare` checks the supervised base's settings against the bounds `leaderboard retrain` keeps, and
notes an ``sft_tasks`` past the train split. Before: ``--option sft_tasks=10000000`` ran, clamped to the
split's size without a word, where retrain refuses it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from harness_helpers import TINY_QA, refused_line

from searchgym.harness import option_bounds
from searchgym.harness.methods import parse_methods
from searchgym.harness.preflight import check_comparison
from searchgym.suites import tasks


def _comparison(methods="sft", **options):
    return SimpleNamespace(suite=TINY_QA, methods=parse_methods(methods), seeds=[0], budget=0, policy="hash",
                           options=options)


@pytest.mark.parametrize(("methods", "option", "said"), [
    ("sft", "sft_tasks=10000000", "option sft_tasks=10000000 is outside the bounds of the supervised base's settings "
                                  "(those `leaderboard retrain` keeps): sft_tasks is an int in 1..100000"),
    ("sft", "sft.sft_tasks=100001", "option sft.sft_tasks=100001 is outside the bounds"),
    ("sft", "sft_epochs=101", "sft_epochs is an int in 1..100"),
    ("cw_grpo", "sft_dagger_rounds=21", "sft_dagger_rounds is an int in 0..20"),
    ("sft", "sft_dagger_tasks=10001", "sft_dagger_tasks is an int in 0..10000"),
    ("sft_greedy=sft[decoding=greedy]", "sft_batch_size=4097", "sft_batch_size is an int in 1..4096"),
])
def test_a_setting_past_the_retrain_bounds_is_one_line_before_any_folder(tmp_path, capsys, methods, option, said):
    line = refused_line(capsys, ["compare", "--suite", TINY_QA.id, "--methods", methods, "--budget", "0",
                                 "--no-progress", "--option", "init=sft", "--option", option], tmp_path / "cmp")
    assert said in line, line


def test_the_bounds_are_the_retrain_table(monkeypatch):
    """One table (option_bounds.OPTION_LIMITS) for both: lowered there, lowered here."""
    check_comparison(_comparison(sft_tasks=60, sft_dagger_rounds=20, sft_dagger_tasks=0))  # within: accepted
    monkeypatch.setitem(option_bounds.OPTION_LIMITS, "sft_tasks", 50)
    with pytest.raises(ValueError, match=r"method 'sft': option sft_tasks=60 .* sft_tasks is an int in 1\.\.50$"):
        check_comparison(_comparison(sft_tasks=60))


def test_sft_tasks_past_the_split_is_a_note_not_an_error(capsys):
    split = len(tasks(TINY_QA, "train"))
    check_comparison(_comparison(sft_tasks=split + 1))
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"note: sft_tasks={split + 1} is more than the {split} tasks of "
                                         f"{TINY_QA.id}'s train split: the supervised base demonstrates the whole split"]
    assert captured.out == ""
    for within in ({"sft_tasks": split}, {}):  # the split itself, or not given (the default is not the user's)
        check_comparison(_comparison(**within))
        assert capsys.readouterr().err == ""
