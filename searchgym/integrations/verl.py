"""searchgym's tools as verl ``BaseTool`` s, and the reward function that scores their episodes.

verl's tool agent loop (``agent_name: tool_agent``) parses the model's tool calls and, for each,
calls ``create`` (with the row's ``tools_kwargs[tool]["create_kwargs"]``), ``execute`` and
``release`` on the tool named in the call. :class:`SearchgymTool` is every searchgym tool
(``web_search``, ..., and ``answer``; the tool config YAML gives one entry per tool, all this
class, each with its schema): ``execute`` steps the row's task in searchgym's env with the call,
so the tool's reply and step reward are the env's (the reply without the env's ``<tool_response>``
wrapper: verl makes it a ``tool`` message, which the chat template wraps). All calls of one
trajectory share one episode: verl 0.7+ creates a tool instance per call and passes the
trajectory's ``agent_data``, in whose ``extra_fields`` the episode's key is kept. Without
``agent_data`` (verl 0.6 passes none) an episode is keyed by the instance, which verl 0.6 makes
and releases for every call, so each call would play a new episode: hence ``verl>=0.7``.

The episode's return, whether it ended and its calls go in ``agent_data.extra_fields``.
verl's ``ToolAgentLoop`` drops those fields, so the export's rows run
:class:`~searchgym.integrations.verl_agent_loop.SearchgymToolAgentLoop`, which hands them to
:func:`searchgym.integrations.verl_reward.compute_score` (re-exported here) when the trajectory
ends and gives verl the env's return as its reward, reading no gold answer from the dataset.

Without verl installed (it needs a GPU to train), the tool subclasses :class:`VerlBaseToolStandIn`,
a minimal copy of the interface it uses, so the same code can be run and tested; ``VERL_INSTALLED``
says which. ``searchgym export --format verl`` writes the dataset and the tool config.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

import searchgym
from searchgym.actions import unwrap_tool_result
from searchgym.integrations.verl_reward import compute_score, task_locator

__all__ = ["VERL_INSTALLED", "SearchgymTool", "ToolResponseStandIn", "VerlBaseToolStandIn", "compute_score"]

#: How many unfinished episodes one process keeps (the oldest is dropped past it).
MAX_LIVE_EPISODES = 4096


@dataclass
class ToolResponseStandIn:
    """verl's ``ToolResponse`` (text only) when verl is not installed."""

    text: str | None = None


class VerlBaseToolStandIn:
    """The interface of verl's ``verl.tools.base_tool.BaseTool`` this module uses, for when verl is
    not installed: ``__init__(config, tool_schema)`` setting ``name`` from the schema, and async
    ``create``, ``execute``, ``calc_reward`` and ``release``."""

    def __init__(self, config: dict, tool_schema: Any) -> None:
        self.config = config
        self.tool_schema = tool_schema
        function = tool_schema["function"] if isinstance(tool_schema, dict) else tool_schema.function
        self.name = function["name"] if isinstance(function, dict) else function.name

    def get_openai_tool_schema(self) -> Any:
        return self.tool_schema

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, ToolResponseStandIn]:
        return instance_id or str(uuid4()), ToolResponseStandIn()

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any) -> tuple[Any, float, dict]:
        raise NotImplementedError

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        return 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        return None


try:
    from verl.tools.base_tool import BaseTool as _Base
    from verl.tools.schemas import ToolResponse

    VERL_INSTALLED = True
except ImportError:
    _Base, ToolResponse = VerlBaseToolStandIn, ToolResponseStandIn
    VERL_INSTALLED = False


@dataclass
class Episode:
    """One trajectory's episode: its env (None once over), return, calls and last info."""

    locator: dict[str, Any]
    env: Any
    total: float = 0.0
    done: bool = False
    success: bool = False
    calls: list[dict[str, Any]] = field(default_factory=list)


