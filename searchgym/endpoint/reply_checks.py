"""What an endpoint run's transcripts say about its replies: how many the env could read
(:func:`reply_report`, kept in ``result.json["endpoint"]``), and whether most requests got no reply
at all (:func:`unanswered`).

Why two checks: a reply that arrives but is no readable action is the model's doing, and scores
zero in a finished evaluation; a request that got nothing back (a wrong URL, a server down or
stalled past the per-task timeout, an HTTP error) measures the server, not the model, so such a
run is not finished: ``searchgym evaluate`` writes no scores and no DONE, and a re-run plays again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

#: A warning goes to the results when more than this share of a run's replies are unparseable; a
#: run where more than this share of its requests got no reply at all is not finished.
UNPARSEABLE_WARNING_SHARE = 0.5


def _turns(transcripts: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The turns that asked the model (a queued call of an earlier reply asked nothing)."""
    return [t for row in transcripts for t in row.get("turns", ()) if "parsed" in t and not t.get("queued")]


def reply_report(transcripts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """How many of the model's replies the env could read as actions, with a warning when most could
    not (a text model on a candidate suite, a wrong tool format) or got none (a wrong URL, a server down)."""
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
    return {"replies": len(turns), "unparseable": bad, "unparseable_share": round(share, 4), "warning": warning}


def unanswered(transcripts: Sequence[Mapping[str, Any]], url: str) -> str | None:
    """One line naming the request error when most requests got no reply at all (an error and no
    assistant message: refused, timed out, an HTTP error), else None. A body that arrived but is
    not a chat completion has a message (the raw text) and counts as a reply."""
    turns = _turns(transcripts)
    errors = [str(t["error"]) for t in turns if t.get("error") and not t.get("reply")]
    if not turns or len(errors) / len(turns) <= UNPARSEABLE_WARNING_SHARE:
        return None
    if all(e.startswith("HTTP 4") for e in errors):  # the server is there and refuses: the request is at fault
        advice = "check --model, the API key (--api-key or OPENAI_API_KEY) and the --agent-option settings"
    else:
        advice = "check --base-url and that the server is running and answers within the per-task timeout"
    return f"{len(errors)} of {len(turns)} requests to {url} got no reply (e.g. {errors[0]:.300}); {advice}"


def read_transcripts(path: str | os.PathLike) -> tuple[list[dict[str, Any]], int]:
    """The rows of a transcripts file, and how many of its lines are no transcript row (cut by a crash
    or a copy, edited, not UTF-8, overlong, turns that are not a list of objects). Why not
    ``read_jsonl``: it skips such lines silently, and a report summed from what is left of a cut
    file read as a run with fewer replies (22 became 0 in a re-shown run's result.json).
    A path that is not a regular file is :class:`~searchgym.damaged.DamagedFile`; a missing one
    ``FileNotFoundError``."""
    from searchgym.fileio import read_jsonl_counted

    found, damaged = read_jsonl_counted(path)
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


__all__ = ["UNPARSEABLE_WARNING_SHARE", "is_report", "read_transcripts", "reply_report", "unanswered"]
