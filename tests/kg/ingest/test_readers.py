"""Readers on real documents from the shared corpus, and on bad input made in tmp_path."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from kg.ingest import read_document
from tests.kg.ingest.pdf_corpus import parsed_pdf  # noqa: F401  (a session fixture)
from kg.models import IngestError

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "corpus"
PDF_DIR = CORPUS / "pdf"
KI67 = PDF_DIR / "med_ki67_breast_cancer_curroncol2023.pdf"
FAA = PDF_DIR / "manual_faa_amt_handbook_sample.pdf"
NIST = PDF_DIR / "report_nist_sp800-223_hpc_security.pdf"
S2ORC = PDF_DIR / "ai2_s2orc_acl2020.pdf"

@pytest.fixture(scope="module")
def parse(parsed_pdf):
    return parsed_pdf  # tests/kg/ingest/pdf_corpus.py parses each corpus file once per session


# ---------------------------------------------------------------- real PDFs


def test_ki67_figures_have_captions_and_logos_are_skipped(parse):
    doc = parse(KI67)
    labels = {img.label for img in doc.images}
    assert {"Figure 1", "Figure 2", "Figure 3", "Figure 4"} <= labels
    assert doc.skipped_images >= 4  # journal logo and icons on page 1
    for image in doc.images:
        assert image.caption.startswith("Figure"), image
        assert min(image.width, image.height) >= 150
        assert Path(image.path).is_file()
        assert Path(image.path).parent.name == doc.sha256[:16]
        assert image.page >= 2 and len(image.bbox) == 4
        # page 8 holds Figure 4's continuation and no prose: its panel labels are the figure's, not nearby text
        assert image.nearby_text or (image.page == 8 and image.visible_text == "(a)\n(b)")
    fig2 = next(img for img in doc.images if img.label == "Figure 2")
    assert "Liver" in fig2.caption and fig2.page == 6
    captions = [b for b in doc.blocks if b.kind == "caption"]
    assert {b.label for b in captions} == {"Figure 1", "Figure 2", "Figure 3", "Figure 4"}
    assert doc.title.startswith("Ki67 in Breast Cancer Assay")


def test_ki67_headings_numbered_sections(parse):
    doc = parse(KI67)
    headings = {b.text: b for b in doc.blocks if b.kind == "heading"}
    assert headings["1. Background"].section == "1"
    assert headings["1. Background"].heading_level == 1
    # Blocks below a numbered heading carry its section.
    after = [b for b in doc.blocks if b.kind == "text" and b.page == 10]
    assert after and all(b.section == "3" for b in after[-2:])


def test_faa_side_by_side_figures(parse):
    doc = parse(FAA)
    by_label = {img.label: img for img in doc.images}
    assert set(by_label) == {"Figure 7-26", "Figure 7-27"}
    assert by_label["Figure 7-26"].caption == "Figure 7-26. Self-locking nuts."
    assert by_label["Figure 7-27"].caption == "Figure 7-27. Stainless steel self-locking nut."
    # The left figure lies in the left column, the right one in the right column.
    assert by_label["Figure 7-26"].bbox[2] <= by_label["Figure 7-27"].bbox[0] + 1
    texts = " ".join(b.text for b in doc.blocks)
    assert "Untightened nut" not in texts  # labels drawn inside the figure are not prose
    assert "7-45" not in [b.text for b in doc.blocks]  # page number dropped


def test_nist_logos_skipped_and_headings(parse):
    doc = parse(NIST)
    assert [img.label for img in doc.images] == ["Figure 1"]
    assert doc.skipped_images >= 10  # logos and thin rules
    heading = next(b for b in doc.blocks if b.kind == "heading" and b.text.startswith("2.1. Main"))
    assert heading.section == "2.1" and heading.heading_level == 2
    # "Fig. 1. ... ......" in the list of figures is not a caption.
    assert [b.page for b in doc.blocks if b.kind == "caption"] == [11]


def test_s2orc_table_keeps_caption_and_decimals(parse):
    doc = parse(S2ORC)
    tables = {b.label: b for b in doc.blocks if b.kind == "table"}
    assert doc.tables >= 5 and "Table 3" in tables
    table3 = tables["Table 3"].text
    assert table3.startswith("Table 3: Statistics on paper provenance")
    assert "28.9M (35.6%)" in table3 and "73.4M (90.4%)" in table3
    assert "|---|" in table3
    table4 = tables["Table 4"].text
    assert "45.2" in table4 and "27.6" in table4
    # Text inside table boxes is not repeated as prose.
    prose = [b.text for b in doc.blocks if b.kind != "table"]
    assert not any("Papers w/ PMC IDs" in t for t in prose)
    # The "Table 4. On average ..." paragraph is prose, not a caption.
    assert not any(b.kind == "caption" and b.text.startswith("Table 4. On average") for b in doc.blocks)


def test_pdf_reading_order_two_columns(parse):
    doc = parse(S2ORC)
    texts = [b.text for b in doc.blocks]
    intro = next(i for i, t in enumerate(texts) if t == "1 Introduction")
    constructing = next(i for i, t in enumerate(texts) if t.startswith("2 Constructing the corpus"))
    assert intro < constructing
    # Hyphenated line breaks are joined.
    assert not any(re.search(r"\bprocess- ing\b", t) for t in texts)


# ---------------------------------------------------------------- bad input


def _error(path: Path, tmp_path: Path) -> str:
    with pytest.raises(IngestError) as info:
        read_document(path, tmp_path / "assets")
    message = str(info.value)
    assert "\n" not in message and "Traceback" not in message and len(message) < 250
    return message


def test_corrupt_pdf(tmp_path):
    bad = tmp_path / "bad.pdf"
    bad.write_bytes(b"this is not a PDF at all, just some bytes\n" * 20)
    assert _error(bad, tmp_path).startswith("not a valid PDF")
    truncated = tmp_path / "trunc.pdf"
    truncated.write_bytes(b"%PDF-1.7\n1 0 obj <<\n")
    assert _error(truncated, tmp_path).startswith(("not a valid PDF", "PDF has no pages"))


def test_encrypted_pdf(tmp_path):
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret text " * 10)
    path = tmp_path / "enc.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="owner")
    assert _error(path, tmp_path) == "encrypted PDF (password required)"


def test_empty_files(tmp_path):
    for name in ("empty.pdf", "empty.md", "empty.txt"):
        path = tmp_path / name
        path.write_bytes(b"")
        assert _error(path, tmp_path) == "empty file"


def test_scanned_pdf_without_text_layer(tmp_path):
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 400, 400), False)
    pix.set_rect(pix.irect, (200, 180, 160))
    doc = pymupdf.open()
    doc.new_page().insert_image(pymupdf.Rect(50, 50, 450, 450), pixmap=pix)
    path = tmp_path / "scan.pdf"
    doc.save(path)
    assert _error(path, tmp_path) == "no text layer (scanned PDF?); OCR is not supported"


def test_zero_page_pdf(tmp_path):
    # pymupdf will not save a page-less document, so write the objects by hand.
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 3\n0000000000 65535 f \n"
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    path = tmp_path / "zero.pdf"
    path.write_bytes(bytes(out))
    assert _error(path, tmp_path) == "PDF has no pages"


def test_unsupported_extension(tmp_path):
    path = tmp_path / "sheet.xyz"
    path.write_text("a,b\n1,2\n")
    assert _error(path, tmp_path) == "unsupported extension .xyz"


def test_non_utf8_text(tmp_path):
    for name in ("latin.txt", "latin.md"):
        path = tmp_path / name
        path.write_bytes("Café crème brûlée\n".encode("latin-1"))
        assert _error(path, tmp_path) == "not UTF-8 text"


def test_missing_file(tmp_path):
    assert _error(tmp_path / "nope.pdf", tmp_path).startswith("file not found")


# ---------------------------------------------------------------- markdown and text


def _png(tmp_path: Path, name: str, color: tuple[int, int, int]) -> Path:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 200, 160), False)
    pix.set_rect(pix.irect, color)
    path = tmp_path / name
    pix.save(str(path))
    return path


def test_markdown_blocks_images_tables(tmp_path):
    (tmp_path / "img").mkdir()
    _png(tmp_path / "img", "arch.png", (10, 120, 200))
    md = tmp_path / "notes.md"
    md.write_text(
        "# 1 Overview\n\nThe system has two parts.\nIt runs nightly.\n\n"
        "![The architecture](img/arch.png)\n\nFigure 1: Architecture of the system.\n\n"
        "## 1.1 Results\n\nTable 2: Scores per model.\n\n"
        "| model | score |\n|---|---|\n| a | 0.81 |\n| b | 0.79 |\n\n"
        "See ![gone](img/missing.png) and ![web](https://example.org/x.png).\n",
        encoding="utf-8",
    )
    doc = read_document(md, tmp_path / "assets")
    assert doc.title == "1 Overview"
    kinds = [(b.kind, b.label) for b in doc.blocks]
    assert ("heading", "") in kinds and ("caption", "Figure 1") in kinds
    table = next(b for b in doc.blocks if b.kind == "table")
    assert table.label == "Table 2" and table.text.startswith("Table 2: Scores per model.")
    assert "| a | 0.81 |" in table.text and table.section == "1.1"
    assert doc.tables == 1
    paragraph = next(b for b in doc.blocks if b.text.startswith("The system"))
    assert paragraph.text == "The system has two parts. It runs nightly." and paragraph.section == "1"
    [image] = doc.images
    assert image.label == "Figure 1" and image.caption.startswith("Figure 1: Architecture")
    assert image.alt == "The architecture" and (image.width, image.height) == (200, 160)
    assert Path(image.path).read_bytes() == (tmp_path / "img" / "arch.png").read_bytes()
    assert Path(image.path).name.startswith(image.id)
    assert doc.warnings == [
        "missing image img/missing.png",
        "remote image not fetched https://example.org/x.png",
    ]


def test_markdown_same_image_twice_is_deduplicated(tmp_path):
    _png(tmp_path, "a.png", (1, 2, 3))
    _png(tmp_path, "b.png", (1, 2, 3))  # identical bytes under another name
    md = tmp_path / "dup.md"
    md.write_text("![one](a.png)\n\n![two](b.png)\n\nText.\n")
    doc = read_document(md, tmp_path / "assets")
    assert len(doc.images) == 1 and doc.skipped_images == 1


def test_text_paragraphs_and_title(tmp_path):
    path = tmp_path / "memo.txt"
    path.write_text("Quarterly memo\n\nFirst paragraph\ncontinues here.\n\n\nSecond one.\n")
    doc = read_document(path, tmp_path / "assets")
    assert doc.title == "Quarterly memo"
    assert [b.text for b in doc.blocks] == [
        "Quarterly memo",
        "First paragraph continues here.",
        "Second one.",
    ]
    assert doc.pages == 1 and len(doc.sha256) == 64
    long_title = tmp_path / "long.text"
    long_title.write_text("x" * 500 + "\n\nbody\n")
    assert len(read_document(long_title, tmp_path / "assets").title) <= 120
