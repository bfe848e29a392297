"""Numbers a reader computes from the answering table (builders/chains/arithmetic.py)."""

from __future__ import annotations

from builders.chains.arithmetic import computed_number
from tests.builders.chains.test_table_hops import _index

RESULTS = ("| Model | Dev F1 | Test F1 | Time (s/batch) |\n|---|---|---|---|\n"
           "| LSR-BERTbase | 59.00 | 59.05 | 0.05 |\n| GAIN-BERTbase | 61.22 | 60.14 | 0.85 |\n"
           "| GAIN-BERTlarge | 62.08 | 61.24 | 1.02 |")


def _cell(index, row_label: str, column: str):
    return next(c for cs in index.cells.values() for c in cs if c.row_label == row_label and c.column_label == column)


def test_an_improvement_over_another_row_is_computed_from_the_table():
    """q36: "GAIN-BERTbase improves 2.22 F1 on dev" is 61.22 - 59.00, both cells of the answering table."""
    _cells, index = _index(RESULTS)
    answer = _cell(index, "GAIN-BERTbase", "Test F1")
    assert computed_number(["improves", "2.22"], answer, index) == "2.22"
    assert computed_number(["17"], answer, index) == "17"  # q33: "17 times slower", 0.85 / 0.05
    assert computed_number(["2.31", "3.9"], answer, index) == ""  # no pair of one column gives these


def test_a_whole_number_is_no_rounded_difference_and_a_small_ratio_is_chance():
    _cells, index = _index(RESULTS)
    answer = _cell(index, "GAIN-BERTbase", "Test F1")
    assert computed_number(["2"], answer, index) == ""  # 61.22 - 59.00 is 2.22, not 2
    assert computed_number(["1.2"], answer, index) == ""  # 1.02 / 0.85 = 1.2: too small a ratio to tell
    assert computed_number(["2.22"], None, index) == ""  # no table answers
    assert computed_number(["017"], answer, index) == ""  # q38: "08" of "14:08:57"; as 17 it would match


def test_a_number_the_answering_table_prints_gives_its_row_away():
    """q43: "lifted AIME pass@1 from 15.6% to 71.0%" identified a model, and the answering table printed
    71.0 in a neighbour's row: the reader took the row beside it without the hop. Small whole numbers
    and years are too common a cell to count."""
    from builders.chains.arithmetic import printed_in_table, table_number_reason

    _cells, index = _index(RESULTS)
    answer = _cell(index, "GAIN-BERTbase", "Test F1")
    assert printed_in_table(["lifted", "15.6%", "61.24"], answer, index) == "61.24"
    assert printed_in_table(["61.240"], answer, index) == "61.240"  # the same number printed another way
    assert printed_in_table(["15.6%", "2020", "5"], answer, index) == ""
    assert "printed in the answering table" in table_number_reason(0, ["59.05"], answer, index)
    assert "computed from two cells" in table_number_reason(0, ["2.22"], answer, index)
    assert table_number_reason(0, ["15.6%"], answer, index) == ""


def test_an_amount_in_millions_that_rounds_a_cell_in_thousands_gives_its_row_away():
    """q45: Ulta's "$737.9 million" at the quarter's end was the balance sheet's 737,877 (in thousands)."""
    from builders.chains.arithmetic import printed_in_table

    balance = ("| Item | January 28, 2023 | January 29, 2022 |\n|---|---|---|\n| Cash | 737,877 | 431,560 |\n"
               "| Inventories | 1,603,451 | 1,499,218 |\n| Receivables | 199,422 | 221,919 |")
    _cells, index = _index(balance)
    answer = _cell(index, "Cash", "January 29, 2022")
    assert printed_in_table(["$737.9"], answer, index) == "$737.9"
    assert printed_in_table(["1.6"], answer, index) == "1.6"  # "$1.6 billion": 1,603,451 thousand
    assert printed_in_table(["738"], answer, index) == ""  # a whole number: too loose a match
    assert printed_in_table(["812.4"], answer, index) == ""


def test_a_change_printed_in_a_cell_and_a_difference_within_the_bridge_row_give_it_away():
    """q48: MiniCPM4's Table 2 prints each value with its change ("42.76−0.15"); hop 0 found HellaSwag
    by "a slight drop of 0.15" (printed in the cell) or by "a 0.6pp improvement over FineWeb-edu"
    (42.76 against 42.17, two cells of the HellaSwag row). The table alone picks the row either way."""
    from builders.chains.arithmetic import cell_numbers, printed_in_table, table_number_reason

    table = ("| Metrics | FineWeb | FineWeb-edu | UltraFineWeb-en |\n|---|---|---|---|\n"
             "| MMLU | 28.84 | 31.80+2.96 | 32.24+3.40 |\n| HellaSwag | 42.91 | 42.17−0.74 | 42.76−0.15 |\n"
             "| PIQA | 73.29 | 72.14−1.15 | 73.67+0.38 |")
    _cells, index = _index(table)
    answer = _cell(index, "HellaSwag", "FineWeb")
    assert cell_numbers("42.76−0.15") == [42.76, 0.15] and cell_numbers("n/a") == []
    assert "computed from two cells" in table_number_reason(0, ["improvement", "0.6"], answer, index)
    assert printed_in_table(["drop", "0.15"], answer, index) == "0.15"  # also 42.91 - 42.76: caught twice
    assert table_number_reason(0, ["0.9"], answer, index) == ""  # no cell, no pair in the row gives 0.9


def test_a_number_printed_in_a_column_the_index_leaves_out_still_gives_the_row_away():
    """q50: "83.75 on AIME24 and 78.33 on AIME25" identified AIME24 beside the 78.33 that MiniCPM-SALA's
    own column prints, a column the table index leaves out: every number the answering text prints
    counts."""
    from builders.chains.arithmetic import printed_in_table

    _cells, index = _index(RESULTS)
    answer = _cell(index, "GAIN-BERTbase", "Test F1")
    assert printed_in_table(["78.33"], answer, index) == ""
    assert printed_in_table(["78.33"], answer, index, RESULTS + "\\n| AIME25 | 78.33 |") == "78.33"


def test_an_earlier_hop_that_prints_the_answer_cell_leaves_the_table_unneeded():
    """q51: "the net leverage ratio was 5.4x, reflecting a 1.3x reduction" identified the row whose
    cell answered "5.4 x": the first hop states the answer."""
    from builders.chains.arithmetic import states_value

    text = "At quarter end, the Company's net leverage ratio was 5.4x, reflecting a 1.3x reduction."
    assert states_value(text, "5.4 x") and states_value("sales of $1,203.5 million", "1,203.5")
    assert not states_value(text, "15.4 x") and not states_value(text, "5.42")
    assert not states_value("in 12 markets", "12")  # a small whole number is too common to count


def test_a_printed_result_is_a_number_for_the_bridge_not_a_year():
    from builders.chains.arithmetic import printed_result

    assert printed_result("92.8") and printed_result("103,563") and printed_result("41.6%")
    assert not printed_result("2024") and not printed_result("spanning") and not printed_result("")
