"""Answer matching: exact match (MIRAGE's accuracy criterion) and token F1 (SQuAD / HotpotQA).

Both compare normalised answers: lower case, punctuation and the articles
a / an / the removed, whitespace collapsed.
"""

from __future__ import annotations

import string
from collections import Counter

_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalise(text: str) -> str:
    text = (text or "").lower().translate(_PUNCTUATION)
    return " ".join(w for w in text.split() if w not in ("a", "an", "the"))


def exact_match(prediction: str, reference: str) -> float:
    return float(normalise(prediction) == normalise(reference) and bool(normalise(reference)))


def token_f1(prediction: str, reference: str) -> float:
    predicted, gold = normalise(prediction).split(), normalise(reference).split()
    common = sum((Counter(predicted) & Counter(gold)).values())
    if not predicted or not gold or common == 0:
        return 0.0
    precision, recall = common / len(predicted), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def numbered(passages: list[str]) -> str:
    """The context block of the reader prompt."""
    if not passages:
        return "(no passages: answer from your own knowledge)"
    return "\n".join(f"[{i}] " + " ".join(p.split()) for i, p in enumerate(passages, 1))
