"""The method registry and the protocol every method follows (built-in, learned, or a user's).

**A method** is a callable ``method(ctx: RunContext) -> Actor`` found by an import path
``"package.module:callable"``. :data:`METHODS` names the built-in ones; on the command line
``--methods cw_grpo,random,mypkg.mod:factory,mine=mypkg.mod:factory`` mixes names, import
paths and ``label=path`` pairs. A labelled entry may carry options of its own, over the
comparison's ``--option`` ones: ``grpo_team=grpo[group_by=team;lr=0.001]`` (so one comparison
can run a method twice with different options). The harness calls it once per (method, seed) run, in a worker
process, then evaluates the returned actor on the suite's test split.

**RunContext** (what a method receives; see the dataclass below): ``suite`` (a
:class:`searchgym.suites.Suite`), ``seed`` (int: seed every generator of the run from it),
``budget`` (training budget in env steps: every agent action counts, so one ``step`` of a
parallel env with K live agents spends K; evaluation is not counted), ``device``
("cpu", "cuda" or "cuda:N", already resolved from "auto"), ``run_dir`` (a ``pathlib.Path``
owned by this run; keep checkpoints under ``ctx.checkpoint_dir``; **if a checkpoint is there,
resume from it**: the run was interrupted and is being re-run), ``policy`` (the policy backbone,
default "hash"), ``log(row)`` (appends a row to ``metrics.jsonl``), ``progress`` (True when
the method may draw its own progress bar), ``threads`` (CPU threads this run may use),
``options`` (free-form method options, a dict), ``bases_dir`` (the comparison's folder of
supervised bases, shared by its runs: ``searchgym.harness.sft``), ``records`` (a dict the run's
``config.json`` gets once the method returns: what the run started from). Helpers: ``ctx.make_env(split)``,
``ctx.tasks(split)``, ``ctx.evaluate(actor, split="dev")`` -> ``{"success", "f1", "n", ...}``,
``ctx.rng()``.

**Metrics rows** (``ctx.log(row)``): a dict of JSON values; curves read ``"step"`` (env steps consumed
so far, >= 0, never below the previous row's) and ``"dev_success"`` (in [0, 1], success on ``ctx.tasks("dev")``,
e.g. ``ctx.evaluate(actor, "dev")``); a row that breaks these is refused (:mod:`~.metrics_rows`). Add
anything else (``dev_f1``, ``loss``, ``entropy``, ``advantage_mean`` ...). The harness adds
``time`` (seconds since the run started) and ``attempt`` (1 for the first try, 2 after a
resume...). When a resumed run logs a step again, the last row for that step wins.

**Actor** (what a method returns; used for evaluation only):

- single-agent suites (Gymnasium env): ``actor.act(env, observation, info) -> action``
  (``env.unwrapped.session`` is the live :class:`SearchSession` if the actor wants it);
- parallel suites (PettingZoo ParallelEnv): ``actor.act(env, observations: dict,
  infos: dict) -> dict[agent, action]`` for the agents in ``observations`` (the live ones);
- optional ``actor.reset()``: called after each ``env.reset`` (per-episode state);
- optional ``actor.turn_limit`` (an int): the evaluation env ends each episode after that many steps
  (a team's: rounds), or at the suite's own limit where lower (:func:`~.evaluate.evaluation_env`);
- a single-agent actor may return :class:`~searchgym.action_types.EndEpisode` (also exported by `.evaluate`) to end its episode unanswered.

Random, reader and oracle train nothing (``trains = False`` on the callable: the budget is ignored
and recorded as 0). The oracle is privileged (``privileged = True``: it reads the task's gold
evidence): reports mark it so; random and the reader read only what an agent sees.
"""

from __future__ import annotations

import importlib
import inspect
import multiprocessing
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from searchgym.baselines.harness_actors import baseline_actor
from searchgym.harness.method_entries import check_label, split_entries, split_options
from searchgym.harness.option_defaults import reader_option_defaults
from searchgym.harness.user_agent import UserActor, raised
from searchgym.method_table import METHOD_SPECS
from searchgym.named_registry import IMPORT_PATH, NamedRegistry, UnknownNameError
from searchgym.suites import Suite, env_kind, make_env, tasks

#: The built-in methods that are not learning methods: name -> "module:callable" (lazy).
BASELINE_METHODS: NamedRegistry[str] = NamedRegistry("method")
for _name, _path in (("random", "searchgym.harness.methods:random_method"),
                     ("reader", "searchgym.harness.methods:reader_method"),
                     ("oracle", "searchgym.harness.methods:oracle_method"),
                     ("sft", "searchgym.harness.sft:sft_method")):
    BASELINE_METHODS.add(_name, _path)
#: Where ``--methods NAME`` of a learning method leads: the spec's harness callable.
SPEC_METHOD_PREFIX = "searchgym.harness.method_specs:"


