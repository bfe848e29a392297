"""A one-page PDF that is nothing but a ruled table (a price list, a drug schedule) has a text
layer: its text is all in the table. It was refused as "no text layer (scanned PDF?)"."""

import pymupdf
import pytest

from kg.models import IngestError
from kg.ingest.pdf.reader import read_pdf

ROWS = [("Drug", "Dose", "Stock"), ("Lignocaine", "30 ml", "Y"), ("Atropine", "0.6 mg", "N"),
        ("Adrenaline", "1 mg", "Y"), ("Diazepam", "10 mg", "Y")]


def _ruled_table_pdf(path):
    doc = pymupdf.open()
    page = doc.new_page()
    x0, y0, w, h = 72, 150, 150, 24
    x1, y1 = x0 + w * len(ROWS[0]), y0 + h * len(ROWS)
    for r in range(len(ROWS) + 1):  # a ruled grid, as a printed schedule has
        page.draw_line((x0, y0 + r * h), (x1, y0 + r * h), color=(0, 0, 0), width=0.8)
    for c in range(len(ROWS[0]) + 1):
        page.draw_line((x0 + c * w, y0), (x0 + c * w, y1), color=(0, 0, 0), width=0.8)
    for r, row in enumerate(ROWS):
        for c, cell in enumerate(row):
            page.insert_text((x0 + c * w + 4, y0 + (r + 1) * h - 7), cell, fontsize=10)
    doc.save(path)


def test_a_page_that_is_one_table_is_ingested_as_a_table(tmp_path):
    pdf = tmp_path / "schedule.pdf"
    _ruled_table_pdf(pdf)
    parsed = read_pdf(pdf, tmp_path / "assets")
    tables = [b for b in parsed.blocks if b.kind == "table"]
    assert tables, "the table was not kept"
    assert "0.6 mg" in tables[0].text and "Atropine" in tables[0].text


def test_an_empty_page_is_still_refused_with_the_reason(tmp_path):
    pdf = tmp_path / "blank.pdf"
    doc = pymupdf.open()
    doc.new_page()
    doc.save(pdf)
    with pytest.raises(IngestError, match="no text layer"):
        read_pdf(pdf, tmp_path / "assets")
