"""``evaluate --agent openai`` settings refused up front, in one line, and docs/llm.md listing them.

Before: ``--base-url http://127.0.0.1:99999/v1`` passed, then every request failed after its retries
("ValueError: Port out of range 0-65535"); a trailing space went into every request line
("/v1 /chat/completions"); ``temperature=5`` (OpenAI's range is 0..2) passed and a real server
answered 400 to every request; ``system_prompt=3`` went out as a number; docs/llm.md left out
``backoff``, ``max_backoff`` and ``system_prompt``.
"""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.endpoint.chat_client import EndpointConfig
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-endpoint-fix-settings-v0", 0, "SearchQA-v0", {"max_steps": 2}, world_size="tiny",
                             dev_size=1, test_size=1, description="tests: endpoint settings"))
LLM_DOC = Path(__file__).resolve().parents[2] / "docs" / "llm.md"


def _closed_port() -> int:
    with socket.socket() as probe:  # bound, never listening: a connection to it is refused
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def evaluate(out: Path, url: str, *options: str) -> int:
    return main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "m", "--base-url", url,
                 "--out", str(out), "--no-progress", "--agent-option", "retries=0", "--agent-option", "timeout=2",
                 *options])


@pytest.mark.parametrize(("url", "why"), [
    ("http://127.0.0.1:99999/v1", "its port is not a number in 1..65535"),
    ("http://127.0.0.1:0/v1", "its port is not a number in 1..65535"),
    ("http://127.0.0.1:abc/v1", "its port is not a number in 1..65535"),
    ("http://127.0.0.1:8000/v1 ", "it has a space or a control character"),
    (" http://127.0.0.1:8000/v1", "it has a space or a control character"),
    ("http://127.0.0.1:8000/v1\n", "it has a space or a control character"),
])
def test_a_bad_base_url_is_one_line_before_any_folder(tmp_path, capsys, url, why) -> None:
    out = tmp_path / "ev"
    assert evaluate(out, url) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "base_url (--base-url) must be an http:// or https:// URL with a host" in err[0], err
    assert "a port in 1..65535" in err[0] and why in err[0]
    assert not out.exists()


def test_good_urls_still_build() -> None:
    for url in ("http://127.0.0.1:8000/v1", "https://api.openai.com/v1", "http://[::1]:65535/v1", "http://host/v1/"):
        assert EndpointConfig("m", url).url.endswith("/chat/completions")


@pytest.mark.parametrize(("option", "said"), [
    ("temperature=5", "temperature must be a number in 0..2, got 5"),
    ("temperature=2.01", "temperature must be a number in 0..2, got 2.01"),
    ("system_prompt=3", "system_prompt must be a non-empty text, got 3"),
    ("system_prompt= ", "system_prompt must be a non-empty text"),
])
def test_a_setting_a_real_server_refuses_is_one_line_before_any_folder(tmp_path, capsys, option, said) -> None:
    out = tmp_path / "ev"
    assert evaluate(out, f"http://127.0.0.1:{_closed_port()}/v1", "--agent-option", option) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0], err
    assert not out.exists()


def test_temperature_two_and_a_prompt_are_accepted() -> None:
    assert EndpointConfig("m", "http://127.0.0.1:8000/v1", temperature=2).temperature == 2


def _endpoint_section() -> str:
    text = LLM_DOC.read_text(encoding="utf-8")
    return text[text.index("## 1. Evaluate an endpoint"):text.index("## 2. ")]


def test_the_doc_lists_every_endpoint_option_with_its_default() -> None:
    section = _endpoint_section()
    skip = {"model", "base_url", "api_key"}  # flags of their own (--model, --base-url, --api-key)
    for field in dataclasses.fields(EndpointConfig):
        if field.name in skip:
            continue
        as_written = {"native_tools": "false", "timeout": "60", "stop": "null"}  # as a user writes them
        shown = as_written.get(field.name, str(field.default))
        assert f"| `{field.name}` | `{shown}` |" in section, field.name
    assert "| `system_prompt` | searchgym's one-line prompt" in section
    assert "| `temperature` | `0.0` | a number in 0..2" in section


def test_the_doc_says_how_a_stalling_server_is_found_out() -> None:
    section = " ".join(_endpoint_section().split())
    assert "found out in seconds, not hours" not in section  # held only for refused connections
    assert "once the requests of 3 tasks have all run past the per-task timeout" in section
