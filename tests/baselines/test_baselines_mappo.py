"""MAPPO / IPPO pieces on hand cases: value normalisation, GAE from a critic, the state critic."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from searchgym.agents import AdvantageConfig, Step, Trajectory
from searchgym.baselines.critics import StateCritic, ValueNorm
from baselines_helpers import TINY_TEAM, make_ctx, spec_config
from searchgym.baselines.mappo import MAPPOConfig, MAPPOTrainer, gae_with_values


def _traj(rewards: list[float], stored_value: float = 7.0) -> Trajectory:
    obs = {"text": "Q", "candidates": ("a",), "action_mask": np.ones(1, dtype=np.int8)}
    return Trajectory([Step(obs, 0, 0.0, stored_value, r, t == len(rewards) - 1, obs["action_mask"])
                       for t, r in enumerate(rewards)])


def test_value_norm_by_hand():
    norm = ValueNorm()
    norm.update(np.array([1.0, 2.0, 3.0]))
    # running mean 2, variance 2/3 (the 1e-4 prior count moves them by ~1e-4)
    assert norm.stats.mean == pytest.approx(2.0, rel=1e-3) and norm.stats.var == pytest.approx(2 / 3, rel=1e-3)
    assert norm.normalize(np.array([3.0]))[0] == pytest.approx(1 / np.sqrt(2 / 3), rel=1e-3)
    np.testing.assert_allclose(norm.denormalize(norm.normalize(np.array([-1.0, 5.0]))), [-1.0, 5.0])
    norm.update(np.array([5.0]))  # four values 1, 2, 3, 5: mean 2.75, variance 2.1875
    assert norm.stats.mean == pytest.approx(2.75, rel=1e-3) and norm.stats.var == pytest.approx(2.1875, rel=1e-3)
    restored = ValueNorm()
    restored.load_state_dict(norm.state_dict())
    assert restored.normalize(np.array([4.0]))[0] == pytest.approx(norm.normalize(np.array([4.0]))[0])
    off = ValueNorm(enabled=False)
    off.update(np.array([10.0, 20.0]))
    assert off.normalize(np.array([3.0]))[0] == 3.0 and off.denormalize(np.array([3.0]))[0] == 3.0


def test_gae_uses_the_critic_values_not_the_stored_ones():
    # rewards (0, 1), critic values (0.5, 0.8), gamma 1, lambda 0.95:
    # delta_1 = 1 - 0.8 = 0.2 (done), A_1 = 0.2; delta_0 = 0 + 0.8 - 0.5 = 0.3, A_0 = 0.3 + 0.95 * 0.2 = 0.49
    # returns = A + V = (0.99, 1.0). A second agent's one-step trajectory: A = 0 - 0.25 = -0.25.
    groups = [[_traj([0.0, 1.0])], [_traj([0.0])]]
    result = gae_with_values(groups, [np.array([0.5, 0.8]), np.array([0.25])], AdvantageConfig(gamma=1.0, gae_lambda=0.95))
    np.testing.assert_allclose(result.flat_advantages(), [0.49, 0.2, -0.25])
    np.testing.assert_allclose(result.flat_returns(), [0.99, 1.0, 0.0])
    assert groups[0][0].steps[0].value == 7.0  # the caller's trajectories are untouched
    with pytest.raises(ValueError, match="shape"):
        gae_with_values(groups, [np.array([0.5]), np.array([0.25])], AdvantageConfig())


def test_state_critic_sees_the_agent():
    torch.manual_seed(0)
    critic = StateCritic(state_dim=4, n_agents=3, hidden=16)
    states = torch.rand(1, 4).expand(3, 4)
    values = critic(states, torch.tensor([0, 1, 2]))
    assert values.shape == (3,) and len(set(values.tolist())) == 3  # same state, one value per agent


def test_mappo_keeps_the_papers_clip(tmp_path):
    ctx = make_ctx(TINY_TEAM, tmp_path)
    loss = spec_config("mappo", ctx).loss
    assert (loss.eps_low, loss.eps_high, loss.dual_clip, loss.value_clip) == (0.2, 0.2, None, 0.2)
    with pytest.raises(ValueError, match=r"PPO clip must be in \(0, 0.2\]"):
        MAPPOTrainer(spec_config("mappo", make_ctx(TINY_TEAM, tmp_path, eps_high=0.3)))


@pytest.mark.parametrize("bad", [-1, True, "3", 1.5, None])
def test_critic_warmup_refuses_what_is_not_a_count(bad):
    with pytest.raises(ValueError, match="critic_warmup must be an int >= 0"):
        MAPPOConfig(critic_warmup=bad)


def test_critic_warmup_needs_the_centralised_critic():
    with pytest.raises(ValueError, match="IPPO's critic is the policy's value head"):
        MAPPOConfig(centralised=False, critic_warmup=2)
    assert MAPPOConfig(centralised=False).critic_warmup == 0


def _weights(module: torch.nn.Module) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def _changed(before: dict[str, torch.Tensor], module: torch.nn.Module) -> bool:
    return any(not torch.equal(before[k], v) for k, v in module.state_dict().items())


def test_warmup_iterations_fit_the_critic_and_leave_the_policy(tmp_path):
    ctx = make_ctx(TINY_TEAM, tmp_path, budget=100, critic_warmup=1, **{"loss.entropy_coef": 0.5})
    trainer = MAPPOTrainer(spec_config("mappo", ctx), log=lambda row: None)
    policy, critic = _weights(trainer.population), _weights(trainer.critic)
    warm = trainer.iterate()
    assert warm["mappo/critic_warmup"] == 1.0 and "loss/policy" not in warm
    assert "calib/standardize_std" not in warm  # no policy loss, so no advantages are reported
    assert not _changed(policy, trainer.population) and _changed(critic, trainer.critic)
    after = trainer.iterate()  # past the warm-up: the policy moves (the entropy bonus alone moves it)
    assert "mappo/critic_warmup" not in after and _changed(policy, trainer.population)
    assert "calib/standardize_std" in after
