"""The science comparison, tested: does CW-GRPO beat the other methods here, and do calibration and
role-aware grouping matter? Writes docs/RESULTS.md (tables, generated reading) and its figures.

    .venv/bin/python benchmarks/claims.py --seeds 5 --budget 10000 --workers 2      # the full claims
    .venv/bin/python benchmarks/claims.py --smoke                                    # a tiny end-to-end check

Three comparisons, every run through the harness (``run_comparison``: one folder per run, resumed
when interrupted, atomic results; re-running the same command skips finished runs):

1. **main** (``--suite``, quick-v2: 160 multi-hop test tasks, 8 rounds): cw_grpo against grpo,
   dr_grpo, mt_ppo, gigpo, info_gain, mappo and coma, with random, reader and the privileged oracle as
   anchors;
2. **roles** (``--role-suite``, team-v2: lead, searcher, analyst): the naive whole-team group
   (``grpo_team = grpo[group_by=team]``) against per-role groups (grpo_role, cw_grpo_role);
3. **ablation** (``--suite``): plain GRPO (no entropy bonus), GRPO with every calibration flag, and
   each flag alone (see :data:`FLAGS`); policy entropy and dev success curves.

By default every learning method starts from the supervised base (``sft``, the policy trained to
imitate the reader: ``--start base`` adds :data:`FROM_BASE`, the options of ``make main``), each part
shows the base's own row, and each learning method's gain over it, paired by seed and task;
``--start scratch`` trains from random weights as before. The ablation shares the main part's
bases (same suite, seeds, policy and settings: one file per seed).

Every comparison pairs per-task success over the same seeds (sign-flip test of
:mod:`searchgym.harness.stats`), Holm-corrects within its table, and the reading is generated from
those numbers (:mod:`claims_report`). ``--smoke`` (2 seeds, budget 2000, 3 + 2 + 3 methods) writes
under ``--out`` (default runs/claims-smoke, apart from the full command's runs/claims), never
docs/RESULTS.md unless ``--results`` says so. Default paths are the repository's, from any folder.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import claims_report as cr  # noqa: E402
from script_extras import require_extras  # noqa: E402
from suite_arg import REPO, count, describe, flagged, new_folder, out_file, suite_of  # noqa: E402

from searchgym.commands.compare import parse_options, parse_seeds  # noqa: E402
from searchgym.harness.compare import Comparison, run_comparison  # noqa: E402
from searchgym.harness.methods import parse_methods, shown_label  # noqa: E402
from searchgym.harness.plots import curve_from_rows, plot_learning_curves  # noqa: E402
from searchgym.devices import resolve_device  # noqa: E402
from searchgym.harness.provenance import git_revision  # noqa: E402
from searchgym.harness.runner import check_identity  # noqa: E402
from searchgym.harness.report_gain import gain_section  # noqa: E402
from searchgym.harness.report import (  # noqa: E402
    RunRecord, anchors_note, load_runs, metric_table, privileged_labels, summary_rows)
from searchgym.suites import get_suite  # noqa: E402

REFERENCE = "cw_grpo"
#: ``--start base``: the options of ``make main`` (Makefile MAIN_OPTIONS), before any ``--option``.
FROM_BASE = ("init=sft", "lr=0.001", "update_epochs=4", "loss.entropy_coef=0",
             'policy_kwargs={"comparison_facts": true, "operand_sources": true}')
#: What the report says of options that are ``make main``'s (another --option, or --smoke's base, is not).
MAKE_MAIN = ", as in `make main`"
BASE = "sft"
MAIN_METHODS = ("cw_grpo", "grpo", "dr_grpo", "mt_ppo", "gigpo", "info_gain", "mappo", "coma", "random", "reader",
                "oracle")
ROLE_METHODS = ("cw_grpo_role", "grpo_role", "grpo_team=grpo[group_by=team]")
ROLE_PAIRS = (("grpo_role", "grpo_team"), ("cw_grpo_role", "grpo_role"), ("cw_grpo_role", "grpo_team"))
#: Plain GRPO: the grpo method without its entropy bonus (grpo's default 0.01 is the "entropy" flag).
PLAIN = {"loss.entropy_coef": 0.0}
#: Each calibration flag as options over PLAIN (value_clip: the policy's value head fitted with the
#: PPO2 clipped value loss over several epochs, an auxiliary loss here since GRPO reads no values).
FLAGS = {
    "std_clip": {"calibration.batch_standardize": True, "calibration.adv_clip": 3.0},
    "clip_higher": {"loss.eps_low": 0.2, "loss.eps_high": 0.28},
    "entropy": {"loss.entropy_coef": 0.01},
    "value_clip": {"value_head": True, "loss.value_clip": 0.2, "loss.value_epochs": 4},
    "baseline": {"calibration.learnable_baseline": True},
}
CLAIMED_GAIN = 0.22  # the seed article's relative gain of calibrated over plain GRPO
SMOKE = {"seeds": "2", "budget": 2000, "methods": "cw_grpo,grpo,random", "ablation": "plain,all,entropy",
         # a small base (before: make main's, 16 epochs on every train task, for each seed and suite: the
         # smoke check took 12 minutes on 2 cores); an --option of the same name wins
         "base": ("sft_tasks=60", "sft_epochs=2")}
#: Default --out of the full command and of --smoke: apart, so neither meets the other's runs.
OUT, SMOKE_OUT = "runs/claims", "runs/claims-smoke"


def variant(label: str, options: dict) -> str:
    """A ``--methods`` entry: ``label=grpo[k=v;...]`` (JSON values)."""
    return f"{label}=grpo[" + ";".join(f"{k}={json.dumps(v)}" for k, v in options.items()) + "]"


def ablation_entries(names: list[str]) -> list[str]:
    """``plain``, ``all`` and flag names -> method entries (labels grpo_plain, grpo_all, grpo_<flag>)."""
    known = ["plain", "all", *FLAGS]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown ablation variants {unknown}; accepted: {', '.join(known)}")
    every = {k: v for flag in FLAGS.values() for k, v in flag.items()}
    table = {"plain": dict(PLAIN), "all": {**PLAIN, **every}, **{f: {**PLAIN, **o} for f, o in FLAGS.items()}}
    return [variant(f"grpo_{n}", table[n]) for n in names]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--smoke", action="store_true",
                        help=f"tiny end-to-end check: {SMOKE['seeds']} seeds, budget {SMOKE['budget']}, methods "
                        f"{SMOKE['methods']}, ablation {SMOKE['ablation']}, a small base ({', '.join(SMOKE['base'])}); "
                        "writes under --out")
    parser.add_argument("--seeds", default=None, help="count (5 -> 0..4) or comma list; default 5 (smoke 2)")
    parser.add_argument("--budget", type=count, default=None, help="env steps per training run; default 10000 (make main's)")
    # the kinds the methods train on, checked here (before: a text suite failed in every run, and a
    # wrong --role-suite only after the main part, ~38 minutes in)
    parser.add_argument("--suite", default="quick-v2", type=suite_of("candidates"),
                        help="candidate-mode suite of the main comparison and the ablation (default %(default)s)")
    parser.add_argument("--role-suite", default="team-v2", type=suite_of("team-candidates"),
                        help="role-based team suite, in candidate mode, of the grouping comparison "
                        "(default %(default)s)")
    parser.add_argument("--methods", default=None, help="main comparison methods; default: " + ",".join(MAIN_METHODS))
    parser.add_argument("--ablation", default=None, help="comma list of plain, all, " + ", ".join(FLAGS)
                        + " (default: all of them)")
    parser.add_argument("--parts", default="main,roles,ablation",
                        help="comma list of the comparisons to run: main, roles, ablation (default all three)")
    parser.add_argument("--start", choices=("base", "scratch"), default="base",
                        help="learning methods start from the supervised base sft (default) or from scratch")
    parser.add_argument("--workers", type=count, default=2,
                        help="parallel runs (one torch thread each; default %(default)s)")
    parser.add_argument("--device", default="cpu", help="auto, cpu, cuda or cuda:N (default cpu)")
    parser.add_argument("--option", action="append", metavar="KEY=VALUE", help="option for every method")
    parser.add_argument("--out", type=flagged(new_folder, "--out"), default=None,
                        help=f"run folders (re-use it to resume; default {OUT}, smoke {SMOKE_OUT}, in the "
                        "repository)")
    # checked before any run (before: a folder as --results or a file as --figures failed after the last run)
    parser.add_argument("--results", type=flagged(out_file, "--results"), default=None,
                        help="the report file; default docs/RESULTS.md (smoke: OUT/RESULTS.md)")
    parser.add_argument("--figures", type=flagged(new_folder, "--figures"), default=None,
                        help="the figures' folder; default docs/results (smoke: OUT/figures)")
    args = parser.parse_args(argv)
    try:
        args.seeds = parse_seeds(args.seeds or (SMOKE["seeds"] if args.smoke else "5"))
    except ValueError as exc:
        parser.error(str(exc))
    args.budget = args.budget if args.budget is not None else (SMOKE["budget"] if args.smoke else 10_000)
    args.methods = args.methods or (SMOKE["methods"] if args.smoke else ",".join(MAIN_METHODS))
    args.ablation = (args.ablation or (SMOKE["ablation"] if args.smoke else ",".join(["plain", "all", *FLAGS])))
    args.shown_out = args.out if args.out is not None else Path(SMOKE_OUT if args.smoke else OUT)
    args.out = args.out if args.out is not None else REPO / args.shown_out
    args.results = args.results or (args.out / "RESULTS.md" if args.smoke else REPO / "docs/RESULTS.md")
    args.figures = args.figures or (args.out / "figures" if args.smoke else REPO / "docs/results")
    args.parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    args.parts.sort(key=lambda p: ("main", "roles", "ablation").index(p) if p in ("main", "roles", "ablation") else 3)
    if args.start == "base":
        # an --option of the same name wins over make main's and the smoke base's (before: one of
        # FROM_BASE's keys, --option lr=0.01, was refused as "given twice" in a traceback)
        given = {item.partition("=")[0] for item in args.option or []}
        defaults = [*FROM_BASE, *(SMOKE["base"] if args.smoke else ())]
        args.option = [*(item for item in defaults if item.partition("=")[0] not in given), *(args.option or [])]
    bad = [p for p in args.parts if p not in ("main", "roles", "ablation")]
    if bad or not args.parts:
        parser.error(f"argument --parts: unknown parts {bad}; accepted: main, roles, ablation" if bad else
                     "argument --parts: names no part; accepted: main, roles, ablation")
    # every name and option checked here, before the first run (before: a traceback, or after a part ran)
    for flag, check in (("--methods", lambda: parse_methods([m.strip() for m in args.methods.split(",") if m.strip()])),
                        ("--ablation", lambda: ablation_entries(args.ablation.split(","))),
                        ("--option", lambda: parse_options(args.option)),
                        ("--device", lambda: resolve_device(args.device))):
        try:
            check()
        except ValueError as exc:
            parser.error(f"argument {flag}: {exc}")
    return args


def share_bases(shared: Path, here: Path) -> None:
    """The main part's base files in the ablation's ``bases`` as hard links (copies across file systems).
    Not a symbolic link to the folder: the harness refuses to write through one."""
    for source in sorted(shared.rglob("*")) if shared.is_dir() else ():
        target = here / source.relative_to(shared)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif source.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)


def part_comparison(args, name: str, suite_id: str, entries: list[str], reference: str) -> Comparison:
    """The harness comparison of one part, in ``OUT/name``."""
    return Comparison(suite=get_suite(suite_id), methods=parse_methods(entries), seeds=args.seeds,
                      budget=args.budget, out=args.out / name, device=args.device, workers=args.workers,
                      progress=False, reference=reference, options=parse_options(args.option))


def check_earlier_runs(args, parts: dict[str, tuple]) -> None:
    """Refuse (ValueError) an --out whose run folders hold runs of other settings, before any part runs.
    Why: the harness found them only when the part came to run, in a traceback, after the parts before it."""
    if not args.out.is_dir():
        return
    for name in args.parts:
        suite_id, entries, reference, _ = parts[name]
        for spec in part_comparison(args, name, suite_id, entries, reference).plan():
            if (spec.run_dir / "config.json").is_file():
                check_identity(spec)


def run_part(args, name: str, suite_id: str, entries: list[str], reference: str) -> list[RunRecord]:
    """One comparison through the harness; the finished runs' records."""
    methods = parse_methods(entries)
    if args.start == "base" and name == "ablation" and args.suite == suite_id and "main" in args.parts:
        # same suite, seeds, policy and sft settings as the main part (run before it): share its base files
        share_bases(args.out / "main" / "bases", args.out / name / "bases")
    comparison = part_comparison(args, name, suite_id, entries, reference)
    runs, began = len(methods) * len(args.seeds), time.monotonic()
    print(f"{name}: {runs} runs ({len(methods)} methods x {len(args.seeds)} seeds) on {suite_id} ...", flush=True)
    result = run_comparison(comparison)
    print(f"{name}: done in {time.monotonic() - began:.0f} s ({len(result.failed)} failed)", flush=True)
    for outcome in result.failed:
        print(f"{name}: {outcome.label}/seed{outcome.seed} failed: {outcome.error}", file=sys.stderr)
    return load_runs(args.out / name, [m.label for m in methods], args.seeds)


