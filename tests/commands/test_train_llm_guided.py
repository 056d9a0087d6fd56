"""``train --policy llm`` takes a ``guided`` option (guided decoding, on the ``kv`` backend) and warns at
its end when most of its test replies were no readable action.

Before: ``guided`` was an unknown option, so a model trained with guided SFT (the tiny-LM recipe's)
was played unguided: every reply failed to parse and the run reported test success 0 without a word."""

from __future__ import annotations

import json
import re

import pytest

import searchgym.harness.llm_method as llm_method
from searchgym.cli import main
from searchgym.harness.evaluate import evaluate_suite
from searchgym.harness.methods import RunContext
from searchgym.suites import Suite

pytest.importorskip("transformers")

BASE = ["train", "--policy", "llm", "--model", "random:tiny", "--env", "SearchQA-v0", "--budget", "1",
        "--world-size", "tiny", "--test-size", "2", "--no-progress"]
TINY = {"group_size": 1, "tasks_per_iteration": 1, "max_turns": 2, "eval_tasks": 0, "dev_size": 1}
GUIDED = {"guided": True, "generation_backend": "kv"}
WARNING = re.compile(r"WARNING: (\d+) of (\d+) test replies \((\d+)%\) were not a readable action; "
                     r"random:tiny starts from random weights")  # the advice for a trained model: test_llm_reply_count
SUITE = Suite("test-llm-guided-v0", 0, "SearchQA-v0", {"action_mode": "text", "max_steps": 2}, world_size="tiny",
              dev_size=1, test_size=2, description="tests: guided LLM replies")


def train(tmp_path, options):
    return main([*BASE, "--out", str(tmp_path / "run"), "--options", json.dumps({**TINY, **options})])


def test_an_unguided_run_whose_replies_do_not_parse_warns_once_at_its_end(tmp_path, capsys) -> None:
    assert train(tmp_path, {"max_new_tokens": 16}) == 0
    out, err = capsys.readouterr()
    warnings = [line for line in err.splitlines() if line.startswith("WARNING:")]
    assert len(warnings) == 1, err
    found = WARNING.search(warnings[0])
    assert found, warnings[0]
    unreadable, replies, percent = map(int, found.groups())
    assert replies > 0 and unreadable / replies > 0.5 and percent > 50
    assert "test success" in out  # the run still finishes and says its score


def test_a_guided_run_writes_only_readable_replies_and_does_not_warn(tmp_path, capsys) -> None:
    assert train(tmp_path, GUIDED) == 0
    assert "WARNING" not in capsys.readouterr().err
    config = json.loads((tmp_path / "run" / "config.json").read_text())["options"]["llm_config"]
    assert config["rollout"]["guided"] is True and config["generation_backend"] == "kv"


@pytest.mark.parametrize(("options", "share"), [(GUIDED, 1.0), ({"max_new_tokens": 16}, 0.0)])
def test_the_actor_counts_the_replies_that_parse(tmp_path, options, share) -> None:
    ctx = RunContext(suite=SUITE, seed=0, budget=1, device="cpu", run_dir=tmp_path, policy="llm",
                     options={"model": "random:tiny", **TINY, **options})
    actor = llm_method.harness_method(ctx)
    evaluate_suite(SUITE, actor, "test")
    assert actor.parse_share("test") == share
    assert (actor.warning() is None) == (share == 1.0)


@pytest.mark.parametrize(("options", "env", "said"), [
    ({"guided": "yes", "generation_backend": "kv"}, "SearchQA-v0", "guided must be true or false"),
    ({"guided": True}, "SearchQA-v0", "guided decoding runs on the 'kv' generation backend, not 'transformers'"),
    ({"guided": True, "generation_backend": "vllm"}, "SearchQA-v0", "runs on the 'kv' generation backend"),
    (GUIDED, "TeamSearch-v0", "TeamSearch-v0 is a multi-agent env: leave guided false there"),
])
def test_a_guided_setting_that_cannot_run_is_one_line_before_any_folder(tmp_path, capsys, options, env, said):
    args = [*BASE, "--out", str(tmp_path / "run"), "--options", json.dumps({**TINY, **options})]
    args[args.index("SearchQA-v0")] = env
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and said in err[0] and "Traceback" not in err[0], err
    assert not (tmp_path / "run").exists()


def test_a_python_caller_gets_the_backend_check() -> None:
    from searchgym.agents.llm_rollout import RolloutConfig
    from searchgym.agents.llm_train import LLMTrainConfig

    with pytest.raises(ValueError, match="the 'kv' generation backend, not 'transformers'"):
        LLMTrainConfig(rollout=RolloutConfig(guided=True))
    assert LLMTrainConfig(rollout=RolloutConfig(guided=True), generation_backend="kv").rollout.guided
