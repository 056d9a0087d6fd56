"""The reader and the LLM method say what their options are when not given, as learners do: an option
given at that value is the run without it, in either order. Before: ``--option rotate_in_team=true``
(the reader's default) found a finished reader run without it "a different run (options.rotate_in_team:
None there, True now)"; the LLM method's ``--option lr=1e-6`` too. config.json still records what was
given; another value still tells runs apart."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from types import SimpleNamespace

import pytest
from harness_helpers import TINY_QA

from searchgym.harness.identity_reads import option_defaults
from searchgym.harness.methods import load_method, reader_policy, resolve_method
from searchgym.harness.runner import DifferentRun, RunSpec, check_identity

LLM = "llm=searchgym.harness.llm_method:harness_method"


def _folder(tmp_path, method: str, recorded: dict) -> RunSpec:
    """A finished-looking run folder of ``method`` whose config.json records ``recorded`` as its options."""
    spec = RunSpec(TINY_QA, resolve_method(method), 0, 40, tmp_path, "cpu", options=recorded)
    spec.run_dir.mkdir(parents=True)
    (spec.run_dir / "config.json").write_text(json.dumps({**spec.identity(), "suite": TINY_QA.definition()}))
    return spec


@pytest.mark.parametrize("given", [{"rotate_in_team": True}, {"lookup_order": "knowledge_base,web_search"},
                                   {"rotate_in_team": True, "lookup_order": "knowledge_base,web_search"}])
def test_the_reader_given_its_defaults_is_the_run_without_them_in_either_order(tmp_path, given):
    for i, (recorded, now) in enumerate(((given, {}), ({}, given))):
        spec = _folder(tmp_path / str(i), "reader", recorded)
        assert check_identity(replace(spec, options=now)) == 1  # before: DifferentRun, "None there" or "now"
        assert json.loads(spec.run_dir.joinpath("config.json").read_text())["options"] == recorded


def test_the_reader_at_another_value_is_another_run(tmp_path):
    spec = _folder(tmp_path, "reader", {})
    with pytest.raises(DifferentRun, match=r"options\.rotate_in_team: absent there, False now"):
        check_identity(replace(spec, options={"rotate_in_team": False}))
    other_order = r"options\.lookup_order: absent there, 'web_search,knowledge_base' now"
    with pytest.raises(DifferentRun, match=other_order):
        check_identity(replace(spec, options={"lookup_order": "web_search,knowledge_base"}))


def test_the_readers_defaults_are_its_policys_own():
    from searchgym.baselines.reader import ReaderPolicy

    defaults = option_defaults(load_method(resolve_method("reader")))
    assert set(defaults) == {"lookup_order", "rotate_in_team"}
    given, plain = reader_policy(defaults), ReaderPolicy()
    assert (given.lookup_order, given.rotate_in_team) == (plain.lookup_order, plain.rotate_in_team)


def test_the_llm_method_given_its_defaults_is_the_run_without_them(tmp_path):
    given = {"lr": 1e-6, "group_size": 4, "model": "random:tiny", "method": "cw_grpo", "aggregation": None}
    for i, (recorded, now) in enumerate(((given, {}), ({}, given))):
        assert check_identity(replace(_folder(tmp_path / str(i), LLM, recorded), options=now)) == 1
    with pytest.raises(DifferentRun, match=r"options\.lr: absent there, 1e-05 now"):
        check_identity(replace(_folder(tmp_path / "other", LLM, {}), options={"lr": 1e-5}))


def test_each_llm_default_trains_what_the_run_without_it_trains():
    from searchgym.harness.llm_method import config_from_args

    plain = asdict(config_from_args(SimpleNamespace(options={})))
    defaults = option_defaults(load_method(resolve_method(LLM)))
    assert {"lr", "group_size", "model", "method"} <= set(defaults)
    for name, value in defaults.items():
        args = SimpleNamespace(**{name: value}, options={}) if name in ("model", "method") else \
            SimpleNamespace(options={name: value})
        assert asdict(config_from_args(args)) == plain, name
