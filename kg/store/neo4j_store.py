"""Neo4j through the official driver (docker-compose.yml starts one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg.errors import StoreError
from kg.store.base import INDEXED_LABELS, GraphStore

# Backend-specific Cypher: DDL and vector search.
CREATE_CONSTRAINT = ("CREATE CONSTRAINT {name}_id IF NOT EXISTS "
                     "FOR (n:{label}) REQUIRE n.id IS UNIQUE")
CREATE_VECTOR_INDEX = ("CREATE VECTOR INDEX {name}_{prop} IF NOT EXISTS FOR (n:{label}) ON (n.{prop}) "
                       "OPTIONS {{indexConfig: {{`vector.dimensions`: {dim}, "
                       "`vector.similarity_function`: 'cosine'}}}}")
SET_VECTORS = "UNWIND $rows AS r MATCH (n:{label} {{id: r.id}}) SET n.{prop} = r.vector"
VECTOR_SEARCH = ("CALL db.index.vector.queryNodes($index, $k, $v) YIELD node, score "
                 "RETURN node.id AS id, score")


class Neo4jStore(GraphStore):
    name = "neo4j"
    set_vectors_text = SET_VECTORS

    def __init__(self, uri: str, user: str, password: str | None, database: str = "neo4j",
                 batch_size: int = 1000):
        import neo4j
        from neo4j.exceptions import AuthError, ConfigurationError, ServiceUnavailable

        if not password:
            raise StoreError("Neo4j password not set: export NEO4J_PASSWORD (or put it in .env)")
        self.database = database
        self.batch_size = batch_size
        try:
            self._driver = neo4j.GraphDatabase.driver(uri, auth=(user, password),
                                                      connection_timeout=10)
            self._driver.verify_connectivity()
        except AuthError:
            raise StoreError(f"Neo4j at {uri} refused user {user!r}: wrong password?") from None
        except (ServiceUnavailable, OSError) as exc:
            raise StoreError(f"Neo4j at {uri} is unreachable ({type(exc).__name__}); "
                             "is it running? `docker compose up -d` starts one") from None
        except (ConfigurationError, ValueError) as exc:
            raise StoreError(f"bad Neo4j URI {uri!r}: {exc}") from None

    def run_text(self, text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        from neo4j.exceptions import Neo4jError

        def work(tx):
            return [record.data() for record in tx.run(text, params or {})]

        # execute_write retries transient errors (deadlocks, leader changes) itself.
        try:
            with self._driver.session(database=self.database) as session:
                return session.execute_write(work)
        except Neo4jError as exc:
            raise StoreError(f"Neo4j rejected a query: {exc.message}") from None

    def ensure_schema(self) -> None:
        for label in INDEXED_LABELS:
            self.run_text(CREATE_CONSTRAINT.format(name=label.lower(), label=label))

    def ensure_vector_index(self, label: str, prop: str, dim: int) -> None:
        self.run_text(CREATE_VECTOR_INDEX.format(name=label.lower(), label=label, prop=prop, dim=int(dim)))

    def vector_search(self, label: str, prop: str, vector: Sequence[float], k: int) -> list[dict[str, Any]]:
        # Neo4j's cosine score is (1 + cos) / 2; map it back to a cosine similarity.
        rows = self.run_text(
            VECTOR_SEARCH,
            {"index": f"{label.lower()}_{prop}", "k": int(k), "v": [float(x) for x in vector]})
        return [{"id": r["id"], "score": 2.0 * float(r["score"]) - 1.0} for r in rows]

    def close(self) -> None:
        driver, self._driver = getattr(self, "_driver", None), None
        if driver is not None:
            driver.close()
