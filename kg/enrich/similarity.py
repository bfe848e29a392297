"""Exact k-nearest-neighbour pairs for SIMILAR_TO edges.

The graph stores' vector indexes are approximate (FalkorDB's recall@10 was
0.22-0.56 in our measurements), so SIMILAR_TO edges are computed exactly in
numpy: vectors are L2-normalised, so a matrix product gives cosine scores.

Why the code is shaped the way it is (100,000 x 384 must take < 60 s on 2
cores, and the float32 products alone take ~40 s there):

* Tiles of `block` x `block` scores, so memory stays at a few tiles instead
  of n x n; in the all-vs-all case only tiles on or above the diagonal are
  computed and each serves both its rows and its columns (half the products).
* Every row keeps a running top k and its k-th best score (its threshold,
  at least min_score). A tile is first compared against the thresholds,
  which is cheap, and only the few entries that beat them are merged; a
  per-row np.argpartition is used only when a tile is dense with hits (the
  first tiles, or a low min_score), because over the whole matrix it costs
  as much as the products.

Every pair is returned once, as (smaller id, larger id, score), sorted by ids:
the edge is undirected in meaning, and a canonical order lets MERGE dedupe.
"""

from __future__ import annotations

import numpy as np

Pair = tuple[str, str, float]
_DENSE_FACTOR = 4  # a tile with more than k * this hits per row uses argpartition


