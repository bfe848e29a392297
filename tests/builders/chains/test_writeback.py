"""Write-back: what a round of generated chains leaves in the graph (real embedded FalkorDB)."""

from __future__ import annotations

import json

import pytest

from builders.chains.candidate import Candidate, Hop
from builders.chains.necessity import EmpiricalNecessity
from builders.chains.rounds import Outcome
from builders.chains.verbalize import Draft, HopText
from builders.chains.verify import ChainVerdict
from builders.chains.writeback import chain_rows, write_back
from queries.corpus_view import CorpusView, EvidenceNode, Keypoint

KP_TEXT = "The Analytical Engine was designed by Charles Babbage."
OTHER_KP = "The Analytical Engine was never completed."
CELL = {"table_id": "t1", "row_label": "Analytical Engine", "column_label": "Year", "value": "1837", "unit": ""}


def corpus(store) -> CorpusView:
    """Chunks c1 (d1), c2 and table t1 (d2), entities ada and engine, keypoint kp2 of c2, in graph and view."""
    nodes = [("c1", "d1", "Ada Lovelace wrote notes on the Analytical Engine.", "text", "t-history"),
             ("c2", "d2", KP_TEXT, "text", ""),
             ("t1", "d2", "| Machine | Year |\n|---|---|\n| Analytical Engine | 1837 |", "table", "")]
    store.write("upsert_documents", [{"id": d, "path": f"{d}.md", "title": d, "pages": 1, "sha256": d}
                                     for d in ("d1", "d2")])
    store.write("upsert_chunks", [{"id": i, "doc_id": d, "index": n, "text": t, "kind": k, "page_start": 1,
                                   "page_end": 1, "tokens": 9} for n, (i, d, t, k, _) in enumerate(nodes)])
    store.write("upsert_entities", [{"id": "ada", "name": "Ada Lovelace", "label": "PERSON", "aliases": []},
                                    {"id": "engine", "name": "Analytical Engine", "label": "PRODUCT",
                                     "aliases": []}])
    store.write("upsert_keypoints", [{"id": "kp2", "text": KP_TEXT, "modality": "text", "source_id": "c2"},
                                     {"id": "kp3", "text": OTHER_KP, "modality": "text", "source_id": "c2"}])
    view = CorpusView(domain="computing history", persona="a museum guide")
    for i, d, t, k, topic in nodes:
        view.nodes[i] = EvidenceNode(id=i, label="Chunk", doc_id=d, text=t, kind=k, topic=topic)
    view.entity_name.update({"ada": "Ada Lovelace", "engine": "Analytical Engine"})
    view.keypoints["c2"].append(Keypoint("kp2", "c2", KP_TEXT, "text", ["engine"]))
    view.keypoints["c2"].append(Keypoint("kp3", "c2", OTHER_KP, "text", ["engine"]))  # not what the hop says
    return view


def accepted_outcome() -> Outcome:
    cand = Candidate("text_chain", [Hop("c1", "Chunk", "engine", "entity"), Hop("c2", "Chunk")], [(0, 1), (1, 2)],
                     answer_entity="babbage")
    draft = Draft(cand, [HopText("What machine did Ada Lovelace write on?", "the Analytical Engine"),
                         HopText("Who designed it?", "Charles Babbage", statement=KP_TEXT)],
                  "Who designed the machine Ada Lovelace wrote notes on?", "Charles Babbage", "offline",
                  prompt_versions={"verbalize_chain": "3"})
    verdict = ChainVerdict(necessary=[True, True], method="offline")
    empirical = EmpiricalNecessity("Charles Babbage", True, ["no idea", "Babbage"], [False, True])
    return Outcome(draft, verdict, "accepted", root_id="root-1", empirical=empirical)


def rejected_table_outcome() -> Outcome:
    cand = Candidate("text_chain", [Hop("c1", "Chunk", "engine", "entity"), Hop("t1", "Chunk")], [(0, 1), (1, 2)],
                     meta={"table_cell": CELL})
    draft = Draft(cand, [HopText("What machine?", "the Analytical Engine")],  # the writer gave one hop only
                  "In what year was the machine Ada wrote on designed?", "1837", "offline")
    verdict = ChainVerdict(necessary=[True, False], no_shortcut=False, method="llm", reasons=["hop 1 alone"])
    return Outcome(draft, verdict, "rejected", reason="shortcut")


