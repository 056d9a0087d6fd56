"""Envs declare how they play (answer rule, grouping, team actions); the harness, the endpoint agents
and both learners read that declaration instead of guessing from entry points or attributes."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from searchgym.agents import grouping, llm_rollout, rollout
from searchgym.envs.play_rules import PlayRules, play_rules
from searchgym.envs.team import TeamSearchEnv
from searchgym.harness.evaluate import answer_rule
from searchgym.registry import ENV_IDS, declared_rules, register, registered
from searchgym.suites import Suite


def test_every_registered_id_declares_how_it_plays() -> None:
    for spec in registered():
        rules = declared_rules(spec.id)
        family = spec.id.split("-")[0]
        expected = {"SearchQA": PlayRules("single"), "GroupSearch": PlayRules("majority", "episode", False),
                    "TeamSearch": PlayRules("team", "agent", True)}[family]
        assert rules == expected, spec.id


class VotingTeam(TeamSearchEnv):
    """A new env class in one file: a team whose members' answers are voted on."""

    metadata: ClassVar[dict[str, Any]] = {**TeamSearchEnv.metadata, "answer_rule": "majority"}


class Undeclared(TeamSearchEnv):
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "undeclared"}


def test_a_new_env_class_is_one_file_plus_its_registration() -> None:
    with ENV_IDS.scoped():
        register("VotingTeam-v0", f"{__name__}:VotingTeam", kind="parallel", action_mode="candidates")
        suite = Suite("test-voting-team-v0", 0, "VotingTeam-v0", world_size="tiny", dev_size=1, test_size=1)
        assert answer_rule(suite) == "majority"
        assert declared_rules("VotingTeam-v0") == PlayRules("majority", "agent", True)
    assert "VotingTeam-v0" not in ENV_IDS


def test_an_env_that_does_not_declare_is_told_what_to_declare() -> None:
    with pytest.raises(ValueError, match=r"Undeclared does not say how it plays: declare metadata\['answer_rule'\]"):
        play_rules(Undeclared)
    with pytest.raises(ValueError, match="answer_rule must be one of single, majority, team"):
        PlayRules("vote")


def test_one_grouping_rule_serves_both_learners() -> None:
    assert rollout.resolve_grouping is grouping.resolve_grouping is llm_rollout.resolve_grouping
    assert [grouping.resolve_grouping(g, "agent", 4) for g in ("auto", "episode", "agent", "role", "team")] == \
        ["agent", "episode", "agent", "agent", "team"]
    assert grouping.resolve_grouping("auto", "episode", 4) == "episode"
    assert grouping.resolve_grouping("auto", "agent", 1) == "episode"
    with pytest.raises(ValueError, match="independent attempts"):
        grouping.resolve_grouping("role", "episode", 4)
    with pytest.raises(ValueError, match="unknown group_by 'pairs'; accepted: auto, episode, agent, role, team"):
        grouping.resolve_grouping("pairs", "agent", 4)
