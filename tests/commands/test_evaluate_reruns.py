"""`searchgym evaluate` run again into a folder it already wrote, with other settings, and with seeds
no episode can be reset with."""

from __future__ import annotations

from harness_helpers import TINY_QA

from searchgym.cli import main


def test_a_limited_run_is_not_shown_as_the_full_one(tmp_path, capsys):
    """Before: a folder finished with ``--limit 3``, evaluated again without ``--limit``, printed
    "(test split, 3 tasks)" as the suite result (and ``--limit 2`` printed its 3 tasks): the limit
    was not part of the run's identity. Now either is "holds a different run", exit 2."""
    out = tmp_path / "lim"
    base = ["evaluate", "--suite", TINY_QA.id, "--agent", "oracle", "--out", str(out), "--no-progress"]
    assert main([*base, "--limit", "3"]) == 0
    capsys.readouterr()
    for extra, there_now in (([], "limit: 3 there, absent now"), (["--limit", "2"], "limit: 3 there, 2 now")):
        assert main([*base, *extra]) == 2
        captured = capsys.readouterr()
        assert "tasks)" not in captured.out
        assert f"holds a different run ({there_now}); use another --out or delete it" in captured.err
    assert main([*base, "--limit", "3"]) == 0  # the same command shows the finished run
    assert "(test split, the first 3 tasks)" in capsys.readouterr().out


def test_a_negative_seed_is_one_error_line_before_any_file(tmp_path, capsys, serve_must_refuse):
    """Before: ``play --seed -1`` and ``serve --seed -1`` ended in Gymnasium's traceback; ``evaluate``
    and ``demo`` printed "expected non-negative integer" (no option named), evaluate after writing
    its folder; ``export --seed -1`` wrote a dataset whose every rollout failed at reset."""
    commands = {
        "evaluate": ["evaluate", "--suite", TINY_QA.id, "--agent", "random", "--out", str(tmp_path / "ev")],
        "play": ["play", "SearchQA-v0", "--world-size", "tiny"],
        "demo": ["demo", "--world-size", "tiny", "--no-progress"],
        "export": ["export", "--format", "verl", "--suite", "searchqa-text-v2", "--out", str(tmp_path / "ex")],
        "serve": ["serve", "--suite", "searchqa-text-v2", "--port", "0", "--limit", "1"],
    }
    for name, args in commands.items():
        assert main([*args, "--seed", "-1"]) == 2, name
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"searchgym {name}: error: --seed must be an int >= 0 (a seed), got -1"], (name, err)
    assert not (tmp_path / "ev").exists() and not (tmp_path / "ex").exists()


def test_an_unknown_device_leaves_no_folder(tmp_path, capsys):
    """Before: ``--device tpu`` was refused only once the run had made its folder (an empty one with
    a lock file was left); now it is refused before, as an unknown agent or option is."""
    out = tmp_path / "dev"
    assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "random", "--device", "tpu", "--out", str(out)]) == 2
    assert "unknown device 'tpu'; accepted: auto, cpu, cuda or cuda:N" in capsys.readouterr().err
    assert not out.exists()


def test_a_finished_folder_without_a_readable_result_says_a_remedy_that_works(tmp_path, capsys):
    """Before: a DONE folder whose result.json was ``[]`` said "delete it and re-run the same command";
    doing so gave "[Errno 2] No such file or directory" (DONE still marked the run finished). Now
    either is one line saying to delete DONE, and following it evaluates the folder again."""
    out = tmp_path / "e1"
    command = ["evaluate", "--suite", TINY_QA.id, "--agent", "random", "--limit", "3", "--out", str(out),
               "--no-progress"]
    assert main(command) == 0
    predictions = (out / "predictions.jsonl").read_bytes()
    for damage, what in (("[]", "holds a list where an object belongs"), (None, "is missing from a finished run")):
        capsys.readouterr()
        if damage is None:
            (out / "result.json").unlink()
        else:
            (out / "result.json").write_text(damage)
        assert main(command) == 2
        [line] = capsys.readouterr().err.strip().splitlines()
        assert line == (f"searchgym evaluate: damaged file: {out / 'result.json'}: {what}; delete {out / 'DONE'} "
                        "and re-run the command that made the run (compare, train or evaluate) to evaluate it again")
        (out / "DONE").unlink()  # the remedy, followed
        assert main(command) == 0
        assert "| all | 3 |" in capsys.readouterr().out
        assert (out / "predictions.jsonl").read_bytes() == predictions


def test_a_folder_another_process_writes_is_one_line(tmp_path, capsys):
    """Before: evaluate went on to read a result.json the other process had not written: "[Errno 2]"."""
    from searchgym.folder_lock import FolderLock

    out = tmp_path / "busy"
    lock = FolderLock(out)
    assert lock.acquire()
    try:
        assert main(["evaluate", "--suite", TINY_QA.id, "--agent", "random", "--limit", "2", "--out", str(out),
                     "--no-progress"]) == 2
    finally:
        lock.release()
    [line] = capsys.readouterr().err.strip().splitlines()
    assert f"is writing {out}; wait for it to finish, then re-run the same command" in line, line
