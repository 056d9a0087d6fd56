"""compare refuses repeated seeds and a --reference that is not one of its methods, before any run.

Before: `--seeds 0,0` ran seed 0 once, and results.md said "seeds [0, 0]" and "Finished runs: 2 of 2"
while summary.csv counted the one run twice in every interval (seeds 2); `--reference nope` was
silently replaced by another method in the significance table."""

from __future__ import annotations

import pytest
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.harness.compare import Comparison
from searchgym.harness.methods import parse_methods


@pytest.mark.parametrize(("extra", "said"), [
    (["--seeds", "0,1,0"], "searchgym compare: error: seeds must be distinct; repeated: 0"),
    (["--reference", "nope"], "searchgym compare: error: --reference 'nope' is not one of --methods (random, oracle)"),
])
def test_refused_before_any_folder(tmp_path, capsys, extra, said):
    out = tmp_path / "out"
    code = main(["compare", "--suite", TINY_QA.id, "--methods", "random,oracle", "--budget", "0", "--device", "cpu",
                 "--no-progress", "--out", str(out), *extra])
    assert code == 2 and capsys.readouterr().err.startswith(said)
    assert not out.exists()


def test_the_default_reference_and_a_named_method_pass(tmp_path, capsys):
    args = ["compare", "--suite", TINY_QA.id, "--methods", "random,oracle", "--budget", "0", "--device", "cpu",
            "--no-progress", "--out", str(tmp_path / "out")]
    assert main(args) == 0  # the default cw_grpo is not among them: another method is the reference
    assert main([*args, "--reference", "oracle"]) == 0
    with pytest.raises(ValueError, match="seeds must be distinct; repeated: 2"):
        Comparison(TINY_QA, parse_methods("random"), [2, 2], 0, tmp_path / "api")
