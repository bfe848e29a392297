"""Documents over time: a document is identified by its path, and its content
hash (Document.id) says whether it changed.

    new        a path the graph does not hold, with content it does not hold
    unchanged  same path, same content
    changed    same path, new content: the old version is removed (its chunks,
               images, keypoints and every edge on them), chains that quoted it
               marked `stale`, and the new version ingested
    moved      content the graph holds under a path whose file is gone (or now
               holds other content): the Document takes the new path
    duplicate  content the graph (or this run) already holds under another
               path that still has it: reported with both paths, not ingested twice
    removed    `ingest --sync FOLDER`: a Document under FOLDER whose file is gone;
               `hopgraph remove PATH...`: named documents

Removal order (cypher/lifecycle.cypher): chains marked stale, then keypoints,
parts, the Document last, so a run killed half way leaves the Document for the
next run to find and remove again. Afterwards entities nothing mentions are
deleted and topics recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kg.context import RunContext
from kg.ids import sha256_bytes
from kg.pipeline.files import DocReport, portable_path


@dataclass
class CorpusChanges:
    moved: list[dict] = field(default_factory=list)  # {id, path, old}
    replaced: list[dict] = field(default_factory=list)  # old versions: {id, path, reason}
    removed: list[dict] = field(default_factory=list)  # gone from a synced folder: {id, path, reason}
    stale_chains: int = 0

    @property
    def removals(self) -> list[dict]:
        return self.replaced + self.removed


@dataclass
class IngestPlan:
    """What one ingest run will do: the files, what is already settled, what is new, what changed."""

    files: list[Path]
    reports: list[DocReport] = field(default_factory=list)  # inputs already settled (failed, unchanged)
    unusable_inputs: int = 0  # missing paths and unsupported extensions (reported, not in `files`)
    # (path, doc id, size) of files whose content is new; the bytes are not
    # kept: a corpus can be larger than memory.
    todo: list[tuple[Path, str, int]] = field(default_factory=list)
    changes: CorpusChanges = field(default_factory=CorpusChanges)  # moved, replaced and removed documents


@dataclass
class _Input:
    path: Path
    key: str  # the path as stored in the graph (portable_path)
    doc_id: str = ""
    size: int = 0


def plan_documents(files: list[Path], known: list[dict], sync_roots: list[Path] | None = None
                   ) -> tuple[list[DocReport], list[tuple[Path, str, int]], CorpusChanges]:
    """Sort the input files against the Documents the graph holds (`document_paths` rows).
    Returns the reports of files settled now, the files to ingest (path, doc id, size)
    and the changes to apply before ingesting."""
    reports: list[DocReport] = []
    inputs = []
    for path in files:
        item = _Input(path, portable_path(path))
        try:
            data = path.read_bytes()
        except OSError as exc:
            reports.append(DocReport(str(path), "failed", f"cannot read: {exc.strerror or exc}"))
            continue
        item.doc_id, item.size = sha256_bytes(data)[:16], len(data)
        inputs.append(item)
    by_path = {row["path"]: row for row in known}
    by_id = {row["id"]: row for row in known}
    current = {item.key: item.doc_id for item in inputs}
    changes = CorpusChanges()
    replaced = {}
    for item in inputs:
        old = by_path.get(item.key)
        if old is not None and old["id"] != item.doc_id:
            replaced[old["id"]] = {"id": old["id"], "path": item.key,
                                   "reason": f"{item.key} changed after the chain was made"}
    todo: list[tuple[Path, str, int]] = []
    claimed: dict[str, str] = {}  # doc id -> the input path that holds it this run
    for item in inputs:
        if item.doc_id in claimed:
            reports.append(DocReport(str(item.path), "duplicate", f"same content as {claimed[item.doc_id]}; "
                                     "the graph holds it once", doc_id=item.doc_id))
            continue
        claimed[item.doc_id] = item.key
        row = by_id.get(item.doc_id)
        if row is None:
            todo.append((item.path, item.doc_id, item.size))
        elif row["path"] == item.key:
            if row.get("ingested") and not row.get("partial"):
                reports.append(DocReport(str(item.path), "unchanged", doc_id=item.doc_id))
            else:  # a partial or unfinished document is redone
                todo.append((item.path, item.doc_id, item.size))
        elif _gone(row, current, replaced):
            replaced.pop(row["id"], None)  # its old path now holds other content: this one moved
            changes.moved.append({"id": row["id"], "path": item.key, "old": row["path"]})
            reports.append(DocReport(str(item.path), "moved", f"moved from {row['path']}", doc_id=item.doc_id))
            if not row.get("ingested") or row.get("partial"):
                todo.append((item.path, item.doc_id, item.size))
        else:
            reports.append(DocReport(str(item.path), "duplicate", f"same content as {row['path']} "
                                     "(already in the graph); the graph holds it once", doc_id=item.doc_id))
    changes.replaced = list(replaced.values())
    moved_ids = {m["id"] for m in changes.moved}
    for root in sync_roots or []:
        prefix = portable_path(root)
        for row in known:
            if (_under(row["path"], prefix) and row["path"] not in current and row["id"] not in moved_ids
                    and row["id"] not in replaced and all(r["id"] != row["id"] for r in changes.removed)):
                changes.removed.append({"id": row["id"], "path": row["path"],
                                        "reason": f"{row['path']} was removed"})
    return reports, todo, changes


def _gone(row: dict, current: dict[str, str], replaced: dict) -> bool:
    """The Document's path no longer holds its content: the file is gone, or now holds other content."""
    if row["path"] in current:
        return row["id"] in replaced
    return not Path(row["path"]).exists()


