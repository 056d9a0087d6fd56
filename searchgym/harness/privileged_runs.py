"""Which runs read what no agent sees, judged from what a run folder records: one rule for the
harness's tables (``results.md``, ``report``), its plots and the leaderboard's rows.

Why a rule over the whole config and not only the method's ``privileged`` flag: ``searchgym
evaluate --agent oracle`` runs the oracle through the generic agent method, whose flag is False,
and a run against ``searchgym serve``'s scripted endpoint replays the oracle's actions through the
``openai`` agent; both were shown at 1.000 unmarked beside agents that read only the conversation.
The endpoint is known by what its replies said (``result.json["endpoint"]``), not only by the run's
options, so callers that have a run's ``result.json`` pass its ``endpoint`` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from searchgym.endpoint.scripted_identity import replays_oracle
from searchgym.harness.methods import AGENT_METHOD, AGENT_PROVIDERS, BASELINE_METHODS, PRIVILEGED_METHOD_NAMES

#: A model name starting so is a run against the scripted endpoint (the shipped rows record
#: ``--model scripted-oracle``); the server's own name (``GET /v1/models``) is ``searchgym-scripted``.
SCRIPTED_MODEL_PREFIX = "scripted-"
#: Import paths of the privileged methods (the oracle as a method and as an ``evaluate`` agent).
PRIVILEGED_PATHS = frozenset({*(BASELINE_METHODS[n] for n in PRIVILEGED_METHOD_NAMES if n in BASELINE_METHODS),
                              *(AGENT_PROVIDERS[n] for n in PRIVILEGED_METHOD_NAMES if n in AGENT_PROVIDERS)})

#: What results.md says of a base fitted to imitate the oracle, and of the runs started from it.
IMITATED_NOTE = ("is, or started from, a supervised base fitted to imitate the privileged oracle "
                 "(sft_demonstrator=oracle): it learned from the task's gold evidence chain")


def as_mapping(value: Any) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one (a recorded field may be damaged)."""
    return value if isinstance(value, Mapping) else {}


def served_behaviours(run: Mapping[str, Any], endpoint: Any = None) -> list[Any] | None:
    """The scripted endpoint's behaviours the run's replies named (``endpoint``: the run's
    ``result.json["endpoint"]``, else the ``endpoint`` a submission's run block copied from it), or None
    when they named none: another server, or a run made before replies were recorded."""
    behaviours = as_mapping(endpoint if endpoint is not None else run.get("endpoint")).get("scripted")
    return behaviours if isinstance(behaviours, list) and behaviours else None


def scripted_model_name(run: Mapping[str, Any]) -> bool:
    """Whether the run's recorded model name is the scripted endpoint's (``scripted-*``, its own name)."""
    from searchgym.endpoint.scripted_endpoint import DEFAULT_MODEL

    model = as_mapping(as_mapping(run.get("options")).get("agent_options")).get("model")
    return isinstance(model, str) and (model == DEFAULT_MODEL or model.casefold().startswith(SCRIPTED_MODEL_PREFIX))


def used_scripted_endpoint(run: Mapping[str, Any], endpoint: Any = None) -> bool:
    """Whether the run's agent was played by the scripted endpoint replaying the oracle: as its replies
    said (:func:`served_behaviours`), else by the model name the run recorded. Why the replies decide
    where they named a behaviour: the server answers any model name (``--model oracle`` went on the
    board unmarked, ``--model scripted-random`` was marked though the random baseline played); a run
    made before replies were recorded has only its name, which says no behaviour (the default replays
    the oracle)."""
    behaviours = served_behaviours(run, endpoint)
    return replays_oracle(behaviours) if behaviours is not None else scripted_model_name(run)


def imitated_oracle(run: Mapping[str, Any]) -> bool:
    """Whether the run is a supervised base, or starts from one, fitted to imitate the oracle
    (``sft_demonstrator=oracle``), by its options or the base it recorded. Why: such a base learned from
    the gold evidence chain, and its ``sft`` row and the RL runs from it were shown unmarked."""
    options = as_mapping(run.get("options"))
    settings = as_mapping(as_mapping(run.get("base")).get("settings"))
    if settings.get("sft_demonstrator") == "oracle":
        return True
    uses_base = run.get("method_path") == BASELINE_METHODS["sft"] or options.get("init", options.get("train.init")) == "sft"
    demonstrator = options.get("sft_demonstrator", options.get("sft.sft_demonstrator"))
    return uses_base and demonstrator == "oracle"


def run_reads_private_state(run: Mapping[str, Any], endpoint: Any = None) -> bool:
    """Whether a run (its ``config.json``, with ``endpoint`` its ``result.json["endpoint"]``, or a
    submission's ``run`` block) reads private state: its method is privileged, or it is the oracle
    evaluated as an agent (by name or import path), or the scripted endpoint replaying the oracle
    played its agent, or it is (or starts from) a base that imitated the oracle. An evaluated agent's
    recorded ``privileged`` flag yields to the behaviours its replies named: an older run's flag was
    set from its model name before any reply came."""
    if imitated_oracle(run):
        return True
    path = run.get("method_path")
    if path in PRIVILEGED_PATHS or (isinstance(path, str) and path.endswith(":oracle_method")):
        return True
    agent = as_mapping(run.get("options")).get("agent")
    if isinstance(agent, str) and (agent.casefold() in PRIVILEGED_METHOD_NAMES or agent in PRIVILEGED_PATHS):
        return True
    if path == AGENT_METHOD and served_behaviours(run, endpoint) is not None:
        return used_scripted_endpoint(run, endpoint)  # the agent method's flag was its model name's guess
    return run.get("privileged") is True or used_scripted_endpoint(run, endpoint)
