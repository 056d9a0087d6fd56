"""One registry class for every name table: one collision rule, one unknown-name error that lists
the accepted names, lazy "module:attr" entries, and scopes that undo."""

from __future__ import annotations

import pytest

from searchgym.agents.advantages import ADVANTAGE_ESTIMATORS
from searchgym.agents.aggregation import AGGREGATIONS
from searchgym.agents.encoders import ENCODERS
from searchgym.agents.losses import POLICY_LOSSES
from searchgym.baselines.harness_actors import TEAM_BASELINES
from searchgym.harness.loggers import LOGGERS
from searchgym.harness.methods import AGENT_PROVIDERS, BASELINE_METHODS, METHODS
from searchgym.method_table import METHOD_SPECS
from searchgym.named_registry import SLUG, NamedRegistry, UnknownNameError
from searchgym.registry import ENV_IDS
from searchgym.suites import SUITES
from searchgym.tools.retrievers import RETRIEVERS
from searchgym.tools.tool_registry import TOOL_REGISTRY
from searchgym.world.families import FAMILY_REGISTRY

TABLES = [ADVANTAGE_ESTIMATORS, AGGREGATIONS, ENCODERS, POLICY_LOSSES, TEAM_BASELINES, LOGGERS, AGENT_PROVIDERS,
          BASELINE_METHODS, METHOD_SPECS, ENV_IDS, SUITES, RETRIEVERS, TOOL_REGISTRY, FAMILY_REGISTRY]


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.what)
def test_every_name_table_is_the_one_registry_with_one_error(table) -> None:
    assert isinstance(table, NamedRegistry) and len(table) > 0
    with pytest.raises(UnknownNameError) as raised:
        table.get("no-such-name-here")
    message = str(raised.value)
    assert message == f"unknown {table.what} 'no-such-name-here'; accepted: {', '.join(table.names)}"
    assert isinstance(raised.value, ValueError) and isinstance(raised.value, KeyError)
    first = table.names[0]
    with pytest.raises(ValueError, match=f"{table.what} '{first}' is already registered; pass replace=True"):
        table.add(first, table[first])


def test_methods_read_the_one_method_table() -> None:
    assert list(METHODS) == [*BASELINE_METHODS.names, *METHOD_SPECS.names]
    assert METHODS["grpo"] == "searchgym.harness.method_specs:grpo" and METHODS["random"] == BASELINE_METHODS["random"]
    with pytest.raises(KeyError, match="unknown method 'nope'; accepted: random, reader, oracle, sft, cw_grpo"):
        METHODS["nope"]


def test_lazy_entries_import_when_loaded_and_say_what_failed() -> None:
    table: NamedRegistry[str] = NamedRegistry("thing")
    table.add("join", "os.path:join")
    table.add("plain", "not an import path")
    table.add("missing_module", "no_such_module_xyz:f")
    table.add("missing_attr", "os.path:no_such_attr")
    import os.path

    assert table.load("join") is os.path.join and table["join"] == "os.path:join"
    assert table.load("plain") == "not an import path"
    with pytest.raises(ValueError, match=r"thing 'missing_module' \(no_such_module_xyz:f\) cannot be imported"):
        table.load("missing_module")
    with pytest.raises(ValueError, match="module 'os.path' has no 'no_such_attr'"):
        table.load("missing_attr")


def test_names_are_checked_and_scopes_undo_every_change() -> None:
    table: NamedRegistry[int] = NamedRegistry("number", sort_key=lambda n: -n)
    with pytest.raises(ValueError, match="Python identifier"):
        table.add("two-words", 1)
    slugs: NamedRegistry[int] = NamedRegistry("slug", name_pattern=SLUG)
    slugs.add("seq-mean-token-mean", 1)
    with pytest.raises(ValueError, match="must match"):
        slugs.add("has space", 2)
    table.add("one", 1)
    table.add("three", 3)
    names = table.names
    with table.scoped():
        table.add("two", 2)
        table.remove("one")
        table.add("three", 30, replace=True)
        assert list(names) == ["three", "two"] and table["three"] == 30
    assert list(names) == ["three", "one"] and table["three"] == 3 and table.find("two") is None
    assert dict(table.items()) == {"three": 3, "one": 1} and table.keys() == ("three", "one")
