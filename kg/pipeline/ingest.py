"""`hopgraph ingest`: the run as a short sequence of steps.

    plan      which files are new (content hash not yet `ingested`)
    documents each new file through kg.pipeline.document, small ones in groups
              (kg.pipeline.groups), the next group parsed ahead meanwhile
    corpus    SIMILAR_TO for the new documents, then topics, domain and persona
    record    the report on the console and the run manifest (with the config)
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from rich.console import Console

from kg.config import Settings
from kg.context import RunContext
from kg.llm.client import LLMClient
from kg.memory import release_freed_memory
from kg.pipeline.corpus import CorpusTopics, write_domain, write_topics
from kg.pipeline.document import Ingestor
from kg.pipeline.dry_run import IngestEstimate, estimate_ingest
from kg.pipeline.files import DocReport, collect_files
from kg.pipeline.lifecycle import IngestPlan, apply_changes, drop_orphans, plan_documents, print_changes
from kg.pipeline.entity_process import EntityProcess
from kg.pipeline.groups import (StartedGroup, finish_group, ingest_one, plan_groups, plan_order, start_group,
                                submit_entities)
from kg.pipeline.prefetch import Prefetcher
from kg.pipeline.progress import Progress
from kg.pipeline.report import IngestSummary, print_report
from kg.runs import RunManifest

PARSE_AHEAD = 2  # groups parsed ahead of the one being embedded


def run_ingest(ctx: RunContext, paths: list[Path], keypoints: bool | None = None,
               describe_images: bool | None = None, profile: bool = False,
               sync: bool = False) -> IngestSummary | IngestEstimate:
    """Ingest files into the graph; returns what the run did. Idempotent and resumable.

    The context brings the store, the run's LLM client and budget (shared by
    every stage of `build`) and the console. keypoints / describe_images:
    None follows [ingest]. settings.ingest.executor "ray" runs the
    per-document text work as Ray tasks (kg.pipeline.ray_executor);
    everything else is the same. `profile` prints the stage timings (they
    are in the run manifest either way). `sync` also removes the documents
    under the given folders whose files are gone. A dry run estimates.
    """
    settings, store, client, console = ctx.settings, ctx.store, ctx.client, ctx.console
    manifest = ctx.manifest("ingest")  # started now: "seconds" is the run
    do_kp = settings.ingest.keypoints if keypoints is None else keypoints
    do_desc = settings.ingest.describe_images if describe_images is None else describe_images
    started = time.perf_counter()
    known = store.run("document_paths")
    roots = [Path(p) for p in paths if Path(p).is_dir()] if sync else None
    plan = plan_ingest(settings, [Path(p) for p in paths], known, ctx.dry_run, roots)
    if ctx.dry_run:
        return estimate_ingest(settings, plan.files, {r["id"]: r for r in known}, do_kp, do_desc, console)
    apply_changes(store, plan.changes)  # old versions out before the new ones go in
    ingestor = Ingestor(settings, store, client, do_kp, do_desc, console)
    early = None
    with Progress(console, plan.todo) as progress:  # status lines until the last keypoints are in
        try:
            if settings.ingest.executor == "ray" and plan.todo:
                from kg.pipeline.ray_executor import ingest_documents_on_ray

                ingest_documents_on_ray(ingestor, plan, console)
            else:
                ingest_documents(ingestor, plan, console, progress)
            progress.working_on([], "similarity and topics; keypoints of the files written")
            early = link_written(ingestor, plan)  # while the last keypoints are asked for
        except BaseException as exc:
            ingestor.close(exc)  # interrupted: the queued LLM work is dropped, what is written stays
            raise
        ingestor.close()
    summary = link_corpus(ingestor, plan, early)
    ingestor.times.add("embed", ingestor.embedder.model_seconds, ingestor.embedder.computed)
    if client is not None:
        ingestor.times.add_items("llm", client.accounting.to_dict()["total"]["calls"])
    manifest.set("stages", ingestor.times.to_dict())
    if profile:
        console.print(ingestor.times.table(time.perf_counter() - started), highlight=False)
    record_run(manifest, client, plan, summary, console)
    return summary


def plan_ingest(settings: Settings, paths: list[Path], known: list[dict], dry_run: bool = False,
                sync_roots: list[Path] | None = None) -> IngestPlan:
    """Hash every input once and sort it against the graph's Documents (kg.pipeline.lifecycle)."""
    files, problems = collect_files(paths, settings.ingest.glob)
    plan = IngestPlan(files, list(problems), len(problems))
    if dry_run:
        return plan
    settled, plan.todo, plan.changes = plan_documents(files, known, sync_roots)
    plan.reports.extend(settled)
    return plan


