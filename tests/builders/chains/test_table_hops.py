"""Table hops (issue 12, item 2): a text chain may end in one cell of a table
whose row its last bridge names; the answer is that cell, never markdown.

On the synthetic corpus (tests/builders/chains/synthetic.py): the "gulfs"
table has a row "Gulf of Riga", the entity c3 carries on, so c2 -> c3 ->
gulfs is a 3-hop chain ending in a cell; "species" names no chain entity.
Everything runs against the real embedded FalkorDB store.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from tests.builders.chains.synthetic import TABLES, build_synthetic_corpus
from testing_support import make_settings
from kg.context import RunContext

MARKDOWN = re.compile(r"\||\*\*|<br|__")


class Quiet:
    def print(self, *args, **kwargs):
        pass


@pytest.fixture
def store(falkor_store):
    build_synthetic_corpus(falkor_store)
    return falkor_store


@pytest.fixture
def view(store):
    from queries.corpus_view import load_corpus_view

    return load_corpus_view(store)


def _walker(view, table_share=1.0, seed=3, min_hops=3):
    from builders.chains.generate import make_walker
    from kg.config import Settings

    settings = Settings()
    settings.generate.min_hops = min_hops
    settings.generate.table_share = table_share
    return make_walker(view, settings, random.Random(seed))


def _table_candidates(walker, tries=80):
    found = {}
    for _ in range(tries):
        cand = walker.sample("text_chain")
        if cand is not None and cand.table_cell is not None:
            found[cand.id] = cand
    return list(found.values())


def test_a_text_chain_ends_in_a_cell_of_the_row_its_bridge_names(view):
    walker = _walker(view)
    cands = _table_candidates(walker)
    assert cands, "the synthetic corpus holds c2 -> c3 -> gulfs; the walker found no table ending"
    for cand in cands:
        cell = cand.table_cell
        assert cand.hops[-1].node_id == cell.table_id
        if cell.table_id == "tab":
            assert (cand.hops[-2].bridge, cell.row_label, cell.column_label) == (
                "aurora research vessel", "Aurora Research Vessel", "Operator")
            continue
        assert cell.table_id == "gulfs"
        assert cand.hops[-2].bridge == "gulf of riga" and cell.row_label == "Gulf of Riga"
        assert cell.column_label in ("Area (km2)", "Max depth (m)", "Survey budget")
        assert not MARKDOWN.search(cell.value) and cell.value.strip()
        assert len(cand.hops) >= 3 and not TABLES & set(cand.node_ids[:-1])
    # One candidate per cell: the same hops with another cell are another chain.
    assert len({c.id for c in cands}) == len({(tuple(c.node_ids), c.table_cell.column_label) for c in cands})


def test_tables_whose_rows_name_no_chain_entity_are_never_used(view):
    walker = _walker(view)
    assert walker.table_walk.tables.rows_of_entity and not any(t == "species" for rows in walker.table_walk.tables.rows_of_entity.values()
                                                    for t, _row in rows)
    used = set()
    for _ in range(120):
        cand = walker.sample("text_chain")
        if cand is None:
            continue
        assert "species" not in cand.node_ids
        if cand.node_ids[-1] == "tab":
            # Its one cell ends a chain only when no earlier hop says it.
            assert not any("Helsinki Marine Institute" in view.nodes[n].text for n in cand.node_ids[:-1])
        used.add(cand.node_ids[-1])
    assert {"gulfs", "tab"} <= used


def test_table_share_zero_keeps_chains_in_text(view):
    walker = _walker(view, table_share=0.0)
    assert not _table_candidates(walker)


def test_a_table_chain_verbalizes_to_one_clean_cell_and_passes_verification(view):
    from builders.chains.verbalize import OfflineVerbalizer
    from builders.chains.verify import offline_verify

    walker = _walker(view)
    verbalizer = OfflineVerbalizer(view, walker.statements)
    cands = [c for c in _table_candidates(walker) if c.table_cell.table_id == "gulfs"]
    assert cands
    for cand in cands:
        cell = cand.table_cell
        draft = verbalizer.verbalize(cand)
        assert not draft.error, draft.error
        letter = "ABCDEFGH"[len(cand.hops) - 2]
        # The final question asks for the column about the previous letter, in the table's caption.
        assert f"the {cell.column_label} of {letter} in \"Table 2: Gulfs of the eastern Baltic\"?" in draft.question
        assert "Gulf of Riga" not in draft.question and "___" not in draft.question
        sub = draft.hops[-1].sub_question
        assert sub.startswith('According to "Table 2: Gulfs of the eastern Baltic" of "Seas and councils": ')
        assert f"the {cell.column_label} of Gulf of Riga?" in sub
        assert draft.answer == draft.hops[-1].answer
        assert not MARKDOWN.search(draft.answer) and not MARKDOWN.search(draft.question)
        expected = {"Area (km2)": "18,100", "Max depth (m)": "60", "Survey budget": "$22,439"}[cell.column_label]
        assert draft.answer == expected
        if cell.column_label == "Survey budget":  # money asks "how much"
            assert sub.endswith(": how much is the Survey budget of Gulf of Riga?")
        verdict = offline_verify(view, walker.statements, draft)
        assert verdict.passed, (verdict.first_failure(), verdict.reasons, draft.question)
        assert all(verdict.necessary)


def test_a_row_or_column_label_with_a_footnote_mark_carries_without_it(view):
    """q60: BlackRock's column "Average AUM(2)" (footnote 2) was the bridge, the next sub-question asked
    for "the Average AUM for Currency and commodities", and navigation rejected the chain the strict
    verifier had found to need both hops."""
    import dataclasses

    from builders.chains.verbalize import OfflineVerbalizer
    from builders.chains.verify import navigation_ok

    walker = _walker(view)
    cand = next(c for c in _table_candidates(walker) if c.table_cell.table_id == "gulfs")
    draft = OfflineVerbalizer(view, walker.statements).verbalize(cand)
    cand.hops[-2].bridge = "ent:no-such-entity"  # only the row label can carry the chain now
    label = cand.table_cell.row_label
    assert navigation_ok(view, draft)
    for marked in (f"{label}(2)", f"{label}(2", f"{label} (1)"):
        cand.meta["table_cell"] = dataclasses.replace(cand.table_cell, row_label=marked).to_meta()
        draft.hops[-2].answer = marked  # the writer's answer to hop 0, as printed
        assert navigation_ok(view, draft), marked
    draft.hops[-1].sub_question = draft.hops[-1].sub_question.replace(label, "it")
    assert not navigation_ok(view, draft)


def test_a_cell_an_earlier_hop_already_names_is_rejected(view):
    from builders.chains.candidate import Candidate
    from builders.chains.verbalize import OfflineVerbalizer
    from builders.chains.verify import offline_verify

    walker = _walker(view)
    cand = next(c for c in _table_candidates(walker) if c.table_cell.table_id == "gulfs")
    meta = dict(cand.table_cell.to_meta(), value="Aurora Research Vessel", column_label="Area (km2)")
    leaked = Candidate(cand.graph_type, cand.hops, cand.structure, "", {"table_cell": meta})
    draft = OfflineVerbalizer(view, walker.statements).verbalize(leaked)
    verdict = offline_verify(view, walker.statements, draft)
    assert not verdict.passed and not verdict.no_shortcut


def test_the_llm_request_names_the_cell_by_row_and_column(view):
    from builders.chains.verbalize import hops_payload

    cand = next(c for c in _table_candidates(_walker(view)) if c.table_cell.table_id == "gulfs")
    hops = json.loads(hops_payload(view, cand))
    last = hops[-1]
    assert "| Gulf of Riga |" in last["evidence"]
    cell = cand.table_cell
    assert last["target_answer"] == f'{cell.answer} (the table cell in row "Gulf of Riga", column "{cell.column_label}")'


def test_the_target_carries_the_scale_the_table_states(view):
    """q17: "$748" in a table "(Dollars in Millions)" is $748 million; the writer is told so."""
    from builders.chains.verbalize import hops_payload

    cand = next(c for c in _table_candidates(_walker(view)) if c.table_cell.table_id == "gulfs")
    table = view.nodes[cand.hops[-1].node_id]
    plain = json.loads(hops_payload(view, cand))[-1]["target_answer"]
    original = table.text
    try:
        table.text = "Table 2: Gulfs of the region (areas in thousands)\n\n" + original
        scaled = json.loads(hops_payload(view, cand))[-1]["target_answer"]
        table.text = original.replace("| Gulf of Riga |", "| Gulf of Riga in millions |", 1)
        in_a_row = json.loads(hops_payload(view, cand))[-1]["target_answer"]
    finally:
        table.text = original
    assert "thousands" not in plain
    assert scaled == plain[:-1] + "; the table states its amounts in thousands)"
    assert "the table states" not in in_a_row  # a data row's words are no scale of the table


def test_table_scale_is_one_scale_stated_before_the_rows():
    from builders.chains.tables import table_scale

    grid = "| Segment | 2023 |\n|---|---|\n| Pharmaceutical | $748 |"
    assert table_scale("(Dollars in Millions)\n" + grid) == "millions"
    assert table_scale(grid) == ""
    assert table_scale("(In thousands, except per-share amounts in millions)\n" + grid) == ""


def test_generate_writes_and_exports_the_cell(store, tmp_path):
    from builders.chains.generate import run_generate
    from builders.export import run_export
    from builders.stats import dataset_stats

    settings = make_settings(tmp_path / ".hopgraph")
    settings.generate.n = 6
    settings.generate.types = ["text_chain"]
    settings.generate.table_share = 1.0
    run_generate(RunContext.open(settings, store, console=Quiet()))
    hops = [r for r in store.run("quality_hops") if r.get("table_cell")]
    assert hops, "no accepted chain ends in a table hop"
    # The audits re-check what was written: the row label joins the bridge to the table
    # even where no MENTIONS edge does ("gulfs" has none).
    from queries.audit import run_audits

    audits = run_audits(store)
    assert not audits.failed, {r.audit: r.examples for r in audits.audits if r.accepted_violations}
    stats = dataset_stats(store, runs_dir=settings.store.data_dir / "runs")
    assert stats["quality"]["table_hops"] == len(hops)
    assert stats["quality"]["answer_in_evidence_share"] == 1.0
    assert stats["quality"]["question_word_agreement"] == 1.0

    out = tmp_path / "out"
    run_export(RunContext(settings, store), out)
    records = [json.loads(line) for line in (out / "dataset.jsonl").read_text().splitlines()]
    table_hops = [s for r in records for s in r["subqa_chain"] if s["table_cell"]]
    assert len(table_hops) == len(hops)
    for hop in table_hops:
        cell = hop["table_cell"]
        assert hop["evidence"]["kind"] == "chunk" and hop["evidence"]["chunk_id"] in ("gulfs", "tab")
        assert cell["row_label"] in hop["evidence"]["text"] and cell["value"] in hop["evidence"]["text"].replace("**", "")
        assert not MARKDOWN.search(hop["answer"]) and cell["column_label"] in hop["subquestion"]
        assert hop["answer"] == (cell["unit"] or "") + cell["value"]
    assert f"Table hops: **{len(hops)}**" in (out / "README.md").read_text()
    stats_json = json.loads((out / "stats.json").read_text())
    assert stats_json["export"]["table_hops"] == len(hops)


# ---------------------------------------------------------------- which cells a person can check
def _index(text: str, cells: str | None = None, names: dict[str, str] | None = None):
    from builders.chains.tables import TableIndex
    from kg.ingest.tables import table_grid
    from queries.corpus_view import CorpusView, EvidenceNode

    view = CorpusView()
    grid = table_grid(text).to_json() if cells is None else cells
    view.nodes["t"] = EvidenceNode("t", "Chunk", "d", text, "table", cells=grid)
    view.entity_name.update(names or {})
    index = TableIndex(view, frozenset({"body"}))
    return {(c.row_label, c.column_label): c.value for cs in index.cells.values() for c in cs}, index


def test_only_cells_a_reader_can_find_by_row_and_column_are_answers():
    cells, _ = _index(
        "| Domain | Dataset | Score | Score | Notes |\n|---|---|---|---|---|\n"
        "| Biomed | BC5CDR | 90.01 | 1 | ok |\n| | NCBI-disease | 88.57 | 2 | ok |\n"  # "Biomed" heads a group
        "| CS | SciERC | 67.57 | 3 | See [docs](#x). |\n"  # a markdown link is no answer
        "| Code | `do_code_enrichment` | 5 | 4 | fine |\n"  # cleaning would print "docodeenrichment"
        "| Twice | a | 1 | 5 | x |\n| Twice | b | 2 | 6 | y |")  # a row label said twice names no row
    assert ("CS", "Dataset") in cells and cells[("CS", "Dataset")] == "SciERC"
    assert not any(row in ("Biomed", "Twice") for row, _ in cells)
    assert not any(col == "Score" for _, col in cells)  # a header said twice names no column
    assert ("CS", "Notes") not in cells and ("Code", "Dataset") not in cells
    assert cells[("Code", "Notes")] == "fine"


def test_a_cell_wrapped_over_two_rows_is_no_answer():
    """gpt-oss's Table 13 (q27): "Real-world software engineer-" / "ing tasks" are halves of one cell."""
    cells, _ = _index("| Evaluation | Split | Capability |\n|---|---|---|\n"
                      "| SWE-bench | Verified | Real-world software engineer- |\n| (N=477) | | ing tasks |\n"
                      "| OpenAI PRs | All | Real world ML research tasks |\n| PaperBench | Full | ML paper replication |")
    assert ("OpenAI PRs", "Capability") in cells and ("PaperBench", "Split") in cells
    assert not any(row in ("SWE-bench", "(N=477)") for row, _ in cells)


