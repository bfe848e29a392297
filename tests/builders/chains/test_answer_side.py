"""Answer-side construction (issue #21): rival answers in the last hop, the words a bridge may be
described by, rows of the bridge's table named beside it, and what the writer is told of them."""

from __future__ import annotations

import json

from builders.chains.candidate import Candidate, Hop
from tests.builders.chains.test_construction import ARV, HMI, construction, serial, view  # noqa: F401


def add_chunk(view, cid: str, text: str, doc: str = "d4") -> None:
    """A body chunk, its mentions found by exact name as ingest finds them."""
    from queries.corpus_view import EvidenceNode

    view.nodes[cid] = EvidenceNode(cid, "Chunk", doc, text, "text")
    view.mentions[cid] = {e for e, name in view.entity_name.items() if name in text}
    for e in view.mentions[cid]:
        view.mentioned_by.setdefault(e, set()).add(cid)


def test_a_last_hop_with_another_answer_of_the_targets_kind_is_kept_and_names_it(view):
    c = construction(view).check(serial(("c1", HMI), ("c8", ""), answer=ARV))
    assert c.reason == ""
    # c8: "The Tallinn Sea Laboratory operates the Baltic Explorer, while ... operates the Aurora Research Vessel."
    assert c.answer_rivals == 1 and c.answer_rival_names == ["Baltic Explorer"]


def test_a_last_hop_whose_only_candidate_is_the_target_answers_alone(view):
    # The institute has a rival here (the Tallinn laboratory advises a centre), but the vessel has none.
    add_chunk(view, "c9", "The Tallinn Sea Laboratory advises the Riga Coastal Centre, while the Helsinki Marine "
                          "Institute operates the Aurora Research Vessel.")
    c = construction(view).check(serial(("c1", HMI), ("c9", ""), answer=ARV))
    assert c.siblings[0] >= 1 and c.answer_rivals == 0
    assert "no other answer of the target's kind" in c.reason


def test_the_bridge_facts_words_are_split_by_whether_a_later_hop_holds_them(view):
    kept = construction(view).check(serial(("c1", HMI), ("c8", ""), answer=ARV))
    # "Maria Kovacs founded the Helsinki Marine Institute after years of coastal fieldwork."
    assert "fieldwork" in kept.describe_by[0] and "coastal" in kept.describe_by[0]
    # Nothing of the fact recurs later; the rival's name ("Tallinn Sea Laboratory") is no way to describe it.
    assert kept.avoid_words == [["laboratory", "tallinn"]]
    add_chunk(view, "c10", "The Helsinki Marine Institute operates the Baltic research vessel flotilla.", doc="d1")
    echoed = construction(view).check(serial(("c10", HMI), ("c8", ""), answer=ARV))
    assert {"operates", "vessel"} <= set(echoed.avoid_words[0])  # ("research" is too common to count)
    # "Baltic" is a word of c10's document title ("Baltic field notes"): the question names its source
    # by it, so it is neither banned nor a way to describe the bridge.
    assert "baltic" not in echoed.avoid_words[0] + echoed.describe_by[0]
    assert echoed.describe_by == [["flotilla"]]
    assert echoed.reason == ""  # "flotilla" is its own: the writer describes the bridge by it
    add_chunk(view, "c12", "The Helsinki Marine Institute operates a Baltic vessel.", doc="d1")
    nothing_own = construction(view).check(serial(("c12", HMI), ("c8", ""), answer=ARV))
    assert nothing_own.describe_by == [[]] and nothing_own.reason  # the later hop says it all


