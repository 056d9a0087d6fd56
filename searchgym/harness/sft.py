"""The supervised base of a comparison, and the ``sft`` method that scores it.

The base is the analogue of an instruct model: a policy fitted to imitate a demonstrator (the
reader by default, the oracle as an option) on ``sft_tasks`` train tasks (see
:mod:`searchgym.agents.imitation`). RL methods start from it with ``--option init=sft``; the
``sft`` method is the base itself, scored like them (sampled, :class:`PolicyActor`).

One base per (suite, seed, policy, sft settings), named by a hash of those as the build uses them
(:mod:`searchgym.harness.base_key`), in ``<out>/bases/<key>/`` shared by the comparison's runs:

- ``base.pt``: the weights (:mod:`searchgym.agents.sft_base`, read weights_only), written last;
- ``base.json``: key, settings, the file's sha256, held-out agreement and confidence, dev success, timings, the
  dev-curve rows;
- ``partial.pt``: the build's progress (demonstrations, epoch, optimiser, generator), so a killed
  build resumes; removed when the base is written;
- ``.lock``: a ``filelock`` lock: parallel workers wait for the one that builds.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch
from filelock import FileLock

from searchgym.agents.imitation import (
    Examples,
    SFTConfig,
    agreement,
    confidence,
    demonstration_order,
    demonstrations,
    fit_epoch,
    shown_to_base,
)
from searchgym.agents.policy_actor import PolicyActor
from searchgym.agents.population import Population
from searchgym.agents.sft_base import file_sha256, load_base_into, max_base_bytes, save_base
from searchgym.baselines.harness_actors import baseline_actor
from searchgym.damaged import DELETE_AND_RERUN, DamagedFile, warn_damaged
from searchgym.fileio import atomic_torch_save, atomic_write_json, refuse_link
from searchgym.harness.base_key import base_key, used_policy_kwargs, used_sft_config
from searchgym.harness.methods import RunContext
from searchgym.harness.model_folder_record import policy_folders_record
from searchgym.harness.option_defaults import sft_option_defaults
from searchgym.harness.progress_base import BaseProgress
from searchgym.harness.run_reads import run_json
from searchgym.json_fields import (
    COUNT,
    NUMBER,
    OBJECT,
    OBJECTS,
    TEXT,
    check_fields,
    is_number,
)
from searchgym.policy_format import policy_format
from searchgym.suites import Suite, env_kind, make_env, tasks
from searchgym.torch_archive import archive_problem

BASE, META, PARTIAL = "base.pt", "base.json", "partial.pt"
#: Seed offset of the dev demonstrations that measure held-out agreement.
DEV_SEED = 10_000


def sft_config(options: Mapping[str, Any]) -> SFTConfig:
    """The SFT settings among a run's options (``sft_tasks=300`` or ``sft.sft_tasks=300``); other
    options belong to other methods and are left alone, an unknown ``sft_*`` name is an error."""
    names = {f.name for f in dataclasses.fields(SFTConfig)}
    chosen, given = {}, {}
    for key, value in options.items():
        short = key[len("sft."):] if key.startswith("sft.") else key
        if short in names:
            if short in given:  # before: sft.sft_tasks=20 and sft_tasks=30 built with 30 and recorded both
                raise ValueError(f"options {given[short]!r} and {key!r} both set {short} (a method's brackets "
                                 f"override --option only in the same spelling); give it once, or in one spelling")
            chosen[short], given[short] = value, key
        elif short.startswith("sft_") or key.startswith("sft."):
            raise ValueError(f"unknown option {key!r}; the supervised base accepts: {', '.join(sorted(names))}")
    return SFTConfig(**chosen)


#: What the ``sft`` method reads from its options besides the ``sft_*`` settings.
SFT_ALSO_READS = ("decoding", "policy_kwargs")


def sft_reads(option: str) -> bool:
    """Whether the ``sft`` method reads ``option`` (an ``sft_*`` setting, plain or ``sft.``-prefixed, or
    :data:`SFT_ALSO_READS`)."""
    names = {f.name for f in dataclasses.fields(SFTConfig)}
    return option in names or option.removeprefix("sft.") in names or option in SFT_ALSO_READS


def policy_kwargs_of(options: Mapping[str, Any]) -> dict[str, Any]:
    """The run's ``policy_kwargs`` option (``--option 'policy_kwargs={"operand_sources": true}'``),
    checked to be a mapping ({} when absent): the base is built with them, so that the RL runs that
    start from it have its layout."""
    kwargs = options.get("policy_kwargs") or {}
    if not isinstance(kwargs, Mapping):
        raise ValueError(f"policy_kwargs must be a mapping of the policy's keyword arguments, e.g. "
                         f"'policy_kwargs={{\"operand_sources\": true}}'; got {kwargs!r}")
    return dict(kwargs)


def demonstrator(kind: str, suite: Suite, seed: int) -> Any:
    """The actor whose choices the base imitates."""
    if kind == "oracle":
        return baseline_actor("oracle", suite, seed)
    from searchgym.baselines.reader import ReaderActor, ReaderPolicy

    return ReaderActor(ReaderPolicy())


def bases_dir(ctx: RunContext) -> Path:
    return Path(ctx.bases_dir) if ctx.bases_dir is not None else Path(ctx.run_dir) / "bases"


def ensure_base(ctx: RunContext, config: SFTConfig) -> dict[str, Any]:
    """The base's record (``base.json`` plus ``path``), built first if no run has built it yet; built with
    ``config`` as the build reads it (:func:`used_sft_config`), the settings its key and base.json hold."""
    config = used_sft_config(config, len(tasks(ctx.suite, "train")))
    key = base_key(ctx.suite, ctx.seed, ctx.policy, config, policy_kwargs_of(ctx.options))
    folder = refuse_link(refuse_link(bases_dir(ctx)) / key)  # before: a linked bases/ was written where it pointed
    folder.mkdir(parents=True, exist_ok=True)
    with FileLock(str(folder / ".lock")):
        refuse_folders(folder)
        if not (folder / BASE).is_file() or not (folder / META).is_file():
            build_base(ctx, config, key, folder)
        meta = read_meta(folder / META)
    # not through a link, and bounded: before, a base.pt there was hashed wherever it pointed, whatever its size
    sha = file_sha256(folder / BASE, max_base_bytes(ctx.policy), _rebuild(folder), follow_links=False)
    if sha != meta.get("sha256"):
        raise BaseChanged(f"{folder / BASE} changed after it was built (sha256 {sha}, base.json says "
                          f"{meta.get('sha256')}); delete {folder} to rebuild it", _rebuild(folder))
    return {**meta, "path": str(folder / BASE)}


class BaseChanged(ValueError):
    """``base.pt`` is not the file its ``base.json`` recorded: every run of that base fails on it until the
    folder is deleted, so a re-run alone cannot help (``remedy``: what to do; see rerun_advice)."""

    rerun_helps = False

    def __init__(self, message: str, remedy: str) -> None:
        super().__init__(message)
        self.remedy = remedy

    def __reduce__(self):  # whole across processes (a worker's or a Ray task's exception is pickled)
        return type(self), (str(self), self.remedy)


#: What ``base.json`` must hold for the runs that use the base (``dev_confidence``: when there).
META_FIELDS = {"key": TEXT, "sha256": TEXT, "settings": OBJECT, "dev_agreement": OBJECT, "dev_success": NUMBER,
               "examples": COUNT, "curve": OBJECTS}


def _rebuild(folder: Path) -> str:
    return f"delete {folder} and re-run the same command to build the base again"


def refuse_folders(folder: Path) -> None:
    """A folder where the build writes a file, refused before it builds. Before: the base was built, then
    saving it failed (IsADirectoryError), and so did every re-run, after building it again."""
    for path in (folder / PARTIAL, folder / BASE, folder / META):
        if path.is_dir() and not path.is_symlink():  # a link there: the write replaces it
            raise DamagedFile(path, "is a folder where the base's build writes a file", DELETE_AND_RERUN)


def read_meta(path: Path) -> dict[str, Any]:
    """``base.json``, checked to hold what its users read. Before: read without ``expect=dict``, so
    ``[1]`` ended in "'list' object has no attribute 'get'", and a file without ``dev_agreement``
    in "error: 'dev_agreement'" (a KeyError) naming no file."""
    rebuild = _rebuild(path.parent)
    meta = run_json(path, rebuild, "a base's base.json")  # not linked, 4 MiB (before: 256 MiB, any values)
    check_fields(path, meta, META_FIELDS, {"dev_confidence": OBJECT}, remedy=rebuild)
    return meta


def _population(ctx: RunContext, n_agents: int) -> Population:
    return Population.build("shared", n_agents, encoder=ctx.policy, device=ctx.device, seed=ctx.seed,
                            **policy_kwargs_of(ctx.options))


def build_base(ctx: RunContext, config: SFTConfig, key: str, folder: Path) -> None:
    """Demonstrate, fit (resuming from ``partial.pt``), measure, write ``base.pt`` then ``base.json``;
    how far it is shows as a bar (when the run may draw one) and in ``building.json`` (for a parent)."""
    shown = BaseProgress(folder, ctx.seed, ctx.suite.id, key, config.sft_dagger_rounds, bar=ctx.progress)
    try:
        _build_base(ctx, config, key, folder, shown)
    finally:
        shown.close()


def _build_base(ctx: RunContext, config: SFTConfig, key: str, folder: Path, shown: BaseProgress) -> None:
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    suite, seed = ctx.suite, ctx.seed
    env = make_env(suite, "train")
    agents = list(env.possible_agents) if env_kind(suite) == "parallel" else None
    population = _population(ctx, len(agents) if agents else 1)
    policy = population.policy_for(0)
    optimizer = torch.optim.Adam(policy.parameters(), lr=config.sft_lr)
    generator = torch.Generator().manual_seed(seed)
    teacher = demonstrator(config.sft_demonstrator, suite, seed)
    train = tasks(suite, "train")
    order = demonstration_order(len(train), seed)
    progress = _read_partial(folder / PARTIAL)
    if progress is not None and "weights" in progress and not _resumed(folder / PARTIAL, progress, policy,
                                                                         optimizer, generator):
        progress = None  # a fresh model, optimiser and generator: what it loaded was set aside with a warning
        population = _population(ctx, len(agents) if agents else 1)
        policy = population.policy_for(0)
        optimizer = torch.optim.Adam(policy.parameters(), lr=config.sft_lr)
        generator = torch.Generator().manual_seed(seed)
    before = (0.0, 0.0) if progress is None else tuple(progress.get("build_seconds", (0.0, 0.0)))

    def spent() -> list[float]:  # the build's seconds over every process that worked on it (wall, CPU)
        return [before[0] + time.perf_counter() - start_wall, before[1] + time.process_time() - start_cpu]

    if progress is None:
        demonstrated = [train[i] for i in order[:config.sft_tasks]]
        shown.start("demonstrations", len(demonstrated))
        examples, demo_success = demonstrations(env, teacher, demonstrated, seed * 100_003, on_task=shown.step)
        progress = {"examples": examples.as_dict(), "demo_success": demo_success, "round": 0, "epoch": 0,
                    "losses": [], "dagger_success": [], "build_seconds": spent()}
        atomic_torch_save(folder / PARTIAL, progress)
    # killed after an epoch, its weights were loaded above (before one: the demonstrations are kept)
    examples = Examples(**progress["examples"])

    def checkpoint() -> None:
        progress.update(examples=examples.as_dict(), weights=policy.state_dict(), optimizer=optimizer.state_dict(),
                        generator=generator.get_state(), build_seconds=spent())
        atomic_torch_save(folder / PARTIAL, progress)

    while True:
        shown.start("epoch", config.sft_epochs, round=progress["round"], unit="epoch")
        shown.step(progress["epoch"])
        while progress["epoch"] < config.sft_epochs:
            progress["losses"].append(fit_epoch(policy, optimizer, examples, config.sft_batch_size, generator))
            progress["epoch"] += 1
            checkpoint()
            shown.step(progress["epoch"])
        if progress["round"] >= config.sft_dagger_rounds:
            break
        learner = PolicyActor(population, agents, decoding="sample", seed=seed)
        first = config.sft_tasks + progress["round"] * config.sft_dagger_tasks
        # the next tasks of the order, wrapping round: with every train task demonstrated (sft_tasks >= the
        # split), DAgger replays them, now reaching the states the learner's own choices lead to
        picked = [train[order[(first + j) % len(train)]] for j in range(config.sft_dagger_tasks)]
        shown.start("DAgger demonstrations", len(picked), round=progress["round"] + 1)
        found, success = demonstrations(env, teacher, picked, seed * 100_003 + first, learner=learner,
                                        on_task=shown.step)
        examples.extend(found)
        progress["dagger_success"].append(success)
        progress.update(round=progress["round"] + 1, epoch=0)
        checkpoint()
    build_seconds = spent()
    dev_tasks = tasks(suite, "dev")
    shown.start("held-out demonstrations", len(dev_tasks), round=0)
    held_out, _ = demonstrations(make_env(suite, "dev"), teacher, dev_tasks, DEV_SEED, on_task=shown.step)
    agree = agreement(policy, held_out)
    shown.start("scoring on dev")
    actor = PolicyActor(population, agents, decoding="sample", seed=seed)
    dev = RunContext(suite=suite, seed=seed, budget=0, device=ctx.device, run_dir=folder).evaluate(actor, "dev")
    sha = save_base(folder / BASE, key, ctx.policy, policy.state_dict(), asdict(config))
    steps = len(examples)
    atomic_write_json(folder / META, {
        "key": key, "format": policy_format(ctx.policy), "suite": suite.id, "suite_hash": suite.content_hash, "seed": seed,
        "policy": ctx.policy, "policy_kwargs": used_policy_kwargs(ctx.policy, policy_kwargs_of(ctx.options)),
        "settings": asdict(config), "sha256": sha, "examples": steps,
        "demonstrated_tasks": min(config.sft_tasks, len(train)),
        "shown_tasks": sorted(train[i].id for i in shown_to_base(len(train), seed, config)),
        "demonstrator_train_success": progress["demo_success"], "dagger_success": progress["dagger_success"],
        "losses": progress["losses"], "dev_agreement": agree, "dev_confidence": confidence(policy, held_out),
        "dev_success": dev["success"],
        "built_by_pid": os.getpid(), "build_wall_seconds": round(build_seconds[0], 2),
        "build_cpu_seconds": round(build_seconds[1], 2),
        "curve": [{"step": steps, "dev_success": dev["success"], "dev_f1": dev["f1"],
                   "dev_agreement": agree["all"]}],
    })
    (folder / PARTIAL).unlink(missing_ok=True)


#: What ``partial.pt`` holds (and, once an epoch is fitted, ``weights``, ``optimizer``, ``generator``).
PARTIAL_KEYS = {"examples": dict, "demo_success": float, "round": int, "epoch": int, "losses": list,
                "dagger_success": list}


def _read_partial(path: Path) -> dict[str, Any] | None:
    """A killed build's progress; None (with a warning naming the file) when it is damaged or foreign.
    Why the warning and the key check: a torn file restarted the build silently, and a file of
    another layout ended in a KeyError traceback."""
    if not path.is_file():
        return None
    loaded = False
    try:
        what = archive_problem(path)  # torch.load reads changed tensor bytes without a word
        if not what:
            progress, loaded = torch.load(path, map_location="cpu", weights_only=True), True
    except Exception as exc:  # noqa: BLE001 - a torn or foreign file: start the build again
        what = f"is not a base build's progress ({type(exc).__name__}: {exc})"
    if loaded:
        wrong = ["a dict"] if not isinstance(progress, dict) else [
            key for key, kind in PARTIAL_KEYS.items() if not isinstance(progress.get(key), (kind, int) if kind is float
                                                                          else kind)]
        if not wrong and "weights" in progress and not {"optimizer", "generator"} <= set(progress):
            wrong = ["optimizer", "generator"]
        seconds = progress.get("build_seconds", (0.0, 0.0)) if not wrong else (0.0, 0.0)
        if not wrong and not (isinstance(seconds, (list, tuple)) and len(seconds) == 2
                              and all(is_number(x) for x in seconds)):
            wrong = ["build_seconds as two numbers"]
        # Before: only the examples' type was checked, so {"evil": 1} ended in "Examples.__init__()
        # got an unexpected keyword argument 'evil'" (and lists of other shapes deep in an epoch).
        problem = "" if wrong else _examples_problem(progress["examples"])
        if not wrong and not problem:
            return progress
        what = f"is not a base build's progress ({problem or 'lacks ' + ', '.join(wrong)})"
    warn_damaged(DamagedFile(path, what), "building the base again from its beginning")
    return None


EXAMPLE_FIELDS = tuple(f.name for f in dataclasses.fields(Examples))


def _examples_problem(examples: dict) -> str:
    """What keeps ``partial.pt``'s examples from being :class:`Examples` a fit can use ("" if nothing)."""
    if set(examples) != set(EXAMPLE_FIELDS):
        names = ", ".join(sorted(str(k)[:40] for k in examples)[:8]) or "none"
        return f"its examples have the fields {names} where {', '.join(EXAMPLE_FIELDS)} belong"
    text, candidates, mask, action, family = (examples[name] for name in EXAMPLE_FIELDS)
    if not all(isinstance(v, list) for v in (text, candidates, mask, action, family)) \
            or len({len(text), len(candidates), len(mask), len(action), len(family)}) != 1:
        return "its examples are not lists of one length"
    for i, row in enumerate(zip(text, candidates, mask, action, family)):
        words, options, allowed, chosen, kind = row
        if not (isinstance(words, str) and isinstance(kind, str) and isinstance(options, list)
                and all(isinstance(c, str) for c in options) and isinstance(allowed, list)
                and len(allowed) == len(options) and all(type(m) is int for m in allowed)
                and type(chosen) is int and 0 <= chosen < len(allowed) and allowed[chosen]):
            return f"its example {i + 1} is not a demonstrated decision (text, candidates, mask, action, family)"
    return ""


