"""``searchgym evaluate --agent run --agent-option path=RUN_FOLDER``: score a trained run's policy again.

A run folder (``searchgym train --out X``, or ``<out>/runs/<method>/seed<N>`` of ``searchgym
compare``) records how its policy was made (``config.json``) and its weights
(``checkpoint/checkpoint.pt``). This provider rebuilds that policy and plays it, with the decoding
the run used, on the evaluation's suite and seed (``--suite`` may be left out: the run's own suite).

Why it rebuilds the trainer rather than reading weights alone: the recorded method's own config
(:func:`searchgym.harness.method_specs.build_config`) and trainer class give the population the
layout, options and decoding the run had, for every learning method alike. The trainer is built
with no output folder (it writes nothing anywhere, so the run folder may be read-only) and is never
trained. Its checkpoint is read once, with ``weights_only=True`` and the trainer's own cap and keys,
before any policy is built (:mod:`searchgym.harness.run_checkpoint`), and loaded into it
(:meth:`TrainerBase.load_checkpoint`). A run that
started from a supervised base (``init=sft``) does not need the base: its checkpoint holds every
weight. The ``sft`` method's runs have no checkpoint; their base (``<out>/bases/<key>/base.pt``,
checked against the sha256 in ``config.json``) is the policy. An LLM-policy run's trained model is
played in-process (:mod:`searchgym.harness.llm_run_agent`): its base model with the checkpoint's
weights, with the rollout settings the run was scored with.

Refused, each in one line: a folder that is not a run folder, a method that trains nothing (evaluate
it by name), a method that is not built in, a run without a checkpoint, an LLM-policy run whose
checkpoint holds no model weights or whose base model is gone (or a model folder its policy was built
from: :mod:`searchgym.harness.model_folder_record`), and a config.json whose values no run
records (:func:`check_values`): a seed torch cannot take, a negative budget, options its method
refuses, or policy options past the bounds ``leaderboard retrain`` keeps (the policy is built from
them before its checkpoint can be checked against it).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile
from searchgym.envs.config import MAX_SEED
from searchgym.harness.methods import AGENT_METHOD, SPEC_METHOD_PREFIX, RunContext, load_callable
from searchgym.harness.model_folder_record import located_policy_kwargs, missing_policy_folder
from searchgym.harness.run_base_file import find_base
from searchgym.harness.run_checkpoint import ReadCheckpoint, checkpoint_limits, read_once
from searchgym.harness.run_reads import refuse_linked, run_json, suite_from_config
from searchgym.harness.runner import is_done
from searchgym.suites import Suite, env_kind, observation_kind

CONFIG = "config.json"
CHECKPOINT = Path("checkpoint") / "checkpoint.pt"
SFT_PATH = "searchgym.harness.sft:sft_method"
#: The harness method of an LLM-policy run (``train --policy llm``; ``compare``'s llm method).
LLM_PATH = "searchgym.harness.llm_method:harness_method"
NOT_A_RUN = ("path= must name a run folder: the --out of `searchgym train`, or <out>/runs/<method>/seed<N> "
             "of `searchgym compare`")
UNPLAYABLE = "its policy cannot be played; point path= at an intact run folder"
#: config.json fields the provider reads, with their types.
FIELDS = {"method": str, "method_path": str, "seed": int, "budget": int, "policy": str, "options": dict,
          "suite": dict}


@dataclasses.dataclass(frozen=True)
class TrainedRun:
    """What a run folder says about its policy (read and checked by :func:`read_run`)."""

    folder: Path
    config: dict[str, Any]
    suite: Suite

    @property
    def is_sft(self) -> bool:
        return self.config["method_path"] == SFT_PATH

    @property
    def is_llm(self) -> bool:
        return self.config["method_path"] == LLM_PATH

    @property
    def spec_name(self) -> str:
        return self.config["method_path"][len(SPEC_METHOD_PREFIX):]

    def context(self, device: str) -> RunContext:
        """The run's own context (its suite, seed, budget, policy, options); its run_dir is never written."""
        c = self.config
        return RunContext(suite=self.suite, seed=c["seed"], budget=c["budget"], device=device, run_dir=self.folder,
                          policy=c["policy"], log=lambda row: None, options=dict(c["options"]))


