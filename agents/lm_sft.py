"""Supervised fine-tuning of a causal LM on the text-mode reader's transcripts (assistant tokens only).

Why: a model trained from scratch must first learn to write actions at all before RL can improve
which ones. The reader (:class:`~searchgym.baselines.reader_text.ReaderTextAgent`, the
non-privileged baseline: it sees only what an LLM sees) plays train tasks; each episode becomes
the very token stream a rollout builds (:mod:`searchgym.agents.llm_rollout`'s ``Conversation``:
system prompt, tools through the chat template, the question, each action, each tool result as
a tool message), so SFT and RL score the same tokens with the same ``loss_mask`` (1 on the
assistant's action tokens, 0 on the prompt, the tool results and the chat markup).

Only train-split tasks are played (the env is built on ``split="train"``); the dev and test
tasks' questions never enter the data.

Cost: every stream opens with the same ~900 tokens (system prompt, tool schemas, the accepted
forms). A step computes their keys/values once, without gradient, and feeds only the rest of each
row on top of them (``shared_prefix=True``): about four times fewer tokens per step. The gradient
then skips the path through the prefix's keys and values (the prefix itself is recomputed with
the current weights every step). ``shared_prefix=False`` trains on whole rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from .config_checks import check_in_range
from .llm_kv_generate import _cache_argument, _common_prefix
from .llm_policy import ChatCodec
from .llm_rollout import RolloutConfig, guide_for, open_conversation, unwrap_tool_response


@dataclass
class Transcript:
    task_id: str
    token_ids: list[int]
    loss_mask: list[int]
    success: bool
    turn: int = -1  # a per-turn row's turn index (-1: a whole episode)
    allowed: dict[int, tuple[int, ...]] = field(default_factory=dict)  # guided: token index -> ids allowed there


def reader_transcripts(env: Any, task_ids: Sequence[str], tokenizer: Any, config: RolloutConfig | None = None,
                       seed: int = 0, guided: bool = False) -> list[Transcript]:
    """The reader's episode on each task as a rollout token stream (``env``: an unwrapped text ``SearchEnv``).

    ``guided``: each action's tokens also get the ids guided decoding would allow there (from the
    admissible replies of what the reader had seen, :mod:`searchgym.agents.llm_guided`); an action
    outside them (the reader's "unknown") gets none."""
    from searchgym.baselines.reader_text import ReaderTextAgent

    config = config or RolloutConfig()
    codec = ChatCodec(tokenizer)
    holder = SimpleNamespace(codec=codec, tokenizer=tokenizer)
    rng = np.random.default_rng(seed)
    out = []
    for task_id in task_ids:
        agent = ReaderTextAgent()
        obs, info = env.reset(seed=int(rng.integers(2**31)), options={"task_id": task_id})
        conversation = open_conversation(holder, env.session, obs, config)
        done, turn = False, 0
        allowed: dict[int, tuple[int, ...]] = {}
        while not done:
            text = agent.act(env, obs)
            ids = codec.encode(text)
            if guided:
                allowed.update({len(conversation.token_ids) + k: a
                                for k, a in enumerate(allowed_along(guide_for(holder, conversation), ids))})
            conversation.add_turn(SimpleNamespace(token_ids=ids, text=text), turn)
            obs, _, terminated, truncated, info = env.step(text)
            done, turn = terminated or truncated, turn + 1
            if not done and not conversation.add_message(config.observation_role, unwrap_tool_response(obs),
                                                         config.min_turn_tokens):
                break  # over the token budget: the stream stops here, as a rollout's would
        out.append(Transcript(task_id, conversation.token_ids, conversation.loss_mask, bool(info.get("success")),
                              allowed=allowed))
    return out


def allowed_along(guide: Any, ids: Sequence[int]) -> list[tuple[int, ...]]:
    """The ids ``guide`` allows before each of ``ids`` (empty when ``ids`` is not an admissible reply)."""
    out = []
    for token in ids:
        allowed = tuple(guide.allowed())
        if token not in allowed:
            return []
        out.append(allowed)
        guide.advance(token)
    return out if guide.done else []


@dataclass
class SFTConfig:
    epochs: float = 2.0
    batch_size: int = 8
    lr: float = 3e-3
    warmup_steps: int = 10
    weight_decay: float = 0.0
    max_grad_norm: float = 1.0
    shared_prefix: bool = True
    per_turn: bool = False  # one row per assistant turn (the stream up to it, loss on it), batched by turn
    guided: bool = False  # the loss on guided choices only, each a softmax over the ids allowed there
    # Next-token loss on the rest of each row (the question, the tool results, the chat markup),
    # weighted beside the actions' loss: the text the actions must be read from is ~100 times more
    # tokens than the actions, and predicting it is what teaches a from-scratch model to copy a
    # name it has seen (0: the actions only).
    context_weight: float = 0.0
    seed: int = 0
    max_seconds: float | None = None  # stop early (after a whole step) once this much time is spent; the
    # learning rate then decays over the time budget (linearly to 5%), so a run cut by time still anneals;
    # a run the clock does not cut keeps the steps' schedule, the same for the same seed (train_sft)

    def __post_init__(self) -> None:
        if self.epochs <= 0 or self.batch_size < 1 or self.lr <= 0:
            raise ValueError(f"need epochs > 0, batch_size >= 1, lr > 0; got {self.epochs}, {self.batch_size}, {self.lr}")
        check_in_range("SFTConfig.context_weight", self.context_weight, 0.0, what=CONTEXT_WEIGHT, finite=True)
        self.context_weight = float(self.context_weight)


#: What ``context_weight`` is, in its error message.
CONTEXT_WEIGHT = "the next-token loss on the context, beside the actions' loss"


def masked_lm_loss(model: Any, rows: Sequence[Sequence[int]], masks: Sequence[Sequence[int]], pad_id: int,
                   prefix: Sequence[int] = (), allowed: Sequence[Mapping[int, Sequence[int]]] | None = None,
                   context_weight: float = 0.0) -> tuple[torch.Tensor, int]:
    """Mean cross-entropy of the tokens whose mask is 1 (each predicted from everything before it).

    ``rows`` continue ``prefix`` (shared by all, fed once without gradient; may be empty); the LM head
    runs on the scored positions only. ``allowed`` (per row, token index -> ids): a scored token
    listed there is a choice among those ids only (the softmax of guided decoding). ``context_weight``
    adds that weight times the mean next-token cross-entropy of every other real token of the rows
    (over the whole vocabulary)."""
    device = next(model.parameters()).device
    base, head = model.base_model, model.get_output_embeddings()
    n, p = len(rows), len(prefix)
    width = max(len(r) for r in rows)
    ids = torch.full((n, width), pad_id, dtype=torch.long)
    attn = torch.zeros((n, width), dtype=torch.long)
    scored = torch.zeros((n, width), dtype=torch.bool)
    for i, (r, m) in enumerate(zip(rows, masks)):
        ids[i, : len(r)] = torch.tensor(list(r))
        attn[i, : len(r)] = 1
        scored[i, : len(m)] = torch.tensor([bool(x) for x in m])
    extra: dict[str, Any] = {}
    if p:
        from transformers import DynamicCache

        with torch.no_grad():
            cache = DynamicCache()
            base(input_ids=torch.tensor([list(prefix)], device=device), use_cache=True,
                 **{_cache_argument(base): cache})
        cache = DynamicCache(ddp_cache_data=[(layer.keys.repeat(n, 1, 1, 1), layer.values.repeat(n, 1, 1, 1))
                                             for layer in cache.layers])
        extra = {_cache_argument(base): cache, "use_cache": True,
                 "position_ids": (p + torch.arange(width)).unsqueeze(0).expand(n, -1).to(device)}
        mask = torch.cat([torch.ones((n, p), dtype=torch.long), attn], dim=1)
    else:
        mask = attn
    hidden = base(input_ids=ids.to(device), attention_mask=mask.to(device), **extra).last_hidden_state
    # position j predicts token j + 1 (the prefix stops before the first scored token)
    targets, chosen = ids[:, 1:], scored[:, 1:]
    states = hidden[:, :-1][chosen.to(device)]
    count = int(chosen.sum())
    if count == 0:
        return hidden.sum() * 0.0, 0
    logits = head(states).float()
    if allowed is not None:
        logits = logits + _allowed_mask(chosen, allowed, logits.shape[-1]).to(device)
    loss = F.cross_entropy(logits, targets[chosen].to(device))
    if context_weight > 0:
        context = attn[:, 1:].bool() & ~chosen
        if bool(context.any()):
            context_logits = head(hidden[:, :-1][context.to(device)]).float()
            loss = loss + context_weight * F.cross_entropy(context_logits, targets[context].to(device))
    return loss, count


def _allowed_mask(chosen: torch.Tensor, allowed: Sequence[Mapping[int, Sequence[int]]], vocab: int) -> torch.Tensor:
    """-inf on the ids not allowed at each scored position (in ``chosen``'s row-major order); 0
    everywhere for a position without an allowed set."""
    places = chosen.nonzero().tolist()  # (row, j): position j predicts token j + 1
    mask = torch.zeros((len(places), vocab))
    entries, tokens = [], []
    for k, (i, j) in enumerate(places):
        ids = allowed[i].get(j + 1)
        if ids:
            mask[k] = -float("inf")
            entries += [k] * len(ids)
            tokens += list(ids)
    if entries:
        mask[torch.tensor(entries), torch.tensor(tokens)] = 0.0
    return mask


def turn_rows(transcripts: Sequence[Transcript]) -> list[Transcript]:
    """Each assistant turn as its own row: the stream cut after the turn, the loss on that turn only
    (a causal LM's earlier predictions do not depend on what follows)."""
    rows = []
    for t in transcripts:
        mask, turn, i = t.loss_mask, 0, 0
        while i < len(mask):
            if mask[i]:
                j = i
                while j < len(mask) and mask[j]:
                    j += 1
                rows.append(Transcript(t.task_id, t.token_ids[:j], [0] * i + [1] * (j - i), t.success, turn,
                                       {k: a for k, a in t.allowed.items() if i <= k < j}))
                turn, i = turn + 1, j
            else:
                i += 1
    return rows


def _batches(transcripts: Sequence[Transcript], config: SFTConfig, rng: np.random.Generator):
    """Index batches forever: shuffled epochs; with ``per_turn``, each batch from one turn index
    (rows of one turn have similar lengths: little padding)."""
    if not config.per_turn:
        while True:
            order = [int(i) for i in rng.permutation(len(transcripts))]
            for j in range(0, len(order), config.batch_size):
                yield order[j:j + config.batch_size]
    while True:
        pending = []
        by_turn: dict[int, list[int]] = {}
        for i in rng.permutation(len(transcripts)):
            by_turn.setdefault(min(transcripts[int(i)].turn, 3), []).append(int(i))
        for members in by_turn.values():
            pending += [members[j:j + config.batch_size] for j in range(0, len(members), config.batch_size)]
        for k in rng.permutation(len(pending)):
            yield pending[int(k)]


def train_sft(model: Any, transcripts: Sequence[Transcript], pad_id: int, config: SFTConfig,
              log: Callable[[dict], None] | None = None) -> dict[str, float]:
    """Fine-tune ``model`` in place on the transcripts; returns the last loss, steps and tokens/s
    (tokens fed through the model with gradient: the rows after the shared prefix)."""
    if not transcripts:
        raise ValueError("no transcripts to train on")
    if config.per_turn:
        transcripts = turn_rows(transcripts)
    if config.guided:  # score the choices only: a forced token's guided log-prob is 0 whatever the weights
        transcripts = [Transcript(t.task_id, t.token_ids, [int(len(t.allowed.get(j, ())) > 1) for j in
                                                           range(len(t.token_ids))], t.success, t.turn, t.allowed)
                       for t in transcripts]
        transcripts = [t for t in transcripts if any(t.loss_mask)]
        if not transcripts:
            raise ValueError("guided SFT needs transcripts with allowed ids (reader_transcripts(..., guided=True))")
    rows = [t.token_ids for t in transcripts]
    prefix = _common_prefix(rows, min(len(r) for r in rows) - 1) if config.shared_prefix else []
    # every scored token must be predicted from a fed position: the prefix stops before the first
    first_scored = min(t.loss_mask.index(1) for t in transcripts if 1 in t.loss_mask)
    prefix = prefix[: max(0, first_scored - 1)]
    p = len(prefix)
    rng = np.random.default_rng(config.seed)
    steps = int(np.ceil(config.epochs * len(rows) / config.batch_size))
    batches = _batches(transcripts, config, rng)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    start, tokens, loss_value, done = time.perf_counter(), 0, float("nan"), 0

    def progress(step: int) -> float:
        """The share of the run done: of the steps, or of max_seconds where the clock will end it first.
        The clock steers only where it is ahead of the steps by more than timing noise (10% and 1% of
        max_seconds). Why: taken whenever ahead, it set the first steps' rates from microseconds of
        clock, so the same seed gave other weights (in their last bits) though the clock never cut."""
        share = step / max(steps, 1)
        if config.max_seconds is not None:
            clock = (time.perf_counter() - start) / config.max_seconds
            if clock > 1.1 * share + 0.01:
                share = clock
        return min(share, 1.0)

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / max(config.warmup_steps, 1))
                                                 * max(0.05, 1 - progress(s)))
    model.train()
    for step in range(steps):
        batch = next(batches)
        allowed = [{k - p: a for k, a in transcripts[i].allowed.items()} for i in batch] if config.guided else None
        loss, _ = masked_lm_loss(model, [rows[i][p:] for i in batch], [transcripts[i].loss_mask[p:] for i in batch],
                                 pad_id, prefix, allowed, config.context_weight)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
        optimizer.step()
        schedule.step()
        tokens += sum(len(rows[i]) - p for i in batch)
        loss_value, done = float(loss.detach()), step + 1
        if log is not None and (step % 10 == 0 or step + 1 == steps):
            log({"sft_step": step + 1, "sft_loss": loss_value, "seconds": time.perf_counter() - start})
        if config.max_seconds is not None and time.perf_counter() - start > config.max_seconds:
            break
    model.eval()
    seconds = time.perf_counter() - start
    return {"sft_loss": loss_value, "sft_steps": done, "sft_seconds": seconds,
            "sft_tokens_per_s": tokens / max(seconds, 1e-9), "shared_prefix_tokens": p}
