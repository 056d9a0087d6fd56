"""``report`` never writes through a ``curves/`` folder that is a symbolic link (a comparison folder
someone handed over could point it anywhere): before, it wrote each method's plot where it pointed."""

from __future__ import annotations

from harness_helpers import TINY_QA

from searchgym.cli import main


def test_a_linked_curves_folder_is_refused_and_its_target_left_alone(tmp_path, capsys) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "fast=harness_helpers:fast_learner", "--seeds", "1",
                 "--budget", "8", "--device", "cpu", "--no-progress", "--out", str(out)]) == 0
    assert (out / "curves" / "fast.png").is_file()
    (out / "curves" / "fast.png").unlink()
    (out / "curves").rmdir()
    elsewhere.mkdir()
    (elsewhere / "fast.png").write_bytes(b"someone's file")
    (out / "curves").symlink_to(elsewhere, target_is_directory=True)
    capsys.readouterr()
    assert main(["report", "--out", str(out)]) != 0
    err = capsys.readouterr().err.strip()
    assert "curves" in err and "link" in err and "\n" not in err and "Traceback" not in err
    assert (elsewhere / "fast.png").read_bytes() == b"someone's file"
