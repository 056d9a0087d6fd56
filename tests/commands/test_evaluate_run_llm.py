"""`searchgym evaluate --agent run` plays an LLM-policy run (`train --policy llm`, compare's llm method)
in-process: its base model with the checkpoint's weights and the run's rollout settings.

Before: such a run was refused ("serve its model and use --agent openai"), though its folder holds no
model folder a server could load: what `train --policy llm` trained could not be scored again."""

from __future__ import annotations

import json
import shutil

import pytest
import torch

from searchgym.cli import main
from searchgym.harness.methods import MethodRef
from searchgym.harness.runner import RunSpec, execute_run
from searchgym.suites import Suite

pytest.importorskip("transformers")

TRAIN = ["train", "--policy", "llm", "--model", "random:tiny", "--env", "SearchQA-v0", "--budget", "1",
         "--world-size", "tiny", "--test-size", "3", "--no-progress"]
#: guided decoding on the kv backend: evaluate must play it guided too (else no reply parses)
OPTIONS = {"group_size": 1, "tasks_per_iteration": 1, "max_turns": 2, "eval_tasks": 0, "dev_size": 2,
           "guided": True, "generation_backend": "kv"}
LLM = MethodRef("llm", "searchgym.harness.llm_method:harness_method")
TEXT_SUITE = Suite("test-llm-run-v0", 0, "SearchQA-v0", {"action_mode": "text", "max_steps": 2}, world_size="tiny",
                   dev_size=1, test_size=2, description="tests: an LLM run of compare played again")


def listing(folder):
    return sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A finished `train --policy llm` run of random:tiny with guided decoding (a few seconds)."""
    out = tmp_path_factory.mktemp("llm") / "run"
    assert main([*TRAIN, "--out", str(out), "--options", json.dumps(OPTIONS)]) == 0
    return out


def evaluate(path, out, *extra):
    return main(["evaluate", "--agent", "run", "--agent-option", f"path={path}", "--out", str(out), "--no-progress",
                 *extra])


def test_a_train_llm_run_plays_again_as_its_own_test_split_was_played(trained, tmp_path, monkeypatch, capsys):
    """Its own suite and seed give its own predictions byte for byte (guided, greedy), and its dev
    scores; nothing is trained or saved, and the run folder is left as it was."""
    from searchgym.agents.trainer_base import TrainerBase

    def refuse(*args, **kwargs):
        raise AssertionError("the run's model was trained or saved again")

    monkeypatch.setattr(TrainerBase, "train", refuse)
    monkeypatch.setattr(TrainerBase, "save", refuse)
    before = listing(trained)
    capsys.readouterr()
    out = tmp_path / "ev"
    assert evaluate(trained, out) == 0
    printed = capsys.readouterr()
    assert "run-llm-cw_grpo-seed0 on train-llm-SearchQA-v0 (test split, 3 tasks)" in printed.out
    assert "WARNING" not in printed.err  # guided: every reply parses
    assert (out / "predictions.jsonl").read_bytes() == (trained / "predictions.jsonl").read_bytes()
    mine, theirs = (json.loads((f / "result.json").read_text()) for f in (out, trained))
    assert mine["test"] == theirs["test"] and mine["dev"] == theirs["dev"]
    assert json.loads((out / "config.json").read_text())["played_run"]["method"] == "llm-cw_grpo"
    assert listing(trained) == before
    limited = tmp_path / "limited"
    assert evaluate(trained, limited, "--limit", "1") == 0
    first = (trained / "predictions.jsonl").read_text().splitlines()[0]
    assert (limited / "predictions.jsonl").read_text().splitlines() == [first]


def test_a_comparison_llm_run_plays_again_and_warns_of_unreadable_replies(tmp_path, capsys):
    """compare's llm method records flat options (no llm_config); unguided, the random model's replies
    do not parse, which the evaluation says as the run did."""
    out = tmp_path / "cmp"
    options = {"model": "random:tiny", "group_size": 1, "tasks_per_iteration": 1, "max_turns": 2, "eval_tasks": 0,
               "max_new_tokens": 16}
    execute_run(RunSpec(TEXT_SUITE, LLM, 0, 1, out, options=options, progress=False))
    run = out / "runs" / "llm" / "seed0"
    capsys.readouterr()
    assert evaluate(run, tmp_path / "ev") == 0
    assert (tmp_path / "ev" / "predictions.jsonl").read_bytes() == (run / "predictions.jsonl").read_bytes()
    warnings = [line for line in capsys.readouterr().err.splitlines() if line.startswith("WARNING:")]
    assert len(warnings) == 1 and "test replies" in warnings[0] and "random:tiny starts from random" in warnings[0]


def copied(trained, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(trained, folder)
    return folder


def without_weights(trained, tmp_path, models):
    folder = copied(trained, tmp_path)
    path = folder / "checkpoint" / "checkpoint.pt"
    blob = torch.load(path, weights_only=True)
    blob.pop("models") if models is None else blob.__setitem__("models", models)
    torch.save(blob, path)
    return folder


def base_model_gone(trained, tmp_path):
    folder = copied(trained, tmp_path)
    config = json.loads((folder / "config.json").read_text())
    config["options"]["llm_config"]["model"] = str(tmp_path / "moved-model")
    (folder / "config.json").write_text(json.dumps(config))
    return folder


REFUSALS = {
    "no models": (lambda t, p: without_weights(t, p, None), "holds no weights of the trained model (no models)"),
    "empty models": (lambda t, p: without_weights(t, p, []), "holds no weights of the trained model (no models)"),
    "base model gone": (base_model_gone, "is an LLM-policy run whose base model"),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_what_is_missing_to_play_it_is_one_line_before_any_folder(case, trained, tmp_path, capsys):
    make, expected = REFUSALS[case]
    capsys.readouterr()
    assert evaluate(make(trained, tmp_path), tmp_path / "ev") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and expected in err[0] and "Traceback" not in err[0], err
    if case == "base model gone":
        assert f"{str(tmp_path / 'moved-model')!r} is missing" in err[0] and "put the model back" in err[0]
    assert not (tmp_path / "ev").exists()
