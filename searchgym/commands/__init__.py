"""Sub-commands of the ``searchgym`` CLI, one module each (see ``searchgym.cli.COMMANDS``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from searchgym.envs.config import MAX_SEED

#: The most seeds ``compare --seeds N`` runs. Why: ``--seeds 100000000`` built a list of runs for
#: minutes, silently, holding gigabytes.
MAX_SEEDS = 1000


def check_at_most(rows: tuple[tuple[str, int, int, str], ...]) -> None:
    """Each ``(flag, value, most, what)`` above its most is one error line naming the flag."""
    for flag, value, most, what in rows:
        if value > most:
            raise ValueError(f"{flag} must be an int <= {most} ({what}), got {value}")


def check_at_least(rows: tuple[tuple[str, int, int, str], ...]) -> None:
    """Each ``(flag, value, least, what)`` below its least is one error line naming the flag."""
    for flag, value, least, what in rows:
        if value < least:
            raise ValueError(f"{flag} must be an int >= {least} ({what}), got {value}")


def check_seed(args: argparse.Namespace, flag: str = "--seed") -> None:
    """A negative seed is one error line naming the option, before any world, folder or file.
    Why: Gymnasium and NumPy refuse one only at the first reset, so ``play`` and ``serve`` ended
    in a traceback, ``evaluate`` and ``demo`` in "expected non-negative integer" (no option named),
    and ``export`` wrote a dataset whose every rollout failed."""
    value = getattr(args, flag.removeprefix("--").replace("-", "_"))
    check_at_least(((flag, value, 0, "a seed"),))
    check_at_most(((flag, value, MAX_SEED, "a seed"),))


def check_world_seed(args: argparse.Namespace, flag: str = "--world-seed") -> None:
    """A world seed outside what the envs accept (``envs.config.BOUNDS``) is one error line naming the
    option. Why: play and demo said "world_seed must be ..." (the keyword, not the flag), and `world
    stats --seed` described worlds of seeds no env can build (above 2**63 - 1)."""
    from searchgym.envs.config import BOUNDS

    low, high = BOUNDS["world_seed"]
    value = getattr(args, flag.removeprefix("--").replace("-", "_"))
    if not low <= value <= high:
        raise ValueError(f"{flag} must be an int in {low}..{high} (a world seed), got {value}")


def check_world_size(text: str, flag: str = "--size") -> str | int:
    """A world size as typed (a preset name or digits), refused with one line naming the option
    unless the envs accept it (``envs.config.check_world_size``). Why: `world stats --size` took
    any int, and a size of 10**9 started generating a world no env can load, for hours."""
    from searchgym.envs.config import check_world_size as check_size
    from searchgym.world.generate import size_from_text

    return check_size(size_from_text(text), flag)


def out_folder(text: str) -> str:
    """An ``--out`` as typed, refused when it names no folder. Why: ``--out ''`` wrote DONE, config.json
    and the run's files into the current folder, and ``train`` said they were in ``/``."""
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty, which names no folder; give a folder path")
    return text


def out_path(text: str) -> Path:
    """:func:`out_folder` as a Path."""
    return Path(out_folder(text))
