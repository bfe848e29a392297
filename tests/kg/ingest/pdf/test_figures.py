"""Figures in a PDF: captioned pictures and drawings are kept with their captions; icons, logos on
every page and repeats are skipped; labels drawn inside a figure are not prose."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from kg.ingest.pdf import read_pdf
from pdf_maker import HEIGHT, LOREM, WIDTH, line, paragraph, save


def picture(width: int, height: int, shade: int) -> pymupdf.Pixmap:
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height), False)
    pix.clear_with(shade)
    return pix


def test_a_captioned_picture_is_kept_with_its_caption_and_nearby_text(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 60, "Delta overview. " + LOREM)
    page.insert_image(pymupdf.Rect(100, 150, 400, 350), pixmap=picture(300, 200, 120))
    line(page, 370, "Figure 1: Map of the delta in spring.")
    parsed = read_pdf(save(doc, tmp_path / "f.pdf"), tmp_path / "assets", workers=1)
    [image] = parsed.images
    assert (image.label, image.caption, image.page) == ("Figure 1", "Figure 1: Map of the delta in spring.", 1)
    assert (image.width, image.height) == (300, 200)
    assert pymupdf.Pixmap(image.path).width == 300 and Path(image.path).is_relative_to(tmp_path / "assets")
    assert image.nearby_text.startswith("Delta overview.")
    assert [b.kind for b in parsed.blocks if b.label == "Figure 1"] == ["caption"]


def test_icons_and_a_logo_on_every_page_are_skipped(tmp_path):
    doc = pymupdf.open()
    logo = picture(200, 200, 30)
    for n in range(3):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        page.insert_image(pymupdf.Rect(430, 20, 550, 140), pixmap=logo)  # same image, every page; not small
        paragraph(page, 150, f"Page {n + 1} text. " + LOREM)
    doc[0].insert_image(pymupdf.Rect(72, 400, 112, 440), pixmap=picture(40, 40, 200))  # a small icon
    doc[1].insert_image(pymupdf.Rect(72, 400, 372, 600), pixmap=picture(320, 210, 90))  # a real picture
    parsed = read_pdf(save(doc, tmp_path / "logos.pdf"), tmp_path / "assets", workers=1)
    assert [(i.page, i.width) for i in parsed.images] == [(2, 320)]  # uncaptioned, but large: kept
    assert parsed.skipped_images == 4  # three logo placements and the icon


def test_the_same_picture_twice_is_kept_once(tmp_path):
    doc = pymupdf.open()
    pix = picture(300, 200, 60)
    for n in range(2):
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        page.insert_image(pymupdf.Rect(100, 100, 400, 300), pixmap=pix)
        paragraph(page, 350, LOREM)
    parsed = read_pdf(save(doc, tmp_path / "twice.pdf"), tmp_path / "assets", workers=1)
    assert len(parsed.images) == 1 and parsed.skipped_images == 1


def test_a_captioned_drawing_is_rendered_and_its_labels_are_not_prose(tmp_path):
    doc = pymupdf.open()
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    paragraph(page, 60, LOREM)
    for i in range(3):  # a small flow diagram: three boxes with labels, joined by arrows
        box = pymupdf.Rect(100 + 140 * i, 180, 200 + 140 * i, 240)
        page.draw_rect(box, color=(0, 0, 0), width=1.5)
        line(page, 214, f"Step {i + 1}", 9, x=box.x0 + 25)
        if i:
            page.draw_line((box.x0 - 40, 210), (box.x0, 210))
    line(page, 270, "Figure 2: Processing steps of the survey.")
    paragraph(page, 300, "Afterwards. " + LOREM)
    parsed = read_pdf(save(doc, tmp_path / "drawing.pdf"), tmp_path / "assets", workers=1)
    [image] = parsed.images
    assert image.label == "Figure 2" and image.width > 500  # rendered at 150 dpi from a 380 pt wide region
    assert not any(b.text.startswith("Step") for b in parsed.blocks)


def test_text_printed_in_a_vector_chart_is_the_figures_not_the_pages(tmp_path):
    """A bar chart's labels and the values printed above its bars are kept on the figure, as printed
    and in reading order, with their boxes; none of them reaches the page's text blocks (chunks)."""
    import json

    from pdf_maker import CHART_BARS, bar_chart_report

    parsed = read_pdf(bar_chart_report(tmp_path / "chart.pdf"), tmp_path / "assets", workers=1)
    chart = next(i for i in parsed.images if i.label == "Figure 1")
    printed = chart.visible_text.splitlines()
    assert printed == [str(v) for _, v in CHART_BARS[:1]] + printed[1:]  # the tallest bar's value is first
    assert {n for n, _ in CHART_BARS} | {str(v) for _, v in CHART_BARS} == set(printed)
    assert [row[0] for row in json.loads(chart.visible_lines)] == printed
    text = " ".join(b.text for b in parsed.blocks)
    assert "Brumhal" not in text and not any(str(v) in text for _, v in CHART_BARS)
    assert "Tessaline was trained" in text  # the prose stays prose
    photo = next(i for i in parsed.images if i.label == "Figure 2")
    assert photo.visible_text == "" and photo.visible_lines == ""
