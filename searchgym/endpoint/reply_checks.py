"""What an endpoint run's transcripts say about its replies: how many the env could read
(:func:`reply_report`, kept in ``result.json["endpoint"]``, with the scripted endpoint's behaviours
when it served them), and whether most requests got no reply at all (:func:`unanswered`).

Why two checks: a reply that arrives but is no readable action is the model's doing, and scores
zero in a finished evaluation; a request that got nothing usable back (a wrong URL, a server down
or stalled past the per-task timeout, an HTTP error, a 200 whose body is no chat completion, a
reply too long to read) measures the server, not the model, so such a run is not finished:
``searchgym evaluate`` writes no scores and no DONE, and a re-run plays again.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

from searchgym.endpoint.chat_client import FAILURE_KINDS, NOT_SENT, TOO_LONG
from searchgym.endpoint.scripted_identity import scripted_behaviour

#: A warning goes to the results when more than this share of a run's replies are unparseable; a
#: run where more than this share of its requests got no usable reply is not finished.
UNPARSEABLE_WARNING_SHARE = 0.5
#: How :func:`unanswered`'s line ends when the server answered and what it answered is not up to chance
#: (a refusal, a wrong path, no chat completion, a reply without end): running it again cannot help.
SAME_FAILURE = "the same options will fail the same way"


def _turns(transcripts: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The turns that asked the model (a queued call of an earlier reply asked nothing)."""
    return [t for row in transcripts for t in row.get("turns", ()) if "parsed" in t and not t.get("queued")]


