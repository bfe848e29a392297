"""Topic coverage: Jensen-Shannon divergence, evidence-to-topic mapping, doc share, topic quota."""

from __future__ import annotations

import math

import pytest

from builders.coverage import coverage, evidence_topics, js_divergence, topic_quota


# ---------------------------------------------------------------- JS divergence
def test_js_is_zero_for_identical_distributions_counts_or_shares():
    assert js_divergence({"a": 0.5, "b": 0.3, "c": 0.2}, {"a": 0.5, "b": 0.3, "c": 0.2}) == pytest.approx(0.0, abs=1e-12)
    assert js_divergence({"a": 10, "b": 6, "c": 4}, {"a": 0.5, "b": 0.3, "c": 0.2}) == pytest.approx(0.0, abs=1e-12)


def test_js_is_one_for_disjoint_supports():
    assert js_divergence({"a": 1}, {"b": 3}) == pytest.approx(1.0)


def test_js_on_a_hand_computed_case():
    # P = (1/2, 1/2), Q = (1, 0), M = (3/4, 1/4)
    # KL(P||M) = 1/2 log2((1/2)/(3/4)) + 1/2 log2((1/2)/(1/4)) = 1/2 (-0.5849625) + 1/2 (1) = 0.2075187
    # KL(Q||M) = 1 log2(1/(3/4)) = log2(4/3) = 0.4150375
    # JS = (0.2075187 + 0.4150375) / 2 = 0.3112781
    assert js_divergence({"a": 1, "b": 1}, {"a": 5}) == pytest.approx(0.3112781, abs=1e-7)
    # symmetric
    assert js_divergence({"a": 5}, {"a": 1, "b": 1}) == pytest.approx(0.3112781, abs=1e-7)


def test_js_edge_cases():
    assert js_divergence({}, {}) == 0.0
    assert js_divergence({"a": 1}, {}) == 1.0
    assert js_divergence({"a": 1, "b": 0}, {"a": 2}) == pytest.approx(0.0, abs=1e-12)


# ---------------------------------------------------------------- quota
def test_topic_quota_names_the_under_served_topics():
    corpus = {"a": 2, "b": 1, "c": 1}  # shares 1/2, 1/4, 1/4
    # 3 drawn, next is the 4th: targets a 2, b 1, c 1 -> only b is short (by 1)
    assert topic_quota(corpus, {"a": 2, "c": 1}) == {"b": pytest.approx(1.0)}
    # planned 8: targets 4, 2, 2 -> deficits a 2, b 2, c 1; ties by id
    assert list(topic_quota(corpus, {"a": 2, "c": 1}, total=8).items()) == [
        ("a", pytest.approx(2.0)), ("b", pytest.approx(2.0)), ("c", pytest.approx(1.0))]
    # nothing drawn: every topic is short of its share of one item, largest first
    assert list(topic_quota(corpus)) == ["a", "b", "c"]
    # over-served everywhere relative to a plan of 4: nothing to do
    assert topic_quota(corpus, {"a": 2, "b": 1, "c": 1}, total=4) == {}
    assert topic_quota({}, {"a": 3}) == {}


