"""`searchgym train --method module:callable` with a user's method, as compare treats it: a bad path
is refused before the run's folder is made, and a method that raises is one line and error.txt."""

from __future__ import annotations

from searchgym.cli import main

TRAIN = ["train", "--budget", "0", "--world-size", "tiny", "--test-size", "3", "--no-progress"]


def test_a_method_that_raises_is_one_line_and_its_traceback_in_error_txt(tmp_path, capsys):
    """Before: a 15-line traceback through searchgym's internals, and no error.txt."""
    out = tmp_path / "run"
    assert main([*TRAIN, "--method", "harness_helpers:broken_method", "--out", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"searchgym train: error: method 'harness_helpers.broken_method' raised RuntimeError: the method's "
                   f"own bug; its traceback is in {out / 'error.txt'}"]
    assert "the method's own bug" in (out / "error.txt").read_text()


def test_a_path_that_names_no_method_is_refused_before_any_folder(tmp_path, capsys):
    """Before: refused only inside the run, after its folder and .lock were made."""
    for path, said in (("mypkg.nowhere:method", "cannot be imported"), ("harness_helpers:nosuch", "has no callable"),
                       ("harness_helpers:broken_factory", "must accept one argument, a RunContext")):
        out = tmp_path / path.replace(":", "_")
        assert main([*TRAIN, "--method", path, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err
        assert not out.exists()
