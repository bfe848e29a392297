"""`hopgraph sync`: copy the embedded graph into another store, in batches, idempotently.

The copy only speaks the GraphStore contract, so a second embedded FalkorDB
(its own data directory and server) stands in for Neo4j; the real Neo4j test
runs when NEO4J_URI is set.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kg.store import sync
from kg.store.sync import KNOWN_LABELS, KNOWN_TYPES, SyncReport, copy_graph, run_sync, sync_query
from kg.config import Settings
from graph_fixtures import build_clean_graph

ROOT = Path(__file__).resolve().parents[3]
NEO4J_SKIP = ("NEO4J_URI not set: no Neo4j server to test against "
              "(docker compose up -d, then export NEO4J_URI/NEO4J_PASSWORD)")


@pytest.fixture
def target_store(tmp_path):
    """A second embedded FalkorDB with its own data dir (and so its own server)."""
    from kg.store.falkor import FalkorStore

    store = FalkorStore(tmp_path / "target" / ".hopgraph", graph="copy")
    yield store
    store.close()
    store.server.stop()


@pytest.fixture
def source(falkor_store):
    build_clean_graph(falkor_store)
    return falkor_store


def all_props(store, label):
    """{id: properties} of every node of a label, for comparing two stores."""
    rows = store.run_text(f"MATCH (n:{label}) RETURN n.id AS id, [k IN keys(n) | [k, n[k]]] AS props")
    return {r["id"]: dict((k, v) for k, v in r["props"]) for r in rows}


def all_edges(store):
    rows = store.run_text("MATCH (a)-[r]->(b) RETURN labels(a)[0] AS sl, a.id AS s, type(r) AS t, "
                          "labels(b)[0] AS dl, b.id AS d, [k IN keys(r) | [k, r[k]]] AS props")
    return sorted((r["sl"], r["s"], r["t"], r["dl"], r["d"], json.dumps(sorted(map(tuple, r["props"]))))
                  for r in rows)


def test_sync_to_a_second_falkordb_twice(source, target_store):
    settings = Settings()
    expected = source.counts()
    first = run_sync(settings, source, target_store)
    assert first.nodes == sum(expected["nodes"].values())
    assert first.relationships == sum(expected["relationships"].values())
    assert first.labels == expected["nodes"] and first.types == expected["relationships"]
    assert first.skipped == {}
    assert target_store.counts() == expected

    second = run_sync(settings, source, target_store)  # idempotent: nothing new
    assert second == first
    assert target_store.counts() == expected

    # same properties (minus the embedding vector) and the same edges with their properties
    for label in expected["nodes"]:
        src = all_props(source, label)
        dst = all_props(target_store, label)
        for props in src.values():
            props.pop("embedding", None)
        assert dst == src, label
    assert all_edges(target_store) == all_edges(source)
    assert not any("embedding" in p for p in all_props(target_store, "Chunk").values())


def test_small_batches_page_through_everything(source, target_store):
    report = copy_graph(source, target_store, batch_size=2)
    assert target_store.counts() == source.counts()
    assert report.nodes == sum(source.counts()["nodes"].values())
    assert all_edges(target_store) == all_edges(source)


def test_sync_updates_changed_properties(source, target_store):
    copy_graph(source, target_store)
    source.run_text("MATCH (c:Chain {id: 'ch_img'}) SET c.status = 'rejected'")
    source.run_text("MATCH (:Chunk {id: 'c1'})-[s:SIMILAR_TO]->(:Chunk {id: 'c2'}) SET s.score = 0.75")
    copy_graph(source, target_store)
    assert target_store.run_text("MATCH (c:Chain {id: 'ch_img'}) RETURN c.status AS s") == [{"s": "rejected"}]
    assert target_store.run_text("MATCH (:Chunk {id: 'c1'})-[s:SIMILAR_TO]->() RETURN s.score AS s") == [{"s": 0.75}]
    assert target_store.counts() == source.counts()


def test_unknown_labels_and_types_are_reported_not_copied(source, target_store):
    source.run_text("CREATE (:Scratch {id: 'x'})")
    source.run_text("MATCH (a:Chunk {id: 'c1'}), (b:Chunk {id: 'c3'}) CREATE (a)-[:CONTRADICTS]->(b)")
    report = copy_graph(source, target_store)
    assert report.skipped == {"label:Scratch": 1, "relationship:(Chunk)-[:CONTRADICTS]->(Chunk)": 1}
    assert "Scratch" not in target_store.counts()["nodes"]


def test_empty_source(falkor_store, target_store):
    assert copy_graph(falkor_store, target_store) == SyncReport(nodes=0, relationships=0, labels={}, types={},
                                                                skipped={})


def test_templates_only_take_schema_names():
    text = sync_query("sync_upsert_edges", source="Hop", type="USES", target="Image")
    assert "MATCH (a:Hop {id: r.s})" in text and "[e:USES]" in text and "(b:Image {id: r.d})" in text
    with pytest.raises(ValueError):
        sync_query("sync_upsert_nodes", label="Chunk) DETACH DELETE (n")
    with pytest.raises(ValueError):
        sync_query("sync_upsert_edges", source="Hop", type="DROP", target="Image")
    with pytest.raises(ValueError):
        sync_query("sync_upsert_edges", source="Hop", type="USES")  # SyncTarget left over


def filled_texts() -> dict[str, str]:
    out = {}
    for label in KNOWN_LABELS:
        for name in ("sync_dump_nodes", "sync_nodes_by_ids", "sync_dump_edges", "sync_edges_by_ids",
                     "sync_upsert_nodes"):
            out[f"{name}[{label}]"] = sync_query(name, label=label)
    for rel_type in KNOWN_TYPES:
        out[f"sync_upsert_edges[{rel_type}]"] = sync_query("sync_upsert_edges", source="Chunk", type=rel_type,
                                                           target="Entity")
    return out


def test_filled_templates_run_on_falkordb(falkor_store):
    for name, text in filled_texts().items():
        params = {p: ([] if p in ("rows", "ids") else 5 if p == "limit" else "") for p in re.findall(r"\$(\w+)", text)}
        falkor_store.run_text(text, params)


@pytest.mark.skipif(shutil.which("node") is None or not (ROOT / "node_modules" / "@neo4j-cypher").is_dir(),
                    reason="node or @neo4j-cypher/language-support missing: run `make install-test`")
def test_filled_templates_pass_neo4j_grammar():
    items = [{"name": k, "text": v} for k, v in filled_texts().items()]
    proc = subprocess.run(["node", str(ROOT / "tests" / "cypher_lint.mjs")], input=json.dumps(items),
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=True)
    bad = {r["name"]: r["errors"] for r in json.loads(proc.stdout) if r["errors"]}
    assert not bad, bad


def test_sync_to_neo4j(source, monkeypatch):
    if not os.environ.get("NEO4J_URI"):
        pytest.skip(NEO4J_SKIP)
    from kg.store.neo4j_store import Neo4jStore

    monkeypatch.setenv("HOPGRAPH_STORE__NEO4J_URI", os.environ["NEO4J_URI"])
    monkeypatch.setenv("HOPGRAPH_STORE__NEO4J_USER", os.environ.get("NEO4J_USER", "neo4j"))
    monkeypatch.setenv("HOPGRAPH_STORE__NEO4J_DATABASE", os.environ.get("NEO4J_DATABASE", "neo4j"))
    settings = Settings()
    neo = Neo4jStore(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
                     os.environ.get("NEO4J_PASSWORD"), os.environ.get("NEO4J_DATABASE", "neo4j"))
    try:
        neo.clear()
        first = run_sync(settings, source)  # the target is built from settings
        assert neo.counts() == source.counts()
        assert run_sync(settings, source) == first
        assert neo.counts() == source.counts()
        assert all_edges(neo) == all_edges(source)
        # the audits read the same on both stores
        from queries.audit import run_audits

        assert run_audits(neo) == run_audits(source)
    finally:
        neo.clear()
        neo.close()


# ---------------------------------------------------------------- Neo4j Browser style
GRASS = ROOT / "kg" / "neo4j_browser.grass"


def grass_blocks() -> dict[str, dict[str, str]]:
    text = GRASS.read_text(encoding="utf-8")
    blocks = {}
    for selector, body in re.findall(r"^([\w.]+)\s*\{(.*?)^\}", text, re.M | re.S):
        props = dict(re.findall(r"([\w-]+)\s*:\s*([^;]+);", body))
        blocks[selector] = {k: v.strip() for k, v in props.items()}
    return blocks


def test_grass_styles_every_label():
    blocks = grass_blocks()
    assert "node" in blocks and "relationship" in blocks
    for label in KNOWN_LABELS:
        style = blocks.get(f"node.{label}")
        assert style, f"no style for {label}"
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", style["color"])
        assert re.fullmatch(r'"(\{\w+\}|<id>|<type>)"', style["caption"])
    assert blocks["node.Chain"]["caption"] == '"{question}"'
    assert blocks["node.Entity"]["caption"] == '"{name}"'
    colours = [blocks[f"node.{label}"]["color"].lower() for label in KNOWN_LABELS]
    assert len(set(colours)) == len(colours)
    # the properties captions name exist in the schema the tests build
    assert set(sync.KNOWN_LABELS) == {"Document", "Chunk", "Image", "Entity", "Keypoint", "Topic",
                                      "Chain", "Hop", "Corpus"}