def test_read_across_a_cell_wrapped_over_two_rows_is_no_answer_either(view):
    """Review: read across, the wrapped halves ("...engineer-" / "ing tasks") stand in the header, so the
    printed table's wrapped rows are dropped as columns of the grid read across."""
    from builders.chains.tables import TableIndex
    from queries.corpus_view import EvidenceNode

    text = ("| Evaluation | o3 | o4-mini | gpt-oss |\n|---|---|---|---|\n| Real-world software engineer- | 69.1 | 68.1 | |\n"
            "| ing tasks | | | 62.4 |\n| PaperBench | 24.0 | 21.3 | 18.9 |\n| OpenAI PRs | 44.0 | 40.2 | 39.5 |")
    view.nodes["wrapped"] = EvidenceNode("wrapped", "Chunk", "d3", text, "table")
    across = TableIndex(view, frozenset({"body"}), across=True)
    cells = {(c.row_label, c.column_label): c.value for cs in across.cells.values() for c in cs if c.table_id == "wrapped"}
    assert cells[("o3", "PaperBench")] == "24.0" and cells[("gpt-oss", "OpenAI PRs")] == "39.5"
    assert not any(col in ("ing tasks", "Real-world software engineer-") for _, col in cells)


def test_a_cell_with_an_unreadable_glyph_is_no_answer():
    """The PDF maps a sign to nothing ("\ufffd20" in the Glendhu row): the value is not known."""
    cells, _ = _index("| Catchment | Low flow | Total flow |\n|---|---|---|\n"
                      "| Glendhu | \ufffd20 | 32 |\n| Redhill | 100 | 66 |")
    assert cells[("Glendhu", "Total flow")] == "32" and cells[("Redhill", "Low flow")] == "100"
    assert ("Glendhu", "Low flow") not in cells


