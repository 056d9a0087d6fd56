"""``leaderboard retrain`` bounds the supervised base a submission's options ask for, before any re-run.

Before: sft_epochs=1000, sft_dagger_rounds=1000, sft_dagger_tasks=10**6, sft_tasks=10**6 passed every
check and the re-run started building the base (1000 rounds of 10**6 episodes, each followed by 1000
epochs, partial.pt saved after each); only the RL env-step budget was bounded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.leaderboard_checks import SubmissionRejected
from searchgym.leaderboard_retrain import MAX_BASE_EPISODES, MAX_BASE_FIT, OPTION_LIMITS, check_run_bounds

pytestmark = pytest.mark.timeout(120)  # before the fix, the first test built the huge base
BOARD = Path(__file__).resolve().parents[1] / "leaderboard" / "submissions"
SFT_LIMITS = {"sft_tasks": (1, 100_000), "sft_epochs": (1, 100), "sft_batch_size": (1, 4096),
              "sft_dagger_rounds": (0, 20), "sft_dagger_tasks": (0, 10_000)}


def _submission(method: str = "sft", **options) -> dict:
    submission = json.loads((BOARD / f"quick-v2__{method}__seed0.json").read_text())
    submission["run"]["options"].update(options)
    return submission


def _refused(submission: dict) -> str:
    with pytest.raises(SubmissionRejected) as caught:
        check_run_bounds(submission)
    return str(caught.value)


def test_the_reviewers_submission_is_refused_before_anything_is_made(tmp_path, capsys):
    path = tmp_path / "heavy.json"
    path.write_text(json.dumps(_submission("coma", sft_epochs=1000, sft_dagger_rounds=1000,
                                           sft_dagger_tasks=1_000_000, sft_tasks=1_000_000)))
    assert main(["leaderboard", "retrain", str(path), "--out", str(tmp_path / "out")]) != 0
    assert capsys.readouterr().out == (f"CANNOT RETRAIN {path}: run.options.sft_dagger_rounds (1000) is outside the "
                                       "retrain limit for sft_dagger_rounds: an int in 0..20\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", sorted(SFT_LIMITS))
@pytest.mark.parametrize("prefix", ["", "sft."])
def test_each_setting_of_the_base_is_bounded(name, prefix):
    low, high = SFT_LIMITS[name]
    assert OPTION_LIMITS[name] == high
    for bad in (high + 1, 10**9, low - 1, float(high)):
        assert _refused(_submission(**{prefix + name: bad})) == (
            f"run.options.{prefix}{name} ({bad!r}) is outside the retrain limit for {name}: an int in {low}..{high}")


def test_the_episodes_the_base_plays_are_bounded():
    message = _refused(_submission(sft_dagger_rounds=20, sft_dagger_tasks=1000))
    assert message == ("run.options (sft_tasks=1000, sft_epochs=16, sft_dagger_rounds=20, sft_dagger_tasks=1000) "
                       "would have the supervised base play 20894 episodes (sft_tasks + sft_dagger_rounds x "
                       f"sft_dagger_tasks); the retrain limit is {MAX_BASE_EPISODES}")  # 894: quick-v2's train split


def test_the_episodes_the_base_fits_over_its_epochs_are_bounded():
    # 100 x (21 x 894 demonstrated + 500 x (1 + ... + 20) played in the rounds) = 12,377,400
    message = _refused(_submission(**{"sft.sft_epochs": 100, "sft_dagger_rounds": 20, "sft_dagger_tasks": 500}))
    assert message == ("run.options (sft_tasks=1000, sft_epochs=100, sft_dagger_rounds=20, sft_dagger_tasks=500) "
                       "would have the supervised base fit 12377400 episodes over its epochs (sft_epochs x the "
                       "episodes so far, after each DAgger round); the retrain limit is "
                       f"{MAX_BASE_FIT}")
    _refused(_submission("grpo", init="sft", sft_epochs=100, sft_dagger_rounds=20, sft_dagger_tasks=500))


@pytest.mark.parametrize("options", [
    {},  # make main's base: every train task (894 of the default 1000), 16 epochs
    {"sft_dagger_rounds": 2, "sft_dagger_tasks": 300},  # the README's DAgger base
    {"sft_epochs": 24}, {"sft_tasks": 150}, {"sft_tasks": 450, "sft_epochs": 8},  # the docs' other bases
    {"sft_tasks": 100_000, "sft_epochs": 100, "sft_dagger_rounds": 2, "sft_dagger_tasks": 300},  # the split, played
    {"sft_batch_size": 4096, "sft_dagger_rounds": 20, "sft_dagger_tasks": 50},
])
def test_the_documented_bases_and_generous_ones_are_accepted(options):
    check_run_bounds(_submission(**options))
    check_run_bounds(_submission("grpo", **options))
