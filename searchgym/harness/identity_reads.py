"""Which of a run's recorded settings tell two runs of its method apart: those the method reads.

A method says which options it reads with ``reads_option(name) -> bool`` on its callable (the
supervised base: its ``sft_*`` settings, ``decoding`` and ``policy_kwargs``; random and the oracle:
none; the reader: its own), that it trains on no env-step budget with ``spends_budget = False``
(a method that trains nothing reads no budget either), and that it plays no policy of ``--policy``'s
with ``reads_policy = False`` (the baselines). Any other method's options and budget all count, as before. What config.json records is
unchanged: only the comparison of two records is. Why: an ``sft`` run records the comparison's
options and budget (``make main``'s ``init=sft``, ``lr``, ``--budget 10000``), which the base never
reads, so ``--methods sft`` without them, in the folder made by make main's command, was refused as
"a different run", though it plays the very same base.

An option given at the value the method takes without it (``option_defaults() -> {name: value}`` on
its callable: :mod:`~searchgym.harness.option_defaults`) is left out as well, on both sides: the
record made with ``--option lr=0.003`` and the command without it are one run, in either order; so
are ``policy_kwargs`` at the policy's own defaults and base settings the build reads as the default's
(``sft_tasks`` above the train split), each read in the form the run builds from.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from searchgym.harness.methods import MethodRef, load_method, trains
from searchgym.harness.option_defaults import policy_kwargs_as_built, sft_settings_as_built, without_defaults
from searchgym.suites import Suite, tasks


#: What a run records of the policy it trains: left out for a method that plays none (``reads_policy = False``).
POLICY_KEYS = ("policy", "policy_format", "feature_versions")


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


def compared_settings(config: dict, mine: dict, ref: MethodRef,
                      suite: Suite | None = None) -> tuple[dict, dict]:
    """config.json's settings and the run's, as they are compared: the options the method does not read or
    that are at its defaults, and a budget that does not matter to it, left out of both; ``policy_kwargs``
    and the base's settings in the form the run builds from (the latter only where ``suite`` is given: its
    train split's size). The method is loaded only where they differ."""
    if all(config.get(key) == mine.get(key) for key in ("options", "budget", *POLICY_KEYS)):
        return config, mine
    try:
        method = load_method(ref)
    except ImportError:  # a Ray driver without the method's extras: every setting counts, as before
        return config, mine
    defaults = option_defaults(method)
    # the train split's size, for a method with the base's settings (sft, and learners' init=sft)
    n_train = _train_size(suite) if suite is not None and "sft_tasks" in defaults else None
    there = {**config, "options": _as_compared(config, method, defaults, n_train)}
    here = {**mine, "options": _as_compared(mine, method, defaults, n_train)}
    if not budget_matters(config, method):
        there.pop("budget", None)
        here.pop("budget", None)
    if getattr(method, "reads_policy", True) is False:  # a baseline plays no policy of --policy's
        for key in POLICY_KEYS:
            there.pop(key, None)
            here.pop(key, None)
    return there, here


def _as_compared(settings: dict, method: Callable[..., Any], defaults: dict[str, Any],
                 n_train: int | None) -> Any:
    """The options of ``settings`` (config.json's or the run's) as :func:`compared_settings` compares them."""
    options = read_options(settings.get("options"), method)
    reads = getattr(method, "reads_option", None)  # the base reads policy_kwargs; a learner has the option

    def builds_with(key: str) -> bool:
        return key in defaults or (callable(reads) and bool(reads(key)))

    options = policy_kwargs_as_built(options, settings.get("policy"), builds_with)
    if n_train is not None:
        options = sft_settings_as_built(options, n_train, defaults)
    return without_defaults(options, defaults)


def _train_size(suite: Suite) -> int | None:
    """The number of train tasks ``suite`` has (None where it has none to count)."""
    try:
        return len(tasks(suite, "train"))
    except ValueError:
        return None
