"""Two-table chains (builders/chains/table_pairs.py): one table identifies the row, the other answers."""

from __future__ import annotations

from tests.builders.chains.test_construction import view  # noqa: F401
from tests.builders.chains.test_prose_walk import strict_walker


def add_table(view, tid: str, caption: str, column: str, rows: list[tuple[str, str]], doc: str = "d4") -> None:
    from queries.corpus_view import EvidenceNode

    text = f"{caption}\n\n| Vessel | {column} |\n|---|---|\n" + "\n".join(f"| {n} | {v} |" for n, v in rows)
    view.nodes[tid] = EvidenceNode(tid, "Chunk", doc, text, "table")
    for name, _ in rows:
        view.entity_name[name.lower()], view.entity_label[name.lower()] = name, "PRODUCT"
        view.entity_aliases.setdefault(name.lower(), [])
        view.mentioned_by.setdefault(name.lower(), set()).add(tid)
    view.mentions[tid] = {name.lower() for name, _ in rows}


FLEET = ["Baltic Explorer", "Nordic Star", "Gulf Runner"]


def test_one_table_names_the_row_by_a_value_only_it_has_and_another_gives_the_answer(view):
    from builders.chains.tables import names_value

    add_table(view, "crew", "Table 1: Crew of the fleet.", "Crew", list(zip(FLEET, ["12", "9", "7"])))
    add_table(view, "days", "Table 2: Survey days in 2021.", "Survey days", list(zip(FLEET, ["41.2", "35.6", "28.9"])))
    walker = strict_walker(view)
    cands = [c for c in (walker.table_pairs.chain(2) for _ in range(10)) if c is not None]
    assert cands, walker.deaths
    for cand in cands:
        first, last = cand.hops[0].node_id, cand.hops[1].node_id
        assert {first, last} == {"crew", "days"} and cand.graph_type == "text_chain"
        fact, cell = cand.meta["table_fact"], cand.meta["table_cell"]
        assert fact["label"] == cell["row_label"] and not names_value(view.nodes[last].text, fact["value"])
        assert walker.construction.check(cand).reason == ""  # the other rows are the rivals


def test_a_value_other_rows_share_or_the_other_table_repeats_identifies_nothing(view):
    add_table(view, "crew", "Table 1: Crew of the fleet.", "Crew", list(zip(FLEET, ["12", "12", "12"])))
    add_table(view, "days", "Table 2: Survey days and crew.", "Crew", list(zip(FLEET, ["12", "12", "12"])))
    walker = strict_walker(view)
    assert all(walker.table_pairs.chain(2) is None for _ in range(5))
    assert walker.table_pairs.chain(3) is None  # two tables make two hops


def test_no_pair_whose_first_row_prints_the_answers_number_too(view):
    """q44: PepsiCo's summary reconciliation identified Frito-Lay by its 2-point impact and printed its
    "9" reported change in the same row; the answering table's "9 %" was not needed."""
    from builders.chains.values import number
    from queries.corpus_view import EvidenceNode

    shares = ["41.2%", "35.6%", "28.9%"]
    text = "Table 1: Crew and survey share.\n\n| Vessel | Crew | Survey share |\n|---|---|---|\n" + "\n".join(
        f"| {n} | {c} | {s} |" for n, c, s in zip(FLEET, ["12", "9", "7"], shares))
    view.nodes["crew"] = EvidenceNode("crew", "Chunk", "d4", text, "table")
    view.mentions["crew"] = {n.lower() for n in FLEET}
    add_table(view, "days", "Table 2: Survey days in 2021.", "Survey days", list(zip(FLEET, ["41.2", "35.6", "28.9"])))
    for name in FLEET:
        view.mentioned_by.setdefault(name.lower(), set()).add("crew")
    walker = strict_walker(view)
    cands = [c for c in (walker.table_pairs.chain(2) for _ in range(30)) if c is not None]
    assert cands, walker.deaths  # days -> crew's Crew column stays possible
    for cand in cands:
        fact, cell = cand.meta["table_fact"], cand.meta["table_cell"]
        first = walker.view.nodes[cand.hops[0].node_id].text
        row = next(line for line in first.splitlines() if line.startswith(f"| {fact['label']} |"))
        assert number(cell["value"]) not in {number(v.strip()) for v in row.split("|")[2:] if v.strip()}


def add_across(view, tid: str, caption: str, row_label: str, values: list[str], doc: str = "d4") -> None:
    """A table printed with the fleet as columns ("| Measure | Baltic Explorer | Nordic Star | ... |")."""
    from queries.corpus_view import EvidenceNode

    text = (f"{caption}\n\n| Measure | " + " | ".join(FLEET) + " |\n|---|---|---|---|\n"
            f"| {row_label} | " + " | ".join(values) + " |\n| Home port | Riga | Tallinn | Turku |")
    view.nodes[tid] = EvidenceNode(tid, "Chunk", doc, text, "table")
    view.mentions[tid] = {name.lower() for name in FLEET}
    for name in FLEET:
        view.mentioned_by.setdefault(name.lower(), set()).add(tid)