def test_a_row_is_found_by_name_without_its_year_and_a_broken_grid_falls_back_to_the_text():
    text = ("Table 1: Datasets.\n\n| Dataset | Words |\n|---|---|\n| PubMed (2018) | **3092** |\n"
            "| Bib. linking (GROBID) | 1.00 |\n| Bib. linking (LATEX) | 0.96 |")
    names = {"pubmed": "PubMed", "bib linking": "Bib. linking", "grobid": "GROBID"}
    cells, index = _index(text, cells='{"header": ["Dataset"', names=names)  # a truncated grid JSON
    assert cells[("PubMed (2018)", "Words")] == "3092"
    assert index.rows("pubmed") == [("t", 0)]
    assert index.rows("bib linking") == []  # the short form would name two rows


# ---------------------------------------------------------------- the LLM path
class CellWriter:
    """A scripted model: asks for the target answer it is given; the verifier finds every hop needed."""

    def __init__(self):
        self.verbalize_users: list[str] = []

    def __call__(self, body):
        from tests.fake_llm import system_text, user_text
        from tests.llm_server import ok

        system, user = system_text(body), user_text(body)
        if "You write multi-hop questions" in system:
            self.verbalize_users.append(user)
            hops = json.loads(user[user.index("["):user.rindex("]") + 1])
            target = hops[-1].get("target_answer", "")
            answer = target.split(" (the table cell", 1)[0]
            subs = [{"subquestion": f"What is step {i}?", "answer": h["bridge_to_next"] or answer}
                    for i, h in enumerate(hops)]
            return ok({"hops": subs, "question": f"Which value ends chain {len(self.verbalize_users)}?",
                       "answer": answer})
        if "strict reviewer" in system:
            n = int(re.search(r"Evidence \((\d+) items", user).group(1))
            return ok({"answerable_without": [False] * n, "single_item_answers": False, "faithful": True,
                       "standalone": True, "closed_book_answerable": False, "reasons": ""})
        raise AssertionError(f"unexpected request: {system[:80]}")


