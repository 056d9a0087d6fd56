"""The process judge: new gold evidence and consistency per round, on scripted episodes."""

from __future__ import annotations

import pytest

from searchgym.action_types import Action
from searchgym.judge import ProcessJudge, RoundSignals
from searchgym.world.model import EvidenceHop, Task


def make_task(
    question="Who founded the company that makes the Zorblat phone?",
    answer_type="entity",
    answers=("Mara Quell",),
) -> Task:
    hops = (
        EvidenceHop(fact_id="f1", entity="Zorblat", predicate="manufacturer", sources=("p1",)),
        EvidenceHop(fact_id="f2", entity="Vexa Corp", predicate="founder", sources=("p2", "kb")),
    )
    return Task(
        id="t",
        family="bridge",
        question=question,
        answers=answers,
        answer_type=answer_type,
        evidence=hops,
        tools=("web_search", "knowledge_base"),
        hops=2,
    )


def test_scripted_four_round_episode():
    judge = ProcessJudge(make_task())
    search = Action.call("web_search", query="Zorblat phone maker")

    r1 = judge.judge(
        search, ["x9", "f1", "f1"], ok=True, observation_text="The Zorblat phone is made by Vexa Corp."
    )
    assert r1 == RoundSignals(new_gold_ids=("f1",), new_gold=True, consistent=True, reason="consistent")
    assert r1.contribution == 1.0

    # the same call again: it happens to reveal new gold (f2) but repeats, so c_k = 1 * 0 = 0
    r2 = judge.judge(search, ["f1", "f2"], ok=True, observation_text="Vexa Corp was founded by Mara Quell.")
    assert r2.new_gold_ids == ("f2",) and r2.new_gold
    assert not r2.consistent and "repeats an earlier action" in r2.reason
    assert r2.contribution == 0.0

    r3 = judge.judge(Action.answer("Jon Brisk"), [], ok=True, observation_text="")
    assert not r3.new_gold and not r3.consistent
    assert r3.reason.startswith("not grounded") and "Jon Brisk" in r3.reason

    r4 = judge.judge(Action.answer("mara quell."), [], ok=True, observation_text="")
    assert r4 == RoundSignals(new_gold_ids=(), new_gold=False, consistent=True, reason="consistent")
    assert r4.contribution == 0.0
    assert judge.seen_gold_ids == frozenset({"f1", "f2"})


def test_unparseable_and_failed_rounds():
    judge = ProcessJudge(make_task())
    r = judge.judge(None, [], ok=False, observation_text="Could not read your action")
    assert (r.consistent, r.reason) == (False, "unparseable action")
    r = judge.judge(Action.call("knowledge_base", entity="Zorblat"), [], ok=False, observation_text="Error")
    assert (r.consistent, r.reason) == (False, "the tool call failed")
    # a failed call is remembered, so retrying the identical call is a repeat
    r = judge.judge(Action.call("knowledge_base", entity="Zorblat"), ["f1"], ok=True, observation_text="")
    assert "repeats" in r.reason and r.new_gold_ids == ("f1",)


def test_tool_grounding_by_content_words():
    judge = ProcessJudge(make_task())
    r = judge.judge(
        Action.call("web_search", query="Quibble Industries"), [], True, "Quibble is a city in Norland."
    )
    assert not r.consistent and "no argument word" in r.reason
    # "quibble" was observed in the previous round, so now it is grounded
    assert judge.judge(Action.call("web_search", query="Quibble founder"), [], True, "").consistent
    # provenance is not part of the action, so a described candidate still repeats
    again = Action(
        kind="tool", tool="web_search", arguments=(("query", "Quibble founder"),), provenance="round 1"
    )
    assert "repeats" in judge.judge(again, [], True, "").reason
    r = judge.judge(Action.call("web_search", query="what is the"), [], True, "")
    assert not r.consistent and "no content word" in r.reason
    r = judge.judge(Action.call("web_search", k=3), [], True, "")
    assert not r.consistent


def test_time_and_clarification_are_always_grounded_wait_may_repeat():
    judge = ProcessJudge(make_task())
    assert judge.judge(Action.call("current_time"), ["clock"], True, "Today is 2031-05-01.").consistent
    assert judge.judge(Action.call("ask_for_clarification", question="zzz"), [], True, "").consistent
    assert judge.judge(Action.wait(), [], True, "").consistent
    assert judge.judge(Action.wait(), [], True, "").consistent


