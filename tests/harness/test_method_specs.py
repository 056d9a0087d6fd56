"""Methods as data: every baseline differs from GRPO only in what its spec names."""

from __future__ import annotations

import dataclasses

import pytest

from baselines_helpers import TINY_TEAM, make_ctx, spec_config

from searchgym.agents.train import Trainer
from searchgym.method_table import METHOD_SPECS
from searchgym.harness.methods import load_method

LEARNERS = sorted(METHOD_SPECS)


def _flat(config) -> dict:
    d = dataclasses.asdict(config)
    out = {}
    for key, value in d.items():
        if isinstance(value, dict) and key in ("advantage", "loss", "calibration", "method"):
            out.update({f"{key}.{k}": v for k, v in value.items()})
        else:
            out[key] = value
    return out


@pytest.mark.parametrize("name", LEARNERS)
def test_each_method_differs_from_grpo_only_in_what_defines_it(name, tmp_path):
    spec = METHOD_SPECS[name]
    grpo, mine = _flat(spec_config("grpo", make_ctx(TINY_TEAM, tmp_path))), _flat(
        spec_config(name, make_ctx(TINY_TEAM, tmp_path)))
    differing = {k for k in set(grpo) | set(mine) if grpo.get(k) != mine.get(k)}
    allowed = {"estimator", "loss.aggregation", "value_head", "loss.norm_length"}
    allowed |= {k if "." in k else next((p for p in mine if p.endswith("." + k) or p == k), k) for k in spec.defaults}
    allowed |= {f"method.{k}" for k in spec.defaults}
    assert differing <= allowed, (name, differing - allowed)
    if name == "cw_grpo":
        assert differing == {"estimator"}  # CW-GRPO is GRPO with the round-contribution estimator


@pytest.mark.parametrize("name", LEARNERS)
def test_any_hyperparameter_is_set_by_name_and_unknown_names_are_errors(name, tmp_path):
    config = spec_config(name, make_ctx(TINY_TEAM, tmp_path, lr=0.002, round_gamma=2.0, eps_high=0.18,
                                        batch_standardize=True, **{"loss.entropy_coef": 0.03}))
    assert (config.lr, config.advantage.round_gamma, config.loss.eps_high) == (0.002, 2.0, 0.18)
    assert config.calibration.batch_standardize and config.loss.entropy_coef == 0.03
    with pytest.raises(ValueError, match=f"unknown option 'learning_rate' for {name}; accepted: .*lr"):
        spec_config(name, make_ctx(TINY_TEAM, tmp_path, learning_rate=0.1))
    with pytest.raises(ValueError, match="option 'estimator' is not a hyperparameter"):
        spec_config(name, make_ctx(TINY_TEAM, tmp_path, estimator="grpo"))
    with pytest.raises(ValueError, match="unknown option 'loss.lr'"):
        spec_config(name, make_ctx(TINY_TEAM, tmp_path, **{"loss.lr": 0.1}))


@pytest.mark.parametrize("option, value, takes", [
    ("lr", "abc", "a number"), ("lr", None, "a number"), ("group_size", "4", "an integer"),
    ("group_size", 4.5, "an integer"), ("batch_standardize", 1, "true or false"),
    ("policy_kwargs", 3, "a JSON object"), ("critic_lr", "x", "a number or null")])
def test_an_option_of_the_wrong_type_is_refused_by_name(option, value, takes, tmp_path):
    # before: "'<=' not supported between instances of 'float' and 'str'" from inside the run
    with pytest.raises(ValueError, match=f"option '{option}' of mappo takes {takes}, got "):
        spec_config("mappo", make_ctx(TINY_TEAM, tmp_path, **{option: value}))
    assert spec_config("mappo", make_ctx(TINY_TEAM, tmp_path, lr=1, critic_lr=None)).lr == 1  # an int is a number


def test_method_options_reach_the_trainer(tmp_path):
    assert spec_config("mappo", make_ctx(TINY_TEAM, tmp_path, value_norm=False)).method == {"value_norm": False}
    assert spec_config("ippo", make_ctx(TINY_TEAM, tmp_path)).method == {"centralised": False}
    assert spec_config("coma", make_ctx(TINY_TEAM, tmp_path, td_lambda=0.5)).method == {"td_lambda": 0.5}
    with pytest.raises(ValueError, match="unknown option 'td_lambda' for grpo"):
        spec_config("grpo", make_ctx(TINY_TEAM, tmp_path, td_lambda=0.5))


@pytest.mark.parametrize("name", LEARNERS)
def test_every_method_draws_its_dev_curve_on_the_suites_dev_split(name, tmp_path, monkeypatch):
    seen = {}
    monkeypatch.setattr(Trainer, "train", lambda self, progress=True: seen.setdefault("dev", list(self.dev_tasks)))
    load_method(name)(make_ctx(TINY_TEAM, tmp_path, eval_tasks=None))
    assert seen["dev"] == [t.id for t in TINY_TEAM.tasks("dev")]


def test_one_field_given_twice_is_refused_not_resolved_last_wins():
    """Before: eps_high and loss.eps_high (either order), or g=grpo[lr=0.01;lr=0.02], ran with whichever
    came last, and config.json recorded both."""
    from searchgym.agents.train import Trainer
    from searchgym.harness.method_specs import resolve_options
    from searchgym.harness.methods import resolve_method
    from searchgym.method_table import METHOD_SPECS

    grpo = METHOD_SPECS["grpo"]
    for options in ({"eps_high": 0.3, "loss.eps_high": 0.1}, {"loss.eps_high": 0.1, "eps_high": 0.3}):
        with pytest.raises(ValueError, match="both set loss.eps_high of grpo; give it once"):
            resolve_options(grpo, options, Trainer)
    with pytest.raises(ValueError, match="option 'lr' is given twice; give it once"):
        resolve_method("g=grpo[lr=0.01;lr=0.02]")
    # a spec's own default is overridden by either spelling, as before
    assert resolve_options(METHOD_SPECS["dr_grpo"], {"norm_length": 5}, Trainer)["loss"]["norm_length"] == 5
