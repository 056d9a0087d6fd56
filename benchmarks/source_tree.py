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
#: The checkout ``use_tree`` switched to (None: this one, the installed searchgym).
ACTIVE: Path | None = None


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
    global ACTIVE
    ACTIVE = root


def describe_tree(root: str | Path) -> str:
    """``checkout DIR at commit C`` (``+ uncommitted changes`` where its files differ from C), or
    ``checkout DIR (not a git checkout)``: which code a ``--tree`` benchmark measured, for its header.
    Why: the numbers of a before/after pair printed no word of which side they were."""
    root = Path(root).resolve()
    git = ["git", "--no-optional-locks", "-C", str(root)]

    def ask(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([*git, *argv], capture_output=True, text=True, check=False, timeout=60)

    try:
        head, top = ask("rev-parse", "--verify", "--quiet", "HEAD"), ask("rev-parse", "--show-toplevel")
        if head.returncode != 0 or not head.stdout.strip() or Path(top.stdout.strip() or "/").resolve() != root:
            return f"checkout {root} (not a git checkout)"  # not one, or a folder inside another repository
        changed = ask("diff", "--quiet", "HEAD", "--").returncode
    except (OSError, subprocess.SubprocessError):  # no git here
        return f"checkout {root} (not a git checkout)"
    return f"checkout {root} at commit {head.stdout.strip()[:12]}" + (" + uncommitted changes" if changed else "")


def tree_note(prefix: str = "; ") -> str:
    """``prefix`` + :func:`describe_tree` of the checkout ``use_tree`` switched to; empty without one."""
    return "" if ACTIVE is None else prefix + describe_tree(ACTIVE)


def checkout(ref: str, repo: str | Path = ".") -> Path:
    """A detached ``git worktree`` of ``ref`` in a temporary folder (removed by ``remove_checkout``)."""
    folder = Path(tempfile.mkdtemp(prefix="searchgym-bench-"))
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "--detach", "--quiet", str(folder), ref], check=True)
    return folder


def remove_checkout(folder: Path, repo: str | Path = ".") -> None:
    subprocess.run(["git", "-C", str(repo), "worktree", "remove", "--force", str(folder)], check=False)
