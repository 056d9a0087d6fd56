"""How the scripted endpoint names itself in every reply, and what a run reads back from that.

Why: the model name a run records is the user's (``--model oracle`` put a run the scripted server
played on the board as a model), and that server answers any name. Each chat completion it sends
carries ``system_fingerprint`` ``searchgym-scripted-<behaviour>`` (OpenAI's field saying which backend
served a reply); the endpoint agent records it with each turn, ``searchgym evaluate`` sums it into
``result.json["endpoint"]["scripted"]``, and a run so served is marked privileged whatever its model
name (:mod:`searchgym.harness.privileged_runs`).
"""

from __future__ import annotations

from collections.abc import Iterable

#: What every scripted reply's ``system_fingerprint`` starts with (an older server sent it alone).
FINGERPRINT_PREFIX = "searchgym-scripted"
#: The behaviour read from a bare :data:`FINGERPRINT_PREFIX`, which names none.
UNNAMED = "unnamed"
#: The scripted endpoint's behaviours (``searchgym serve --behaviour``).
BEHAVIOURS = ("oracle", "random", "reader", "prose", "hostile", "stall")
#: behaviour -> the baseline whose recorded text actions it replays
SCRIPTED = {"oracle": "oracle", "stall": "oracle", "random": "random"}
#: Behaviours whose replies carry nothing of the task's gold evidence chain: every one that replays no
#: oracle. Any other name (``oracle``, ``stall``, one unnamed or unknown) counts as replaying the oracle.
CONVERSATION_ONLY = frozenset(b for b in BEHAVIOURS if SCRIPTED.get(b) != "oracle")
#: The longest fingerprint kept from a reply (a server may send anything there).
MAX_FINGERPRINT_CHARS = 200


def fingerprint(behaviour: str) -> str:
    """The ``system_fingerprint`` of the scripted endpoint's replies in ``behaviour``."""
    return f"{FINGERPRINT_PREFIX}-{behaviour}"


def scripted_behaviour(value: object) -> str | None:
    """The behaviour a reply's ``system_fingerprint`` names when the scripted endpoint sent it
    (:data:`UNNAMED` for the bare prefix), else None (another server, or no fingerprint)."""
    if not isinstance(value, str):
        return None
    if value == FINGERPRINT_PREFIX:
        return UNNAMED
    behaviour = value.removeprefix(FINGERPRINT_PREFIX + "-")
    return behaviour if behaviour != value and behaviour else None


def replays_oracle(behaviours: Iterable[object]) -> bool:
    """Whether replies in any of ``behaviours`` (a run's recorded list) replayed the oracle's actions."""
    return any(isinstance(b, str) and b not in CONVERSATION_ONLY for b in behaviours)


__all__ = ["BEHAVIOURS", "CONVERSATION_ONLY", "SCRIPTED", "FINGERPRINT_PREFIX", "MAX_FINGERPRINT_CHARS", "UNNAMED", "fingerprint",
           "replays_oracle", "scripted_behaviour"]
