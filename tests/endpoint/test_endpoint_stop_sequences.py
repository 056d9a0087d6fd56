"""``searchgym evaluate --agent openai`` takes OpenAI's ``stop`` sequences (``--agent-option stop=[...]``):
sent in every request when given, absent when not, and refused in one line before any folder when it is
not a non-empty text or a list of at most 4 non-empty texts. Before: ``stop`` was an unknown option."""

from __future__ import annotations

import pytest

from searchgym.cli import main
from searchgym.endpoint.chat_client import EndpointConfig
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.fileio import read_json
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-endpoint-stop-v0", 0, "SearchQA-v0", {"max_steps": 4}, world_size="tiny",
                             dev_size=1, test_size=2, description="tests: endpoint stop sequences"))


def _evaluate(out, base_url: str, *options: str) -> int:
    return main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url", base_url,
                 "--out", str(out), "--no-progress", "--concurrency", "1", *options])


@pytest.mark.parametrize(("options", "sent"), [
    ((), None),
    (("--agent-option", 'stop=["END", "\\n\\nUser:"]'), ["END", "\n\nUser:"]),
    (("--agent-option", "stop=END"), ["END"]),
], ids=["not-given", "list", "text"])
def test_stop_is_sent_only_when_given(tmp_path, options, sent):
    with ScriptedEndpoint(SUITE, "oracle", keep_requests=True) as endpoint:
        assert _evaluate(tmp_path / "run", endpoint.base_url, *options) == 0
        kept = endpoint.kept
    assert kept and all(request.get("stop") == sent and ("stop" in request) == (sent is not None) for request in kept)
    assert read_json(tmp_path / "run" / "result.json")["test"]["all"]["success"] == 1.0


@pytest.mark.parametrize("option", ['stop=["a", "b", "c", "d", "e"]', 'stop=[""]', "stop=3", 'stop=["a", 3]',
                                    'stop={"a": 1}'])
def test_a_bad_stop_is_one_line_before_any_folder(tmp_path, capsys, option):
    out = tmp_path / "run"
    assert _evaluate(out, "http://127.0.0.1:9/v1", "--agent-option", option) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "stop must be a non-empty text or a list of at most 4 non-empty texts" in err[0], err
    assert not out.exists()


def test_the_config_holds_the_sequences_as_a_tuple():
    def config(stop: object) -> EndpointConfig:
        return EndpointConfig("m", "http://127.0.0.1:8000/v1", stop=stop)

    assert config(None).stop is None and config([]).stop is None
    assert config("END").stop == ("END",) and config(["a", "b", "c", "d"]).stop == ("a", "b", "c", "d")
