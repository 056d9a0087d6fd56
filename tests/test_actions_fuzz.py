"""Fuzzed text actions: parsing never raises, whatever an agent writes."""

from __future__ import annotations

import time

import numpy as np
from test_actions import ROUND_TRIP, TOOLS

from searchgym.action_types import Action, ParseError
from searchgym.actions import format_action, parse_action

_PIECES = [
    "<tool_call>",
    "</tool_call>",
    "<answer>",
    "</answer>",
    "<think>",
    "</think>",
    "<search>",
    "</search>",
    "<post>",
    "<wait/>",
    "<time/>",
    "<|im_end|>",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    ":",
    ",",
    "\\",
    "```json",
    '"name"',
    '"arguments"',
    '"web_search"',
    "'answer'",
    "null",
    "true",
    "1e999",
    "\n",
    "\n\n",
    " ",
    "x",
]


def _garbage(rng: np.random.Generator, i: int) -> str:
    kind = i % 8
    if kind == 0:  # random bytes as text
        return rng.bytes(int(rng.integers(0, 3000))).decode("utf-8", errors="replace")
    if kind == 1:  # random code points
        return "".join(chr(int(c)) for c in rng.integers(1, 0xD7FF, size=int(rng.integers(0, 2000))))
    if kind == 2:  # nested / shuffled tags and JSON tokens
        return "".join(rng.choice(_PIECES, size=int(rng.integers(1, 800))))
    if kind == 3:  # huge JSON
        n = int(rng.integers(1_000, 40_000))
        return '<tool_call>{"name": "web_search", "arguments": {"query": "' + "a" * n + '"}}</tool_call>'
    if kind == 4:  # unbalanced or deeply nested braces
        depth = int(rng.integers(1, 15_000))
        opener = str(rng.choice(["{", "[", '{"a":', "{'a': ["]))
        return str(rng.choice(["<tool_call>", "", "<answer>"])) + opener * depth
    if kind == 5:  # mutated valid actions
        base = list(
            format_action(ROUND_TRIP[int(rng.integers(len(ROUND_TRIP)))], str(rng.choice(["hermes", "tags"])))
        )
        for _ in range(int(rng.integers(1, 6))):
            pos = int(rng.integers(0, len(base) + 1))
            base.insert(pos, str(rng.choice(_PIECES)))
            if base and rng.random() < 0.5:
                del base[int(rng.integers(len(base)))]
        return "".join(base)
    if kind == 6 and i % 400 == 6:  # a few 1e6-character strings
        filler = str(rng.choice(["a", "{", "<", " ", "<think>", "<tool_call>", "9"]))
        return filler * (1_000_000 // len(filler)) + "<answer>x</answer>"
    if kind == 6:  # long whitespace runs after tag starts (regex backtracking bait)
        return "<" + " " * int(rng.integers(0, 20_000)) + "/" + "\t" * 1000 + "answer"
    return "<" * int(rng.integers(1, 5000)) + "|" * 50 + ">" + ",\n" * int(rng.integers(0, 5000)) + "}"


def test_fuzz_never_raises_and_is_fast():
    rng = np.random.default_rng(20240601)
    strings = [_garbage(rng, i) for i in range(2000)]
    assert sum(len(s) >= 1_000_000 for s in strings) >= 4
    start = time.perf_counter()
    kinds = set()
    for i, s in enumerate(strings):
        fmt = "hermes" if i % 2 else "tags"
        result = parse_action(s, fmt, TOOLS, allow_team_actions=bool(i % 3 == 0))
        assert isinstance(result, Action | ParseError)
        if isinstance(result, ParseError):
            assert result.message.startswith("Could not read your action")
        kinds.add(type(result).__name__)
    average = (time.perf_counter() - start) / len(strings)
    assert average < 0.1, f"average parse time {average:.4f}s"
    assert kinds == {"Action", "ParseError"}
