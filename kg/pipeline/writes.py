"""Writing parsed documents into the graph (named queries only).

Documents are written in batches (kg.pipeline.groups prepares many small
ones together): one write per query for the whole batch instead of a dozen
round trips per document, with the same graph as writing them one by one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kg.models import Chunk, ParsedDocument


@dataclass
class DocumentWrite:
    """What one document puts in the graph besides its keypoints."""

    path: Path  # the file (PDF metadata: its title and Author entities)
    parsed: ParsedDocument
    doc_id: str
    chunks: list[Chunk]
    descriptions: dict[str, dict]  # image id -> description row
    resolved: list[dict]  # resolved references
    captions: list[tuple[str, str]]  # (image id, caption chunk id)
    mentions: list[list[Any]]  # per chunk, then per image: kg.enrich.entities.Mention


def write_documents(store, docs: list[DocumentWrite]) -> None:
    """Nodes and edges of documents, in order: Document, Chunks, Images, structure and MENTIONS.

    Every Document is written with `ingested` false; the keypoint step marks
    it once its keypoints are in, so a killed run redoes it.
    """
    if not docs:
        return
    store.write("upsert_documents", [{
        "id": d.doc_id, "path": d.parsed.path, "title": d.parsed.title, "title_source": d.parsed.title_source,
        "pages": d.parsed.pages, "sha256": d.parsed.sha256, "ingested": False, "linked": False} for d in docs])
    store.write("upsert_chunks", [{
        "id": c.id, "doc_id": d.doc_id, "index": c.index, "text": c.text, "kind": c.kind,
        "page_start": c.page_start, "page_end": c.page_end, "tokens": c.tokens,
        "section": c.section, "label": c.label, "role": c.role, "cells": c.cells} for d in docs for c in d.chunks])
    store.write("upsert_images", [{
        "id": i.id, "doc_id": d.doc_id, "page": i.page, "bbox": [float(x) for x in i.bbox], "path": i.path,
        "caption": i.caption, "label": i.label, "width": i.width, "height": i.height,
        "visible_text": i.visible_text, "visible_lines": i.visible_lines, "bar_values": i.bar_values,
        "table_cells": i.table_cells,
        "description": d.descriptions.get(i.id, {}).get("description", i.caption),
        "description_source": d.descriptions.get(i.id, {}).get("description_source", "caption")}
        for d in docs for i in d.parsed.images])
    store.write("chunk_part_of", [{"s": c.id, "d": d.doc_id} for d in docs for c in d.chunks], key=None)
    store.write("image_part_of", [{"s": i.id, "d": d.doc_id} for d in docs for i in d.parsed.images], key=None)
    store.write("chunk_next", [{"s": a.id, "d": b.id} for d in docs for a, b in zip(d.chunks, d.chunks[1:])],
                key=None)
    store.write("image_captioned_by", [{"s": img, "d": ch} for d in docs for img, ch in d.captions], key=None)
    references = [r for d in docs for r in d.resolved]
    for kind in ("image", "chunk"):
        store.write(f"chunk_references_{kind}", [{"s": r["source"], "d": r["target"], "label": r["label"]}
                                                 for r in references if r["target_kind"] == kind], key=None)
    from kg.enrich.entities import merge_mentions

    metadata = [metadata_rows(d.path, d.doc_id) for d in docs]
    store.write("upsert_documents", [props for props, _ in metadata if props])
    store.write("upsert_entities", entity_rows_in_order(
        [rows for d, (_, authors) in zip(docs, metadata) for rows in (merge_mentions(d.mentions), authors)]))
    store.write("document_mentions", [{"s": d.doc_id, "d": r["id"], "count": 1, "source": "metadata"}
                                      for d, (_, authors) in zip(docs, metadata) for r in authors], key=None)
    chunk_rows, image_rows = [], []
    for d in docs:
        sources = [c.id for c in d.chunks] + [i.id for i in d.parsed.images]
        for idx, (source, ms) in enumerate(zip(sources, d.mentions)):
            counts: Counter[str] = Counter()
            for m in ms:
                counts[m.entity_id] += m.count
            (chunk_rows if idx < len(d.chunks) else image_rows).extend(
                {"s": source, "d": e, "count": n} for e, n in counts.items())
    store.write("chunk_mentions", chunk_rows, key=None)
    store.write("image_mentions", image_rows, key=None)


def entity_rows_in_order(per_document: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """One Entity row per id from several documents' rows, leaving the graph
    as writing them one document after the other would (upsert_entities: the
    first writer names a new Entity, later ones only add aliases): name and
    label come from the first document with the entity, aliases are every
    document's, in document order, without repeats."""
    rows: dict[str, dict[str, Any]] = {}
    for document_rows in per_document:
        for row in document_rows:
            seen = rows.get(row["id"])
            if seen is None:
                rows[row["id"]] = {**row, "aliases": list(row["aliases"])}
            else:
                seen["aliases"].extend(a for a in row["aliases"] if a not in seen["aliases"])
    return [rows[eid] for eid in sorted(rows)]


def metadata_rows(path: Path, doc_id: str) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """PDF metadata: Document properties (metadata title, author), and Author fields as AUTHOR entity rows."""
    from kg.enrich.entities import is_stop_entity, normalize_entity
    from kg.ingest.metadata import author_names, document_metadata

    meta = document_metadata(path)
    if not meta:
        return None, []
    props = {"id": doc_id, "author": meta.get("author", "")}
    if meta.get("title"):
        props["metadata_title"] = meta["title"]
    rows = []
    for name in author_names(meta.get("author", "")):
        eid = normalize_entity(name)
        if eid and not is_stop_entity(eid):
            rows.append({"id": eid, "name": name, "label": "AUTHOR", "aliases": [name]})
    return props, rows
