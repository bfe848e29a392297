"""The baselines over a synthetic corpus: sanity retrievers, and that each finds what it should."""

from __future__ import annotations

from evaluate.corpus import load_corpus
from evaluate.retrievers import Query, build_retrievers


def corpus_and(store, embedder, names):
    corpus = load_corpus(store)
    return corpus, build_retrievers(names, corpus, lambda: embedder)


def test_oracle_puts_every_gold_item_first(eval_store, hash_embedder):
    corpus, retrievers = corpus_and(eval_store, hash_embedder, ["oracle"])
    query = Query("r0", "anything", ["d2c3", "d1c1"])
    ranking = retrievers["oracle"].search([query], 5)[0]
    assert ranking[:2] == ["d2c3", "d1c1"] and len(ranking) == 5 and len(set(ranking)) == 5


def test_random_is_seeded_and_draws_without_repeats(eval_store, hash_embedder):
    corpus, retrievers = corpus_and(eval_store, hash_embedder, ["random"])
    queries = [Query(f"q{i}", "x") for i in range(3)]
    first = retrievers["random"].search(queries, 10)
    assert first == retrievers["random"].search(queries, 10)
    assert all(len(set(r)) == 10 for r in first) and first[0] != first[1]


def test_bm25_and_dense_find_a_chunk_by_its_own_words(eval_store, hash_embedder):
    corpus, retrievers = corpus_and(eval_store, hash_embedder, ["bm25", "dense", "hybrid", "graph"])
    text = corpus.texts[corpus.position["d3c7"]]
    for name, retriever in retrievers.items():
        assert retriever.search([Query("q", text)], 3)[0][0] == "d3c7", name


def test_images_are_searched_through_their_description(eval_store, hash_embedder):
    corpus, retrievers = corpus_and(eval_store, hash_embedder, ["bm25"])
    assert corpus.labels[corpus.position["img1"]] == "Image"
    assert retrievers["bm25"].search([Query("q", "bronze lantern")], 1)[0] == ["img1"]


def test_graph_lifts_a_unit_that_shares_an_entity_with_the_best_match(eval_store, hash_embedder):
    corpus, retrievers = corpus_and(eval_store, hash_embedder, ["dense", "graph"])
    query = [Query("q", corpus.texts[corpus.position["d1c1"]])]
    dense = retrievers["dense"].search(query, len(corpus))[0]
    graph = retrievers["graph"].search(query, len(corpus))[0]
    # d3c7 mentions the entity Lumen, as d1c1 (the top seed) does.
    assert graph.index("d3c7") < dense.index("d3c7")


def test_k_larger_than_the_corpus_returns_the_whole_corpus(eval_store, hash_embedder):
    corpus, retrievers = corpus_and(eval_store, hash_embedder, ["bm25", "dense", "random"])
    for retriever in retrievers.values():
        assert len(retriever.search([Query("q", "zorbat")], 1000)[0]) == len(corpus)