class MethodPaths(Mapping[str, str]):
    """Every built-in method name -> "module:callable": the baselines, then every record of the
    one method table (:data:`searchgym.method_table.METHOD_SPECS`), read afresh on each use."""

    def __getitem__(self, name: str) -> str:
        if name in BASELINE_METHODS:
            return BASELINE_METHODS[name]
        if name in METHOD_SPECS:
            return SPEC_METHOD_PREFIX + name
        raise UnknownNameError(f"unknown method {name!r}; accepted: {', '.join(self)}")

    def __iter__(self) -> Iterator[str]:
        return iter((*BASELINE_METHODS.names, *METHOD_SPECS.names))

    def __len__(self) -> int:
        return len(BASELINE_METHODS) + len(METHOD_SPECS)


#: name -> "module:callable" of every built-in method (a live view; see :class:`MethodPaths`).
METHODS = MethodPaths()

#: Named agent providers for ``searchgym evaluate --agent NAME``: name -> "module:callable",
#: called as ``provider(ctx: RunContext, **options) -> Actor``. (An ``--agent module:factory``
#: is called as ``factory(**options)``.) The OpenAI-compatible endpoint agent is ``"openai"``
#: (``searchgym.endpoint.openai_agent:provider``); ``"run"`` plays the policy trained in a run folder
#: (``searchgym.harness.run_agent:provider``, ``--agent-option path=RUN_FOLDER``).
AGENT_PROVIDERS: NamedRegistry[str] = NamedRegistry("agent provider")
for _name in ("random", "reader", "oracle"):  # the baseline methods are providers as they are
    AGENT_PROVIDERS.add(_name, BASELINE_METHODS[_name])
AGENT_PROVIDERS.add("openai", "searchgym.endpoint.openai_agent:provider")
AGENT_PROVIDERS.add("run", "searchgym.harness.run_agent:provider")  # a trained run folder's policy (path=)



class Actor(Protocol):
    def act(self, env: Any, observation: Any, info: Any) -> Any: ...


@dataclass
class RunContext:
    """What a method receives (see the module docstring for the contract of every field)."""

    suite: Suite
    seed: int
    budget: int
    device: str
    run_dir: Path
    policy: str = "hash"
    log: Callable[[dict], None] = print
    progress: bool = False
    threads: int = 1
    options: dict[str, Any] = field(default_factory=dict)
    eval_limit: int | None = None  # the run scores only the first N tasks of test and dev (None: all)
    bases_dir: Path | None = None  # supervised bases shared by a comparison's runs (None: under run_dir)
    records: dict[str, Any] = field(default_factory=dict)  # added to the run's config.json (e.g. the base used)

    @property
    def checkpoint_dir(self) -> Path:
        path = Path(self.run_dir) / "checkpoint"
        path.mkdir(parents=True, exist_ok=True)
        return path

    @property
    def env_kind(self) -> str:
        return env_kind(self.suite)

    def make_env(self, split: str = "train", **overrides: Any):
        return make_env(self.suite, split, **overrides)

    def tasks(self, split: str = "train"):
        return tasks(self.suite, split)

    def rng(self, offset: int = 0) -> np.random.Generator:
        return np.random.default_rng([self.seed, offset])

    def evaluate(self, actor: Any, split: str = "dev", limit: int | None = None) -> dict[str, float]:
        """Success, F1, steps and tool calls of ``actor`` on the suite's ``split`` (all families)."""
        from searchgym.harness.evaluate import evaluate_suite, summarise_predictions

        predictions = evaluate_suite(self.suite, actor, split=split, seed=self.seed, limit=limit)
        return summarise_predictions(predictions)["all"]


# ---------------------------------------------------------------------------- registry
@dataclass(frozen=True)
class MethodRef:
    """A resolved ``--methods`` entry: the label (folder name) and the import path."""

    label: str
    path: str
    options: tuple[tuple[str, Any], ...] = ()  # this entry's own options, over the comparison's


def resolve_method(entry: str) -> MethodRef:
    """``"name"`` (from METHODS), ``"module:callable"`` or ``"label=module:callable"``, the labelled
    forms optionally followed by ``[key=value;...]`` (options of this entry only)."""
    entry, options = split_options(entry.strip())
    label, _, path = entry.rpartition("=") if "=" in entry else ("", "", entry)
    if "=" in entry and not label.strip():  # before: '=grpo' ran as 'grpo', a typo taken silently
        raise ValueError(f"method entry {entry!r} has an empty label; write label=method, or the method alone")
    if label and label != path and label in METHODS:  # before: 'random=grpo' reported a trained GRPO as random
        raise ValueError(f"method label {label!r} is the name of the built-in method {label}, and would report "
                         f"{path} as it; choose another label")
    if path in METHODS:
        return MethodRef(check_label(label or path), METHODS[path], options)
    if not IMPORT_PATH.match(path):
        raise ValueError(f"unknown method {entry!r}; built-in methods: {', '.join(METHODS)}; "
                         f"or give an import path 'package.module:callable' (optionally 'label=package.module:callable')")
    return MethodRef(check_label(label or path.replace(":", ".")), path, options)


