"""``searchgym report --methods a,b`` reads the folders of a and b alone: a link in another method's
folder no longer refuses the report; a link among the methods asked for still does."""

from __future__ import annotations

import shutil

import pytest
from harness_helpers import compare_args, compared_folder

from searchgym.cli import main


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, compare_args("oracle,random"), "report_methods")


@pytest.fixture
def out(compared, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(out / "runs" / "random", elsewhere)
    (out / "runs" / "other").symlink_to(elsewhere, target_is_directory=True)  # a method not asked for
    return out


def test_a_link_in_a_method_not_asked_for_is_not_read(out, capsys):
    assert main(["report", "--out", str(out), "--methods", "oracle,random"]) == 0  # before: refused (rc 2)
    printed = capsys.readouterr()
    assert "symbolic link" not in printed.err
    assert "| oracle (privileged) | 1 |" in printed.out and "| random | 1 |" in printed.out
    assert "| other |" not in (out / "results.md").read_text()


def test_a_method_not_finished_names_the_others_but_not_the_link(out, capsys):
    assert main(["report", "--out", str(out), "--methods", "oracle,nope"]) == 2
    assert "--methods names no finished run: nope; finished runs: oracle, random" in capsys.readouterr().err


@pytest.mark.parametrize("linked", ["method", "seed"])
def test_a_link_among_the_methods_asked_for_is_still_refused(out, tmp_path, capsys, linked):
    if linked == "method":
        asked = "oracle,other"
        where = out / "runs" / "other"
    else:
        asked = "oracle,random"
        where = out / "runs" / "random" / "seed0"
        shutil.move(where, tmp_path / "seed0")
        where.symlink_to(tmp_path / "seed0", target_is_directory=True)
    assert main(["report", "--out", str(out), "--methods", asked]) == 2
    err = capsys.readouterr().err
    assert f"{where}: is a symbolic link" in err and len(err.strip().splitlines()) == 1


def test_without_methods_every_link_is_still_refused(out, capsys):
    assert main(["report", "--out", str(out)]) == 2
    assert f"{out / 'runs' / 'other'}: is a symbolic link" in capsys.readouterr().err
