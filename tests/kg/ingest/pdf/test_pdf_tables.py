"""Tables on a PDF page: which pages get table detection (table_cues) and what a found table becomes
(tables): one table block with its caption and cells, its text not repeated as prose."""

from __future__ import annotations

import json

import pymupdf

from kg.ingest.pdf import parse_pages, read_pdf
from kg.ingest.pdf.tables import join_wrapped_labels
from pdf_maker import HEIGHT, LOREM, WIDTH, line, paragraph, save

ROWS = [("Bay", "Area (km2)", "Depth (m)"), ("North Bay", "1,200", "14"), ("East Bay", "860", "9"),
        ("South Bay", "2,310", "21")]


def ruled_table(page: pymupdf.Page, top: float, rows=ROWS, left: float = 100, widths=(160, 110, 110)) -> None:
    height = 22
    right = left + sum(widths)
    for r in range(len(rows) + 1):
        page.draw_line((left, top + r * height), (right, top + r * height))
    x = left
    for w in (0, *widths):
        x += w
        page.draw_line((x - w if w == 0 else x, top), (x - w if w == 0 else x, top + len(rows) * height))
    for r, row in enumerate(rows):
        x = left
        for cell, w in zip(row, widths):
            line(page, top + r * height + 15, cell, 10, x=x + 4)
            x += w


def document(path, caption: str = "Table 1: Bays surveyed in 2023.", rules: bool = True) -> str:
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 80, LOREM * 2)
    if caption:
        line(page, 190, caption)
    if rules:
        ruled_table(page, 200)
    else:  # the same figures set in plain columns
        for r, row in enumerate(ROWS):
            for c, cell in enumerate(row):
                line(page, 215 + 22 * r, cell, 10, x=104 + 160 * min(c, 1) + 110 * max(c - 1, 0))
    paragraph(page, 320, "After the table. " + LOREM)
    prose = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(prose, 80, LOREM * 4)
    return save(doc, path)


def test_pages_get_table_detection_only_for_a_cue(tmp_path):
    cues = [p.table_cue for p in parse_pages(document(tmp_path / "a.pdf"), [0, 1])]
    assert cues == ["caption", ""]  # the prose page pays nothing for detection
    assert parse_pages(document(tmp_path / "b.pdf", caption=""), [0])[0].table_cue == "ruled"
    assert parse_pages(document(tmp_path / "c.pdf", caption="", rules=False), [0])[0].table_cue == "columns"


def test_a_ruled_table_becomes_one_table_block_with_its_caption_and_cells(tmp_path):
    doc = read_pdf(document(tmp_path / "t.pdf"), tmp_path / "assets", workers=1)
    [table] = [b for b in doc.blocks if b.kind == "table"]
    assert doc.tables == 1 and table.label == "Table 1"
    assert table.text.startswith("Table 1: Bays surveyed in 2023.\n\n| Bay | Area (km2) | Depth (m) |")
    grid = json.loads(table.cells)
    assert grid["header"] == list(ROWS[0]) and grid["rows"] == [list(r) for r in ROWS[1:]]
    # the caption and the cells are not repeated as prose blocks
    prose = " ".join(b.text for b in doc.blocks if b.kind != "table")
    assert "North Bay" not in prose and "Bays surveyed" not in prose
    assert [b.text.split(".")[0] for b in doc.blocks if b.kind == "text"][1] == "After the table"


def test_a_table_without_caption_is_still_a_table(tmp_path):
    doc = read_pdf(document(tmp_path / "t.pdf", caption=""), tmp_path / "assets", workers=1)
    [table] = [b for b in doc.blocks if b.kind == "table"]
    assert table.label == "" and "| South Bay | 2,310 | 21 |" in table.text


def test_a_caption_line_over_the_table_columns_is_the_caption_once(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 80, LOREM * 2)
    line(page, 193, "Table 1: Bays surveyed in 2023.", x=104)  # set over the table's own columns
    ruled_table(page, 200)
    parsed = read_pdf(save(doc, tmp_path / "t.pdf"), tmp_path / "assets", workers=1)
    labelled = [b for b in parsed.blocks if b.label == "Table 1"]
    assert [b.kind for b in labelled] == ["table"]  # not also a caption block of its own
    assert labelled[0].text.startswith("Table 1: Bays surveyed in 2023.\n\n| Bay | Area (km2) | Depth (m) |")


RECONCILIATION = [("Core reconciliation", "", "", ""), ("Total expense", "4,671,119", "4,453,850", "3,466,221"),
                  ("Advisory and commission", "(3,507,164)", "(3,291,209)", "(2,483,165)"),
                  ("Regulatory charges", "(8,158)", "(7,501)", "(7,267)"), ("Core G&A", "519,272", "532,049", "425,595")]


