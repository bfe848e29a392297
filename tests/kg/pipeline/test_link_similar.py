"""SIMILAR_TO links after ingest (kg/pipeline/corpus.py link_similar): new documents against the whole
corpus, never old against old, each document linked once (real embedded FalkorDB)."""

from __future__ import annotations

import numpy as np

from kg.pipeline.corpus import link_similar
from kg.pipeline.timings import StageTimes
from testing_support import make_settings

VECTORS = {  # chosen so that the neighbours are known: o1 ~ n1 ~ img1, o1 ~ o2 (old pair), n2 alone
    "o1": [1.0, 0.0, 0.0], "o2": [0.9, 0.0, 0.1], "n1": [0.95, 0.3, 0.0], "n2": [0.0, 0.0, 1.0],
    "img1": [0.9, 0.2, 0.1], "img0": [0.92, 0.0, 0.05],  # img0: an old image close to the old chunks
}


def vectors(items: list[dict]) -> np.ndarray:
    rows = np.array([VECTORS[i["id"]] for i in items], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def corpus(store) -> None:
    store.write("upsert_documents", [{"id": "old", "path": "old.md", "ingested": True, "linked": True},
                                     {"id": "new", "path": "new.md", "ingested": True, "linked": False}])
    store.write("upsert_chunks", [{"id": c, "doc_id": d, "index": i, "text": f"text of {c}", "kind": "text"}
                                  for i, (c, d) in enumerate([("o1", "old"), ("o2", "old"), ("n1", "new"),
                                                              ("n2", "new")])])
    store.write("upsert_images", [{"id": "img1", "doc_id": "new", "page": 1, "caption": "Figure 1: a bay"},
                                  {"id": "img0", "doc_id": "old", "page": 1, "caption": "Figure 1: the old bay"},
                                  {"id": "bare", "doc_id": "new", "page": 1}])  # no text: never linked


def links(store) -> dict[frozenset, tuple[float, bool]]:
    rows = store.run_text("MATCH (a)-[s:SIMILAR_TO]->(b) RETURN a.id AS a, b.id AS b, s.score AS score, "
                          "s.cross_document AS cross")
    return {frozenset((r["a"], r["b"])): (round(r["score"], 3), r["cross"]) for r in rows}


def test_new_documents_are_linked_to_the_corpus_and_old_pairs_are_left_alone(falkor_store, tmp_path):
    corpus(falkor_store)
    settings = make_settings(tmp_path / ".hopgraph", similarity={"k": 3, "min_score": 0.5})
    times = StageTimes()
    made = link_similar(settings, falkor_store, vectors, times)
    found = links(falkor_store)
    # old pairs (o1-o2, img0-o1, img0-o2) were linked when the old document came in; images never link images
    assert set(found) == {frozenset(p) for p in [("n1", "o1"), ("n1", "o2"), ("img1", "o1"), ("img1", "o2"),
                                                 ("img1", "n1"), ("img0", "n1")]}
    assert made == len(found) and times.to_dict()["knn"]["items"] == made
    assert found[frozenset(("n1", "o1"))] == (round(0.95 / np.linalg.norm([0.95, 0.3]), 3), True)
    assert found[frozenset(("img1", "n1"))][1] is False  # same document
    states = {r["id"]: r["linked"] for r in falkor_store.run("document_states")}
    assert states == {"old": True, "new": True}
    stored = falkor_store.run_text("MATCH (c:Chunk) WHERE c.embedding IS NOT NULL RETURN c.id AS id ORDER BY id")
    assert [r["id"] for r in stored] == ["n1", "n2"]  # the new chunks' vectors go on their nodes


def test_a_first_document_alone_is_linked_within_itself_and_its_vectors_stored_unchanged(falkor_store, tmp_path):
    falkor_store.write("upsert_documents", [{"id": "new", "path": "new.md", "ingested": True, "linked": False}])
    falkor_store.write("upsert_chunks", [{"id": c, "doc_id": "new", "index": i, "text": f"text of {c}",
                                          "kind": "text"} for i, c in enumerate(["o1", "o2", "n1", "n2"])])
    settings = make_settings(tmp_path / ".hopgraph", similarity={"k": 3, "min_score": 0.5})
    assert link_similar(settings, falkor_store, vectors) == 3
    assert set(links(falkor_store)) == {frozenset(p) for p in [("n1", "o1"), ("n1", "o2"), ("o1", "o2")]}
    assert all(cross is False for _, cross in links(falkor_store).values())
    stored = falkor_store.run_text("MATCH (c:Chunk) RETURN c.id AS id, c.embedding AS v ORDER BY id")
    expected = vectors([{"id": r["id"]} for r in stored])
    assert np.allclose(np.array([r["v"] for r in stored], dtype=np.float32), expected, atol=1e-6)


def test_a_second_run_links_nothing_more(falkor_store, tmp_path):
    corpus(falkor_store)
    settings = make_settings(tmp_path / ".hopgraph", similarity={"k": 3, "min_score": 0.5})
    link_similar(settings, falkor_store, vectors)
    before = falkor_store.counts()
    assert link_similar(settings, falkor_store, vectors) == 0
    assert falkor_store.counts() == before


def test_a_document_still_waiting_for_keypoints_is_linked_when_this_run_wrote_it(falkor_store, tmp_path):
    corpus(falkor_store)
    falkor_store.write("upsert_documents", [{"id": "new", "ingested": False}])
    settings = make_settings(tmp_path / ".hopgraph", similarity={"k": 3, "min_score": 0.5})
    assert link_similar(settings, falkor_store, vectors) == 0  # not ingested, not written by this run
    assert link_similar(settings, falkor_store, vectors, written=frozenset({"new"})) == 6


def test_the_topics_read_every_similarity_edge_a_page_of_chunks_at_a_time(falkor_store):
    from kg.pipeline.corpus import similarity_edges

    ids = [f"c{n:02d}" for n in range(23)]
    falkor_store.write("upsert_chunks", [{"id": c, "doc_id": "d", "index": i, "text": c, "kind": "text"}
                                         for i, c in enumerate(ids)])
    # chunks c00-c09 have no edges (a page of them must not end the read), the others two or three
    pairs = [(a, b, round(0.5 + n / 100, 2)) for n, (a, b) in
             enumerate((ids[i], ids[(i * 7) % 23]) for i in range(10, 23))]
    pairs += [(ids[i], ids[i - 1], 0.9) for i in range(11, 23)] + [(ids[i], ids[3], 0.7) for i in range(15, 23, 2)]
    falkor_store.write("chunk_similar_chunk", [{"s": a, "d": b, "score": s, "cross_document": False}
                                               for a, b, s in pairs], key=None)
    whole = falkor_store.run_text("MATCH (a:Chunk)-[e:SIMILAR_TO]->(b:Chunk) RETURN a.id AS s, b.id AS d, "
                                  "e.score AS score")
    canon = {c: c for c in ids}
    paged = similarity_edges(falkor_store, canon, page=4)
    assert sorted(paged) == sorted((r["s"], r["d"], r["score"]) for r in whole)
    assert len(paged) == len({(a, b) for a, b, _ in pairs}) > 20
    assert all(a is canon[a] and b is canon[b] for a, b, _ in paged)  # the chunks' own strings, not copies
