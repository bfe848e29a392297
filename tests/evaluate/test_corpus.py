"""Evidence units from the graph, and mapping a record's evidence onto them."""

from __future__ import annotations

from evaluate.corpus import adjacency, load_corpus, resolve
from evaluate.records import parse_record


def test_units_are_chunks_and_images_with_their_text(eval_store):
    corpus = load_corpus(eval_store)
    assert corpus.labels.count("Chunk") == 48 and corpus.labels.count("Image") == 2
    assert corpus.texts[corpus.position["img2"]] == "Figure 2: valley map"  # no description: the caption


def test_expansion_edges_cover_entities_and_captions(eval_store):
    corpus = load_corpus(eval_store)
    links = adjacency(corpus)
    assert links[corpus.position["d1c1"], corpus.position["d3c7"]] > 0  # both mention Lumen
    assert links[corpus.position["img1"], corpus.position["d1c2"]] == 1.0  # caption


def test_evidence_by_document_path_maps_to_that_documents_chunks(eval_store):
    corpus = load_corpus(eval_store)
    record = parse_record({"id": "h", "question": "q", "subqa_chain": [
        {"evidence": {"path": "/elsewhere/quellin.txt", "title": "Quellin Valley"}},
        {"evidence": {"title": "Marnex Engines"}}]})
    resolution = resolve([record], corpus)
    assert resolution.scored and set(record.hops[0].gold_ids) == {f"d2c{i}" for i in range(12)}


def test_records_with_evidence_outside_the_graph_are_reported_not_scored(eval_store):
    corpus = load_corpus(eval_store)
    good = parse_record({"id": "ok", "question": "q", "subqa_chain": [{"supporting_fact_id": "d1c1"}]})
    bad = parse_record({"id": "bad", "question": "q", "subqa_chain": [{"supporting_fact_id": "d1c1"},
                                                                     {"supporting_fact_id": "ghost"}]})
    resolution = resolve([good, bad], corpus)
    assert [r.id for r in resolution.scored] == ["ok"]
    assert resolution.unresolved == [{"id": "bad", "missing": ["ghost"]}]
