"""Batched sampling with a KV cache that lives across turns (the ``"kv"`` generation backend).

Why: a multi-turn rollout asks for one turn at a time, and ``transformers`` ``generate`` re-reads
the whole conversation (a ~1,000-token system prompt with the tool schemas, the question, every
earlier tool result) on every turn. On a CPU that prefill is most of the cost. :class:`KVGenerator`
keeps the cache of the last batch: when every new prompt extends a row it already holds (the
previous turn's tokens plus the tool result), only the new tokens are fed. A fresh batch reuses
the longest prefix it shares with the previous fresh batch (the system prompt), computed once
and repeated over the rows.

Rows of different lengths share one cache: each fed chunk is right-padded, its pads are masked
out of every later query (``attention_mask`` 0), and each row gets its own ``position_ids``, so a
row's holes change nothing it computes. Sampling uses a ``torch.Generator`` seeded by the caller
(the global RNG is untouched): the same seed and batch give the same tokens. With ``guides``,
sampling is guided (:mod:`searchgym.agents.llm_guided`): only admissible tokens, forced ones fed
in one pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

_PREFIX_MIN = 32  # a shared prefix shorter than this is not worth a separate pass


class KVGenerator:
    """Generates turns for a batch of token prompts, reusing cached keys/values between calls."""

    def __init__(self, model: Any, tokenizer: Any, stop: Sequence[str], vocab_limit: int | None = None) -> None:
        self.model, self.tokenizer, self.stop = model, tokenizer, tuple(stop)
        self.vocab_limit = vocab_limit
        self.eos = tokenizer.eos_token_id
        self.pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else self.eos
        self._stop_chars = {s[-1] for s in self.stop}
        self._texts: dict[int, str] = {}
        self.last_allowed: list[list[tuple[int, ...]]] | None = None
        self.last_log_probs: list[list[float]] | None = None
        self.reset()

    def reset(self) -> None:
        """Forget every cached row (call after the weights change)."""
        self._rows: list[list[int]] = []
        self._cache: Any = None
        self._mask: torch.Tensor | None = None
        self._pos: torch.Tensor | None = None
        self._prefix: list[int] = []
        self._prefix_cache: list[tuple[torch.Tensor, torch.Tensor]] | None = None

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    # ------------------------------------------------------------------------------- feeding
    def _forward(self, chunks: list[list[int]]) -> torch.Tensor:
        """Feed each row its chunk (right-padded); returns the logits after each row's last token."""
        from transformers import DynamicCache

        device = self.device
        width = max(len(c) for c in chunks)
        ids = torch.full((len(chunks), width), self.pad, dtype=torch.long)
        new_mask = torch.zeros((len(chunks), width), dtype=torch.long)
        for r, chunk in enumerate(chunks):
            if chunk:
                ids[r, : len(chunk)] = torch.tensor(chunk, dtype=torch.long)
                new_mask[r, : len(chunk)] = 1
        positions = self._pos.unsqueeze(1) + torch.arange(width).unsqueeze(0)
        mask = torch.cat([self._mask, new_mask], dim=1)
        if self._cache is None:
            self._cache = DynamicCache()
        # the base model, then the LM head on each row's last position only (not on every fed token)
        base = self.model.base_model
        out = base(input_ids=ids.to(device), attention_mask=mask.to(device), position_ids=positions.to(device),
                   use_cache=True, **{_cache_argument(base): self._cache})
        self._mask = mask
        lengths = new_mask.sum(1)
        self._pos = self._pos + lengths
        last = (lengths - 1).clamp(min=0).to(device)
        hidden = out.last_hidden_state[torch.arange(len(chunks), device=device), last]
        return self.model.get_output_embeddings()(hidden).float()

    def _fresh(self, prompts: list[list[int]]) -> torch.Tensor:
        """A new batch: the shared prefix once (reused from the last fresh batch when it matches), then the rest."""
        from transformers import DynamicCache

        shared = _common_prefix(prompts, max(min(len(p) for p in prompts) - 1, 0))
        keep = len(_common_prefix([self._prefix, shared], len(shared))) if self._prefix_cache is not None else 0
        if keep >= _PREFIX_MIN:
            prefix = [(k[:, :, :keep], v[:, :, :keep]) for k, v in self._prefix_cache]
        elif len(shared) >= _PREFIX_MIN or len(prompts) == 1:
            keep = len(shared)
            self._cache, self._mask, self._pos = None, torch.zeros((1, 0), dtype=torch.long), torch.zeros(1, dtype=torch.long)
            if keep:
                self._forward([shared])
                prefix = [(layer.keys, layer.values) for layer in self._cache.layers]
            else:
                prefix = None
        else:
            keep, prefix = 0, None
        if prefix is not None and keep:
            self._prefix, self._prefix_cache = list(prompts[0][:keep]), prefix
        n = len(prompts)
        self._mask = torch.ones((n, keep), dtype=torch.long)
        self._pos = torch.full((n,), keep, dtype=torch.long)
        self._cache = DynamicCache(ddp_cache_data=[(k.repeat(n, 1, 1, 1), v.repeat(n, 1, 1, 1))
                                                   for k, v in prefix]) if keep else None
        self._rows = [list(p[:keep]) for p in prompts]
        return self._forward([p[keep:] for p in prompts])

    def _continue(self, prompts: list[list[int]]) -> torch.Tensor | None:
        """Every prompt extends a cached row: keep those rows (in prompt order) and feed the rest."""
        if self._cache is None or not self._rows:
            return None
        by_key = {(len(r), tuple(r)): i for i, r in enumerate(self._rows)}
        lengths = sorted({len(r) for r in self._rows}, reverse=True)
        picks = []
        for p in prompts:
            hit = next((by_key[(n, tuple(p[:n]))] for n in lengths if n < len(p) and (n, tuple(p[:n])) in by_key), None)
            if hit is None or hit in picks:
                return None
            picks.append(hit)
        index = torch.tensor(picks, dtype=torch.long)
        self._cache.batch_select_indices(index.to(self.device))
        self._mask, self._pos = self._mask[index], self._pos[index]
        chunks = [p[len(self._rows[i]):] for p, i in zip(prompts, picks)]
        self._rows = [list(self._rows[i]) for i in picks]
        return self._forward(chunks)

    # ------------------------------------------------------------------------------ sampling
    def _sample(self, logits: torch.Tensor, generator: torch.Generator, greedy: bool, temperature: float,
                top_p: float) -> torch.Tensor:
        if self.vocab_limit is not None and logits.shape[-1] > self.vocab_limit:
            logits[:, self.vocab_limit:] = -float("inf")
        if greedy or temperature <= 0:
            return logits.argmax(-1)
        probs = torch.softmax(logits / temperature, dim=-1)
        if top_p < 1.0:
            sorted_probs, order = probs.sort(dim=-1, descending=True)
            drop = sorted_probs.cumsum(-1) - sorted_probs > top_p
            sorted_probs[drop] = 0.0
            probs = torch.zeros_like(probs).scatter_(-1, order, sorted_probs)
        return torch.multinomial(probs.cpu(), 1, generator=generator).squeeze(1).to(logits.device)

    def _text(self, token: int) -> str:
        if token not in self._texts:
            self._texts[token] = self.tokenizer.decode([token], skip_special_tokens=False)
        return self._texts[token]

    def _stopped(self, new: list[int]) -> bool:
        if not self.stop or not any(c in self._text(new[-1]) for c in self._stop_chars):
            return False
        tail = self.tokenizer.decode(new[-24:], skip_special_tokens=False)
        return any(s in tail for s in self.stop)

    @torch.no_grad()
    def generate(self, prompts: Sequence[Sequence[int]], caps: Sequence[int], seed: int, greedy: bool = False,
                 temperature: float = 1.0, top_p: float = 1.0, guides: Sequence[Any] | None = None,
                 ) -> list[list[int]]:
        """New token ids for each prompt (at most ``caps[i]``; ending at eos or a stop string).

        ``guides`` (one :class:`~searchgym.agents.llm_guided.GuidedReply` per prompt): guided
        decoding. Each step samples among the tokens the row's guide allows (the logits of the
        others set to -inf, so the distribution is renormalised over the allowed ones); tokens
        with no alternative are appended and fed in the same pass; a row ends when its reply is
        complete. ``self.last_allowed[i]`` then holds, per new token, the ids that were allowed,
        and ``self.last_log_probs[i]`` the log-probability the token was drawn with (0 for a
        forced token), what the trainer must recompute (see ``llm_losses.token_log_probs``)."""
        prompts = [list(p) for p in prompts]
        if any(not p for p in prompts):
            raise ValueError("every prompt needs at least one token")
        if guides is not None and len(guides) != len(prompts):
            raise ValueError(f"need one guide per prompt; got {len(guides)} for {len(prompts)} prompts")
        training = self.model.training
        self.model.eval()
        try:
            logits = self._continue(prompts)
            if logits is None:
                logits = self._fresh(prompts)
            generator = torch.Generator().manual_seed(int(seed))
            news: list[list[int]] = [[] for _ in prompts]
            fed = [0] * len(prompts)  # how many new tokens of each row the cache holds
            allowed: list[list[tuple[int, ...]]] = [[] for _ in prompts]
            log_probs: list[list[float]] = [[] for _ in prompts]
            active = [True] * len(prompts)
            for _ in range(max(caps)):
                masks = self._guide_masks(logits, guides, active) if guides is not None else None
                if masks is not None:
                    logits = logits + masks
                tokens = self._sample(logits, generator, greedy, temperature, top_p)
                if guides is not None:
                    scale = temperature if not greedy and temperature > 0 else 1.0
                    chosen = torch.log_softmax(logits / scale, dim=-1).gather(1, tokens.unsqueeze(1)).squeeze(1)
                feed = []
                for r, token in enumerate(tokens.tolist()):
                    if not active[r]:
                        feed.append([])
                        continue
                    chunk = [token]
                    if guides is not None:
                        allowed[r].append(tuple(guides[r].allowed()))
                        log_probs[r].append(float(chosen[r]))
                        guides[r].advance(token)
                        forced = guides[r].forced()
                        for t in forced:
                            guides[r].advance(t)
                        chunk += forced
                        allowed[r] += [(t,) for t in forced]
                        log_probs[r] += [0.0] * len(forced)
                    room = caps[r] - len(news[r])
                    chunk = chunk[:room]
                    news[r] += chunk
                    ended = guides[r].done if guides is not None else (token == self.eos or self._stopped(news[r]))
                    if ended or len(news[r]) >= caps[r]:
                        active[r] = False
                        feed.append([])
                    else:
                        feed.append(chunk)
                        fed[r] = len(news[r])
                if not any(active):
                    break
                logits = self._forward(feed)
            for r, p in enumerate(prompts):  # what the cache holds: the prompt and every token fed
                self._rows[r] = p + news[r][:fed[r]]
            self.last_allowed = [a[:len(n)] for a, n in zip(allowed, news)] if guides is not None else None
            self.last_log_probs = [lp[:len(n)] for lp, n in zip(log_probs, news)] if guides is not None else None
        finally:
            self.model.train(training)
        return news

    @staticmethod
    def _guide_masks(logits: torch.Tensor, guides: Sequence[Any], active: Sequence[bool]) -> torch.Tensor:
        """0 on each active row's allowed ids, -inf elsewhere (an ended row is left unmasked)."""
        masks = torch.zeros_like(logits)
        rows, cols = [], []
        for r, guide in enumerate(guides):
            if active[r]:
                ids = guide.allowed()
                if not ids:
                    raise ValueError(f"row {r}: the guide allows no token (an automaton node without children)")
                masks[r] = -float("inf")
                rows += [r] * len(ids)
                cols += ids
        if rows:
            masks[torch.tensor(rows), torch.tensor(cols)] = 0.0
        return masks


def _cache_argument(model: Any) -> str:
    """``cache`` (transformers >= 5.2x) or ``past_key_values`` (older): the name ``forward`` takes."""
    import inspect

    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _common_prefix(seqs: Sequence[Sequence[int]], limit: int) -> list[int]:
    """The longest common prefix of ``seqs``, at most ``limit`` tokens."""
    first = seqs[0]
    n = 0
    while n < limit and all(len(s) > n and s[n] == first[n] for s in seqs):
        n += 1
    return list(first[:n])
