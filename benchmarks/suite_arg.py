"""``--suite`` for the benchmark scripts: a retired or unknown suite id is a one-line usage error
that names the suites to use (before: a traceback ending in UnknownSuite)."""

from __future__ import annotations

import argparse


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