def test_period_names_printed_just_above_a_shaded_table_are_its_header(tmp_path):
    """An earnings release's reconciliation: rows shaded in turn, the periods "Q2 2026 Q1 2026 Q2 2025"
    printed and underlined on the line above the shading, its first row a section title (LPL's Q2 2026
    release: pymupdf finds the body without them). The
    periods are the header, the section title a row, and the periods are no prose."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 80, "Below is a reconciliation of total expense to core G&A for the periods presented "
                        "(in thousands):")
    top, height, columns = 150, 18, (80, 300, 380, 460, 540)
    for k, period in enumerate(("Q2 2026", "Q1 2026", "Q2 2025")):  # right-aligned, underlined, over each column
        line(page, top - 4, period, 9, x=columns[k + 2] - 6 - pymupdf.get_text_length(period, fontsize=9))
        page.draw_rect(pymupdf.Rect(columns[k + 1], top - 1, columns[k + 2], top), color=None, fill=(0, 0, 0))
    for r, row in enumerate(RECONCILIATION):  # each cell a filled box, rows grey and white in turn
        y = top + r * height
        for x0, x1 in zip(columns, columns[1:]):
            shade = (0.86, 0.86, 0.86) if r % 2 == 0 else (1, 1, 1)
            page.draw_rect(pymupdf.Rect(x0, y, x1, y + height), color=None, fill=shade)
        line(page, y + 13, row[0], 9, x=86)
        for k, value in enumerate(row[1:]):
            line(page, y + 13, value, 9, x=columns[k + 2] - 6 - pymupdf.get_text_length(value, fontsize=9))
    paragraph(page, 300, "After the table. " + LOREM)
    parsed = read_pdf(save(doc, tmp_path / "release.pdf"), tmp_path / "assets", workers=1)
    [table] = [b for b in parsed.blocks if b.kind == "table"]
    grid = json.loads(table.cells)
    assert grid["header"][1:] == ["Q2 2026", "Q1 2026", "Q2 2025"]
    assert ["Total expense", "4,671,119", "4,453,850", "3,466,221"] in grid["rows"]
    assert not any("Q1 2026" in b.text for b in parsed.blocks if b.kind != "table")


CASH_FLOWS = [("(in thousands)", "Q2 2026", "Q2 2025"), ("Operating activities:", "", ""),
              ("Net loss", "(33,248)", "(77,078)"), ("Depreciation and", "", ""),
              ("amortization expense", "27,008", "35,782"), ("Issuance of common stock under", "", ""),
              ("shareholders, net of loans", "", ""), ("issued", "132", "262"),
              ("Repayment of long-term debt", "", ""), ("and lease obligations", "(74,494)", "(370,272)")]


def test_a_row_label_printed_over_two_ruled_rows_is_one_label_on_the_row_of_its_values(tmp_path):
    """A cash-flow statement (Krispy Kreme's Q2 2026 release) rules every printed line as a row, so a
    label broken over two or three lines came out as label-only rows over a row "and lease obligations"
    holding the values. The label is whole on its values' row; a section title ending in ":" stays a row."""
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 80, "Cash flows for the quarter are set out below. " + LOREM)
    ruled_table(page, 160, CASH_FLOWS, left=80, widths=(200, 100, 100))
    paragraph(page, 420, "After the table. " + LOREM)
    parsed = read_pdf(save(doc, tmp_path / "cash.pdf"), tmp_path / "assets", workers=1)
    [table] = [b for b in parsed.blocks if b.kind == "table"]
    rows = json.loads(table.cells)["rows"]
    assert ["Depreciation and amortization expense", "27,008", "35,782"] in rows
    assert ["Repayment of long-term debt and lease obligations", "(74,494)", "(370,272)"] in rows
    assert ["Issuance of common stock under shareholders, net of loans issued", "132", "262"] in rows
    assert rows[0][0] == "Operating activities:" and not any(r[0] == "and lease obligations" for r in rows)


def test_a_label_only_row_over_a_row_of_its_own_is_not_joined():
    """A group's title over rows that name themselves ("w/o CRF", "BiLSTM"): nothing is joined."""
    rows = [["Model", "F1"], ["Ablations", ""], ["w/o CRF", "88.1"], ["Baselines", ""], ["BiLSTM", "87.0"]]
    assert join_wrapped_labels(rows) == rows


def test_years_printed_under_the_period_names_join_the_header(tmp_path):
    """Centene's membership table prints "June 30," over each column and the years on the row below: the
    years are the columns' names (before, "2026 | 2025" was a body row and both columns "June 30,")."""
    rows = [("", "June 30,", "June 30,"), ("", "2026", "2025"), ("Traditional Medicaid", "10,745,800", "11,227,400"),
            ("Marketplace", "5,012,300", "5,870,100"), ("Medicare PDP", "7,401,900", "7,109,800")]
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 80, "Membership at the end of the quarter was as follows. " + LOREM)
    ruled_table(page, 160, rows, left=80, widths=(200, 100, 100))
    parsed = read_pdf(save(doc, tmp_path / "members.pdf"), tmp_path / "assets", workers=1)
    [table] = [b for b in parsed.blocks if b.kind == "table"]
    grid = json.loads(table.cells)
    assert grid["header"][1:] == ["June 30, 2026", "June 30, 2025"]
    assert grid["rows"][0] == ["Traditional Medicaid", "10,745,800", "11,227,400"]