class _RunningTopK:
    """The k best (score, column) seen so far for each of n query rows."""

    def __init__(self, n_rows: int, k: int, min_score: float):
        self.k = k
        self.min_score = np.float32(min_score)
        self.scores = np.full((n_rows, k), -np.inf, dtype=np.float32)
        self.cols = np.full((n_rows, k), -1, dtype=np.int64)
        self.threshold = np.full(n_rows, self.min_score, dtype=np.float32)

    def offer(self, rows: np.ndarray, cols: np.ndarray, tile: np.ndarray, rows_on_axis0: bool) -> None:
        """Offer a tile of scores; rows index this structure, cols are global column ids.

        rows_on_axis0=False means the tile is laid out (cols x rows), i.e. we are
        reading the transposed half of a symmetric tile without copying it.
        """
        thr = self.threshold[rows]
        mask = tile >= (thr[:, None] if rows_on_axis0 else thr[None, :])
        hits = int(np.count_nonzero(mask))
        if hits == 0:
            return
        if hits > _DENSE_FACTOR * self.k * len(rows):
            r, c, s = self._dense_topk(tile, rows_on_axis0)
        else:
            # flatnonzero + divmod: several times faster than 2-D np.nonzero.
            a, b = np.divmod(np.flatnonzero(mask), tile.shape[1])
            s = tile[a, b]
            r, c = (a, b) if rows_on_axis0 else (b, a)
        self._merge(rows[r], cols[c], s)

    def _dense_topk(self, tile: np.ndarray, rows_on_axis0: bool) -> tuple[np.ndarray, ...]:
        axis = 1 if rows_on_axis0 else 0
        m = tile.shape[axis]
        kk = min(self.k, m)
        top = np.argpartition(tile, m - kk, axis=axis)
        top = top[:, m - kk :] if rows_on_axis0 else top[m - kk :, :].T
        values = tile if rows_on_axis0 else tile.T
        s = np.take_along_axis(values, top, axis=1)
        r = np.repeat(np.arange(top.shape[0]), kk)
        return r, top.ravel(), s.ravel()

    def _merge(self, rows: np.ndarray, cols: np.ndarray, scores: np.ndarray) -> None:
        """Fold candidate (row, col, score) triples into each row's top k."""
        order = np.lexsort((-scores, rows))
        rows, cols, scores = rows[order], cols[order], scores[order]
        uniq, start, counts = np.unique(rows, return_index=True, return_counts=True)
        rank = np.arange(len(rows)) - np.repeat(start, counts)
        keep = rank < self.k
        slot = np.repeat(np.arange(len(uniq)), counts)[keep]
        cand_s = np.full((len(uniq), self.k), -np.inf, dtype=np.float32)
        cand_c = np.full((len(uniq), self.k), -1, dtype=np.int64)
        cand_s[slot, rank[keep]] = scores[keep]
        cand_c[slot, rank[keep]] = cols[keep]
        all_s = np.concatenate([self.scores[uniq], cand_s], axis=1)
        all_c = np.concatenate([self.cols[uniq], cand_c], axis=1)
        best = np.argpartition(-all_s, self.k - 1, axis=1)[:, : self.k]
        self.scores[uniq] = np.take_along_axis(all_s, best, axis=1)
        self.cols[uniq] = np.take_along_axis(all_c, best, axis=1)
        self.threshold[uniq] = np.maximum(self.min_score, self.scores[uniq].min(axis=1))

    def hits(self, row_global: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """All kept (query global row, column, score) with score >= min_score."""
        keep = (self.cols >= 0) & (self.scores >= self.min_score)
        r = np.nonzero(keep)[0]
        return row_global[r], self.cols[keep], self.scores[keep]


def _all_vs_all(vecs: np.ndarray, k: int, min_score: float, block: int) -> _RunningTopK:
    """Top k of every row among all rows, computing each symmetric tile once."""
    n = len(vecs)
    top = _RunningTopK(n, k, min_score)
    buf = np.empty((block, block), dtype=np.float32)
    for i in range(0, n, block):
        rows_i = np.arange(i, min(i + block, n))
        for j in range(i, n, block):
            rows_j = np.arange(j, min(j + block, n))
            tile = buf[: len(rows_i), : len(rows_j)]  # reused: no page faults per tile
            np.matmul(vecs[i : i + block], vecs[j : j + block].T, out=tile)
            if i == j:
                np.fill_diagonal(tile, -np.inf)
                top.offer(rows_i, rows_j, tile, rows_on_axis0=True)  # symmetric: covers both
            else:
                top.offer(rows_i, rows_j, tile, rows_on_axis0=True)
                top.offer(rows_j, rows_i, tile, rows_on_axis0=False)
    return top


def _queries_vs_candidates(
    vecs: np.ndarray, queries: np.ndarray, candidates: np.ndarray, k: int, min_score: float, block: int
) -> _RunningTopK:
    """Top k of each query row among candidate rows (global row numbers); self excluded."""
    top = _RunningTopK(len(queries), k, min_score)
    cand_pos = np.full(len(vecs), -1, dtype=np.int64)
    cand_pos[candidates] = np.arange(len(candidates))
    cand_vecs = vecs[candidates]  # one gather, not one per query block
    for qs in range(0, len(queries), block):
        q_local = np.arange(qs, min(qs + block, len(queries)))
        q_vecs = vecs[queries[q_local]]
        q_self = cand_pos[queries[q_local]]
        for cs in range(0, len(candidates), block):
            c_glob = candidates[cs : cs + block]
            tile = q_vecs @ cand_vecs[cs : cs + block].T
            inside = (q_self >= cs) & (q_self < cs + len(c_glob))
            tile[np.nonzero(inside)[0], q_self[inside] - cs] = -np.inf
            top.offer(q_local, c_glob, tile, rows_on_axis0=True)
    return top


def _to_pairs(ids: list[str], hits: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> list[Pair]:
    """Canonical, unique, sorted (id_a < id_b, score) from directed (row, col, score) hits.

    Vectorised: ids are ranked once so "smaller id first" is an integer
    comparison, and np.unique on lo * n + hi drops the pair found from both ends.
    """
    q = np.concatenate([h[0] for h in hits]).astype(np.int64) if hits else np.zeros(0, np.int64)
    if len(q) == 0:
        return []
    c = np.concatenate([h[1] for h in hits]).astype(np.int64)
    s = np.concatenate([h[2] for h in hits])
    n = len(ids)
    order = np.array(sorted(range(n), key=ids.__getitem__), dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    lo, hi = np.minimum(rank[q], rank[c]), np.maximum(rank[q], rank[c])
    keys, first = np.unique(lo * n + hi, return_index=True)
    a_idx, b_idx = order[keys // n].tolist(), order[keys % n].tolist()
    return [(ids[a], ids[b], float(x)) for a, b, x in zip(a_idx, b_idx, s[first].tolist())]


def _check(vectors: np.ndarray, ids: list[str]) -> np.ndarray:
    vecs = np.ascontiguousarray(vectors, dtype=np.float32)
    if vecs.ndim != 2 or len(ids) != len(vecs):
        raise ValueError(f"expected {len(ids)} vectors as an (n, dim) array, got shape {vecs.shape}")
    if len(set(ids)) != len(ids):
        raise ValueError("ids must be unique")
    return vecs


def knn_pairs(
    vectors: np.ndarray,
    ids: list[str],
    k: int = 10,
    min_score: float = 0.5,
    block: int = 2048,
    query_mask: np.ndarray | None = None,
    candidate_mask: np.ndarray | None = None,
) -> list[Pair]:
    """Unordered pairs (a < b, cosine) where b is among a's k nearest or vice versa.

    vectors must be L2-normalised (Embedder output is). query_mask selects the
    rows whose neighbours are searched and candidate_mask the rows that may be
    neighbours (default: all), e.g. images as queries against text chunks.
    """
    vecs = _check(vectors, ids)
    n = len(ids)
    if k <= 0 or n < 2:
        return []
    if query_mask is None and candidate_mask is None:
        top = _all_vs_all(vecs, k, min_score, block)
        return _to_pairs(ids, [top.hits(np.arange(n))])
    queries = np.arange(n) if query_mask is None else np.nonzero(np.asarray(query_mask, bool))[0]
    cands = np.arange(n) if candidate_mask is None else np.nonzero(np.asarray(candidate_mask, bool))[0]
    if len(queries) == 0 or len(cands) == 0:
        return []
    top = _queries_vs_candidates(vecs, queries, cands, k, min_score, block)
    return _to_pairs(ids, [top.hits(queries)])


def knn_pairs_incremental(
    new_vecs: np.ndarray,
    new_ids: list[str],
    old_vecs: np.ndarray,
    old_ids: list[str],
    k: int = 10,
    min_score: float = 0.5,
    block: int = 2048,
) -> list[Pair]:
    """The pairs with at least one new end that knn_pairs(old + new) would return.

    Links a document added later to the existing graph without the full
    old x old product. New rows search all rows. An old row can only gain a
    new neighbour if some new vector scores >= min_score against it, so only
    those "touched" old rows (usually a small neighbourhood) are re-ranked
    over all rows: exact, at a cost of about (new + touched) x all. When that
    is more than half of all x all (many new rows, or new rows everywhere),
    the symmetric full computation is cheaper and is used instead.

    Old-old pairs are not returned (they are already in the graph). An old
    pair that a new vector pushes out of an old row's top k stays there: a
    harmless extra edge, since the graph is never rewritten.
    """
    if set(new_ids) & set(old_ids):
        raise ValueError("new_ids and old_ids overlap")
    if k <= 0 or len(new_ids) == 0:
        return []
    dim = np.asarray(new_vecs).shape[-1]
    old = np.asarray(old_vecs, dtype=np.float32).reshape(-1, dim)
    new = np.asarray(new_vecs, dtype=np.float32).reshape(-1, dim)
    ids = list(old_ids) + list(new_ids)
    vecs = _check(np.concatenate([old, new]), ids)
    n_old, everyone = len(old_ids), np.arange(len(ids))
    new_rows = np.arange(n_old, len(ids))
    touched = _touched_old_rows(vecs, n_old, min_score, block)
    if len(new_rows) + len(touched) > len(ids) / 2:
        # Re-ranking that many rows costs more than the symmetric all-vs-all
        # (which computes half the products), so do that and drop old-old pairs.
        top = _all_vs_all(vecs, k, min_score, block)
        r, c, s = top.hits(everyone)
        touches_new = (r >= n_old) | (c >= n_old)
        return _to_pairs(ids, [(r[touches_new], c[touches_new], s[touches_new])])
    hits = [_queries_vs_candidates(vecs, new_rows, everyone, k, min_score, block).hits(new_rows)]
    if len(touched):
        r, c, s = _queries_vs_candidates(vecs, touched, everyone, k, min_score, block).hits(touched)
        lands_new = c >= n_old
        hits.append((r[lands_new], c[lands_new], s[lands_new]))
    return _to_pairs(ids, hits)


def _touched_old_rows(vecs: np.ndarray, n_old: int, min_score: float, block: int) -> np.ndarray:
    """Old rows with at least one new vector at score >= min_score."""
    new_t = np.ascontiguousarray(vecs[n_old:].T)
    touched = [np.zeros(0, dtype=np.int64)]
    for start in range(0, n_old, block):
        best = (vecs[start : min(start + block, n_old)] @ new_t).max(axis=1)
        touched.append(np.nonzero(best >= min_score)[0] + start)
    return np.concatenate(touched)
