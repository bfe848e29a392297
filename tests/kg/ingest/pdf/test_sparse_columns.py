"""One printed column that cell boxes split in two is joined again (kg/ingest/pdf/sparse_columns.py)."""

from __future__ import annotations

from kg.ingest.pdf.sparse_columns import join_complementary


def test_a_first_rows_amount_set_after_a_currency_sign_rejoins_its_column():
    """BlackRock's AUM table (q59/q60): "$ 396,013" in the first row started a box to the left of the
    "306,870" under it; the strict writer read the Long-term row's value under another column's name."""
    rows = [["", "June 30, 2023", "", "", "Average AUM(2)"],
            ["Equity", "$ 415,475", "$", "396,013", ""],
            ["Fixed income", "309,449", "", "", "306,870"],
            ["Multi-asset", "133,546", "", "", "129,891"]]
    assert join_complementary(rows) == [["", "June 30, 2023", "Average AUM(2)"],
                                        ["Equity", "$ 415,475", "$ 396,013"],
                                        ["Fixed income", "309,449", "306,870"],
                                        ["Multi-asset", "133,546", "129,891"]]


def test_columns_with_two_names_or_a_row_that_fills_both_stay_apart():
    named = [["Model", "Q1", "Q2"], ["A", "1.0", ""], ["B", "", "2.0"], ["C", "3.0", ""]]
    assert join_complementary(named) == named  # a sparse table of two named columns
    both = [["Model", "Score", ""], ["A", "1.0", "0.5"], ["B", "", "2.0"], ["C", "3.0", ""]]
    assert join_complementary(both) == both
    labels = [["", "x"], ["Retail:", ""], ["Equity", "4"]]
    assert join_complementary(labels) == labels  # the label column is never joined
