"""`searchgym evaluate --agent run` on a run of the hf policy trained with a relative model folder
(`train --policy hf --model ./mymodel`, or compare's `policy_kwargs={"model_name_or_path": ...}`): it
builds the policy from the folder the run trained from, from whatever folder it is run.

Before: the run recorded `./mymodel` as given, and the evaluation built the policy (its config,
tokenizer and weights, before the checkpoint's weights are put in) from the current folder, so from
any other folder it failed in Hugging Face's words ("Repo id must use alphanumeric chars ..."). The
options keep the path as given (the run's identity); config.json records the absolute folder beside
them."""

from __future__ import annotations

import json
import shutil

import pytest
from model_folder_helpers import elsewhere, evaluate, trained_in, without_record

from searchgym.harness.methods import resolve_method
from searchgym.harness.runner import RunSpec, execute_run
from searchgym.suites import Suite

pytest.importorskip("transformers")

POLICY_KWARGS = {"dim": 8, "hidden": 8}
TRAIN = ["train", "--policy", "hf", "--model", "./mymodel", "--budget", "8", "--world-size", "tiny",
         "--test-size", "2", "--no-progress", "--option", "group_size=2",
         "--option", f"policy_kwargs={json.dumps(POLICY_KWARGS)}"]
SUITE = Suite("test-hf-model-folder-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
              dev_size=1, test_size=2, description="tests: a relative model folder of the hf policy")


@pytest.fixture(scope="module")
def trained(model_project):
    """`train --policy hf --model ./mymodel --out run`, run in the project folder."""
    return trained_in(model_project, TRAIN)


def test_the_run_records_its_model_folder_beside_the_options_as_given(trained, model_project):
    config = json.loads((trained / "config.json").read_text())
    assert config["options"]["policy_kwargs"] == {**POLICY_KWARGS, "model_name_or_path": "./mymodel"}  # unchanged
    assert config["policy_folders"] == {"model_name_or_path": {"model": "./mymodel", "folder": str(model_project / "mymodel")}}


def test_a_train_run_plays_from_another_folder(trained, tmp_path, monkeypatch):
    other = elsewhere(tmp_path, monkeypatch)
    assert evaluate(trained, other / "ev") == 0
    assert (other / "ev" / "predictions.jsonl").read_bytes() == (trained / "predictions.jsonl").read_bytes()


def test_an_sft_run_of_a_comparison_plays_from_another_folder(model_project, tmp_path, monkeypatch):
    """compare's spelling (policy_kwargs' model_name_or_path), and an sft run, whose base is its policy."""
    monkeypatch.chdir(model_project)
    out = tmp_path / "cmp"
    options = {"policy_kwargs": {**POLICY_KWARGS, "model_name_or_path": "./mymodel"}, "sft_tasks": 2, "sft_epochs": 1}
    spec = RunSpec(SUITE, resolve_method("sft"), 0, 0, out, policy="hf", options=options, progress=False)
    assert execute_run(spec).status == "done"
    run = out / "runs" / "sft" / "seed0"
    assert json.loads((run / "config.json").read_text())["policy_folders"]["model_name_or_path"]["model"] == "./mymodel"
    other = elsewhere(tmp_path, monkeypatch)
    assert evaluate(run, other / "ev") == 0
    assert (other / "ev" / "predictions.jsonl").read_bytes() == (run / "predictions.jsonl").read_bytes()


def test_a_run_without_the_record_reads_its_relative_model_from_the_current_folder(trained, model_project, tmp_path,
                                                                                     monkeypatch, capsys):
    """A run folder made before the record: from the project folder as before, and not from elsewhere, in one
    line (before: Hugging Face's "Repo id must use alphanumeric chars ...", exit 1)."""
    old = without_record(trained, tmp_path, "policy_folders")
    monkeypatch.chdir(model_project)
    assert evaluate(old, tmp_path / "here") == 0
    other = elsewhere(tmp_path, monkeypatch)
    capsys.readouterr()
    assert evaluate(old, other / "ev") == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.endswith(f"{old} is a run whose policy cannot be built: its policy's model_name_or_path './mymodel' "
                         "is not here, and the run (made by an older searchgym) records no folder for it: run this "
                         "from the folder the run was trained in")
    assert not (other / "ev").exists()


def test_a_recorded_folder_that_is_gone_is_named_in_one_line(trained, tmp_path, monkeypatch, capsys):
    moved = tmp_path / "moved"
    shutil.copytree(trained, moved)
    config = json.loads((moved / "config.json").read_text())
    config["policy_folders"]["model_name_or_path"]["folder"] = str(tmp_path / "gone" / "mymodel")
    (moved / "config.json").write_text(json.dumps(config))
    other = elsewhere(tmp_path, monkeypatch)
    capsys.readouterr()
    assert evaluate(moved, other / "ev") == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert f"{moved} is a run whose policy cannot be built" in line
    assert f"model_name_or_path './mymodel' is missing: put the folder back at {tmp_path / 'gone' / 'mymodel'}" in line
    assert not (other / "ev").exists()
