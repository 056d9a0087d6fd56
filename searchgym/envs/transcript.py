"""The transcript part of a candidate-mode observation: the header, the question (and a team's
blackboard), then the most recent steps that fit in ``max_obs_chars``.

Why a module of its own: the text is rebuilt every step, and the pieces it is made of are kept
between steps (each step's block once, the head until the blackboard changes, and the last text
while every block fitted: a new step then only adds its block). A mixin of
:class:`~searchgym.envs.session.SearchSession`, which sets up ``header``, ``task``, ``config``,
``transcript``, ``_block_memo``, ``_head`` and ``_whole``.
"""

from __future__ import annotations

from searchgym.envs.spaces import is_clean, sanitize
from searchgym.observation_format import question_text, step_block


class Transcript:
    """``transcript_text``: what the text of a candidate observation shows (see the module docstring)."""

    def transcript_text(self, extra: str = "") -> str:
        """Question, header and the most recent rounds that fit in ``max_obs_chars``."""
        if self._head[0] != extra:  # the same every step but for a team's blackboard text
            header = f"{self.header}\n" if self.header else ""
            question = question_text(self.task.question) + "\n"
            board = extra.rstrip() + "\n" if extra else ""
            room = self.config.max_obs_chars - len(question)
            if len(header) + len(board) > room:
                # a small max_obs_chars cuts the board, then the header, never the question (before: a
                # team's role header filled the text and the question was cut off)
                board = board[:max(room, 0)]
                left = room - len(board)
                header = header[:left - 1] + "\n" if left > 1 else ""
            head = header + question + board
            self._head = (extra, head, is_clean(head))
        head_state = self._head
        _, head, clean = head_state
        blocks = self._blocks()
        whole = self._whole
        if whole is not None and whole[0] is head_state:
            # every block fitted last time: if the new ones fit in what was left, every block fits
            # again, and the text is the last one with the new blocks after it
            _, counted, budget, clean, text = whole
            fresh = blocks[counted:]
            size = sum(len(block) for block, _ in fresh)
            if size <= budget:
                if fresh:
                    text += "".join(block for block, _ in fresh)
                    clean = clean and all(block_clean for _, block_clean in fresh)
                    self._whole = (head_state, len(blocks), budget - size, clean, text)
                return text[:self.config.max_obs_chars] if clean else sanitize(text, self.config.max_obs_chars)
        budget = self.config.max_obs_chars - len(head)
        parts: list[str] = []
        cut = False
        for i in range(len(blocks) - 1, -1, -1):
            block, block_clean = blocks[i]
            if len(block) > budget:
                if not parts:
                    parts.append(block[:max(budget, 0)])
                    clean = clean and block_clean
                cut = True
                break
            parts.append(block)
            clean = clean and block_clean
            budget -= len(block)
        text = head + "".join(reversed(parts))
        self._whole = None if cut else (head_state, len(blocks), budget, clean, text)
        # sanitize maps character by character, so text made of clean parts is already sanitised
        return text[:self.config.max_obs_chars] if clean else sanitize(text, self.config.max_obs_chars)

    def _blocks(self) -> list[tuple[str, bool]]:
        """("Step k: action\\nresult\\n", is it already in the charset) per round, built once."""
        for i in range(len(self._block_memo), len(self.transcript)):
            line, result = self.transcript[i]
            # the block adds "Step k: " and newlines to the two texts: it is clean when they are
            block = step_block(i + 1, line, result)
            self._block_memo.append((block, is_clean(line) and is_clean(result)))
        return self._block_memo
