"""`hopgraph ingest`: files -> the corpus graph. Resumable and idempotent.

The stages, each a module of this package:

    ingest.py    run_ingest: plan -> documents -> corpus -> record
    files.py     which files to take; the per-document report
    document.py  one document: read -> chunk -> describe images -> entities
                 -> embeddings -> write (writes.py) -> keypoints
    corpus.py    SIMILAR_TO for new documents against the whole corpus (exact
                 kNN), then topics and the corpus domain and persona
    prefetch.py  the next file parsed in another process meanwhile
    dry_run.py   `--dry-run`: LLM calls and tokens estimated, nothing written

A document whose hash is already `ingested` is not read again, so re-running
the same folder computes no embedding and adds nothing. A run killed half-way
re-does only the unfinished documents (MERGE makes the rewrite harmless) and
spends no LLM call twice (the LLM cache). A document whose LLM calls still
fail after the in-run retries is linked like any other but marked `partial`
(with the reason), and the next run redoes it.
"""

from kg.pipeline.document import Ingestor
from kg.pipeline.files import DocReport, collect_files
from kg.pipeline.ingest import run_ingest

__all__ = ["DocReport", "Ingestor", "collect_files", "run_ingest"]
