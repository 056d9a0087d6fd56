"""One method twice with different options (``label=name[k=v;...]``), and the role/team grouping options."""

from __future__ import annotations

import pytest
from baselines_helpers import SMALL_RUN, TINY_QA, TINY_TEAM, make_ctx, spec_config
from searchgym.agents.train import Trainer

from searchgym.harness.compare import Comparison
from searchgym.harness.methods import METHODS, MethodRef, parse_methods, resolve_method


def test_a_labelled_entry_carries_its_own_options():
    ref = resolve_method("grpo_team=grpo[group_by=team; lr=0.001;loss.dual_clip=null]")
    assert ref == MethodRef("grpo_team", METHODS["grpo"], (("group_by", "team"), ("lr", 0.001),
                                                           ("loss.dual_clip", None)))
    assert resolve_method("grpo") == MethodRef("grpo", METHODS["grpo"])  # no brackets: no options
    assert resolve_method("grpo=grpo[lr=0.01]") == MethodRef("grpo", METHODS["grpo"], (("lr", 0.01),))  # its own name


@pytest.mark.parametrize("entry, message", [
    ("grpo[group_by=team]", "options go in brackets after a labelled method"),
    ("x=grpo[group_by]", "an option looks like KEY=VALUE, got 'group_by'"),
    ("x=grpo[a=1]]", "options go in brackets"),
    # before: '=grpo' ran as grpo, and 'random=grpo' reported a trained GRPO as the random baseline
    ("=grpo", "method entry '=grpo' has an empty label; write label=method, or the method alone"),
    (" =grpo[lr=0.01]", "has an empty label"),
    ("random=grpo", "method label 'random' is the name of the built-in method random, and would report grpo as it"),
    ("oracle=pkg.mod:make", "method label 'oracle' is the name of the built-in method oracle"),
    ("grpo_role=grpo[lr=0.01]", "method label 'grpo_role' is the name of the built-in method grpo_role"),
])
def test_bad_variants_are_refused_with_the_accepted_form(entry, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        resolve_method(entry)


def test_commas_inside_brackets_do_not_cut_an_entry():
    """Before: ``g=grpo[lr=0.01,group_size=4]`` was cut at its comma into two entries and refused with
    "options go in brackets after a labelled method"; a JSON value with commas was cut the same way."""
    with pytest.raises(ValueError, match=r"separate the options in brackets with ';' \(',' separates methods\)"):
        parse_methods("g=grpo[lr=0.01,group_size=4],random")
    refs = parse_methods('g=grpo[policy_kwargs={"dim": 8, "heads": 2};lr=0.01],random')
    assert refs == [MethodRef("g", METHODS["grpo"], (("policy_kwargs", {"dim": 8, "heads": 2}), ("lr", 0.01))),
                    MethodRef("random", METHODS["random"])]


def test_a_comparison_gives_each_entry_its_options_over_the_shared_ones(tmp_path):
    methods = parse_methods("grpo,grpo_team=grpo[group_by=team;lr=0.001]")
    plan = Comparison(suite=TINY_TEAM, methods=methods, seeds=[0], budget=10, out=tmp_path,
                      options={"lr": 0.01, "group_size": 2}).plan()
    assert [(s.method.label, s.options) for s in plan] == [
        ("grpo", {"lr": 0.01, "group_size": 2}),
        ("grpo_team", {"lr": 0.001, "group_size": 2, "group_by": "team"})]
    assert plan[1].identity()["options"]["group_by"] == "team"  # recorded in config.json, checked on resume


def test_each_seeds_first_run_leads_the_plan_so_bases_are_built_side_by_side(tmp_path):
    methods = parse_methods("sft,grpo,random")
    plan = Comparison(suite=TINY_TEAM, methods=methods, seeds=[0, 1, 2], budget=10, out=tmp_path).plan()
    assert [(s.method.label, s.seed) for s in plan] == [
        ("sft", 0), ("sft", 1), ("sft", 2),
        ("grpo", 0), ("random", 0), ("grpo", 1), ("random", 1), ("grpo", 2), ("random", 2)]


def test_grouping_is_an_option_whose_default_leaves_grpo_unchanged(tmp_path):
    assert spec_config("grpo", make_ctx(TINY_TEAM, tmp_path)).group_by == "auto"
    assert spec_config("grpo_role", make_ctx(TINY_TEAM, tmp_path)).group_by == "role"
    assert spec_config("cw_grpo_role", make_ctx(TINY_TEAM, tmp_path)).group_by == "role"
    assert spec_config("cw_grpo", make_ctx(TINY_TEAM, tmp_path, group_by="team")).group_by == "team"
    with pytest.raises(ValueError, match="unknown group_by 'teams'; accepted: auto, role, team"):
        spec_config("grpo", make_ctx(TINY_TEAM, tmp_path, group_by="teams"))
    with pytest.raises(ValueError, match="has one agent"):
        spec_config("grpo_role", make_ctx(TINY_QA, tmp_path))


@pytest.mark.parametrize("group_by, expected", [("role", [1, 1]), ("team", [2]), ("auto", [1, 1])])
def test_the_trainer_collects_groups_of_one_role_or_of_the_whole_team(group_by, expected, tmp_path):
    trainer = Trainer(spec_config("grpo", make_ctx(TINY_TEAM, tmp_path, group_by=group_by)))
    groups, _ = trainer.collect(trainer.train_tasks[:1], seed=0)
    assert [len({t.agent_id for t in g}) for g in groups] == expected  # distinct agents in each group
    assert sum(len(g) for g in groups) == 2 * SMALL_RUN["group_size"]  # 2 agents x G episodes, all kept
