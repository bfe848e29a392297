"""Near-duplicate chains: a question kNN graph, Leiden groups, keep the best verified.

After MiRAGE's deduplication (a weighted similarity of answers and of source
chunks, then an LLM merge of each near-duplicate group), with two changes that
make it scale and stay stable. The weights and threshold are hopgraph's own
defaults, not values from the paper (MiRAGE gives neither): alpha 0.6 on the
answers' cosine, 0.4 on the evidence Jaccard, tau 0.7.

1. Candidates: exact kNN over the *question* embeddings (k neighbours each,
   cosine >= q_min), computed in blocks by kg.enrich.similarity.knn_pairs, instead of
   all pairs. Two chains are only ever compared if their questions are close.
2. Groups: every candidate edge is weighted by the pair score
       w(a, b) = alpha * cos(answer_a, answer_b) + (1 - alpha) * Jaccard(evidence_a, evidence_b)
   and Leiden (leidenalg RBConfigurationVertexPartition, fixed seed and
   resolution) partitions the weighted graph. Inside a community, a candidate
   edge with w >= tau is a duplicate pair. Leiden keeps transitive chaining
   (a ~ b ~ c ~ ... across loosely related questions) from merging unrelated
   chains: a pair must be both close and in the same community.

Which chain stays: per group, chains are ranked by verification score (higher
first), then more hops, then more distinct documents, then lower seq, then id.
Walking that ranking, each chain not yet marked becomes a keeper and every
unmarked chain it has a duplicate edge to is marked DUPLICATE_OF it (method
'leiden', score w). A chain that only resembles a *duplicate* (not its keeper)
stays: DUPLICATE_OF always points at a chain that is kept.

run_dedup is idempotent: it first runs `clear_duplicates` (duplicates back to
accepted, DUPLICATE_OF edges deleted), then recomputes from the same inputs
(nodes sorted by id, edges sorted), so a second run writes the same result.

Merging (MiRAGE Eq. 11): with `[dedup] llm_merge = true` and an LLM configured,
each kept chain's question/answer is rewritten from its duplicates through
kg/prompts/merge_duplicates.md (builders.dedup_merge). Library users may pass
their own `merge_hook(kept: dict, duplicates: list[dict]) -> dict | None`.
Without either, the best-verified chain of a group is kept as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kg.config import Settings
from kg.context import RunContext
from kg.enrich.embeddings import Embedder
from kg.llm.client import LLMClient

log = logging.getLogger(__name__)

DuplicatePair = tuple[str, str, float]  # (duplicate id, kept id, pair score)
_PAIR_BLOCK = 4096
MergeHook = Callable[[dict[str, Any], list[dict[str, Any]]], "dict[str, Any] | None"]


# ------------------------------------------------------------------ scoring
def jaccard(a: Sequence[str] | set[str] | None, b: Sequence[str] | set[str] | None) -> float:
    """|A & B| / |A | B|; 0 when both are empty."""
    sa, sb = set(a or ()), set(b or ())
    union = len(sa | sb)
    return len(sa & sb) / union if union else 0.0


def pair_scores(
    pairs_idx: np.ndarray, a_emb: np.ndarray, evidence: list[frozenset[str]], alpha: float
) -> np.ndarray:
    """alpha * cos(answers) + (1 - alpha) * Jaccard(evidence) for each (i, j) row of pairs_idx."""
    if len(pairs_idx) == 0:
        return np.zeros(0, dtype=np.float64)
    i, j = pairs_idx[:, 0], pairs_idx[:, 1]
    cos = np.empty(len(i), dtype=np.float64)
    for start in range(0, len(i), _PAIR_BLOCK):  # blocks: never two (pairs x dim) copies at once
        bi, bj = i[start:start + _PAIR_BLOCK], j[start:start + _PAIR_BLOCK]
        cos[start:start + len(bi)] = np.einsum("ij,ij->i", a_emb[bi], a_emb[bj])
    np.clip(cos, -1.0, 1.0, out=cos)
    jac = np.fromiter(
        (
            (len(evidence[x] & evidence[y]) / u) if (u := len(evidence[x] | evidence[y])) else 0.0
            for x, y in zip(i.tolist(), j.tolist())
        ),
        dtype=np.float64,
        count=len(i),
    )
    return alpha * cos + (1.0 - alpha) * jac


def _rank_key(chain: dict[str, Any]) -> tuple:
    """Sort key, best chain first: score, hops, distinct documents, lowest seq, id."""
    score = chain.get("score")
    seq = chain.get("seq")
    return (
        -(float(score) if score is not None else -1.0),
        -int(chain.get("hops") or 0),
        -len(set(chain.get("doc_ids") or ())),
        int(seq) if seq is not None else float("inf"),
        str(chain["id"]),
    )


# ------------------------------------------------------------------ kNN
def _knn(vectors: np.ndarray, ids: list[str], k: int, min_score: float) -> list[tuple[str, str, float]]:
    try:
        from kg.enrich.similarity import knn_pairs
    except ImportError:  # pragma: no cover - kg.enrich.similarity ships with hopgraph
        return _knn_numpy(vectors, ids, k, min_score)
    return knn_pairs(vectors, ids, k=k, min_score=min_score)


def _knn_numpy(vectors: np.ndarray, ids: list[str], k: int, min_score: float,
               block: int = 2048) -> list[tuple[str, str, float]]:
    """Fallback exact blocked kNN: unordered pairs (a < b) where either is in the other's top k."""
    vecs = np.ascontiguousarray(vectors, dtype=np.float32)
    n = len(vecs)
    kk = min(k, n - 1)
    found: dict[tuple[str, str], float] = {}
    for start in range(0, n, block):
        sims = vecs[start:start + block] @ vecs.T
        rows = np.arange(sims.shape[0])
        sims[rows, rows + start] = -np.inf
        top = np.argpartition(-sims, kk - 1, axis=1)[:, :kk]
        for r, cols in enumerate(top):
            for c in cols.tolist():
                s = float(sims[r, c])
                if s >= min_score:
                    a, b = ids[start + r], ids[c]
                    found[(min(a, b), max(a, b))] = s
    return [(a, b, s) for (a, b), s in sorted(found.items())]


