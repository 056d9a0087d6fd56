"""Evaluation loops: an Actor on every task of a suite's split, single-agent or parallel.

Each task is played once: ``env.reset(seed=episode_seed(seed, i), options={"task_id": id})``
then the actor acts until the episode ends. The prediction is re-scored here with
:func:`searchgym.scoring.score_answer` (the env's own reward is not trusted), so a
prediction file means the same thing whoever wrote it.

Keys read from the envs' ``info`` dicts (``SearchSession.info()`` provides them):
``"answer"`` (str or None: the submitted answer), ``"step"`` (steps this agent took),
``"tool_calls"`` (tool calls this agent made). Single-agent: ``steps`` and ``tool_calls`` are
the session's. Parallel: ``steps`` is the number of ``env.step`` rounds and ``tool_calls`` the
sum over members (each member's last info). The answer of a **team** env is the team's
submitted answer: ``info["team_answer"]`` if an env reports it, else the first non-None
``"answer"`` in ``possible_agents`` order (only the submitting member has one). The answer of
a **group** env is the majority vote of the members' non-None answers, compared after SQuAD
normalisation; ties go to the answer given first in ``possible_agents`` order. An
:class:`~searchgym.harness.action_tally.ActionTally` given to the loops reads ``"format_errors"`` and
``"invalid_actions"`` (this agent's actions the env could not read, or refused) from each last info.
"""

from __future__ import annotations

import inspect
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from searchgym.action_types import EndEpisode
from searchgym.harness.written_text import written_answer
from searchgym.scoring import normalize_answer, score_answer
from searchgym.suites import Suite, env_kind, make_env, tasks
from searchgym.world.model import Task

#: A runaway guard: no env of this package lets an episode run this long.
MAX_EPISODE_STEPS = 10_000


@dataclass(frozen=True)
class Prediction:
    """One line of ``predictions.jsonl``."""

    task_id: str
    family: str
    answer: str | None
    steps: int
    tool_calls: int
    success: bool
    f1: float
    score: float


def episode_seed(seed: int, index: int) -> int:
    """The reset seed of the ``index``-th evaluation episode of a run with ``seed``."""
    return int(seed) * 100_003 + int(index)


def score_prediction(task: Task, answer: str | None, steps: int, tool_calls: int) -> Prediction:
    s = score_answer(task, answer)
    return Prediction(task.id, task.family, None if answer is None else str(answer), int(steps), int(tool_calls),
                      bool(s.success), float(s.f1), float(s.score))


def play_session_agent(env: Any, agent: Any, task_id: str, seed: int = 0) -> Prediction:
    """One scored episode of a session agent (``choose_action(session) -> action``: the random and oracle
    baselines) on a single-agent env."""
    from searchgym.baselines.harness_actors import SessionActor

    answer, steps, tool_calls = play_single(env, SessionActor(agent), task_id, seed)
    return score_prediction(env.unwrapped.world.task_by_id[task_id], answer, steps, tool_calls)


def _reset_actor(actor: Any, seed: int) -> None:
    """Call the actor's ``reset()`` at the start of an episode, as ``reset(seed=...)`` when it
    takes a seed (a sampling policy then draws the same actions whatever was played before)."""
    reset = getattr(actor, "reset", None)
    if not callable(reset):
        return
    try:
        takes_seed = "seed" in inspect.signature(reset).parameters
    except (TypeError, ValueError):  # builtins without a signature
        takes_seed = False
    reset(seed=seed) if takes_seed else reset()


def evaluation_env(suite: Suite, split: str, actor: Any = None) -> Any:
    """The env the harness plays ``split`` on. An actor with a ``turn_limit`` (an LLM's ``max_turns``)
    has it built to end an episode after that many steps (a team's: rounds), truncated with no answer,
    or at the suite's own limit where that is lower. Why: the actor lowered the env's limit itself, in
    the middle of an episode, and a team's stayed lowered after the evaluation."""
    env = make_env(suite, split)
    limit = getattr(actor, "turn_limit", None)
    if limit is None:
        return env
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"an actor's turn_limit is a positive number of turns (or None), got {limit!r}")
    base = getattr(env, "unwrapped", env)
    key = "max_rounds" if hasattr(base, "max_rounds") else "max_steps"
    own = base.max_rounds if key == "max_rounds" else getattr(getattr(base, "config", None), "max_steps", None)
    if not isinstance(own, int):
        raise ValueError(f"{suite.env_id} has no max_steps or max_rounds, so it cannot end an episode at the "  # noqa: TRY004
                         f"actor's turn_limit {limit}")
    if own <= limit:
        return env
    env.close()
    return make_env(suite, split, **{key: limit})


def play_single(env: Any, actor: Any, task_id: str, seed: int, tally: Any = None) -> tuple[str | None, int, int]:
    """One Gymnasium episode: (answer, steps, tool calls). An :class:`EndEpisode` action ends it unanswered.
    ``tally`` (an :class:`~searchgym.harness.action_tally.ActionTally`) is given the episode's last info."""
    observation, info = env.reset(seed=seed, options={"task_id": task_id})
    _reset_actor(actor, seed)
    for _ in range(MAX_EPISODE_STEPS):
        action = actor.act(env, observation, info)
        ended = isinstance(action, EndEpisode)
        if not ended:
            observation, _, terminated, truncated, info = env.step(action)
            ended = terminated or truncated
        if ended:
            if tally is not None:
                tally.add(info)
            answer = None if isinstance(action, EndEpisode) else info.get("answer")
            return answer, int(info.get("step", 0)), int(info.get("tool_calls", 0))
    raise RuntimeError(f"task {task_id}: the episode did not end within {MAX_EPISODE_STEPS} steps")


