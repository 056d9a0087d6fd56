"""The OpenAI-compatible endpoint agent and its test servers (apart from the harness, which only runs).

Modules: ``openai_agent`` (an Actor that asks a chat-completions endpoint for every action;
``searchgym evaluate --agent openai``), ``chat_client`` (the bounded HTTP client), ``chat_replies``
(a reply's tool calls, read defensively), ``openai_replies`` (building replies as a server would),
``scripted_endpoint`` (a local server that replays baselines or misbehaves, for tests and
benchmarks; ``searchgym serve``), ``raw_server`` (a socket server that drips bytes, for deadline tests).
"""
