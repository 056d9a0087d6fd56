"""One rule for every --out: a command writes into a new or empty folder or one of its own kind, and
refuses another command's folder (naming what it holds) or one of the user's own files, keeping them.

Before: `recipe --out` a comparison's folder wrote config.json, sft/ and rl/ beside runs/ (the comparison
then could not be resumed); on a train run folder it said "holds a recipe run with other settings";
`compare --out` a verl export's folder wrote runs/ and a report beside the parquet; `export --out` a
finished run wrote a dataset into it; `export --out FILE` was the OS's "File exists", exit status 1."""

from __future__ import annotations

import shutil

import pytest

from searchgym.cli import main
from searchgym.fileio import names_written
from searchgym.harness.out_folders import COMPARISON, EXPORT, RECIPE, RUN, check_out_folder
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-out-kinds-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: --out folder kinds"))
KEPT = "its files are kept"


def _compare(out) -> int:
    return main(["compare", "--suite", SUITE.id, "--methods", "random", "--budget", "0", "--device", "cpu",
                 "--no-progress", "--out", str(out)])


def _export(out, split: str = "dev") -> int:
    return main(["export", "--format", "verl", "--suite", "searchqa-text-v2", "--split", split, "--out", str(out)])


def _listing(folder) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A finished comparison, a finished train run and a verl export, each made by its command."""
    root = tmp_path_factory.mktemp("kinds")
    made = {"comparison": root / "cmp", "run": root / "run", "export": root / "vx"}
    assert _compare(made["comparison"]) == 0
    assert main(["train", "--method", "random", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "2", "--device", "cpu", "--no-progress", "--out", str(made["run"])]) == 0
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("yaml")
    assert _export(made["export"]) == 0
    return made


@pytest.fixture
def mine(tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes")
    return folder


def test_each_commands_folder_holds_only_names_its_kind_lists(folders) -> None:
    """What tells the kinds apart is what the commands write: a name not listed would make the command's
    own folder one "of none of its names" (and a mark of one kind must not be written by another)."""
    for name, kind in (("comparison", COMPARISON), ("run", RUN), ("export", EXPORT)):
        written = set(names_written(folders[name]))
        assert written and written <= set(kind.names), (name, written)
        assert written & kind.marks, name


def test_compare_refuses_an_export_folder_and_the_users_own_keeping_their_files(folders, mine, capsys) -> None:
    before = _listing(folders["export"])
    assert _compare(folders["export"]) == 2
    assert capsys.readouterr().err == (
        f"searchgym compare: error: --out {folders['export']} is a verl export's folder (it holds dev.parquet), not "
        "a comparison's (`searchgym export` wrote it); choose a new folder (or the folder of an earlier compare) "
        f"for --out: {KEPT}\n")
    assert _listing(folders["export"]) == before
    assert _compare(mine) == 2
    assert capsys.readouterr().err == (f"searchgym compare: error: --out {mine} holds files and none of a "
                                       "comparison's; choose a new folder (or the folder of an earlier compare) "
                                       f"for --out: {KEPT}\n")
    assert _listing(mine) == {"notes.txt": b"my notes"}


def test_compare_still_resumes_its_own_folder(folders, capsys) -> None:
    assert _compare(folders["comparison"]) == 0
    assert "runs: 0 done now, 1 already finished, 0 failed" in capsys.readouterr().out


def test_a_comparison_folder_holding_only_its_bases_is_its_own(tmp_path) -> None:
    """A folder holding copies of another comparison's bases/ (README: runs/greedy) is a comparison's."""
    (tmp_path / "bases" / "key").mkdir(parents=True)
    check_out_folder(tmp_path, COMPARISON)


def test_export_refuses_a_run_and_a_comparison_folder_and_the_users_own(folders, mine, capsys) -> None:
    pytest.importorskip("pandas")
    for name, held, writer in (("run", "config.json", "`searchgym train` or `evaluate`"),
                               ("comparison", "runs/", "`searchgym compare`")):
        before = _listing(folders[name])
        assert _export(folders[name]) == 2
        what = "one run's folder" if name == "run" else "a comparison's folder"
        assert capsys.readouterr().err == (
            f"searchgym export: error: --out {folders[name]} is {what} (it holds {held}), not an export's ({writer} "
            f"wrote it); choose a new folder (or an earlier export's folder, of the same suite) for --out: {KEPT}\n")
        assert _listing(folders[name]) == before
    assert _export(mine) == 2
    assert f"--out {mine} holds files and none of an export's; choose a new folder" in capsys.readouterr().err
    assert _listing(mine) == {"notes.txt": b"my notes"}


def test_export_adds_a_split_to_its_own_folder(folders, tmp_path) -> None:
    pytest.importorskip("pandas")
    out = tmp_path / "vx"
    out.mkdir()
    for name in ("dev.parquet", "tool_config.yaml", "agent_loop.yaml"):
        (out / name).write_bytes((folders["export"] / name).read_bytes())
    assert _export(out, "test") == 0
    assert sorted(names_written(out)) == ["agent_loop.yaml", "dev.parquet", "test.parquet", "tool_config.yaml"]


def test_export_into_a_file_is_a_usage_error(tmp_path, capsys) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert _export(afile) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: --out {afile} is a file, not a folder; choose a "
                                       "new folder (or an earlier export's folder) for --out\n")
    assert afile.read_text() == "x"


@pytest.fixture
def recipe(monkeypatch):
    """`searchgym recipe tiny-lm --smoke --out OUT`; a recipe that starts fails the test."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")

    def started(self, *args):
        pytest.fail("the recipe started")

    monkeypatch.setattr("searchgym.agents.tiny_lm_recipe.Recipe.run", started)
    return lambda out: main(["recipe", "tiny-lm", "--smoke", "--out", str(out), "--options",
                             '{"seeds": [0], "methods": ["grpo"]}'])


