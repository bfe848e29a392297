"""Shared fixtures: the real embedded FalkorDB store, the shared corpus, Neo4j when available."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# Tests never talk to a real LLM unless they start the scripted server themselves.
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
    os.environ.pop(_var, None)

from testing_support import CORPUS, PDF_DIR, ROOT, make_settings, needs_corpus  # noqa: F401  (shared with tests)

NEO4J_SKIP = "NEO4J_URI not set: no Neo4j server to test against (docker compose up -d, then export NEO4J_URI/NEO4J_PASSWORD)"


@pytest.fixture(scope="session")
def falkor_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("falkor") / ".hopgraph"


@pytest.fixture
def falkor_store(tmp_path):
    """A fresh embedded FalkorDB store of its own (own server, own data dir)."""
    from kg.store.falkor import FalkorStore

    store = FalkorStore(tmp_path / ".hopgraph", graph="test")
    store.ensure_schema()
    yield store
    store.close()
    store.server.stop()


def _neo4j_store():
    from kg.store.neo4j_store import Neo4jStore

    store = Neo4jStore(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
                       os.environ.get("NEO4J_PASSWORD"), os.environ.get("NEO4J_DATABASE", "neo4j"))
    store.clear()
    store.ensure_schema()
    return store


@pytest.fixture(params=["falkordb", "neo4j"])
def any_store(request, tmp_path):
    """The same test on both backends; Neo4j only when NEO4J_URI is set."""
    if request.param == "neo4j":
        if not os.environ.get("NEO4J_URI"):
            pytest.skip(NEO4J_SKIP)
        store = _neo4j_store()
        yield store
        store.clear()
        store.close()
        return
    from kg.store.falkor import FalkorStore

    store = FalkorStore(tmp_path / ".hopgraph", graph="test")
    store.ensure_schema()
    yield store
    store.close()
    store.server.stop()


@pytest.fixture(scope="session")
def shared_embedding_cache(tmp_path_factory) -> Path:
    """One embedding cache for the whole test session: the same PDFs ingested by
    several test modules are embedded once."""
    return tmp_path_factory.mktemp("embedding-cache")