def ingest_documents(ingestor: Ingestor, plan: IngestPlan, console: Console, progress: Progress | None = None) -> None:
    """Each new document, largest first (plan_order), in groups (kg.pipeline.groups): small
    files prepared and written together, a large one alone. Two groups are in
    flight: while one's entities are found in the entity process, the next is
    parsed (prefetched), embedded and chunked here, then the first is written
    and the second's entities start. Without an entity process (one core, or
    one file) a lone file takes the per-document path."""
    from tqdm import tqdm

    todo = plan_order(plan.todo)
    cfg = ingestor.settings.ingest
    groups = plan_groups(todo, cfg.group_bytes, cfg.group_docs)
    cores = os.cpu_count() or 1
    if todo:  # something will be ingested: load the models meanwhile
        ingestor.warm_up(extractor=not _uses_entity_process(todo, cores))
    with Prefetcher(ingestor.assets_dir, len(todo) > 1, **_parse_options(ingestor, todo)) as parser, \
            _entity_process(ingestor, todo, cores) as entities, \
            _Bar(tqdm(total=len(todo), desc="ingest", unit="file", disable=None),
                 progress or Progress(console, todo, interactive=True)) as bar:
        ingestor.entity_process = entities
        in_flight: StartedGroup | None = None
        for i, group in enumerate(groups):
            # Parsed in the prefetcher while this group embeds; two groups ahead, so the
            # parser also has work while the first group waits for the models to load.
            for path, _, _ in [item for ahead in groups[i:i + 1 + PARSE_AHEAD] for item in ahead]:
                parser.start(path)
            parses = [parser.get(path) for path, _, _ in group]
            following = groups[i + 1] if i + 1 < len(groups) else []
            # Leave a core to the parser reading PDFs or to the entity process: torch and the
            # parser fought over 2 cores (embedding 23.5 s alone, 66.8 s beside it), and
            # torch's spinning threads beside any other busy process made small batches 20x slower.
            busy_beside = entities is not None or parser.busy or any(p.suffix.lower() == ".pdf"
                                                                     for p, _, _ in following)
            ingestor.embedder.limit_threads(cores - 1 if busy_beside else cores)
            grouped = entities is not None or len(group) > 1
            release_freed_memory()  # what the groups before freed: this one starts from what is in use
            bar.working_on([path for path, _, _ in group])
            started = start_group(ingestor, group, parses) if grouped else None
            if in_flight is not None:
                plan.reports.extend(bar.done(finish_group(ingestor, in_flight)))
                in_flight = None
                if _stopped(ingestor, console):
                    break  # the group just started is left for the next run
            if started is not None:
                # Submitted only now: finish_group above may have sent the entity process its
                # image texts, which must not queue behind this group's chunks.
                submit_entities(started, entities)
                in_flight = started
            else:
                plan.reports.extend(bar.done([ingest_one(ingestor, group[0][0], group[0][1], parses[0])]))
                if _stopped(ingestor, console):
                    break
        if in_flight is not None:
            plan.reports.extend(bar.done(finish_group(ingestor, in_flight)))
            _stopped(ingestor, console)
        ingestor.entity_process = None
    ingestor.embedder.limit_threads(cores)
    list_not_started(plan, ingestor.stop_reason())


def list_not_started(plan: IngestPlan, reason: str | None) -> None:
    """A report for every new file the run stopped before: none goes unmentioned."""
    reported = {r.path for r in plan.reports}
    why = reason or "the run stopped before it; re-run to continue"
    plan.reports.extend(DocReport(str(path), "not started", why, doc_id=doc_id)
                        for path, doc_id, _ in plan.todo if str(path) not in reported)


def _parse_options(ingestor: Ingestor, todo: list) -> dict[str, int]:
    """read_document's options. [ingest] parse_workers 0 (auto) reads a lone
    file's pages in parallel; with several files they are read one after
    another in the prefetcher, beside the embedding: page workers there cost
    more CPU than they saved (six PDFs: 36.2 s of child CPU with two, 31.6 s
    with none, and the ingest ended 3 s sooner)."""
    options = dict(ingestor.read_options)
    if len(todo) > 1 and options["parse_workers"] == 0:
        options["parse_workers"] = 1
    return options