def add_table(view, tid: str, rows: list[tuple[str, str]], doc: str = "d4", column: str = "Area (km2)") -> None:
    """A table chunk (markdown, as ingest writes one) of gulfs and their areas; each row label an entity."""
    from queries.corpus_view import EvidenceNode

    text = f"| Gulf | {column} |\n|---|---|\n" + "\n".join(f"| {name} | {area} |" for name, area in rows)
    view.nodes[tid] = EvidenceNode(tid, "Chunk", doc, text, "table")
    for name, _ in rows:
        view.entity_name[name.lower()], view.entity_label[name.lower()] = name, "LOC"
        view.entity_aliases.setdefault(name.lower(), [])
    view.mentions[tid] = {name.lower() for name, _ in rows}
    for name, _ in rows:
        view.mentioned_by.setdefault(name.lower(), set()).add(tid)


def table_check(view, **options):
    from builders.chains.bridges import BridgeRules
    from builders.chains.construction import ChainConstruction
    from builders.chains.shortcuts import CorpusIndex
    from builders.chains.statements import StatementIndex
    from builders.chains.tables import TableIndex

    return ChainConstruction(view, StatementIndex(view, BridgeRules(view)), CorpusIndex(view),
                             TableIndex(view, frozenset({"body"})), **options).check


def cell_chain(first: str, table: str, value: str, row: int) -> Candidate:
    from builders.chains.tables import TableCell

    cell = TableCell(table, "Gulf of Riga", "Area (km2)", value, "", row, 1).to_meta()
    return Candidate("text_chain", [Hop(first, "Chunk", "gulf of riga", "entity"), Hop(table, "Chunk")],
                     [(0, 1), (1, 2)], "", {"table_cell": cell})


GULFS = [("Gulf of Riga", "18,100"), ("Gulf of Bothnia", "117,000"), ("Gulf of Finland", "30,000")]


def test_a_table_bridge_named_beside_other_rows_of_its_table_is_refused(view):
    add_table(view, "gulfs", GULFS)
    add_chunk(view, "c11", "The Nordic Ocean Council surveys the Gulf of Riga and the Gulf of Bothnia.", doc="d1")
    check = table_check(view)
    both = check(cell_chain("c11", "gulfs", "18,100", 0))
    assert "other rows of the table" in both.reason
    alone = check(cell_chain("c3", "gulfs", "18,100", 0))
    assert "other rows" not in alone.reason
    # The rival answers are the column's other cells, by value; the rivals of the bridge, the other rows.
    assert alone.answer_rivals == 2 and alone.answer_rival_names == ["117,000", "30,000"]
    assert alone.sibling_names == [["Gulf of Bothnia", "Gulf of Finland"]]


def test_a_table_bridge_that_is_one_item_of_a_list_is_refused(view):
    """PG&E (q27): "... due to wildfire-related costs, timing of regulatory recoveries, special tax items,
    and investigation remedies": no item labels a row as written, yet the sentence says nothing of the
    bridge but its name; a question could only point at it by position."""
    add_table(view, "gulfs", GULFS)
    add_chunk(view, "c15", "The survey covers coastal lagoons, river mouths, open shelf waters, and the "
                           "Gulf of Riga.", doc="d1")
    listed = table_check(view)(cell_chain("c15", "gulfs", "18,100", 0))
    assert listed.rivals == [3] and "enumeration" in listed.reason


def test_a_row_named_without_its_marks_or_parenthesis_counts_as_named(view):
    """"For RAPT and NC-RAPT, we set ..." beside rows "RAPT" and "NC-RAPT (High)": the sentence names
    both rows, so it does not single out RAPT's (seen in a DeepSeek/paraphrase development set)."""
    from builders.chains.tables import label_forms

    assert label_forms("NC-RAPT (High)") == ["NC-RAPT (High)", "NC-RAPT"]
    assert label_forms("DiPS∗") == ["DiPS∗", "DiPS"]
    add_table(view, "gulfs", [*GULFS, ("Gulf of Riga East (2021)", "9,000")])
    add_chunk(view, "c13", "The Nordic Ocean Council surveys the Gulf of Riga and the Gulf of Riga East.", doc="d1")
    assert "other rows of the table" in table_check(view)(cell_chain("c13", "gulfs", "18,100", 0)).reason


