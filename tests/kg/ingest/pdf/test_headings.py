"""Headings in a PDF: the body size, which lines are headings and at what level, section numbers."""

from __future__ import annotations

import pymupdf

from kg.ingest.pdf import parse_pages, read_pdf
from kg.ingest.pdf.headings import body_font_size, heading_sizes
from pdf_maker import HEIGHT, LOREM, WIDTH, line, paragraph, save


def paper(path) -> str:
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 80, "Sediment and the Delta", 20, font="hebo")
    line(page, 120, "1 Introduction", 14, font="hebo")
    y = paragraph(page, 135, LOREM * 2)
    line(page, y + 10, "1.1 Scope", 12, font="hebo")
    y = paragraph(page, y + 25, LOREM * 2)
    line(page, y + 10, "Background", 14, font="hebo")
    y = paragraph(page, y + 25, LOREM)
    line(page, y + 10, "Sites were visited in spring,", 14)  # large, but a clause: no heading
    line(page, y + 40, "2020 Survey", 14, font="hebo")  # a year, not section 2020
    line(page, y + 70, "Short bold line in body type", 10, font="hebo")
    paragraph(page, y + 85, LOREM * 2)
    return save(doc, path)


def test_the_body_size_is_the_size_of_most_text(tmp_path):
    pages = parse_pages(paper(tmp_path / "p.pdf"), [0])
    assert body_font_size(pages) == 10.0
    assert body_font_size([]) == 10.0  # a document without text lines gets the common default


def test_numbered_headings_fix_their_size_and_other_sizes_rank_by_size(tmp_path):
    pages = parse_pages(paper(tmp_path / "p.pdf"), [0])
    levels = heading_sizes(pages, 10.0)
    assert levels[20.0] == 1 and levels[14.0] == 1 and levels[12.0] == 2
    assert levels[10.0] == 3  # bold body-size headings rank below the smallest numbered level


def test_heading_blocks_levels_and_sections(tmp_path):
    doc = read_pdf(paper(tmp_path / "p.pdf"), tmp_path / "assets", workers=1)
    headings = [(b.text, b.heading_level, b.section) for b in doc.blocks if b.kind == "heading"]
    assert headings == [("Sediment and the Delta", 1, ""), ("1 Introduction", 1, "1"), ("1.1 Scope", 2, "1.1"),
                        ("Background", 1, ""), ("2020 Survey", 1, ""), ("Short bold line in body type", 3, "")]
    text = {b.text: (b.kind, b.section) for b in doc.blocks if b.kind == "text"}
    assert text["Sites were visited in spring,"] == ("text", "")
    # blocks under a numbered heading carry its number until an unnumbered top heading closes it
    sections = [b.section for b in doc.blocks if b.text.startswith("The river")]
    assert sections == ["1", "1.1", "", ""]
    assert doc.title == "Sediment and the Delta" and doc.title_source == "heading"
