"""``searchgym list``: the registered environment ids."""

from __future__ import annotations

import argparse

from searchgym.registry import registered


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options."""


def run(args: argparse.Namespace) -> int:
    specs = registered()
    width = max(len(s.id) for s in specs)
    for s in specs:
        print(f"{s.id:<{width}}  {s.kind:<8}  {s.description}")
    return 0
