"""Which of a run's recorded settings tell two runs of its method apart: those the method reads.

A method says which options it reads with ``reads_option(name) -> bool`` on its callable (the
supervised base: its ``sft_*`` settings, ``decoding`` and ``policy_kwargs``), and that it trains on
no env-step budget with ``spends_budget = False``; a method that trains nothing reads no budget
either. Any other method's options and budget all count, as before. What config.json records is
unchanged: only the comparison of two records is. Why: an ``sft`` run records the comparison's
options and budget (``make main``'s ``init=sft``, ``lr``, ``--budget 10000``), which the base never
reads, so ``--methods sft`` without them, in the folder made by make main's command, was refused as
"a different run", though it plays the very same base.

An option given at the value the method takes without it (``option_defaults() -> {name: value}`` on
its callable: :mod:`~searchgym.harness.option_defaults`) is left out as well, on both sides: the
record made with ``--option lr=0.003`` and the command without it are one run, in either order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from searchgym.harness.methods import MethodRef, load_method, trains
from searchgym.harness.option_defaults import without_defaults


def read_options(options: Any, method: Callable[..., Any]) -> Any:
    """``options`` without those ``method`` says it does not read (all of them: a method that says nothing)."""
    reads = getattr(method, "reads_option", None)
    if not callable(reads) or not isinstance(options, dict):
        return options
    return {key: value for key, value in options.items() if reads(key)}


def option_defaults(method: Callable[..., Any]) -> dict[str, Any]:
    """What ``method`` says its options are when not given ({}: it says nothing, or cannot be asked here:
    a driver without its trainer's extras, where every option counts, as before)."""
    defaults = getattr(method, "option_defaults", None)
    if not callable(defaults):
        return {}
    try:
        return dict(defaults())
    except (ImportError, ValueError):  # load_callable reports a trainer that cannot be imported as ValueError
        return {}


def budget_matters(config: dict, method: Callable[..., Any]) -> bool:
    """Whether the budget tells runs apart: not for a method that trains nothing (random, reader, oracle),
    nor for one that spends none (sft fits demonstrations)."""
    if getattr(method, "spends_budget", None) is False:
        return False
    return config.get("trains") is not False or trains(method)


def compared_settings(config: dict, mine: dict, ref: MethodRef) -> tuple[dict, dict]:
    """config.json's settings and the run's, as they are compared: the options the method does not read or
    that are at its defaults, and a budget that does not matter to it, left out of both. The method is
    loaded only where they differ."""
    if config.get("options") == mine.get("options") and config.get("budget") == mine.get("budget"):
        return config, mine
    try:
        method = load_method(ref)
    except ImportError:  # a Ray driver without the method's extras: every setting counts, as before
        return config, mine
    defaults = option_defaults(method)
    there = {**config, "options": without_defaults(read_options(config.get("options"), method), defaults)}
    here = {**mine, "options": without_defaults(read_options(mine.get("options"), method), defaults)}
    if not budget_matters(config, method):
        there.pop("budget", None)
        here.pop("budget", None)
    return there, here
