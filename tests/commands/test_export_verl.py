"""`searchgym export --format verl`: verl's parquet columns and content, a tool config whose classes
import by dotted path, and no test answer anywhere in a test-split export."""

from __future__ import annotations

import importlib
import json

import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
yaml = pytest.importorskip("yaml")

import searchgym
from searchgym.cli import main

SUITE = "searchqa-text-v2"
COLUMNS = ["data_source", "prompt", "ability", "reward_model", "extra_info", "agent_name"]


def _export(tmp_path, split: str):
    out = tmp_path / split
    assert main(["export", "--format", "verl", "--suite", SUITE, "--split", split, "--out", str(out)]) == 0
    return pd.read_parquet(out / f"{split}.parquet"), yaml.safe_load((out / "tool_config.yaml").read_text())


def _strings(value) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list | tuple) or hasattr(value, "tolist"):
        return [s for v in list(value) for s in _strings(v)]
    return [str(value)]


def test_the_test_split_export_holds_the_tasks_and_never_their_answers(tmp_path) -> None:
    frame, _ = _export(tmp_path, "test")
    records = searchgym.tasks(SUITE, "test")
    assert list(frame.columns) == COLUMNS and len(frame) == len(records) == 200
    hidden = set()
    for row, record in zip(frame.to_dict("records"), records, strict=True):
        assert [dict(m) for m in row["prompt"]] == record.messages
        assert row["data_source"] == f"searchgym/{SUITE}" and row["agent_name"] == "searchgym_tool_agent"
        assert row["reward_model"] == {"style": "searchgym-env", "ground_truth": ""}
        info = row["extra_info"]
        assert info["task_id"] == record.task_id and info["question"] == record.question
        assert list(info["tool_selection"]) == [t["function"]["name"] for t in record.tools]
        locator = {"suite": SUITE, "split": "test", "task_id": record.task_id, "seed": 0}
        assert info["searchgym"] == locator
        assert all(kwargs["create_kwargs"] == locator for kwargs in info["tools_kwargs"].values())
        env = searchgym.make_task_env(SUITE, "test", record.task_id)
        env.reset(seed=0)
        answers = set(env.unwrapped.task.answers)
        hidden |= answers
        leaves = _strings({k: v for k, v in row.items() if k != "prompt"} | {"extra_info": {
            k: v for k, v in info.items() if k != "question"}})
        assert not answers & set(leaves), record.task_id
    assert hidden  # the check above compared real answers


def test_a_dev_export_gives_the_answers_as_ground_truth(tmp_path) -> None:
    frame, _ = _export(tmp_path, "dev")
    records = searchgym.tasks(SUITE, "dev")
    assert [json.loads(r["ground_truth"]) for r in frame["reward_model"]] == [r.answers for r in records]


def test_the_tool_config_names_importable_classes_with_every_tool_schema(tmp_path) -> None:
    _, config = _export(tmp_path, "test")
    names = [entry["tool_schema"]["function"]["name"] for entry in config["tools"]]
    assert names == [t["function"]["name"] for t in searchgym.tasks(SUITE, "test")[0].tools]
    for entry in config["tools"]:
        module, _, name = entry["class_name"].rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        tool = cls(config=entry["config"], tool_schema=entry["tool_schema"] if not _verl_schema() else
                   _verl_schema().model_validate(entry["tool_schema"]))
        assert tool.name == entry["tool_schema"]["function"]["name"] and entry["config"]["type"] == "native"


def _verl_schema():
    try:
        from verl.tools.schemas import OpenAIFunctionToolSchema
    except ImportError:
        return None
    return OpenAIFunctionToolSchema


def test_a_multi_agent_suite_or_unknown_format_is_refused(tmp_path, capsys) -> None:
    assert main(["export", "--format", "verl", "--suite", "team-text-v2", "--split", "dev",
                 "--out", str(tmp_path / "team")]) == 2
    assert "multi-agent" in capsys.readouterr().err
    assert main(["export", "--format", "verl", "--suite", "searchqa-v2", "--split", "dev",
                 "--out", str(tmp_path / "candidates")]) == 2
    assert "candidates-mode" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["export", "--format", "rllm", "--suite", SUITE, "--out", str(tmp_path / "x")])


def test_searchgym_and_the_export_import_no_framework(tmp_path) -> None:
    import subprocess
    import sys

    code = ("import json, sys, searchgym; from searchgym.cli import main; "
            f"code = main(['export', '--format', 'verl', '--suite', '{SUITE}', '--split', 'dev', "
            f"'--out', {str(tmp_path)!r}]); "
            "print(json.dumps([code, [m for m in ('verl', 'openenv', 'gem', 'rllm') if m in sys.modules]]))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == [0, []]
