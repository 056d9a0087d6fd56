"""``searchgym evaluate``: score an agent that the harness did not train, on a suite's test split.

``--agent module:factory`` imports ``factory`` and calls ``factory(**options)``; it returns an
Actor (``act(env, observation, info)``, or ``act(env, observations, infos) -> dict`` on a
multi-agent suite). ``--agent NAME`` uses a named provider
(:data:`searchgym.harness.methods.AGENT_PROVIDERS`); ``--agent run --agent-option path=RUN_FOLDER``
plays the policy a ``searchgym train`` or ``compare`` run trained (``--suite`` left out: the run's
own suite; :mod:`searchgym.harness.run_agent`). The output folder is a run folder:
``config.json``, ``predictions.jsonl``, ``result.json``, ``DONE``, ready for
``searchgym leaderboard submit``. An endpoint run (``--agent openai``) also keeps
``transcripts.jsonl``; ``result.json["endpoint"]`` says how many replies were readable actions,
and a warning is printed and recorded there when most were not (a finished run shown again keeps
the report it has: it is never re-summed from a cut transcripts file). Any other agent most of whose
test actions the env could not take (an index out of range, a refused call) gets a warning line too,
recorded in ``result.json["actions"]``. When most requests got no reply
at all (the server down, a wrong ``--base-url``), the run writes no scores and no ``DONE``, the
command ends in one error line (exit 1), and running it again evaluates again; where the server's
answer decides the failure (it refused the requests, or answered them with no chat completion), the
line says to evaluate into another folder with other options instead.

Put an OpenAI-compatible model on the leaderboard with a text-mode suite::

    searchgym evaluate --agent openai --suite searchqa-text-v2 --model NAME --base-url http://127.0.0.1:8000/v1
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import os
import sys
from pathlib import Path
from typing import Any

from searchgym.commands import check_seed
from searchgym.commands.compare import parse_options
from searchgym.damaged import DamagedFile
from searchgym.devices import resolve_device
from searchgym.fileio import atomic_write_json, check_folder_can_be_made
from searchgym.harness.action_tally import stored_warning
from searchgym.harness.finished_files import finished_json, redo_remedy
from searchgym.harness.method_entries import check_label
from searchgym.harness.methods import (
    AGENT_METHOD,
    AGENT_PROVIDERS,
    PRIVILEGED_NOTE,
    MethodRef,
    check_agent_options,
    resolve_agent,
    shown_label,
)
from searchgym.harness.privileged_runs import run_reads_private_state
from searchgym.harness.runner import RunNotFinished, RunSpec, execute_run
from searchgym.suites import Suite, get_suite


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", help="suite id (see `searchgym suites`); with --agent run it may be left out: "
                        "the run's own suite")
    parser.add_argument("--agent", required=True,
                        help=f"module:factory, or a named agent ({', '.join(AGENT_PROVIDERS)}); 'run' plays the policy "
                             "trained in a run folder (of `searchgym train --out` or compare's "
                             "<out>/runs/<method>/seed<N>), given as --agent-option path=RUN_FOLDER, with the "
                             "decoding that run used")
    parser.add_argument("--agent-option", action="append", metavar="KEY=VALUE",
                        help="keyword argument for the factory or provider (repeatable; JSON values parsed)")
    parser.add_argument("--name", help="label for the results (default: derived from --agent, from --seed when "
                        "it is not the default, and with --agent run from a decoding= option given)")
    parser.add_argument("--seed", type=int, default=None,
                        help="evaluation seed (default 0; with --agent run, the run's own seed)")
    parser.add_argument("--limit", type=int, default=None,
                        help="score only the first N tasks of the test and dev splits (a quick check; a run with "
                             "a limit is not a suite result: the leaderboard refuses it)")
    parser.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    parser.add_argument("--out", type=Path, help="run folder to write (default runs/evaluate/<suite>/<name>)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    endpoint = parser.add_argument_group("OpenAI-compatible endpoint (--agent openai)")
    endpoint.add_argument("--model", help="model name sent to the endpoint")
    endpoint.add_argument("--base-url", help="endpoint base URL, e.g. http://127.0.0.1:8000/v1")
    endpoint.add_argument("--api-key", help="API key (kept out of config.json; or set OPENAI_API_KEY)")
    endpoint.add_argument("--concurrency", type=int, help="tasks played at once (default 4)")


#: The ``--agent openai`` options with a flag of their own besides ``--agent-option`` (``--base-url``: ``base_url``).
ENDPOINT_FLAGS = ("model", "base_url", "concurrency")


def openai_option_keys(keys: set[str]) -> str:
    """The keys ``--agent-option`` takes for ``--agent openai``, naming the flag that also sets one. Why:
    the list named ``api_key``, which ``--agent-option`` refuses (it would be written to config.json)."""
    shown = [f"{key} (or --{key.replace('_', '-')})" if key in ENDPOINT_FLAGS else key
             for key in sorted(keys - {"api_key"})]
    return f"{', '.join(shown)}; the API key only by --api-key or OPENAI_API_KEY"


def endpoint_options(args: argparse.Namespace) -> dict[str, object]:
    """--model/--base-url/--concurrency as agent options; the API key travels in the environment
    (SEARCHGYM_OPENAI_API_KEY) so that it is never written to the run's config.json."""
    options: dict[str, object] = {}
    for name in ENDPOINT_FLAGS:
        if getattr(args, name, None) is not None:
            options[name] = getattr(args, name)
    if getattr(args, "api_key", None):
        os.environ["SEARCHGYM_OPENAI_API_KEY"] = args.api_key
    if getattr(args, "concurrency", None) is not None and args.concurrency < 1:
        raise ValueError(f"--concurrency must be >= 1 (tasks played at once), got {args.concurrency}")
    if args.agent == "openai":
        given = {**parse_options(args.agent_option), **options}
        if not {"model", "base_url"} <= set(given):
            raise ValueError("--agent openai needs --model NAME and --base-url URL (e.g. http://127.0.0.1:8000/v1)")
        from searchgym.endpoint.openai_agent import EndpointConfig, provider

        # a bad URL, or an option that neither the provider nor EndpointConfig takes, is an error before any folder
        named = set(inspect.signature(provider).parameters) - {"ctx", "endpoint"}
        fields = {f.name for f in dataclasses.fields(EndpointConfig)}
        unknown = sorted(set(given) - named - fields)
        if unknown:
            raise ValueError(f"--agent openai does not take option(s) {unknown}; accepted: "
                             f"{openai_option_keys(named | fields)}")
        if "api_key" in given:  # before: written into the run's config.json with the other agent options
            raise ValueError("give the API key with --api-key or the OPENAI_API_KEY environment variable, not as an "
                             "--agent-option (agent options are written to the run's config.json)")
        EndpointConfig(**{k: v for k, v in given.items() if k in fields})  # each setting's type and range
    return options


