"""The centralised critics' checkpoints (MAPPO, COMA) load with weights_only=True: a pickle that would
run code is never run, a damaged one restarts the run with its critic as a fresh run has it."""

from __future__ import annotations

import io
import os

import pytest
import torch
from baselines_helpers import TINY_TEAM, make_ctx, spec_config
from searchgym.agents.trainer_base import CHECKPOINT
from searchgym.baselines.coma import COMATrainer
from searchgym.baselines.mappo import MAPPOTrainer
from searchgym.damaged import DamagedFileWarning

METHOD_OF = {MAPPOTrainer: "mappo", COMATrainer: "coma"}


class _RunsCode:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


def _damaged(kind: str, good: bytes, marker) -> bytes:
    if kind == "code":
        buffer = io.BytesIO()
        torch.save({"critic": _RunsCode(f"touch {marker}")}, buffer)
        return buffer.getvalue()
    if kind == "cut":
        return good[: len(good) // 2]
    blob = torch.load(io.BytesIO(good), weights_only=True)
    name = next(iter(blob["critic"]))
    blob["critic"][name] = torch.zeros(2, 2)  # a critic of another shape, after the policy loaded
    buffer = io.BytesIO()
    torch.save(blob, buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("trainer_cls", [MAPPOTrainer, COMATrainer])
@pytest.mark.parametrize("kind", ["code", "cut", "critic shape"])
def test_a_damaged_critic_checkpoint_restarts_the_run_and_runs_nothing(trainer_cls, kind, tmp_path):
    config = spec_config(METHOD_OF[trainer_cls], make_ctx(TINY_TEAM, tmp_path, budget=20))
    first = trainer_cls(config, out_dir=tmp_path / "run", log=lambda row: None)
    first.iterate()
    fresh = trainer_cls(config, log=lambda row: None)
    path = tmp_path / "run" / CHECKPOINT
    marker = tmp_path / "pwned"
    path.write_bytes(_damaged(kind, path.read_bytes(), marker))
    with pytest.warns(DamagedFileWarning, match="starting the run again"):
        restarted = trainer_cls(config, out_dir=tmp_path / "run", log=lambda row: None)
    assert not marker.exists()
    assert restarted.state.iteration == 0
    for module in ("critic", "population"):
        expected = getattr(fresh, module).state_dict()
        for key, value in getattr(restarted, module).state_dict().items():
            torch.testing.assert_close(value, expected[key])