def team_answer(infos: Mapping[str, Mapping[str, Any]], order: Sequence[str]) -> str | None:
    for agent in order:
        if infos.get(agent, {}).get("team_answer") is not None:
            return infos[agent]["team_answer"]
    return next((infos[a]["answer"] for a in order if infos.get(a, {}).get("answer") is not None), None)


def majority_vote(answers: Sequence[str | None]) -> str | None:
    """The most common non-None answer (after normalisation); ties: the first given."""
    given = [a for a in answers if a is not None]
    if not given:
        return None
    keys = [normalize_answer(a) for a in given]
    counts = Counter(keys)
    best = max(counts.values())
    winner = next(k for k in keys if counts[k] == best)
    return given[keys.index(winner)]


def answer_rule(suite: Suite) -> str:
    """"single", "majority" or "team": what the suite's env class declares (``searchgym.envs.play_rules``)."""
    from searchgym.registry import declared_rules

    return declared_rules(suite.env_id).answer_rule


def play_parallel(env: Any, actor: Any, task_id: str, seed: int, rule: str,
                  tally: Any = None) -> tuple[str | None, int, int]:
    """One PettingZoo parallel episode: (answer, rounds, total tool calls); ``tally``: as :func:`play_single`'s,
    given each member's last info."""
    observations, infos = env.reset(seed=seed, options={"task_id": task_id})
    _reset_actor(actor, seed)
    last: dict[str, Mapping[str, Any]] = dict(infos)
    rounds = 0
    while env.agents:
        if rounds >= MAX_EPISODE_STEPS:
            raise RuntimeError(f"task {task_id}: the episode did not end within {MAX_EPISODE_STEPS} rounds")
        actions = actor.act(env, observations, infos)
        missing = [a for a in env.agents if a not in actions]
        if missing:
            raise ValueError(f"the actor returned no action for live agents {missing}")
        observations, _, _, _, infos = env.step({a: actions[a] for a in env.agents})
        last.update(infos)
        rounds += 1
    order = list(env.possible_agents)
    if tally is not None:
        for agent in order:
            tally.add(last.get(agent, {}))
    tool_calls = sum(int(last.get(a, {}).get("tool_calls", 0)) for a in order)
    if rule == "majority":
        answer = majority_vote([last.get(a, {}).get("answer") for a in order])
    else:
        answer = team_answer(last, order)
    return answer, rounds, tool_calls


def evaluate_suite(suite: Suite, actor: Any, split: str = "test", seed: int = 0, limit: int | None = None,
                   progress: bool = False, desc: str | None = None, env: Any = None,
                   tally: Any = None) -> list[Prediction]:
    """Play every task of the suite's ``split`` (or the first ``limit``) with ``actor``; ``tally`` (an
    :class:`~searchgym.harness.action_tally.ActionTally`) counts its actions the env could not take."""
    chosen = tasks(suite, split)[:limit] if limit else tasks(suite, split)
    env = env if env is not None else evaluation_env(suite, split, actor)
    rule = answer_rule(suite)
    iterator: Iterable = enumerate(chosen)
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(iterator, total=len(chosen), desc=desc or f"eval {split}", leave=False)
    predictions = []
    try:
        for index, task in iterator:
            play = play_single if rule == "single" else play_parallel
            args = () if rule == "single" else (rule,)
            answer, steps, tool_calls = play(env, actor, task.id, episode_seed(seed, index), *args, tally=tally)
            predictions.append(score_prediction(task, answer, steps, tool_calls))
    finally:
        close = getattr(env, "close", None)
        if callable(close):
            close()
    return predictions


def summarise_predictions(predictions: Iterable[Prediction | Mapping[str, Any]]) -> dict[str, dict[str, float]]:
    """Mean success, F1, score, steps and tool calls per family plus an ``all`` row (last)."""
    groups: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for p in predictions:
        row = asdict(p) if isinstance(p, Prediction) else p
        groups[row["family"]].append(row)
        groups["all"].append(row)
    table = {}
    for family in sorted(groups, key=lambda f: (f == "all", f)):
        rows = groups[family]
        n = len(rows)
        table[family] = {"n": n, **{k: sum(float(r.get(k, 0.0)) for r in rows) / n
                                    for k in ("success", "f1", "score", "steps", "tool_calls")}}
    return table


def as_rows(predictions: Iterable[Prediction]) -> list[dict[str, Any]]:
    """The rows of ``predictions.jsonl``, each answer as :func:`written_answer` writes it (read back exactly
    by :func:`~searchgym.harness.written_text.read_answer`)."""
    return [{**asdict(p), "answer": written_answer(p.answer)} for p in predictions]


__all__ = ["EndEpisode", "Prediction", "answer_rule", "env_kind", "episode_seed", "evaluate_suite", "evaluation_env",
           "majority_vote", "play_session_agent", "score_prediction", "summarise_predictions", "team_answer",
           "written_answer"]
