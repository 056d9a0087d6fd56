"""The LLM harness method trains on the suite's train families and draws its dev curve on the
suite's own dev split (as the candidate methods do)."""

from __future__ import annotations

import searchgym.harness.llm_method as llm_method
from searchgym.harness.methods import RunContext
from searchgym.suites import Suite, register_suite, tasks

SUITE = register_suite(Suite("test-llm-families-v0", 0, "SearchQA-v0", {"max_steps": 4}, world_size="tiny",
                             families=("bridge",), train_families=("lookup", "bridge"), dev_size=3, test_size=2,
                             description="tests: LLM harness families"))


class _Captured(Exception):
    pass


def test_llm_runs_train_on_the_train_families_and_curve_on_the_suite_dev_split(tmp_path, monkeypatch) -> None:
    seen = {}

    class FakeTrainer:
        def __init__(self, config, out_dir=None, log=None, dev_tasks=None, strict_resume=False):
            seen.update(families=config.env_kwargs["families"], dev_tasks=dev_tasks)
            raise _Captured

    monkeypatch.setattr(llm_method, "LLMTrainer", FakeTrainer)
    ctx = RunContext(suite=SUITE, seed=0, budget=8, device="cpu", run_dir=tmp_path, policy="llm",
                     options={"model": "random:tiny"})
    try:
        llm_method.harness_method(ctx)
    except _Captured:
        pass
    assert seen["families"] == ["lookup", "bridge"]
    assert seen["dev_tasks"] == [t.id for t in tasks(SUITE, "dev")]
