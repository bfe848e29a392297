"""`hopgraph ingest --executor ray`: the per-document text work on a Ray cluster.

Each Ray actor (one CPU each, models loaded once) parses a file and prepares
its text side (kg.pipeline.prepare: chunks, references, chunk entities, chunk
vectors); the ingesting process takes the results in the order and the
groups of the local executor (kg.pipeline.groups), then does what needs the
store or the LLM, exactly as it does locally: image descriptions, image
entities, the writes (one batch per group), keypoints. The
corpus-level steps (kNN over all documents, topics) run once, after, in this
process, over what the store holds, so they do not depend on which worker
prepared which document. Same inputs, same graph as `--executor local`.

A long text (kg.pipeline.stream) is parsed by its actor, which hands back the
parsed text instead of preparing it; this process prepares and writes it a
part at a time, as the local executor does. Its parts cannot be spread over
the actors: each part's chunks are numbered on from the part before and its
first chunk linked to that part's last, so they are prepared in order, and an
actor preparing the whole text would hold it all, as one piece did.

On a cluster: hopgraph must be installed on every node, and the input files
readable at the same path on every node (a shared filesystem); extracted
images come back with the results and are written to this run's data dir.
"""

from __future__ import annotations

import tempfile
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from kg.errors import ConfigError
from kg.models import IngestError, ParsedDocument
from kg.pipeline.document import Ingestor
from kg.pipeline.files import DocReport
from kg.pipeline.lifecycle import IngestPlan
from kg.pipeline.stream import streams
from kg.pipeline.groups import StartedGroup, finish_group, ingest_one, plan_groups, plan_order


@dataclass
class LongText:
    """A worker's answer for a text that goes in parts: parsed, not prepared (see the module docstring)."""

    parsed: ParsedDocument
    parse_seconds: float


class DocumentWorker:
    """A Ray actor's state: the models, loaded once, and no store or LLM client."""

    def __init__(self, settings: Any) -> None:
        from kg.enrich.embeddings import Embedder, set_torch_threads
        from kg.enrich.entities import EntityExtractor

        set_torch_threads(1)  # one actor per CPU
        self.settings = settings
        self.embedder = Embedder.from_settings(settings.embeddings, None, progress=False)
        t0 = time.perf_counter()
        _ = self.embedder.model  # loaded now, not inside the first document's chunking
        self.extractor = EntityExtractor(settings.entities.spacy_model, settings.entities.batch_size,
                                         settings.entities.reload_chars)
        self.load_seconds = time.perf_counter() - t0  # reported with the first document

    def prepare(self, path: str, doc_id: str) -> tuple[Any, dict[str, bytes], str]:
        """(PreparedDocument, a LongText, or None; extracted assets by relative path; failure reason or "")."""
        from kg.pipeline.prefetch import timed_read
        from kg.pipeline.prepare import prepare_document
        from kg.pipeline.timings import StageTimes

        times = StageTimes()
        times.add("model load", self.load_seconds)
        self.load_seconds = 0.0
        seconds, computed = self.embedder.model_seconds, self.embedder.computed
        with tempfile.TemporaryDirectory(prefix="hopgraph-ray-") as tmp:
            assets_dir = Path(tmp)
            try:
                # one actor per CPU already: pages are read in this process (no nested pool)
                parsed, parse_seconds = timed_read(Path(path), assets_dir, parse_workers=1,
                                                   min_image_px=self.settings.ingest.min_image_px)
                times.add("parse", parse_seconds, parsed.pages)
                if streams(parsed, self.settings.ingest.part_chars):
                    return LongText(parsed, parse_seconds), {}, ""
                prepared = prepare_document(parsed, doc_id, self.settings, self.embedder, self.extractor, times)
            except IngestError as exc:
                return None, {}, str(exc)
            except Exception as exc:  # one file's failure is reported, the run goes on
                return None, {}, f"unexpected error: {type(exc).__name__}: {exc}"
            assets = {}
            for image in parsed.images:
                relative = str(Path(image.path).relative_to(assets_dir))
                assets[relative] = Path(image.path).read_bytes()
                image.path = relative
        times.add("embed", self.embedder.model_seconds - seconds, self.embedder.computed - computed)
        prepared.times = times.to_dict()
        return prepared, assets, ""


