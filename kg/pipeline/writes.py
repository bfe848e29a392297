"""Writing one parsed document into the graph (named queries only)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from kg.models import Chunk


def write_document(store, parsed, doc_id, chunks: list[Chunk], descriptions, resolved, captions, mentions) -> None:
    """Nodes and edges of one document: Document, Chunks, Images, structure and MENTIONS."""
    from kg.enrich.entities import merge_mentions

    store.write("upsert_documents", [{
        "id": doc_id, "path": parsed.path, "title": parsed.title, "title_source": parsed.title_source,
        "pages": parsed.pages, "sha256": parsed.sha256, "ingested": False, "linked": False}])
    store.write("upsert_chunks", [{
        "id": c.id, "doc_id": doc_id, "index": c.index, "text": c.text, "kind": c.kind,
        "page_start": c.page_start, "page_end": c.page_end, "tokens": c.tokens,
        "section": c.section, "label": c.label, "role": c.role, "cells": c.cells} for c in chunks])
    store.write("upsert_images", [{
        "id": i.id, "doc_id": doc_id, "page": i.page, "bbox": [float(x) for x in i.bbox], "path": i.path,
        "caption": i.caption, "label": i.label, "width": i.width, "height": i.height,
        "description": descriptions.get(i.id, {}).get("description", i.caption),
        "description_source": descriptions.get(i.id, {}).get("description_source", "caption")}
        for i in parsed.images])
    store.write("chunk_part_of", [{"s": c.id, "d": doc_id} for c in chunks], key=None)
    store.write("image_part_of", [{"s": i.id, "d": doc_id} for i in parsed.images], key=None)
    store.write("chunk_next", [{"s": a.id, "d": b.id} for a, b in zip(chunks, chunks[1:])], key=None)
    store.write("image_captioned_by", [{"s": img, "d": ch} for img, ch in captions], key=None)
    store.write("chunk_references_image", [{"s": r["source"], "d": r["target"], "label": r["label"]}
                                           for r in resolved if r["target_kind"] == "image"], key=None)
    store.write("chunk_references_chunk", [{"s": r["source"], "d": r["target"], "label": r["label"]}
                                           for r in resolved if r["target_kind"] == "chunk"], key=None)
    store.write("upsert_entities", merge_mentions(mentions))
    sources = [c.id for c in chunks] + [i.id for i in parsed.images]
    chunk_rows, image_rows = [], []
    for idx, (source, ms) in enumerate(zip(sources, mentions)):
        rows = chunk_rows if idx < len(chunks) else image_rows
        counts = Counter()
        for m in ms:
            counts[m.entity_id] += m.count
        rows.extend({"s": source, "d": e, "count": n} for e, n in counts.items())
    store.write("chunk_mentions", chunk_rows, key=None)
    store.write("image_mentions", image_rows, key=None)

def write_metadata(store, path: Path, doc_id: str) -> None:
    """PDF metadata: the metadata title, and Author fields as AUTHOR entities."""
    from kg.enrich.entities import is_stop_entity, normalize_entity
    from kg.ingest.metadata import author_names, document_metadata

    meta = document_metadata(path)
    if not meta:
        return
    props = {"id": doc_id, "author": meta.get("author", "")}
    if meta.get("title"):
        props["metadata_title"] = meta["title"]
    store.write("upsert_documents", [props])
    rows = []
    for name in author_names(meta.get("author", "")):
        eid = normalize_entity(name)
        if eid and not is_stop_entity(eid):
            rows.append({"id": eid, "name": name, "label": "AUTHOR", "aliases": [name]})
    store.write("upsert_entities", rows)
    store.write("document_mentions", [{"s": doc_id, "d": r["id"], "count": 1, "source": "metadata"}
                                           for r in rows], key=None)
