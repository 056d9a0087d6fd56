"""RL from a base policy: does it add to the base or erode it? GRPO and CW-GRPO, with and
without the KL term to the base, on the harness's own test evaluation.

A stand-in base until ``--option init=sft`` exists: the hash policy cloned from the oracle team
on the suite's train tasks (the states come from the oracle mixed with uniform actions, p =
``--follow``; every label is the oracle's action), a few epochs of cross-entropy. Step 1 writes
it to ``OUT/base.pt`` and the options it was built from to ``OUT/base.json`` (a later run with the
same ``--out`` reuses the base when they are the same, and refuses other ones); step 2 runs
``searchgym compare`` with the methods of this module
(each loads the base into its trainer before the first update, so the KL reference is the base;
``base`` trains nothing and is the base itself). A bare ``grpo`` or ``cw_grpo`` is reported as
``grpo_from_base`` or ``cw_grpo_from_base`` (compare keeps built-in method names for the built-in
methods); ``label=name[options]`` names its own:

    .venv/bin/python benchmarks/rl_from_base.py --out runs/from_base --budget 4000 \\
        --methods base,grpo,cw_grpo,cw_all=cw_grpo[cw_rounds=all],grpo_kl=grpo[loss.kl_coef=0.05]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

BASE_ENV = "SEARCHGYM_BASE_WEIGHTS"
#: The options a base is built from, as ``--out``'s ``base.json`` records them beside its ``base.pt``.
#: Why: a base.pt in --out was reused whatever these were, so a run with other base settings printed
#: no ``base:`` line and compare reported the old base's runs as "already finished".
BASE_OPTIONS = {"suite": "--suite", "base_tasks": "--base-tasks", "follow": "--follow", "epochs": "--epochs"}
BASE_RECORD = "base.json"
#: The most bytes of a reused ``base.pt``: the base is one shared hash member (its 2**14 x 64 word table
#: and heads), 4.6 MB saved whatever --suite, --base-tasks or the team's size; 64 MiB clears it 14x.
#: Why a cap, and the checks of :func:`base_problem`: base.pt in --out was handed to torch.load alone, so a
#: 1.5 MB deflated archive took 1.9 GB before failing, a FIFO hung, a link was followed.
MAX_BASE_BYTES = 64 * 2**20


def clone_oracle(suite_id: str, n_tasks: int, follow: float, epochs: int, seed: int, out: Path) -> dict[str, float]:
    """Behaviour-clone the oracle team into a shared hash population; save its weights to ``out``."""
    import torch

    from searchgym.agents.population import Population
    from searchgym.baselines.team_oracle import TeamOracle
    from searchgym.fileio import atomic_torch_save
    from searchgym.suites import get_suite, make_env

    env = make_env(get_suite(suite_id), "train")
    rng = np.random.default_rng(seed)
    train = [t.id for t in env.unwrapped.tasks.tasks("train")]
    observations, labels = [], []
    for t, index in enumerate(rng.choice(len(train), size=min(n_tasks, len(train)), replace=False)):
        obs, _ = env.reset(seed=seed * 1_000_003 + t, options={"task_id": train[index]})
        oracle = TeamOracle()
        while env.agents:
            planned = oracle.choose_actions(env)
            actions = {}
            for agent in env.agents:
                mask = np.flatnonzero(np.asarray(obs[agent]["action_mask"]))
                teacher = int(planned.get(agent, mask[0]))
                observations.append(obs[agent])
                labels.append(teacher)
                actions[agent] = teacher if rng.random() < follow else int(rng.choice(mask))
            obs, *_ = env.step(actions)
    population = Population.build("shared", len(env.possible_agents), encoder="hash", seed=seed)
    policy = population.policy_for(0)
    optimizer = torch.optim.Adam(population.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(seed)
    target = torch.tensor(labels)
    for _ in range(epochs):
        for rows in torch.randperm(len(labels), generator=generator).split(256):
            logits, _ = policy([observations[i] for i in rows.tolist()])
            loss = torch.nn.functional.cross_entropy(logits, target[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    with torch.no_grad():
        logits, _ = policy(observations[:2000])
        accuracy = float((logits.argmax(-1) == target[:2000]).float().mean())
    atomic_torch_save(out, population.state_dict())
    return {"states": len(labels), "train_accuracy": accuracy}


def _as_options(settings: dict, keys) -> str:
    return " ".join(f"{BASE_OPTIONS[key]} {settings.get(key)}" for key in keys)


def base_refusal(out: Path, settings: dict) -> str | None:
    """Why the base in ``out`` cannot serve ``settings`` (a dict keyed as :data:`BASE_OPTIONS`); None
    when ``out`` has none, or one built with them. A base.pt without its record (an older version of
    this script wrote it) is refused too: its settings cannot be checked, and building it again would
    leave compare's finished runs, trained from the old base, beside runs from the new one."""
    from searchgym.damaged import DamagedFile, read_json_capped
    from searchgym.harness.run_reads import MAX_RUN_JSON_BYTES, MAX_RUN_JSON_VALUES

    weights, record = out / "base.pt", out / BASE_RECORD
    if not weights.exists():
        return None
    try:  # bounded, not through a link (before: up to 256 MiB, any number of values, a link followed)
        built = read_json_capped(record, MAX_RUN_JSON_BYTES, MAX_RUN_JSON_VALUES, "where base.json holds four settings",
                                 dict)
    except (FileNotFoundError, DamagedFile):
        return (f"{weights} has no readable record of the settings it was built with ({record.name}), so they "
                f"cannot be checked; give another --out, or delete {weights} and {out / 'compare'} to build it again")
    differ = [key for key in BASE_OPTIONS if built.get(key) != settings[key]]
    if not differ:
        return None
    return (f"{weights} was built with {_as_options(built, differ)}, not {_as_options(settings, differ)}; give "
            "another --out for a base with other settings (the runs in its compare folder trained from that base)")