def _resumed(path: Path, progress: dict[str, Any], policy: Any, optimizer: torch.optim.Optimizer,
             generator: torch.Generator) -> bool:
    """Load a killed build's weights, optimiser and generator; False (with a warning) when they do
    not fit. Before: a mismatch ended in a torch traceback about the state dict."""
    try:
        policy.load_state_dict(progress["weights"])
        optimizer.load_state_dict(progress["optimizer"])
        generator.set_state(progress["generator"])
    except Exception as exc:  # noqa: BLE001 - whatever torch says of a foreign state: build again
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        warn_damaged(DamagedFile(path, f"holds a model state this build cannot resume ({type(exc).__name__}: "
                                       f"{first})"), "building the base again from its beginning")
        return False
    return True


def base_record(meta: Mapping[str, Any]) -> dict[str, Any]:
    """What a run's config.json records about the base it started from."""
    record = {k: meta[k] for k in ("key", "sha256", "path", "settings", "dev_agreement", "dev_success")}
    if "dev_confidence" in meta:  # bases built before it was recorded lack it
        record["dev_confidence"] = meta["dev_confidence"]
    return record


def base_population(ctx: RunContext, meta: Mapping[str, Any]) -> tuple[Population, list[str] | None]:
    env = ctx.make_env("train")
    agents = list(env.possible_agents) if ctx.env_kind == "parallel" else None
    population = _population(ctx, len(agents) if agents else 1)
    load_base_into(population, meta["path"], ctx.policy)
    return population, agents


