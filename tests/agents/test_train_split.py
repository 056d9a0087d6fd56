"""A trainer draws its train tasks from the split its config names (``train_task_ids``: a suite's
capped split, which the harness sets), counts that split in its checkpoint check, and records the
field only when it names one. Before, every trainer drew from its env's whole train split."""

from __future__ import annotations

import dataclasses

import pytest

from searchgym.agents.train import TrainConfig, Trainer
from searchgym.agents.train_split import FIELD, config_record
from searchgym.agents.trainer_base import other_run

from agents_helpers import tiny_train_config as small_config


def _split() -> list[str]:
    return Trainer(small_config()).train_tasks


def test_a_named_split_is_all_rl_draws_and_plays():
    named = _split()[5:9]
    trainer = Trainer(small_config(train_task_ids=named))
    assert trainer.train_tasks == named
    played, collect = [], trainer.collect
    trainer.collect = lambda task_ids, seed: (played.extend(task_ids), collect(task_ids, seed))[1]
    for _ in range(4):
        trainer.iterate()
    assert len(played) == 8 and set(played) <= set(named)


def test_rl_tasks_draws_within_the_named_split():
    named = _split()[:6]
    assert set(Trainer(small_config(train_task_ids=named, rl_tasks=3)).train_tasks) < set(named)


def test_ids_outside_the_envs_train_split_or_of_another_type_are_refused_in_one_line():
    with pytest.raises(ValueError, match=r"^train_task_ids names 1 task\(s\) that are not in the train split of "
                                         r"SearchQA-Candidates-Easy-v0 with its env_kwargs \(first: 'nope'\)"):
        Trainer(small_config(train_task_ids=[_split()[0], "nope"]))
    for bad in ([], "t1", [1, 2], {"a": 1}):
        with pytest.raises(ValueError, match=r"^train_task_ids must be None \(the env's whole train split\) or a "
                                             "non-empty list of train task ids; got"):
            small_config(train_task_ids=bad)


def test_the_record_holds_the_field_only_when_it_names_a_split():
    fields = {f.name for f in dataclasses.fields(TrainConfig)}
    plain = Trainer(small_config()).state_dict()["config"]
    assert set(plain) == fields - {FIELD}  # a run without it records what it always recorded
    named = _split()[:4]
    assert Trainer(small_config(train_task_ids=named)).state_dict()["config"][FIELD] == named
    assert config_record(small_config()) == plain


def test_the_checkpoint_check_counts_the_named_split():
    """sft_tasks=20 on a split of 4 demonstrates the whole split, as the default's 1000 does: the same
    run, as the harness counts it. On the env's whole split (over 20 tasks) they are other runs."""
    named = _split()[:4]
    assert len(_split()) > 20

    def record(**sft) -> dict:
        return dataclasses.asdict(small_config(init="sft", sft={**dataclasses.asdict(TrainConfig().sft), **sft},
                                               **{FIELD: named}))

    assert other_run(record(sft_tasks=20), record(), fields=None) == []
    assert other_run(record(sft_tasks=3), record(), fields=None) == ["sft.sft_tasks: 3 there, 1000 now"]
    whole = {**record(), FIELD: None}
    assert other_run({**record(sft_tasks=20), FIELD: None}, whole, fields=None) == \
        ["sft.sft_tasks: 20 there, 1000 now"]
    other_ids = {**record(), FIELD: _split()[4:8]}
    assert other_run(record(), other_ids, fields=None)[0].startswith("train_task_ids: ")  # another cap
