"""A user's policy builder is type-checked from its signature whatever its annotations say. Before: a
return annotation naming what only a type checker imports (``-> Hidden``), or one parameter annotated
so, left every kwarg unchecked (``width="wide"`` was built); a return annotation that failed to
evaluate in another way (``-> list[int] | 3``) was the TypeError of every make_policy of that builder."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from searchgym.agents.attention_policy import AttentionPolicy, make_attention_policy
from searchgym.agents.policy import OWN_ARCHITECTURES, make_policy, returned_class

if TYPE_CHECKING:
    from a_module_only_a_type_checker_reads import Hidden


def hidden_return(device="cpu", seed=None, *, width: int = 4) -> Hidden:
    return ("built", width)


def failing_return(device="cpu", seed=None, *, width: int = 4) -> list[int] | 3:
    return ("built", width)


def hidden_parameter(device="cpu", seed=None, *, shape: Hidden = None, width: int = 4):
    return ("built", width)


def passes_on(device="cpu", seed=None, **kwargs) -> AttentionPolicy:
    return make_attention_policy(device=device, seed=seed, **kwargs)


@pytest.fixture
def mine():
    with OWN_ARCHITECTURES.scoped():
        yield OWN_ARCHITECTURES


@pytest.mark.parametrize("builder", [hidden_return, failing_return, hidden_parameter])
def test_its_own_parameters_are_checked_whatever_its_annotations(mine, builder):
    mine.add("mine", builder)
    assert make_policy("mine", seed=0, width=8) == ("built", 8)
    with pytest.raises(TypeError, match=r"^width of the mine policy must be an integer; got 'wide' \(str\)$"):
        make_policy("mine", seed=0, width="wide")


def test_only_a_class_the_return_annotation_names_is_read():
    assert returned_class(passes_on) is AttentionPolicy
    assert returned_class(hidden_return) is None and returned_class(failing_return) is None
    assert returned_class(hidden_parameter) is None  # no return annotation


def test_the_kwargs_it_passes_on_are_checked_by_the_class_it_names(mine):
    mine.add("mine", passes_on)
    with pytest.raises(TypeError, match="^hop_features of the mine policy must be a bool"):
        make_policy("mine", seed=0, hop_features="no")