# ------------------------------------------------------------------ Leiden
def _leiden(n: int, edges: np.ndarray, weights: np.ndarray, resolution: float, seed: int) -> list[int]:
    import igraph as ig
    import leidenalg

    graph = ig.Graph(n=n, edges=edges.tolist(), directed=False)
    partition = leidenalg.find_partition(
        graph,
        leidenalg.RBConfigurationVertexPartition,
        weights=weights.tolist(),
        resolution_parameter=resolution,
        seed=seed,
        n_iterations=-1,  # until stable: the result does not depend on an iteration budget
    )
    return list(partition.membership)


# ------------------------------------------------------------------ core
def find_duplicates(
    chains: list[dict[str, Any]],
    q_emb: np.ndarray,
    a_emb: np.ndarray,
    alpha: float = 0.6,
    tau: float = 0.7,
    k: int = 10,
    resolution: float = 1.0,
    seed: int = 42,
    q_min: float = 0.5,
) -> tuple[list[list[str]], list[DuplicatePair]]:
    """Leiden groups and duplicate pairs of chains; pure (no store, no model).

    chains: dicts with at least id, evidence_ids; score, hops, doc_ids, seq
    rank the chains (see _rank_key). q_emb / a_emb: L2-normalised question and
    answer embeddings, one row per chain in the order of `chains`.

    Returns (groups, duplicates): groups are the Leiden communities with two
    or more chains (sorted id lists, sorted); duplicates are
    (duplicate_id, kept_id, score) sorted by duplicate id. The result does not
    depend on the order of `chains`.
    """
    n = len(chains)
    if len(q_emb) != n or len(a_emb) != n:
        raise ValueError(f"{n} chains but {len(q_emb)} question and {len(a_emb)} answer embeddings")
    if n < 2:
        return [], []
    # Canonical node order: by id, so the input order changes nothing.
    order = sorted(range(n), key=lambda x: str(chains[x]["id"]))
    chains = [chains[x] for x in order]
    q = np.ascontiguousarray(np.asarray(q_emb, dtype=np.float32)[order])
    a = np.ascontiguousarray(np.asarray(a_emb, dtype=np.float32)[order])
    ids = [str(c["id"]) for c in chains]
    if len(set(ids)) != n:
        raise ValueError("chain ids must be unique")
    index = {cid: x for x, cid in enumerate(ids)}
    evidence = [frozenset(c.get("evidence_ids") or ()) for c in chains]

    knn = _knn(q, ids, k, q_min)
    if not knn:
        return [], []
    pairs_idx = np.array(sorted((min(index[x], index[y]), max(index[x], index[y])) for x, y, _ in knn),
                         dtype=np.int64)
    weights = pair_scores(pairs_idx, a, evidence, alpha)

    positive = weights > 0  # Leiden needs non-negative weights; a zero edge adds nothing
    membership = _leiden(n, pairs_idx[positive], weights[positive], resolution, seed)

    by_comm: dict[int, list[int]] = {}
    for node, comm in enumerate(membership):
        by_comm.setdefault(comm, []).append(node)
    groups = sorted(sorted(ids[x] for x in members) for members in by_comm.values() if len(members) >= 2)

    # Duplicate edges: candidate pairs inside one community with score >= tau.
    comm = np.asarray(membership, dtype=np.int64)
    same = comm[pairs_idx[:, 0]] == comm[pairs_idx[:, 1]]
    dup = same & (weights >= tau)
    neighbours: dict[int, dict[int, float]] = {}
    for (x, y), w in zip(pairs_idx[dup].tolist(), weights[dup].tolist()):
        neighbours.setdefault(x, {})[y] = w
        neighbours.setdefault(y, {})[x] = w

    # Best first: an unmarked chain is kept and absorbs its unmarked duplicate
    # neighbours, which all rank below it (better ones were visited already).
    duplicates: list[DuplicatePair] = []
    done: set[int] = set()  # kept or marked duplicate
    for node in sorted(neighbours, key=lambda x: _rank_key(chains[x])):
        if node in done:
            continue
        done.add(node)
        for other, w in sorted(neighbours[node].items()):
            if other not in done:
                done.add(other)
                duplicates.append((ids[other], ids[node], round(float(w), 6)))
    duplicates.sort()
    return groups, duplicates


