"""Whose folder an ``--out`` is, told by the names each command writes at its top. One rule for
every command: it writes into a new or empty folder, or into one of its own kind (which it resumes
or adds to, under its own checks), and refuses any other folder in one line naming what it holds;
its files are kept.

Why: ``recipe --out`` a comparison's folder wrote config.json beside runs/ (the comparison could no
longer be resumed), ``compare`` wrote its runs and report beside a verl export, and ``export --out``
a finished run wrote a dataset into it, and ``train``/``evaluate --out`` a recipe's folder called it "a
different run (suite_id: absent there ...)": they check their explicit folder in the runner, as ``RUN``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from searchgym.fileio import holds_only_others, names_written
from searchgym.harness.run_files import RUN_FILES
from searchgym.world.world import SPLITS

#: Names that more than one command writes at the top of its folder: a run's and a recipe's config.json,
#: the supervised bases of a comparison and of a ``train --method sft`` run. They tell no kind apart.
SHARED = frozenset({"config.json", "bases"})
#: The report's files at the top of a comparison's folder (and ``curves/<label>.png``): see ``write_report``.
REPORT_FILES = ("summary.csv", "results.md", "learning_curves.png")


@dataclass(frozen=True)
class FolderKind:
    """One command's folder: ``folder``, ``whose`` and ``writer`` name it in messages ("one run's folder",
    "not a run's", "`searchgym train` or `evaluate` wrote it"), ``instead`` is what to give --out instead,
    ``names`` what the command writes at its top (a refusal names the first of them the folder holds)."""

    folder: str
    whose: str
    writer: str
    instead: str
    names: tuple[str, ...]

    @property
    def marks(self) -> frozenset[str]:
        """The names only this command writes: one of them in a folder makes it this command's."""
        return frozenset(self.names) - SHARED


RUN = FolderKind("one run's folder", "a run's", "`searchgym train` or `evaluate`", "a new folder (or a run folder)",
                 RUN_FILES)
COMPARISON = FolderKind("a comparison's folder", "a comparison's", "`searchgym compare`",
                        "a new folder (or the folder of an earlier compare)", ("runs", "bases", "curves", *REPORT_FILES))
#: As ``searchgym recipe`` writes them (agents/tiny_lm_recipe.py, commands/recipe.py); the first held is named.
RECIPE = FolderKind("a recipe's folder", "a recipe's", "`searchgym recipe`",
                    "a new folder (or a recipe's folder, made with the same settings)",
                    ("sft", "sft_data", "rl", "stage_seconds.json", "results.json", "RESULTS.md", "config.json"))
#: As ``searchgym export --format verl`` writes them (integrations/verl_dataset.py).
EXPORT = FolderKind("a verl export's folder", "an export's", "`searchgym export`",
                    "a new folder (or an earlier export's folder, of the same suite)",
                    (*(f"{split}.parquet" for split in SPLITS), "tool_config.yaml", "agent_loop.yaml"))
KINDS = (RUN, COMPARISON, RECIPE, EXPORT)


def check_out_folder(folder: str | os.PathLike, kind: FolderKind, flag: str = "--out") -> None:
    """ValueError unless ``folder`` is missing or empty (a lock and temp files aside), or holds one of
    ``kind``'s names and none that only another command writes: the folder of another command, or one
    holding none of ``kind``'s names (someone's own), is refused with its files kept."""
    folder = Path(folder)
    names = set(names_written(folder))
    for other in KINDS:
        if other is not kind and other.marks & names:
            shown = next(name for name in other.names if name in names)
            shown += "/" if (folder / shown).is_dir() else ""
            raise ValueError(f"{flag} {folder} is {other.folder} (it holds {shown}), not {kind.whose} "
                             f"({other.writer} wrote it); choose {kind.instead} for {flag}: its files are kept")
    if holds_only_others(folder, kind.names):
        raise ValueError(f"{flag} {folder} holds files and none of {kind.whose}; choose {kind.instead} for {flag}: "
                         "its files are kept")
