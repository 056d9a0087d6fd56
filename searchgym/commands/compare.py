"""``searchgym compare``: train and evaluate methods x seeds on a suite; resumable.

Example: ``searchgym compare --suite quick-v2 --methods cw_grpo,grpo,random,oracle --seeds 3
--budget 20000 --workers 2 --out runs/quick``. Re-running the same command skips finished
runs and resumes unfinished ones.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from searchgym.commands import MAX_SEED, MAX_SEEDS, check_at_least, check_at_most, out_path
from searchgym.commands.comparison_report import (
    REFERENCE,
    REFERENCE_HELP,
    check_reference,
    print_removed,
)
from searchgym.extras import require_installed
from searchgym.harness.compare import Comparison, ComparisonResult, check_ray_options, run_comparison
from searchgym.harness.loggers import LOGGERS
from searchgym.harness.method_entries import parse_option_value
from searchgym.harness.methods import (
    METHODS,
    MethodRef,
    load_method,
    parse_methods,
    trains,
)
from searchgym.harness.report_files import ReportNotWritten
from searchgym.harness.rerun_advice import OTHER_RUN
from searchgym.harness.runner import RunOutcome
from searchgym.suites import get_suite

#: Policy backbone -> the optional module it loads besides torch.
POLICY_MODULES = {"minilm": "sentence_transformers", "hf": "transformers", "llm": "transformers"}
#: The most env steps ``compare`` and ``train`` accept: a bound on a typo (``--budget 1e20`` trained for
#: good), not on research: a billion is days of a GPU run (``make main`` trains 10,000). ``leaderboard
#: retrain`` keeps its own, lower bound (what a maintainer re-runs).
MAX_BUDGET = 1_000_000_000



def parse_seeds(text: str) -> list[int]:
    """"3" -> [0, 1, 2]; "0,5,7" -> [0, 5, 7]."""
    try:
        if "," in text:
            seeds = [int(s) for s in text.split(",") if s.strip()]
        else:
            count = int(text)
            if count > MAX_SEEDS:
                raise ValueError(f"--seeds {count} is more than {MAX_SEEDS} seeds; give a count of 1..{MAX_SEEDS} or "
                                 "a comma list of seeds")
            seeds = list(range(count))
    except ValueError as exc:
        if str(exc).startswith("--seeds"):
            raise
        raise ValueError(f"--seeds takes a count (3) or a comma list of seeds (0,5,7), got {text!r}") from None
    if not seeds:
        raise ValueError(f"--seeds {text!r} runs no seed; give a count of at least 1 (3 runs seeds 0,1,2) or a "
                         "comma list of seeds ('0,' runs seed 0 alone, '5,' seed 5)")
    if any(s < 0 for s in seeds):
        raise ValueError(f"--seeds takes non-negative seeds, got {text!r}")
    if any(s > MAX_SEED for s in seeds) or len(seeds) > MAX_SEEDS:
        raise ValueError(f"--seeds takes at most {MAX_SEEDS} seeds, each in 0..{MAX_SEED}, got {text[:80]!r}")
    return seeds


def parse_options(items: list[str] | None, flag: str = "--option") -> dict[str, object]:
    """KEY=VALUE pairs; values are parsed as JSON when they can be (3, 0.5, true), else kept as text.
    A key given twice with two values is refused. Why: ``--option lr=0.1 --option lr=0.01`` ran with
    the last one, silently, so a run could train with another value than the one the user read first."""
    options: dict[str, object] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"an option looks like KEY=VALUE, got {item!r}")
        parsed = parse_option_value(value)
        if key in options and options[key] != parsed:
            raise ValueError(f"{flag} {key} is given twice ({key}={options[key]!r}, then {key}={parsed!r}); give it once")
        options[key] = parsed
    return options


def require_extras(command: str, methods: list[MethodRef], policy: str, plots: bool = True) -> None:
    """Stop before any run starts when a built-in learning method, its policy or the plots need an extra
    that is not installed (in a worker the missing module would only fail each run)."""
    if any(m.path.startswith("searchgym.") and trains(load_method(m)) for m in methods):
        require_installed("torch", command)
        if policy in POLICY_MODULES:
            require_installed(POLICY_MODULES[policy], command)
    if plots:
        require_installed("matplotlib", command)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--suite", required=True, help="suite id (see `searchgym suites`)")
    parser.add_argument("--methods", default="random,reader,oracle",
                        help=f"comma list of {', '.join(METHODS)}, import paths module:callable, or label=module:callable; "
                             "a labelled entry may take its own options: grpo_team=grpo[group_by=team;lr=0.001]")
    parser.add_argument("--seeds", default="1", help="number of seeds (3 -> 0,1,2) or a comma list")
    parser.add_argument("--budget", type=int, default=20_000, help=f"training budget in env steps (0..{MAX_BUDGET})")
    parser.add_argument("--device", default="auto", help="auto (CUDA where present), cpu, cuda or cuda:N")
    parser.add_argument("--workers", type=int, default=1, help="parallel worker processes (1 runs inline)")
    parser.add_argument("--out", required=True, type=out_path, help="output folder (re-use it to resume)")
    parser.add_argument("--policy", default="hash", help="policy backbone for learning methods: hash, attn, minilm, hf")
    parser.add_argument("--reference", default=None, help=REFERENCE_HELP)  # None: not given (check_reference)
    parser.add_argument("--option", action="append", metavar="KEY=VALUE", help="method option (repeatable)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.add_argument("--executor", choices=("local", "ray"), default="local",
                        help="local worker processes (default) or Ray tasks (pip install 'searchgym[ray]')")
    parser.add_argument("--ray-address", default=None,
                        help="join this Ray cluster (auto, ray://host:10001); default: start a local one "
                             "with --workers CPUs (all cores when --workers is 1)")
    parser.add_argument("--retries", type=int, default=None,
                        help="ray executor: extra attempts for a run that fails or loses its node (default 2)")
    parser.add_argument("--logger", choices=LOGGERS, default="none",
                        help="also send metrics.jsonl rows to TensorBoard (<run>/tensorboard) or W&B")


def run(args: argparse.Namespace) -> int:
    # before anything is written (--budget 99999999999999999999 was accepted and trained for good)
    check_at_least((("--budget", args.budget, 0, "training env steps"),))
    check_at_most((("--budget", args.budget, MAX_BUDGET, "training env steps"),))
    check_ray_options(args.executor, args.ray_address, args.retries, cli=True)  # in the flags' spelling
    if args.retries is not None:
        from searchgym.harness.ray_executor import check_retries

        check_retries(args.retries, cli=True)
    suite, methods = get_suite(args.suite), parse_methods(args.methods)
    labels = [m.label for m in methods]
    comparison = Comparison(suite=suite, methods=methods,
                            seeds=parse_seeds(args.seeds), budget=args.budget, out=args.out, device=args.device,
                            workers=args.workers, policy=args.policy, progress=not args.no_progress,
                            reference=check_reference(args.reference, labels), options=parse_options(args.option),
                            executor=args.executor, ray_address=args.ray_address, retries=args.retries,
                            logger=args.logger)
    # Ray runs train on the cluster's nodes, which may hold torch where this process has none.
    require_extras("searchgym compare", comparison.methods if args.executor == "local" else [], args.policy)
    unsaved: ReportNotWritten | None = None
    try:
        result = run_comparison(comparison)  # which checks the settings first (preflight.check_comparison)
    except ReportNotWritten as exc:  # the table still (before: only the OS's error, naming a temp file)
        result, unsaved = ComparisonResult(exc.outcomes or [], exc.report), exc
    done = sum(o.status == "done" for o in result.outcomes)
    skipped = sum(o.status == "skipped" for o in result.outcomes)
    print(f"\nSuccess on {comparison.suite.id} (test split, mean [95% bootstrap interval]):\n")
    print(result.report.table)
    print(f"\nruns: {done} done now, {skipped} already finished, {len(result.failed)} failed")
    for o in result.failed:
        print(f"  failed: {o.label}/seed{o.seed}: {o.error}")
    if unsaved is not None:
        print(f"searchgym compare: error: {unsaved.line()}", file=sys.stderr)
        return 1
    print(f"results: {result.report.results_md}\nsummary: {result.report.summary_csv}")
    print("learning curves: " + ", ".join(str(p) for p in result.report.curves))
    print_removed(args.out, result.report.removed)
    runs = args.out / "runs"
    others = sorted(p.name for p in runs.iterdir() if p.is_dir() and p.name not in labels) if runs.is_dir() else []
    if others:  # before: the report shrank to this command's methods without a word
        print(f"{args.out / 'runs'} also holds {', '.join(others)}, which this report leaves out: "
              f"`searchgym report --out {args.out}` reports every finished run there")
    if result.failed:
        print_rerun_advice(result.failed)
        return 1
    return 0


def print_rerun_advice(failed: Sequence[RunOutcome]) -> None:
    """How to go on after failed runs: what to do first where the same command fails again (another run's
    files; a changed base to delete), then whether re-running resumes the others. Before: "re-run ... to
    resume" for those too, which failed the same way."""
    refused: dict[str, list[str]] = {}
    for o in failed:
        if not o.resumable:
            refused.setdefault(o.advice or OTHER_RUN, []).append(f"{o.label}/seed{o.seed}")
    for advice, runs in refused.items():
        print(f"{', '.join(runs)}: {advice}")
    if any(o.resumable for o in failed):
        print("re-run the same command to resume the failed runs")
