"""The OpenAI-compatible endpoint agent and its test servers (apart from the harness, which only runs).

Modules: ``openai_agent`` (an Actor that asks a chat-completions endpoint for every action;
``searchgym evaluate --agent openai``), ``chat_client`` (the bounded HTTP client), ``chat_replies``
(a reply's tool calls, read defensively), ``openai_replies`` (building replies as a server would),
``scripted_endpoint`` (a local server that replays baselines or misbehaves, for tests and
benchmarks; ``searchgym serve``), ``scripted_identity`` (how its replies name it, so a run it played is
known whatever model name the run was given), ``raw_server`` (a socket server that drips bytes, for deadline
tests).
"""


def check_port(port: object, name: str = "port") -> int:
    """A TCP port a loopback server can bind (0: any free one), else one error line naming ``name``
    (``--port`` for the commands). Why one function: ``ScriptedEndpoint``, ``searchgym serve`` and
    the OpenEnv server each said it in their own words, and two of them only after building a world."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"{name} must be an int in 0..65535 (0: any free port), got {port!r}")
    return port
