"""An ``--out`` that holds another command's folder is refused before anything is written. Before,
``compare --out`` a train or evaluate run folder (or one run of a comparison) wrote results.md,
summary.csv and runs/ beside that run's files, and ``train``/``evaluate --out`` a comparison's
folder wrote one run's DONE and config.json beside its runs/."""

from __future__ import annotations

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-out-other-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4},
                             world_size="tiny", dev_size=2, test_size=4, description="tests: --out of another command"))


@pytest.fixture(scope="module")
def comparison(tmp_path_factory):
    out = tmp_path_factory.mktemp("out-other") / "cmp"
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 0, out, "cpu", progress=False))
    return out


def _listing(folder):
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_compare_refuses_a_run_folder(comparison, capsys) -> None:
    run = comparison / "runs" / "random" / "seed0"
    before = _listing(run)
    code = main(["compare", "--suite", SUITE.id, "--methods", "random", "--budget", "0", "--device", "cpu",
                 "--out", str(run), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "is one run's folder (it holds config.json), not a comparison's" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert _listing(run) == before


def test_evaluate_and_train_refuse_a_comparison_folder(comparison, capsys) -> None:
    before = _listing(comparison)
    code = main(["evaluate", "--suite", SUITE.id, "--agent", "random", "--device", "cpu", "--out", str(comparison),
                 "--no-progress"])
    assert code == 2 and "is a comparison's folder (it holds runs/), not a run's" in capsys.readouterr().err
    code = main(["train", "--method", "random", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "2", "--device", "cpu", "--out", str(comparison), "--no-progress"])
    assert code == 2 and "is a comparison's folder (it holds runs/), not a run's" in capsys.readouterr().err
    assert _listing(comparison) == before
