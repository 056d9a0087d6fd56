"""Shared by the harness tests: tiny suites, a fake fast learning method (by import path), a fake
parallel env and a user's tool (``WordCount``, as the docs' example registers one). Imported by spawned worker processes too, so keep it import-light."""

from __future__ import annotations

import json
import os
import time

from searchgym.baselines.harness_actors import SessionActor

from searchgym.fileio import atomic_write_json
from searchgym.suites import Suite, register_suite
from searchgym.tools import FixedCall, Tool, ToolResult, ToolSpec

TINY_QA = register_suite(Suite("test-tiny-qa-v0", 0, "SearchQA-Candidates-v0", {"max_steps": 6},
                               world_size="tiny", dev_size=6, test_size=12,
                               description="tests: single agent, tiny world"))

#: Set to "<seed>:raise" or "<seed>:exit" to make fast_learner crash on its second chunk.
CRASH_ENV = "SEARCHGYM_TEST_CRASH"
#: Seconds fast_learner sleeps per chunk (lets other runs finish first in the pool test).
SLEEP_ENV = "SEARCHGYM_TEST_SLEEP"


def fast_learner(ctx):
    """A 'learning' method in four chunks with a checkpoint after each: resumes from it."""
    from searchgym.baselines import OracleAgent

    state = ctx.checkpoint_dir / "state.json"
    step = json.loads(state.read_text())["step"] if state.exists() else 0
    chunk = max(1, ctx.budget // 4)
    crash = os.environ.get(CRASH_ENV, "")
    while step < ctx.budget:
        time.sleep(float(os.environ.get(SLEEP_ENV, "0")))
        step = min(ctx.budget, step + chunk)
        if step > chunk and crash == f"{ctx.seed}:raise":
            raise RuntimeError("simulated crash")
        if step > chunk and crash == f"{ctx.seed}:exit":
            os._exit(3)
        ctx.log({"step": step, "dev_success": round(0.25 + 0.5 * step / ctx.budget, 6), "loss": 1.0 / step})
        atomic_write_json(state, {"step": step})
    return SessionActor(OracleAgent())


def not_a_method():
    """Takes no RunContext: loading it as a method is an error."""


class FakeParallelEnv:
    """A scripted PettingZoo-like parallel env: agent k answers ``answers[k]`` at round ``rounds[k]``."""

    def __init__(self, answers, rounds, tool_calls=None):
        self.possible_agents = [f"agent_{i}" for i in range(len(answers))]
        self.answers, self.rounds = list(answers), list(rounds)
        self.tool_calls = list(tool_calls or [0] * len(answers))
        self.agents: list[str] = []

    def reset(self, seed=None, options=None):
        self.agents, self.t = list(self.possible_agents), 0
        return ({a: f"obs {a}" for a in self.agents},
                {a: {"answer": None, "tool_calls": 0, "step": 0} for a in self.agents})

    def step(self, actions):
        assert set(actions) == set(self.agents), (actions, self.agents)
        self.t += 1
        infos, done = {}, []
        for a in self.agents:
            k = self.possible_agents.index(a)
            finished = self.t >= self.rounds[k]
            infos[a] = {"answer": self.answers[k] if finished else None, "step": self.t,
                        "tool_calls": self.tool_calls[k] if finished else 0}
            if finished:
                done.append(a)
        obs = {a: "obs" for a in self.agents}
        flags = {a: a in done for a in self.agents}
        self.agents = [a for a in self.agents if a not in done]
        return obs, {a: 0.0 for a in flags}, flags, {a: False for a in flags}, infos


class WaitActor:
    def __init__(self):
        self.resets = 0

    def reset(self):
        self.resets += 1

    def act(self, env, observations, infos):
        return {a: 0 for a in observations}


def oracle_factory(**options):
    """An Actor made outside the harness (``searchgym evaluate --agent harness_helpers:oracle_factory``)."""
    from searchgym.baselines import OracleAgent

    if options:
        raise TypeError(f"unexpected options {options}")
    return SessionActor(OracleAgent())


def first_candidate_factory(index: int = 0):
    """Always picks candidate ``index`` (an option passed with --agent-option)."""

    class First:
        def act(self, env, observation, info):
            return int(index)

    return First()


def start_local_ray(**kwargs) -> None:
    """``ray.init(num_cpus=2, ...)`` with up to 3 attempts: on a loaded machine the raylet may
    miss Ray's fixed 30 s start-up window ("The current node timed out during startup")."""
    import ray

    for attempt in range(3):
        try:
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, **kwargs)
            return
        except Exception:  # noqa: BLE001 - a start-up timeout; anything else fails on the last try
            ray.shutdown()
            if attempt == 2:
                raise


