"""The text side of one document, with no store and no LLM: chunk, resolve
references, extract the chunks' entities and embed. It runs in the ingesting
process (kg.pipeline.document) or in a Ray task (kg.pipeline.ray_executor);
both give the same PreparedDocument, which the ingesting process then writes.

Chunk vectors are pooled from the sentence vectors semantic chunking already
computed (the normalised mean of the chunk's sentences) and cached under a
key of their own (embeddings.pooled_key), so kNN later reads them instead of
splitting and embedding the chunk text again. Re-splitting joined sentences
across line breaks differently and missed the cache for 407 of 502 of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from kg.config import Settings
from kg.models import Chunk, IngestError, ParsedDocument
from kg.pipeline.timings import StageTimes

_VECTOR_BLOCK = 2_000  # text chunks whose cached vectors item_vectors reads at a time


@dataclass
class PreparedDocument:
    parsed: ParsedDocument
    chunks: list[Chunk]
    resolved: list[dict]
    unresolved: int
    captions: list[tuple[str, str]]
    mentions: list[list[Any]]  # per chunk, kg.enrich.entities.Mention
    # cache key -> vector of every text embedded here (sentences and pooled chunks)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    times: dict[str, dict[str, float]] = field(default_factory=dict)  # filled when prepared elsewhere
    unresolved_why: dict[str, int] = field(default_factory=dict)  # unresolved mentions by reason


class RecordingEmbed:
    """The embed function handed to the chunker: encodes, times, and keeps what it saw."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.texts: list[str] = []
        self.rows: list[np.ndarray] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        vectors = self.embedder.encode(texts)
        self.texts.extend(texts)
        self.rows.extend(vectors)
        return vectors


def prepare_document(parsed: ParsedDocument, doc_id: str, settings: Settings, embedder: Any, extractor: Any,
                     times: StageTimes, first_index: int = 0) -> PreparedDocument:
    """Chunks, references, chunk entities and chunk vectors of one parsed
    document (or of one part of a long one: its chunks numbered from `first_index`)."""
    from kg.enrich.chunking import chunk_document
    from kg.enrich.embeddings import text_key
    from kg.enrich.references import caption_links, resolve_references, unresolved_reasons

    cfg = settings.ingest
    embed = RecordingEmbed(embedder)
    model_before = embedder.model_seconds
    with times.stage("chunk"):
        chunks = chunk_document(parsed, doc_id, cfg.chunking, embed, cfg.min_tokens, cfg.max_tokens,
                                size=cfg.fixed_size, overlap=cfg.fixed_overlap, first_index=first_index)
        resolved, unresolved = resolve_references(chunks, parsed.images)
        captions = caption_links(chunks, parsed.images)
    times.add("chunk", -(embedder.model_seconds - model_before), len(chunks))  # the model's share is "embed"
    if not chunks:
        raise IngestError("no text found")
    with times.stage("entities", items=len(chunks)):
        mentions = extractor.extract_many([c.text for c in chunks])
    pooled = cfg.chunking == "semantic"
    vectors = pool_from_sentences([c for c in chunks if c.kind == "text"], embed.texts, embed.rows,
                                  embedder) if pooled else {}
    direct = [c.text for c in chunks if not pooled or c.kind != "text"]
    vectors.update(zip(map(text_key, direct), embedder.encode(direct)))
    return PreparedDocument(parsed, chunks, resolved, len(unresolved), captions, mentions, vectors,
                            unresolved_why=unresolved_reasons(unresolved))


def pool_from_sentences(chunks: list[Chunk], sentences: list[str], rows: list[np.ndarray],
                        embedder: Any) -> dict[str, np.ndarray]:
    """Pooled vectors of one document's text chunks, cached; returns key -> vector (see pool_many)."""
    return pool_many([(chunks, sentences, rows)], embedder)


