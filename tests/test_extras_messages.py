"""A missing extra is one line naming everything missing and one pip command (new-user review).

Before: ``chat_tokenizer()`` was a bare ``ModuleNotFoundError: No module named 'tokenizers'`` with the
train extra installed, and ``searchgym recipe tiny-lm`` named its missing extras one at a time
(torch's ``[train]``; once that was installed, transformers' ``[llm]``).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from searchgym.commands.recipe import NEEDS
from searchgym.extras import OPTIONAL_MODULES, MissingExtra, require_all_installed

ROOT = Path(__file__).resolve().parents[1]

#: A sys.meta_path finder that makes ``blocked`` look uninstalled (what Python raises for an absent package).
BLOCKER = """
import sys
BLOCKED = set({blocked!r})
class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, NotInstalled())
"""


def _python(code: str, blocked: tuple[str, ...], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCKER.format(blocked=blocked) + code], cwd=cwd,
                          check=False, capture_output=True, text=True, timeout=300)


TOKENIZER = """
from searchgym.extras import MissingExtra
from searchgym.agents.llm_tokenizer import chat_tokenizer
try:
    chat_tokenizer()
except MissingExtra as exc:
    print(exc)
"""


@pytest.mark.parametrize(("blocked", "said"), [
    (("tokenizers", "transformers"), "the chat tokenizer needs tokenizers and transformers: pip install 'searchgym[llm]'"),
    (("tokenizers",), "the chat tokenizer needs tokenizers: pip install 'searchgym[llm]'"),
    (("transformers",), "the chat tokenizer needs transformers: pip install 'searchgym[llm]'"),
])
def test_chat_tokenizer_without_the_llm_extra_is_one_line(tmp_path, blocked, said) -> None:
    proc = _python(TOKENIZER, blocked, tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stdout.strip() == said


def test_the_tokenizer_rebuild_without_tokenizers_is_one_line(tmp_path) -> None:
    proc = _python("from searchgym.agents.llm_tokenizer import main\nmain([" + repr(str(tmp_path / "t.json")) + "])\n",
                   ("tokenizers",), tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "t.json").exists()
    assert proc.stderr == "training the chat tokenizer needs tokenizers: pip install 'searchgym[llm]'\n"


@pytest.mark.parametrize(("blocked", "said"), [
    (("torch", "transformers", "tokenizers"), "torch, transformers and tokenizers"),
    (("transformers", "tokenizers"), "transformers and tokenizers"),
])
def test_recipe_names_every_missing_package_in_one_line(tmp_path, blocked, said) -> None:
    proc = _python(f"from searchgym.cli import main\nraise SystemExit(main({['recipe', 'tiny-lm', '--out', 'r']!r}))\n",
                   blocked, tmp_path)
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert proc.stderr == f"searchgym recipe tiny-lm needs {said}: pip install 'searchgym[llm]'\n"
    assert proc.stdout == "" and not (tmp_path / "r").exists()


def test_the_llm_extra_installs_everything_the_recipe_and_the_tokenizer_need() -> None:
    """The one extra both name must hold them all (the pip line would otherwise leave one out)."""
    from searchgym.agents.llm_tokenizer import LOAD_NEEDS

    llm = {Requirement(r).name for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["llm"]}
    assert {OPTIONAL_MODULES[m][0] for m in (*NEEDS, *LOAD_NEEDS)} <= llm


def test_require_all_installed_joins_the_extras_of_what_is_missing(monkeypatch) -> None:
    monkeypatch.setitem(OPTIONAL_MODULES, "no_such_module_a", ("dist-a", "xa"))
    monkeypatch.setitem(OPTIONAL_MODULES, "no_such_module_b", ("dist-b", "xb"))
    monkeypatch.setitem(OPTIONAL_MODULES, "no_such_module_c", ("dist-c", "xa"))
    with pytest.raises(MissingExtra, match=r"^f needs dist-a, dist-b and dist-c: pip install 'searchgym\[xa,xb\]'$"):
        require_all_installed(("no_such_module_a", "numpy", "no_such_module_b", "no_such_module_c"), "f")
    with pytest.raises(MissingExtra, match=r"^f needs dist-b: pip install 'searchgym\[all\]'$"):
        require_all_installed(("numpy", "no_such_module_b"), "f", extra="all")
    require_all_installed(("numpy", "json"), "f")  # all installed: no error
