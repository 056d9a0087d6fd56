"""`searchgym evaluate --agent run` on an LLM run trained with a relative `--model`: it loads the model
folder the run trained from, from whatever folder it is run.

Before: the run recorded `./mymodel` as given and the evaluation read it from the current folder, so
from any other folder it was refused as "missing". The options keep the model as given (the run's
identity: the same command resumes it); config.json records the absolute folder beside them."""

from __future__ import annotations

import json
import shutil

import pytest
from model_folder_helpers import elsewhere, evaluate, trained_in, without_record

from searchgym.harness.methods import MethodRef
from searchgym.harness.runner import RunSpec, execute_run
from searchgym.suites import Suite

pytest.importorskip("transformers")

OPTIONS = {"group_size": 1, "tasks_per_iteration": 1, "max_turns": 2, "eval_tasks": 0, "dev_size": 1,
           "guided": True, "generation_backend": "kv"}
TRAIN = ["train", "--policy", "llm", "--model", "./mymodel", "--env", "SearchQA-v0", "--budget", "1",
         "--world-size", "tiny", "--test-size", "2", "--no-progress", "--options", json.dumps(OPTIONS)]
LLM = MethodRef("llm", "searchgym.harness.llm_method:harness_method")
TEXT_SUITE = Suite("test-llm-model-folder-v0", 0, "SearchQA-v0", {"action_mode": "text", "max_steps": 2},
                   world_size="tiny", dev_size=1, test_size=2, description="tests: a relative model folder")


@pytest.fixture(scope="module")
def trained(model_project):
    """`train --policy llm --model ./mymodel --out run`, run in the project folder."""
    return trained_in(model_project, TRAIN)


def test_the_run_records_its_model_folder_beside_the_model_as_given(trained, model_project):
    config = json.loads((trained / "config.json").read_text())
    assert config["options"]["llm_config"]["model"] == "./mymodel"  # its identity, unchanged
    assert config["base_model"] == {"model": "./mymodel", "folder": str(model_project / "mymodel")}


def test_a_train_run_plays_from_another_folder(trained, tmp_path, monkeypatch):
    other = elsewhere(tmp_path, monkeypatch)
    assert evaluate(trained, other / "ev") == 0
    assert (other / "ev" / "predictions.jsonl").read_bytes() == (trained / "predictions.jsonl").read_bytes()


def test_a_comparison_run_of_flat_options_plays_from_another_folder(model_project, tmp_path, monkeypatch):
    monkeypatch.chdir(model_project)
    out = tmp_path / "cmp"
    options = {"model": "./mymodel", **{k: OPTIONS[k] for k in ("group_size", "tasks_per_iteration", "max_turns",
                                                                 "eval_tasks", "guided", "generation_backend")}}
    assert execute_run(RunSpec(TEXT_SUITE, LLM, 0, 1, out, options=options)).status == "done"
    run = out / "runs" / "llm" / "seed0"
    assert json.loads((run / "config.json").read_text())["options"]["model"] == "./mymodel"
    other = elsewhere(tmp_path, monkeypatch)
    assert evaluate(run, other / "ev") == 0
    assert (other / "ev" / "predictions.jsonl").read_bytes() == (run / "predictions.jsonl").read_bytes()


def test_a_run_without_the_record_reads_its_relative_model_from_the_current_folder(trained, model_project, tmp_path,
                                                                                     monkeypatch, capsys):
    """A run folder made before the record: from the project folder as before; elsewhere one line."""
    old = without_record(trained, tmp_path, "base_model")
    monkeypatch.chdir(model_project)
    assert evaluate(old, tmp_path / "here") == 0
    other = elsewhere(tmp_path, monkeypatch)
    capsys.readouterr()
    assert evaluate(old, other / "ev") == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "base model './mymodel' is missing" in line and "read from the current folder" in line
    assert not (other / "ev").exists()


def test_a_recorded_folder_that_is_gone_is_named_in_one_line(trained, tmp_path, monkeypatch, capsys):
    moved = tmp_path / "moved"
    shutil.copytree(trained, moved)
    config = json.loads((moved / "config.json").read_text())
    config["base_model"]["folder"] = str(tmp_path / "gone" / "mymodel")
    (moved / "config.json").write_text(json.dumps(config))
    other = elsewhere(tmp_path, monkeypatch)
    capsys.readouterr()
    assert evaluate(moved, other / "ev") == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert f"put the model back at {tmp_path / 'gone' / 'mymodel'} (where --model './mymodel' named it" in line
    assert not (other / "ev").exists()
