"""Many clients at once, as an RL framework's parallel rollouts connect: every one gets its reply."""

from __future__ import annotations

import json
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.suites import Suite

TINY = Suite("tiny-text-concurrency", 1, "SearchQA-v0", {"max_steps": 8, "tool_format": "hermes"},
             world_size="tiny", dev_size=2, test_size=2)


def _ask(url: str) -> int:
    body = json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()
    request = urllib.request.Request(url + "/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


def test_128_requests_at_once_all_get_a_reply():
    """Why: the stdlib listen queue of 5 reset some connections (ECONNRESET, 5 to 40 of 128)."""
    with ScriptedEndpoint(TINY, "reader") as endpoint, ThreadPoolExecutor(128) as pool:
        for _ in range(2):
            assert list(pool.map(_ask, [endpoint.base_url] * 128)) == [200] * 128
