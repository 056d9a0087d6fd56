"""An interrupted learner run resumes under any spelling the harness takes as the same run:
``policy_kwargs`` at the policy's own defaults, or ``sft_tasks`` above the train split, given on one
command and not the other, in either order, with config.json there or lost.

Before: the harness's identity check let the re-run in, and the trainer's checkpoint check, which
compared these settings as given, refused it ("was written by another run (sft.sft_tasks: 5000 there,
1000 now)"), so the run could never resume. Settings that build another run are still refused.
"""

from __future__ import annotations

import shutil
import warnings
from dataclasses import asdict
from pathlib import Path

import pytest
from harness_helpers import TINY_QA

from searchgym.damaged import OtherRunsFile
from searchgym.harness.methods import METHODS, MethodRef
from searchgym.harness.runner import DifferentRun, RunSpec, execute_run, is_done
from searchgym.suites import tasks

pytestmark = pytest.mark.timeout(300)
OPTIONS = {"group_size": 2, "tasks_per_iteration": 2, "eval_every": 2, "eval_tasks": 1,
           "init": "sft", "sft_epochs": 1}
ABOVE_SPLIT = {"sft_tasks": 5000}
AT_DEFAULTS = {"policy_kwargs": {"comparison_facts": False}}


def _grpo(out: Path, **options) -> RunSpec:
    return RunSpec(TINY_QA, MethodRef("grpo", METHODS["grpo"]), 0, 40, out, "cpu",
                   options={**OPTIONS, **options}, folder=out)


def _interrupted(root: Path, options: dict) -> Path:
    """A grpo run folder (init=sft) given ``options``, as a kill leaves it: a checkpoint and rows, no DONE."""
    folder = root / "run"
    assert execute_run(_grpo(folder, **options)).status == "done"
    for name in ("DONE", "result.json", "predictions.jsonl"):
        (folder / name).unlink()
    return folder


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory) -> dict[str, Path]:
    return {name: _interrupted(tmp_path_factory.mktemp(name), options)
            for name, options in (("plain", {}), ("above_split", ABOVE_SPLIT), ("at_defaults", AT_DEFAULTS))}


def test_the_premise_the_policy_default_and_the_split():
    from searchgym.agents.settings_as_built import policy_defaults

    assert policy_defaults("hash")["comparison_facts"] is False
    assert len(tasks(TINY_QA, "train")) < ABOVE_SPLIT["sft_tasks"]


@pytest.mark.parametrize("config_json", ["kept", "lost"])
@pytest.mark.parametrize(("made_with", "resumed_with"), [("above_split", {}), ("plain", ABOVE_SPLIT),
                                                         ("at_defaults", {}), ("plain", AT_DEFAULTS)])
def test_the_other_spelling_of_one_run_resumes_its_checkpoint(interrupted, tmp_path, made_with, resumed_with,
                                                              config_json):
    folder = tmp_path / "run"
    shutil.copytree(interrupted[made_with], folder)
    if config_json == "lost":  # the trainer's own check is then all that tells runs apart
        (folder / "config.json").unlink()
    rows = (folder / "metrics.jsonl").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checkpoint taken as damaged would be warned about and trained again
        assert execute_run(_grpo(folder, **resumed_with)).status == "done"  # before: OtherRunsFile
    assert is_done(folder)
    assert (folder / "metrics.jsonl").read_bytes() == rows  # every iteration came from the checkpoint


@pytest.mark.parametrize("other", [{"sft_tasks": 5}, {"policy_kwargs": {"comparison_facts": True}}])
def test_settings_that_build_another_run_are_still_refused(interrupted, tmp_path, other):
    folder = tmp_path / "run"
    shutil.copytree(interrupted["above_split"], folder)
    with pytest.raises(DifferentRun):
        execute_run(_grpo(folder, **other))
    (folder / "config.json").unlink()
    with pytest.raises(OtherRunsFile, match="was written by another run"):
        execute_run(_grpo(folder, **other))


def _config(policy_kwargs: dict | None = None, **sft) -> dict:
    """A grpo run's TrainConfig on TINY_QA's env, as a dict (what a checkpoint records)."""
    from searchgym.agents.imitation import SFTConfig
    from searchgym.agents.train import TrainConfig

    env_kwargs = {**TINY_QA.kwargs, "world_seed": TINY_QA.world_seed, "world_size": TINY_QA.world_size,
                  "families": None, "difficulty": TINY_QA.difficulty}
    return asdict(TrainConfig(env_id=TINY_QA.env_id, env_kwargs=env_kwargs, policy_kwargs=policy_kwargs or {},
                              init="sft", sft=SFTConfig(**sft)))


def test_other_run_reads_the_settings_as_built_and_shows_them_as_given():
    from searchgym.agents.trainer_base import other_run

    n_train = len(tasks(TINY_QA, "train"))
    assert other_run(_config(sft_tasks=5000), _config(), fields=None) == []
    assert other_run(_config(sft_tasks=n_train), _config(sft_tasks=n_train + 1), fields=None) == []
    assert other_run(_config(sft_dagger_tasks=7), _config(), fields=None) == []  # unread without rounds
    assert other_run(_config({"hidden": 128}), _config(), fields=None) == []
    assert other_run(_config(), _config({"comparison_facts": False})) == []  # the default RUN_IDENTITY fields
    assert other_run(_config(sft_tasks=5000), _config(sft_tasks=n_train - 1), fields=None) == \
        [f"sft.sft_tasks: 5000 there, {n_train - 1} now"]
    assert other_run(_config(sft_tasks=5000, sft_dagger_rounds=1), _config(sft_dagger_rounds=1), fields=None) == \
        ["sft.sft_tasks: 5000 there, 1000 now"]  # the rounds' tasks start after the first sft_tasks
    assert other_run(_config({"hidden": 128}), _config({"hidden": 64}), fields=None) == \
        ["policy_kwargs.hidden: 128 there, 64 now"]
    assert other_run(_config({"hidden": 128.0}), _config(), fields=None) == \
        ["policy_kwargs.hidden: 128.0 there, None now"]  # another type is not the default
