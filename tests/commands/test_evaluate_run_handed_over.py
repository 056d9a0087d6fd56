"""`searchgym evaluate --agent run` on a run folder someone handed over: the supervised base is looked for
only where the harness writes it, and no file of the run is read through a link (the reviewer's items
10 and 11). Before: config.json's ``base.path`` was hashed whatever it named (``/etc/shadow``: "is at
/etc/shadow with another sha256"), and a linked config.json or checkpoint.pt was read where it pointed."""

from __future__ import annotations

import json
import shutil

import pytest
from harness_helpers import TINY_QA
from searchgym.agents import sft_base

from searchgym.cli import main
from searchgym.harness.methods import resolve_method
from searchgym.harness.runner import RunSpec, execute_run

pytestmark = pytest.mark.timeout(300)
SFT = {"sft_tasks": 10, "sft_epochs": 1, "sft_dagger_rounds": 0}
TRAIN = ["--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "200", "--test-size", "4",
         "--no-progress"]
LINKED = "is a symbolic link, which searchgym does not follow in a run folder it reads"


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    out = tmp_path_factory.mktemp("compare")
    execute_run(RunSpec(TINY_QA, resolve_method("sft"), 0, 0, out, options=SFT))
    return out


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("train") / "x"
    assert main(["train", *TRAIN, "--out", str(out)]) == 0
    return out


def _evaluate(path, out, capsys, *extra):
    capsys.readouterr()
    rc = main(["evaluate", "--agent", "run", "--agent-option", f"path={path}", "--out", str(out), "--no-progress",
               "--limit", "2", *extra])
    return rc, capsys.readouterr().err.strip()


def _copy(compared, tmp_path):
    copy = tmp_path / "cmp"
    shutil.copytree(compared, copy)
    run = copy / "runs" / "sft" / "seed0"
    return copy, run, json.loads((run / "config.json").read_text())


def _hashed(monkeypatch):
    seen = []
    original = sft_base.file_sha256
    monkeypatch.setattr(sft_base, "file_sha256", lambda path: seen.append(str(path)) or original(path))
    return seen


@pytest.mark.parametrize("same", [True, False])
def test_the_base_is_not_looked_for_where_config_json_says(compared, tmp_path, capsys, monkeypatch, same):
    """Before: the base at base.path was hashed (and with the recorded hash, loaded), wherever it was."""
    copy, run, config = _copy(compared, tmp_path)
    outside = tmp_path / "outside" / "base.pt"
    outside.parent.mkdir()
    if same:
        shutil.move(copy / "bases" / config["base"]["key"] / "base.pt", outside)  # the very base, moved out
    else:
        outside.write_bytes(b"a file outside the run's folders")
    shutil.rmtree(copy / "bases")
    config["base"]["path"] = str(outside)
    (run / "config.json").write_text(json.dumps(config))
    seen = _hashed(monkeypatch)
    rc, err = _evaluate(run, tmp_path / "e", capsys, "--suite", TINY_QA.id)
    assert rc == 2 and "\n" not in err, err
    assert "supervised base" in err and "is in none of" in err and str(outside) not in err, err
    assert str(outside) not in seen and not (tmp_path / "e").exists()


def test_the_base_in_the_comparisons_bases_folder_still_plays(compared, tmp_path, capsys):
    _, run, config = _copy(compared, tmp_path)
    config["base"]["path"] = "/nowhere/base.pt"
    (run / "config.json").write_text(json.dumps(config))
    rc, err = _evaluate(run, tmp_path / "e", capsys, "--suite", TINY_QA.id)
    assert rc == 0, err


def test_a_base_key_that_names_another_folder_is_refused(compared, tmp_path, capsys, monkeypatch):
    copy, run, config = _copy(compared, tmp_path)
    (tmp_path / "x").mkdir()
    shutil.copy(copy / "bases" / config["base"]["key"] / "base.pt", tmp_path / "x" / "base.pt")
    config["base"]["key"] = "../../x"  # <out>/bases/../../x/base.pt: outside the comparison
    (run / "config.json").write_text(json.dumps(config))
    seen = _hashed(monkeypatch)
    rc, err = _evaluate(run, tmp_path / "e", capsys, "--suite", TINY_QA.id)
    assert rc == 2 and f"{run / 'config.json'}: records base key '../../x', not the 16 hex digits" in err, err
    assert seen == []


@pytest.mark.parametrize("linked", ["bases", "bases/KEY", "bases/KEY/base.pt"])
def test_a_linked_bases_folder_or_base_is_refused_unread(compared, tmp_path, capsys, monkeypatch, linked):
    copy, run, config = _copy(compared, tmp_path)
    path = copy / linked.replace("KEY", config["base"]["key"])
    elsewhere = tmp_path / "elsewhere"
    shutil.move(path, elsewhere)
    path.symlink_to(elsewhere, target_is_directory=elsewhere.is_dir())
    seen = _hashed(monkeypatch)
    rc, err = _evaluate(run, tmp_path / "e", capsys, "--suite", TINY_QA.id)
    assert rc == 2 and f"damaged file: {path}: {LINKED}" in err, err
    assert seen == []


@pytest.mark.parametrize("name", ["config.json", "checkpoint", "checkpoint/checkpoint.pt"])
def test_a_linked_file_of_a_trained_run_is_refused_unread(trained, tmp_path, capsys, name):
    """Before: config.json and checkpoint.pt were read (and hashed) where a link pointed."""
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    path, elsewhere = run / name, tmp_path / "elsewhere"
    shutil.move(path, elsewhere)
    path.symlink_to(elsewhere, target_is_directory=elsewhere.is_dir())
    rc, err = _evaluate(run, tmp_path / "e", capsys)
    assert rc == 2 and "\n" not in err and f"damaged file: {path}: {LINKED}" in err, err
    assert not (tmp_path / "e").exists()


def test_a_padded_config_json_is_refused_in_one_line(trained, tmp_path, capsys):
    """Before: up to 256 MB were parsed."""
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    config = json.loads((run / "config.json").read_text())
    (run / "config.json").write_text(json.dumps({**config, "pad": [{}] * 300_000}))
    rc, err = _evaluate(run, tmp_path / "e", capsys)
    assert rc == 2 and f"{run / 'config.json'}: holds more than 200000 JSON values" in err, err
