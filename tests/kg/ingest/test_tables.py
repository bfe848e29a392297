"""Table cells from real tables of the shared PDFs and from markdown, and
which pages get table detection (pages with and without ruling lines)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pymupdf

from kg.enrich.chunking import chunk_document
from kg.ingest import read_document
from kg.ingest.pdf import parse_pages
from kg.ingest.tables import Cell, TableGrid, table_cells, table_grid
from tests.kg.ingest.pdf_corpus import ALL_PDFS, FEDREG, LONGEVAL, S2ORC
from tests.kg.ingest.pdf_corpus import parsed_pdf  # noqa: F401  (a session fixture)


def _cell(cells: list[Cell], row: str, column: str) -> str:
    return next(c.value for c in cells if c.row_label == row and c.column_label == column)


def _table(doc, label: str):
    return next(b for b in doc.blocks if b.kind == "table" and b.label == label)


def test_longeval_packed_rows_become_cells(parsed_pdf):
    doc = parsed_pdf(LONGEVAL)
    table3 = _table(doc, "Table 3")
    cells = table_cells(table3.cells)
    # pymupdf packs three rows into one markdown row with <br>; bold marks go
    assert _cell(cells, "SQuALITY", "FINE") == "6.8"
    assert _cell(cells, "PubMed + ngram block", "COARSE") == "11.7"
    assert _cell(cells, "Average", "FINE") == "7.8"
    table1 = table_cells(_table(doc, "Table 1").cells)
    assert _cell(table1, "GovReport (2021)", "|source| (words)") == "7551"
    for block in doc.blocks:
        if block.kind == "table":
            for cell in table_cells(block.cells):
                assert not any(mark in cell.value for mark in ("|", "**", "<br>", "---")), cell


def test_s2orc_cells_keep_decimals(parsed_pdf):
    doc = parsed_pdf(S2ORC)
    table4 = table_cells(_table(doc, "Table 4").cells)
    assert _cell(table4, "Bibliography entries", "GROBID") == "27.6"
    assert _cell(table4, "Paragraphs (body)", "LATEX") == "93.3"  # footnote mark "*" dropped
    table3 = table_cells(_table(doc, "Table 3"))  # a Block: its cells JSON is used
    assert _cell(table3, "Papers w/ DOIs", table3[0].column_label) == "52.2M (64.3%)"


def test_federal_register_table_without_caption(parsed_pdf):
    doc = parsed_pdf(FEDREG)
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert len(tables) == 2
    cells = [c for t in tables for c in table_cells(t.cells)]
    assert _cell(cells, "AOA sensor system test", "Parts cost") == "$0"
    assert _cell(cells, "AFM revisions", "Cost per product") == "$85"  # dot leaders gone
    assert not any("...." in c.value or "...." in c.row_label for c in cells)


def test_currency_column_merged_and_markdown_stripped():
    markdown = (
        "(Dollars in Millions)\n\n"
        "|(Dollars in Millions)|Pharmaceutical||MedTech||\n|---|---|---|---|---|\n"
        "|U.S.|**$**|**22,439**|$|_9,010_|\n|International|$|18,000|$|7,100|\n")
    grid = table_grid(markdown)
    assert grid.header == ["(Dollars in Millions)", "Pharmaceutical", "MedTech"]
    cells = table_cells(markdown)
    assert [(c.row_label, c.column_label, c.value, c.unit) for c in cells] == [
        ("U.S.", "Pharmaceutical", "22,439", "$"),
        ("U.S.", "MedTech", "9,010", "$"),
        ("International", "Pharmaceutical", "18,000", "$"),
        ("International", "MedTech", "7,100", "$"),
    ]
    assert TableGrid.from_json(grid.to_json()) == grid
    assert table_cells("no table here") == [] and table_grid("").to_json() == ""


def test_a_group_column_before_the_labels_leaves_every_row_named():
    """Kimi k1.5's and DeepSeek's result tables print a group ("Reasoning", "Vision") in a first column
    that is empty on most rows; the benchmark in the second column names each row."""
    markdown = ("|  | Benchmark (Metric) | QwQ-32B | OpenAI o1 | Kimi k1.5 |\n|---|---|---|---|---|\n"
                "|  | MATH-500 (EM) | 90.6 | 94.8 | 96.2 |\n| Reasoning | AIME 2024 (Pass@1) | 50.0 | 74.4 | 77.5 |\n"
                "|  | Codeforces (Percentile) | 62 | 94 | 94 |\n| Vision | MMMU-Val (Pass@1) | - | 77.3 | 70.0 |\n")
    cells = table_cells(markdown)
    assert _cell(cells, "AIME 2024 (Pass@1)", "OpenAI o1") == "74.4"
    assert {c.row_label for c in cells} == {"MATH-500 (EM)", "AIME 2024 (Pass@1)", "Codeforces (Percentile)",
                                            "MMMU-Val (Pass@1)"}
    assert not any(c.column_label == "Benchmark (Metric)" for c in cells)
    # Each group's summary row repeats one name (dots.llm1's "Average"): the benchmarks still name the rows.
    averaged = markdown + "|  | Average | 70.1 | 80.2 | 84.3 |\n|  | MMBench | 80.0 | 81.0 | 82.0 |\n|  | Average | 75.0 | 76.0 | 77.0 |\n"
    assert _cell(table_cells(averaged), "AIME 2024 (Pass@1)", "OpenAI o1") == "74.4"
    # A first column that names most rows stays the label column.
    plain = "| Model | Params | Score |\n|---|---|---|\n| A | 7B | 1.0 |\n| B | 13B | 2.0 |\n|  | 70B | 3.0 |\n"
    assert {c.row_label for c in table_cells(plain)} == {"A", "B"}
    # So does a headed first column with sizes beside it, however many blanks it has (review).
    sizes = ("| Model | Size | MMLU |\n|---|---|---|\n| LLaMA-2 | 7B | 45.3 |\n|  | 13B | 54.8 |\n|  | 70B | 68.9 |\n"
             "| Mixtral | 8x7B | 70.6 |\n")
    assert {c.row_label for c in table_cells(sizes)} == {"LLaMA-2", "Mixtral"}
    unheaded = sizes.replace("| Model |", "|  |")
    assert {c.row_label for c in table_cells(unheaded)} == {"LLaMA-2", "Mixtral"}  # sizes are no labels


def test_markdown_table_cells_reach_the_chunk(tmp_path):
    md = tmp_path / "t.md"
    md.write_text("Table 1: Scores.\n\n| model | score |\n|---|---|\n| a | **0.81** |\n| b | 0.79 |\n")
    doc = read_document(md, tmp_path / "assets")
    [chunk] = [c for c in chunk_document(doc, "d", "fixed", size=50, overlap=0) if c.kind == "table"]
    assert json.loads(chunk.cells)["rows"] == [["a", "0.81"], ["b", "0.79"]]
    assert [(c.row_label, c.column_label, c.value) for c in table_cells(chunk)] == [
        ("a", "score", "0.81"), ("b", "score", "0.79")]


# ---------------------------------------------------------------- which pages get find_tables


def _pdf(tmp_path: Path, name: str, draw) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    draw(page)
    path = tmp_path / name
    doc.save(path)
    return path


def _grid_table(page: pymupdf.Page, ruled: bool) -> None:
    page.insert_text((72, 100), "Quarterly figures of the river project are shown below for review.", fontsize=10)
    rows = [("Region", "2022", "2023"), ("North", "1,204", "1,310"), ("South", "980", "1,020"),
            ("East", "450", "515"), ("West", "77", "91")]
    x = [72, 220, 320, 420]
    for i, row in enumerate(rows):
        y = 160 + 22 * i
        for j, text in enumerate(row):
            page.insert_text((x[j] + 4, y + 15), text, fontsize=10)
        if ruled:
            page.draw_line((x[0], y), (x[-1], y))
    if ruled:
        bottom = 160 + 22 * len(rows)
        page.draw_line((x[0], bottom), (x[-1], bottom))
        for xx in x:
            page.draw_line((xx, 160), (xx, bottom))


def test_table_cue_on_pages_with_and_without_ruling_lines(tmp_path):
    ruled = _pdf(tmp_path, "ruled.pdf", lambda p: _grid_table(p, True))
    unruled = _pdf(tmp_path, "unruled.pdf", lambda p: _grid_table(p, False))

    def prose(page: pymupdf.Page) -> None:
        page.insert_textbox(pymupdf.Rect(72, 100, 520, 400), "The river rose in spring. " * 30, fontsize=10)
        page.draw_line((72, 420), (520, 420))  # one rule above the footnotes

    plain = _pdf(tmp_path, "prose.pdf", prose)
    [ruled_page] = parse_pages(ruled, [0])
    assert ruled_page.table_cue == "ruled" and len(ruled_page.tables) == 1
    assert "1,310" in ruled_page.tables[0].markdown
    [unruled_page] = parse_pages(unruled, [0])
    assert unruled_page.table_cue == "columns"  # numbers in aligned columns, no rules, no caption
    [plain_page] = parse_pages(plain, [0])
    assert plain_page.table_cue == "" and plain_page.tables == []


def test_table_recall_on_the_shared_corpus(parsed_pdf):
    """18 tables before table cues (find_tables on 46 pages); none lost."""
    found = {path.name: parsed_pdf(path).tables for path in ALL_PDFS}
    assert found["ai2_longeval_eacl2023.pdf"] == 8
    assert found["ai2_s2orc_acl2020.pdf"] == 8
    assert found["reg_federal_register_2020-17221.pdf"] == 2
    assert sum(found.values()) == 18


def test_headers_are_read_as_printed_and_no_cell_holds_markup(parsed_pdf):
    """Headers come from the page's words ("Type of human evaluation", not "Typeofhumanevaluation"),
    and neither a cell nor the table's chunk text holds "<br>" or a placeholder "ColN"."""
    doc = parsed_pdf(LONGEVAL)
    grid = TableGrid.from_json(_table(doc, "Table 2").cells)
    assert grid.header == ["Type of human evaluation", "# papers", "% papers"]
    for path in (LONGEVAL, S2ORC, FEDREG):
        for block in parsed_pdf(path).blocks:
            if block.kind == "table":
                grid = TableGrid.from_json(block.cells)
                texts = [block.text, *grid.header, *(c for r in grid.rows for c in r)]
                assert not any("<br" in t or re.search(r"\bCol\d+\b", t) for t in texts), block.text[:200]