def test_a_table_with_its_entities_as_columns_is_read_across(view):
    """LLM reports print models as columns (gpt-oss's "| Category | gpt-oss-120b | gpt-oss-20b | o4-mini |"):
    read across, each column is a row of the entity it heads, and the target says column, then row."""
    from builders.chains.tables import TableIndex
    from builders.chains.verbalize import table_target

    add_across(view, "range", "Table 3: Range of the fleet.", "Range (nm)", ["4,200", "3,100", "2,650"])
    across = TableIndex(view, frozenset({"body"}), across=True)
    cells = {(c.row_label, c.column_label): c for cs in across.cells.values() for c in cs if c.table_id == "range"}
    assert cells[("Nordic Star", "Range (nm)")].value == "3,100" and cells[("Gulf Runner", "Home port")].value == "Turku"
    cell = cells[("Nordic Star", "Range (nm)")]
    assert cell.across and across.other_rows(cell) == ["Baltic Explorer", "Gulf Runner"]
    assert 'column "Nordic Star", row "Range (nm)"' in table_target(cell, view.nodes["range"].text)
    by_rows = TableIndex(view, frozenset({"body"}))
    assert not any(t == "range" and c[0].row_label in FLEET for (t, _r), c in by_rows.cells.items())


def test_a_table_by_rows_and_one_across_make_a_pair(view):
    from builders.chains.table_pairs import TablePairWalk
    from builders.chains.tables import TableIndex

    add_table(view, "crew", "Table 1: Crew of the fleet.", "Crew", list(zip(FLEET, ["12", "9", "7"])))
    add_across(view, "range", "Table 3: Range of the fleet.", "Range (nm)", ["4,200", "3,100", "2,650"])
    walker = strict_walker(view)
    columns = TableIndex(view, frozenset({"body"}), across=True)
    walker.table_pairs = TablePairWalk(walker, [walker.table_walk.tables, columns])
    walker.construction.columns = columns
    cands = [c for c in (walker.table_pairs.chain(2) for _ in range(12)) if c is not None]
    into_across = [c for c in cands if c.meta["table_cell"]["across"]]
    assert into_across, walker.deaths
    for cand in into_across:
        assert cand.hops[0].node_id == "crew" and cand.meta["table_fact"]["column"] == "Crew"
        assert walker.construction.check(cand).reason == ""  # the other columns are the rivals


def test_a_chart_that_identifies_a_row_and_a_table_that_answers_make_an_image_initiated_chain(view):
    """A bar chart prints each vessel's survey days (figure_walk.FigureIndex: its labels are rows); the
    value only one bar shows names the vessel, whose crew a table gives: hop 0 is the image."""
    import json

    from builders.chains.figure_walk import FigureIndex
    from builders.chains.table_pairs import TablePairWalk
    from queries.corpus_view import EvidenceNode

    add_table(view, "crew", "Table 1: Crew of the fleet.", "Crew", list(zip(FLEET, ["12", "9", "7"])))
    bars = [[name, "Survey days", days, ""] for name, days in zip(FLEET, ["41.2", "35.6", "28.9"])]
    view.nodes["chart"] = EvidenceNode(
        "chart", "Image", "d4", "Figure 2: Survey days in 2021.", "image", caption="Figure 2: Survey days in 2021.",
        visible_text="\n".join(FLEET), visible_lines=json.dumps([[n, 0, 0, 1, 1] for n in FLEET]),
        bar_values=json.dumps(bars))
    for name in FLEET:
        view.mentioned_by[name.lower()].add("chart")
    view.mentions["chart"] = {name.lower() for name in FLEET}
    walker = strict_walker(view)
    chart = FigureIndex(view)  # each bar's label a row, its value the cell of the group "Survey days"
    pair = TablePairWalk(walker, [chart], [walker.table_walk.tables], "image_initiated_chain")
    cands = [c for c in (pair.chain(2) for _ in range(8)) if c is not None]
    assert cands, walker.deaths
    for cand in cands:
        assert cand.graph_type == "image_initiated_chain" and [h.label for h in cand.hops] == ["Image", "Chunk"]
        fact, cell = cand.meta["figure_fact"], cand.meta["table_cell"]
        assert cand.hops[1].node_id == "crew" and fact["label"] == cell["row_label"] and fact["column"] == "Survey days"


def test_the_verifiers_window_keeps_the_row_that_identifies_the_bridge(view):
    """q30: a long table read across identifies a model by its RefCOCO-avg score; the verifier's window,
    centred on the model's name (only the header holds it), lost that row and found the chain unfaithful.
    Writer and verifier share one rule of what a window keeps (verbalize.window_keep)."""
    from queries.corpus_view import EvidenceNode

    from builders.chains.candidate import Candidate, Hop
    from builders.chains.verbalize import Draft, HopText
    from builders.chains.verify import evidence_payload

    rows = "\n".join(f"| Benchmark {k} with a long descriptive name | {50 + k}.1 | {40 + k}.2 | {30 + k}.3 |" for k in range(40))
    text = ("Table 9: Image understanding.\n\n| Benchmark | " + " | ".join(FLEET) + " |\n|---|---|---|---|\n"
            + rows + "\n| RefCOCO-avg | 91.6 | 88.2 | 85.0 |")
    view.nodes["long"] = EvidenceNode("long", "Chunk", "d4", text, "table")
    add_table(view, "crew", "Table 1: Crew of the fleet.", "Crew", list(zip(FLEET, ["12", "9", "7"])))
    cell = {"table_id": "crew", "row_label": "Baltic Explorer", "column_label": "Crew", "value": "12", "unit": "",
            "row": 0, "column": 1, "across": False}
    cand = Candidate("text_chain", [Hop("long", "Chunk", "baltic explorer", "entity"), Hop("crew", "Chunk")],
                     [(0, 1), (1, 2)], "", {"table_cell": cell, "table_fact": {
                         "hop": 0, "label": "Baltic Explorer", "column": "RefCOCO-avg", "value": "91.6"}})
    draft = Draft(cand, [HopText("q0?", "Baltic Explorer"), HopText("q1?", "12")], "q?", "12", "test")
    payload = evidence_payload(view, draft)
    assert len(text) > 1500 and "| RefCOCO-avg | 91.6 |" in payload
