"""Leiden topics: determinism, planted clusters, c-TF-IDF keywords."""

from __future__ import annotations

import random

from kg.enrich.topics import ctfidf_keywords, detect_topics

DOG_WORDS = "dog puppy leash bark kennel".split()
ORBIT_WORDS = "satellite orbit rocket launch telescope".split()


def planted(n_per: int = 20, seed: int = 0):
    """Two dense clusters (intra-cluster edges) joined by one weak edge, plus one isolated chunk."""
    rng = random.Random(seed)
    ids, texts, edges = [], [], []
    for name, words in (("dog", DOG_WORDS), ("orbit", ORBIT_WORDS)):
        members = [f"{name}{i:02d}" for i in range(n_per)]
        ids += members
        texts += [" ".join(rng.choices(words, k=12)) + " the and of" for _ in members]
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if rng.random() < 0.5:
                    edges.append((a, b, 0.6 + 0.3 * rng.random()))
    edges.append(("dog00", "orbit00", 0.51))
    ids.append("lonely")
    texts.append("nothing similar here")
    return ids, texts, edges


def test_planted_two_clusters_and_keywords():
    ids, texts, edges = planted()
    result = detect_topics(ids, texts, edges, seed=42)
    real = [t for t in result.topics if not t["misc"]]
    assert len(real) == 2
    dog_topic, orbit_topic = result.membership["dog00"], result.membership["orbit00"]
    assert dog_topic != orbit_topic
    assert all(result.membership[c] == dog_topic for c in ids if c.startswith("dog"))
    assert all(result.membership[c] == orbit_topic for c in ids if c.startswith("orbit"))
    by_id = {t["id"]: t for t in result.topics}
    assert set(by_id[dog_topic]["keywords"][:5]) == set(DOG_WORDS)
    assert set(by_id[orbit_topic]["keywords"][:5]) == set(ORBIT_WORDS)
    assert not {"the", "and", "of"} & set(by_id[dog_topic]["keywords"])  # stop words
    # The isolated chunk lands in the misc topic; every chunk has a topic.
    misc = [t for t in result.topics if t["misc"]]
    assert len(misc) == 1 and result.membership["lonely"] == misc[0]["id"]
    assert set(result.membership) == set(ids)
    assert all(t["level"] == 0 and t["size"] > 0 for t in result.topics)


def test_same_seed_same_membership_and_ids():
    ids, texts, edges = planted(seed=1)
    first = detect_topics(ids, texts, edges, seed=7)
    shuffled = list(zip(ids, texts))
    random.Random(3).shuffle(shuffled)
    edges_shuffled = list(reversed(edges))
    second = detect_topics([i for i, _ in shuffled], [t for _, t in shuffled], edges_shuffled, seed=7)
    assert first.membership == second.membership
    assert [t["id"] for t in first.topics] == [t["id"] for t in second.topics]


def test_edges_given_twice_reversed_or_to_unknown_chunks_make_the_same_topics():
    """An edge seen again (either way round, with another score) counts once at its best score;
    loops and edges to chunks not in the list are left out."""
    ids, texts, edges = planted(seed=2)
    first = detect_topics(ids, texts, edges, seed=5)
    rng = random.Random(4)
    noisy = edges + [(b, a, w - 0.2) for a, b, w in rng.sample(edges, 40)]
    noisy += [("dog01", "dog01", 0.99), ("dog02", "gone", 0.9), ("gone", "orbit03", 0.9)]
    rng.shuffle(noisy)
    second = detect_topics(ids, texts, noisy, seed=5)
    assert first.membership == second.membership
    assert [(t["id"], t["keywords"]) for t in first.topics] == [(t["id"], t["keywords"]) for t in second.topics]


def test_each_pair_once_at_its_best_score_in_pair_order():
    from kg.enrich.topics import _node_edges

    index = {"a": 0, "b": 1, "c": 2}
    edges = [("c", "b", 0.6), ("b", "a", 0.5), ("a", "b", 0.7), ("a", "a", 1.0), ("c", "x", 0.9), ("b", "a", 0.6)]
    pairs, weights = _node_edges(index, edges)
    assert pairs.tolist() == [[0, 1], [1, 2]]
    assert weights.tolist() == [0.7, 0.6]
    pairs, weights = _node_edges(index, [])
    assert pairs.shape == (0, 2) and len(weights) == 0


def test_distribution_sums_to_one():
    ids, texts, edges = planted()
    dist = detect_topics(ids, texts, edges).distribution()
    assert abs(sum(dist.values()) - 1.0) < 1e-9
    assert max(dist.values()) == 20 / 41


def test_no_edges_all_misc_and_empty_input():
    result = detect_topics(["a", "b"], ["x y", "z w"], [])
    assert len(result.topics) == 1 and result.topics[0]["misc"]
    assert detect_topics([], [], []).topics == []


def test_ctfidf_prefers_class_specific_terms():
    kws = ctfidf_keywords([["common", "alpha", "alpha"], ["common", "beta", "beta"]], n_keywords=1)
    assert kws == [["alpha"], ["beta"]]


def test_markup_never_becomes_a_keyword():
    from kg.enrich.topics import tokenize
    words = tokenize("Qwen1.5-7B<br>Qwen2-7B | Col4 | models&nbsp;scores", frozenset())
    assert {"qwen2-7b", "models", "scores"} <= set(words)
    assert not {"br", "col4", "nbsp"} & set(words)


def test_the_domain_never_names_markup():
    from kg.enrich.domain import top_keywords
    assert top_keywords([["br", "models", "citations"], ["br", "col4", "retrieval"]], 3) == \
        ["models", "citations", "retrieval"]
