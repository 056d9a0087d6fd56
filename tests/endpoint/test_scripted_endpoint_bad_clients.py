"""What a buggy or hostile client sends the scripted endpoint (`searchgym serve`) gets a JSON 4xx
saying what was wrong, never a dropped connection with a traceback on the server's stderr, and the
endpoint keeps serving: JSON nested past the parser's depth, OpenAI list-of-parts content, a
Content-Length that is no number, negative or huge, and a body that never finishes arriving."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request

import pytest

from searchgym.endpoint import scripted_endpoint
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint
from searchgym.suites import Suite

TINY = Suite("tiny-text-endpoint", 1, "SearchQA-v0", {"max_steps": 8, "tool_format": "hermes"}, world_size="tiny",
             dev_size=3, test_size=2)
HI = {"messages": [{"role": "user", "content": "hi"}]}


def post(url: str, payload: dict | bytes) -> tuple[int, str, str]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    request = urllib.request.Request(url + "/chat/completions", data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def raw(port: int, data: bytes, timeout: float = 10) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


@pytest.mark.parametrize("body", [b"[" * 200_000 + b"]" * 200_000,
                                  b'{"messages": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"])
def test_json_nested_too_deep_is_a_400(body):
    # before: RecursionError in json.loads, the connection closed with no reply
    with ScriptedEndpoint(TINY, "prose", keep_requests=True) as endpoint:
        status, _, text = post(endpoint.base_url, body)
        assert status == 400 and "a JSON object with a list of messages" in text
        assert post(endpoint.base_url, HI)[0] == 200


@pytest.mark.parametrize("behaviour", ["random", "reader"])
@pytest.mark.parametrize("content", [[{"type": "text", "text": "hi"}], [{"text": 5}, "x", 3], 5])
def test_list_of_parts_and_odd_content_get_a_reply(behaviour, content):
    # before: random/oracle/stall failed on .rfind of a list (OpenAI's content parts), the reader on
    # "".join of a part whose text is a number: no reply
    with ScriptedEndpoint(TINY, behaviour, splits=("dev",), limit=1) as endpoint:
        status, _, text = post(endpoint.base_url, {"messages": [{"role": "user", "content": content}]})
        assert status == 200, text
        assert json.loads(text)["choices"][0]["message"]["content"]


@pytest.mark.parametrize("length, status, says", [("abc", 400, "Content-Length must be a whole number of bytes"),
                                                   ("-1", 400, "Content-Length must be a whole number of bytes"),
                                                   ("\xb2", 400, "Content-Length must be a whole number of bytes"),
                                                   (str(1 << 40), 413, "accepted: at most 67108864")])
def test_bad_content_length_is_a_4xx_unread(length, status, says):
    # before: "abc" was a ValueError and no reply; "-1" read to the end of the stream (unbounded memory, and a
    # client that keeps the socket open held the thread for ever); a huge one read up to 64 MiB of it
    with ScriptedEndpoint(TINY, "prose") as endpoint:
        port = int(endpoint.base_url.split(":")[2].split("/")[0])
        head = f"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode("latin-1")
        reply = raw(port, head + b"{}")
        assert reply.startswith(f"HTTP/1.0 {status}".encode()) and says.encode() in reply, reply[:300]
        assert post(endpoint.base_url, HI)[0] == 200


def test_half_a_body_gets_408_after_the_read_timeout(monkeypatch):
    # before: the handler waited for the rest for ever (no socket timeout); now 408 after READ_TIMEOUT
    monkeypatch.setattr(scripted_endpoint, "READ_TIMEOUT", 0.5)
    with ScriptedEndpoint(TINY, "prose") as endpoint:
        port = int(endpoint.base_url.split(":")[2].split("/")[0])
        reply = raw(port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{", timeout=10)
        assert reply.startswith(b"HTTP/1.0 408") and b"did not arrive within 0.5 seconds" in reply, reply[:300]
        assert post(endpoint.base_url, HI)[0] == 200
