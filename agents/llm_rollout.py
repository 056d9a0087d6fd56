"""Multi-turn LLM rollouts on the text-mode envs: a group of G episodes per task, token by token.

Each agent's episode is one :class:`Conversation`, a growing token stream:

1. the opening prompt: a system message, the env's first observation as the user message, and
   the agent's tools through the chat template (``tools=[session.tools[name].schema() ...]``;
   the observation's own "Tools: [...]" line is then dropped so the schemas are not shown twice);
2. per turn, the generated tokens (``loss_mask`` = 1, ``turn_index`` = the round), cut at
   ``</tool_call>`` / ``</answer>`` or at ``max_new_tokens``; the text goes to ``env.step`` as the
   action (the env parses it with ``parse_action``; an unparseable turn is the env's format error);
3. the env's reply appended as a ``{"role": "tool"}`` message (its ``<tool_response>`` wrapper
   removed: templates add their own) plus the next generation prompt: ``loss_mask`` = 0.

Budgets: at most ``max_new_tokens`` per turn and ``max_episode_tokens`` per stream; a stream
without room for another turn ends (single agent: truncated, paying the env's
``no_answer_score``; team member: it waits for the rest of the episode, steps without tokens).

Every turn is a :class:`~searchgym.agents.trajectory.Step` carrying the env reward and the
process judge's signals, so :func:`~searchgym.agents.advantages.compute_advantages` (grpo,
dr_grpo, cw_round) works unchanged: each assistant turn is a round.

Teams (``TeamSearchEnv`` / ``GroupSearchEnv`` in text mode): every agent is an LLM; ``policies``
maps each agent to an :class:`LLMPolicy`: the same object for shared weights (the role is in the
prompt: the env's header names it and its tools), different objects for separate models. Turns
are generated in one batch per distinct policy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from searchgym.actions import unwrap_tool_result

from .grouping import TEAM_GROUP, resolve_grouping
from .llm_policy import ChatCodec, Generation, LLMPolicy
from .rollout import SIGNAL_KEYS, RolloutStats
from .trajectory import Step, Trajectory

DEFAULT_SYSTEM_PROMPT = ("You are a search agent. Each turn, write exactly one action: one tool call "
                         "<tool_call>{\"name\": ..., \"arguments\": {...}}</tool_call>, or your final "
                         "<answer>...</answer>. Tool results come back as tool messages.")
WAIT_ACTION = "<wait/>"
_ONE = np.ones(1, dtype=np.int8)
_TOOLS_LINE = re.compile(r"^Tools: \[.*$", re.MULTILINE)


@dataclass
class RolloutConfig:
    max_turns: int = 12  # assistant turns per episode (the env's own step limit also applies)
    max_new_tokens: int = 256  # per turn
    max_episode_tokens: int = 4096  # the whole stream: prompt, turns and tool results
    min_turn_tokens: int = 8  # a stream with less room than this takes no more turns
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    tools_in_template: bool = True
    observation_role: str = "tool"
    guided: bool = False  # guided decoding: only admissible replies (``llm_guided``; the "kv" backend)

    def __post_init__(self) -> None:
        for name in ("max_turns", "max_new_tokens", "max_episode_tokens", "min_turn_tokens"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"RolloutConfig.{name} must be >= 1, got {getattr(self, name)!r}")


def tool_schemas(session: Any) -> list[dict]:
    """The JSON schemas of the tools this agent may call (OpenAI / Hermes function format)."""
    return [session.tools[name].schema() for name in session.allowed]


def strip_tool_listing(prompt: str) -> str:
    """The env prompt without its "Tools: [...]" line (the chat template renders the tools)."""
    return _TOOLS_LINE.sub("", prompt).replace("\n\n", "\n")


def unwrap_tool_response(text: str) -> str:
    """The text inside the env's ``<tool_response>`` / ``<information>`` wrapper (else ``text``);
    what follows the wrapper (a team's new notes) is kept, so a ``tool`` message is never wrapped twice."""
    return unwrap_tool_result(text)


def signals_of(info: Mapping[str, Any]) -> dict[str, float]:
    signals = info.get("signals") or {}
    return {k: float(signals[k]) for k in SIGNAL_KEYS if k in signals}


class Conversation:
    """One agent's token stream: ids, the 0/1 loss mask and the turn of each generated token."""

    def __init__(self, codec: ChatCodec, messages: list[dict], tools: list[dict] | None, budget: int,
                 callable_tools: list[dict] | None = None, tool_format: str = "hermes") -> None:
        self.codec, self.budget = codec, int(budget)
        self.messages = list(messages)
        self.tools = tools
        self.callable_tools = callable_tools if callable_tools is not None else (tools or [])  # the guide's tools
        self.tool_format = tool_format
        self.allowed: dict[int, tuple[int, ...]] = {}  # guided tokens: index in token_ids -> the ids allowed there
        self.sampled_log_probs: dict[int, float] = {}  # guided tokens: the log-prob each was drawn with
        self.token_ids = codec.prompt_ids(messages, tools)
        self.loss_mask = [0] * len(self.token_ids)
        self.turn_index = [-1] * len(self.token_ids)
        self.prompt_length = len(self.token_ids)
        self._last: list[int] = []

    @property
    def room(self) -> int:
        return self.budget - len(self.token_ids)

    @property
    def generated_tokens(self) -> int:
        return sum(self.loss_mask)

    def add_turn(self, generation: Generation, turn: int) -> None:
        n = len(generation.token_ids)
        allowed = getattr(generation, "allowed", None)
        if allowed is not None:
            self.allowed.update({len(self.token_ids) + k: ids for k, ids in enumerate(allowed)})
            self.sampled_log_probs.update({len(self.token_ids) + k: lp for k, lp in enumerate(generation.log_probs)})
        self.token_ids += generation.token_ids
        self.loss_mask += [1] * n
        self.turn_index += [turn] * n
        self._last = list(generation.token_ids)
        self.messages.append({"role": "assistant", "content": generation.text})

    def add_message(self, role: str, content: str, min_turn_tokens: int = 1) -> bool:
        """Append an observation and the next generation prompt; False (nothing added) without room."""
        extra = self.codec.close_turn_ids(self._last) + self.codec.message_ids(role, content)
        if len(self.token_ids) + len(extra) + min_turn_tokens > self.budget:
            return False
        self.token_ids += extra
        self.loss_mask += [0] * len(extra)
        self.turn_index += [-1] * len(extra)
        self.messages.append({"role": role, "content": content})
        return True


@dataclass
class LLMEpisode:
    """One agent's episode: its conversation and one Step per round."""

    task_id: str
    agent_id: str
    group_key: str
    conversation: Conversation
    steps: list[Step] = field(default_factory=list)
    success: bool = False
    done: bool = False
    muted: bool = False  # out of tokens: waits (team) or ended (single agent)
    budget_truncated: bool = False
    _trajectory: Trajectory | None = None

    def trajectory(self) -> Trajectory:
        if self._trajectory is None:
            self._trajectory = Trajectory(self.steps, agent_id=self.agent_id, group_id=self.group_key,
                                          task_id=self.task_id, success=self.success)
        return self._trajectory

    def token_advantages(self, step_advantages: np.ndarray) -> list[float]:
        """Each generated token gets its round's advantage; other tokens 0 (they are masked anyway)."""
        return [float(step_advantages[t]) if t >= 0 else 0.0 for t in self.conversation.turn_index]

    @property
    def final_return(self) -> float:
        return float(sum(s.reward for s in self.steps))


def open_conversation(policy: LLMPolicy, session: Any, first_observation: str, config: RolloutConfig) -> Conversation:
    schemas = tool_schemas(session)
    tools = schemas if config.tools_in_template else None
    user = strip_tool_listing(first_observation) if config.tools_in_template else first_observation
    messages = [{"role": "system", "content": config.system_prompt}, {"role": "user", "content": user}]
    tool_format = getattr(getattr(session, "config", None), "tool_format", "hermes")
    conversation = Conversation(policy.codec, messages, tools, config.max_episode_tokens, schemas, tool_format)
    if conversation.room < config.min_turn_tokens:
        raise ValueError(f"the opening prompt has {conversation.prompt_length} tokens, leaving no room for a turn "
                         f"within max_episode_tokens={config.max_episode_tokens}; raise it")
    return conversation


def _step(reward: float, done: bool, info: Mapping[str, Any], turn: int) -> Step:
    return Step({"turn": turn}, 0, 0.0, 0.0, float(reward), bool(done), _ONE, signals_of(info))


def generate_turns(rows: Sequence[tuple[LLMPolicy, LLMEpisode]], rng: np.random.Generator, config: RolloutConfig,
                   greedy: bool) -> list[Generation]:
    """One turn for every row, batched per distinct policy (shared weights: one batch)."""
    out: list[Generation | None] = [None] * len(rows)
    by_policy: dict[int, list[int]] = {}
    for i, (policy, _) in enumerate(rows):
        by_policy.setdefault(id(policy), []).append(i)
    for indices in by_policy.values():
        policy = rows[indices[0]][0]
        convs = [rows[i][1].conversation for i in indices]
        caps = [max(1, min(config.max_new_tokens, c.room - 1)) for c in convs]
        guides = [guide_for(policy, c) for c in convs] if config.guided else None
        gens = policy.generate([c.token_ids for c in convs], caps, seed=int(rng.integers(2**31)), greedy=greedy,
                               **({"guides": guides} if guides is not None else {}))
        for i, g in zip(indices, gens):
            out[i] = g
    return out  # type: ignore[return-value]


def guide_for(policy: LLMPolicy, conversation: Conversation) -> Any:
    """The guided-decoding walker of the conversation's next reply (built from what it has seen)."""
    from .llm_guided import GuidedReply, build_automaton
    from .llm_reply_grammar import admissible_replies

    replies = admissible_replies(conversation.messages, conversation.callable_tools, conversation.tool_format)
    return GuidedReply(build_automaton(replies, policy.tokenizer))


def collect_llm_single(envs: Sequence[Any], policy: LLMPolicy, task_ids: Sequence[str], group_size: int,
                       rng: np.random.Generator, config: RolloutConfig, greedy: bool = False,
                       ) -> tuple[list[list[LLMEpisode]], RolloutStats]:
    """``group_size`` episodes per task on single-agent text envs (``envs``: at least tasks x G
    unwrapped ``SearchEnv``); all episodes advance together, one generation batch per turn."""
    needed = len(task_ids) * group_size
    if len(envs) < needed:
        raise ValueError(f"need {needed} envs (tasks x group size), got {len(envs)}")
    groups: list[list[LLMEpisode]] = []
    live: list[tuple[Any, LLMEpisode]] = []
    for t, task_id in enumerate(task_ids):
        group = []
        for g in range(group_size):
            env = envs[t * group_size + g]
            obs, _ = env.reset(seed=int(rng.integers(2**31)), options={"task_id": task_id})
            episode = LLMEpisode(task_id, "agent_0", str(t), open_conversation(policy, env.session, obs, config))
            group.append(episode)
            live.append((env, episode))
        groups.append(group)
    while live:
        gens = generate_turns([(policy, ep) for _, ep in live], rng, config, greedy)
        still = []
        for (env, episode), gen in zip(live, gens):
            turn = len(episode.steps)
            episode.conversation.add_turn(gen, turn)
            obs, reward, terminated, truncated, info = env.step(gen.text)
            done = terminated or truncated
            if not done and (turn + 1 >= config.max_turns or not episode.conversation.add_message(
                    config.observation_role, unwrap_tool_response(obs), config.min_turn_tokens)):
                done = episode.budget_truncated = True
                reward += env.config.reward.no_answer_score
            episode.steps.append(_step(reward, done, info, turn))
            if done:
                episode.done, episode.success = True, bool(info.get("success", False))
            else:
                still.append((env, episode))
        live = still
    return groups, _stats([[ep] for g in groups for ep in g])


def collect_llm_parallel(envs: Sequence[Any], policies: Mapping[str, LLMPolicy], task_ids: Sequence[str],
                         episodes_per_task: int, rng: np.random.Generator, config: RolloutConfig,
                         greedy: bool = False, group_by: str = "auto") -> tuple[list[list[LLMEpisode]], RolloutStats]:
    """Episodes of a text-mode PettingZoo ParallelEnv (team or group): every agent is an LLM.

    Groups (``searchgym.agents.grouping``, the rule the candidate learner uses too): ``"agent"``
    (or ``"role"``): per task and agent, its episodes (a team's shared reward compares a role with
    itself); ``"episode"``: each episode's agents (GroupSearchEnv's K attempts); ``"team"``: every
    agent of a task's episodes; ``"auto"``: "episode" for one episode per task, else the env's
    declared ``metadata["group_by"]``.
    """
    needed = len(task_ids) * episodes_per_task
    if len(envs) < needed:
        raise ValueError(f"need {needed} envs (tasks x episodes per task), got {len(envs)}")
    if config.guided:
        raise ValueError("guided decoding offers tool calls and answers, not a team's <post> and <wait/>; "
                         "set RolloutConfig.guided=False for team and group envs")
    group_by = resolve_grouping(group_by, envs[0].metadata.get("group_by", "agent"), episodes_per_task)
    missing = [a for a in envs[0].possible_agents if a not in policies]
    if missing:
        raise ValueError(f"no policy for agents {missing}; give one LLMPolicy per agent (the same object to share)")
    runs: list[tuple[Any, dict[str, LLMEpisode], int]] = []
    for t, task_id in enumerate(task_ids):
        for e in range(episodes_per_task):
            env = envs[t * episodes_per_task + e]
            observations, _ = env.reset(seed=int(rng.integers(2**31)), options={"task_id": task_id})
            key = f"{t}.{e}" if group_by == "episode" else f"{t}"
            runs.append((env, {a: LLMEpisode(task_id, a, key, open_conversation(
                policies[a], env.sessions[a], observations[a]["text"], config)) for a in env.agents}, t))
    while any(env.agents for env, _, _ in runs):
        rows = [(policies[a], eps[a]) for env, eps, _ in runs for a in env.agents if not eps[a].muted]
        gens = iter(generate_turns(rows, rng, config, greedy))
        for env, eps, _ in runs:
            if not env.agents:
                continue
            actions, live = {}, list(env.agents)
            for a in live:
                if eps[a].muted:
                    actions[a] = WAIT_ACTION
                else:
                    gen = next(gens)
                    eps[a].conversation.add_turn(gen, len(eps[a].steps))
                    actions[a] = gen.text
            observations, rewards, terms, truncs, infos = env.step(actions)
            for a in live:
                ep = eps[a]
                done = bool(terms.get(a) or truncs.get(a))
                if not done and not ep.muted and not ep.conversation.add_message(
                        config.observation_role, unwrap_tool_response(observations[a]["text"]), config.min_turn_tokens):
                    ep.muted = ep.budget_truncated = True
                ep.steps.append(_step(rewards.get(a, 0.0), done, infos.get(a, {}), len(ep.steps)))
                if done:
                    ep.done, ep.success = True, bool(infos.get(a, {}).get("success", False))
    return _group(runs, group_by), _stats([list(eps.values()) for _, eps, _ in runs])


def _group(runs, group_by: str) -> list[list[LLMEpisode]]:
    if group_by == "episode":
        return [[ep for ep in eps.values() if ep.steps] for _, eps, _ in runs]
    groups: dict[tuple[int, str], list[LLMEpisode]] = {}
    for _, eps, t in runs:
        for agent, ep in eps.items():
            if ep.steps:
                groups.setdefault((t, TEAM_GROUP if group_by == "team" else agent), []).append(ep)
    return list(groups.values())


def _stats(runs: Sequence[Sequence[LLMEpisode]]) -> RolloutStats:
    """Counts per episode (a team episode succeeds once; every agent's turn is an env step)."""
    return RolloutStats(env_steps=sum(len(ep.steps) for run in runs for ep in run), episodes=len(runs),
                        successes=sum(any(ep.success for ep in run) for run in runs))


class LLMActor:
    """A (greedy) LLM as a harness Actor: ``act(env, observation, info) -> str`` on a single-agent
    text env, ``act(env, observations, infos) -> {agent: str}`` on a parallel one (``policies``:
    one LLMPolicy for every agent, or a mapping agent -> LLMPolicy)."""

    def __init__(self, policies: LLMPolicy | Mapping[str, LLMPolicy], config: RolloutConfig | None = None,
                 seed: int = 0, greedy: bool = True) -> None:
        self.policies, self.config, self.greedy = policies, config or RolloutConfig(), greedy
        self.rng = np.random.default_rng(seed)
        self.episodes: dict[str, LLMEpisode] = {}

    def policy_for(self, agent: str) -> LLMPolicy:
        return self.policies[agent] if isinstance(self.policies, Mapping) else self.policies

    @property
    def episode(self) -> LLMEpisode | None:
        return self.episodes.get("agent_0")

    def reset(self) -> None:
        self.episodes = {}

    def act(self, env: Any, observation: Any, info: Any) -> Any:
        base = env.unwrapped
        if hasattr(base, "session"):
            return self._turns(base, {"agent_0": (base.session, observation, info)})["agent_0"]
        return self._turns(base, {a: (base.sessions[a], observation[a]["text"], info.get(a, {})) for a in observation})

    def _turns(self, base: Any, seen: Mapping[str, tuple[Any, str, Mapping]]) -> dict[str, str]:
        actions, rows = {}, []
        for agent, (session, text, info) in seen.items():
            episode = self.episodes.get(agent)
            if episode is None or int(info.get("step", 0)) == 0:
                episode = self.episodes[agent] = LLMEpisode(base.task.id, agent, "0", open_conversation(
                    self.policy_for(agent), session, text, self.config))
            elif episode.muted or not episode.conversation.add_message(
                    self.config.observation_role, unwrap_tool_response(text), self.config.min_turn_tokens):
                episode.muted = True
                actions[agent] = WAIT_ACTION if not hasattr(base, "session") else "(out of tokens)"
                continue
            rows.append((agent, episode))
        gens = generate_turns([(self.policy_for(a), ep) for a, ep in rows], self.rng, self.config, self.greedy)
        for (agent, episode), gen in zip(rows, gens):
            episode.conversation.add_turn(gen, len(episode.steps))
            episode.steps.append(_step(0.0, False, {}, len(episode.steps)))
            actions[agent] = gen.text
        return actions
