"""Which run folders ``load_results`` reads.

Before: every ``config.json`` at any depth under the folder, so a backup copy of a comparison's
``runs/`` (``runs.bak/``) doubled every prediction row while ``report`` still showed one seed."""

from __future__ import annotations

import shutil

import pytest
from harness_helpers import TINY_QA

from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.harness.results import run_folders

pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp")
    run_comparison(Comparison(TINY_QA, parse_methods("random"), [0, 1], 0, out, "cpu", progress=False))
    return out


def test_a_comparison_is_read_by_its_own_layout(comparison, tmp_path) -> None:
    from searchgym.harness import load_results

    copy = tmp_path / "cmp"
    shutil.copytree(comparison, copy)
    before = load_results(copy)
    shutil.copytree(copy / "runs", copy / "runs.bak")
    after = load_results(copy)
    assert len(after) == len(before) and sorted(set(after.run_dir)) == sorted(set(before.run_dir))
    assert run_folders(copy) == [copy / "runs" / "random" / "seed0", copy / "runs" / "random" / "seed1"]


def test_a_folder_of_runs_is_walked_without_looking_inside_a_run(comparison, tmp_path) -> None:
    holder = tmp_path / "many"
    shutil.copytree(comparison / "runs" / "random" / "seed0", holder / "a")
    shutil.copytree(comparison / "runs" / "random" / "seed1", holder / "b" / "c")
    shutil.copytree(comparison / "runs" / "random" / "seed1", holder / "a" / "inside")  # within a run: not a run of its own
    assert run_folders(holder) == [holder / "a", holder / "b" / "c"]
    assert run_folders(holder / "a") == [holder / "a"]
