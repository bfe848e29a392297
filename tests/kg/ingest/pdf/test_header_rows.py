"""Header rows of a printed table (kg/ingest/pdf/header_rows.py): rows of column names under the
header join it; a row of values never does."""

from __future__ import annotations

from kg.ingest.pdf.header_rows import merge_header_rows


def test_years_and_model_names_under_the_header_join_it():
    years = merge_header_rows([["", "June 30,", "June 30,"], ["", "2026", "2025"], ["Revenue", "1,200", "900"],
                               ["Cost", "800", "700"]])
    assert years[0] == ["", "June 30, 2026", "June 30, 2025"] and years[1] == ["Revenue", "1,200", "900"]
    names = merge_header_rows([["Tasks", "Closed", None, None], ["", "Gemini 2.5 Pro", "Claude 4 Opus", "GPT-4o 0513"],
                               ["AIME", "92.0", "76.0", "9.3"], ["MATH", "98.8", "98.2", "74.6"]])
    assert names[0] == ["Tasks", "Closed Gemini 2.5 Pro", "Closed Claude 4 Opus", "Closed GPT-4o 0513"]


def test_a_row_of_amounts_under_the_header_stays_a_row():
    """eBay's release: "(In millions) $ 730" and "$ (1,649)" under "Three Months Ended March 31," are the
    first row's values, which years joining the header had let the header swallow."""
    rows = merge_header_rows([["", "Three Months Ended March 31,", None], ["", "2023", "2022"],
                              ["", "(In millions) $ 730", "$ (1,649)"], ["Tax", "(161)", "310"], ["Net", "569", "(1,339)"]])
    assert rows[0] == ["", "Three Months Ended March 31, 2023", "Three Months Ended March 31, 2022"]
    assert rows[1] == ["", "(In millions) $ 730", "$ (1,649)"]


def test_a_labelled_row_of_attributes_under_the_header_stays_a_row():
    """dots.llm1's Table 2: a group column comes first, the labels stand in the second; "Architecture |
    Dense | MoE" has a label there under "Benchmark (Metric)", so it is a row, not more of the model names."""
    rows = merge_header_rows([["", "Benchmark (Metric)", "Qwen2.5 72B Base", "dots.llm1.base"],
                              ["", "Architecture", "Dense", "MoE"], ["", "# Total Params", "72B", "142B"],
                              ["", "C-Eval (EM)", "89.3", "92.8"], ["Chinese", "CLUEWSC (EM)", "93.2", "92.7"],
                              ["", "C3 (EM)", "97.1", "97.6"]])
    assert rows[0] == ["", "Benchmark (Metric)", "Qwen2.5 72B Base", "dots.llm1.base"]
    assert rows[1] == ["", "Architecture", "Dense", "MoE"] and rows[2] == ["", "# Total Params", "72B", "142B"]
