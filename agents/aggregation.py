"""Loss aggregations, as a table: how the per-step losses of a batch become one scalar.

Each mode is one entry of ``AGGREGATIONS`` (added with :func:`register_aggregation`), so a
trainer looks a mode up instead of walking an if-chain, and an unknown name fails once, in
:func:`get_aggregation`, with the list of accepted ones. For per-step losses l_{i,t} of
trajectory i with T_i steps:

- "token-mean":              sum_{i,t} l_{i,t} / sum_i T_i          (every step weighs the same)
- "seq-mean-token-mean":     mean_i ( sum_t l_{i,t} / T_i )         (every trajectory weighs the same; GRPO)
- "seq-mean-token-sum":      mean_i ( sum_t l_{i,t} )               (long trajectories weigh more; verl's mode)
- "seq-mean-token-sum-norm": mean_i ( sum_t l_{i,t} / L )           (L = norm_length, a constant; Dr.GRPO)

Inputs are flat, shape [S], with ``seq_ids`` [S] (long) naming each step's trajectory; ids absent
from ``seq_ids`` (a minibatch) are ignored, not counted as empty trajectories. ``weight_by`` says
how a micro-batch's share of a whole batch is measured (``llm_losses``): by its scored tokens for
a mean over tokens, by its sequences for a mean over sequences.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor

from searchgym.named_registry import SLUG, NamedRegistry

Reduce = Callable[[Tensor, Tensor, "int | None"], Tensor]


@dataclass(frozen=True)
class Aggregation:
    """One mode: its reduction and what the callers need to know about it."""

    name: str
    reduce: Reduce  # (per_step [S], seq_ids [S], norm_length) -> scalar
    weight_by: str  # "tokens" or "sequences": what a micro-batch's share of the batch counts
    needs_norm_length: bool = False


AGGREGATIONS: NamedRegistry[Aggregation] = NamedRegistry("loss aggregation", name_pattern=SLUG)


def register_aggregation(name: str, weight_by: str = "sequences",
                         needs_norm_length: bool = False) -> Callable[[Reduce], Reduce]:
    """Decorator: add ``fn(per_step, seq_ids, norm_length) -> scalar`` to the table under ``name``."""
    if weight_by not in ("tokens", "sequences"):
        raise ValueError(f"weight_by must be 'tokens' or 'sequences'; got {weight_by!r}")

    def decorate(fn: Reduce) -> Reduce:
        AGGREGATIONS.add(name, Aggregation(name, fn, weight_by, needs_norm_length))
        return fn

    return decorate


def get_aggregation(name: str) -> Aggregation:
    """The table entry of ``name``; an unknown name is an error that lists the accepted ones."""
    return AGGREGATIONS.get(name)


def check_norm_length(name: str, norm_length: int | None, where: str = "norm_length") -> None:
    """A mode that divides by a constant length needs one (> 0)."""
    if get_aggregation(name).needs_norm_length and (norm_length is None or norm_length <= 0):
        raise ValueError(f"aggregation {name!r} needs {where} > 0: the constant length L that divides every "
                         "sequence's sum (for example the env's max steps per episode)")


def aggregate(per_step: Tensor, seq_ids: Tensor, mode: str, norm_length: int | None = None) -> Tensor:
    """Reduce per-step losses [S] to a scalar with the mode ``mode`` (see the module docstring)."""
    entry = get_aggregation(mode)
    check_norm_length(mode, norm_length)
    return entry.reduce(per_step, seq_ids, norm_length)


def per_sequence_sums(per_step: Tensor, seq_ids: Tensor) -> tuple[Tensor, Tensor]:
    """(sum of the steps, number of steps) of every trajectory present in ``seq_ids``."""
    seq_ids = seq_ids.to(per_step.device).long()
    n = int(seq_ids.max()) + 1
    sums = torch.zeros(n, dtype=per_step.dtype, device=per_step.device).index_add(0, seq_ids, per_step)
    counts = torch.bincount(seq_ids, minlength=n)
    present = counts > 0
    return sums[present], counts[present]


@register_aggregation("token-mean", weight_by="tokens")
def token_mean(per_step: Tensor, seq_ids: Tensor, norm_length: int | None = None) -> Tensor:
    return per_step.mean()


@register_aggregation("seq-mean-token-mean")
def seq_mean_token_mean(per_step: Tensor, seq_ids: Tensor, norm_length: int | None = None) -> Tensor:
    sums, counts = per_sequence_sums(per_step, seq_ids)
    return (sums / counts.to(per_step.dtype)).mean()


@register_aggregation("seq-mean-token-sum")
def seq_mean_token_sum(per_step: Tensor, seq_ids: Tensor, norm_length: int | None = None) -> Tensor:
    sums, _ = per_sequence_sums(per_step, seq_ids)
    return sums.mean()


@register_aggregation("seq-mean-token-sum-norm", needs_norm_length=True)
def seq_mean_token_sum_norm(per_step: Tensor, seq_ids: Tensor, norm_length: int | None = None) -> Tensor:
    sums, _ = per_sequence_sums(per_step, seq_ids)
    return (sums / float(norm_length)).mean()
