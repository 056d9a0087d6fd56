"""Dynamic sampling: the update holds only groups whose returns differ, every draw counts toward
the budget, and the option off leaves a run exactly as it was."""

from __future__ import annotations

import pytest
import torch
from agents_helpers import tiny_train_config
from searchgym.agents.dynamic_sampling import has_signal
from searchgym.agents.train import Trainer


class _Traj:
    def __init__(self, final_return: float) -> None:
        self.final_return = final_return


def test_has_signal_reads_the_returns():
    assert has_signal([_Traj(0.0), _Traj(1.0), _Traj(0.0)])
    assert not has_signal([_Traj(1.0), _Traj(1.0)])
    assert not has_signal([_Traj(0.0)])


def _recording(trainer: Trainer) -> list[list]:
    """Wrap the trainer's update to record the groups each call receives."""
    seen: list[list] = []
    update = trainer.update

    def record(groups):
        seen.append(groups)
        return update(groups)

    trainer.update = record
    return seen


def test_updates_hold_only_groups_with_signal_and_every_draw_is_counted():
    trainer = Trainer(tiny_train_config(estimator="grpo", dynamic_sampling=3, tasks_per_iteration=4))
    seen = _recording(trainer)
    rows = [trainer.iterate() for _ in range(4)]
    assert rows and all(has_signal(g) for groups in seen for g in groups)
    for row in rows:
        assert 1 <= row["dynamic/draws"] <= 4
        assert row["dynamic/groups_drawn"] == row["dynamic/draws"] * 4
        assert row["env_steps_this_iteration"] >= row["dynamic/groups_drawn"] * 3  # 3 episodes a group, >= 1 step each
        kept = row["dynamic/groups_kept"]
        assert row["dynamic/zero_variance_fraction"] == pytest.approx(1 - kept / row["dynamic/groups_drawn"])
        # it draws again only while it holds fewer than tasks_per_iteration groups with signal
        assert row["dynamic/draws"] == 4 or kept >= 4
    assert trainer.state.env_steps == sum(row["env_steps_this_iteration"] for row in rows)
    drew_more = [row for row in rows if row["dynamic/draws"] > 1]
    assert drew_more, "the tiny world's groups never lacked signal: the test does not exercise a second draw"


def test_no_draw_starts_once_the_budget_is_spent():
    trainer = Trainer(tiny_train_config(estimator="grpo", dynamic_sampling=50, tasks_per_iteration=2, budget=1))
    row = trainer.iterate()
    assert row["dynamic/draws"] == 1


def test_off_is_the_run_without_the_option():
    plain = Trainer(tiny_train_config(estimator="cw_round"))
    off = Trainer(tiny_train_config(estimator="cw_round", dynamic_sampling=0))
    for _ in range(3):
        a, b = plain.iterate(), off.iterate()
        assert a["step"] == b["step"] and a["train_success"] == b["train_success"]
        assert not any(key.startswith("dynamic/") for key in b)
    for (name, x), (_, y) in zip(plain.population.state_dict().items(), off.population.state_dict().items()):
        assert torch.equal(x, y), name


def test_refused_where_it_drops_what_a_method_learns_from():
    with pytest.raises(ValueError, match="dynamic_sampling must be an integer >= 0"):
        tiny_train_config(dynamic_sampling=-1)

    class WithCritic(Trainer):  # as MAPPO and COMA: an update of its own, fitting a critic on every episode
        def update(self, groups):
            return {}

    with pytest.raises(ValueError, match="WithCritic fits a critic on every episode"):
        WithCritic(tiny_train_config(estimator="grpo", dynamic_sampling=2))
    WithCritic(tiny_train_config(estimator="grpo"))  # without the option it runs as before
