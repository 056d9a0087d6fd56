"""Text-mode suites: the frozen suites on which an LLM that writes its own tool calls is scored.

The candidate suites (``searchqa-v2`` ...) ask an agent to pick a numbered action; an LLM that
writes ``<tool_call>{...}</tool_call>`` and ``<answer>...</answer>`` belongs on these instead.
They use the same medium world, families and split sizes as the candidate suites, the text-mode
env of each setting (Hermes tool calls; teams also write ``<post>`` and ``<wait/>``), and are
scored, hashed and verified exactly like them; each has its own leaderboard section.

``searchgym evaluate --agent openai --suite searchqa-text-v2 --model M --base-url URL`` puts any
OpenAI-compatible endpoint (vLLM, llama.cpp, SGLang, a hosted API) on the board.
"""

from __future__ import annotations

from searchgym.suites import ALL_FAMILIES, V1_REASON, Suite, register_frozen, retire_suite

#: suite id -> (env id, env kwargs, what it measures)
TEXT_SUITES: dict[str, tuple[str, dict, str]] = {
    "searchqa-text-v2": ("SearchQA-v0", {"max_steps": 12, "tool_format": "hermes"},
                         "one agent writes Hermes tool calls and <answer>; every family and difficulty"),
    "team-text-v2": ("TeamSearch-v0", {"max_rounds": 12, "tool_format": "hermes"},
                     "lead, searcher and analyst write tool calls, <post> notes and <wait/>; every family"),
    "group-text-v2": ("GroupSearch-v0", {"group_size": 4, "max_steps": 12, "tool_format": "hermes"},
                      "four agents write tool calls on each task; the prediction is their majority vote"),
}

for _id, (_env, _kwargs, _what) in TEXT_SUITES.items():
    register_frozen(Suite(_id, 2, _env, _kwargs, world_seed=0, world_size="medium", dev_size=100, test_size=200,
                          families=ALL_FAMILIES, description=f"text mode: {_what}"))
    retire_suite(_id.replace("-v2", "-v1"), V1_REASON, _id)


def text_suite_ids() -> list[str]:
    """The ids of the text-mode suites, single-agent first."""
    return list(TEXT_SUITES)