# ---------------------------------------------------------------- store
def plant(store) -> None:
    """3 documents, 6 chunks in 2 topics (tA: c1-c4, tB: c5-c6), images and keypoints, 5 chains.

    i1: captioned by c5 (tB) and referenced by c1 (tA) -> caption wins: tB
    i2: referenced by c1, c2 (tA) and c6 (tB)        -> majority: tA
    i3: no caption, no reference                        -> not counted
    k1: keypoint of chunk c6 -> tB;  k2: keypoint of image i2 -> tA
    """
    docs = {"c1": "d1", "c2": "d1", "c3": "d1", "c4": "d2", "c5": "d2", "c6": "d3"}
    store.write("upsert_documents", [{"id": d} for d in ("d1", "d2", "d3")])
    store.write("upsert_chunks", [{"id": c, "doc_id": d, "text": c} for c, d in docs.items()])
    store.write("chunk_part_of", [{"s": c, "d": d} for c, d in docs.items()], key=None)
    store.write("upsert_topics", [{"id": "tA", "keywords": ["faa"], "size": 4}, {"id": "tB", "keywords": ["cfm"], "size": 2}])
    store.write("chunk_in_topic", [{"s": c, "d": "tA" if c <= "c4" else "tB"} for c in docs], key=None)
    store.write("upsert_images", [{"id": i, "doc_id": "d1"} for i in ("i1", "i2", "i3")])
    store.write("image_captioned_by", [{"s": "i1", "d": "c5"}], key=None)
    store.write("chunk_references_image", [{"s": "c1", "d": "i1", "label": "Figure 1"},
                                           {"s": "c1", "d": "i2", "label": "Figure 2"},
                                           {"s": "c2", "d": "i2", "label": "Figure 2"},
                                           {"s": "c6", "d": "i2", "label": "Figure 2"}], key=None)
    store.write("upsert_keypoints", [{"id": "k1", "text": "fact", "modality": "text", "source_id": "c6"},
                                     {"id": "k2", "text": "fact", "modality": "image", "source_id": "i2"}])
    store.write("chunk_has_keypoint", [{"s": "c6", "d": "k1"}], key=None)
    store.write("image_has_keypoint", [{"s": "i2", "d": "k2"}], key=None)
    store.write("upsert_chains", [
        {"id": "X", "status": "accepted", "evidence_ids": ["c1", "c2"], "doc_ids": ["d1"]},
        {"id": "Y", "status": "accepted", "evidence_ids": ["c1", "i1", "k1"], "doc_ids": ["d1", "d2"]},
        {"id": "Z", "status": "accepted", "evidence_ids": ["c4", "i2", "i3", "k2"], "doc_ids": ["d2"]},
        {"id": "W", "status": "rejected", "evidence_ids": ["c6"], "doc_ids": ["d3"], "reject_reason": "shortcut"},
        {"id": "V", "status": "duplicate", "evidence_ids": ["c5"], "doc_ids": ["d3"]},
    ])


def test_evidence_maps_to_topics(falkor_store):
    plant(falkor_store)
    assert evidence_topics(falkor_store, ["c1", "c5", "i1", "i2", "i3", "k1", "k2", "nope"]) == {
        "c1": "tA", "c5": "tB", "i1": "tB", "i2": "tA", "k1": "tB", "k2": "tA"}
    assert evidence_topics(falkor_store, []) == {}


def test_coverage_on_a_planted_dataset(falkor_store):
    plant(falkor_store)
    cov = coverage(falkor_store)
    # accepted evidence: X c1 c2 -> tA tA; Y c1 i1 k1 -> tA tB tB; Z c4 i2 i3 k2 -> tA tA - tA
    # corpus P = (4, 2)/6 = (2/3, 1/3); dataset Q = (6, 2)/8 = (3/4, 1/4); M = (17/24, 7/24)
    p, q, m = (2 / 3, 1 / 3), (3 / 4, 1 / 4), (17 / 24, 7 / 24)
    expected = 0.5 * sum(p[i] * math.log2(p[i] / m[i]) + q[i] * math.log2(q[i] / m[i]) for i in range(2))
    # KL(P||M) = 2/3 log2(16/17) + 1/3 log2(8/7) = 0.0059065; KL(Q||M) = 3/4 log2(18/17) + 1/4 log2(6/7) = 0.0062485
    assert expected == pytest.approx(0.0060775, abs=1e-7)  # JS = (0.0059065 + 0.0062485) / 2
    assert cov == {
        "js_divergence": pytest.approx(expected, abs=1e-6),
        "corpus_topics": {"tA": 4, "tB": 2},
        "dataset_topics": {"tA": 6, "tB": 2},
        "doc_share": pytest.approx(2 / 3, abs=1e-6),  # d1, d2 of d1-d3 (d3 only in rejected/duplicate)
        "documents": 3,
        "documents_covered": 2,
        "evidence": 9,
        "unmapped_evidence": 1,  # i3
    }


def test_coverage_without_chains_or_topics(falkor_store):
    cov = coverage(falkor_store)
    assert cov["js_divergence"] is None and cov["doc_share"] == 0.0 and cov["dataset_topics"] == {}
