"""Whether re-running the same command can mend a failed run, and what to do first where it cannot.

An exception says that a re-run meets it again with a class attribute ``rerun_helps = False`` (and
may say what to do in ``remedy``); a damaged file (:class:`~searchgym.damaged.DamagedFile`) says so
by its kind, its remedy in its message. Why: ``compare`` closed every failure with "re-run the same
command to resume the failed runs", also after "<folder>/base.pt changed after it was built ...;
delete <folder> to rebuild it", where the re-run then failed the same way.
"""

from __future__ import annotations

from searchgym.damaged import DamagedFile, shown_text

#: What to do about a run folder that holds another run's files (refused, untouched).
OTHER_RUN = "the folder holds another run's files; move them away (or choose another --out), then re-run"
#: What to do about a failure that says a re-run cannot mend it and names no remedy of its own.
ITS_ERROR = "do what its error says first, then re-run"


def rerun_helps(exc: BaseException) -> bool:
    """Whether the same command, run again, may get past ``exc`` (an interrupted run, a transient error)."""
    return not isinstance(exc, DamagedFile) and getattr(exc, "rerun_helps", True) is not False


def rerun_advice(exc: BaseException) -> str | None:
    """What to do before a re-run can help, in one line; None where re-running the same command resumes."""
    if rerun_helps(exc):
        return None
    if isinstance(exc, DamagedFile):
        remedy = f"{shown_text(exc.path)}: {shown_text(exc.remedy)}"
    else:
        remedy = shown_text(getattr(exc, "remedy", None) or ITS_ERROR)
    return f"re-running alone fails the same way; {remedy}"
