"""Evidence windows: the part of a hop's text a writer and a verifier are shown (at most `max_chars`),
cut at sentence boundaries, and a table by whole rows under its header."""

from __future__ import annotations

import re

from kg.text import split_sentences

_SEPARATOR_ROW = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")


def evidence_window(text: str, max_chars: int = 1500, keep: list[str] | tuple[str, ...] = ()) -> str:
    """At most `max_chars` of whole sentences (never cut inside a word), around the one that names most of `keep` (the
    incoming bridge, the outgoing bridge or answer; the earliest wins a tie); a table by whole rows (table_window).
    Cutting at a character count ended items mid-word ("One promi") and cut off the very sentence naming the bridge."""
    if len(text := text or "") <= max_chars:
        return text
    if (table := table_window(text, max_chars, keep)) is not None:
        return table
    parts = split_sentences(text)
    if not parts:
        return text[:max_chars].rsplit(" ", 1)[0]
    lo, hi = _around(parts, _most_named(parts, keep), max_chars)
    window = " ".join(parts[lo:hi])
    return window if len(window) <= max_chars else window[:max_chars].rsplit(" ", 1)[0]


def table_head(text: str) -> tuple[list[str], list[str]] | None:
    """A table's lines split at its header's separator row: (caption and header, the rows after), or
    None when the text holds no table grid with rows."""
    lines = text.splitlines()
    sep = next((k for k, line in enumerate(lines) if _SEPARATOR_ROW.match(line)), None)
    return None if sep is None or sep + 1 >= len(lines) else (lines[:sep + 1], lines[sep + 1:])


def table_window(text: str, max_chars: int, keep: list[str] | tuple[str, ...] = ()) -> str | None:
    """A table's text cut to `max_chars` by whole rows: its caption and header, then the rows around
    the one that names most of `keep` (the bridge's row, with its rivals above and below). None when
    the text holds no table grid, or its header alone fills the window. Cut by characters, q19's
    table lost the very row its question asked about."""
    split = table_head(text)
    head_size = sum(len(line) + 1 for line in split[0]) if split else max_chars
    if head_size >= max_chars:
        return None
    head, rows = split
    lo, hi = _around(rows, _most_named(rows, keep), max_chars - head_size)
    return "\n".join(head + rows[lo:hi])


def _most_named(parts: list[str], keep) -> int:
    """The part that names most of `keep` (the earliest wins a tie)."""
    named = [sum(bool(k) and k.lower() in p.lower() for k in keep) for p in parts]
    return max(range(len(parts)), key=lambda i: (named[i], -i))


def _around(parts: list[str], centre: int, budget: int) -> tuple[int, int]:
    """parts[lo:hi] around `centre`, grown on the side with fewer parts kept while they fit in
    `budget` characters (joined by one character)."""
    lo, hi, size = centre, centre + 1, len(parts[centre])
    while True:
        sides = (hi, lo - 1) if hi - centre <= centre - lo else (lo - 1, hi)
        step = next((j for j in sides if 0 <= j < len(parts) and size + len(parts[j]) + 1 <= budget), None)
        if step is None:
            return lo, hi
        size += len(parts[step]) + 1
        lo, hi = (step, hi) if step == lo - 1 else (lo, hi + 1)
