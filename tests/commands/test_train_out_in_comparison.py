"""`searchgym train --out` inside a comparison's folder is refused unless it is the run's own
``runs/<label>/seed<N>``, which is all that comparison's ``report`` and ``load_results`` read.

Before: ``train --out CMP/runs/mine`` trained and wrote a run that `searchgym report --out CMP` and
``load_results(CMP)`` then left out without a word; now it is one error line, before anything is
made, that says why and gives the accepted folder. (The comparison's folder itself is refused by the
runner: tests/commands/test_out_of_another_command.py.)"""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main

TRAIN = ["train", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--method", "random", "--budget", "0",
         "--test-size", "2", "--no-progress"]


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    out = tmp_path_factory.mktemp("cmp") / "out"
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "random", "--seeds", "0,", "--budget", "0",
                 "--device", "cpu", "--no-progress", "--out", str(out)]) == 0
    return out


@pytest.mark.parametrize("where", ["runs/mine", "runs/random", "runs", "runs/random/seed3", "runs/random/seed0/sub",
                                   "runs/other/seed0", "notes"])
def test_a_folder_the_comparison_does_not_read_is_refused(comparison, capsys, where):
    out = comparison / where
    made = out.exists()
    capsys.readouterr()
    assert main([*TRAIN, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    assert f"--out {out}" in err[0] and f"the comparison {comparison}" in err[0]
    assert "read only its runs/<label>/seed<N> folders" in err[0]
    assert f"give --out {comparison / 'runs' / 'random' / 'seed0'} (this run's method random and --seed 0)" in err[0]
    assert out.exists() == made  # nothing made


def test_the_runs_own_folder_and_folders_elsewhere_are_taken(comparison, tmp_path, capsys):
    own = comparison / "runs" / "random" / "seed4"
    assert main([*TRAIN, "--seed", "4", "--out", str(own)]) == 0
    assert (own / "DONE").is_file()
    fresh = tmp_path / "runs" / "train"  # a folder named runs/ that is no comparison's
    assert main([*TRAIN, "--out", str(fresh)]) == 0
    assert main([*TRAIN, "--out", str(tmp_path / "runs" / "again")]) == 0


def test_a_folder_holding_only_train_runs_is_no_comparison(tmp_path):
    """One `train --out runs/random/seed0` made its folder look like a comparison (a runs/<label>/seed<N>),
    so the next `train --out runs/random_v2` there was refused and told to write into the first run."""
    assert main([*TRAIN, "--out", str(tmp_path / "runs" / "random" / "seed0")]) == 0
    assert main([*TRAIN, "--out", str(tmp_path / "runs" / "random_v2")]) == 0
