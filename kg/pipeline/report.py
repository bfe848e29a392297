"""What `hopgraph ingest` prints: a line per document, then the totals."""

from __future__ import annotations

from kg.pipeline.files import DocReport


def print_report(console, reports: list[DocReport], summary: dict) -> None:
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
    console.print(
        f"ingest: {summary['ingested']} new, {summary['unchanged']} unchanged, {summary['failed']} failed, "
        f"{summary['partial']} partial, {summary.get('not_ingested', 0)} not ingested"
        + "".join(f", {summary[k]} {k}" for k in ("replaced", "moved", "duplicate", "removed") if summary.get(k))
        + "; "
        f"{summary['similar_to']} SIMILAR_TO edges; {summary.get('topics', 0)} topics", highlight=False)
    if summary.get("not_ingested"):
        console.print(f"{summary['not_ingested']} files not ingested (listed above); work done is saved: "
                      f"re-run the same `hopgraph ingest` command to resume with them", highlight=False)


def _why(r) -> str:
    """' (2 no caption with this label, 1 caption not recognised)': what a reader can fix or check."""
    why = getattr(r, "references_unresolved_why", None) or {}
    return " (" + ", ".join(f"{n} {reason}" for reason, n in why.items()) + ")" if why else ""