def test_calculator_grounding():
    task = make_task(
        question="What is the combined revenue of Vexa Corp and Quell Ltd?",
        answer_type="number",
        answers=("5.6 million",),
    )
    judge = ProcessJudge(task)
    r = judge.judge(Action.call("calculator", expression="3.4 + 2.2"), [], True, "")
    assert not r.consistent and "[3.4, 2.2]" in r.reason
    judge.judge(
        Action.call("web_search", query="Vexa Corp revenue"),
        ["f1"],
        True,
        "Vexa Corp had revenue of $3.4 million. Quell Ltd: $2.2 million.",
    )
    assert judge.judge(Action.call("calculator", expression="3.4+2.2"), [], True, "").consistent  # raw
    assert judge.judge(
        Action.call("calculator", expression="3400000 + 2200000"), [], True, ""
    ).consistent  # scaled
    assert judge.judge(
        Action.call("calculator", expression="(3.4 + 2.2) / 2"), [], True, ""
    ).consistent  # free 2
    r = judge.judge(Action.call("calculator", expression="2 + 2"), [], True, "")
    assert not r.consistent and "no observed number" in r.reason
    r = judge.judge(Action.call("calculator", expression="sqrt"), [], True, "Result: 5600000")
    assert not r.consistent and "uses no number" in r.reason
    # a number answer is grounded by the calculator's observed result, within the scoring tolerance
    assert judge.judge(Action.answer("5.6 million"), [], True, "").consistent
    assert not judge.judge(Action.answer("7 million"), [], True, "").consistent


def test_number_answer_may_carry_the_unit_the_question_states():
    task = make_task(
        question="How much did Zorblat gross, in millions of dollars?", answer_type="number", answers=("11",)
    )
    judge = ProcessJudge(task)
    judge.judge(
        Action.call("knowledge_base", entity="Zorblat"), ["f1"], True, "Box office (millions of dollars): 11"
    )
    assert judge.judge(Action.answer("$11 million"), [], True, "").consistent
    assert not judge.judge(Action.answer("$12 million"), [], True, "").consistent


def test_list_answers_need_every_element_observed():
    task = make_task(question="Which films did Mara Quell direct?", answer_type="list", answers=("Aa, Bb",))
    judge = ProcessJudge(task)
    judge.judge(
        Action.call("knowledge_base", entity="Mara Quell"), [], True, "Mara Quell directed Aa and Bb."
    )
    assert judge.judge(Action.answer("Aa, Bb"), [], True, "").consistent
    r = judge.judge(Action.answer("Aa, Cc"), [], True, "")
    assert not r.consistent and "Cc" in r.reason
    # whole words only: "Aa" must not be found inside "Aardvark"
    judge2 = ProcessJudge(task)
    judge2.judge(Action.call("web_search", query="Mara Quell films"), [], True, "Aardvark Bbq")
    assert not judge2.judge(Action.answer("Aa"), [], True, "").consistent


def test_post_notes_are_grounded_by_shared_words():
    judge = ProcessJudge(make_task())
    assert judge.judge(Action.post("Zorblat is made by someone"), [], True, "").consistent
    r = judge.judge(Action.post("lorem ipsum"), [], True, "")
    assert not r.consistent and "note" in r.reason


@pytest.mark.parametrize(
    ("new_gold", "consistent", "c"),
    [(True, True, 1.0), (True, False, 0.0), (False, True, 0.0), (False, False, 0.0)],
)
def test_contribution_is_u_times_v(new_gold, consistent, c):
    ids = ("f1",) if new_gold else ()
    assert RoundSignals(ids, new_gold, consistent, "x").contribution == c


def test_a_texts_numbers_read_in_one_pass_are_both_readings_of_find_numbers():
    from searchgym.judge import _numbers_in
    from searchgym.scoring import find_numbers

    texts = ["revenue 3.4 million, 12%, -7 and 2e5", "45k or 1.2bn; 1,200 people in 1962", "none here", "\u22123 m",
             "$-1,234.5 thousand and .5", "A320 x9 7.0e400 12 mn"]
    for text in texts:
        expected = {abs(x) for x in find_numbers(text)} | {abs(x) for x in find_numbers(text, scaled=False)}
        assert _numbers_in(text) == expected, text
    assert _numbers_in(texts[0]) >= {3.4, 3_400_000.0, 12.0, 7.0, 200_000.0}