@pytest.mark.timeout(300)
def test_the_llm_path_asks_for_the_cell_and_writes_it_back(store, tmp_path):
    from builders.chains.generate import run_generate
    from tests.llm_server import ScriptedLLMServer

    writer = CellWriter()
    with ScriptedLLMServer(responder=writer) as server:
        settings = make_settings(tmp_path / ".hopgraph")
        settings.llm.base_url = server.base_url
        settings.generate.n = 4
        settings.generate.types = ["text_chain"]
        settings.generate.table_share = 1.0
        settings.generate.variety_share = 1.0  # this test is about the cell request, not variety
        settings.generate.bridge_by_number = False  # nor the number rule: the synthetic corpus's facts are words
        run_generate(RunContext.open(settings, store, console=Quiet()))
    asked = [u for u in writer.verbalize_users if "(the table cell in row" in u]
    assert asked, "no verbalize request named a table cell"
    assert any('(the table cell in row \\"Gulf of Riga\\", column \\"' in u for u in asked)
    rows = [r for r in store.run("hops_for_export") if r["hop"].get("table_cell")]
    assert rows
    for r in rows:
        cell = json.loads(r["hop"]["table_cell"])
        assert r["evidence_id"] in ("gulfs", "tab") and cell["value"] in r["text"].replace("**", "")
        assert r["hop"]["answer"] == (cell["unit"] or "") + cell["value"]


