"""Reading order on a PDF page: a two-column page is read column by column, full-width items split it."""

from __future__ import annotations

import pymupdf

from kg.ingest.pdf import parse_pages, read_pdf
from kg.ingest.pdf.order import reading_order
from pdf_maker import HEIGHT, WIDTH, line, paragraph, save

LEFT, RIGHT = (50, 280), (315, 545)


def two_columns(path) -> str:
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 60, "A two column report on the delta survey of the coastal bays", 14, x=60)
    # right column starts higher than the left one's second paragraph: sorting by height alone interleaves
    paragraph(page, 100, "Left one. " + "Measurements of the delta banks. " * 6, left=LEFT[0], right=LEFT[1])
    paragraph(page, 230, "Left two. " + "Sediment samples from the bays. " * 6, left=LEFT[0], right=LEFT[1])
    paragraph(page, 110, "Right one. " + "Boats used by the survey teams. " * 6, left=RIGHT[0], right=RIGHT[1])
    paragraph(page, 240, "Right two. " + "Weather during the spring visits. " * 6, left=RIGHT[0], right=RIGHT[1])
    paragraph(page, 380, "Wide note. " + "This paragraph spans both columns of the page. " * 3, left=50, right=545)
    paragraph(page, 460, "Left three. " + "Second band, left column text. " * 5, left=LEFT[0], right=LEFT[1])
    paragraph(page, 460, "Right three. " + "Second band, right column text. " * 5, left=RIGHT[0], right=RIGHT[1])
    return save(doc, path)


def starts(texts) -> list[str]:
    return [t.split(".")[0] for t in texts]


def test_columns_are_read_left_then_right_within_each_band(tmp_path):
    [page] = parse_pages(two_columns(tmp_path / "c.pdf"), [0])
    order = starts(item.text for item in reading_order(page))
    assert order == ["A two column report on the delta survey of the coastal bays", "Left one", "Left two",
                     "Right one", "Right two", "Wide note", "Left three", "Right three"]


def test_the_document_blocks_follow_the_reading_order(tmp_path):
    doc = read_pdf(two_columns(tmp_path / "c.pdf"), tmp_path / "assets", workers=1)
    assert starts(b.text for b in doc.blocks)[1:] == ["Left one", "Left two", "Right one", "Right two",
                                                      "Wide note", "Left three", "Right three"]
