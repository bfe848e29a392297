"""The corpus side of evaluation: evidence units read from the graph, and gold ids.

This is the one module of evaluate/ that talks to the store (named queries in
cypher/eval.cypher). A retriever searches *evidence units*: every Chunk, and
every Image through its description (or caption), which is what a text
retriever can see of a figure. Records name their evidence by id; imported
datasets (HotpotQA) only by document path or title, which `resolve` maps to
the chunks of that document. Records whose evidence is not in the graph are
reported, never scored as misses.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import numpy as np

from evaluate.records import EvalRecord, EvidenceRef

# An entity mentioned by more units than this links too much to mean anything
# (a corpus-wide term like "FAA"); the graph retriever ignores it.
MAX_ENTITY_FANOUT = 25
# Edge weights of the graph retriever's expansion, by relationship.
REFERENCE_WEIGHT = 1.0
ENTITY_WEIGHT = 0.5


@dataclass
class EvidenceCorpus:
    """Evidence units in a fixed order (positions index every matrix in evaluate/)."""

    ids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # Chunk or Image
    doc_ids: list[str] = field(default_factory=list)
    stored_vectors: dict[str, list[float]] = field(default_factory=dict)  # from ingest, when the store has them
    doc_paths: dict[str, str] = field(default_factory=dict)
    doc_titles: dict[str, str] = field(default_factory=dict)
    edges: list[tuple[str, str, float]] = field(default_factory=list)  # undirected, for the graph retriever
    keypoint_source: dict[str, str] = field(default_factory=dict)
    unit_keypoints: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    chunk_topic: dict[str, str] = field(default_factory=dict)
    entity_names: dict[str, list[str]] = field(default_factory=dict)  # normalised name or alias -> all names

    def __post_init__(self) -> None:
        self.position = {unit: i for i, unit in enumerate(self.ids)}

    def add(self, unit: str, text: str, label: str, doc_id: str) -> None:
        if unit in self.position:
            return
        self.position[unit] = len(self.ids)
        self.ids.append(unit)
        self.texts.append(text)
        self.labels.append(label)
        self.doc_ids.append(doc_id)

    def __len__(self) -> int:
        return len(self.ids)

    def units_of_document(self, doc_id: str) -> list[str]:
        return [u for u, d, label in zip(self.ids, self.doc_ids, self.labels) if d == doc_id and label == "Chunk"]


def load_corpus(store: Any) -> EvidenceCorpus:
    """Read every evidence unit, document, expansion edge, keypoint and topic from the store."""
    corpus = EvidenceCorpus()
    for row in store.run("eval_documents"):
        corpus.doc_paths[row["id"]] = row["path"] or ""
        corpus.doc_titles[row["id"]] = row["title"] or ""
    for row in store.run("eval_chunks"):
        corpus.add(row["id"], row["text"] or "", "Chunk", row["doc_id"] or "")
        if row.get("vector"):
            corpus.stored_vectors[row["id"]] = list(row["vector"])
    for row in store.run("eval_images"):
        # An empty description (no vision model) falls back to the caption.
        corpus.add(row["id"], row["description"] or row["caption"] or "", "Image", row["doc_id"] or "")
    corpus.edges = _expansion_edges(store)
    for row in store.run("eval_keypoint_sources"):
        corpus.keypoint_source[row["keypoint"]] = row["source"]
        corpus.unit_keypoints[row["source"]].append(row["text"] or "")
    corpus.chunk_topic = {r["chunk"]: r["topic"] for r in store.run("eval_chunk_topics")}
    corpus.entity_names = _entity_names(store)
    return corpus


def _entity_names(store: Any) -> dict[str, list[str]]:
    """Every name and alias of an entity, under each of its normalised forms (alias-aware answer match)."""
    from evaluate.textmatch import normalise

    names: dict[str, list[str]] = {}
    for row in store.run("eval_entity_names"):
        forms = [f for f in [row["name"], *(row["aliases"] or [])] if f]
        if len(forms) < 2:
            continue
        for form in forms:
            names.setdefault(normalise(form), []).extend(f for f in forms if f not in names.get(normalise(form), []))
    return names


def _expansion_edges(store: Any) -> list[tuple[str, str, float]]:
    """SIMILAR_TO (its score), REFERENCES / CAPTIONED_BY, and a shared specific entity."""
    edges = [(r["s"], r["d"], float(r["score"] or 0.0)) for r in store.run("eval_similar_edges")]
    edges += [(r["s"], r["d"], REFERENCE_WEIGHT) for r in store.run("eval_reference_edges")]
    by_entity: dict[str, list[str]] = defaultdict(list)
    for row in store.run("eval_mentions"):
        by_entity[row["entity"]].append(row["node"])
    for nodes in by_entity.values():
        nodes = sorted(set(nodes))
        if 1 < len(nodes) <= MAX_ENTITY_FANOUT:
            edges += [(a, b, ENTITY_WEIGHT) for i, a in enumerate(nodes) for b in nodes[i + 1:]]
    return edges


def adjacency(corpus: EvidenceCorpus):
    """A symmetric scipy.sparse matrix of expansion weights (the strongest edge per pair)."""
    from scipy.sparse import coo_matrix

    strongest: dict[tuple[int, int], float] = {}
    for s, d, w in corpus.edges:
        a, b = corpus.position.get(s), corpus.position.get(d)
        if a is None or b is None or a == b:
            continue
        for key in ((a, b), (b, a)):
            strongest[key] = max(w, strongest.get(key, 0.0))
    n = len(corpus)
    if not strongest:
        return coo_matrix((n, n), dtype=np.float32).tocsr()
    rows, cols = zip(*strongest)
    return coo_matrix((np.array(list(strongest.values()), dtype=np.float32), (rows, cols)), shape=(n, n)).tocsr()


@dataclass
class Resolution:
    """Which records can be scored, and why the others cannot."""

    scored: list[EvalRecord]
    unresolved: list[dict[str, Any]]  # {id, missing: [evidence ids / paths]}


def _document_index(corpus: EvidenceCorpus) -> dict[str, str]:
    """Lookup keys of a document (path, file name, file stem, title; lower case) -> doc id."""
    keys: dict[str, str] = {}
    for doc_id, path in corpus.doc_paths.items():
        if path:
            pure = PurePath(path)
            for key in (path, pure.name, pure.stem):
                keys.setdefault(key.lower(), doc_id)
        title = corpus.doc_titles.get(doc_id)
        if title:
            keys.setdefault(title.lower(), doc_id)
    return keys


def _resolve_ref(ref: EvidenceRef, corpus: EvidenceCorpus, documents: dict[str, str]) -> list[str]:
    if ref.id and ref.id in corpus.position:
        return [ref.id]
    if ref.id and ref.id in corpus.keypoint_source:  # a keypoint's unit is its source chunk or image
        return [corpus.keypoint_source[ref.id]]
    for key in (ref.path, PurePath(ref.path).name if ref.path else None,
                PurePath(ref.path).stem if ref.path else None, ref.title):
        if key and key.lower() in documents:
            return corpus.units_of_document(documents[key.lower()])
    return []


def resolve(records: list[EvalRecord], corpus: EvidenceCorpus) -> Resolution:
    """Set each hop's gold_ids; a record with a hop whose evidence is not in the graph is unresolved."""
    documents = _document_index(corpus)
    scored, unresolved = [], []
    for record in records:
        missing = []
        for hop in record.hops:
            hop.gold_ids = list(dict.fromkeys(u for ref in hop.evidence for u in _resolve_ref(ref, corpus, documents)))
            if not hop.gold_ids:
                missing += [ref.id or ref.path or ref.title or "(no evidence)" for ref in hop.evidence] or [
                    f"hop {hop.index}: no evidence"]
        if missing:
            unresolved.append({"id": record.id, "missing": missing})
        else:
            scored.append(record)
    return Resolution(scored, unresolved)
