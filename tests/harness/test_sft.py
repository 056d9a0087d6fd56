"""The supervised base: the sft method, --option init=sft, one shared cached base, resume, weights_only."""

from __future__ import annotations

import json
import multiprocessing as mp

import pytest
import torch
from searchgym.agents.sft_base import file_sha256, read_base

from searchgym.fileio import read_json
from searchgym.harness.methods import RunContext, parse_methods
from searchgym.harness.runner import RunSpec, execute_run
from searchgym.harness.sft import PARTIAL, base_key, build_base, ensure_base, sft_config
from searchgym.suites import Suite, register_suite

TEAM = register_suite(Suite("test-sft-team-v0", 0, "TeamSearch-Generalists-Candidates-v0",
                            {"team_size": 2, "max_rounds": 4}, world_size="tiny", dev_size=3, test_size=3,
                            description="tests: the supervised base on a tiny generalist team"))
SFT = {"sft_demonstrator": "oracle", "sft_tasks": 3, "sft_epochs": 2, "sft_batch_size": 16}
POLICY = {"policy": "attn"}


def _spec(tmp_path, method: str, options: dict, budget: int = 0) -> RunSpec:
    return RunSpec(TEAM, parse_methods(method)[0], 0, budget, tmp_path, "cpu", "attn", options=options)


def _ctx(tmp_path, options=None) -> RunContext:
    return RunContext(suite=TEAM, seed=0, budget=0, device="cpu", run_dir=tmp_path / "run", policy="attn",
                      options=dict(options or SFT), bases_dir=tmp_path / "bases")


def test_sft_and_rl_runs_share_one_base_recorded_in_config(tmp_path):
    execute_run(_spec(tmp_path, "sft", SFT, budget=500))  # a budget the base does not spend
    execute_run(_spec(tmp_path, "grpo", {**SFT, "init": "sft", "group_size": 2, "tasks_per_iteration": 1,
                                         "eval_every": 1, "eval_tasks": 1}, budget=8))
    bases = list((tmp_path / "bases").iterdir())
    assert len(bases) == 1  # built once, by the first run
    sha = file_sha256(bases[0] / "base.pt")
    for method in ("sft", "grpo"):
        config = read_json(tmp_path / "runs" / method / "seed0" / "config.json")
        assert config["base"]["sha256"] == sha and config["base"]["key"] == bases[0].name
        assert config["base"]["settings"]["sft_tasks"] == 3
    rows = [json.loads(line) for line in (tmp_path / "runs" / "sft" / "seed0" / "metrics.jsonl").read_text().splitlines()]
    assert rows[0]["step"] > 0 and 0.0 <= rows[0]["dev_success"] <= 1.0
    meta = read_json(bases[0] / "base.json")
    assert meta["examples"] == rows[0]["step"] and set(meta["dev_agreement"]) >= {"all"}
    assert not (bases[0] / PARTIAL).exists()
    # the board's training budget: the base's demonstrated agent-steps; an RL run's env-step budget
    budgets = {m: read_json(tmp_path / "runs" / m / "seed0" / "config.json")["training_budget"] for m in ("sft", "grpo")}
    assert budgets == {"sft": meta["examples"], "grpo": 8}


def test_key_depends_on_seed_policy_and_settings():
    config = sft_config(SFT)
    key = base_key(TEAM, 0, "attn", config)
    assert key == base_key(TEAM, 0, "attn", sft_config(dict(SFT)))
    assert len({key, base_key(TEAM, 1, "attn", config), base_key(TEAM, 0, "hash", config),
                base_key(TEAM, 0, "attn", sft_config({**SFT, "sft_tasks": 4}))}) == 4


def test_sft_options_are_checked():
    assert sft_config({"lr": 0.1, "init": "sft", "sft.sft_epochs": 2}).sft_epochs == 2  # others' options ignored
    with pytest.raises(ValueError, match="unknown option 'sft_task'; the supervised base accepts: sft_batch_size"):
        sft_config({"sft_task": 3})
    with pytest.raises(ValueError, match="unknown sft_demonstrator 'teacher'; accepted: reader, oracle"):
        sft_config({"sft_demonstrator": "teacher"})
    with pytest.raises(ValueError, match="sft_tasks must be an integer >= 1; got 0"):
        sft_config({"sft_tasks": 0})