def success_table(records: list[RunRecord], labels: list[str], paired: dict[str, cr.PairedRow] | None = None,
                  diff: str = "") -> str:
    """Mean test success [95% CI] per method and, for the methods in ``paired``, the paired
    difference ``diff`` (e.g. "cw_grpo - method") with its raw and Holm-corrected p."""
    aggregate = {r["method"]: r for r in summary_rows(records) if r["aggregate"] and r["family"] == "all"}
    privileged = privileged_labels(records)
    extra = f" paired diff ({diff}) [95% CI] | raw p | Holm p |" if paired is not None else ""
    lines = ["| method | seeds | success [95% CI] |" + extra, "|---|---|---|" + ("---|---|---|" if extra else "")]
    for label in labels:
        a = aggregate.get(label)
        if a is None:
            continue
        cells = ""
        if paired is not None:
            p = paired.get(label)
            cells = " — | — | — |" if p is None else (f" {p.difference:+.3f} [{p.low:+.3f}, {p.high:+.3f}] | "
                                                      f"{cr.format_p(p.p_raw)} | {cr.format_p(p.p_holm)} |")
        lines.append(f"| {shown_label(label, privileged)} | {a['seeds']} | {a['success']:.3f} [{a['success_low']:.3f}, "
                     f"{a['success_high']:.3f}] |" + cells)
    return "\n".join(lines)


