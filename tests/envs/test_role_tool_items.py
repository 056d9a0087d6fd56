"""A role's ``tools`` must list tool names: an item that is no string is one error naming the role and
what is accepted (before: ``[["web_search"]]`` failed hashing in the tool registry,
``TypeError: unhashable type: 'list'``)."""

from __future__ import annotations

import pytest

import searchgym
from searchgym.envs.roles import resolve_roles


@pytest.mark.parametrize("tools", [[["web_search"]], [3], ["web_search", None], [{"name": "calculator"}]])
def test_a_tool_item_that_is_no_name_is_one_line_naming_the_role(tools):
    roles = [{"name": "w", "tools": tools, "can_answer": True}]
    with pytest.raises(ValueError, match=r"^role 'w': tools must be a list of tool names \(strings\), got ") as caught:
        resolve_roles(roles)
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="tools must be a list of tool names"):
        searchgym.make("TeamSearch-v0", world_size="tiny", roles=roles)


def test_names_still_resolve():
    (role,) = resolve_roles([{"name": "w", "tools": ["web_search", "calculator"], "can_answer": True}])
    assert set(role.tools) == {"web_search", "calculator"}
