"""The structured data behind an observation's text: question, steps so far, notes.

Why: a learned policy that wants the question or the actions already taken should not have to
parse the observation text (``"Question: ..."``, ``"Step k: ..."`` lines, ``"  <- "``
provenance; the format is documented in docs/OBSERVATIONS.md). Every env keeps an
:class:`ObservationLog` per agent and gives the data as ``env.unwrapped.observation_data()``
(single agent; the wrappers of ``searchgym.make`` do not pass methods through) or
``env.observation_data(agent)``, and in ``info["observation_data"]`` when built with
``observation_data=True``. The text itself is unchanged.

The data (plain dicts, lists and strings, JSON-serialisable)::

    {"question": str,              # the text after "Question: "
     "header": str,                # a team role's header line ("" for single agents and groups)
     "steps": [                    # every step so far, also those the text cut for length
         {"step": k,               # the k of "Step k:"
          "action": str,           # the rest of that line: Action.render() or "(unparseable action)"
          "kind": "tool" | "answer" | "post" | "wait" | None,   # None: unparseable
          "tool": str | None, "args": {name: value},
          "result_ids": [ids],     # evidence ids of the result (fact ids, "clock", "clarification")
          "names": [names],        # entity names the result mentions
          "invalid": bool, "format_error": bool}],
     "notes": [{"round": r, "author": str, "text": str}]}   # the blackboard (teams; [] otherwise)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from searchgym.envs.session import SearchSession, StepOutcome


@dataclass(frozen=True)
class StepRecord:
    """One step as a policy would read it off a ``Step k:`` block, without parsing it."""

    step: int
    action: str
    kind: str | None
    tool: str | None
    args: tuple[tuple[str, Any], ...]
    result_ids: tuple[str, ...]
    names: tuple[str, ...]
    invalid: bool
    format_error: bool

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "action": self.action, "kind": self.kind, "tool": self.tool,
                "args": dict(self.args), "result_ids": list(self.result_ids), "names": list(self.names),
                "invalid": self.invalid, "format_error": self.format_error}


class ObservationLog:
    """The steps one session has taken, recorded by its env right after each step.

    A step is kept as the few references a record is made of, and the records are built when
    read: every env step records, but few runs ever read the data."""

    def __init__(self, session: SearchSession) -> None:
        self.session = session
        self._raw: list[tuple] = []
        self._records: list[StepRecord] = []

    def record(self, outcome: StepOutcome) -> None:
        """Call right after the session's step (its latest round is this step's)."""
        session = self.session
        rnd = session.observed.rounds[-1] if session.observed.rounds else None
        self._raw.append((session.steps, session.transcript[-1][0], outcome.action, rnd, outcome.invalid,
                          outcome.format_error))

    @property
    def steps(self) -> list[StepRecord]:
        """A StepRecord per step so far, in order."""
        for step, line, action, rnd, invalid, format_error in self._raw[len(self._records):]:
            result = rnd.result if rnd is not None and rnd.result is not None else None
            self._records.append(StepRecord(
                step=step,
                action=line,
                kind=action.kind if action is not None else None,
                tool=action.tool if action is not None else None,
                args=action.arguments if action is not None else (),
                result_ids=tuple(result.evidence_ids) if result is not None else (),
                names=tuple(rnd.names) if result is not None else (),
                invalid=bool(invalid), format_error=bool(format_error)))
        return self._records

    def data(self, notes: Sequence[Any] = ()) -> dict[str, Any]:
        """The documented dict (see the module docstring); ``notes`` are blackboard Notes."""
        return {"question": self.session.task.question, "header": self.session.header,
                "steps": [s.as_dict() for s in self.steps],
                "notes": [{"round": n.round, "author": n.author, "text": n.text} for n in notes]}
