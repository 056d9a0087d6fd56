"""Checkpoints handed over by someone else: a pickle that would run code is refused (never run), and a
damaged checkpoint of any kind is warned about, naming the file, and the run starts again from its
beginning in exactly the state of a fresh run; a good checkpoint still resumes."""

from __future__ import annotations

import io
import os
import pickle
import re
import warnings
import zipfile

import pytest
import torch

from searchgym.agents.train import Trainer, TrainConfig
from searchgym.agents.trainer_base import CHECKPOINT, read_checkpoint
from searchgym.damaged import DamagedFile, DamagedFileWarning

pytestmark = pytest.mark.timeout(300)


def small_config(**overrides) -> TrainConfig:
    base = dict(env_id="SearchQA-Candidates-Easy-v0", env_kwargs={"world_size": "tiny", "max_steps": 4},
                estimator="cw_value", value_head=True, group_size=3, tasks_per_iteration=2, budget=10_000,
                eval_every=100, eval_tasks=4, device="cpu", seed=3)
    return TrainConfig(**{**base, **overrides})


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """The bytes of a good checkpoint after two iterations, and the trainer that wrote it."""
    folder = tmp_path_factory.mktemp("good")
    trainer = Trainer(small_config(), out_dir=folder, log=lambda row: None)
    trainer.iterate()
    trainer.iterate()
    return (folder / CHECKPOINT).read_bytes(), trainer


@pytest.fixture(scope="module")
def fresh_state():
    fresh = Trainer(small_config(), log=lambda row: None)
    return {k: v.clone() for k, v in fresh.population.state_dict().items()}, fresh.rng.bit_generator.state


def _saved(obj) -> bytes:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def _blob(good_bytes: bytes) -> dict:
    return torch.load(io.BytesIO(good_bytes), weights_only=True)


def _assert_restarted(folder, fresh_state, match: str) -> Trainer:
    with pytest.warns(DamagedFileWarning, match=match) as caught:
        trainer = Trainer(small_config(), out_dir=folder, log=lambda row: None)
    message = next(str(w.message) for w in caught if w.category is DamagedFileWarning)
    assert str(folder / CHECKPOINT) in message and "starting the run again" in message and "\n" not in message
    weights, rng = fresh_state
    assert trainer.state.iteration == 0 and trainer.state.env_steps == 0
    assert trainer.rng.bit_generator.state == rng
    for name, value in trainer.population.state_dict().items():
        assert torch.equal(value, weights[name]), name
    trainer.iterate()  # and the run goes on, writing a good checkpoint over the damaged one
    assert read_checkpoint(folder / CHECKPOINT)["state"]["iteration"] == 1
    return trainer


# ------------------------------------------------------------------- code in a checkpoint
class _RunsCode:
    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class _Evals:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (eval, (f"__import__('pathlib').Path({str(self.marker)!r}).touch()",))


def _zip_with_pickle(good_bytes: bytes, payload: bytes) -> bytes:
    """A real torch zip checkpoint whose data.pkl is replaced by ``payload``."""
    source = zipfile.ZipFile(io.BytesIO(good_bytes))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, payload if item.filename.endswith("data.pkl") else data)
    return out.getvalue()


MALICIOUS = {
    "torch.save of os.system": lambda m, g: _saved({"population": _RunsCode(f"touch {m}")}),
    "torch.save of eval": lambda m, g: _saved({"state": _Evals(m)}),
    "the whole blob runs code": lambda m, g: _saved(_RunsCode(f"touch {m}")),
    "raw pickle, protocol 0": lambda m, g: pickle.dumps(_RunsCode(f"touch {m}"), protocol=0),
    "raw pickle, protocol 5": lambda m, g: pickle.dumps({"x": _Evals(m)}, protocol=5),
    "data.pkl replaced in a real zip": lambda m, g: _zip_with_pickle(g, pickle.dumps(_RunsCode(f"touch {m}"),
                                                                                     protocol=2)),
    "data.pkl: eval in a real zip": lambda m, g: _zip_with_pickle(g, pickle.dumps([_Evals(m)], protocol=2)),
}


