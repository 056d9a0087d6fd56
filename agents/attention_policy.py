"""AttentionPolicy (``--policy attn``): candidate scores from learned attention, not hand-written features.

Why: the ``hash`` policy sees a bag of the question's and the actions' words, no result text and
no names, so it cannot learn that "birthplace" asks for a fact whose provenance says "born in",
nor which name in a result is the next hop. Here (tokens: ``attn_tokens.py``):

1. the context (question, latest step blocks with their result text, the blackboard's notes) is
   embedded (word bucket + anonymised entity slot + segment + position + recency + exact-match
   channel) and mixed by one self-attention block; computed once per observation;
2. each admissible candidate's tokens (action, then provenance) go through one self-attention
   block of their own and one cross-attention block into their observation's context;
3. score_j = MLP([mean_j, max_j, q, mean_j * q, f_j, f_j * q, taken_j, h_j]), with q the pooled
   question, f_j the question-weighted mean of the candidates that state a fact about candidate
   j's name (``policy.pool_facts``) and h_j the features the ``hash`` policy reads beside its
   embeddings (``LexicalOverlap``, ``HopFeatures``) and ``OperandSources`` (``hop_features=False``
   leaves h_j out), with ``ComparisonStanding`` when ``comparison_facts=True``; value =
   MLP(pooled context).

Why h_j: the learned part alone matched 0.879 of the reader's held-out decisions on quick-v2, the
``hash`` policy 0.893; the hand-written features say which name comes first and which tool was
tried, the attention reads the result text and the relation's wording, and together they reach
more than either (docs/SFT.md).

Same interface as :class:`~searchgym.agents.policy.CandidatePolicy` (``forward``, ``act``,
``evaluate``, ``distribution``, ``value_head``); masked logits are ``finfo.min``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn
from torch.nn import functional as F

from .attn_tokens import MAX_POSITION, MAX_RECENCY, N_ENTITY, SEGMENTS, ObservationTokens, Tokenizer, Tokens
from .comparison_features import ComparisonStanding
from .encoders import BoundedCache, resolve_device
from .hop_features import HopFeatures
from .operand_features import OperandSources
from .policy import CandidatePolicy, LexicalOverlap, _mlp, batch_observations, pool_facts

__all__ = ["AttentionPolicy", "make_attention_policy"]

#: Observations per forward chunk in large batches (sorted by length, so little padding).
CHUNK = 32


class Block(nn.Module):
    """Pre-norm multi-head attention (self or cross) + feed-forward, with residuals."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        if dim % heads:
            raise ValueError(f"dim must be a multiple of heads; got dim={dim}, heads={heads}")
        self.heads = heads
        self.norm_q, self.norm_kv, self.norm_ff = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.q, self.kv, self.out = nn.Linear(dim, dim), nn.Linear(dim, 2 * dim), nn.Linear(dim, dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def _split(self, x: Tensor) -> Tensor:
        b, n, d = x.shape
        return x.view(b, n, self.heads, d // self.heads).transpose(1, 2)

    def forward(self, x: Tensor, kv: Tensor | None, allowed: Tensor) -> Tensor:
        """x [B, L, D]; kv [B, S, D] (None: self-attention); allowed [B, L, S] or [B, 1, S], True = attend."""
        q = self.norm_q(x)
        k, v = self.kv(q if kv is None else self.norm_kv(kv)).chunk(2, dim=-1)
        att = F.scaled_dot_product_attention(self._split(self.q(q)), self._split(k), self._split(v),
                                             attn_mask=allowed.unsqueeze(1))
        x = x + self.out(att.transpose(1, 2).reshape(x.shape))
        return x + self.ff(self.norm_ff(x))


class AttentionPolicy(CandidatePolicy):
    """See the module docstring. ``dim`` the width, ``heads`` per attention block."""

    def __init__(self, dim: int = 64, heads: int = 4, hidden: int = 64, n_buckets: int = 4096,
                 hop_features: bool = True, comparison_facts: bool = False) -> None:
        nn.Module.__init__(self)
        if comparison_facts and not hop_features:
            raise ValueError("comparison_facts=True is read beside the hand-written features: it needs hop_features=True")
        self.dim, self.n_buckets = dim, n_buckets
        self.tokenizer = Tokenizer(n_buckets)
        self.word = nn.Embedding(n_buckets, dim, padding_idx=0)
        self.entity = nn.Embedding(N_ENTITY, dim)
        self.segment = nn.Embedding(len(SEGMENTS), dim)
        self.position = nn.Embedding(MAX_POSITION, dim)
        self.recency = nn.Embedding(MAX_RECENCY + 1, dim)
        self.match = nn.Linear(2, dim)
        for emb in (self.word, self.entity, self.segment, self.position, self.recency):
            nn.init.normal_(emb.weight, std=0.3)
        with torch.no_grad():
            self.word.weight[0].zero_()
        self.context_block = Block(dim, heads)
        self.bind = nn.Linear(dim, dim)
        self.cand_cross = Block(dim, heads)
        self.norm = nn.LayerNorm(dim)
        self.overlap = LexicalOverlap() if hop_features else None
        self.operands = OperandSources() if hop_features else None
        self.comparisons = ComparisonStanding() if comparison_facts else None
        self.n_features = (LexicalOverlap.n_features + HopFeatures.n_features + OperandSources.n_features
                           if hop_features else 0) + (ComparisonStanding.n_features if comparison_facts else 0)
        self.score_head = _mlp(6 * dim + 1 + self.n_features, hidden, 1, out_std=0.01)
        self.value_head = _mlp(dim, hidden, 1, out_std=1.0)
        self.hops = HopFeatures()
        self.fact_query = nn.Linear(dim, dim, bias=False)
        self._tokens = BoundedCache(8192)
        # COMA's critic reads word overlap (embed): the scores' own reader when they use one (one memo)
        self.critic_overlap = self.overlap if self.overlap is not None else LexicalOverlap()
        self.n_overlap = LexicalOverlap.n_features

    @property
    def device(self) -> torch.device:
        return self.word.weight.device

    def tokens(self, text: str, candidates: Sequence[str]) -> ObservationTokens:
        """The observation's token arrays, memoised (rollouts and update epochs see the same ones)."""
        return self._tokens.get_or_make((text, tuple(candidates)), lambda: self.tokenizer(text, candidates))

    def _embed(self, ints: np.ndarray, match: np.ndarray) -> Tensor:
        """[B, L, D] embeddings of padded token arrays (ints [B, L, 5], match [B, L, 2])."""
        t = torch.from_numpy(ints).to(self.device)
        return (self.word(t[..., 0]) + self.entity(t[..., 1]) + self.segment(t[..., 2]) + self.position(t[..., 3])
                + self.recency(t[..., 4]) + self.match(torch.from_numpy(match).to(self.device)))

    @staticmethod
    def _pad(parts: Sequence[Sequence[Tokens]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Each row's token arrays concatenated and padded: ints [B, L, 5], match [B, L, 2], the part
        index of each token [B, L] (-1 - position for padding) and the lengths [B]."""
        lengths = np.array([sum(len(p.ints) for p in row) for row in parts])
        size = max(1, int(lengths.max()))
        ints = np.zeros((len(parts), size, 5), dtype=np.int64)
        match = np.zeros((len(parts), size, 2), dtype=np.float32)
        owner = np.tile(-1 - np.arange(size), (len(parts), 1))
        for i, row in enumerate(parts):
            at = 0
            for j, p in enumerate(row):
                n = len(p.ints)
                ints[i, at:at + n], match[i, at:at + n], owner[i, at:at + n] = p.ints, p.match, j
                at += n
        return ints, match, owner, lengths

    def forward(self, obs_batch: Sequence[dict[str, Any]]) -> tuple[Tensor, Tensor]:
        texts, cands, mask = batch_observations(obs_batch)
        toks = [self.tokens(t, c) for t, c in zip(texts, cands)]
        about = np.stack([self.hops.facts_about(c) for c in cands])
        feats = None
        if self.overlap is not None:
            feats = np.stack([np.concatenate([self.overlap.observation_features(t, c),
                                              self.hops.observation_features(t, c),
                                              self.operands.observation_features(t, c)]
                                             + ([self.comparisons.observation_features(t, c)]
                                                if self.comparisons is not None else []), axis=1)
                              for t, c in zip(texts, cands)]).astype(np.float32)
        if len(toks) <= CHUNK:
            logits, values = self._forward(toks, mask, about, feats=feats)
        else:  # chunks of similar length: padding to the chunk's longest costs little
            size = [len(o.context.ints) + sum(len(o.candidates[c].ints) for c in np.flatnonzero(m))
                    for o, m in zip(toks, mask)]
            order = np.argsort(size, kind="stable")
            chunks = np.array_split(order, -(-len(order) // CHUNK))
            parts = [self._forward([toks[i] for i in idx], mask[idx], about[idx],
                                   feats=None if feats is None else feats[idx]) for idx in chunks]
            back = torch.from_numpy(np.argsort(order)).to(self.device)
            logits = torch.cat([p[0] for p in parts])[back]
            values = torch.cat([p[1] for p in parts])[back]
        return logits, values

    # ---------------------------------------------------------------- what a critic reads (COMA)
    @property
    def encoder(self) -> TokenBag:
        """A text encoder for critics that embed chosen actions (COMA): mean token embedding."""
        return TokenBag(self)

    @torch.no_grad()
    def embed(self, obs_batch: Sequence[dict[str, Any]]) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        """(e_obs [B, D], e_cand [B, N, D], mask [B, N], overlap [B, N, F]) as CandidatePolicy.embed
        gives them: the pooled context, each candidate's pooled tokens, LexicalOverlap features."""
        texts, cands, mask = batch_observations(obs_batch)
        toks = [self.tokens(t, c) for t, c in zip(texts, cands)]
        e_obs, cand = self._forward(toks, mask, None, features=True)
        e_cand = cand.new_zeros(*mask.shape, self.dim)
        e_cand[torch.as_tensor(mask, device=self.device)] = cand
        overlap = np.stack([self.critic_overlap.observation_features(t, c) for t, c in zip(texts, cands)])
        overlap_t = torch.from_numpy(overlap).float().to(self.device)
        return e_obs, e_cand, torch.as_tensor(mask, device=self.device), overlap_t

    def _forward(self, toks: list[ObservationTokens], mask: np.ndarray, about: np.ndarray | None = None,
                 features: bool = False, feats: np.ndarray | None = None) -> tuple[Tensor, Tensor]:
        dev = self.device
        # 1. the context of each observation, once
        c_ints, c_match, _, c_len = self._pad([[o.context] for o in toks])
        ctx_keep = torch.from_numpy(np.arange(c_ints.shape[1])[None, :] < np.maximum(c_len, 1)[:, None]).to(dev)
        ctx = self.context_block(self._embed(c_ints, c_match), None, ctx_keep.unsqueeze(1))
        is_question = torch.from_numpy(c_ints[..., 2] == SEGMENTS.index("question")).to(dev)
        q_pool = self._mean(ctx, is_question)
        ctx_mean = self.norm(self._mean(ctx, ctx_keep))
        values = self.value_head(ctx_mean).squeeze(-1)
        # 2. every admissible candidate of an observation in one sequence; each token gets its
        # candidate's mean (binding subject, relation and object), then cross-attends to the context
        rows, cols = np.nonzero(mask)
        per_row = [[toks[r].candidates[c] for c in cols[rows == r]] for r in range(len(toks))]
        k_ints, k_match, owner, _ = self._pad(per_row)
        first = np.concatenate([[0], np.cumsum([len(r) for r in per_row])[:-1]])
        real = torch.from_numpy(owner >= 0).to(dev)
        flat = torch.from_numpy((first[:, None] + np.maximum(owner, 0))[owner >= 0]).to(dev)
        x = self._embed(k_ints, k_match)
        bound = x[real] + self.bind(self._segment_mean(x[real], flat, len(rows))[flat])
        x = x.masked_scatter(real.unsqueeze(-1), bound)
        x = self.norm(self.cand_cross(x, ctx, ctx_keep.unsqueeze(1)))
        # 3. pool each candidate's tokens (mean and max), score it beside the question
        tokens = x[real]
        mean = self._segment_mean(tokens, flat, len(rows))
        index = flat.unsqueeze(1).expand_as(tokens)
        maxed = torch.zeros(len(rows), self.dim, device=dev).scatter_reduce(0, index, tokens, "amax", include_self=False)
        if features:
            return ctx_mean, mean
        question = self.norm(q_pool)
        q = question[torch.from_numpy(rows).to(dev)]
        # 4. what the other candidates state about each candidate's name, weighed by the question
        admissible = torch.as_tensor(mask, device=dev)
        dense = mean.new_zeros(*mask.shape, self.dim).masked_scatter(admissible.unsqueeze(-1), mean)
        facts = pool_facts(self.fact_query(question), dense, torch.from_numpy(about).to(dev), admissible)[admissible]
        taken = torch.from_numpy(np.array([toks[r].taken[c] for r, c in zip(rows, cols)], dtype=np.float32))
        parts = [mean, maxed, q, mean * q, facts, facts * q, taken.to(dev).view(-1, 1)]
        if feats is not None:
            parts.append(torch.from_numpy(feats[rows, cols]).to(dev))
        features_j = torch.cat(parts, -1)
        scores = self.score_head(features_j).squeeze(-1)
        floor = torch.full(mask.shape, torch.finfo(scores.dtype).min, dtype=scores.dtype, device=dev)
        return floor.masked_scatter(admissible, scores), values

    def _segment_mean(self, tokens: Tensor, owner: Tensor, n: int) -> Tensor:
        total = torch.zeros(n, self.dim, device=tokens.device, dtype=tokens.dtype).index_add(0, owner, tokens)
        ones = torch.ones_like(owner, dtype=tokens.dtype)
        count = torch.zeros(n, device=tokens.device, dtype=tokens.dtype).index_add(0, owner, ones)
        return total / count.clamp_min(1).unsqueeze(1)

    @staticmethod
    def _mean(x: Tensor, keep: Tensor) -> Tensor:
        k = keep.unsqueeze(-1).to(x.dtype)
        return (x * k).sum(1) / k.sum(1).clamp_min(1.0)


class TokenBag:
    """Texts -> [len, D]: the mean of their tokens' embeddings (a text alone, names slotted in it)."""

    def __init__(self, policy: AttentionPolicy) -> None:
        self.policy, self.dim = policy, policy.dim

    @torch.no_grad()
    def __call__(self, texts: Sequence[str]) -> Tensor:
        parts = [self.policy.tokenizer("", [t]).candidates[0] for t in texts]
        ints, match, owner, _ = AttentionPolicy._pad([[p] for p in parts])
        keep = torch.from_numpy(owner >= 0).to(self.policy.device)
        return AttentionPolicy._mean(self.policy._embed(ints, match), keep)


ATTN_KWARGS = ("dim", "heads", "hidden", "n_buckets", "hop_features", "comparison_facts")


def make_attention_policy(device: str | torch.device = "cpu", seed: int | None = None,
                          **kwargs: Any) -> AttentionPolicy:
    """An AttentionPolicy on ``device``; ``seed`` fixes the initial weights without touching the
    global RNG state."""
    unknown = sorted(set(kwargs) - set(ATTN_KWARGS))
    if unknown:
        raise ValueError(f"unknown option(s) for the attn policy: {', '.join(unknown)}; "
                         f"accepted: {', '.join(ATTN_KWARGS)}")
    scope = torch.random.fork_rng(devices=[]) if seed is not None else contextlib.nullcontext()
    with scope:
        if seed is not None:
            torch.manual_seed(seed)
        policy = AttentionPolicy(**kwargs)
    return policy.to(resolve_device(device))
