"""Guided decoding: a token automaton over the admissible replies, walked while a turn is generated.

Why: at each step the sampler may only pick a token that keeps the reply a prefix of an
admissible reply (:mod:`searchgym.agents.llm_reply_grammar`), so every reply parses by
construction and the model only ranks the admissible continuations (what vLLM and outlines call
guided decoding). Where one token is allowed it is written without asking the model (the
"jump-forward" of SGLang): most of a tool call's markup costs no sampling step.

The automaton is a token trie over the canonical byte-level BPE ids of each complete reply (the
ids the tokenizer gives the whole text, the ids SFT trained on), plus the list answer's loop:
``name; `` leads to a node from which each further name continues (and may again end in ``; ``).
The canonical ids of a joined list are the concatenation of these pieces' ids when the
pre-tokenizer splits at the separator (:func:`list_joint` checks which way the space goes) and
the answer's markup is an added token (tested on the reader's list answers). A reply ends at a node marked final.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .llm_reply_grammar import AdmissibleReplies


class TokenAutomaton:
    """Nodes are integers; ``children[node]`` maps a token id to the next node."""

    def __init__(self) -> None:
        self.children: list[dict[int, int]] = [{}]
        self.final: list[bool] = [False]

    def _new(self) -> int:
        self.children.append({})
        self.final.append(False)
        return len(self.children) - 1

    def insert(self, ids: Sequence[int], start: int = 0) -> int:
        """Add the path ``ids`` from ``start`` (sharing existing edges); returns its last node."""
        node = start
        for token in ids:
            nxt = self.children[node].get(int(token))
            if nxt is None:
                nxt = self._new()
                self.children[node][int(token)] = nxt
            node = nxt
        return node

    def link(self, node: int, token: int, target: int) -> None:
        """An edge to an existing node (the list loop); an edge already there is kept."""
        self.children[node].setdefault(int(token), target)

    def allowed(self, node: int) -> list[int]:
        return list(self.children[node])

    def step(self, node: int, token: int) -> int:
        nxt = self.children[node].get(int(token))
        if nxt is None:
            raise ValueError(f"token {token} is not admissible here; allowed: {self.allowed(node)[:20]}")
        return nxt

    def accepts(self, ids: Sequence[int]) -> bool:
        """Whether ``ids`` is one complete admissible reply."""
        node = 0
        for token in ids:
            node = self.children[node].get(int(token), -1)
            if node < 0:
                return False
        return self.final[node]

    def __len__(self) -> int:
        return len(self.children)


def build_automaton(replies: AdmissibleReplies, tokenizer: Any) -> TokenAutomaton:
    """The automaton of ``replies`` over ``tokenizer``'s ids (see the module docstring)."""
    encode = _encoder(tokenizer)
    automaton = TokenAutomaton()
    for ids in encode(list(replies.calls)):
        automaton.final[automaton.insert(ids)] = True
    if not replies.answers:
        return automaton
    opened = automaton.insert(encode([replies.answer_open])[0])
    close = encode([replies.answer_close])[0]
    loop, done = automaton._new(), automaton._new()  # after "; ", and after the answer's close
    automaton.final[done] = True
    items = list(replies.list_items)
    joint = list_joint(tokenizer)
    later = [joint[1] + n for n in items] if joint else []
    for start, texts in ((opened, list(replies.answers)), (loop, later)):
        for ids in encode(texts):  # ... then the close
            automaton.link(automaton.insert(close[:-1], automaton.insert(ids, start)), close[-1], done)
    for start, texts in ((opened, items if joint else []), (loop, later)):
        for ids in encode([t + joint[0] for t in texts]):  # ... then the separator and another name
            automaton.link(automaton.insert(ids[:-1], start), ids[-1], loop)
    return automaton


def list_joint(tokenizer: Any) -> tuple[str, str] | None:
    """How ``"; "`` splits between two names in the tokenizer's canonical ids: ``(";", " ")`` (the
    space starts the next name, GPT-2's split), ``("; ", "")`` (it ends the separator), or None
    (neither: list answers are then not joined)."""
    encode = _encoder(tokenizer)
    whole, *_ = encode(["Ab Cd; Ef Gh"])
    for separator, prefix in ((";", " "), ("; ", "")):
        head, tail = encode(["Ab Cd" + separator, prefix + "Ef Gh"])
        if whole == head + tail and encode(["Ab Cd"])[0] == head[:-1]:
            return separator, prefix
    return None


def _encoder(tokenizer: Any):
    """Batch encoding without special tokens (a fast tokenizer's batch call when there is one)."""
    def encode(texts: list[str]) -> list[list[int]]:
        if not texts:
            return []
        return [list(ids) for ids in tokenizer(texts, add_special_tokens=False)["input_ids"]]

    return encode


class GuidedReply:
    """One row's walk through an automaton while its turn is generated."""

    def __init__(self, automaton: TokenAutomaton) -> None:
        self.automaton, self.node = automaton, 0

    @property
    def done(self) -> bool:
        return self.automaton.final[self.node]

    def allowed(self) -> list[int]:
        return self.automaton.allowed(self.node)

    def advance(self, token: int) -> None:
        self.node = self.automaton.step(self.node, token)

    def forced(self) -> list[int]:
        """The tokens that follow with no choice (one allowed token each), stopping at a final node."""
        out, node = [], self.node
        children = self.automaton.children
        while not self.automaton.final[node] and len(children[node]) == 1:
            token, node = next(iter(children[node].items()))
            out.append(token)
        return out
