"""``python -m searchgym.examples.cleanrl_ppo --total-steps N`` trains N env steps, as its help says.

Before: the number of rollouts was ``max(1, total // num_steps)``, so ``--total-steps 100`` trained
one rollout of 512 steps ("update 1/1: 512 steps") and ``--total-steps 1000`` one of 512 too.
"""

from __future__ import annotations

import sys

import pytest

from searchgym.examples import cleanrl_ppo


@pytest.mark.parametrize(("total", "num", "lines"), [
    (5, 512, ["update 1/1: 5 steps"]),  # below one rollout (the default --num-steps)
    (10, 4, ["update 1/3: 4 steps", "update 2/3: 8 steps", "update 3/3: 10 steps"]),  # not a multiple
    (8, 4, ["update 1/2: 4 steps", "update 2/2: 8 steps"]),  # a multiple: as before
])
def test_the_total_is_the_env_steps_trained(monkeypatch, capsys, total, num, lines) -> None:
    made = []
    make = cleanrl_ppo.searchgym.make

    def counting_make(*args, **kwargs):
        env = make(*args, **kwargs)
        step, steps = env.step, []

        def counted(action):
            steps.append(action)
            return step(action)

        env.step = counted
        made.append(steps)
        return env

    monkeypatch.setattr(cleanrl_ppo.searchgym, "make", counting_make)
    monkeypatch.setattr(sys, "argv", ["cleanrl_ppo.py", "--total-steps", str(total), "--num-steps", str(num),
                                      "--update-epochs", "1", "--eval-episodes", "1"])
    cleanrl_ppo.main()
    out = capsys.readouterr().out
    assert [line.split(",")[0] for line in out.splitlines() if line.startswith("update ")] == lines
    assert len(made[0]) == total  # the training env (the second one is the dev evaluation's)
