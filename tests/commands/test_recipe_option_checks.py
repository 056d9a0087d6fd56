"""`searchgym recipe tiny-lm` options as a new user meets them: the `rollout` sub-options, repeated
seeds or methods, an --out under a file, and --help listing every option with its default.

Before: {"rollout": {"bogus": 1}} was a bare TypeError, "tools_in_template": "no" ran as true,
"observation_role": "x" ran, rollout.max_new_tokens went past max_new_tokens's bound, rollout.guided
false evaluated without guided decoding while RESULTS.md said "guided decoding"; seeds [0, 0] ran
once and counted twice in the table and the interval; --out a_file/sub warned of
a_file/sub/stage_seconds.json before its error; --help listed none of the --options keys.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

pytest.importorskip("torch")

from searchgym.agents.llm_rollout import RolloutConfig
from searchgym.agents.tiny_lm_recipe import RecipeConfig

from searchgym.cli import main
from searchgym.commands.recipe import SMOKE

ROLLOUT_KEYS = "max_turns, max_episode_tokens, min_turn_tokens, system_prompt, tools_in_template, observation_role"


@pytest.mark.parametrize("options, message", [
    ('{"rollout": {"bogus": 1}}', f"unknown RecipeConfig.rollout key 'bogus'; accepted: {ROLLOUT_KEYS}"),
    ('{"rollout": {"system_prompt": 5}}', "RecipeConfig.rollout.system_prompt must be text; got 5"),
    ('{"rollout": {"tools_in_template": "no"}}', ("RecipeConfig.rollout.tools_in_template must be true or false; "
                                                  "got 'no'")),
    ('{"rollout": {"observation_role": "x"}}', ("RecipeConfig.rollout.observation_role must be one of 'tool', "
                                                "'user' (the chat role of a tool result); got 'x'")),
    ('{"rollout": {"max_new_tokens": 100000}}', ("RecipeConfig.rollout.max_new_tokens is set by the recipe's own "
                                                 f"'max_new_tokens' option; set that instead (rollout accepts: "
                                                 f"{ROLLOUT_KEYS})")),
    ('{"rollout": {"guided": false}}', "RecipeConfig.rollout.guided is set by the recipe's own 'guided' option"),
    ('{"rollout": {"max_turns": -1}}', "RecipeConfig.rollout.max_turns must be an integer in [1, 1048576]; got -1"),
    ('{"seeds": [0, 1, 0]}', "RecipeConfig.seeds names 0 more than once; accepted: each seed once"),
    ('{"methods": ["grpo", "cw_grpo", "grpo"]}', ("RecipeConfig.methods names grpo more than once; accepted: each "
                                                  "method once")),
])
def test_a_bad_option_is_one_line_before_any_folder(tmp_path, capsys, monkeypatch, options, message):
    def started(self):  # an option taken would run the whole recipe (minutes): fail at once instead
        pytest.fail(f"the recipe started with --options {options}")

    monkeypatch.setattr("searchgym.agents.tiny_lm_recipe.Recipe.run", started)
    out = tmp_path / "tiny"
    assert main(["recipe", "tiny-lm", "--out", str(out), "--options", options]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"searchgym recipe: error: {message}") and err.count("\n") == 1, err
    assert not out.exists()


def test_the_rollout_settings_a_user_may_give_still_reach_the_rollouts():
    config = RecipeConfig(rollout={"max_turns": 3, "observation_role": "user", "tools_in_template": False,
                                   "system_prompt": "Answer."}, max_new_tokens=48, guided=False)
    rollout = config.rollout_config()
    assert (rollout.max_turns, rollout.observation_role, rollout.tools_in_template, rollout.system_prompt) == \
        (3, "user", False, "Answer.")
    assert rollout.max_new_tokens == 48 and rollout.guided is False and config.rollout_config(True).guided is True


def test_an_out_under_a_file_is_only_the_folder_error(tmp_path, capsys):
    taken = tmp_path / "a_file"
    taken.write_text("mine\n")
    assert main(["recipe", "tiny-lm", "--smoke", "--out", str(taken / "sub")]) == 2
    assert capsys.readouterr().err.strip() == (f"searchgym recipe: error: {taken} is a file, so --out {taken / 'sub'} "
                                               "cannot be a folder; choose another --out")


def test_help_lists_every_option_with_its_default_and_what_smoke_sets(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "400")  # no line wrapping inside a value
    with pytest.raises(SystemExit):
        main(["recipe", "tiny-lm", "--help"])
    text = capsys.readouterr().out
    listed = dict(line.strip().split(" = ", 1) for line in text.split("--options keys", 1)[1].splitlines()[1:]
                  if " = " in line)
    for field in dataclasses.fields(RecipeConfig):
        if field.name != "rollout":
            default = field.default
            assert json.loads(listed[field.name]) == (list(default) if isinstance(default, tuple) else default)
    for field in dataclasses.fields(RolloutConfig):
        if field.name in ("guided", "max_new_tokens"):  # the recipe's own options
            continue
        assert field.name in listed and (field.name == "system_prompt" or json.loads(listed[field.name]) == field.default)
    flat = " ".join(text.split())
    for key, value in SMOKE.items():
        assert f"{key}={json.dumps(list(value) if isinstance(value, tuple) else value)}" in flat
