"""The loop the ``searchgym.agents`` docstring shows runs as written, on a real env: a rollout with
the judge's signals, advantages, calibration, the policy loss, an update and the value head. Before:
its ``fit_value`` line, given ``result.flat_returns()`` (an array) as the docstring said, failed in
torch ("Can't call numpy() on Tensor that requires grad"), and nothing ran the docstring."""

from __future__ import annotations

import numpy as np
import torch
from searchgym.agents import (
    AdvantageConfig,
    CalibrationConfig,
    Calibrator,
    LossConfig,
    Population,
    Step,
    Trajectory,
    compute_advantages,
    fit_value,
    policy_loss,
)

import searchgym


def test_the_documented_loop_runs_and_updates_the_policy():
    pop = Population.build("shared", n_agents=4, encoder="hash", device="cpu", seed=0)
    gen = torch.Generator().manual_seed(0)
    policy = pop.policy_for(0)
    env = searchgym.make("SearchQA-Candidates-v0", world_size="tiny")
    groups = []
    for task_index in range(2):
        group = []
        for attempt in range(2):
            obs, info = env.reset(seed=10 * task_index + attempt)
            steps, done = [], False
            while not done:
                a, logp, v = policy.act([obs], gen)
                assert a.shape == logp.shape == v.shape == (1,) and not logp.requires_grad
                obs_next, reward, terminated, truncated, info = env.step(int(a))
                done = terminated or truncated
                c, u, w = (info["signals"][key] for key in ("contribution", "new_gold", "consistent"))
                steps.append(Step(obs, int(a), float(logp), float(v), reward, done, obs["action_mask"],
                                  signals={"contribution": c, "new_gold": u, "consistent": w}))
                obs = obs_next
            group.append(Trajectory(steps, agent_id="agent_0", group_id=task_index, task_id=info["task_id"],
                                    success=info["success"]))
        groups.append(group)
    result = compute_advantages("cw_round", groups, AdvantageConfig())
    result, _ = Calibrator(CalibrationConfig()).apply(result)
    trajs = result.trajectories
    obs_b = [s.obs for t in trajs for s in t.steps]
    actions = torch.as_tensor(np.concatenate([t.actions for t in trajs]))
    old_logp = torch.as_tensor(np.concatenate([t.log_probs for t in trajs]), dtype=torch.float32)
    adv = torch.as_tensor(result.flat_advantages(), dtype=torch.float32)
    seq = torch.as_tensor(result.seq_ids())
    new_logp, entropy, _ = policy.evaluate(obs_b, actions)
    assert torch.allclose(new_logp.detach(), old_logp, atol=1e-5)  # the same weights score the same choices
    loss, _ = policy_loss(new_logp, old_logp, adv, entropy, seq, LossConfig())
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    before = [p.detach().clone() for p in policy.parameters()]
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    assert any(not torch.equal(b, p) for b, p in zip(before, policy.parameters()))
    old_values = np.array([s.value for t in trajs for s in t.steps])
    stats = fit_value(policy, optimizer, obs_b, result.flat_returns(), old_values, seq, LossConfig())
    as_tensors = fit_value(policy, optimizer, obs_b, torch.as_tensor(result.flat_returns(), dtype=torch.float32),
                           torch.as_tensor(old_values, dtype=torch.float32), seq, LossConfig())
    assert np.isfinite(stats["loss/value_last_epoch"]) and np.isfinite(as_tensors["loss/value_last_epoch"])