def base_problem(weights: Path, out: Path) -> str | None:
    """Why the ``base.pt`` that a run with ``--out out`` would reuse cannot serve as the base, in one line
    naming it; None when it is a regular file (not a link) of at most :data:`MAX_BASE_BYTES`, an intact
    archive (:func:`~searchgym.torch_archive.archive_problem`) that ``torch.load(weights_only=True)`` reads,
    and a state dict of the base's population. Why before compare: each run loaded it, and failed with
    torch's words (a pickle's twice, naming no file, then "re-run the same command to resume")."""
    import torch

    from searchgym.agents.population import Population
    from searchgym.agents.sft_base import read_weights_only
    from searchgym.damaged import DamagedFile

    remedy = f"give another --out, or delete {weights} and {out / 'compare'} to build it again"
    try:
        state = read_weights_only(weights, MAX_BASE_BYTES, remedy, "is not a torch.save file torch.load reads")
    except DamagedFile as exc:
        return str(exc)
    if not (isinstance(state, dict) and all(isinstance(k, str) and isinstance(v, torch.Tensor)
                                            for k, v in state.items())):
        return str(DamagedFile(weights, "is not a state dict (names to tensors)", remedy))
    try:  # the layout clone_oracle saves: one shared hash member, whatever the team's size
        Population.build("shared", 1, encoder="hash", seed=0).load_state_dict(state)
    except RuntimeError as exc:
        first = " ".join(str(exc).split())[:200]
        return str(DamagedFile(weights, f"is not a base of this script's hash policy ({first})", remedy))
    return None


def _from_base(ctx, name: str):
    """Train spec ``name`` from the base weights (``$SEARCHGYM_BASE_WEIGHTS``); budget 0: the base."""
    import torch

    from searchgym.agents.policy_actor import PolicyActor
    from searchgym.harness.method_specs import build_config
    from searchgym.method_table import METHOD_SPECS
    from searchgym.harness.methods import load_callable

    spec = METHOD_SPECS[name]
    trainer_cls = load_callable(spec.trainer, f"trainer of {spec.name}")
    config = build_config(spec, ctx, trainer_cls)
    trainer = trainer_cls(config, out_dir=ctx.checkpoint_dir, log=ctx.log, dev_tasks=[t.id for t in ctx.tasks("dev")])
    if trainer.state.iteration == 0:  # a resumed run already holds its weights (and its reference)
        trainer.population.load_state_dict(torch.load(os.environ[BASE_ENV], weights_only=True))
    trainer.train(progress=False)
    return PolicyActor(trainer.population, list(trainer.env.possible_agents), decoding=config.decoding, seed=ctx.seed)


def base(ctx):
    ctx.budget = 0
    return _from_base(ctx, "grpo")


