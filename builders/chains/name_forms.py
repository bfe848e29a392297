"""The forms of names and words the construction rules compare (construction.py)."""

from __future__ import annotations

from builders.chains.bridges import zipf

NAMES_NOTHING_ZIPF = 3.0  # a one-word row label this frequent in English is no name (construction.py)


def head(name: str) -> str:
    """A term's head word, singular: "AOA sensors" -> "sensor"."""
    words = name.lower().split()
    word = words[-1] if words else ""
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def nested(a: str, b: str) -> bool:
    """One name inside the other ("8 MCAS" and "MCAS"): a variant of the bridge, not a rival."""
    a, b = a.lower(), b.lower()
    return bool(a and b) and (a in b or b in a)


def ordinary_word(name: str) -> bool:
    """One everyday word ("Models", "Total"): no name for a table row to be a bridge by."""
    words = name.split()
    return len(words) == 1 and not any(ch.isdigit() for ch in name) and not name.isupper() \
        and zipf(name) >= NAMES_NOTHING_ZIPF


def stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and len(word) > 3 else word
