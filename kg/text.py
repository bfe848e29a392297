"""Sentence splitting, shared by chunking, keypoints and the offline verbalizer.

One regex rule for every stage, so a sentence embedded by the chunker is the
same string the pooled chunk vectors and the keypoints see (and hit the
embedding cache).
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]\u201d\u2019]?\s+(?=[\"'(\[\u201c]?[A-Z0-9])")
# A period after one of these (or after a single initial, "J.") does not end a sentence.
_ABBREVIATION_END = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|al|Figs?|Eqs?|Nos?|vs|cf|Dr|Mr|Mrs|Ms|Prof|Sec|Secs|Tab|approx|resp|St|Inc|"
    r"Ltd|Jr|Sr|Refs?|ca|etc|Vol|pp|Ch)\.|\b[A-Z]\.)[\"')\]]?$",
    re.IGNORECASE)
_SINGLE_INITIAL = re.compile(r"\b[A-Za-z]\.$")


def split_sentences(text: str, collapse_whitespace: bool = False) -> list[str]:
    """Split on terminal punctuation followed by a capital or digit, not after
    common abbreviations ("Fig.", "e.g.", "et al.") or initials."""
    if collapse_whitespace:
        text = re.sub(r"\s+", " ", text or "")
    pieces = [p.strip() for p in _SENTENCE_END.split((text or "").strip()) if p and p.strip()]
    sentences: list[str] = []
    for piece in pieces:
        if sentences and (_ABBREVIATION_END.search(sentences[-1]) or _SINGLE_INITIAL.search(sentences[-1])):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return sentences
