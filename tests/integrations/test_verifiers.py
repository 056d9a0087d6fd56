"""searchgym in verifiers 0.4 (verifiers.v1): `load_environment(suite=..., split=...)` evaluated
against `searchgym serve --behaviour oracle` scores the oracle's 1.0, every reply reaching the
searchgym env; the reader (non-privileged) scores what it scores on the env.

verifiers runs each agent as its own chat program (a uv script, with the official `openai`
client) behind an interception proxy: the first run bootstraps `uv` and the script's packages
from the package registry, so this test is slow (about a minute) and skips without verifiers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import searchgym
from searchgym.endpoint.scripted_endpoint import ScriptedEndpoint

vf = pytest.importorskip("verifiers.v1", reason="verifiers is an optional extra: pip install 'searchgym[verifiers]'")

from searchgym.integrations.verifiers import TASKSET_ID, evaluate, load_environment

SUITE, SPLIT, LIMIT = "searchqa-text-v2", "dev", 2
pytestmark = pytest.mark.slow


DOC = Path(__file__).resolve().parents[2] / "docs" / "INTEGRATIONS.md"
MARKER = "<!-- tested with verifiers: tests/integrations/test_verifiers.py -->"


def test_the_docs_verifiers_example_runs_as_written(tmp_path, monkeypatch):
    """The docs' verifiers example (not in tests/test_doc_examples.py: verifiers is no test extra)."""
    text = DOC.read_text(encoding="utf-8")
    blocks = re.findall(re.escape(MARKER) + r"\s*\n```python\n(.*?)\n```", text, re.DOTALL)
    assert len(blocks) == 1 == text.count(MARKER)
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks[0], "docs/INTEGRATIONS.md (verifiers)", "exec"), {"__name__": "__doc_example__"})


def test_the_oracle_endpoint_scores_one_through_verifiers():
    env = load_environment(suite=SUITE, split=SPLIT, limit=LIMIT)
    assert env.config.taskset.id == TASKSET_ID
    tasks = list(env.taskset)
    records = searchgym.tasks(SUITE, SPLIT)[:LIMIT]
    assert [t.data.id for t in tasks] == [r.task_id for r in records]
    assert all(r.question in t.data.prompt and '"name": "web_search"' in t.data.prompt for t, r in zip(tasks, records))
    with ScriptedEndpoint(SUITE, "oracle", splits=(SPLIT,), limit=LIMIT) as endpoint:
        episodes = evaluate(env, endpoint.base_url, model="oracle")
        served = endpoint.requests
    assert len(episodes) == LIMIT and all(e.ok for e in episodes), [e.errors for e in episodes]
    for episode, record in zip(episodes, records):
        (trace,) = episode.traces
        assert trace.rewards["searchgym_score"].score == 1.0
        assert trace.metrics["searchgym_success"] == 1.0 and 0.9 < trace.metrics["searchgym_return"] < 1.0
        assert trace.info["searchgym_answer"] in record.answers
    assert served >= 2 * LIMIT  # at least a tool call and an answer per task went through the proxy


def test_refuses_suites_it_cannot_play():
    with pytest.raises(ValueError, match="multi-agent"):
        load_environment(suite="team-text-v2")
    with pytest.raises(ValueError, match="not a text suite"):
        load_environment(suite="searchqa-v2")
    with pytest.raises(ValueError, match="unknown split 'val'; accepted: train, dev, test"):
        load_environment(split="val")


@pytest.mark.parametrize("kwargs, message", [
    ({"limit": -1}, r"limit must be None \(every task\) or an int >= 1, got -1"),  # before: the last task dropped
    ({"limit": 0}, "limit must be None"),  # before: an empty taskset
    ({"limit": True}, "limit must be None"),
    ({"seed": -1}, r"the verifiers environment's seed must be an int in 0\.\."),  # before: inside Gymnasium
])
def test_refuses_a_limit_or_seed_it_cannot_play(kwargs, message):
    with pytest.raises(ValueError, match=message):
        load_environment(**kwargs)
