"""The endpoint agent's settings are checked by type and range before any folder is made. Before:
native_tools=False (the text "False") switched native tools on; "abc", 1.5 or "hot" for a number reached
the requests or ended in a bare Python error; 1e400 made the timeout infinite; a malformed URL was
retried; an api_key agent option was written into config.json."""

from __future__ import annotations

import pytest

from searchgym.cli import main
from searchgym.endpoint.chat_client import EndpointConfig

EVALUATE = ["evaluate", "--agent", "openai", "--suite", "searchqa-text-v2", "--limit", "1", "--no-progress",
            "--model", "m", "--base-url", "http://127.0.0.1:9/v1"]


@pytest.mark.parametrize(("option", "said"), [
    ("native_tools=False", "native_tools must be true or false, got 'False'"),
    ("max_tokens=abc", "max_tokens must be an integer in 1..1000000, got 'abc'"),
    ("max_tokens=1.5", "max_tokens must be an integer in 1..1000000, got 1.5"),
    ("temperature=hot", "temperature must be a number in 0..2, got 'hot'"),
    ("timeout=1e400", "timeout must be a number in 0..86400, got inf"),
    ("timeout=0", "timeout must be above 0 seconds"),
    ("retries=abc", "retries must be an integer in 0..100, got 'abc'"),
    ("max_backoff=-1", "max_backoff must be a number in 0..3600, got -1"),
    ("api_key=SECRET", "give the API key with --api-key or the OPENAI_API_KEY environment variable"),
])
def test_a_bad_setting_is_one_line_before_any_folder(tmp_path, capsys, option, said):
    out = tmp_path / "ev"
    assert main([*EVALUATE, "--agent-option", option, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and "SECRET" not in err[0], err
    assert not out.exists()


def test_a_url_with_no_host_is_refused():
    for url in ("http://[::1", "http://", "https:///v1"):
        with pytest.raises(ValueError, match="must be an http:// or https:// URL with a host"):
            EndpointConfig("m", url)


def test_good_settings_still_build():
    config = EndpointConfig("m", "http://127.0.0.1:8000/v1", timeout=30, retries=0, backoff=0, temperature=0.7,
                            max_tokens=64, native_tools=True)
    assert config.url == "http://127.0.0.1:8000/v1/chat/completions"
