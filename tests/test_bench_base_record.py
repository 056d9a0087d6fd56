"""benchmarks/rl_from_base.py records the options its base was built from (``OUT/base.json``) and
reuses ``OUT/base.pt`` only for the same ones. Before: a base.pt in --out was reused whatever
--base-tasks, --epochs or --follow said, silently (no ``base:`` line), and compare reported the old
base's runs as already finished."""

from __future__ import annotations

import json

import pytest


FIRST = ["--base-tasks", "3", "--epochs", "1"]


def test_the_same_options_reuse_the_base_and_say_so(rl_from_base, tmp_path, capsys):
    out = tmp_path / "out"
    assert rl_from_base.main(["--out", str(out), *FIRST]) == 0
    assert capsys.readouterr().out.startswith("base: {'states': 1}")
    assert json.loads((out / "base.json").read_text()) == {"suite": "quick-v2", "base_tasks": 3, "follow": 0.7,
                                                          "epochs": 1}
    assert rl_from_base.main(["--out", str(out), *FIRST]) == 0
    assert capsys.readouterr().out == (f"base: reusing {out / 'base.pt'}, built with --suite quick-v2 "
                                       "--base-tasks 3 --follow 0.7 --epochs 1\n")
    assert rl_from_base.calls == ["base", "compare", "compare"]  # built once


@pytest.mark.parametrize("again, said", [
    (["--base-tasks", "50", "--epochs", "3", "--follow", "0.2"],
     "was built with --base-tasks 3 --follow 0.7 --epochs 1, not --base-tasks 50 --follow 0.2 --epochs 3; "
     "give another --out"),
    ([*FIRST, "--suite", "team-v2"], "was built with --suite quick-v2, not --suite team-v2; give another --out"),
])
def test_other_options_are_refused_naming_what_differs(rl_from_base, tmp_path, capsys, again, said):
    out = tmp_path / "out"
    rl_from_base.main(["--out", str(out), *FIRST])
    record = (out / "base.json").read_text()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        rl_from_base.main(["--out", str(out), *again])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"error: argument --out: {out / 'base.pt'} {said}" in err, err
    assert rl_from_base.calls == ["base", "compare"] and (out / "base.json").read_text() == record


@pytest.mark.parametrize("record", [None, "{cut"])
def test_a_base_without_a_readable_record_is_refused(rl_from_base, tmp_path, capsys, record):
    """A base.pt from an older version (no base.json), or a damaged record: its options cannot be checked."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "base.pt").write_bytes(b"old weights")
    if record is not None:
        (out / "base.json").write_text(record)
    with pytest.raises(SystemExit) as exit_:
        rl_from_base.main(["--out", str(out)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert (f"{out / 'base.pt'} has no readable record of the settings it was built with (base.json), so they "
            f"cannot be checked; give another --out, or delete {out / 'base.pt'} and {out / 'compare'}") in err
    assert rl_from_base.calls == [] and (out / "base.pt").read_bytes() == b"old weights"


def test_a_record_without_its_base_is_built_again(rl_from_base, tmp_path):
    out = tmp_path / "out"
    rl_from_base.main(["--out", str(out), *FIRST])
    (out / "base.pt").unlink()
    assert rl_from_base.main(["--out", str(out), "--base-tasks", "50"]) == 0
    assert rl_from_base.calls == ["base", "compare", "base", "compare"]
    assert json.loads((out / "base.json").read_text())["base_tasks"] == 50
