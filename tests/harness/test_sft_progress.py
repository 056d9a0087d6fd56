"""What the user sees while a supervised base is built, and the training bar's dev value."""

from __future__ import annotations

import json
import os
import re

import torch
from searchgym.agents.sft_base import file_sha256
from tqdm import tqdm

from searchgym.harness import progress_base
from searchgym.harness import sft as sft_module
from searchgym.harness.compare import Comparison, run_comparison
from searchgym.harness.methods import RunContext, parse_methods
from searchgym.harness.progress_base import BUILDING, BaseProgress, builds_in_progress, describe
from searchgym.harness.runner import RunSpec, execute_run, execute_run_safely
from searchgym.harness.sft import base_key, build_base, sft_config
from searchgym.suites import Suite, register_suite

TEAM = register_suite(Suite("test-sft-progress-v0", 0, "TeamSearch-Generalists-Candidates-v0",
                            {"team_size": 2, "max_rounds": 4}, world_size="tiny", dev_size=3, test_size=3,
                            description="tests: the base's progress on a tiny generalist team"))
SFT = {"sft_demonstrator": "oracle", "sft_tasks": 3, "sft_epochs": 2, "sft_batch_size": 16}


def _ctx(tmp_path, options, progress=False) -> RunContext:
    return RunContext(suite=TEAM, seed=0, budget=0, device="cpu", run_dir=tmp_path / "run", policy="hash",
                      options=dict(options), bases_dir=tmp_path / "bases", progress=progress)


def test_the_build_reports_each_stage_and_its_file_goes_when_done(tmp_path, monkeypatch):
    options = {**SFT, "sft_dagger_rounds": 1, "sft_dagger_tasks": 2}
    config = sft_config(options)
    key = base_key(TEAM, 0, "hash", config)
    folder = tmp_path / "bases" / key
    folder.mkdir(parents=True)
    events, files = [], []

    def watched(*args, **kwargs):
        def on_event(state):
            events.append(state)
            files.append(json.loads((folder / BUILDING).read_text()))  # what a parent polling it reads

        return BaseProgress(*args, **kwargs, on_event=on_event)

    monkeypatch.setattr(sft_module, "BaseProgress", watched)
    build_base(_ctx(tmp_path, options), config, key, folder)
    seen = [describe(e) for e in events]
    head = f"supervised base seed 0 (test-sft-progress-v0, {key[:8]})"
    for line in ("demonstrations 1/3", "demonstrations 3/3", "epoch 2/2", "DAgger demonstrations 2/2, DAgger round 1/1",
                 "epoch 2/2, DAgger round 1/1", "held-out demonstrations 3/3", "scoring on dev"):
        assert f"{head}: {line}" in seen
    assert files[-1]["stage"] == "scoring on dev" and files[-1]["key"] == key
    assert not (folder / BUILDING).exists() and (folder / "base.pt").is_file()


def test_the_bar_changes_nothing_built(tmp_path):
    config = sft_config(SFT)
    key = base_key(TEAM, 0, "hash", config)
    shas, threads = [], torch.get_num_threads()
    torch.set_num_threads(1)  # as a comparison's runs do: bit-identical rebuilds
    try:
        for name, progress in (("quiet", False), ("shown", True), ("again", False)):
            folder = tmp_path / name / "bases" / key
            folder.mkdir(parents=True)
            build_base(_ctx(tmp_path / name, SFT, progress=progress), config, key, folder)
            shas.append(file_sha256(folder / "base.pt"))
    finally:
        torch.set_num_threads(threads)
    assert shas[0] == shas[1] == shas[2]


def _comparison(out, progress, workers=1, methods="sft", seeds=(0,), options=SFT) -> Comparison:
    return Comparison(suite=TEAM, methods=methods, seeds=list(seeds), budget=0, out=out, device="cpu",
                      policy="hash", options=dict(options), workers=workers, progress=progress)