def read_run(path: str | Path) -> TrainedRun:
    """The run folder at ``path``, checked: one-line ValueError (DamagedFile for a damaged file) if it
    holds no policy this provider can rebuild."""
    folder = Path(str(path)).expanduser()
    if not folder.is_dir():
        raise ValueError(f"{folder} is not a folder; {NOT_A_RUN}")
    config_path = folder / CONFIG
    if not (config_path.exists() or config_path.is_symlink()):
        raise ValueError(f"{folder} is not a run folder (no {CONFIG}); {NOT_A_RUN}")
    remedy = "it cannot be read as a run's record; point path= at an intact run folder"
    config = run_json(config_path, remedy)  # no link; a 5000-digit number, a padded file refused
    for name, kind in FIELDS.items():
        value = config.get(name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise DamagedFile(config_path, f"has no {name} ({kind.__name__}) of a run", remedy)
    check_values(config_path, config, remedy)
    if config["method_path"] == AGENT_METHOD:
        raise ValueError(f"{folder} is a `searchgym evaluate` folder, not a training run; give path= the run "
                         "folder of the policy it scored")
    if config.get("trains") is False:
        raise ValueError(f"{folder} is a run of {config['method']!r}, which trains nothing: evaluate it by name "
                         f"(--agent {config['method']})")
    name = config["method_path"][len(SPEC_METHOD_PREFIX):]
    from searchgym.method_table import METHOD_SPECS

    built_in = config["method_path"].startswith(SPEC_METHOD_PREFIX) and name in METHOD_SPECS
    if config["method_path"] not in (SFT_PATH, LLM_PATH) and not built_in:
        raise ValueError(f"{folder} is a run of {config['method_path']!r}, not a built-in learning method: "
                         "rebuild its actor with --agent module:factory")
    if config["policy"] == "llm" and config["method_path"] != LLM_PATH:  # before: refused as an LLM-policy run
        raise DamagedFile(config_path, f"records policy 'llm' for the method {config['method']!r}, whose runs "
                          "train candidate policies, not an LLM", remedy)
    run = TrainedRun(folder, config, suite_from_config(config_path, config, remedy))
    for part in (folder / CHECKPOINT.parent, folder / CHECKPOINT):  # before: a link was read (and hashed)
        refuse_linked(part, UNPLAYABLE)
    if not run.is_sft and not (folder / CHECKPOINT).exists():
        raise ValueError(f"{folder} has no {CHECKPOINT} (the run saved no trained policy yet); finish it with the "
                         "command that made it, then evaluate it")
    return run


def played_identity(run: TrainedRun) -> dict[str, str]:
    """What the evaluation of ``run`` plays, by content: its config.json's and its weights' SHA-256
    (the checkpoint's; an sft run's base, by the sha256 its config records). Part of the evaluation's
    identity. Why: it was only ``path=`` as typed, so after the run was trained again into the same
    folder, ``evaluate`` showed the earlier policy's score as this one's ("already evaluated")."""
    from searchgym.agents.sft_base import file_sha256
    from searchgym.harness.run_reads import MAX_RUN_JSON_BYTES

    # bounded as read_run bounds it, and never through a link (before: any size)
    config = file_sha256(run.folder / CONFIG, MAX_RUN_JSON_BYTES, UNPLAYABLE, follow_links=False)
    if run.is_sft:
        base = run.config.get("base")
        return {"config_sha256": config, "weights_sha256": str(base.get("sha256") if isinstance(base, dict) else "")}
    # the bytes check_options read (and the rebuild loads), hashed as they were read, with the trainer's cap
    return {"config_sha256": config, "weights_sha256": played_checkpoint(run).sha256}


def check_values(config_path: Path, config: dict[str, Any], remedy: str) -> None:
    """DamagedFile naming config.json and the bound when a value it records could not have made a run.
    Before: a seed of 10**30 ended in torch's "Overflow when unpacking long long", naming no file, and
    ``policy_kwargs: {"hidden": 10**9}`` tried to allocate 1.3 TB before the checkpoint was read."""
    from searchgym.harness.option_bounds import option_out_of_bounds
    from searchgym.shown import safe_repr

    if not 0 <= config["seed"] <= MAX_SEED:
        raise DamagedFile(config_path, f"has seed {safe_repr(config['seed'], 60)}, outside 0..{MAX_SEED} (the "
                          "seeds a run's policy can be built with)", remedy)
    if config["budget"] < 0:
        raise DamagedFile(config_path, f"has budget {config['budget']}, not an int >= 0 (env steps)", remedy)
    kwargs = config["options"].get("policy_kwargs")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise DamagedFile(config_path, f"has options.policy_kwargs of {type(kwargs).__name__}, not an object of "
                          "the policy's keyword arguments", remedy)
    problem = option_out_of_bounds(kwargs or {}, "options.policy_kwargs", "the bounds of a policy's options "
                                   "(those of `leaderboard retrain`)")
    if problem:
        raise DamagedFile(config_path, problem, remedy)


def check_build(run: TrainedRun) -> None:
    """The run's recorded policy name and options, read as its rebuild reads them (no policy is built):
    one line naming config.json when they cannot be. Before: ``"lr": NaN`` or an unknown option was an
    error naming no file, after the evaluation's folder was made."""
    from searchgym.harness.preflight import check_policy

    if run.is_llm:
        from searchgym.harness.llm_run_agent import check_base_model, check_machine

        check_base_model(run)  # first: a moved model is named as such, not as a config that cannot be built
        check_machine(_recorded_config(run))
        return
    kwargs = run.config["options"].get("policy_kwargs") or {}
    missing = missing_policy_folder(run.config, run.config["policy"], kwargs)
    if missing:  # before its build: the loader's own words name no run
        raise ValueError(f"{run.folder} is a run whose policy cannot be built: {missing}")
    try:
        check_policy(run.config["policy"])
        from searchgym.agents.policy import check_policy_kwarg_types

        check_policy_kwarg_types(run.config["policy"], kwargs)  # "false" for a switch: not the run it says
        ctx = run.context("cpu")
        if run.is_sft:
            from searchgym.agents.policy_actor import DECODINGS
            from searchgym.harness.sft import policy_kwargs_of, sft_config

            sft_config(ctx.options)
            policy_kwargs_of(ctx.options)
            if ctx.options.get("decoding", "sample") not in DECODINGS:
                raise ValueError(f"unknown decoding {ctx.options['decoding']!r}; accepted: {', '.join(DECODINGS)}")
        else:
            from searchgym.harness.method_specs import build_config
            from searchgym.method_table import METHOD_SPECS

            spec = METHOD_SPECS[run.spec_name]
            build_config(spec, ctx, load_callable(spec.trainer, f"trainer of {spec.name}"))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, DamagedFile):
            raise
        raise DamagedFile(run.folder / CONFIG, f"records a policy its method cannot build ({exc})",
                          UNPLAYABLE) from None


