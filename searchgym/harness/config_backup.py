"""A run folder's config.json as it was before an attempt wrote its own, kept to be put back when the
method refuses the folder (its checkpoint is another run's). Why a module: the runner writes config.json
first, and must undo exactly that write, nothing else."""

from __future__ import annotations

from pathlib import Path

from searchgym.damaged import DamagedFile, read_bounded
from searchgym.fileio import atomic_write_bytes

#: The most of an earlier config.json kept to be put back (those we write are a few kilobytes).
MAX_KEPT_CONFIG = 1024 * 1024


def earlier_config(path: Path) -> bytes | None:
    """The bytes of the config.json a run folder held before this attempt wrote its own (None: none)."""
    try:
        return read_bounded(path, MAX_KEPT_CONFIG)
    except (OSError, DamagedFile):
        return None


def restore_config(path: Path, earlier: bytes | None) -> None:
    """Put back the config.json of before this attempt (none if there was none). Why: when the method
    refused the folder's checkpoint as another run's, config.json already named this run, and the
    command that made the folder was then refused as "a different run"."""
    try:
        if earlier is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write_bytes(path, earlier)
    except OSError:
        pass
