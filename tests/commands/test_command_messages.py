"""Words a new user meets: play's --role names the env id; --reference's help gives its real rule;
``train --policy llm`` names its model (random:tiny without --model) in its help and plan line."""

from __future__ import annotations

import pytest

from searchgym.cli import build_parser, main
from searchgym.commands import train_llm


def test_an_unknown_role_names_the_env_id_and_the_roles(capsys):
    assert main(["play", "TeamSearch-v0", "--role", "nope", "--world-size", "tiny"]) == 2
    err = capsys.readouterr().err.strip()
    # before: "unknown role 'nope' for TeamSearchEnv" (the class)
    assert err == ("searchgym play: error: unknown role 'nope' for TeamSearch-v0; --role accepts lead, searcher, "
                   "analyst (default: the first)")


def _help(command: str, monkeypatch) -> str:
    monkeypatch.setenv("COLUMNS", "400")
    parser = build_parser(command)
    return " ".join(next(a for a in parser._actions if a.dest == "command").choices[command].format_help().split())


@pytest.mark.parametrize("command", ["compare", "report"])
def test_reference_help_says_what_takes_cw_grpo_s_place(command, monkeypatch):
    text = _help(command, monkeypatch)
    assert ("(default: cw_grpo; where it has no finished run, the first method listed that trains, else the first "
            "that is not privileged)") in text


def test_train_help_and_plan_name_the_llm_model(monkeypatch, tmp_path, capsys):
    pytest.importorskip("transformers")  # the llm extra
    assert "default for --policy llm: random:tiny" in _help("train", monkeypatch)
    monkeypatch.setattr(train_llm, "train_from_args", lambda args, spec=None: 0)  # the plan, not the training
    out = tmp_path / "run"
    assert main(["train", "--policy", "llm", "--method", "grpo", "--env", "SearchQA-v0", "--budget", "10",
                 "--device", "cpu", "--no-progress", "--out", str(out),
                 "--options", '{"world_size": "tiny", "test_size": 2, "dev_size": 2}']) == 0
    assert ", policy llm (model random:tiny), device cpu;" in capsys.readouterr().out
