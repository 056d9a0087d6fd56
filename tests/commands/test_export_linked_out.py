"""`searchgym export --out LINK` is refused, as the other commands refuse a linked --out, before anything
is written. Before: with LINK a symbolic link to a folder, the dataset was written where it pointed."""

from __future__ import annotations

import os

import pytest

from searchgym.cli import main

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("yaml")


@pytest.mark.parametrize("target_exists", [True, False])
def test_a_linked_out_is_one_line_naming_it_and_nothing_is_written(tmp_path, capsys, target_exists):
    target = tmp_path / "elsewhere"
    if target_exists:
        target.mkdir()
    link = tmp_path / "out"
    os.symlink(target, link)
    code = main(["export", "--format", "verl", "--suite", "searchqa-text-v2", "--split", "dev", "--out", str(link)])
    assert code == 2
    assert capsys.readouterr().err == (
        f"searchgym export: error: --out {link} is a symbolic link, and searchgym never writes through one (it "
        "would write where the link points); replace the link with a real folder (or delete it) and re-run the "
        "same command\n")
    assert (list(target.iterdir()) == []) if target_exists else not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == (["elsewhere", "out"] if target_exists else ["out"])
