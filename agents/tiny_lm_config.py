"""The tiny-LM recipe's settings (:mod:`searchgym.agents.tiny_lm_recipe`): :class:`RecipeConfig`, each
value checked when the options are read. ``searchgym recipe tiny-lm --help`` lists them with their
defaults from this file's source (:mod:`searchgym.commands.recipe_options_listing`, without torch):
keep each default a literal, a module constant or ``field(default_factory=dict)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .llm_rollout import RolloutConfig

METHODS = ("grpo", "cw_grpo", "dr_grpo")
#: Each count's largest value: far above the documented run's, far below one that runs for days.
RECIPE_COUNTS = {"sft_tasks": 100_000, "sft_worlds": 64, "sft_workers": 64, "sft_batch_size": 4096,
                 "rl_iterations": 100_000, "group_size": 64, "tasks_per_iteration": 64, "max_new_tokens": 4096,
                 "eval_batch": 100_000, "threads": 1024}
TOKENIZERS = ("trailing-space", "shipped")
#: RolloutConfig fields the recipe sets from its own options, so ``rollout`` may not set them too. Why:
#: ``rollout.guided`` overrode ``guided`` in the evaluations and RL while the results said ``guided``, and
#: ``rollout.max_new_tokens`` went past ``max_new_tokens``'s bound.
RECIPE_OWNS = ("guided", "max_new_tokens")


@dataclass
class RecipeConfig:
    """Every knob of the recipe (saved in ``config.json``); the defaults are the documented run."""

    suite: str = "searchqa-text-v2"
    tokenizer: str = "trailing-space"  # or "shipped" (llm_tokenizer: the space before a word, GPT-2's split)
    shape: str = "l2-w128"
    model_seed: int = 0
    sft_tasks: int = 600  # train tasks the reader plays for SFT data (per world)
    sft_worlds: int = 1  # worlds the reader plays them on: the suite's, then worlds of seeds +1, +2, ...
    sft_workers: int = 1  # processes playing those worlds in parallel (lm_sft_data)
    sft_epochs: float = 20.0  # an upper bound: sft_max_seconds ends it first on two cores
    sft_batch_size: int = 8
    sft_lr: float = 3e-3
    sft_context_weight: float = 0.0  # next-token loss on the question and tool results beside the actions' (lm_sft)
    sft_per_turn: bool = False  # True: one row per assistant turn (the stream up to it); False: whole episodes
    sft_max_seconds: float | None = 540.0
    guided: bool = True  # guided decoding (llm_guided) in every evaluation and RL rollout
    sft_guided: bool = True  # the SFT loss on the guided choices only (a softmax over the allowed ids)
    eval_unguided: bool = True  # also score the SFT model with free generation (sft/eval_free.json)
    methods: tuple[str, ...] = ("grpo", "cw_grpo")
    seeds: tuple[int, ...] = (0, 1, 2)
    rl_iterations: int = 5
    group_size: int = 4
    tasks_per_iteration: int = 4
    rl_lr: float = 2e-4
    temperature: float = 1.0
    max_new_tokens: int = 64
    test_tasks: int | None = 100  # None: the whole test split
    choice_tasks: int = 100  # dev tasks whose reader episodes score the SFT model per kind of choice (0: none)
    eval_batch: int = 50
    threads: int = 1
    device: str = "cpu"  # "cuda" runs every stage on a GPU in float32 (the documented figures are CPU)
    rollout: dict[str, Any] = field(default_factory=dict)  # extra RolloutConfig fields

    def __post_init__(self) -> None:
        from .config_checks import MAX_LOOP, MAX_SEED, check_in_range
        from .encoders import resolve_device
        from .lm_sft import CONTEXT_WEIGHT
        from .tiny_lm import TINY_SHAPES

        self.device = str(resolve_device(str(self.device)))

        self.methods, self.seeds = tuple(self.methods), tuple(self.seeds)
        if not self.seeds or not all(type(s) is int and 0 <= s <= MAX_SEED for s in self.seeds):
            # before: [-1] failed after minutes of SFT ("expected non-negative integer"), and [] ran no RL
            raise ValueError(f"RecipeConfig.seeds must be a non-empty list of ints in 0..{MAX_SEED}, got "
                             f"{list(self.seeds)[:8]!r}")
        bad = [m for m in self.methods if m not in METHODS]
        if bad or not self.methods:
            raise ValueError(f"unknown RL method(s) {bad or '(none)'}; accepted: {', '.join(METHODS)}")
        for name in ("seeds", "methods"):  # before: seeds [0, 0] ran once and counted twice in the gains
            values = list(getattr(self, name))
            twice = sorted({v for v in values if values.count(v) > 1}, key=values.index)
            if twice:
                raise ValueError(f"RecipeConfig.{name} names {', '.join(map(str, twice))} more than once; "
                                 f"accepted: each {name[:-1]} once")
        if self.tokenizer not in TOKENIZERS:
            raise ValueError(f"unknown tokenizer {self.tokenizer!r}; accepted: {', '.join(TOKENIZERS)}")
        if self.shape not in TINY_SHAPES:
            raise ValueError(f"unknown tiny LM shape {self.shape!r}; accepted: {', '.join(TINY_SHAPES)}")
        for name, most in RECIPE_COUNTS.items():  # before: rl_iterations=10**12 was taken, and ran on for good
            value = getattr(self, name)
            if type(value) is not int or not 1 <= value <= most:
                raise ValueError(f"RecipeConfig.{name} must be an int in 1..{most}, got {value!r}")
        # when the options are read, not after the reader has played
        check_in_range("RecipeConfig.sft_context_weight", self.sft_context_weight, 0.0, what=CONTEXT_WEIGHT, finite=True)
        if int(self.choice_tasks) < 0:
            raise ValueError(f"RecipeConfig.choice_tasks must be >= 0, got {self.choice_tasks!r}")
        # before: test_tasks 0 failed after every stage had run (minutes), model_seed -1 with NumPy's words,
        # sft_lr -1 and sft_epochs 0 after the reader's episodes were played, under SFTConfig's names
        if self.test_tasks is not None and not (type(self.test_tasks) is int and self.test_tasks >= 1):
            raise ValueError(f"RecipeConfig.test_tasks must be an int >= 1 or None (the whole test split), "
                             f"got {self.test_tasks!r}")
        if type(self.model_seed) is not int or not 0 <= self.model_seed <= MAX_SEED:
            raise ValueError(f"RecipeConfig.model_seed must be an int in 0..{MAX_SEED}, got {self.model_seed!r}")
        for name in ("sft_epochs", "sft_lr", "rl_lr", "temperature", "sft_max_seconds"):
            value = getattr(self, name)
            if not (value is None and name == "sft_max_seconds") and (
                    type(value) not in (int, float) or not 0 < value < float("inf")):
                raise ValueError(f"RecipeConfig.{name} must be a finite number > 0, got {value!r}")
        if self.sft_epochs > MAX_LOOP:
            raise ValueError(f"RecipeConfig.sft_epochs must be at most {MAX_LOOP}, got {self.sft_epochs!r}")
        self.rollout_config()  # rollout's keys and values, named as rollout.<key>

    def rollout_config(self, guided: bool | None = None) -> RolloutConfig:
        """The rollouts' settings: ``rollout``'s fields with the recipe's own ``max_new_tokens`` and
        ``guided`` (or ``guided`` as given). Bad ``rollout`` values are one line naming ``rollout.<key>``
        (before: {"bogus": 1} was a bare TypeError, max_turns -1 "max_turns must be ...")."""
        from .llm_rollout import RolloutConfig

        guided = self.guided if guided is None else guided
        if not isinstance(self.rollout, dict):  # a ValueError, as every option's: the command's one line
            raise ValueError(f"RecipeConfig.rollout must be an object of rollout settings, got "  # noqa: TRY004
                             f"{self.rollout!r:.40}; accepted keys: {', '.join(rollout_keys())}")
        for key in self.rollout:
            if key in RECIPE_OWNS:
                raise ValueError(f"RecipeConfig.rollout.{key} is set by the recipe's own {key!r} option; set that "
                                 f"instead (rollout accepts: {', '.join(rollout_keys())})")
            if key not in rollout_keys():
                raise ValueError(f"unknown RecipeConfig.rollout key {key!r}; accepted: {', '.join(rollout_keys())}")
        try:
            return RolloutConfig(**{**self.rollout, "max_new_tokens": self.max_new_tokens, "guided": guided})
        except ValueError as exc:  # RolloutConfig's messages start with the field's name
            raise ValueError(f"RecipeConfig.rollout.{exc}") from None


def rollout_keys() -> list[str]:
    """The RolloutConfig fields a recipe's ``rollout`` may set."""
    from .llm_rollout import RolloutConfig

    return [f.name for f in fields(RolloutConfig) if f.name not in RECIPE_OWNS]
