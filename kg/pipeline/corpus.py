"""The corpus-level steps of ingest, run once new documents are in: SIMILAR_TO
edges (exact kNN, new documents against the whole corpus), then topics and the
corpus domain and persona."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from kg.config import Settings

_EDGE_SLICE = 10_000  # SIMILAR_TO rows made and written at a time


def link_similar(settings: Settings, store, vectors: Callable[[list[dict]], np.ndarray], times=None,
                 written: frozenset[str] = frozenset()) -> int:
    """SIMILAR_TO for documents not linked yet: new x (old + new), chunk-chunk and chunk-image.

    New are the documents marked `ingested` and those in `written` (written
    by this run, their keypoints still being asked for: linking them then
    overlaps that wait)."""
    from kg.enrich.similarity import knn_pairs, knn_pairs_incremental

    docs = store.run("document_states")
    new_docs = {d["id"] for d in docs if (d["ingested"] or d["id"] in written) and not d["linked"]}
    if not new_docs:
        return 0
    items = _nodes_for_knn(store)
    ids = [i["id"] for i in items]
    vecs = vectors(items)
    t0 = time.perf_counter()
    is_new = np.array([i["doc_id"] in new_docs for i in items])
    is_chunk = np.array([i["label"] == "Chunk" for i in items])
    sim = settings.similarity
    new_ids = [ids[j] for j in np.nonzero(is_new)[0]]
    # chunk-chunk: new chunks against everything; chunk-image: images as queries against chunks.
    # A passage repeated word for word (a licence footer in every section) is linked once.
    with_vector = is_new & is_chunk
    repeat = _repeats(items, is_new)
    cc_new = with_vector & ~repeat
    cc_old = ~is_new & is_chunk
    if cc_old.any():
        pairs = knn_pairs_incremental(_rows(vecs, cc_new), [ids[j] for j in np.nonzero(cc_new)[0]],
                                      _rows(vecs, cc_old), [ids[j] for j in np.nonzero(cc_old)[0]],
                                      sim.k, sim.min_score)
    else:
        pairs = knn_pairs(_rows(vecs, cc_new), [ids[j] for j in np.nonzero(cc_new)[0]], sim.k, sim.min_score)
    label = {i["id"]: i["label"] for i in items}
    doc = {i["id"]: i["doc_id"] for i in items}
    image_mask = ~is_chunk
    ci_pairs = []
    if image_mask.any():
        all_pairs = knn_pairs(vecs, ids, sim.k, sim.min_score, query_mask=image_mask,
                              candidate_mask=is_chunk & ~repeat)
        new_set = set(new_ids)
        ci_pairs = [p for p in all_pairs if (p[0] in new_set or p[1] in new_set)
                    and label[p[0]] != label[p[1]]]
    image_rows = []
    for a, b, s in ci_pairs:
        c, i = (a, b) if label[a] == "Chunk" else (b, a)
        image_rows.append({"s": c, "d": i, "score": float(s), "cross_document": doc[c] != doc[i]})
    if times is not None:
        times.add("knn", time.perf_counter() - t0, len(pairs) + len(image_rows))
    # Vectors on the Chunk nodes too, with the store's vector index, so the
    # graph doubles as a retrieval index (db.idx.vector / db.index.vector).
    store.ensure_vector_index("Chunk", "embedding", vecs.shape[1])
    store.set_vectors("Chunk", "embedding", [{"id": ids[j], "vector": vecs[j]}
                                                  for j in np.nonzero(with_vector)[0]])
    # Rows a slice at a time: a dict per edge for every edge of a long text at once (about 6 a chunk)
    # was a peak of its own. A pair in two slices is MERGEd once, with the same score.
    for start in range(0, len(pairs), _EDGE_SLICE):
        store.write("chunk_similar_chunk", [{"s": a, "d": b, "score": float(s), "cross_document": doc[a] != doc[b]}
                                            for a, b, s in pairs[start:start + _EDGE_SLICE]], key=None)
    store.write("chunk_similar_image", image_rows, key=None)
    store.write("upsert_documents", [{"id": d, "linked": True} for d in sorted(new_docs)])
    return len(pairs) + len(image_rows)

def _rows(vecs: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The rows of `vecs` under `mask`; `vecs` itself when that is all of them (one new text and
    nothing else, the common case of a long document: a masked copy is another 1.5 KB a chunk)."""
    return vecs if mask.all() else vecs[mask]


