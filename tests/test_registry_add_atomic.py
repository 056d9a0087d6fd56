"""NamedRegistry.add is all or nothing: an entry its sort key cannot place is not kept (it made
every later registration fail with "'<' not supported between 'str' and 'int'")."""

from __future__ import annotations

import pytest

from searchgym.named_registry import NamedRegistry


def test_an_entry_the_sort_key_refuses_is_not_kept():
    table: NamedRegistry[int] = NamedRegistry("number", sort_key=lambda entry: entry)
    table.add("one", 1)
    version = table.version
    with pytest.raises(TypeError):
        table.add("text", "60")  # type: ignore[arg-type]
    assert "text" not in table and table.keys() == ("one",) and table.version == version
    table.add("two", 2)
    assert table.keys() == ("one", "two")


def test_a_refused_replacement_keeps_the_old_entry():
    table: NamedRegistry[int] = NamedRegistry("number", sort_key=lambda entry: entry)
    table.add("one", 1)
    table.add("two", 2)
    with pytest.raises(TypeError):
        table.add("one", "1", replace=True)  # type: ignore[arg-type]
    assert table["one"] == 1 and table.items() == (("one", 1), ("two", 2))