def check_options(options: dict[str, Any]) -> TrainedRun:
    """Before any folder is made: ``path=`` names a run whose policy can be rebuilt (the checkpoint or
    base is read too, so that a damaged one is refused now, not inside the evaluation); returns it."""
    if "path" not in options:
        raise ValueError("needs --agent-option path=RUN_FOLDER (a run folder of searchgym train or compare)")
    from searchgym.agents.policy_actor import DECODINGS

    if options.get("decoding") is not None and options["decoding"] not in DECODINGS:
        raise ValueError(f"decoding must be one of {', '.join(DECODINGS)} (or left out: the run's own), "
                         f"got {options['decoding']!r}")
    run = read_run(options["path"])
    check_build(run)
    if run.is_sft:
        find_base(run.folder, run.config, UNPLAYABLE)
    else:
        played_checkpoint(run)  # kept for the rebuild: a damaged or another run's one is refused now
    return run


def _trainer_cls(run: TrainedRun) -> type:
    if run.is_llm:
        from searchgym.agents.llm_train import LLMTrainer

        return LLMTrainer
    from searchgym.method_table import METHOD_SPECS

    spec = METHOD_SPECS[run.spec_name]
    return load_callable(spec.trainer, f"trainer of {spec.name}")


def _recorded_config(run: TrainedRun, device: str = "cpu") -> Any:
    """The trainer config config.json records (what the checkpoint must have been trained with)."""
    if run.is_llm:
        from searchgym.harness.llm_run_agent import recorded_config

        return recorded_config(run, run.folder / CONFIG, UNPLAYABLE, device)
    from searchgym.harness.method_specs import build_config
    from searchgym.method_table import METHOD_SPECS

    return build_config(METHOD_SPECS[run.spec_name], run.context(device), _trainer_cls(run))