class Episodes:
    """The episodes of one process by trajectory key, shared by every tool (a call to ``answer``
    ends the episode ``web_search`` started). Finished ones are kept, without their env, so a
    late call cannot start the task again."""

    def __init__(self, limit: int = MAX_LIVE_EPISODES) -> None:
        self.limit = limit
        self._by_key: OrderedDict[str, Episode] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str, locator: dict[str, Any]) -> Episode:
        with self._lock:
            episode = self._by_key.get(key)
            if episode is not None:
                if episode.locator != locator:
                    raise ValueError(f"trajectory {key!r} plays {episode.locator}, not {locator}")
                self._by_key.move_to_end(key)
                return episode
            env = searchgym.make_task_env(locator["suite"], locator["split"], locator["task_id"])
            env.reset(seed=locator["seed"])
            episode = self._by_key[key] = Episode(locator, env)
            while len(self._by_key) > self.limit:
                _, old = self._by_key.popitem(last=False)
                if old.env is not None:
                    old.env.close()
            return episode

    def peek(self, key: str) -> Episode | None:
        return self._by_key.get(key)

    def drop(self, key: str) -> None:
        with self._lock:
            episode = self._by_key.pop(key, None)
        if episode is not None and episode.env is not None:
            episode.env.close()


EPISODES = Episodes()


class SearchgymTool(_Base):
    """Any searchgym tool of a text suite (its name is the schema's): steps the row's task."""

    def __init__(self, config: dict, tool_schema: Any) -> None:
        super().__init__(config, tool_schema)
        self._instances: dict[str, dict[str, Any]] = {}

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, Any]:
        instance_id = instance_id or str(uuid4())
        self._instances[instance_id] = task_locator(kwargs)
        return instance_id, ToolResponse()

    @staticmethod
    def _key(instance_id: str, agent_data: Any) -> str:
        """The trajectory's own token in ``agent_data.extra_fields`` (not ``request_id``: verl's
        deterministic mode reuses those across steps), else the instance (older verl)."""
        fields = getattr(agent_data, "extra_fields", None)
        if fields is None:
            return f"instance:{instance_id}"
        return "trajectory:" + fields.setdefault("searchgym_episode", uuid4().hex)

    async def execute(self, instance_id: str, parameters: dict[str, Any], **kwargs: Any) -> tuple[Any, float, dict]:
        if instance_id not in self._instances:
            raise ValueError(f"no {self.name} instance {instance_id!r}: call create first")
        agent_data = kwargs.get("agent_data")
        episode = EPISODES.get(self._key(instance_id, agent_data), self._instances[instance_id])
        if episode.done:
            return ToolResponse(text="The episode is over: the answer was given or the steps ran out."), 0.0, {}
        call = {"name": self.name, "arguments": parameters}
        text, reward, terminated, truncated, info = episode.env.step(call)
        episode.calls.append(call)
        episode.total += float(reward)
        episode.done, episode.success = bool(terminated or truncated), bool(info.get("success", False))
        if episode.done:
            episode.env.close()
            episode.env = None
        if agent_data is not None:
            agent_data.extra_fields.update({"searchgym_reward": episode.total, "searchgym_done": episode.done,
                                            "searchgym_success": episode.success,
                                            "searchgym_calls": list(episode.calls)})
        # before: the env's <tool_response> wrapper was kept, and the chat template wrapped it again
        return ToolResponse(text=unwrap_tool_result(text)), float(reward), {"searchgym_done": episode.done,
                                                        "searchgym_success": episode.success}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        """The episode's return so far (0.0 before its first call)."""
        episode = EPISODES.peek(self._key(instance_id, kwargs.get("agent_data")))
        return episode.total if episode is not None else 0.0

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        """Forget the instance; an episode keyed by it (no ``agent_data``) ends with it, one keyed by
        the trajectory (verl 0.7+: an instance per call) lives on for the trajectory's next call."""
        self._instances.pop(instance_id, None)
        EPISODES.drop(f"instance:{instance_id}")
