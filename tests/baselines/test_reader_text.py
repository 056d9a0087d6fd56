"""The reader in text mode: the same plan written as tool calls, single agent and team members."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from searchgym.baselines.reader_text import ReaderTextActor, ReaderTextAgent, result_lines, unwrap

from searchgym.action_types import Action
from searchgym.actions import parse_action
from searchgym.harness.methods import RunContext, reader_method
from searchgym.suites import Suite, make_env, register_suite, tasks

TEXT_QA = register_suite(Suite("test-reader-text-qa-v0", 0, "SearchQA-v0", {"max_steps": 12}, world_size="tiny",
                               dev_size=4, test_size=21, description="tests: the text reader, single agent"))
TEXT_TEAM = register_suite(Suite("test-reader-text-team-v0", 0, "TeamSearch-v0", {"max_rounds": 12},
                                 world_size="tiny", dev_size=4, test_size=14,
                                 description="tests: the text reader, lead, searcher and analyst"))
PROMPT = "Answer the question by using the tools.\nTools: []\nQuestion: How many years ago was Qor Labs founded?"


def test_it_writes_the_plan_as_parseable_tool_calls():
    agent = ReaderTextAgent()
    first = agent.act(None, PROMPT)
    assert parse_action(first, "hermes", ["knowledge_base"]) == Action.call("knowledge_base", entity="Qor Labs")
    second = agent.act(None, "<tool_response>\nQor Labs (company)\n- founded year: 1990\n</tool_response>")
    assert parse_action(second, "hermes", ["current_time"]) == Action.call("current_time")
    third = agent.act(None, "<tool_response>\nThe current date is 2035-03-01 (Thursday). The current year is 2035.\n"
                            "</tool_response>")
    assert parse_action(third, "hermes", ["calculator"]) == Action.call("calculator", expression="2035 - 1990")
    assert agent.act(None, "<tool_response>\n45\n</tool_response>") == "<answer>45</answer>"
    agent.act(None, PROMPT)  # a new prompt starts a new episode
    assert agent.steps == [] and agent.question == "How many years ago was Qor Labs founded?"


def test_results_are_unwrapped_and_cut_into_note_lines():
    assert unwrap("<tool_response>\n5\n</tool_response>\n\nNew notes on the blackboard:\n[round 1] a: x") == "5"
    assert unwrap("<information>\nabc\n</information>") == "abc"
    kb = result_lines('knowledge_base(entity="Qor Labs")', "Qor Labs (company)\n- founded year: 1990\n- ceo: Mox Vey")
    assert kb == ["Qor Labs (company): founded year: 1990", "Qor Labs (company): ceo: Mox Vey"]
    web = result_lines('web_search(query="Lurk")', "[1] Lurk (https://wiki.searchgym.example/city/lurk)\n"
                                                   "Lurk is a city. Lurk lies in Vexa.")
    assert web == ["Lurk is a city.", "Lurk lies in Vexa."]
    assert result_lines('calculator(expression="2035 - 1990")', "45") == ["2035 - 1990 = 45"]


def _play(suite: Suite) -> list[bool]:
    actor, env, results = ReaderTextActor(), make_env(suite, "test"), []
    for index, task in enumerate(tasks(suite, "test")):
        obs, info = env.reset(seed=index, options={"task_id": task.id})
        if isinstance(obs, str):
            done = False
            while not done:
                obs, _, terminated, truncated, info = env.step(actor.act(None, obs))
                done = terminated or truncated
            results.append(bool(info["success"]))
        else:
            while env.agents:
                obs, _, _, _, info = env.step(actor.act(None, obs))
            results.append(bool(next(iter(info.values()))["success"]))
    env.close()
    return results


@pytest.mark.parametrize("suite", [TEXT_QA, TEXT_TEAM], ids=lambda s: s.id)
def test_it_plays_text_envs_to_the_end(suite):
    results = _play(suite)
    assert len(results) == len(tasks(suite, "test"))
    assert np.mean(results) >= 0.85, results


def test_the_method_picks_the_text_agent_for_a_text_suite(tmp_path):
    ctx = RunContext(suite=TEXT_QA, seed=0, budget=0, device="cpu", run_dir=Path(tmp_path))
    assert isinstance(reader_method(ctx), ReaderTextActor)