def test_shrinking_never_drops_the_hop_that_names_the_table_row(view):
    from builders.chains.shrink import drop_hop

    cand = next(c for c in _table_candidates(_walker(view)) if len(c.hops) == 3)
    assert drop_hop(view, cand, 1) is None  # its bridge is the row the cell is read from
    smaller = drop_hop(view, cand, 0)
    assert smaller is not None and smaller.table_cell == cand.table_cell and smaller.node_ids == cand.node_ids[1:]


ROWS_PAPER = """# Forecasting models for harbour traffic

We compare four forecasting models on the harbour traffic benchmark introduced in this report.

Tessaline was trained only on 412 maritime weather logs collected by the harbour office during the winter storms.

Korvex learns from 9,300 container manifests that shipping agents file before each arrival at the terminal.

The benchmark covers three ports and two seasons of vessel movements, with hourly counts of arrivals.

| Model | Accuracy | Parameters |
|---|---|---|
| Tessaline | 71.4 | 220M |
| Korvex | 68.2 | 340M |
| Brumhal | 64.9 | 110M |
| Ostrander | 59.3 | 90M |
"""


@pytest.mark.timeout(600)
def test_a_strict_run_with_the_default_rules_asks_a_row_named_only_in_prose(falkor_store, tmp_path):
    """End to end with the default answer-side rule (min_answer_rivals 1): a tiny report whose table's
    row names entity extraction may miss, and a prose fact about one row that names no other row.
    A strict run (an LLM configured) draws prose -> cell, the cell's column's other rows are its
    rival answers, and the writer is told the prose fact's words to describe the row by."""
    from builders.chains.generate import run_generate
    from kg.pipeline import run_ingest
    from tests.llm_server import ScriptedLLMServer

    doc = tmp_path / "harbour.md"
    doc.write_text(ROWS_PAPER, encoding="utf-8")
    settings = make_settings(tmp_path / ".hopgraph")
    assert run_ingest(RunContext.open(settings, falkor_store, console=Quiet()), [doc]).failed == 0
    writer = CellWriter()
    with ScriptedLLMServer(responder=writer) as server:
        settings.llm.base_url = server.base_url
        settings.generate.n = 2
        settings.generate.types = ["text_chain"]
        settings.generate.min_hops = settings.generate.max_hops = 2
        assert settings.generate.min_answer_rivals >= 1
        run_generate(RunContext.open(settings, falkor_store, console=Quiet()))
    asked = [json.loads(u[u.index("["):u.rindex("]") + 1]) for u in writer.verbalize_users]
    cells = [h for h in asked if "(the table cell in row" in h[-1].get("target_answer", "")]
    assert cells, writer.verbalize_users
    for hops in cells:
        row = re.search(r'row "([^"]+)"', hops[-1]["target_answer"]).group(1)
        assert row in ("Tessaline", "Korvex") and hops[0]["bridge_to_next"] == row
        assert hops[0]["source"] == "Forecasting models for harbour traffic"
        others = {"Tessaline", "Korvex", "Brumhal", "Ostrander"} - {row}
        assert set(hops[-1]["same_kind_in_this_hop"]) == others  # the writer may not single its row out
        said = " ".join(hops[0].get("describe_bridge_with", []))
        assert ("maritime" in said) if row == "Tessaline" else ("manifests" in said)
    figures = [json.loads(r["chain"]["construction"]) for r in falkor_store.run("chains_for_export")]
    assert figures and all(f["answer_rivals"] == 3 and not f["reason"] for f in figures)  # the other 3 rows