def played_checkpoint(run: TrainedRun, recorded: Any = None, keep: bool = True) -> ReadCheckpoint:
    """The run's checkpoint (its dict and the SHA-256 of its bytes), read once per
    command with the keys and cap its trainer reads it with, so refused in the trainer's words (past
    its size, a key no trainer writes) before any policy is built; then checked to be a trainer's
    checkpoint of config.json's run (``recorded``: its trainer config). ``keep=False``: the last use."""
    path = run.folder / CHECKPOINT
    refuse_linked(path, UNPLAYABLE)  # before its config is built (read_once opens it without following one)
    recorded = _recorded_config(run) if recorded is None else recorded
    read = read_once(path, *checkpoint_limits(recorded, _trainer_cls(run)), UNPLAYABLE, keep)
    if run.is_llm:
        from searchgym.harness.llm_run_agent import missing_weights

        missing = missing_weights(read.blob)
        if missing:
            raise DamagedFile(path, missing, UNPLAYABLE)
    lacks = [k for k in (("state",) if run.is_llm else ("population", "state")) if k not in read.blob]
    if lacks:
        raise DamagedFile(path, f"is not a trainer's checkpoint (no {', '.join(lacks)})", UNPLAYABLE)
    # another run's checkpoint: refused before the evaluation's folder is made
    check_same_run(run, read.blob.get("config"), recorded)
    return read


def check_same_run(run: TrainedRun, recorded: Any, config: Any) -> None:
    """DamagedFile when the checkpoint records another run's training settings than config.json's. Why: a
    checkpoint of another lr or policy (of the same shape) was played, and the evaluation recorded it as
    config.json's run (``played_run``). The seed is left out: config.json's seed is the evaluation's,
    and an edited one plays (tests/commands/test_evaluate_run_agent.py)."""
    from searchgym.agents.trainer_base import other_run

    differ = other_run(recorded, {k: v for k, v in dataclasses.asdict(config).items() if k != "seed"}, fields=None)
    if differ:
        raise DamagedFile(run.folder / CHECKPOINT, f"was written by another run than {CONFIG} records "
                          f"({'; '.join(differ[:6])})", UNPLAYABLE)


def check_suite(run: TrainedRun, suite: Suite) -> None:
    """Refuse an evaluation suite the run's policy cannot act in (another env kind or action mode, or
    a team with an agent the run trained no policy for: :mod:`searchgym.harness.run_team_agents`)."""
    theirs, mine = (env_kind(run.suite), observation_kind(run.suite)), (env_kind(suite), observation_kind(suite))
    if theirs != mine:
        raise ValueError(f"{run.folder} trained on {run.suite.env_id} ({theirs[0]}-agent, {theirs[1]} actions); "
                         f"suite {suite.id} is {suite.env_id} ({mine[0]}-agent, {mine[1]} actions): its policy "
                         "cannot act there; choose a suite of the same kind")
    if mine[0] == "parallel" and not run.is_sft:  # an sft run's base is one shared policy
        from searchgym.harness.run_team_agents import check_team_agents

        check_team_agents(run.folder, run.suite, suite, _recorded_config(run))


