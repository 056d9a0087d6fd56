"""results.md's training budgets: a row per (method, budget) where a method's runs differ in budget,
and the sentence that gives the budget.

Why: ``searchgym report`` over runs of one method made with different ``--budget`` (a seed added
later with another budget) pooled them into one row, whose mean and interval mixed budgets, and
results.md only said that budgets differ. Such a method's runs now get a row per budget, labelled
``<method>@budget<N>`` (``@`` is in no method label, so it names no other method). Where each
method's runs share one budget, nothing changes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from searchgym.json_fields import is_number


def run_budget(config: dict[str, Any]) -> int | None:
    """The env-step budget a run trained on; None for one the budget does not touch: a method that
    trains nothing, or one that fits something else (sft: its ``training_budget`` is its
    demonstrations' steps, which differ by seed)."""
    budget = config.get("budget")
    if not config.get("trains", True) or config.get("training_budget", budget) != budget:
        return None
    return budget if isinstance(budget, int) and not isinstance(budget, bool) else None


def budget_label(label: str, budget: int) -> str:
    return f"{label}@budget{budget}"


def split_by_budget(records: Sequence[Any], labels: Sequence[str]) -> tuple[list[Any], list[str], dict[str, list[str]]]:
    """(records, labels, splits): a method whose runs differ in budget becomes a label per budget
    (in its place, smallest budget first), its records relabelled; ``splits`` maps such a method to
    its new labels. Every method's runs sharing one budget: all returned as given."""
    budgets: dict[str, set[int | None]] = {}
    for r in records:
        budgets.setdefault(r.label, set()).add(run_budget(r.config))
    splits = {label: [label] * (None in found) + [budget_label(label, b) for b in sorted(b for b in found if b is not None)]
              for label, found in budgets.items() if len(found) > 1}
    if not splits:
        return list(records), list(labels), {}
    shown = [new for label in labels for new in splits.get(label, [label])]
    relabelled = [replace(r, label=budget_label(r.label, b))
                  if r.label in splits and (b := run_budget(r.config)) is not None else r for r in records]
    order = {label: i for i, label in reversed(list(enumerate(shown)))}
    return sorted(relabelled, key=lambda r: order.get(r.label, len(order))), shown, splits


def budget_sentence(budget: int | None, records: Sequence[Any], split: bool = False) -> str:
    """The budget (None: budgets differ) and what learning runs spent: a begun iteration ends, past the
    budget. ``split``: a method's runs differ in budget, so it has a row per budget. Where budgets differ
    and no run trains (a baseline's run reused across budgets records its first), it says none applies."""
    said = (f"training budget {budget} env steps (methods that train)" if budget is not None else
            "training budgets differ between the runs (each run's config.json records its own)")
    if budget is None and records and not any(r.config.get("trains", True) for r in records):
        said += "; no method here trains, so none applies"  # a baseline's run is one at any budget (reused)
    if split:
        said += "; a method whose runs differ in budget has a row per budget (<method>@budget<N>)"
    spending = [r for r in records if r.config.get("training_budget") == r.config.get("budget") != 0]
    last = [max(steps) for r in spending if (steps := [row["step"] for row in r.metrics if is_number(row.get("step"))])]
    if not last:
        return said
    lo, hi = int(min(last)), int(max(last))
    return f"{said}; the learning runs used {lo}{'' if lo == hi else f' to {hi}'} (a begun iteration ends)"