def test_row_names_extraction_missed_become_bridges_when_prose_names_them():
    """A distinctive row label named in prose becomes an entity of the table and of that prose; an
    everyday word ("Total"), a label no prose names ("Ostrander") and a table of two rows do not."""
    from builders.chains.name_forms import ordinary_word
    from builders.chains.tables import TableIndex, name_table_rows
    from queries.corpus_view import CorpusView, EvidenceNode

    table = "| Model | Accuracy |\n|---|---|\n| Tessaline | 71.4 |\n| Korvex-2 | 68.2 |\n| Ostrander | 59.3 |\n" \
            "| Total | 66.3 |"
    small = "| Model | Accuracy |\n|---|---|\n| Brumhal | 64.9 |\n| Quennet | 61.0 |"
    view = CorpusView()
    for node in (EvidenceNode("t1", "Chunk", "d", table, kind="table"),
                 EvidenceNode("t2", "Chunk", "d", small, kind="table"),
                 EvidenceNode("p1", "Chunk", "d", "Tessaline was trained only on maritime weather logs."),
                 EvidenceNode("p2", "Chunk", "d", "Korvex-2 reads container manifests; the Total is averaged."),
                 EvidenceNode("p3", "Chunk", "d", "Brumhal and Quennet are smaller models.")):
        view.nodes[node.id] = node
    assert name_table_rows(view, frozenset({"body"}), ordinary_word) == 2
    names = {view.entity_name[e]: e for e in view.entity_name}
    assert set(names) == {"Tessaline", "Korvex-2"}
    assert view.mentioned_by[names["Tessaline"]] == {"t1", "p1"} and names["Korvex-2"] in view.mentions["p2"]
    assert TableIndex(view, frozenset({"body"})).rows(names["Tessaline"]) == [("t1", 0)]


def test_a_rate_in_a_money_table_takes_no_currency_and_no_scale():
    """q30: Intel's "4.1 %" tax rate in a table "(In Millions)" was targeted as "$4.1 % ... in millions"."""
    from builders.chains.tables import TableCell
    from builders.chains.verbalize import table_target

    rate = TableCell("t", "Non-GAAP tax rate", "Twelve Months Ended Dec 31, 2022", "4.1 %", "$")
    target = table_target(rate, "Table: Reconciliation (In Millions)\n\n| Item | 2022 |\n|---|---|\n| x | 1 |")
    assert target.startswith("4.1 % (") and "millions" not in target and "$" not in target
    amount = TableCell("t", "Net revenue", "Twelve Months Ended Dec 31, 2022", "63,054", "$")
    assert table_target(amount, "Table: Results (In Millions)\n\n| Item | 2022 |\n|---|---|\n| x | 1 |").startswith(
        "$63,054 (")


def test_a_shorter_table_printed_beside_a_longer_one_keeps_its_last_row():
    """The first table's last row, with the other table's rows going on beside it, heads no group."""
    cells, _index_ = _index("| Models | F1 |  | Models | All |\n|---|---|---|---|---|\n"
                            "| Zhang et al. (2006) | 91.18 |  | Peng and Dredze (2015) | 56.05 |\n"
                            "| Lattice LSTM | 93.18 |  | He and Sun (2016) | 54.82 |\n"
                            "|  |  |  | LGN | 60.21 |")
    assert cells[("Lattice LSTM", "F1")] == "93.18" and cells[("LGN", "All")] == "60.21"
    assert ("Zhang et al. (2006)", "All") not in cells
