"""The graph store contract both backends implement.

Callers speak in named queries (cypher/*.cypher) and rows of plain dicts;
they never see a driver object. Only DDL and vector search differ between
FalkorDB and Neo4j, and those live in the backend classes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import Any

from kg.store import named_queries

# (label, key) pairs that get a lookup index: every MERGE matches on `id`.
INDEXED_LABELS = (
    "Document", "Chunk", "Image", "Entity", "Keypoint", "Topic", "Chain", "Hop", "Corpus",
)


class GraphStore(ABC):
    name: str = "store"
    batch_size: int = 1000

    # ---- queries -------------------------------------------------------
    def run(self, query_name: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run a named query from cypher/ and return its rows as dicts."""
        return self.run_text(named_queries.get(query_name).text, params or {})

    @abstractmethod
    def run_text(self, text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run Cypher text (backend-specific statements only; everything else is named)."""

    def write(self, query_name: str, rows: Sequence[dict[str, Any]], key: str | None = "id",
              batch_size: int | None = None) -> int:
        """Run an `UNWIND $rows AS r ...` query in batches; returns rows written.

        Rows sharing a key are collapsed first (last one wins) because FalkorDB
        keeps the first value of a duplicated MERGE key where Neo4j keeps the last.
        """
        rows = dedupe_rows(rows, key)
        size = batch_size or self.batch_size
        text = named_queries.get(query_name).text
        for start in range(0, len(rows), size):
            self._write_batch(text, rows[start:start + size])
        return len(rows)

    def _write_batch(self, text: str, rows: list[dict[str, Any]]) -> None:
        self.run_text(text, {"rows": rows})

    # ---- schema and vectors -------------------------------------------
    @abstractmethod
    def ensure_schema(self) -> None:
        """Create lookup indexes on every label's id (idempotent)."""

    @abstractmethod
    def ensure_vector_index(self, label: str, prop: str, dim: int) -> None: ...

    set_vectors_text: str = ""  # backend-specific: "... SET n.{prop} = <vector of r.vector>"

    def set_vectors(self, label: str, prop: str, rows: Sequence[dict[str, Any]]) -> None:
        """Store vectors: rows of {id, vector}."""
        text = self.set_vectors_text.format(label=label, prop=prop)
        # Python floats a batch at a time: for the 25,009 chunks of 16 MB of text at once they were about 300 MB.
        for start in range(0, len(rows), self.batch_size):
            batch = [{"id": r["id"], "vector": [float(x) for x in r["vector"]]}
                     for r in rows[start:start + self.batch_size]]
            self.run_text(text, {"rows": batch})

    @abstractmethod
    def vector_search(self, label: str, prop: str, vector: Sequence[float], k: int) -> list[dict[str, Any]]:
        """Nearest nodes: rows of {id, score} with score a cosine similarity (higher is closer)."""

    # ---- summaries -----------------------------------------------------
    def counts(self) -> dict[str, dict[str, int]]:
        labels = {r["label"]: int(r["n"]) for r in self.run("count_nodes_by_label") if r["label"]}
        types = {r["type"]: int(r["n"]) for r in self.run("count_relationships_by_type")}
        return {"nodes": labels, "relationships": types}

    def clear(self) -> None:
        self.run("delete_all")

    @abstractmethod
    def close(self) -> None: ...

    def __enter__(self) -> "GraphStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def dedupe_rows(rows: Iterable[dict[str, Any]], key: str | None) -> list[dict[str, Any]]:
    rows = list(rows)
    if key is None:
        # edge rows: the pair (s, d) is the key when present
        if rows and "s" in rows[0] and "d" in rows[0]:
            merged = {(r["s"], r["d"]): r for r in rows}
            return list(merged.values())
        return rows
    return list({r[key]: r for r in rows}.values())