@pytest.fixture
def written(falkor_store):
    view = corpus(falkor_store)
    write_back(falkor_store, view, [accepted_outcome(), rejected_table_outcome()], seq_start=7)
    return falkor_store, view


def test_chains_are_stored_with_status_order_and_provenance(written):
    store, _ = written
    rows = {r["id"]: r for r in store.run_text(
        "MATCH (c:Chain) RETURN c.id AS id, c.seq AS seq, c.status AS status, c.reject_reason AS reason, "
        "c.doc_ids AS docs, c.topic_ids AS topics, c.bridge_names AS bridges, c.domain AS domain, "
        "c.prompt_versions AS pv, c.right_with_all_evidence AS right, c.table_hops AS table_hops")}
    rejected_id = rejected_table_outcome().draft.candidate.id
    assert set(rows) == {"root-1", rejected_id}  # a chain is stored under the id it was sampled with
    acc, rej = rows["root-1"], rows[rejected_id]
    assert (acc["seq"], acc["status"], rej["seq"], rej["status"], rej["reason"]) == (7, "accepted", 8, "rejected",
                                                                                     "shortcut")
    assert acc["docs"] == ["d1", "d2"] and acc["topics"] == ["t-history"]
    assert acc["bridges"] == ["Analytical Engine"] and acc["domain"] == "computing history"
    assert json.loads(acc["pv"]) == {"verbalize_chain": "3"}
    assert acc["right"] is True and acc["table_hops"] == 0 and rej["table_hops"] == 1


def test_hops_carry_their_necessity_and_the_evidence_edges_exist(written):
    store, _ = written
    hops = {r["id"]: r for r in store.run_text(
        "MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)-[:USES]->(e:Chunk) RETURN h.id AS id, h.necessary AS necessary, "
        "h.necessity_method AS method, h.answer_without AS without, h.sub_question AS q, e.id AS evidence")}
    rejected_id = rejected_table_outcome().draft.candidate.id
    assert hops["root-1:0"]["evidence"] == "c1" and hops["root-1:1"]["evidence"] == "c2"
    assert hops["root-1:0"]["method"] == "empirical" and hops["root-1:0"]["without"] == "no idea"
    assert hops[f"{rejected_id}:1"]["necessary"] is False and hops[f"{rejected_id}:1"]["method"] == "judge"
    assert hops[f"{rejected_id}:1"]["q"] == ""  # a hop the writer left out is stored empty, not dropped
    bridged = store.run_text("MATCH (h:Hop)-[:BRIDGES]->(e:Entity) RETURN h.id AS hop, e.id AS entity ORDER BY hop")
    assert [(r["hop"], r["entity"]) for r in bridged] == sorted([("root-1:0", "engine"), (f"{rejected_id}:0",
                                                                                          "engine")])


def test_the_keypoint_a_hop_was_built_on_is_linked(written):
    store, _ = written
    rows = store.run_text("MATCH (h:Hop)-[:USES]->(k:Keypoint) RETURN h.id AS hop, k.id AS kp")
    assert [(r["hop"], r["kp"]) for r in rows] == [("root-1:1", "kp2")]


def test_a_table_hop_keeps_its_cell(written):
    store, _ = written
    rejected_id = rejected_table_outcome().draft.candidate.id
    row = store.run_text("MATCH (h:Hop {id: $id}) RETURN h.table_cell AS cell, h.table_row AS row",
                         {"id": f"{rejected_id}:1"})[0]
    assert row["row"] == "Analytical Engine"
    assert json.loads(row["cell"]) == {"row_label": "Analytical Engine", "column_label": "Year", "value": "1837",
                                       "unit": ""}


def test_writing_the_same_round_again_adds_nothing(written):
    store, view = written
    before = store.counts()
    write_back(store, view, [accepted_outcome(), rejected_table_outcome()], seq_start=7)
    assert store.counts() == before
    write_back(store, view, [], seq_start=9)  # an empty round writes nothing and does not fail
    assert store.counts() == before


