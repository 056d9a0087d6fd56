"""The tool protocol: a name, a JSON-schema description, and a call that never raises.

Tools speak the OpenAI / Hermes function format (``schema()``), so
``tokenizer.apply_chat_template(messages, tools=[t.schema() for t in tools])`` works unchanged.
A bad argument is a :class:`ToolResult` with ``ok=False`` and a message that says what was
wrong and what is accepted: an agent's mistake is an observation, never an exception.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
}


@dataclass(frozen=True)
class ToolResult:
    """What a tool returns: text for the agent, and ``evidence_ids`` (fact ids it revealed)."""

    text: str
    ok: bool = True
    error: str | None = None
    evidence_ids: tuple[str, ...] = ()

    @classmethod
    def failure(cls, message: str) -> ToolResult:
        return cls(text=f"Error: {message}", ok=False, error=message)


class Tool(ABC):
    """Base class: subclasses set ``name``, ``description``, ``parameters`` and implement ``run``."""

    name: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[dict[str, Any]] = {"type": "object", "properties": {}, "required": []}

    def schema(self) -> dict[str, Any]:
        """The OpenAI / Hermes function description of this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }

    def __call__(self, /, **arguments: Any) -> ToolResult:
        # positional-only: an agent's argument named "self" is one more unknown argument, not a TypeError
        problem = validate_arguments(self.name, self.parameters, arguments)
        if problem is not None:
            return ToolResult.failure(problem)
        try:
            return self.run(**arguments)
        except Exception as exc:  # a tool must never raise into the env
            return ToolResult.failure(f"{self.name} failed on these arguments: {type(exc).__name__}: {exc}")

    @abstractmethod
    def run(self, **arguments: Any) -> ToolResult:
        """Do the work on validated arguments."""


def validate_arguments(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> str | None:
    """Check ``arguments`` against a flat JSON schema; return a message, or None when valid."""
    props: dict[str, Any] = schema.get("properties", {})

    def accepted() -> str:  # only an error message reads it (a step's call is almost always valid)
        return ", ".join(f"{k} ({v.get('type', 'any')})" for k, v in props.items()) or "no arguments"

    unknown = sorted(set(arguments) - set(props))
    if unknown:
        return f"{tool} got unknown argument(s) {unknown}; accepted: {accepted()}"
    missing = [k for k in schema.get("required", []) if k not in arguments]
    if missing:
        return f"{tool} is missing required argument(s) {missing}; accepted: {accepted()}"
    for key, value in arguments.items():
        expected = props[key].get("type")
        types = _JSON_TYPES.get(expected or "", ())
        if types and (not isinstance(value, types) or (expected != "boolean" and isinstance(value, bool))):
            article = "an" if str(expected)[:1] in "aeiou" else "a"
            return f"{tool} argument {key!r} must be {article} {expected}, got {_json_kind(value)}"
    return None


def _json_kind(value: Any) -> str:
    """What the agent sent, in JSON's words. Why: arguments arrive frozen (a JSON object or array
    is a tuple by then), so "got tuple" named neither what was sent nor anything JSON has."""
    if isinstance(value, tuple | list | dict):
        return "a JSON object or array"
    kinds = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", type(None): "null"}
    return next((kind for t, kind in kinds.items() if isinstance(value, t)), type(value).__name__)
