"""Topics: Leiden communities of the chunk SIMILAR_TO graph, labelled by c-TF-IDF keywords.

Topics serve two purposes: IN_TOPIC edges let walkers and reports group
chunks, and the topic distribution is the reference for a later coverage
metric (do generated chains cover the corpus's topics in proportion?).

Chunks with no SIMILAR_TO edge (isolated nodes, i.e. singleton communities)
are gathered into ONE "misc" topic rather than dropped: every chunk then has
exactly one IN_TOPIC edge and the distribution sums to 1 over all chunks, so
coverage is measured against the whole corpus. The misc topic is marked with
"misc": True so consumers can leave it out. Communities of size 1 that Leiden
returns for nodes that do have edges are treated the same way.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kg.ids import content_id

_TOKEN = re.compile(r"\b[a-z][a-z0-9]*(?:-[a-z0-9]+)*\b")  # "5th" gives nothing, not "th"
_EXTRA_STOP = frozenset({"also", "et", "al", "fig", "figure", "table", "section", "eg", "ie", "use", "used", "using"})


@dataclass
class TopicResult:
    """topics: [{id, level, keywords, size, misc}]; membership: chunk_id -> topic_id."""

    topics: list[dict[str, Any]] = field(default_factory=list)
    membership: dict[str, str] = field(default_factory=dict)

    def distribution(self) -> dict[str, float]:
        """Share of chunks per topic (sums to 1 when there are chunks)."""
        counts = Counter(self.membership.values())
        total = sum(counts.values())
        return {tid: counts[tid] / total for tid in sorted(counts)} if total else {}


def _stop_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS) | _EXTRA_STOP


# Markup and extraction placeholders are no words of the text: "<br>" in a table cell once
# made "br" a topic keyword and the corpus "documents about br, models and citations".
_MARKUP_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*\s*/?>|&[a-z]+;|&#\d+;")
MARKUP_WORD = re.compile(r"^(?:br|td|tr|th|nbsp|amp|col\d+)$")


def tokenize(text: str, stop: frozenset[str]) -> list[str]:
    """Lowercase word tokens, no stop words, no pure numbers, no markup, at least 2 characters."""
    words = _TOKEN.findall(_MARKUP_TAG.sub(" ", text).lower())
    return [t for t in words if len(t) > 1 and t not in stop and not MARKUP_WORD.match(t)]


def _leiden(n: int, pairs: "np.ndarray", weights: "np.ndarray", resolution: float, seed: int) -> list[int]:
    """Community number per node; `pairs` (m x 2 node numbers), `weights` the similarity scores."""
    import igraph as ig
    import leidenalg

    graph = ig.Graph(n=n, edges=pairs.tolist(), directed=False)
    partition = leidenalg.find_partition(
        graph,
        leidenalg.RBConfigurationVertexPartition,
        weights=np.maximum(weights, 0.0).tolist(),
        resolution_parameter=resolution,
        seed=seed,
        n_iterations=-1,  # until stable, so the result does not depend on an iteration budget
    )
    return list(partition.membership)


def _node_edges(index: dict[str, int], edges: list[tuple[str, str, float]]) -> tuple["np.ndarray", "np.ndarray"]:
    """The edges between known chunks as numbered pairs (smaller first, no loops), each pair once
    with its highest score, sorted by pair: the igraph edge order (and so Leiden's result) does
    not depend on input order. Arrays, not a dict of tuples: about 16 bytes an edge instead of
    about 250, and a long text has some 6 edges a chunk."""
    n = len(index)
    a = np.fromiter((index.get(e[0], -1) for e in edges), dtype=np.int64, count=len(edges))
    b = np.fromiter((index.get(e[1], -1) for e in edges), dtype=np.int64, count=len(edges))
    w = np.fromiter((e[2] for e in edges), dtype=np.float64, count=len(edges))
    keep = (a >= 0) & (b >= 0) & (a != b)
    lo, hi, w = np.minimum(a, b)[keep], np.maximum(a, b)[keep], w[keep]
    key = lo * n + hi
    order = np.lexsort((-w, key))  # by pair, its highest score first
    key, w = key[order], w[order]
    first = np.ones(len(key), dtype=bool)
    first[1:] = key[1:] != key[:-1]
    key, w = key[first], w[first]
    return np.stack([key // n, key % n], axis=1), w


def _groups(chunk_ids: list[str], edges: list[tuple[str, str, float]], resolution: float, seed: int) -> tuple[list[list[str]], list[str]]:
    """(communities of >= 2 chunks, leftover chunks) from the similarity graph."""
    chunk_ids = sorted(chunk_ids)  # node numbering independent of input order
    pairs, weights = _node_edges({cid: i for i, cid in enumerate(chunk_ids)}, edges)
    membership = _leiden(len(chunk_ids), pairs, weights, resolution, seed) if chunk_ids else []
    by_comm: dict[int, list[str]] = {}
    for cid, comm in zip(chunk_ids, membership):
        by_comm.setdefault(comm, []).append(cid)
    communities = [sorted(m) for m in by_comm.values() if len(m) >= 2]
    leftovers = sorted(cid for m in by_comm.values() if len(m) < 2 for cid in m)
    return communities, leftovers


def ctfidf_keywords(docs_tokens: list[list[str]], n_keywords: int) -> list[list[str]]:
    """Top terms per class by c-TF-IDF: tf(t, c) * log(1 + A / f(t)).

    tf is the term's frequency in the class (normalised by class length, so
    big topics do not get all the common words), A the average number of
    words per class and f(t) the term's frequency over all classes.
    """
    return ctfidf_from_counts([Counter(toks) for toks in docs_tokens], n_keywords)


def ctfidf_from_counts(counts: list[Counter[str]], n_keywords: int) -> list[list[str]]:
    """ctfidf_keywords from each class's term counts (what detect_topics builds a chunk at a time)."""
    total: Counter[str] = Counter()
    for c in counts:
        total.update(c)
    avg_words = sum(sum(c.values()) for c in counts) / max(len(counts), 1)
    keywords = []
    for c in counts:
        size = sum(c.values()) or 1
        scored = {t: (n / size) * math.log(1 + avg_words / total[t]) for t, n in c.items()}
        ranked = sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))
        keywords.append([t for t, _ in ranked[:n_keywords]])
    return keywords


