"""Every ```python block marked `<!-- tested -->` in README.md and the docs runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = "<!-- tested -->"
_BLOCK = re.compile(re.escape(MARKER) + r"\s*\n```python\n(.*?)\n```", re.DOTALL)


def marked_blocks() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            for i, match in enumerate(_BLOCK.finditer(text)):
                line = text[: match.start()].count("\n") + 1
                found.append((f"{path.relative_to(ROOT)}:{line}", match.group(1)))
            assert text.count(MARKER) == len(_BLOCK.findall(text)), \
                f"{path.name}: a {MARKER} marker must be followed by a ```python block"
    return found


BLOCKS = marked_blocks()


def test_the_docs_hold_tested_examples() -> None:
    assert len(BLOCKS) >= 3 and any(name.startswith("docs/ECOSYSTEM.md") for name, _ in BLOCKS)


@pytest.mark.parametrize("name,code", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_a_marked_example_runs_as_written(name: str, code: str, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, name, "exec"), {"__name__": "__doc_example__"})


_ENV_ID = re.compile(r"(?<![\w/-])((?:SearchQA|GroupSearch|TeamSearch)(?:-[A-Za-z]+)*-v\d+)")
#: Ids the docs show as new ones to register (docs/ARCHITECTURE.md, "An env id"), not as registered ones.
EXAMPLE_IDS = {"SearchQA-Lookup-v0"}


def test_the_readme_names_every_env_id_and_the_docs_only_registered_ones() -> None:
    # Before: the README promised "-Numeric variants" of TeamSearch-Generalists-v0, which is not
    # registered, and named six registered ids only as "their -Candidates / -Numeric variants".
    import searchgym

    registered = {s.id for s in searchgym.registered()}
    assert registered - set(_ENV_ID.findall((ROOT / "README.md").read_text(encoding="utf-8"))) == set()
    for path in DOCS:
        named = set(_ENV_ID.findall(path.read_text(encoding="utf-8"))) - EXAMPLE_IDS
        assert named <= registered, f"{path.name} names unregistered env ids {sorted(named - registered)}"


_SHELL_BLOCK = re.compile(r"```bash\n(.*?)\n```", re.DOTALL)


def shell_commands() -> list[tuple[str, str]]:
    """Every `searchgym ...` command of a ```bash block, continuations joined, comments dropped;
    those with placeholders (`...`, `$VAR`) left out."""
    found = []
    for path in DOCS:
        for block in _SHELL_BLOCK.finditer(path.read_text(encoding="utf-8")):
            for line in block.group(1).replace("\\\n", " ").splitlines():
                for part in re.split(r";\s*|\bdo\b|\bdone\b", line.strip()):
                    part = re.sub(r"\s+#.*$", "", part.strip())
                    if part.startswith("searchgym ") and "..." not in part and "$" not in part:
                        found.append((path.name, part))
    return found


def parse_error(command: str) -> str | None:
    """Why ``command`` (``searchgym ...``) does not parse, as the CLI parses it, or None. A global
    ``--plugin MODULE`` before the command is read first, as ``searchgym.cli.main`` reads it (the
    module is not imported: the docs name example modules); before, the command after it was parsed
    without its own options."""
    import contextlib
    import io
    import shlex

    from searchgym.cli import COMMANDS, build_parser, leading_plugins, misplaced_plugins

    argv = shlex.split(command)[1:]
    plugins, typed = leading_plugins(argv)
    name = next((word for word in typed if not word.startswith("-")), None)
    misplaced = misplaced_plugins(plugins, typed, name)
    if misplaced is not None:
        return misplaced
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            build_parser(name if name in COMMANDS else None).parse_args(argv)
    except SystemExit:
        return err.getvalue().strip().splitlines()[-1]
    return None


def test_every_documented_command_parses() -> None:
    # Before: docs/READER.md showed `searchgym compare --suite quick-v2 --methods reader --budget 0`,
    # a usage error (--out is required).
    commands = shell_commands()
    assert len(commands) >= 20
    for name, command in commands:
        error = parse_error(command)
        if error is not None:
            pytest.fail(f"{name}: `{command}` does not parse: {error}")


@pytest.mark.parametrize("command", [
    "searchgym --plugin mypkg.tool list",
    "searchgym --plugin mypkg.tool --plugin=mypkg.more compare --suite quick-v2 --methods random --out runs/x",
    "searchgym --plug mypkg.tool train --budget 10 --out runs/t",  # an abbreviation, as argparse takes it
])
def test_a_command_after_a_global_plugin_parses_with_its_own_options(command: str) -> None:
    assert parse_error(command) is None


@pytest.mark.parametrize("command, says", [
    ("searchgym --plugin mypkg.tool compare --suite quick-v2 --methods random", "--out"),
    ("searchgym --plugin mypkg.tool train --no-such-option", "unrecognized arguments: --no-such-option"),
    ("searchgym list --plugin mypkg.tool", "--plugin goes before the command: searchgym --plugin mypkg.tool list"),
])
def test_a_bad_command_after_a_global_plugin_is_still_caught(command: str, says: str) -> None:
    error = parse_error(command)
    assert error is not None and says in error, error
