"""The ``searchgym`` command. Each sub-command lives in its own module with ``add_arguments(parser)``
and ``run(args) -> int``; modules are imported only when their command runs, so ``searchgym list``
does not pay for torch."""

from __future__ import annotations

import argparse
import importlib
import sys

#: command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("searchgym.commands.list_envs", "list registered environment ids"),
    "play": ("searchgym.commands.play", "play an env in the terminal (type tool calls, read results)"),
    "world": ("searchgym.commands.world", "inspect a world: `searchgym world stats`"),
    "demo": ("searchgym.commands.demo", "random vs oracle on the default suite's test split"),
    "suites": ("searchgym.commands.suites", "list the versioned suites with their content hashes"),
    "train": ("searchgym.commands.train", "train one method on one env"),
    "compare": ("searchgym.commands.compare", "train and evaluate methods x seeds on a suite"),
    "evaluate": ("searchgym.commands.evaluate", "score any agent (module:factory or an OpenAI-compatible endpoint)"),
    "leaderboard": ("searchgym.commands.leaderboard", "submit, verify and build the leaderboard"),
}


def build_parser(load: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="searchgym", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text)
        if name == load:
            importlib.import_module(module).add_arguments(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    name = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(name if name in COMMANDS else None)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(importlib.import_module(COMMANDS[args.command][0]).run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (ValueError, KeyError, TypeError, FileNotFoundError) as exc:
        print(f"searchgym {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
