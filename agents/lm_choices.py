"""Where a guided LM goes wrong: its accuracy on each kind of choice of the reader's held-out episodes.

Why: an episode succeeds only when every choice in it is right, so test success alone cannot say
whether a model fails to decide when to answer, which tool to call, which name to look up or which
answer to give. Here each choice of a reader transcript (``reader_transcripts(..., guided=True)``,
on dev tasks) is scored teacher-forced: the model reads the reader's own stream up to the choice
and takes the argmax among the ids guided decoding allows there.

The kinds: ``act`` (a tool call or an answer: the turn's first token), ``tool`` (the tool's name),
``arg`` (any later token of a call, mostly which name to look up) and ``answer`` (a token of the
answer). ``episodes``: the share of transcripts whose every choice is right.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

KINDS = ("act", "tool", "arg", "answer")
_TOOL_NAME_OPENING = '"name": "'


def choice_kind(token_ids: Sequence[int], position: int, allowed: Sequence[int], tokenizer: Any) -> str:
    """The kind of the choice of ``token_ids[position]`` among ``allowed`` (see the module docstring)."""
    call, answer = tokenizer.convert_tokens_to_ids("<tool_call>"), tokenizer.convert_tokens_to_ids("<answer>")
    if call in allowed or answer in allowed:
        return "act"
    if tokenizer.decode(list(token_ids[max(0, position - 8):position])).endswith(_TOOL_NAME_OPENING):
        return "tool"
    opening = next((t for t in reversed(token_ids[:position]) if t in (call, answer)), call)
    return "answer" if opening == answer else "arg"


@torch.no_grad()
def choice_accuracy(model: Any, transcripts: Sequence[Any], tokenizer: Any, batch_size: int = 8) -> dict[str, Any]:
    """Teacher-forced argmax accuracy per kind of choice, its count, and the share of whole episodes
    right. ``transcripts``: :class:`~searchgym.agents.lm_sft.Transcript` rows with ``allowed`` ids."""
    rows = [t for t in transcripts if any(len(a) > 1 for a in t.allowed.values())]
    right = dict.fromkeys(KINDS, 0)
    count = dict.fromkeys(KINDS, 0)
    whole = 0
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    for start in range(0, len(rows), batch_size):
        batch = rows[start:start + batch_size]
        width = max(len(t.token_ids) for t in batch)
        ids = torch.full((len(batch), width), tokenizer.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for i, t in enumerate(batch):
            ids[i, :len(t.token_ids)] = torch.tensor(t.token_ids)
            mask[i, :len(t.token_ids)] = 1
        logits = model(input_ids=ids.to(device), attention_mask=mask.to(device)).logits
        for i, t in enumerate(batch):
            all_right = True
            for position, allowed in sorted(t.allowed.items()):
                if len(allowed) < 2:
                    continue  # a forced token is no choice
                options = list(allowed)
                chosen = options[int(logits[i, position - 1, options].argmax())]  # position - 1 predicts position
                kind = choice_kind(t.token_ids, position, allowed, tokenizer)
                ok = chosen == t.token_ids[position]
                right[kind] += ok
                count[kind] += 1
                all_right &= ok
            whole += all_right
    model.train(was_training)
    return {**{k: right[k] / count[k] if count[k] else None for k in KINDS}, "counts": count,
            "episodes": whole / len(rows) if rows else None, "transcripts": len(rows)}