def _default_name(agent: str, trained: Any, seed: int, decoding: Any = None) -> str:
    """The results' label when --name is not given: the agent's name, or for ``--agent run`` the
    played run's method and seed (``run-<method>-seed<N>``: two runs evaluated into the default
    folders do not meet in one); an evaluation seed other than the default (the run's own, or 0)
    is added (``-seed<M>`` to an agent's, ``-evalseed<M>`` to a run's), and to a run's a ``decoding``
    given (``-greedy``, ``-sample``: even the run's own is another evaluation, its options recorded).
    Before: a second ``--seed``, or ``decoding=greedy`` then the run's own decoding, went to the
    first one's folder and was refused as "a different run"."""
    if trained is not None:
        label = f"run-{trained.config['method']}-seed{trained.config['seed']}"
        label = label if seed == int(trained.config["seed"]) else f"{label}-evalseed{seed}"
        return label if decoding is None else f"{label}-{decoding}"
    label = agent.replace(":", ".")
    return label if seed == 0 else f"{label}-seed{seed}"


def run(args: argparse.Namespace) -> int:
    if args.seed is not None:
        check_seed(args)
    suite, trained = evaluation_suite(args)
    if args.seed is None:  # a run evaluated on its own seed plays its own episodes again (before: seed 0 in a
        args.seed = int(trained.config["seed"]) if trained is not None else 0  # folder named after the run's seed)
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be a positive number of tasks, got {args.limit}")
    resolve_agent(args.agent)  # a typo is an error before any folder is made
    resolve_device(args.device)  # likewise a device (before: refused in the run, after its folder was made)
    agent_options = {**parse_options(args.agent_option), **endpoint_options(args)}
    check_agent_options(args.agent, agent_options)  # likewise a misspelled option
    if args.name is not None and not args.name.strip():  # before: ignored, as if --name were not given
        raise ValueError("--name is empty; give the label for the results, or leave --name out for one made from "
                         "--agent")
    label = args.name or _default_name(args.agent, trained, args.seed, agent_options.get("decoding"))
    if args.name is None and len(label) > 64:  # a long method label and seeds: say which flag names it
        raise ValueError(f"the results' default label {label!r} is longer than 64 characters; give one with --name")
    label = check_label(label)
    folder = check_folder_can_be_made(args.out or Path("runs") / "evaluate" / suite.id / label, "--out")
    options = {"agent": args.agent, "agent_options": agent_options}
    if trained is not None:  # the played run by content, not by path: retrained in place, it is another evaluation
        from searchgym.harness.run_agent import played_identity

        options["played"] = played_identity(trained)
    spec = RunSpec(suite, MethodRef(label, AGENT_METHOD), args.seed, 0, folder.parent,
                   args.device, progress=not args.no_progress, folder=folder, options=options, limit=args.limit)
    if trained is not None:  # its last checkpoint, not a finished run's policy: said, not only recorded
        from searchgym.harness.run_agent import unfinished_note

        note = unfinished_note(trained)
        if note:
            print(note, file=sys.stderr)
    try:
        outcome = execute_run(spec)
    except RunNotFinished as exc:  # an endpoint that gave no replies: no scores, no DONE; a re-run redoes it
        print(f"searchgym evaluate: error: {exc}; not marked DONE: {_unfinished_remedy(exc, folder)} "
              f"(transcripts: {folder / 'transcripts.jsonl'})", file=sys.stderr)
        return 1
    if outcome.status == "busy":  # Before: it went on to read a result.json not yet written ([Errno 2])
        raise ValueError(f"{outcome.error}; wait for it to finish, then re-run the same command")
    shown = outcome.status == "skipped"
    if shown:
        print(f"{folder} is already evaluated (DONE); showing it (delete it or use another --out to redo)")
    result = finished_json(folder, "result.json")  # damaged or missing: one line, delete DONE
    report = record_reply_report(folder, result, shown=shown)
    try:
        table = result["test"]
        lines = [f"| {family} | {row['n']} | {row['success']:.3f} | {row['f1']:.3f} | {row['steps']:.2f} | "
                 f"{row['tool_calls']:.2f} |"
                 for family, row in sorted(table.items(), key=lambda item: (item[0] == "all", item[0]))]
        tasks = table["all"]["n"]
    except (KeyError, TypeError, ValueError, AttributeError):
        raise DamagedFile(folder / "result.json", "has no test table of families with n, success, f1, steps and "
                          "tool_calls", redo_remedy(folder)) from None
    first = "the first " if args.limit is not None else ""
    reads_gold = run_reads_private_state(spec.identity(), report)  # the oracle as an agent, the scripted endpoint
    print(f"\n{shown_label(label, {label} if reads_gold else ())} on {suite.id} (test split, {first}{tasks} tasks)\n")
    print("| family | n | success | f1 | steps | tool calls |\n|---|---|---|---|---|---|")
    print("\n".join(lines))
    if reads_gold:
        print(f"\n{label} (privileged) {PRIVILEGED_NOTE}.")
    print(f"\npredictions: {folder / 'predictions.jsonl'}")
    if report is not None:
        print(f"endpoint: {report['replies'] - report['unparseable']} of {report['replies']} replies were readable "
              f"actions; transcripts: {folder / 'transcripts.jsonl'}")
        if report["warning"]:
            print(f"WARNING: {report['warning']}", file=sys.stderr)
    elif warning := stored_warning(result):  # most of the agent's actions were not taken (an endpoint's: above)
        print(f"WARNING: {warning}", file=sys.stderr)
    return 0


