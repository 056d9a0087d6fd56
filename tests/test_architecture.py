"""The import rule of docs/ARCHITECTURE.md: a module imports only from its own layer or below."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"searchgym": ROOT / "searchgym", "searchgym.agents": ROOT / "agents",
           "searchgym.baselines": ROOT / "baselines"}
#: First name under ``searchgym`` -> layer (0 lowest). Keep in step with docs/ARCHITECTURE.md.
LAYERS = {
    "world": 0, "named_registry": 0, "fileio": 0, "damaged": 0, "lenient_json": 0, "bounded_json": 0, "action_types": 0, "extras": 0,
    "tools": 1, "actions": 1, "tool_calls": 1, "scoring": 1, "numbers": 1, "judge": 1, "candidates": 1, "candidate_rounds": 1,
    "envs": 2, "registry": 2, "method_table": 2, "suites": 2, "text_suites": 2, "wrappers": 2, "task_api": 2, "__init__": 2,
    "agents": 3, "baselines": 3,
    "harness": 4, "integrations": 4,
    "leaderboard": 5, "leaderboard_html": 5, "leaderboard_checks": 5, "leaderboard_retrain": 5,
    "commands": 5, "cli": 5, "examples": 5,
}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "searchgym":
            if node.module == "searchgym":  # from searchgym import judge -> the judge module
                found |= {a.name if a.name in LAYERS else "__init__" for a in node.names}
            else:
                found.add(_unit(node.module))
        elif isinstance(node, ast.Import):
            found |= {_unit(a.name) for a in node.names if a.name.split(".")[0] == "searchgym"}
    return found


def test_every_module_imports_only_its_own_layer_or_below() -> None:
    problems = []
    for package, folder in SOURCES.items():
        for path in sorted(folder.rglob("*.py")):
            rel = path.relative_to(folder)
            mine = package.split(".")[1] if "." in package else (rel.parts[0].removesuffix(".py") if rel.parts else "")
            assert mine in LAYERS, f"{path}: add {mine!r} to LAYERS here and to docs/ARCHITECTURE.md"
            shown = path.relative_to(ROOT).as_posix()
            for other in _imports(path):
                assert other in LAYERS, f"{shown} imports searchgym.{other}, which has no layer"
                if LAYERS[other] > LAYERS[mine]:
                    problems.append(f"{shown} (layer {LAYERS[mine]}) imports searchgym.{other} "
                                    f"(layer {LAYERS[other]})")
    assert not problems, "upward imports:\n" + "\n".join(problems)
