"""A ToolSpec's fields are checked before anything is registered, one line each saying what is
accepted, and a refused registration leaves the registry as it was (a later valid one still works)."""

from __future__ import annotations

import dataclasses

import pytest
from harness_helpers import WordCount, word_count_spec

from searchgym.envs.roles import PRESET_MEMBERS
from searchgym.tools import TOOL_NAMES, ToolSpec, register_tool, scoped_tools
from searchgym.tools.tool_registry import (
    PRESET_ROLES,
    TOOL_REGISTRY,
    CalculateFigures,
    FixedCall,
    LookupNames,
    TagForm,
)

BAD_FIELDS = [
    ({"order": "60"}, TypeError, "order must be a number (int or float), got '60'"),
    ({"order": True}, TypeError, "order must be a number"),
    ({"order": float("nan")}, ValueError, "order must be a finite number"),
    ({"tag": "count"}, TypeError, "tag must be None or a TagForm(tag, argument, hint), got 'count'"),
    ({"tag": TagForm("count", 5)}, TypeError, "a TagForm takes a str tag, a str argument (or None) and a str hint"),
    ({"candidates": ("text", "{name}")}, TypeError,
     "candidates must be None, LookupNames, CalculateFigures or FixedCall, got ('text', '{name}')"),
    ({"candidates": LookupNames(5)}, TypeError, "the argument of LookupNames must be a str"),
    ({"candidates": LookupNames("text", rank="1")}, TypeError, "the rank of LookupNames must be an int"),
    ({"candidates": CalculateFigures(None)}, TypeError, "the argument of CalculateFigures must be a str"),
    ({"candidates": FixedCall(("text", "{name}"))}, TypeError, "FixedCall takes arguments as (name, template) pairs"),
    ({"roles": ("analist",)}, ValueError, "unknown role(s) ['analist']; the roles preset has lead, searcher, analyst"),
    ({"roles": "analyst"}, TypeError, "roles must be a tuple of str (e.g. ('analyst',)), got 'analyst'"),
    ({"evidence_ids": "clock"}, TypeError, "evidence_ids must be a tuple of str"),
    ({"per_task": "yes"}, TypeError, "per_task must be True or False, got 'yes'"),
    ({"grounding_argument": 5, "grounding": "numbers"}, TypeError, "grounding_argument must be None or an argument name"),
    ({"build": None}, TypeError, "build must be callable"),
]


@pytest.mark.parametrize(("fields", "error", "message"), BAD_FIELDS, ids=[repr(f) for f, _, _ in BAD_FIELDS])
def test_a_bad_field_is_one_line_naming_the_tool_and_what_is_accepted(fields, error, message):
    before = TOOL_REGISTRY.version
    with pytest.raises(error) as raised:
        fields = dict(fields)
        build = fields.pop("build", lambda world, options: WordCount())
        register_tool(ToolSpec("word_count", WordCount, build=build, **fields))
    text = str(raised.value)
    assert text.startswith("tool 'word_count': ") and message in text and "\n" not in text
    assert "word_count" not in TOOL_NAMES and TOOL_REGISTRY.version == before


def test_a_refused_order_leaves_no_half_registered_tool_and_later_registrations_work():
    with scoped_tools():
        with pytest.raises(TypeError, match="order must be a number"):
            register_tool(word_count_spec(order="60"))
        assert "word_count" not in TOOL_REGISTRY
        register_tool(word_count_spec(order=60))
        assert TOOL_NAMES[-1] == "word_count"
    assert "word_count" not in TOOL_NAMES


def test_lists_are_taken_as_tuples_and_every_preset_role_is_accepted():
    spec = word_count_spec(roles=list(PRESET_ROLES), evidence_ids=["counted"], order=55.5)
    assert spec.roles == PRESET_ROLES and spec.evidence_ids == ("counted",)
    assert dataclasses.replace(spec, roles=("analyst",)).roles == ("analyst",)


def test_the_accepted_roles_are_the_members_of_the_roles_preset():
    assert PRESET_ROLES == tuple(name for name, _ in PRESET_MEMBERS)