def detect_topics(
    chunk_ids: list[str],
    texts: list[str],
    edges: list[tuple[str, str, float]],
    resolution: float = 1.0,
    seed: int = 42,
    n_keywords: int = 8,
) -> TopicResult:
    """Leiden topics over the SIMILAR_TO graph; deterministic for a given seed and input set.

    Topic id = content hash of the sorted member chunk ids, so the same
    communities give the same ids on a re-run. Topics are sorted largest first.
    """
    if len(chunk_ids) != len(texts):
        raise ValueError("chunk_ids and texts must have the same length")
    if len(set(chunk_ids)) != len(chunk_ids):
        raise ValueError("chunk_ids must be unique")
    communities, leftovers = _groups(chunk_ids, edges, resolution, seed)
    groups = [(members, False) for members in communities]
    if leftovers:
        groups.append((leftovers, True))
    # Term counts a chunk at a time, not a list of every word of the corpus
    # held at once (a string per word: it grew with the text).
    group_of = {cid: g for g, (members, _) in enumerate(groups) for cid in members}
    counts: list[Counter[str]] = [Counter() for _ in groups]
    stop = _stop_words()
    for cid, text in zip(chunk_ids, texts):
        if cid in group_of:
            counts[group_of[cid]].update(tokenize(text, stop))
    keywords = ctfidf_from_counts(counts, n_keywords)
    result = TopicResult()
    for (members, misc), words in zip(groups, keywords):
        tid = content_id("topic", *members)
        result.topics.append({"id": tid, "level": 0, "keywords": words, "size": len(members), "misc": misc})
        for cid in members:
            result.membership[cid] = tid
    result.topics.sort(key=lambda t: (t["misc"], -t["size"], t["id"]))
    return result
