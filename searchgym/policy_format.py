"""The layout of the candidate policies' parameters, as a number that run folders and base files record.

Why its own torch-free module: the harness writes it into every run's ``config.json`` (a folder
made by policies of another layout is a different run, never a result to reuse), and the light
core runs the harness without torch; ``agents.sft_base`` stamps the same number on base files.
"""

#: 2: policies read the facts other candidates state about a name (``fact_context``).
POLICY_FORMAT = 2
#: Policies whose layout changed since: 3 for ``attn``, whose score also reads the word-overlap,
#: hop and operand-source features. A policy's own number keeps the others' run folders valid.
LATER_LAYOUTS = {"attn": 3}


def policy_format(policy: str) -> int:
    """The layout number of ``policy``'s parameters (run folders and base files record it)."""
    return LATER_LAYOUTS.get(policy, POLICY_FORMAT)