def test_recipe_refuses_a_comparison_which_then_still_resumes(folders, recipe, capsys) -> None:
    before = _listing(folders["comparison"])
    assert recipe(folders["comparison"]) == 2
    assert capsys.readouterr().err == (
        f"searchgym recipe: error: --out {folders['comparison']} is a comparison's folder (it holds runs/), not a "
        "recipe's (`searchgym compare` wrote it); choose a new folder (or a recipe's folder, made with the same "
        f"settings) for --out: {KEPT}\n")
    assert _listing(folders["comparison"]) == before
    assert _compare(folders["comparison"]) == 0


def test_recipe_names_a_train_run_as_one_not_as_a_recipe_with_other_settings(folders, recipe, capsys) -> None:
    before = _listing(folders["run"])
    assert recipe(folders["run"]) == 2
    assert capsys.readouterr().err == (
        f"searchgym recipe: error: --out {folders['run']} is one run's folder (it holds config.json), not a "
        "recipe's (`searchgym train` or `evaluate` wrote it); choose a new folder (or a recipe's folder, made with "
        f"the same settings) for --out: {KEPT}\n")
    assert _listing(folders["run"]) == before


def test_recipe_refuses_an_export_and_the_users_own(folders, mine, recipe, capsys) -> None:
    assert recipe(folders["export"]) == 2
    assert "is a verl export's folder (it holds dev.parquet), not a recipe's" in capsys.readouterr().err
    assert recipe(mine) == 2
    assert f"--out {mine} holds files and none of a recipe's; choose a new folder" in capsys.readouterr().err
    assert _listing(mine) == {"notes.txt": b"my notes"}


def test_a_folder_holding_a_recipes_sft_data_is_a_recipes(tmp_path) -> None:
    """The recipe's own advice: copy an earlier folder's sft_data/ into a new --out to reuse its episodes."""
    (tmp_path / "sft_data").mkdir()
    check_out_folder(tmp_path, RECIPE)


@pytest.mark.slow
def test_a_recipes_folder_holds_only_names_its_kind_lists_and_compare_refuses_it(tmp_path, capsys) -> None:
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    out = tmp_path / "tiny"
    assert main(["recipe", "tiny-lm", "--smoke", "--out", str(out), "--options",
                 '{"seeds": [0], "methods": ["grpo"], "sft_tasks": 4, "test_tasks": 2, "eval_batch": 2}']) == 0
    written = set(names_written(out))
    assert written <= set(RECIPE.names) and written & RECIPE.marks, written
    before = _listing(out)
    capsys.readouterr()
    assert _compare(out) == 2
    assert f"--out {out} is a recipe's folder (it holds sft/), not a comparison's (`searchgym recipe` wrote it)" in \
        capsys.readouterr().err
    assert _listing(out) == before


def _train(out) -> int:
    return main(["train", "--method", "random", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "2", "--device", "cpu", "--no-progress", "--out", str(out)])


def _evaluate(out) -> int:
    return main(["evaluate", "--suite", SUITE.id, "--agent", "random", "--device", "cpu", "--no-progress",
                 "--out", str(out)])


@pytest.fixture
def recipe_folder(tmp_path):
    """A folder holding what `searchgym recipe` writes at its top (its config.json records no run)."""
    folder = tmp_path / "recipe"
    for name in ("sft", "rl"):
        (folder / name).mkdir(parents=True)
    (folder / "config.json").write_text('{"shape": "l2-w128", "seeds": [0]}')
    (folder / "results.json").write_text("{}")
    return folder


@pytest.mark.parametrize("command", [_train, _evaluate], ids=["train", "evaluate"])
def test_train_and_evaluate_name_a_recipes_folder_keeping_its_files(recipe_folder, command, capsys) -> None:
    """Before: "holds a different run (suite_id: absent there (a folder made by an older searchgym) ...)"."""
    before = _listing(recipe_folder)
    assert command(recipe_folder) == 2
    name = "train" if command is _train else "evaluate"
    assert capsys.readouterr().err == (
        f"searchgym {name}: error: --out {recipe_folder} is a recipe's folder (it holds sft/), not a run's "
        f"(`searchgym recipe` wrote it); choose a new folder (or a run folder) for --out: {KEPT}\n")
    assert _listing(recipe_folder) == before


def test_train_and_evaluate_name_an_export_folder(folders, capsys) -> None:
    before = _listing(folders["export"])
    for command in (_train, _evaluate):
        assert command(folders["export"]) == 2
        assert f"--out {folders['export']} is a verl export's folder (it holds dev.parquet), not a run's" in \
            capsys.readouterr().err
    assert _listing(folders["export"]) == before


def test_train_still_resumes_its_own_folder_and_skips_a_finished_one(folders, tmp_path, capsys) -> None:
    assert _train(folders["run"]) == 0
    assert f"(skipped; files in {folders['run']})" in capsys.readouterr().out
    unfinished = tmp_path / "run"
    shutil.copytree(folders["run"], unfinished)
    (unfinished / "DONE").unlink()
    assert _train(unfinished) == 0
    assert (unfinished / "DONE").is_file()
