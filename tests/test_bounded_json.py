"""JSON from outside is refused before decoding when it nests deeper than ``MAX_DEPTH``: the
decoder then never runs at the interpreter's recursion limit, where a garbage collection's
finalizers fail as "unraisable" errors (seen once in CI on the hostile endpoint's 50,000-deep
body). Shallow text decodes exactly as ``json.loads`` does."""

from __future__ import annotations

import json
import sys

import pytest

from searchgym.bounded_json import MAX_DEPTH, json_depth, loads_shallow
from searchgym.endpoint.chat_replies import reply_from_body
from searchgym.endpoint.scripted_endpoint import HOSTILE_BODIES
from searchgym.leaderboard_checks import SubmissionRejected, parse_submission


@pytest.mark.parametrize(("text", "depth"), [
    ("1", 0), ("[]", 1), ('{"a": [1, {"b": []}]}', 4), ('"[[[[" ', 0), ('["\\"[[[", []]', 2),
    ('{"a": "}}}]]]", "b": [[["x"]]]}', 4), ("[" * 500 + "]" * 500, 500),
])
def test_depth_counts_brackets_outside_strings(text: str, depth: int) -> None:
    assert json_depth(text) == depth


@pytest.mark.parametrize("text", ['{"choices": [{"message": {"content": "hi [{"}}]}', "[1, 2.5, null, true]",
                                  '"plain"', "[" * MAX_DEPTH + "]" * MAX_DEPTH])
def test_shallow_text_decodes_as_json_loads_does(text: str) -> None:
    assert loads_shallow(text) == json.loads(text)
    assert loads_shallow(text.encode()) == json.loads(text)


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1_000, 50_000])
def test_deep_text_is_refused_with_the_limit_and_without_recursing(depth: int) -> None:
    deep = "[" * depth + "]" * depth
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)  # json.loads would need one frame per bracket; the scan needs none
    try:
        with pytest.raises(ValueError, match=f"at most {MAX_DEPTH} are accepted"):
            loads_shallow(deep)
    finally:
        sys.setrecursionlimit(limit)
    with pytest.raises(json.JSONDecodeError):
        loads_shallow("{not json")


def test_every_hostile_body_becomes_a_reply_with_an_error_or_an_action() -> None:
    for body in HOSTILE_BODIES:
        reply = reply_from_body(body)
        assert isinstance(reply.action, str)
    nested = reply_from_body(b"[" * 50_000 + b"]" * 50_000)
    assert nested.error == "reply is not JSON"


def test_a_deeply_nested_submission_is_rejected_with_a_reason() -> None:
    with pytest.raises(SubmissionRejected, match=f"nests more than {MAX_DEPTH} brackets"):
        parse_submission(b'{"a": ' * 5_000 + b"1" + b"}" * 5_000)
    with pytest.raises(SubmissionRejected, match="only finite numbers"):
        parse_submission(b'{"a": NaN}')
