"""`searchgym export --format verl` names what is wrong with --out and with a YAML file in its way.
Before: --out /proc/nope was a bare "[Errno 2] No such file or directory: '/proc/nope'"; a dangling link
named tool_config.yaml, or this export's own tool_config.yaml with a comment added, was said to hold
"another tool config"."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from searchgym.cli import main

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("yaml")


def _export(out, split: str = "dev") -> int:
    return main(["export", "--format", "verl", "--suite", "searchqa-text-v2", "--split", split, "--out", str(out)])


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_an_out_that_cannot_be_made_is_one_line_naming_out(capsys):
    assert _export("/proc/nope") == 2
    assert capsys.readouterr().err == ("searchgym export: error: --out /proc/nope cannot be made a folder (No such "
                                       "file or directory); accepted: a folder that exists or that this user can "
                                       "create, on a writable disk (not under /proc or /sys)\n")


def test_a_failed_export_leaves_no_folder_behind(tmp_path, capsys):
    out = tmp_path / "a" / "b"
    assert main(["export", "--format", "verl", "--suite", "no-such-suite", "--out", str(out)]) == 2
    assert "unknown suite or env id 'no-such-suite'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["dev.parquet", "agent_loop.yaml"])
def test_a_folder_where_a_file_belongs_is_a_usage_error_naming_it(tmp_path, capsys, name):
    """Before: the OS's "Is a directory (<path>)" line, exit status 1 where usage errors have 2."""
    (tmp_path / name).mkdir()
    assert _export(tmp_path) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {tmp_path / name} is a folder where the export "
                                       "writes a file; move it away or export into another folder (--out)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [name] and not any((tmp_path / name).iterdir())


def test_a_link_in_the_way_is_refused_as_a_link(tmp_path, capsys):
    os.symlink(tmp_path / "missing.yaml", tmp_path / "tool_config.yaml")
    assert _export(tmp_path) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {tmp_path / 'tool_config.yaml'} is a symbolic link "
                                       f"(to {tmp_path / 'missing.yaml'}), which the export does not write through or "
                                       "replace; remove the link or export into another folder (--out)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tool_config.yaml"]  # no dev.parquet


@pytest.mark.parametrize("target", ["missing.parquet", "elsewhere.parquet", "a_folder"])
def test_a_link_named_as_the_split_is_refused_as_a_link(tmp_path, capsys, target):
    """Before: a dangling link named dev.parquet "already exists (an earlier export of the dev split?)",
    and one to a folder was "[Errno 21] Is a directory"."""
    (tmp_path / "elsewhere.parquet").write_bytes(b"theirs")
    (tmp_path / "a_folder").mkdir()
    out = tmp_path / "out"
    out.mkdir()
    os.symlink(tmp_path / target, out / "dev.parquet")
    assert _export(out) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {out / 'dev.parquet'} is a symbolic link (to "
                                       f"{tmp_path / target}), which the export does not write through or replace; "
                                       "remove the link or export into another folder (--out)\n")
    assert sorted(p.name for p in out.iterdir()) == ["dev.parquet"] and (out / "dev.parquet").is_symlink()
    assert (tmp_path / "elsewhere.parquet").read_bytes() == b"theirs" and not any((tmp_path / "a_folder").iterdir())


def test_this_exports_config_edited_is_said_to_differ_in_its_text_and_how_to_go_on(tmp_path, capsys):
    assert _export(tmp_path, "dev") == 0
    config = tmp_path / "tool_config.yaml"
    edited = config.read_text() + "# my note\n"
    config.write_text(edited)
    capsys.readouterr()
    assert _export(tmp_path, "train") == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {config} already exists and differs from what this "
                                       "export writes only in its text (the same tool config, with a comment or its "
                                       "layout edited?) and is kept; delete it (the export writes it again) or export "
                                       "into another folder (--out)\n")
    assert config.read_text() == edited and not (tmp_path / "train.parquet").exists()


def test_a_file_that_is_no_config_is_said_to_differ(tmp_path, capsys):
    (tmp_path / "agent_loop.yaml").write_text("x: [\n")
    assert _export(tmp_path) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {tmp_path / 'agent_loop.yaml'} already exists and "
                                       "differs from what this export writes (it holds no agent loop config: not "
                                       "YAML, or not a mapping or list) and is kept; delete it or export into "
                                       "another folder (--out)\n")


def test_a_fifo_in_the_way_is_refused_unread(tmp_path, capsys):
    os.mkfifo(tmp_path / "agent_loop.yaml")  # before: read_text() blocked on it for ever
    assert _export(tmp_path) == 2
    assert "agent_loop.yaml already exists and differs from what this export writes" in capsys.readouterr().err
