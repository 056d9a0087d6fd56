"""TeamSearchEnv, a team with roles and a blackboard as a PettingZoo env: its page is the class
docstring (``help(TeamSearchEnv)``). At a glance:

| | |
|---|---|
| Import | ``searchgym.make("TeamSearch-v0")``; also ``TeamSearch-Candidates-v0``, ``TeamSearch-Generalists-v0``, |
| | ``TeamSearch-Generalists-Candidates-v0`` and ``TeamSearch-Numeric-v0`` (the roles candidate one wrapped) |
| Actions | Text (a tool call, ``post``, ``wait`` or the lead's answer) / Discrete (a candidate index) |
| Parallel API | Yes (``searchgym.make_aec`` gives the AEC view) |
| Manual Control | ``searchgym play TeamSearch-v0 --role searcher`` (you play one role) |
| Agents | ``agents = ['lead', 'searcher', 'analyst']`` (``roles="generalists"``: ``generalist_0`` ...) |
| Agents | 3 |
| Action Shape | text: ``Text(20000)``; candidates: ``Discrete(48)`` |
| Action Values | a string / ``0 ... max_candidates - 1`` (masked by ``action_mask``) |
| Observation Shape | text: ``Dict(text)``; candidates: ``Dict(text, candidates, action_mask)`` |
| Observation Values | text up to ``max_obs_chars``; ``action_mask`` in {0, 1} |
| State Shape | ``(69,)`` for 3 agents (``state()``: shared progress, the blackboard, per-agent fields) |
| State Values | [0, 1] |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np

from searchgym.action_types import Action, ParseError
from searchgym.actions import parse_action, parse_tool_call
from searchgym.candidates import TEXT_MEMO_LIMIT, Round, names_in
from searchgym.envs.blackboard import MAX_NOTE_CHARS, Blackboard, Note, NoteReader
from searchgym.envs.config import BOUNDS, EnvConfig, check_int, resolve_config
from searchgym.envs.info import ZEROED_RESET, episode_info
from searchgym.envs.multi import AGENT_FIELDS, MultiSearchEnv
from searchgym.envs.roles import Role, resolve_roles
from searchgym.envs.session import NO_SCORE, SearchSession, StepOutcome, score_info
from searchgym.envs.spaces import sanitize
from searchgym.envs.team_posts import TeamPosts, shared_post_memos
from searchgym.judge import read_text
from searchgym.observation_format import team_member_header
from searchgym.tools.base import ToolResult
from searchgym.tools.toolkit import TOOL_NAMES
from searchgym.world import FAMILIES

REWARD_MODES = ("shared", "shared+individual")
COSTS = ("step_cost", "invalid_cost", "format_cost")
TEAM_AGENT_FIELDS = (*AGENT_FIELDS, "first_found", "notes_posted")
WAIT = Action.wait().with_provenance("let teammates work this round")


class TeamSearchEnv(TeamPosts, MultiSearchEnv):
    """TeamSearchEnv: a team with roles shares one task and one blackboard (a PettingZoo ``ParallelEnv``;
    the ids and the AEC view are in the module's at-a-glance table).

    **Description**

    The agents are the roles (``roles="roles"``: ``lead``, ``searcher``, ``analyst``;
    ``roles="generalists"``: ``generalist_0`` ... ``generalist_{team_size-1}``; or a list of role
    dicts, see :mod:`searchgym.envs.roles`). Each is a
    :class:`~searchgym.envs.session.SearchSession` limited to its role's tools (a call to another
    tool is refused with a message and the invalid cost; in text mode actions are parsed with every
    tool name, so the refusal is a refusal, not a parse error). Every agent acts each round,
    simultaneously: a tool call (its result is seen by the caller only), ``post`` (a note on the
    blackboard; at most ``MAX_NOTE_CHARS`` characters), ``wait``, or, for a role with
    ``can_answer``, the team's answer. Notes are read by the other agents at the end of the round
    (:mod:`searchgym.envs.blackboard`: a note becomes a round of each reader's ``Observed`` record,
    so an analyst calculates over numbers a searcher posted, and the lead answers from them).

    **Action Space**

    Per agent, as ``SearchEnv``'s (``Text(20000)`` or ``Discrete(max_candidates)``), plus the team
    actions ``<post>...</post>`` and ``<wait/>`` in text mode. In candidate mode the candidates are
    the single-agent ones for the role's tools (from what the agent saw, notes included), ``post``
    candidates (lines of its latest tool result that carry evidence the blackboard lacks, those
    naming what the team talks about first, at most ``MAX_POST_CANDIDATES`` and under half the list; see
    :mod:`searchgym.envs.team_posts`) and ``wait`` (always admissible).

    **Observation Space**

    Per agent, dicts as in ``GroupSearchEnv`` (one space object per agent). Text mode ``{"text"}``:
    the prompt (role header, tools, accepted forms including ``<post>``/``<wait/>``, the question,
    the blackboard), then each round the agent's own result followed by the notes teammates posted
    that round. Candidate mode ``{"text", "candidates", "action_mask"}``: the text is the agent's
    transcript with the whole blackboard. The lines are in docs/OBSERVATIONS.md;
    ``env.observation_data(agent)`` gives them as data, notes included.

    **Rewards** (``reward_mode``)

    ``"shared"``: every agent gets the team's answer score (on the last round; ``no_answer_score``
    at the round limit) plus the team's costs (the sum of every agent's step, invalid and format
    costs that round). ``"shared+individual"``: the team's answer score plus the agent's own costs.

    **Starting State**

    As ``GroupSearchEnv``: one task per ``reset`` (``options={"task_id"|"split"}``), one generator
    per agent derived from the reset seed, an empty blackboard.

    **Episode End**

    For everyone at once: when a ``can_answer`` agent answers (``terminated``; the first in
    ``possible_agents`` order when several do in one round) or after ``max_rounds`` (``truncated``).

    **Info** per agent

    The ``SearchEnv`` keys (``answer``/``success``/``score`` are the team's), ``role``, ``action``
    (this round's, rendered), ``signals`` (this agent's process signals: ``new_gold_ids``,
    ``new_gold``, ``consistent``, ``reason``, ``contribution`` = u*v), ``contribution`` =
    ``{"first_found": [gold ids this agent retrieved before any teammate (ties credit every agent
    of that round)], "on_blackboard": {id: bool}, "share": fraction of the task's gold evidence}``,
    ``team`` (``round``, ``notes``, ``evidence_found``, ``evidence_on_blackboard``,
    ``answered_by``), and in candidate mode ``action_mask`` and ``candidates``.

    **State**

    ``state()``: ``Box(0, 1)`` float32, named by ``state_fields()``: round fraction, answered,
    team success and score, team gold found, gold on the blackboard, notes / (K * max_rounds),
    gold-hop count / 8, task family one-hot; then per agent the group env's 16 ``AGENT_FIELDS``
    plus ``first_found`` (gold share retrieved first) and ``notes_posted``.

    **Arguments**

    ``TeamSearchEnv(roles="roles", team_size=None, reward_mode="shared", max_rounds=16, config=EnvConfig(...),
    **kwargs)``; keywords: the :class:`~searchgym.envs.config.EnvConfig` fields but ``max_steps``.

    **Version History**

    - v0: the first version. Later without a new id (observations unchanged): ``config=EnvConfig``,
      ``observation_data(agent)``, spaces owned by each env, pickling by replay. At reset
      ``reward_components`` and ``signals`` hold zeros, as ``SearchEnv``'s (at first they were empty dicts).

    **Example**

    >>> import searchgym
    >>> env = searchgym.make("TeamSearch-Candidates-v0", world_size="tiny")
    >>> observations, infos = env.reset(seed=0)
    >>> env.agents, env.state().shape
    (['lead', 'searcher', 'analyst'], (69,))
    >>> actions = {a: int(infos[a]["action_mask"].argmax()) for a in env.agents}
    >>> observations, rewards, terminations, truncations, infos = env.step(actions)
    >>> len(set(rewards.values()))  # one shared team reward
    1
    """

    # How it plays (searchgym.envs.play_rules): one answer for the team; a shared reward, so trainers
    # compare each role with itself across G episodes; members post to the blackboard and wait.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"], "render_fps": 4, "name": "searchgym_team_v0",
                                          "is_parallelizable": True, "answer_rule": "team", "group_by": "agent", "team_actions": True}
    refused_kwargs = ("max_steps",)  # config keywords taken only to be refused by a message of their own

    def __init__(self, roles: str | Sequence[object] = "roles", team_size: int | None = None,
                 reward_mode: str = "shared", max_rounds: int = 16, config: EnvConfig | None = None,
                 **kwargs: Any) -> None:
        own = ("roles", "team_size", "reward_mode", "max_rounds")
        env_config = resolve_config("TeamSearchEnv", config, kwargs, own, refused=self.refused_kwargs)
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if "max_steps" in kwargs or env_config.max_steps != EnvConfig.max_steps:
            raise ValueError("a team counts rounds: use max_rounds, not max_steps")
        max_rounds = check_int("max_rounds", max_rounds, *BOUNDS["max_steps"])
        self.roles: dict[str, Role] = {r.name: r for r in resolve_roles(roles, team_size)}
        self.reward_mode = reward_mode
        recipe = {"roles": roles if isinstance(roles, str) else tuple(self.roles.values()),  # not a list changed since
                  "team_size": team_size, "reward_mode": reward_mode, "max_rounds": max_rounds, "config": env_config}
        super().__init__(list(self.roles), replace(env_config, max_steps=max_rounds), recipe)
        self.max_rounds = max_rounds
        self.blackboard = Blackboard()
        self.reader: NoteReader | None = None
        self.round, self.answered_by, self.team_score = 0, None, None
        self.first_found: dict[str, tuple[int, tuple[str, ...]]] = {}
        self._latest_tool_round: dict[str, Round] = {}
        self._line_cache: dict[str, tuple[Round, list, tuple]] = {}  # agent -> (round, lines, their memo key)
        self._options_cache: dict[str, tuple] = {}  # agent -> (round, board, notes, post options)
        self._question_words: frozenset[str] = frozenset()
        # Memos that outlive episodes, shared by the world's team envs: the same results, lines and
        # notes recur (bounded, see reset).
        self._lines_memo, self._post_memo = shared_post_memos(self.world)
        self._reading: dict[int, tuple[Note, Round]] = {}
        self._headers = {name: self._header(role) for name, role in self.roles.items()}

    # ------------------------------------------------------------------------------ reset
    def _header(self, role: Role) -> str:
        team = "; ".join(r.describe() for r in self.roles.values())
        return team_member_header(role.name, len(self.roles), team)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        rngs = self._start(seed, options)
        self.round, self.answered_by, self.team_score = 0, None, None
        self.blackboard = Blackboard()
        self.reader = NoteReader(self.world, self.task)
        self.first_found = {}
        self._latest_tool_round = {}
        self._line_cache = {}
        self._options_cache = {}
        self._reading = {}
        self._question_words = read_text(self.task.question).tokens
        for memo in (self._lines_memo, self._post_memo):
            if len(memo) > TEXT_MEMO_LIMIT:
                memo.clear()
        self._open({
            name: SearchSession(self.world, self.tools, self.task, self.config, rng, allowed_tools=role.tools,
                                can_answer=role.can_answer, header=self._headers[name], generator=self.generator)
            for (name, role), rng in zip(self.roles.items(), rngs, strict=True)
        })
        obs = {}
        for agent in self.agents:
            if self._candidate_mode():  # candidate observations do not show the prompt
                obs[agent] = self._observation(agent, "")
                continue
            obs[agent] = self._observation(agent, self.sessions[agent].team_prompt(self.blackboard.text))
        return obs, {a: self._info(a, None) for a in self.agents}

    # ------------------------------------------------------------------------------- step
    def step(self, actions: Mapping[str, Any]):
        self._check_actions(actions)
        self.round += 1
        self.steps = self.round
        outcomes = {agent: self._act(agent, actions[agent]) for agent in self.agents}
        self.last_outcomes.update(outcomes)
        answered = [a for a, o in outcomes.items() if o.terminated]
        if answered:
            self.answered_by = answered[0]
            self.team_score = outcomes[answered[0]].score
        terminated = self.answered_by is not None
        truncated = not terminated and self.round >= self.max_rounds
        self._record_first_found(outcomes)
        notes = self.blackboard.posted_in(self.round)
        for reader in self.agents:
            for note in notes:
                if note.author != reader:
                    self._read(reader, note)
        rewards = self._rewards(outcomes, terminated, truncated)
        obs, infos = {}, {}
        for agent, outcome in outcomes.items():
            theirs, text = [n for n in notes if n.author != agent], outcome.text
            if theirs:  # the result gives way to the notes (cut together at the end, a long result hid them)
                block = self.blackboard.text(self.config.max_obs_chars // 2, theirs, "New notes on the blackboard")
                text = text[:max(self.config.max_obs_chars - len(block) - 2, 0)] + "\n\n" + block
            obs[agent] = self._observation(agent, text)
            infos[agent] = self._info(agent, outcome, rewards[agent])
        live = list(self.agents)
        self._recorded(actions)
        if terminated or truncated:
            for session in self.sessions.values():
                session.done = True
            self.agents = []
        return (obs, {a: float(rewards[a]["total"]) for a in live}, dict.fromkeys(live, terminated),
                dict.fromkeys(live, truncated), infos)

    def decode(self, agent: str, raw: object) -> Action | ParseError:
        """An agent's raw action as an Action (text mode reads every tool name: see the docstring)."""
        session = self.sessions[agent]
        if self._candidate_mode():
            return session.decode(raw, team_actions=True)
        parse = parse_action if isinstance(raw, str) else parse_tool_call  # text, or a structured call
        # an error lists the role's own forms, as its prompt (before: every tool's, other roles' too)
        return parse(raw, self.config.tool_format, TOOL_NAMES, allow_team_actions=True, shown_tools=session.allowed,
                     shown_answer=session.can_answer)

    def _act(self, agent: str, raw: object) -> StepOutcome:
        outcome = self._settle(agent, raw)
        self.logs[agent].record(outcome)
        return outcome

    def _settle(self, agent: str, raw: object) -> StepOutcome:
        session = self.sessions[agent]
        action = self.decode(agent, raw)
        if isinstance(action, ParseError):
            return session.settle(None, ToolResult.failure(action.message), format_error=True)
        if action.kind == "tool":
            result, invalid = session.execute(action)
            outcome = session.settle(action, result, invalid=invalid)
            if not invalid:
                self._latest_tool_round[agent] = session.observed.rounds[-1]
            return outcome
        if action.kind == "answer":
            if not session.can_answer:
                who = ", ".join(r.name for r in self.roles.values() if r.can_answer)
                why = f"your role cannot submit the answer; post what you found for {who}"
                return session.settle(action, ToolResult.failure(why), invalid=True)
            return session.settle(action, ToolResult(f"Answer submitted: {action.text}"))
        if action.kind == "post":
            if len(action.text) > MAX_NOTE_CHARS:
                why = f"a note has at most {MAX_NOTE_CHARS} characters, yours has {len(action.text)}"
                return session.settle(action, ToolResult.failure(why), invalid=True)
            # one line: a note's newline started a line "[round r] lead: ..." that the lead never wrote
            text = " ".join(sanitize(action.text, MAX_NOTE_CHARS).split())
            names = names_in(self.world, text)  # memoised per world: a post is a result's line, which recurs
            self.blackboard.post(Note(self.round, agent, text, self.reader.read(text, session.observed), names))
            return session.settle(action, ToolResult(f"Your note is on the blackboard: {text}"))
        return session.settle(action, ToolResult("You waited."))

    def _read(self, reader: str, note: Note) -> None:
        """``reader`` takes in a teammate's note: its Observed record and its judge see it."""
        session = self.sessions[reader]
        shared = self._reading.get(id(note))
        if shared is None or shared[0] is not note:  # one reading per note, shared by its readers
            shared = self._reading[id(note)] = (note, self.reader.reading_round(note))
        rnd = shared[1]
        session.observed.rounds.append(rnd)
        # The judge's public entry point: with no action it only remembers the evidence and text,
        # so a later answer from the note is grounded and a re-retrieval is not new evidence.
        session.judge.judge(None, note.evidence.evidence_ids, True, rnd.result.text)

    def _record_first_found(self, outcomes: Mapping[str, StepOutcome]) -> None:
        found: dict[str, list[str]] = {}
        for agent, outcome in outcomes.items():
            for gid in outcome.signals.new_gold_ids:
                if gid not in self.first_found:
                    found.setdefault(gid, []).append(agent)
        for gid, agents in found.items():
            self.first_found[gid] = (self.round, tuple(agents))

    def _rewards(self, outcomes: Mapping[str, StepOutcome], terminated: bool, truncated: bool) -> dict[str, dict]:
        cfg = self.config.reward
        answer = self.team_score.score if terminated else (cfg.no_answer_score if truncated else 0.0)
        team = {c: sum(o.reward[c] for o in outcomes.values()) for c in COSTS}
        rewards = {}
        for agent, outcome in outcomes.items():
            costs = team if self.reward_mode == "shared" else {c: outcome.reward[c] for c in COSTS}
            parts = {"answer": float(answer), **{c: float(v) for c, v in costs.items()}}
            parts["total"] = float(sum(parts.values()))
            rewards[agent] = parts
        return rewards

    # ----------------------------------------------------------------------- observations
    def admissible_actions(self, agent: str) -> list[Action]:
        """The agent's candidate actions, ranked (candidate mode lists them shuffled)."""
        session = self.sessions[agent]
        return self.generator.generate(session.observed, session.allowed, session.can_answer,
                                       [*self.post_candidates(agent), WAIT])

    def _observation(self, agent: str, text: str):
        if not self._candidate_mode():
            return {"text": sanitize(text, self.config.max_obs_chars)}
        session = self.sessions[agent]
        session.refresh_candidates(self.extra_candidates(agent, WAIT))  # [*post_candidates(agent), WAIT]
        return session.candidate_observation(self.blackboard.text(self.config.max_obs_chars // 2))

    # ------------------------------------------------------------------------------- info
    def contribution(self, agent: str) -> dict[str, Any]:
        on_board = self.blackboard.evidence_ids
        first = [gid for gid, (_, who) in self.first_found.items() if agent in who]
        return {"first_found": first, "on_blackboard": {gid: gid in on_board for gid in first},
                "share": len(first) / max(len(self.task.evidence), 1)}

    def team_info(self) -> dict[str, Any]:
        gold = self.task.gold_fact_ids
        return {"round": self.round, "notes": len(self.blackboard.notes),
                "evidence_found": sorted(self.first_found),
                "evidence_on_blackboard": sorted(gold & self.blackboard.evidence_ids),
                "answered_by": self.answered_by}

    def _info(self, agent: str, outcome: StepOutcome | None, reward: dict | None = None) -> dict[str, Any]:
        role = self.roles[agent]
        answered = self.sessions[self.answered_by] if self.answered_by else None
        extra = {
            "answer": answered.answer if answered else None,
            "success": bool(self.team_score and self.team_score.success),
            "score": score_info(answered.score) if answered else dict(NO_SCORE),  # was None: infos did not stack
            "role": {"name": role.name, "tools": list(role.tools), "can_answer": role.can_answer},
            # the transcript's line of this step is the action's rendering (made once, in settle)
            "action": (self.sessions[agent].transcript[-1][0] if outcome.action else None) if outcome else None,
            "contribution": self.contribution(agent),
            "team": self.team_info(),
        }
        return episode_info(self.sessions[agent], outcome, self._candidate_mode(), ZEROED_RESET,
                            reward=reward, extra=extra, observation_data=self._info_data(agent))

    def _notes(self) -> list[Note]:
        return list(self.blackboard.notes)

    def _board_text(self) -> str:
        return self.blackboard.text(100_000)

    # ------------------------------------------------------------------------------ state
    def state_fields(self) -> list[str]:
        head = ["round", "answered", "success", "score", "gold_found", "gold_on_blackboard", "notes", "gold_hops",
                *(f"family_{f}" for f in FAMILIES)]
        return head + [f"{agent}.{f}" for agent in self.possible_agents for f in TEAM_AGENT_FIELDS]

    def state(self) -> np.ndarray:
        if not self.sessions:
            return np.zeros(self.state_space.shape, dtype=np.float32)
        limit, k = self.max_rounds, len(self.possible_agents)
        gold = self.task.gold_fact_ids
        n_gold = max(len(self.task.evidence), 1)
        head = [self.round / limit, float(self.answered_by is not None),
                float(bool(self.team_score and self.team_score.success)),
                self.team_score.score if self.team_score else 0.0,
                len(self.first_found) / n_gold, len(gold & self.blackboard.evidence_ids) / n_gold,
                len(self.blackboard.notes) / (k * limit), *self._task_block()]
        body = []
        for agent in self.possible_agents:
            body += self._agent_block(self.sessions[agent], self.last_outcomes.get(agent), limit)
            body.append(self.contribution(agent)["share"])
            body.append(sum(n.author == agent for n in self.blackboard.notes) / limit)
        return np.clip(np.asarray(head + body, dtype=np.float32), 0.0, 1.0)
