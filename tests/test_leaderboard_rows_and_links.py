"""What a reviewer found on the board: links followed, one run shown as several rows, tampered
fields accepted, verdicts spread over lines, and flags blamed on files.

Before: ``build`` followed a symbolic link in ``submissions/`` (and printed part of the file it
pointed at); one run submitted under two names, or with a trailing space, or with its seed
edited, made two rows; a random row could claim a training budget; ``0.0`` passed as an integer
seed; a file name holding a newline printed a verdict line of its own; ``--description`` with a
newline was "schema violation at method/description"; a damaged ``retrained.json`` was Python's
two-line warning naming the file twice."""

from __future__ import annotations

import copy
import json
import warnings

import pytest

from searchgym.cli import main
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import parse_methods
from searchgym.leaderboard import LINKED_SUBMISSION, build, build_submission, verify_folder, write_submission
from searchgym.leaderboard_checks import verify_file
from searchgym.suites import Suite, register_suite

SUITE = register_suite(Suite("test-lb-rows-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 4}, world_size="tiny",
                             dev_size=2, test_size=6, description="tests: one row per run"))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("rows")
    run_comparison(Comparison(SUITE, parse_methods("random"), [0], 0, out, "cpu", progress=False))
    return out / "runs" / "random" / "seed0"


def _board(tmp_path, *submissions):
    folder = tmp_path / "board" / "submissions"
    for name, submission in submissions:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(submission))
    return folder


def test_a_link_among_the_submissions_is_refused_unread(tmp_path, run_dir) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps(["s3cr3t-value"]))
    folder = _board(tmp_path, ("random.json", build_submission(run_dir)))
    (folder / "a.json").symlink_to(secret)
    (folder / "b.json").symlink_to(folder / "random.json")  # a link to a good submission: refused too
    verdicts = {v.path.rsplit("/", 1)[-1]: v for v in verify_folder(folder)}
    assert verdicts["a.json"].reason == verdicts["b.json"].reason == LINKED_SUBMISSION
    assert verdicts["random.json"].ok and not verdicts["a.json"].ok and not verdicts["b.json"].ok
    json.dump(["s3cr3t-value"], (tmp_path / "plain.json").open("w"))  # a schema message names, never shows, a value
    assert verify_file(tmp_path / "plain.json").reason == ("schema violation at (top level): a JSON array where "
                                                           "object is accepted")


@pytest.mark.parametrize("change", ["another name", "a trailing space", "an edited seed"])
def test_one_run_is_one_row(tmp_path, run_dir, change) -> None:
    first = build_submission(run_dir)
    second = copy.deepcopy(first)
    if change == "another name":
        second["method"]["name"] = "random2"
    elif change == "a trailing space":
        second["method"]["name"] = "random "
    else:
        second["method"]["seed"] = second["run"]["seed"] = 5
    folder = _board(tmp_path, ("a_first.json", first), ("b_second.json", second))
    assert verify_file(folder / "b_second.json").ok  # alone, each verifies
    verdicts = verify_folder(folder)
    assert [v.ok for v in verdicts] == [True, False]
    assert verdicts[1].reason.startswith("the same r") and "a_first.json" in verdicts[1].reason


def test_submit_refuses_a_run_already_on_the_board_under_another_name(tmp_path, run_dir, capsys) -> None:
    board = tmp_path / "board"
    assert main(["leaderboard", "submit", str(run_dir), "--dir", str(board)]) == 0
    capsys.readouterr()
    assert main(["leaderboard", "submit", str(run_dir), "--dir", str(board), "--name", "random2"]) == 2
    assert "this run is on the board already as" in capsys.readouterr().err
    assert sorted(p.name for p in (board / "submissions").iterdir()) == ["test-lb-rows-v0__random__seed0.json"]
    assert main(["leaderboard", "submit", str(run_dir), "--dir", str(board), "--description", "again"]) == 0


@pytest.mark.parametrize(("where", "value"), [(("method", "seed"), 0.0), (("training_budget",), 0.0),
                                              (("training_budget",), 5000)])
