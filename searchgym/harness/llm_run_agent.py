"""``searchgym evaluate --agent run`` on an LLM-policy run (``searchgym train --policy llm``, or the
``llm_method`` of ``searchgym compare``): its trained model played in-process.

Why in-process: such a run folder holds the trained weights in its checkpoint (``models``), not a
model folder a server could load, and ``train`` itself plays the trained model on its test split at
its end. Here the same is done on the evaluation's suite, seed and limit: the run's LLM config is
rebuilt as :func:`~searchgym.harness.llm_method.harness_method` built it, the base model it names is
loaded as the trainer loads it (a trainer built with no output folder: it writes and resumes
nothing), the checkpoint's weights (read once by :mod:`searchgym.harness.run_agent`, with
``weights_only=True`` and the trainer's cap and keys) are put in, and it plays with the run's
rollout settings (its turn and token limits, guided decoding when the run used it), greedy as the
run's own test split was played. :mod:`searchgym.harness.run_agent` calls in here; nothing here
reads its modules.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from searchgym.damaged import DamagedFile
from searchgym.harness.model_folder_record import located_model

#: What a run trains where its options name no model (``llm_method.DEFAULT_MODEL``).
DEFAULT_MODEL = "random:tiny"


def llm_options(run: Any) -> dict[str, Any]:
    """The LLM config's fields config.json records: ``llm_config`` (``train --policy llm``), or the flat
    options of a comparison's method (``model``, ``method`` and the keys of ``OPTIONAL_ARGS``)."""
    options = run.config["options"]
    nested = options.get("llm_config")
    return nested if isinstance(nested, dict) else options


def recorded_model(run: Any) -> str:
    """The model the run's options name, as given (what its checkpoint records)."""
    model = llm_options(run).get("model") or DEFAULT_MODEL
    return model if isinstance(model, str) else DEFAULT_MODEL  # not a string: the config's own check names it


def played_model(run: Any) -> str:
    """The model to load: where the run recorded its folder (a relative ``--model`` is found from any
    folder), else as its options name it (:mod:`searchgym.harness.model_folder_record`)."""
    return located_model(run.config, recorded_model(run))


def check_base_model(run: Any) -> None:
    """One line when the base model the run trained is not there to load. Why one line of its own:
    the checkpoint holds the trained weights, not the model's config and tokenizer, and the loader's
    own words ("--model ... give the model's folder") do not say which run needs it."""
    from searchgym.agents.llm_policy import PRESETS
    from searchgym.agents.model_source import check_model_source

    if not isinstance(llm_options(run).get("model") or DEFAULT_MODEL, str):
        return  # the config's own check names it (recorded_config)
    model = played_model(run)
    try:
        check_model_source(model, option="its base model", presets=tuple(PRESETS))
    except ValueError as exc:
        if Path(model).expanduser().exists():
            raise ValueError(f"{run.folder} is an LLM-policy run whose base model cannot be loaded: {exc}") from None
        given = recorded_model(run)
        remedy = (f"put the model back at {model} (where --model {given!r} named it when the run trained), or run "
                  f"this from a folder holding {given!r}" if model != given else "put the model back where "
                  "config.json names it (a relative path is read from the current folder)")
        raise ValueError(f"{run.folder} is an LLM-policy run whose base model {model!r} is missing (no such folder, "
                         "nor a Hugging Face id in the local cache); its checkpoint holds the trained weights, not "
                         f"the model's config and tokenizer: {remedy}") from None


def recorded_config(run: Any, config_path: Path, remedy: str, device: str = "cpu") -> Any:
    """The LLMTrainConfig the run trained with (what its checkpoint records), from config.json's
    options, suite, budget and seed; a DamagedFile naming config.json when it cannot be built."""
    from searchgym.harness.llm_method import suite_config

    options, model = dict(run.config["options"]), played_model(run)
    located = "llm_config" not in options and model != recorded_model(run)
    if located:  # the flat options' build checks that its model is here: the folder it trained from
        options["model"] = model
    try:
        config = suite_config(run.suite, options)
    except (TypeError, ValueError) as exc:
        if isinstance(exc, DamagedFile):
            raise
        raise DamagedFile(config_path, f"records an LLM policy its trainer cannot build ({exc})", remedy) from None
    config.budget, config.seed, config.device = run.config["budget"], run.config["seed"], device
    if located:
        config.model = recorded_model(run)  # as its checkpoint records it (the actor loads played_model)
    return config


def check_machine(config: Any) -> None:
    """What this machine must have to play it (vLLM for a run generated with it)."""
    from searchgym.agents.llm_run_checks import check_generation_backend

    check_generation_backend(config)


def missing_weights(blob: dict[str, Any]) -> str | None:
    """What the checkpoint lacks to play the run (its ``models``: one state dict per trained model)."""
    models = blob.get("models")
    if not isinstance(models, list) or not models or not all(isinstance(m, dict) and m for m in models):
        return "holds no weights of the trained model (no models)"
    return None


def llm_actor(config: Any, model: str, path: Path, blob: dict[str, Any], seed: int, greedy: bool,
              remedy: str) -> Any:
    """The trained model of ``config`` (its base loaded from ``model``: :func:`played_model`) with the
    checkpoint's weights (``blob``, read from ``path``), as the actor that played the run's test split
    (:class:`ReplyTallyActor`: it warns when most test replies do not parse). The trainer is built for
    one env and without a KL reference, and Adam's moments are not loaded (its fresh, empty state
    takes their place): none of them plays. A team that shares one model plays it for every agent,
    whatever the evaluation team's agents are named (before: a bare KeyError for a name the run's
    team did not have)."""
    from searchgym.agents.llm_train import LLMTrainer
    from searchgym.harness.llm_reply_tally import ReplyTallyActor

    playing = dataclasses.replace(config, model=model, tasks_per_iteration=1, group_size=1, eval_tasks=0,
                                  loss=dataclasses.replace(config.loss, kl_coef=0.0))
    trainer = LLMTrainer(playing, out_dir=None, log=lambda row: None, dev_tasks=[])
    try:
        trainer.load_checkpoint(path, {**blob, "optimizers": [o.state_dict() for o in trainer.optimizers]})
    except DamagedFile as exc:
        raise DamagedFile(path, exc.what, remedy) from None
    policies = trainer.members[0] if trainer.kind == "single" or len(trainer.members) == 1 else trainer.policies
    return ReplyTallyActor(policies, config.rollout, seed=seed, greedy=greedy, model=config.model)
