"""A resumed training run's bar shows the last dev success at once, not only after its next evaluation."""

from __future__ import annotations

from typing import ClassVar

from agents_helpers import tiny_train_config
from searchgym.agents import trainer_base
from searchgym.agents.train import Trainer


class Bar:
    """Records what the train loop shows."""

    postfixes: ClassVar[list[dict]] = []

    def __init__(self, *args, **kwargs) -> None:
        self.n = kwargs.get("initial", 0)

    def update(self, n) -> None:
        self.n += n

    def set_postfix(self, **shown) -> None:
        Bar.postfixes.append(shown)

    def close(self) -> None:
        pass


def test_a_resumed_run_shows_its_last_dev_success(tmp_path, monkeypatch):
    config = tiny_train_config(eval_every=2)
    first = Trainer(config, out_dir=tmp_path)
    first.log_start_point()
    first.train_iteration()
    last = first.train_iteration()  # iteration 2: a dev evaluation, then the checkpoint
    assert "dev_success" in last

    resumed = Trainer(config, out_dir=tmp_path)
    assert resumed.state.iteration == 2
    monkeypatch.setattr(trainer_base, "tqdm", Bar)
    iterate = resumed.train_iteration

    def one_iteration():
        row = iterate()
        resumed.state.env_steps = config.budget  # stop after it
        return row

    resumed.train_iteration = one_iteration
    Bar.postfixes = []
    resumed.train(progress=True)
    assert len(Bar.postfixes) == 1  # iteration 3: no dev evaluation
    assert Bar.postfixes[0]["dev"] == last["dev_success"]  # before: no dev until iteration 4
