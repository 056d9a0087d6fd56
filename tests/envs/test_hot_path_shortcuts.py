"""The hot path's shortcuts give what the plain code gives: an Action built by the fast
classmethods equals the validated one, the judge's lazy readings equal reading every text at
once, ``is_clean`` (one regex scan, memoised) equals the character-by-character test, and a
transcript block's clean flag equals checking the block itself."""

from __future__ import annotations

import pickle
import random

import pytest

from searchgym.action_types import Action
from searchgym.envs.search import SearchEnv
from searchgym.envs.spaces import OBS_CHARSET, is_clean, sanitize
from searchgym.judge import ProcessJudge, _numbers_of_text, _words_of, read_text


def _same(fast: Action, plain: Action) -> None:
    assert fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert list(vars(fast).items())[:5] == list(vars(plain).items())[:5]
    assert pickle.loads(pickle.dumps(fast)) == plain and fast.describe() == plain.describe()


@pytest.mark.parametrize("text", ["Mara Quell", "  padded answer \n", "é € 😀", "1,200"])
def test_a_fast_answer_equals_the_validated_one(text):
    _same(Action.answer(text, "Vexa Corp | made by"), Action(kind="answer", text=text, provenance="Vexa Corp | made by"))


@pytest.mark.parametrize("arguments", [{}, {"query": "Vexa Corp"}, {"b": "2", "a": "1"}, {"expression": "1 + 2"}])
def test_a_fast_call_equals_the_validated_one(arguments):
    _same(Action.call("web_search", **arguments),
          Action(kind="tool", tool="web_search", arguments=tuple(arguments.items())))


def test_the_fast_classmethods_still_refuse_what_validation_refuses():
    for bad in ("", "   ", "\n"):
        with pytest.raises(ValueError, match="non-empty text"):
            Action.answer(bad)
    with pytest.raises(ValueError, match="needs a tool name"):
        Action.call("")
    assert Action.call("t", values=[1, 2]).arguments == (("values", (1, 2)),)  # frozen, as before


def test_lazy_readings_are_the_texts_readings():
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    rng = random.Random(0)
    for episode in range(12):
        env.reset(seed=episode)
        texts = []
        done = False
        while not done:
            action = env.session.candidates[rng.randrange(len(env.session.candidates))]
            _, _, terminated, truncated, _ = env.step(env.session.candidates.index(action))
            texts.append(env.session.transcript[-1][1])
            done = terminated or truncated
        judge = env.session.judge
        eager = [read_text(t) for t in [env.task.question, *texts]]
        assert judge._readings[0] == eager[0] and judge._readings[1:] == texts  # kept as texts
        for text in texts:  # what a check reads of a text, its words or its numbers, is its reading's
            words, reading = _words_of(text), read_text(text)
            assert words == (reading.normalized, reading.tokens, reading.padded)
            assert _numbers_of_text(text) == reading.numbers
        assert judge._numbers == set().union(*(r.numbers for r in eager))


def test_a_judge_reads_no_observation_a_check_does_not_need():
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    env.reset(seed=0)
    judge = ProcessJudge(env.task)
    # the clock's calls are always grounded: no reading is needed to judge them
    judge.judge(Action.call("current_time"), (), True, "Vexa Corp makes Zorblat.")
    judge.judge(Action.call("current_time", note="again"), (), True, "Lumen Ltd is in Parvo.")
    _words_of.cache_clear()
    _numbers_of_text.cache_clear()
    signals = judge.judge(Action.call("web_search", query="Zorblat"), (), True, "x")
    # the question, then the first text grounded the query: the second text was never read
    assert signals.consistent and _numbers_of_text.cache_info().currsize == 0
    assert _words_of.cache_info().currsize == 2  # the query's words and the first text's (the question's were read at start)


def _plain_is_clean(text: str) -> bool:
    return all(c in OBS_CHARSET for c in text)


