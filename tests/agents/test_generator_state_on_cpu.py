"""A checkpoint read with ``map_location`` set to the run's device holds the sampling generator's
state on that device; ``torch.Generator.set_state`` takes only a CPU byte tensor, so resuming a GPU
run refused its own checkpoint and trained again from the start. The state is moved to the CPU
before it is set (no GPU here: a tensor standing for one on another device records the move)."""

from __future__ import annotations

from dataclasses import asdict
from types import SimpleNamespace

import numpy as np
import torch

from searchgym.agents.train import Trainer, TrainState


class Elsewhere(torch.Tensor):
    """A generator state as map_location=cuda would give it: ``.cpu()`` brings it back."""

    moved = False

    def cpu(self, *args, **kwargs):
        Elsewhere.moved = True
        return torch.Tensor.cpu(self).as_subclass(torch.Tensor)


class RecordingGenerator:
    def __init__(self):
        self.state = None

    def set_state(self, state):
        self.state = state


def test_the_generator_state_is_set_from_the_cpu():
    real = torch.Generator().manual_seed(3).get_state()
    blob = {"population": {}, "optimizer": {}, "calibrator": None, "rng": np.random.default_rng(0).bit_generator.state,
            "generator": real.as_subclass(Elsewhere), "state": asdict(TrainState())}
    generator = RecordingGenerator()
    trainer = SimpleNamespace(population=SimpleNamespace(load_state_dict=lambda _: None),
                              optimizer=SimpleNamespace(load_state_dict=lambda _: None), calibrator=None,
                              rng=np.random.default_rng(1), generator=generator)
    Trainer.load_state_dict(trainer, blob)
    assert Elsewhere.moved and type(generator.state) is torch.Tensor and generator.state.device.type == "cpu"
    assert torch.equal(generator.state, real)
    torch.Generator().set_state(generator.state)  # what a real generator accepts
