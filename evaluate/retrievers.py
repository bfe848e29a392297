"""Baseline retrievers over the corpus graph's evidence units.

Each retriever takes a batch of queries and returns, per query, the ids of its
top k evidence units, best first. bm25 (bm25s), dense (the ingest embedder,
cosine), hybrid (reciprocal-rank fusion of the two, by ranx), graph (dense
seeds expanded along SIMILAR_TO / MENTIONS / REFERENCES: a GraphRAG-style
retriever that shows what the graph adds), and two sanity checks: oracle
(the gold evidence first: must score 1.0) and random (about k/N).
"""

from __future__ import annotations

import warnings
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evaluate.corpus import EvidenceCorpus, adjacency

BASELINES = ("bm25", "dense", "hybrid", "graph", "oracle", "random")
BATCH = 512  # queries per dense matrix product: 512 x 10,000 floats is 20 MB
GRAPH_SEEDS = 3  # dense hits the graph retriever expands from (3 and lift 0.1 did best of 18 settings on the demo)
GRAPH_LIFT = 0.1  # weight of a neighbour's link to the seeds against its own cosine
RRF_CANDIDATES = 30  # per-retriever depth fed to the fusion (ranx converts every entry; deeper is slower)


@dataclass
class Query:
    """One retrieval query: a hop's sub-question or a record's question, with its gold ids."""

    key: str  # record id, or record id + "#" + hop index
    text: str
    gold: list[str] = field(default_factory=list)


Ranking = list[str]


def _seed_of(text: str) -> int:
    return zlib.crc32(text.encode("utf-8"))


class BM25Retriever:
    name = "bm25"

    def __init__(self, corpus: EvidenceCorpus) -> None:
        import bm25s

        self._bm25s = bm25s
        self.corpus = corpus
        self.index = bm25s.BM25()
        self.index.index(bm25s.tokenize(corpus.texts, stopwords="en", show_progress=False), show_progress=False)

    def search(self, queries: list[Query], k: int) -> list[Ranking]:
        k = min(k, len(self.corpus))
        tokens = self._bm25s.tokenize([q.text for q in queries], stopwords="en", show_progress=False)
        positions, _ = self.index.retrieve(tokens, k=k, show_progress=False, n_threads=1)
        return [[self.corpus.ids[int(p)] for p in row] for row in positions]


class DenseRetriever:
    """Cosine similarity with the ingest model; unit vectors stored at ingest are reused."""

    name = "dense"

    def __init__(self, corpus: EvidenceCorpus, embedder: Any) -> None:
        self.corpus = corpus
        self.embedder = embedder
        self.matrix = self._unit_vectors()

    def _unit_vectors(self) -> np.ndarray:
        stored = self.corpus.stored_vectors
        missing = [i for i, u in enumerate(self.corpus.ids) if u not in stored]
        encoded = self.embedder.encode([self.corpus.texts[i] for i in missing]) if missing else None
        dim = encoded.shape[1] if encoded is not None else len(next(iter(stored.values())))
        matrix = np.zeros((len(self.corpus), dim), dtype=np.float32)
        for i, unit in enumerate(self.corpus.ids):
            if unit in stored:
                matrix[i] = stored[unit]
        if encoded is not None:
            matrix[missing] = encoded
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.maximum(norms, 1e-12)

    def scores(self, queries: list[Query]) -> np.ndarray:
        """(len(queries), N) cosine similarities."""
        return self.embedder.encode([q.text for q in queries]) @ self.matrix.T

    def search(self, queries: list[Query], k: int) -> list[Ranking]:
        return self._ranked(queries, k, self.scores)

    def _ranked(self, queries: list[Query], k: int, score: Callable[[list[Query]], np.ndarray]) -> list[Ranking]:
        k = min(k, len(self.corpus))
        out: list[Ranking] = []
        for start in range(0, len(queries), BATCH):
            matrix = score(queries[start:start + BATCH])
            top = np.argpartition(-matrix, k - 1, axis=1)[:, :k]
            for row, candidates in zip(matrix, top):
                order = candidates[np.argsort(-row[candidates], kind="stable")]
                out.append([self.corpus.ids[int(p)] for p in order])
        return out


