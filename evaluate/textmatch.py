"""Answer matching: exact match (MIRAGE's accuracy criterion) and token F1 (SQuAD / HotpotQA).

Both compare normalised answers: lower case, punctuation and the articles
a / an / the removed, whitespace collapsed (kg.text holds the rule and token
F1, which generate's empirical necessity uses too).
"""

from __future__ import annotations

from kg.text import answer_tokens, token_f1

__all__ = ["normalise", "exact_match", "token_f1", "numbered"]


def normalise(text: str) -> str:
    """The answer as one string under kg.text's answer normalisation."""
    return " ".join(answer_tokens(text))


def exact_match(prediction: str, reference: str) -> float:
    return float(normalise(prediction) == normalise(reference) and bool(normalise(reference)))


def numbered(passages: list[str]) -> str:
    """The context block of the reader prompt."""
    if not passages:
        return "(no passages: answer from your own knowledge)"
    return "\n".join(f"[{i}] " + " ".join(p.split()) for i, p in enumerate(passages, 1))
