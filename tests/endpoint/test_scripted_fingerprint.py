"""The scripted endpoint names itself and its behaviour in each reply's ``system_fingerprint``, and the
endpoint agent records it: in each transcript turn, and summed in the run's endpoint report.

Before: every reply said ``searchgym-scripted`` whatever the behaviour, and the client dropped the
field, so nothing a run recorded said the scripted server played it; only the model name the user
chose did (``--model oracle`` said nothing)."""

from __future__ import annotations

import json
import time

import pytest
from openai import OpenAI

from searchgym.endpoint.chat_client import ChatClient, EndpointConfig
from searchgym.endpoint.chat_episode import ChatEpisode
from searchgym.endpoint.chat_replies import reply_from_body
from searchgym.endpoint.openai_agent import evaluate_openai
from searchgym.endpoint.reply_checks import reply_report
from searchgym.endpoint.scripted_endpoint import BEHAVIOURS, SCRIPTED, ScriptedEndpoint
from searchgym.endpoint.scripted_identity import (
    CONVERSATION_ONLY,
    UNNAMED,
    fingerprint,
    replays_oracle,
    scripted_behaviour,
)
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-scripted-fingerprint-text-v0", 0, "SearchQA-v0", {"max_steps": 8},
                             world_size="tiny", dev_size=1, test_size=2,
                             description="tests: the scripted endpoint's fingerprint"))
HI = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("behaviour", ["oracle", "random", "reader", "prose"])
def test_whole_and_streamed_replies_name_the_behaviour(behaviour):
    with ScriptedEndpoint(SUITE, behaviour, splits=("dev",)) as endpoint:
        client = OpenAI(base_url=endpoint.base_url, api_key="unused")
        whole = client.chat.completions.create(model="any-name", messages=HI)
        chunks = list(client.chat.completions.create(model="any-name", messages=HI, stream=True))
    assert whole.model == "any-name" and whole.system_fingerprint == f"searchgym-scripted-{behaviour}"
    assert {c.system_fingerprint for c in chunks} == {f"searchgym-scripted-{behaviour}"}


def test_only_the_behaviours_that_replay_the_oracle_read_private_state():
    replaying = {b for b in BEHAVIOURS if SCRIPTED.get(b) == "oracle"}
    assert set(BEHAVIOURS) - CONVERSATION_ONLY == replaying == {"oracle", "stall"}
    assert all(replays_oracle([b]) for b in replaying) and replays_oracle([UNNAMED])
    assert not any(replays_oracle([b]) for b in CONVERSATION_ONLY) and not replays_oracle([])


@pytest.mark.parametrize(("value", "behaviour"), [
    (fingerprint("oracle"), "oracle"), ("searchgym-scripted", UNNAMED), ("searchgym-scripted-", None),
    ("fp_44709d6fcb", None), ("searchgym-scriptedX", None), (None, None), (7, None)])
def test_a_fingerprint_names_a_scripted_behaviour_or_none(value, behaviour):
    assert scripted_behaviour(value) == behaviour


def _body(**fields) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": "<answer>x</answer>"}}],
                       **fields}).encode()


def test_a_reply_keeps_its_fingerprint_when_it_is_text():
    assert reply_from_body(_body(system_fingerprint="fp_1")).system_fingerprint == "fp_1"
    assert reply_from_body(_body(system_fingerprint="x" * 500)).system_fingerprint == "x" * 200
    assert reply_from_body(_body(system_fingerprint=["searchgym-scripted-oracle"])).system_fingerprint is None
    assert reply_from_body(_body()).system_fingerprint is None
    assert reply_from_body(b'{"choices": [], "system_fingerprint": "searchgym-scripted"}').system_fingerprint is None


def test_a_turn_records_the_fingerprint_and_the_report_the_scripted_behaviour():
    with ScriptedEndpoint(SUITE, "oracle", splits=("dev",)) as endpoint:
        client = ChatClient(EndpointConfig("oracle", endpoint.base_url, None, 30.0, 0), reply_from_body)
        episode = ChatEpisode(client, time.monotonic() + 30, None, "system")
        episode.reply_to("hi")
    assert episode.turns[0]["system_fingerprint"] == "searchgym-scripted-oracle"
    report = reply_report([{"turns": [{**episode.turns[0], "parsed": True}]}])
    assert report["scripted"] == ["oracle"]


def test_a_report_of_other_servers_is_as_before():
    turns = [{"parsed": True, "system_fingerprint": "fp_1"}, {"parsed": False}]
    assert reply_report([{"turns": turns}]) == {"replies": 2, "unparseable": 1, "unparseable_share": 0.5,
                                                "warning": None}


def test_the_python_api_records_who_served_the_run(tmp_path):
    """``evaluate_openai`` (docs/llm.md) against the scripted server still scores the oracle's 1.0 and
    its endpoint.json says the scripted oracle played it."""
    with ScriptedEndpoint(SUITE, "oracle") as endpoint:
        predictions = evaluate_openai(SUITE, "oracle", endpoint.base_url, concurrency=2, out_dir=tmp_path)
    assert [p.success for p in predictions] == [True, True]
    assert json.loads((tmp_path / "endpoint.json").read_text())["scripted"] == ["oracle"]
