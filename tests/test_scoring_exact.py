"""Computed answers (sums, differences, ages) score only when exact; stated quantities keep 0.5%."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from searchgym.scoring import SCORING_RULES_VERSION, exact_number, match_kind, numeric_match, score_answer
from searchgym.world import World
from searchgym.world.model import EvidenceHop, Task

# 1,234,000 + 2,345,678 = 3,579,678 and 2,345,678 - 1,234,000 = 1,111,678 (by hand)
A, B = 1_234_000, 2_345_678


def numeric_task(answers, operation="value", kind="quantity", answer_type="number") -> Task:
    hop = EvidenceHop(fact_id="f1", entity="Vexa", predicate="revenue", sources=("p1",))
    return Task(id="t1", family="aggregate", question="What is the combined revenue of Vexa and Quell?",
                answers=tuple(answers), answer_type=answer_type, evidence=(hop,), tools=("calculator",),
                operation=operation, number_kind=kind)


def test_the_rules_have_a_new_version():
    assert SCORING_RULES_VERSION == "scoring-v3"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1,234,000", Fraction(1_234_000)),
        ("1234000.0", Fraction(1_234_000)),
        ("1.234 million", Fraction(1_234_000)),  # as floats 1.234 * 1e6 is 1233999.9999999998
        ("1.234e6", Fraction(1_234_000)),
        ("$1,234k", Fraction(1_234_000)),
        ("\u22120.1", Fraction(-1, 10)),
        ("it is 16.86, not 17", Fraction(1686, 100)),
        (0.1, Fraction(1, 10)),  # a float at its shortest decimal form
        (7, Fraction(7)),
    ],
)
def test_exact_number_reads_the_written_value_exactly(text, value):
    assert exact_number(text) == value


@pytest.mark.parametrize("text", ["no number", "A320", None, True, "9" * 5000, "0." + "1" * 5000])
def test_exact_number_none(text):
    assert exact_number(text) is None  # 5000 digits: too long to convert, so no value is guessed


def test_an_exact_value_in_any_notation_is_right():
    golds = ["3579678", "3,579,678"]  # what the world's task aliases look like
    for text in ("3,579,678", "3579678", "3579678.0", "3579678.000", "3.579678 million", "3579.678 thousand",
                 "3.579678e6", "$3,579,678", "about 3,579,678 dollars", "+3579678"):
        assert numeric_match(text, golds, "exact"), text


def test_a_rounded_or_off_by_one_value_is_wrong():
    golds = ["3579678", "3,579,678"]
    for text in ("3,579,677", "3,579,679", "3579678.5", "3579677.99", "3.58 million", "3.579 million",
                 "3.5797 million", "3,580,000", "3579.678", "3579678000", "-3579678", "no idea"):
        assert not numeric_match(text, golds, "exact"), text
    assert numeric_match("16.860", ["16.86"], "exact") and not numeric_match("16.9", ["16.86"], "exact")


def test_a_unit_stated_by_the_question_may_be_written_but_the_value_stays_exact():
    # "What is the combined box office in millions of dollars of A and B?": gold 246 (millions)
    for text in ("246", "$246 million", "246.0 million", "246m"):
        assert numeric_match(text, ["246"], "exact"), text
    for text in ("$245 million", "$247 million", "$246.5 million", "0.246 billion", "246,000,000"):
        assert not numeric_match(text, ["246"], "exact"), text
    assert not numeric_match("1.2 million", ["1.2 billion"], "exact")  # two scale words: values compare


def test_match_kind_comes_from_the_task_record():
    assert match_kind(numeric_task(["1"], "sum")) == "exact"
    assert match_kind(numeric_task(["1"], "difference", kind="count")) == "exact"
    assert match_kind(numeric_task(["1"], "years_since", kind="count")) == "exact"
    assert match_kind(numeric_task(["1"], "value")) == "quantity"  # a stated figure keeps its kind
    assert match_kind(numeric_task(["1"], "value", kind=None)) is None  # a user's task: the gold decides
    assert match_kind(numeric_task(["X"], "argmax", kind=None, answer_type="entity")) is None


def test_computed_sums_and_differences_score_only_when_exact():
    total = numeric_task(["3579678", "3,579,678"], "sum")
    difference = numeric_task(["1111678", "1,111,678"], "difference")
    assert str(A + B) == total.answers[0] and str(B - A) == difference.answers[0]
    for task, gold in ((total, A + B), (difference, B - A)):
        for right in (f"{gold:,}", str(gold), f"{gold}.0", f"{Decimal(gold) / 10**6} million"):
            assert score_answer(task, right).success, right
        for wrong in (gold - 1, gold + 1, gold - 2, gold + 2, gold + 100):
            s = score_answer(task, f"{wrong:,}")
            assert (s.numeric, s.score, s.success) == (0.0, 0.0, False), wrong
    assert not score_answer(total, "3.58 million").success  # v2 took this: 322 off is within 0.5%


def test_a_stated_quantity_keeps_its_half_percent():
    stated = numeric_task(["3579678", "3,579,678"], "value")  # a look-up of a figure the world states
    assert score_answer(stated, "3.58 million").success  # 322 off, tolerance 0.005 * 3,579,678 = 17,898.39
    assert score_answer(stated, "3,579,679").success
    assert score_answer(stated, "3,597,576").success and not score_answer(stated, "3,597,577").success


def test_computed_ages_are_exact():
    age = numeric_task(["37"], "years_since", kind="count")
    assert score_answer(age, "37 years").success and score_answer(age, "37.0").success
    assert not any(score_answer(age, str(v)).success for v in (36, 38, 37.5))


def test_no_off_by_one_computed_answer_scores_on_a_generated_world():
    """Every computed answer of the default world (aggregates and ages): gold +-1..9 and gold
    +-0.1%/0.4% (inside v2's 0.5%) never succeed, with or without a unit word; the gold in
    every notation does."""
    world = World.generate(0, "small")
    computed = [t for t in world.tasks if t.answer_type == "number" and t.operation != "value"]
    assert {t.family for t in computed} == {"aggregate", "temporal"}
    assert {t.operation for t in computed} == {"sum", "difference", "years_since"}
    tried = accepted = 0
    for task in computed:
        gold = int(task.answers[0].replace(",", ""))
        for right in (*task.answers, f"{gold:,}", f"{gold}.0", f"{Decimal(gold) / 1000} thousand",
                      f"${gold} million" if "in millions" in task.question else f"{gold:,}.00"):
            assert score_answer(task, right).success, (task.id, right)
        offsets = {d for d in range(-9, 10) if d} | {round(gold * r) for r in (-0.004, -0.001, 0.001, 0.004)}
        for d in offsets - {0}:
            for wrong in (f"{gold + d:,}", f"${gold + d} million"):  # plain, and with a unit word
                tried += 1
                accepted += score_answer(task, wrong).success
    assert len(computed) == 180 and tried > 2 * 180 * 18 and accepted == 0
