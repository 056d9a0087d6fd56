"""The ``searchgym`` command. Each sub-command lives in its own module with ``add_arguments(parser)``
and ``run(args) -> int``; modules are imported only when their command runs, so ``searchgym list``
does not pay for torch. Every option's help shows its default. A command that needs an extra which
is not installed (torch for ``train``) ends in one line naming ``pip install 'searchgym[...]'``."""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import signal
import sys
import threading

from searchgym.damaged import DamagedFile, warnings_on_one_line
from searchgym.extras import missing_extra_message
from searchgym.plugins import (
    PLUGINS_VARIABLE,
    PluginError,
    environment_plugins,
    export_plugins,
    import_plugins,
    plugin_names,
)

#: command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("searchgym.commands.list_envs", "list registered environment ids"),
    "play": ("searchgym.commands.play", "play an env in the terminal (type tool calls, read results)"),
    "world": ("searchgym.commands.world", "inspect a world: `searchgym world stats`"),
    "demo": ("searchgym.commands.demo", ("random vs oracle agents on one split of a world (--split, default test), "
                                         "per task family")),
    "suites": ("searchgym.commands.suites", "list the versioned suites with their content hashes"),
    "train": ("searchgym.commands.train", "train one method on one env (bare `train` shows the plan)"),
    "compare": ("searchgym.commands.compare", "train and evaluate methods x seeds on a suite"),
    "report": ("searchgym.commands.report", "write a comparison's results.md and summary.csv again from its run folders"),
    "evaluate": ("searchgym.commands.evaluate", "score any agent (module:factory or an OpenAI-compatible endpoint)"),
    "leaderboard": ("searchgym.commands.leaderboard", "submit, verify and build the leaderboard"),
    "serve": ("searchgym.commands.serve", ("a scripted OpenAI-compatible endpoint on 127.0.0.1 (--behaviour: "
                                           "oracle, random, reader or misbehaving replies)")),
    "export": ("searchgym.commands.export", "write a split as a training framework's dataset (verl parquet + tool config)"),
    "recipe": ("searchgym.commands.recipe", "run a whole recipe: `searchgym recipe tiny-lm` (from-scratch LM, SFT, RL)"),
}

#: Commands whose output folder a re-run of the same command resumes.
RESUMABLE = ("train", "compare", "recipe")
#: The exit status of a command stopped by SIGTERM (128 + 15, what a shell reports for it).
TERMINATED_STATUS = 128 + int(signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM in a command, raised in the main thread so that it stops as Ctrl-C does (every
    ``finally`` runs: workers are stopped, a file half written is removed, nothing more is written).
    A KeyboardInterrupt, so that no ``except Exception`` records it as a failed run. Why: SIGTERM ended
    `searchgym train` with no word, though a re-run resumes it, and killed `searchgym report` in the
    middle of a write, which left its temporary file in the comparison's folder for good."""


def _on_sigterm(command: str):
    """Route SIGTERM to :class:`Terminated` while a command runs; the handler it replaced (None:
    nothing replaced, as off the main thread, where Python allows no handler). A second SIGTERM is
    ignored while a resumable command stops its workers (cutting that short would leave them running),
    and kills any other command at once: its clean-up (an evaluation's requests in flight) may wait
    out their timeouts, and a supervisor's second SIGTERM must still stop it."""
    if threading.current_thread() is not threading.main_thread():
        return None
    pid = os.getpid()
    second = signal.SIG_IGN if command in RESUMABLE else signal.SIG_DFL

    def terminated(signum, frame) -> None:
        if os.getpid() != pid:  # a forked child that kept the handler dies as it would have
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        signal.signal(signal.SIGTERM, second)
        raise Terminated

    return signal.signal(signal.SIGTERM, terminated)

DESCRIPTION = """\
searchgym: seeded, fictional search worlds for training and comparing search agents with RL.

Start here:
  searchgym list                      the environment ids (Gymnasium and PettingZoo)
  searchgym demo                      random vs oracle agents on world 0, per task family
  searchgym play SearchQA-v0          play an episode yourself
  searchgym train                     show what a training run would do, with its defaults
  searchgym suites                    the frozen task suites results are reported on
  searchgym compare --suite ID --methods cw_grpo,random,oracle --out runs/mine

Your own tools, families, env ids, methods and suites: searchgym --plugin mypkg.mymod COMMAND
(or SEARCHGYM_PLUGINS=mypkg.mymod) imports that module before the command runs.
"""

EPILOG = "Run `searchgym COMMAND --help` for a command's options (defaults shown)."


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps descriptions as written and adds "(default: X)" to options whose help lacks one."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        default = action.default
        if ("default" in text or default is None or default is False or default == argparse.SUPPRESS
                or not action.option_strings
                or isinstance(action, argparse._HelpAction)):
            return text
        return f"{text} (default: %(default)s)"


class CommandParser(argparse.ArgumentParser):
    """A command's parser: an argument it does not know is its own error, under its own usage. Why:
    argparse hands a sub-command's unknown arguments up to the top parser, whose usage is
    ``searchgym [-h] COMMAND ...`` (it says nothing of the command's options)."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


class VersionAction(argparse.Action):
    """``--version``: the installed version and, for a git checkout of searchgym, its commit; found
    only when asked (git runs in a subprocess)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())  # on stdout, as argparse's own version action
        parser.exit()


