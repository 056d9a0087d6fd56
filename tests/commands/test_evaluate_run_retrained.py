"""`evaluate --agent run` evaluates what the run folder holds, not its path.

Before: the evaluation's identity was ``path=`` as typed, so after the run was trained again into
the same folder (another budget), evaluating it showed the earlier policy's score as "already
evaluated (DONE)"."""

from __future__ import annotations

import shutil

from searchgym.cli import main

TRAIN = ["--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--test-size", "4", "--no-progress"]


def test_a_run_trained_again_in_place_is_another_evaluation(tmp_path, capsys) -> None:
    run, evaluation = tmp_path / "run", tmp_path / "evaluation"
    evaluate = ["evaluate", "--agent", "run", "--agent-option", f"path={run}", "--out", str(evaluation),
                "--no-progress"]
    assert main(["train", *TRAIN, "--budget", "100", "--out", str(run)]) == 0
    assert main(evaluate) == 0
    assert main(evaluate) == 0  # the same run again: shown, not redone
    assert "is already evaluated (DONE); showing it" in capsys.readouterr().out
    shutil.rmtree(run)
    assert main(["train", *TRAIN, "--budget", "300", "--out", str(run)]) == 0
    capsys.readouterr()
    assert main(evaluate) == 2
    err = capsys.readouterr().err
    assert f"{evaluation} holds a different run (options.played.config_sha256: " in err
    assert "options.played.weights_sha256: " in err
