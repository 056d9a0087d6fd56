"""`searchgym recipe tiny-lm` into a folder made by another command line.

Before: a folder made with --smoke, re-run without it, was refused with four of the settings --smoke
sets listed and --smoke not named; a damaged config.json said to delete the whole folder (its finished
stages too) where deleting the file does.
"""

from __future__ import annotations

import json
from dataclasses import asdict

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from searchgym.agents.tiny_lm_recipe import RecipeConfig
from searchgym.agents.tiny_lm_records import check_same_recipe

from searchgym.cli import main
from searchgym.commands.recipe import SMOKE
from searchgym.damaged import DamagedFile


@pytest.fixture
def made_by(tmp_path, monkeypatch):
    """A folder whose config.json holds the settings of ``RecipeConfig(**settings)``; any stage that
    starts fails the test (a command line taken would run the recipe)."""
    def started(self, *args):
        pytest.fail("the recipe started")

    monkeypatch.setattr("searchgym.agents.tiny_lm_recipe.Recipe.sft", started)

    def make(**settings):
        out = tmp_path / "tiny"
        out.mkdir()
        (out / "config.json").write_text(json.dumps(asdict(RecipeConfig(**settings))))
        return out

    return make


def test_a_folder_made_with_smoke_rerun_without_it_names_smoke(made_by, capsys):
    out = made_by(**SMOKE)
    assert main(["recipe", "tiny-lm", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"searchgym recipe: error: {out} holds a recipe run made with --smoke (sft_tasks: 16 "
                          "there, 600 now;") and err.count("\n") == 1, err
    assert err.rstrip().endswith("); add --smoke to go on with it, or use another --out"), err


def test_a_folder_made_without_smoke_rerun_with_it_names_smoke(made_by, capsys):
    out = made_by()
    assert main(["recipe", "tiny-lm", "--smoke", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out} holds a recipe run made without --smoke (sft_tasks: 600 there, 16 now;" in err
    assert err.rstrip().endswith("); leave out --smoke to go on with it, or use another --out"), err


def test_smoke_is_not_named_where_it_would_not_do(made_by, capsys):
    out = made_by(**{**SMOKE, "sft_lr": 0.1})  # --smoke and an option: adding --smoke alone is not it
    assert main(["recipe", "tiny-lm", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out} holds a recipe run with other settings (" in err and "--smoke" not in err, err


def test_a_damaged_config_is_deleted_alone(tmp_path):
    (tmp_path / "config.json").write_text('{"suite": ')
    config = asdict(RecipeConfig())
    with pytest.raises(DamagedFile) as caught:
        check_same_recipe(tmp_path, config)
    assert str(caught.value) == (f"{tmp_path / 'config.json'}: is not valid JSON (Expecting value at line 1 "
                                 "column 11); delete it and re-run the command that made this folder (its "
                                 "finished stages are kept), or use another --out")
    (tmp_path / "config.json").unlink()  # what the advice says: the folder is taken again
    check_same_recipe(tmp_path, config)
