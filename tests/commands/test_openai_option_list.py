"""The options ``--agent openai`` lists after a misspelt ``--agent-option`` are the keys
``--agent-option`` takes. Before: the list named ``api_key``, which ``--agent-option`` refuses (the
key would be written to config.json), and did not say that model, base_url and concurrency have flags."""

from __future__ import annotations

import argparse
import re

import pytest

from searchgym.commands.evaluate import endpoint_options

URL = "http://127.0.0.1:9/v1"


def _options(*agent_options: str) -> dict[str, object]:
    args = argparse.Namespace(agent="openai", agent_option=list(agent_options), model="m", base_url=URL,
                              api_key=None, concurrency=None)
    return endpoint_options(args)


def _listed() -> list[str]:
    with pytest.raises(ValueError) as caught:
        _options("foo=1")
    said = str(caught.value)
    assert said.startswith("--agent openai does not take option(s) ['foo']; accepted: ") and "\n" not in said
    accepted = said.split("; accepted: ", 1)[1]
    assert accepted.endswith("; the API key only by --api-key or OPENAI_API_KEY")
    return [re.sub(r" \(or --[a-z-]+\)$", "", key) for key in accepted.split(";")[0].split(", ")]


def test_the_list_names_no_key_that_agent_option_refuses() -> None:
    listed = _listed()
    assert "api_key" not in listed and {"model", "base_url", "concurrency", "timeout", "max_tokens"} <= set(listed)
    with pytest.raises(ValueError, match="give the API key with --api-key"):
        _options("api_key=x")


def test_the_list_says_which_keys_have_their_own_flags() -> None:
    with pytest.raises(ValueError) as caught:
        _options("foo=1")
    said = str(caught.value)
    for key, flag in (("model", "--model"), ("base_url", "--base-url"), ("concurrency", "--concurrency")):
        assert f"{key} (or {flag})" in said
    assert "timeout (or" not in said


def test_every_listed_key_is_taken_by_agent_option() -> None:
    """Each key listed passes the key checks (its value may still be refused by its own check)."""
    for key in _listed():
        try:
            _options(f"{key}=1")
        except ValueError as exc:
            assert "does not take option" not in str(exc) and "API key" not in str(exc), (key, str(exc))
