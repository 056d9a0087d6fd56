"""The oracle team: divides the gold evidence chain among its roles and posts what it finds.

A centralised controller over a :class:`~searchgym.envs.team.TeamSearchEnv` (it reads every
member's session, never the answer). Each member plans with the single-agent oracle's
:meth:`OracleAgent.intents` on *its own* view (its results plus the notes it read), so a member
knows only what the tools and the blackboard told it; the controller decides who does what:

1. a member that can answer and whose plan is the answer answers (the first such member);
2. a member that can finish alone (it may answer and its plan is the calculator or the clock)
   does that;
3. a member that retrieved gold evidence (or computed the result) the blackboard lacks posts
   the line that carries it (if no line of its latest result carries it, it looks the fact's
   entity up again first);
4. the clarification is asked by the first member with ``ask_for_clarification``, the clock by
   the first member with ``current_time`` (as soon as the task needs it);
5. evidence hop *i* is looked up by lookup-capable member ``i % n`` (generalists split the hops;
   in the roles preset the searcher does them all); the calculation by the first member with the
   calculator whose plan is the calculation;
6. everyone else waits.

In candidate mode each intent is matched against the member's candidates
(:func:`~searchgym.baselines.oracle.matches`); one that is not listed is skipped (the member
waits), so the oracle never writes an action a policy could not choose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from searchgym.action_types import Action
from searchgym.actions import format_action
from searchgym.baselines.oracle import OracleAgent, matches
from searchgym.candidates import Round
from searchgym.envs.session import SearchSession
from searchgym.envs.team import WAIT, TeamSearchEnv

LOOKUP_TOOLS = ("web_search", "knowledge_base")
_PLANNER = OracleAgent()


def _target_hop(session: SearchSession) -> int:
    """Index (among fact hops) of the first hop this member has not seen."""
    seen = {fid for r in session.observed.rounds for fid in r.fact_ids}
    hops = [h for h in session.task.evidence if h.fact_id not in ("clock", "clarification")]
    return next((i for i, h in enumerate(hops) if h.fact_id not in seen), len(hops))


def _has_seen(session: SearchSession, evidence_id: str) -> bool:
    if evidence_id == "clock":
        return any(r.clock_year for r in session.observed.rounds)
    return any(r.result is not None and evidence_id in r.result.evidence_ids for r in session.observed.rounds)


@dataclass
class TeamOracle:
    """Stateless between rounds: it re-reads the env every round."""

    name: str = "team_oracle"

    def reset(self) -> None:
        """Nothing to reset."""

    # ------------------------------------------------------------------------- planning
    def plan(self, env: TeamSearchEnv) -> dict[str, Action]:
        """The Action each live member takes this round."""
        env = env.unwrapped
        sessions = env.sessions
        live = list(env.agents)
        intents = {a: _PLANNER.intents(sessions[a]) for a in live}
        plans: dict[str, Action] = {}

        answerer = next((a for a in live if sessions[a].can_answer and intents[a][0].kind == "answer"
                         and self._doable(sessions[a], intents[a][0])), None)
        if answerer is not None:
            plans[answerer] = self._doable(sessions[answerer], intents[answerer][0])
        for a in live:
            if a in plans:
                continue
            first = intents[a][0]
            if sessions[a].can_answer and first.kind == "tool" and first.tool in ("calculator", "current_time"):
                plans[a] = self._doable(sessions[a], first)
            if not plans.get(a):
                plans[a] = self._post(env, a)
        self._specials(env, live, intents, plans)
        self._lookups(env, live, intents, plans)
        self._calculation(live, sessions, intents, plans)
        return {a: plans.get(a) or WAIT for a in live}

    def _doable(self, session: SearchSession, intent: Action) -> Action | None:
        """``intent`` (or the candidate that does it) when this member may and can do it."""
        if intent.kind == "tool" and intent.tool not in session.allowed:
            return None
        if intent.kind == "answer" and not session.can_answer:
            return None
        if session.config.action_mode == "text":
            return intent
        return next((c for c in session.candidates if matches(intent, c)), None)

    def _post(self, env: TeamSearchEnv, agent: str) -> Action | None:
        """A line carrying gold evidence (or the computed result) this member found first-hand
        and the blackboard lacks."""
        session = env.sessions[agent]
        on_board = env.blackboard.evidence_ids
        wanted = [h.fact_id for h in session.task.evidence
                  if h.fact_id not in on_board and h.fact_id in session.gold_seen]
        options = env.post_options(agent)
        for gid in wanted:
            for action, evidence in options:
                if gid in evidence.evidence_ids:
                    return self._doable(session, action)
            refresh = self._refresh(session, gid, env.latest_tool_round(agent))
            if refresh is not None:
                return refresh
        for action, evidence in options:
            if evidence.calculator_value is not None and evidence.calculation is not None:
                return self._doable(session, action)
        return None

    def _refresh(self, session: SearchSession, gid: str, latest_round: Round | None) -> Action | None:
        """Look a fact's entity up again when no line of the latest result can carry it."""
        hop = next((h for h in session.task.evidence if h.fact_id == gid), None)
        if hop is None or not hop.entity:
            return None
        latest = latest_round.action if latest_round is not None else None
        for intent in (Action.call("knowledge_base", entity=hop.entity), Action.call("web_search", query=hop.entity)):
            if intent != latest and (intent.tool != "knowledge_base" or "kb" in hop.sources):
                action = self._doable(session, intent)
                if action is not None:
                    return action
        return None

    def _specials(self, env: TeamSearchEnv, live: list[str], intents: Mapping[str, list[Action]],
                  plans: dict[str, Action | None]) -> None:
        """Clarification and clock: the first member with the tool, as soon as the task needs it."""
        task, sessions = env.task, env.sessions
        for evidence_id, tool, intent in (
            ("clarification", "ask_for_clarification", Action.call("ask_for_clarification", question="Which one do you mean?")),
            ("clock", "current_time", Action.call("current_time")),
        ):
            if evidence_id not in task.gold_fact_ids or evidence_id in env.blackboard.evidence_ids:
                continue
            owner = next((a for a in env.possible_agents if tool in sessions[a].allowed), None)
            if owner in live and not plans.get(owner) and not _has_seen(sessions[owner], evidence_id):
                plans[owner] = self._doable(sessions[owner], intent)

    def _lookups(self, env: TeamSearchEnv, live: list[str], intents: Mapping[str, list[Action]],
                 plans: dict[str, Action | None]) -> None:
        sessions = env.sessions
        capable = [a for a in env.possible_agents if any(t in sessions[a].allowed for t in LOOKUP_TOOLS)]
        for a in live:
            if plans.get(a) or a not in capable:
                continue
            if capable[_target_hop(sessions[a]) % len(capable)] != a:
                continue
            for intent in intents[a]:
                if intent.kind != "tool" or intent.tool not in LOOKUP_TOOLS:
                    break
                action = self._doable(sessions[a], intent)
                if action is not None:
                    plans[a] = action
                    break

    def _calculation(self, live: list[str], sessions: Mapping[str, SearchSession],
                     intents: Mapping[str, list[Action]], plans: dict[str, Action | None]) -> None:
        for a in live:
            first = intents[a][0]
            if not plans.get(a) and first.kind == "tool" and first.tool == "calculator":
                action = self._doable(sessions[a], first)
                if action is not None:
                    plans[a] = action
                    return

    # ---------------------------------------------------------------------------- acting
    def choose_actions(self, env: TeamSearchEnv) -> dict[str, Any]:
        """Env actions for every live member: candidate indices (in ``env``'s own slots where it is a
        wrapper that orders them, such as ``NumericParallel``) or formatted text."""
        outer, env = env, env.unwrapped
        out: dict[str, Any] = {}
        for agent, action in self.plan(env).items():
            session = env.sessions[agent]
            if session.config.action_mode == "text":
                out[agent] = format_action(action, session.config.tool_format)
            else:
                out[agent] = next(i for i, c in enumerate(session.candidates) if c == action and c.kind == action.kind)
        return in_slots(outer, out)