def _unfinished_remedy(exc: RunNotFinished, folder: Path) -> str:
    """What to do after a run that measured the server (:class:`RunNotFinished`, whose ``rerun_helps``
    says whether the same command can do better: :mod:`searchgym.harness.rerun_advice`). Why: "re-run
    the same command to evaluate again" closed every such line, also where the server refused every
    request or answered with no chat completion, which the same command meets again."""
    from searchgym.harness.rerun_advice import rerun_helps

    other = f"delete {folder} (or use another --out) to evaluate with other options"
    if not rerun_helps(exc):
        return other
    return f"re-run the same command to evaluate again, or {other}, such as a longer timeout"


def evaluation_suite(args: argparse.Namespace) -> tuple[Suite, Any]:
    """``--suite``, and with ``--agent run`` the run it plays (its folder read once, checked; else
    None): without ``--suite`` the run's own suite (its config.json's definition), and either way
    one the run's policy can act in."""
    if args.agent != "run":
        if args.suite is None:
            raise ValueError("--suite is required (a suite id: see `searchgym suites`)")
        return get_suite(args.suite), None
    from searchgym.harness.run_agent import check_options, check_suite

    trained = check_options(parse_options(args.agent_option))  # no playable run: refused before the suite is read
    suite = get_suite(args.suite) if args.suite is not None else trained.suite
    check_suite(trained, suite)
    return suite, trained


