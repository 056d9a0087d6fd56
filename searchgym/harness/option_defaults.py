"""The value each option of a method takes when it is not given, where that value is one and plain.

A run given an option at this value trains what the run without it trains, so a run's identity
(:mod:`~searchgym.harness.identity_reads`) leaves such an option out. Why: ``--option lr=0.003``
(TrainConfig's own lr) found a finished run without it "a different run (options.lr: None there,
0.003 now)", and the reverse. The values are read from where the run reads them, never written out
here: a learning method's spec (its ``defaults``, ``aggregation`` and ``value_head``) over the
trainer config's declared field defaults; the supervised base's ``SFTConfig``; the reader's
``ReaderPolicy``; the LLM method's ``OPTIONAL_ARGS`` (:mod:`~searchgym.harness.llm_method`).

Left out, so they still tell runs apart at any value: the trainer's own options (``method.*``:
MAPPO's, COMA's) but those the spec sets (IPPO's ``centralised``), as the trainer config records
them as given, so a checkpoint made without one is not resumed with it; and a field with no
declared default. A value counts as the default when it
is equal to it (the identity's own equality: ``3`` and ``3.0`` are one value there too).

Two options are read in the form the run builds from: ``policy_kwargs`` less those at the policy's
own constructor defaults (``{"hidden": 128}`` for the hash policy; a value of another type, ``128.0``,
is kept), and the supervised base's settings as its build reads them on the suite's train split
(``sft_tasks=5000`` above a split of 200 tasks demonstrates the whole split, as the default's 1000
does; ``sft_dagger_tasks`` without DAgger rounds is never read). Before, each was a different run
from the run without it. Both are the forms the base's key is hashed in
(:mod:`~searchgym.harness.base_key`), so two settings of one base are one run.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from searchgym.method_table import MethodSpec

#: Where an option's default is not one plain value for every run of the method (see the module docstring).
NOT_PLAIN_PLACES = ("method",)


def declared_defaults(kind: type | None) -> dict[str, Any]:
    """A dataclass's fields -> their declared default (a factory's value); fields without one are left out."""
    if kind is None:
        return {}
    out = {}
    for field in dataclasses.fields(kind):
        if field.default is not dataclasses.MISSING:
            out[field.name] = field.default
        elif field.default_factory is not dataclasses.MISSING:
            out[field.name] = field.default_factory()
    return out


def _place(name: str, places: Mapping[str, list[str]]) -> tuple[str, str] | None:
    """``(place, field)`` of an option name as the spec's options resolve it (None: unknown or ambiguous)."""
    place, _, short = name.rpartition(".")
    found = places.get(short, [])
    if place:
        return (place, short) if place in found else None
    return (found[0], short) if len(found) == 1 else None


def spec_option_defaults(spec: MethodSpec, places: Mapping[str, list[str]],
                         kinds: Mapping[str, type | None]) -> dict[str, Any]:
    """Every spelling of each option of ``spec`` (``lr``, ``train.lr``, ``loss.eps_high``, ``eps_high``
    where only one place has it) -> the value its run takes when the option is not given. ``places``: each
    option name -> where it lives (``option_targets``); ``kinds``: each place -> its dataclass."""
    values = {(place, name): value for place, kind in kinds.items() if place not in NOT_PLAIN_PLACES
              for name, value in declared_defaults(kind).items() if place in places.get(name, [])}
    values[("loss", "aggregation")] = spec.aggregation  # what build_config sets where no option does
    values[("train", "value_head")] = spec.value_head
    for name, value in spec.defaults.items():
        where = _place(name, places)
        if where is not None:  # a trainer's own option too: the spec gives it to every run's trainer config
            values[where] = value
        else:  # a default the spec's options would refuse: no field it may name has a default known for sure
            short = name.rpartition(".")[2]
            for place in places.get(short, []):
                values.pop((place, short), None)
    spelled: dict[str, Any] = {}
    for (place, name), value in values.items():
        spelled[f"{place}.{name}"] = value
        if places.get(name) == [place]:
            spelled[name] = value
    return spelled


