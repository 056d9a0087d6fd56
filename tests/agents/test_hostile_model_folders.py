"""A model folder someone else handed over never runs its code, and what is refused is one line.

Before: a ``config.json`` whose ``auto_map`` names the folder's own module made transformers ask
"Do you wish to run the custom code? [y/N]", and one "y" on stdin imported it (``--policy llm`` and
``--policy hf``); a pickled ``pytorch_model.bin`` was a traceback advising ``weights_only=False``; a
cut ``config.json`` was "not on disk"."""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import shutil
import warnings

import pytest

pytest.importorskip("transformers")

from searchgym.agents.encoder_hf import HFEncoder
from searchgym.agents.llm_policy import load_model
from searchgym.agents.pretrained import ModelFolderError

from searchgym.cli import main


class _RunsCode:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _asks_for_its_code(good, folder, marker):
    shutil.copytree(good, folder)
    config = json.loads((folder / "config.json").read_text())
    config.update(model_type="evilthing", auto_map={"AutoConfig": "evilmod.EvilConfig",
                                                    "AutoModelForCausalLM": "evilmod.EvilModel",
                                                    "AutoModel": "evilmod.EvilModel"})
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "evilmod.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n"
                                       "from transformers import Qwen2Config as EvilConfig, Qwen2ForCausalLM as EvilModel\n")


def test_a_folder_that_asks_to_run_its_code_is_refused_even_when_stdin_says_yes(good_model, tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    folder = tmp_path / "remote"
    _asks_for_its_code(good_model, folder, marker)
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n" * 10))
    said = re.escape("asks to run its own Python code (an auto_map in config.json or tokenizer_config.json)")
    with pytest.raises(ModelFolderError, match=said):
        load_model(str(folder))
    with pytest.raises(ModelFolderError, match=said):
        HFEncoder(model_name_or_path=str(folder), auto_class="causal_lm")
    assert not marker.exists()


def test_the_cli_refuses_it_in_one_line(good_model, tmp_path, monkeypatch, capsys):
    marker = tmp_path / "ran"
    folder = tmp_path / "remote"
    _asks_for_its_code(good_model, folder, marker)
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n" * 10))
    code = main(["train", "--method", "grpo", "--policy", "llm", "--model", str(folder), "--env", "SearchQA-v0",
                 "--budget", "8", "--world-size", "tiny", "--test-size", "2", "--out", str(tmp_path / "run"),
                 "--no-progress", "--device", "cpu"])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "asks to run its own Python code" in line and not marker.exists()


def test_pickled_weights_are_refused_without_advice_to_unpickle_them(good_model, tmp_path):
    folder = tmp_path / "pickled"
    shutil.copytree(good_model, folder)
    (folder / "model.safetensors").unlink()
    marker = tmp_path / "ran"
    (folder / "pytorch_model.bin").write_bytes(pickle.dumps(_RunsCode(str(marker))))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # before: torch's multi-line note on the pickle's protocol came first
        with pytest.raises(ModelFolderError) as caught:
            load_model(str(folder))
    assert "refused its weights file, a pickle holding more than tensors" in str(caught.value)
    assert "weights_only=False" not in str(caught.value) and not marker.exists()


def test_a_cut_config_is_named_as_damaged_not_absent(good_model, tmp_path):
    folder = tmp_path / "cut"
    shutil.copytree(good_model, folder)
    (folder / "config.json").write_text((good_model / "config.json").read_text()[:100])
    with pytest.raises(ModelFolderError, match=r"config.json' is not a valid JSON file\. \(the folder is there, the "
                                               r"file is damaged\)"):
        load_model(str(folder))


def _bin_weights_folder(good, folder, deflate: bool):
    """``good`` with its weights as a ``pytorch_model.bin`` (torch.save), its records stored or deflated."""
    import zipfile

    import torch
    from safetensors.torch import load_file

    shutil.copytree(good, folder)
    state = load_file(folder / "model.safetensors")
    (folder / "model.safetensors").unlink()
    buffer = io.BytesIO()
    torch.save(state, buffer)
    if not deflate:
        (folder / "pytorch_model.bin").write_bytes(buffer.getvalue())
        return
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as source, \
            zipfile.ZipFile(folder / "pytorch_model.bin", "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info))


def test_deflated_torch_weights_are_refused_before_they_are_inflated(good_model, tmp_path):
    """torch.load(weights_only=True) refuses code, not size: deflated records (a zip bomb: a 6 MB file
    inflated to 4.6 GB) were inflated; a folder's .bin weights are now checked as searchgym's own files."""
    folder = tmp_path / "deflated"
    _bin_weights_folder(good_model, folder, deflate=True)
    with pytest.raises(ModelFolderError, match=r"pytorch_model\.bin is no intact torch\.save archive: .*compressed"):
        load_model(str(folder))


def test_stored_torch_weights_still_load(good_model, tmp_path):
    folder = tmp_path / "stored"
    _bin_weights_folder(good_model, folder, deflate=False)
    assert load_model(str(folder)) is not None