def record_reply_report(folder: Path, result: dict, shown: bool = False) -> dict | None:
    """For an endpoint run: the readable-reply report of its transcripts, kept in result.json.

    A run just evaluated gets its report; a finished run being shown (``shown``) keeps the one it
    has, and is written only when it has none (stopped between DONE and the report), from a
    transcripts file that reads whole. A damaged file is a one-line warning and the stored report
    (or none) is kept. Before: showing a run re-summed a cut transcripts.jsonl into result.json
    ("replies": 22 became 0) whatever it held."""
    from searchgym.damaged import warn_damaged
    from searchgym.endpoint.reply_checks import is_report, read_transcripts, reply_report

    stored = result.get("endpoint") if is_report(result.get("endpoint")) else None
    path = folder / "transcripts.jsonl"
    if (shown and stored is not None) or not path.exists():
        return stored
    keep = "the endpoint report in result.json is kept" if stored else "no endpoint report is made"
    try:
        rows, damaged = read_transcripts(path)
        if damaged:
            raise DamagedFile(path, f"has {damaged} line(s) that are no transcript row (cut or damaged)")
        found, played = len({(r.get("split"), r.get("task_id")) for r in rows}), _tasks_played(result)
        if shown and found < played:  # every task DONE's result.json counts has a transcript
            raise DamagedFile(path, f"holds transcripts of {found} tasks, fewer than the {played} the run played")
    except DamagedFile as exc:
        warn_damaged(exc, keep)
        return stored
    report = reply_report(rows)
    if result.get("endpoint") != report:
        atomic_write_json(folder / "result.json", {**result, "endpoint": report})
    return report


def _tasks_played(result: dict) -> int:
    """The test and dev tasks a result.json counts (a table it lacks counts none)."""
    total = 0
    for split in ("test", "dev"):
        table = result.get(split)
        row = table.get("all") if isinstance(table, dict) else None
        n = row.get("n") if isinstance(row, dict) else None
        total += n if isinstance(n, int) and not isinstance(n, bool) else 0
    return total
