"""Run a benchmark against another checkout of searchgym (for before/after numbers).

Why: an old and a new version of the package cannot live in one process, so benchmarks that
compare commits run one child process per checkout. The editable install maps
``searchgym.agents`` and ``searchgym.baselines`` to folders of *this* checkout; ``use_tree``
puts a finder in front that maps all three packages to the given checkout instead.

    python benchmarks/bench_team.py --tree /path/to/other/checkout
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

PACKAGES = {"searchgym": "searchgym", "searchgym.agents": "agents", "searchgym.baselines": "baselines"}


class _TreeFinder(importlib.abc.MetaPathFinder):
    def __init__(self, root: Path) -> None:
        self.root = root

    def find_spec(self, name, path, target=None):
        folder = PACKAGES.get(name)
        if folder is None:
            return None
        init = self.root / folder / "__init__.py"
        return importlib.util.spec_from_file_location(name, init, submodule_search_locations=[str(init.parent)])


def use_tree(root: str | Path) -> None:
    """Import searchgym (and its agents and baselines) from checkout ``root`` from now on."""
    root = Path(root).resolve()
    if not (root / "searchgym" / "__init__.py").exists():
        raise SystemExit(f"{root} is not a searchgym checkout (no searchgym/__init__.py)")
    if any(name in sys.modules for name in PACKAGES):
        raise RuntimeError("use_tree must run before searchgym is imported")
    sys.meta_path.insert(0, _TreeFinder(root))


def checkout(ref: str, repo: str | Path = ".") -> Path:
    """A detached ``git worktree`` of ``ref`` in a temporary folder (removed by ``remove_checkout``)."""
    folder = Path(tempfile.mkdtemp(prefix="searchgym-bench-"))
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "--quiet", str(folder), ref], check=True)
    return folder


def remove_checkout(folder: Path, repo: str | Path = ".") -> None:
    subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(folder)], check=False)
