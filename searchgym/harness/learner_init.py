"""``--option init=...``: where a comparison's learning methods start (``scratch``, or ``sft``: the
supervised base). Only a learner reads it; the base itself and the baselines take a comparison-wide
one as a no-op. Why: ``make main``'s command passes ``--option init=sft``, so re-running it with a
subset of its methods (``--methods sft`` in the same folder) was refused: "unknown option 'init'".
"""

from __future__ import annotations

from typing import Any

#: The values a learner's ``init`` accepts (``searchgym.agents.train.INITS``, which needs torch; a test ties the two).
INITS = ("scratch", "sft")
#: Its spellings: the training config's field, plain or with its section (as a learner reads them).
INIT_OPTIONS = ("init", "train.init")


def learners_init(option: str, value: Any) -> bool:
    """Whether ``option`` is a learner's ``init``; one whose value no learner accepts is a ValueError (a method
    that does not read it still refuses a typo, as a learner would)."""
    if option not in INIT_OPTIONS:
        return False
    if not isinstance(value, str) or value not in INITS:
        raise ValueError(f"unknown init {value!r} (--option {option}); accepted: {', '.join(INITS)}")
    return True