def test_into_a_table_only_the_bridges_own_row_holds_words_to_avoid(view):
    """A strict model could not ask for the "AIME 2024 pass@1" cell because "aime" and "2024" were
    banned: the table's header held them. A header, the caption and the other rows are shared by every
    row or point at another one; only the bridge's own row finds the bridge without the earlier hop."""
    add_table(view, "gulfs", GULFS, column="Salinity")
    add_chunk(view, "c14", "Herring spawn in the Gulf of Riga, whose salinity the Nordic Ocean Council "
                           "monitors from Pernau.", doc="d1")
    c = table_check(view)(cell_chain("c14", "gulfs", "18,100", 0))
    assert "salinity" not in c.avoid_words[0] and "salinity" in c.describe_by[0]
    add_chunk(view, "c15", "Herring spawn in the Gulf of Riga, where 18,100 boats fish from Pernau.", doc="d1")
    own_row = table_check(view)(cell_chain("c15", "gulfs", "18,100", 0))
    assert own_row.reason == "pre-check: the answer is named by an earlier hop"  # the hop states the cell (q51)


def test_a_row_without_a_value_of_the_answers_kind_is_no_rival(view):
    """DeepSeek-R1's Table 4 has "Architecture: MoE" and "# Activated Params" rows above its benchmark
    scores: beside a score they are no alternative the question could mean."""
    from builders.chains.tables import TableIndex, TableCell

    add_table(view, "gulfs", [*GULFS, ("Seabed", "Sandy")])
    index = TableIndex(view, frozenset({"body"}))
    cell = TableCell("gulfs", "Gulf of Riga", "Area (km2)", "18,100", "", 0, 1)
    assert index.other_rows(cell) == ["Gulf of Bothnia", "Gulf of Finland"]


def test_a_table_of_two_rows_gives_its_row_away_by_elimination(view):
    add_table(view, "pair", GULFS[:2])
    reason = table_check(view)(cell_chain("c3", "pair", "18,100", 0)).reason
    assert "fewer than 3 answerable rows" in reason


def test_the_writer_is_told_which_words_to_use_and_avoid_and_the_rival_answers(view):
    from builders.chains.verbalize import hops_payload

    add_chunk(view, "c10", "The Helsinki Marine Institute operates the Baltic research vessel flotilla.", doc="d1")
    cand = serial(("c10", HMI), ("c8", ""), answer=ARV)
    cand.meta["construction"] = construction(view).check(cand).to_dict()
    hops = json.loads(hops_payload(view, cand))
    assert hops[0]["describe_bridge_with"] == ["flotilla"]
    assert "vessel" in hops[0]["never_use_words"]
    assert hops[1]["other_answers_in_this_hop"] == ["Baltic Explorer"]
    assert "describe_bridge_with" not in hops[1]  # the last hop leads to no bridge


def test_a_name_cut_by_a_line_break_is_the_target_whole(view):
    from builders.chains.verbalize import whole_phrase

    view.entity_name["p"], view.entity_aliases["p"] = "Plain", []
    text = "Figure 7 plots the usage of each feature for Paper\n\nPlain. Readers used Paper Plain daily."
    assert whole_phrase(view, "p", text) == "Paper Plain"
    # No joined form anywhere: a capitalised word before a break is a sentence's start, not a name.
    assert whole_phrase(view, "p", "The answer was Yes\nPlain and simple.") == "Plain"


def test_a_table_value_other_rows_share_is_no_answer_the_bridge_picks(view):
    """A hyperparameter table of the paraphrase paper (dev9): prefix length 256 for four of its five
    tuning methods. Any of them gives "256", so the hop that identifies the row is not needed."""
    rows = [("Gulf of Riga", "256"), ("Gulf of Bothnia", "256"), ("Gulf of Finland", "64")]
    add_table(view, "shared", rows)
    check = table_check(view)
    assert "same value" in check(cell_chain("c3", "shared", "256", 0)).reason
    assert check(cell_chain("c3", "shared", "64", 2)).reason == ""  # its own value: the bridge picks it


