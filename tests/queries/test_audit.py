"""The Cypher audits: a small hand-built graph that passes every audit, then one
planted violation per test, which must trip exactly one audit for exactly one chain."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kg.store import named_queries
from queries.audit import audit_names, audit_rows, explain_chain, run_audits

AUDITS = {"broken_bridge", "shortcut", "redundant_hop", "failed_necessity", "type_mismatch",
          "dangling_evidence", "accepted_duplicate"}
HOPGRAPH = str(Path(sys.executable).parent / "hopgraph")


# ---------------------------------------------------------------- the clean graph
from graph_fixtures import _chain, _edges, build_clean_graph  # noqa: E402


ACCEPTED = ["ch_text", "ch_img", "ch_tinit", "ch_multi", "ch_fork", "ch_kp"]


@pytest.fixture
def graph(falkor_store):
    build_clean_graph(falkor_store)
    return falkor_store


def fired(store) -> dict[str, set[str]]:
    """audit -> the chain ids it reports (only audits with rows)."""
    out = {}
    for name, rows in audit_rows(store).items():
        if rows:
            out[name] = {r["chain_id"] for r in rows}
    return out


# ---------------------------------------------------------------- shape of the audits
def test_every_audit_is_shipped_with_a_description():
    assert set(audit_names()) == AUDITS
    for name in AUDITS:
        q = named_queries.get(f"audits/{name}")
        assert len(q.description) > 80, f"{name}: the comment block should say what it checks and why"
        assert "chain_id" in q.text and "reason" in q.text


def test_the_clean_graph_passes_every_audit(graph):
    assert fired(graph) == {}
    report = run_audits(graph)
    assert report.failed is False
    assert {a.audit for a in report.audits} == AUDITS
    for a in report.audits:
        assert a.violations == 0 and a.accepted_violations == 0 and a.examples == []


def test_audits_on_an_empty_store(falkor_store):
    report = run_audits(falkor_store)
    assert report.failed is False
    assert all(a.violations == 0 for a in report.audits)


# ---------------------------------------------------------------- one planted violation each
def plant_and_check(store, cypher: str, audit: str, chain_id: str) -> dict:
    store.run_text(cypher)
    assert fired(store) == {audit: {chain_id}}
    report = run_audits(store)
    row = next(a for a in report.audits if a.audit == audit)
    assert row.violations == 1 and row.examples == [chain_id]
    for other in report.audits:
        if other.audit != audit:
            assert other.violations == 0
    return report


def test_broken_bridge_entity_missing_from_the_evidence(graph):
    # i2 (hop 0 of ch_fork) never mentions London
    report = plant_and_check(graph, """
        MATCH (h:Hop {id: 'ch_fork:0'}), (e:Entity {id: 'london'}) MERGE (h)-[:BRIDGES]->(e)""",
                             "broken_bridge", "ch_fork")
    assert report.failed is True
    reason = graph.run("audits/broken_bridge")[0]["reason"]
    assert "london" in reason and "hop 0" in reason


def test_broken_bridge_when_the_next_hop_loses_the_mention(graph):
    # c4 carries the museum into hop 1 of ch_img; without it the bridge leads nowhere
    graph.run_text("MATCH (c:Chunk {id: 'c4'})-[m:MENTIONS]->(:Entity {id: 'museum'}) DELETE m")
    assert fired(graph) == {"broken_bridge": {"ch_img", "ch_multi"}}


def test_broken_bridge_on_the_last_hop(graph):
    report = plant_and_check(graph, """
        MATCH (h:Hop {id: 'ch_text:1'}), (e:Entity {id: 'engine'}) MERGE (h)-[:BRIDGES]->(e)""",
                             "broken_bridge", "ch_text")
    assert report.failed is True
    assert "no hop 2" in graph.run("audits/broken_bridge")[0]["reason"]


def test_fork_join_bridge_must_be_shared(graph):
    # the text branch of ch_fork bridges Babbage into the join; i2 (the image
    # branch) must mention him too
    graph.run_text("MATCH (:Image {id: 'i2'})-[m:MENTIONS]->(:Entity {id: 'babbage'}) DELETE m")
    found = fired(graph)
    assert set(found) == {"broken_bridge"} and "ch_fork" in found["broken_bridge"]
    reasons = [r["reason"] for r in graph.run("audits/broken_bridge") if r["chain_id"] == "ch_fork"]
    assert reasons == ["bridge babbage is not mentioned by the evidence of hop 0"]


def test_image_bridges_count_caption_mentions(graph):
    # without its caption, i1 mentions nothing: the museum bridge of ch_img breaks
    graph.run_text("MATCH (:Image {id: 'i1'})-[r:CAPTIONED_BY]->() DELETE r")
    assert fired(graph) == {"broken_bridge": {"ch_img", "ch_multi"}}


def test_shortcut_first_evidence_already_names_the_answer(graph):
    # hop 0 of ch_text now reads a chunk that names both the bridge and the answer
    graph.write("upsert_chunks", [{"id": "c6", "doc_id": "d1", "index": 3, "kind": "text",
                                   "text": "Babbage's Analytical Engine."}])
    graph.write("chunk_mentions", _edges([("c6", "babbage"), ("c6", "engine")], count=1), key=None)
    report = plant_and_check(graph, """
        MATCH (h:Hop {id: 'ch_text:0'})-[u:USES]->(:Chunk {id: 'c1'}) DELETE u
        WITH DISTINCT h MATCH (c:Chunk {id: 'c6'}) MERGE (h)-[:USES]->(c) SET h.evidence_id = 'c6'""",
                             "shortcut", "ch_text")
    assert report.failed is True
    assert "c6" in graph.run("audits/shortcut")[0]["reason"]


def test_shortcut_through_an_image_caption(graph):
    # the caption of i1 now also names London: i1 is a non-final hop of both
    # ch_img (bridge museum, answer london) and ch_multi (bridges babbage, museum)
    graph.run_text("""MATCH (c:Chunk {id: 'cap1'}), (e:Entity {id: 'london'})
                      MERGE (c)-[:MENTIONS {count: 1}]->(e)""")
    assert fired(graph) == {"shortcut": {"ch_img", "ch_multi"}}
    assert run_audits(graph).failed is True


def test_shortcut_in_a_rejected_chain_does_not_fail_the_run(graph):
    report = plant_and_check(graph, """
        MATCH (c:Chunk {id: 'c5'}), (e:Entity {id: 'babbage'}) MERGE (c)-[:MENTIONS {count: 1}]->(e)""",
                             "shortcut", "ch_rej")
    assert report.failed is False
    assert next(a for a in report.audits if a.audit == "shortcut").accepted_violations == 0


def test_redundant_hop_same_evidence_twice(graph):
    report = plant_and_check(graph, """
        MATCH (h:Hop {id: 'ch_text:1'}), (c:Chunk {id: 'c1'}) MERGE (h)-[:USES]->(c)""",
                             "redundant_hop", "ch_text")
    assert report.failed is True
    assert "both use c1" in graph.run("audits/redundant_hop")[0]["reason"]


def test_redundant_hop_near_identical_evidence(graph):
    # SIMILAR_TO is matched in either direction; 0.95 >= 0.92
    plant_and_check(graph, """
        MATCH (c:Chunk {id: 'c1'}), (i:Image {id: 'i2'}) MERGE (c)-[:SIMILAR_TO {score: 0.95, cross_document: false}]->(i)""",
                    "redundant_hop", "ch_fork")


def test_similarity_below_the_threshold_is_not_redundant(graph):
    graph.run_text("""MATCH (c:Chunk {id: 'c1'}), (i:Image {id: 'i2'})
                      MERGE (c)-[:SIMILAR_TO {score: 0.91, cross_document: false}]->(i)""")
    assert fired(graph) == {}


def test_failed_necessity_in_an_accepted_chain(graph):
    report = plant_and_check(graph, "MATCH (h:Hop {id: 'ch_img:1'}) SET h.necessary = false",
                             "failed_necessity", "ch_img")
    assert report.failed is True


def test_unchecked_necessity_is_not_a_failure(graph):
    graph.run_text("MATCH (h:Hop {id: 'ch_img:1'}) SET h.necessary = false, h.necessity_checked = false")
    assert fired(graph) == {}


@pytest.mark.parametrize("chain_id,graph_type,needle", [
    ("ch_text", "image_initiated_chain", "first hop"),
    ("ch_text", "text_initiated_chain", "last hop"),
    ("ch_fork", "multi_image_fork", "1 distinct"),
    ("ch_fork", "text_chain", "text_chain using 1"),
    ("ch_text", "parallel_visual_textual_fork", "both"),
    ("ch_text", "tree_chain", "unknown graph_type"),
])
def test_type_mismatch(graph, chain_id, graph_type, needle):
    report = plant_and_check(graph, f"MATCH (c:Chain {{id: '{chain_id}'}}) SET c.graph_type = '{graph_type}'",
                             "type_mismatch", chain_id)
    assert report.failed is True
    assert needle in graph.run("audits/type_mismatch")[0]["reason"]


def test_dangling_evidence_id_without_a_uses_edge(graph):
    report = plant_and_check(graph, "MATCH (h:Hop {id: 'ch_img:1'}) SET h.evidence_id = 'chunk-that-was-deleted'",
                             "dangling_evidence", "ch_img")
    assert report.failed is True


def test_dangling_evidence_hop_count_differs(graph):
    plant_and_check(graph, "MATCH (c:Chain {id: 'ch_tinit'}) SET c.hops = 3", "dangling_evidence", "ch_tinit")


def test_accepted_chain_with_duplicate_of(graph):
    report = plant_and_check(graph, """
        MATCH (a:Chain {id: 'ch_kp'}), (b:Chain {id: 'ch_fork'}) MERGE (a)-[:DUPLICATE_OF {score: 0.9, method: 'x'}]->(b)""",
                             "accepted_duplicate", "ch_kp")
    assert report.failed is True


def test_duplicate_without_duplicate_of(graph):
    report = plant_and_check(graph, "MATCH (:Chain {id: 'ch_dup'})-[r:DUPLICATE_OF]->() DELETE r",
                             "accepted_duplicate", "ch_dup")
    assert report.failed is False  # ch_dup is not accepted


def test_examples_put_accepted_chains_first_and_stop_at_five(graph):
    # every chain claims one hop more than it has
    graph.run_text("MATCH (c:Chain) SET c.hops = c.hops + 1")
    row = next(a for a in run_audits(graph).audits if a.audit == "dangling_evidence")
    assert row.violations == 8 and row.accepted_violations == 6
    assert row.examples == sorted(ACCEPTED)[:5]


# ---------------------------------------------------------------- explain
def test_explain_a_clean_chain(graph):
    info = explain_chain(graph, "ch_img")
    assert info["chain"]["id"] == "ch_img" and info["chain"]["graph_type"] == "image_initiated_chain"
    assert [h["index"] for h in info["hops"]] == [0, 1]
    first, last = info["hops"]
    assert first["evidence"] == [{"id": "i1", "label": "Image", "doc_id": "d2", "doc_path": "docs/museum.pdf",
                                  "page": 2, "image_path": "assets/i1.png",
                                  "snippet": "Figure 1: the Difference Engine"}]
    assert first["bridges"] == [{"id": "museum", "name": "Science Museum"}]
    assert last["evidence"][0]["snippet"] == "The Science Museum is in London."
    assert last["evidence"][0]["label"] == "Chunk" and last["bridges"] == []
    assert info["bridges"] == [{"id": "museum", "name": "Science Museum", "from_hop": 0}]
    assert info["audits_failed"] == []
    assert info["duplicate_of"] == []
    json.dumps(info)  # the CLI prints it as JSON


def test_explain_keypoint_evidence_reaches_its_document(graph):
    info = explain_chain(graph, "ch_kp")
    ev = info["hops"][0]["evidence"][0]
    assert ev["label"] == "Keypoint" and ev["doc_path"] == "docs/engines.md"


def test_explain_lists_the_audits_a_chain_fails(graph):
    graph.run_text("MATCH (c:Chain {id: 'ch_dup'}) SET c.hops = 5")
    info = explain_chain(graph, "ch_dup")
    assert info["duplicate_of"] == ["ch_text"]
    assert [a["audit"] for a in info["audits_failed"]] == ["dangling_evidence"]
    assert "hops = 5" in info["audits_failed"][0]["reason"]


def test_explain_an_unknown_chain(graph):
    assert explain_chain(graph, "no-such-chain") is None


# ---------------------------------------------------------------- the CLI
def test_cli_audit_exit_codes(graph):
    env = {**os.environ, "HOPGRAPH_STORE__GRAPH": "test"}
    data_dir = str(graph.server.data_dir)

    def audit(*args):
        return subprocess.run([HOPGRAPH, "--data-dir", data_dir, "audit", *args], capture_output=True,
                              text=True, env=env, timeout=120, cwd=graph.server.data_dir.parent)

    clean = audit("--json")
    assert clean.returncode == 0, clean.stderr
    assert json.loads(clean.stdout)["failed"] is False
    graph.run_text("MATCH (h:Hop {id: 'ch_img:1'}) SET h.necessary = false")
    dirty = audit("--json")
    assert dirty.returncode == 1, dirty.stderr
    report = json.loads(dirty.stdout)
    assert report["failed"] is True  # the JSON a user's CI reads
    assert {a["audit"]: a["examples"] for a in report["audits"]}["failed_necessity"] == ["ch_img"]
    assert audit().returncode == 1  # the table view exits the same way
    explained = audit("--explain", "ch_img")
    assert explained.returncode == 0
    assert json.loads(explained.stdout)["audits_failed"][0]["audit"] == "failed_necessity"


# ---------------------------------------------------------------- a strict fork of two rivals, as written back
def _rival_fork_store(store, fork: dict | None, image_mentions: bool = True):
    """A figure of PEGASUS's ROUGE-1 and a paragraph giving PRIMERA's, written back the way a strict
    run writes a rival fork (each branch bridges its own subject; builders/chains/fork_walk.py)."""
    from builders.chains.candidate import Candidate, Hop
    from builders.chains.rounds import Outcome
    from builders.chains.verbalize import Draft, HopText
    from builders.chains.verify import ChainVerdict
    from builders.chains.writeback import write_back
    from queries.corpus_view import CorpusView, EvidenceNode

    store.write("upsert_documents", [{"id": "d", "path": "d.pdf", "title": "d", "pages": 1, "sha256": "d"}])
    store.write("upsert_chunks", [{"id": "c", "doc_id": "d", "index": 0, "text": "PRIMERA reaches 46.1 ROUGE-1.",
                                   "kind": "text", "page_start": 1, "page_end": 1, "tokens": 6}])
    store.write("upsert_images", [{"id": "i", "doc_id": "d", "caption": "Fig. 3: ROUGE-1 of PEGASUS (44.7)."}])
    store.write("upsert_entities", [{"id": e, "name": e.upper(), "label": "ORG", "aliases": []}
                                    for e in ("pegasus", "primera")])
    store.write("chunk_mentions", [{"s": "c", "d": "primera", "count": 1}], key=None)
    if image_mentions:
        store.write("image_mentions", [{"s": "i", "d": "pegasus", "count": 1}], key=None)
    view = CorpusView()
    view.nodes["c"] = EvidenceNode(id="c", label="Chunk", doc_id="d", text="PRIMERA reaches 46.1 ROUGE-1.")
    view.nodes["i"] = EvidenceNode(id="i", label="Image", doc_id="d", text="", caption="Fig. 3: ROUGE-1.")
    cand = Candidate("parallel_visual_textual_fork", [Hop("i", "Image", "pegasus", "entity"),
                                                      Hop("c", "Chunk", "primera", "entity")],
                     [(0, 2), (1, 2)], meta={"fork": fork} if fork else {})
    draft = Draft(cand, [HopText("ROUGE-1 of PEGASUS?", "44.7"), HopText("ROUGE-1 of PRIMERA?", "46.1")],
                  "Which scores higher on ROUGE-1, PEGASUS or PRIMERA?", "PRIMERA", "offline")
    outcome = Outcome(draft, ChainVerdict(necessary=[True, True], method="offline"), "accepted", root_id="rival")
    write_back(store, view, [outcome], seq_start=0)


RIVALS = {"operation": "larger", "answer": "PRIMERA",
          "parts": [{"hop": 0, "subject": "PEGASUS", "value": "44.7"}, {"hop": 1, "subject": "PRIMERA", "value": "46.1"}]}


def test_a_strict_rival_fork_passes_the_audit_verb(falkor_store):
    """Writeback gives each branch of a rival fork its own subject as bridge; the audit verb accepts it."""
    _rival_fork_store(falkor_store, RIVALS)
    env = {**os.environ, "HOPGRAPH_STORE__GRAPH": "test"}
    done = subprocess.run([HOPGRAPH, "--data-dir", str(falkor_store.server.data_dir), "audit", "--json"],
                          capture_output=True, text=True, env=env, timeout=120,
                          cwd=falkor_store.server.data_dir.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["failed"] is False


def test_a_rival_fork_branch_must_still_mention_its_own_subject(falkor_store):
    _rival_fork_store(falkor_store, RIVALS)
    falkor_store.run_text("MATCH (:Chunk {id: 'c'})-[m:MENTIONS]->(:Entity {id: 'primera'}) DELETE m")
    assert [r["reason"] for r in falkor_store.run("audits/broken_bridge")] == \
        ["bridge primera is not mentioned by the evidence of hop 1"]


def test_the_same_shape_without_a_computed_comparison_is_a_broken_bridge(falkor_store):
    _rival_fork_store(falkor_store, None)  # no meta["fork"]: two questions glued by "and"
    assert fired(falkor_store) == {"broken_bridge": {"rival"}}


def test_a_fork_branch_on_a_label_only_the_figure_prints_passes(falkor_store):
    """A figure prints PEGASUS at a bar that entity extraction never saw (no MENTIONS): the hop keeps
    the label it was read at, and the audit takes it as the mention."""
    _rival_fork_store(falkor_store, RIVALS, image_mentions=False)
    assert falkor_store.run_text("MATCH (h:Hop {id: 'rival:0'}) RETURN h.table_row AS row")[0]["row"] == "PEGASUS"
    assert fired(falkor_store) == {}
