"""The env hot path's memos change nothing: memoised candidates equal freshly built ones at every
step, an Action is validated once and its copies stay equal, memoised texts and scores equal the
computed ones, and the judge's reading of a text is the plain one."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from searchgym.action_types import Action
from searchgym.baselines.team_random import TeamRandom
from searchgym.candidates import CandidateGenerator, names_in
from searchgym.envs.group import GroupSearchEnv
from searchgym.envs.session import _scored, candidate_text
from searchgym.envs.spaces import sanitize
from searchgym.envs.team import TeamSearchEnv
from searchgym.judge import ProcessJudge, content_tokens, read_text
from searchgym.scoring import find_numbers, score_answer
from envs_helpers import memo_free_copy, team_four_rounds_in


@pytest.mark.parametrize("make", [lambda: TeamSearchEnv(roles="roles", action_mode="candidates", world_size="small"),
                                  lambda: TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8,
                                                        action_mode="candidates", world_size="small"),
                                  lambda: GroupSearchEnv(group_size=3, action_mode="candidates", world_size="small")])
def test_memoised_candidates_equal_fresh_ones_at_every_step(make):
    env = make()
    team = TeamRandom(seed=1)
    checked = 0
    for episode in range(6):
        env.reset(seed=episode)
        while env.agents:
            for agent in env.agents:
                session = env.sessions[agent]
                extra = env.post_candidates(agent) if isinstance(env, TeamSearchEnv) else []
                memoised = env.generator.generate(session.observed, session.allowed, session.can_answer, extra)
                fresh = CandidateGenerator(env.world, env.config.max_candidates).generate(
                    memo_free_copy(session.observed), session.allowed, session.can_answer, extra)
                assert [a.describe() for a in memoised] == [a.describe() for a in fresh]
                checked += 1
            env.step(team.choose_actions(env))
    assert checked > 30


def test_an_action_is_validated_once_and_its_copies_stay_equal(monkeypatch):
    action = Action.call("web_search", query="Vexa Corp")

    def fail(self):
        raise AssertionError("validated again")

    monkeypatch.setattr(Action, "__post_init__", fail)
    noted = action.with_provenance("name from the question")
    assert noted == action and hash(noted) == hash(action) and noted.provenance == "name from the question"
    assert noted.describe() == 'web_search(query="Vexa Corp")  <- name from the question'
    with pytest.raises(TypeError, match="provenance must be a str"):
        action.with_provenance(3)


def test_memos_on_an_action_are_never_pickled_or_copied():
    action = Action.answer("Mara Quell", "Vexa | ceo | a person | via web_search")
    text = candidate_text(action, 300)
    assert text == sanitize(action.describe(), 300) and candidate_text(action, 300) is text
    assert candidate_text(action, 10) == action.describe()[:10]  # another cut is not the memo
    hash(action)
    restored = pickle.loads(pickle.dumps(action))
    assert restored == action and restored.provenance == action.provenance
    assert set(vars(restored)) == {"kind", "tool", "arguments", "text", "provenance"}
    copy = action.with_provenance("other")
    assert "_candidate_text" not in vars(copy) and candidate_text(copy, 300).endswith("<- other")


def test_judge_reads_a_text_as_the_plain_helpers_do():
    text = "Vexa Corp reported revenue of 3.4 million in 2019; the CEO is Mara Quell."
    read = read_text(text)
    assert set(read.tokens) == content_tokens(text)
    assert read.numbers == frozenset(abs(x) for x in find_numbers(text) + find_numbers(text, scaled=False))
    assert read_text(text) is read  # memoised


def test_a_judge_reading_a_repeated_text_gives_the_same_signals():
    env = TeamSearchEnv(roles="roles", action_mode="candidates", world_size="tiny")
    env.reset(seed=0)
    task = env.task
    first, second = ProcessJudge(task), ProcessJudge(task)
    result = "Priovysh Tiopio attended Stowehin Institute of Technology."
    for judge in (first, second):
        judge.judge(Action.call("web_search", query="Priovysh Tiopio"), (), True, result)
    answer = Action.answer("Stowehin Institute of Technology")
    assert first.judge(answer, (), True, "") == second.judge(answer, (), True, "")
    assert first.judge(answer, (), True, "").reason.startswith("repeats")


def test_memoised_scores_and_mentions_equal_the_computed_ones():
    env = TeamSearchEnv(roles="roles", action_mode="candidates", world_size="tiny")
    env.reset(seed=0)
    for answer in (env.task.answers[0], "nothing like it", env.task.answers[0]):
        assert _scored(env.task, answer, "auto") == score_answer(env.task, answer, "auto")
    text = env.task.question
    assert names_in(env.world, text) == tuple(s for s, _ in env.world.mentions.find(text))
    assert names_in(env.world, text) is names_in(env.world, text)
    assert np.all(env.sessions["lead"].action_mask[: len(env.sessions["lead"].candidates)] == 1)


def test_transcript_text_built_from_memoised_blocks_equals_sanitising_the_whole_text():
    env = TeamSearchEnv(roles="roles", action_mode="candidates", world_size="tiny", max_obs_chars=600)
    env.reset(seed=0)
    session = env.sessions["lead"]
    rounds = [("web_search(query=\"Łódź\")", "Zoë Café\x07 paid 3 zł"), ("wait()", "You waited."),
              ("current_time()", "It is 2024." * 5), ("web_search(query=\"x\")", "plain ascii " * 40)]
    for line, result in rounds:
        session.transcript.append((line, result))
        text = session.transcript_text("Blackboard: Żaneta")
        head = f"{session.header}\nQuestion: {session.task.question}\nBlackboard: Żaneta\n"
        budget, parts = 600 - len(head), []
        for i in range(len(session.transcript) - 1, -1, -1):  # the plain construction: cut, then sanitise
            block = f"Step {i + 1}: {session.transcript[i][0]}\n{session.transcript[i][1]}\n"
            if len(block) > budget:
                parts += [] if parts else [block[:max(budget, 0)]]
                break
            parts.append(block)
            budget -= len(block)
        assert text == sanitize(head + "".join(reversed(parts)), 600)


def test_a_head_longer_than_max_obs_chars_cuts_the_board_then_the_header_never_the_question():
    # before: the role header (281 characters for the lead) filled a 300-character text, and the
    # question was cut off
    env = TeamSearchEnv(roles="roles", action_mode="candidates", world_size="tiny", max_obs_chars=300)
    env.reset(seed=0)
    session = env.sessions["lead"]
    question = f"Question: {session.task.question}\n"
    assert len(session.header) + len(question) > 300
    text = session.transcript_text("Blackboard: a note")
    assert len(text) == 300 and text.endswith(question + "Blackboard: a note\n")
    assert text.startswith(session.header[:300 - len(question) - 20]) and text[:-len(question) - 19].endswith("\n")
    board = "Blackboard: " + "n" * 400
    text = session.transcript_text(board)
    assert text.startswith(question) and text == (question + board + "\n")[:300]


def test_reading_a_rounds_lines_at_once_equals_reading_each_line():
    from searchgym.envs.blackboard import result_lines

    env = TeamSearchEnv(roles="roles", action_mode="candidates", world_size="small")
    team = TeamRandom(seed=2)
    compared = 0
    for episode in range(8):
        env.reset(seed=episode)
        while env.agents:
            env.step(team.choose_actions(env))
            for session in env.sessions.values():
                rnd = session.observed.rounds[-1]
                lines = result_lines(rnd)
                assert env.reader.read_lines(lines, rnd) == [env.reader.read(line, rnd) for line in lines]
                compared += len(lines)
    assert compared > 100


def test_post_options_kept_between_steps_equal_freshly_ranked_ones():
    """post_options is rebuilt only after a new tool result or note: at every step it equals the
    ranking built afresh, and callers get their own list."""
    env = TeamSearchEnv(roles="generalists", team_size=2, max_rounds=8, action_mode="candidates", world_size="small")
    team = TeamRandom(seed=4)
    compared = 0
    for episode in range(10):
        env.reset(seed=episode)
        while env.agents:
            for agent in env.agents:
                rnd = env.latest_tool_round(agent)
                kept = env.post_options(agent)
                fresh = env._rank_post_lines(agent, rnd, env._lines(agent)) if rnd is not None and env._lines(agent) else []
                assert [(a.describe(), ev) for a, ev in kept] == [(a.describe(), ev) for a, ev in fresh]
                kept.clear()  # the caller's copy: the env's is untouched
                assert len(env.post_options(agent)) == len(fresh)
                compared += len(fresh)
            env.step(team.choose_actions(env))
    assert compared > 50


def test_older_rounds_rebuilt_when_the_record_is_not_the_one_they_were_built_from():
    env = team_four_rounds_in()
    session = env.sessions["generalist_0"]
    env.generator.generate(session.observed, session.allowed, session.can_answer)
    other = memo_free_copy(session.observed)
    other.derived = session.observed.derived  # the memo of another record: detected, rebuilt
    other.rounds = other.rounds[:-1]
    shared = env.generator.generate(other, session.allowed, session.can_answer)
    alone = CandidateGenerator(env.world, env.config.max_candidates).generate(
        memo_free_copy(other), session.allowed, session.can_answer)
    assert [a.describe() for a in shared] == [a.describe() for a in alone]


def test_a_rendered_argument_is_quoted_as_json_writes_it():
    for text in ("Vexa Corp", 'say "hi"', "back\\slash", "tab\there", "line\nbreak", "\x00\x1f", "é € \u2028 😀", ""):
        rendered = Action.call("web_search", query=text).render()
        assert rendered == f"web_search(query={json.dumps(text, ensure_ascii=False)})"


def test_the_judges_observed_numbers_grow_with_each_reading():
    env = TeamSearchEnv(roles="generalists", team_size=1, action_mode="candidates", world_size="tiny")
    env.reset(seed=0)
    judge = ProcessJudge(env.task)
    texts = ["Revenue was 3.4 million in 2019.", "No figure here.", "It employs 1,200 people; 12% left."]
    for k, text in enumerate(texts):
        judge.judge(Action.call("web_search", query=f"query {k}"), (), True, text)
        expected = set().union(*(read_text(t).numbers for t in [env.task.question, *texts[: k + 1]]))
        assert judge._numbers == expected
    assert judge.judge(Action.call("calculator", expression="1200 + 2019"), (), True, "3219").consistent
    assert not judge.judge(Action.call("calculator", expression="777 + 2019"), (), True, "2796").consistent


def test_a_lines_numbers_are_read_in_one_pass_as_find_numbers_reads_them():
    from searchgym.envs.blackboard import _numbers

    text = "Revenue: $3.4 million (2019), down 12% from 1,200k; -5 and 2e3."
    assert _numbers(text) == tuple(abs(x) for x in find_numbers(text)) + tuple(
        abs(x) for x in find_numbers(text, scaled=False))


def test_a_text_without_a_digit_has_no_number_and_any_digit_is_still_read():
    assert find_numbers("Vexa Corp was founded by Mara Quell") == []
    assert find_numbers("\u0663 branches") == [3.0]  # a non-ASCII digit is a digit, as the number pattern reads it
    assert find_numbers("\u22125 degrees, 1.2 billion") == [-5.0, 1.2e9]
