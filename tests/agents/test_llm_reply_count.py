"""One counter of an LLM's unreadable replies: the recipe's batched evaluation (``evaluate_llm``) and the
harness's LLM actor (``ReplyTallyActor``) both count a finished episode's session with ``ReplyCount``.

Before: each summed the sessions' format errors its own way (the recipe its episodes' steps, the
harness its sessions' steps), so the two could drift apart unnoticed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from searchgym.agents.llm_reply_count import ReplyCount


def test_it_sums_the_steps_and_format_errors_of_the_sessions_it_is_given() -> None:
    count = ReplyCount()
    assert count.unparsed_share is None and count.record() == {"replies": 0, "unparsed_replies": 0}
    count.add_session(SimpleNamespace(steps=4, format_errors=3))
    count.add_session(SimpleNamespace(steps=2, format_errors=0))
    assert (count.replies, count.unparsed) == (6, 3)
    assert count.unparsed_share == 0.5
    assert count.record() == {"replies": 6, "unparsed_replies": 3}


def _spied(monkeypatch) -> list:
    seen = []
    original = ReplyCount.add_session

    def add_session(self, session):
        seen.append((session.steps, session.format_errors))
        original(self, session)

    monkeypatch.setattr(ReplyCount, "add_session", add_session)
    return seen


@pytest.fixture(scope="module")
def played():
    """A tiny text suite and the random:tiny model, unguided (its replies do not parse)."""
    pytest.importorskip("transformers")
    from searchgym.agents.llm_policy import LLMPolicy, load_model
    from searchgym.agents.llm_rollout import RolloutConfig

    from searchgym.suites import Suite

    suite = Suite("test-llm-reply-count-v0", 0, "SearchQA-v0", {"action_mode": "text", "max_steps": 2},
                  world_size="tiny", dev_size=1, test_size=3, description="tests: one counter of unreadable replies")
    return suite, LLMPolicy(*load_model("random:tiny", seed=0), backend="kv"), RolloutConfig(max_turns=2,
                                                                                               max_new_tokens=16)


def test_the_recipes_evaluation_counts_each_episode_with_it(played, monkeypatch) -> None:
    from searchgym.agents.llm_eval import evaluate_llm

    suite, policy, config = played
    seen = _spied(monkeypatch)
    evaluation = evaluate_llm(policy, suite, "test", config=config, batch=2)
    assert len(seen) == 3  # one finished session per task
    assert (evaluation.replies, evaluation.unreadable) == tuple(map(sum, zip(*seen)))
    assert evaluation.replies > 0


def test_the_harness_actor_counts_each_episode_with_it(played, monkeypatch) -> None:
    from searchgym.harness.evaluate import evaluate_suite
    from searchgym.harness.llm_reply_tally import ReplyTallyActor

    suite, policy, config = played
    seen = _spied(monkeypatch)
    actor = ReplyTallyActor(policy, config)
    evaluate_suite(suite, actor, "test")
    assert actor.parse_share("test") is not None
    assert len(seen) == 3
    count = actor.counts["test"]
    assert isinstance(count, ReplyCount) and (count.replies, count.unparsed) == tuple(map(sum, zip(*seen)))


def test_the_warnings_advice_fits_the_model(played) -> None:
    """Guided decoding is advised for a trained model, never for random weights (a pipeline check)."""
    from searchgym.harness.llm_reply_tally import ReplyTallyActor

    _, policy, config = played
    advice = {}
    for model in ("random:tiny", "runs/sft-model", None):
        actor = ReplyTallyActor(policy, config, model=model)
        actor.counts["test"] = ReplyCount(replies=4, unparsed=4)
        advice[model] = actor.warning()
    assert advice["random:tiny"].endswith("random:tiny starts from random weights, a check of the pipeline: its "
                                          "replies are not expected to parse; give --model a trained model to score one")
    assert "guided=true" in advice["runs/sft-model"] and advice["runs/sft-model"] == advice[None]
