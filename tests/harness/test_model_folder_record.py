"""Which folder a run's evaluation loads for a path its options give: the folder the run recorded,
or the path as given (an LLM-policy run's base model; a candidate policy's folder options)."""

from __future__ import annotations

from searchgym.harness.model_folder_record import (
    base_model_record,
    located_model,
    located_policy_kwargs,
    missing_policy_folder,
    policy_folders_record,
)


def test_only_a_local_folder_is_recorded_and_with_its_absolute_path(tmp_path, monkeypatch):
    (tmp_path / "mymodel").mkdir()
    monkeypatch.chdir(tmp_path)
    assert base_model_record("./mymodel") == {"base_model": {"model": "./mymodel", "folder": str(tmp_path / "mymodel")}}
    assert base_model_record("random:tiny") == {}
    assert base_model_record("org/not-here") == {}  # a Hugging Face id


def test_the_recorded_folder_is_loaded_while_it_is_there(tmp_path, monkeypatch):
    trained, here = tmp_path / "trained" / "mymodel", tmp_path / "here"
    trained.mkdir(parents=True)
    (here / "mymodel").mkdir(parents=True)  # another folder of the same name where the evaluation runs
    monkeypatch.chdir(here)
    config = {"base_model": {"model": "./mymodel", "folder": str(trained)}}
    assert located_model(config, "./mymodel") == str(trained)
    assert located_model(config, "./edited") == "./edited"  # a record of another model is not this one's
    assert located_model({"base_model": {"model": "./mymodel", "folder": "mymodel"}}, "./mymodel") == "./mymodel"
    assert located_model({}, "./mymodel") == "./mymodel"  # a run made before the record: as before


def test_a_recorded_folder_that_moved_falls_back_to_the_model_as_given(tmp_path, monkeypatch):
    config = {"base_model": {"model": "./mymodel", "folder": str(tmp_path / "gone" / "mymodel")}}
    monkeypatch.chdir(tmp_path)
    assert located_model(config, "./mymodel") == str(tmp_path / "gone" / "mymodel")  # the one to put back
    (tmp_path / "mymodel").mkdir()  # moved here, with the runs: read from the current folder, as before
    assert located_model(config, "./mymodel") == "./mymodel"


def test_a_candidate_policy_records_each_folder_option_of_its_policy(tmp_path, monkeypatch):
    for name in ("mymodel", "tok", "minilm"):
        (tmp_path / name).mkdir()
    monkeypatch.chdir(tmp_path)
    kwargs = {"model_name_or_path": "./mymodel", "tokenizer_path": "tok", "dim": 8}
    assert policy_folders_record("hf", kwargs) == {"policy_folders": {
        "model_name_or_path": {"model": "./mymodel", "folder": str(tmp_path / "mymodel")},
        "tokenizer_path": {"model": "tok", "folder": str(tmp_path / "tok")}}}
    assert policy_folders_record("minilm", {"model_path": "minilm"}) == {
        "policy_folders": {"model_path": {"model": "minilm", "folder": str(tmp_path / "minilm")}}}
    assert policy_folders_record("hf", {"model_name_or_path": "org/cached-id"}) == {}  # a Hugging Face id
    assert policy_folders_record("hash", {"model_name_or_path": "./mymodel"}) == {}  # no folder option of its
    assert policy_folders_record("minilm", {}) == {}  # the packaged model's own path


def test_a_candidate_policy_is_built_from_its_recorded_folders(tmp_path, monkeypatch):
    trained, here = tmp_path / "trained" / "mymodel", tmp_path / "here"
    trained.mkdir(parents=True)
    here.mkdir()
    monkeypatch.chdir(here)
    config = {"policy_folders": {"model_name_or_path": {"model": "./mymodel", "folder": str(trained)}}}
    kwargs = {"model_name_or_path": "./mymodel", "dim": 8}
    assert located_policy_kwargs(config, "hf", kwargs) == {"model_name_or_path": str(trained), "dim": 8}
    assert kwargs["model_name_or_path"] == "./mymodel"  # the options as given are left as they are
    assert located_policy_kwargs({}, "hf", kwargs) == kwargs  # a run made before the record: as before
    edited = {"model_name_or_path": "./edited"}
    assert located_policy_kwargs(config, "hf", edited) == edited  # a record of another path is not this one's
    assert missing_policy_folder(config, "hf", kwargs) is None


def test_a_recorded_policy_folder_that_is_gone_is_named(tmp_path, monkeypatch):
    gone = tmp_path / "gone" / "mymodel"
    config = {"policy_folders": {"model_name_or_path": {"model": "./mymodel", "folder": str(gone)}}}
    kwargs = {"model_name_or_path": "./mymodel"}
    monkeypatch.chdir(tmp_path)
    assert missing_policy_folder(config, "hf", kwargs) == (
        f"its policy's model_name_or_path './mymodel' is missing: put the folder back at {gone} (where it was "
        "when the run trained), or run this from a folder holding './mymodel'")
    assert missing_policy_folder({}, "hf", kwargs).endswith("records no folder for it: run this from the folder "
                                                            "the run was trained in")  # an older run: not here
    assert missing_policy_folder({}, "hf", {"model_name_or_path": "org/model"}) is None  # a hub id: its loader's
    (tmp_path / "mymodel").mkdir()  # moved here, with the runs: read from the current folder
    assert missing_policy_folder(config, "hf", kwargs) is None
    assert located_policy_kwargs(config, "hf", kwargs) == kwargs
