"""One reading of a chat message's text (``chat_replies.message_text``) for the endpoint agent's replies,
the scripted endpoint's requests and TRL's reward. Before: three copies that disagreed on the edges: a
reply's bare-string part was dropped (the action was empty) while the scripted endpoint read it."""

from __future__ import annotations

import json

import pytest

from searchgym.endpoint.chat_replies import content_text, message_text, reply_from_body
from searchgym.endpoint.scripted_replies import reader_observations


@pytest.mark.parametrize(("content", "text"), [
    ("plain", "plain"),
    ([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "ab"),
    ([{"text": 5}, "x", 3, None, {"type": "image_url"}], "x"),  # a part with no string text adds nothing
    (5, ""),
    (None, ""),
])
def test_a_message_text_is_its_string_or_its_parts_text(content, text) -> None:
    assert message_text(content) == text
    assert reader_observations([{"role": "user", "content": content}]) == [text]


def test_a_reply_reads_its_parts_as_a_request_does() -> None:
    parts = ["<answer>", {"type": "text", "text": "x</answer>"}]
    reply = reply_from_body(json.dumps({"choices": [{"message": {"content": parts}}]}).encode())
    assert (reply.action, reply.error) == ("<answer>x</answer>", None)


@pytest.mark.parametrize("content", [5, {"answer": "x"}, True])
def test_a_reply_whose_content_is_no_text_is_played_as_its_json(content) -> None:
    """Odd content goes to the env as written, which scores it as malformed (the transcript shows it)."""
    assert content_text(content) == json.dumps(content)
    reply = reply_from_body(json.dumps({"choices": [{"message": {"content": content}}]}).encode())
    assert reply.action == json.dumps(content)
