"""The graph store contract on the embedded FalkorDB (and Neo4j when NEO4J_URI is set)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from kg.store.falkor import EmbeddedServer, FalkorStore


def _docs_and_chunks(store, n=5):
    store.write("upsert_documents", [{"id": "d1", "path": "a.pdf", "title": "A", "pages": 1}])
    store.write("upsert_chunks", [{"id": f"c{i}", "doc_id": "d1", "index": i, "text": f"chunk {i}"}
                                  for i in range(n)])
    store.write("chunk_part_of", [{"s": f"c{i}", "d": "d1"} for i in range(n)], key=None)
    store.write("chunk_next", [{"s": f"c{i}", "d": f"c{i + 1}"} for i in range(n - 1)], key=None)


def test_named_queries_write_and_count(any_store):
    _docs_and_chunks(any_store)
    counts = any_store.counts()
    assert counts["nodes"] == {"Document": 1, "Chunk": 5}
    assert counts["relationships"] == {"PART_OF": 5, "NEXT": 4}


def test_rewriting_the_same_rows_adds_nothing(any_store):
    _docs_and_chunks(any_store)
    before = any_store.counts()
    _docs_and_chunks(any_store)
    assert any_store.counts() == before


def test_duplicate_keys_in_a_batch_keep_the_last_value(any_store):
    # FalkorDB keeps the first and Neo4j the last; the store makes both keep the last.
    any_store.write("upsert_chunks", [{"id": "c", "text": "old"}, {"id": "c", "text": "new"}])
    rows = any_store.run_text("MATCH (c:Chunk {id: 'c'}) RETURN c.text AS text")
    assert rows == [{"text": "new"}]


def test_batches_smaller_than_the_rows(any_store):
    rows = [{"id": f"e{i}", "name": f"E{i}", "label": "ORG", "aliases": [f"E{i}"]} for i in range(2500)]
    any_store.write("upsert_entities", rows, batch_size=1000)
    assert any_store.counts()["nodes"]["Entity"] == 2500


def test_entity_aliases_accumulate_across_writes(any_store):
    any_store.write("upsert_entities", [{"id": "faa", "name": "FAA", "label": "ORG", "aliases": ["FAA"]}])
    any_store.write("upsert_entities", [{"id": "faa", "name": "F.A.A.", "label": "ORG", "aliases": ["F.A.A.", "FAA"]}])
    rows = any_store.run_text("MATCH (e:Entity) RETURN e.name AS name, e.aliases AS aliases")
    assert rows == [{"name": "FAA", "aliases": ["FAA", "F.A.A."]}]


def test_vector_index_returns_cosine_similarity(any_store):
    _docs_and_chunks(any_store, 4)
    any_store.ensure_vector_index("Chunk", "embedding", 3)
    any_store.ensure_vector_index("Chunk", "embedding", 3)  # idempotent
    any_store.set_vectors("Chunk", "embedding", [
        {"id": "c0", "vector": [1, 0, 0]}, {"id": "c1", "vector": [1, 1, 0]},
        {"id": "c2", "vector": [0, 1, 0]}, {"id": "c3", "vector": [0, 0, 1]}])
    hits = any_store.vector_search("Chunk", "embedding", [1, 0, 0], 2)
    assert [h["id"] for h in hits] == ["c0", "c1"]
    assert hits[0]["score"] == pytest.approx(1.0, abs=1e-4)
    assert hits[1]["score"] == pytest.approx(0.7071, abs=1e-3)


def test_ensure_schema_is_idempotent(falkor_store):
    falkor_store.ensure_schema()
    falkor_store.ensure_schema()
    rows = falkor_store.run_text("CALL db.indexes() YIELD label RETURN label")
    labels = [r["label"] for r in rows]
    assert len(labels) == len(set(labels))


# ---- the embedded server's lifecycle -------------------------------------

def test_killed_server_restarts_with_everything_written_before(tmp_path):
    store = FalkorStore(tmp_path / ".hopgraph", graph="test")
    _docs_and_chunks(store)
    pid = store.server.pid()
    os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)
    assert not store.server.ping()
    # the next query restarts the server from its append-only log
    assert store.counts()["nodes"] == {"Document": 1, "Chunk": 5}
    assert store.server.pid() != pid
    store.close()
    store.server.stop()


def test_next_process_restarts_a_killed_server(tmp_path):
    data = tmp_path / ".hopgraph"
    store = FalkorStore(data, graph="test")
    _docs_and_chunks(store)
    os.kill(store.server.pid(), signal.SIGKILL)
    store._db = None  # this process is "gone" too
    fresh = FalkorStore(data, graph="test")
    assert fresh.counts()["relationships"]["PART_OF"] == 5
    fresh.close()
    fresh.server.stop()


def test_stale_socket_and_pid_file_are_cleaned(tmp_path):
    server = EmbeddedServer(tmp_path / ".hopgraph")
    server.data_dir.mkdir(parents=True)
    server.socket_path.write_text("")  # a socket left behind by a crash
    server.pid_path.write_text("999999")
    assert server.ensure_running() is True
    assert server.ping()
    server.stop()
    assert not server.socket_path.exists()


_CLIENT = """
import sys, time
sys.path.insert(0, {root!r})
from pathlib import Path
from kg.store.falkor import FalkorStore
s = FalkorStore(Path({data!r}), graph="test")
s.write("upsert_chunks", [{{"id": "p" + sys.argv[1] + "-" + str(i), "text": "x"}} for i in range(50)])
print(s.server.pid(), flush=True)
time.sleep(1.0)
"""


def test_two_processes_share_one_server(tmp_path):
    data = tmp_path / ".hopgraph"
    root = str(__import__("pathlib").Path(__file__).resolve().parents[3])
    code = _CLIENT.format(root=root, data=str(data))
    procs = [subprocess.Popen([sys.executable, "-c", code, str(i)], stdout=subprocess.PIPE, text=True)
             for i in range(2)]
    pids = {p.communicate(timeout=60)[0].strip() for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(pids) == 1  # one server for both
    # the last client out stopped the on-demand server; its data survived
    assert not EmbeddedServer(data).ping()
    store = FalkorStore(data, graph="test")
    assert store.counts()["nodes"]["Chunk"] == 100
    store.close()


def test_db_start_keeps_the_server_after_exit(tmp_path):
    data = tmp_path / ".hopgraph"
    server = EmbeddedServer(data)
    server.ensure_running()
    server.keep_path.touch()
    store = FalkorStore(data, graph="test")
    store.close()
    assert server.ping()
    server.stop()
    assert not server.ping()
