"""A ``--methods`` entry whose '[' is not closed says so; rl_from_base.py checks its methods' options before
it builds the base (minutes), not in every run of the comparison after it."""

from __future__ import annotations

import subprocess

import pytest

from searchgym.harness.methods import METHODS, MethodRef, parse_methods, resolve_method

EXAMPLE = "grpo_kl=grpo[lr=0.001;loss.kl_coef=0.01]"


@pytest.mark.parametrize("methods", ["grpo[", "x=grpo[lr=0.1", "x=grpo[lr=0.1,random", "random,x=grpo[a=1;b=2"])
def test_an_unclosed_bracket_is_named_with_the_accepted_form(methods):
    """Before: "options go in brackets after a labelled method", also for ``x=grpo[lr=0.1`` (labelled, in
    brackets): the missing ']' went unsaid."""
    with pytest.raises(ValueError) as error:
        parse_methods(methods)
    message = str(error.value)
    assert "'[' is not closed" in message and f"e.g. {EXAMPLE}" in message, message
    assert "\n" not in message
    assert resolve_method(EXAMPLE) == MethodRef("grpo_kl", METHODS["grpo"], (("lr", 0.001), ("loss.kl_coef", 0.01)))


def test_other_bracket_mistakes_keep_their_messages():
    with pytest.raises(ValueError, match="options go in brackets after a labelled method"):
        resolve_method("grpo[lr=0.1]")
    with pytest.raises(ValueError, match="options go in brackets"):
        resolve_method("x=grpo[a=1]]")


@pytest.fixture
def rl_from_base(monkeypatch):
    """The script, its base build and its compare replaced by recorders (neither may be reached here)."""
    import rl_from_base

    calls = []
    monkeypatch.setattr(rl_from_base, "clone_oracle", lambda *a: calls.append("base") or {"states": 0})
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: calls.append("compare") or
                        subprocess.CompletedProcess(command, 0))
    monkeypatch.setattr(rl_from_base, "calls", calls, raising=False)
    return rl_from_base


@pytest.mark.parametrize("methods, said", [
    ("grpo[lr=]", "method entry 'grpo[lr=]': option 'lr' of grpo takes a number"),
    ("x=grpo[nope=1]", "method entry 'x=grpo[nope=1]': unknown option 'nope' for grpo; accepted: "),
    ("base,base_lr=base[lr=abc]", "method entry 'base_lr=base[lr=abc]': option 'lr' of grpo takes a number"),
    ("cw_grpo[cw_rounds=nope]", "method entry 'cw_grpo[cw_rounds=nope]': unknown cw_rounds 'nope'"),
    ("grpo[", "method entry 'grpo[': its '[' is not closed"),
])
def test_rl_from_base_refuses_a_bad_option_before_the_base_is_built(rl_from_base, tmp_path, capsys, methods, said):
    """Before: accepted; the base was built (minutes) and every run of the comparison failed, with
    compare's "re-run the same command" advice."""
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as exit_:
        rl_from_base.main(["--out", str(out), "--methods", methods])
    err = capsys.readouterr().err
    assert exit_.value.code == 2, err
    assert f"error: argument --methods: {said}" in err and "Traceback" not in err, err
    assert "benchmarks.rl_from_base" not in err
    assert rl_from_base.calls == [] and not out.exists()  # nothing built, nothing written


def test_rl_from_base_still_runs_good_options(rl_from_base, tmp_path):
    methods = "base,grpo,cw_grpo,cw_all=cw_grpo[cw_rounds=all],grpo_kl=grpo[loss.kl_coef=0.05;lr=0.001]"
    assert rl_from_base.main(["--out", str(tmp_path / "out"), "--methods", methods]) == 0
    assert rl_from_base.calls == ["base", "compare"]
