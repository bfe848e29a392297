"""The keypoint step of ingest, run on the LLM thread: ask for the keypoints
of one or more documents' chunks and images (with an LLM, several documents'
passages share requests), split a shared result back by document, and write
keypoints in one batch per query.

With an LLM the asking starts as soon as a document is chunked
(ask_keypoints), before its entities are found: the requests do not depend
on them, only the keypoints' MENTIONS do, and those are added when the
entities are in (with_mentions). So the calls overlap the entity extraction
and the next document's embedding instead of following them."""

from __future__ import annotations

from typing import Any

from kg.config import Settings
from kg.errors import StoreError
from kg.store.base import dedupe_rows
from kg.models import Chunk, ParsedDocument
from kg.pipeline.writes import DocumentWrite


def document_keypoints(docs: list[DocumentWrite], client: Any, settings: Settings) -> tuple[Any, list[tuple[str, str]]]:
    """KeypointResult of the documents' chunks and images, and the failed calls."""
    from kg.enrich.keypoints import extract_keypoints

    chunk_items, image_items = [], []
    for doc in docs:
        chunks, images = keypoint_items(doc.chunks, doc.parsed.images, doc.descriptions, doc.mentions)
        chunk_items += chunks
        image_items += images
    result = extract_keypoints(chunk_items, image_items, client=client, prompts_dir=settings.llm.prompts_dir,
                               entity_names=entity_names([ms for doc in docs for ms in doc.mentions]),
                               batch_size=settings.llm.keypoints_batch)
    return result, list(result.failures)


def ask_keypoints(docs: list[tuple[list[Chunk], ParsedDocument, dict]], client: Any, settings: Settings
                  ) -> list[tuple[Any, list[tuple[str, str]]]]:
    """The LLM's share of document_keypoints, asked before the documents'
    entities are known: (chunks, parsed, image descriptions) per document,
    one extract_keypoints call for all, split back per document. The
    keypoints have no MENTIONS yet; with_mentions adds them."""
    from kg.enrich.keypoints import extract_keypoints

    chunk_items, image_items, sources = [], [], []
    for chunks, parsed, descriptions in docs:
        doc_chunks, doc_images = keypoint_items(chunks, parsed.images, descriptions)
        chunk_items += doc_chunks
        image_items += doc_images
        sources.append([c.id for c in chunks] + [i.id for i in parsed.images])
    result = extract_keypoints(chunk_items, image_items, client=client, prompts_dir=settings.llm.prompts_dir,
                               entity_names={}, batch_size=settings.llm.keypoints_batch)
    return split_by_document(result, sources, [set() for _ in docs])


def with_mentions(result: Any, doc: DocumentWrite) -> Any:
    """An ask_keypoints result with the MENTIONS the document's entities give it."""
    from kg.enrich.keypoints import keypoint_mentions

    result.mentions = keypoint_mentions(result.keypoints, entity_names(doc.mentions))
    return result


def keypoint_items(chunks: list[Chunk], images: list, descriptions: dict, mentions: list | None = None
                   ) -> tuple[list[dict], list[dict]]:
    """extract_keypoints' chunk and image items of one document (captions are not sources)."""
    per_chunk = mentions if mentions is not None else [[] for _ in chunks]
    chunk_items = [{"id": c.id, "text": c.text, "entities": sorted({m.entity_id for m in ms})}
                   for c, ms in zip(chunks, per_chunk) if c.kind != "caption"]
    image_items = [{"id": i.id, "description": descriptions.get(i.id, {}).get("description", i.caption),
                    "nearby_text": i.nearby_text, "caption": i.caption, "path": i.path} for i in images]
    return chunk_items, image_items


def entity_names(mentions: list[list[Any]]) -> dict[str, list[str]]:
    """Entity id -> every name and surface form the mentions give it."""
    names: dict[str, list[str]] = {}
    for ms in mentions:
        for m in ms:
            names.setdefault(m.entity_id, [])
            for form in [m.name, *m.surfaces]:
                if form not in names[m.entity_id]:
                    names[m.entity_id].append(form)
    return names


def write_keypoints(store: Any, results: list[Any]) -> None:
    """Keypoints of several documents, one write per query.

    A link whose chunk or image the store does not find is dropped by the
    MATCH without an error, and the keypoint would stay in the graph with no
    source (a CI run once lost 113 of 114 that way); so the links are
    counted after the write, written once more if some are missing, and a
    loss that remains is an error: the documents stay unmarked and the next
    run redoes them."""
    links = [r for result in results for r in result.has_keypoint]
    store.write("upsert_keypoints", [k for result in results for k in result.keypoints])
    for label in ("Chunk", "Image"):
        rows = dedupe_rows([{"s": r["s"], "d": r["d"]} for r in links if r["source_label"] == label], None)
        query = f"{label.lower()}_has_keypoint"
        store.write(query, rows, key=None)
        if rows and _linked(store, label, rows) < len(rows):
            store.write(query, rows, key=None)
            found = _linked(store, label, rows)
            if found < len(rows):
                raise StoreError(f"{len(rows) - found} of {len(rows)} keypoint links found no {label} node "
                                 "in the graph; the documents are left for the next run")
    store.write("keypoint_mentions", [m for result in results for m in result.mentions], key=None)


def _linked(store: Any, label: str, rows: list[dict]) -> int:
    """How many of the (source, keypoint) rows have their HAS_KEYPOINT edge in the graph."""
    query = f"count_{label.lower()}_keypoint_links"
    return sum(int(r["n"]) for start in range(0, len(rows), 1000)
               for r in store.run(query, {"rows": rows[start:start + 1000]}))


def split_keypoints(result: Any, docs: list[DocumentWrite]) -> list[tuple[Any, list[tuple[str, str]]]]:
    """One KeypointResult of several documents as (result, failed calls) per document."""
    return split_by_document(result, [[s.id for s in [*doc.chunks, *doc.parsed.images]] for doc in docs],
                             [{m.entity_id for ms in doc.mentions for m in ms} for doc in docs])


def split_by_document(result: Any, sources: list[list[str]], entities: list[set[str]]
                      ) -> list[tuple[Any, list[tuple[str, str]]]]:
    """split_keypoints by the source ids of each document; a keypoint keeps
    only the MENTIONS of entities its own document has."""
    from kg.enrich.keypoints import KeypointResult

    doc_of = {source: n for n, ids in enumerate(sources) for source in ids}
    parts = [KeypointResult() for _ in sources]
    keypoint_doc = {}
    for row in result.keypoints:
        keypoint_doc[row["id"]] = doc_of[row["source_id"]]
        parts[keypoint_doc[row["id"]]].keypoints.append(row)
    for row in result.has_keypoint:
        parts[doc_of[row["s"]]].has_keypoint.append(row)
    for row in result.mentions:
        n = keypoint_doc[row["s"]]
        if row["d"] in entities[n]:
            parts[n].mentions.append(row)
    for source, reason in result.failures:
        parts[doc_of[source]].failures.append((source, reason))
    return [(part, list(part.failures)) for part in parts]
