"""The names a run writes at the top of its folder, apart from the runner so that
:mod:`searchgym.harness.out_folders` (which the runner asks whose an explicit ``--out`` is) can list
them without importing the runner."""

from __future__ import annotations

DONE = "DONE"
#: Files a run writes once it has trained and played: a folder in one's place is refused before any work.
WRITTEN_LAST = ("predictions.jsonl", "result.json", DONE)
#: What a run folder may hold (one holding files and none of these is someone's own folder).
RUN_FILES = ("config.json", "metrics.jsonl", "checkpoint", "error.txt", "transcripts.jsonl", "tensorboard", "wandb",
             *WRITTEN_LAST)
