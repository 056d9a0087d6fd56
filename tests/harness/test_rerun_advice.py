"""compare's closing advice matches why runs failed: where the run's own error says a re-run meets it
again (a changed ``base.pt`` to delete, a damaged file, another run's folder), it says what to do first,
not "re-run the same command to resume"; a failure a re-run can get past (a bug, a transient error, an
interrupted run) keeps that advice.

Before: after "<folder>/base.pt changed after it was built (...); delete <folder> to rebuild it", the
summary still said "re-run the same command to resume the failed runs", which failed the same way."""

from __future__ import annotations

import pickle
import shutil

import pytest
from harness_helpers import compare_args

from searchgym.cli import main
from searchgym.commands.compare import print_rerun_advice
from searchgym.damaged import DamagedFile, OtherRunsFile
from searchgym.harness.rerun_advice import ITS_ERROR, OTHER_RUN, rerun_advice, rerun_helps
from searchgym.harness.runner import DifferentRun, RunOutcome
from searchgym.harness.sft import BaseChanged

pytestmark = pytest.mark.timeout(300)
SFT = ["--option", "sft_tasks=3", "--option", "sft_epochs=1"]
RESUME = "re-run the same command to resume"


def test_a_changed_base_ends_in_its_delete_advice_not_in_resume(tmp_path, capsys):
    out = tmp_path / "out"
    args = [*compare_args("sft"), *SFT, "--out", str(out)]
    assert main(args) == 0
    (base,) = (out / "bases").iterdir()
    with open(base / "base.pt", "ab") as file:  # the file its base.json recorded, changed since
        file.write(b"\0")
    shutil.rmtree(out / "runs" / "sft" / "seed0")  # a run that reads the base again
    capsys.readouterr()
    assert main(args) == 1
    printed = capsys.readouterr().out
    assert f"failed: sft/seed0: BaseChanged: {base / 'base.pt'} changed after it was built" in printed
    assert (f"sft/seed0: re-running alone fails the same way; delete {base} and re-run the same command to build "
            "the base again") in printed
    assert RESUME not in printed


def test_which_failures_a_rerun_can_get_past():
    changed = BaseChanged("x/base.pt changed after it was built", "delete x and re-run the same command")
    assert rerun_advice(changed) == "re-running alone fails the same way; delete x and re-run the same command"
    again = pickle.loads(pickle.dumps(changed))  # as a worker process hands it over
    assert str(again) == str(changed) and again.remedy == changed.remedy and not rerun_helps(again)
    damaged = DamagedFile("runs/a/seed0/config.json", "is not JSON", "delete it and re-run the same command")
    assert rerun_advice(damaged) == ("re-running alone fails the same way; runs/a/seed0/config.json: delete it and "
                                     "re-run the same command")

    class Told(ValueError):
        rerun_helps = False  # any exception may say so, with no remedy of its own

    assert rerun_advice(Told("see above")) == f"re-running alone fails the same way; {ITS_ERROR}"
    assert not rerun_helps(DifferentRun("x holds a different run")) and not rerun_helps(OtherRunsFile("c", "w"))
    for transient in (RuntimeError("the method's own bug"), OSError(28, "No space left on device"),
                      TimeoutError("the endpoint did not answer"), ValueError("bad")):
        assert rerun_helps(transient) and rerun_advice(transient) is None


def _failed(label: str, advice: str | None) -> RunOutcome:
    return RunOutcome(label, 0, f"runs/{label}/seed0", "failed", error="E", resumable=advice is None, advice=advice)


def test_the_summary_gives_each_cause_its_advice(capsys):
    print_rerun_advice([_failed("a", "re-running alone fails the same way; delete x"), _failed("b", OTHER_RUN),
                        _failed("c", OTHER_RUN), _failed("d", None)])
    assert capsys.readouterr().out.splitlines() == [
        "a/seed0: re-running alone fails the same way; delete x",
        f"b/seed0, c/seed0: {OTHER_RUN}",
        "re-run the same command to resume the failed runs"]
    print_rerun_advice([_failed("a", "re-running alone fails the same way; delete x")])
    assert RESUME not in capsys.readouterr().out
