"""The env reads an endpoint reply as it would read the model's text itself, whatever its length. Before:
the endpoint cut every reply at 30,000 characters, counting ``<think>`` blocks, while the env's limit
(``MAX_ACTION_CHARS``) counts only the text outside them: an answer after a long <think> was cut off, and
a reply the env refuses as too long was cut under its limit and read."""

from __future__ import annotations

import json

import pytest

from searchgym.action_types import Action, ParseError
from searchgym.actions import MAX_ACTION_CHARS, parse_action
from searchgym.endpoint.chat_replies import MAX_KEPT_CONTENT_CHARS, reply_from_body
from searchgym.tools.toolkit import TOOL_NAMES

ANSWER = "<answer>Mara Quell</answer>"
THINK = "<think>" + "x" * MAX_KEPT_CONTENT_CHARS + "</think>"


def _verdict(text: str) -> Action | str:
    """What the env makes of ``text``: its action, or the reason it refuses it."""
    parsed = parse_action(text, "hermes", TOOL_NAMES)
    return parsed.message if isinstance(parsed, ParseError) else parsed


def _body(content: str, native: bool = False) -> bytes:
    message: dict = {"role": "assistant", "content": content}
    if native:
        message["tool_calls"] = [{"id": "c1", "type": "function",
                                  "function": {"name": "answer", "arguments": json.dumps({"answer": "Mara Quell"})}}]
    return json.dumps({"choices": [{"message": message}]}).encode()


@pytest.mark.parametrize("content", [
    THINK + ANSWER,  # readable: the think block is not counted (before: the answer was cut off)
    "<think>" + "x" * 15_000 + "</think>" + ANSWER + " " * 25_000,  # too long outside <think> (before: read)
    ANSWER + " " * (MAX_ACTION_CHARS - len(ANSWER)),  # the longest text the env reads
    ANSWER + " " * (MAX_ACTION_CHARS - len(ANSWER) + 1),  # one character over: refused
    ANSWER + " " * (2 * MAX_KEPT_CONTENT_CHARS),  # refused, and said to be as long as it is
], ids=["long-think", "long-after-think", "at-limit", "over-limit", "far-over"])
def test_the_env_reads_the_reply_as_it_reads_the_text(content):
    reply = reply_from_body(_body(content))
    assert reply.error is None and reply.action == content
    assert _verdict(reply.action) == _verdict(content)


def test_an_answer_after_a_long_think_is_played():
    assert _verdict(reply_from_body(_body(THINK + ANSWER)).action) == Action.answer("Mara Quell")


def test_a_native_call_is_read_with_the_whole_content_after_it():
    content = THINK + " " * 25_000  # the env counts the 25,000 characters outside <think>, not the think block
    reply = reply_from_body(_body(content, native=True))
    assert reply.action.endswith(content)
    assert "characters long" in _verdict(reply.action)
    assert _verdict(reply_from_body(_body(THINK, native=True)).action) == Action.answer("Mara Quell")


def test_only_the_message_kept_in_the_conversation_is_bounded():
    for native in (False, True):
        reply = reply_from_body(_body(THINK + ANSWER, native=native))
        assert reply.message["content"] == (THINK + ANSWER)[:MAX_KEPT_CONTENT_CHARS]


def test_a_long_reply_is_played_whole_but_kept_cut_in_the_transcript_and_the_conversation():
    """The env gets the whole reply; the transcript's action and the message sent back to the server keep
    its first MAX_KEPT_CONTENT_CHARS characters (a server writing megabytes a turn must not make every
    transcript line and later request that large)."""
    from searchgym.endpoint.chat_episode import ChatEpisode
    from searchgym.endpoint.chat_replies import MAX_KEPT_CONTENT_CHARS, reply_from_body

    content = "<think>" + "x" * (3 * MAX_KEPT_CONTENT_CHARS) + "</think><answer>Quell</answer>"
    reply = reply_from_body(json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}).encode())

    class OneReply:
        def complete(self, messages, tools, deadline):
            return reply

    episode = ChatEpisode(OneReply(), float("inf"), None, "the system prompt")
    assert episode.reply_to("the question") == content
    assert episode.turns[-1]["action"] == content[:MAX_KEPT_CONTENT_CHARS]
    assert len(episode.messages[-1]["content"]) == MAX_KEPT_CONTENT_CHARS
