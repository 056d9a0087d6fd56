"""The import rule of docs/ARCHITECTURE.md: a module imports only from its own layer or below."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = {"searchgym": ROOT / "searchgym", "searchgym.agents": ROOT / "agents",
           "searchgym.baselines": ROOT / "baselines"}
#: First name under ``searchgym`` -> layer (0 lowest). Keep in step with docs/ARCHITECTURE.md.
LAYERS = {
    "world": 0, "shown": 0, "named_registry": 0, "fileio": 0, "folder_lock": 0, "damaged": 0, "json_fields": 0, "lenient_json": 0, "bounded_json": 0, "action_types": 0, "extras": 0, "plugins": 0,
    "policy_format": 0, "devices": 0, "per_world": 0, "observation_format": 0, "chat_content": 0, "torch_archive": 0, "assets": 0,
    "tools": 1, "actions": 1, "tool_calls": 1, "scoring": 1, "numbers": 1, "judge": 1, "candidates": 1, "candidate_rounds": 1,
    "candidate_actions": 1, "candidate_history": 1, "candidate_calculations": 1, "candidate_names": 1,
    "envs": 2, "registry": 2, "method_table": 2, "suites": 2, "text_suites": 2, "wrappers": 2, "task_api": 2, "__init__": 2,
    "agents": 3, "baselines": 3,
    "harness": 4, "endpoint": 4, "integrations": 4,
    "leaderboard": 5, "leaderboard_html": 5, "leaderboard_checks": 5, "leaderboard_values": 5, "leaderboard_retrain": 5,
    "leaderboard_from_run": 5,
    "commands": 5, "cli": 5, "__main__": 5, "examples": 5,
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


# ------------------------------------------------------------------------------ import cycles
#: The one cycle allowed at import time: a registration import, at the bottom of the importing
#: module, whose line says so (``# noqa: ... (registers ...)``).
REGISTRATION_IMPORTS = {("searchgym.suites", "searchgym.text_suites")}
#: Cycles closed only by an import inside a function (run after both modules are loaded), each with its reason.
DEFERRED_CYCLES = {
    frozenset({"searchgym.world.generate", "searchgym.world.world"}): "World.generate() is a shortcut to the generator",
}


def _module_files() -> dict[str, Path]:
    modules = {}
    for package, folder in SOURCES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join([package, *parts])] = path
    return modules


def _imported(name: str, path: Path, modules: dict[str, Path], deferred: bool) -> set[str]:
    """The searchgym modules ``name`` imports: at module scope, or (``deferred``) anywhere but TYPE_CHECKING."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skip = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)}
    nodes = ast.walk(tree) if deferred else [n for top in tree.body
                                             for n in ([top] if not isinstance(top, ast.Try) else top.body)]
    found = set()
    for node in nodes:
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                root = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{root}.{base}" if base else root
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
    return (found & set(modules)) - {name}


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_but_a_named_registration_import() -> None:
    modules = _module_files()
    graph = {name: _imported(name, path, modules, deferred=False) for name, path in modules.items()}
    for importer, registered in REGISTRATION_IMPORTS:
        line = next(line for line in modules[importer].read_text().splitlines()
                    if f"import {registered.rpartition('.')[2]}" in line)
        assert "registers" in line, f"{importer}: the import of {registered} must say what it registers"
        graph[importer].discard(registered)
    assert _cycles(graph) == [], "import cycles at module scope"
    deferred = {name: _imported(name, path, modules, deferred=True) for name, path in modules.items()}
    for importer, registered in REGISTRATION_IMPORTS:
        deferred[importer].discard(registered)
    assert {frozenset(c) for c in _cycles(deferred)} == set(DEFERRED_CYCLES), "import cycles through a function"


def test_no_test_edits_sys_path() -> None:
    """Test helpers are importable through pytest's ``pythonpath`` (pyproject.toml), not sys.path edits."""
    edits = [f"{path.relative_to(ROOT)}:{n}" for path in sorted((ROOT / "tests").rglob("*.py"))
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if line.lstrip().startswith(("sys.path.insert", "sys.path.append"))]
    assert edits == []
