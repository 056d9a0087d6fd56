"""A CleanRL-style, single-file PPO with invalid-action masking on ``SearchQA-Numeric-Easy-v0``.

Everything is in this file, as in CleanRL: a Gymnasium env with ``Box`` observations (the
hashed features of :mod:`searchgym.wrappers`), an MLP actor-critic, GAE and the clipped PPO
loss. Masked logits are set to -1e8 so the policy only picks admissible candidates
(``info["action_mask"]``). Run: ``python -m searchgym.examples.cleanrl_ppo --total-steps 20000`` (shipped in the wheel).
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

try:  # the light core (pip install searchgym) has no torch: say which line brings it, not a traceback
    import torch
    from torch import nn
    from torch.distributions import Categorical
except ModuleNotFoundError as missing:
    raise SystemExit(f"this example needs {missing.name}: pip install 'searchgym[train]'") from None

import searchgym


def positive(text: str) -> int:
    """An argparse type: an int of at least 1 (0 divided by zero; a negative size ran nothing)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def number(low: float, high: float = math.inf, low_open: bool = False):
    """An argparse type: a finite float in [low, high] (``(low, high]`` with ``low_open``). Why: a
    negative or NaN --lr was a ValueError traceback from Adam; a gamma of 2 trained on nonsense."""
    words = f"{'>' if low_open else '>='} {low:g}" + (f" and <= {high:g}" if high < math.inf else "")

    def check(text: str) -> float:
        value = float(text)
        if not math.isfinite(value) or value < low or value > high or (low_open and value == low):
            raise argparse.ArgumentTypeError(f"must be a finite number {words}, got {text}")
        return value

    check.__name__ = "number"
    return check


