"""One document through the per-document stages: read -> chunk -> describe
images -> entities -> embeddings -> write -> keypoints, with the LLM work on
a side thread so its waiting overlaps the next document's compute. A group
of small documents prepared together (kg.pipeline.groups) joins at the
write: ingest_prepared writes the group in one batch per query and hands its
keypoints to the LLM thread as one task. The main thread runs at most one
such task ahead of the LLM thread (_wait_for_backlog)."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kg.config import Settings
from kg.models import ParsedDocument
from kg.pipeline.corpus import link_similar
from kg.pipeline.files import DocReport, failure_summary, llm_down_reason, portable_path
from kg.pipeline.keypoint_step import (ask_keypoints, document_keypoints, split_keypoints, with_mentions,
                                      write_keypoints)
from kg.pipeline.prepare import PreparedDocument, item_vectors, prepare_document
from kg.pipeline.stream import stream_document, streams
from kg.pipeline.timings import StageTimes, TimedStore
from kg.pipeline.writes import DocumentWrite, write_documents


class Ingestor:
    """Holds the models for one run (loaded lazily: a run with nothing new loads none)."""

    def __init__(self, settings: Settings, store, client=None, keypoints: bool = True,
                 describe_images: bool = True, console=None):
        self.settings = settings
        self.times = StageTimes()
        self.store = TimedStore(store, self.times)
        self.client = client
        self.do_keypoints = keypoints
        self.do_describe = describe_images
        self.console = console
        data = settings.store.data_dir
        self.assets_dir = data / "assets"
        from kg.enrich.embeddings import Embedder

        # One worker: LLM calls never run two batches at once, and their order is kept.
        self._llm_worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopgraph-llm")
        self._pending: list = []
        # Documents written and waiting for the LLM thread: a task takes every one queued
        # when it starts, so documents finished in quick succession share keypoint requests.
        self._queued: list[_Written] = []
        self._queue_lock = threading.Lock()
        self._llm_answered = False  # a keypoint call of this run worked: the endpoint is up
        self._warm = None
        self.llm_down = ""  # why the run stops: not one keypoint call of a document worked (the cause named)
        self.embedder = Embedder.from_settings(settings.embeddings, settings.embeddings.cache_path(data))
        self._extractor = None
        # kg.pipeline.entity_process.EntityProcess, while ingest_documents runs one:
        # image texts' entities are found there too, so spaCy never loads here.
        self.entity_process = None
        self._described_early: dict[str, Future] = {}  # doc id -> descriptions asked for at parse time
        self._asked: dict[str, tuple[Future, int]] = {}  # doc id -> keypoints asked early (future, index in it)

    def find_entities(self, texts: list[str]) -> list[list[Any]]:
        """Mentions per text: in the entity process when there is one (and it is alive), else here."""
        if self.entity_process is not None:
            try:
                found, _ = self.entity_process.submit(texts).result()
                return found
            except Exception:  # the entity process died (killed, out of memory): found here instead
                self.entity_process = None
        return self.extractor.extract_many(texts)

    @property
    def extractor(self):
        if self._extractor is None:
            from kg.enrich.entities import EntityExtractor

            with self.times.stage("model load"):
                self._extractor = EntityExtractor(self.settings.entities.spacy_model,
                                                  self.settings.entities.batch_size,
                                                  self.settings.entities.reload_chars)
        return self._extractor

    @property
    def read_options(self) -> dict[str, int]:
        """kg.ingest.read_document's options from [ingest]."""
        cfg = self.settings.ingest
        return {"min_image_px": cfg.min_image_px, "parse_workers": cfg.parse_workers}

    def stop_reason(self) -> str | None:
        """Why the run must stop after this document (budget spent, endpoint
        down), or None; every executor asks the same question."""
        client = self.client
        if client is not None and client.budget_exhausted:
            return "LLM budget reached; stopping. Work done is saved; re-run to continue."
        if client is not None and client.endpoint_down:
            return f"stopped: {client.down_message()}"
        if self.llm_down:
            return f"{self.llm_down}; stopping. Work done is saved; re-run to continue."
        return None

    # ---- one document, or a group prepared together -----------------------
    def ingest_document(self, path: Path, doc_id: str, parse=None, prepared: "PreparedDocument | None" = None
                        ) -> DocReport:
        """Read, chunk, describe, extract and write one document.

        The LLM work runs on one worker thread so its waiting overlaps this
        thread's compute: image descriptions while the text is chunked, and a
        document's keypoints while the next document is parsed. The document
        is marked `ingested` by the worker once its keypoints are written
        (see _finish_documents). `prepared` is the text side already done
        elsewhere (a Ray task: kg.pipeline.ray_executor); its vectors join the cache here.
        """
        parsed = prepared.parsed if prepared is not None else self.parse(path, parse)
        parsed.path = portable_path(path)
        if prepared is None and streams(parsed, self.settings.ingest.part_chars):  # a long text goes a part at a time
            return stream_document(self, path, doc_id, parsed)
        described = self._submit_describe(parsed)
        self.wait_for_models()
        if prepared is None:
            prepared = prepare_document(parsed, doc_id, self.settings, self.embedder, self.extractor, self.times)
        else:
            self.embedder.store(prepared.vectors)
            self.times.merge(prepared.times)
        return self._write_and_finish([(path, doc_id, prepared, described)])[0]

    def ingest_prepared(self, items: list[tuple[Path, str, PreparedDocument]]) -> list[DocReport]:
        """Documents prepared together (kg.pipeline.groups, or Ray workers in
        the same groups), in order: written in one batch per query, then their
        keypoints and `ingested` marks in one task on the LLM thread."""
        described = []
        for path, doc_id, prepared in items:
            prepared.parsed.path = portable_path(path)
            early = self._described_early.pop(doc_id, None)
            described.append((path, doc_id, prepared, early or self._submit_describe(prepared.parsed)))
            self.embedder.store(prepared.vectors)  # prepared on a Ray worker: its vectors and timings
            self.times.merge(prepared.times)
        return self._write_and_finish(described)

    def _write_and_finish(self, items: list[tuple[Path, str, PreparedDocument, Future]]) -> list[DocReport]:
        docs = [self._complete(path, doc_id, prepared, described.result())
                for path, doc_id, prepared, described in items]
        write_documents(self.store, [d.write for d in docs])
        self._wait_for_backlog()
        with self._queue_lock:
            self._queued.extend(docs)
        future = self._llm_worker.submit(self._finish_queued)
        self._pending.append(([d.report for d in docs], future))
        return [d.report for d in docs]

    def _complete(self, path: Path, doc_id: str, prepared: PreparedDocument, descriptions) -> "_Written":
        """Image entities and vectors, the rows to write and the report of one prepared document."""
        parsed, chunks = prepared.parsed, prepared.chunks
        image_texts = [descriptions[i.id]["description"] or i.caption or i.alt or "" for i in parsed.images]
        mentions = prepared.mentions
        if image_texts:
            with self.times.stage("entities", items=len(image_texts)):
                mentions = mentions + self.find_entities(image_texts)
        # Computed now so they are cached for kNN (a killed run keeps them).
        self.vectors([{"text": c.text, "label": "Chunk", "kind": c.kind} for c in chunks]
                     + [{"text": t, "label": "Image", "kind": "image"} for t in image_texts if t])
        report = DocReport(str(path), "pending", doc_id=doc_id)
        report.pages, report.chunks, report.tables = parsed.pages, len(chunks), sum(c.kind == "table" for c in chunks)
        report.images_kept, report.images_skipped = len(parsed.images), parsed.skipped_images
        report.references_resolved, report.references_unresolved = len(prepared.resolved), prepared.unresolved
        report.references_unresolved_why = dict(prepared.unresolved_why)
        report.entities = len({m.entity_id for ms in mentions for m in ms})
        report.warnings = list(parsed.warnings)
        write = DocumentWrite(path, parsed, doc_id, chunks, descriptions, prepared.resolved, prepared.captions, mentions)
        return _Written(report, write)

    def parse(self, path: Path, parse=None) -> ParsedDocument:
        """`parse` is a Future from the prefetcher (parsed, seconds), when there is one."""
        if parse is not None:
            parsed, seconds = parse.result()
        else:
            from kg.pipeline.prefetch import timed_read

            parsed, seconds = timed_read(path, self.assets_dir, **self.read_options)
        self.times.add("parse", seconds, parsed.pages)
        # A reader may time its own parts (e.g. {"tables": s}); they are shown beside "parse".
        for stage, part in (getattr(parsed, "stage_seconds", None) or {}).items():
            self.times.add(stage, part, parsed.tables if stage == "tables" else 0)
        return parsed

    def wait_for_models(self) -> None:
        """The models warm_up() is loading, before the first use."""
        if self._warm is not None:
            self._warm.result()

    def describe_early(self, doc_id: str, parsed: ParsedDocument) -> None:
        """Ask for a document's image descriptions as soon as it is parsed, so
        they arrive while it is embedded (ingest_prepared picks them up)
        instead of stalling its write for a round trip."""
        if parsed.images and doc_id not in self._described_early:
            self._described_early[doc_id] = self._submit_describe(parsed)

    def _submit_describe(self, parsed: ParsedDocument) -> Future:
        """Image descriptions on the LLM thread; a document without images does not queue behind
        the keypoints of the documents before it."""
        if not parsed.images:
            done: Future = Future()
            done.set_result(_Descriptions({}, []))
            return done
        return self._llm_worker.submit(self._describe, parsed)

    def submit_llm(self, fn, *args) -> Future:
        """Work for the LLM thread, after what is queued (kg.pipeline.stream: a part's keypoints)."""
        return self._llm_worker.submit(fn, *args)

    def _wait_for_backlog(self, most: int = 1) -> None:
        """Back-pressure: this thread runs at most `most` finishing tasks ahead of the LLM thread."""
        while sum(not future.done() for _, future in self._pending) > most:
            next(future for _, future in self._pending if not future.done()).exception()

    def _finish_queued(self) -> None:
        """The documents queued so far (none if an earlier task took them)."""
        with self._queue_lock:
            docs, self._queued = self._queued, []
        try:
            if docs:
                self._finish_documents(docs)
        except Exception as exc:  # their own tasks may have found the queue empty: fail them here
            for doc in docs:
                doc.report.status, doc.report.reason = "failed", f"unexpected error: {type(exc).__name__}: {exc}"
            raise

    def _finish_documents(self, docs: list["_Written"]) -> None:
        """Keypoints of the documents, written together, then each one's `ingested` mark.

        With an LLM, until one keypoint call of the run has worked, a document
        is asked alone: when not one of its calls works (endpoint down) the
        others are not asked and stay unmarked, so the run stops instead of
        waiting out each file; after that they go in one extract_keypoints
        call, so their passages share batches.
        """
        results, marks = [], []
        todo = list(docs)
        while todo and not self.stop_reason():
            batch = todo[:1] if not self._llm_answered or self.client is None else todo
            todo = todo[len(batch):]
            with self.times.stage("llm"):
                outcomes = self._keypoints_together(batch)
            for doc, (result, kp_failures) in zip(batch, outcomes):
                self._llm_answered |= result is not None and len(kp_failures) < _sources(doc)
                results.append(result)
                marks.append(self._settle(doc.report, result, list(getattr(doc.write.descriptions, "failures", [])),
                                          kp_failures))
        for doc in todo:  # budget spent or endpoint down: left unmarked, the next run redoes them
            doc.report.reason = self.stop_reason() or "the run stopped; re-run to continue"
        write_keypoints(self.store, [r for r in results if r is not None])
        self.store.write("upsert_documents", marks)
        complete = {m["id"] for m in marks if not m["partial"]}
        for doc in docs:
            if doc.report.doc_id in complete:
                doc.report.status = "ingested"

    def _settle(self, report: DocReport, result: Any, describe_failures: list, kp_failures: list) -> dict:
        """The document's `ingested` mark, complete or partial (its report says which and why)."""
        report.keypoints = len(result.keypoints) if result is not None else 0
        failures = describe_failures + kp_failures
        if not failures:
            return {"id": report.doc_id, "ingested": True, "partial": False, "partial_reason": ""}
        # Linked like any document (kNN, topics) so the rest of the pipeline
        # runs, but marked partial: the next run redoes it, paying only for
        # the calls that failed (the rest come from the LLM cache).
        report.status = "partial"
        report.llm_failures = len(failures)
        report.reason = failure_summary(failures)
        if (kp_failures and report.keypoints == 0) or getattr(self.client, "endpoint_down", False):
            self.llm_down = llm_down_reason(report)  # stop instead of waiting out each file
        return {"id": report.doc_id, "ingested": True, "partial": True, "partial_reason": report.reason}

    def warm_up(self, extractor: bool = True) -> None:
        """Load the embedding model and spaCy on a side thread while the first
        document is parsed (together about 8 s of a cold start). spaCy can
        wait (`extractor` False) when the entity process finds the entities."""
        def load() -> None:
            with self.times.stage("model load"):
                _ = self.embedder.model
            if extractor:
                _ = self.extractor
            # Libraries this process needs later, imported while it waits anyway: igraph
            # and leidenalg for topics (0.7 s), pymupdf for PDF metadata at the first write (0.5 s).
            import igraph  # noqa: F401
            import leidenalg  # noqa: F401
            import pymupdf  # noqa: F401

        self._warm = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopgraph-warm").submit(load)

    def drain(self) -> None:
        """Wait for the documents whose LLM work is still running."""
        for reports, future in self._pending:
            try:
                future.result()
            except Exception as exc:  # one group's failure must not lose the others
                for report in reports:
                    report.status, report.reason = "failed", f"unexpected error: {type(exc).__name__}: {exc}"
        self._pending.clear()

    def close(self, exc: BaseException | None = None) -> None:
        """After the documents' LLM work, or at once when `exc` is an interrupt (Ctrl-C, SIGTERM):
        the documents not marked `ingested` are redone by the next run."""
        from kg.processes import interrupted

        if interrupted(exc):
            self._llm_worker.shutdown(wait=False, cancel_futures=True)
            return
        self.drain()
        self._llm_worker.shutdown()

    def _describe(self, parsed: ParsedDocument) -> dict[str, dict]:
        with self.times.stage("llm"):
            return self._describe_images(parsed)

    def _describe_images(self, parsed: ParsedDocument) -> dict[str, dict]:
        from kg.enrich.describe import describe_images

        images = [{"id": i.id, "path": i.path, "caption": i.caption, "nearby_text": i.nearby_text, "alt": i.alt}
                  for i in parsed.images]
        client = self.client if self.do_describe else None
        rows = describe_images(images, client=client, prompts_dir=self.settings.llm.prompts_dir) if images else []
        return _Descriptions({r["id"]: r for r in rows}, list(getattr(rows, "failures", [])))

    def ask_keypoints_early(self, items: list[tuple[str, PreparedDocument]]) -> None:
        """With an LLM, start the keypoint calls of documents as soon as they
        are chunked (keypoint_step.ask_keypoints); finishing them later only
        adds the MENTIONS. Their image descriptions were asked at parse time."""
        if not (self.do_keypoints and self.client is not None and items):
            return
        described = [self._described_early.get(doc_id) for doc_id, _ in items]
        future = self._llm_worker.submit(self._ask_keypoints, [p for _, p in items], described)
        for n, (doc_id, _) in enumerate(items):
            self._asked[doc_id] = (future, n)

    def _ask_keypoints(self, prepared: list[PreparedDocument], described: list[Future | None]) -> list:
        docs = [(p.chunks, p.parsed, d.result() if d is not None else {}) for p, d in zip(prepared, described)]
        with self.times.stage("llm"):
            return ask_keypoints(docs, self.client, self.settings)

    def _keypoints_together(self, docs: list["_Written"]) -> list[tuple[Any, list[tuple[str, str]]]]:
        """(KeypointResult or None when keypoints are off, failed calls) per
        document: asked early (ask_keypoints_early) or now, for all of them
        at once (passages of several documents share a request), split back
        by source; a keypoint mentions only entities of its own document."""
        if not self.do_keypoints:
            return [(None, []) for _ in docs]
        early = [self._early_keypoints(doc) for doc in docs]
        rest = [doc for doc, found in zip(docs, early) if found is None]
        if self.client is None or len(rest) <= 1:
            asked = iter([document_keypoints([doc.write], self.client, self.settings) for doc in rest])
        else:
            result, _ = document_keypoints([doc.write for doc in rest], self.client, self.settings)
            asked = iter(split_keypoints(result, [doc.write for doc in rest]))
        return [found if found is not None else next(asked) for found in early]

    def _early_keypoints(self, doc: "_Written") -> tuple[Any, list[tuple[str, str]]] | None:
        """The document's early keypoints with their MENTIONS, or None (not asked early, or that failed)."""
        entry = self._asked.pop(doc.report.doc_id, None)
        if entry is None:
            return None
        future, n = entry
        try:
            result, failures = future.result()[n]
        except Exception:  # asked again now
            return None
        return with_mentions(result, doc.write), failures

    def vectors(self, items: list[dict]) -> np.ndarray:
        """Embeddings of chunks and images, one L2-normalised row per item (prepare.item_vectors)."""
        return item_vectors(items, self.embedder, self.settings.ingest.chunking == "semantic")

    # ---- corpus level (kg.pipeline.corpus), with this run's models ---------------
    def link_similar(self, written: frozenset[str] = frozenset()) -> int:
        return link_similar(self.settings, self.store, self.vectors, self.times, written)


def _sources(doc: "_Written") -> int:
    """Keypoint sources of a written document (chunks but captions, and images)."""
    return sum(c.kind != "caption" for c in doc.write.chunks) + len(doc.write.parsed.images)


@dataclass
class _Written:
    """A document written to the store, waiting for its keypoints."""

    report: DocReport
    write: DocumentWrite


class _Descriptions(dict):
    """Description rows by image id, plus the vision calls that failed."""

    def __init__(self, rows: dict, failures: list):
        super().__init__(rows)
        self.failures = failures
