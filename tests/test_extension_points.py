"""docs/ARCHITECTURE.md states how many files a new tool, family, method, env variant and env class
touch; each is made here in exactly that many new files, and the rest of searchgym sees it."""

from __future__ import annotations

import argparse
import importlib
import re
import textwrap
from pathlib import Path

import pytest

import searchgym
from searchgym.agents.advantages import ADVANTAGE_ESTIMATORS
from searchgym.envs.search import SearchEnv
from searchgym.harness.evaluate import answer_rule
from searchgym.harness.llm_method import config_from_args
from searchgym.harness.methods import METHODS, load_method, resolve_method
from searchgym.method_table import METHOD_SPECS
from searchgym.registry import ENV_IDS, declared_rules
from searchgym.suites import Suite
from searchgym.tools import TOOL_NAMES, scoped_tools
from searchgym.world import FAMILIES
from searchgym.world.families import FAMILY_REGISTRY

ROOT = Path(__file__).resolve().parents[1]
CHANGES = {"a new tool": "tool", "a new task family": "family", "a new method": "method",
           "a new env variant": "variant", "a new env class": "env_class"}

FILES = {
    "tool": {"word_count_tool.py": '''
        from searchgym.tools import Tool, ToolResult, ToolSpec, register_tool
        from searchgym.tools.tool_registry import FixedCall, TagForm

        class WordCount(Tool):
            name = "word_count"
            description = "Count the words of a text."
            parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

            def run(self, text: str) -> ToolResult:
                return ToolResult(text=f"{len(text.split())} words")

        register_tool(ToolSpec("word_count", WordCount, build=lambda world, options: WordCount(),
                               tag=TagForm("count", "text", "text to count"),
                               candidates=FixedCall((("text", "{name}"),), note="count the words")))
    '''},
    "family": {"first_fact_family.py": '''
        from searchgym.world.families import task_family

        @task_family("first_fact")
        def first_fact(maker, split):
            eid = maker.entity_in(split)
            facts = [f for f in maker.forward[eid] if f.current and f.object_id is not None] if eid else []
            if not facts:
                return None
            question = f"What does the first fact about {maker.entities[eid].name} name?"
            return maker.make("first_fact", split, question, maker.aliases(facts[0]), "entity",
                              [maker.hop(facts[0])], ["knowledge_base"], [eid])
    '''},
    "method": {"halved_grpo_method.py": '''
        from searchgym.agents.advantages import EstimatorOutput, register_estimator
        from searchgym.agents.process_estimators import grpo_group_advantages
        from searchgym.method_table import TRAINER, MethodSpec, register_spec

        @register_estimator("halved_grpo")
        def halved(group, config):
            advantages = grpo_group_advantages([t.final_return for t in group], config.eps) / 2
            return EstimatorOutput([[a] * len(t) for a, t in zip(advantages, group)], [t.rewards for t in group])

        register_spec(MethodSpec("halved_grpo", TRAINER, "halved_grpo", "seq-mean-token-mean", False,
                                 summary="GRPO with half the advantage"))
    '''},
    "variant": {"lookup_variant.py": '''
        from searchgym.registry import register

        register("SearchQA-LookupOnly-v0", "searchgym.envs.search:SearchEnv", description="lookup tasks only",
                 action_mode="candidates", families=["lookup"])
    '''},
    "env_class": {"voting_team_env.py": '''
        from typing import Any, ClassVar

        from searchgym.envs.team import TeamSearchEnv
        from searchgym.registry import register

        class VotingTeam(TeamSearchEnv):
            """A team whose members' answers are voted on."""

            metadata: ClassVar[dict[str, Any]] = {**TeamSearchEnv.metadata, "answer_rule": "majority"}

        register("VotingTeam-v0", f"{__name__}:VotingTeam", kind="parallel", action_mode="candidates")
    '''},
}


def documented_counts() -> dict[str, int]:
    text = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    rows = re.findall(r"^\| (a new [a-z ]+) \| (\d+) \|", text, flags=re.M)
    return {CHANGES[change]: int(n) for change, n in rows}


def write_and_import(kind: str, folder: Path, monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(folder))
    for name, source in FILES[kind].items():
        (folder / name).write_text(textwrap.dedent(source))
        importlib.import_module(name.removesuffix(".py"))


def test_the_documented_counts_cover_every_change_and_match_the_files_made_here() -> None:
    counts = documented_counts()
    assert set(counts) == set(CHANGES.values())
    assert {kind: len(files) for kind, files in FILES.items()} == counts


def test_a_tool_in_one_file(tmp_path, monkeypatch) -> None:
    with scoped_tools():
        write_and_import("tool", tmp_path, monkeypatch)
        assert "word_count" in TOOL_NAMES
        env = SearchEnv(world_size="tiny")
        observation, _ = env.reset(seed=0)
        assert "word_count" in observation and "word_count" in env.session.tools
        _, _, _, _, info = env.step('<tool_call>{"name": "word_count", "arguments": {"text": "a b c"}}</tool_call>')
        assert info["tool_calls"] == 1
    assert "word_count" not in TOOL_NAMES


def test_a_task_family_in_one_file(tmp_path, monkeypatch) -> None:
    with FAMILY_REGISTRY.scoped():
        write_and_import("family", tmp_path, monkeypatch)
        assert "first_fact" in FAMILIES
        env = SearchEnv(world_size="tiny", split="train", families=["first_fact"], action_mode="candidates")
        _, info = env.reset(seed=0)
        assert env.session.task.family == "first_fact"
    assert "first_fact" not in FAMILIES


def test_a_method_in_one_file(tmp_path, monkeypatch) -> None:
    with METHOD_SPECS.scoped(), ADVANTAGE_ESTIMATORS.scoped():
        write_and_import("method", tmp_path, monkeypatch)
        assert resolve_method("halved_grpo").path == "searchgym.harness.method_specs:halved_grpo"
        assert "halved_grpo" in METHODS and load_method("halved_grpo").spec.estimator == "halved_grpo"
        assert config_from_args(argparse.Namespace(method="halved_grpo")).estimator == "halved_grpo"
    assert "halved_grpo" not in METHODS


def test_an_env_variant_in_one_file(tmp_path, monkeypatch) -> None:
    with ENV_IDS.scoped():
        write_and_import("variant", tmp_path, monkeypatch)
        env = searchgym.make("SearchQA-LookupOnly-v0", world_size="tiny")
        env.reset(seed=0)
        assert env.unwrapped.session.task.family == "lookup"
    assert "SearchQA-LookupOnly-v0" not in ENV_IDS


def test_an_env_class_in_one_file(tmp_path, monkeypatch) -> None:
    with ENV_IDS.scoped():
        write_and_import("env_class", tmp_path, monkeypatch)
        env = searchgym.make("VotingTeam-v0", world_size="tiny")
        env.reset(seed=0)
        suite = Suite("test-voting-v0", 0, "VotingTeam-v0", world_size="tiny", dev_size=1, test_size=1)
        assert answer_rule(suite) == "majority" and declared_rules("VotingTeam-v0").team_actions
    assert "VotingTeam-v0" not in ENV_IDS


@pytest.fixture(autouse=True)
def _forget_written_modules():
    yield
    import sys

    for files in FILES.values():
        for name in files:
            sys.modules.pop(name.removesuffix(".py"), None)
