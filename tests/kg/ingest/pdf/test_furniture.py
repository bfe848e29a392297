"""Page furniture: running headers, page numbers, print codes and contents pages, on PDFs made here."""

from __future__ import annotations

import pymupdf

from kg.ingest.pdf import parse_pages, read_pdf
from kg.ingest.pdf.furniture import drop_furniture, is_typesetting_code
from pdf_maker import HEIGHT, LOREM, WIDTH, line, paragraph, save

HEADER = "Water Board Annual Report 2023"


def report(path, pages: int = 5, one_off_top: str = "") -> str:
    doc = pymupdf.open()
    for n in range(1, pages + 1):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        line(page, 40, HEADER, 8)
        if n == 2 and one_off_top:
            line(page, 60, one_off_top, 8, x=300)
        paragraph(page, 100, f"Section {n} text. " + LOREM * 3)
        line(page, 810, f"Page {n} of {pages}", 8, x=280)
        if n == 3:
            line(page, 700, "VerDate Sep<11>2014 17:44 Aug 05, 2020 Jkt 250001")
    return save(doc, path)


def test_headers_page_numbers_and_print_codes_are_dropped_and_the_body_kept(tmp_path):
    doc = read_pdf(report(tmp_path / "r.pdf"), tmp_path / "assets", workers=1)
    text = "\n".join(b.text for b in doc.blocks)
    assert doc.furniture_removed == 11  # 5 headers, 5 page numbers, 1 print-run slug
    assert "Water Board" not in text and "Page 3 of 5" not in text and "VerDate" not in text
    assert [b.text.split(".")[0] for b in doc.blocks] == [f"Section {n} text" for n in range(1, 6)]


def test_the_running_header_words_are_reported_for_the_title_check(tmp_path):
    path = report(tmp_path / "r.pdf")
    pages = parse_pages(path, range(5))
    furniture = drop_furniture(pages)
    assert {"water", "board", "annual", "report"} <= furniture.words
    assert furniture.contents_pages == set()


def test_a_line_in_the_margin_of_one_page_only_is_kept(tmp_path):
    doc = read_pdf(report(tmp_path / "r.pdf", one_off_top="Draft for comment"), tmp_path / "assets", workers=1)
    assert any(b.text == "Draft for comment" for b in doc.blocks)


def test_a_two_page_document_needs_the_header_on_both_pages(tmp_path):
    doc = read_pdf(report(tmp_path / "r.pdf", pages=2), tmp_path / "assets", workers=1)
    assert not any(HEADER in b.text for b in doc.blocks)


def test_a_page_of_dot_leaders_is_a_contents_page(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    line(page, 100, "Contents", 16, font="hebo")
    for i in range(6):
        line(page, 140 + 20 * i, f"{i + 1} Chapter {i + 1} " + "." * 40 + f" {3 + 4 * i}")
    line(page, 300, "Reading guide for the chapters")
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 100, LOREM * 3)
    parsed = read_pdf(save(doc, tmp_path / "toc.pdf"), tmp_path / "assets", workers=1)
    assert parsed.furniture_removed == 6
    roles = {b.text: b.role for b in parsed.blocks}
    assert roles["Reading guide for the chapters"] == "contents"  # on the contents page, whatever it says
    assert not any("Chapter" in t for t in roles)
    assert [r for t, r in roles.items() if t.startswith("The river")] == ["body"]


def test_typesetting_codes():
    for code in ("EP06AU20.016</GPH>", "VerDate Sep<11>2014 17:44 Aug 05, 2020", "Jkt 250001", "Frm 00012",
                 "E:\\FR\\FM\\06AUP1.SGM", "06AUP1", "jbell on DSKJLSW7X2PROD with PROPOSALS"):
        assert is_typesetting_code(code), code
    for text in ("Section 3 results", "PO Box 12", "Frm 00012 " + "x" * 80):
        assert not is_typesetting_code(text), text
