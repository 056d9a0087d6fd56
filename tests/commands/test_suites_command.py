"""`searchgym suites` shows the families each split holds, not only the definition's."""

from __future__ import annotations

from searchgym.commands.suites import families_in, split_families
from searchgym.suites import Suite

CURRICULUM = Suite("tiny-curriculum-cmd", 1, "SearchQA-Candidates-v0", world_size="tiny", dev_size=4, test_size=4,
                   families=("bridge", "comparison"), train_families=("lookup", "bridge"))


def test_each_split_lists_the_families_its_tasks_hold():
    by_split = {split: families_in(CURRICULUM, CURRICULUM.tasks(split)) for split in ("train", "dev", "test")}
    assert by_split == {"train": ["lookup", "bridge"], "dev": ["bridge", "comparison"],
                        "test": ["bridge", "comparison"]}
    assert split_families(by_split) == "train: lookup,bridge; dev, test: bridge,comparison"
    assert split_families({"train": ["a"], "dev": ["a"], "test": ["a"]}) == "a"


def test_a_family_the_split_lacks_is_not_listed():
    capped = Suite("tiny-capped-cmd", 1, "SearchQA-Candidates-v0", world_size="tiny", dev_size=1, test_size=2,
                   families=("bridge", "comparison", "lookup"))
    assert families_in(capped, capped.tasks("dev")) == ["bridge"]  # one task: one family
    assert families_in(capped, capped.tasks("test")) == ["bridge", "comparison"]


def test_a_reader_that_stops_early_gets_no_error_line() -> None:
    """`searchgym suites --json | head -1`. Before: "error: Broken pipe; fix that and re-run the
    same command" on stderr. The pipe's read end is closed before the command writes, so every
    write meets a broken pipe."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run([sys.executable, "-c", "import sys; from searchgym.cli import main; "
                                 "sys.exit(main(['suites', '--json']))"],
                                stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    finally:
        os.close(write_end)
    assert result.stderr == "" and result.returncode == 1
