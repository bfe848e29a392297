"""Table cells as printed (kg.ingest.pdf.printed_table): PDFs written here with pymupdf, read back
through the reader, and the grid rebuilt from a page's real words when detection packs printed rows
and columns into one cell box."""

from __future__ import annotations

import json

import pymupdf

from kg.ingest.pdf import read_pdf
from kg.ingest.pdf.printed_table import doubt, printed_grid, spell_ligatures
from pdf_maker import HEIGHT, LOREM, WIDTH, line, paragraph, save
from tests.kg.ingest.pdf_corpus import S2ORC, parsed_pdf  # noqa: F401 (fixture)

COLUMNS = [124, 260, 330, 400]
ROWS = [(["BM25"], "43.8", "59.1", "73.7"), (["Dense passage", "retriever"], "68.3", "78.4", "85.4"),
        (["BM25 + DPR"], "65.2", "76.6", "83.8")]


def booktabs(path) -> pymupdf.Document:
    """A paper's table: only horizontal rules, a header spanning the value columns, a label on two lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 72, LOREM * 2)
    line(page, 190, "Table 2: Retrieval accuracy on the test sets.")
    page.draw_line((120, 198), (470, 198), width=1)
    line(page, 212, "Top-k accuracy", x=320)
    page.draw_line((255, 216), (470, 216), width=0.5)
    for x, text in zip(COLUMNS, ["Retriever", "Top-5", "Top-20", "Top-100"]):
        line(page, 228, text, x=x)
    page.draw_line((120, 233), (470, 233), width=0.5)
    y = 247
    for label, *values in ROWS:
        for k, part in enumerate(label):
            line(page, y + 12 * k, part, x=COLUMNS[0])
        for x, value in zip(COLUMNS[1:], values):
            line(page, y, value, x=x)
        y += 12 * len(label) + 4
    page.draw_line((120, y - 6), (470, y - 6), width=1)
    paragraph(page, y + 20, "After the table. " + LOREM)
    return save(doc, path)


def test_a_booktabs_table_reads_as_printed_with_its_multi_line_label_in_one_cell(tmp_path):
    doc = read_pdf(booktabs(tmp_path / "b.pdf"), tmp_path / "assets", workers=1)
    [table] = [b for b in doc.blocks if b.kind == "table"]
    grid = json.loads(table.cells)
    assert table.label == "Table 2" and "kept_as_text" not in grid
    assert grid["rows"] == [["BM25", "43.8", "59.1", "73.7"], ["Dense passage retriever", "68.3", "78.4", "85.4"],
                            ["BM25 + DPR", "65.2", "76.6", "83.8"]]
    assert grid["header"][:2] == ["Retriever", "Top-5"] and grid["header"][3] == "Top-100"
    assert grid["header"][2].endswith("Top-20")  # the spanning "Top-k accuracy" sits over this column


def packed_page(tmp_path):
    """Two printed rows and a two-number column, as a results table prints them."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 100, "Before Perturb", x=190)
    for x, text in ((190, "ALL"), (240, "SEQ"), (300, "V"), (330, "P")):
        line(page, 114, text, x=x)
    for y, label, values in ((130, "TAPAS inter", ("70.6", "43.9", "66.1", "10.8%")),
                             (144, "TABLEFORMER inter", ("72.4", "47.5", "72.3", "0.1%"))):
        line(page, y, label, x=72)
        for x, value in zip((190, 240, 300, 330), values):
            line(page, y, value, x=x)
    save(doc, tmp_path / "p.pdf")
    return pymupdf.open(tmp_path / "p.pdf")


def test_cell_boxes_holding_two_printed_rows_and_two_columns_are_split(tmp_path):
    with packed_page(tmp_path) as doc:
        words = doc[0].get_text("words")
    # what detection returns on such tables: a spanning header cell (its neighbour covered: None), one box
    # over both data rows, and the "V P" column pair in one box
    boxes = [[(70, 90, 180, 104), (185, 90, 295, 104), None, (295, 90, 360, 104)],
             [(70, 104, 180, 118), (185, 104, 235, 118), (235, 104, 295, 118), (295, 104, 360, 118)],
             [(70, 118, 180, 150), (185, 118, 235, 150), (235, 118, 295, 150), (295, 118, 360, 150)]]
    rows = printed_grid(boxes, words)
    assert rows[0] == ["", "Before Perturb ALL", "Before Perturb SEQ", "V", "P"]
    assert rows[1:] == [["TAPAS inter", "70.6", "43.9", "66.1", "10.8%"],
                        ["TABLEFORMER inter", "72.4", "47.5", "72.3", "0.1%"]]
    assert doubt(rows) == ""


def test_a_grid_with_two_numbers_in_a_cell_is_kept_as_text_with_the_reason():
    rows = [["Dataset", "Train"], ["NQ", "79,168 58,880"], ["SQuAD", "78,713"]]
    assert "two or more printed numbers" in doubt(rows)
    assert doubt([["Model", "dev"], ["Table 5: ALL questions", "x"], ["A", "1"]]).startswith("a caption")
    assert doubt([["Model", "Score"], ["A", "85.3 ± 0.2"], ["B", "1,200"]]) == ""


def test_ligatures_are_spelled_out_and_nothing_else_changes():
    assert spell_ligatures("ﬂow ﬁle oﬀ eﬃcient") == "flow file off efficient"
    assert spell_ligatures("x² −3 ½ Ⅳ ＡＢ") == "x² −3 ½ Ⅳ ＡＢ"  # NFKC would change these: they stay


def test_the_s2orc_paper_tables_read_as_printed(parsed_pdf):
    """A real paper (shared corpus): the ligature in a header is spelled out, a header broken at a
    hyphen ("S2ORC-" over "SCIBERT") is one header cell, and the results rows read as printed."""
    tables = [json.loads(b.cells) for b in parsed_pdf(S2ORC).blocks if b.kind == "table" and b.cells]
    headers = [t.get("header", []) for t in tables]
    assert ["Corpus", "Papers w/ body text", "Citation contexts", "References to tables / figures / equations",
            "Linked to graph", "Academic disciplines"] in headers
    [results] = [t for t in tables if t.get("header", [""])[0] == "Domain"]
    assert results["header"] == ["Domain", "Dataset", "Reference", "Task", "SCIBERT", "S2ORC-SCIBERT"]
    assert ["", "BC5CDR", "Li et al. (2016)", "NER", "90.01", "90.41 ± 0.06"] == results["rows"][0]
    assert not any("\ufb01" in c or "\ufb02" in c for t in tables for r in t.get("rows", []) for c in r)


def test_a_table_kept_as_text_shows_its_printed_lines_and_says_why_in_its_cells():
    from kg.ingest.pdf.order import to_block
    from kg.ingest.pdf.types import RawTable
    from kg.ingest.tables import table_cells
    markdown = "|Dataset|Train|\n|---|---|\n|NQ|79,168 58,880|\n|SQuAD|78,713 70,096|"
    reason = doubt([["Dataset", "Train"], ["NQ", "79,168 58,880"], ["SQuAD", "78,713 70,096"]])
    block = to_block(RawTable(pymupdf.Rect(0, 0, 100, 50), markdown, None, reason), 4, 10.0, {})
    assert block.kind == "table" and json.loads(block.cells) == {"kept_as_text": reason}
    assert block.text == "Dataset  Train\nNQ  79,168 58,880\nSQuAD  78,713 70,096"
    assert table_cells(block) == []  # no chain asks for one of its cells
