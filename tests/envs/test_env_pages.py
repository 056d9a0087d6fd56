"""The env pages are the class docstrings (``help(SearchEnv)`` shows them), their examples run as
doctests, and the PettingZoo envs' modules open with PettingZoo's at-a-glance table."""

from __future__ import annotations

import doctest
import warnings

import pytest

import searchgym.envs.group as group_module
import searchgym.envs.team as team_module
from searchgym.envs.group import GroupSearchEnv
from searchgym.envs.play_rules import play_rules
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import TeamSearchEnv

GLANCE = ("Import", "Actions", "Parallel API", "Manual Control", "Agents", "Action Shape", "Action Values",
          "Observation Shape", "Observation Values", "State Shape", "State Values")


@pytest.mark.parametrize("env_class", [SearchEnv, GroupSearchEnv, TeamSearchEnv], ids=lambda c: c.__name__)
def test_the_class_docstring_is_the_env_page_and_its_example_runs(env_class) -> None:
    page = env_class.__doc__
    for section in ("**Action Space**" if env_class is SearchEnv else "**Description**", "**Example**", ">>> "):
        assert section in page, section
    finder = doctest.DocTestFinder(recurse=False)
    tests = finder.find(env_class, env_class.__name__, globs={})
    assert tests and tests[0].examples
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in tests:
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


@pytest.mark.parametrize("module", [group_module, team_module], ids=lambda m: m.__name__)
def test_pettingzoo_envs_open_with_the_at_a_glance_table(module) -> None:
    rows = [line.split("|")[1].strip() for line in module.__doc__.splitlines() if line.startswith("| ")]
    assert [r for r in rows if r] == list(GLANCE[:5]) + ["Agents"] + list(GLANCE[5:])


@pytest.mark.parametrize("module", ["searchgym.envs.play_rules", "searchgym.agents.grouping"])
def test_module_examples_run(module) -> None:
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0


def test_the_tables_agree_with_the_envs() -> None:
    assert play_rules(GroupSearchEnv).answer_rule == "majority" and play_rules(TeamSearchEnv).team_actions
