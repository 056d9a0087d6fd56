"""Which base model an LLM run's evaluation loads: the folder the run recorded, or its model as given."""

from __future__ import annotations

from searchgym.harness.llm_base_model import base_model_record, located_model


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
