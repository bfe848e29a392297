"""A hand-made table: each paper metric against a value worked out by hand from the paper's formula.

The hand computation is written beside each row; the code must agree with it.
"""

from __future__ import annotations

import pytest

from evaluate.answers import adaptability
from evaluate.metrics import score_queries
from evaluate.paper_metrics import (hit_per_step, hit_per_step_partial, keypoint_scores, retrieval_prf,
                                    rollout_deviation)
from evaluate.retrievers import Query

# MC-Search. Gold steps g1 = {a}, g2 = {b, c}, g3 = {d}; the rollout's steps retrieved
# r1 = {a, x}, r2 = {b}, r3 = {d, c}.
GOLD = [["a"], ["b", "c"], ["d"]]
ROLLOUT = [["a", "x"], ["b"], ["d", "c"]]


def test_hps_exact_evidence_identity():
    # One-to-one matching r1-g1, r2-g2, r3-g3 (r3 could take g2's c, but g3 only r3 covers).
    # Exact identity: g1 = {a} within r1 -> hit; g2 = {b, c} not within r2 = {b} -> miss; g3 = {d} within r3 -> hit.
    # HPS = 2 hits / 3 gold steps = 0.6667.
    assert hit_per_step(ROLLOUT, GOLD) == pytest.approx(2 / 3)


def test_hps_partial_overlap_variant():
    # Same matching; any overlap counts: g1 (a), g2 (b), g3 (d) all touched -> 3 / 3 = 1.0.
    assert hit_per_step_partial(ROLLOUT, GOLD) == 1.0
    # One retrieval holding both gold steps' evidence hits only one of them (one-to-one): 1 / 2.
    assert hit_per_step([["a", "b"]], [["a"], ["b"]]) == 0.5


@pytest.mark.parametrize("predicted, gold, expected", [
    (3, 3, 0),  # |3 - 3| = 0
    (5, 3, 2),  # |5 - 3| = 2: two steps too many
    (1, 4, 3),  # |1 - 4| = 3: stopped three steps early
])
def test_rollout_deviation(predicted, gold, expected):
    assert rollout_deviation(predicted, gold) == expected


def test_mirage_four_rates():
    # (base, oracle, mixed) right or wrong for five questions:
    #   q1 F T T -> oracle right, mixed right: context acceptability
    #   q2 F T F -> oracle right, mixed wrong: noise vulnerability
    #   q3 F F F -> base and oracle wrong: context insensitivity
    #   q4 T F T -> base right, oracle wrong: context misinterpretation
    #   q5 T T T -> context acceptability
    # Rates over 5: NV 1/5 = 0.2, CA 2/5 = 0.4, CI 1/5 = 0.2, CM 1/5 = 0.2 (they sum to 1).
    table = {"q1": (False, True, True), "q2": (False, True, False), "q3": (False, False, False),
             "q4": (True, False, True), "q5": (True, True, True)}
    correct = {q: dict(zip(("base", "oracle", "mixed"), v)) for q, v in table.items()}
    assert adaptability(correct) == {"noise_vulnerability": 0.2, "context_acceptability": 0.4,
                                     "context_insensitivity": 0.2, "context_misinterpretation": 0.2, "n": 5}


def test_charge_keypoint_correctness_and_coverage():
    # Eq. 3 Correctness = (1/N) sum 1[all keypoints matched]; Eq. 4 Coverage = (1/N) sum matched/|K|.
    # q1: 3 of 3 -> 1, 1.0;  q2: 1 of 2 -> 0, 0.5;  q3: 0 of 4 -> 0, 0.0;  q4: no keypoints -> not scored.
    # Correctness = (1 + 0 + 0) / 3 = 0.3333; Coverage = (1.0 + 0.5 + 0.0) / 3 = 0.5.
    scores = keypoint_scores([[True, True, True], [True, False], [False] * 4, []])
    assert scores["keypoint_correctness"] == pytest.approx(1 / 3)
    assert scores["keypoint_coverage"] == pytest.approx(0.5)


def test_retrieval_f1():
    # Retrieved {a, b, c, d}, relevant {a, e}: P = 1/4, R = 1/2, F1 = 2 (1/8) / (3/4) = 1/3.
    prf = retrieval_prf(["a", "b", "c", "d"], ["a", "e"])
    assert (prf["precision"], prf["recall"]) == (0.25, 0.5) and prf["f1"] == pytest.approx(1 / 3)
    # The same query through eval retrieval's ranx path, ranking a, b, c, d:
    #   k = 4: P = 1/4, R = 1/2 -> F1 = 1/3;  k = 2: P = 1/2, R = 1/2 -> F1 = 1/2;  MRR = 1/1 (a first).
    scores = score_queries([Query("q", "text", ["a", "e"])], [["a", "b", "c", "d"]], [2, 4])["q"]
    assert scores["f1@4"] == pytest.approx(1 / 3) and scores["f1@2"] == pytest.approx(0.5)
    assert scores["mrr@4"] == 1.0
