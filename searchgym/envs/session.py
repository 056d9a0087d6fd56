"""One agent's attempt at one task: the episode logic every env shares.

``SearchEnv`` drives one session, ``GroupSearchEnv`` K sessions on the same task, and
``TeamSearchEnv`` K sessions that also share a blackboard. A session owns the transcript, what
the agent has seen (for candidates), the process judge, and the reward bookkeeping; the world
and its tools are shared and never copied.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from operator import attrgetter

import numpy as np

from searchgym.action_types import Action, ParseError
from searchgym.actions import MAX_ACTION_CHARS, accepted_forms, format_tool_result, parse_action, parse_tool_call
from searchgym.candidate_history import RankedCandidates
from searchgym.candidates import CandidateGenerator, Observed, names_in
from searchgym.envs.spaces import discrete_index, sanitize
from searchgym.envs.transcript import Transcript
from searchgym.judge import ProcessJudge, RoundSignals
from searchgym.observation_format import question_text
from searchgym.scoring import AnswerScore, RewardConfig, compose_reward, score_answer
from searchgym.shown import safe_repr
from searchgym.tools.base import Tool, ToolResult
from searchgym.tools.toolkit import TOOL_NAMES, task_tools
from searchgym.world.model import Task
from searchgym.world.world import World

ACTION_MODES = ("text", "candidates")
#: ``info["score"]`` before an answer (the same keys as an AnswerScore, so vector envs can stack infos).
NO_SCORE = {"em": 0.0, "f1": 0.0, "numeric": 0.0, "set_f1": 0.0, "score": 0.0, "success": False}
#: ``info["signals"]`` and ``info["reward_components"]`` after reset (no round has happened yet).
NO_SIGNALS = {"new_gold_ids": (), "new_gold": False, "consistent": True, "reason": "reset", "contribution": 0.0}
NO_REWARD = {"answer": 0.0, "step_cost": 0.0, "invalid_cost": 0.0, "format_cost": 0.0, "total": 0.0}


@dataclass(frozen=True)
class EpisodeConfig:
    """Settings of an episode, validated once (a bad value is a clear error at construction)."""

    action_mode: str = "text"
    tool_format: str = "hermes"
    max_steps: int = 12
    max_candidates: int = 48
    max_obs_chars: int = 6000
    max_candidate_chars: int = 300
    max_action_chars: int = MAX_ACTION_CHARS  # the text action space's bound: what the parser reads
    reward: RewardConfig = field(default_factory=RewardConfig)

    def __post_init__(self) -> None:
        if self.action_mode not in ACTION_MODES:
            raise ValueError(f"action_mode must be one of {ACTION_MODES}, got {self.action_mode!r}")
        if self.tool_format not in ("hermes", "tags"):
            raise ValueError(f"tool_format must be 'hermes' or 'tags', got {self.tool_format!r}")
        for name in ("max_steps", "max_candidates", "max_obs_chars", "max_candidate_chars", "max_action_chars"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {safe_repr(value, 60)}")
            object.__setattr__(self, name, int(value))  # a NumPy int (a sweep's np.arange) as the int it is
        if self.max_candidates < 2:
            raise ValueError("max_candidates must be >= 2")


@dataclass
class StepOutcome:
    """What one step did: the text shown, the reward by component, the judge's signals."""

    text: str
    reward: dict[str, float]
    signals: RoundSignals
    terminated: bool
    truncated: bool
    invalid: bool
    format_error: bool
    action: Action | None
    score: AnswerScore | None = None


_SCORE_FIELDS = tuple(f.name for f in fields(AnswerScore))
_SCORES: dict[tuple[int, str, str], tuple[Task, AnswerScore]] = {}


def _scored(task: Task, answer: str, metric: str) -> AnswerScore:
    """``score_answer``, memoised (scores are immutable; agents give the same answers again)."""
    key = (id(task), answer, metric)
    found = _SCORES.get(key)
    if found is None or found[0] is not task:
        if len(_SCORES) > 100_000:
            _SCORES.clear()
        found = _SCORES[key] = (task, score_answer(task, answer, metric))
    return found[1]


def score_info(score: AnswerScore) -> dict:
    """``info["score"]``: ``asdict(score)`` (every field is a number or a flag, so a flat copy)."""
    return {name: getattr(score, name) for name in _SCORE_FIELDS}


def signals_info(signals: RoundSignals) -> dict:
    """``info["signals"]``: the judge's signals of a round and their contribution (as ``asdict``)."""
    return {"new_gold_ids": tuple(signals.new_gold_ids), "new_gold": signals.new_gold,
            "consistent": signals.consistent, "reason": signals.reason, "contribution": signals.contribution}


