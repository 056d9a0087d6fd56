"""Worst-case ``env.step`` CPU time over a fuzz corpus of hostile text actions.

The corpus (seeded, >= 5,000 actions) mixes nesting 10 to 10,000 deep in every tool's arguments,
answers and notes (lists, objects, arguments encoded as JSON strings, bare JSON), in both text
formats, with random mutations of valid actions (truncation, byte flips, bracket runs, unclosed
strings and tags, think blocks, special tokens, very long text). Every action is stepped in a
single-agent env and a team env; any exception is a failure (exit status 1). Printed side by side:
the worst and median step CPU time (time.process_time) and wall time, and the worst over a flat
baseline corpus of the same lengths (the ratio is what to compare across machines).

    python benchmarks/fuzz_step.py [--actions 5000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from searchgym.actions import TAG_TOOLS
from searchgym.envs.search import SearchEnv
from searchgym.envs.team import TeamSearchEnv

TOOL_ARGS = {"web_search": "query", "knowledge_base": "entity", "calculator": "expression",
             "current_time": "timezone", "ask_for_clarification": "question", "answer": "answer",
             "post_note": "note"}
VALID = ['<tool_call>{"name": "web_search", "arguments": {"query": "Vexa Corp"}}</tool_call>',
         '<tool_call>{"name": "calculator", "arguments": {"expression": "12 * (3 + 4)"}}</tool_call>',
         "<answer>Mara Quell</answer>", "<search>Vexa Corp</search>", "<calculate>2**10</calculate>",
         "<lookup>Mara Quell</lookup>", "<post>found it</post>", "<time/>", "<wait/>"]


def nested(depth: int, kind: str, inner: str = '"x"') -> str:
    return "[" * depth + inner + "]" * depth if kind == "list" else '{"a": ' * depth + inner + "}" * depth


def nesting_cases(depths: tuple[int, ...]) -> list[str]:
    out = []
    for depth in depths:
        for kind in ("list", "object"):
            deep = nested(depth, kind)
            for name, arg in TOOL_ARGS.items():
                encoded = json.dumps(f'{{"{arg}": {deep}}}')
                out += [f'<tool_call>{{"name": "{name}", "arguments": {{"{arg}": {deep}}}}}</tool_call>',
                        f'<tool_call>{{"name": "{name}", "arguments": {{"{arg}": "x", "k": {deep}}}}}</tool_call>',
                        f'<tool_call>{{"name": "{name}", "arguments": {deep}}}</tool_call>',
                        f'<tool_call>{{"name": "{name}", "arguments": {encoded}}}</tool_call>',
                        f'{{"name": "{name}", "arguments": {{"{arg}": {deep}}}}}']
            out += [f"<{tag}>{deep}</{tag}>" for tag in (*TAG_TOOLS, "answer", "post")]
        out += [f"<{tag}>{'(' * depth}1{')' * depth}</{tag}>" for tag in TAG_TOOLS]
        out += ["<tool_call>" + "{" * depth, "<answer>" + "(" * depth, "<think>" * depth + "<answer>x</answer>"]
    return out


def mutation(rng: random.Random) -> str:
    base = rng.choice(VALID)
    how = rng.randrange(8)
    if how == 0:
        return base[: rng.randrange(len(base) + 1)]
    if how == 1:
        chars = list(base)
        for _ in range(rng.randint(1, 6)):
            chars[rng.randrange(len(chars))] = chr(rng.randrange(0x20, 0x250))
        return "".join(chars)
    if how == 2:
        at = rng.randrange(len(base) + 1)
        return base[:at] + rng.choice("[{(\"'<") * rng.choice((10, 100, 1000, 9000)) + base[at:]
    if how == 3:
        return base.replace('"}', "").replace("</", "<")
    if how == 4:
        return "<think>" + "x" * rng.randrange(50_000) + "</think>" + base
    if how == 5:
        return "<|im_start|>" * rng.randrange(1, 200) + base + "<|im_end|>"
    if how == 6:
        return base * rng.randint(2, 400)
    return "".join(chr(rng.randrange(1, 0x3000)) for _ in range(rng.randrange(1, 3000)))


def corpus(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    actions = nesting_cases((10, 16, 18, 20, 22, 25, 30, 33, 34, 35, 40, 64, 100, 500, 600, 999, 1000, 3000, 10_000))
    while len(actions) < n:
        actions.append(mutation(rng))
    return actions


def flatten(action: str) -> str:
    return action.translate(str.maketrans("[]{}()", "      "))


def step_times(actions: list[str]) -> tuple[dict[str, list[float]], dict[str, list[float]], list[str]]:
    """Per env, the (CPU, wall) seconds of each action's step, and the exceptions any step raised."""
    # the longest episodes accepted (1000 steps or rounds): they truncate and reset below
    envs = {f"SearchEnv {f}": SearchEnv(action_mode="text", tool_format=f, world_size="tiny", split="train",
                                        max_steps=1000) for f in ("hermes", "tags")}
    team = TeamSearchEnv(world_size="tiny", action_mode="text", tool_format="hermes", max_rounds=1000)
    for env in envs.values():
        env.reset(seed=0)
    team.reset(seed=0)
    cpu: dict[str, list[float]] = {name: [] for name in [*envs, "TeamSearchEnv round"]}
    wall: dict[str, list[float]] = {name: [] for name in cpu}
    errors: list[str] = []
    for action in actions:
        for name, env in envs.items():
            c0, w0 = time.process_time(), time.perf_counter()
            try:
                _, _, terminated, truncated, _ = env.step(action)
            except Exception as exc:  # noqa: BLE001  (what the benchmark exists to find)
                errors.append(f"{name}: {type(exc).__name__} on {action[:60]!r}")
                terminated = True
            cpu[name].append(time.process_time() - c0)
            wall[name].append(time.perf_counter() - w0)
            if terminated or truncated:
                env.reset(seed=0)
        c0, w0 = time.process_time(), time.perf_counter()
        try:
            team.step({agent: action for agent in team.agents})
        except Exception as exc:  # noqa: BLE001
            errors.append(f"TeamSearchEnv: {type(exc).__name__} on {action[:60]!r}")
        cpu["TeamSearchEnv round"].append(time.process_time() - c0)
        wall["TeamSearchEnv round"].append(time.perf_counter() - w0)
        if not team.agents:
            team.reset(seed=0)
    return cpu, wall, errors