def pool_many(documents: list[tuple[list[Chunk], list[str], list[np.ndarray]]],
              embedder: Any) -> dict[str, np.ndarray]:
    """Pooled vectors of text chunks from the chunker's own sentences, cached; returns key -> vector.

    `documents` holds, per document, its text chunks and the sentences (with
    their vectors) the chunker embedded for it. The chunker joins its
    sentences in order (a heading first, then " " or a blank line between
    them), so each chunk's sentences are the next ones found in its text; what
    precedes them (the heading) is split and encoded, for all documents in
    one model call.
    """
    from kg.enrich.embeddings import pooled_key

    plans = [plan for chunks, sentences, rows in documents for plan in _pool_members(chunks, sentences, rows)]
    headings = [text for _, _, extra in plans for text in extra]
    heading_rows = iter(embedder.encode(headings)) if headings else iter(())
    out: dict[str, np.ndarray] = {}
    for chunk, members, extra in plans:
        members = members + [next(heading_rows) for _ in extra]
        if members:
            total = np.sum(members, axis=0)
            out[pooled_key(chunk.text)] = (total / max(float(np.linalg.norm(total)), 1e-12)).astype(np.float32)
    embedder.store(out)
    return out


def _pool_members(chunks: list[Chunk], sentences: list[str], rows: list[np.ndarray]
                  ) -> list[tuple[Chunk, list[np.ndarray], list[str]]]:
    """Per chunk: the vectors of its sentences, and the texts before them still to encode."""
    from kg.text import split_sentences

    plans = []
    p = 0
    for chunk in chunks:
        members: list[np.ndarray] = []
        pos, first = 0, None
        while p < len(sentences):
            if not sentences[p].strip():
                p += 1
                continue
            at = chunk.text.find(sentences[p], pos)
            if at < 0:
                break
            first = at if first is None else first
            members.append(rows[p])
            pos, p = at + len(sentences[p]), p + 1
        prefix = chunk.text[: first if first is not None else len(chunk.text)].strip()
        plans.append((chunk, members, split_sentences(prefix) or [prefix] if prefix else []))
    return plans


def item_vectors(items: list[dict], embedder: Any, semantic: bool) -> np.ndarray:
    """Embeddings of chunks and images ({text, label, kind}), one L2-normalised row per item.

    With semantic chunking every sentence has been embedded already, so a
    text chunk's vector is the normalised mean of its sentence vectors (all
    cache hits) instead of a second pass of the model over the chunk:
    about a third of ingest's embedding time saved. MiniLM truncates its
    input at 256 word pieces, so for long chunks the pooled vector also
    covers text a direct encoding would drop. Tables, captions and images
    are encoded directly.
    """
    texts = [i["text"] for i in items]
    if not semantic or not items:
        return embedder.encode(texts)
    out = np.zeros((len(items), embedder.dim), dtype=np.float32)
    direct = [j for j, i in enumerate(items) if i["label"] != "Chunk" or i.get("kind") != "text"]
    if direct:
        out[direct] = embedder.encode([texts[j] for j in direct])
    pooled = [j for j, i in enumerate(items) if i["label"] == "Chunk" and i.get("kind") == "text"]
    # A block at a time: the cache's rows of every chunk of a long text at once (a bytes
    # object and an array each, then stacked: about 5 KB a chunk beside `out`) were a peak
    # of the kNN step that grew with the document.
    for start in range(0, len(pooled), _VECTOR_BLOCK):
        rows = pooled[start:start + _VECTOR_BLOCK]
        out[rows] = pooled_vectors([texts[j] for j in rows], embedder)
    return out


def pooled_vectors(texts: list[str], embedder: Any) -> np.ndarray:
    """Vectors of text chunks: the pooled ones cached at ingest, else the mean of a fresh sentence split."""
    from kg.enrich.embeddings import pooled_key
    from kg.text import split_sentences

    keys = [pooled_key(t) for t in texts]
    found = embedder.lookup(keys)
    missing = [j for j, k in enumerate(keys) if k not in found]
    if missing:
        sentences, starts = [], []
        for j in missing:
            starts.append(len(sentences))
            sentences.extend(split_sentences(texts[j]) or [texts[j]])
        sums = np.add.reduceat(embedder.encode(sentences), starts, axis=0)
        fresh = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        computed = {keys[j]: fresh[n].astype(np.float32) for n, j in enumerate(missing)}
        embedder.store(computed)
        found.update(computed)
    return np.stack([found[k] for k in keys]).astype(np.float32, copy=False)
