"""A broken symbolic link given as --out is one line that names it and where it points.

Before: `compare`, `train` and `evaluate` said "error: File exists (outdl); a file stands where a folder
belongs: ... (files written before it are intact ...)", and `recipe` called the link a file."""

from __future__ import annotations

import errno

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import describe_os_error, main


@pytest.mark.parametrize("argv", [
    ["compare", "--suite", TINY_QA.id, "--methods", "random", "--seeds", "1", "--budget", "0"],
    ["train", "--method", "random", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "0"],
    ["evaluate", "--suite", TINY_QA.id, "--agent", "random"],
])
def test_a_broken_link_as_out_is_named(tmp_path, capsys, argv):
    link = tmp_path / "outdl"
    link.symlink_to(tmp_path / "nothere")
    assert main([*argv, "--out", str(link)]) == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (f"searchgym {argv[0]}: error: --out {link} is a broken symbolic link "
                                            f"(to {tmp_path / 'nothere'}); delete the link or choose another --out")
    assert link.is_symlink() and not (tmp_path / "nothere").exists()


def test_the_recipe_calls_a_broken_link_one(tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    link = tmp_path / "outdl"
    link.symlink_to(tmp_path / "nothere")
    assert main(["recipe", "tiny-lm", "--smoke", "--out", str(link)]) == 2
    assert capsys.readouterr().err.strip() == (f"searchgym recipe: error: --out {link} is a broken symbolic link (to "
                                               f"{tmp_path / 'nothere'}), not a folder; give the recipe's folder (or "
                                               "a path not yet made)")


def test_an_os_error_on_a_broken_link_names_it(tmp_path):
    link = tmp_path / "runs"
    link.symlink_to("/nothere-searchgym")
    error = FileExistsError(errno.EEXIST, "File exists", str(link))
    assert describe_os_error(error, resumable=False) == (f"{link} is a broken symbolic link (to /nothere-searchgym), "
                                                         "where a folder belongs; delete the link or choose another path")
    (tmp_path / "afile").write_text("x")  # a file there: as before
    error = FileExistsError(errno.EEXIST, "File exists", str(tmp_path / "afile"))
    assert describe_os_error(error, resumable=False) == (f"File exists ({tmp_path / 'afile'}); a file stands where a "
                                                         "folder belongs: move it or choose another --out")
