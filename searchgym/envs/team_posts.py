"""TeamPosts: the ``post`` candidates of a team env (which lines of a result to offer).

Why a module of its own: it is the team env's largest piece of candidate logic, with memos that
outlive episodes. A mixin of :class:`~searchgym.envs.team.TeamSearchEnv`; it reads the env's
``task``, ``sessions``, ``blackboard``, ``reader``, ``_latest_tool_round``, ``_line_cache``,
``_options_cache``, ``_lines_memo``, ``_post_memo`` and ``_question_words`` (set up and reset there).
"""

from __future__ import annotations

from searchgym.action_types import Action
from searchgym.candidate_history import ExtraActions
from searchgym.candidates import Round
from searchgym.envs.blackboard import MAX_POST_CANDIDATES, NoteEvidence, padded, result_lines
from searchgym.judge import STOPWORDS
from searchgym.per_world import PerWorld

#: world -> (lines memo, post memo) shared by every team env of that world (searchgym.per_world).
_SHARED_MEMOS: PerWorld[tuple[dict, dict]] = PerWorld(lambda world: ({}, {}))


def shared_post_memos(world: object) -> tuple[dict, dict]:
    """The memos of result lines, and of post actions and their rankings, for ``world``'s team
    envs. Why shared: what a line carries depends only on the world, the task and the round (the
    key says which), and a trainer runs dozens of team envs on one world."""
    return _SHARED_MEMOS.get(world)


def clear_post_memos() -> None:
    """Empty every shared post memo (for benchmarks that time cold caches)."""
    for lines, posts in _SHARED_MEMOS.values():
        lines.clear()
        posts.clear()


class TeamPosts:
    """Post candidates: lines of an agent's latest tool result that carry evidence the board lacks."""

    def latest_tool_round(self, agent: str) -> Round | None:
        """The agent's latest successful tool call and its result (what it may post from)."""
        return self._latest_tool_round.get(agent)

    def _lines(self, agent: str) -> list[tuple[str, NoteEvidence, frozenset, str, frozenset[str]]]:
        """(line, evidence, what it carries, padded text, words) for the lines of the agent's
        latest tool result; computed once per result."""
        rnd = self._latest_tool_round.get(agent)
        cached = self._line_cache.get(agent)
        if rnd is None or (cached is not None and cached[0] is rnd):
            return cached[1] if cached is not None and rnd is not None else []
        # What a line carries depends only on the round and the task: the same result gives the same lines.
        result = rnd.result
        key = (self.task.id, rnd.action, result.text, result.evidence_ids, rnd.fact_ids, rnd.calculator_value,
               rnd.clock_year)
        lines = self._lines_memo.get(key)
        if lines is None:
            lines = self._lines_memo[key] = self._read_lines(rnd)
        self._line_cache[agent] = (rnd, lines, key)
        return lines

    def _read_lines(self, rnd: Round) -> list[tuple[str, NoteEvidence, frozenset, str, frozenset[str]]]:
        lines = []
        texts = result_lines(rnd)
        for line, ev in zip(texts, self.reader.read_lines(texts, rnd)):
            carried = frozenset(ev.evidence_ids) | ({ev.calculator_value} if ev.calculator_value else frozenset())
            if carried:
                haystack = padded(line)  # content_tokens(line), from the normalised line read once
                lines.append((line, ev, carried, haystack, frozenset([t for t in haystack.split() if t not in STOPWORDS])))
        return lines

    def post_options(self, agent: str) -> list[tuple[Action, NoteEvidence]]:
        """Post candidates with what each would carry: lines of the agent's latest tool result
        that carry evidence the blackboard lacks (one line per piece of evidence). Lines that
        name something the team already talks about (the question, the call's argument, a note)
        come first, then those sharing more of the question's words, then result order.

        They depend only on that result and the notes (the board only grows), so they are built
        again only after a new tool result or a new note; the same list is returned otherwise."""
        lines = self._lines(agent)
        if not lines:
            return []
        rnd = self._latest_tool_round[agent]
        board = self.blackboard
        cached = self._options_cache.get(agent)
        if cached is not None and cached[0] is rnd and cached[1] is board and cached[2] == len(board.notes):
            return list(cached[3])
        # at most half the list, less one: before, max_candidates <= 12 left only posts (not even ``wait``)
        options = self._rank_post_lines(agent, rnd, lines)[:max(self.config.max_candidates - 1, 0) // 2]
        self._options_cache[agent] = (rnd, board, len(board.notes), options)
        return list(options)

    def _rank_post_lines(self, agent: str, rnd: Round, lines: list) -> list[tuple[Action, NoteEvidence]]:
        """The ranking ``post_options`` describes, memoised (shared by the world's team envs) by
        what it reads: the lines (their memo key says the task and the round), what the board
        holds and the names the team talks about; episodes that replay a round meet it again."""
        on_board = self.blackboard.evidence_ids | self.blackboard.calculator_values
        known = {*self.sessions[agent].observed.question_names, *(n for note in self.blackboard.notes for n in note.names),
                 *(str(v) for v in rnd.action.args.values())}
        key = ("ranked", self._line_cache[agent][2], frozenset(on_board), frozenset(known))
        found = self._post_memo.get(key)
        if found is None:
            found = self._post_memo[key] = self._ranked_post_lines(rnd, lines, on_board, known)
        return found

    def _ranked_post_lines(self, rnd: Round, lines: list, on_board: set, known: set) -> list[tuple[Action, NoteEvidence]]:
        known_padded = [p for p in map(padded, known) if p.strip()]
        question = self._question_words
        scored, offered = [], set()
        for order, (line, ev, carried, haystack, words) in enumerate(lines):
            if carried <= on_board or carried in offered:  # nothing the board lacks, or offered already
                continue
            offered.add(carried)
            topical = any(map(haystack.__contains__, known_padded))
            scored.append((not topical, -len(words & question), order, line, ev))
        provenance = f"share a line of your {rnd.action.tool} result"
        ranked = sorted(scored)[:MAX_POST_CANDIDATES]  # ``order`` is unique: the comparison stops there
        return [(self._post(line, provenance), ev) for *_, line, ev in ranked]

    def _post(self, line: str, provenance: str) -> Action:
        action = self._post_memo.get((line, provenance))
        if action is None:
            action = self._post_memo[(line, provenance)] = Action.post(line, provenance)
        return action

    def post_candidates(self, agent: str) -> list[Action]:
        return [action for action, _ in self.post_options(agent)]

    def extra_candidates(self, agent: str, wait: Action) -> ExtraActions:
        """``[*self.post_candidates(agent), wait]`` as one ``ExtraActions``, kept with the post
        options it was made of (the same object while they are: its hash is computed once)."""
        options = self.post_options(agent)
        if not options:
            return ExtraActions((wait,))
        cached = self._options_cache[agent]  # what post_options returned a copy of (it has just checked it)
        if len(cached) > 4 and cached[4][0] is wait:
            return cached[4][1]
        extra = ExtraActions([*(action for action, _ in options), wait])
        self._options_cache[agent] = (*cached[:4], (wait, extra))
        return extra