def sft_method(ctx: RunContext) -> PolicyActor:
    """The supervised base, scored as the RL methods are (sampled; ``decoding=greedy`` as for them).
    Options: the ``sft_*`` settings."""
    meta = ensure_base(ctx, sft_config(ctx.options))
    ctx.records["base"] = base_record(meta)
    ctx.records["training_budget"] = int(meta["examples"])  # what it trained on: its demonstrations' agent-steps
    # the folders its policy loads: evaluate --agent run finds a relative one from any folder
    ctx.records.update(policy_folders_record(ctx.policy, policy_kwargs_of(ctx.options)))
    for row in meta["curve"]:
        ctx.log(dict(row))
    population, agents = base_population(ctx, meta)
    return PolicyActor(population, agents, decoding=str(ctx.options.get("decoding", "sample")), seed=ctx.seed)


#: It fits demonstrations, not the run's env-step budget: its runs record what those took as ``training_budget``.
sft_method.spends_budget = False  # type: ignore[attr-defined]
#: Only these options tell two of its runs apart (identity_reads): a comparison's init=sft, lr ... are not its.
sft_method.reads_option = sft_reads  # type: ignore[attr-defined]
#: Its sft_* settings given at SFTConfig's defaults are the runs without them (identity_reads).
sft_method.option_defaults = sft_option_defaults  # type: ignore[attr-defined]
