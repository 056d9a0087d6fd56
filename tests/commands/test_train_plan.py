"""The plan `searchgym train` prints says what the method trains."""

from __future__ import annotations

import pytest

from searchgym.cli import main

BASE = ["train", "--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "700", "--test-size", "2",
        "--no-progress"]


@pytest.mark.parametrize("method, said", [
    ("cw_grpo", "700 training env steps"),
    ("sft", "a supervised base fitted to demonstrations (the reader's by default; --budget is not spent)"),
    ("random", "no training (a baseline)"),
    ("reader", "no training (a baseline)"),
])
def test_the_plan_says_what_each_method_trains(tmp_path, capsys, monkeypatch, method, said) -> None:
    """Before: "700 training env steps" for sft and the baselines too, which spend no env-step budget."""
    from searchgym.commands import train

    monkeypatch.setattr(train, "execute_run", lambda spec: (_ for _ in ()).throw(KeyboardInterrupt))
    main([*BASE, "--method", method, "--out", str(tmp_path / method)])  # stops after the plan
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"searchgym train: {method} on SearchQA-Candidates-v0") and said in first
    assert ("training env steps" in first) == (method == "cw_grpo")


def test_the_llm_plan_says_the_env_is_played_in_text_mode(tmp_path, capsys, monkeypatch) -> None:
    """The plan says the LLM writes its tool calls (a candidate env id is refused: test_train_llm_text_env)."""
    pytest.importorskip("transformers")
    from searchgym.commands import train_llm

    monkeypatch.setattr(train_llm, "train_from_args", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt))
    main([*BASE, "--env", "SearchQA-v0", "--policy", "llm", "--out", str(tmp_path / "llm")])  # stops after the plan
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("searchgym train: cw_grpo on SearchQA-v0 in text mode (the model writes its "
                            "tool calls)") and "policy llm" in first
