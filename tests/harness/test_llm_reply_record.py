"""An LLM run's result.json keeps how many of its replies the env could not read as an action
(``llm_replies``: per split, ``replies`` and ``unparsed_replies``, and the warning), as compare, train and
``evaluate --agent run`` score it; an actor's ``result_record()`` is what the harness keeps there.

Before: the warning that most test replies did not parse was printed to stderr and nowhere stored, so a
reader of the run folder later saw test success 0 and could not tell why."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from searchgym.cli import main
from searchgym.harness.finished_files import finished_json
from searchgym.harness.methods import MethodRef, random_method
from searchgym.harness.runner import RunSpec, execute_run, execute_run_safely
from searchgym.suites import Suite

LLM = MethodRef("llm", "searchgym.harness.llm_method:harness_method")
SUITE = Suite("test-llm-reply-record-v0", 0, "SearchQA-v0", {"action_mode": "text", "max_steps": 2},
              world_size="tiny", dev_size=1, test_size=2, description="tests: an LLM run's reply counts")
TINY = {"model": "random:tiny", "group_size": 1, "tasks_per_iteration": 1, "max_turns": 2, "eval_tasks": 0}
UNGUIDED = {**TINY, "max_new_tokens": 16}  # the random model's replies do not parse
GUIDED = {**TINY, "guided": True, "generation_backend": "kv"}  # every reply parses


def llm_run(folder, options):
    pytest.importorskip("transformers")
    execute_run(RunSpec(SUITE, LLM, 0, 1, folder, options=options, progress=False))
    return folder / "runs" / "llm" / "seed0"


@pytest.fixture(scope="module")
def unguided(tmp_path_factory):
    """A finished unguided run, and what it wrote to stderr."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        run = llm_run(tmp_path_factory.mktemp("unguided"), UNGUIDED)
    return run, err.getvalue()


def test_an_unguided_runs_unparsed_replies_and_its_warning_are_kept_in_result_json(unguided) -> None:
    run, err = unguided
    warnings = [line for line in err.splitlines() if line.startswith("WARNING: ")]
    kept = json.loads((run / "result.json").read_text())["llm_replies"]
    assert set(kept) == {"test", "dev", "warning"}
    test, dev = kept["test"], kept["dev"]
    assert test["replies"] > 0 and test["unparsed_replies"] == test["replies"]
    assert dev["replies"] > 0 and dev["unparsed_replies"] == dev["replies"]
    assert warnings == [f"WARNING: {kept['warning']}"]
    assert kept["warning"].startswith(f"{test['unparsed_replies']} of {test['replies']} test replies (100%)")
    # random:tiny is a check of the pipeline: no advice about guided decoding, which could not help it
    assert kept["warning"].endswith("random:tiny starts from random weights, a check of the pipeline: its replies "
                                    "are not expected to parse; give --model a trained model to score one")


def test_a_guided_run_keeps_its_counts_and_no_warning(tmp_path, capsys) -> None:
    run = llm_run(tmp_path, GUIDED)
    kept = finished_json(run, "result.json")["llm_replies"]
    assert kept["test"]["replies"] > 0 and kept["test"]["unparsed_replies"] == 0
    assert kept["dev"]["unparsed_replies"] == 0 and kept["warning"] is None
    assert "WARNING" not in capsys.readouterr().err


def evaluate(run, out):
    return main(["evaluate", "--agent", "run", "--agent-option", f"path={run}", "--out", str(out), "--no-progress"])


def test_evaluate_agent_run_keeps_the_counts_of_its_own_play(unguided, tmp_path) -> None:
    run, _ = unguided
    assert evaluate(run, tmp_path / "ev") == 0
    played, evaluated = (json.loads((f / "result.json").read_text()) for f in (run, tmp_path / "ev"))
    assert evaluated["llm_replies"] == played["llm_replies"]  # greedy, same suite and seed: the same replies


def test_a_finished_run_without_the_counts_still_reads(unguided, tmp_path, capsys) -> None:
    """result.json of runs made before the counts were kept: shown again as they are."""
    run, _ = unguided
    out = tmp_path / "ev"
    assert evaluate(run, out) == 0
    result = json.loads((out / "result.json").read_text())
    del result["llm_replies"]
    (out / "result.json").write_text(json.dumps(result))
    capsys.readouterr()
    assert evaluate(run, out) == 0
    assert "already evaluated (DONE); showing it" in capsys.readouterr().out
    assert finished_json(out, "result.json") == result


# ---------------------------------------------------------------------- the harness's hook, any actor
class _Recording:
    def __init__(self, actor, record):
        self.actor, self.record = actor, record

    def __getattr__(self, name):
        return getattr(self.actor, name)

    def result_record(self):
        return self.record


def recording_method(ctx):
    return _Recording(random_method(ctx), {"mine": {"n": 3}, "test": "the harness's own key wins"})


def list_record_method(ctx):
    return _Recording(random_method(ctx), ["not", "a", "dict"])


CANDIDATES = Suite("test-result-record-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 3}, world_size="tiny",
                   dev_size=1, test_size=2, description="tests: an actor's result_record")


def test_an_actors_result_record_is_kept_beside_the_harness_keys(tmp_path) -> None:
    spec = RunSpec(CANDIDATES, MethodRef("mine", "test_llm_reply_record:recording_method"), 0, 0, tmp_path,
                   progress=False)
    execute_run(spec)
    result = finished_json(spec.run_dir, "result.json")
    assert result["mine"] == {"n": 3}
    assert result["test"]["all"]["n"] == 2  # not replaced by the actor's


def test_a_result_record_that_is_no_dict_fails_the_run_in_one_line_before_its_scores(tmp_path) -> None:
    spec = RunSpec(CANDIDATES, MethodRef("mine", "test_llm_reply_record:list_record_method"), 0, 0, tmp_path,
                   progress=False)
    outcome = execute_run_safely(spec)
    assert outcome.status == "failed"
    assert outcome.error == ("TypeError: the actor of 'mine' returned list from result_record(); it must return a "
                             "dict of JSON values for result.json")
    assert not (spec.run_dir / "result.json").exists() and not (spec.run_dir / "predictions.jsonl").exists()
