"""Leftover hostile-file reads of torch files: a comparison's supervised base (``bases/<key>/base.pt``) is
hashed and loaded neither through a link nor whatever its size, and a checkpoint holding a key no
searchgym trainer writes is refused, one line naming the file and the keys it may hold.

Before: base.pt was hashed through a link and whatever its size (a sparse file of 4 GB: hashed whole, then
"changed after it was built"), read_base followed a link, and read_checkpoint took any top-level key.
The base's record (base.json) is read with a run record's bounds (not through a link, at most 4 MiB and
200,000 values), and a folder where the build writes a file is refused before anything is built."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from searchgym.agents.sft_base import read_base
from searchgym.agents.trainer_base import CHECKPOINT, TrainState, read_checkpoint

from searchgym.damaged import DELETE_AND_RERUN, LINKED_READ, DamagedFile, DamagedFileWarning
from searchgym.harness.methods import RunContext
from searchgym.harness.run_reads import MAX_RUN_JSON_BYTES, MAX_RUN_JSON_VALUES
from searchgym.harness.sft import BASE, META, PARTIAL, base_key, ensure_base, sft_config
from searchgym.suites import Suite, register_suite

pytestmark = pytest.mark.timeout(300)
QA = register_suite(Suite("test-hostile-leftovers-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6},
                          world_size="tiny", dev_size=3, test_size=3, description="tests: hostile base files"))
SFT = {"sft_tasks": 3, "sft_epochs": 1, "sft_batch_size": 16}
HUGE = 4 * 2**30 + 1  # one byte past the largest base of a hash policy (sft_base.MAX_BOUNDED_BASE_BYTES); sparse


def _ctx(root) -> RunContext:
    return RunContext(suite=QA, seed=0, budget=0, device="cpu", run_dir=root / "run", policy="hash",
                      options=dict(SFT), bases_dir=root / "bases")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("built")
    meta = ensure_base(_ctx(root), sft_config(SFT))
    return root, meta


def _copy(built, tmp_path):
    root, meta = built
    shutil.copytree(root / "bases", tmp_path / "bases")
    return tmp_path / "bases" / meta["key"] / "base.pt"


def test_a_linked_base_is_refused_unread(built, tmp_path):
    path = _copy(built, tmp_path)
    outside = tmp_path / "outside.pt"
    shutil.move(path, outside)
    path.symlink_to(outside)  # the very base, elsewhere: before, hashed and loaded where the link pointed
    with pytest.raises(DamagedFile) as caught:
        ensure_base(_ctx(tmp_path), sft_config(SFT))
    assert str(caught.value) == (f"{path}: {LINKED_READ}; delete {path.parent} and re-run the same command to "
                                 "build the base again")
    with pytest.raises(DamagedFile, match=f"^{path}: is a symbolic link"):
        read_base(path)
    path.unlink()
    shutil.copy(outside, path)
    assert ensure_base(_ctx(tmp_path), sft_config(SFT))["sha256"] == built[1]["sha256"]


def test_a_huge_base_is_one_line_before_it_is_hashed(built, tmp_path):
    path = _copy(built, tmp_path)
    os.truncate(path, HUGE)
    with pytest.raises(DamagedFile) as caught:
        ensure_base(_ctx(tmp_path), sft_config(SFT))
    assert str(caught.value) == (f"{path}: is {HUGE} bytes, more than the {HUGE - 1} such a file may hold; delete "
                                 f"{path.parent} and re-run the same command to build the base again")
    with pytest.raises(DamagedFile, match=f"^{path}: is {HUGE} bytes"):
        read_base(path, "hash")


def test_an_sft_runs_huge_base_is_one_line_in_evaluate(tmp_path, capsys):
    from harness_helpers import TINY_QA

    from searchgym.cli import main
    from searchgym.harness.methods import resolve_method
    from searchgym.harness.runner import RunSpec, execute_run

    out = tmp_path / "cmp"
    execute_run(RunSpec(TINY_QA, resolve_method("sft"), 0, 0, out, options=SFT))
    run = out / "runs" / "sft" / "seed0"
    base = out / "bases" / json.loads((run / "config.json").read_text())["base"]["key"] / "base.pt"
    os.truncate(base, HUGE)  # before: 4 GB hashed, then "with another sha256 than the run recorded"
    capsys.readouterr()
    assert main(["evaluate", "--agent", "run", "--agent-option", f"path={run}", "--out", str(tmp_path / "e"),
                 "--no-progress", "--limit", "2", "--suite", TINY_QA.id]) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert f"damaged file: {base}: is {HUGE} bytes, more than the {HUGE - 1} such a file may hold" in err, err


def test_the_played_runs_files_are_hashed_never_through_a_link(tmp_path):
    from searchgym.harness.run_agent import CHECKPOINT as RUN_CHECKPOINT
    from searchgym.harness.run_agent import CONFIG, TrainedRun, played_identity

    folder = tmp_path / "run"
    (folder / RUN_CHECKPOINT).parent.mkdir(parents=True)
    (folder / CONFIG).write_text("{}")
    outside = tmp_path / "elsewhere.pt"
    outside.write_bytes(b"weights")
    (folder / RUN_CHECKPOINT).symlink_to(outside)  # made a link after read_run checked it was none
    run = TrainedRun(folder, {"method_path": "searchgym.method_table:grpo"}, None)
    with pytest.raises(DamagedFile, match=f"^{folder / RUN_CHECKPOINT}: is a symbolic link"):
        played_identity(run)


# ------------------------------------------------------------------------------------- checkpoints
def _trainer(folder, **overrides):
    from searchgym.agents.train import TrainConfig, Trainer

    config = TrainConfig(env_id="SearchQA-Candidates-Easy-v0", env_kwargs={"world_size": "tiny", "max_steps": 4},
                         group_size=2, tasks_per_iteration=2, budget=1000, eval_every=1000, eval_tasks=2,
                         device="cpu", **overrides)
    return Trainer(config, out_dir=folder, log=lambda row: None)


def _saved(blob) -> bytes:
    buffer = io.BytesIO()
    torch.save(blob, buffer)
    return buffer.getvalue()


def test_a_checkpoint_with_a_key_no_trainer_writes_is_refused(tmp_path):
    trainer = _trainer(tmp_path / "run", loss={"kl_coef": 0.1})
    trainer.iterate()
    path = tmp_path / "run" / CHECKPOINT
    blob = read_checkpoint(path)  # the trainer's own, with the KL term's reference: read
    assert "reference" in blob
    path.write_bytes(_saved({**blob, "evil": torch.zeros(3), "more": 1}))
    with pytest.raises(DamagedFile) as caught:
        read_checkpoint(path)
    from searchgym.agents.trainer_base import CHECKPOINT_KEYS

    said = str(caught.value)
    assert said == (f"{path}: holds the key(s) 'evil', 'more', which no checkpoint of a searchgym trainer holds "
                    f"(accepted: {', '.join(sorted(CHECKPOINT_KEYS))}); delete it to start the run again")
    with pytest.warns(DamagedFileWarning, match="holds the key.*starting the run again from its beginning"):
        resumed = _trainer(tmp_path / "run", loss={"kl_coef": 0.1})
    assert resumed.state.iteration == 0
    path.write_bytes(_saved({**blob, "mine": 1}))  # a trainer that writes a key of its own names it
    assert read_checkpoint(path, keys=CHECKPOINT_KEYS | {"mine"})["mine"] == 1


def test_every_checkpoint_searchgym_writes_holds_accepted_keys(tmp_path):
    from baselines_helpers import TINY_TEAM, make_ctx, spec_config
    from searchgym.agents.llm_train import LLMTrainer
    from searchgym.agents.trainer_base import CHECKPOINT_KEYS
    from searchgym.baselines.mappo import MAPPOTrainer

    critic = MAPPOTrainer(spec_config("mappo", make_ctx(TINY_TEAM, tmp_path, budget=20)), out_dir=tmp_path / "m",
                          log=lambda row: None)
    critic.iterate()
    assert {"critic", "extra"} <= set(read_checkpoint(tmp_path / "m" / CHECKPOINT))
    llm = SimpleNamespace(config=TrainState(), members=[], optimizers=[], references=None,
                          rng=np.random.default_rng(0), state=TrainState())
    assert set(LLMTrainer.state_dict(llm)) <= CHECKPOINT_KEYS
    assert set(_trainer(None).state_dict()) <= CHECKPOINT_KEYS


def _linked(meta, path, tmp_path):
    elsewhere = tmp_path / "elsewhere.json"  # the base's own record, valid: still not this folder's file
    shutil.move(path, elsewhere)
    path.symlink_to(elsewhere)


def _many_values(meta, path, tmp_path):
    path.write_text(json.dumps({**meta, "padding": [[]] * MAX_RUN_JSON_VALUES}))


def _many_bytes(meta, path, tmp_path):
    path.write_text(json.dumps({**meta, "padding": "x" * MAX_RUN_JSON_BYTES}))


@pytest.mark.parametrize(("damage", "said"), [
    (_linked, LINKED_READ),
    (_many_values, f"holds more than {MAX_RUN_JSON_VALUES} JSON values, where a base's base.json holds"),
    (_many_bytes, f"more than the {MAX_RUN_JSON_BYTES}"),
])
def test_a_base_record_is_read_with_a_run_records_bounds(built, tmp_path, damage, said):
    """Before: each was read (through the link; 256 MiB of any values) and the base was used."""
    folder = _copy(built, tmp_path).parent
    damage(json.loads((folder / META).read_text()), folder / META, tmp_path)
    with pytest.raises(DamagedFile) as caught:
        ensure_base(_ctx(tmp_path), sft_config(SFT))
    assert str(caught.value).startswith(f"{folder / META}: ") and said in str(caught.value)
    assert str(caught.value).endswith(f"delete {folder} and re-run the same command to build the base again")


@pytest.mark.parametrize("name", [BASE, META, PARTIAL])
def test_a_folder_where_the_build_writes_a_file_is_refused_before_building(tmp_path, name):
    """Before (base.pt, base.json): the base was demonstrated and fitted, then its save failed with
    IsADirectoryError, and the re-run it advised built it again and failed the same way; (partial.pt)
    the demonstrations were made before the first save failed."""
    folder = tmp_path / "bases" / base_key(QA, 0, "hash", sft_config(SFT))
    (folder / name).mkdir(parents=True)
    (folder / name / "keep.txt").write_text("mine")
    with pytest.raises(DamagedFile, match=re.escape(f"{folder / name}: is a folder where the base's build writes "
                                                    f"a file; {DELETE_AND_RERUN}")):
        ensure_base(_ctx(tmp_path), sft_config(SFT))
    assert sorted(p.name for p in folder.iterdir()) == sorted([".lock", name])  # nothing built
    assert (folder / name / "keep.txt").read_text() == "mine"