def main(argv: list[str] | None = None) -> int:
    """The exit status: 1 when any step raised (the failure this benchmark looks for), else 0."""
    # a bad count is one usage line (before: a traceback, or rows of nonsense)
    from suite_arg import count, describe, natural

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--actions", type=count, default=5000,
                        help="corpus size: the nesting cases, then random mutations up to N (default 5000)")
    parser.add_argument("--seed", type=natural, default=0, help="seed of the mutations (default 0)")
    args = parser.parse_args(argv)
    actions = corpus(max(args.actions, 1), args.seed)
    hostile_cpu, hostile_wall, errors = step_times(actions)
    flat_cpu, flat_wall, flat_errors = step_times([flatten(a) for a in actions])
    print(f"fuzz corpus: {len(actions)} actions, {len(nesting_cases((10,)))} nesting cases per depth at 19 depths "
          "(10..10,000); each stepped in every env below (a team round steps it for all three agents)")
    print(f"{'':<22}{'worst CPU ms':>14}{'worst wall ms':>15}{'median CPU ms':>15}{'flat worst CPU ms':>19}{'ratio':>7}")
    for name in hostile_cpu:
        c, w, f = hostile_cpu[name], hostile_wall[name], flat_cpu[name]
        print(f"{name:<22}{max(c) * 1e3:>14.2f}{max(w) * 1e3:>15.2f}{statistics.median(c) * 1e3:>15.3f}"
              f"{max(f) * 1e3:>19.2f}{max(c) / max(max(f), 1e-9):>7.2f}")
    worst_name = max(hostile_cpu, key=lambda n: max(hostile_cpu[n]))
    worst = max(range(len(actions)), key=hostile_cpu[worst_name].__getitem__)
    print(f"worst single-agent or team step: {worst_name}, action of {len(actions[worst])} chars: {actions[worst][:80]!r}")
    print(f"exceptions raised by step: {len(errors)} (flat corpus: {len(flat_errors)})")
    for line in (errors + flat_errors)[:10]:
        print("  " + line)
    return 1 if errors or flat_errors else 0  # before: 0, so a check that ran it passed on a step that raised


if __name__ == "__main__":
    raise SystemExit(main())
