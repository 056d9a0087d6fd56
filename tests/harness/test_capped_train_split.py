"""A suite's ``train_size`` bounds what every harness-run trainer trains on, and the trainer's checkpoint
check counts the split the harness counts; a suite without it (every built-in one) is unchanged.

Before: the supervised base demonstrated the capped split, but the RL trainers (the shared Trainer,
MAPPO, COMA, info_gain, the LLM trainer) drew from their env's whole train split, and the checkpoint
check counted that split, so ``sft_tasks`` between the two sizes was taken by the harness as the run
without it and refused by the trainer at resume ("sft.sft_tasks: 20 there, 1000 now")."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import pytest

import searchgym
from searchgym.agents.imitation import demonstration_order
from searchgym.agents.rl_tasks import rl_train_tasks
from searchgym.agents.train_split import FIELD
from searchgym.harness.method_specs import build_config
from searchgym.harness.methods import METHODS, MethodRef, RunContext, load_callable
from searchgym.harness.runner import RunSpec, execute_run, is_done
from searchgym.method_table import METHOD_SPECS
from searchgym.suites import Suite, capped_train_ids, get_suite, list_suites, register_suite, tasks

pytestmark = pytest.mark.timeout(300)
CAPPED = register_suite(Suite("test-capped-train-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6},
                              world_size="tiny", train_size=4, dev_size=2, test_size=2,
                              description="tests: a train split capped at 4 tasks"))
CAPPED_TEAM = register_suite(Suite("test-capped-train-team-v0", 0, "TeamSearch-Candidates-v0", {"max_rounds": 3},
                                   world_size="tiny", train_size=4, dev_size=2, test_size=2,
                                   description="tests: a team suite whose train split is capped at 4 tasks"))
CAPPED_TEXT = register_suite(Suite("test-capped-train-text-v0", 0, "SearchQA-v0", {"max_steps": 2},
                                   world_size="tiny", train_size=4, dev_size=1, test_size=1,
                                   description="tests: a text suite whose train split is capped at 4 tasks"))
SMALL = {"group_size": 2, "tasks_per_iteration": 2, "eval_every": 100, "eval_tasks": 1}


def _ids(suite: Suite) -> list[str]:
    return [task.id for task in tasks(suite, "train")]


def _config(suite: Suite, method: str, tmp_path: Path, **options):
    spec = METHOD_SPECS[method]
    ctx = RunContext(suite, 0, 40, "cpu", tmp_path, options={**SMALL, **options})
    return build_config(spec, ctx, load_callable(spec.trainer, method))


def test_the_premise_the_cap_is_below_the_worlds_train_split():
    whole = CAPPED.world().tasks_in("train", None, None)
    assert len(_ids(CAPPED)) == 4 < 20 < len(whole)


@pytest.mark.parametrize(("suite", "method"), [(CAPPED, "grpo"), (CAPPED, "info_gain"), (CAPPED_TEAM, "mappo"),
                                               (CAPPED_TEAM, "coma")])
def test_every_trainer_draws_and_plays_only_the_capped_split(tmp_path, suite, method):
    config = _config(suite, method, tmp_path)
    trainer = load_callable(METHOD_SPECS[method].trainer, method)(config, log=lambda row: None)
    assert trainer.train_tasks == _ids(suite)  # before: every train task of the world
    assert config.train_task_ids == _ids(suite)
    played, collect = [], trainer.collect
    trainer.collect = lambda task_ids, *args, **kwargs: (played.extend(task_ids), collect(task_ids, *args, **kwargs))[1]
    for _ in range(3):
        trainer.iterate()
    assert len(played) == 6 and set(played) <= set(_ids(suite))


def test_fresh_rl_tasks_leave_out_what_the_base_demonstrated_of_the_capped_split(tmp_path, monkeypatch):
    from searchgym.agents import train

    monkeypatch.setattr(train, "load_base_into", lambda *args: None)  # which tasks, not the base's weights
    config = _config(CAPPED, "grpo", tmp_path, init="sft", sft_tasks=2, rl_fresh_tasks=True)
    shown = {_ids(CAPPED)[i] for i in demonstration_order(4, config.seed)[:2]}  # as harness.sft demonstrates
    fresh = [task for task in _ids(CAPPED) if task not in shown]
    assert train.Trainer(config, log=lambda row: None).train_tasks == fresh
    env = searchgym.make(config.env_id, **config.env_kwargs)  # compare's check before any base is built
    assert rl_train_tasks(env.unwrapped.tasks, config) == fresh


def test_the_llm_trainer_draws_only_the_capped_split():
    pytest.importorskip("transformers")
    from searchgym.agents.llm_train import LLMTrainer
    from searchgym.harness.llm_method import suite_config

    config = suite_config(CAPPED_TEXT, {"model": "random:tiny", "group_size": 1, "tasks_per_iteration": 1})
    config.device = "cpu"
    trainer = LLMTrainer(config)
    assert trainer.train_tasks == _ids(CAPPED_TEXT)
    assert config.train_task_ids == _ids(CAPPED_TEXT) == trainer.state_dict()["config"][FIELD]


def test_an_llm_run_on_a_suite_without_train_size_records_what_it_always_recorded():
    """``train --policy llm`` records its LLM config in config.json's options, and the trainer in its
    checkpoint: neither holds the field while it names no split."""
    pytest.importorskip("transformers")
    from types import SimpleNamespace

    from searchgym.agents.llm_train import LLMTrainConfig
    from searchgym.commands.train_llm import llm_run_spec

    recorded = llm_run_spec(SimpleNamespace(model="random:tiny", env="SearchQA-v0", options={})).options["llm_config"]
    assert set(recorded) == set(LLMTrainConfig.__dataclass_fields__) - {FIELD}


def _grpo(folder: Path, **options) -> RunSpec:
    return RunSpec(CAPPED, MethodRef("grpo", METHODS["grpo"]), 0, 40, folder, "cpu",
                   options={**SMALL, "eval_every": 2, "init": "sft", "sft_epochs": 1, **options}, folder=folder)


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory) -> Path:
    """A grpo run (init=sft, sft_tasks=20: the capped split whole) as a kill leaves it."""
    folder = tmp_path_factory.mktemp("capped") / "run"
    assert execute_run(_grpo(folder, sft_tasks=20)).status == "done"
    for name in ("DONE", "result.json", "predictions.jsonl"):
        (folder / name).unlink()
    return folder


@pytest.mark.parametrize("config_json", ["kept", "lost"])
def test_sft_tasks_above_the_capped_split_resumes_as_the_harness_takes_it(interrupted, tmp_path, config_json):
    folder = tmp_path / "run"
    shutil.copytree(interrupted, folder)
    if config_json == "lost":  # the trainer's own check is then all that tells runs apart
        (folder / "config.json").unlink()
    rows = (folder / "metrics.jsonl").read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checkpoint taken as damaged would be warned about and trained again
        assert execute_run(_grpo(folder)).status == "done"  # before: OtherRunsFile (sft.sft_tasks: 20 there, 1000 now)
    assert is_done(folder)
    assert (folder / "metrics.jsonl").read_bytes() == rows  # every iteration came from the checkpoint


def test_a_suite_without_train_size_names_no_split_and_trains_on_its_whole_split(tmp_path):
    assert [s.id for s in list_suites() if s.train_size is None and capped_train_ids(s) is not None] == []
    suite = get_suite("searchqa-easy-v2")
    config = _config(suite, "grpo", tmp_path)
    assert config.train_task_ids is None
    trainer = load_callable(METHOD_SPECS["grpo"].trainer, "grpo")(config, log=lambda row: None)
    assert trainer.train_tasks == _ids(suite)  # the env's split, in its order, as before
    assert FIELD not in trainer.state_dict()["config"]  # its checkpoint records what it always recorded