class _Bar:
    """The tqdm bar (a terminal) and the progress lines (anything else) as one."""

    def __init__(self, bar, progress: Progress) -> None:
        self.bar, self.progress = bar, progress

    def __enter__(self) -> "_Bar":
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.close()

    def working_on(self, paths: list) -> None:
        self.progress.working_on(paths)

    def done(self, reports: list[DocReport]) -> list[DocReport]:
        self.bar.update(len(reports))
        self.progress.finished(reports)
        return reports


def _stopped(ingestor: Ingestor, console: Console) -> bool:
    reason = ingestor.stop_reason()
    if reason:
        console.print(f"ingest: {reason}", highlight=False)
    return bool(reason)


def _uses_entity_process(todo: list, cores: int) -> bool:
    """Entities in a process of their own when there is a second core and a
    second file whose embedding they can overlap."""
    return cores >= 2 and len(todo) > 1


@contextmanager
def _entity_process(ingestor: Ingestor, todo: list, cores: int) -> Iterator[EntityProcess | None]:
    """The entity process, when _uses_entity_process says so."""
    if not _uses_entity_process(todo, cores):
        yield None
        return
    entities = EntityProcess(ingestor.settings.entities.spacy_model, ingestor.settings.entities.batch_size,
                             ingestor.settings.entities.reload_chars)
    try:
        yield entities
    except BaseException as exc:
        entities.close(exc)
        raise
    entities.close()


def link_written(ingestor: Ingestor, plan: IngestPlan) -> tuple[int, CorpusTopics | None]:
    """SIMILAR_TO and topics for the documents this run wrote, before their
    last keypoints are in: the corpus steps need only the chunks and their
    vectors, and so overlap the LLM thread's wait instead of following it.
    Returns the edges made and the topics (None when nothing changed)."""
    written = frozenset(r.doc_id for r in plan.reports
                        if r.doc_id and r.status in ("pending", "ingested", "partial"))
    similar = ingestor.link_similar(written)
    release_freed_memory()  # the kNN's vectors and pairs: topics start from what is in use
    if not similar and not written:
        return 0, None
    return similar, write_topics(ingestor.settings, ingestor.store, ingestor.times)


def link_corpus(ingestor: Ingestor, plan: IngestPlan,
                early: tuple[int, CorpusTopics | None] | None = None) -> IngestSummary:
    """Corpus-level steps once the documents are in; returns the run summary.
    `early` is what link_written did before the LLM thread was drained."""
    reports = plan.reports
    order = {str(p): i for i, p in enumerate(plan.files)}
    reports.sort(key=lambda r: order.get(r.path, -1))  # report in the order the user gave
    new = [r for r in reports if r.status in ("ingested", "partial")]
    changes = plan.changes
    summary = IngestSummary(
        files=len(plan.files) + plan.unusable_inputs,
        **{status: sum(r.status == status for r in reports)
           for status in ("ingested", "unchanged", "partial", "failed", "duplicate")},
        not_ingested=sum(r.status in ("pending", "not started") for r in reports),
        endpoint_down=_endpoint_down(ingestor.client),
        moved=len(changes.moved), replaced=len(changes.replaced), removed=len(changes.removed),
        stale_chains=changes.stale_chains)
    early_similar, topics = early or (0, None)
    later = ingestor.link_similar()  # documents ingested but not linked (an earlier run's)
    summary.similar_to = early_similar + later
    if changes.removals:
        summary.entities_dropped = drop_orphans(ingestor.store)
    if later or (topics is None and (new or changes.removals)):
        topics = write_topics(ingestor.settings, ingestor.store, ingestor.times)
    if topics is not None:
        summary.topics = len(topics.ranked)
        # An endpoint that stopped answering is not asked again: the keyword-based domain.
        client = None if ingestor.stop_reason() else ingestor.client
        named = write_domain(ingestor.settings, ingestor.store, client, topics)
        summary.domain, summary.persona = named["domain"], named["persona"]
    summary.embeddings_computed = ingestor.embedder.computed
    return summary


def _endpoint_down(client: LLMClient | None) -> str:
    """Why the run gave up on the LLM endpoint ("" when it did not)."""
    return client.down_message() if client is not None and client.endpoint_down else ""


def record_run(manifest: RunManifest, client: LLMClient | None, plan: IngestPlan, summary: IngestSummary,
               console: Console) -> None:
    print_changes(console, plan.changes)
    print_report(console, plan.reports, summary)
    manifest.set("summary", summary.to_dict())
    manifest.set("documents", [r.__dict__ for r in plan.reports])
    if client is not None:
        manifest.add_llm(client.accounting.to_dict())
        console.print(client.accounting.table())
    path = manifest.write()
    console.print(f"ingest report: {path}", highlight=False)
