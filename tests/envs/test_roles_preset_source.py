"""The members of the team's "roles" preset are listed once, in the tool registry (``PRESET_ROLES``, what
``ToolSpec.roles`` is checked against); the envs' preset is made from that list. Before: envs/roles.py
repeated the list, and only a test kept the two equal."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from searchgym.envs.roles import PRESET_MEMBERS

#: Adds a member to the tool registry's list, then makes the envs' preset again.
ADDS_A_MEMBER = """
import importlib, json
from searchgym.envs import roles
from searchgym.tools import tool_registry
tool_registry.PRESET_ROLES = (*tool_registry.PRESET_ROLES, "critic")
roles = importlib.reload(roles)
print(json.dumps({"members": roles.PRESET_MEMBERS, "preset": [r.name for r in roles.roles_preset()]}))
"""


def test_the_preset_members_are_as_they_were():
    assert PRESET_MEMBERS == (("lead", True), ("searcher", False), ("analyst", False))


def test_the_roles_preset_is_made_from_the_tool_registrys_list():
    result = subprocess.run([sys.executable, "-c", ADDS_A_MEMBER], capture_output=True, text=True, check=True,
                            timeout=300, cwd=Path(__file__).parents[2])
    there = json.loads(result.stdout.strip().splitlines()[-1])
    assert there["members"] == [["lead", True], ["searcher", False], ["analyst", False], ["critic", False]]
    assert there["preset"] == ["lead", "searcher", "analyst", "critic"]
