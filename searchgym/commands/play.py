"""``searchgym play ID``: play an env in the terminal, typing actions and reading results.

Text-mode ids take a typed action in either format, whatever the env's own (a Search-R1 tag
``<search>Vexa Corp</search>`` or a Hermes ``<tool_call>``; ``<answer>...</answer>``; teams also
``<post>note</post>`` and ``<wait/>``): an action written in the other format is rewritten into
the env's before it is stepped. Candidate-mode ids take the number of a listed candidate. The
screen shows the tools by name (the full JSON schemas are for models: ``searchgym.tools.tool_schemas``). ``:q`` quits, ``:help`` shows this help. For a team a
person plays one role (``--role``, default the first) and the others are the oracle team or
random (``--others``); for a group the person plays ``agent_0`` (or ``--role``) and the others
are single-agent oracles or random agents.

Everything reads from an input stream and writes to an output stream (``play(...)``), so a test
can script a whole game.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

import searchgym
from searchgym.action_types import Action, ParseError
from searchgym.actions import TOOL_FORMATS, accepted_forms, format_action, parse_action
from searchgym.commands import check_seed, check_world_seed, check_world_size
from searchgym.registry import base_env
from searchgym.tools.toolkit import TOOL_NAMES
from searchgym.world.generate import size_from_text

HELP = ("Type an action and press Enter (text mode), or a candidate's number (candidate mode). "
        ":q quits, :help shows this again.")
_TOOLS_LINE = re.compile(r"^Tools: \[.*$", re.MULTILINE)


def text_help(session: Any, team: bool) -> str:
    """The help of a text-mode game: the forms of both formats (either is accepted)."""
    forms = "\n".join(accepted_forms(f, session.allowed, team, answer=session.can_answer) for f in TOOL_FORMATS)
    return f"{HELP}\n{forms}"


_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z]|\s*$)")


def first_sentence(text: str) -> str:
    """The first sentence, whole: it ends at a full stop before a capital or the end, so "e.g."
    and "1.5" do not cut it."""
    end = _SENTENCE_END.search(text)
    return (text[: end.start()] if end else text).strip()


def readable_prompt(text: str, session: Any) -> str:
    """The first observation for a person: the tools by name instead of their JSON schemas."""
    names = ", ".join(f"{n} ({first_sentence(session.tools[n].description)})" for n in session.allowed)
    return _TOOLS_LINE.sub(lambda _: f"Tools: {names}", text, count=1)


def as_env_action(line: str, session: Any, team: bool) -> str:
    """The typed line in the env's tool format: as typed when the env reads it (or nothing reads
    it: the env then says what is accepted), else rewritten from the other format."""
    fmt = session.config.tool_format
    if not isinstance(parse_action(line, fmt, TOOL_NAMES, team), ParseError):
        return line
    for other in TOOL_FORMATS:
        action = parse_action(line, other, TOOL_NAMES, team) if other != fmt else None
        if isinstance(action, Action):
            try:
                return format_action(action, fmt)
            except ValueError:
                return line
    return line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("env_id", metavar="ID", help="an env id (see `searchgym list`)")
    parser.add_argument("--role", default=None, help="the team role (or group agent) you play; default the first")
    parser.add_argument("--others", choices=["oracle", "random"], default="oracle",
                        help="who plays the other agents of a team or group (default oracle)")
    parser.add_argument("--seed", type=int, default=0, help="episode seed (default 0)")
    parser.add_argument("--task-id", default=None, help="play this task (default: drawn from the split)")
    parser.add_argument("--split", default=None, choices=["train", "dev", "test"],
                        help="task split to draw from (default: train; without --split, --task-id may name a "
                        "task of any split)")
    parser.add_argument("--world-size", default="small",
                        help="tiny, small, medium, large, xl or an int scale in 4..9000 (default small)")
    parser.add_argument("--world-seed", type=int, default=0, help="world seed (default 0)")


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    check_seed(args)
    check_world_seed(args)
    check_world_size(args.world_size, "--world-size")  # before: "world_size must be ..." (the keyword)
    if stdin is None and sys.stdin is None:  # before: "error: 'NoneType' object is not iterable"
        raise ValueError("standard input is closed, and play reads your actions from it; run it in a terminal "
                         "or pipe the actions in, one per line")
    if stdin is None and hasattr(sys.stdin, "reconfigure"):
        # a byte that is not UTF-8 (text pasted from a Latin-1 file) is a replaced character the env
        # answers, not "error: 'utf-8' codec can't decode byte 0xff" ending the game (strict locales)
        sys.stdin.reconfigure(errors="replace")
    return play(args.env_id, role=args.role, others=args.others, seed=args.seed, task_id=args.task_id,
                split=args.split, world_size=args.world_size, world_seed=args.world_seed,
                stdin=stdin or sys.stdin, stdout=stdout or sys.stdout)


class _Quit(Exception):
    """The player typed :q or the input ended."""


class _Console:
    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.lines: Iterator[str] = iter(stdin)
        self.out = stdout
        self.help = HELP

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str = "> ") -> str:
        while True:
            self.out.write(prompt)
            self.out.flush()
            line = next(self.lines, None)
            if line is None:
                self.say("(input ended)")
                raise _Quit
            line = line.rstrip("\n")
            if line.strip() == ":q":
                raise _Quit
            if line.strip() == ":help":
                self.say(self.help)
                continue
            if line.strip():
                return line

    def choose(self, candidates: list, mode: str) -> Any:
        """An env action typed by the player: a string, or a listed candidate's number."""
        if mode == "text":
            return self.ask()
        for i, c in enumerate(candidates):
            self.say(f"  [{i}] {c.describe()}")
        while True:
            line = self.ask(f"choose 0-{len(candidates) - 1}> ").strip()
            if line.isdecimal() and int(line) < len(candidates):  # isdigit(): "²" passed, and int() raised
                return int(line)
            self.say(f"'{line}' is not a listed number; type 0-{len(candidates) - 1}, :help or :q")


