"""How ``--plugin`` is read before the command's parser, and what ``SEARCHGYM_PLUGINS`` may hold.

The modules must be imported before the parser is built (a command's help lists the methods a
plugin registers), so the options are read from the words before the command. Before: the first
word not starting with "-" was taken as the command, so ``searchgym --plugin mod list`` read "mod".
"""

from __future__ import annotations

import os
import sys

import pytest

from searchgym.cli import leading_plugins, load_plugins
from searchgym.plugins import (
    PLUGINS_VARIABLE,
    PluginError,
    environment_plugins,
    export_plugins,
    import_plugins,
    plugin_names,
)


def test_the_options_before_the_command_are_taken_out_and_none_after_it() -> None:
    assert leading_plugins(["--plugin", "a", "--plugin=b.c", "--plug", "d", "list", "--plugin", "e"]) == (
        ["a", "b.c", "d"], ["list", "--plugin", "e"])
    assert leading_plugins(["train"]) == ([], ["train"])  # a bare `train` still shows its plan
    assert leading_plugins(["--plugin", "m", "train"]) == (["m"], ["train"])
    assert leading_plugins(["--plugin"]) == ([], ["--plugin"])  # argparse says a value is missing
    assert leading_plugins(["--version", "--plugin", "-x"]) == ([], ["--version", "--plugin", "-x"])


def test_module_names_are_checked_and_empty_entries_skipped() -> None:
    assert plugin_names(" a.b , c,,") == ["a.b", "c"]
    assert plugin_names(None) == [] and plugin_names("") == []
    with pytest.raises(PluginError, match=r"plugin 'my-mod' \(from --plugin\) is not a module name"):
        plugin_names("my-mod", "--plugin")
    with pytest.raises(PluginError, match="--plugin needs a module name"):
        load_plugins([""])


def test_exported_names_follow_those_already_there_without_repeats(monkeypatch) -> None:
    monkeypatch.setenv(PLUGINS_VARIABLE, "a,b")
    export_plugins(["b", "c"])
    assert environment_plugins() == ["a", "b", "c"]
    monkeypatch.delenv(PLUGINS_VARIABLE)
    export_plugins([])
    assert PLUGINS_VARIABLE not in os.environ


def test_a_module_that_raises_is_named_with_where_it_raised(tmp_path, monkeypatch) -> None:
    (tmp_path / "syntax_broken_plugin.py").write_text("def broken(:\n")
    (tmp_path / "value_error_plugin.py").write_text("x = 1\nraise ValueError('bad\\nsetting')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("syntax_broken_plugin", "value_error_plugin"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(PluginError) as caught:
        import_plugins(["syntax_broken_plugin"])
    assert str(caught.value).startswith(
        "plugin 'syntax_broken_plugin' (from SEARCHGYM_PLUGINS) cannot be imported: SyntaxError: ")
    with pytest.raises(PluginError) as caught:
        import_plugins(["value_error_plugin"], "--plugin")
    said = str(caught.value)
    assert "ValueError: bad setting (at " in said and "\n" not in said
    assert said.endswith("value_error_plugin.py:2)")
