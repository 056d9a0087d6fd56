"""Argument types for the benchmark scripts: bad input is a one-line usage error that says what was
wrong and what is accepted (before: a traceback, or a run with nonsense numbers).

``--suite``: a retired or unknown suite id names the suites to use (before: a traceback ending in
UnknownSuite). Counts, comma lists, probabilities and splits: checked before any work starts."""

from __future__ import annotations

import argparse
import math
import re


def suite_id(text: str) -> str:
    """An argparse ``type``: ``text`` when it names a suite, else the suites module's own message."""
    from searchgym.suites import UnknownSuite, get_suite

    try:
        get_suite(text)
    except UnknownSuite as exc:
        raise argparse.ArgumentTypeError(exc.args[0]) from None
    return text


def check_suite_arg(parser: argparse.ArgumentParser, suite: str) -> None:
    """:func:`suite_id`'s check for scripts that take ``--tree``: made after the other checkout is in
    place (a ``type=`` would import this checkout's searchgym first)."""
    try:
        suite_id(suite)
    except argparse.ArgumentTypeError as exc:
        parser.error(f"argument --suite: {exc}")


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
    """An argparse ``type``: a number of seconds >= 0."""
    return _number(text, float, 0.0, False, "a number of seconds >= 0")


def probability(text: str) -> float:
    """An argparse ``type``: a number from 0 to 1."""
    value = _number(text, float, 0.0, False, "a probability from 0 to 1")
    if value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a probability from 0 to 1")
    return value


def counts(text: str) -> list[int]:
    """An argparse ``type``: a comma list of integers >= 1 (e.g. ``1,8``)."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of whole numbers >= 1, e.g. 1,8")
    try:
        return [count(t) for t in items]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of whole numbers >= 1, e.g. 1,8") from None


def deadlines(text: str) -> list[float]:
    """An argparse ``type``: a comma list of seconds > 0 (e.g. ``1.5,5``)."""
    message = f"{text!r} is not a comma list of seconds > 0, e.g. 1.5,5"
    items = [t.strip() for t in text.split(",") if t.strip()]
    try:
        values = [_number(t, float, 0.0, True, "") for t in items]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(message) from None
    if not values:
        raise argparse.ArgumentTypeError(message)
    return values


def splits(text: str) -> str:
    """An argparse ``type``: a comma list of split names (train, dev, test)."""
    accepted = ("train", "dev", "test")
    names = [t.strip() for t in text.split(",")]
    if not names or any(name not in accepted for name in names):
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma list of splits among {', '.join(accepted)}")
    return ",".join(names)


def new_folder(text: str):
    """An argparse ``type``: a folder to write into (a path that exists must be a folder)."""
    from pathlib import Path

    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file; give a folder (new or existing)")
    return path


def out_file(text: str):
    """An argparse ``type``: a file to write (checked before the run, not after it)."""
    from pathlib import Path

    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name")
    return path


def describe(doc: str) -> str:
    """An argparse ``description``: the script docstring's first paragraph, joined into one line.
    Why: its first line alone (what the scripts passed before) often stopped mid-sentence in --help."""
    first = re.split(r"\n\s*\n", doc.strip(), maxsplit=1)[0]
    return " ".join(first.split())
