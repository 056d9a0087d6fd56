"""The optional extras a benchmark script needs, checked after its arguments are read (so ``--help``
works without them) and before any work: a missing one is one line naming the package and its pip
command, exit status 2, as the ``searchgym`` commands say it. Why: a script imported torch or ray at
the top, so even ``--help`` was a ModuleNotFoundError traceback, and others stopped in a MissingExtra
traceback after minutes of work (a world built, a row measured)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def require_extras(script: str, modules: Sequence[str], extra: str | None = None, remedy: str = "") -> None:
    """Exit with status 2 and one line on stderr ("NAME needs PACKAGE: pip install ...", then
    ``remedy``) unless every one of ``modules`` (keys of ``searchgym.extras.OPTIONAL_MODULES``) is
    installed; imports none of them. ``script``: the script's ``__file__``, or a name to put first
    (a script and its option, ``bench_search.py --dense-pages 50``); ``extra``: the one extra that
    brings them all (else each module's own)."""
    from searchgym.extras import MissingExtra, require_all_installed

    name = Path(script).name if script.endswith(".py") else script
    try:
        require_all_installed(modules, name, extra=extra)
    except MissingExtra as exc:
        print(f"{exc}{remedy}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None
