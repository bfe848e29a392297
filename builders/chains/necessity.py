"""Empirical hop necessity, after MC-Search's HAVE.

The verifier model answers the final question with all evidence, then once
with each hop's evidence removed. Each answer is judged against the
reference by token F1 (SQuAD-style normalisation); a hop is needed when the
answer is right with all evidence and wrong without that hop's evidence.
The method and the per-hop answers are stored on the Hop nodes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kg.text import answer_tokens, token_f1

UNANSWERABLE = "unanswerable"


@dataclass
class EmpiricalNecessity:
    answer_with_all: str
    right_with_all: bool
    answers_without: list[str] = field(default_factory=list)  # one per hop
    right_without: list[bool] = field(default_factory=list)

    @property
    def necessary(self) -> list[bool]:
        return [self.right_with_all and not right for right in self.right_without]


def is_right(answer: str, reference: str, threshold: float = 0.6) -> bool:
    """An answer that gives the reference (token F1 at least `threshold`), not UNANSWERABLE."""
    return answer_tokens(answer) != [UNANSWERABLE] and token_f1(answer, reference) >= threshold


def judge(reference: str, with_all: str, without: list[str], threshold: float = 0.6) -> EmpiricalNecessity:
    """Judge the answers of one chain: [with all evidence] and [without hop i] for each hop."""
    def right(answer: str) -> bool:
        return is_right(answer, reference, threshold)

    return EmpiricalNecessity(with_all, right(with_all), list(without), [right(a) for a in without])
