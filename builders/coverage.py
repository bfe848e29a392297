"""Topic coverage of the dataset against the corpus (MiRAGE, Eq. 13).

    JS(P || Q) = 1/2 KL(P || M) + 1/2 KL(Q || M),   M = (P + Q) / 2,   log base 2

P is the corpus topic distribution (chunks per Topic, via IN_TOPIC) and Q the
dataset's (evidence items of accepted chains per Topic). Base 2 puts JS in
[0, 1]: 0 when the dataset draws on topics exactly in corpus proportion, 1
when the two share no topic at all.

How evidence maps to a topic: each distinct evidence id of an accepted chain
counts once for that chain.
- Chunk: its own topic.
- Image: the topic of its captioning chunk (CAPTIONED_BY); failing that, the
  most frequent topic among chunks that REFERENCE it (ties: smallest topic id);
  failing that, it is not counted.
- Keypoint: the topic of its source (the Chunk or Image that HAS_KEYPOINT it),
  resolved as above.
Evidence with no topic is left out of Q (reported as `unmapped_evidence`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any


# ------------------------------------------------------------------ maths
def _normalise(d: Mapping[str, float]) -> dict[str, float]:
    total = float(sum(v for v in d.values() if v > 0))
    return {k: v / total for k, v in d.items() if v > 0} if total > 0 else {}


def js_divergence(p: Mapping[str, float], q: Mapping[str, float]) -> float:
    """Jensen-Shannon divergence in bits (in [0, 1]) between two distributions.

    p and q map keys to counts or probabilities (each is normalised first;
    non-positive values are ignored). Two empty distributions give 0.0; one
    empty against a non-empty one gives 1.0 (nothing is covered).
    """
    pn, qn = _normalise(p), _normalise(q)
    if not pn and not qn:
        return 0.0
    if not pn or not qn:
        return 1.0
    js = 0.0
    for key in pn.keys() | qn.keys():
        pk, qk = pn.get(key, 0.0), qn.get(key, 0.0)
        m = (pk + qk) / 2
        if pk > 0:
            js += 0.5 * pk * math.log2(pk / m)
        if qk > 0:
            js += 0.5 * qk * math.log2(qk / m)
    return min(max(js, 0.0), 1.0)  # clamp float noise


def topic_quota(corpus: Mapping[str, float], counts: Mapping[str, int] | None = None,
                total: int | None = None) -> dict[str, float]:
    """Under-served topics and by how much: a generator's "where next?".

    corpus: topic -> chunk count (or share); counts: topic -> evidence items
    drawn so far; total: planned dataset size in evidence items (default: what
    has been drawn so far plus one, i.e. where the *next* item should go).
    A topic's target is its corpus share x total; the result maps every topic
    whose count is below its target to the deficit (target - count), largest
    first, ties by topic id. Topics absent from the corpus are ignored. An
    empty result means every topic is at or above its proportional share.
    """
    shares = _normalise(corpus)
    counts = counts or {}
    drawn = sum(max(int(counts.get(t, 0)), 0) for t in shares)
    total = drawn + 1 if total is None else total
    deficits = {t: share * total - counts.get(t, 0) for t, share in shares.items()}
    under = {t: d for t, d in deficits.items() if d > 1e-12}
    return dict(sorted(under.items(), key=lambda kv: (-kv[1], kv[0])))


# ------------------------------------------------------------------ store
def corpus_topic_distribution(store: Any) -> dict[str, int]:
    """Topic id -> number of chunks in it."""
    return {r["topic_id"]: int(r["n"]) for r in store.run("corpus_topic_sizes")}


def evidence_topics(store: Any, evidence_ids: Iterable[str]) -> dict[str, str]:
    """Evidence id -> topic id for the ids that can be placed (see module docstring)."""
    ids = sorted(set(evidence_ids))
    if not ids:
        return {}
    out: dict[str, str] = {}
    for r in store.run("topics_of_chunks", {"ids": ids}):
        out[r["chunk_id"]] = r["topic_id"]

    kp_rows = store.run("keypoint_sources", {"ids": [i for i in ids if i not in out]})
    kp_source: dict[str, tuple[str, str]] = {}
    for r in sorted(kp_rows, key=lambda r: (r["keypoint_id"], r["source_label"] != "Chunk", r["source_id"])):
        kp_source.setdefault(r["keypoint_id"], (r["source_id"], r["source_label"]))
    source_chunks = [s for s, label in kp_source.values() if label == "Chunk" and s not in out]
    chunk_topic = dict(out)
    if source_chunks:
        for r in store.run("topics_of_chunks", {"ids": sorted(set(source_chunks))}):
            chunk_topic[r["chunk_id"]] = r["topic_id"]

    images = sorted({i for i in ids if i not in out and i not in kp_source}
                    | {s for s, label in kp_source.values() if label == "Image"})
    image_topic = _image_topics(store, images)

    for i in ids:
        if i in out:
            continue
        if i in kp_source:
            source, label = kp_source[i]
            topic = chunk_topic.get(source) if label == "Chunk" else image_topic.get(source)
        else:
            topic = image_topic.get(i)
        if topic is not None:
            out[i] = topic
    return out


def _image_topics(store: Any, image_ids: list[str]) -> dict[str, str]:
    if not image_ids:
        return {}
    caption: dict[str, str] = {}
    for r in sorted(store.run("topics_of_image_captions", {"ids": image_ids}),
                    key=lambda r: (r["image_id"], r["chunk_id"])):
        caption.setdefault(r["image_id"], r["topic_id"])
    rest = [i for i in image_ids if i not in caption]
    refs: dict[str, Counter[str]] = {}
    if rest:
        for r in store.run("topics_of_image_references", {"ids": rest}):
            refs.setdefault(r["image_id"], Counter())[r["topic_id"]] += 1
    for image, topics in refs.items():
        caption[image] = sorted(topics.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
    return caption


def coverage(store: Any, chains: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Topic coverage of the accepted chains.

    Returns {js_divergence, corpus_topics, dataset_topics, doc_share,
    documents, documents_covered, evidence, unmapped_evidence}: corpus_topics
    and dataset_topics are topic id -> count (chunks, resp. evidence items);
    js_divergence is None when there is nothing to compare (no topics in the
    corpus or no accepted evidence placed in a topic); doc_share is the share
    of Documents with at least one accepted chain (0.0 without documents).
    `chains` (rows of chains_for_stats) can be passed to save a query.
    """
    if chains is None:
        chains = store.run("chains_for_stats")
    accepted = [c for c in chains if c.get("status") == "accepted"]

    corpus = corpus_topic_distribution(store)
    per_chain = [set(c.get("evidence_ids") or ()) for c in accepted]
    topic_of = evidence_topics(store, (e for ev in per_chain for e in ev))
    dataset: Counter[str] = Counter()
    unmapped = 0
    for ev in per_chain:
        for e in ev:
            if e in topic_of:
                dataset[topic_of[e]] += 1
            else:
                unmapped += 1

    documents = {r["id"] for r in store.run("document_ids")}
    covered = documents & {d for c in accepted for d in (c.get("doc_ids") or ())}
    js = js_divergence(corpus, dataset) if corpus and dataset else None
    return {
        "js_divergence": None if js is None else round(js, 6),
        "corpus_topics": dict(sorted(corpus.items())),
        "dataset_topics": dict(sorted(dataset.items())),
        "doc_share": round(len(covered) / len(documents), 6) if documents else 0.0,
        "documents": len(documents),
        "documents_covered": len(covered),
        "evidence": sum(len(ev) for ev in per_chain),
        "unmapped_evidence": unmapped,
    }
