"""An explicit ``--reference`` that is not among the methods is refused, the default's name too; without
``--reference`` the default (cw_grpo) still gives way to another method where it is not among them.

Before: ``--reference cw_grpo --methods random,oracle`` passed (argparse gave the default's value, so
an explicit cw_grpo could not be told from none), and the significance table silently tested against
another method, while any other method outside --methods was refused."""

from __future__ import annotations

import pytest
from harness_helpers import compare_args, compared_folder

from searchgym.cli import main

pytestmark = pytest.mark.timeout(300)
REFUSED = "--reference 'cw_grpo' is not one of --methods (random, oracle); the default, cw_grpo, gives way"


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    return compared_folder(tmp_path_factory, compare_args("random,oracle"))


@pytest.mark.parametrize("name", ["cw_grpo", "nope"])
def test_compare_refuses_it_in_one_line_before_any_folder(tmp_path, capsys, name):
    out = tmp_path / "out"
    assert main([*compare_args("random,oracle"), "--reference", name, "--out", str(out)]) == 2
    said = REFUSED.replace("'cw_grpo'", repr(name))
    assert capsys.readouterr().err.strip() == (f"searchgym compare: error: {said} to the first learning method "
                                               "when it is not among them")
    assert not out.exists()


def test_report_refuses_it_as_compare_does(compared, capsys):
    assert main(["report", "--out", str(compared), "--methods", "random,oracle", "--reference", "cw_grpo"]) == 2
    assert capsys.readouterr().err.startswith(f"searchgym report: error: {REFUSED}")
    assert main(["report", "--out", str(compared), "--reference", "cw_grpo"]) == 2  # without --methods: no such run
    assert capsys.readouterr().err.startswith("searchgym report: error: --reference 'cw_grpo' has no finished run "
                                              "among random, oracle")


def test_without_reference_the_default_gives_way_in_both(compared, tmp_path, capsys):
    assert main([*compare_args("random,oracle"), "--out", str(tmp_path / "out")]) == 0
    assert main(["report", "--out", str(compared)]) == 0
    assert main(["report", "--out", str(compared), "--methods", "oracle,random"]) == 0
    assert "(cw_grpo has no finished run; random is the reference)" in (compared / "results.md").read_text()
    assert main(["report", "--out", str(compared), "--reference", "random"]) == 0  # one of them: as before
