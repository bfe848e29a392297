"""`hopgraph ingest`: files -> the corpus graph. Resumable and idempotent.

The stages, each a module of this package:

    ingest.py          run_ingest: plan -> documents -> corpus -> record
    files.py           which files to take; the per-document report
    groups.py          small files in groups ([ingest] group_bytes, group_docs):
                       one embedding call, one spaCy pipe, one write per query
                       per group; a large file alone through document.py
    document.py        one document (or a prepared group): read -> chunk ->
                       describe images -> entities -> embeddings -> write
                       (writes.py) -> keypoints, the LLM work on a side thread
    prepare.py         the text side (chunks, references, entities, vectors),
                       with no store or LLM: here or on a Ray worker
    entity_process.py  spaCy in a process of its own, beside the embedding
    corpus.py          SIMILAR_TO for new documents against the whole corpus
                       (exact kNN), then topics and the corpus domain and persona
    prefetch.py        the next file (or group) parsed meanwhile
    ray_executor.py    `--executor ray`: the text side on Ray actors
    dry_run.py         `--dry-run`: LLM calls and tokens estimated, nothing written

A document whose hash is already `ingested` is not read again, so re-running
the same folder computes no embedding and adds nothing. A run killed half-way
re-does only the unfinished documents (MERGE makes the rewrite harmless) and
spends no LLM call twice (the LLM cache): a document is marked `ingested`
only once its keypoints are written, in a group as alone. A document whose
LLM calls still fail after the in-run retries is linked like any other but
marked `partial` (with the reason), and the next run redoes it.
"""

from kg.pipeline.document import Ingestor
from kg.pipeline.files import DocReport, collect_files
from kg.pipeline.ingest import run_ingest

__all__ = ["DocReport", "Ingestor", "collect_files", "run_ingest"]
