"""``searchgym report --methods a`` says what it counts, and leaves no other method's curve behind.

Before: ``report --methods random`` over three finished methods wrote "Finished runs: 1 of 1" and left
``curves/fast.png`` of an earlier report beside a results.md with no fast row; ``--reference`` not among
--methods was refused with another line than compare's; ``--out`` that does not exist or is a file was
"... holds no runs folder".
"""

from __future__ import annotations

import shutil

import pytest
from harness_helpers import compare_args, compared_folder

from searchgym.cli import main

METHODS = "random,oracle,fast=harness_helpers:fast_learner"


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, compare_args(METHODS, budget=40), "report_subset")


@pytest.fixture
def out(compared, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    assert (out / "curves" / "fast.png").is_file()
    return out


def test_a_report_of_some_methods_counts_the_others_and_removes_their_curves(out, capsys):
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--methods", "random"]) == 0
    printed, results = capsys.readouterr().out, (out / "results.md").read_text()
    assert "Finished runs: 1 of 1 asked for (3 finished in the folder)." in results
    assert f"{out / 'runs'} holds 3 finished runs; this report shows 1 (those of --methods random)" in printed
    assert not (out / "curves" / "fast.png").exists()  # before: kept, beside a report without fast
    assert f"removed {out / 'curves' / 'fast.png'}: an earlier report's curves" in printed
    assert main(["report", "--out", str(out)]) == 0  # every method: drawn again, and the count as before
    assert (out / "curves" / "fast.png").is_file()
    assert "Finished runs: 3 of 3." in (out / "results.md").read_text()


def test_compare_of_some_methods_keeps_the_other_curves(out, capsys):
    # compare adds runs to a folder (make main's, then --methods ippo): it does not prune it; report does
    capsys.readouterr()
    assert main([*compare_args("random", budget=40), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert (out / "curves" / "fast.png").is_file() and "removed" not in printed
    assert "Finished runs: 1 of 1 asked for (3 finished in the folder)." in (out / "results.md").read_text()


def test_a_file_of_the_user_in_curves_is_kept(out):
    (out / "curves" / "notes.png").write_bytes(b"mine")
    assert main(["report", "--out", str(out), "--methods", "random"]) == 0
    assert (out / "curves" / "notes.png").read_bytes() == b"mine"  # no method folder of that name


def test_a_reference_not_among_the_methods_is_refused_as_compare_refuses_it(out, capsys):
    assert main(["report", "--out", str(out), "--methods", "random", "--reference", "fast"]) == 2
    err = capsys.readouterr().err
    assert "searchgym report: error: --reference 'fast' is not one of --methods (random)" in err
    assert main([*compare_args("random"), "--reference", "fast", "--out", str(out)]) == 2
    assert "searchgym compare: error: --reference 'fast' is not one of --methods (random)" in capsys.readouterr().err


@pytest.mark.parametrize(("what", "said"), [("missing", "does not exist"), ("file", "is a file, not a folder")])
def test_an_out_that_is_no_folder_is_named_so(tmp_path, capsys, what, said):
    path = tmp_path / "afile.txt"
    if what == "file":
        path.write_text("x")
    assert main(["report", "--out", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"searchgym report: error: --out {path} {said}; give the --out folder of a `searchgym compare` "
                   "run (it holds runs/<method>/seed<N>)")
