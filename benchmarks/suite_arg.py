"""Argument types for the benchmark scripts: bad input is a one-line usage error that says what was
wrong and what is accepted (before: a traceback, or a run with nonsense numbers).

``--suite``: a retired or unknown suite id names the suites to use (before: a traceback ending in
UnknownSuite). Counts, comma lists, probabilities and splits: checked before any work starts."""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path

#: The checkout that holds ``benchmarks/``: the scripts' default paths are its, from any working folder.
REPO = Path(__file__).resolve().parents[1]


def suite_id(text: str) -> str:
    """An argparse ``type``: ``text`` when it names a suite, else the suites module's own message."""
    from searchgym.suites import UnknownSuite, get_suite

    try:
        get_suite(text)
    except UnknownSuite as exc:
        raise argparse.ArgumentTypeError(exc.args[0]) from None
    return text


#: What a script needs of its suite: the test, and the words that name such suites. Why: a suite of
#: another kind (a single-agent suite for a team benchmark, a candidate suite for a chat endpoint)
#: ended in a traceback (AttributeError: 'SearchEnv' object has no attribute 'agents', ...).
SUITE_KINDS = {
    "multi-agent": (lambda s: _suites().env_kind(s) == "parallel", "a multi-agent (team or group) suite"),
    "text": (lambda s: _suites().observation_kind(s) == "text", "a text-mode suite"),
    # the numeric policies and trainers read each observation's candidates (before, a text suite was
    # AttributeError: 'str' object has no attribute 'get', or "observation 0 must be a dict", mid-run)
    "candidates": (lambda s: _suites().observation_kind(s) == "candidates", "a suite in candidate mode"),
    "team-candidates": (lambda s: s.env_id.startswith("TeamSearch") and _suites().observation_kind(s) == "candidates",
                        "a team suite in candidate mode"),
}


def _suites():
    """searchgym.suites, imported when first needed (``--tree`` puts another checkout in place first)."""
    import searchgym.suites

    return searchgym.suites


def suite_kind_error(text: str, kind: str) -> str | None:
    """Why suite ``text`` cannot serve as ``kind`` (a key of :data:`SUITE_KINDS`), naming the suites
    that can; None when it can."""
    from searchgym.suites import get_suite, list_suites

    accepts, words = SUITE_KINDS[kind]
    if accepts(get_suite(text)):
        return None
    fitting = ", ".join(s.id for s in list_suites() if accepts(s))
    return f"{text!r} is not {words}; accepted: {fitting}"


def suite_of(kind: str):
    """An argparse ``type``: a suite id of ``kind`` (see :data:`SUITE_KINDS`)."""

    def check(text: str) -> str:
        suite_id(text)
        error = suite_kind_error(text, kind)
        if error:
            raise argparse.ArgumentTypeError(error)
        return text

    check.__name__ = f"{kind} suite"
    return check


def check_suite_arg(parser: argparse.ArgumentParser, suite: str, kind: str | None = None) -> None:
    """:func:`suite_id`'s check (and :func:`suite_of`'s, given ``kind``) for scripts that take
    ``--tree``: made after the other checkout is in place (a ``type=`` would import this checkout's
    searchgym first)."""
    try:
        suite_id(suite)
    except argparse.ArgumentTypeError as exc:
        parser.error(f"argument --suite: {exc}")
    try:
        error = suite_kind_error(suite, kind) if kind else None
    except (ImportError, AttributeError):  # an older checkout without the registry's look-up: not checked
        error = None
    if error:
        parser.error(f"argument --suite: {error}")


