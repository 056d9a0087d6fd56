"""A writable folder for matplotlib's config and font cache, named before matplotlib is imported.

Why: with an unwritable home (``HOME=/nonexistent``, a read-only container), importing matplotlib
printed warnings about its config and cache folders on every command that plots, then used a
temporary folder. When the user has set no ``MPLCONFIGDIR`` and matplotlib's own folders cannot be
used, searchgym names a temporary folder (removed at exit) in ``MPLCONFIGDIR`` first, as matplotlib
does after its warnings. A missing home folder counts as unusable: matplotlib would make it (as
root, ``/nonexistent/.config``), and searchgym makes no missing home (as its world cache does not).
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path


def give_matplotlib_a_writable_folder() -> str | None:
    """The temporary folder now in ``MPLCONFIGDIR``, or None when nothing was needed (the user set
    ``MPLCONFIGDIR``, or matplotlib's default folders can be used) or no temporary folder could be
    made (matplotlib then says what is wrong itself)."""
    if os.environ.get("MPLCONFIGDIR"):  # matplotlib too takes an empty one as unset
        return None
    home = _home()
    if all(_usable(folder, home) for folder in _default_folders(home)):
        return None
    try:
        folder = tempfile.mkdtemp(prefix="searchgym-matplotlib-")
    except OSError:
        return None
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["MPLCONFIGDIR"] = folder
    return folder


def _home() -> Path | None:
    try:
        return Path.home()
    except RuntimeError:  # HOME unset and no password-database entry
        return None


def _default_folders(home: Path | None) -> list[Path | None]:
    """Where matplotlib keeps its config and its font cache when ``MPLCONFIGDIR`` is unset (its own
    rules); None for one that lies in a home folder when none is known."""
    if sys.platform.startswith(("linux", "freebsd")):
        return [Path(os.environ[name], "matplotlib") if os.environ.get(name)
                else home and home / below / "matplotlib"
                for name, below in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"))]
    if sys.platform == "win32":  # the user's local app data, or the profile: left to matplotlib
        return []
    return [home and home / ".matplotlib"]


def _usable(folder: Path | None, home: Path | None) -> bool:
    """Matplotlib can keep files in ``folder``: it is a writable folder, or the nearest folder above it
    that exists is one (matplotlib makes the rest), and it does not lie in a missing home folder."""
    if folder is None:
        return False
    folder = Path(os.path.abspath(folder))
    if home is not None and not os.path.isdir(home) and folder.is_relative_to(os.path.abspath(home)):
        return False
    for part in (folder, *folder.parents):
        if os.path.exists(part):
            return os.path.isdir(part) and os.access(part, os.W_OK | os.X_OK)
    return False