def grpo(ctx):
    return _from_base(ctx, "grpo")


def cw_grpo(ctx):
    return _from_base(ctx, "cw_grpo")


#: The methods of this module that ``--methods`` may name (each trains from the base).
FROM_BASE_METHODS = ("base", "grpo", "cw_grpo")
#: The folder that holds ``benchmarks/``: ``compare`` imports this file as ``benchmarks.rl_from_base``.
REPO = Path(__file__).resolve().parents[1]


#: The label of a bare entry: ``grpo`` -> ``grpo_from_base`` (compare refuses a built-in method's
#: name as the label of another method: ``grpo=benchmarks.rl_from_base:grpo`` stopped the comparison).
BARE_SUFFIX = "_from_base"


def split_entry(entry: str) -> tuple[str, str, str]:
    """``label=name[options]`` -> (label, name, "[options]"); a bare ``name[options]`` gets the label
    ``name_from_base`` (``base``: base). An ``=`` inside the brackets is an option's, not the label's."""
    head = entry.partition("[")[0]
    if "=" in head:  # an empty label ('=grpo') is left to compare's check, which refuses it
        label, _, name = head.rpartition("=")
    else:
        label, name = (head if head == "base" else head + BARE_SUFFIX), head
    return label, name, entry[len(head):]


def compare_entry(entry: str) -> str:
    """A ``--methods`` entry of this script as compare takes it: ``label=benchmarks.rl_from_base:name[...]``."""
    label, name, options = split_entry(entry)
    return f"{label}=benchmarks.rl_from_base:{name}{options}"


def method_entries(text: str) -> list[str]:
    """An argparse ``type``: ``--methods`` entries (``label=name[options]`` or ``name``) whose names
    are this module's methods and whose labels compare accepts (before: a misspelled name failed in
    every run of the comparison, and the default labels grpo and cw_grpo stopped it)."""
    from searchgym.harness.methods import parse_methods

    entries = [e.strip() for e in text.split(",") if e.strip()]
    for entry in entries:
        if split_entry(entry)[1] not in FROM_BASE_METHODS:
            raise argparse.ArgumentTypeError(f"{entry!r} names none of {', '.join(FROM_BASE_METHODS)} "
                                             "(entries: name, name[key=value], label=name or label=name[key=value])")
    if not entries:
        raise argparse.ArgumentTypeError(f"{text!r} names no method; give a comma list of {', '.join(FROM_BASE_METHODS)}")
    try:  # compare's own check of labels (a built-in method's name, a repeated label, ...)
        parse_methods([compare_entry(e) for e in entries])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(as_typed(str(exc), entries)) from None
    return entries


def as_typed(message: str, entries: list[str]) -> str:
    """compare's ``message`` about the translated entries, naming the entries as typed. Why: ``--methods =grpo``
    was refused as "method entry '=benchmarks.rl_from_base:grpo' has an empty label", an entry never typed."""
    for entry in sorted(entries, key=lambda e: -len(compare_entry(e))):
        message = message.replace(repr(compare_entry(entry)), repr(entry))
    return message.replace("benchmarks.rl_from_base:", "rl_from_base.py's ")


def check_method_options(suite_id: str, entries: list[str], seeds: list[int], budget: int, out: Path) -> None:
    """Each entry's options checked as compare checks those of the built-in method it trains
    (``preflight.check_comparison``: ``base`` trains grpo's), ``ValueError`` naming the first bad one.
    Why: compare takes this module's methods for a user's, whose options it cannot check, so
    ``grpo[lr=]`` or ``x=grpo[nope=1]`` was found by every run, after the base was built."""
    from dataclasses import replace

    from searchgym.harness.compare import Comparison
    from searchgym.harness.methods import METHODS, parse_methods
    from searchgym.harness.preflight import check_comparison

    refs = parse_methods([compare_entry(e) for e in entries])
    builtin = [replace(ref, path=METHODS["grpo" if name == "base" else name])
               for ref, (_, name, _) in zip(refs, map(split_entry, entries), strict=True)]
    try:
        check_comparison(Comparison(suite=suite_id, methods=builtin, seeds=seeds, budget=budget, out=out,
                                    device="cpu", progress=False))
    except ValueError as exc:  # "method 'grpo_from_base': ...", of the entry typed as grpo[...]
        message = str(exc)
        for entry, ref in zip(entries, refs, strict=True):
            message = message.replace(f"method {ref.label!r}: ", f"method entry {entry!r}: ", 1)
        raise ValueError(message) from None


