"""register_spec checks each option a spec's ``defaults`` set, in one line naming the option and what
is accepted. Before: ``defaults={"lrr": 0.01}`` was registered, and failed only when a comparison ran
the method ("unknown option 'lrr' for mine"), after the command had started."""

from __future__ import annotations

import sys
import textwrap

import pytest

from searchgym.harness.method_specs import check_spec_defaults
from searchgym.method_table import MAPPO, METHOD_SPECS, TRAINER, MethodSpec, register_spec

AGGREGATION = "seq-mean-token-mean"


def _spec(defaults: dict, trainer: str = TRAINER) -> MethodSpec:
    return MethodSpec("mine", trainer, "grpo", AGGREGATION, False, defaults=defaults)


BAD_DEFAULTS = [
    ({"lrr": 0.01}, "method 'mine' defaults: unknown option 'lrr' for mine; accepted: adv_clip, "),
    ({"loss.lr": 0.01}, "method 'mine' defaults: unknown option 'loss.lr' for mine; accepted: "),
    ({"method.centralised": False}, "method 'mine' defaults: unknown option 'method.centralised' for mine; "),
    ({"lr": "fast"}, "method 'mine' defaults: option 'lr' of mine takes a number, got \"fast\""),
    ({"seed": 3}, "method 'mine' defaults: option 'seed' is not a hyperparameter of mine: the suite, --seed"),
]


@pytest.mark.parametrize(("defaults", "message"), BAD_DEFAULTS, ids=[m for _, m in BAD_DEFAULTS])
def test_a_default_no_run_accepts_is_refused_in_one_line_when_registered(defaults, message):
    before = METHOD_SPECS.keys()
    with METHOD_SPECS.scoped():
        with pytest.raises(ValueError) as raised:
            register_spec(_spec(defaults))
        assert METHOD_SPECS.keys() == before
    text = str(raised.value)
    assert text.startswith(message) and "\n" not in text


def test_the_accepted_list_names_the_trainers_own_options_and_the_sections():
    with METHOD_SPECS.scoped(), pytest.raises(ValueError) as raised:
        register_spec(MethodSpec("mine", MAPPO, "gae", "token-mean", True, llm_unsupported="a critic",
                                 defaults={"centralized": False}))
    accepted = str(raised.value).partition("; accepted: ")[2].split(", ")
    assert {"centralised", "lr", "loss.eps_high", "method.centralised"} <= set(accepted)


def test_good_defaults_register_by_every_spelling():
    with METHOD_SPECS.scoped():
        register_spec(_spec({"lr": 0.01, "loss.eps_high": 0.3, "train.group_size": 4, "group_by": "role"}))
        register_spec(MethodSpec("my_ippo", MAPPO, "gae", "token-mean", True, llm_unsupported="a critic",
                                 defaults={"centralised": False, "method.value_norm": False,
                                           "loss.norm_length": "env_step_limit"}))
        assert {"mine", "my_ippo"} <= set(METHOD_SPECS)


@pytest.mark.parametrize("name", METHOD_SPECS.keys())
def test_every_built_in_spec_passes_the_defaults_check_a_users_spec_gets(name):
    check_spec_defaults(METHOD_SPECS[name])


def test_the_trainers_module_runs_only_for_a_default_of_its_own(tmp_path, monkeypatch):
    # a user's trainer module that registers its spec may be mid-import: shared options need no trainer
    (tmp_path / "unimported_trainer.py").write_text(textwrap.dedent('''
        raise RuntimeError("imported")
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    trainer = "unimported_trainer:MyTrainer"
    with METHOD_SPECS.scoped():
        register_spec(_spec({"lr": 0.01, "loss.eps_high": 0.3}, trainer=trainer))
        assert "unimported_trainer" not in sys.modules
        with pytest.raises(RuntimeError, match="imported"):  # its own option: read from the trainer class
            register_spec(_spec({"my_option": 1}, trainer=trainer), replace=True)
    sys.modules.pop("unimported_trainer", None)
