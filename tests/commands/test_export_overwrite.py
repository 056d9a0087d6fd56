"""`searchgym export` never writes over an earlier export: an existing `<split>.parquet` is one error
line naming it and what to do, and it is kept. `tool_config.yaml` is shared by the splits of one suite
(verl reads train and dev from one folder), so it is refused only when it holds another config.
Before: a second export replaced both files without a word."""

from __future__ import annotations

import pytest

from searchgym.cli import main

pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("yaml")

SUITE = "searchqa-text-v2"


def _export(out, split: str = "dev", suite: str = SUITE) -> int:
    return main(["export", "--format", "verl", "--suite", suite, "--split", split, "--out", str(out)])


def test_a_second_export_of_a_split_is_refused_and_the_first_kept(tmp_path, capsys) -> None:
    assert _export(tmp_path) == 0
    data, config = (tmp_path / "dev.parquet").read_bytes(), (tmp_path / "tool_config.yaml").read_bytes()
    capsys.readouterr()
    assert _export(tmp_path) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {tmp_path / 'dev.parquet'} already exists (an "
                                       "earlier export of the dev split?) and is kept; delete it or export into "
                                       "another folder (--out)\n")
    assert (tmp_path / "dev.parquet").read_bytes() == data and (tmp_path / "tool_config.yaml").read_bytes() == config
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent_loop.yaml", "dev.parquet", "tool_config.yaml"]  # no temporary file


def test_the_splits_of_one_suite_share_one_folder_and_its_tool_config(tmp_path) -> None:
    assert _export(tmp_path, "dev") == 0
    config = (tmp_path / "tool_config.yaml").read_bytes()
    assert _export(tmp_path, "test") == 0
    assert (tmp_path / "tool_config.yaml").read_bytes() == config
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent_loop.yaml", "dev.parquet", "test.parquet",
                                                           "tool_config.yaml"]


def test_a_tool_config_of_another_export_is_refused_before_anything_is_written(tmp_path, capsys) -> None:
    (tmp_path / "tool_config.yaml").write_text("tools: []\n")
    assert _export(tmp_path) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {tmp_path / 'tool_config.yaml'} already exists and "
                                       "holds another tool config than this export's (another suite's export?) and "
                                       "is kept; delete it or export into another folder (--out)\n")
    assert (tmp_path / "tool_config.yaml").read_text() == "tools: []\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tool_config.yaml"]  # no dev.parquet


def test_an_agent_loop_config_of_another_export_is_refused_before_anything_is_written(tmp_path, capsys) -> None:
    (tmp_path / "agent_loop.yaml").write_text("- name: mine\n")
    assert _export(tmp_path) == 2
    assert capsys.readouterr().err == (f"searchgym export: error: {tmp_path / 'agent_loop.yaml'} already exists and "
                                       "holds another agent loop config than this export's (another suite's export?) "
                                       "and is kept; delete it or export into another folder (--out)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent_loop.yaml"]  # no dev.parquet, no tool config
