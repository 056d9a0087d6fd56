"""`serve`, `export`, `play` and `suites` as a new user meets them: each mistake is one line, before
anything is recorded or written, and what a command was asked to do once it does once."""

from __future__ import annotations

import errno
import io
import socket
import sys

import pytest

from searchgym.cli import build_parser, main
from searchgym.commands import play as play_command

LOOKUP = "lookup-00009"  # a train task of the tiny world


@pytest.fixture
def endpoints(monkeypatch):
    """The keyword arguments of each ScriptedEndpoint `serve` builds; building one stops the server
    at once (as Ctrl-C does), so no test waits for a server that a refusal should have prevented."""
    built: list[dict] = []

    class Stopped:
        def __init__(self, suite, behaviour, **kwargs):
            built.append({"suite": suite, "behaviour": behaviour, **kwargs})

        def __enter__(self):
            raise KeyboardInterrupt

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr("searchgym.commands.serve.ScriptedEndpoint", Stopped)
    return built


def test_serve_refuses_a_taken_port_before_recording_anything(capsys, endpoints) -> None:
    """Before: "recording the oracle replies ..." came first, and the replies were recorded (seconds,
    more with --splits train) before the endpoint found the port in use."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--suite", "searchqa-text-v2", "--port", str(port), "--splits", "dev"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and endpoints == []
    assert captured.err == (f"searchgym serve: error: port {port} on 127.0.0.1 is in use (another server?); "
                            "choose another --port, or --port 0 for any free one\n")


def test_serve_says_a_privileged_port_is_a_port_problem(capsys, endpoints, monkeypatch) -> None:
    """Before: "Permission denied; check the permissions of that path or choose another --out", exit 1
    (serve has no --out), after recording the replies. Simulated: the tests may run as root."""

    class Refused(socket.socket):
        def bind(self, address):
            raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("searchgym.commands.serve.socket.socket", Refused, raising=False)
    assert main(["serve", "--suite", "searchqa-text-v2", "--port", "80", "--splits", "dev"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and endpoints == []
    assert captured.err.count("\n") == 1 and "port 80 on 127.0.0.1 may not be opened by this user" in captured.err
    assert "--port 0" in captured.err and "--out" not in captured.err


@pytest.mark.parametrize(("argv", "said"), [
    (["--behaviour", "stall", "--stall", "1e308"],
     "--stall must be a number of seconds in 0..86400 (how long each reply waits), got 1e+308"),
    (["--stall", "5"],  # before: ignored, and the oracle replied at once
     "--stall is for --behaviour stall (the oracle replies never wait); drop --stall or give --behaviour stall"),
])
def test_serve_refuses_a_stall_it_would_not_honour(argv, said, capsys, endpoints) -> None:
    """Before: --stall 1e308 served, and every reply was a 500 ("OverflowError") from time.sleep."""
    assert main(["serve", "--suite", "searchqa-text-v2", "--port", "0", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and endpoints == [] and captured.err == f"searchgym serve: error: {said}\n"


def test_serve_reads_splits_with_blanks_and_repeats_as_a_person_types_them(capsys, endpoints) -> None:
    """Before: "dev, test" was "unknown split(s) [' test']", and "dev,dev" recorded dev twice."""
    assert main(["serve", "--suite", "searchqa-text-v2", "--port", "0", "--splits", "dev, test,dev"]) == 0
    assert [e["splits"] for e in endpoints] == [("dev", "test")]
    assert main(["serve", "--suite", "searchqa-text-v2", "--port", "0", "--behaviour", "stall"]) == 0
    assert endpoints[-1]["stall"] == 2.0  # the default stall is still 2 s


def test_a_failed_export_writes_nothing(tmp_path, capsys) -> None:
    """Before: a folder named tool_config.yaml in --out failed the export after dev.parquet was written."""
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pytest.importorskip("yaml")
    out = tmp_path / "dataset"
    (out / "tool_config.yaml").mkdir(parents=True)
    assert main(["export", "--format", "verl", "--suite", "searchqa-text-v2", "--split", "dev",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{out / 'tool_config.yaml'} is a folder where the export writes a file" in err
    assert sorted(p.name for p in out.iterdir()) == ["tool_config.yaml"]  # no dev.parquet, no temporary file


def _play(argv: list[str], typed: str = ":q\n") -> str:
    args = build_parser("play").parse_args(["play", *argv])
    out = io.StringIO()
    play_command.run(args, stdin=io.StringIO(typed), stdout=out)
    return out.getvalue()


@pytest.mark.parametrize("task_id", ["", "nope"])
def test_play_refuses_a_task_id_the_world_lacks_and_shows_what_ids_look_like(task_id) -> None:
    """Before: --task-id '' played a drawn task as if none were given, and an unknown id was "no task
    with id 'nope' in this world", with no word of what one looks like."""
    with pytest.raises(ValueError) as refused:
        _play(["SearchQA-v0", "--world-size", "tiny", "--task-id", task_id])
    said = str(refused.value)
    assert said.startswith(f"--task-id {task_id!r} is no task of this world (world seed 0, size tiny); its task ids "
                           "are like lookup-")
    assert "bridge-" in said and said.endswith("leave --task-id out to draw one")
    assert "Episode" not in _play(["SearchQA-v0", "--world-size", "tiny", "--task-id", LOOKUP])


def test_play_with_stdin_closed_says_where_the_actions_come_from(capsys, monkeypatch) -> None:
    """Before: "searchgym play: error: 'NoneType' object is not iterable" (`searchgym play ID <&-`)."""
    monkeypatch.setattr(sys, "stdin", None)
    assert main(["play", "SearchQA-v0", "--world-size", "tiny"]) == 2
    assert capsys.readouterr().err == ("searchgym play: error: standard input is closed, and play reads your actions "
                                       "from it; run it in a terminal or pipe the actions in, one per line\n")


def test_suites_shows_a_suite_named_twice_once(capsys) -> None:
    assert main(["suites", "--json", "searchqa-text-v2", "searchqa-text-v2"]) == 0
    import json

    assert [row["id"] for row in json.loads(capsys.readouterr().out)] == ["searchqa-text-v2"]
