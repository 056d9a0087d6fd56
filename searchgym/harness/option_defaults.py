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
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Mapping
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


def without_defaults(options: Any, defaults: Mapping[str, Any]) -> Any:
    """``options`` less those given at their default (anything but a dict of options: as it is)."""
    if not isinstance(options, dict) or not defaults:
        return options
    return {key: value for key, value in options.items() if not (key in defaults and value == defaults[key])}
