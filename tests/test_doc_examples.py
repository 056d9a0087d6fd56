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