@pytest.mark.parametrize("attack", sorted(MALICIOUS))
def test_a_checkpoint_that_would_run_code_never_runs_it(tmp_path, good, fresh_state, attack):
    marker = tmp_path / "pwned"
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / CHECKPOINT).write_bytes(MALICIOUS[attack](marker, good[0]))
    _assert_restarted(folder, fresh_state, "not a checkpoint searchgym can load")
    assert not marker.exists()


# ---------------------------------------------------------------------- damaged bytes
BYTES = {
    "empty": lambda g: b"",
    "one byte": lambda g: g[:1],
    "cut at 10": lambda g: g[:10],
    "cut at 100": lambda g: g[:100],
    "cut in half": lambda g: g[: len(g) // 2],
    "cut by one": lambda g: g[:-1],
    "cut by 100": lambda g: g[:-100],
    "garbage": lambda g: bytes(range(256)) * 20,
    "zeros": lambda g: bytes(len(g)),
    "text": lambda g: b"this is not a checkpoint\n",
    "middle zeroed": lambda g: g[: len(g) // 3] + bytes(len(g) // 3) + g[2 * len(g) // 3:],
}


@pytest.mark.parametrize("damage", sorted(BYTES))
def test_damaged_bytes_restart_the_run_with_a_warning(tmp_path, good, fresh_state, damage):
    (tmp_path / CHECKPOINT).write_bytes(BYTES[damage](good[0]))
    _assert_restarted(tmp_path, fresh_state, "not a checkpoint searchgym can load|does not fit this run|"
                                             "fails its checksum|its archive cannot be read")


@pytest.mark.parametrize(("kind", "words"), [
    ("folder", "is a folder"), ("fifo", "is a FIFO"), ("/dev/zero", "character device"),
    ("/dev/null", "character device"), ("dangling link", "is missing"), ("link loop", "cannot be opened"),
])
def test_what_is_not_a_regular_file_restarts_without_hanging(tmp_path, fresh_state, kind, words):
    path = tmp_path / CHECKPOINT
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dangling link":
        path.symlink_to(tmp_path / "nowhere")
    elif kind == "link loop":
        path.symlink_to(path)
    else:
        path.symlink_to(kind)
    if kind == "folder":  # no checkpoint can be written over a folder: the run says what to do at once
        with pytest.raises(DamagedFile, match=f"^{re.escape(str(tmp_path / CHECKPOINT))}: is a folder.*; delete it"):
            Trainer(small_config(), out_dir=tmp_path, log=lambda row: None)
        return
    _assert_restarted(tmp_path, fresh_state, words)


# ------------------------------------------------------------------ wrong type or shape
def _wrong(good_bytes: bytes, change) -> bytes:
    blob = _blob(good_bytes)
    change(blob)
    return _saved(blob)


def _first_weight(blob):
    name = next(iter(blob["population"]))
    blob["population"][name] = torch.zeros(3, 3)


WRONG = {
    "a list": lambda g: _saved([1, 2, 3]),
    "None": lambda g: _saved(None),
    "a string": lambda g: _saved("checkpoint"),
    "a tensor": lambda g: _saved(torch.zeros(4)),
    "an empty dict": lambda g: _saved({}),
    "no population": lambda g: _wrong(g, lambda b: b.pop("population")),
    "no rng": lambda g: _wrong(g, lambda b: b.pop("rng")),
    "no state": lambda g: _wrong(g, lambda b: b.pop("state")),
    "a weight of the wrong shape": lambda g: _wrong(g, _first_weight),
    "population a list": lambda g: _wrong(g, lambda b: b.update(population=[1, 2])),
    "optimizer a string": lambda g: _wrong(g, lambda b: b.update(optimizer="adam")),
    "optimizer of another model": lambda g: _wrong(g, lambda b: b["optimizer"]["param_groups"][0].update(params=[0])),
    "rng a number": lambda g: _wrong(g, lambda b: b.update(rng=7)),
    "rng of another generator": lambda g: _wrong(g, lambda b: b["rng"].update(bit_generator="MT19937")),
    "generator state of floats": lambda g: _wrong(g, lambda b: b.update(generator=torch.zeros(3))),
    "state with an unknown field": lambda g: _wrong(g, lambda b: b["state"].update(extra=1)),
    "state a list": lambda g: _wrong(g, lambda b: b.update(state=[2, 43])),
    "calibrator a number": lambda g: _wrong(g, lambda b: b.update(calibrator=3)),
}


def _nan_weight(blob):
    name = next(iter(blob["population"]))
    blob["population"][name] = torch.full_like(blob["population"][name], float("nan"))


#: Checkpoints that load and fit, yet no run writes. Before: NaN weights ended in "probability tensor
#: contains either inf, nan or element < 0" (a traceback, resuming or playing them), and a negative
#: step count in "Seed must be greater or equal to zero".
IMPLAUSIBLE = {
    "a NaN weight": (_nan_weight, "holds NaN or infinite numbers (at /population/"),
    "negative env steps": (lambda b: b["state"].update(env_steps=-1_000_000), "holds state env_steps=-1000000"),
    "negative iteration": (lambda b: b["state"].update(iteration=-5), "holds state iteration=-5"),
    "a float iteration": (lambda b: b["state"].update(iteration=2.5), "holds state iteration=2.5"),
}


@pytest.mark.parametrize("case", sorted(IMPLAUSIBLE))
def test_a_checkpoint_no_run_writes_restarts_the_run(tmp_path, good, fresh_state, case):
    change, words = IMPLAUSIBLE[case]
    (tmp_path / CHECKPOINT).write_bytes(_wrong(good[0], change))
    _assert_restarted(tmp_path, fresh_state, re.escape(words))


@pytest.mark.parametrize("case", sorted(WRONG))
def test_a_checkpoint_of_the_wrong_type_or_shape_restarts_the_run(tmp_path, good, fresh_state, case):
    (tmp_path / CHECKPOINT).write_bytes(WRONG[case](good[0]))
    _assert_restarted(tmp_path, fresh_state, "does not fit this run|not a checkpoint's dict|holds a")


def test_load_names_the_file_and_the_remedy_on_one_line(tmp_path, good):
    (tmp_path / CHECKPOINT).write_bytes(good[0][:50])
    with pytest.raises(DamagedFile) as caught:
        good[1].load(tmp_path / CHECKPOINT)
    text = str(caught.value)
    assert text.startswith(f"{tmp_path / CHECKPOINT}: is not a checkpoint searchgym can load (")
    assert text.endswith("; delete it to start the run again") and "\n" not in text


def test_a_good_checkpoint_resumes_without_a_warning(tmp_path, good):
    (tmp_path / CHECKPOINT).write_bytes(good[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", DamagedFileWarning)
        resumed = Trainer(small_config(), out_dir=tmp_path, log=lambda row: None)
    assert resumed.state.iteration == 2 and resumed.state.env_steps == good[1].state.env_steps
    for name, value in good[1].population.state_dict().items():
        assert torch.equal(resumed.population.state_dict()[name], value), name


def test_every_trainers_checkpoint_loads_with_weights_only(tmp_path, good):
    """What a trainer saves is tensors and plain types: weights_only=True reads it whole."""
    blob = read_checkpoint(_write(tmp_path, good[0]))
    assert set(blob) == {"config", "population", "optimizer", "calibrator", "rng", "generator", "state"}
    assert blob["state"]["iteration"] == 2 and isinstance(blob["rng"]["state"]["state"], int)


def _write(tmp_path, data: bytes):
    path = tmp_path / CHECKPOINT
    path.write_bytes(data)
    return path
