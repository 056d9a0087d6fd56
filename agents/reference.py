"""The reference policy of the KL term: a frozen copy of the population's weights when training
started (the supervised base when a run starts from one), so RL that begins from a base can be
held near it (``LossConfig.kl_coef``).

It is taken at the first update, not when the trainer is built, so weights loaded into the
population after construction (a base) are the reference; the checkpoint keeps it (plain tensors)
so a resumed run is held to the same policy.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import torch
from torch import Tensor, nn

from .losses import categorical_kl
from .population import Population


class ReferencePolicy:
    """A frozen copy of a population (same modules, no gradients), scored per row with its member."""

    def __init__(self, population: Population) -> None:
        self.population = copy.deepcopy(population)
        for param in self.population.parameters():
            param.requires_grad_(False)

    def state_dict(self) -> dict[str, Tensor]:
        """Plain tensors (a checkpoint with it loads with ``weights_only=True``)."""
        return {name: tensor.detach().clone() for name, tensor in self.population.state_dict().items()}

    def load_state_dict(self, state: dict[str, Tensor]) -> None:
        self.population.load_state_dict(state)


def evaluate_with_kl(
    population: Population,
    reference: ReferencePolicy,
    obs: Sequence[dict],
    actions: Tensor,
    member_rows: Sequence[tuple[int, list[int]]],
    device: torch.device,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """(log_prob of ``actions``, entropy, value, KL(pi || pi_ref)) per row, each row scored by
    the member that plays it (``member_rows``: (member index, its rows)). The first three are what
    ``CandidatePolicy.evaluate`` gives; the KL is exact over each row's admissible candidates."""
    n = len(obs)
    outputs = [torch.zeros(n, device=device) for _ in range(4)]
    for k, rows in member_rows:
        policy: nn.Module = population.policy_for(k)
        part = [obs[i] for i in rows]
        logits, values = policy(part)
        log_probs, entropy = policy.distribution(logits)
        idx = torch.tensor(rows, device=device)
        chosen = log_probs.gather(-1, torch.as_tensor(actions, device=logits.device)[idx].long().view(-1, 1)).squeeze(-1)
        with torch.no_grad():
            ref_logits, _ = reference.population.policy_for(k)(part)
        kl = categorical_kl(logits, ref_logits)
        if len(member_rows) == 1 and len(rows) == n and rows == list(range(n)):
            return chosen, entropy, values, kl
        outputs = [out.index_put((idx,), part_out.to(out.dtype))
                   for out, part_out in zip(outputs, (chosen, entropy, values, kl))]
    return outputs[0], outputs[1], outputs[2], outputs[3]
