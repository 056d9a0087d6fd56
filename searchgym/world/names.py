"""Invented names for a fictional world.

Names are built from syllables with the world's own generator, so no pretrained model has seen
them: an agent cannot answer from memory and must search. ``NameMaker`` guarantees that every
name it hands out is unique (namesakes are made deliberately, elsewhere).
"""

from __future__ import annotations

import numpy as np

_ONSETS = [
    "b", "br", "c", "d", "dr", "f", "g", "gl", "h", "j", "k", "kr", "l", "m", "n", "p", "pr",
    "q", "r", "s", "sk", "st", "t", "tr", "v", "w", "z", "th", "sh", "ch",
]
_VOWELS = ["a", "e", "i", "o", "u", "ae", "io", "ou", "ei", "y"]
_CODAS = ["", "", "", "n", "r", "l", "s", "th", "x", "m", "nd", "rk", "sh"]

_COMPANY_SUFFIXES = ["Corp", "Labs", "Systems", "Group", "Works", "Dynamics", "Industries", "Holdings"]
_STUDIO_SUFFIXES = ["Pictures", "Studios", "Films"]
_PUBLISHER_SUFFIXES = ["Press", "Books", "Publishing"]
_UNIVERSITY_FORMS = ["University of {}", "{} Institute of Technology", "{} University", "{} College"]
_PRODUCT_FORMS = ["{} {}", "{} X{}", "{} Pro {}", "{}-{}"]
_FILM_FORMS = ["The {} of {}", "{} Rising", "Night over {}", "The Last {}", "{} and {}", "Return to {}"]
_BOOK_FORMS = ["A History of {}", "The {} Letters", "Songs of {}", "{}: A Memoir", "The {} Code", "Beyond {}"]
_AWARD_FORMS = ["{} Prize", "{} Medal", "Order of {}", "{} Award"]


class NameMaker:
    """Hands out unique invented names drawn with a seeded generator."""

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._used: set[str] = set()

    # ---------------------------------------------------------------- building blocks
    def word(self, syllables: int | None = None) -> str:
        n = syllables if syllables is not None else int(self._rng.integers(2, 4))
        parts = []
        for i in range(n):
            onset = _ONSETS[int(self._rng.integers(len(_ONSETS)))]
            vowel = _VOWELS[int(self._rng.integers(len(_VOWELS)))]
            coda = _CODAS[int(self._rng.integers(len(_CODAS)))] if i == n - 1 else ""
            parts.append(onset + vowel + coda)
        return "".join(parts).capitalize()

    def _pick(self, options: list[str]) -> str:
        return options[int(self._rng.integers(len(options)))]

    def _unique(self, make) -> str:
        for _ in range(1000):
            name = make()
            if name.lower() not in self._used:
                self._used.add(name.lower())
                return name
        raise RuntimeError("could not find a fresh name; the syllable space is exhausted")

    def claim(self, name: str) -> None:
        """Mark a name as taken (used for deliberate near-namesakes)."""
        self._used.add(name.lower())

    def is_free(self, name: str) -> bool:
        return name.lower() not in self._used

    # ---------------------------------------------------------------- per entity type
    def person(self) -> str:
        return self._unique(lambda: f"{self.word(2)} {self.word()}")

    def place(self) -> str:
        return self._unique(lambda: self.word())

    def country(self) -> str:
        return self._unique(lambda: self._pick(["{}", "{}ia", "Republic of {}", "{}land"]).format(self.word(2)))

    def company(self, base: str | None = None, kind: str = "company") -> str:
        """A company name; with ``base``, a near-namesake ("Vexa Corp" -> "Vexa Labs").

        When every suffix of ``base`` is taken, the near-namesake is impossible and a fresh name
        is drawn instead. The check draws nothing, so worlds that never hit it are unchanged.
        """
        suffixes = {"studio": _STUDIO_SUFFIXES, "publisher": _PUBLISHER_SUFFIXES}.get(kind, _COMPANY_SUFFIXES)
        if base is not None and not any(self.is_free(f"{base} {suffix}") for suffix in suffixes):
            base = None
        return self._unique(lambda: f"{base or self.word(2)} {self._pick(suffixes)}")

    def university(self, city: str) -> str:
        return self._unique(lambda: self._pick(_UNIVERSITY_FORMS).format(city if self._rng.random() < 0.5 else self.word(2)))

    def product(self) -> str:
        def make() -> str:
            form = self._pick(_PRODUCT_FORMS)
            return form.format(self.word(2), int(self._rng.integers(2, 99)) * 10 if "X" not in form else int(self._rng.integers(1, 20)))

        return self._unique(make)

    def film(self) -> str:
        return self._unique(lambda: self._pick(_FILM_FORMS).format(self.word(), self.word()))

    def book(self) -> str:
        return self._unique(lambda: self._pick(_BOOK_FORMS).format(self.word()))

    def award(self) -> str:
        return self._unique(lambda: self._pick(_AWARD_FORMS).format(self.word(2)))
