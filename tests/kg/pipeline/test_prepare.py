"""The text side of one document (chunks, references, entities, vectors) with the real embedding model
and spaCy: the chunk vectors kNN reads later are the ones ingest pooled, not a second model pass."""

from __future__ import annotations

import numpy as np
import pytest

from kg.enrich.embeddings import Embedder, pooled_key, text_key
from kg.enrich.entities import EntityExtractor
from kg.ingest.markdown import read_markdown
from kg.models import IngestError, ParsedDocument
from kg.pipeline.prepare import item_vectors, prepare_document
from kg.pipeline.timings import StageTimes
from testing_support import make_settings

TEXT = """# North Bay survey

The Water Board measured North Bay every spring. Its depth fell by two metres in ten years.
Sediment from the Elbe river settles in the bay. The survey boat Aurora carried the sonar.

## Results

Table 1 lists the depths per year. Maria Kovacs led the team from Hamburg.
The shallow part near the harbour silted up first, as Table 1 shows.

Table 1: Depth of North Bay per year.

| Year | Depth (m) |
|---|---|
| 2013 | 14 |
| 2023 | 12 |
"""


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    cache = tmp_path_factory.mktemp("prepare") / "embeddings.sqlite"
    return Embedder(cache_path=cache, progress=False), EntityExtractor()


def parsed(tmp_path) -> ParsedDocument:
    path = tmp_path / "bay.md"
    path.write_text(TEXT)
    return read_markdown(path, tmp_path / "assets")


def prepare(tmp_path, models, **ingest):
    embedder, extractor = models
    settings = make_settings(tmp_path / ".hopgraph", ingest={"min_tokens": 8, "max_tokens": 60, **ingest})
    times = StageTimes()
    return prepare_document(parsed(tmp_path), "doc1", settings, embedder, extractor, times), times


def test_chunks_entities_references_and_a_vector_for_every_chunk(tmp_path, models):
    prepared, times = prepare(tmp_path, models)
    chunks = prepared.chunks
    assert [c.kind for c in chunks].count("table") == 1 and len(chunks) >= 3
    assert all(c.doc_id == "doc1" for c in chunks) and [c.index for c in chunks] == list(range(len(chunks)))
    assert len(prepared.mentions) == len(chunks)
    names = {m.name for ms in prepared.mentions for m in ms}
    assert {"North Bay", "Maria Kovacs", "Hamburg"} <= names
    table = next(c for c in chunks if c.kind == "table")
    assert {(r["target"], r["label"]) for r in prepared.resolved} == {(table.id, "Table 1")}  # "Table 1" -> table
    pooled = [pooled_key(c.text) for c in chunks if c.kind == "text"]
    assert all(key in prepared.vectors for key in pooled)
    assert all(abs(np.linalg.norm(prepared.vectors[k]) - 1) < 1e-4 for k in pooled)
    assert times.to_dict()["chunk"]["items"] == len(chunks) and times.to_dict()["entities"]["items"] == len(chunks)


def test_knn_reads_the_vectors_ingest_pooled(tmp_path, models):
    embedder, _ = models
    prepared, _ = prepare(tmp_path, models)
    texts = [c for c in prepared.chunks if c.kind == "text"]
    items = [{"text": c.text, "label": "Chunk", "kind": "text"} for c in texts]
    later = item_vectors(items, embedder, semantic=True)
    for row, chunk in zip(later, texts):
        assert np.allclose(row, prepared.vectors[pooled_key(chunk.text)], atol=1e-6)
    direct = embedder.encode([c.text for c in texts])
    cosines = np.sum(later * direct, axis=1)
    assert (cosines > 0.7).all()  # a pooled vector points where the chunk's own encoding does


def test_knn_reads_the_vectors_a_block_at_a_time_each_in_its_row(tmp_path, models, monkeypatch):
    import kg.pipeline.prepare as prepare_module

    embedder, _ = models
    prepared, _ = prepare(tmp_path, models)
    items = [{"text": c.text, "label": "Chunk", "kind": c.kind} for c in prepared.chunks] * 3  # a table among them
    whole = item_vectors(items, embedder, semantic=True)
    monkeypatch.setattr(prepare_module, "_VECTOR_BLOCK", 2)
    in_blocks = item_vectors(items, embedder, semantic=True)
    assert np.array_equal(whole, in_blocks)
    for row, item in zip(in_blocks, items):
        if item["kind"] == "text":
            assert np.allclose(row, prepared.vectors[pooled_key(item["text"])], atol=1e-6)


def test_fixed_chunking_embeds_chunks_directly(tmp_path, models):
    prepared, _ = prepare(tmp_path, models, chunking="fixed", fixed_size=40, fixed_overlap=0)
    assert len(prepared.chunks) >= 3
    assert set(prepared.vectors) == {text_key(c.text) for c in prepared.chunks}  # no pooled vectors


def test_a_document_without_text_is_refused(tmp_path, models):
    embedder, extractor = models
    empty = ParsedDocument(path="empty.md", sha256="0" * 64, title="empty", pages=1, blocks=[])
    with pytest.raises(IngestError, match="no text found"):
        prepare_document(empty, "doc0", make_settings(tmp_path / ".hopgraph"), embedder, extractor, StageTimes())
