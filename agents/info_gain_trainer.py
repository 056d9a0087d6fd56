"""The information-gain learner: the shared Trainer plus the signal its estimator reads.

Before each update it writes, on every step, the probability mass the current policy puts on
the admissible candidates that answer the task correctly (``Step.signals["gold_mass"]``); the
``"info_gain"`` estimator (:mod:`.process_estimators`) turns its increase over a round into
that round's reward. Which candidates answer correctly is scored from the task's gold answers:
training-time supervision, like the process judge, never shown to the agent.
"""

from __future__ import annotations

import json
import re

import numpy as np
import torch

from searchgym.scoring import score_answer

from .process_estimators import GOLD_MASS
from .train import Trainer

_ANSWER = re.compile(r'^answer\((".*?")\)(?:  <- |$)')


def answer_text(candidate: str) -> str | None:
    """The answer of an ``answer("...")`` candidate, else None."""
    match = _ANSWER.match(candidate)
    if not match:
        return None
    try:
        value = json.loads(match.group(1))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, str) else None


class InfoGainTrainer(Trainer):
    """See the module docstring; everything but the annotation (the ``annotate`` hook) is the shared Trainer."""

    def correct_mask(self, task_id: str, obs: dict, scored: dict[tuple[str, str], bool] | None = None) -> np.ndarray:
        """Which admissible candidates of ``obs`` answer the task correctly. ``scored`` memoises
        (task, answer) -> correct: the attempts of a group see mostly the same answers."""
        task = self._first_env().world.task_by_id[task_id]
        mask = np.asarray(obs["action_mask"]).astype(bool)
        scored = {} if scored is None else scored
        correct = np.zeros(len(obs["candidates"]), dtype=bool)
        for j, candidate in enumerate(obs["candidates"]):
            text = answer_text(str(candidate)) if mask[j] else None
            if text is not None:
                if (task_id, text) not in scored:
                    scored[task_id, text] = score_answer(task, text).success
                correct[j] = scored[task_id, text]
        return correct

    @torch.no_grad()
    def annotate(self, groups: list) -> dict[str, float]:
        """Each step's gold mass under the current policy (the hook the shared update calls first)."""
        scored: dict[tuple[str, str], bool] = {}  # for this batch only: the memo stays small
        for group in groups:
            for traj in group:
                policy = self.population.policy_for(self._agent_index(traj.agent_id))
                logits, _ = policy([s.obs for s in traj.steps])
                probs = torch.softmax(logits.float(), dim=-1).cpu().numpy()
                for t, step in enumerate(traj.steps):
                    correct = self.correct_mask(traj.task_id, step.obs, scored)
                    step.signals[GOLD_MASS] = float(probs[t, : len(correct)][correct].sum())
        masses = [s.signals[GOLD_MASS] for g in groups for t in g for s in t.steps]
        return {"info_gain/gold_mass_mean": float(np.mean(masses)) if masses else 0.0}