def reply_report(transcripts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """How many of the model's replies the env could read as actions, with a warning when most could
    not (a text model on a candidate suite, a wrong tool format) or got none (a wrong URL, a server down);
    with ``scripted``, the behaviours of the scripted endpoint when it served the replies."""
    turns = _turns(transcripts)
    bad = sum(not t["parsed"] for t in turns)
    share = bad / len(turns) if turns else 0.0
    failed = [str(t["error"]) for t in turns if not t["parsed"] and t.get("error")]
    warning = None
    if turns and len(failed) / len(turns) > UNPARSEABLE_WARNING_SHARE:  # no reply at all: not a parsing problem
        warning = (f"{bad} of {len(turns)} model replies ({share:.0%}) were not a readable action: {len(failed)} "
                   f"requests got no usable reply (e.g. {failed[0]:.200}); check --base-url, that the server is "
                   "running and the transcripts")
    elif turns and share > UNPARSEABLE_WARNING_SHARE:
        warning = (f"{bad} of {len(turns)} model replies ({share:.0%}) were not a readable action; check that the "
                   "suite's mode fits the model (text suites: searchgym suites lists *-text-v2) and the transcripts")
    report = {"replies": len(turns), "unparseable": bad, "unparseable_share": round(share, 4), "warning": warning}
    scripted = scripted_behaviours(turns)
    return report | ({"scripted": scripted} if scripted else {})


def scripted_behaviours(turns: Sequence[Mapping[str, Any]]) -> list[str]:
    """The behaviours the scripted endpoint named in the replies of ``turns`` (their ``system_fingerprint``),
    sorted; empty when no reply came from it. Why: it answers any model name, so only its replies say that
    it, and not a model, played the run (:mod:`searchgym.endpoint.scripted_identity`)."""
    found = {scripted_behaviour(t.get("system_fingerprint")) for t in turns}
    return sorted(b for b in found if b is not None)


def unanswered(transcripts: Sequence[Mapping[str, Any]], url: str) -> str | None:
    """One line naming the request error when most requests got no usable reply (an error and no
    assistant message: refused, timed out, an HTTP error, a body that is no chat completion, one too
    long to read), else None; the advice fits what came back."""
    turns = _turns(transcripts)
    failed = [(str(t["error"]), _failure_kind(t)) for t in turns if t.get("error") and not t.get("reply")]
    if not turns or len(failed) / len(turns) <= UNPARSEABLE_WARNING_SHARE:
        return None
    sent = [(e, k) for e, k in failed if k != "not sent"] or failed
    kinds = [k for _, k in sent]
    kind = max(dict.fromkeys(kinds), key=kinds.count)  # the most common; a tie goes to the first seen
    example = next(e for e, k in sent if k == kind)
    got = "no usable reply" if kind in ("unusable", "too long") else "no reply"
    if len(sent) < len(failed):  # the run stopped sending: the server never answered
        stop = next(e for e, k in failed if k == "not sent").removeprefix(NOT_SENT)
        advice = (f"{stop}, so the rest were not sent; check --base-url and that the server is running and answers "
                  "within the per-task timeout (--agent-option timeout=SECONDS)")
    else:
        advice = _ADVICE[kind].format(url=url) + (f"; {SAME_FAILURE}" if kind in _LASTING else "")
    return f"{len(failed)} of {len(turns)} requests to {url} got {got} (e.g. {example:.300}); {advice}"


_ADVICE = {
    "too long": ("the model writes without end: lower --agent-option max_tokens, or make the server stop it (a stop "
                 "sequence, its own token limit)"),
    "unusable": ("the server answers, but not with chat completions: check that --base-url is the base of an "
                 "OpenAI-compatible API (requests go to {url}) and the transcripts"),
    "path": "check the --base-url path: requests go to {url} (a missing /v1?)",
    "refused": "check --model, the API key (--api-key or OPENAI_API_KEY) and the --agent-option settings",
    "no reply": "check --base-url and that the server is running and answers within the per-task timeout",
}
_ADVICE["not sent"] = _ADVICE["no reply"]  # where every failed request went unsent: no server has answered
#: The kinds of failure that the server's answer decides (every other kind is a server down or slow, which
#: may be up by the next run).
_LASTING = frozenset({"too long", "unusable", "path", "refused"})


def _failure_kind(turn: Mapping[str, Any]) -> str:
    """What a failed request came to (the key of its advice): the kind the client gave it, else, in a
    transcript written before turns kept one (``error_kind``), what its error's text says."""
    kind = turn.get("error_kind")
    return kind if isinstance(kind, str) and kind in FAILURE_KINDS else _kind_of_text(str(turn["error"]))


def _kind_of_text(error: str) -> str:
    """What a failed request's error says came back, read from its wording (transcripts without ``error_kind``)."""
    if error.startswith(NOT_SENT):
        return "not sent"
    if error.startswith(TOO_LONG):
        return "too long"
    if re.search(r"HTTP 2\d\d but the body is no chat completion", error):
        return "unusable"
    if error.startswith("HTTP 404") and "model" not in error.lower():  # no route there; "the model `m` does not exist"
        return "path"  # is the request's fault
    return "refused" if error.startswith("HTTP 4") else "no reply"


def rerun_cannot_help(reason: str) -> bool:
    """Whether :func:`unanswered`'s ``reason`` is a failure that the same command meets again. Why:
    ``searchgym evaluate`` said "re-run the same command to evaluate again" after a server refused every
    request, or answered them with no chat completion after every retry, which a re-run only repeats. An
    actor reports a run that measured nothing as text (its ``unfinished_reason()``), so the advice's last
    words say it; :class:`~searchgym.harness.runner.RunNotFinished` reads them into ``rerun_helps``."""
    return reason.endswith(SAME_FAILURE)


def read_transcripts(path: str | os.PathLike) -> tuple[list[dict[str, Any]], int]:
    """The rows of a transcripts file, and how many of its lines are no transcript row (cut by a crash
    or a copy, edited, not UTF-8, overlong, turns that are not a list of objects). Why not
    ``read_jsonl``: it skips such lines silently, and a report summed from what is left of a cut
    file read as a run with fewer replies (22 became 0 in a re-shown run's result.json).
    A path that is not a regular file is :class:`~searchgym.damaged.DamagedFile`; a missing one
    ``FileNotFoundError``. Every string is read back as the run had it (``read_strings``: the file holds a
    lone surrogate as its escape text, as predictions.jsonl does)."""
    from searchgym.fileio import read_jsonl_counted
    from searchgym.harness.written_text import read_strings

    found, damaged = read_jsonl_counted(path)
    found = [read_strings(row) for row in found]
    rows = [row for row in found
            if isinstance(row.get("turns", []), list) and all(isinstance(t, dict) for t in row.get("turns", []))]
    return rows, damaged + len(found) - len(rows)


def is_report(value: Any) -> bool:
    """Is ``value`` a report :func:`reply_report` made (what ``result.json["endpoint"]`` keeps)?"""
    if not isinstance(value, dict):
        return False
    replies, bad = value.get("replies"), value.get("unparseable")
    counts = all(isinstance(n, int) and not isinstance(n, bool) for n in (replies, bad))
    return counts and 0 <= bad <= replies and (value.get("warning") is None or isinstance(value["warning"], str))


__all__ = ["SAME_FAILURE", "UNPARSEABLE_WARNING_SHARE", "is_report", "read_transcripts", "reply_report",
           "rerun_cannot_help", "scripted_behaviours", "unanswered"]