def curves(records: list[RunRecord], key: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for r in records:
        series = curve_from_rows(r.metrics, key)
        if series and r.config.get("trains", True):
            out.setdefault(r.label, []).append(series)
    return out


def figure(args, records: list[RunRecord], name: str, key: str = "dev_success", ylabel: str = "dev success") -> str:
    flat = {} if key != "dev_success" else {
        r.label: float(r.result.get("dev", {}).get("all", {}).get("success", 0.0))
        for r in records if not r.config.get("trains", True)}
    path = plot_learning_curves(curves(records, key), flat, args.figures / f"{name}.png", title=f"{name}: {ylabel}",
                                ylabel=ylabel, ylim=(-0.02, 1.02) if key == "dev_success" else None,
                                privileged=privileged_labels(records))
    return f"![{name}]({Path(os.path.relpath(path, args.results.parent)).as_posix()})"


def scale(records: list[RunRecord]) -> tuple[int, int]:
    seeds = min((len({r.seed for r in runs}) for runs in cr.by_label(records).values()), default=0)
    tasks = max((len(r.predictions) for r in records), default=0)
    return seeds, tasks


def main_section(args, records: list[RunRecord], labels: list[str]) -> list[str]:
    anchors = {r.label for r in records if not r.config.get("trains", True)}  # random, reader, oracle: anchors
    rows = cr.paired_rows(records, [(REFERENCE, label) for label in labels if label not in anchors | {REFERENCE}])
    anchor_rows = cr.paired_rows(records, [(REFERENCE, label) for label in labels if label in anchors])
    seeds, tasks = scale(records)
    reading = [cr.scale_note(seeds, tasks)] + [cr.verdict(r) for r in rows]
    reading += [f"Anchor: {REFERENCE} - {r.b} = {r.difference:+.3f} [{r.low:+.3f}, {r.high:+.3f}], "
                f"raw p = {cr.format_p(r.p_raw)}." for r in anchor_rows]
    return [f"## 1. cw_grpo against every method on `{args.suite}`", "",
            "Test success, mean over seeds and tasks with a 95% two-level bootstrap interval; paired sign-flip "
            f"test on per-task success, Holm-Bonferroni over the {len(rows)} comparisons of {REFERENCE} with the "
            "other learning methods (random, reader and oracle are anchors, corrected among themselves).", "",
            success_table(records, labels, {r.b: r for r in rows + anchor_rows}, f"{REFERENCE} - method"), "",
            *([note, ""] if (note := anchors_note(labels, privileged_labels(records))) else []),
            "Per family (test success [95% CI]):", "",
            metric_table(summary_rows(records), "success", labels, privileged_labels(records)), "", figure(args, records, "main_dev_success"), "",
            "**Reading (generated from the numbers above).**", "", *[f"- {line}" for line in reading], ""]


def roles_section(args, records: list[RunRecord], labels: list[str]) -> list[str]:
    rows = cr.paired_rows(records, ROLE_PAIRS)
    seeds, tasks = scale(records)
    reading = [cr.scale_note(seeds, tasks)] + [cr.verdict(r) for r in rows]
    return [f"## 2. Role-aware grouping on `{args.role_suite}`", "",
            "grpo_team pools every agent's trajectories of a task's G episodes into one GRPO group; grpo_role and "
            "cw_grpo_role compare each role with itself. Holm over the three pairs.", "",
            success_table(records, labels), "", cr.paired_table(rows), "",
            figure(args, records, "roles_dev_success"), "",
            "**Reading (generated).**", "", *[f"- {line}" for line in reading], ""]


def ablation_section(args, records: list[RunRecord], labels: list[str]) -> list[str]:
    plain = "grpo_plain"
    rows = cr.paired_rows(records, [(label, plain) for label in labels if label != plain])
    entropy = cr.entropy_summary(records)
    seeds, tasks = scale(records)
    reading = [cr.scale_note(seeds, tasks)]
    reading += [cr.entropy_reading(label, *entropy[label]) for label in labels if label in entropy]
    reading += [cr.verdict(r) for r in rows]
    means = {r["method"]: r["success"] for r in summary_rows(records) if r["aggregate"] and r["family"] == "all"}
    full = next((r for r in rows if r.a == "grpo_all"), None)
    if full is not None and plain in means:
        target = CLAIMED_GAIN * means[plain]
        gain = cr.relative_gain(means["grpo_all"], means[plain])
        if full.high < target:
            word = "refuted here: the 95% interval of the difference excludes it"
        elif full.low > 0 and full.low <= target:
            word = "consistent here: the interval is above 0 and includes it"
        elif full.low > target:
            word = "exceeded here: the whole interval is above it"
        else:
            word = "not shown here: the interval includes 0"
        relative = f"{gain:+.1%} relative" if gain == gain else "relative gain undefined (plain success is 0)"
        reading.append(f"Every flag together vs plain GRPO: {relative} ({means['grpo_all']:.3f} vs "
                       f"{means[plain]:.3f}); a +{CLAIMED_GAIN:.0%} gain would be {target:+.3f} absolute: the "
                       f"+{CLAIMED_GAIN:.0%} effect is {word} [{full.low:+.3f}, {full.high:+.3f}].")
    flags = "; ".join(f"{name}: {', '.join(f'{k}={v}' for k, v in o.items())}" for name, o in FLAGS.items())
    return [f"## 3. Calibration ablation on `{args.suite}`", "",
            f"Plain GRPO = grpo with {PLAIN}; each flag over it ({flags}); grpo_all = every flag. Holm over the "
            f"{len(rows)} comparisons with plain.", "",
            success_table(records, labels, {r.a: r for r in rows}, f"method - {plain}"), "",
            figure(args, records, "ablation_dev_success"), "",
            figure(args, records, "ablation_entropy", "loss/entropy", "policy entropy"), "",
            "**Reading (generated).**", "", *[f"- {line}" for line in reading], ""]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    require_extras(__file__, ["torch"])  # every part trains (before: a traceback from the first run)
    start = time.monotonic()
    main_entries = [m.strip() for m in args.methods.split(",") if m.strip()]
    parts = {"main": (args.suite, main_entries, REFERENCE, main_section),
             "roles": (args.role_suite, list(ROLE_METHODS), "cw_grpo_role", roles_section),
             "ablation": (args.suite, ablation_entries(args.ablation.split(",")), "grpo_plain", ablation_section)}
    if args.start == "base":
        parts = {name: (suite_id, entries if BASE in entries else [BASE, *entries], reference, section)
                 for name, (suite_id, entries, reference, section) in parts.items()}
    try:
        check_earlier_runs(args, parts)
    except ValueError as exc:  # another run's folder, a damaged one: one line (before: a traceback, rc 1)
        print(f"claims.py: error: {exc}", file=sys.stderr)
        return 2
    # Every run first, then every figure and the report: a part's figure written into the source
    # tree before the next part trains would mark that part's runs "with uncommitted changes".
    finished = {}
    for name in args.parts:
        suite_id, entries, reference, section = parts[name]
        finished[name] = (entries, section, run_part(args, name, suite_id, entries, reference))
    git = git_revision()
    body, total_run_seconds, runs, revisions = [], 0.0, 0, set()
    for entries, section, records in finished.values():
        labels = [m.label for m in parse_methods(entries)]
        body += section(args, records, labels)
        if args.start == "base":
            body += [f"#{line}" if line.startswith("## ") else line for line in gain_section(records, BASE)]
        total_run_seconds += sum(r.result.get("train_seconds", 0.0) + r.result.get("eval_seconds", 0.0) for r in records)
        runs += len(records)
        revisions |= {(r.config.get("git", {}).get("revision"), bool(r.config.get("git", {}).get("dirty")))
                      for r in records}
    command = "python benchmarks/claims.py " + " ".join(shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    head = ["# Results: the claims, tested", "",
            "Generated by `benchmarks/claims.py` from finished harness runs; every sentence of the readings is "
            "computed from the numbers. Do not edit by hand: rerun the command.", "",
            f"- command: `{command}`", f"- seeds: {args.seeds}; budget: {args.budget} env steps per training run",
            ("- start: every learning method from the supervised base `sft` of its seed (the policy trained to "
             f"imitate the reader; options {', '.join(args.option)}{MAKE_MAIN if tuple(args.option) == FROM_BASE else ''}"
             "); each part's gain table is "
             "paired against that base" if args.start == "base" else "- start: every learning method from random weights"),
            "- runs trained and scored at: " + ", ".join(f"`{rev}`{' (with uncommitted changes)' if dirty else ''}"
                                                        for rev, dirty in sorted(revisions, key=str)),
            f"- report written at: `{git['revision']}`{' (with uncommitted changes)' if git['dirty'] else ''}",
            f"- wall time of this invocation: {time.monotonic() - start:.0f} s; train + eval seconds of the {runs} "
            f"runs' final attempts, summed (runs finished by an earlier invocation included): {total_run_seconds:.0f} s",
            f"- run folders: `{args.shown_out}` (one comparison per part; `searchgym compare` results.md in each)", ""]
    args.results.parent.mkdir(parents=True, exist_ok=True)
    from searchgym.fileio import atomic_write_text

    atomic_write_text(args.results, "\n".join(head + body))
    print(f"wrote {args.results} ({runs} runs; {time.monotonic() - start:.0f} s in this invocation, which skips "
          "finished runs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
