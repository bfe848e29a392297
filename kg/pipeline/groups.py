"""Small documents prepared together.

A corpus of many small files (wiki pages, notes, a docs folder) spends most
of its per-document time in per-call overhead: a model call to embed five
sentences costs about as much as one for a hundred, and so does a spaCy
pipe over one chunk or a store round trip for one row. So consecutive small
files of the plan (sorted by size) form a group of at most [ingest]
group_bytes bytes and group_docs files, and the group goes through together:

    start_group   parse each file (prefetched while the group before it embeds);
                  embed the sentences semantic chunking needs, of every file, in
                  one call; chunk each file, its sentence vectors looked up;
                  pooled chunk vectors and direct texts in one call each
    submit_entities  every chunk's entities in one nlp.pipe, started in the
                  entity process (kg.pipeline.entity_process) so it runs on the
                  other core while this process starts the next group
    finish_group  the entities, then one write per query for the group and the
                  keypoints and `ingested` marks on the LLM thread
                  (Ingestor.ingest_prepared), in plan order

The graph is the one the one-by-one path gives (the same chunks, entities
with the same names and aliases, SIMILAR_TO); only vectors may differ by
the float noise of another batch. A file larger than group_bytes is a group
of its own; with an entity process it goes the same way (its entities then
overlap the next file's embedding), without one it takes the per-document
path (Ingestor.ingest_document); so does a long text (kg.pipeline.stream).

A file that cannot be read or chunked fails alone, with its own reason; if a
group-wide step fails (a library error on one text, a batch write), the
group's files are redone one by one, so the bad one is found and the others
still go in.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kg.config import Settings
from kg.models import IngestError, ParsedDocument
from kg.enrich.embeddings import Embedder
from kg.pipeline.document import Ingestor
from kg.pipeline.entity_process import EntityProcess
from kg.pipeline.files import DocReport, failure_report
from kg.pipeline.prepare import PreparedDocument, RecordingEmbed, pool_many
from kg.pipeline.stream import streams
from kg.pipeline.timings import StageTimes

PlanItem = tuple[Path, str, int]  # (file, doc id, size in bytes)


HUGE_BYTES = 4_000_000  # a file this large takes minutes: the others are not kept waiting for it


def plan_order(todo: list[tuple[Path, str, int]]) -> list[tuple[Path, str, int]]:
    """Largest file first: the first is parsed while the models load, and the
    run ends on small files, whose keypoint calls (the tail no compute
    overlaps) are few. Huge files (HUGE_BYTES) go last, smallest first, so
    a run stopped early (a time limit, Ctrl-C) has written the small files
    rather than part of one huge file. Ties by path, so every executor
    writes in one order."""
    huge = [item for item in todo if item[2] > HUGE_BYTES]
    rest = [item for item in todo if item[2] <= HUGE_BYTES]
    return (sorted(rest, key=lambda item: (-item[2], str(item[0])))
            + sorted(huge, key=lambda item: (item[2], str(item[0]))))


def plan_groups(todo: Sequence[PlanItem], max_bytes: int, max_docs: int) -> list[list[PlanItem]]:
    """Consecutive files while their total size stays within max_bytes and
    their number within max_docs; a larger file is a group of its own.
    max_bytes 0 or max_docs 1: every file alone."""
    groups: list[list[PlanItem]] = []
    current: list[PlanItem] = []
    size = 0
    for item in todo:
        if current and (size + item[2] > max_bytes or len(current) >= max_docs):
            groups.append(current)
            current, size = [], 0
        current.append(item)
        size += item[2]
    if current:
        groups.append(current)
    return groups


class _SentenceTable:
    """An embedder stand-in for the chunker: vectors of sentences embedded for the whole group."""

    def __init__(self, table: dict[str, np.ndarray], embedder: Embedder) -> None:
        self.table = table
        self.embedder = embedder

    def encode(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self.table))
        if missing:  # not expected: semantic_sentences is what the chunker embeds
            self.table.update(zip(missing, self.embedder.encode(missing)))
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self.table[t] for t in texts])


def prepare_group(docs: list[tuple[str, ParsedDocument]], settings: Settings, embedder: Embedder,
                  times: StageTimes) -> list[PreparedDocument | Exception]:
    """What prepare_document gives for each (doc id, parsed) pair but the
    mentions (found for the whole group at once: add_mentions), or the
    exception that document raised. The vectors go straight into the
    embedder's cache (PreparedDocument.vectors stays empty). Raises only when
    a group-wide step fails."""
    from kg.enrich.chunking import chunk_document, semantic_sentences
    from kg.enrich.embeddings import text_key

    cfg = settings.ingest
    semantic = cfg.chunking == "semantic"
    t0, model_before = time.perf_counter(), embedder.model_seconds
    table: dict[str, np.ndarray] = {}
    if semantic:
        sentences = list(dict.fromkeys(text for _, parsed in docs
                                       for text in semantic_sentences(parsed, cfg.max_tokens)))
        table = dict(zip(sentences, embedder.encode(sentences)))
    outcomes: list[PreparedDocument | Exception] = []
    recorded: list[RecordingEmbed] = []
    for doc_id, parsed in docs:
        embed = RecordingEmbed(_SentenceTable(table, embedder))
        try:
            outcomes.append(_chunked(parsed, doc_id, settings, embed, chunk_document))
            recorded.append(embed)
        except Exception as exc:  # this file fails alone
            outcomes.append(exc)
    ready = [o for o in outcomes if isinstance(o, PreparedDocument)]
    times.add("chunk", time.perf_counter() - t0 - (embedder.model_seconds - model_before),
              sum(len(o.chunks) for o in ready))
    if semantic:
        pool_many([([c for c in o.chunks if c.kind == "text"], embed.texts, embed.rows)
                   for o, embed in zip(ready, recorded)], embedder)
    direct = [c.text for o in ready for c in o.chunks if not semantic or c.kind != "text"]
    embedder.store(dict(zip(map(text_key, direct), embedder.encode(direct))))  # cached for kNN
    return outcomes


def add_mentions(prepared: list[PreparedDocument], found: list[list[Any]]) -> None:
    """Hand each document its chunks' share of the group's mentions (one list per chunk, in order)."""
    rows = iter(found)
    for document in prepared:
        document.mentions = [next(rows) for _ in document.chunks]


def _chunked(parsed: ParsedDocument, doc_id: str, settings: Settings, embed: RecordingEmbed,
             chunk_document: Any) -> PreparedDocument:
    """One document's chunks and references (its entities and vectors come with the group's)."""
    from kg.enrich.references import caption_links, resolve_references, unresolved_reasons

    cfg = settings.ingest
    chunks = chunk_document(parsed, doc_id, cfg.chunking, embed, cfg.min_tokens, cfg.max_tokens,
                            size=cfg.fixed_size, overlap=cfg.fixed_overlap)
    if not chunks:
        raise IngestError("no text found")
    resolved, unresolved = resolve_references(chunks, parsed.images)
    return PreparedDocument(parsed, chunks, resolved, len(unresolved), caption_links(chunks, parsed.images), [],
                            unresolved_why=unresolved_reasons(unresolved))


@dataclass
class StartedGroup:
    """A group prepared but for its entities, which may still be running in the entity process."""

    group: list[PlanItem]
    reports: dict[str, DocReport] = field(default_factory=dict)  # files that failed alone
    ready: list[tuple[Path, str, PreparedDocument]] = field(default_factory=list)
    one_by_one: list[tuple[Path, str, ParsedDocument]] = field(default_factory=list)  # after a group-wide failure
    mentions: Future | None = None  # (mentions of every chunk of `ready`, seconds)
    found: list | None = None  # the mentions of every chunk of `ready`, found already (on Ray workers)


def start_group(ingestor: Ingestor, group: list[PlanItem], parses: list[Future | None]) -> StartedGroup:
    """Parse, embed and chunk a group; `parses` are the prefetcher's futures
    (None: parsed here). Its entities are found by submit_entities (in the
    entity process) or, without that, by finish_group here."""
    started = StartedGroup(group)
    parsed_docs: list[tuple[Path, str, ParsedDocument]] = []
    for (path, doc_id, _), parse in zip(group, parses):
        try:
            parsed_docs.append((path, doc_id, ingestor.parse(path, parse)))
            ingestor.describe_early(doc_id, parsed_docs[-1][2])
        except Exception as exc:  # unreadable, empty, not UTF-8...: this file alone
            started.reports[doc_id] = failure_report(ingestor.settings, path, exc)
    if len(parsed_docs) == 1 and streams(parsed_docs[0][2], ingestor.settings.ingest.part_chars):  # a long text: a part at a time, by finish_group
        started.one_by_one = parsed_docs
        return started
    ingestor.wait_for_models()
    try:
        outcomes = prepare_group([(doc_id, parsed) for _, doc_id, parsed in parsed_docs], ingestor.settings,
                                 ingestor.embedder, ingestor.times)
    except Exception:  # a group-wide step failed: one by one, so only the file at fault fails
        started.one_by_one = parsed_docs
        return started
    for (path, doc_id, _), outcome in zip(parsed_docs, outcomes):
        if isinstance(outcome, PreparedDocument):
            started.ready.append((path, doc_id, outcome))
        else:
            started.reports[doc_id] = failure_report(ingestor.settings, path, outcome)
    ingestor.ask_keypoints_early([(doc_id, prepared) for _, doc_id, prepared in started.ready])
    return started


def submit_entities(started: StartedGroup, entities: EntityProcess | None) -> None:
    """Start the group's chunk entities in `entities` (an EntityProcess, or None: finish_group finds them)."""
    texts = [c.text for _, _, prepared in started.ready for c in prepared.chunks]
    if entities is not None and texts:
        try:
            started.mentions = entities.submit(texts)
        except Exception:  # the entity process is gone (killed, out of memory): found here instead
            started.mentions = None


