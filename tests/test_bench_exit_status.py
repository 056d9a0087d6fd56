"""benchmarks/*.py exit as they say: bench_train.py refuses a --before or --after folder that is not a
searchgym checkout as that argument, before any run (before: the child's usage and "argument --tree",
a flag never given, rc 1); fuzz_step.py exits non-zero when a step raised (before: 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("flag", ["--before", "--after"])
def test_bench_train_refuses_a_folder_that_is_not_a_checkout(tmp_path, monkeypatch, capsys, flag):
    import bench_train

    monkeypatch.setattr(bench_train, "run_child", lambda *a: pytest.fail("a child ran"))
    other = "--after" if flag == "--before" else "--before"  # this checkout's folder (a ref needs git)
    with pytest.raises(SystemExit) as exit_:
        bench_train.main([flag, str(tmp_path), other, str(REPO), "--seeds", "0", "--budget", "8"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "--tree" not in err.splitlines()[-1], err
    assert err.splitlines()[-1].endswith(f": error: argument {flag}: '{tmp_path}' is not a searchgym "
                                         "checkout (a folder holding searchgym/__init__.py)"), err


@pytest.mark.parametrize("raises, status", [(True, 1), (False, 0)])
def test_fuzz_step_exits_non_zero_when_a_step_raised(monkeypatch, capsys, raises, status):
    import fuzz_step

    real_step = fuzz_step.SearchEnv.step

    def step(env, action):
        if raises and action == "<time/>":
            raise RuntimeError("injected")
        return real_step(env, action)

    monkeypatch.setattr(fuzz_step, "corpus", lambda n, seed: ["<time/>", "<answer>x</answer>"])
    monkeypatch.setattr(fuzz_step.SearchEnv, "step", step)
    assert fuzz_step.main(["--actions", "2"]) == status
    assert f"exceptions raised by step: {2 if raises else 0} " in capsys.readouterr().out
