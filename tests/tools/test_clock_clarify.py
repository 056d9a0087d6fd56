from __future__ import annotations

import datetime as dt

import pytest

from searchgym.tools.clarify import AskForClarification
from searchgym.tools.clock import CurrentTime


def test_current_time_states_date_weekday_and_year():
    result = CurrentTime(dt.date(2031, 5, 14))()
    assert result.text == "The current date is 2031-05-14 (Wednesday). The current year is 2031."
    assert result.evidence_ids == ("clock",)
    assert CurrentTime(dt.date(2024, 2, 29))().text.startswith("The current date is 2024-02-29 (Thursday).")


def test_current_time_rejects_any_argument():
    result = CurrentTime(dt.date(2031, 5, 14))(timezone="UTC")
    assert not result.ok and "unknown" in result.error and "no arguments" in result.error


def test_current_time_needs_a_date():
    with pytest.raises(TypeError):
        CurrentTime("2031-05-14")


def test_clarification_on_an_ambiguous_task_reveals_the_detail(world):
    tool = AskForClarification(world.task_by_id["t_ambiguous"])
    result = tool(question="Which Mara Quell do you mean?")
    assert result.ok and result.text == "I mean Mara Quell the chemist, who founded Vexa Corporation."
    assert result.evidence_ids == ("clarification",)


@pytest.mark.parametrize("task_id", ["t_lookup", None])
def test_nothing_to_clarify_elsewhere(world, task_id):
    task = world.task_by_id[task_id] if task_id else None
    result = AskForClarification(task)(question="What do you mean?")
    assert result.ok and result.evidence_ids == () and "nothing to clarify" in result.text


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [({"question": ""}, "non-empty"), ({"question": " \n"}, "non-empty"), ({"question": 1}, "must be a string"),
     ({}, "missing"), ({"question": "x" * 501}, "too long"), ({"question": "q", "to": "user"}, "unknown")],
)
def test_bad_arguments(world, arguments, fragment):
    result = AskForClarification(world.task_by_id["t_ambiguous"])(**arguments)
    assert not result.ok and fragment in result.error and result.evidence_ids == ()