def _build_in_child(tmp: str, out: mp.Queue) -> None:
    from pathlib import Path

    meta = ensure_base(_ctx(Path(tmp)), sft_config(SFT))
    out.put((meta["sha256"], meta["built_by_pid"]))


def test_two_processes_build_it_once(tmp_path):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_build_in_child, args=(str(tmp_path), queue)) for _ in range(2)]
    for p in procs:
        p.start()
    got = [queue.get(timeout=600) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert got[0] == got[1]  # the same file, built by the same one of the two processes
    assert got[0][1] in {p.pid for p in procs}
    folder = next((tmp_path / "bases").iterdir())
    assert read_json(folder / "base.json")["sha256"] == got[0][0]


def test_an_interrupted_build_resumes_to_the_same_base(tmp_path, monkeypatch):
    from searchgym.harness import sft as sft_module

    config = sft_config(SFT)
    key = base_key(TEAM, 0, "attn", config)
    uninterrupted = ensure_base(_ctx(tmp_path / "a"), config)

    calls = {"n": 0}
    real_fit = sft_module.fit_epoch

    def dies_in_second_epoch(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("killed")
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(sft_module, "fit_epoch", dies_in_second_epoch)
    folder = tmp_path / "b" / "bases" / key
    folder.mkdir(parents=True)
    with pytest.raises(KeyboardInterrupt):
        build_base(_ctx(tmp_path / "b"), config, key, folder)
    partial = torch.load(folder / PARTIAL, weights_only=True)
    assert partial["epoch"] == 1 and not (folder / "base.pt").exists()
    first_wall, first_cpu = partial["build_seconds"]  # what the killed process spent
    assert first_wall > 0 and first_cpu > 0
    calls["n"] = 10  # counts the epochs the resumed build fits: only the second one is left
    resumed = ensure_base(_ctx(tmp_path / "b"), config)
    assert calls["n"] == 11
    assert resumed["sha256"] == uninterrupted["sha256"]  # the same weights as without the kill
    assert not (folder / PARTIAL).exists()
    # the build's time is every process's (before: only the one that finished it, so a resumed base looked cheaper)
    meta = read_json(folder / "base.json")
    assert meta["build_wall_seconds"] >= round(first_wall, 2) and meta["build_cpu_seconds"] >= round(first_cpu, 2)


def test_base_file_is_read_weights_only_and_checked(tmp_path):
    meta = ensure_base(_ctx(tmp_path), sft_config(SFT))
    blob = read_base(meta["path"])
    assert blob["policy"] == "attn" and blob["key"] == meta["key"]
    hostile = tmp_path / "hostile.pt"
    torch.save({"format": 1, "state_dict": {}, "payload": object()}, hostile)  # needs pickle to load
    # the refusal in one line: the global it would have to load, not torch's paragraphs of advice
    with pytest.raises(ValueError, match=r"hostile.pt: holds what torch.load\(weights_only=True\) refuses \([^\n]*\); "
                                         r"delete .* and re-run the same command to build"):
        read_base(hostile)
    with pytest.raises(ValueError, match="no supervised base at"):
        read_base(tmp_path / "missing.pt")
    from searchgym.agents.population import Population
    from searchgym.agents.sft_base import load_base_into

    with pytest.raises(ValueError, match="is a base for --policy attn, not hash"):
        load_base_into(Population.build("shared", 2, encoder="hash", seed=0), meta["path"], "hash")


def test_init_sft_without_a_base_is_a_clear_error():
    from searchgym.agents.train import TrainConfig, Trainer

    config = TrainConfig(env_id="TeamSearch-Generalists-Candidates-v0", env_kwargs={"world_size": "tiny"},
                         policy="attn", init="sft", group_size=2, device="cpu")
    with pytest.raises(ValueError, match="init='sft' needs the base's file"):
        Trainer(config)
    with pytest.raises(ValueError, match="unknown init 'base'; accepted: scratch, sft"):
        TrainConfig(init="base")


@pytest.mark.parametrize("method", ["mappo", "coma", "info_gain"])
def test_every_trainer_starts_from_the_base(tmp_path, method, monkeypatch):
    from searchgym.agents import train as train_module

    loaded = []
    real = train_module.load_base_into
    monkeypatch.setattr(train_module, "load_base_into", lambda *a: loaded.append(a[1]) or real(*a))
    options = {**SFT, "init": "sft", "group_size": 2, "tasks_per_iteration": 1, "eval_every": 1, "eval_tasks": 1}
    if method != "info_gain":
        options["update_epochs"] = 1
    execute_run(_spec(tmp_path, method, options, budget=8))
    config = read_json(tmp_path / "runs" / method / "seed0" / "config.json")
    assert loaded == [config["base"]["path"]]
    assert (tmp_path / "runs" / method / "seed0" / "DONE").exists()


def test_the_reader_is_the_default_demonstrator_and_labels_from_the_observation():
    from searchgym.agents.imitation import demonstrations

    from searchgym.harness.sft import demonstrator
    from searchgym.suites import make_env, tasks

    assert sft_config({}).sft_demonstrator == "reader"
    examples, _ = demonstrations(make_env(TEAM, "train"), demonstrator("reader", TEAM, 0), tasks(TEAM, "train")[:2], 0)
    from searchgym.baselines.reader import ReaderPolicy

    reader = ReaderPolicy()
    observations = examples.observations(range(len(examples)))
    assert len(examples) > 0 and [reader.choose(o) for o in observations] == examples.action


def test_sft_scores_sampled_by_default_and_greedy_on_request(tmp_path):
    from searchgym.harness.sft import sft_method

    assert sft_method(_ctx(tmp_path)).decoding == "sample"
    assert sft_method(_ctx(tmp_path, {**SFT, "decoding": "greedy"})).decoding == "greedy"
    with pytest.raises(ValueError, match="unknown decoding 'best'; accepted: sample, greedy"):
        sft_method(_ctx(tmp_path, {**SFT, "decoding": "best"}))


def test_rl_fresh_tasks_trains_only_on_train_tasks_the_base_was_not_shown(tmp_path, monkeypatch):
    from searchgym.agents.train import Trainer

    from searchgym.suites import tasks

    played, collect = [], Trainer.collect
    monkeypatch.setattr(Trainer, "collect", lambda self, task_ids, seed: (played.extend(task_ids),
                                                                          collect(self, task_ids, seed))[1])
    every = {t.id for t in tasks(TEAM, "train")}
    options = {**SFT, "sft_tasks": len(every) - 3, "init": "sft", "rl_fresh_tasks": True, "group_size": 2,
               "tasks_per_iteration": 3, "update_epochs": 1, "eval_every": 100, "eval_tasks": 1}
    execute_run(_spec(tmp_path, "grpo", options, budget=60))
    meta = read_json(next((tmp_path / "bases").iterdir()) / "base.json")
    shown = set(meta["shown_tasks"])
    assert len(shown) == len(every) - 3 and shown < every
    assert played and set(played) == every - shown  # RL saw the three tasks the base was not shown, and only those
    with pytest.raises(ValueError, match="leaves out the tasks the supervised base was shown: true needs init=sft"):
        execute_run(_spec(tmp_path / "scratch", "grpo", {"rl_fresh_tasks": True}, budget=8))
    with pytest.raises(ValueError, match="the base was shown every train task"):
        execute_run(_spec(tmp_path / "every", "grpo", {**options, "sft_tasks": len(every)}, budget=8))


def test_the_base_is_built_with_the_runs_policy_kwargs(tmp_path):
    """A run with policy_kwargs starts from a base of the same layout; a base without them keeps its key."""
    spec = RunSpec(TEAM, parse_methods("grpo")[0], 0, 8, tmp_path, "cpu", "hash",
                   options={**SFT, "init": "sft", "policy_kwargs": {"operand_sources": True}, "group_size": 2,
                            "tasks_per_iteration": 1, "update_epochs": 1, "eval_every": 100, "eval_tasks": 1})
    execute_run(spec)
    assert (tmp_path / "runs" / "grpo" / "seed0" / "DONE").exists()
    (folder,) = list((tmp_path / "bases").iterdir())
    assert read_json(folder / "base.json")["policy_kwargs"] == {"operand_sources": True}
    from searchgym.agents.policy import make_policy

    state = read_base(folder / "base.pt")["state_dict"]
    make_policy("hash", seed=0, operand_sources=True).load_state_dict(state)  # the layout the RL run needs
    with pytest.raises(RuntimeError, match="size mismatch"):
        make_policy("hash", seed=0).load_state_dict(state)
    config = sft_config(SFT)
    assert folder.name == base_key(TEAM, 0, "hash", config, {"operand_sources": True})
    assert base_key(TEAM, 0, "hash", config, {}) == base_key(TEAM, 0, "hash", config)
    assert len({base_key(TEAM, 0, "hash", config), folder.name}) == 2


def test_dagger_rounds_play_tasks_when_every_train_task_was_demonstrated(tmp_path):
    """The DAgger tasks follow the demonstration order and wrap round it: with sft_tasks past the split's
    size they used to be an empty slice, so the rounds labelled nothing and only refitted."""
    from searchgym.suites import tasks

    every = len(tasks(TEAM, "train"))
    plain = ensure_base(_ctx(tmp_path / "a"), sft_config({**SFT, "sft_tasks": every + 5}))
    dagger = ensure_base(_ctx(tmp_path / "b"), sft_config({**SFT, "sft_tasks": every + 5, "sft_dagger_rounds": 1,
                                                            "sft_dagger_tasks": 2}))
    assert len(dagger["dagger_success"]) == 1
    assert dagger["examples"] > plain["examples"]  # the learner's states, labelled by the demonstrator


def test_a_new_version_of_a_feature_set_is_a_new_base(monkeypatch):
    """Bases built with comparison_facts name its version: when what it computes changes, a base
    of the earlier version is not loaded as this one (it has the same columns)."""
    import searchgym.policy_format as formats

    config = sft_config(SFT)
    plain = base_key(TEAM, 0, "hash", config)
    other = base_key(TEAM, 0, "hash", config, {"operand_sources": True})
    with_facts = base_key(TEAM, 0, "hash", config, {"comparison_facts": True})
    monkeypatch.setitem(formats.FEATURE_VERSIONS, "comparison_facts", 99)
    assert base_key(TEAM, 0, "hash", config) == plain  # a policy without it keeps its key
    assert base_key(TEAM, 0, "hash", config, {"operand_sources": True}) == other
    assert base_key(TEAM, 0, "hash", config, {"comparison_facts": True}) != with_facts
    assert formats.feature_versions({"comparison_facts": False}) == {}


def test_sft_refuses_options_it_does_not_read_in_its_brackets_or_alone(tmp_path, capsys):
    """Before: s=sft[nosuch=1] and train --method sft --option lr=0.1 ran silently (lr meant as sft_lr)."""
    from types import SimpleNamespace

    from harness_helpers import TINY_QA

    from searchgym.cli import main
    from searchgym.harness.methods import parse_methods
    from searchgym.harness.preflight import check_sft_options

    train = ["train", "--method", "sft", "--world-size", "tiny", "--test-size", "3", "--no-progress",
             "--option", "sft_tasks=10"]
    for extra, said in ((["--option", "lr=0.1"], "unknown option 'lr'; the supervised base accepts: "),
                        (["--option", "nosuch=1"], "unknown option 'nosuch'; the supervised base accepts: ")):
        out = tmp_path / extra[1].split("=")[0]
        assert main([*train, *extra, "--out", str(out)]) == 2
        assert said in capsys.readouterr().err and not out.exists()
    out = tmp_path / "cmp"
    assert main(["compare", "--suite", TINY_QA.id, "--methods", "s=sft[nosuch=1],random", "--budget", "0",
                 "--no-progress", "--out", str(out)]) == 2
    assert "method 's': unknown option 'nosuch'; the supervised base accepts: " in capsys.readouterr().err
    # beside other methods, a comparison-wide option is theirs (make main gives lr to every method)
    check_sft_options(SimpleNamespace(methods=parse_methods("sft,sg=sft[decoding=greedy],grpo"), suite=TINY_QA,
                                      options={"lr": 0.001, "init": "sft", "sft_tasks": 10}))
