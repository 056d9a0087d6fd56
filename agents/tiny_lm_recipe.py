"""The tiny-LM recipe: a causal LM from scratch on a CPU, SFT on the reader, then GRPO / CW-GRPO.

``searchgym recipe tiny-lm --out runs/tiny`` runs every stage into one folder; each stage leaves its output behind, so a re-run skips what
is done (delete a stage's folder to redo it), and an RL run killed midway goes on from its checkpoint and the rows
it logged (:mod:`searchgym.agents.tiny_lm_records`); one process at a time writes a folder (its ``.lock``):

1. tokenizer: a byte-level BPE chat tokenizer trained deterministically on the suite's world by
   :mod:`searchgym.agents.llm_tokenizer` (every tool call round-trips), by default with the space
   after each word so that a name copied into a call keeps its tokens (``tokenizer="shipped"``:
   the shipped one);
2. SFT (``sft/``): the text reader's transcripts on train tasks (:mod:`searchgym.agents.lm_sft`)
   of the suite's world and of ``sft_worlds - 1`` worlds of the next seeds (1 by default: more
   distinct episodes showed no reliable gain in the time SFT has; docs/llm.md), played by
   ``sft_workers`` processes and kept per world in ``sft_data/`` (:mod:`searchgym.agents.lm_sft_data`),
   then a from-scratch Qwen2-shaped model (:mod:`searchgym.agents.tiny_lm`), saved as a model folder;
3. the SFT model's greedy test success and the share of its replies that parse (``sft/eval.json``),
   and its accuracy on each kind of choice of the reader's episodes on dev tasks
   (``sft/choices.json``, :mod:`searchgym.agents.lm_choices`);
4. RL (``rl/<method>-s<seed>/``): the LLM trainer (:class:`~searchgym.agents.llm_train.LLMTrainer`)
   from the SFT folder, every method on the same seeds, the ``"kv"`` generation backend, then the
   same test evaluation. :meth:`Recipe.run` returns every stage's figures; the command
   (:mod:`searchgym.commands.recipe`) adds each method's gain over SFT with a 95% interval and
   writes ``results.json`` and ``RESULTS.md``.

There is no next-token pretraining stage: on two CPU cores its time is better spent on SFT (see
docs/llm.md). The settings: :class:`~searchgym.agents.tiny_lm_config.RecipeConfig`. Threads:
``torch.set_num_threads(threads)`` (1 by default). ``device="cuda"`` runs
every stage on a GPU, still in float32 (the sizes are tiny; the documented figures are CPU).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from searchgym.damaged import DamagedFile
from searchgym.fileio import atomic_write_json
from searchgym.folder_lock import FolderLock

from .pretrained import transformers_bars_off
from .tiny_lm_config import METHODS, RECIPE_COUNTS, TOKENIZERS, RecipeConfig  # noqa: F401  (the recipe's names)
from .tiny_lm_records import (
    CHOICES_FIELDS,
    CHOICES_PRESENT,
    EVAL_FIELDS,
    REDO_EVALUATION,
    RL_FIELDS,
    SFT_FIELDS,
    SFT_PRESENT,
    OtherCommandLine,
    check_same_recipe,
    read_seconds,
    read_stage,
    resume_rows,
    rl_figures,
    run_rows,
)

#: Each stage's (wall, CPU) seconds when it ran, kept across re-runs that skip it.
STAGE_SECONDS = "stage_seconds.json"


class Recipe:
    """Runs the stages into ``out`` (see the module docstring)."""

    def __init__(self, config: RecipeConfig, out: str | Path, log: Callable[[str], None] = print,
                 other_command_lines: Sequence[OtherCommandLine] = ()) -> None:
        """``other_command_lines``: the settings other command lines give (the same with --smoke toggled), so a
        folder made by one of them is refused naming it (:func:`~.tiny_lm_records.check_same_recipe`)."""
        from searchgym.suites import env_kind, get_suite, observation_kind

        self.config, self.out, self.log = config, Path(out), log
        self.other_command_lines = tuple(other_command_lines)
        self.suite = get_suite(config.suite)
        # a candidate suite failed late, on a TypeError
        if env_kind(self.suite) != "single" or observation_kind(self.suite) != "text":
            raise ValueError(f"the recipe trains on a single-agent text suite; {config.suite!r} is not one")
        self.times: dict[str, float | None] = {}  # None: a finished stage whose seconds were lost
        self.skipped = [0.0, 0.0]  # (wall, CPU) seconds that earlier runs spent on the stages this run skips
        # stage -> [wall, CPU] when it ran (None: lost); only from a folder (before: --out a_file/sub warned of
        # a_file/sub/stage_seconds.json before the error that said --out was wrong)
        self.recorded = read_seconds(self.out / STAGE_SECONDS) if self.out.is_dir() else {}
        self.lost: list[str] = []  # finished stages whose seconds are unknown (their record lost)
        self.resumed: dict[str, list[float]] = {}  # stage -> [wall, CPU] of the iterations earlier runs did
        self._lock: FolderLock | None = None
        self._checked: set[Path] = set()  # model folders check_model_folder passed

    # ------------------------------------------------------------------------------ stages
    def tokenizer(self) -> Any:
        """The shipped tokenizer, or one trained the same way with the space after each word
        (``llm_tokenizer.train_tokenizer(trailing_space=True)``: deterministic, about 2 s), so a
        copied name starts with the token that was read; saved with the SFT model."""
        from .llm_policy import offline_tokenizer, prepare_tokenizer
        from .llm_tokenizer import train_tokenizer, wrap

        if self.config.tokenizer == "shipped":
            return offline_tokenizer()
        return prepare_tokenizer(wrap(train_tokenizer(trailing_space=True)))

    def sft(self, tokenizer: Any) -> tuple[Path, dict[str, Any]]:
        from .lm_sft import SFTConfig, train_sft
        from .lm_sft_data import sft_transcripts, tokenizer_fingerprint, world_settings
        from .tiny_lm import new_tiny_model, parameter_count, save_model_folder

        cfg, folder = self.config, self.out / "sft"
        if (folder / "sft.json").is_file():
            return folder, read_stage(folder / "sft.json", SFT_FIELDS, SFT_PRESENT, self.redo_sft)
        start = time.perf_counter()
        # Train tasks of the suite's world and of sft_worlds - 1 worlds of the next seeds (lm_sft_data),
        # kept per world in sft_data/ so a re-run, or a recipe with other SFT settings, reads them back.
        fingerprint = tokenizer_fingerprint(tokenizer)
        worlds = [world_settings(cfg.suite, self.suite.world_seed + world, cfg.sft_tasks, cfg.model_seed + world,
                                 cfg.model_seed, cfg.sft_guided, cfg.rollout_config(), fingerprint)
                  for world in range(cfg.sft_worlds)]
        transcripts = sft_transcripts(worlds, tokenizer, self.out / "sft_data", cfg.sft_workers, self.log)
        kept = [t for t in transcripts if t.success]  # the reader's solved episodes
        data_seconds = time.perf_counter() - start
        model = new_tiny_model(cfg.shape, tokenizer, seed=cfg.model_seed).to(cfg.device)
        stats = train_sft(model, kept, tokenizer.pad_token_id,
                          SFTConfig(epochs=cfg.sft_epochs, batch_size=cfg.sft_batch_size, lr=cfg.sft_lr,
                                    seed=cfg.model_seed, max_seconds=cfg.sft_max_seconds,
                                    per_turn=cfg.sft_per_turn, guided=cfg.sft_guided,
                                    context_weight=cfg.sft_context_weight),
                          log=lambda row: self.log(f"sft {json.dumps(row)}"))
        save_model_folder(model, tokenizer, folder)
        info = {"shape": cfg.shape, "parameters": parameter_count(model), "worlds": cfg.sft_worlds,
                "transcripts": len(transcripts),
                "kept": len(kept), "data_seconds": data_seconds, **stats}
        atomic_write_json(folder / "sft.json", info)
        return folder, info

    @property
    def redo_sft(self) -> str:
        return (f"delete {self.out / 'sft'} and {self.out / 'rl'} (trained from it) and re-run the same command "
                "to redo SFT and the stages after it")

    def load_sft(self, base: Path, load: Callable[[], Any]) -> Any:
        """``load()`` of the SFT model folder, checked first (check_model_folder): a damaged file is one
        line naming it and how to redo SFT. Before: a cut model.safetensors was safetensors' traceback,
        a cut tokenizer.json "Expecting value: line 12007 column 5 (char 195451)", naming no file."""
        from .model_folder import check_model_folder
        from .pretrained import ModelFolderError

        try:
            if base not in self._checked:
                check_model_folder(base, "the SFT model")
        except DamagedFile as exc:
            raise DamagedFile(exc.path, exc.what, self.redo_sft) from None
        except ValueError as exc:  # a file missing, or a config transformers refuses: one line naming the folder
            raise ValueError(f"{exc}; {self.redo_sft}") from None
        self._checked.add(base)
        try:
            return load()
        except ModelFolderError as exc:  # what the check does not read (the tensors themselves)
            raise ValueError(f"{exc}; {self.redo_sft}") from None

    def evaluate(self, model: Any, tokenizer: Any, path: Path, guided: bool | None = None) -> dict[str, Any]:
        from .llm_eval import evaluate_llm
        from .llm_policy import LLMPolicy

        if path.is_file():
            return read_stage(path, EVAL_FIELDS, remedy=REDO_EVALUATION)
        cfg = self.config
        config = cfg.rollout_config(guided)
        cpu = time.process_time()
        evaluation = evaluate_llm(LLMPolicy(model, tokenizer, backend="kv"), self.suite, "test", cfg.test_tasks,
                                  config, cfg.eval_batch)
        result = {**evaluation.summary(), "guided": config.guided, "cpu_seconds": time.process_time() - cpu,
                  "per_task": evaluation.successes, "task_ids": evaluation.task_ids}
        atomic_write_json(path, result)
        return result

    def choices(self, model: Any, tokenizer: Any, path: Path) -> dict[str, Any]:
        """The SFT model's teacher-forced accuracy per kind of choice on the reader's solved episodes of
        the first ``choice_tasks`` dev tasks (dev, never test: the test split stays unseen)."""
        from searchgym.suites import make_env

        from .lm_choices import choice_accuracy
        from .lm_sft import reader_transcripts

        if path.is_file():
            return read_stage(path, CHOICES_FIELDS, CHOICES_PRESENT, REDO_EVALUATION)
        cfg = self.config
        env = make_env(self.suite, "dev").unwrapped
        dev = [t.id for t in env.tasks.tasks("dev")][: cfg.choice_tasks]
        transcripts = reader_transcripts(env, dev, tokenizer, cfg.rollout_config(), seed=cfg.model_seed, guided=True)
        result = {**choice_accuracy(model, [t for t in transcripts if t.success], tokenizer), "tasks": len(dev)}
        atomic_write_json(path, result)
        return result

    def rl(self, base: Path, method: str, seed: int) -> dict[str, Any]:
        from .llm_train import LLMTrainConfig, LLMTrainer

        cfg, folder = self.config, self.out / "rl" / f"{method}-s{seed}"
        if (folder / "eval.json").is_file():
            return read_stage(folder / "eval.json", RL_FIELDS,
                              remedy=f"delete {folder} and re-run the same command to redo this RL run")
        suite = self.suite
        env_kwargs = {**suite.kwargs, "action_mode": "text", "world_seed": suite.world_seed,
                      "world_size": suite.world_size, "difficulty": suite.difficulty,
                      "families": list(suite.families_for("train")) if suite.families_for("train") else None}
        steps_per_iteration = cfg.group_size * cfg.tasks_per_iteration
        train_config = LLMTrainConfig(
            model=str(base), env_id=suite.env_id, env_kwargs=env_kwargs, method=method, group_size=cfg.group_size,
            tasks_per_iteration=cfg.tasks_per_iteration, budget=cfg.rl_iterations * steps_per_iteration, lr=cfg.rl_lr,
            micro_batch_size=8, temperature=cfg.temperature, rollout=cfg.rollout_config(), eval_tasks=0, seed=seed,
            device=cfg.device, dtype="float32", log_entropy=False, generation_backend="kv", shared_prefix=True)
        # the trainer logs each row to metrics.jsonl, then checkpoints: a resumed run keeps the rows its
        # checkpoint holds (tiny_lm_records), and eval.json is made from the file, not from this process's rows
        trainer = self.load_sft(base, lambda: LLMTrainer(train_config, out_dir=folder))
        trainer, rows = resume_rows(folder, trainer, lambda: LLMTrainer(train_config, out_dir=folder))
        self.resumed[f"rl_{method}_s{seed}"] = [sum(r.get(k, 0.0) for r in rows) for k in ("seconds", "cpu_seconds")]
        while trainer.state.iteration < cfg.rl_iterations:  # iterations, not env steps: same work per seed
            start, cpu = time.perf_counter(), time.process_time()
            row = trainer.iterate()
            row.update(seconds=time.perf_counter() - start, cpu_seconds=time.process_time() - cpu)
            trainer.finish_iteration(row)
            self.log(f"rl {method} seed {seed} iteration {row['iteration']}: train success "
                     f"{row['train_success']:.2f}, {row['generate_tokens_per_s']:.0f} generated tokens/s")
        result = self.evaluate(trainer.members[0].model, trainer.members[0].tokenizer, folder / "test.json")
        summary = {"method": method, "seed": seed, "success": result["success"], "parse_rate": result["parse_rate"],
                   "per_task": result["per_task"], **rl_figures(run_rows(folder, trainer.state.iteration))}
        atomic_write_json(folder / "eval.json", summary)
        return summary

    # --------------------------------------------------------------------------------- all
    @contextmanager
    def locked(self) -> Iterator[None]:
        """One recipe process per ``out`` (:class:`~searchgym.folder_lock.FolderLock`; held already: nothing
        more). Why: two processes on one --out both ran every stage, each writing over the other's files."""
        if self._lock is not None:
            yield
            return
        lock = FolderLock(self.out)
        if not lock.acquire():
            raise ValueError(f"another live process (PID {lock.holder()}) is writing {self.out}; wait for it to "
                             "finish (then re-run to see its result), or use another --out")
        self._lock = lock
        try:
            yield
        finally:
            self._lock = None
            lock.release()

    def run(self) -> dict[str, Any]:
        with self.locked(), transformers_bars_off():
            return self._run()

    def _run(self) -> dict[str, Any]:
        from .llm_policy import load_model

        torch.set_num_threads(self.config.threads)
        check_same_recipe(self.out, asdict(self.config), self.other_command_lines)
        self.out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(self.out / "config.json", asdict(self.config))
        total, cpu = time.perf_counter(), time.process_time()
        tokenizer = self._timed("tokenizer", self.tokenizer)
        base = self.out / "sft"
        base, sft_info = self._timed("sft", lambda: self.sft(tokenizer), base / "sft.json")
        model, tokenizer = self.load_sft(base, lambda: load_model(str(base), self.config.device, "float32"))
        sft_eval = self._timed("sft_eval", lambda: self.evaluate(model, tokenizer, base / "eval.json"), base / "eval.json")
        self.log(f"sft: test success {sft_eval['success']:.3f}, replies parsed {sft_eval['parse_rate']:.3f}")
        choices = None
        if self.config.choice_tasks:
            choices = self._timed("sft_choices", lambda: self.choices(model, tokenizer, base / "choices.json"),
                                  base / "choices.json")
        free_eval = None
        if self.config.eval_unguided and self.config.guided:
            free_eval = self._timed("sft_eval_free", lambda: self.evaluate(model, tokenizer, base / "eval_free.json",
                                                                           guided=False), base / "eval_free.json")
            self.log(f"sft, free generation: test success {free_eval['success']:.3f}, "
                     f"replies parsed {free_eval['parse_rate']:.3f}")
        runs = {m: [self._timed(f"rl_{m}_s{s}", lambda m=m, s=s: self.rl(base, m, s),
                                self.out / "rl" / f"{m}-s{s}" / "eval.json") for s in self.config.seeds]
                for m in self.config.methods}
        for m, seeds in runs.items():  # before: "operands could not be broadcast" when the gains were taken
            for s, run in zip(self.config.seeds, seeds):
                if len(run["per_task"]) != len(sft_eval["per_task"]):
                    folder = self.out / "rl" / f"{m}-s{s}"
                    raise DamagedFile(folder / "eval.json", f"scores {len(run['per_task'])} test tasks where "
                                      f"{base / 'eval.json'} scores {len(sft_eval['per_task'])} (made with other "
                                      "options?)", f"delete {folder} and re-run the same command to redo this RL run")
        return {"sft_info": sft_info, "sft_eval": sft_eval, "sft_eval_free": free_eval, "sft_choices": choices,
                "runs": runs,
                "stage_seconds": self.times,
                "wall_seconds": None if self.lost else time.perf_counter() - total + self.skipped[0],
                "cpu_seconds": None if self.lost else time.process_time() - cpu + self.skipped[1]}

    def _timed(self, name: str, stage: Callable[[], Any], done: Path | None = None) -> Any:
        """Run a stage and record its (wall, CPU) seconds in ``stage_seconds.json``; a stage skipped
        because ``done`` exists keeps the seconds recorded when it ran, or has none (``None``, in
        :attr:`lost`) where that record is lost. Why: a re-run (or a resumed run) reported its own
        seconds, e.g. "Wall time 3 s (sft 0 s, ...)" for a 12 s recipe, and so did a re-run after
        the record was damaged."""
        finished = done is not None and done.is_file()  # the stage reads its output back
        seconds = self.recorded.get(name)  # read_seconds keeps only [wall, CPU] in range, or None
        start, cpu = time.perf_counter(), time.process_time()
        value = stage()
        spent = [time.perf_counter() - start, time.process_time() - cpu]
        if finished:  # before: a re-run said nothing of the stages it did not run
            self.log(f"skipped {name}: finished by an earlier run ({done})")
        if finished and seconds is None:
            self.lost.append(name)
            self.times[name] = None
            if name not in self.recorded:  # kept as unknown, so the next run says so too, with no warning
                self.recorded[name] = None
                atomic_write_json(self.out / STAGE_SECONDS, self.recorded)
            return value
        if finished:
            self.skipped = [self.skipped[i] + seconds[i] - spent[i] for i in (0, 1)]
            spent = seconds
        else:
            earlier = self.resumed.pop(name, [0.0, 0.0])  # a resumed RL run: its iterations that were kept
            self.skipped = [self.skipped[i] + earlier[i] for i in (0, 1)]
            spent = [spent[i] + earlier[i] for i in (0, 1)]
            self.recorded[name] = spent
            atomic_write_json(self.out / STAGE_SECONDS, self.recorded)
        self.times[name] = spent[0]
        return value