class TeamOracleActor:
    """The harness's parallel Actor: ``act(env, observations, infos) -> {agent: action}``; on a
    ``GroupSearchEnv`` every member is the single-agent oracle on its own session."""

    def __init__(self) -> None:
        self.oracle = TeamOracle()

    def reset(self) -> None:
        self.oracle.reset()

    def act(self, env: Any, observations: Mapping[str, Any], infos: Mapping[str, Any]) -> dict[str, Any]:
        base = env.unwrapped
        if isinstance(base, TeamSearchEnv):
            return self.oracle.choose_actions(env)
        return in_slots(env, {agent: _PLANNER.choose_action(base.sessions[agent]) for agent in base.agents})  # K oracles


def in_slots(env: Any, actions: dict[str, Any]) -> dict[str, Any]:
    """``actions`` (the env inside's candidate indices) as ``env`` takes them: through its ``slot_of``
    where it orders candidates into slots of its own (``NumericParallel``). Why: the oracle read
    ``env.unwrapped`` and passed its indices to the wrapper, which played other candidates."""
    slot_of = getattr(env, "slot_of", None)
    if slot_of is None or env is env.unwrapped:
        return actions
    return {agent: slot_of(agent, a) if isinstance(a, int) else a for agent, a in actions.items()}


def harness_actor(seed: int = 0) -> TeamOracleActor:
    """The parallel suites' oracle (``TEAM_BASELINES`` in ``searchgym.baselines.harness_actors``; no seed needed)."""
    return TeamOracleActor()
