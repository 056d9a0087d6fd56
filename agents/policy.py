"""CandidatePolicy: scores the env's admissible candidates; one interface for every backbone.

    policy = make_policy("hash", device="cpu", seed=0)
    logits, values = policy(obs_batch)                      # [B, N] (masked = finfo.min), [B]
    actions, log_probs, values = policy.act(obs_batch, generator)     # no grad, for rollouts
    log_probs, entropy, values = policy.evaluate(obs_batch, actions)  # with grad, for updates

An observation is {"text": str, "candidates": tuple[str, ...] (padded with ""), "action_mask":
int array (N,), 1 = admissible}. Score of candidate j = MLP([e_obs, e_j, e_obs * e_j, overlap_j]):
the element-wise product and the exact word-overlap features (`LexicalOverlap`, switch off with
overlap_features=False) let the MLP see the overlap between the question and a candidate's
provenance, the main signal. Value = MLP(e_obs). Masked logits are torch.finfo(dtype).min (not
-inf, so softmax, entropy and gradients stay finite): their probability is exactly 0, they are
never sampled, and no gradient reaches their scores.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from searchgym.envs.config import MAX_SEED
from searchgym.named_registry import NamedRegistry
from searchgym.observation_format import QUESTION_PREFIX

from .comparison_features import ComparisonStanding
from .config_checks import check_int
from .encoders import ENCODERS, BoundedCache, TextEncoder, make_encoder, resolve_device
from .hop_features import HopFeatures
from .lexical_overlap import LexicalOverlap, question_of
from .operand_features import OperandSources
from .policy_kwarg_types import check_kwarg_types

__all__ = [
    "CandidatePolicy",
    "LexicalOverlap",
    "batch_observations",
    "make_policy",
    "question_of",
    "resolve_device",
    "state_of",
]

def state_of(text: str) -> str:
    """What the observation embedding sees: the header, the question and the actions taken so far.

    Why: the transcript's result bodies are long and would drown the question in a bag-of-n-grams
    embedding; what a result revealed reaches the policy through the candidates and their
    provenance instead. Lines kept: everything before the question, the question, ``Step k: ...``
    action lines, the blackboard header and its notes (``[round r] author: text``, see
    docs/OBSERVATIONS.md).
    """
    kept, seen_question = [], False
    for line in text.splitlines():
        if line.startswith(QUESTION_PREFIX):
            seen_question = True
            kept.append(line)
        elif not seen_question or line.startswith(("Step ", "Blackboard", "[round ")):
            kept.append(line)
    return "\n".join(kept) if seen_question else text


def batch_observations(obs_batch: Sequence[dict[str, Any]]) -> tuple[list[str], list[list[str]], np.ndarray]:
    """Validate a batch of observations; pad to the largest N; return texts, candidates, bool mask [B, N]."""
    if len(obs_batch) == 0:
        raise ValueError("empty observation batch; pass a list of at least one observation dict")
    texts: list[str] = []
    cands: list[list[str]] = []
    masks: list[np.ndarray] = []
    for i, obs in enumerate(obs_batch):
        if not isinstance(obs, dict) or not {"text", "candidates", "action_mask"} <= obs.keys():
            got = sorted(obs) if isinstance(obs, dict) else type(obs).__name__
            raise ValueError(
                f"observation {i} must be a dict with keys text, candidates, action_mask; got {got}"
            )
        cand = [str(c) for c in obs["candidates"]]
        mask = np.asarray(obs["action_mask"]).astype(bool).reshape(-1)
        if mask.shape[0] != len(cand):
            raise ValueError(
                f"observation {i}: action_mask has {mask.shape[0]} entries "
                f"but there are {len(cand)} candidates"
            )
        if not mask.any():
            raise ValueError(f"observation {i}: no admissible action (action_mask is all 0)")
        texts.append(str(obs["text"]))
        cands.append(cand)
        masks.append(mask)
    n = max(len(c) for c in cands)
    mask_arr = np.zeros((len(cands), n), dtype=bool)
    for i, (c, m) in enumerate(zip(cands, masks)):
        mask_arr[i, : len(m)] = m
        c.extend([""] * (n - len(c)))
    return texts, cands, mask_arr


def pool_facts(query: Tensor, e_cand: Tensor, about: Tensor, mask: Tensor) -> Tensor:
    """[B, N, D]: for each candidate j, the admissible candidates stating facts about j's name
    (``about[b, j, k]``, a bool, and ``mask[b, k]``) averaged with softmax weights query_b . e_k (which
    facts count depends on the question); 0 for a candidate without any."""
    relevance = torch.einsum("bd,bnd->bn", query, e_cand)
    stated = about & mask.unsqueeze(1)
    weights = stated * torch.exp(relevance - relevance.max(dim=-1, keepdim=True).values).unsqueeze(1)
    return torch.bmm(weights / weights.sum(dim=-1, keepdim=True).clamp_min(1e-12), e_cand)


def _mlp(inp: int, hidden: int, out: int, out_std: float) -> nn.Sequential:
    last = nn.Linear(hidden, out)
    nn.init.orthogonal_(last.weight, out_std)  # small last layer: near-uniform initial policy (CleanRL)
    nn.init.zeros_(last.bias)
    return nn.Sequential(nn.Linear(inp, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), last)


class CandidatePolicy(nn.Module):
    """Encoder + candidate-scoring MLP + value MLP. Several policies may share one encoder.

    With `overlap_features=True` (default) the score MLP also sees `LexicalOverlap` features:
    MLP([e_obs, e_j, e_obs * e_j, overlap_j]); False gives exactly MLP([e_obs, e_j, e_obs * e_j]).

    `temperature` divides the logits of `distribution` (so of `act` and `evaluate`): 1 but while a
    trainer explores (`TrainConfig.rollout_temperature`, set through `Population.sampling_temperature`).
    It is not a weight: a saved policy acts at 1.
    """

    temperature: float = 1.0

    def __init__(self, encoder: TextEncoder, hidden: int = 128, overlap_features: bool = True,
                 fact_context: bool = True, operand_sources: bool = False, comparison_facts: bool = False) -> None:
        super().__init__()
        self.encoder = encoder
        d = encoder.dim
        self.overlap = LexicalOverlap() if overlap_features else None
        self.hops = HopFeatures() if (overlap_features or fact_context) else None
        self.fact_context = fact_context
        #: features per candidate beside the embeddings (LexicalOverlap then HopFeatures), as embed gives them
        self.n_overlap = LexicalOverlap.n_features + HopFeatures.n_features if overlap_features else 0
        if operand_sources and not overlap_features:
            raise ValueError("operand_sources=True is read beside the word-overlap features: it needs "
                             "overlap_features=True")
        self.operands = OperandSources() if operand_sources else None
        self.n_overlap += OperandSources.n_features if self.operands is not None else 0
        if comparison_facts and not overlap_features:
            raise ValueError("comparison_facts=True is read beside the word-overlap features: it needs "
                             "overlap_features=True")
        self.comparisons = ComparisonStanding() if comparison_facts else None
        self.n_overlap += ComparisonStanding.n_features if self.comparisons is not None else 0
        self.score_head = _mlp((5 if fact_context else 3) * d + self.n_overlap, hidden, 1, out_std=0.01)
        # which facts about a name matter depends on the question: the observation weighs them
        self.fact_query = nn.Linear(d, d, bias=False) if fact_context else None
        self.value_head = _mlp(d, hidden, 1, out_std=1.0)
        self._states = BoundedCache(8192)

    @property
    def device(self) -> torch.device:
        return self.score_head[0].weight.device

    def _state_of(self, text: str) -> str:
        """``state_of``, memoised (rollouts and update epochs embed the same observations)."""
        return self._states.get_or_make(text, lambda: state_of(text))

    def embed(self, obs_batch: Sequence[dict[str, Any]]) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
        """(e_obs [B, D], e_cand [B, N, D], mask [B, N] bool, overlap [B, N, F] or None).

        Every distinct text in the batch is encoded once.
        """
        return self._embed(obs_batch)[:4]

    def _embed(self, obs_batch: Sequence[dict[str, Any]]) -> tuple[Tensor, Tensor, Tensor, Tensor | None, Tensor | None]:
        """``embed``'s four, and the [B, N, N] facts-about matrix (``HopFeatures.facts_about``) or None."""
        texts, cands, mask = batch_observations(obs_batch)
        b, n = mask.shape
        all_texts = [self._state_of(t) for t in texts] + [c for row in cands for c in row]
        unique = list(dict.fromkeys(all_texts))
        index = {t: i for i, t in enumerate(unique)}
        emb = self.encoder(unique).to(self.device)
        idx = torch.tensor([index[t] for t in all_texts], device=self.device)
        gathered = emb[idx]
        overlap = None
        if self.overlap is not None:
            feats = np.concatenate([np.concatenate([self.overlap.observation_features(t, row),
                                                    self.hops.observation_features(t, row)]
                                                   + ([self.operands.observation_features(t, row)]
                                                      if self.operands is not None else [])
                                                   + ([self.comparisons.observation_features(t, row)]
                                                      if self.comparisons is not None else []), axis=1)
                                    for t, row in zip(texts, cands)])
            overlap = torch.from_numpy(feats).to(dtype=gathered.dtype, device=self.device).view(b, n, -1)
        about = None
        if self.fact_context:
            about = torch.from_numpy(np.stack([self.hops.facts_about(row) for row in cands]))
            about = about.to(device=self.device)
        return gathered[:b], gathered[b:].view(b, n, -1), torch.as_tensor(mask, device=self.device), overlap, about

    def score(self, e_obs: Tensor, e_cand: Tensor, mask: Tensor, overlap: Tensor | None = None,
              about: Tensor | None = None) -> Tensor:
        """Masked logits [B, N]: MLP([e_obs, e_j, e_obs * e_j(, f_j, e_obs * f_j)(, overlap_j)]), where
        f_j = ``pool_facts`` of the candidates stating facts about candidate j's name (their mean
        weighted by their match with the observation); finfo.min where masked."""
        # Only admissible candidates go through the MLP (about 60% of a padded batch is masked).
        e_o = e_obs.unsqueeze(1).expand_as(e_cand)[mask]
        e_c = e_cand[mask]
        parts = [e_o, e_c, e_o * e_c]
        if self.fact_context:
            if about is None:
                raise ValueError("this policy scores with the facts-about matrix (fact_context=True): pass about= "
                                 "[B, N, N], as _embed gives it")
            facts = pool_facts(self.fact_query(e_obs), e_cand, about, mask)[mask]
            parts += [facts, e_o * facts]
        parts += [overlap[mask]] if overlap is not None else []
        admissible = self.score_head(torch.cat(parts, dim=-1)).squeeze(-1)
        floor = torch.full(mask.shape, torch.finfo(admissible.dtype).min, dtype=admissible.dtype, device=mask.device)
        return floor.masked_scatter(mask, admissible)

    def forward(self, obs_batch: Sequence[dict[str, Any]]) -> tuple[Tensor, Tensor]:
        e_obs, e_cand, mask, overlap, about = self._embed(obs_batch)
        return self.score(e_obs, e_cand, mask, overlap, about), self.value_head(e_obs).squeeze(-1)

    def distribution(self, logits: Tensor) -> tuple[Tensor, Tensor]:
        """(log_probs [B, N], entropy [B]) of masked logits at the policy's temperature; masked
        entries add exactly 0 entropy."""
        if self.temperature != 1.0:
            logits = logits / self.temperature
        log_probs = torch.log_softmax(logits, dim=-1)
        probs = log_probs.exp()
        entropy = -torch.where(probs > 0, probs * log_probs, torch.zeros_like(probs)).sum(-1)
        return log_probs, entropy

    @torch.no_grad()
    def act(
        self,
        obs_batch: Sequence[dict[str, Any]],
        generator: torch.Generator | None = None,
        greedy: bool = False,
    ) -> tuple[Tensor, Tensor, Tensor]:
        """Sample (or argmax) one admissible candidate per observation: (actions, log_probs, values).

        Sampling happens on the generator's device (pass a CPU generator for results that do not
        depend on the accelerator). `generator` is required unless greedy.
        """
        logits, values = self(obs_batch)
        log_probs, _ = self.distribution(logits)
        if greedy:
            actions = logits.argmax(dim=-1)
        else:
            if generator is None:
                raise ValueError("act(..., greedy=False) needs a torch.Generator (seeded) for sampling")
            probs = log_probs.exp().to(generator.device)
            actions = torch.multinomial(probs, 1, generator=generator).squeeze(-1).to(logits.device)
        chosen = log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        return actions, chosen, values

    def evaluate(self, obs_batch: Sequence[dict[str, Any]], actions: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """(log_prob of `actions`, entropy, values), differentiable, for PPO updates; one admissible
        action per observation (else a ValueError, see `check_actions`)."""
        logits, values = self(obs_batch)
        log_probs, entropy = self.distribution(logits)
        actions = torch.as_tensor(actions, device=logits.device).long()
        check_actions(actions, logits)
        return log_probs.gather(-1, actions.view(-1, 1)).squeeze(-1), entropy, values


def check_actions(actions: Tensor, logits: Tensor) -> None:
    """One action per row of the masked ``logits`` [B, N], each an admissible candidate index.

    Before: 2 observations with 1 action gave log-probs [1] beside entropy [2] silently, action 999
    failed in torch's gather ("index 999 is out of bounds"), a masked action got log-prob -3.4e38.
    Cost: one vectorised check (a gather of the logits already computed, one sync)."""
    b, n = logits.shape
    if actions.numel() != b:
        raise ValueError(f"evaluate needs one action per observation; got {actions.numel()} action(s) for {b} "
                         "observations")
    flat = actions.reshape(-1)
    inside = flat.clamp(0, n - 1)
    picked = logits.detach().gather(-1, inside.view(-1, 1)).squeeze(-1)
    bad = (flat != inside) | (picked == torch.finfo(logits.dtype).min)
    if bool(bad.any()):
        i = int(bad.nonzero()[0, 0])
        a = int(flat[i])
        if not 0 <= a < n:
            raise ValueError(f"action {a} at position {i} is not a candidate index: accepted 0..{n - 1}")
        raise ValueError(f"action {a} at position {i} is masked (action_mask is 0 there): only admissible "
                         "candidates can be evaluated")


#: Size arguments of the policies and encoders make_policy builds: positive ints (before: hidden=0
#: built a zero-width head silently, hidden=8.0 failed deep in torch).
SIZE_KWARGS = ("hidden", "dim", "heads", "n_buckets", "cache_size", "batch_size", "max_length")


POLICY_KWARGS = ("hidden", "overlap_features", "fact_context", "operand_sources", "comparison_facts")
#: The learned-attention policy (agents/attention_policy.py), beside the encoder-backed ones.
ATTN = "attn"
#: Policies with an architecture of their own (no separate text encoder): name -> builder
#: ``(device=, seed=, **kwargs)``; lazy entries, since the builder's module imports this one for
#: :class:`CandidatePolicy`.
OWN_ARCHITECTURES: NamedRegistry[str] = NamedRegistry("policy")
OWN_ARCHITECTURES.add(ATTN, "searchgym.agents.attention_policy:make_attention_policy")


def returned_class(build: Callable[..., Any]) -> type | None:
    """The class that ``build``'s return annotation names; None where it names none or cannot be evaluated
    (a name only a type checker imports, an expression that fails). Only that annotation is evaluated.
    Why: the whole signature was, so one such annotation left every kwarg unchecked, and an expression
    that failed otherwise (``-> list[int] | 3``) was the error of every make_policy."""
    annotation = inspect.signature(build).return_annotation
    if isinstance(annotation, str):
        scope = getattr(inspect.unwrap(build), "__globals__", None) or {}
        try:
            annotation = eval(annotation, scope)  # as inspect.signature(eval_str=True) reads it
        except Exception:  # noqa: BLE001 (a user's annotation: any error means "not known")
            return None
    known = inspect.isclass(annotation) and annotation is not inspect.Signature.empty
    return annotation if known else None


def policy_builders(name: str) -> list[Callable[..., Any]]:
    """The constructors that policy ``name``'s kwargs go to, as :func:`make_policy` passes them on (a
    later one's parameter over an earlier one's): an own architecture's builder, after the class it
    returns where it passes ``**kwargs`` on and its return annotation names that class; else the
    encoder, then the candidate policy. Their signatures say which kwargs a policy takes, of what
    types, and at which defaults."""
    if name in OWN_ARCHITECTURES:
        build = OWN_ARCHITECTURES.load(name)
        made = returned_class(build)
        passes_on = any(p.kind is p.VAR_KEYWORD for p in inspect.signature(build).parameters.values())
        return [made, build] if passes_on and made is not None else [build]
    return [ENCODERS.load(name), CandidatePolicy]


def check_policy_kwarg_types(name: str, kwargs: dict[str, Any]) -> None:
    """Each kwarg of the type its constructor declares (before: ``operand_sources="false"`` turned the
    feature on). A builder's own parameters are always read; the kwargs it passes on (``**kwargs``) only
    where its return annotation names the class they go to."""
    check_kwarg_types(name, kwargs, policy_builders(name))


def make_policy(
    name: str,
    device: str | torch.device = "cpu",
    seed: int | None = None,
    encoder: TextEncoder | None = None,
    **kwargs: Any,
) -> CandidatePolicy:
    """Build a CandidatePolicy with encoder `name` ("hash", "minilm", "hf") on `device`, or the
    AttentionPolicy for `name="attn"` (its kwargs: dim, heads, hidden, n_buckets, hop_features,
    comparison_facts).

    `hidden=`, `overlap_features=`, `fact_context=`, `operand_sources=` (the `OperandSources`
    features of calculations) and `comparison_facts=` (the `ComparisonStanding` features of a
    comparison's options) go to the policy (the last two off by default, so that saved policies
    keep their layout; `make main` turns both on), other kwargs to the encoder (e.g. dim=,
    config=). `seed` makes the initial weights reproducible without touching torch's global RNG
    state. Pass `encoder=` to reuse an existing encoder (shared trunk); `name` must still be valid.
    A kwarg of another type than its constructor declares (`operand_sources="false"`, `dim=True`) is a
    TypeError naming it.
    """
    if seed is not None:  # before: -1 and 1.5 were taken, 2**70 was "Overflow when unpacking long long"
        seed = check_int("seed", seed, 0, MAX_SEED)
    for key in SIZE_KWARGS:
        if key in kwargs:
            check_int(key, kwargs[key], 1, why="a size")
    if name in OWN_ARCHITECTURES:  # e.g. learned attention over the observation's tokens, no text encoder
        if encoder is not None:
            raise ValueError(f"the {name} policy has no separate encoder to share; use population mode 'shared' "
                             "or 'separate'")
        check_policy_kwarg_types(name, kwargs)
        return OWN_ARCHITECTURES.load(name)(device=device, seed=seed, **kwargs)
    if name not in ENCODERS:
        raise ValueError(f"unknown policy/encoder {name!r}; accepted: {sorted([*ENCODERS, *OWN_ARCHITECTURES])}")
    check_policy_kwarg_types(name, kwargs)
    dev = resolve_device(device)
    policy_kwargs = {k: kwargs.pop(k) for k in POLICY_KWARGS if k in kwargs}
    rng_scope = torch.random.fork_rng(devices=[]) if seed is not None else contextlib.nullcontext()
    with rng_scope:
        if seed is not None:
            torch.manual_seed(seed)
        try:
            enc = encoder if encoder is not None else make_encoder(name, device=dev, **kwargs)
        except TypeError as err:  # the encoder names its own arguments; the policy's are these
            raise TypeError(f"{err}; and the candidate policy: {', '.join(POLICY_KWARGS)}") from err
        policy = CandidatePolicy(enc, **policy_kwargs)
    return policy.to(dev)
