"""The kind of a round: the tool of the action a step chose (``web_search``, ``calculator``,
``current_time``, ..., or ``answer``, ``post``, ``wait``).

CW-GRPO weighs rounds by the judge's contribution c_k = u_k v_k, and u_k (new gold evidence) can
be 1 only for a round whose result carries world facts. Which rounds those are is a property of
the round's kind, so the estimator and the analysis (``benchmarks/cw_weights.py``) read it here.
"""

from __future__ import annotations

from .trajectory import Step

#: kinds whose results can carry gold evidence, so the judge's u_k can be 1 for them: the lookups
#: (world facts), the clock (its "clock" evidence, gold in temporal tasks) and the clarification
#: (gold in ambiguous tasks). A calculator, post, wait or answer round never reveals evidence.
EVIDENCE_KINDS = frozenset({"web_search", "knowledge_base", "current_time", "ask_for_clarification"})
UNKNOWN = "unknown"


def kind_of_text(candidate: str) -> str:
    """``'calculator(expression="2 * 3")  <- note'`` -> ``'calculator'``: the name before the
    first parenthesis of a candidate's text; ``'unknown'`` for a text without one."""
    name, paren, _ = str(candidate).partition("(")
    name = name.strip()
    return name if paren and name.isidentifier() else UNKNOWN


def round_kind(step: Step) -> str:
    """The kind of the candidate ``step`` chose; ``'unknown'`` when its observation lists none
    (trajectories built by hand, text-mode steps)."""
    candidates = step.obs.get("candidates") if isinstance(step.obs, dict) else None
    if candidates is None or not 0 <= step.action < len(candidates):
        return UNKNOWN
    return kind_of_text(candidates[step.action])