def test_a_fork_lists_its_shared_bridge_once():
    view = CorpusView()
    for i in ("a", "b", "c"):
        view.nodes[i] = EvidenceNode(id=i, label="Chunk", doc_id="d", text=i)
    cand = Candidate("fork", [Hop("a", "Chunk", "x", "entity"), Hop("b", "Chunk", "x", "entity"), Hop("c", "Chunk")],
                     [(0, 2), (1, 2), (2, 3)])
    outcome = Outcome(Draft(cand, [], "q?", "a", "offline"), None, "rejected", reason="failed to verbalize")
    rows = chain_rows(view, outcome, 0)
    assert rows["chain"][0]["bridge_entities"] == ["x"]
    assert len(rows["bridges"]) == 2  # each hop still bridges
    assert not any(h["necessity_checked"] for h in rows["hops"])  # no verdict: nothing was checked


def test_a_figure_hop_is_stored_as_a_figure_value_not_a_table_cell(falkor_store):
    """A chain that ends in the value a chart prints at a label (figure_walk.py) keeps that label and
    value as the hop's figure_value; the chain counts a figure hop and no table hop, and stats agree.
    A strict fork keeps its computed comparison on the Chain."""
    from builders.stats import quality_figures

    view = corpus(falkor_store)
    view.nodes["fig"] = EvidenceNode(id="fig", label="Image", doc_id="d2", text="chart",
                                     caption="Fig. 2: Years the machines were designed.")
    cell = {**CELL, "table_id": "fig", "column_label": "value printed in Fig"}
    cand = Candidate("text_initiated_chain", [Hop("c1", "Chunk", "engine", "entity"), Hop("fig", "Image")],
                     [(0, 1), (1, 2)], meta={"table_cell": cell, "fork": {"operation": "larger", "answer": "x",
                                                                         "parts": []}})
    draft = Draft(cand, [HopText("What machine?", "the Analytical Engine"), HopText("What year?", "1837")],
                  "In what year was the machine Ada wrote on designed, per the chart?", "1837", "offline")
    outcome = Outcome(draft, ChainVerdict(necessary=[True, True], method="offline"), "accepted")
    rows = chain_rows(view, outcome, 1)
    chain, last = rows["chain"][0], rows["hops"][1]
    assert (chain["table_hops"], chain["figure_hops"]) == (0, 1) and "table_cell" not in last
    assert json.loads(last["figure_value"]) == {"label": "Analytical Engine", "value": "1837", "figure": "Fig. 2"}
    assert json.loads(chain["fork"])["answer"] == "x"
    write_back(falkor_store, view, [outcome], seq_start=1)
    quality = quality_figures(falkor_store)
    assert (quality["table_hops"], quality["figure_hops"]) == (0, 1)


def test_a_cell_read_across_is_stored_as_printed(falkor_store):
    """Read across (tables.TableIndex `across`), a cell's row_label is the model, a printed column
    header; the hop's table_cell names the printed row (the benchmark) and column (the model), as the
    export's schema promises, and table_row stays the bridge's name. Metadata written before the
    field existed reads as a cell by rows."""
    from builders.chains.tables import TableCell

    view = corpus(falkor_store)
    cell = {**CELL, "row_label": "Analytical Engine", "column_label": "Year", "across": True}
    cand = Candidate("text_chain", [Hop("c1", "Chunk", "engine", "entity"), Hop(CELL["table_id"], "Chunk")],
                     [(0, 1), (1, 2)], meta={"table_cell": cell})
    draft = Draft(cand, [HopText("What machine?", "the Analytical Engine"), HopText("What year?", "1837")],
                  "In what year was the machine Ada wrote on designed?", "1837", "offline")
    last = chain_rows(view, Outcome(draft, ChainVerdict(necessary=[True, True], method="offline"), "accepted"),
                      1)["hops"][1]
    assert last["table_row"] == "Analytical Engine"
    assert json.loads(last["table_cell"])["row_label"] == "Year"
    assert json.loads(last["table_cell"])["column_label"] == "Analytical Engine"
    assert TableCell.from_meta({"table_cell": CELL}).across is False