def sft_option_defaults() -> dict[str, Any]:
    """The supervised base's ``sft_*`` settings (plain or ``sft.``-prefixed) -> SFTConfig's defaults."""
    from searchgym.agents.imitation import SFTConfig

    declared = declared_defaults(SFTConfig)
    return {**declared, **{f"sft.{name}": value for name, value in declared.items()}}


def reader_option_defaults() -> dict[str, Any]:
    """The reader's options -> ReaderPolicy's declared defaults, a tool list spelt as ``--option`` types
    it (``knowledge_base,web_search``), since options are compared as given."""
    from searchgym.baselines.reader import ReaderPolicy

    return {name: ",".join(p.default) if isinstance(p.default, tuple) else p.default
            for name, p in inspect.signature(ReaderPolicy).parameters.items() if p.default is not p.empty}


def policy_kwargs_as_built(options: Any, policy: Any, reads: Callable[[str], bool]) -> Any:
    """``options`` with each ``policy_kwargs`` option that ``reads`` (plain or ``train.``-prefixed) less the
    kwargs that give ``policy``'s own constructor defaults (read from its signature, as the supervised
    base's key reads them: :func:`~searchgym.harness.base_key.used_policy_kwargs`), and left out where
    none is left: every reader of it takes none as ``{}``. The policy built is the one built without
    them."""
    if not (isinstance(options, dict) and isinstance(policy, str)):
        return options
    spelt = [key for key, value in options.items()
             if key.rpartition(".")[2] == "policy_kwargs" and isinstance(value, dict) and reads(key)]
    if not spelt:
        return options
    try:
        from searchgym.harness.base_key import used_policy_kwargs
    except ImportError:  # a driver without torch: the kwargs are compared as given, as before
        return options
    out = dict(options)
    for key in spelt:
        out[key] = used_policy_kwargs(policy, out[key])
        if not out[key]:
            del out[key]
    return out


def sft_settings_as_built(options: Any, n_train: int, defaults: Mapping[str, Any]) -> Any:
    """``options`` with the supervised base's settings (plain or ``sft.``-prefixed) at the values its build
    reads on a train split of ``n_train`` tasks (:func:`~searchgym.harness.base_key.used_sft_config`:
    ``sft_tasks`` above the split is the whole split, as is the default's 1000 where the split is no
    larger), so that two settings building one base are one run. ``defaults``: the method's option
    defaults, the settings not given. Settings the base refuses, or whose defaults are not all known: as
    given."""
    try:
        from searchgym.agents.imitation import SFTConfig
        from searchgym.harness.base_key import used_sft_config
    except ImportError:  # a driver without torch: the settings are compared as given, as before
        return options
    names = [field.name for field in dataclasses.fields(SFTConfig)]
    given = {key: key.removeprefix("sft.") for key in options if key.removeprefix("sft.") in names} \
        if isinstance(options, dict) else {}
    unset = {name: defaults.get(f"sft.{name}", defaults.get(name, dataclasses.MISSING)) for name in names}
    if not given or len(set(given.values())) < len(given) or dataclasses.MISSING in unset.values():
        return options  # none given, one given twice (the run refuses it), or a default not known for sure
    try:
        config = SFTConfig(**{**unset, **{short: options[key] for key, short in given.items()}})
        used = dataclasses.asdict(used_sft_config(config, n_train))
    except (TypeError, ValueError):
        return options
    return {**options, **{key: used[short] for key, short in given.items()}}


def without_defaults(options: Any, defaults: Mapping[str, Any]) -> Any:
    """``options`` less those given at their default (anything but a dict of options: as it is)."""
    if not isinstance(options, dict) or not defaults:
        return options
    return {key: value for key, value in options.items() if not (key in defaults and value == defaults[key])}
