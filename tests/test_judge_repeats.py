"""The judge remembers earlier actions in a set: a repeat is an action equal to an earlier one
(another object, another provenance, arguments in another order), and only that."""

from __future__ import annotations

from test_judge import make_task

from searchgym.action_types import Action
from searchgym.judge import ProcessJudge, ReadText, read_text


def test_a_repeat_is_an_equal_action_whatever_object_or_provenance():
    judge = ProcessJudge(make_task())
    first = Action.call("web_search", query="Zorblat phone", top_k=3).with_provenance("name from the question")
    assert judge.judge(first, (), True, "Zorblat is made by Vexa Corp.").consistent
    again = Action(kind="tool", tool="web_search", arguments=(("top_k", 3), ("query", "Zorblat phone")),
                   provenance="name from the latest result")
    assert again is not first and again == first
    repeat = judge.judge(again, (), True, "Zorblat is made by Vexa Corp.")
    assert not repeat.consistent and repeat.reason.startswith("repeats an earlier action: web_search(")
    other = judge.judge(Action.call("web_search", query="Zorblat phone", top_k=4), (), True, "x")
    assert other.consistent
    answer = Action.answer("Vexa Corp")
    assert judge.judge(answer, (), True, "Answer submitted").consistent
    assert judge.judge(Action.answer("Vexa Corp", provenance="another"), (), True, "x").reason.startswith("repeats")


def test_a_reading_pads_its_own_text_for_whole_word_tests():
    reading = read_text("Zorblat is made by  Vexa Corp.")
    assert reading.padded == f" {reading.normalized} " and " vexa corp " in reading.padded
    built = ReadText("vexa corp", frozenset({"vexa", "corp"}), frozenset())
    assert built.padded == " vexa corp " and built == ReadText("vexa corp", frozenset({"vexa", "corp"}), frozenset())
