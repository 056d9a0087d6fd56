"""``render_mode="human"``: the episode printed as it is played, ``render()`` returning None.

Before: every env refused "human" ("render_mode must be None or 'ansi'"), so PettingZoo's own
``render_test`` (which builds the env with ``render_mode="human"`` first) failed on every
multi-agent id, and a Gymnasium user had no way to watch an episode without calling ``render``."""

from __future__ import annotations

import io

import pytest
from pettingzoo.test import render_test

import searchgym
from searchgym.envs.terminal_view import TerminalView

TINY = {"world_size": "tiny"}
MULTI_IDS = ["GroupSearch-v0", "GroupSearch-Candidates-v0", "TeamSearch-v0", "TeamSearch-Candidates-v0",
             "TeamSearch-Generalists-Candidates-v0"]


@pytest.mark.parametrize("env_id", MULTI_IDS)
def test_pettingzoos_render_test_passes(env_id, capsys):
    render_test(lambda render_mode=None: searchgym.make_aec(env_id, render_mode=render_mode, **TINY))
    assert "== " in capsys.readouterr().out  # each agent's rounds, under its name


def test_a_single_agent_episode_is_printed_step_by_step_and_render_returns_none(capsys):
    env = searchgym.make("SearchQA-Candidates-v0", render_mode="human", **TINY)
    obs, info = env.reset(seed=0)
    first = capsys.readouterr().out
    assert first.startswith("Task ") and "[1]" not in first  # the question, no round yet
    printed = []
    for _ in range(3):
        obs, _, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
        printed.append(capsys.readouterr().out)
        if terminated or truncated:
            break
    assert printed[0].startswith("[1] ") and "Task " not in printed[0]  # only what the step added
    assert all(p.strip() for p in printed)
    assert env.render() is None and capsys.readouterr().out == ""  # nothing new since the last step
    ansi = searchgym.make("SearchQA-Candidates-v0", render_mode="ansi", **TINY)
    _, info = ansi.reset(seed=0)
    for _ in range(len(printed)):
        ansi.step(int(info["action_mask"].argmax()))
    assert ansi.render() == first.rstrip("\n") + "\n" + "".join(printed).rstrip("\n")  # the same text, in parts


def test_the_view_prints_a_new_episode_whole():
    stream = io.StringIO()
    view = TerminalView(stream)
    view.show("Task a\n[1] x")
    view.show("Task a\n[1] x\n[2] y", label="agent_0")
    view.show("Task b")
    assert stream.getvalue() == "Task a\n[1] x\n== agent_0\n[2] y\nTask b\n"


@pytest.mark.parametrize("env_id", ["SearchQA-Candidates-v0", "GroupSearch-Candidates-v0"])
def test_a_copy_of_a_human_env_prints_nothing_while_it_is_made(env_id, capsys):
    """Before: ``copy.deepcopy`` (and unpickling) replayed the episode with "human" on, printing it again."""
    import copy

    env = searchgym.make(env_id, world_size="tiny", render_mode="human")
    env.reset(seed=0)
    env.step(0) if env_id.startswith("SearchQA") else env.step(dict.fromkeys(env.agents, 0))
    capsys.readouterr()
    twin = copy.deepcopy(env)
    assert capsys.readouterr().out == "" and twin.unwrapped.render_mode == "human"


def test_control_characters_of_someone_elses_corpus_are_shown_not_obeyed(tmp_path, capsys):
    """Before: ESC sequences in a handed-over corpus or task were printed raw, so watching an episode
    let the file clear the screen, erase lines or set the terminal's title."""
    import json

    from searchgym.world import world_from_files

    corpus, tasks = tmp_path / "corpus.jsonl", tmp_path / "tasks.jsonl"
    corpus.write_text(json.dumps({"id": "p1", "title": "Evil\u001b]0;pwned\u0007\u001b[2J",
                                  "text": "Beta is in Oslo.\u001b[31m RED \u001b[0m \u009b"}) + "\n")
    tasks.write_text(json.dumps({"id": "q", "question": "Where is Beta?\u001b[1A", "answers": ["Oslo"]}) + "\n")
    env = searchgym.make("SearchQA-v0", world=world_from_files(corpus, tasks), split="test", render_mode="human")
    env.reset(seed=0)
    env.step('<tool_call>{"name": "web_search", "arguments": {"query": "Beta"}}</tool_call>')
    printed = capsys.readouterr().out
    assert "Where is Beta?\\x1b[1A" in printed and "Evil\\x1b]0;pwned\\x07\\x1b[2J" in printed
    assert "\\x9b" in printed and not any(ch in printed for ch in "\u001b\u0007\u009b")
