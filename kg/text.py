"""Text rules shared by every stage: sentence splitting, folded text, answer matching.

One sentence rule for every stage, so a sentence embedded by the chunker is
the same string the pooled chunk vectors and the keypoints see (and hit the
embedding cache). One answer normalisation (SQuAD / HotpotQA: lower case,
punctuation and the articles a / an / the removed) for the empirical hop
necessity of generate and the answer scores of eval, so a hop judged needed
and an answer scored right are judged by the same rule.
"""

from __future__ import annotations

import re
import string
from collections import Counter

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


def folded(text: str) -> str:
    """Whitespace collapsed and lower case: text compared as a reader would, ignoring layout."""
    return " ".join((text or "").split()).lower()


_PUNCTUATION = str.maketrans("", "", string.punctuation)
_ARTICLES = frozenset(("a", "an", "the"))


def answer_tokens(text: str) -> list[str]:
    """An answer's words under the SQuAD normalisation."""
    return [w for w in (text or "").lower().translate(_PUNCTUATION).split() if w not in _ARTICLES]


def token_f1(prediction: str, reference: str) -> float:
    """SQuAD token F1 of two answers (0.0 when either is empty after normalisation)."""
    predicted, gold = answer_tokens(prediction), answer_tokens(reference)
    common = sum((Counter(predicted) & Counter(gold)).values())
    if not predicted or not gold or common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)
