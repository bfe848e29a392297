"""Retrieval metrics on hand-made rankings whose values are known."""

from __future__ import annotations

import pytest

from evaluate.metrics import all_hops_hits, gold_ranks, mean_by, score_queries
from evaluate.retrievers import Query


def test_hit_rate_and_recall_are_the_two_kinds_of_recall():
    scores = score_queries([Query("q", "", ["a", "b"])], [["a", "x", "y", "b"]], [1, 4])["q"]
    assert scores["hit@1"] == 1.0 and scores["recall@1"] == 0.5
    assert scores["recall@4"] == 1.0 and scores["precision@4"] == 0.5
    assert scores["mrr@1"] == 1.0


def test_mrr_and_ndcg_fall_with_the_rank_of_the_gold_item():
    scores = score_queries([Query("q", "", ["g"])], [["x", "g"]], [1, 2])["q"]
    assert scores["mrr@1"] == 0.0 and scores["mrr@2"] == pytest.approx(0.5)
    assert 0 < scores["ndcg@2"] < 1


def test_an_empty_ranking_scores_zero():
    scores = score_queries([Query("q", "", ["g"])], [[]], [5])["q"]
    assert scores["hit@5"] == 0.0 and scores["recall@5"] == 0.0


def test_all_hops_needs_every_hop_in_the_top_k():
    ranking = ["h0", "x", "y", "h1b"]
    assert all_hops_hits([["h0"], ["h1a", "h1b"]], ranking, [3, 4]) == {"all_hops@3": 0.0, "all_hops@4": 1.0}


def test_gold_ranks_are_one_based():
    assert gold_ranks(["b", "z"], ["a", "b"]) == [2, None]


def test_mean_by_group_counts_members():
    rows = [{"t": "a", "scores": {"hit@1": 1.0}}, {"t": "a", "scores": {"hit@1": 0.0}}, {"t": "b", "scores": {"hit@1": 1.0}}]
    assert mean_by(rows, "t", [1]) == {"a": {"n": 2, "hit@1": 0.5}, "b": {"n": 1, "hit@1": 1.0}}
    assert mean_by(rows, None, [1])["hit@1"] == pytest.approx(0.6667)
