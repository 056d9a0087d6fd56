"""``searchgym report`` with no ``--methods`` keeps the order of the folder's last report (compare's
``--methods``). Before: it listed learners first, then reader, random, oracle, so rewriting the report of
``compare --methods random,oracle,cw_grpo`` reordered its tables and changed results.md."""

from __future__ import annotations

import shutil

import pytest
from harness_helpers import compare_args, compared_folder

from searchgym.cli import main
from searchgym.harness.report_order import reported_order

ARGS = [*compare_args("random,oracle,fast=harness_helpers:fast_learner", budget=40), "--reference", "fast"]


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, ARGS, "order")


def _rows(table: str) -> list[str]:
    return [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")
            and not line.startswith("| method")]


def test_report_without_methods_writes_compares_report_again_as_it_was(compared, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    results, summary = (out / "results.md").read_bytes(), (out / "summary.csv").read_bytes()
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--reference", "fast"]) == 0
    assert _rows(capsys.readouterr().out.split("\n\n")[1]) == ["random", "oracle (privileged)", "fast"]
    assert (out / "results.md").read_bytes() == results
    assert (out / "summary.csv").read_bytes() == summary


def test_a_folder_without_a_report_keeps_the_documented_default(compared, tmp_path, capsys):
    out = tmp_path / "out"
    shutil.copytree(compared, out)
    (out / "summary.csv").unlink()
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--reference", "fast"]) == 0
    assert _rows(capsys.readouterr().out.split("\n\n")[1]) == ["fast", "random", "oracle (privileged)"]


def test_the_order_is_read_from_summary_rows_and_nothing_else(tmp_path):
    """A method with a row per budget is placed at its first row; unknown labels and a file that is no
    CSV of a method column give no order."""
    labels = {"fast", "random", "oracle"}
    (tmp_path / "summary.csv").write_text("method,family\noracle,all\nfast@budget40,all\nother,all\n"
                                          "fast@budget80,all\nrandom,all\noracle,all\n")
    assert reported_order(tmp_path, labels) == ["oracle", "fast", "random"]
    (tmp_path / "summary.csv").write_bytes(b"\xff\xfe not text")
    assert reported_order(tmp_path, labels) == []
    (tmp_path / "summary.csv").unlink()
    (tmp_path / "summary.csv").symlink_to(tmp_path / "elsewhere.csv")
    (tmp_path / "elsewhere.csv").write_text("method\nrandom\n")
    assert reported_order(tmp_path, labels) == []
    assert reported_order(tmp_path / "missing", labels) == []
