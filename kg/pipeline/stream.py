"""A long document, a part at a time.

Prepared in one piece, a document holds every sentence vector, chunk,
mention and keypoint of its whole text in memory until it is written, and
its keypoints wait for all of it. A document with more text than [ingest]
part_chars (400,000), and no images (their references may point anywhere
in it), is cut between blocks into parts of about that size, at a heading
when one comes within the next part's length, so most cuts fall where the chunker
would start a new region anyway. Each part is chunked (numbered on from the
part before), its entities found and its vectors cached, then written, its
first chunk linked NEXT to the last one before it, and its keypoints made on
the LLM thread while the next part is prepared; at most one part waits for
the LLM thread. So memory holds a part or two, not the document: the
document's blocks are handed on a part at a time, not kept for the run, and
what a part freed is given back to the system before the next (kg.memory). The
Document is marked `ingested` after its last part's keypoints, as in one
piece: a run stopped midway redoes the document (MERGE: nothing doubles).

Cuts inside a region (a text without headings) start a new semantic
segmentation there, and a part's own mean sentence similarity sets where
its chunks end, so some chunk boundaries differ from chunking the whole
text at once (tests/kg/pipeline/test_stream.py: 81 of 98 chunks the same
with 10,000-character parts); a document shorter than part_chars is
chunked exactly as before. Its SIMILAR_TO and topics are made
with the rest of the run's documents (kg.pipeline.corpus).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from kg.memory import release_freed_memory
from kg.models import ParsedDocument
from kg.pipeline.files import DocReport, failure_summary, llm_down_reason

def streams(parsed: ParsedDocument, part_chars: int) -> bool:
    """Whether `parsed` goes a part at a time: more than part_chars of text, and no images."""
    return not parsed.images and sum(len(b.text) for b in parsed.blocks) > part_chars


def document_parts(parsed: ParsedDocument, part_chars: int) -> Iterator[ParsedDocument]:
    """`parsed` with its blocks cut into consecutive parts of about part_chars
    characters: a part closes before a heading once it has part_chars, or
    before any block once it has twice that."""
    blocks, chars = [], 0
    for block in parsed.blocks:
        if blocks and chars >= part_chars and (block.kind == "heading" or chars >= 2 * part_chars):
            yield replace(parsed, blocks=blocks)
            blocks, chars = [], 0
        blocks.append(block)
        chars += len(block.text)
    if blocks:
        yield replace(parsed, blocks=blocks)


def _taken(blocks: list) -> Iterator:
    """`blocks` in order, each let go of by the list as it is handed on."""
    blocks.reverse()
    while blocks:
        yield blocks.pop()


class _EntitiesHere:
    """prepare_document's extractor: the ingestor's find_entities (its entity process when it has one)."""

    def __init__(self, ingestor: Any) -> None:
        self.ingestor = ingestor

    def extract_many(self, texts: list[str]) -> list[list[Any]]:
        return self.ingestor.find_entities(texts)


class _Tally:
    """What the parts of one document add up to, for its report and its `ingested` mark."""

    def __init__(self) -> None:
        self.entities: set[str] = set()
        self.keypoints = 0
        self.failures: list[tuple[str, str]] = []


def stream_document(ingestor: Any, path: Path, doc_id: str, parsed: ParsedDocument) -> DocReport:
    """Prepare, write and find the keypoints of `parsed` a part at a time; its report."""
    from kg.pipeline.prepare import prepare_document
    from kg.pipeline.writes import DocumentWrite, write_documents

    report = DocReport(str(path), "pending", doc_id=doc_id)
    report.pages, report.warnings = parsed.pages, list(parsed.warnings)
    tally, waiting = _Tally(), []
    extractor, last_chunk = _EntitiesHere(ingestor), None
    ingestor.wait_for_models()
    blocks, parsed.blocks = parsed.blocks, []  # taken from the caller's document: freed a part at a time
    for part in document_parts(replace(parsed, blocks=_taken(blocks)), ingestor.settings.ingest.part_chars):
        prepared = prepare_document(part, doc_id, ingestor.settings, ingestor.embedder, extractor,
                                    ingestor.times, first_index=report.chunks)
        chunks = prepared.chunks
        write = DocumentWrite(path, part, doc_id, chunks, {}, prepared.resolved, prepared.captions,
                              prepared.mentions)
        write_documents(ingestor.store, [write])
        if last_chunk is not None:
            ingestor.store.write("chunk_next", [{"s": last_chunk, "d": chunks[0].id}], key=None)
        last_chunk = chunks[-1].id
        report.chunks += len(chunks)
        report.tables += sum(c.kind == "table" for c in chunks)
        report.references_resolved += len(prepared.resolved)
        report.references_unresolved += prepared.unresolved
        for reason, n in prepared.unresolved_why.items():
            report.references_unresolved_why[reason] = report.references_unresolved_why.get(reason, 0) + n
        tally.entities.update(m.entity_id for ms in prepared.mentions for m in ms)
        del prepared, chunks, part
        if ingestor.do_keypoints:
            waiting = [f for f in waiting if not f.done()]
            while len(waiting) > 1:  # back-pressure: at most one part ahead of the LLM thread
                waiting.pop(0).result()
            waiting.append(ingestor.submit_llm(_part_keypoints, ingestor, write, tally))
        del write
        release_freed_memory()  # the next part starts from what is in use, not from this part's heap
        if ingestor.stop_reason():
            break
    for future in waiting:
        future.result()
    report.entities, report.keypoints = len(tally.entities), tally.keypoints
    reason = ingestor.stop_reason()
    if reason:  # left unmarked: the next run redoes the document
        report.reason = reason
        return report
    _mark(ingestor, report, tally)
    return report


def _part_keypoints(ingestor: Any, write: Any, tally: _Tally) -> None:
    """One part's keypoints, asked and written on the LLM thread."""
    from kg.pipeline.keypoint_step import document_keypoints, write_keypoints

    if ingestor.stop_reason():
        return
    with ingestor.times.stage("llm"):
        result, failures = document_keypoints([write], ingestor.client, ingestor.settings)
    write_keypoints(ingestor.store, [result])
    tally.keypoints += len(result.keypoints)
    tally.failures.extend(failures)


def _mark(ingestor: Any, report: DocReport, tally: _Tally) -> None:
    """The document's `ingested` mark, complete or partial (as Ingestor._settle for one piece)."""
    mark = {"id": report.doc_id, "ingested": True, "partial": False, "partial_reason": ""}
    if tally.failures:
        report.status, report.llm_failures = "partial", len(tally.failures)
        report.reason = failure_summary(tally.failures)
        mark.update(partial=True, partial_reason=report.reason)
        if tally.keypoints == 0 or getattr(ingestor.client, "endpoint_down", False):
            ingestor.llm_down = llm_down_reason(report)  # the run stops
    ingestor.store.write("upsert_documents", [mark])
    if not tally.failures:
        report.status = "ingested"
