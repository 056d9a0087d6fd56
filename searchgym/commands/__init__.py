"""Sub-commands of the ``searchgym`` CLI, one module each (see ``searchgym.cli.COMMANDS``)."""

from __future__ import annotations

import argparse


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
    check_at_least(((flag, getattr(args, flag.removeprefix("--").replace("-", "_")), 0, "a seed"),))


#: The largest world seed every env accepts (``searchgym.envs.config.BOUNDS["world_seed"]``).
MAX_WORLD_SEED = 2**63 - 1


def check_world_seed(args: argparse.Namespace, flag: str = "--world-seed") -> None:
    """A world seed outside what the envs accept is one error line naming the option. Why: play and
    demo said "world_seed must be ..." (the keyword, not the flag), and `world stats --seed` described
    worlds of seeds no env can build (above 2**63 - 1)."""
    value = getattr(args, flag.removeprefix("--").replace("-", "_"))
    if not 0 <= value <= MAX_WORLD_SEED:
        raise ValueError(f"{flag} must be an int in 0..{MAX_WORLD_SEED} (a world seed), got {value}")