def candidate_text(action: Action, max_chars: int) -> str:
    """What a policy reads for a candidate: ``describe()`` sanitised and cut to ``max_chars``.

    Memoised on the action itself, one attribute per cut (an immutable value; ``with_provenance``
    copies drop the memo): the same candidate objects are listed step after step."""
    getter = _text_memo(max_chars)
    text = action.__dict__.get(getter.name)
    if text is None:
        text = action.__dict__[getter.name] = sanitize(action.describe(), max_chars)
    return text


class _TextMemo:
    """The attribute that holds an action's candidate text for one cut, and a getter for it."""

    def __init__(self, max_chars: int) -> None:
        self.name = f"_candidate_text_{max_chars}"
        self.get = attrgetter(self.name)


_TEXT_MEMOS: dict[int, _TextMemo] = {}


def _text_memo(max_chars: int) -> _TextMemo:
    memo = _TEXT_MEMOS.get(max_chars)
    if memo is None:
        memo = _TEXT_MEMOS[max_chars] = _TextMemo(max_chars)
    return memo


def candidate_texts(actions: Sequence[Action], max_chars: int) -> tuple[str, ...]:
    """``candidate_text`` of every action. Why: a list met for the first time is mostly actions
    listed before, whose memos one C-level pass reads; the actions without one get it first."""
    memo = _text_memo(max_chars)
    try:
        return tuple(map(memo.get, actions))
    except AttributeError:
        name, texts = memo.name, []
        for action in actions:  # one pass: each memo read, or made
            text = action.__dict__.get(name)
            texts.append(text if text is not None else candidate_text(action, max_chars))
        return tuple(texts)


def rendered(action: Action) -> str:
    """``action.render()``, memoised on the action like ``candidate_text`` (a transcript line is
    the rendering of a candidate object that is listed and taken again and again)."""
    line = action.__dict__.get("_rendered")
    if line is None:
        line = action.__dict__["_rendered"] = action.render()
    return line


_MASKS: dict[tuple[int, int], np.ndarray] = {}
_PADDING: dict[int, tuple[str, ...]] = {}


def _padding(count: int) -> tuple[str, ...]:
    """``count`` empty strings (what fills a candidate tuple up to ``max_candidates``), built once."""
    found = _PADDING.get(count)
    if found is None:
        found = _PADDING[count] = ("",) * count
    return found


def prefix_mask(size: int, ones: int) -> np.ndarray:
    """A fresh int8 array of ``size`` whose first ``ones`` entries are 1: a copy of a stored one
    (a copy costs a fifth of building it; every caller gets its own array to change)."""
    template = _MASKS.get((size, ones))
    if template is None:
        template = np.zeros(size, dtype=np.int8)
        template[:ones] = 1
        _MASKS[(size, ones)] = template
    return template.copy()