def main(argv: list[str] | None = None) -> int:
    # here: compare imports this file as benchmarks.rl_from_base
    from script_extras import require_extras
    from suite_arg import count, describe, flagged, new_folder, probability, suite_of

    from searchgym.commands.compare import parse_seeds
    from searchgym.fileio import atomic_write_json

    parser = argparse.ArgumentParser(description=describe(__doc__))
    parser.add_argument("--suite", default="quick-v2", type=suite_of("team-candidates"),
                        help="a team suite in candidate mode, whose oracle team the base imitates (default quick-v2)")
    parser.add_argument("--out", required=True, type=flagged(new_folder, "--out"),
                        help="folder of base.pt, base.json (the options it was built from) and the comparison")
    parser.add_argument("--base-tasks", type=count, default=300, help="train tasks the base imitates (default 300)")
    parser.add_argument("--follow", type=probability, default=0.7,
                        help="probability that the states follow the oracle (default 0.7)")
    parser.add_argument("--epochs", type=count, default=3, help="cross-entropy epochs of the base (default 3)")
    parser.add_argument("--budget", type=count, default=4000, help="env steps per training run (default 4000)")
    parser.add_argument("--seeds", default="1", help="count (3 -> 0..2) or comma list, as compare takes (default 1)")
    parser.add_argument("--workers", type=count, default=1, help="parallel runs of the comparison (default 1)")
    parser.add_argument("--methods", type=method_entries, default=list(FROM_BASE_METHODS),
                        help="comma list of base, grpo, cw_grpo, each as name (reported as base, grpo_from_base, "
                        "cw_grpo_from_base) or label=name[options] (default base,grpo,cw_grpo)")
    args = parser.parse_args(argv)
    require_extras(__file__, ["torch"])
    try:
        seeds = parse_seeds(args.seeds)
    except ValueError as exc:
        parser.error(str(exc))
    out = Path(args.out)
    try:  # before the base is built (minutes): a bad option was found by every run of the comparison
        check_method_options(args.suite, args.methods, seeds, args.budget, out / "compare")
    except ValueError as exc:
        parser.error(f"argument --methods: {as_typed(str(exc), args.methods)}")
    settings = {"suite": args.suite, "base_tasks": args.base_tasks, "follow": args.follow, "epochs": args.epochs}
    refusal = base_refusal(out, settings)
    if refusal:
        parser.error(f"argument --out: {refusal}")
    weights = out / "base.pt"
    reused = weights.exists() or weights.is_symlink()
    if reused and (problem := base_problem(weights, out)):  # before compare: every run would load it
        parser.error(f"argument --out: {problem}")
    out.mkdir(parents=True, exist_ok=True)
    if reused:
        print(f"base: reusing {weights}, built with {_as_options(settings, BASE_OPTIONS)}", flush=True)
    else:
        (out / BASE_RECORD).unlink(missing_ok=True)  # a stale record, whose base.pt was deleted
        print("base:", clone_oracle(args.suite, args.base_tasks, args.follow, args.epochs, 0, weights), flush=True)
        atomic_write_json(out / BASE_RECORD, settings)  # after the weights: a record always has its base
    methods = [compare_entry(entry) for entry in args.methods]
    # the base is the reference when it runs (before: --reference base without it stopped compare)
    reference = ["--reference", "base"] if any(m.startswith("base=") for m in methods) else []
    command = [sys.executable, "-m", "searchgym.cli", "compare", "--suite", args.suite, "--methods", ",".join(methods),
               "--seeds", args.seeds, "--budget", str(args.budget), "--device", "cpu", "--workers", str(args.workers),
               "--out", str(out / "compare"), *reference, "--no-progress"]
    # the repository, wherever this runs from (before: the working folder, so only `PYTHONPATH=.` from
    # the repository's root found benchmarks.rl_from_base), ahead of any PYTHONPATH already set
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, BASE_ENV: str(weights.resolve()), "PYTHONPATH": path}
    return subprocess.run(command, check=False, env=env).returncode  # compare printed why it failed


if __name__ == "__main__":
    raise SystemExit(main())
