"""A run folder resumed (or skipped) from someone else's copy: its config.json is read as ``report`` reads
it (not through a link, at most 4 MiB and 200,000 values), and a linked metrics.jsonl is refused before
the run does any work. Before: config.json was read through a link (a link to a config elsewhere was taken
as this run's identity) and up to 256 MiB of any values; a linked metrics.jsonl of a run that logged no
new row was found only after the run had written DONE, result.json and predictions.jsonl."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from searchgym.cli import main
from searchgym.damaged import LINKED_READ
from searchgym.fileio import DELETE_LINK, LINKED
from searchgym.harness.run_reads import MAX_RUN_JSON_BYTES, MAX_RUN_JSON_VALUES

pytestmark = pytest.mark.timeout(300)
FAST = "harness_helpers:fast_learner"


def _train(out) -> int:
    return main(["train", "--method", FAST, "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "4", "--budget", "8", "--out", str(out), "--no-progress"])


def _last_line(err: str) -> str:
    assert "Traceback" not in err
    return err.replace("\r", "\n").strip().splitlines()[-1]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("bounded") / "run"
    assert _train(out) == 0
    return out


def _copy(finished, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(finished, folder)
    return folder


def _linked_config(folder, tmp_path):
    elsewhere = tmp_path / "elsewhere.json"  # this run's own config, valid: still not this folder's file
    shutil.move(folder / "config.json", elsewhere)
    (folder / "config.json").symlink_to(elsewhere)


def _padded_bytes(folder, tmp_path):
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "padding": "x" * MAX_RUN_JSON_BYTES}))


def _padded_values(folder, tmp_path):
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "padding": [[]] * MAX_RUN_JSON_VALUES}))


@pytest.mark.parametrize(("damage", "said"), [
    (_linked_config, LINKED_READ),
    (_padded_bytes, f"more than the {MAX_RUN_JSON_BYTES}"),
    (_padded_values, f"holds more than {MAX_RUN_JSON_VALUES} JSON values, where a run's config.json holds"),
])
def test_a_finished_runs_config_is_read_bounded_and_not_through_a_link(finished, tmp_path, capsys, damage, said):
    """Before: each was read whole (through the link) and, holding this run's settings, the run was
    skipped as finished (rc 0)."""
    folder = _copy(finished, tmp_path)
    damage(folder, tmp_path)
    assert _train(folder) == 2
    line = _last_line(capsys.readouterr().err)
    assert line.startswith(f"searchgym train: damaged file: {folder / 'config.json'}: ")
    assert said in line and line.endswith("re-run the same command to redo the run")


def test_a_linked_config_in_a_folder_holding_no_run_is_refused_untouched(finished, tmp_path, capsys):
    """The check made before the lock (a folder the user named, with no log, lock or checkpoint). Before:
    the link's target was read as the folder's config, and the run was trained there."""
    folder = tmp_path / "proj"
    folder.mkdir()
    elsewhere = tmp_path / "elsewhere.json"
    shutil.copy(finished / "config.json", elsewhere)
    (folder / "config.json").symlink_to(elsewhere)
    assert _train(folder) == 2
    line = _last_line(capsys.readouterr().err)
    assert line.startswith(f"searchgym train: error: {folder} is not a run folder: its config.json {LINKED_READ}")
    assert os.listdir(folder) == ["config.json"] and (folder / "config.json").is_symlink()
    assert elsewhere.read_bytes() == (finished / "config.json").read_bytes()


def test_a_linked_metrics_file_is_refused_before_the_run_works(finished, tmp_path, capsys):
    """An unfinished run whose checkpoint holds its whole training logs no new row, so the append that
    refuses a link was never reached. Before: the run played its tests and wrote predictions.jsonl,
    result.json and DONE, and only a later read refused the link."""
    folder = _copy(finished, tmp_path)
    (folder / "DONE").unlink()
    (folder / "predictions.jsonl").unlink()
    (folder / "result.json").unlink()
    victim = tmp_path / "victim.jsonl"
    shutil.move(folder / "metrics.jsonl", victim)
    kept = victim.read_bytes()
    (folder / "metrics.jsonl").symlink_to(victim)
    assert _train(folder) == 2
    assert _last_line(capsys.readouterr().err) == \
        f"searchgym train: damaged file: {folder / 'metrics.jsonl'}: {LINKED}; {DELETE_LINK}"
    assert not any((folder / name).exists() for name in ("DONE", "result.json", "predictions.jsonl"))
    assert victim.read_bytes() == kept
    (folder / "metrics.jsonl").unlink()
    shutil.copy(victim, folder / "metrics.jsonl")
    assert _train(folder) == 0 and (folder / "DONE").is_file()  # the remedy works
