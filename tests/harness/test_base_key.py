"""The supervised base's key hashes what its build uses. Before, it hashed the settings as given, so
``sft_tasks`` past the train split's size, ``sft_dagger_tasks`` without DAgger rounds and
``policy_kwargs`` that only wrote out the policy's defaults each named a new folder and built the
same base again."""

from __future__ import annotations

import pytest

from searchgym.harness import sft
from searchgym.harness.methods import RunContext
from searchgym.harness.sft import base_key, ensure_base, sft_config
from searchgym.suites import Suite, get_suite, register_suite, tasks

FOUR = register_suite(Suite("test-base-key-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6}, world_size="tiny",
                            train_size=4, dev_size=2, test_size=2, description="tests: a train split of 4 tasks"))
SFT = {"sft_epochs": 1, "sft_batch_size": 16}
#: make main's policy kwargs (the Makefile's MAIN_OPTIONS); its sft settings are the defaults.
MAIN_KWARGS = {"comparison_facts": True, "operand_sources": True}


def test_make_mains_bases_and_default_ones_keep_their_keys():
    """The keys the code before this normalisation gave (quick-v2, --policy hash, seeds 0-2): a change
    here rebuilds every existing comparison's bases."""
    quick = get_suite("quick-v2")
    assert len(tasks(quick, "train")) < sft.SFTConfig().sft_tasks  # the default demonstrates the whole split
    made = [base_key(quick, seed, "hash", sft_config({"init": "sft", "lr": 0.001}), MAIN_KWARGS) for seed in (0, 1, 2)]
    assert made == ["d32db0eb9e45a779", "c1e851e904f4da28", "0ee443762ed9e4c4"]
    assert base_key(quick, 0, "hash", sft_config({})) == "5b1003b6d8fcb7af"


@pytest.mark.parametrize(("same", "as_given"), [
    ({"sft_tasks": 5}, {"sft_tasks": 4}),  # past the split: the split, as the default's 1000 is
    ({"sft_tasks": 10**5}, {}),
    ({"sft_dagger_tasks": 7}, {}),  # no rounds: never read
    ({"sft_tasks": 9, "sft_dagger_rounds": 0, "sft_dagger_tasks": 50}, {"sft_tasks": 1000}),
])
def test_settings_that_build_one_base_share_its_key(same, as_given):
    assert base_key(FOUR, 0, "hash", sft_config({**SFT, **same})) == base_key(FOUR, 0, "hash",
                                                                             sft_config({**SFT, **as_given}))


@pytest.mark.parametrize(("one", "other"), [
    ({"sft_tasks": 3}, {"sft_tasks": 4}),  # part of the split against all of it
    # with DAgger rounds, sft_tasks is where the rounds' tasks start and what seeds their episodes
    ({"sft_tasks": 5, "sft_dagger_rounds": 1}, {"sft_tasks": 4, "sft_dagger_rounds": 1}),
    ({"sft_dagger_rounds": 1, "sft_dagger_tasks": 7}, {"sft_dagger_rounds": 1}),
])
def test_settings_that_build_other_bases_keep_keys_of_their_own(one, other):
    assert base_key(FOUR, 0, "hash", sft_config({**SFT, **one})) != base_key(FOUR, 0, "hash",
                                                                            sft_config({**SFT, **other}))


def test_policy_kwargs_that_write_out_defaults_are_no_part_of_the_key():
    config = sft_config(SFT)
    plain, main = base_key(FOUR, 0, "hash", config), base_key(FOUR, 0, "hash", config, MAIN_KWARGS)
    assert base_key(FOUR, 0, "hash", config, {"hidden": 128, "dim": 64, "comparison_facts": False}) == plain
    assert base_key(FOUR, 0, "hash", config, {**MAIN_KWARGS, "overlap_features": True}) == main
    assert base_key(FOUR, 0, "attn", config, {"dim": 64, "heads": 4}) == base_key(FOUR, 0, "attn", config)
    assert len({plain, main, base_key(FOUR, 0, "hash", config, {"hidden": 64}),  # attn's default, not hash's
                base_key(FOUR, 0, "hash", config, {"hidden": 128.0})}) == 4  # another type: kept as given


def _ctx(root, options) -> RunContext:
    return RunContext(suite=FOUR, seed=0, budget=0, device="cpu", run_dir=root / "run", policy="hash",
                      options=dict(options), bases_dir=root / "bases")


def test_a_base_asked_for_in_another_spelling_is_found_not_built_again(tmp_path, monkeypatch):
    first = ensure_base(_ctx(tmp_path, SFT), sft_config(SFT))  # the default sft_tasks: the whole split

    def never(*args, **kwargs):
        raise AssertionError("a base that was there was built again")

    monkeypatch.setattr(sft, "build_base", never)
    same = {**SFT, "sft_tasks": 40, "sft_dagger_tasks": 3, "policy_kwargs": {"hidden": 128}}
    again = ensure_base(_ctx(tmp_path, same), sft_config(same))
    assert again == first and len(list((tmp_path / "bases").iterdir())) == 1
    assert again["settings"]["sft_tasks"] == 1000 and again["settings"]["sft_dagger_tasks"] == 100
    assert again["policy_kwargs"] == {} and again["demonstrated_tasks"] == 4
