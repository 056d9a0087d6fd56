"""benchmarks/rl_from_base.py checks a reused ``OUT/base.pt`` once, before the comparison starts, and reads
``OUT/base.json`` bounded and not through a link.

Before: base.pt went to ``torch.load(weights_only=True)`` alone, in every run of the comparison: a 1.5 MB
deflated archive took 1.9 GB before failing, a FIFO hung, a link to another file was followed, a folder
was an IsADirectoryError and a pickle with a payload was torch's paragraphs, naming no file. base.json was
read through a link, up to 256 MiB and any number of values (60 MB of empty lists: 12 s and 1.77 GB)."""

from __future__ import annotations

import io
import json
import os
import pickle
import zipfile

import pytest

torch = pytest.importorskip("torch")

FIRST = ["--base-tasks", "3", "--epochs", "1"]


def saved(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


class Payload:
    def __reduce__(self):
        return (len, ("never called",))


def deflated(data: bytes) -> bytes:
    """A torch.save archive with every record deflated (a small file that inflates to its tensors)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for record in source.infolist():
            target.writestr(record.filename, source.read(record.filename))
    return out.getvalue()


def make_link(path, base_bytes):
    elsewhere = path.parent.parent / "elsewhere.pt"
    elsewhere.write_bytes(base_bytes)
    path.symlink_to(elsewhere)


def make_oversized(path, rl_from_base):
    with open(path, "wb") as handle:
        handle.truncate(rl_from_base.MAX_BASE_BYTES + 1)  # sparse: nothing is written


@pytest.mark.parametrize("damage, said", [
    (lambda p, b, m: p.write_bytes(deflated(b)), "is compressed (deflate)"),
    (lambda p, b, m: os.mkfifo(p), "is a FIFO (named pipe), not a regular file"),
    (lambda p, b, m: p.write_bytes(pickle.dumps({"a": Payload()}, protocol=2)),
     "holds what torch.load(weights_only=True) refuses ("),
    (lambda p, b, m: make_link(p, b), "is a symbolic link"),
    (lambda p, b, m: p.mkdir(), "is a folder, not a regular file"),
    (lambda p, b, m: make_oversized(p, m), f"more than the {64 * 2**20} such a file may hold"),
    (lambda p, b, m: p.write_bytes(b[: len(b) // 2]), ""),
    (lambda p, b, m: p.write_bytes(saved({"x": torch.zeros(2)})), "is not a base of this script's hash policy"),
    (lambda p, b, m: p.write_bytes(saved({"weights": [1, 2]})), "is not a state dict (names to tensors)"),
], ids=["deflated", "fifo", "pickle", "link", "folder", "oversized", "cut", "other_layout", "not_tensors"])
def test_a_reused_base_that_is_no_base_stops_before_the_comparison_in_one_line(
        rl_from_base, tmp_path, capsys, base_bytes, damage, said):
    out = tmp_path / "out"
    assert rl_from_base.main(["--out", str(out), *FIRST]) == 0
    weights = out / "base.pt"
    weights.unlink()
    damage(weights, base_bytes, rl_from_base)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        rl_from_base.main(["--out", str(out), *FIRST])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    last = err.rstrip("\n").splitlines()[-1]  # argparse's usage, then the error on one line
    assert f": error: argument --out: {weights}: " in last, err
    assert said in last and last.endswith(f"give another --out, or delete {weights} and {out / 'compare'} to build "
                                          "it again"), err
    assert "re-run" not in err and "Traceback" not in err
    assert rl_from_base.calls == ["base", "compare"]  # no comparison started


def test_a_dangling_link_at_base_pt_is_refused_not_built_through(rl_from_base, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "base.pt").symlink_to(tmp_path / "nowhere.pt")
    with pytest.raises(SystemExit) as exit_:
        rl_from_base.main(["--out", str(out), *FIRST])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and f"{out / 'base.pt'}: " in err, err
    assert rl_from_base.calls == [] and not (tmp_path / "nowhere.pt").exists()


def test_a_base_the_script_builds_is_used_unchecked_and_a_sound_one_is_reused(rl_from_base, tmp_path, capsys,
                                                                                 monkeypatch):
    out = tmp_path / "out"
    checked = []
    real = rl_from_base.base_problem
    monkeypatch.setattr(rl_from_base, "base_problem", lambda *a: checked.append(a) or real(*a))
    assert rl_from_base.main(["--out", str(out), *FIRST]) == 0 and checked == []
    assert rl_from_base.main(["--out", str(out), *FIRST]) == 0 and len(checked) == 1
    assert rl_from_base.calls == ["base", "compare", "compare"]
    assert "reusing" in capsys.readouterr().out


def test_the_base_clone_oracle_saves_passes_the_check(tmp_path):
    import rl_from_base

    weights = tmp_path / "base.pt"
    rl_from_base.clone_oracle("quick-v2", 1, 0.7, 1, 0, weights)
    assert rl_from_base.base_problem(weights, tmp_path) is None


def padded(record: dict) -> str:
    """The record with 300,000 more values, under 4 MiB."""
    return json.dumps(record)[:-1] + ', "junk": [' + "[]," * 299_999 + "[]]}"


@pytest.mark.parametrize("replace", ["padded", "link"])
def test_a_base_record_padded_or_linked_is_not_read(rl_from_base, tmp_path, capsys, replace):
    out = tmp_path / "out"
    assert rl_from_base.main(["--out", str(out), *FIRST]) == 0
    record = out / "base.json"
    settings = json.loads(record.read_text())
    record.unlink()
    if replace == "padded":
        record.write_text(padded(settings))
    else:
        elsewhere = tmp_path / "elsewhere.json"
        elsewhere.write_text(json.dumps(settings))
        record.symlink_to(elsewhere)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        rl_from_base.main(["--out", str(out), *FIRST])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert f"{out / 'base.pt'} has no readable record of the settings it was built with (base.json)" in err
    assert rl_from_base.calls == ["base", "compare"]
