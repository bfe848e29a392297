"""Graph stores: embedded FalkorDB (default) and Neo4j, behind one contract."""

from __future__ import annotations

from kg.config import Settings
from kg.store.base import GraphStore


def open_store(settings: Settings) -> GraphStore:
    cfg = settings.store
    if cfg.backend == "neo4j":
        from kg.store.neo4j_store import Neo4jStore

        password = settings.neo4j_password
        return Neo4jStore(cfg.neo4j_uri, cfg.neo4j_user,
                          password.get_secret_value() if password else None,
                          cfg.neo4j_database, cfg.batch_size)
    from kg.store.falkor import FalkorStore

    return FalkorStore(cfg.data_dir, cfg.graph, cfg.batch_size)


__all__ = ["GraphStore", "open_store"]