def test_is_clean_equals_the_character_by_character_test():
    rng = random.Random(0)
    chars = [chr(i) for i in range(0x300)] + ["\u2212", "\U0001F600", "]", "^", "\\", "-", "\x0b", "\x0c"]
    for _ in range(20_000):
        text = "".join(rng.choice(chars) for _ in range(rng.randint(0, 8)))
        assert is_clean(text) == _plain_is_clean(text), repr(text)
    for text in ("Zoë Ångström", "tab\tline\nreturn\r", "form\x0cfeed", "\x7f", "naïve — dash"):
        assert is_clean(text) == _plain_is_clean(text)
        assert sanitize(text, 100) == text[:100] or not _plain_is_clean(text)


def test_a_blocks_clean_flag_is_the_blocks_own():
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    rng = random.Random(1)
    for episode in range(8):
        env.reset(seed=episode)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(rng.randrange(len(env.session.candidates)))
            done = terminated or truncated
        for block, clean in env.session._blocks():
            assert clean == _plain_is_clean(block)


@pytest.mark.parametrize("max_obs_chars", [6000, 1500, 400])
def test_a_transcript_extended_block_by_block_equals_it_built_afresh(max_obs_chars):
    from searchgym.baselines.team_random import TeamRandom
    from searchgym.envs.team import TeamSearchEnv

    single = SearchEnv(action_mode="candidates", world_size="tiny", max_obs_chars=max_obs_chars)
    team = TeamSearchEnv(roles="generalists", team_size=2, action_mode="candidates", world_size="tiny",
                         max_obs_chars=max_obs_chars)
    rng, players, checked = random.Random(2), TeamRandom(seed=2), 0
    for episode in range(10):
        single.reset(seed=episode)
        team.reset(seed=episode)
        done = False
        while not done:
            _, _, terminated, truncated, _ = single.step(rng.randrange(len(single.session.candidates)))
            done = terminated or truncated
            sessions = [(single.session, "")]
            if team.agents:
                team.step(players.choose_actions(team))
                board = team.blackboard.text(max_obs_chars // 2)
                sessions += [(s, board) for s in team.sessions.values()]
            for session, extra in sessions:
                kept = session.transcript_text(extra)
                session._whole = None  # forget what was kept: the text built from every block again
                assert kept == session.transcript_text(extra)
                checked += 1
    assert checked > 50


def _random_records(episodes: int = 12, world_size: str = "small"):
    """(generator, record, allowed tools) at every step of seeded random episodes."""
    env = SearchEnv(action_mode="candidates", world_size=world_size)
    rng = random.Random(3)
    for episode in range(episodes):
        env.reset(seed=episode)
        done = False
        while not done:
            yield env.generator, env.session.observed, env.session.allowed
            _, _, terminated, truncated, _ = env.step(rng.randrange(len(env.session.candidates)))
            done = terminated or truncated


def _fresh(generator):
    from searchgym.candidates import CandidateGenerator

    return CandidateGenerator(generator.world, generator.max_candidates)


def test_tiers_kept_on_the_record_equal_them_built_afresh():
    from searchgym.candidate_actions import calculation_argument, tool_rules
    from envs_helpers import memo_free_copy

    checked = 0
    for generator, observed, allowed_tools in _random_records():
        allowed = frozenset(allowed_tools)
        copy = memo_free_copy(observed)
        fresh = _fresh(generator)
        for tool, argument in tool_rules(allowed)[1]:  # the calculation tier, kept while its figures are the same
            kept = generator._calculations(observed, tool, argument)
            assert list(kept) == list(fresh._calculations(copy, tool, argument))
            assert [a.provenance for a in kept] == [a.provenance for a in fresh._calculations(copy, tool, argument)]
            assert calculation_argument(tool) == argument
        older, fresh_older = generator._older(observed), fresh._older(copy)
        for kept_tier, fresh_tier in zip(generator._older_answers(observed, older),
                                         fresh._older_answers(copy, fresh_older), strict=True):
            assert [(a, a.provenance) for a in kept_tier] == [(a, a.provenance) for a in fresh_tier]
        checked += 1
    assert checked > 40


def test_a_name_tier_merged_from_memoised_dicts_equals_every_look_up_in_turn():
    from searchgym.candidate_actions import name_lookups, tool_rules

    for generator, observed, allowed_tools in _random_records(episodes=6):
        allowed = frozenset(allowed_tools)
        names = [n for rnd in observed.rounds for n in rnd.names] + list(observed.question_names)
        roles = {name: f"role {i}" for i, name in enumerate(names[::3])}
        tier = generator._name_tier(names, allowed, "earlier result", roles)
        plain, lookups = "name from the earlier result", tool_rules(allowed)[0]
        expected = dict.fromkeys(a for name in names for a in name_lookups(
            name, f"{plain} | {roles[name]}" if name in roles else plain, lookups))
        assert [(a, a.provenance) for a in tier] == [(a, a.provenance) for a in expected]
        tier.clear()  # a caller may change the tier it gets: the memo is not touched
        assert generator._name_tier(names, allowed, "earlier result", roles)


def test_the_calculation_argument_follows_the_registry():
    from searchgym.candidate_actions import calculation_argument
    from searchgym.tools import Tool, ToolResult, ToolSpec, register_tool, scoped_tools
    from searchgym.tools.tool_registry import CalculateFigures, TagForm

    class Adder(Tool):
        name = "adder"
        description = "Add numbers."
        parameters = {"type": "object", "properties": {"terms": {"type": "string"}}, "required": ["terms"]}

        def run(self, terms: str) -> ToolResult:
            return ToolResult(text=terms)

    assert calculation_argument("adder") is None and calculation_argument("calculator") == "expression"
    with scoped_tools():
        register_tool(ToolSpec("adder", Adder, build=lambda world, options: Adder(),
                               tag=TagForm("add", "terms", "terms to add"), candidates=CalculateFigures("terms")))
        assert calculation_argument("adder") == "terms"
    assert calculation_argument("adder") is None


def test_candidate_texts_of_a_list_partly_read_before_equal_each_text():
    from searchgym.envs.session import candidate_text, candidate_texts

    rng = random.Random(4)
    for _ in range(200):
        actions = [Action.call("web_search", query=f"Vexa {rng.randrange(30)} é").with_provenance(f"from {i}")
                   for i in range(rng.randrange(0, 12))]
        for action in actions:
            if rng.random() < 0.5:
                candidate_text(action, 40)  # read before: its memo is there
        assert candidate_texts(actions, 40) == tuple(sanitize(a.describe(), 40) for a in actions)


def test_a_teams_extra_candidates_equal_its_posts_and_wait_and_hash_as_the_plain_tuple():
    from searchgym.baselines.team_random import TeamRandom
    from searchgym.candidate_history import ExtraActions, extra_key
    from searchgym.envs.team import WAIT, TeamSearchEnv

    env = TeamSearchEnv(roles="generalists", team_size=2, action_mode="candidates", world_size="small")
    players, kept = TeamRandom(seed=6), 0
    for episode in range(6):
        env.reset(seed=episode)
        while env.agents:
            for agent in env.agents:
                extra = env.extra_candidates(agent, WAIT)
                plain = (*env.post_candidates(agent), WAIT)
                assert isinstance(extra, ExtraActions) and extra == plain and hash(extra) == hash(plain)
                assert [a.provenance for a in extra] == [a.provenance for a in plain]
                assert extra_key(extra) == extra_key(list(plain))
                again = env.extra_candidates(agent, WAIT)
                kept += again is extra and len(extra) > 1  # the same object while the posts are the same
                session = env.sessions[agent]  # a list stored under one key is found under the other
                found = env.generator.ranked(session.observed, session.allowed, session.can_answer, extra)
                assert env.generator.ranked(session.observed, session.allowed, session.can_answer, list(plain)) is found
            env.step(players.choose_actions(env))
    assert kept > 10

