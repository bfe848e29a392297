"""Finding known entity names in short texts (keypoints, sentences).

The match rule: a name or alias, case-insensitively, at word boundaries,
whitespace inside a name matching any run of whitespace, a trailing plural
"s"/"es" or possessive "'s" tolerated; at each place the longest name wins.
It is one regex alternation of the names, longest first.

One alternation of every name of a long document is tried at every position
of every text, so matching a document's keypoints cost keypoints x names:
the square of the document's length (a 1 MB text has ~10,000 names). So a
text is first reduced to the names that can occur in it: a match starts and
ends at word boundaries, so every word of the name is a word of the text,
the last one perhaps with a plural "s"/"es". The text's words pick
candidates from an index by a name's first word, and a candidate stays if
its other words are in the text too (first words alone let "the" bring
every "The ..." name). The alternation of those few, in the same
longest-first order, finds exactly what the full one would: a name that
cannot match anywhere in the text never changes which alternative wins.
Names that do not start with a word character are always candidates.
"""

from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"\w+")
_PATTERN_CACHE_SIZE = 4096  # compiled alternations kept per matcher (keypoints of one chunk share one)


class EntityMatcher:
    """Finds entity names in text: an alternation of the names that can occur, longest names first."""

    def __init__(self, entity_names: dict[str, list[str]]):
        self._ids: dict[str, set[str]] = {}
        for eid, names in entity_names.items():
            for name in [eid, *(names or [])]:
                key = _norm_space(name).lower()
                if len(key) >= 2:
                    self._ids.setdefault(key, set()).add(eid)
        ordered = sorted(self._ids, key=len, reverse=True)
        self._rank = {key: n for n, key in enumerate(ordered)}
        self._by_first_word: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        self._always: list[str] = []  # names starting with a non-word character ("#1", ".net")
        for key in ordered:
            words = tuple(w.casefold() for w in _WORD.findall(key))
            if _WORD.match(key):
                self._by_first_word.setdefault(words[0], []).append((key, words[1:]))
            else:
                self._always.append(key)
        self._patterns: dict[tuple[str, ...], re.Pattern[str]] = {}

    def counts(self, text: str) -> Counter[str]:
        out: Counter[str] = Counter()
        if not self._ids or not text:
            return out
        keys = self._candidates(text)
        if not keys:
            return out
        for m in self._pattern(keys).finditer(text):
            for eid in self._ids.get(_norm_space(m.group(1)).lower(), ()):
                out[eid] += 1
        return out

    def _candidates(self, text: str) -> tuple[str, ...]:
        """The names whose words are all words of `text` (or such a word less a plural ending)."""
        words: set[str] = set()
        for word in {w.casefold() for w in _WORD.findall(text)}:
            words.add(word)
            if word.endswith("s"):
                words.add(word[:-1])
                if word.endswith("es"):
                    words.add(word[:-2])
        found = set(self._always)
        for word in words:
            for key, rest in self._by_first_word.get(word, ()):
                if all(w in words for w in rest):
                    found.add(key)
        return tuple(sorted(found, key=self._rank.__getitem__))

    def _pattern(self, keys: tuple[str, ...]) -> re.Pattern[str]:
        pattern = self._patterns.get(keys)
        if pattern is None:
            if len(self._patterns) >= _PATTERN_CACHE_SIZE:
                self._patterns.clear()
            alternation = "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in keys)
            pattern = re.compile(rf"(?<!\w)({alternation})(?:'s|’s|es|s)?(?!\w)", re.IGNORECASE)
            self._patterns[keys] = pattern
        return pattern


def _norm_space(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()