def _under(path: str, prefix: str) -> bool:
    return prefix in (".", "") or path == prefix or path.startswith(prefix.rstrip("/") + "/")


def apply_changes(store, changes: CorpusChanges) -> None:
    """Moves, then removals (old versions and files gone), before the new files are written."""
    store.write("move_documents", [{"id": m["id"], "path": m["path"]} for m in changes.moved])
    changes.stale_chains += remove_documents(store, changes.removals)


def remove_documents(store, docs: list[dict]) -> int:
    """Remove documents ({id, reason}) with everything that hangs off them; returns the chains marked stale."""
    if not docs:
        return 0
    rows = [{"id": d["id"], "reason": d["reason"]} for d in docs]
    stale = sum(r["chains"] for r in store.run("mark_chains_stale", {"rows": rows}))
    store.run("release_stale_duplicates")
    for query in ("delete_document_keypoints", "delete_document_parts", "delete_documents"):
        store.write(query, rows)
    return stale


def drop_orphans(store) -> int:
    """Entities no chunk, image, keypoint or document mentions any more."""
    rows = store.run("delete_orphan_entities")
    return rows[0]["entities"] if rows else 0


def print_changes(console, changes: CorpusChanges) -> None:
    for r in changes.replaced:
        console.print(f"changed {r['path']}: the old version was replaced", highlight=False)
    for r in changes.removed:
        console.print(f"removed {r['path']}: no such file in the synced folder", highlight=False)
    if changes.stale_chains:
        console.print(f"{changes.stale_chains} chains quoted a changed or removed document: marked stale "
                      "(not exported; `hopgraph generate` makes new ones)", highlight=False)


@dataclass
class RemoveResult:
    """What `hopgraph remove` did."""

    removed: int = 0  # documents
    not_found: int = 0  # paths given that name no stored document
    stale_chains: int = 0
    entities_dropped: int = 0


def run_remove(ctx: RunContext, paths: list[Path]) -> RemoveResult:
    """`hopgraph remove PATH...`: the documents stored under these paths (a folder: everything in it)."""
    from kg.pipeline.corpus import topics_and_domain

    store, console = ctx.store, ctx.console
    known = store.run("document_paths")
    chosen, missing = [], []
    for path in paths:
        key = portable_path(path)
        found = [row for row in known if row["path"] == key or _under(row["path"], key) and key not in ("", ".")]
        if not found:
            missing.append(str(path))
        chosen.extend(row for row in found if row not in chosen)
    for row in chosen:
        console.print(f"removed {row['path']}", highlight=False)
    for path in missing:
        console.print(f"not in the graph: {path}", highlight=False)
    stale = remove_documents(store, [{"id": r["id"], "reason": f"{r['path']} was removed"} for r in chosen])
    result = RemoveResult(len(chosen), len(missing), stale)
    if chosen:
        result.entities_dropped = drop_orphans(store)
        topics_and_domain(ctx.settings, store, ctx.client)  # the corpus changed: its topics and domain too
    console.print(f"remove: {len(chosen)} documents removed, {stale} chains marked stale, "
                  f"{result.entities_dropped} entities no longer mentioned dropped", highlight=False)
    return result
