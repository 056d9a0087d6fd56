"""``leaderboard verify`` refuses a run block that disagrees with what the board shows.

Before: verify re-scored the predictions and never read the run block, so a block edited to hide
what ran (another seed, policy or budget; an ``evaluate`` run without its agent, which decides the
privileged mark) verified and went on the board; only ``leaderboard retrain`` compared it. Verify
now makes the retrain's comparison (one copy: :func:`searchgym.leaderboard_checks.run_block_mismatch`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.leaderboard_checks import SubmissionRejected, run_block_mismatch, verify_file
from searchgym.leaderboard_retrain import check_run_bounds

BOARD = Path(__file__).resolve().parents[1] / "leaderboard" / "submissions"
REDO = "the run block must record the run the board shows; submit the run folder again with `leaderboard submit`"


def _write(tmp_path: Path, name: str, edit) -> Path:
    submission = json.loads((BOARD / name).read_text())
    edit(submission)
    path = tmp_path / name
    path.write_text(json.dumps(submission))
    return path


@pytest.mark.parametrize(("name", "field", "value", "board"), [
    ("quick-v2__grpo__seed0.json", "seed", 3, "method.seed (0)"),
    ("quick-v2__grpo__seed0.json", "policy", "minilm", "method.policy ('hash')"),
    ("quick-v2__grpo__seed0.json", "budget", 20000, "training_budget (10000)"),
    ("team-text-v2__oracle__seed0.json", "seed", 1, "method.seed (0)"),
])
def test_verify_refuses_a_run_block_that_differs_from_the_board(tmp_path, capsys, name, field, value, board) -> None:
    path = _write(tmp_path, name, lambda s: s["run"].update({field: value}))
    assert main(["leaderboard", "verify", str(path)]) == 1
    assert capsys.readouterr().out == (f"REJECTED {path}: run.{field} ({value!r}) differs from {board}, which the "
                                       f"board shows; {REDO}\n")


def test_verify_and_retrain_compare_the_same_way(tmp_path) -> None:
    submission = json.loads((BOARD / "quick-v2__grpo__seed0.json").read_text())
    submission["run"]["seed"] = 3
    mismatch = run_block_mismatch(submission)
    assert mismatch == "run.seed (3) differs from method.seed (0), which the board shows"
    with pytest.raises(SubmissionRejected) as caught:
        check_run_bounds(submission)
    assert str(caught.value) == f"{mismatch}; a retrain runs only what the board shows"


@pytest.mark.parametrize("edit", [
    lambda s: s["run"]["options"].pop("agent"),
    lambda s: s["run"]["options"].update(agent=""),
    lambda s: s["run"].pop("options"),
])
def test_verify_refuses_an_evaluate_run_that_hides_its_agent(tmp_path, capsys, edit) -> None:
    """The renamed oracle's row was marked only by the agent its run names: without it, unmarked."""
    def hide(submission):
        submission["method"]["name"] = submission["run"]["method"] = "gold-chain"
        edit(submission)

    path = _write(tmp_path, "searchqa-text-v2__oracle__seed0.json", hide)
    assert main(["leaderboard", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert out == (f"REJECTED {path}: run.options.agent is missing or not a name, where a `searchgym evaluate` run "
                   f"(run.method_path searchgym.harness.methods:agent_method) records the agent it played; {REDO}\n")


@pytest.mark.parametrize("name", sorted(p.name for p in BOARD.glob("quick-v2__*.json")))
def test_what_the_board_shows_legitimately_still_verifies(name) -> None:
    """A method that does not spend the run's budget shows 0 (the oracle of a compare run) or its
    demonstrations' agent-steps (the supervised base): its run's budget is not compared."""
    assert verify_file(BOARD / name).ok


def test_a_method_that_does_not_train_may_record_the_comparisons_budget(tmp_path) -> None:
    path = _write(tmp_path, "quick-v2__oracle__seed0.json", lambda s: s["run"].update(budget=20000))
    assert verify_file(path).ok
    assert not verify_file(_write(tmp_path, "quick-v2__oracle__seed0.json",
                                  lambda s: s["run"].update(policy="minilm"))).ok


NO_RUN = ("the submission has {}, so what ran can be neither checked against the board nor re-trained; make it "
          "with `searchgym leaderboard submit RUN_DIR` from the run folder, which records the run")


@pytest.mark.parametrize(("edit", "what"), [
    (lambda s: s.pop("run"), "no run block"),
    (lambda s: s.update(run={"config_sha256": s["run"]["config_sha256"]}), "a run block without run.method_path"),
    (lambda s: s["run"].update(method_path=""), "a run block without run.method_path"),
])
def test_verify_refuses_a_submission_that_records_no_run(tmp_path, capsys, edit, what) -> None:
    """Before: without a run block it verified and went on the board (only retrain refused it), though
    none of the checks above was then made: a renamed oracle's row, with its block gone, was unmarked."""
    def hide(submission):
        submission["method"]["name"] = "gold-chain"
        edit(submission)

    path = _write(tmp_path, "quick-v2__oracle__seed0.json", hide)
    assert main(["leaderboard", "verify", str(path)]) == 1
    assert capsys.readouterr().out == f"REJECTED {path}: {NO_RUN.format(what)}\n"
