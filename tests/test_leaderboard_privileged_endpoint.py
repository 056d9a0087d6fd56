"""A run against the scripted endpoint (it replays the oracle's actions) is marked privileged on the board.

Before: the ``scripted-endpoint`` rows scored 1.000 unmarked beside methods that read only what an
agent sees, as the mark came from the run's method label and agent (``openai``), never from the
endpoint it talked to."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from searchgym.cli import main
from searchgym.damaged import DamagedFile
from searchgym.endpoint.scripted_endpoint import DEFAULT_MODEL, ScriptedEndpoint
from searchgym.harness import load_results
from searchgym.harness.methods import METHODS
from searchgym.leaderboard import build
from searchgym.leaderboard_checks import verify_file
from searchgym.leaderboard_from_run import build_submission
from searchgym.leaderboard_html import is_privileged
from searchgym.suites import Suite, register_suite

BOARD = Path(__file__).resolve().parents[1] / "leaderboard" / "submissions"
SUITE = register_suite(Suite("test-lb-endpoint-text-v0", 0, "SearchQA-v0", {"max_steps": 8}, world_size="tiny",
                             dev_size=1, test_size=3, description="tests: the scripted endpoint on the board"))


def _rows(readme: Path) -> list[str]:
    """The method cell of every table row of a built README."""
    return [line.split(" | ")[1] for line in readme.read_text().splitlines()
            if line.startswith("| ") and " | " in line and not line.startswith("| \\#")]


def test_the_committed_scripted_endpoint_rows_are_marked_privileged(tmp_path) -> None:
    shutil.copytree(BOARD, tmp_path / "submissions")
    verdicts, readme, page = build(tmp_path)
    assert all(v.ok for v in verdicts)
    rows = _rows(readme)
    assert rows.count(r"scripted-endpoint \(privileged\)") == 3 and "scripted-endpoint" not in rows
    assert rows.count(r"oracle \(privileged\)") == 4 and not any(r.startswith("random") and "privileged" in r
                                                                for r in rows)
    assert page.read_text().count("scripted-endpoint (privileged)</td>") == 3


def test_an_endpoint_run_submitted_under_any_name_is_marked(tmp_path, monkeypatch) -> None:
    """The whole path: evaluate --agent openai against the scripted server, submit under a name that
    says nothing, build; the row is marked by the model its run block records."""
    monkeypatch.setenv("SEARCHGYM_OPENAI_API_KEY", "")
    run, board = tmp_path / "run", tmp_path / "board"
    with ScriptedEndpoint(SUITE, "oracle") as endpoint:
        assert main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "scripted-oracle",
                     "--base-url", endpoint.base_url, "--out", str(run), "--no-progress"]) == 0
    assert main(["leaderboard", "submit", str(run), "--name", "my-model", "--dir", str(board)]) == 0
    submission = json.loads(next((board / "submissions").glob("*.json")).read_text())
    assert submission["run"]["options"]["agent"] == "openai" and submission["metrics"]["success"] == 1.0
    assert main(["leaderboard", "build", "--dir", str(board)]) == 0
    assert _rows(board / "README.md") == [r"my-model \(privileged\)"]


@pytest.mark.parametrize("model", ["oracle", "gpt-4o-mini"])
def test_a_run_the_scripted_oracle_played_is_marked_whatever_its_model_name(tmp_path, monkeypatch, capsys,
                                                                            model) -> None:
    """The reviewer's path with a model name that says nothing: evaluate, load_results, submit, verify, build.
    Before: ``privileged False`` and an unmarked 1.000 row, as only the recorded model name was read."""
    monkeypatch.setenv("SEARCHGYM_OPENAI_API_KEY", "")
    run, board = tmp_path / "run", tmp_path / "board"
    with ScriptedEndpoint(SUITE, "oracle") as endpoint:
        assert main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", model, "--base-url",
                     endpoint.base_url, "--concurrency", "2", "--out", str(run), "--no-progress"]) == 0
    assert "openai (privileged) on" in capsys.readouterr().out
    assert json.loads((run / "result.json").read_text())["endpoint"]["scripted"] == ["oracle"]
    assert load_results(run)["privileged"].all()
    assert main(["leaderboard", "submit", str(run), "--name", "my-model", "--dir", str(board)]) == 0
    path = next((board / "submissions").glob("*.json"))
    submission = json.loads(path.read_text())
    assert submission["run"]["endpoint"] == {"scripted": ["oracle"]} and submission["metrics"]["success"] == 1.0
    verdict = verify_file(path)
    assert verdict.ok and is_privileged(verdict.verified.submission)
    assert main(["leaderboard", "build", "--dir", str(board)]) == 0
    assert _rows(board / "README.md") == [r"my-model \(privileged\)"]
    assert "my-model (privileged)</td>" in (board / "index.html").read_text()


def test_a_run_the_scripted_random_baseline_played_is_not_marked(tmp_path, monkeypatch) -> None:
    """It replays the random baseline, which reads only what an agent sees."""
    monkeypatch.setenv("SEARCHGYM_OPENAI_API_KEY", "")
    run, board = tmp_path / "run", tmp_path / "board"
    with ScriptedEndpoint(SUITE, "random") as endpoint:
        assert main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "gpt-4o-mini", "--base-url",
                     endpoint.base_url, "--out", str(run), "--no-progress"]) == 0
    assert json.loads((run / "result.json").read_text())["endpoint"]["scripted"] == ["random"]
    assert not load_results(run)["privileged"].any()
    assert main(["leaderboard", "submit", str(run), "--name", "my-model", "--dir", str(board)]) == 0
    assert main(["leaderboard", "build", "--dir", str(board)]) == 0
    assert _rows(board / "README.md") == ["my-model"]


def test_a_submission_whose_result_json_is_damaged_is_refused(tmp_path, monkeypatch) -> None:
    """submit reads the run's result.json for the endpoint's record: damage there is named, not skipped."""
    monkeypatch.setenv("SEARCHGYM_OPENAI_API_KEY", "")
    run = tmp_path / "run"
    with ScriptedEndpoint(SUITE, "oracle") as endpoint:
        assert main(["evaluate", "--suite", SUITE.id, "--agent", "openai", "--model", "oracle", "--base-url",
                     endpoint.base_url, "--out", str(run), "--no-progress"]) == 0
    result = json.loads((run / "result.json").read_text())
    (run / "result.json").write_text(json.dumps({**result, "endpoint": {**result["endpoint"], "scripted": "oracle"}}))
    with pytest.raises(DamagedFile, match="endpoint.scripted"):
        build_submission(run)


def _endpoint_submission(model: object) -> dict:
    submission = json.loads((BOARD / "team-text-v2__scripted-endpoint__seed0.json").read_text())
    submission["method"]["name"] = submission["run"]["method"] = "mine"
    submission["run"]["options"]["agent_options"]["model"] = model
    return submission


@pytest.mark.parametrize("model", ["scripted-oracle", DEFAULT_MODEL, "Scripted-Oracle"])
def test_the_scripted_models_are_privileged(model) -> None:
    assert is_privileged(_endpoint_submission(model))


@pytest.mark.parametrize("model", ["gpt-4o-mini", "Qwen/Qwen2.5-7B-Instruct", None, 7])
def test_a_real_model_is_not(model) -> None:
    assert not is_privileged(_endpoint_submission(model))


def test_the_oracle_is_marked_by_its_path_under_any_label() -> None:
    """An oracle run whose label says nothing (``compare --methods mine=oracle``) is marked by its import path."""
    oracle = json.loads((BOARD / "quick-v2__oracle__seed0.json").read_text())
    oracle["method"]["name"] = oracle["run"]["method"] = "mine"
    assert oracle["run"]["method_path"] == METHODS["oracle"] and is_privileged(oracle)
    random = copy.deepcopy(oracle)
    random["run"]["method_path"] = METHODS["random"]
    assert not is_privileged(random)
    del random["run"]
    random["method"]["name"] = "Oracle"  # by name, whatever the case
    assert is_privileged(random)
