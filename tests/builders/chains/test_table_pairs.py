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