def finish_group(ingestor: Ingestor, started: StartedGroup) -> list[DocReport]:
    """The group's entities, then its writes and keypoints (Ingestor.ingest_prepared); a DocReport per file."""
    reports = started.reports
    prepared = [p for _, _, p in started.ready]
    texts = [c.text for p in prepared for c in p.chunks]
    try:
        found = started.found
        if found is None and started.mentions is not None:
            try:
                found, seconds = started.mentions.result()
            except Exception:  # the entity process died: found here instead
                found = None
            else:
                ingestor.times.add("entities", seconds, len(texts))
        if found is None:
            with ingestor.times.stage("entities", items=len(texts)):
                found = ingestor.extractor.extract_many(texts)
        add_mentions(prepared, found)
    except Exception:  # spaCy failed on one of the texts: one by one, so only that file fails
        started.one_by_one += [(path, doc_id, p.parsed) for path, doc_id, p in started.ready]
        started.ready = []
    if started.ready:
        try:
            reports.update((r.doc_id, r) for r in ingestor.ingest_prepared(started.ready))
        except Exception:  # a batch write failed: each file again on its own (MERGE: no duplicates)
            started.one_by_one += [(path, doc_id, p.parsed) for path, doc_id, p in started.ready]
    for path, doc_id, parsed in started.one_by_one:
        reports[doc_id] = _one_by_one(ingestor, path, doc_id, parsed)
    return [reports[doc_id] for _, doc_id, _ in started.group]


def ingest_group(ingestor: Ingestor, group: list[PlanItem], parses: list[Future | None],
                 entities: EntityProcess | None = None) -> list[DocReport]:
    """start_group, submit_entities and finish_group: a group from files to the graph."""
    started = start_group(ingestor, group, parses)
    submit_entities(started, entities)
    return finish_group(ingestor, started)


def _one_by_one(ingestor: Ingestor, path: Path, doc_id: str, parsed: ParsedDocument) -> DocReport:
    parse: Future = Future()
    parse.set_result((parsed, 0.0))  # parsed already (and timed)
    return ingest_one(ingestor, path, doc_id, parse)


def ingest_one(ingestor: Ingestor, path: Path, doc_id: str, pending_parse: Future | None,
               prepared: PreparedDocument | None = None) -> DocReport:
    """One file through Ingestor.ingest_document; its failure is its own report, the run goes on."""
    try:
        return ingestor.ingest_document(path, doc_id, pending_parse, prepared)
    except Exception as exc:  # a bad file or a library failure on one file must not stop the run
        return failure_report(ingestor.settings, path, exc)