def test_the_writer_is_told_only_of_rivals_its_evidence_window_shows(view):
    """q22: "InferSent-GloVe" and "68.03" were in the hints though the table's window had left their
    rows out: the writer was asked to guard against candidates no reader of the hop would see."""
    from builders.chains.verbalize import hops_payload

    add_chunk(view, "c10", "The Helsinki Marine Institute operates the Baltic research vessel flotilla.", doc="d1")
    cand = serial(("c10", HMI), ("c8", ""), answer=ARV)
    figures = construction(view).check(cand).to_dict()
    figures["answer_rival_names"] = ["Baltic Explorer", "Gulf Star"]  # "Gulf Star" is nowhere in c8
    cand.meta["construction"] = figures
    hops = json.loads(hops_payload(view, cand))
    assert hops[1]["other_answers_in_this_hop"] == ["Baltic Explorer"]
    figures["answer_rival_names"] = ["Gulf Star"]
    assert "other_answers_in_this_hop" not in json.loads(hops_payload(view, cand))[1]


def test_an_answer_computed_from_the_earlier_hops_numbers_for_the_bridge_is_refused(view):
    """q47b: the reconciliation's row gave Depreciation and amortization as 109,805 and 96,231, so the
    income statement's "14%" change (the answer) was worked out without the statement. A hop whose
    numbers for the bridge give the answer by their change leaves the answering table unneeded."""
    from builders.chains.arithmetic import derives_value

    add_table(view, "gulfs", [("Gulf of Riga", "14%"), ("Gulf of Bothnia", "-3%"), ("Gulf of Finland", "9%")],
              column="Catch change")
    add_chunk(view, "c16", "Herring catches in the Gulf of Riga rose from 96,231 tonnes in 2025 to 109,805 "
                           "tonnes in 2026, the Nordic Ocean Council reports from Pernau.", doc="d1")
    computed = table_check(view)(cell_chain("c16", "gulfs", "14%", 0))
    assert computed.reason == "pre-check: the answer is computed from an earlier hop's numbers for the bridge"
    add_chunk(view, "c17", "Herring spawn in the Gulf of Riga, whose catches the Nordic Ocean Council "
                           "counts from Pernau.", doc="d1")
    assert "computed from an earlier hop" not in table_check(view)(cell_chain("c17", "gulfs", "14%", 0)).reason
    # A table's row: only the bridge's own line counts, not another row's numbers.
    rows = "| Item | Q2 2026 | Q2 2025 |\n| Depreciation | 109,805 | 96,231 |\n| Interest | 52,110 | 47,000 |"
    assert derives_value(rows, ["Depreciation"], "14%") and not derives_value(rows, ["Interest"], "14%")
    assert derives_value(rows, ["Interest"], "10.9%") and not derives_value(rows, ["Depreciation"], "14.2%")


def model_chain(first: str, value: str) -> Candidate:
    from builders.chains.tables import TableCell

    cell = TableCell("models", "S-LSTM", "F1", value, "", 0, 1).to_meta()
    return Candidate("text_chain", [Hop(first, "Chunk", "s-lstm", "entity"), Hop("models", "Chunk")],
                     [(0, 1), (1, 2)], "", {"table_cell": cell})


