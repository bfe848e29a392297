"""Copy the whole graph from one store into another (`hopgraph sync --to neo4j`).

The copy is generic over the GraphStore contract: it reads with named queries
from cypher/sync.cypher and writes with `target.run_text(..., {"rows": batch})`,
so any backend works as a target (the tests copy FalkorDB -> FalkorDB; the CLI
copies FalkorDB -> Neo4j).

* Nodes are paged per label by id (keyset paging) and MERGEd on `id` with
  `SET n += props`; the `embedding` vector is never read or written.
* Relationships are paged by their source node, grouped by
  (source label, type, target label) and MERGEd by endpoints and type, with
  their properties set.
* Running it twice changes nothing: every write is a MERGE.

Labels and relationship types cannot be query parameters. The sync templates
use placeholder names (SyncLabel, SyncSource, SyncTarget, SYNC_TYPE) that are
replaced here, and only by names from the fixed schema lists below.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kg.store import named_queries
from kg.errors import StoreError
from kg.store.base import INDEXED_LABELS, GraphStore

if TYPE_CHECKING:
    from kg.config import Settings


@dataclass(frozen=True)
class SyncReport:
    """What a sync wrote, per label and type, and what it left behind (outside the known schema)."""

    nodes: int
    relationships: int
    labels: dict[str, int]
    types: dict[str, int]
    skipped: dict[str, int]

KNOWN_LABELS: tuple[str, ...] = INDEXED_LABELS
KNOWN_TYPES: tuple[str, ...] = (
    "PART_OF", "NEXT", "REFERENCES", "CAPTIONED_BY", "SIMILAR_TO", "MENTIONS",
    "HAS_KEYPOINT", "IN_TOPIC", "HAS_HOP", "USES", "BRIDGES", "DUPLICATE_OF",
)
EXCLUDED_PROPERTIES = frozenset({"embedding"})
_PLACEHOLDERS = {"label": "SyncLabel", "source": "SyncSource", "target": "SyncTarget", "type": "SYNC_TYPE"}


def sync_query(name: str, **names: str) -> str:
    """The text of a sync template with its placeholders filled in.

    `names` maps placeholder roles (label, source, target, type) to schema
    names; anything outside KNOWN_LABELS / KNOWN_TYPES is refused, so no
    data-derived string ever reaches query text.
    """
    text = named_queries.get(name).text
    for role, value in names.items():
        if role not in _PLACEHOLDERS:
            raise ValueError(f"unknown placeholder role {role!r}")
        allowed = KNOWN_TYPES if role == "type" else KNOWN_LABELS
        if value not in allowed:
            raise ValueError(f"{value!r} is not a known {'relationship type' if role == 'type' else 'label'}")
        text = re.sub(rf"\b{_PLACEHOLDERS[role]}\b", value, text)
    leftover = [p for p in _PLACEHOLDERS.values() if re.search(rf"\b{p}\b", text)]
    if leftover:
        raise ValueError(f"{name}: placeholders left unfilled: {', '.join(leftover)}")
    return text


def _props(pairs: Any) -> dict[str, Any]:
    """[[key, value], ...] -> {key: value}, without nulls or excluded keys."""
    out: dict[str, Any] = {}
    for key, value in pairs or []:
        if key in EXCLUDED_PROPERTIES or value is None:
            continue
        out[str(key)] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    # FalkorDB returns OrderedDicts; the drivers want plain containers.
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# ---------------------------------------------------------------- reading
def iter_nodes(store: GraphStore, label: str, page: int = 1000) -> Iterator[list[dict[str, Any]]]:
    """Pages of {id, props} for every node of `label`, in id order."""
    text = sync_query("sync_dump_nodes", label=label)
    after = ""
    while True:
        rows = store.run_text(text, {"after": after, "limit": int(page)})
        if not rows:
            return
        yield [{"id": r["id"], "props": _props(r["props"])} for r in rows]
        if len(rows) < page:
            return
        after = rows[-1]["id"]


def iter_edges(store: GraphStore, label: str, page: int = 1000) -> Iterator[list[dict[str, Any]]]:
    """Pages of outgoing relationships of the nodes of `label`:
    {s, source_label, type, target_label, d, props}."""
    text = sync_query("sync_dump_edges", label=label)
    after = ""
    while True:
        rows = store.run_text(text, {"after": after, "limit": int(page)})
        if not rows:
            return
        yield [_edge(label, r) for r in rows if r["type"] is not None]
        sources = {r["s"] for r in rows}
        if len(sources) < page:
            return
        after = rows[-1]["s"]


def nodes_by_ids(store: GraphStore, label: str, ids: list[str]) -> list[dict[str, Any]]:
    if not ids:
        return []
    rows = store.run_text(sync_query("sync_nodes_by_ids", label=label), {"ids": list(ids)})
    return [{"id": r["id"], "props": _props(r["props"])} for r in rows]


def edges_by_ids(store: GraphStore, label: str, ids: list[str]) -> list[dict[str, Any]]:
    if not ids:
        return []
    rows = store.run_text(sync_query("sync_edges_by_ids", label=label), {"ids": list(ids)})
    return [_edge(label, r) for r in rows]


def _edge(label: str, r: dict[str, Any]) -> dict[str, Any]:
    return {"s": r["s"], "source_label": label, "type": r["type"], "target_label": r["target_label"],
            "d": r["d"], "props": _props(r["props"])}


# ---------------------------------------------------------------- writing
def write_nodes(target: GraphStore, label: str, rows: list[dict[str, Any]], batch_size: int) -> int:
    text = sync_query("sync_upsert_nodes", label=label)
    rows = list({r["id"]: r for r in rows}.values())  # last wins, as GraphStore.write does
    for start in range(0, len(rows), batch_size):
        target.run_text(text, {"rows": rows[start:start + batch_size]})
    return len(rows)


def write_edges(target: GraphStore, source: str, rel_type: str, dest: str,
                rows: list[dict[str, Any]], batch_size: int) -> int:
    text = sync_query("sync_upsert_edges", source=source, type=rel_type, target=dest)
    rows = list({(r["s"], r["d"]): {"s": r["s"], "d": r["d"], "props": r["props"]} for r in rows}.values())
    for start in range(0, len(rows), batch_size):
        target.run_text(text, {"rows": rows[start:start + batch_size]})
    return len(rows)


# ---------------------------------------------------------------- the copy
def copy_graph(source: GraphStore, target: GraphStore, batch_size: int = 1000) -> SyncReport:
    """Copy every node and relationship of `source` into `target` (idempotent)."""
    counts = source.counts()
    present = set(counts["nodes"])
    labels = [label for label in KNOWN_LABELS if label in present]
    skipped: dict[str, int] = {}
    for label, n in counts["nodes"].items():
        if label not in KNOWN_LABELS:
            skipped[f"label:{label}"] = n

    nodes_by_label: dict[str, int] = {}
    for label in labels:
        for page in iter_nodes(source, label, batch_size):
            nodes_by_label[label] = nodes_by_label.get(label, 0) + write_nodes(target, label, page, batch_size)

    rels_by_type: dict[str, int] = defaultdict(int)
    for label in labels:
        pending: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
        for page in iter_edges(source, label, batch_size):
            for e in page:
                if e["type"] not in KNOWN_TYPES or e["target_label"] not in KNOWN_LABELS:
                    key = f"relationship:({label})-[:{e['type']}]->({e['target_label']})"
                    skipped[key] = skipped.get(key, 0) + 1
                    continue
                group = (label, e["type"], e["target_label"])
                pending[group].append(e)
                if len(pending[group]) >= batch_size:
                    rels_by_type[e["type"]] += write_edges(target, *group, pending.pop(group), batch_size)
        for group, rows in pending.items():
            rels_by_type[group[1]] += write_edges(target, *group, rows, batch_size)

    return SyncReport(nodes=sum(nodes_by_label.values()), relationships=sum(rels_by_type.values()),
                      labels=dict(sorted(nodes_by_label.items())), types=dict(sorted(rels_by_type.items())),
                      skipped=skipped)


def run_sync(settings: Settings, source_store: GraphStore, target_store: GraphStore | None = None) -> SyncReport:
    """Copy the embedded graph into Neo4j (or into `target_store` when given)."""
    owned = target_store is None
    target = target_store
    if target is None:
        from kg.store.neo4j_store import Neo4jStore

        cfg = settings.store
        password = settings.neo4j_password
        target = Neo4jStore(cfg.neo4j_uri, cfg.neo4j_user,
                            password.get_secret_value() if password else None,
                            cfg.neo4j_database, cfg.batch_size)
    try:
        if target is source_store:
            raise StoreError("sync: the source and target are the same store")
        target.ensure_schema()
        batch = settings.store.batch_size or target.batch_size or 1000
        return copy_graph(source_store, target, batch)
    finally:
        if owned:
            target.close()