def broken_factory(**options):
    """A user's factory with a bug: ``searchgym evaluate`` reports it in one line."""
    raise RuntimeError("the factory's own bug")


class _BrokenActor:
    def act(self, env, observation, info):
        raise KeyError("the agent's own bug")


def broken_actor(**options):
    """A user's agent whose act has a bug."""
    return _BrokenActor()


def broken_method(ctx):
    """A user's method with a bug: compare and train report it in one line."""
    raise RuntimeError("the method's own bug")


def compare_args(methods: str, seeds: int = 1, budget: int = 0) -> list[str]:
    """``searchgym compare`` of ``methods`` on TINY_QA, on the CPU, without bars (add ``--out``)."""
    return ["compare", "--suite", TINY_QA.id, "--methods", methods, "--seeds", str(seeds), "--budget", str(budget),
            "--device", "cpu", "--no-progress"]


def compared_folder(tmp_path_factory, args: list[str], name: str = "cmp"):
    """A finished comparison (``args`` from ``compare_args``) in a new folder: a module fixture's body."""
    from searchgym.cli import main

    out = tmp_path_factory.mktemp(name) / "out"
    assert main([*args, "--out", str(out)]) == 0
    return out


def count_calls(monkeypatch, name: str, *owners):
    """Patch ``name`` on each of ``owners`` (modules, or a class such as Path) to count its calls by their
    first argument, a path: the Counter returned says how often each file or folder was read."""
    from collections import Counter
    from pathlib import Path

    calls, original = Counter(), getattr(owners[0], name)

    def counted(path, *args, **kwargs):
        calls[Path(path)] += 1
        return original(path, *args, **kwargs)

    for owner in owners:
        monkeypatch.setattr(owner, name, counted)
    return calls


def refused_line(capsys, args: list[str], out) -> str:
    """``searchgym ARGS --out OUT`` refused before any folder: exit 2, ``out`` not made; its one stderr line."""
    from searchgym.cli import main

    code = main([*args, "--out", str(out)])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1, (code, lines)
    assert not os.path.lexists(out)
    return lines[0]


def evaluated_agent_module(tmp_path_factory, module: str, source: str, suite_id: str):
    """The folder of ``searchgym evaluate`` on ``suite_id`` with the agent ``<module>:factory`` whose
    code is ``source`` (written into a fresh folder put on sys.path for the evaluation only)."""
    import pytest

    from searchgym.cli import main

    folder = tmp_path_factory.mktemp(module)
    (folder / f"{module}.py").write_text(source)
    patch = pytest.MonkeyPatch()
    patch.syspath_prepend(str(folder))
    try:
        assert main(["evaluate", "--suite", suite_id, "--agent", f"{module}:factory", "--out",
                     str(folder / "run"), "--no-progress"]) == 0
    finally:
        patch.undo()
    return folder / "run"


class WordCount(Tool):
    """A user's tool: counts the words of a text (registration and recording tests)."""

    name = "word_count"
    description = "Count the words of a text."
    parameters = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

    def run(self, text: str = "") -> ToolResult:
        return ToolResult(text=f"{len(text.split())} words")


#: WordCount's candidate calls: one per name the agent has seen.
WORD_COUNT_CALLS = FixedCall((("text", "{name}"),))


def word_count_spec(**fields) -> ToolSpec:
    """WordCount's registration, built once per world; ``fields`` (candidates, roles, build ...) over it."""
    return ToolSpec("word_count", WordCount, **{"build": lambda world, options: WordCount(), **fields})
