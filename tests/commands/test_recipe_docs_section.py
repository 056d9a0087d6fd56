"""docs/llm.md section 5 (`searchgym recipe tiny-lm`) says what the code does.

Before: it said SFT could be redone with other settings by deleting `sft/`, which the code refuses
("holds a recipe run with other settings (sft_lr: ...)"), and it listed none of the options a
user can set, nor where to find them.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

pytest.importorskip("torch")

from searchgym.agents.llm_rollout import RolloutConfig
from searchgym.agents.tiny_lm_recipe import RecipeConfig
from searchgym.agents.tiny_lm_records import check_same_recipe

from searchgym.fileio import atomic_write_json

DOC = Path(__file__).resolve().parents[2] / "docs" / "llm.md"


def _section() -> str:
    text = DOC.read_text()
    return text[text.index("## 5. "):].split("\n## ", 1)[0]


def test_redoing_sft_with_other_settings_is_described_as_the_code_allows(tmp_path):
    flat = " ".join(_section().split())
    assert "(delete `sft/`" not in flat and "copy `sft_data/` into a new `--out`" in flat
    atomic_write_json(tmp_path / "config.json", dataclasses.asdict(RecipeConfig()))
    with pytest.raises(ValueError, match=r"other settings \(sft_lr: .*copy its sft_data/ there"):
        check_same_recipe(tmp_path, dataclasses.asdict(RecipeConfig(sft_lr=0.01)))


def test_the_options_it_lists_are_the_recipe_s_and_it_points_to_help():
    section = _section()
    paragraph = section[section.index("`--options` sets"):section.index("The stages")]
    assert "searchgym recipe tiny-lm --help" in paragraph
    top, rollout = paragraph.split("`rollout` is", 1)
    assert set(re.findall(r"`([a-z_]+)`", top)) <= {f.name for f in dataclasses.fields(RecipeConfig)}
    rollout = "`rollout` is" + rollout
    listed = re.findall(r"`([a-z_]+)`", rollout.split(";")[0])[1:]  # after `rollout` itself
    assert listed == [f.name for f in dataclasses.fields(RolloutConfig) if f.name not in ("guided", "max_new_tokens")]
