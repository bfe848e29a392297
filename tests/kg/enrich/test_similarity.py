"""Exact kNN pairs: checked against a brute-force reference on random data."""

from __future__ import annotations

import numpy as np
import pytest

from kg.enrich import similarity
from kg.enrich.similarity import knn_pairs, knn_pairs_incremental


def unit_vectors(n: int, dim: int, seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def brute_force(vecs, ids, k, min_score, queries=None, candidates=None) -> set[tuple[str, str]]:
    scores = vecs @ vecs.T
    n = len(ids)
    out = set()
    for i in range(n):
        if queries is not None and not queries[i]:
            continue
        cand = [j for j in range(n) if j != i and (candidates is None or candidates[j])]
        cand.sort(key=lambda j: -scores[i, j])
        for j in cand[:k]:
            if scores[i, j] >= min_score:
                out.add(tuple(sorted((ids[i], ids[j]))))
    return out


def make_ids(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    return [f"{rng.integers(10**9):09d}-{i}" for i in range(n)]  # random order vs row order


@pytest.mark.parametrize(
    "n,dim,k,min_score,block",
    [(300, 16, 5, 0.2, 64), (257, 8, 3, -1.0, 50), (100, 32, 10, 0.0, 1000), (400, 24, 7, 0.3, 128)],
)
def test_matches_brute_force(n, dim, k, min_score, block):
    vecs, ids = unit_vectors(n, dim, seed=n), make_ids(n, seed=n)
    pairs = knn_pairs(vecs, ids, k=k, min_score=min_score, block=block)
    assert {(a, b) for a, b, _ in pairs} == brute_force(vecs, ids, k, min_score)


def test_pairs_unique_canonical_scored():
    vecs, ids = unit_vectors(200, 16, seed=1), make_ids(200, seed=1)
    pairs = knn_pairs(vecs, ids, k=8, min_score=0.1, block=37)
    keys = [(a, b) for a, b, _ in pairs]
    assert len(keys) == len(set(keys))
    assert all(a < b for a, b in keys)  # canonical order, no self pairs
    assert keys == sorted(keys)
    row = {cid: i for i, cid in enumerate(ids)}
    for a, b, s in pairs:
        assert isinstance(s, float)
        assert s == pytest.approx(float(vecs[row[a]] @ vecs[row[b]]), abs=1e-5)
        assert s >= 0.1


def test_min_score_respected():
    vecs, ids = unit_vectors(150, 8, seed=2), make_ids(150, seed=2)
    high = knn_pairs(vecs, ids, k=10, min_score=0.6)
    low = knn_pairs(vecs, ids, k=10, min_score=0.0)
    assert all(s >= 0.6 for _, _, s in high)
    assert {(a, b) for a, b, s in low if s >= 0.6} == {(a, b) for a, b, _ in high}
    assert knn_pairs(vecs, ids, k=10, min_score=1.01) == []


def test_masks_match_brute_force():
    vecs, ids = unit_vectors(240, 12, seed=3), make_ids(240, seed=3)
    rng = np.random.default_rng(3)
    queries, candidates = rng.random(240) < 0.3, rng.random(240) < 0.6
    pairs = knn_pairs(vecs, ids, k=4, min_score=0.1, block=50, query_mask=queries, candidate_mask=candidates)
    assert {(a, b) for a, b, _ in pairs} == brute_force(vecs, ids, 4, 0.1, queries, candidates)


@pytest.mark.parametrize(
    "n_new,min_score,full_path",
    [(1, 0.2, False), (40, 0.6, False), (200, 0.2, True)],  # the last re-ranks too much: full path
)
def test_incremental_is_full_minus_old_old(monkeypatch, n_new, min_score, full_path):
    n = 300
    vecs, ids = unit_vectors(n, 16, seed=4), make_ids(n, seed=4)
    n_old = n - n_new
    full = {(a, b) for a, b, _ in knn_pairs(vecs, ids, k=6, min_score=min_score, block=64)}
    old = set(ids[:n_old])
    expected = {p for p in full if not (p[0] in old and p[1] in old)}
    calls = []
    real = similarity._all_vs_all
    monkeypatch.setattr(similarity, "_all_vs_all", lambda *a: calls.append(1) or real(*a))
    inc = knn_pairs_incremental(
        vecs[n_old:], ids[n_old:], vecs[:n_old], ids[:n_old], k=6, min_score=min_score, block=64
    )
    assert expected and {(a, b) for a, b, _ in inc} == expected
    assert all(a < b for a, b, _ in inc)
    assert bool(calls) == full_path


def test_edge_cases():
    assert knn_pairs(np.zeros((0, 4), np.float32), [], k=3) == []
    assert knn_pairs(unit_vectors(1, 4, 0), ["a"], k=3, min_score=-1) == []
    two = knn_pairs(unit_vectors(2, 4, 0), ["b", "a"], k=3, min_score=-1)
    assert [(a, b) for a, b, _ in two] == [("a", "b")]
    with pytest.raises(ValueError):
        knn_pairs(unit_vectors(2, 4, 0), ["a", "a"])
    with pytest.raises(ValueError):
        knn_pairs_incremental(unit_vectors(1, 4, 0), ["a"], unit_vectors(1, 4, 1), ["a"])
