"""A ``--model`` that is not on disk is one line before any run folder, for ``--policy llm`` and ``hf``.

Before: ``searchgym train --policy llm --model /nonexistent`` wrote ``checkpoint/`` and ``config.json``
and then failed, so the corrected command was refused as "a different run"; ``--policy hf --model
/nonexistent`` printed Hugging Face's "Repo id must use alphanumeric chars ..." with exit 1, and
``--policy hf`` with no model "HFEncoder needs exactly one of model_name_or_path= ... or config=",
after making the run folder."""

from __future__ import annotations

import pytest

pytest.importorskip("transformers")
huggingface_hub = pytest.importorskip("huggingface_hub")

from searchgym.agents.model_source import check_model_source

from searchgym.cli import main

PRESETS = ("tiny", "qwen2-0.5b")


def test_folders_presets_and_cached_ids_pass_and_anything_else_says_why(tmp_path, monkeypatch):
    monkeypatch.delenv("SEARCHGYM_ALLOW_DOWNLOAD", raising=False)
    cache = tmp_path / "hub"
    snapshot = cache / "models--org--cached-model" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (cache / "models--org--cached-model" / "refs").mkdir()
    (cache / "models--org--cached-model" / "refs" / "main").write_text("abc123")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    check_model_source("org/cached-model")
    with pytest.raises(ValueError, match=r"the folder has no config.json; give the model's folder"):
        check_model_source(str(tmp_path))  # a folder is looked into (tests/agents/test_hostile_model_folders.py)
    check_model_source("random:tiny", presets=PRESETS)
    with pytest.raises(ValueError, match=r"--model 'org/absent' is neither a folder here nor a Hugging Face id in "
                                         r"the local cache; searchgym downloads nothing: `hf download org/absent`"):
        check_model_source("org/absent")
    with pytest.raises(ValueError, match=r"--model '/no/such/model': no such folder"):
        check_model_source("/no/such/model")
    with pytest.raises(ValueError, match="is a file; give the model's folder"):
        check_model_source(str(snapshot / "config.json"))
    with pytest.raises(ValueError, match="'random:huge': unknown preset; accepted: random:tiny, random:qwen2-0.5b"):
        check_model_source("random:huge", presets=PRESETS)
    monkeypatch.setenv("SEARCHGYM_ALLOW_DOWNLOAD", "1")  # then transformers may fetch it during the run
    check_model_source("org/absent")


@pytest.mark.parametrize(("args", "said"), [
    (["--policy", "llm", "--env", "SearchQA-v0", "--model", "/no/such/model"], "--model '/no/such/model': no such folder"),
    (["--policy", "llm", "--env", "SearchQA-v0", "--model", "random:huge"], "'random:huge': unknown preset"),
    (["--policy", "hf", "--model", "/no/such/model"], "--policy hf's model '/no/such/model': no such folder"),
    (["--policy", "hf"], "--policy hf encodes with a Hugging Face model: give it with --model PATH_OR_CACHED_ID"),
])
def test_train_refuses_a_model_not_on_disk_before_any_folder(tmp_path, capsys, monkeypatch, args, said):
    monkeypatch.delenv("SEARCHGYM_ALLOW_DOWNLOAD", raising=False)
    out = tmp_path / "run"
    code = main(["train", *args, "--budget", "4", "--world-size", "tiny", "--test-size", "2", "--no-progress",
                 "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and said in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
