"""Empirical hop necessity, after MC-Search's HAVE.

The verifier model answers the final question with all evidence, then once
with each hop's evidence removed. Each answer is judged against the
reference by token F1 (SQuAD-style normalisation); a hop is needed when the
answer is right with all evidence and wrong without that hop's evidence.
The method and the per-hop answers are stored on the Hop nodes.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass, field

_ARTICLES = re.compile(r"\b(a|an|the)\b")
UNANSWERABLE = "unanswerable"


def normalise_answer(text: str) -> list[str]:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    return _ARTICLES.sub(" ", text).split()


def token_f1(prediction: str, reference: str) -> float:
    pred, ref = normalise_answer(prediction), normalise_answer(reference)
    if not pred or not ref or pred == [UNANSWERABLE]:
        return 0.0
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


@dataclass
class EmpiricalNecessity:
    answer_with_all: str
    right_with_all: bool
    answers_without: list[str] = field(default_factory=list)  # one per hop
    right_without: list[bool] = field(default_factory=list)

    @property
    def necessary(self) -> list[bool]:
        return [self.right_with_all and not right for right in self.right_without]


def judge(reference: str, with_all: str, without: list[str], threshold: float = 0.6) -> EmpiricalNecessity:
    """Judge the answers of one chain: [with all evidence] and [without hop i] for each hop."""
    def right(answer: str) -> bool:
        return token_f1(answer, reference) >= threshold

    return EmpiricalNecessity(with_all, right(with_all), list(without), [right(a) for a in without])