def test_a_hop_that_writes_its_bridges_short_name_out_is_refused(view):
    """q47: "the model the authors refer to by an abbreviation of Stack-LSTM" is the S-LSTM row, whatever
    else the hop says: a practitioner maps the written-out name to the short one."""
    add_table(view, "models", [("S-LSTM", "90.3"), ("B-LSTM", "89.1"), ("C-CRF", "88.0")], column="F1")
    add_chunk(view, "c18", "The S-LSTM, our Stack-LSTM, pushes each word onto a stack as the parser "
                           "reads from left to right.", doc="d1")
    add_chunk(view, "c19", "The S-LSTM pushes each word onto a stack as the parser reads from left to right.", doc="d1")
    spelled, plain = table_check(view)(model_chain("c18", "90.3")), table_check(view)(model_chain("c19", "90.3"))
    assert spelled.reason == "pre-check: hop 0 says what its bridge is (a practitioner maps that to the name)"
    assert "says what its bridge is" not in plain.reason


def test_a_number_the_answering_table_prints_outside_its_indexed_cells_gives_the_row_away(view):
    """q50: the hop identified its row by 78.33, printed in the answering table's own column that the
    index leaves out (a column headed by nothing readable). Every number of the answering hop counts."""
    add_table(view, "models", [("S-LSTM", "90.3"), ("B-LSTM", "89.1"), ("C-CRF", "88.0")], column="F1")
    view.nodes["models"].text += "\n\n| ours | 78.33 |"  # a row the index does not read as a cell
    add_chunk(view, "c20", "The S-LSTM pushes each word onto a stack and reaches 78.33 on the dev set.", doc="d1")
    assert table_check(view)(model_chain("c20", "90.3")).reason == "pre-check: hop 0's 78.33 is printed in the answering table too"


def test_a_fact_the_hop_also_states_of_a_rival_does_not_describe_the_bridge(view):
    """q52: "For AIME evaluation, we sample 32 times" and "For GPQA-Diamond, we sample 32 times": the
    writer was offered "sample", "32" and "passrate" for GPQA-Diamond, which describe AIME as well."""
    add_table(view, "gulfs", GULFS)
    add_chunk(view, "c21", "In the Gulf of Bothnia, trawlers sample herring weekly from Umea. In the Gulf of "
                           "Riga, trawlers sample herring weekly from Umea.", doc="d1")
    shared = table_check(view)(cell_chain("c21", "gulfs", "18,100", 0))
    assert shared.reason == "pre-check: hop 0's fact about its bridge is said of a rival there too"
    add_chunk(view, "c22", "In the Gulf of Bothnia, trawlers sample herring weekly from Umea. In the Gulf of "
                           "Riga, divers count seals each spring from Pernau.", doc="d1")
    own = table_check(view)(cell_chain("c22", "gulfs", "18,100", 0))
    assert "said of a rival" not in own.reason and {"seal", "spring"} <= {w.rstrip("s") for w in own.describe_by[0]}
    assert "herring" not in own.describe_by[0]


def test_with_bridge_by_number_a_bridge_described_by_words_alone_is_refused(view):
    """q55b: LiveCodeBench as "the code benchmark whose data span May 2024 to January 2025" is what a
    practitioner names without the hop; over 248 strict-run questions a bridge named by a number the hop
    prints for it held (74 of 86 accepted), one named by words alone did not (35 of 93)."""
    add_table(view, "gulfs", GULFS)
    add_chunk(view, "c20", "The Gulf of Riga, fed by the Daugava, freezes over in most winters since 2024 "
                           "according to the Nordic Ocean Council in Pernau.", doc="d1")
    add_chunk(view, "c21", "Herring catches in the Gulf of Riga reached 96,231 tonnes in 2025, the Nordic "
                           "Ocean Council reports from Pernau.", doc="d1")
    words_only = "pre-check: hop 0 describes its bridge by words only (a practitioner guesses it)"
    assert table_check(view, bridge_by_number=True)(cell_chain("c20", "gulfs", "18,100", 0)).reason == words_only
    assert table_check(view, bridge_by_number=True)(cell_chain("c21", "gulfs", "18,100", 0)).reason != words_only
    assert table_check(view)(cell_chain("c20", "gulfs", "18,100", 0)).reason != words_only  # the setting is off