# ------------------------------------------------------------------ store
def _make_embedder(settings: Settings) -> Embedder:
    cache = settings.embeddings.cache_path(Path(settings.store.data_dir))
    return Embedder(settings.embeddings.model, cache_path=cache, batch_size=settings.embeddings.batch_size)


@dataclass
class DedupResult:
    """What one dedup run found."""

    chains: int = 0  # accepted chains considered
    groups: int = 0  # Leiden groups of two or more chains
    duplicates: int = 0  # chains marked duplicate
    merged: int = 0  # kept chains that absorbed at least one duplicate
    llm_merged: int = 0  # chains rewritten by the merge hook (0 without one)


def run_dedup(ctx: RunContext, embedder: Embedder | None = None,
              merge_hook: MergeHook | None = None) -> DedupResult:
    """Recompute duplicates of accepted chains in the store; idempotent. `embedder`:
    one already loaded (else one is made from the settings); `merge_hook`: rewrites
    each kept chain from its duplicates (else [dedup] llm_merge with the run's client)."""
    settings, store = ctx.settings, ctx.store
    cfg = settings.dedup
    store.run("clear_duplicates")
    rows = store.run("dedup_candidates")
    report = DedupResult(chains=len(rows))
    stale = [r["id"] for r in rows if r.get("status") == "duplicate"]  # duplicate without an edge
    if len(rows) < 2:
        _write_status(store, [], stale)
        return report

    own_embedder = embedder is None
    embedder = embedder or _make_embedder(settings)
    try:
        q_emb = embedder.encode([str(r.get("question") or "") for r in rows])
        a_emb = embedder.encode([str(r.get("answer") or "") for r in rows])
    finally:
        if own_embedder and hasattr(embedder, "close"):
            embedder.close()

    groups, duplicates = find_duplicates(
        rows, q_emb, a_emb, alpha=cfg.alpha, tau=cfg.tau, k=cfg.k,
        resolution=cfg.resolution, seed=cfg.seed,
    )
    store.write("chain_duplicate_of",
                [{"s": d, "d": kept, "score": s, "method": "leiden"} for d, kept, s in duplicates], key=None)
    dup_ids = {d for d, _, _ in duplicates}
    _write_status(store, sorted(dup_ids), [cid for cid in stale if cid not in dup_ids])

    kept_groups: dict[str, list[str]] = {}
    for d, kept, _ in duplicates:
        kept_groups.setdefault(kept, []).append(d)
    report.groups, report.duplicates, report.merged = len(groups), len(duplicates), len(kept_groups)

    if merge_hook is None and kept_groups and cfg.llm_merge:
        merge_hook = _configured_merge_hook(settings, ctx.client)
    if merge_hook is not None and kept_groups:
        report.llm_merged = _apply_merge_hook(store, rows, kept_groups, merge_hook)
    log.info("dedup: %s", report)
    return report


def _configured_merge_hook(settings: Settings, client: LLMClient | None) -> MergeHook | None:
    """The LLM merge of `[dedup] llm_merge` with the run's client; None (with a warning) offline."""
    from builders.dedup_merge import llm_merge_hook

    if client is None:
        log.warning("dedup: llm_merge is set but no LLM is configured; groups are kept without merging")
        return None
    return llm_merge_hook(settings, client)


def _write_status(store: Any, duplicate_ids: list[str], reaccept_ids: list[str]) -> None:
    rows = [{"id": cid, "status": "duplicate", "reject_reason": None} for cid in duplicate_ids]
    rows += [{"id": cid, "status": "accepted", "reject_reason": None} for cid in reaccept_ids]
    if rows:
        store.write("set_chain_status", rows)


def _apply_merge_hook(store: Any, rows: list[dict[str, Any]], kept_groups: dict[str, list[str]],
                      merge_hook: MergeHook) -> int:
    """Let the hook rewrite each kept chain from its duplicates; it returns {question, answer} or None."""
    by_id = {r["id"]: r for r in rows}
    updates = []
    for kept, dups in sorted(kept_groups.items()):
        result = merge_hook(by_id[kept], [by_id[d] for d in sorted(dups)])
        if result and result.get("question") and result.get("answer"):
            updates.append({"id": kept, "question": result["question"], "answer": result["answer"],
                            "merged_from": sorted(dups)})
    if updates:
        store.write("upsert_chains", updates)
    return len(updates)