def version_text() -> str:
    """``searchgym 0.1.0``, with ``(git SHA)`` (``+dirty``: uncommitted changes) from a checkout."""
    from searchgym import __version__
    from searchgym.harness.provenance import git_revision, installed_package

    version = installed_package()["version"]
    git = git_revision()
    commit = f" (git {git['revision']}{'+dirty' if git['dirty'] else ''})" if git["revision"] != "unknown" else ""
    return f"searchgym {__version__ if version == 'not installed' else version}{commit}"


def build_parser(load: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="searchgym", description=DESCRIPTION, epilog=EPILOG,
                                     formatter_class=HelpFormatter)
    parser.add_argument("--version", action=VersionAction,
                        help="print the installed version (and the git commit of a checkout) and exit")
    parser.add_argument("--plugin", action="append", dest="plugins", metavar="MODULE",
                        help=("import MODULE before the command (a module of yours that registers methods, "
                              "suites, tools...); repeatable, before the command; also put in "
                              f"${PLUGINS_VARIABLE} for the command's worker processes"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name, (module, help_text) in COMMANDS.items():
        command = sub.add_parser(name, help=help_text, description=help_text, formatter_class=HelpFormatter)
        if name == load:
            importlib.import_module(module).add_arguments(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    console = argv is None  # the `searchgym` command itself, not a call from Python
    argv = list(sys.argv[1:] if argv is None else argv)
    option_plugins, typed = leading_plugins(argv)
    name = next((a for a in typed if not a.startswith("-")), None)
    misplaced = misplaced_plugins(option_plugins, typed, name)
    if misplaced is not None:
        print(f"searchgym: error: {misplaced}", file=sys.stderr)
        return 2
    try:  # before the parser: a command's help lists the methods a plugin registers
        load_plugins(option_plugins)
    except PluginError as exc:
        print(f"searchgym: error: {exc}", file=sys.stderr)
        return 2
    parser = build_parser(name if name in COMMANDS else None)
    args = parser.parse_args(argv)
    args.command_line = typed  # what was typed (a bare `searchgym train` only shows its plan)
    warnings_on_one_line()
    if args.command is None:
        parser.print_help()
        return 0
    previous = _on_sigterm(args.command)
    try:
        code = int(importlib.import_module(COMMANDS[args.command][0]).run(args) or 0)
        sys.stdout.flush()  # here, so that a reader that stopped early is met below, not at exit
        return code
    except BrokenPipeError:  # `searchgym suites --json | head -1`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # the exit flush goes nowhere
        return 1
    except KeyboardInterrupt as stop:  # the resumable commands say how to go on (before: only "interrupted")
        _exiting(console)
        resume = ("; re-run the same command to resume (finished work is kept)" if args.command in RESUMABLE
                  else "; re-run the same command to evaluate again" if args.command == "evaluate" else "")
        terminated = isinstance(stop, Terminated)
        print(f"{'stopped by SIGTERM' if terminated else 'interrupted'}{resume}", file=sys.stderr)
        return TERMINATED_STATUS if terminated else 130
    except ImportError as exc:  # an optional dependency (an extra) that is not installed
        message = missing_extra_message(f"searchgym {args.command}", exc)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2
    except DamagedFile as exc:
        print(f"searchgym {args.command}: damaged file: {exc}", file=sys.stderr)
        return 2
    except (ValueError, KeyError, TypeError, FileNotFoundError) as exc:
        print(f"searchgym {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # disk full, permissions, a file where a folder belongs
        print(f"searchgym {args.command}: error: {describe_os_error(exc, args.command in RESUMABLE)}", file=sys.stderr)
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def leading_plugins(argv: list[str]) -> tuple[list[str], list[str]]:
    """The values of the ``--plugin`` options before the command (argparse's abbreviations too), and
    ``argv`` without them. Read before parsing, as the modules they name must be imported first."""
    plugins: list[str] = []
    rest = list(argv)
    i = 0
    while i < len(rest) and rest[i].startswith("-"):
        option, equals, value = rest[i].partition("=")
        if len(option) >= 3 and "--plugin".startswith(option):
            if equals:
                plugins.append(value)
                del rest[i]
                continue
            if i + 1 < len(rest) and not rest[i + 1].startswith("-"):  # else argparse says what is missing
                plugins.append(rest[i + 1])
                del rest[i:i + 2]
                continue
        i += 1
    return plugins, rest


def misplaced_plugins(option_plugins: list[str], typed: list[str], command: str | None) -> str | None:
    """The error for a ``--plugin`` typed after the command, with the command that puts it first; None
    where there is none. Why: argparse's "unrecognized arguments: --plugin mypkg.tool" said nothing of
    where it goes (it is read before the command, whose parser is built after the import)."""
    if command not in COMMANDS:
        return None
    start = typed.index(command) + 1
    end = typed.index("--", start) if "--" in typed[start:] else len(typed)
    moved, rest = list(option_plugins), typed[:start]
    i = start
    while i < end:
        word = typed[i]
        if word == "--plugin":
            value = typed[i + 1] if i + 1 < end and not typed[i + 1].startswith("-") else None
            moved.append(value or "MODULE")
            i += 1 if value is None else 2
            continue
        if word.startswith("--plugin="):
            moved.append(word.partition("=")[2] or "MODULE")
        else:
            rest.append(word)
        i += 1
    if len(moved) == len(option_plugins):
        return None
    import shlex

    leading = [word for module in moved for word in ("--plugin", module)]
    return f"--plugin goes before the command: {shlex.join(['searchgym', *leading, *rest, *typed[end:]])}"


def load_plugins(option_plugins: list[str]) -> None:
    """Import the modules of ``$SEARCHGYM_PLUGINS``, then those of ``--plugin`` (added to the
    variable, so that worker processes import them too). Only the modules named are imported."""
    if any(not value.strip() for value in option_plugins):
        raise PluginError("--plugin needs a module name, such as --plugin mypkg.plugin")
    named = [name for value in option_plugins for name in plugin_names(value, "--plugin")]
    import_plugins(environment_plugins())
    import_plugins(named, "--plugin")
    export_plugins(named)


def _exiting(console: bool) -> None:
    """After a Ctrl-C or SIGTERM of the ``searchgym`` command itself (``console``: not a call from
    Python), a further Ctrl-C is ignored while the process exits. Why: pressed again during the exit
    (torch's and concurrent.futures' atexit clean-up), it printed a KeyboardInterrupt traceback after
    the one line that says how to resume."""
    if console:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


#: errno -> what to do about it (files already written are kept: every write is atomic).
_OS_REMEDIES = {
    errno.ENOSPC: "free some space and re-run the same command",
    errno.EDQUOT: "free some space (disk quota) and re-run the same command",
    errno.EACCES: "check the permissions of that path or choose another --out",
    errno.EPERM: "check the permissions of that path or choose another --out",
    errno.EROFS: "choose a writable --out",
    errno.EEXIST: "a file stands where a folder belongs: move it or choose another --out",
    errno.ENOTDIR: "a file stands where a folder belongs: move it or choose another --out",
    errno.EISDIR: "a folder stands where a file belongs: move it or choose another path",
}


def describe_os_error(exc: OSError, resumable: bool = True) -> str:
    """One line: what failed, on which path, what to do; and, for a command that resumes, that
    finished files were kept (``leaderboard``, ``export`` or ``serve`` have no run to resume). A
    broken symbolic link where a folder belongs is named as one (before: "File exists; a file stands
    where a folder belongs")."""
    where = f" ({exc.filename})" if exc.filename else ""
    remedy = _OS_REMEDIES.get(exc.errno or 0, "fix that and re-run the same command")
    kept = " (files written before it are intact: a run resumes where it stopped)" if resumable else ""
    if exc.errno == errno.EEXIST and exc.filename and os.path.islink(exc.filename):
        from searchgym.fileio import not_a_folder

        what = not_a_folder(exc.filename)
        if what is not None:
            return (f"{exc.filename} is {what}, where a folder belongs; delete the link or choose another "
                    f"path{kept}")
    return f"{exc.strerror or exc}{where}; {remedy}{kept}"


if __name__ == "__main__":
    raise SystemExit(main())
