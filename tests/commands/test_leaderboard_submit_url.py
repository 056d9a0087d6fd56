"""`leaderboard submit --url` that is not an http(s) link is a usage error naming the accepted schemes.

Before: ``--url ftp://x`` read the whole run and then failed as "schema violation at method/url",
as if the submission file were at fault."""

from __future__ import annotations

import json

import pytest

from searchgym.cli import main
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-lb-submit-url-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=1, test_size=3, description="tests: submit --url"))
FORM = ("searchgym leaderboard: error: --url must be in the accepted form (an http:// or https:// link, without "
        "spaces, quotes or angle brackets; at most 300 characters)")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("submit-url") / "oracle"
    assert main(["evaluate", "--suite", SUITE.id, "--agent", "oracle", "--out", str(out), "--no-progress"]) == 0
    return out


@pytest.mark.parametrize(("url", "why"), [
    ("ftp://x", "got 'ftp://x' (scheme 'ftp'; accepted schemes: http, https (lower case))"),
    ("javascript:alert(1)", "got 'javascript:alert(1)' (scheme 'javascript'; accepted schemes: http, https (lower case))"),
    ("HTTPS://example.org", "got 'HTTPS://example.org' (scheme 'HTTPS'; accepted schemes: http, https (lower case))"),
    ("www.example.org", "got 'www.example.org' (no scheme; accepted schemes: http, https)"),
    ("https://example.org/a b", ("got 'https://example.org/a b' (whitespace, a quote or an angle bracket in it, "
                                 "or no // after the scheme)")),
    ("https://x.org/" + "a" * 300, f"got 'https://x.org/{'a' * 66}'... (314 characters)"),
    (" ", "or left out; it is empty"),
])
def test_a_url_of_another_form_is_a_usage_error(run, tmp_path, capsys, url, why) -> None:
    out = tmp_path / "s.json"
    assert main(["leaderboard", "submit", str(run), "--url", url, "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"{FORM}, {why}\n" and captured.out == ""
    assert "schema violation" not in captured.err and not out.exists()


def test_an_http_or_https_url_is_kept(run, tmp_path, capsys) -> None:
    for number, url in enumerate(("https://example.org/paper?v=2#s", "http://example.org")):
        out = tmp_path / f"s{number}.json"
        assert main(["leaderboard", "submit", str(run), "--url", url, "--out", str(out)]) == 0
        assert json.loads(out.read_text())["method"]["url"] == url