def test_an_inline_comparison_shows_the_base_being_built_unless_told_not_to(tmp_path, capsys):
    run_comparison(_comparison(tmp_path / "shown", progress=True))
    err = capsys.readouterr().err
    assert "supervised base seed 0 (test-sft-progress-v0" in err  # before: only "env steps: 0%"
    assert ": demonstrations" in err and ": epoch" in err and "2/2" in err
    run_comparison(_comparison(tmp_path / "quiet", progress=False))
    assert "supervised base" not in capsys.readouterr().err


def test_the_parent_shows_a_base_a_worker_builds(tmp_path, capsys, monkeypatch):
    from searchgym.harness import compare

    monkeypatch.setattr(progress_base, "WRITE_EVERY", 0.0)

    def pool(todo, workers, threads, record, tick=lambda: None):  # a worker building seed 1's base
        folder = tmp_path / "out" / "bases" / "0123456789abcdef"
        folder.mkdir(parents=True)
        shown = BaseProgress(folder, 1, TEAM.id, "0123456789abcdef", 0, bar=False)
        shown.start("epoch", 16)
        shown.step(3)
        tick()
        shown.close()
        for spec in todo:
            record(execute_run_safely(spec))

    monkeypatch.setattr(compare, "run_in_pool", pool)
    run_comparison(_comparison(tmp_path / "out", progress=True, workers=2, methods="random", seeds=(0, 1),
                               options={}))
    assert "supervised base seed 1 (test-sft-progress-v0, 01234567): epoch 3/16" in capsys.readouterr().err


def test_only_fresh_records_of_builds_are_shown(tmp_path, monkeypatch):
    monkeypatch.setattr(progress_base, "WRITE_EVERY", 0.0)
    bases = tmp_path / "bases"
    for key, stage in (("a" * 16, "epoch"), ("b" * 16, "demonstrations")):
        (bases / key).mkdir(parents=True)
        shown = BaseProgress(bases / key, 0, "s", key, 2, bar=False)
        shown.start(stage, 5, round=1)
        shown.step(2)
    assert builds_in_progress(bases, since=0) == ["supervised base seed 0 (s, aaaaaaaa): epoch 2/5, DAgger round 1/2",
                                                  "supervised base seed 0 (s, bbbbbbbb): demonstrations 2/5, DAgger round 1/2"]
    os.utime(bases / ("a" * 16) / BUILDING, (1, 1))  # left by a killed build
    (bases / "c").mkdir()
    (bases / "c" / BUILDING).write_text("[1]")  # not a record: skipped, not an error
    (bases / "d").mkdir()
    (bases / "d" / BUILDING).symlink_to(bases / ("b" * 16) / BUILDING)
    assert builds_in_progress(bases, since=100) == [
        "supervised base seed 0 (s, bbbbbbbb): demonstrations 2/5, DAgger round 1/2"]
    assert builds_in_progress(tmp_path / "none", since=0) == []


def test_the_training_bar_shows_the_last_dev_value_not_nan(tmp_path, capsys):
    options = {"group_size": 2, "tasks_per_iteration": 1, "eval_every": 2, "eval_tasks": 1}
    spec = RunSpec(TEAM, parse_methods("grpo")[0], 0, 60, tmp_path, "cpu", "hash", progress=True, options=options)
    execute_run(spec)
    err = capsys.readouterr().err
    assert "train=" in err and "dev=nan" not in err  # before: dev=nan on every iteration without an evaluation
    drawn = {int(step): shown for step, shown in re.findall(r"(\d+)/60 \[([^\]]*)\]", err)}  # the last draw per step
    rows = [json.loads(line) for line in (spec.run_dir / "metrics.jsonl").read_text().splitlines()]
    dev, carried = None, 0
    for row in rows:  # the start point's dev value too: the bar shows it from the first iteration
        if "dev_success" in row:
            dev = row["dev_success"]
        elif "train_success" in row:
            carried += dev is not None
        if "train_success" not in row:
            continue
        shown = drawn[min(row["step"], 60)]  # the bar stops at the budget
        assert ("dev=" not in shown) if dev is None else f"dev={tqdm.format_num(dev)}," in shown
    assert carried  # an iteration without an evaluation showed the last one measured
