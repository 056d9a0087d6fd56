"""A ``--plugin`` typed after the command is one line saying it goes before the command, with the
command that does so. Before: argparse's "unrecognized arguments: --plugin mypkg.tool", under the
command's usage, with no word of where ``--plugin`` belongs (it is read before the command's parser)."""

from __future__ import annotations

import pytest

from searchgym.cli import main


@pytest.mark.parametrize("argv, fixed", [
    (["list", "--plugin", "mypkg.tool"], "searchgym --plugin mypkg.tool list"),
    (["list", "--plugin=mypkg.tool"], "searchgym --plugin mypkg.tool list"),
    (["--plugin", "a.b", "suites", "--plugin", "c", "--json"], "searchgym --plugin a.b --plugin c suites --json"),
    (["compare", "--suite", "quick-v2", "--plugin"], "searchgym --plugin MODULE compare --suite quick-v2"),
])
def test_a_plugin_after_the_command_says_it_goes_before_it(argv, fixed, capsys) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"searchgym: error: --plugin goes before the command: {fixed}\n"
    assert captured.out == ""


def test_nothing_is_imported_for_a_misplaced_plugin(capsys) -> None:
    """The leading module is not imported either: the one line is about where the option goes."""
    assert main(["--plugin", "no_such_module_here", "list", "--plugin", "x"]) == 2
    assert "cannot be imported" not in capsys.readouterr().err
