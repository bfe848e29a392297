"""The corpus's own indexes, for judging a candidate before any LLM call.

A strict verifier rejects a chain when one evidence item, or the items
without an earlier hop, already determine the answer. Whether that is so
can often be read off hopgraph's own retrievers, which cost nothing:

* BM25 (bm25s) over every chunk: the rank of a hop's evidence for a query
  made of the words a question would carry. An item ranked first for the
  earlier hops' facts (bridge and answer names removed) holds those facts
  itself, so a reader would reach it without the earlier hops.
* the dense vectors stored at ingest (Chunk.embedding): the cosine of two
  chunks, which says whether a name shared by two documents is used in the
  same sense in both ("Transformer" in an LLM report and in a PDF toolkit's
  paper is not one thing), and whether a name mentioned in several documents
  is used in related contexts at all (a generic word is not).

Built once per generate run; both are optional (a view without vectors
falls back to the SIMILAR_TO scores, a failed BM25 import to no ranking).
"""

from __future__ import annotations

import re

import numpy as np

from queries.corpus_view import CorpusView

TOP_K = 10


def strip_names(text: str, names: list[str]) -> str:
    """`text` with every occurrence of each name removed (whole words, case-insensitive)."""
    for name in sorted({n for n in names if n and len(n) > 1}, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(name) + r"(?!\w)", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


class CorpusIndex:
    """BM25 ranks and dense context similarity over the chunks of one corpus view."""

    def __init__(self, view: CorpusView, vectors: dict[str, list[float]] | None = None):
        self.view = view
        self.ids = [n.id for n in view.nodes.values() if n.label == "Chunk" and n.text.strip()]
        self.position = {cid: i for i, cid in enumerate(self.ids)}
        self._bm25 = None
        self._vectors = {k: _unit(v) for k, v in (vectors or {}).items() if v}
        self._scores: dict[str, dict[str, float]] = {}
        self._spread: dict[str, float] = {}

    # ---- BM25 --------------------------------------------------------------
    def _index(self):
        if self._bm25 is None and self.ids:
            import bm25s

            index = bm25s.BM25()
            index.index(bm25s.tokenize([self.view.nodes[i].text for i in self.ids], stopwords="en",
                                       show_progress=False), show_progress=False)
            self._bm25 = (bm25s, index)
        return self._bm25

    def scores(self, query: str) -> dict[str, float]:
        """Chunk id -> BM25 score for the top TOP_K chunks of `query` (cached)."""
        query = " ".join(query.split())
        cached = self._scores.get(query)
        if cached is not None:
            return cached
        out: dict[str, float] = {}
        built = self._index() if query else None
        if built is not None:
            bm25s, index = built
            tokens = bm25s.tokenize([query], stopwords="en", show_progress=False)
            if tokens.vocab:
                k = min(TOP_K, len(self.ids))
                docs, scores = index.retrieve(tokens, k=k, show_progress=False, n_threads=1)
                out = {self.ids[int(d)]: float(s) for d, s in zip(docs[0], scores[0]) if float(s) > 0}
        self._scores[query] = out
        return out

    def rank(self, query: str, node_id: str) -> int:
        """1-based BM25 rank of `node_id` for `query`; 0 when it is not among the top TOP_K."""
        ranked = sorted(self.scores(query).items(), key=lambda kv: -kv[1])
        return next((i + 1 for i, (cid, _) in enumerate(ranked) if cid == node_id), 0)

    # ---- dense -------------------------------------------------------------
    def context_similarity(self, a: str, b: str) -> float | None:
        """Cosine of two evidence nodes' stored vectors (SIMILAR_TO's score without them); None if unknown."""
        va, vb = self._vectors.get(a), self._vectors.get(b)
        if va is not None and vb is not None:
            return float(va @ vb)
        score = self.view.similarity(a, b)
        return score if score else None


    def spread(self, key: str, nodes) -> float:
        """Mean cosine between the per-document centroids of `nodes`' vectors (1.0 when fewer than
        three documents have vectors: too few to call a name generic). Cached by `key`."""
        cached = self._spread.get(key)
        if cached is not None:
            return cached
        by_doc: dict[str, list] = {}
        for n in nodes:
            if n in self._vectors and n in self.view.nodes:
                by_doc.setdefault(self.view.nodes[n].doc_id, []).append(self._vectors[n])
        score = 1.0
        if len(by_doc) >= 3:
            centroids = [_unit(np.sum(vs, axis=0)) for vs in by_doc.values()]
            pairs = [(a, b) for i, a in enumerate(centroids) for b in centroids[i + 1:]]
            score = float(sum(a @ b for a, b in pairs) / len(pairs))
        self._spread[key] = score
        return score


def _unit(vector) -> np.ndarray:
    values = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(values)) or 1.0
    return values / norm


def load_vectors(store) -> dict[str, list[float]]:
    """Chunk id -> stored embedding (the read `hopgraph eval` uses); {} when the store has none."""
    try:
        rows = store.run("eval_chunks")
    except Exception:  # an older graph without the property: context falls back to SIMILAR_TO
        return {}
    return {r["id"]: r["vector"] for r in rows if r.get("vector")}
