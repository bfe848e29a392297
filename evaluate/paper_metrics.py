"""The papers' per-question metrics, one definition each (the hand-made table in
tests/evaluate/test_paper_metrics.py pins every one to a value computed by hand).

MC-Search (agentic chains)
  hit_per_step (HPS)       predicted and gold steps matched one-to-one (maximum-weight
                           bipartite matching, scipy linear_sum_assignment); a gold step is
                           hit when its matched step retrieved exactly its evidence, i.e.
                           every evidence unit of the gold step. HPS = hits / gold steps.
  hit_per_step_partial     hopgraph's variant: a gold step counts as hit when its matched
                           step retrieved any part of its evidence (the figure hopgraph
                           reported as HPS before; different from the paper when a step has
                           several evidence units).
  rollout_deviation (RD)   | predicted steps - gold steps |.
CHARGE (keypoints, Eq. 3-4), over N questions with gold keypoints K_i and matched M_i:
  keypoint_correctness     (1/N) sum_i 1[M_i = K_i]   (every keypoint stated)
  keypoint_coverage        (1/N) sum_i |M_i| / |K_i|
MIRAGE (adaptability, over questions answered in base, oracle and mixed):
  see evaluate.answers.adaptability (four shares that partition the questions).
Retrieval F1 (RAGalyst's retrieval side does not define it; hopgraph's): per question,
  2 P R / (P + R) with P = relevant retrieved / retrieved, R = relevant retrieved / relevant.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _matched_hits(retrieved: Sequence[Sequence[str]], gold: Sequence[Sequence[str]], exact: bool) -> int:
    from scipy.optimize import linear_sum_assignment

    if not gold or not retrieved:
        return 0
    gold_sets = [set(g) for g in gold]
    found = [[len(set(r) & g) / len(g) if g else 0.0 for g in gold_sets] for r in retrieved]
    if exact:  # the weight a hit needs is all of the step's evidence
        found = [[1.0 if w == 1.0 else w / 2 for w in row] for row in found]
    weights = np.array(found)
    rows, cols = linear_sum_assignment(weights, maximize=True)
    return int(sum((weights[r, c] == 1.0) if exact else (weights[r, c] > 0) for r, c in zip(rows, cols)))


def hit_per_step(retrieved: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """MC-Search HPS: share of gold steps whose matched predicted step retrieved all their evidence."""
    return _matched_hits(retrieved, gold, exact=True) / len(gold) if gold else 0.0


def hit_per_step_partial(retrieved: Sequence[Sequence[str]], gold: Sequence[Sequence[str]]) -> float:
    """hopgraph's partial-overlap variant: the matched step retrieved any of the gold step's evidence."""
    return _matched_hits(retrieved, gold, exact=False) / len(gold) if gold else 0.0


def rollout_deviation(predicted_steps: int, gold_steps: int) -> int:
    """MC-Search RD: how many steps the rollout is off the gold chain's length."""
    return abs(predicted_steps - gold_steps)


def keypoint_scores(matched: Sequence[Sequence[bool]]) -> dict[str, float]:
    """CHARGE Eq. 3-4 over questions (each a list of per-keypoint verdicts; questions without keypoints
    are left out, as the paper scores only questions that have them)."""
    scored = [m for m in matched if m]
    if not scored:
        return {}
    return {"keypoint_correctness": sum(all(m) for m in scored) / len(scored),
            "keypoint_coverage": sum(sum(m) / len(m) for m in scored) / len(scored)}


def f1_of(precision: float, recall: float) -> float:
    """The harmonic mean (0 when both are 0)."""
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def retrieval_prf(retrieved: Sequence[str], relevant: Sequence[str]) -> dict[str, float]:
    """Precision, recall and F1 of one question's retrieved set against its relevant set."""
    got, want = set(retrieved), set(relevant)
    if not got or not want:
        return {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    hit = len(got & want)
    precision, recall = hit / len(got), hit / len(want)
    return {"precision": precision, "recall": recall, "f1": f1_of(precision, recall)}
