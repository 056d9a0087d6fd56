"""A folder the user names with --out that holds no run is never written into.

Before: `train --out proj`, where proj held the user's own config.json (not JSON to us) and
result.json, warned "writing it again and resuming the run" and replaced both; a config.json
holding a list was replaced the same way, and `--out /` wrote a run into the root folder."""

from __future__ import annotations

import os

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.damaged import DamagedFileWarning


def _train(out) -> int:
    return main(["train", "--method", "random", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "2", "--budget", "0", "--no-progress", "--out", str(out)])


@pytest.mark.parametrize("config", ['// my app settings\n{"port": 8080}\n', "[1, 2]"])
def test_a_users_config_json_is_kept(tmp_path, capsys, config) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "config.json").write_text(config)
    (proj / "result.json").write_text("my important results")
    assert _train(proj) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith(f"searchgym train: error: {proj} is not a run folder: its config.json ")
    assert err.endswith("and it holds no run's lock, log (metrics.jsonl) or checkpoint; its files are kept: "
                        "choose another --out")
    assert (proj / "config.json").read_text() == config
    assert (proj / "result.json").read_text() == "my important results"
    assert sorted(os.listdir(proj)) == ["config.json", "result.json"]  # not even a lock file was made there


def test_a_folder_of_other_files_is_refused_for_train_and_evaluate(tmp_path, capsys) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("x")
    assert _train(mine) == 2
    assert capsys.readouterr().err.strip().endswith(
        f"searchgym train: error: --out {mine} holds files and none of a run's; choose a new folder (or a run folder) "
        "for --out: its files are kept")
    assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "random", "--out", str(mine), "--no-progress"]) == 2
    assert "holds files and none of a run's" in capsys.readouterr().err
    assert sorted(os.listdir(mine)) == ["notes.txt"]


def test_a_run_with_a_damaged_config_still_resumes(tmp_path, capsys) -> None:
    run = tmp_path / "run"
    assert _train(run) == 0
    (run / "DONE").unlink()
    (run / "config.json").write_text("garbage{")  # the run's lock file is there: its config is written again
    with pytest.warns(DamagedFileWarning, match="writing it again and resuming the run"):
        assert _train(run) == 0
