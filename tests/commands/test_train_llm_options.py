"""``train --policy llm``: a bad option is one line naming it, before any run folder; a run folder
another process is writing is one line saying so.

Before: a string or a float where a count belongs ("'float' object cannot be interpreted as an
integer"), lr=-1 (torch's "Invalid learning rate"), temperature=-1 or dtype="int8" failed after the
run folder was made; mini_batch_size=-1 took no optimiser step and reported a result;
max_new_tokens=10**9, "yes" for a switch and a misspelt family ran (or failed mid-run); a folder in
use ended in "[Errno 2] No such file or directory: '.../result.json'"; ``--logger`` was dropped."""

from __future__ import annotations

import argparse
import json

import pytest

from searchgym.cli import main
from searchgym.folder_lock import FolderLock

pytest.importorskip("transformers")

BASE = ["train", "--policy", "llm", "--model", "random:tiny", "--env", "SearchQA-v0", "--budget", "1",
        "--world-size", "tiny", "--test-size", "1", "--no-progress"]
TINY = '"group_size": 1, "tasks_per_iteration": 1, "max_new_tokens": 4, "max_turns": 1, "eval_tasks": 1, "dev_size": 1'


@pytest.mark.parametrize(("option", "said"), [
    ('"group_size": "abc"', "group_size must be an integer >= 1; got 'abc'"),
    ('"update_epochs": 1.5', "update_epochs must be an integer >= 1; got 1.5"),
    ('"micro_batch_size": true', "micro_batch_size must be an integer >= 1; got True"),
    ('"mini_batch_size": -1', "mini_batch_size must be an integer >= 1; got -1"),
    ('"max_new_tokens": 1000000000', "max_new_tokens must be an integer in [1, 1048576]; got 1000000000"),
    ('"max_turns": "x"', "max_turns must be an integer in [1, 1048576]; got 'x'"),
    ('"lr": -1', "lr must be a number > 0"),
    ('"temperature": -1', "temperature must be a finite number >= 0"),
    ('"top_p": 0', "top_p must be a number in (0, 1]"),
    ('"vllm_gpu_memory": 5', "vllm_gpu_memory must be a number in (0, 1]"),
    ('"dtype": "int8"', "unknown dtype 'int8'; accepted: auto, float32, bfloat16, float16"),
    ('"gradient_checkpointing": "yes"', "gradient_checkpointing must be true or false; got 'yes'"),
    ('"eps_high": "x"', "eps_high must be a number; got 'x'"),
    ('"env_kwargs": "notjson"', "env_kwargs must be a JSON object of env settings"),
    ('"families": ["nope"]', "families: unknown task family 'nope'; accepted: lookup"),
    ('"difficulty": "x"', "difficulty must be 'easy', 'hard' or null (both); got 'x'"),
    ('"world_size": "huge"', "unknown world size 'huge'"),
    ('"no_progress": "x"', "no_progress must be true or false; got 'x'"),
])
def test_a_bad_option_is_one_line_before_any_run_folder(tmp_path, capsys, option, said):
    out = tmp_path / "run"
    options = {**json.loads(f"{{{TINY}}}"), **json.loads(f"{{{option}}}")}
    code = main([*BASE, "--out", str(out), "--options", json.dumps(options)])
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and said in line and not out.exists(), line


def test_a_run_folder_in_use_is_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    lock = FolderLock(out)
    assert lock.acquire(False)
    try:
        code = main([*BASE, "--out", str(out), "--options", f"{{{TINY}}}"])
    finally:
        lock.release()
    [line] = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "another live process" in line and "use another --out" in line, line


def test_the_logger_reaches_the_run(tmp_path):
    from searchgym.commands.train_llm import llm_run_spec

    args = argparse.Namespace(model="random:tiny", env="SearchQA-v0", budget=1, out=str(tmp_path), world_size="tiny",
                              test_size=1, logger="tensorboard", options=f"{{{TINY}}}")
    assert llm_run_spec(args).logger == "tensorboard"
