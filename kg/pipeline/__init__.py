"""`hopgraph ingest`: files -> the corpus graph. Resumable and idempotent.

Per document (content-hash id): read -> chunk -> describe images -> entities
-> embeddings -> keypoints -> write nodes and edges -> mark `ingested`.
Then, for the documents not yet linked: SIMILAR_TO against the whole corpus
(exact kNN, new x all), mark `linked`; then topics and domain/persona over
the whole corpus.

A document whose hash is already `ingested` is not read again, so re-running
the same folder computes no embedding and adds nothing. A run killed half-way
re-does only the unfinished documents (MERGE makes the rewrite harmless) and
spends no LLM call twice (the LLM cache).
"""

from __future__ import annotations

import traceback
from concurrent.futures import ThreadPoolExecutor
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from kg.config import Settings
from kg.ids import sha256_bytes
from kg.models import Chunk, IngestError, ParsedDocument

ASSET_EXTENSIONS = {".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".tif", ".tiff"}


@dataclass
class DocReport:
    path: str
    status: str  # ingested | partial (linked, some LLM calls failed) | unchanged | failed
    reason: str = ""
    doc_id: str = ""
    pages: int = 0
    chunks: int = 0
    tables: int = 0
    images_kept: int = 0
    images_skipped: int = 0
    references_resolved: int = 0
    references_unresolved: int = 0
    entities: int = 0
    keypoints: int = 0
    llm_failures: int = 0
    warnings: list[str] = field(default_factory=list)


def collect_files(paths: list[Path], glob: str) -> tuple[list[Path], list[DocReport]]:
    """Files to ingest, plus reports for inputs that cannot be (missing, unsupported)."""
    from kg.ingest import SUPPORTED_EXTENSIONS

    files: list[Path] = []
    problems: list[DocReport] = []
    for path in paths:
        if path.is_dir():
            for f in sorted(path.rglob(glob)):
                if not f.is_file() or any(p.startswith(".") for p in f.relative_to(path).parts):
                    continue
                if f.suffix.lower() in SUPPORTED_EXTENSIONS:
                    files.append(f)
                elif f.suffix.lower() not in ASSET_EXTENSIONS:
                    problems.append(DocReport(str(f), "failed", f"unsupported extension {f.suffix or '(none)'}"))
        elif path.is_file():
            if path.suffix.lower() in SUPPORTED_EXTENSIONS:
                files.append(path)
            else:
                problems.append(DocReport(str(path), "failed", f"unsupported extension {path.suffix or '(none)'}"))
        else:
            problems.append(DocReport(str(path), "failed", "no such file or directory"))
    seen, unique = set(), []
    for f in files:
        key = f.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(f)
    return unique, problems


class Ingestor:
    """Holds the models for one run (loaded lazily: a run with nothing new loads none)."""

    def __init__(self, settings: Settings, store, client=None, keypoints: bool = True,
                 describe_images: bool = True, console=None):
        self.settings = settings
        self.store = store
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
        self._warm = None
        self.llm_down = False
        self.embedder = Embedder(settings.embeddings.model, settings.embeddings.cache_path(data),
                                 settings.embeddings.batch_size)
        self._extractor = None

    @property
    def extractor(self):
        if self._extractor is None:
            from kg.enrich.entities import EntityExtractor

            self._extractor = EntityExtractor(self.settings.entities.spacy_model)
        return self._extractor

    # ---- one document ------------------------------------------------------
    def ingest_document(self, path: Path, doc_id: str, parse=None) -> DocReport:
        """Read, chunk, describe, extract and write one document.

        The LLM work runs on one worker thread so its waiting overlaps this
        thread's compute: image descriptions while the text is chunked, and a
        document's keypoints while the next document is parsed. The document
        is marked `ingested` by the worker once its keypoints are written
        (see drain()).
        """
        from kg.ingest import read_document
        from kg.enrich.chunking import chunk_document
        from kg.enrich.references import caption_links, resolve_references

        report = DocReport(str(path), "pending", doc_id=doc_id)
        # `parse` is a Future from the prefetching process, when there is one.
        parsed = parse.result() if parse is not None else read_document(path, self.assets_dir)
        parsed.path = _portable_path(path)
        described = self._llm_worker.submit(self._describe, parsed)
        if self._warm is not None:
            self._warm.result()
        cfg = self.settings.ingest
        chunks = chunk_document(parsed, doc_id, cfg.chunking, self.embedder.encode, cfg.min_tokens,
                                cfg.max_tokens, size=cfg.fixed_size, overlap=cfg.fixed_overlap)
        if not chunks:
            raise IngestError("no text found")
        resolved, unresolved = resolve_references(chunks, parsed.images)
        captions = caption_links(chunks, parsed.images)
        descriptions = described.result()

        chunk_texts = [c.text for c in chunks]
        image_texts = [descriptions[i.id]["description"] or i.caption or i.alt or "" for i in parsed.images]
        mentions = self.extractor.extract_many(chunk_texts + image_texts)
        # Computed now so they are cached for kNN (a killed run keeps them).
        self.vectors([{"text": c.text, "label": "Chunk", "kind": c.kind} for c in chunks]
                     + [{"text": t, "label": "Image", "kind": "image"} for t in image_texts if t])

        self._write_document(parsed, doc_id, chunks, descriptions, resolved, captions, mentions)
        self._write_metadata(path, doc_id)

        report.pages, report.chunks, report.tables = parsed.pages, len(chunks), sum(c.kind == "table" for c in chunks)
        report.images_kept, report.images_skipped = len(parsed.images), parsed.skipped_images
        report.references_resolved, report.references_unresolved = len(resolved), len(unresolved)
        report.entities = len({m.entity_id for ms in mentions for m in ms})
        report.warnings = list(parsed.warnings)
        future = self._llm_worker.submit(self._finish_document, report, chunks, parsed, descriptions, mentions)
        self._pending.append((report, future))
        return report

    def _finish_document(self, report: DocReport, chunks, parsed, descriptions, mentions) -> None:
        n_kp, kp_failures = self._keypoints(chunks, parsed, descriptions, mentions)
        report.keypoints = n_kp
        failures = list(getattr(descriptions, "failures", [])) + kp_failures
        if failures:
            # Linked like any document (kNN, topics) so the rest of the pipeline
            # runs, but marked partial: the next run redoes it, paying only for
            # the calls that failed (the rest come from the LLM cache).
            report.status = "partial"
            report.llm_failures = len(failures)
            report.reason = _failure_summary(failures)
            self.store.write("upsert_documents", [{"id": report.doc_id, "ingested": True, "partial": True,
                                                   "partial_reason": report.reason}])
            if (kp_failures and n_kp == 0) or getattr(self.client, "endpoint_down", False):
                self.llm_down = True  # not one keypoint call worked: stop instead of waiting out each file
        else:
            self.store.write("upsert_documents", [{"id": report.doc_id, "ingested": True, "partial": False,
                                                   "partial_reason": ""}])
            report.status = "ingested"

    def warm_up(self) -> None:
        """Load the embedding model and spaCy on a side thread while the first
        document is parsed (together about 8 s of a cold start)."""
        def load() -> None:
            _ = self.embedder.model, self.extractor

        self._warm = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hopgraph-warm").submit(load)

    def drain(self) -> None:
        """Wait for the documents whose LLM work is still running."""
        for report, future in self._pending:
            try:
                future.result()
            except Exception as exc:  # one document's failure must not lose the others
                report.status, report.reason = "failed", f"unexpected error: {type(exc).__name__}: {exc}"
        self._pending.clear()

    def close(self) -> None:
        self.drain()
        self._llm_worker.shutdown()

    def _describe(self, parsed: ParsedDocument) -> dict[str, dict]:
        from kg.enrich.describe import describe_images

        images = [{"id": i.id, "path": i.path, "caption": i.caption, "nearby_text": i.nearby_text, "alt": i.alt}
                  for i in parsed.images]
        client = self.client if self.do_describe else None
        rows = describe_images(images, client=client, prompts_dir=self.settings.llm.prompts_dir) if images else []
        return _Descriptions({r["id"]: r for r in rows}, list(getattr(rows, "failures", [])))

    def _write_document(self, parsed, doc_id, chunks: list[Chunk], descriptions, resolved, captions, mentions):
        from kg.enrich.entities import merge_mentions

        store = self.store
        store.write("upsert_documents", [{
            "id": doc_id, "path": parsed.path, "title": parsed.title, "pages": parsed.pages,
            "sha256": parsed.sha256, "ingested": False, "linked": False}])
        store.write("upsert_chunks", [{
            "id": c.id, "doc_id": doc_id, "index": c.index, "text": c.text, "kind": c.kind,
            "page_start": c.page_start, "page_end": c.page_end, "tokens": c.tokens,
            "section": c.section, "label": c.label} for c in chunks])
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

    def _write_metadata(self, path: Path, doc_id: str) -> None:
        from kg.enrich.entities import is_stop_entity, normalize_entity
        from kg.ingest.metadata import author_names, document_metadata

        meta = document_metadata(path)
        if not meta:
            return
        props = {"id": doc_id, "author": meta.get("author", "")}
        if meta.get("title"):
            props["metadata_title"] = meta["title"]
        self.store.write("upsert_documents", [props])
        rows = []
        for name in author_names(meta.get("author", "")):
            eid = normalize_entity(name)
            if eid and not is_stop_entity(eid):
                rows.append({"id": eid, "name": name, "label": "AUTHOR", "aliases": [name]})
        self.store.write("upsert_entities", rows)
        self.store.write("document_mentions", [{"s": doc_id, "d": r["id"], "count": 1, "source": "metadata"}
                                               for r in rows], key=None)

    def _keypoints(self, chunks, parsed, descriptions, mentions) -> tuple[int, list[tuple[str, str]]]:
        if not self.do_keypoints:
            return 0, []
        from kg.enrich.keypoints import extract_keypoints

        names: dict[str, list[str]] = {}
        for ms in mentions:
            for m in ms:
                names.setdefault(m.entity_id, [])
                for form in [m.name, *m.surfaces]:
                    if form not in names[m.entity_id]:
                        names[m.entity_id].append(form)
        chunk_items = [{"id": c.id, "text": c.text, "entities": sorted({m.entity_id for m in ms})}
                       for c, ms in zip(chunks, mentions) if c.kind != "caption"]
        image_items = [{"id": i.id, "description": descriptions.get(i.id, {}).get("description", i.caption),
                        "nearby_text": i.nearby_text, "caption": i.caption} for i in parsed.images]
        result = extract_keypoints(chunk_items, image_items, client=self.client,
                                   prompts_dir=self.settings.llm.prompts_dir, entity_names=names,
                                   batch_size=self.settings.llm.keypoints_batch)
        self.store.write("upsert_keypoints", result.keypoints)
        self.store.write("chunk_has_keypoint", [r for r in result.has_keypoint if r["source_label"] == "Chunk"],
                         key=None)
        self.store.write("image_has_keypoint", [r for r in result.has_keypoint if r["source_label"] == "Image"],
                         key=None)
        self.store.write("keypoint_mentions", result.mentions, key=None)
        return len(result.keypoints), list(result.failures)

    def vectors(self, items: list[dict]) -> np.ndarray:
        """Embeddings of chunks and images, one L2-normalised row per item.

        With semantic chunking every sentence has been embedded already, so a
        text chunk's vector is the normalised mean of its sentence vectors (all
        cache hits) instead of a second pass of the model over the chunk:
        about a third of ingest's embedding time saved. MiniLM truncates its
        input at 256 word pieces, so for long chunks the pooled vector also
        covers text a direct encoding would drop. Tables, captions and images
        are encoded directly.
        """
        texts = [i["text"] for i in items]
        if self.settings.ingest.chunking != "semantic" or not items:
            return self.embedder.encode(texts)
        from kg.enrich.chunking import split_sentences

        out = np.zeros((len(items), self.embedder.dim), dtype=np.float32)
        direct = [j for j, i in enumerate(items) if i["label"] != "Chunk" or i.get("kind") != "text"]
        if direct:
            out[direct] = self.embedder.encode([texts[j] for j in direct])
        pooled = [j for j, i in enumerate(items) if i["label"] == "Chunk" and i.get("kind") == "text"]
        if pooled:
            sentences, starts = [], []
            for j in pooled:
                starts.append(len(sentences))
                sentences.extend(split_sentences(texts[j]) or [texts[j]])
            sums = np.add.reduceat(self.embedder.encode(sentences), starts, axis=0)
            out[pooled] = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
        return out

    # ---- corpus level -----------------------------------------------------------
    def link_similar(self) -> int:
        """SIMILAR_TO for documents not linked yet: new x (old + new), chunk-chunk and chunk-image."""
        from kg.enrich.similarity import knn_pairs, knn_pairs_incremental

        docs = self.store.run("document_states")
        new_docs = {d["id"] for d in docs if d["ingested"] and not d["linked"]}
        if not new_docs:
            return 0
        items = self._nodes_for_knn()
        ids = [i["id"] for i in items]
        vecs = self.vectors(items)
        is_new = np.array([i["doc_id"] in new_docs for i in items])
        is_chunk = np.array([i["label"] == "Chunk" for i in items])
        sim = self.settings.similarity
        new_ids = [ids[j] for j in np.nonzero(is_new)[0]]
        # chunk-chunk: new chunks against everything; chunk-image: images as queries against chunks
        cc_new = is_new & is_chunk
        cc_old = ~is_new & is_chunk
        if cc_old.any():
            pairs = knn_pairs_incremental(vecs[cc_new], [ids[j] for j in np.nonzero(cc_new)[0]],
                                          vecs[cc_old], [ids[j] for j in np.nonzero(cc_old)[0]],
                                          sim.k, sim.min_score)
        else:
            pairs = knn_pairs(vecs[cc_new], [ids[j] for j in np.nonzero(cc_new)[0]], sim.k, sim.min_score)
        label = {i["id"]: i["label"] for i in items}
        doc = {i["id"]: i["doc_id"] for i in items}
        image_mask = ~is_chunk
        ci_pairs = []
        if image_mask.any():
            all_pairs = knn_pairs(vecs, ids, sim.k, sim.min_score, query_mask=image_mask, candidate_mask=is_chunk)
            new_set = set(new_ids)
            ci_pairs = [p for p in all_pairs if (p[0] in new_set or p[1] in new_set)
                        and label[p[0]] != label[p[1]]]
        chunk_rows = [{"s": a, "d": b, "score": float(s), "cross_document": doc[a] != doc[b]} for a, b, s in pairs]
        image_rows = []
        for a, b, s in ci_pairs:
            c, i = (a, b) if label[a] == "Chunk" else (b, a)
            image_rows.append({"s": c, "d": i, "score": float(s), "cross_document": doc[c] != doc[i]})
        # Vectors on the Chunk nodes too, with the store's vector index, so the
        # graph doubles as a retrieval index (db.idx.vector / db.index.vector).
        self.store.ensure_vector_index("Chunk", "embedding", vecs.shape[1])
        self.store.set_vectors("Chunk", "embedding", [{"id": ids[j], "vector": vecs[j]}
                                                      for j in np.nonzero(cc_new)[0]])
        self.store.write("chunk_similar_chunk", chunk_rows, key=None)
        self.store.write("chunk_similar_image", image_rows, key=None)
        self.store.write("upsert_documents", [{"id": d, "linked": True} for d in sorted(new_docs)])
        return len(chunk_rows) + len(image_rows)

    def _nodes_for_knn(self) -> list[dict]:
        chunks = self.store.run("walk_chunks")
        images = self.store.run("walk_images")
        items = [{"id": c["id"], "doc_id": c["doc_id"], "text": c["text"] or "", "label": "Chunk",
                  "kind": c["kind"] or "text"} for c in chunks]
        items += [{"id": i["id"], "doc_id": i["doc_id"], "text": i["description"] or i["caption"] or "",
                   "label": "Image", "kind": "image"} for i in images if (i["description"] or i["caption"])]
        return items

    def topics_and_domain(self) -> dict:
        from kg.enrich.domain import infer_domain_persona
        from kg.enrich.topics import detect_topics

        chunks = self.store.run("walk_chunks")
        edges = [(r["s"], r["d"], float(r["score"])) for r in self.store.run("chunk_similarity_edges")]
        t = self.settings.topics
        result = detect_topics([c["id"] for c in chunks], [c["text"] or "" for c in chunks], edges,
                               t.resolution, t.seed)
        self.store.run("clear_topics")
        self.store.write("upsert_topics", [{"id": tp["id"], "level": tp.get("level", 0),
                                            "keywords": list(tp["keywords"]), "size": tp["size"]}
                                           for tp in result.topics])
        self.store.write("chunk_in_topic", [{"s": c, "d": tid} for c, tid in result.membership.items()], key=None)
        ranked = sorted(result.topics, key=lambda tp: -tp["size"])
        meta = infer_domain_persona([list(tp["keywords"]) for tp in ranked[:8]], client=self.client,
                                    prompts_dir=self.settings.llm.prompts_dir)
        self.store.write("upsert_corpus_meta", [{"id": "corpus", "domain": meta["domain"],
                                                 "persona": meta["persona"], "generator": meta["generator"],
                                                 "topic_distribution": _dist_json(result.distribution())}])
        return {"topics": len(result.topics), "domain": meta["domain"], "persona": meta["persona"]}


class _Descriptions(dict):
    """Description rows by image id, plus the vision calls that failed."""

    def __init__(self, rows: dict, failures: list):
        super().__init__(rows)
        self.failures = failures


def _dist_json(dist: dict[str, float]) -> str:
    import json

    return json.dumps(dist, sort_keys=True)


def run_ingest(settings: Settings, store, paths: list[Path], keypoints=None, describe_images=None,
               max_calls=None, budget_tokens=None, no_cache=False, dry_run=False, console=None,
               client=None) -> dict:
    from rich.console import Console
    from tqdm import tqdm

    from kg.runs import RunManifest

    console = console or Console(stderr=True)
    files, problems = collect_files([Path(p) for p in paths], settings.ingest.glob)
    do_kp = settings.generate.keypoints if keypoints is None else keypoints
    do_desc = settings.generate.describe_images if describe_images is None else describe_images
    if client is None and settings.llm_configured:
        from kg.llm.client import LLMClient

        client = LLMClient.from_settings(settings, no_cache=no_cache, max_calls=max_calls,
                                         budget_tokens=budget_tokens, dry_run=dry_run)
    done = {r["id"]: r for r in store.run("document_states")}
    if dry_run:
        return _dry_run(settings, files, done, do_kp, do_desc, console)
    ingestor = Ingestor(settings, store, client, do_kp, do_desc, console)
    reports: list[DocReport] = list(problems)
    # Files whose content is new, in order; the rest are reported unchanged.
    # (path, doc id, size); the bytes are not kept: a corpus can be larger than memory.
    todo: list[tuple[Path, str, int]] = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError as exc:
            reports.append(DocReport(str(path), "failed", f"cannot read: {exc.strerror or exc}"))
            continue
        doc_id = sha256_bytes(data)[:16]
        state = done.get(doc_id, {})
        if state.get("ingested") and not state.get("partial"):
            reports.append(DocReport(str(path), "unchanged", doc_id=doc_id))
        else:
            todo.append((path, doc_id, len(data)))
    if todo:
        ingestor.warm_up()  # something will be ingested: load the models meanwhile
    # Smallest first: the first file is parsed here (nothing to overlap with
    # yet), every later one in the prefetching process.
    order = {str(p): i for i, p in enumerate(files)}
    todo.sort(key=lambda item: item[2])
    with _Prefetcher(ingestor.assets_dir, len(todo) > 1) as parser:
        for i, (path, doc_id, _) in enumerate(tqdm(todo, desc="ingest", unit="file", disable=None)):
            pending_parse = parser.get(path)
            if i + 1 < len(todo):
                parser.start(todo[i + 1][0])  # parsed in another process while this one embeds
            try:
                reports.append(ingestor.ingest_document(path, doc_id, pending_parse))
            except IngestError as exc:
                reports.append(DocReport(str(path), "failed", str(exc)))
            except Exception as exc:  # a bug or a library failure on one file must not stop the run
                reports.append(DocReport(str(path), "failed", f"unexpected error: {type(exc).__name__}: {exc}"))
                _log_traceback(settings, path)
            if client is not None and client.budget_exhausted:
                console.print("ingest: LLM budget reached; stopping. Work done is saved; re-run to continue.")
                break
            if client is not None and getattr(client, "endpoint_down", False):
                console.print(f"ingest: stopped: {client.down_message()}", highlight=False)
                break
            if ingestor.llm_down:
                console.print("ingest: every LLM call for a document failed (endpoint down?); stopping. "
                              "Work done is saved; re-run to continue.")
                break
    ingestor.close()
    reports.sort(key=lambda r: order.get(r.path, -1))  # report in the order the user gave
    new = [r for r in reports if r.status in ("ingested", "partial")]
    summary = {"files": len(files) + len(problems), "ingested": sum(r.status == "ingested" for r in reports),
               "unchanged": sum(r.status == "unchanged" for r in reports),
               "partial": sum(r.status == "partial" for r in reports),
               "endpoint_down": bool(client is not None and getattr(client, "endpoint_down", False)),
               "failed": sum(r.status == "failed" for r in reports)}
    summary["similar_to"] = ingestor.link_similar()
    if summary["similar_to"] or new:
        summary.update(ingestor.topics_and_domain())
    summary["embeddings_computed"] = ingestor.embedder.computed
    _print_report(console, reports, summary)
    manifest = RunManifest(settings.store.data_dir, "ingest")
    manifest.set("summary", summary)
    manifest.set("documents", [r.__dict__ for r in reports])
    if client is not None:
        manifest.add_llm(client.accounting.to_dict())
        console.print(client.accounting.table())
    path = manifest.write()
    console.print(f"ingest report: {path}", highlight=False)
    return summary


def _dry_run(settings: Settings, files: list[Path], done: dict, do_kp: bool, do_desc: bool, console) -> dict:
    """Estimate the LLM calls and tokens ingest would make; parse, but write and spend nothing."""
    from kg.ingest import read_document
    from kg.enrich.chunking import chunk_document

    if not settings.llm_configured:
        console.print("ingest --dry-run: no LLM configured; offline ingest makes no LLM call")
        return {"dry_run": True, "calls": 0, "tokens_in": 0}
    import tempfile

    calls = tokens = 0
    cfg = settings.ingest
    with tempfile.TemporaryDirectory() as tmp:
        for path in files:
            data = path.read_bytes()
            if done.get(sha256_bytes(data)[:16], {}).get("ingested"):
                continue
            try:
                parsed = read_document(path, Path(tmp))
                chunks = chunk_document(parsed, "dry", "fixed", None, size=cfg.max_tokens, overlap=0)
            except IngestError:
                continue
            if do_kp:
                calls += -(-(len(chunks) + len(parsed.images)) // settings.llm.keypoints_batch)
                tokens += sum(len(c.text) // 4 + 450 for c in chunks)  # text + prompt + reply
            if do_desc and settings.llm.vision_model:
                calls += len(parsed.images)
                tokens += len(parsed.images) * (765 + 500)
    calls += 1  # domain and persona
    tokens += 400
    console.print(f"ingest --dry-run: about {calls} LLM calls and {tokens} tokens (nothing spent, nothing written)")
    return {"dry_run": True, "calls": calls, "tokens": tokens}


class _Prefetcher:
    """Parses the next file in a separate process while this one embeds the
    current one: parsing (pymupdf, its table layout model) and embedding
    (torch) then share the machine instead of taking turns. A spawned
    process, not a fork: forking after torch has started its threads can hang.
    """

    def __init__(self, assets_dir: Path, enabled: bool):
        self.assets_dir = assets_dir
        self.enabled = enabled
        self.pool = None
        self.futures: dict[Path, object] = {}

    def __enter__(self) -> "_Prefetcher":
        if self.enabled:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self.pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return self

    def start(self, path: Path) -> None:
        if self.pool is not None and path not in self.futures:
            from kg.ingest import read_document

            self.futures[path] = self.pool.submit(read_document, path, self.assets_dir)

    def get(self, path: Path):
        return self.futures.pop(path, None)

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


def _portable_path(path: Path) -> str:
    """The path as stored in the graph and exported: relative to the working
    directory when the file is under it, so datasets do not leak home folders."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _log_traceback(settings: Settings, path: Path) -> None:
    log = settings.store.data_dir / "runs" / "errors.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("a", encoding="utf-8") as fh:
        fh.write(f"--- {path}\n{traceback.format_exc()}\n")


def _failure_summary(failures: list[tuple[str, str]]) -> str:
    """"3 x server error; 1 x unusable reply" from (source id, reason) pairs."""
    counts = Counter(reason.split(":")[0].strip() or "error" for _, reason in failures)
    return "; ".join(f"{n} x {reason}" for reason, n in counts.most_common(3))


def _print_report(console, reports: list[DocReport], summary: dict) -> None:
    for r in reports:
        if r.status == "failed":
            console.print(f"[red]failed[/red] {r.path}: {r.reason}", highlight=False)
        elif r.status == "partial":
            console.print(f"[yellow]partial[/yellow] {r.path}: {r.llm_failures} LLM calls failed ({r.reason}); "
                          "linked into the graph without them; re-run to retry only those", highlight=False)
        if r.status in ("ingested", "partial"):
            console.print(
                f"{'ok' if r.status == 'ingested' else 'partial'} {r.path}: {r.pages} pages, {r.chunks} chunks ({r.tables} tables), "
                f"{r.images_kept} images kept / {r.images_skipped} skipped, "
                f"references {r.references_resolved} resolved / {r.references_unresolved} unresolved, "
                f"{r.entities} entities, {r.keypoints} keypoints", highlight=False)
            for w in r.warnings:
                console.print(f"  warning {r.path}: {w}", highlight=False)
    console.print(
        f"ingest: {summary['ingested']} new, {summary['unchanged']} unchanged, {summary['failed']} failed, "
        f"{summary['partial']} partial; "
        f"{summary['similar_to']} SIMILAR_TO edges; {summary.get('topics', 0)} topics", highlight=False)
