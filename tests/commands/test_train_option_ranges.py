"""`searchgym train --options` values out of range: one error line naming the option and what it
takes, before any run folder. Before: update_epochs=0 and max_grad_norm=-1 trained (nothing, or
by gradient ascent) and wrote a result, gamma=2 / round_gamma=-1 / baseline_lr=-1 ran silently,
NaN ended in a torch traceback, and population_mode=bogus, adv_clip=-1 and rollout_workers=-1
failed only after config.json, metrics.jsonl and checkpoint/ were written."""

from __future__ import annotations

import pytest
from searchgym.agents.advantages import AdvantageConfig
from searchgym.agents.calibration import CalibrationConfig

from searchgym.cli import main

TRAIN = ["train", "--method", "grpo", "--env", "SearchQA-Candidates-Easy-v0", "--world-size", "tiny",
         "--test-size", "2", "--budget", "8", "--device", "cpu", "--no-progress"]

CASES = [
    ('{"update_epochs": 0}', "update_epochs must be an integer >= 1; got 0"),
    ('{"max_grad_norm": -1}', "max_grad_norm must be a number > 0 (gradients are clipped to that norm"),
    ('{"population_mode": "bogus"}', "unknown population_mode 'bogus'; accepted: shared, separate, shared_trunk"),
    ('{"rollout_workers": -1}', "rollout_workers must be an integer >= 0; got -1"),
    ('{"adv_clip": -1}', "adv_clip must be a number > 0 (clip(A, -c, c); null: off); got -1"),
    ('{"baseline_lr": -1}', "baseline_lr must be a number > 0"),
    ('{"gamma": 2}', "gamma must be a number in [0, 1] (the discount); got 2"),
    ('{"gae_lambda": -3}', "gae_lambda must be a number in [0, 1]"),
    ('{"round_gamma": -1}', "round_gamma must be a number >= 0"),
    ('{"loss.entropy_coef": NaN}', "option 'loss.entropy_coef' of grpo takes a number, got NaN"),
    # before: a 1.3 TB layer built in the check, memory grown for minutes, a NaN-probability traceback
    ('{"policy_kwargs": {"hidden": 1000000000}}',
     "policy_kwargs.hidden (1000000000) is outside the bounds of a policy's options for hidden: an int in 1..4096"),
    # before: accepted, a policy of constant logits that never changed and scored as random did
    ('{"policy_kwargs": {"hidden": 0}}',
     "policy_kwargs.hidden (0) is outside the bounds of a policy's options for hidden: an int in 1..4096"),
    ('{"group_size": 100000000}', "group_size must be an integer <= 4096; got 100000000"),
    ('{"tasks_per_iteration": 5000}', "tasks_per_iteration must be an integer <= 4096; got 5000"),
    ('{"kl_coef": 1e308}', "kl_coef must be in [0, 1e+06] (0: no KL term"),
]


@pytest.mark.parametrize(("options", "message"), CASES)
def test_an_out_of_range_option_is_one_line_before_any_folder(tmp_path, capsys, options, message):
    out = tmp_path / "run"
    assert main([*TRAIN, "--options", options, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"searchgym train: error: method 'grpo': {message}" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_the_edges_stay_accepted():
    """inf is a setting (no clipping; round_gamma's c_k / sum(c)), as are 0 and 1 where the range holds them."""
    AdvantageConfig(gamma=0.0, gae_lambda=1.0, eps=0.0, round_gamma=float("inf"), cw_clip_lo=0.5, cw_clip_hi=0.5)
    AdvantageConfig(round_gamma=0.0)
    CalibrationConfig(adv_clip=None, standardize_eps=0.0)
    with pytest.raises(ValueError, match="cw_clip_lo must be a number in"):
        AdvantageConfig(cw_clip_lo=3.0, cw_clip_hi=2.0)
