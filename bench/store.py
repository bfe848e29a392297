"""Store write throughput: 20,000 Chunk nodes with 384-float embeddings and
100,000 SIMILAR_TO edges, through the store API and through the raw FalkorDB
client in the same run (so the ratio is meaningful on a noisy machine).

    python bench/store.py            # embedded FalkorDB (+ Neo4j when NEO4J_URI is set)
"""

from __future__ import annotations

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.store import named_queries  # noqa: E402
from kg.store.falkor import FalkorStore  # noqa: E402

N_CHUNKS, N_EDGES, DIM, BATCH = 20_000, 100_000, 384, 1000


def make_rows(seed: int = 0):
    rng = np.random.default_rng(seed)
    vecs = rng.standard_normal((N_CHUNKS, DIM)).astype(np.float32)
    chunks = [{"id": f"c{i}", "doc_id": f"d{i // 100}", "index": i, "text": f"chunk {i}",
               "embedding": vecs[i].tolist()} for i in range(N_CHUNKS)]
    src = rng.integers(0, N_CHUNKS, N_EDGES)
    dst = (src + rng.integers(1, N_CHUNKS, N_EDGES)) % N_CHUNKS
    edges = list({(f"c{a}", f"c{b}"): {"s": f"c{a}", "d": f"c{b}", "score": 0.7, "cross_document": True}
                  for a, b in zip(src, dst)}.values())
    return chunks, edges


def through_api(store, chunks, edges) -> tuple[float, float]:
    t0 = time.perf_counter()
    store.write("upsert_chunks", chunks)
    t1 = time.perf_counter()
    store.write("chunk_similar_chunk", edges, key=None)
    return t1 - t0, time.perf_counter() - t1


def through_raw_client(graph, chunks, edges) -> tuple[float, float]:
    node_q, edge_q = named_queries.get("upsert_chunks").text, named_queries.get("chunk_similar_chunk").text
    t0 = time.perf_counter()
    for i in range(0, len(chunks), BATCH):
        graph.query(node_q, {"rows": chunks[i:i + BATCH]})
    t1 = time.perf_counter()
    for i in range(0, len(edges), BATCH):
        graph.query(edge_q, {"rows": edges[i:i + BATCH]})
    return t1 - t0, time.perf_counter() - t1


def main() -> None:
    chunks, edges = make_rows()
    print(f"{len(chunks)} chunks x {DIM} floats, {len(edges)} SIMILAR_TO edges, batches of {BATCH}")
    with tempfile.TemporaryDirectory() as tmp:
        store = FalkorStore(Path(tmp) / ".hopgraph", graph="bench_api", batch_size=BATCH)
        store.ensure_schema()
        api_nodes, api_edges = through_api(store, chunks, edges)
        raw = store._db.select_graph("bench_raw")
        raw.query("CREATE INDEX FOR (n:Chunk) ON (n.id)")
        raw_nodes, raw_edges = through_raw_client(raw, chunks, edges)
        store.close()
        store.server.stop()
    api, rawt = api_nodes + api_edges, raw_nodes + raw_edges
    print(f"falkordb raw client : nodes {raw_nodes:6.1f} s  edges {raw_edges:6.1f} s  total {rawt:6.1f} s")
    print(f"falkordb store API  : nodes {api_nodes:6.1f} s  edges {api_edges:6.1f} s  total {api:6.1f} s")
    print(f"store API / raw     : {api / rawt:.2f}x (target <= 1.50x)")
    if os.environ.get("NEO4J_URI"):
        from kg.store.neo4j_store import Neo4jStore

        neo = Neo4jStore(os.environ["NEO4J_URI"], os.environ.get("NEO4J_USER", "neo4j"),
                         os.environ.get("NEO4J_PASSWORD"), batch_size=BATCH)
        neo.clear()
        neo.ensure_schema()
        n_s, e_s = through_api(neo, chunks, edges)
        print(f"neo4j store API     : nodes {n_s:6.1f} s  edges {e_s:6.1f} s  total {n_s + e_s:6.1f} s")
        neo.clear()
        neo.close()
    else:
        print("neo4j               : skipped (NEO4J_URI not set)")
    print(f"peak RSS (client)   : {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