class SearchSession(Transcript):
    """The state of one agent on one task; see the module docstring."""

    def __init__(
        self,
        world: World,
        tools: Mapping[str, Tool],
        task: Task,
        config: EpisodeConfig,
        rng: np.random.Generator,
        allowed_tools: Sequence[str] | None = None,
        can_answer: bool = True,
        header: str = "",
        generator: CandidateGenerator | None = None,
    ) -> None:
        self.world, self.task, self.config, self.rng = world, task, config, rng
        self.tools: dict[str, Tool] = dict(tools)
        self.tools.update(task_tools(task))  # ask_for_clarification's simulated user knows this task
        self.allowed = tuple([t for t in TOOL_NAMES if t in self.tools and (allowed_tools is None or t in allowed_tools)])
        self.can_answer = can_answer
        self.header = header
        self.generator = generator or CandidateGenerator(world, config.max_candidates)
        self.judge = ProcessJudge(task)
        self.observed = Observed(names_in(world, task.question))
        self.transcript: list[tuple[str, str]] = []  # (action line, result text)
        self._block_memo: list[tuple[str, bool]] = []  # transcript_text's blocks, built once per round
        self._head: tuple[str | None, str, bool] = (None, "", True)  # transcript_text's (extra, head, clean)
        # transcript_text's last text when every block fitted: (head, blocks, budget left, clean, text)
        self._whole: tuple[tuple, int, int, bool, str] | None = None
        self.steps = 0
        self.tool_calls = 0
        self.invalid_actions = 0
        self.format_errors = 0
        self.answer: str | None = None
        self.score: AnswerScore | None = None
        self.done = False
        self.gold_seen: list[str] = []
        self.signals: list[RoundSignals] = []
        self.candidates: list[Action] = []
        # (the shuffled list, the ranked list it came from, the order): candidate texts come from
        # the ranked list's, which are built once per list, not once per step
        self._shuffled: tuple[list[Action], RankedCandidates, list[int]] | None = None

    # ---------------------------------------------------------------------- observations
    def prompt(self, team_actions: bool = False, chat: bool = False, max_chars: int | None = None) -> str:
        """The first observation in text mode: the question, the tools and the accepted forms.

        ``chat=True`` is the form for a chat template that renders the tools itself
        (``apply_chat_template(tools=...)``, an OpenAI ``tools`` list): no tool list and no
        tool-call examples, only the answer (and team) forms and the question. ``max_chars``: its
        length at most (default ``max_obs_chars``; a team leaves room for the blackboard after it)."""
        limit = max(self.config.max_obs_chars if max_chars is None else max_chars, 0)  # never a negative cut
        forms = accepted_forms(self.config.tool_format, self.allowed, team_actions, answer=self.can_answer)
        answer = "Give your final answer with <answer>...</answer>." if self.can_answer else \
            "You cannot submit the final answer; another team member does."
        head = f"{self.header}\n" if self.header else ""
        question = self.question_line(limit)
        if chat:
            team = " Team actions: <post>a note for your team</post> or <wait/>." if team_actions else ""
            text = (f"{head}Answer the question by calling the tools you are given, one call per turn. "
                    f"{answer}{team}")
        else:
            schemas = json.dumps([self.tools[t].schema() for t in self.allowed])
            text = f"{head}Answer the question by using the tools. {answer}\nTools: {schemas}\n{forms}"
        # cut before the question, which comes last: a max_obs_chars below the prompt's length cut it off
        return sanitize(text, limit - len(question) if question.startswith("\n") else 0) + question

    def team_prompt(self, board: Callable[[int], str]) -> str:
        """A team member's first text observation: the question first, then the board (``board(room)``,
        which ends the text), then the header and tools, as candidate mode cuts. Why: the board's
        room came first, so a small ``max_obs_chars`` cut the question, or left only the header's start."""
        limit = self.config.max_obs_chars
        room = limit - len(self.question_line(limit)) - 1
        text = board(room)
        tail = "\n" + text if len(text) <= room else ""
        return self.prompt(team_actions=True, max_chars=limit - len(tail)) + tail

    def question_line(self, max_chars: int) -> str:
        """``"\nQuestion: ..."`` as the prompt ends with it, at most ``max_chars``: what a prompt keeps first. The
        newline that parts it from the text before it only where that text has room for a character: a
        ``max_chars`` below the question's length gives its first ``max_chars`` characters. Why: the newline
        was counted in, so a ``max_chars`` of the question's length cut its last character and began the
        observation with a newline."""
        line = sanitize(question_text(self.task.question), max(max_chars, 0))
        return "\n" + line if len(line) + 1 < max_chars else line

    def refresh_candidates(self, extra: Sequence[Action] = ()) -> list[Action]:
        """Regenerate and shuffle this step's candidates (by the session's generator)."""
        ranked = self.generator.ranked(self.observed, self.allowed, self.can_answer, extra)
        actions = ranked.actions
        # the draws and order of ``rng.permutation(len(actions))``, without building an array
        order = list(range(len(actions)))
        self.rng.shuffle(order)
        self.candidates = list(map(actions.__getitem__, order))
        self._shuffled = (self.candidates, ranked, order)
        return self.candidates

    def candidate_observation(self, extra_text: str = "") -> dict:
        n = self.config.max_candidates
        limit = self.config.max_candidate_chars
        shuffled = self._shuffled
        if shuffled is not None and shuffled[0] is self.candidates and len(shuffled[2]) == len(self.candidates) <= n:
            ranked_texts = shuffled[1].texts(limit, candidate_text, candidate_texts)
            texts = tuple(map(ranked_texts.__getitem__, shuffled[2]))
        else:  # candidates set by hand: read them one by one
            texts = tuple([candidate_text(a, limit) for a in self.candidates[:n]])
        return {"text": self.transcript_text(extra_text), "candidates": texts + _padding(n - len(texts)),
                "action_mask": prefix_mask(n, len(texts))}

    @property
    def action_mask(self) -> np.ndarray:
        return prefix_mask(self.config.max_candidates, len(self.candidates))

    # --------------------------------------------------------------------------- acting
    def decode(self, action: object, team_actions: bool = False) -> Action | ParseError:
        """Turn the env's raw action (an index; a string, or a structured tool call, in text mode)
        into an Action or a ParseError."""
        if self.config.action_mode == "candidates":
            index = discrete_index(action)
            if index is None:
                return ParseError(f"candidate mode takes an int index, got {type(action).__name__}")
            if not 0 <= index < self.config.max_candidates:
                return ParseError(f"index {safe_repr(index, 60)} is out of range: the action space is "
                                  f"0..{self.config.max_candidates - 1}; admissible now: 0..{len(self.candidates) - 1}")
            if index >= len(self.candidates):
                return ParseError(f"index {index} is masked; admissible: 0..{len(self.candidates) - 1}")
            return self.candidates[index]
        if not isinstance(action, str):  # a structured call: a dict or an OpenAI tool_call object
            return parse_tool_call(action, self.config.tool_format, self.allowed, allow_team_actions=team_actions)
        return parse_action(action, self.config.tool_format, self.allowed, allow_team_actions=team_actions)

    def _check_open(self) -> None:
        """Refuse a step of a finished episode before anything runs. Why: ``settle`` refused it only
        after the tool had run and ``tool_calls`` had counted it."""
        if self.done:
            raise RuntimeError("this episode is over; call reset()")

    def execute(self, action: Action) -> tuple[ToolResult, bool]:
        """Run a tool action (or refuse it); returns (result, invalid)."""
        self._check_open()
        if action.tool not in self.allowed:
            why = f"the tool {action.tool!r} is not available to you; your tools: {', '.join(self.allowed)}"
            return ToolResult.failure(why), True
        self.tool_calls += 1
        result = self.tools[action.tool](**action.args)
        return result, not result.ok

    def apply(self, raw: object, team_actions: bool = False) -> StepOutcome:
        """Decode, execute and settle one step (posts and waits are handled by the team env)."""
        action = self.decode(raw, team_actions)
        if isinstance(action, ParseError):
            return self.settle(None, ToolResult.failure(action.message), invalid=False, format_error=True)
        if action.kind == "answer":
            if not self.can_answer:
                return self.settle(action, ToolResult.failure("your role cannot submit the answer"), invalid=True)
            return self.settle(action, ToolResult(f"Answer submitted: {action.text}"))
        if action.kind != "tool":
            return self.settle(action, ToolResult.failure(f"a {action.kind} action is not available here"), invalid=True)
        result, invalid = self.execute(action)
        return self.settle(action, result, invalid=invalid)

    def settle(self, action: Action | None, result: ToolResult, invalid: bool = False,
               format_error: bool = False) -> StepOutcome:
        """Book-keeping shared by every kind of step: judge, reward, transcript, termination."""
        self._check_open()
        self.steps += 1
        self.invalid_actions += int(invalid)
        self.format_errors += int(format_error)
        signals = self.judge.judge(action, result.evidence_ids, result.ok and not invalid, result.text)
        self.signals.append(signals)
        self.gold_seen.extend(g for g in signals.new_gold_ids if g not in self.gold_seen)
        self.observed.record(self.world, action if not invalid else None, result if not invalid else None)
        score = None
        terminated = False
        if action is not None and action.kind == "answer" and not invalid:
            self.answer = action.text
            self.score = score = _scored(self.task, action.text, self.config.reward.answer_metric)
            terminated = True
        truncated = not terminated and self.steps >= self.config.max_steps
        reward = compose_reward(score, invalid, format_error, self.config.reward, unanswered=truncated)
        line = rendered(action) if action is not None else "(unparseable action)"
        self.transcript.append((line, result.text))
        self.done = terminated or truncated
        text = result.text
        if self.config.action_mode == "text" and action is not None and action.kind == "tool":
            text = format_tool_result(action.tool, result.text, self.config.tool_format)
        return StepOutcome(sanitize(text, self.config.max_obs_chars), reward, signals, terminated, truncated,
                           invalid, format_error, action, score)

    # ------------------------------------------------------------------------------ info
    def info(self) -> dict:
        """The per-step info every env reports (the env adds reward components and masks)."""
        return {
            "task_id": self.task.id,
            "family": self.task.family,
            "split": self.task.split,
            "step": self.steps,
            "tool_calls": self.tool_calls,
            "invalid_actions": self.invalid_actions,
            "format_errors": self.format_errors,
            "evidence_found": list(self.gold_seen),
            "gold_evidence": len(self.task.evidence),
            "answer": self.answer,
            "success": bool(self.score.success) if self.score else False,
            "score": score_info(self.score) if self.score else dict(NO_SCORE),
        }

    def render(self) -> str:
        lines = [f"Task {self.task.id} ({self.task.family}): {self.task.question}"]
        for i, (line, result) in enumerate(self.transcript, start=1):
            lines.append(f"[{i}] {line}\n    " + result.replace("\n", "\n    "))
        if self.score is not None:
            lines.append(f"Answer: {self.answer!r}  success={self.score.success}  score={self.score.score:.2f}")
        return "\n".join(lines)