def checkout(text: str):
    """An argparse ``type`` for ``--tree``: a folder holding a searchgym checkout. Why: a wrong folder
    was a bare line from ``source_tree.use_tree`` with no usage, after argument parsing."""
    path = Path(text)
    if not (path / "searchgym" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(f"{text!r} is not a searchgym checkout (a folder holding "
                                         "searchgym/__init__.py)")
    return str(path)


def _number(text: str, kind: type, least: float, strict: bool, what: str):
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
    if math.isnan(value) or value < least or (strict and value == least):
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


def count(text: str) -> int:
    """An argparse ``type``: an integer >= 1."""
    return _number(text, int, 1, False, "a whole number >= 1")


def natural(text: str) -> int:
    """An argparse ``type``: an integer >= 0."""
    return _number(text, int, 0, False, "a whole number >= 0")


def seconds(text: str) -> float:
    """An argparse ``type``: a finite number of seconds >= 0 (inf failed later, in a traceback)."""
    value = _number(text, float, 0.0, False, "a finite number of seconds >= 0")
    if math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of seconds >= 0")
    return value


def probability(text: str) -> float:
    """An argparse ``type``: a number from 0 to 1."""
    value = _number(text, float, 0.0, False, "a probability from 0 to 1")
    if value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a probability from 0 to 1")
    return value


def _comma_list(text: str, item, words: str, example: str, finite: bool = False) -> list:
    """``item`` (an argparse type) of each entry of a non-empty comma list; one message for any bad
    entry, naming what is accepted."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    try:
        values = [item(t) for t in items]
    except argparse.ArgumentTypeError:
        values = []
    if not values or (finite and any(math.isinf(v) for v in values)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of {words}, e.g. {example}")
    return values


def counts(text: str) -> list[int]:
    """An argparse ``type``: a comma list of integers >= 1 (e.g. ``1,8``)."""
    return _comma_list(text, count, "whole numbers >= 1", "1,8")


def deadlines(text: str) -> list[float]:
    """An argparse ``type``: a comma list of finite seconds > 0 (e.g. ``1.5,5``)."""
    return _comma_list(text, lambda t: _number(t, float, 0.0, True, ""), "finite seconds > 0", "1.5,5", finite=True)


def seed_list(text: str) -> list[int]:
    """An argparse ``type``: a comma list of seeds, integers >= 0 (e.g. ``0,1``). Why: the scripts
    split the text themselves, after starting work: ``x`` was a ValueError traceback."""
    return _comma_list(text, natural, "seeds >= 0", "0,1")


def names(text: str) -> list[str]:
    """An argparse ``type``: a non-empty comma list of names (an empty one ran nothing, silently)."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"{text!r} names nothing; give a comma list")
    return items


def json_object(text: str) -> dict:
    """An argparse ``type``: a JSON object (``{"k": 1}``). Why: ``json.loads`` as the type said only
    "invalid loads value", and a list got through to a TypeError mid-run."""
    import json

    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"{text!r} is not a JSON object, e.g. '{{\"comparison_facts\": true}}'")
    return value


def world_size(text: str):
    """An argparse ``type``: a world preset or an integer scale (checked by the generator's own rule)."""
    from searchgym.world.generate import resolve_size

    size = int(text) if text.strip().lstrip("-").isdecimal() else text.strip()
    try:
        resolve_size(size)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return size


def splits(text: str) -> str:
    """An argparse ``type``: a comma list of split names (train, dev, test)."""
    accepted = ("train", "dev", "test")
    names = [t.strip() for t in text.split(",")]
    if not names or any(name not in accepted for name in names):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of splits among {', '.join(accepted)}")
    return ",".join(names)


def new_folder(text: str, flag: str = "path"):
    """An argparse ``type``: a folder to write into (a path that exists must be a folder; a new one
    must be makeable: no file above it). Why: ``--out afile/sub`` was a traceback, at times after
    the runs. :func:`flagged` names the option in the message."""

    from searchgym.fileio import check_folder_can_be_made

    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file; give a folder (new or existing)")
    try:
        check_folder_can_be_made(path, flag)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return path


def out_file(text: str, flag: str = "path"):
    """An argparse ``type``: a file to write (checked before the run, not after it): not a folder,
    every existing part above it a folder, and a folder makeable where one is missing (``--json
    afile/x.json`` failed after the run)."""
    import os

    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name")
    above = next((p for p in path.parents if os.path.lexists(p)), None)
    if above is not None and not above.is_dir():
        raise argparse.ArgumentTypeError(f"{above} is a file, so {flag} {text} cannot be written; "
                                         f"choose another {flag}")
    if above is not None and above != path.parent:  # its folder is made first: can it be?
        new_folder(str(path.parent), flag)
    return path


def flagged(kind, flag: str):
    """``kind`` (:func:`new_folder` or :func:`out_file`) as an argparse ``type`` whose messages name ``flag``."""

    def check(text: str):
        return kind(text, flag)

    check.__name__ = kind.__name__
    return check


def describe(doc: str) -> str:
    """An argparse ``description``: the script docstring's first paragraph, joined into one line.
    Why: its first line alone (what the scripts passed before) often stopped mid-sentence in --help."""
    first = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]
    return " ".join(first.split())