def _repeats(items: list[dict], is_new: np.ndarray) -> np.ndarray:
    """True for a new chunk whose exact text an earlier chunk has (an old one,
    else a new one with a smaller id): it gets no SIMILAR_TO of its own, so
    copies of one passage neither fill each other's k nearest at score 1.0
    nor take k edges each. It keeps its vector, and its topic is the misc one."""
    first: dict[str, int] = {}
    for j in sorted(range(len(items)), key=lambda j: (bool(is_new[j]), items[j]["id"])):
        if items[j]["label"] == "Chunk":
            first.setdefault(items[j]["text"], j)
    return np.array([bool(is_new[j]) and item["label"] == "Chunk" and first[item["text"]] != j
                     for j, item in enumerate(items)], dtype=bool)


def _nodes_for_knn(store) -> list[dict]:
    chunks = store.run("walk_chunks")
    images = store.run("walk_images")
    items = [{"id": c["id"], "doc_id": c["doc_id"], "text": c["text"] or "", "label": "Chunk",
              "kind": c["kind"] or "text"} for c in chunks]
    items += [{"id": i["id"], "doc_id": i["doc_id"], "text": i["description"] or i["caption"] or "",
               "label": "Image", "kind": "image"} for i in images if (i["description"] or i["caption"])]
    return items

def topics_and_domain(settings: Settings, store, client, times=None) -> dict:
    """Leiden topics over the whole corpus, then the corpus domain and persona."""
    topics = write_topics(settings, store, times)
    return {"topics": len(topics.ranked), **write_domain(settings, store, client, topics)}


@dataclass
class CorpusTopics:
    ranked: list[dict]  # the topics, largest first
    distribution: dict[str, float]  # share of chunks per topic id


def write_topics(settings: Settings, store, times=None) -> CorpusTopics:
    """Leiden topics over the whole corpus, written; returns them for write_domain."""
    from kg.enrich.topics import detect_topics

    chunks = store.run("walk_chunks")
    edges = similarity_edges(store, {c["id"]: c["id"] for c in chunks})
    t = settings.topics
    t0 = time.perf_counter()
    result = detect_topics([c["id"] for c in chunks], [c["text"] or "" for c in chunks], edges,
                           t.resolution, t.seed)
    if times is not None:
        times.add("topics", time.perf_counter() - t0, len(result.topics))
    store.run("clear_topics")
    store.write("upsert_topics", [{"id": tp["id"], "level": tp.get("level", 0),
                                        "keywords": list(tp["keywords"]), "size": tp["size"]}
                                       for tp in result.topics])
    store.write("chunk_in_topic", [{"s": c, "d": tid} for c, tid in result.membership.items()], key=None)
    return CorpusTopics(sorted(result.topics, key=lambda tp: -tp["size"]), result.distribution())


def similarity_edges(store, ids: dict[str, str], page: int = 2000) -> list[tuple[str, str, float]]:
    """Every chunk-chunk SIMILAR_TO edge as (source, target, score), read `page` source chunks
    at a time and holding the strings of `ids` (a chunk id to itself): all rows of a long
    text's edges at once, as dicts of fresh strings, were a peak of the topics step."""
    edges: list[tuple[str, str, float]] = []
    after = ""
    while True:
        rows = store.run("chunk_similarity_edges_page", {"after": after, "limit": page})
        if not rows:
            return edges
        edges += [(ids.get(r["s"], r["s"]), ids.get(r["d"], r["d"]), float(r["score"]))
                  for r in rows if r["d"] is not None]
        after = rows[-1]["s"]


def write_domain(settings: Settings, store, client, topics: CorpusTopics) -> dict:
    """The corpus domain and persona (an LLM call, or from keywords offline) from the largest topics."""
    from kg.enrich.domain import infer_domain_persona

    meta = infer_domain_persona([list(tp["keywords"]) for tp in topics.ranked[:8]], client=client,
                                prompts_dir=settings.llm.prompts_dir)
    store.write("upsert_corpus_meta", [{"id": "corpus", "domain": meta["domain"],
                                             "persona": meta["persona"], "generator": meta["generator"],
                                             "topic_distribution": json.dumps(topics.distribution, sort_keys=True)}])
    return {"domain": meta["domain"], "persona": meta["persona"]}