class GraphRetriever(DenseRetriever):
    """Dense scores plus a lift for units linked to the top dense seeds.

    score(u) = cos(q, u) + GRAPH_LIFT * sum over seeds s linked to u of w(s, u) * cos(q, s),
    w = the SIMILAR_TO score, 1 for REFERENCES / CAPTIONED_BY, 0.5 for a shared
    specific entity (MENTIONS). A hop's evidence that shares an entity with a
    strongly matching unit rises, which is the multi-hop help a graph can give.
    """

    name = "graph"

    def __init__(self, corpus: EvidenceCorpus, embedder: Any, dense: DenseRetriever | None = None) -> None:
        self.corpus, self.embedder = corpus, embedder
        self.matrix = dense.matrix if dense is not None else self._unit_vectors()
        self.links = adjacency(corpus)

    def expanded_scores(self, queries: list[Query]) -> np.ndarray:
        from scipy.sparse import csr_matrix

        dense = self.scores(queries)
        n_seeds = min(GRAPH_SEEDS, dense.shape[1])
        seeds = np.argpartition(-dense, n_seeds - 1, axis=1)[:, :n_seeds]
        rows = np.repeat(np.arange(len(queries)), n_seeds)
        weights = np.take_along_axis(dense, seeds, axis=1).ravel().clip(min=0)
        seed_matrix = csr_matrix((weights, (rows, seeds.ravel())), shape=dense.shape)
        return dense + GRAPH_LIFT * (seed_matrix @ self.links).toarray()

    def search(self, queries: list[Query], k: int) -> list[Ranking]:
        return self._ranked(queries, k, self.expanded_scores)


class HybridRetriever:
    """Reciprocal-rank fusion (ranx, RRF k=60) of BM25 and dense rankings."""

    name = "hybrid"

    def __init__(self, bm25: BM25Retriever, dense: DenseRetriever) -> None:
        self.bm25, self.dense = bm25, dense

    def search(self, queries: list[Query], k: int) -> list[Ranking]:
        from ranx import Run, fuse

        depth = max(k, RRF_CANDIDATES)
        runs = []
        for retriever in (self.bm25, self.dense):
            rankings = retriever.search(queries, depth)
            runs.append(Run({q.key: {u: float(depth - r) for r, u in enumerate(ranking)}
                             for q, ranking in zip(queries, rankings)}, name=retriever.name))
        with warnings.catch_warnings():  # numba's uint64 -> int64 cast notice
            warnings.simplefilter("ignore")
            fused = fuse(runs=runs, method="rrf").to_dict()
        return [sorted(fused.get(q.key, {}), key=lambda u: -fused[q.key][u])[:k] for q in queries]


class OracleRetriever:
    """The gold evidence first, then random units: every recall-type metric must be 1.0."""

    name = "oracle"

    def __init__(self, corpus: EvidenceCorpus) -> None:
        self.corpus = corpus

    def search(self, queries: list[Query], k: int) -> list[Ranking]:
        out = []
        for q in queries:
            rng = np.random.default_rng(_seed_of(q.key))
            rest = [self.corpus.ids[int(p)] for p in rng.permutation(len(self.corpus))[: k + len(q.gold)]]
            out.append(list(dict.fromkeys(q.gold + [u for u in rest if u not in q.gold]))[:k])
        return out


class RandomRetriever:
    """k units drawn uniformly without replacement (seeded by the query key): hit rate about k/N."""

    name = "random"

    def __init__(self, corpus: EvidenceCorpus) -> None:
        self.corpus = corpus

    def search(self, queries: list[Query], k: int) -> list[Ranking]:
        k = min(k, len(self.corpus))
        return [[self.corpus.ids[int(p)] for p in
                 np.random.default_rng(_seed_of(q.key)).choice(len(self.corpus), k, replace=False)]
                for q in queries]


def build_retrievers(names: list[str], corpus: EvidenceCorpus, embedder_factory: Callable[[], Any]) -> dict[str, Any]:
    """The named baselines, sharing one BM25 index and one dense matrix."""
    built: dict[str, Any] = {}
    cache: dict[str, Any] = {}

    def bm25() -> BM25Retriever:
        if "bm25" not in cache:
            cache["bm25"] = BM25Retriever(corpus)
        return cache["bm25"]

    def dense() -> DenseRetriever:
        if "dense" not in cache:
            cache["dense"] = DenseRetriever(corpus, embedder_factory())
        return cache["dense"]

    makers: dict[str, Callable[[], Any]] = {
        "bm25": bm25, "dense": dense,
        "hybrid": lambda: HybridRetriever(bm25(), dense()),
        "graph": lambda: GraphRetriever(corpus, dense().embedder, dense()),
        "oracle": lambda: OracleRetriever(corpus), "random": lambda: RandomRetriever(corpus),
    }
    for name in names:
        built[name] = makers[name]()
    return built
