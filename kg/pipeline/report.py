"""What `hopgraph ingest` prints: a line per document, then the totals."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from rich.console import Console

from kg.pipeline.files import DocReport


@dataclass
class IngestSummary:
    """What one ingest run did (the CLI's exit status, the printed totals, the
    run manifest's "summary"). Counts are files unless named otherwise."""

    files: int = 0  # inputs given, unusable ones included
    ingested: int = 0
    unchanged: int = 0
    partial: int = 0  # written, some LLM calls failed
    failed: int = 0
    not_ingested: int = 0  # pending keypoints or not started: the run stopped
    endpoint_down: str = ""  # why the LLM endpoint was given up on this run ("": it was not)
    similar_to: int = 0  # SIMILAR_TO edges made
    moved: int = 0
    replaced: int = 0
    removed: int = 0
    duplicate: int = 0
    stale_chains: int = 0
    entities_dropped: int | None = None  # entities no document mentions any more (after removals)
    topics: int | None = None  # None: topics were not recomputed
    domain: str | None = None
    persona: str | None = None
    embeddings_computed: int = 0

    @property
    def incomplete(self) -> bool:
        """Something the user must look at or re-run for (the CLI exits 1)."""
        return bool(self.failed or self.partial or self.endpoint_down or self.not_ingested)

    def to_dict(self) -> dict:
        return {key: value for key, value in asdict(self).items() if value is not None}


def print_report(console: Console, reports: list[DocReport], summary: IngestSummary) -> None:
    for r in reports:
        if r.status == "failed":
            console.print(f"[red]failed[/red] {r.path}: {r.reason}", highlight=False)
        elif r.status == "pending":  # written, but the run stopped before its keypoints
            console.print(f"[yellow]not finished[/yellow] {r.path}: {r.reason}", highlight=False)
        elif r.status in ("duplicate", "moved"):
            console.print(f"{r.status} {r.path}: {r.reason}", highlight=False)
        elif r.status == "not started":  # the run stopped before this file
            console.print(f"[yellow]not ingested[/yellow] {r.path}: {r.reason}", highlight=False)
        elif r.status == "partial":
            console.print(f"[yellow]partial[/yellow] {r.path}: {r.llm_failures} LLM calls failed ({r.reason}); "
                          "linked into the graph without them; re-run to retry only those", highlight=False)
        if r.status in ("ingested", "partial"):
            console.print(
                f"{'ok' if r.status == 'ingested' else 'partial'} {r.path}: {r.pages} pages, {r.chunks} chunks ({r.tables} tables), "
                f"{r.images_kept} images kept / {r.images_skipped} skipped, "
                f"references {r.references_resolved} resolved / {r.references_unresolved} unresolved{_why(r)}, "
                f"{r.entities} entities, {r.keypoints} keypoints", highlight=False)
            for w in r.warnings:
                console.print(f"  warning {r.path}: {w}", highlight=False)
    changes = {"replaced": summary.replaced, "moved": summary.moved, "duplicate": summary.duplicate,
               "removed": summary.removed}
    console.print(
        f"ingest: {summary.ingested} new, {summary.unchanged} unchanged, {summary.failed} failed, "
        f"{summary.partial} partial, {summary.not_ingested} not ingested"
        + "".join(f", {n} {k}" for k, n in changes.items() if n)
        + "; "
        f"{summary.similar_to} SIMILAR_TO edges; {summary.topics or 0} topics", highlight=False)
    if summary.endpoint_down and not summary.not_ingested:  # else each file left over says it already
        console.print(f"stopped: {summary.endpoint_down}", highlight=False)
    if summary.not_ingested:
        console.print(f"{summary.not_ingested} files not ingested (listed above); work done is saved: "
                      f"re-run the same `hopgraph ingest` command to resume with them", highlight=False)


def _why(r) -> str:
    """' (2 no caption with this label, 1 caption not recognised)': what a reader can fix or check."""
    why = getattr(r, "references_unresolved_why", None) or {}
    return " (" + ", ".join(f"{n} {reason}" for reason, n in why.items()) + ")" if why else ""
