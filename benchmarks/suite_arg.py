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
