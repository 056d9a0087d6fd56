"""``searchgym report`` reads each finished run's config.json once and lists ``runs/`` twice (its link check
and scan, then the finished runs of every method folder), and loads no ``compare`` command to do it.

Before: the config.json of each run was read by the scan and again by the report itself, ``runs/`` was
listed six times, and the report imported ``searchgym.commands.compare`` (and all a comparison runs) for
its ``--reference`` check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from harness_helpers import compare_args, compared_folder, count_calls

import searchgym.harness.finished_files as finished_files
from searchgym.cli import main


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, compare_args("oracle,random", seeds=2), "report_reads_once")


@pytest.mark.parametrize("methods", [[], ["--methods", "random,oracle"]])
def test_each_config_json_is_read_once(compared, monkeypatch, capsys, methods):
    reads = count_calls(monkeypatch, "run_json", finished_files)
    listings = count_calls(monkeypatch, "iterdir", Path)
    assert main(["report", "--out", str(compared), *methods]) == 0
    configs = {path: n for path, n in reads.items() if path.name == "config.json"}
    assert sorted(configs) == [compared / "runs" / m / f"seed{s}" / "config.json" for m in ("oracle", "random")
                               for s in (0, 1)]
    assert set(configs.values()) == {1}
    assert listings[compared / "runs"] == 2


def test_the_report_command_does_not_load_the_compare_command():
    code = "import sys, searchgym.commands.report; print('searchgym.commands.compare' in sys.modules)"
    said = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert said.stdout == "False\n"


def test_check_reference_is_the_same_from_either_command():
    from searchgym.commands import compare, comparison_report, report

    assert compare.check_reference is report.check_reference is comparison_report.check_reference
    assert compare.REFERENCE_HELP is comparison_report.REFERENCE_HELP and compare.REFERENCE == "cw_grpo"


def test_only_canonical_ascii_seed_names_are_run_folders(tmp_path):
    """``seed²`` passed ``str.isdigit`` and then failed ``int`` in the report; ``seed00`` is a copy no
    report reads; neither is counted as a run folder."""
    from searchgym.harness.run_reads import is_seed_folder

    assert [name for name in ("seed0", "seed12", "seed²", "seed١", "seed00", "seed01", "seed", "seed_old", "seed-1")
            if is_seed_folder(tmp_path / name)] == ["seed0", "seed12"]
