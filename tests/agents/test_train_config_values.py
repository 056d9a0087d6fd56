"""TrainConfig names a bad budget, seed or learning rate itself, at construction.

Before: ``TrainConfig(budget=-1)`` trained nothing and the run wrote a result; ``budget="abc"`` was a
TypeError ("'<' not supported between instances of 'str' and 'int'") at the first loop; ``seed=-1``
was numpy's "expected non-negative integer" and ``lr=-1.0`` torch's "Invalid learning rate: -1.0",
both from deep inside the Trainer, with neither naming the field."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from searchgym.agents.train import TrainConfig


@pytest.mark.parametrize(("field", "value", "said"), [
    ("budget", -1, "budget must be an integer >= 0; got -1"),
    ("budget", "abc", "budget must be an integer >= 0; got 'abc'"),
    ("budget", 10.5, "budget must be an integer >= 0; got 10.5"),
    ("seed", -1, "seed must be an integer >= 0; got -1"),
    ("seed", True, "seed must be an integer >= 0; got True"),
    ("lr", -1.0, "lr must be a number > 0 (the optimiser's learning rate); got -1.0"),
    ("lr", 0, "lr must be a number > 0"),
    ("lr", float("nan"), "lr must be a number > 0"),
    ("lr", "0.001", "lr must be a number > 0 (the optimiser's learning rate); got '0.001'"),
])
def test_bad_values_are_named(field, value, said):
    with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)")):
        TrainConfig(**{field: value})


def test_the_edges_that_mean_something_are_accepted():
    assert TrainConfig(budget=0, seed=0, lr=1).budget == 0  # budget 0: the policy as it starts, scored
    assert TrainConfig(lr=3e-3, seed=2**31).lr == 3e-3