def test_a_tampered_number_is_refused(tmp_path, run_dir, where, value) -> None:
    submission = build_submission(run_dir)
    target = submission
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = value
    path = tmp_path / "x.json"
    path.write_text(json.dumps(submission))
    reason = verify_file(path).reason
    expected = ("training_budget (5000) is not 0" if value == 5000 else
                f"schema violation at {'/'.join(where)}: a JSON number where integer is accepted")
    assert reason.startswith(expected)


def test_a_file_name_with_control_characters_is_one_verdict_line(tmp_path, run_dir, capsys) -> None:
    name = "x.json: ok\nOK       fine.json: success 0.900\x1b[2K.json"
    folder = _board(tmp_path, (name, {"not": "a submission"}))
    assert main(["leaderboard", "build", "--dir", str(folder.parent)]) == 1
    out = capsys.readouterr().out
    assert len(out.splitlines()) == 2 and "\x1b" not in out and out.startswith("REJECTED ")
    assert "\\nOK       fine.json" in out.splitlines()[0]


@pytest.mark.parametrize(("flag", "value", "said"), [
    ("--description", "a\nb", "--description holds the control character '\\n' at position 1"),
    ("--description", "x" * 3000, "--description is 3000 characters; at most 2000 are accepted"),
    ("--name", "../x", "--name must be 1 to 64 characters"),
])
def test_a_bad_name_or_description_names_the_flag(tmp_path, run_dir, capsys, flag, value, said) -> None:
    assert main(["leaderboard", "submit", str(run_dir), "--out", str(tmp_path / "s.json"), flag, value]) == 2
    assert f"searchgym leaderboard: error: {said}" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()


def test_empty_dir_and_a_damaged_record_are_one_line(tmp_path, run_dir, capsys) -> None:
    with pytest.raises(SystemExit) as exited:  # a usage error, as argparse gives one
        main(["leaderboard", "build", "--dir", ""])
    assert exited.value.code == 2
    assert "argument --dir: is empty; give the leaderboard folder" in capsys.readouterr().err
    board = tmp_path / "board"
    write_submission(build_submission(run_dir), folder=board / "submissions")
    (board / "retrained.json").write_text("{bad")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        verdicts, _, _ = build(board)
    assert all(v.ok for v in verdicts)
    (message,) = [str(w.message) for w in caught]
    assert message.count("retrained.json") == 1 and "re-run the same command" not in message
    assert message.endswith("the board is built with every row self-reported")


def test_submitting_the_same_run_again_keeps_the_file_and_its_retraining_record(tmp_path, run_dir, capsys) -> None:
    """Before: the file was written again with a new ``created`` time, a new SHA-256, and the board's
    re-training record (keyed by it) no longer applied."""
    board = tmp_path / "board"
    assert main(["leaderboard", "submit", str(run_dir), "--dir", str(board)]) == 0
    (path,) = (board / "submissions").iterdir()
    before = path.read_bytes()
    capsys.readouterr()
    assert main(["leaderboard", "submit", str(run_dir), "--dir", str(board)]) == 0
    assert capsys.readouterr().out.startswith(f"kept (it holds this submission already; a re-training record of it "
                                              f"still applies) {path}")
    assert path.read_bytes() == before
    assert main(["leaderboard", "submit", str(run_dir), "--dir", str(board), "--description", "new words"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {path}") and json.loads(path.read_text())["method"][
        "description"] == "new words"


def test_retrain_names_an_out_that_is_a_file(tmp_path, run_dir, capsys) -> None:
    path = write_submission(build_submission(run_dir), folder=tmp_path / "board" / "submissions")
    (tmp_path / "results.md").write_text("mine")
    assert main(["leaderboard", "retrain", str(path), "--out", str(tmp_path / "results.md")]) == 2
    assert capsys.readouterr().err.startswith(f"searchgym leaderboard: error: --out {tmp_path / 'results.md'} is a "
                                              "file, not a folder")
