"""The keypoint step of ingest, run on the LLM thread once documents are
written: ask for the keypoints of one or more documents' chunks and images
(with an LLM, several documents' passages share requests), split a shared
result back by document, and write keypoints in one batch per query."""

from __future__ import annotations

from typing import Any

from kg.config import Settings
from kg.pipeline.writes import DocumentWrite


def document_keypoints(docs: list[DocumentWrite], client: Any, settings: Settings) -> tuple[Any, list[tuple[str, str]]]:
    """KeypointResult of the documents' chunks and images, and the failed calls."""
    from kg.enrich.keypoints import extract_keypoints

    names: dict[str, list[str]] = {}
    for ms in (ms for doc in docs for ms in doc.mentions):
        for m in ms:
            names.setdefault(m.entity_id, [])
            for form in [m.name, *m.surfaces]:
                if form not in names[m.entity_id]:
                    names[m.entity_id].append(form)
    chunk_items = [{"id": c.id, "text": c.text, "entities": sorted({m.entity_id for m in ms})}
                   for doc in docs for c, ms in zip(doc.chunks, doc.mentions) if c.kind != "caption"]
    image_items = [{"id": i.id, "description": doc.descriptions.get(i.id, {}).get("description", i.caption),
                    "nearby_text": i.nearby_text, "caption": i.caption} for doc in docs for i in doc.parsed.images]
    result = extract_keypoints(chunk_items, image_items, client=client, prompts_dir=settings.llm.prompts_dir,
                               entity_names=names, batch_size=settings.llm.keypoints_batch)
    return result, list(result.failures)


def write_keypoints(store: Any, results: list[Any]) -> None:
    """Keypoints of several documents, one write per query."""
    links = [r for result in results for r in result.has_keypoint]
    store.write("upsert_keypoints", [k for result in results for k in result.keypoints])
    store.write("chunk_has_keypoint", [r for r in links if r["source_label"] == "Chunk"], key=None)
    store.write("image_has_keypoint", [r for r in links if r["source_label"] == "Image"], key=None)
    store.write("keypoint_mentions", [m for result in results for m in result.mentions], key=None)


def split_keypoints(result: Any, docs: list[DocumentWrite]) -> list[tuple[Any, list[tuple[str, str]]]]:
    """One KeypointResult of several documents as (result, failed calls) per document."""
    from kg.enrich.keypoints import KeypointResult

    doc_of = {source.id: n for n, doc in enumerate(docs) for source in [*doc.chunks, *doc.parsed.images]}
    entities = [{m.entity_id for ms in doc.mentions for m in ms} for doc in docs]
    parts = [KeypointResult() for _ in docs]
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
