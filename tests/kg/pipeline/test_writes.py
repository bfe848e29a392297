"""Writing parsed documents into the graph: what a batch of documents leaves in real FalkorDB, and that
a batch leaves the same graph as writing its documents one by one."""

from __future__ import annotations

import pymupdf

from kg.enrich.entities import Mention
from kg.models import Chunk, ImageRef, ParsedDocument
from kg.pipeline.writes import DocumentWrite, entity_rows_in_order, write_documents


def pdf_with_author(path) -> str:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Delta survey")
    doc.set_metadata({"title": "Delta Survey 2023", "author": "Water Board; Jane Smith"})
    doc.save(str(path))
    return path


def documents(tmp_path) -> list[DocumentWrite]:
    one = ParsedDocument(path="docs/one.md", sha256="a" * 64, title="One", pages=1, blocks=[],
                         images=[ImageRef(id="img1", path="assets/img1.png", page=1, caption="Figure 1: The bay."),
                                 ImageRef(id="img2", path="assets/img2.png", page=1)])
    two = ParsedDocument(path="docs/two.pdf", sha256="b" * 64, title="Two", pages=1, blocks=[])
    chunks_one = [Chunk("c1", "d1", 0, "North Bay is shallow.", tokens=4),
                  Chunk("c2", "d1", 1, "Figure 1: The bay.", kind="caption", label="Figure 1"),
                  Chunk("c3", "d1", 2, "See Figure 1 and the note above.", tokens=7)]
    chunks_two = [Chunk("c4", "d2", 0, "The north bay, North Bay, floods.", tokens=6)]
    bay = lambda surface, n: Mention("north bay", surface, "LOC", n, {surface: n})  # noqa: E731
    return [
        DocumentWrite(tmp_path / "one.md", one, "d1", chunks_one,
                      descriptions={"img2": {"description": "a grey square", "description_source": "vlm"}},
                      resolved=[{"source": "c3", "target": "img1", "target_kind": "image", "label": "Figure 1"},
                                {"source": "c3", "target": "c1", "target_kind": "chunk", "label": "note"}],
                      captions=[("img1", "c2")],
                      mentions=[[bay("North Bay", 1)], [], [], [], [bay("North Bay", 1)]]),  # 3 chunks, 2 images
        DocumentWrite(pdf_with_author(tmp_path / "two.pdf"), two, "d2", chunks_two, {}, [], [],
                      mentions=[[bay("north bay", 1), bay("North Bay", 1)]]),
    ]


def test_a_batch_leaves_documents_chunks_images_and_links(falkor_store, tmp_path):
    write_documents(falkor_store, documents(tmp_path))
    store = falkor_store
    docs = store.run_text("MATCH (d:Document) RETURN d.id AS id, d.ingested AS ingested, d.author AS author, "
                          "d.metadata_title AS meta ORDER BY id")
    assert [(d["id"], d["ingested"], d["author"], d["meta"]) for d in docs] == [
        ("d1", False, None, None), ("d2", False, "Water Board; Jane Smith", "Delta Survey 2023")]
    order = store.run_text("MATCH (a:Chunk)-[:NEXT]->(b:Chunk) RETURN a.id AS a, b.id AS b ORDER BY a")
    assert [(r["a"], r["b"]) for r in order] == [("c1", "c2"), ("c2", "c3")]  # never across documents
    images = {r["id"]: r for r in store.run_text(
        "MATCH (i:Image)-[:PART_OF]->(:Document {id: 'd1'}) RETURN i.id AS id, i.description AS d, "
        "i.description_source AS s")}
    assert (images["img1"]["d"], images["img1"]["s"]) == ("Figure 1: The bay.", "caption")  # no description yet
    assert (images["img2"]["d"], images["img2"]["s"]) == ("a grey square", "vlm")
    refs = store.run_text("MATCH (a:Chunk)-[e:REFERENCES]->(b) RETURN b.id AS target, e.label AS label ORDER BY target")
    assert [(r["target"], r["label"]) for r in refs] == [("c1", "note"), ("img1", "Figure 1")]
    assert store.run_text("MATCH (i:Image)-[:CAPTIONED_BY]->(c:Chunk) RETURN i.id AS i, c.id AS c") == [
        {"i": "img1", "c": "c2"}]


def test_entities_are_one_node_over_documents_and_authors_come_from_the_metadata(falkor_store, tmp_path):
    write_documents(falkor_store, documents(tmp_path))
    [bay] = falkor_store.run_text("MATCH (e:Entity {id: 'north bay'}) RETURN e.name AS name, e.aliases AS aliases")
    assert bay["name"] == "North Bay"  # the most common spelling over both documents
    mentions = falkor_store.run_text("MATCH (n)-[m:MENTIONS]->(:Entity {id: 'north bay'}) "
                                     "RETURN n.id AS n, m.count AS count ORDER BY n")
    assert [(r["n"], r["count"]) for r in mentions] == [("c1", 1), ("c4", 2), ("img2", 1)]
    authors = falkor_store.run_text("MATCH (:Document {id: 'd2'})-[m:MENTIONS]->(e:Entity {label: 'AUTHOR'}) "
                                    "RETURN e.name AS name, m.source AS source ORDER BY name")
    assert [(r["name"], r["source"]) for r in authors] == [("Jane Smith", "metadata"), ("Water Board", "metadata")]


def test_a_batch_and_one_by_one_give_the_same_graph_and_a_rewrite_adds_nothing(falkor_store, tmp_path):
    from kg.store.falkor import FalkorStore

    write_documents(falkor_store, documents(tmp_path))
    batch = falkor_store.counts()
    single = FalkorStore(tmp_path / ".single", graph="single")
    try:
        single.ensure_schema()
        for doc in documents(tmp_path):
            write_documents(single, [doc])
        assert single.counts() == batch
    finally:
        single.close()
        single.server.stop()
    write_documents(falkor_store, documents(tmp_path))
    write_documents(falkor_store, [])
    assert falkor_store.counts() == batch


def test_entity_rows_take_the_first_name_and_every_alias_in_order():
    rows = entity_rows_in_order([
        [{"id": "b", "name": "B", "label": "ORG", "aliases": ["B"]}],
        [{"id": "b", "name": "B Corp", "label": "PERSON", "aliases": ["B Corp", "B"]},
         {"id": "a", "name": "A", "label": "GPE", "aliases": []}],
    ])
    assert rows == [{"id": "a", "name": "A", "label": "GPE", "aliases": []},
                    {"id": "b", "name": "B", "label": "ORG", "aliases": ["B", "B Corp"]}]
