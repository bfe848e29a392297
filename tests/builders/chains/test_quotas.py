"""Quotas: the diversity caps a run's chains must fit (documents, topics, bridges, evidence, tables)."""

from __future__ import annotations

from collections import Counter

from builders.chains.quotas import TABLE_TEMPLATE, Quotas, VarietyLimit
from queries.corpus_view import CorpusView, EvidenceNode


def view_of(chunks: dict[str, tuple[str, str]], tables: tuple[str, ...] = ()) -> CorpusView:
    """chunks: id -> (doc id, topic); table ids are table chunks of doc "dt"."""
    view = CorpusView()
    for cid, (doc, topic) in chunks.items():
        view.nodes[cid] = EvidenceNode(id=cid, label="Chunk", doc_id=doc, text=f"text of {cid}", topic=topic)
    for tid in tables:
        view.nodes[tid] = EvidenceNode(id=tid, label="Chunk", doc_id="dt", text="| a | b |", kind="table")
    return view


def big_and_small() -> CorpusView:
    """Document "big" holds 9 of 10 chunks, "small" one."""
    chunks = {f"b{i}": ("big", "") for i in range(9)}
    chunks["s0"] = ("small", "")
    return view_of(chunks)


def test_a_document_gets_chains_in_proportion_to_its_chunks_then_is_refused():
    view = big_and_small()
    quotas = Quotas(view, target=10)
    taken = 0
    while quotas.allows(view, ["s0"]) and taken < 50:
        quotas.take(view, ["s0"])
        taken += 1
    # 1 chunk of 10, 10 chains asked: its share (1) with the slack (x1.5, at least 2) is 2 chains.
    assert taken == 2
    assert not quotas.allows(view, ["s0"])
    # the supply of the small document is gone; the big one still has room
    assert quotas.allows(view, ["b0"])
    big = 0
    while quotas.allows(view, [f"b{big % 9}"]) and big < 50:
        quotas.take(view, [f"b{big % 9}"])
        big += 1
    assert big == 14  # ceil(1.5 * 10 * 9 / 10)


def test_a_long_chain_charges_each_document_only_its_share_of_the_hops():
    view = big_and_small()
    quotas = Quotas(view, target=10)
    # a 2-hop chain over both documents weighs 1/2 in each: four fit the small document's cap of 2
    for _ in range(4):
        assert quotas.allows(view, ["s0", "b1"])
        quotas.take(view, ["s0", "b1"])
    assert quotas.docs["small"] == 2
    assert not quotas.allows(view, ["s0", "b2"])


def test_counts_from_earlier_rounds_use_up_the_caps():
    view = big_and_small()
    assert not Quotas(view, 10, used_docs=Counter({"small": 2})).allows(view, ["s0"])
    assert Quotas(view, 10, used_docs=Counter({"small": 1})).allows(view, ["s0"])


def test_a_topic_is_capped_like_a_document():
    chunks = {f"c{i}": (f"d{i}", "t-common" if i < 2 else "t-other") for i in range(10)}
    view = view_of(chunks)
    quotas = Quotas(view, target=4)  # t-common: 2 of 10 chunks -> cap max(2, ceil(1.2)) = 2
    quotas.take(view, ["c0"])
    quotas.take(view, ["c1"])
    assert not quotas.allows(view, ["c0"])
    assert quotas.allows(view, ["c5"])
    assert not Quotas(view, 4, used_topics=Counter({"t-common": 2})).allows(view, ["c1"])


def test_one_bridge_entity_serves_a_limited_number_of_chains():
    chunks = {f"c{i}": (f"d{i}", "") for i in range(100)}
    view = view_of(chunks)
    quotas = Quotas(view, target=100)  # bridge cap max(10, 30) = 30
    for i in range(30):
        nodes = [f"c{(2 * i) % 100}", f"c{(2 * i + 1) % 100}"]
        assert quotas.allows_chain(view, nodes, ["marie curie"])
        quotas.take_chain(view, nodes, ["marie curie"])
    assert not quotas.allows_chain(view, ["c60", "c61"], ["marie curie"])
    assert quotas.allows_chain(view, ["c60", "c61"], ["pierre curie"])


def test_one_piece_of_evidence_serves_a_limited_number_of_chains():
    view = view_of({f"c{i}": ("one-doc", "") for i in range(20)})  # document cap 30: not the limit here
    quotas = Quotas(view, target=20)  # node cap max(10, 6) = 10
    for i in range(10):
        quotas.take_chain(view, ["c0", f"c{i + 1}"], [])
    assert not quotas.allows_chain(view, ["c0", "c15"], [])
    assert quotas.allows_chain(view, ["c14", "c15"], [])


def test_one_table_supplies_at_most_a_fifth_of_the_chains_asked():
    view = view_of({f"c{i}": (f"d{i}", "") for i in range(10)}, tables=("grid",))
    limit = VarietyLimit(10)  # cap floor(0.2 * 10) = 2
    for i in range(2):
        assert limit.allows(view, [f"c{i}", "grid"])
        limit.take(view, [f"c{i}", "grid"])
    assert not limit.allows(view, ["c5", "grid"])
    assert limit.allows(view, ["c5", "c6"])  # chains without the table are not touched


def test_the_table_cell_template_is_capped_and_other_questions_are_not():
    view = view_of({f"c{i}": (f"d{i}", "") for i in range(10)})
    limit = VarietyLimit(10)
    limit.take(view, ["c0"], TABLE_TEMPLATE)
    limit.take(view, ["c1"], TABLE_TEMPLATE)
    assert not limit.allows(view, ["c2"], TABLE_TEMPLATE)
    assert limit.allows(view, ["c2"])
    assert VarietyLimit(3).cap == 1  # a tiny run still gets one


def test_relaxed_quotas_keep_the_variety_limit_of_the_run():
    view = view_of({f"c{i}": (f"d{i}", "") for i in range(10)}, tables=("grid",))
    variety = VarietyLimit(10)
    first = Quotas(view, 10, variety=variety)
    first.take_chain(view, ["c0", "grid"], [])
    first.take_chain(view, ["c1", "grid"], [])
    relaxed = Quotas(view, 30, variety=variety)  # a round that came short opens the other caps
    assert relaxed.allows_chain(view, ["c2", "c3"], [])
    assert not relaxed.allows_chain(view, ["c2", "grid"], [])