def test_a_caption_read_as_the_first_row_becomes_the_caption():
    """pymupdf cuts a caption line into the table's cells ("Table 1: C" | "urrent layo..."); the
    page's words in those boxes give the whole caption line."""
    from kg.ingest.pdf.tables import _caption_row
    words = [(10, 0, 40, 10, "Table", 0, 0, 0), (42, 0, 50, 10, "1:", 0, 0, 1), (52, 0, 90, 10, "Current", 0, 0, 2),
             (92, 0, 130, 10, "layout", 0, 0, 3), (132, 0, 170, 10, "detection", 0, 0, 4),
             (10, 20, 40, 30, "Dataset", 1, 0, 0), (92, 20, 130, 30, "Base", 1, 0, 1), (132, 20, 170, 30, "Notes", 1, 0, 2)]
    first, second = [(0, -1, 60, 11), (60, -1, 110, 11), (110, -1, 180, 11)], [(0, 19, 60, 31), (60, 19, 110, 31), (110, 19, 180, 31)]
    caption = _caption_row(first, words, 5)
    assert caption is not None and caption.label == "Table 1" and caption.text == "Table 1: Current layout detection"
    assert _caption_row(second, words, 5) is None


def test_two_tables_printed_side_by_side_give_each_row_its_own_cells():
    """LGN's Table 3 (q37): MSRA's results and Weibo's share each printed line; read as one table,
    "Zhang et al. (2006)" got Peng and Dredze's 58.99 under "All". The label header printed again
    starts the second table; the empty column between belongs to neither."""
    from kg.ingest.tables import side_by_side, table_cells, table_grid

    text = ("| Models | P | F1 |  | Models | NM | All |\n|---|---|---|---|---|---|---|\n"
            "| Zhang et al. (2006) | 92.20 | 91.18 |  | Peng and Dredze (2015) | 62.97 | 58.99 |\n"
            "| Lattice LSTM | 94.18 | 93.18 |  | LGN | 64.98 | 60.21 |")
    assert side_by_side(table_grid(text)) == [(0, 3), (4, 7)]
    cells = {(c.row_label, c.column_label): c for c in table_cells(text)}
    assert cells[("Peng and Dredze (2015)", "All")].value == "58.99"
    assert ("Zhang et al. (2006)", "All") not in cells and ("Zhang et al. (2006)", "F1") in cells
    assert cells[("LGN", "All")].row != cells[("Lattice LSTM", "F1")].row  # one printed line, two rows
    assert side_by_side(table_grid("| Model | P | Model size |\n|---|---|---|\n| A | 1 | 7B |")) == [(0, 3)]


