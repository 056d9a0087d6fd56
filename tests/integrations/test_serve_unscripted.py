"""`searchgym serve` says when it is asked a question it has no script for. Before: a task outside
--splits/--limit was answered <answer>unknown</answer> without a word (`serve --limit 3`, then
`evaluate --limit 5`, scored 0.600 with nothing in the server's log)."""

from __future__ import annotations

import json
import logging
import urllib.request

import searchgym
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.suites import Suite

TINY = Suite("tiny-text-unscripted", 1, "SearchQA-v0", {"max_steps": 6, "tool_format": "hermes"}, world_size="tiny",
             dev_size=3, test_size=2)


def _reply(url: str, messages: list[dict]) -> str:
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps({"messages": messages}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["choices"][0]["message"]["content"]


def test_an_unscripted_question_is_answered_and_logged_once(caplog):
    records = searchgym.tasks(TINY, "dev")
    caplog.set_level(logging.WARNING, logger="searchgym.endpoint.scripted_endpoint")
    with ScriptedEndpoint(TINY, "oracle", splits=("dev",), limit=1) as endpoint:
        scripted = _reply(endpoint.base_url, records[0].messages)
        assert not caplog.records  # a scripted question is no news
        replies = [_reply(endpoint.base_url, records[1].messages) for _ in range(2)]
        _reply(endpoint.base_url, [*records[1].messages, {"role": "assistant", "content": "x"},
                                   {"role": "user", "content": "y"}])  # a later turn of the same question
    assert scripted != "<answer>unknown</answer>"
    assert replies == ["<answer>unknown</answer>"] * 2  # a client still gets a reply
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [(f"no oracle reply for question {records[1].question!r} (not among the scripted tasks: dev, "
                      "the first 1 of each); replying <answer>unknown</answer>")]
    assert list(endpoint.unscripted) == [(records[1].question, "")]
