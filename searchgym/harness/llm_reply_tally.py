"""How many of an LLM's replies the env could read as an action, per split, kept in the run's result.json,
and a warning when most test replies could not.

Why: a model trained with guided SFT (the tiny-LM recipe's) writes its actions only under guided
decoding. Played without it, every reply failed to parse and ``searchgym train --policy llm``
reported test success 0 without a word, where ``evaluate --agent openai`` warns. The counts (and the
warning) are kept in result.json under ``llm_replies``: the warning scrolled away, and a reader of the
run folder later could not tell a model that answered wrongly from one whose replies were never read.
"""

from __future__ import annotations

import sys
from typing import Any

from searchgym.agents.llm_reply_count import ReplyCount
from searchgym.agents.llm_rollout import LLMActor
from searchgym.endpoint.reply_checks import UNPARSEABLE_WARNING_SHARE


class ReplyTallyActor(LLMActor):
    """An :class:`LLMActor` that counts, per split, the replies it wrote and those its env could not
    parse (the sessions' format errors, read once each episode is over, as the recipe's evaluation
    reads them: :class:`~searchgym.agents.llm_reply_count.ReplyCount`); its ``result_record`` is kept in
    result.json, and its ``end_run`` (the harness calls both once, after the test and dev splits) warns
    on stderr when most test replies were unreadable."""

    def __init__(self, *args: Any, model: str | None = None, **kwargs: Any) -> None:
        """``model``: what the policy was loaded from (a ``random:`` preset is an untrained pipeline check,
        whose replies are not expected to parse: the advice about guided decoding does not fit it)."""
        super().__init__(*args, **kwargs)
        self.model = model
        self.counts: dict[str, ReplyCount] = {}  # split -> its replies and those that did not parse
        self._sessions: dict[int, Any] = {}  # the sessions of the episode being played, counted at its end

    def act(self, env: Any, observation: Any, info: Any) -> Any:
        base = env.unwrapped
        sessions = [base.session] if hasattr(base, "session") else list(base.sessions.values())
        for session in sessions:
            self._sessions[id(session)] = session
        return super().act(env, observation, info)

    def reset(self) -> None:
        self._count_finished()
        super().reset()

    def _count_finished(self) -> None:
        for session in self._sessions.values():
            self.counts.setdefault(str(session.task.split), ReplyCount()).add_session(session)
        self._sessions = {}

    def parse_share(self, split: str = "test") -> float | None:
        """The share of ``split``'s replies the env read as an action (None: no reply counted)."""
        self._count_finished()
        share = self.counts.get(split, ReplyCount()).unparsed_share
        return None if share is None else 1.0 - share

    def warning(self) -> str | None:
        """One line when more than half of the test replies did not parse, else None."""
        share = self.parse_share("test")
        if share is None or 1.0 - share <= UNPARSEABLE_WARNING_SHARE:
            return None
        count = self.counts["test"]
        if str(self.model or "").startswith("random:"):
            advice = (f"{self.model} starts from random weights, a check of the pipeline: its replies are not "
                      "expected to parse; give --model a trained model to score one")
        elif self.config.guided:
            advice = "check that the model's chat template and tool format fit the env"
        else:
            advice = ("a model trained with guided SFT (as the tiny-LM recipe's is) writes readable actions only "
                      "under guided decoding: give the option guided=true (with generation_backend 'kv')")
        return (f"{count.unparsed} of {count.replies} test replies ({1.0 - share:.0%}) were not a readable action; "
                f"{advice}")

    def result_record(self) -> dict[str, Any]:
        """What result.json keeps (the harness asks once the splits are played): ``llm_replies``, each
        split's replies and unparsed replies (test and dev always), and the warning (None when most
        test replies parsed)."""
        self._count_finished()
        splits = {split: self.counts.get(split, ReplyCount()).record()
                  for split in ("test", "dev", *self.counts)}
        return {"llm_replies": {**splits, "warning": self.warning()}}

    def end_run(self) -> None:
        warning = self.warning()
        if warning:
            print(f"WARNING: {warning}", file=sys.stderr)