def test_a_header_set_one_column_left_of_its_values_and_a_second_header_row_name_the_columns():
    """J&J's Q2 2023 release: "2022" and "Reported" stand over empty columns, their values one to the
    right; the years and change kinds are a second header row under "Q2" and "% Change". A row whose
    cells hold amounts ("Up to $3,790") is a body row, and a group row naming no value column stays."""
    from kg.ingest.tables import table_cells

    text = ("|  | Q2 |  |  |  |  |  | % Change | % Change |\n|---|---|---|---|---|---|---|---|---|\n"
            "| ($ in Millions) |  |  | 2023 |  | 2022 |  | Reported |  |\n"
            "|  | Consumer Health |  | $4,011 |  |  | $3,805 |  | 5.4% |\n"
            "|  | Pharmaceutical |  | 13,731 |  |  | 13,317 |  | 3.1 |\n"
            "|  | Worldwide |  | $25,530 |  |  | $24,020 |  | 6.3% |")
    cells = {(c.row_label, c.column_label): c.value for c in table_cells(text)}
    assert cells == {(row, column): value for row, values in (
        ("Consumer Health", ("$4,011", "$3,805", "5.4%")), ("Pharmaceutical", ("13,731", "13,317", "3.1")),
        ("Worldwide", ("$25,530", "$24,020", "6.3%"))) for column, value in zip(("2023", "2022", "% Change Reported"), values)}
    amounts = "| Action | Parts cost |\n|---|---|\n| Wiring change | Up to $3,790 |\n| Sensor test | $0 |\n| Revisions | $0 |"
    assert {c.row_label for c in table_cells(amounts)} == {"Wiring change", "Sensor test", "Revisions"}
    unreported = ("| Model | MMLU | GSM8K | Access |\n|---|---|---|---|\n| Kettle | - | - | closed |\n"
                  "| Zorvan | 63.4 | 56.8 | open |\n| Brisk | 70.1 | 61.0 | open |")
    assert ("Kettle", "MMLU", "-") in {(c.row_label, c.column_label, c.value) for c in table_cells(unreported)}