def natural(text: str) -> int:
    """An argparse type: a seed, an int >= 0 (the env refuses a negative one, in a traceback)."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


#: The ids this file trains on: one agent, a Box observation and a Discrete action with a mask.
SINGLE_NUMERIC_IDS = ("SearchQA-Numeric-v0", "SearchQA-Numeric-Easy-v0")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--env-id", default="SearchQA-Numeric-Easy-v0", choices=SINGLE_NUMERIC_IDS,
                        help="a single-agent numeric searchgym id")
    parser.add_argument("--total-steps", type=positive, default=20_000,
                        help="training env steps (the last rollout is shorter when --num-steps does not divide it)")
    parser.add_argument("--num-steps", type=positive, default=512, help="env steps per rollout (at most)")
    parser.add_argument("--lr", type=number(0, low_open=True), default=1e-3, help="Adam learning rate")
    parser.add_argument("--gamma", type=number(0, 1), default=0.99, help="discount factor")
    parser.add_argument("--gae-lambda", type=number(0, 1), default=0.95, help="GAE lambda")
    parser.add_argument("--update-epochs", type=positive, default=4, help="passes over each rollout")
    parser.add_argument("--minibatch-size", type=positive, default=128, help="env steps per gradient step")
    parser.add_argument("--clip-coef", type=number(0, low_open=True), default=0.2,
                        help="PPO clip: ratios outside [1 - c, 1 + c] give no gradient")
    parser.add_argument("--ent-coef", type=number(0), default=0.01, help="weight of the entropy bonus")
    parser.add_argument("--vf-coef", type=number(0), default=0.5, help="weight of the value loss")
    parser.add_argument("--seed", type=natural, default=0, help="seed of the env, the weights and the draws")
    parser.add_argument("--eval-episodes", type=positive, default=50,
                        help="dev tasks played greedily at the end (at most the dev split's)")
    return parser.parse_args(argv)


class Agent(nn.Module):
    def __init__(self, obs_size: int, n_actions: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, 1))
        self.actor = nn.Sequential(nn.Linear(obs_size, 128), nn.Tanh(), nn.Linear(128, n_actions))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def get_action_and_value(self, obs: torch.Tensor, mask: torch.Tensor, action: torch.Tensor | None = None):
        logits = self.actor(obs).masked_fill(~mask, -1e8)
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def normalized(adv: torch.Tensor) -> torch.Tensor:
    """A minibatch's advantages, centred and scaled to unit std. A minibatch of one (``--num-steps``
    one more than a multiple of ``--minibatch-size``, or ``--minibatch-size 1``) is centred only, to 0:
    its std is NaN, which made every weight NaN and the next rollout fail inside ``Categorical``."""
    if adv.numel() < 2:
        return adv - adv
    return (adv - adv.mean()) / (adv.std() + 1e-8)


def evaluate(agent: Agent, env_id: str, episodes: int) -> tuple[float, int]:
    """(greedy success, dev tasks played): the first ``episodes`` dev tasks, or all if there are fewer."""
    env = searchgym.make(env_id, split="dev")
    tasks = env.unwrapped.tasks.tasks("dev")[:episodes]
    wins = []
    for i, task in enumerate(tasks):
        obs, info = env.reset(seed=i, options={"task_id": task.id})
        done = False
        while not done:
            with torch.no_grad():
                logits = agent.actor(torch.as_tensor(obs)).masked_fill(~torch.as_tensor(info["action_mask"] > 0), -1e8)
            obs, _, terminated, truncated, info = env.step(int(logits.argmax()))
            done = terminated or truncated
        wins.append(info["success"])
    return float(np.mean(wins)), len(wins)


def rollout_sizes(total_steps: int, num_steps: int) -> list[int]:
    """The env steps of each rollout: ``num_steps`` each, the last one what is left, so exactly
    ``total_steps`` are trained. Why: ``--total-steps 100`` trained one rollout of 512 steps, and
    ``--total-steps 1000`` one of 512 (a total that is not a multiple was rounded down)."""
    return [num_steps] * (total_steps // num_steps) + ([total_steps % num_steps] if total_steps % num_steps else [])


def main() -> None:
    args = parse_args()
    generator = torch.Generator().manual_seed(args.seed)
    env = searchgym.make(args.env_id)
    obs_size, n_actions = env.observation_space.shape[0], env.action_space.n
    with torch.random.fork_rng():
        torch.manual_seed(int(torch.randint(2**31 - 1, (1,), generator=generator)))
        agent = Agent(obs_size, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)

    obs_buf = torch.zeros(args.num_steps, obs_size)
    mask_buf = torch.zeros(args.num_steps, n_actions, dtype=torch.bool)
    actions = torch.zeros(args.num_steps, dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros(args.num_steps) for _ in range(4))

    obs, info = env.reset(seed=args.seed)
    sizes = rollout_sizes(args.total_steps, args.num_steps)
    updates, done = len(sizes), 0
    episode_returns, running = [], 0.0
    start = time.time()
    for update, size in enumerate(sizes, 1):
        for t in range(size):
            obs_buf[t] = torch.as_tensor(obs)
            mask_buf[t] = torch.as_tensor(info["action_mask"] > 0)
            with torch.random.fork_rng():
                torch.manual_seed(int(torch.randint(2**31 - 1, (1,), generator=generator)))
                with torch.no_grad():
                    action, logprob, _, value = agent.get_action_and_value(obs_buf[t:t + 1], mask_buf[t:t + 1])
            actions[t], logprobs[t], values[t] = action[0], logprob[0], value[0]
            obs, reward, terminated, truncated, info = env.step(int(action[0]))
            rewards[t], dones[t] = float(reward), float(terminated or truncated)
            running += float(reward)
            if terminated or truncated:
                episode_returns.append(running)
                running = 0.0
                obs, info = env.reset()

        with torch.no_grad():
            next_value = agent.value(torch.as_tensor(obs)[None])[0]
            advantages = torch.zeros(size)
            last = 0.0
            for t in reversed(range(size)):
                following = next_value if t == size - 1 else values[t + 1]
                nonterminal = 1.0 - dones[t]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + values[:size]

        for _ in range(args.update_epochs):
            order = torch.randperm(size, generator=generator)
            for begin in range(0, size, args.minibatch_size):
                idx = order[begin:begin + args.minibatch_size]
                _, new_logprob, entropy, new_value = agent.get_action_and_value(obs_buf[idx], mask_buf[idx], actions[idx])
                ratio = (new_logprob - logprobs[idx]).exp()
                adv = normalized(advantages[idx])
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                value_loss = 0.5 * (new_value - returns[idx]).pow(2).mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy.mean()
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), 0.5)
                optimizer.step()
        done += size
        recent = np.mean(episode_returns[-50:]) if episode_returns else float("nan")
        print(f"update {update}/{updates}: {done} steps, mean return (last 50 episodes) "
              f"{recent:.3f}, {time.time() - start:.0f}s", flush=True)

    success, played = evaluate(agent, args.env_id, args.eval_episodes)
    print(f"dev success {success:.3f} ({played} dev tasks, greedy)")  # before: said --eval-episodes, not played


if __name__ == "__main__":
    main()
