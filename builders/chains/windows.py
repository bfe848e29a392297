"""Evidence windows: the part of a hop's text a writer and a verifier are shown (at most `max_chars`),
cut at sentence boundaries, and a table by whole rows under its header."""

from __future__ import annotations

import re

from kg.text import split_sentences


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
    lowered = [p.lower() for p in parts]
    named = [sum(bool(k) and k.lower() in p for k in keep) for p in lowered]
    centre = max(range(len(parts)), key=lambda i: (named[i], -i))
    lo, hi, size = centre, centre + 1, len(parts[centre])
    while True:  # grow to the side that keeps the window balanced, while it fits
        grown = False
        for j in ((hi, lo - 1) if hi - centre <= centre - lo else (lo - 1, hi)):
            if 0 <= j < len(parts) and (j == hi or j == lo - 1) and size + len(parts[j]) + 1 <= max_chars:
                size += len(parts[j]) + 1
                lo, hi = (j, hi) if j == lo - 1 else (lo, hi + 1)
                grown = True
                break
        if not grown:
            break
    window = " ".join(parts[lo:hi])
    return window if len(window) <= max_chars else window[:max_chars].rsplit(" ", 1)[0]


_SEPARATOR_ROW = re.compile(r"^\s*\|(?:\s*:?-{3,}:?\s*\|)+\s*$")


def table_window(text: str, max_chars: int, keep: list[str] | tuple[str, ...] = ()) -> str | None:
    """A table's text cut to `max_chars` by whole rows: its caption and header, then the rows around
    the one that names most of `keep` (the bridge's row). None when the text holds no table grid.
    Cut by characters, q19's table lost the very row its question asked about."""
    lines = text.splitlines()
    sep = next((k for k, line in enumerate(lines) if _SEPARATOR_ROW.match(line)), None)
    if sep is None or sep + 1 >= len(lines):
        return None
    head, rows = lines[:sep + 1], lines[sep + 1:]
    named = [sum(bool(k) and k.lower() in row.lower() for k in keep) for row in rows]
    centre = max(range(len(rows)), key=lambda i: (named[i], -i))
    lo, hi = centre, centre + 1
    size = sum(len(line) + 1 for line in head) + len(rows[centre])
    while True:  # grow on the side with fewer rows kept (rivals above and below), while it fits
        sides = (hi, lo - 1) if hi - centre <= centre - lo else (lo - 1, hi)
        step = next((j for j in sides if 0 <= j < len(rows) and size + len(rows[j]) + 1 <= max_chars), None)
        if step is None:
            break
        size += len(rows[step]) + 1
        lo, hi = (step, hi) if step == lo - 1 else (lo, hi + 1)
    return "\n".join(head + rows[lo:hi])