def parse_methods(text: str | list[str]) -> list[MethodRef]:
    entries = split_entries(text) if isinstance(text, str) else list(text)
    refs = [resolve_method(e) for e in entries if e.strip()]
    if not refs:
        raise ValueError("no methods given; e.g. --methods random,oracle")
    labels = [r.label for r in refs]
    duplicated = sorted({x for x in labels if labels.count(x) > 1})
    if duplicated:
        raise ValueError(f"method labels must be unique, repeated: {', '.join(duplicated)}")
    return refs


def load_callable(path: str, what: str = "method") -> Callable[..., Any]:
    """Import ``module:callable`` with an error that says what failed and what is expected."""
    module_name, _, attr = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"{what} {path!r} cannot be imported ({exc}); is the module written and installed?") from exc
    target = getattr(module, attr, None)
    if target is None or not callable(target):
        raise ValueError(f"{what} {path!r}: module {module_name!r} has no callable {attr!r}")
    return target


def load_method(ref: MethodRef | str) -> Callable[[RunContext], Any]:
    ref = resolve_method(ref) if isinstance(ref, str) else ref
    spec_name = ref.path.removeprefix(SPEC_METHOD_PREFIX)
    if ref.path.startswith(SPEC_METHOD_PREFIX) and spec_name not in METHOD_SPECS and in_worker_process():
        raise ValueError(f"method {ref.label!r}: the spec {spec_name!r} is registered in the parent process "
                         "only; a worker process imports searchgym, the top level of the script and the modules "
                         "named in SEARCHGYM_PLUGINS: call register_spec at the top level of the script (not under "
                         "`if __name__ == \"__main__\":`) or in a module named in SEARCHGYM_PLUGINS")
    method = load_callable(ref.path, f"method {ref.label!r} ->")
    try:
        inspect.signature(method).bind(None)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"method {ref.label!r} ({ref.path}) must accept one argument, a RunContext") from exc
    return method


def in_worker_process() -> bool:
    """Whether this process was started by multiprocessing (a comparison's worker)."""
    return multiprocessing.parent_process() is not None


def trains(method: Callable[..., Any]) -> bool:
    return bool(getattr(method, "trains", True))


def spends_budget(method: Callable[..., Any]) -> bool:
    """Whether the method trains on the run's env-step budget (``spends_budget = False`` on the callable
    says it does not: the supervised base fits demonstrations and records what they took as its
    ``training_budget``). Every method that trains does, unless it says otherwise."""
    return bool(getattr(method, "spends_budget", trains(method)))


#: What a privileged method reads that no agent sees; tables, plots and the leaderboard mark it.
PRIVILEGED_NOTE = "reads the task's gold evidence chain: an upper bound, not an agent"
#: Method names marked privileged where only a name is known (leaderboard submissions).
PRIVILEGED_METHOD_NAMES = frozenset({"oracle"})


def privileged(method: Callable[..., Any]) -> bool:
    """True for a method that reads private state (the oracle): ``privileged = True`` on the callable."""
    return bool(getattr(method, "privileged", False))


def shown_label(label: str, privileged_labels: Collection[str] = ()) -> str:
    """A method's label as tables and legends show it: "oracle (privileged)" when it reads the task."""
    return f"{label} (privileged)" if label in privileged_labels else label


# ------------------------------------------------------------------- built-in baselines
def random_method(ctx: RunContext) -> Any:
    """Uniform over admissible actions; trains nothing."""
    return baseline_actor("random", ctx.suite, ctx.seed)


def oracle_method(ctx: RunContext) -> Any:
    """Follows the gold evidence chain through the tools; trains nothing."""
    return baseline_actor("oracle", ctx.suite, ctx.seed)


#: The reader's options (its keyword parameters below), and all of a comparison's options it reads.
READER_OPTIONS = ("lookup_order", "rotate_in_team")


def reader_method(ctx: RunContext, lookup_order: Any = None, rotate_in_team: Any = None) -> Any:
    """Reads the question, the transcript and the candidates (not the task); trains nothing. In a
    text-mode suite it writes the same plan as tool calls (:mod:`searchgym.baselines.reader_text`).

    Options (``--option`` or ``--agent-option``; its keyword parameters are the options it takes):
    ``lookup_order`` (tools tried for a missing fact, comma-separated; default
    ``knowledge_base,web_search``), ``rotate_in_team`` (true or false; default true).
    """
    from searchgym.baselines.reader import ReaderActor
    from searchgym.baselines.reader_text import ReaderTextActor
    from searchgym.registry import spec

    given = {"lookup_order": lookup_order, "rotate_in_team": rotate_in_team}
    policy = reader_policy({**ctx.options, **{k: v for k, v in given.items() if v is not None}})
    settings = {**spec(ctx.suite.env_id).kwargs, **ctx.suite.kwargs}
    if settings.get("action_mode", "text") == "text":
        return ReaderTextActor(settings.get("tool_format", "hermes"), policy)
    return ReaderActor(policy)


