"""`searchgym recipe --options` values of the wrong type are one line naming the option and what it takes
(before: "invalid literal for int() with base 10: 'a'" for '{"seeds": "abc"}')."""

from __future__ import annotations

import pytest

from searchgym.cli import main
from searchgym.harness.option_types import check_option_type


@pytest.mark.parametrize("options, message", [
    ('{"seeds": "abc"}', "option 'seeds' of the recipe takes a list of integers, got \"abc\""),
    ('{"seeds": 5}', "option 'seeds' of the recipe takes a list of integers, got 5"),
    ('{"sft_tasks": "x"}', "option 'sft_tasks' of the recipe takes an integer, got \"x\""),
    ('{"rollout": 3}', "option 'rollout' of the recipe takes a JSON object, got 3"),
    ('{"test_tasks": "all"}', "option 'test_tasks' of the recipe takes an integer or null, got \"all\""),
    # before: accepted, then "expected non-negative integer" after minutes of SFT; [] ran no RL at all
    ('{"seeds": [-1]}', "RecipeConfig.seeds must be a non-empty list of ints in 0..9223372036854775807, got [-1]"),
    ('{"seeds": []}', "RecipeConfig.seeds must be a non-empty list of ints in 0..9223372036854775807, got []"),
])
def test_recipe_options_of_the_wrong_type_are_refused_before_any_folder(tmp_path, capsys, options, message):
    out = tmp_path / "tiny"
    assert main(["recipe", "tiny-lm", "--out", str(out), "--options", options]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("annotation, value", [("float", 3), ("float | None", None), ("tuple[str, ...]", ["a"]),
                                               ("dict[str, Any]", {}), ("SomethingElse", object())])
def test_values_that_fit_and_annotations_it_does_not_read_pass(annotation, value):
    check_option_type("x", value, annotation, "a test")  # an int is a number; unknown annotations are not checked
