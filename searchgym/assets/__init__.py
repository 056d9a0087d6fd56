"""Package data: ``leaderboard_schema.json`` (a submission's JSON schema) and ``chat_tokenizer.json``
(the offline chat tokenizer). A package of its own so that the wheel declares it; nothing to import."""
