"""`searchgym evaluate --agent run --agent-option path=RUN_FOLDER`: a trained run's policy scored again.

Before, a policy trained by `searchgym train` or `compare` could not be scored again (another
suite, another seed): evaluate took only named baselines, the endpoint agent or module:factory."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from harness_helpers import TINY_QA

from searchgym.cli import main
from searchgym.harness.methods import resolve_method
from searchgym.harness.runner import RunSpec, execute_run

TRAIN = ["--env", "SearchQA-Candidates-v0", "--world-size", "tiny", "--budget", "200", "--test-size", "4",
         "--no-progress"]
SFT = {"sft_tasks": 10, "sft_epochs": 1, "sft_dagger_rounds": 0}


def listing(folder):
    """Every path under ``folder`` with its size and mtime (what "nothing written" compares)."""
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A finished `searchgym train` run folder (about 5 s)."""
    out = tmp_path_factory.mktemp("train") / "x"
    assert main(["train", *TRAIN, "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """A comparison's folder: an sft run and an RL run started from its own base (init=sft, greedy)."""
    out = tmp_path_factory.mktemp("compare")
    execute_run(RunSpec(TINY_QA, resolve_method("sft"), 0, 0, out, options=SFT))
    execute_run(RunSpec(TINY_QA, resolve_method("cw_grpo"), 1, 120, out,
                        options={**SFT, "init": "sft", "decoding": "greedy"}))
    return out


def evaluate(path, out, *extra):
    return main(["evaluate", "--agent", "run", "--agent-option", f"path={path}", "--out", str(out), "--no-progress",
                 *extra])


def test_a_train_run_is_replayed_exactly_without_training_or_writing(trained, tmp_path, monkeypatch, capsys):
    """The run's own suite (no --suite) and seed give its own predictions, byte for byte, and its
    dev scores; no trainer trains or saves, and the run folder is left as it was."""
    from searchgym.agents.trainer_base import TrainerBase

    def refuse(*args, **kwargs):
        raise AssertionError("the run's policy was trained or saved again")

    monkeypatch.setattr(TrainerBase, "train", refuse)
    monkeypatch.setattr(TrainerBase, "save", refuse)
    before = listing(trained)
    out = tmp_path / "ev"
    assert evaluate(trained, out) == 0
    assert "run-cw_grpo-seed0 on train-SearchQA-Candidates-v0 (test split, 4 tasks)" in capsys.readouterr().out
    assert (out / "predictions.jsonl").read_bytes() == (trained / "predictions.jsonl").read_bytes()
    mine, theirs = (json.loads((f / "result.json").read_text()) for f in (out, trained))
    assert mine["test"] == theirs["test"] and mine["dev"] == theirs["dev"]
    assert json.loads((out / "config.json").read_text())["played_run"]["method"] == "cw_grpo"
    assert listing(trained) == before


def test_comparison_runs_replay_and_init_sft_needs_no_base(compared, tmp_path, capsys):
    """An sft run plays its base (found in <out>/bases); an RL run that started from a base plays
    its checkpoint with its greedy decoding even once the bases are gone."""
    sft, rl = compared / "runs" / "sft" / "seed0", compared / "runs" / "cw_grpo" / "seed1"
    assert evaluate(sft, tmp_path / "sft", "--suite", TINY_QA.id) == 0
    assert (tmp_path / "sft" / "predictions.jsonl").read_bytes() == (sft / "predictions.jsonl").read_bytes()
    moved = shutil.move(compared / "bases", tmp_path / "bases-away")
    try:
        before = listing(rl)
        assert evaluate(rl, tmp_path / "rl", "--suite", TINY_QA.id, "--seed", "1") == 0
        assert (tmp_path / "rl" / "predictions.jsonl").read_bytes() == (rl / "predictions.jsonl").read_bytes()
        assert listing(rl) == before
        # without its base the sft run is refused in one line that says where it looked
        assert evaluate(sft, tmp_path / "sft2", "--suite", TINY_QA.id) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "supervised base" in err[0] and str(compared / "bases") in err[0], err
        assert not (tmp_path / "sft2").exists()
    finally:
        shutil.move(moved, compared / "bases")


def test_another_suite_and_seed(trained, tmp_path, capsys):
    """The policy plays another suite of the same kind with another seed; a suite of another kind
    (text actions, a team) is one error line before any folder."""
    out = tmp_path / "other"
    assert evaluate(trained, out, "--suite", TINY_QA.id, "--seed", "3", "--limit", "3") == 0
    rows = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(rows) == 3 and {r["task_id"] for r in rows} <= {t.id for t in TINY_QA.tasks("test")}
    capsys.readouterr()
    for suite in ("searchqa-text-v2", "team-v2"):
        assert evaluate(trained, tmp_path / suite, "--suite", suite) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "its policy cannot act there" in err[0], err
        assert not (tmp_path / suite).exists()
    assert main(["evaluate", "--agent", "random", "--out", str(tmp_path / "r")]) == 2
    assert "--suite is required" in capsys.readouterr().err


def edited(trained, tmp_path, **changes):
    """A copy of the trained run whose config.json has ``changes`` (None: the key removed)."""
    folder = tmp_path / "copy"
    shutil.copytree(trained, folder)
    config = json.loads((folder / "config.json").read_text())
    for key, value in changes.items():
        config.pop(key) if value is None else config.__setitem__(key, value)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


REFUSALS = {
    "not a folder": (lambda t, p: p / "nowhere", "is not a folder"),
    "no config": (lambda t, p: p, "is not a run folder (no config.json)"),
    "random": (lambda t, p: edited(t, p, method="random", trains=False),
               "trains nothing: evaluate it by name (--agent random)"),
    "an evaluation": (lambda t, p: edited(t, p, method_path="searchgym.harness.methods:agent_method", trains=False),
                      "is a `searchgym evaluate` folder"),
    # an LLM-policy run plays (test_evaluate_run_llm.py); policy llm beside a candidate method is no run's record
    "llm": (lambda t, p: edited(t, p, policy="llm"), "records policy 'llm' for the method 'cw_grpo', "
            "whose runs train candidate policies"),
    "a user's method": (lambda t, p: edited(t, p, method_path="mypkg.mod:factory"), "not a built-in learning method"),
    "no checkpoint": (lambda t, p: (shutil.rmtree(edited(t, p) / "checkpoint"), p / "copy")[1],
                      "has no checkpoint/checkpoint.pt"),
    # before: found only after the evaluation's folder (.lock, config.json) was written
    "another run's checkpoint": (lambda t, p: edited(t, p, options={"lr": 0.01}),
                                 "was written by another run than config.json records (lr: 0.003 there, 0.01 now)"),
    "an unknown decoding": (lambda t, p: t, "decoding must be one of sample, greedy"),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_refusals_are_one_line_before_any_folder(case, trained, tmp_path, capsys):
    make, expected = REFUSALS[case]
    path = make(trained, tmp_path)
    extra = ["--agent-option", "decoding=top_k"] if case == "an unknown decoding" else []
    assert evaluate(path, tmp_path / "ev", *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0] and "Traceback" not in err[0], err
    assert not (tmp_path / "ev").exists()


@pytest.mark.parametrize("damage", ["config cut", "config without suite", "checkpoint garbage",
                                    "checkpoint of no trainer"])
def test_a_damaged_file_is_one_line_naming_it(damage, trained, tmp_path, capsys):
    folder = edited(trained, tmp_path, **({"suite": None} if damage == "config without suite" else {}))
    name = "config.json" if damage.startswith("config") else "checkpoint/checkpoint.pt"
    if damage == "config cut":
        (folder / name).write_text('{"method": "cw_')
    elif damage == "checkpoint garbage":
        (folder / name).write_bytes(b"\x80\x02not a checkpoint")
    elif damage == "checkpoint of no trainer":
        torch.save({"weights": torch.zeros(2)}, folder / name)
    assert evaluate(folder, tmp_path / "ev") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"searchgym evaluate: damaged file: {folder / name}: "), err
    assert not (tmp_path / "ev").exists()


def test_the_default_folder_is_named_after_the_played_run(trained, compared, tmp_path, monkeypatch):
    """Before, every run evaluated without --name or --out went to .../run, so a second run there was
    'holds a different run'; now each is run-<method>-seed<N>."""
    monkeypatch.chdir(tmp_path)
    sft = compared / "runs" / "sft" / "seed0"
    for path in (trained, sft):
        assert main(["evaluate", "--agent", "run", "--agent-option", f"path={path}", "--suite", TINY_QA.id,
                     "--limit", "2", "--no-progress"]) == 0
    made = sorted(p.name for p in (tmp_path / "runs" / "evaluate" / TINY_QA.id).iterdir())
    assert made == ["run-cw_grpo-seed0", "run-sft-seed0"]



#: config.json values no run records, and what the one line says of each. Before: hidden=10**9 tried to
#: allocate 1.3 TB (a RuntimeError traceback), a seed of 10**30 was "Overflow when unpacking long long",
#: a 5000-digit int "Exceeds the limit (4300 digits)", lr NaN and a world seed past 2**63 an error naming
#: no file, after the evaluation's folder was made; a world_size of 10**11 generated that world, for good.
HOSTILE_VALUES = {
    "huge hidden": ({"options": {"policy_kwargs": {"hidden": 10**9}}},
                    ("options.policy_kwargs.hidden (1000000000) is outside the bounds of a policy's options (those "
                     "of `leaderboard retrain`) for hidden: an int in 1..4096")),
    "negative dim": ({"options": {"policy_kwargs": {"dim": -5}}}, "options.policy_kwargs.dim (-5) is outside"),
    "hidden as text": ({"options": {"policy_kwargs": {"hidden": "big"}}}, "options.policy_kwargs.hidden ('big')"),
    "policy_kwargs a list": ({"options": {"policy_kwargs": [1]}}, "has options.policy_kwargs of list"),
    # before: built with the features on, the opposite of what the record says
    "a switch as text": ({"options": {"policy_kwargs": {"operand_sources": "false"}}},
                         "records a policy its method cannot build (operand_sources of the hash policy must be a "
                         "bool (true or false); got 'false' (str))"),
    "huge seed": ({"seed": 10**30}, f"has seed {10**30}, outside 0..{2**63 - 1}"),
    "negative budget": ({"budget": -5}, "has budget -5, not an int >= 0"),
    "lr NaN": ({"options": {"lr": float("nan")}},
               "records a policy its method cannot build (option 'lr' of cw_grpo takes a number, got NaN)"),
    "unknown option": ({"options": {"bogus": 1}}, "records a policy its method cannot build (unknown option 'bogus'"),
    "unknown policy": ({"policy": "nonsense"}, "records a policy its method cannot build (unknown --policy"),
    "huge world seed": ({"suite": {"world_seed": 10**20}}, ("holds a suite definition searchgym cannot read "
                        "(world_seed must be an int in 0..9223372036854775807, got 100000000000000000000)")),
    "huge world": ({"suite": {"world_size": 10**11}}, ("(world_size must be one of tiny, small, medium, large, xl "
                   "or an int scale in 4..9000, got 100000000000)")),
    "max_steps 1e9": ({"suite": {"env_kwargs": {"max_steps": 1e9}}}, "(max_steps must be an int in 1..1000"),
    "5000 digits": ("digits", "holds a number of more than 4300 digits, which no searchgym file holds"),
}


@pytest.mark.parametrize("case", HOSTILE_VALUES)
def test_a_config_value_no_run_records_is_one_line_naming_it_before_any_policy(case, trained, tmp_path, capsys,
                                                                               monkeypatch):
    from searchgym.agents.population import Population

    def never(*args, **kwargs):
        raise AssertionError("a policy was built from a config.json that should have been refused")

    monkeypatch.setattr(Population, "build", never)
    monkeypatch.setattr("searchgym.suites.shared_world", never)  # a world of 10**11 is never generated
    changes, expected = HOSTILE_VALUES[case]
    folder = edited(trained, tmp_path)
    config = json.loads((folder / "config.json").read_text())
    if changes == "digits":  # json.dumps cannot write it (Python's 4300-digit limit): written as text
        text = json.dumps(config).replace('"seed": 0', '"seed": ' + "1" * 5000)
    else:
        for key, value in changes.items():
            config[key] = {**config[key], **value} if key == "suite" else value
        text = json.dumps(config)
    (folder / "config.json").write_text(text)
    assert evaluate(folder, tmp_path / "ev") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"searchgym evaluate: damaged file: {folder / 'config.json'}: "), err
    assert expected in err[0], err
    assert not (tmp_path / "ev").exists()


def test_a_seed_torch_takes_is_played(trained, tmp_path):
    """The bound is the largest seed a run takes (NumPy's, torch's and Gymnasium's): it still builds and
    plays the run's policy."""
    folder = edited(trained, tmp_path, seed=2**63 - 1)
    assert evaluate(folder, tmp_path / "ev", "--limit", "1") == 0


def test_a_team_run_of_the_largest_seed_trains_and_is_played(tmp_path):
    """Before: its first reset failed ("seed must be an int in 0..9223372036854775807, got 922339...")
    because the episode seeds derived from the run's passed that bound, which the team env enforced."""
    run = tmp_path / "team"
    assert main(["train", "--method", "grpo", "--env", "TeamSearch-Generalists-Candidates-v0", "--world-size", "tiny",
                 "--test-size", "2", "--budget", "16", "--seed", str(2**63 - 1), "--out", str(run),
                 "--no-progress"]) == 0
    assert evaluate(run, tmp_path / "ev") == 0


def test_policy_options_its_encoder_refuses_are_one_line_naming_a_file(trained, tmp_path, capsys):
    """Before: "bad arguments for encoder 'hash': ..." named no file."""
    folder = edited(trained, tmp_path, options={"policy_kwargs": {"nonsense": 3}})
    assert evaluate(folder, tmp_path / "ev") == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    # the checkpoint's own record differs from config.json's, which is checked first (before any folder)
    assert line.startswith(f"searchgym evaluate: damaged file: {folder / 'checkpoint' / 'checkpoint.pt'}: was "
                           "written by another run than config.json records (policy_kwargs.nonsense: None there, "
                           "3 now)"), line


def test_without_seed_a_run_plays_its_own_seed(tmp_path, capsys):
    # before: --seed defaulted to 0, so a seed-2 run was played on seed 0 in a folder named ...-seed2
    run = tmp_path / "s2"
    assert main(["train", *TRAIN, "--seed", "2", "--out", str(run)]) == 0
    out = tmp_path / "ev"
    assert evaluate(run, out) == 0
    assert json.loads((out / "config.json").read_text())["seed"] == 2
    assert (out / "predictions.jsonl").read_bytes() == (run / "predictions.jsonl").read_bytes()
    assert evaluate(run, tmp_path / "ev0", "--seed", "0") == 0
    assert json.loads((tmp_path / "ev0" / "config.json").read_text())["seed"] == 0


def test_a_run_is_scored_by_argmax_when_asked(trained, tmp_path, capsys):
    """--agent-option decoding=greedy scores a sampled run's policy by its argmax (before: refused as an
    unexpected keyword; the README's argmax scores needed the checkpoints copied into a new comparison)."""
    assert evaluate(trained, tmp_path / "greedy", "--agent-option", "decoding=greedy") == 0
    again = tmp_path / "greedy2"
    assert evaluate(trained, again, "--agent-option", "decoding=greedy") == 0
    assert (tmp_path / "greedy" / "predictions.jsonl").read_bytes() == (again / "predictions.jsonl").read_bytes()
    assert json.loads((again / "config.json").read_text())["options"]["agent_options"]["decoding"] == "greedy"


def test_a_run_of_budget_zero_is_played_again(tmp_path):
    """Before: a finished --budget 0 run had no checkpoint, and evaluate said to "finish it with the
    command that made it"; it now saves the policy it scored."""
    run = tmp_path / "b0"
    assert main(["train", *[a if a != "200" else "0" for a in TRAIN], "--out", str(run)]) == 0
    assert (run / "checkpoint" / "checkpoint.pt").is_file()
    assert evaluate(run, tmp_path / "ev") == 0
    assert (tmp_path / "ev" / "predictions.jsonl").read_bytes() == (run / "predictions.jsonl").read_bytes()


def test_another_evaluation_seed_gets_a_default_folder_of_its_own(trained, tmp_path, monkeypatch, capsys):
    """Before: ``--seed 1`` then ``--seed 2`` of one run (or of one agent) went to the same default folder,
    and the second was refused as "holds a different run (seed: 1 there, 2 now)"."""
    monkeypatch.chdir(tmp_path)
    common = ["--suite", TINY_QA.id, "--limit", "2", "--no-progress"]
    for seed in (None, "1", "2"):
        chosen = [] if seed is None else ["--seed", seed]
        assert main(["evaluate", "--agent", "run", "--agent-option", f"path={trained}", *common, *chosen]) == 0
        assert main(["evaluate", "--agent", "random", *common, *chosen]) == 0
    made = sorted(p.name for p in (tmp_path / "runs" / "evaluate" / TINY_QA.id).iterdir())
    assert made == ["random", "random-seed1", "random-seed2", "run-cw_grpo-seed0", "run-cw_grpo-seed0-evalseed1",
                    "run-cw_grpo-seed0-evalseed2"]
    for name in made:
        seed = json.loads((tmp_path / "runs" / "evaluate" / TINY_QA.id / name / "config.json").read_text())["seed"]
        assert seed == (int(name[-1]) if name[-1] in "12" else 0)
    capsys.readouterr()
    too_long = ["--seed", str(2**62)]
    assert main(["evaluate", "--agent", "searchgym.baselines.random_agent:RandomAgent", *common, *too_long]) == 2
    assert "longer than 64 characters; give one with --name" in capsys.readouterr().err


def test_an_sft_runs_damaged_base_is_named_as_damaged_not_missing(compared, tmp_path, capsys):
    """Before: a base.pt that is there but changed was "in none of: ...; copy the comparison's bases/
    folder", which is where it already was."""
    copy = tmp_path / "cmp"
    shutil.copytree(compared, copy)
    sft = copy / "runs" / "sft" / "seed0"
    config = json.loads((sft / "config.json").read_text())
    base = copy / "bases" / config["base"]["key"] / "base.pt"
    base.write_bytes(base.read_bytes()[:-10])
    config["base"]["path"] = str(base)  # the copy's own base (the original comparison's is intact)
    (sft / "config.json").write_text(json.dumps(config))
    assert evaluate(sft, tmp_path / "e", "--suite", TINY_QA.id) == 2
    (err,) = capsys.readouterr().err.strip().splitlines()
    assert f"is at {base} with another sha256 than the run recorded" in err and "damaged, or another base" in err