def reader_policy(options: Mapping[str, Any]) -> Any:
    """The reader's policy from the reader's options among ``options`` (a comparison's may hold a
    learner's too); a bad value is an error naming the option."""
    from searchgym.baselines.reader import ReaderPolicy

    return ReaderPolicy(**{k: options[k] for k in READER_OPTIONS if options.get(k) is not None})


def reads_no_option(option: str) -> bool:
    """What random and the oracle read of a comparison's options: none (they are the learners')."""
    return False


def reader_reads(option: str) -> bool:
    """Whether the reader reads ``option``: its own two, never a learner's."""
    return option in READER_OPTIONS


random_method.trains = False  # type: ignore[attr-defined]
oracle_method.trains = False  # type: ignore[attr-defined]
oracle_method.privileged = True  # type: ignore[attr-defined]
reader_method.trains = False  # type: ignore[attr-defined]
reader_method.check_options = reader_policy  # type: ignore[attr-defined]  # preflight checks values with it
reader_method.option_defaults = reader_option_defaults  # type: ignore[attr-defined]  # at them: the same run
# A run is told apart only by what its method reads (identity_reads): a baseline's run records the comparison's
# learner options and --policy, and was "a different run" for `--methods random` alone in make main's folder.
for _baseline, _reads in ((random_method, reads_no_option), (oracle_method, reads_no_option),
                          (reader_method, reader_reads)):
    _baseline.reads_option = _reads  # type: ignore[attr-defined]
    _baseline.reads_policy = False  # type: ignore[attr-defined]


def resolve_agent(agent: str) -> Callable[..., Any]:
    """The provider (named) or factory (import path) of ``--agent``, with a clear error."""
    if agent in AGENT_PROVIDERS:
        return load_callable(AGENT_PROVIDERS[agent], "agent provider")
    if not IMPORT_PATH.match(agent):
        raise ValueError(f"unknown agent {agent!r}; named agents: {', '.join(AGENT_PROVIDERS)}; "
                         "or an import path 'package.module:factory' (factory() returns an Actor)")
    return load_callable(agent, "agent factory")


def check_agent_options(agent: str, options: Mapping[str, Any]) -> None:
    """Refuse options that the provider or factory of ``agent`` cannot take, before any run folder
    is made: inside the run the error is "got an unexpected keyword argument", and the folder it
    leaves holds a different run than the corrected command's."""
    make = resolve_agent(agent)
    try:
        signature = inspect.signature(make)
    except (TypeError, ValueError):  # a builtin or C callable: nothing to read
        return
    named = [p.name for p in signature.parameters.values()
             if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]
    provider = agent in AGENT_PROVIDERS
    try:
        signature.bind(None, **options) if provider else signature.bind(**options)
        if provider and hasattr(make, "check_options"):  # the values too (the reader's lookup_order ...)
            make.check_options(options)
    except TypeError as exc:
        accepted = ", ".join(named[1:] if provider else named) or "no options"
        raise ValueError(f"--agent {agent}: {exc} (from --agent-option or the endpoint flags); "
                         f"it accepts: {accepted}") from None
    except ValueError as exc:
        raise ValueError(f"--agent {agent}: {exc}") from None


def agent_method(ctx: RunContext) -> Any:
    """A method that trains nothing and returns an agent made elsewhere (``searchgym evaluate``).

    ``ctx.options``: ``agent`` (a name in :data:`AGENT_PROVIDERS` or ``module:factory``) and
    ``agent_options`` (a dict of keyword arguments for it).
    """
    agent = str(ctx.options.get("agent", ""))
    options = dict(ctx.options.get("agent_options") or {})
    make = resolve_agent(agent)
    if agent in AGENT_PROVIDERS:
        return make(ctx, **options)
    try:
        actor = make(**options)
    except Exception as exc:  # the user's code: one error line naming it and where it failed, not our stack
        raise ValueError(f"--agent {agent}: the factory raised {raised(exc)}") from exc
    return UserActor(actor, agent) if callable(getattr(actor, "act", None)) else actor


agent_method.trains = False  # type: ignore[attr-defined]
#: The method path ``searchgym evaluate`` records in its run folders (an agent made elsewhere; nothing trained).
AGENT_METHOD = f"{__name__}:agent_method"

