"""What ``searchgym recipe tiny-lm --help`` lists: every ``--options`` key with its default.

Read from the source of ``RecipeConfig`` and ``RolloutConfig`` (their class bodies and the module
constants they name), not by importing them: importing ``searchgym.agents`` imports torch and
transformers, about 2 s that ``--help`` spent before it printed. The listing still comes from the
dataclasses themselves, so it never shows a default the recipe does not use (tests compare the two).
"""

from __future__ import annotations

import ast
import importlib.util
import json
from pathlib import Path
from typing import Any

#: Where each class is defined, under the searchgym.agents folder.
RECIPE_SOURCE, ROLLOUT_SOURCE = "tiny_lm_config.py", "llm_rollout.py"
#: ``field(default_factory=...)`` makers a default may name.
FACTORIES = {"dict": dict, "list": list, "tuple": tuple}
#: What --help says if the sources cannot be read (an install without them).
UNLISTED = "The --options keys and their defaults: docs/llm.md, section 5."


def options_listing() -> str:
    """Every --options key with its default, then the ``rollout`` keys (less those the recipe sets) with theirs."""
    try:
        folder = agents_folder()
        recipe = ast.parse((folder / RECIPE_SOURCE).read_text(encoding="utf-8"))
        rollout = ast.parse((folder / ROLLOUT_SOURCE).read_text(encoding="utf-8"))
        recipe_owns = tuple(module_constants(recipe)["RECIPE_OWNS"])
        recipe_defaults = class_defaults(recipe, "RecipeConfig")
        rollout_defaults = class_defaults(rollout, "RolloutConfig")
    except (OSError, SyntaxError, ValueError, TypeError, KeyError):
        return UNLISTED
    recipe_defaults.pop("rollout", None)
    return "\n".join([
        "--options keys (JSON), with their defaults (what each does: docs/llm.md, section 5):",
        *(f"  {name} = {default_text(value)}" for name, value in recipe_defaults.items()),
        "  rollout = {}: an object of rollout settings, each with its default:",
        *(f"    {name} = {default_text(value)}" for name, value in rollout_defaults.items() if name not in recipe_owns),
    ])


def agents_folder() -> Path:
    """The folder of ``searchgym.agents``, found without importing it (only ``searchgym`` is imported)."""
    spec = importlib.util.find_spec("searchgym.agents")
    if spec is None or not spec.submodule_search_locations:
        raise OSError("searchgym.agents is not installed as a folder")
    return Path(next(iter(spec.submodule_search_locations)))


def module_constants(tree: ast.Module) -> dict[str, Any]:
    """The module's ``NAME = literal`` assignments (the others are left out)."""
    constants = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                constants[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                continue
    return constants


def class_defaults(tree: ast.Module, name: str) -> dict[str, Any]:
    """Each field of the dataclass ``name`` with its default, in order; a default that is not a literal, a
    module constant or ``field(default=...)`` / ``field(default_factory=dict|list|tuple)`` is a ValueError."""
    constants = module_constants(tree)
    body = next((node.body for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name), None)
    if body is None:
        raise ValueError(f"no class {name}")
    defaults = {}
    for node in body:
        if not (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)):
            continue
        if "ClassVar" in ast.unparse(node.annotation):
            continue
        if node.value is None:
            raise ValueError(f"{name}.{node.target.id} has no default")
        defaults[node.target.id] = default_value(node.value, constants)
    return defaults


def default_value(node: ast.expr, constants: dict[str, Any]) -> Any:
    """The value of one default's expression."""
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "field":
        keywords = {k.arg: k.value for k in node.keywords}
        if "default" in keywords:
            return default_value(keywords["default"], constants)
        factory = keywords.get("default_factory")
        if isinstance(factory, ast.Name) and factory.id in FACTORIES:
            return FACTORIES[factory.id]()
        raise ValueError("a field() whose default is not listed")
    return ast.literal_eval(node)


def default_text(value: Any) -> str:
    """A default as JSON (a tuple as a list); a long one (the built-in system prompt) cut."""
    text = json.dumps(list(value) if isinstance(value, tuple) else value)
    return text if len(text) <= 40 else f"{text[:30]}...\" (the built-in prompt)"
