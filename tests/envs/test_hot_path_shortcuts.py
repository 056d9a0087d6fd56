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
from searchgym.judge import ProcessJudge, read_text


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


def test_lazy_readings_equal_reading_every_text_at_once():
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    rng = random.Random(0)
    unread = 0
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
        unread += sum(isinstance(r, str) for r in judge._readings)
        eager = [read_text(t) for t in [env.task.question, *texts]]
        assert [judge._read(i) for i in range(len(judge._readings))] == eager
        assert judge._numbers == set().union(*(r.numbers for r in eager))
    assert unread  # some episode ended with a text no check had needed


def test_a_judge_reads_no_observation_a_check_does_not_need():
    env = SearchEnv(action_mode="candidates", world_size="tiny")
    env.reset(seed=0)
    judge = ProcessJudge(env.task)
    # the clock's calls are always grounded: no reading is needed to judge them
    judge.judge(Action.call("current_time"), (), True, "Vexa Corp makes Zorblat.")
    judge.judge(Action.call("current_time", note="again"), (), True, "Lumen Ltd is in Parvo.")
    assert [type(r) for r in judge._readings[1:]] == [str, str]
    signals = judge.judge(Action.call("web_search", query="Zorblat"), (), True, "x")
    assert signals.consistent and type(judge._readings[1]) is not str and type(judge._readings[2]) is str


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