def _env_kwargs(world_size: str, world_seed: int, split: str | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"world_size": size_from_text(world_size), "world_seed": world_seed}
    if split is not None:
        kwargs["split"] = split
    return kwargs


def play(env_id: str, role: str | None = None, others: str = "oracle", seed: int = 0, task_id: str | None = None,
         split: str | None = None, world_size: str = "small", world_seed: int = 0,
         stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> int:
    """Play one episode of ``env_id``; returns 0 (a finished or quit game) like a command."""
    spec = searchgym.spec(env_id)
    if others not in ("oracle", "random"):
        raise ValueError(f"others must be 'oracle' or 'random', got {others!r}")
    console = _Console(stdin, stdout)
    options = {"task_id": task_id} if task_id is not None else None
    kwargs = _env_kwargs(world_size, world_seed, split)
    if spec.kind == "single" and role is not None:
        raise ValueError(f"--role is for team and group ids; {env_id!r} has one agent")
    if spec.kind == "single" and others != "oracle":  # before: ignored, as if the agent had team mates
        raise ValueError(f"--others is for team and group ids; {env_id!r} has one agent")
    env = searchgym.make(env_id, **kwargs)
    _check_task_split(base_env(env).world, task_id, split)
    agents = getattr(base_env(env), "possible_agents", None) or []
    if spec.kind != "single" and role is not None and role not in agents:  # before: named the env's class
        env.close()
        raise ValueError(f"unknown role {role!r} for {env_id}; --role accepts {', '.join(agents)} (default: "
                         "the first)")
    try:
        if spec.kind == "single":
            _play_single(env.unwrapped, console, seed, options)
        else:
            _play_multi(env, console, role, others, seed, options)
    except _Quit:
        console.say("bye")
    return 0


def _check_task_split(world: Any, task_id: str | None, split: str | None) -> None:
    """Refuse a --task-id this world lacks, or of another split than --split. Why: the env's task_id
    option picks a task from any split, so `--split test --task-id <a train task>` silently played
    a train task; an empty --task-id drew a task as if none were given, and an unknown one was "no
    task with id 'x' in this world", with no word of what a task id looks like."""
    if task_id is None:
        return
    task = world.task_by_id.get(str(task_id))
    if task is None:
        first_of_family: dict[str, str] = {}
        for known in world.tasks_in(split) or world.tasks:
            first_of_family.setdefault(known.family, known.id)
        shown = ", ".join(list(first_of_family.values())[:3])
        raise ValueError(f"--task-id {task_id!r} is no task of this world (world seed {world.seed}, size "
                         f"{world.size}); its {split + ' ' if split else ''}task ids are like {shown}; "
                         "leave --task-id out to draw one")
    if split and task.split != split:
        raise ValueError(f"--task-id {task_id} is a {task.split} task, not a {split} one; "
                         f"give --split {task.split} or drop --split")


def _summary(console: _Console, info: dict, total: float) -> None:
    score = info.get("score") or {}
    console.say(f"\nEpisode over. Answer: {info.get('answer')!r}  success={info.get('success')}  "
                f"score={score.get('score', 0.0):.2f}  your total reward={total:+.3f}")


def _play_single(env: Any, console: _Console, seed: int, options: dict | None) -> None:
    obs, info = env.reset(seed=seed, options=options)
    mode = env.config.action_mode
    if mode == "text":
        console.help = text_help(env.session, team=False)
    console.say(f"{env.spec.id if env.spec else 'env'}: task {env.task.id} ({env.task.family}). {HELP}")
    console.say(readable_prompt(obs, env.session) if mode == "text" else obs["text"])
    total, done = 0.0, False
    while not done:
        action = console.choose(list(env.session.candidates), mode)
        if mode == "text":
            action = as_env_action(action, env.session, team=False)
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
        done = terminated or truncated
        shown = obs if mode == "text" else env.session.transcript[-1][1]
        console.say(f"{shown}\n(reward {reward:+.3f})")
    _summary(console, info, total)


def _others_actor(others: str, seed: int) -> Any:
    """The harness actor of the team baselines (it also drives a group with single-agent ones)."""
    from searchgym.baselines import team_oracle, team_random

    module = team_oracle if others == "oracle" else team_random
    return module.harness_actor(seed=seed)


def _play_multi(env: Any, console: _Console, role: str | None, others: str, seed: int,
                options: dict | None) -> None:
    env = base = base_env(env)  # a *-Numeric-v0 id is played as the candidate env inside its wrapper
    role = role or base.possible_agents[0]  # another than possible_agents: refused by play()
    actor = _others_actor(others, seed)
    actor.reset()
    obs, infos = env.reset(seed=seed, options=options)
    mode = base.config.action_mode
    team = hasattr(base, "blackboard")
    if mode == "text":
        console.help = text_help(base.sessions[role], team)
    console.say(f"task {base.task.id} ({base.task.family}); you are {role}, the others are {others}. {HELP}")
    console.say(readable_prompt(obs[role]["text"], base.sessions[role]) if mode == "text" else obs[role]["text"])
    total, last_info = 0.0, infos[role]
    while base.agents:
        actions = actor.act(env, {a: obs[a] for a in base.agents}, infos)
        if role in base.agents:
            actions[role] = console.choose(list(base.sessions[role].candidates), mode)
            if mode == "text":
                actions[role] = as_env_action(actions[role], base.sessions[role], team)
        obs, rewards, _, _, infos = env.step(actions)
        if role in obs:
            total += rewards[role]
            last_info = infos[role]
            shown = obs[role]["text"] if mode == "text" else _latest(base, role)
            console.say(f"{shown}\n(reward {rewards[role]:+.3f})")
    _summary(console, last_info, total)


def _latest(base: Any, role: str) -> str:
    """What the player's last action returned, then any new notes (candidate mode)."""
    session = base.sessions[role]
    text = session.transcript[-1][1]
    board = getattr(base, "blackboard", None)
    if board is not None:
        notes = [n for n in board.posted_in(base.round) if n.author != role]
        if notes:
            text += "\n" + board.text(2000, notes, "New notes on the blackboard")
    return text
