"""MentionFinder.find reads a text's tokens line by line from a memo and visits only the tokens
that begin a name; it finds what the token-by-token scan it replaced found (kept below), in the
same order, on a world's pages and on token soups made of overlapping names, prefixes of names
and names split across lines."""

from __future__ import annotations

import numpy as np

from searchgym.world import World
from searchgym.world.mentions import MentionFinder, tokens


def find_before(finder: MentionFinder, text: str) -> list[tuple[str, tuple[str, ...]]]:
    toks = tokens(text)
    found: dict[str, tuple[str, ...]] = {}
    i = 0
    while i < len(toks):
        step = 1
        for key, surface in finder._by_first.get(toks[i], ()):
            if tuple(toks[i : i + len(key)]) == key:
                found.setdefault(surface, tuple(finder._ids[key]))
                step = len(key)
                break
        i += step
    return list(found.items())


def test_find_equals_the_scan_before_on_pages_and_token_soups():
    world = World.generate(0, "small")
    finder = world.mentions
    texts = [" ".join(s.text for s in page.sentences) for page in world.pages[:300]]
    assert sum(len(find_before(finder, t)) for t in texts) > 300
    surfaces = [e.display_name for e in list(world.entities.values())[:200]] + \
        [e.name for e in list(world.entities.values())[:200]]
    rng = np.random.default_rng(0)
    for _ in range(400):
        parts = []
        for _ in range(int(rng.integers(1, 12))):
            words = str(rng.choice(surfaces)).split()
            cut = int(rng.integers(1, len(words) + 1))  # a whole name or a prefix of one
            parts.append(" ".join(words[:cut]) if rng.random() < 0.7 else "\n".join(words))
        texts.append(rng.choice([" ", ", ", "\n", " and "]).join(parts))
    overlapping = MentionFinder([("Vexa", "e1"), ("Vexa Corp", "e2"), ("Corp Mara", "e3"), ("Mara", "e4"),
                                 ("Mara Quell", "e5"), ("vexa", "e6")])
    soup = ["Vexa Corp Mara Quell", "Vexa Vexa Corp", "Corp Mara Quell Vexa", "vexa corp mara", "Mara Vexa\nCorp"]
    for text in texts + texts[::-1]:  # the second pass reads every line from the finder's memo
        assert finder.find(text) == find_before(finder, text), text
    for text in soup + [" ".join(rng.choice(["Vexa", "Corp", "Mara", "Quell", "x"], size=9)) for _ in range(300)]:
        assert overlapping.find(text) == find_before(overlapping, text), text


def test_the_line_memo_starts_over_past_its_limit_and_finds_the_same(monkeypatch):
    from searchgym.world import mentions

    monkeypatch.setattr(mentions, "LINE_MEMO_LIMIT", 3)
    finder = MentionFinder([("Vexa Corp", "e1"), ("Mara Quell", "e2")])
    texts = [f"line {k}\nVexa\nCorp and Mara Quell {k}" for k in range(20)]
    for text in texts + texts:
        assert finder.find(text) == find_before(finder, text) == [("Vexa Corp", ("e1",)), ("Mara Quell", ("e2",))]
        assert len(finder._lines) <= 3 + 3  # cleared once past the limit, then at most one text's lines added


def test_a_name_never_runs_across_a_sentences_end():
    """Before: "... is in Neihio. University of Prestosh ..." was read as the entity "Neihio University",
    which the text never names, and the city Neihio was not offered: world 7 (tiny)'s oracle scored
    0.941 on comparisons (comparison-00005 looked Prestosh up until it ran out of steps)."""
    names = [("Neihio", "city"), ("Neihio University", "uni1"), ("University of Prestosh", "uni2"),
             ("Koglecae: A Memoir", "book")]
    text = ("The campus of University of Prestosh is in Neihio. University of Prestosh opened in 1718! "
            "Neihio University is old. Koglecae: A Memoir names Neihio\nUniversity of Prestosh again.")
    assert MentionFinder(names).find(text) == [("University of Prestosh", ("uni2",)), ("Neihio", ("city",)),
                                               ("Neihio University", ("uni1",)), ("Koglecae: A Memoir", ("book",))]
    assert MentionFinder(names, within_sentences=False).find(text)[1] == ("Neihio University", ("uni1",))


def test_world_seven_s_oracle_finds_the_city_again():
    from searchgym.baselines import OracleAgent

    from searchgym.envs.search import SearchEnv

    env = SearchEnv(action_mode="candidates", world_seed=7, world_size="tiny", split="train")
    env.reset(seed=0, options={"task_id": "comparison-00005"})
    agent, done, info = OracleAgent(), False, {}
    while not done:
        _, _, terminated, truncated, info = env.step(agent.choose_action(env.session))
        done = terminated or truncated
    assert info["success"]