def ingest_documents_on_ray(ingestor: Ingestor, plan: IngestPlan, console: Console) -> None:
    """The plan's new documents, prepared by Ray actors, finished here in the local order."""
    ray = _ray(ingestor.settings.ingest.ray_address)
    from ray.util import ActorPool

    todo = plan_order(plan.todo)  # the local executor's order: same writes, same graph
    ingestor.warm_up()
    n_actors = max(1, min(len(todo), int(ray.available_resources().get("CPU", 1))))
    worker = ray.remote(num_cpus=1)(DocumentWorker)
    actors = [worker.remote(ingestor.settings) for _ in range(n_actors)]
    pool = ActorPool(actors)
    try:
        results = pool.map(lambda actor, item: actor.prepare.remote(str(Path(item[0]).resolve()), item[1]), todo)
        cfg = ingestor.settings.ingest
        # finished in the local executor's groups: the same batched writes and keypoint requests
        for group in plan_groups(todo, cfg.group_bytes, cfg.group_docs):
            plan.reports.extend(_finish_group(ingestor, group, [next(results) for _ in group]))
            reason = ingestor.stop_reason()
            if reason:
                console.print(f"ingest: {reason}", highlight=False)
                break
    finally:
        for actor in actors:
            ray.kill(actor)


def _finish_group(ingestor: Ingestor, group: list, results: list) -> list[DocReport]:
    """A group's worker results written as the local executor writes that group."""
    if len(group) == 1:
        (path, doc_id, _), (prepared, assets, reason) = group[0], results[0]
        return [_finish(ingestor, path, doc_id, prepared, assets, reason)]
    started = StartedGroup(group)
    for (path, doc_id, _), (prepared, assets, reason) in zip(group, results):
        if prepared is None:
            started.reports[doc_id] = DocReport(str(path), "failed", reason)
            continue
        if isinstance(prepared, LongText):  # in a group (a large group_bytes): in one piece, as locally
            prepared = _prepare_here(ingestor, doc_id, prepared)
        _land_assets(ingestor, prepared, assets)
        started.ready.append((path, doc_id, prepared))
    # the workers found the entities (their timings come with their documents):
    # finish_group only writes and asks for keypoints
    started.found = [ms for _, _, p in started.ready for ms in p.mentions]
    return finish_group(ingestor, started)


def _prepare_here(ingestor: Ingestor, doc_id: str, long_text: LongText) -> Any:
    from kg.pipeline.prepare import prepare_document

    ingestor.times.add("parse", long_text.parse_seconds, long_text.parsed.pages)
    return prepare_document(long_text.parsed, doc_id, ingestor.settings, ingestor.embedder, ingestor.extractor,
                            ingestor.times)


def _land_assets(ingestor: Ingestor, prepared: Any, assets: dict[str, bytes]) -> None:
    """Images a worker extracted, written under this run's data dir."""
    for relative, data in assets.items():
        target = ingestor.assets_dir / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    for image in prepared.parsed.images:
        image.path = str(ingestor.assets_dir / image.path)


def _finish(ingestor: Ingestor, path: Path, doc_id: str, prepared: Any, assets: dict[str, bytes],
            reason: str) -> DocReport:
    if prepared is None:
        return DocReport(str(path), "failed", reason)
    if isinstance(prepared, LongText):  # prepared and written here, a part at a time
        parse: Future = Future()
        parse.set_result((prepared.parsed, prepared.parse_seconds))
        return ingest_one(ingestor, path, doc_id, parse)
    _land_assets(ingestor, prepared, assets)
    return ingest_one(ingestor, path, doc_id, None, prepared)


def _ray(address: str | None) -> Any:
    """Ray, connected: to `address`, or a local instance; a caller's ray.init() is used as is."""
    try:
        import ray
    except ImportError:
        raise ConfigError('--executor ray needs Ray: pip install "hopgraph[ray]"') from None
    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False, include_dashboard=False, configure_logging=False)
    return ray
