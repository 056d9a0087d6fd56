"""The layout of the candidate policies' parameters, as a number that run folders and base files record.

Why its own torch-free module: the harness writes it into every run's ``config.json`` (a folder
made by policies of another layout is a different run, never a result to reuse), and the light
core runs the harness without torch; ``agents.sft_base`` stamps the same number on base files.
"""

from collections.abc import Mapping

#: 2: policies read the facts other candidates state about a name (``fact_context``).
POLICY_FORMAT = 2
#: Policies whose layout changed since: 3 for ``attn``, whose score also reads the word-overlap,
#: hop and operand-source features. A policy's own number keeps the others' run folders valid.
LATER_LAYOUTS = {"attn": 3}


def policy_format(policy: str) -> int:
    """The layout number of ``policy``'s parameters (run folders and base files record it)."""
    return LATER_LAYOUTS.get(policy, POLICY_FORMAT)


#: Versions of the optional feature sets that a policy kwarg turns on (``comparison_facts=True``).
#: Their columns and values are part of the layout: when what one computes changes, its number
#: goes up, so that bases and run folders made with the earlier version are different runs, not
#: results to reuse. 2: the options are the ends of the question's paths (the first version
#: counted any name one fact away from the question's). 3: an option's figure is keyed by the
#: entity its path reaches, not by its plain name (an option's namesake had its figure).
FEATURE_VERSIONS = {"comparison_facts": 3}


def feature_versions(policy_kwargs: Mapping | None) -> dict[str, int]:
    """The versions of the feature sets ``policy_kwargs`` turns on ({} when none: the identity of
    a run or base without them stays what it was before versions were recorded)."""
    kwargs = policy_kwargs if isinstance(policy_kwargs, Mapping) else {}
    return {name: version for name, version in FEATURE_VERSIONS.items() if kwargs.get(name)}
