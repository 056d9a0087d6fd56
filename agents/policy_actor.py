"""A trained population deployed for scoring: how it acts on the dev curve and the test split."""

from __future__ import annotations

import numpy as np
import torch

from .population import Population

#: How a trained policy acts when it is scored (dev curve and test split). "sample": it draws
#: from its own distribution, the policy that was trained, with generators seeded per episode.
#: "greedy": the argmax. Greedy turns a policy that answers with probability 0.3 in every state
#: into one that never answers: on quick-v1 it scored 0.006 (COMA) and 0.000 (GRPO) on seed 1
#: where the same checkpoints sampled scored 0.087 and 0.056.
DECODINGS = ("sample", "greedy")
#: Seed of the trainer's dev-curve sampling generator (fixed: every evaluation of a run draws alike).
DEV_DECODING_SEED = 10_000


class PolicyActor:
    """Deployment of a trained population for the harness's evaluation (both env kinds).

    ``decoding="sample"`` draws each action from the policy with a generator reseeded at every
    episode from (``seed``, the episode's seed): an episode's actions do not depend on which
    episodes were played before it. ``"greedy"`` takes the argmax (see ``DECODINGS``)."""

    def __init__(self, population: Population, agents: list[str] | None = None, decoding: str = "sample",
                 seed: int = 0) -> None:
        if decoding not in DECODINGS:
            raise ValueError(f"unknown decoding {decoding!r}; accepted: {', '.join(DECODINGS)}")
        self.population, self.decoding, self.seed = population, decoding, int(seed)
        self.index = {a: k for k, a in enumerate(agents or [])}
        self.generator = torch.Generator()
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Start an episode: the sampling generator restarts from (actor seed, episode seed)."""
        state = np.random.SeedSequence([self.seed, 0 if seed is None else int(seed)]).generate_state(2)
        self.generator.manual_seed(int(state[0]) << 32 | int(state[1]))

    @torch.no_grad()
    def act(self, env, observation, info):
        greedy = self.decoding == "greedy"
        generator = None if greedy else self.generator
        if isinstance(observation, dict) and "action_mask" not in observation:  # parallel: {agent: obs}
            live = getattr(env, "agents", None)  # the observations also hold agents that just finished
            agents = [a for a in observation if live is None or a in live]
            from .rollout import act_batch

            actions, _, _ = act_batch(self.population, [observation[a] for a in agents],
                                      [self.index.get(a, 0) for a in agents], generator, greedy=greedy)
            return {a: int(actions[i]) for i, a in enumerate(agents)}
        actions, _, _ = self.population.policy_for(0).act([observation], generator, greedy=greedy)
        return int(actions[0])