def rebuild(run: TrainedRun, device: str) -> tuple[Any, list[str] | None, str]:
    """(population, agent names or None, decoding) of the run's trained policy; nothing is trained."""
    ctx = run.context(device)
    if run.is_sft:
        from searchgym.harness.sft import base_population, policy_kwargs_of

        kwargs = policy_kwargs_of(ctx.options)
        ctx.options["policy_kwargs"] = located_policy_kwargs(run.config, ctx.policy, kwargs)  # as below
        population, agents = base_population(ctx, {"path": str(find_base(run.folder, run.config, UNPLAYABLE))})
        return population, agents, str(ctx.options.get("decoding", "sample"))
    trainer_cls = _trainer_cls(run)
    config = recorded = _recorded_config(run, device)
    read = played_checkpoint(run, recorded, keep=False)  # what check_options read, before the trainer is built
    if config.init == "sft":  # the checkpoint holds every weight: the base is not needed to rebuild
        config = dataclasses.replace(config, init="scratch", init_checkpoint=None, rl_fresh_tasks=False)
    # each folder its policy loads where the run recorded it: a relative one is found from any folder
    config = dataclasses.replace(config, policy_kwargs=located_policy_kwargs(run.config, config.policy,
                                                                             config.policy_kwargs))
    try:
        trainer = trainer_cls(config, out_dir=None, log=ctx.log)  # no folder: it writes nothing, resumes nothing
    except (TypeError, ValueError) as exc:  # Before: policy_kwargs its encoder refused named no file
        if isinstance(exc, DamagedFile):
            raise
        raise DamagedFile(run.folder / CONFIG, f"records a policy its method cannot build ({exc})",
                          UNPLAYABLE) from None
    path = run.folder / CHECKPOINT
    try:
        trainer.load_checkpoint(path, read.blob)
    except DamagedFile as exc:
        raise DamagedFile(path, exc.what, UNPLAYABLE) from None
    agents = list(trainer.env.possible_agents) if trainer.kind == "parallel" else None
    return trainer.population, agents, config.decoding


def provider(ctx: RunContext, path: str, decoding: str | None = None) -> Any:
    """The policy trained in the run folder ``path``, playing the evaluation's suite with its seed;
    ``decoding`` (sample or greedy): how it picks actions (default: as the run did)."""
    from searchgym.agents.policy_actor import PolicyActor

    run = read_run(path)
    check_suite(run, ctx.suite)
    if run.is_llm:
        actor = rebuild_llm(run, ctx.device, ctx.seed, decoding)
    else:
        population, agents, recorded = rebuild(run, ctx.device)
        decoding = recorded if decoding is None else decoding
        actor = PolicyActor(population, agents, decoding=decoding, seed=ctx.seed)
    ctx.records["played_run"] = {"path": str(run.folder.resolve()), "method": run.config["method"],
                                 "seed": run.config["seed"], "suite_id": run.suite.id,
                                 "finished": is_done(run.folder)}  # else its last checkpoint
    return actor


def unfinished_note(run: TrainedRun) -> str | None:
    """The line said before an unfinished run (no DONE) is played, None for a finished one. Why: its last
    checkpoint was scored silently, only the evaluation's config.json said ``"finished": false``."""
    if is_done(run.folder):
        return None
    head = f"{run.folder} is unfinished (no DONE marker): scoring its"
    if run.is_sft:
        return f"{head} supervised base"
    state = played_checkpoint(run).blob.get("state")  # read already (check_options): not read again
    steps = state.get("env_steps") if isinstance(state, dict) else None
    if not isinstance(steps, int) or isinstance(steps, bool):
        return f"{head} last checkpoint"
    return f"{head} last checkpoint ({steps} env steps of {run.config['budget']})"


def rebuild_llm(run: TrainedRun, device: str, seed: int, decoding: str | None) -> Any:
    """An LLM-policy run's trained model, playing greedily as the run's test split was played
    (``decoding="sample"``: with the run's temperature and top_p); nothing is trained."""
    from searchgym.harness.llm_run_agent import llm_actor, played_model

    config = _recorded_config(run, device)
    read = played_checkpoint(run, config, keep=False)  # what check_options read, before the model is loaded
    return llm_actor(config, played_model(run), run.folder / CHECKPOINT, read.blob, seed, decoding != "sample",
                     UNPLAYABLE)


provider.check_options = check_options  # type: ignore[attr-defined]
