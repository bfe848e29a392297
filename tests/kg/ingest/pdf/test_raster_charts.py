"""Bar charts pasted as pictures (kg/ingest/pdf/raster_charts.py): boxes by colour, text by OCR."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kg.ingest.pdf import raster_charts
from kg.ingest.pdf import ocr_text
from kg.ingest.pdf.raster_charts import _fits_lengths, solid_boxes

SYSTEMS = (("Zorvan-L", "71.2"), ("Kettle-7", "64.6"), ("Brisk-3B", "57.3"))


def _barh_png(path, systems=SYSTEMS, dpi=150):
    """matplotlib's barh, as LLM reports paste it: one shade a bar, its name at its left, its value at its end."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 2.4))
    names, values = [s for s, _ in systems][::-1], [float(v) for _, v in systems][::-1]
    bars = ax.barh(names, values, color=["#ffb27a", "#ff8f3f", "#ff6a00"][: len(names)], height=0.6)
    for bar, value in zip(bars, [v for _, v in systems][::-1]):
        ax.text(bar.get_width() + 0.8, bar.get_y() + bar.get_height() / 2, value, va="center", fontsize=10)
    ax.set_xlim(40, 80)
    ax.set_title("Harbour Score", fontsize=12)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def test_solid_boxes_are_the_bars_not_the_text_or_the_background():
    pixels = np.full((300, 400, 3), 250, dtype=np.uint8)  # an off-white background
    pixels[50:80, 100:300] = (255, 120, 0)  # a bar
    pixels[120:150, 100:220] = (40, 90, 200)  # another, another colour
    pixels[200:204, 100:110] = (0, 0, 0)  # a glyph-sized mark: too thin to be a bar
    boxes = sorted(box for box, _rgb in solid_boxes(pixels))
    assert boxes == [(100, 50, 300, 80), (100, 120, 220, 150)]


def test_a_group_whose_values_do_not_follow_its_bars_lengths_is_dropped():
    bars = [("A", "G", "74.9", ""), ("B", "G", "62.5", ""), ("C", "G", "53.5", "")]
    lengths = {("A", "G"): 549.0, ("B", "G"): 425.0, ("C", "G"): 335.0}  # value = 20 + length / 10
    assert _fits_lengths(bars, lengths)
    misread = [("A", "G", "749", ""), *bars[1:]]  # OCR lost the decimal point
    assert not _fits_lengths(misread, lengths)
    percent = [(s, g, v + "%", u) for s, g, v, u in bars]  # printed with a unit: still numbers
    assert _fits_lengths(percent, lengths)
    assert not _fits_lengths([("A", "G", "n/a", ""), *bars[1:]], lengths)


def test_a_picture_the_reader_fails_on_costs_no_document(monkeypatch):
    from kg.models import ImageRef

    def broken(path, bbox):
        raise ValueError("a chart no one foresaw")

    monkeypatch.setattr(raster_charts, "read_picture_bars", broken)
    figure = ImageRef("i1", "/tmp/none.png", 1, [0, 0, 100, 100], label="Figure 1")
    raster_charts.read_picture_charts([figure])  # logged, not raised
    assert figure.bar_values == ""


def test_a_pictured_chart_is_read_bar_by_bar(tmp_path):
    if ocr_text._ocr_engine() is None:
        pytest.skip("rapidocr_onnxruntime is not installed")
    png = _barh_png(tmp_path / "chart.png")
    bars, printed = raster_charts.read_picture_bars(str(png), [72, 100, 504, 272])
    assert {(s, g, v) for s, g, v, _u in bars} == {(s, "Harbour Score", v) for s, v in SYSTEMS}
    assert any(row[0] == "Harbour Score" for row in printed)


def test_a_pdf_whose_figure_is_a_picture_of_a_chart_carries_its_bars(tmp_path):
    """The reader hook: a captioned picture with no printed text of its own is read as a chart."""
    if ocr_text._ocr_engine() is None:
        pytest.skip("rapidocr_onnxruntime is not installed")
    import pymupdf

    from kg.ingest.pdf import read_pdf

    png = _barh_png(tmp_path / "chart.png")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_image(pymupdf.Rect(72, 100, 504, 272), filename=str(png))
    page.insert_text((72, 292), "Figure 1: Harbour scores of three systems, one bar each.", fontsize=10)
    doc.save(tmp_path / "pictured.pdf")
    parsed = read_pdf(tmp_path / "pictured.pdf", tmp_path / "assets", workers=1)
    chart = next(i for i in parsed.images if i.label == "Figure 1")
    assert {(s, v) for s, _g, v, _u in json.loads(chart.bar_values)} == set(SYSTEMS)
    assert "Harbour Score" in chart.visible_text


def test_without_the_ocr_package_a_picture_is_no_chart_and_costs_no_document(tmp_path, monkeypatch):
    png = _barh_png(tmp_path / "chart.png")
    monkeypatch.setattr(ocr_text, "_ocr_engine", lambda: None)
    assert raster_charts.read_picture_bars(str(png), [72, 100, 504, 272]) == ([], [])
    assert raster_charts.read_picture_bars(str(tmp_path / "missing.png"), [72, 100, 504, 272]) == ([], [])


def test_only_a_captioned_picture_with_no_drawn_text_is_tried_as_a_chart(monkeypatch):
    """A figure with drawn text is the vector reader's: trying those as pictures too doubled an FAA
    handbook chapter's ingest (photos with a few drawn callouts) for one chart read."""
    from kg.models import ImageRef

    tried = []
    monkeypatch.setattr(raster_charts, "read_picture_bars", lambda path, bbox: tried.append(path) or ([], []))
    pasted = ImageRef("i1", "/tmp/a.png", 1, [0, 0, 100, 100], label="Figure 1")
    callouts = ImageRef("i2", "/tmp/b.png", 1, [0, 0, 100, 100], label="Figure 2", visible_text="Pitot tube\nStatic port")
    uncaptioned = ImageRef("i3", "/tmp/c.png", 1, [0, 0, 100, 100])
    raster_charts.read_picture_charts([pasted, callouts, uncaptioned])
    assert tried == ["/tmp/a.png"]


def test_a_group_of_one_bar_is_checked_against_the_whole_chart_never_by_itself():
    """GPT-5.2's MLE-Bench-30 chart, one bar a group: "12%" was read "2%". One line through all the
    chart's bars finds it; a group of one fits any line."""
    from kg.ingest.pdf.raster_charts import _checked

    bars = [("M", "a", "8%", ""), ("M", "b", "2%", ""), ("M", "c", "17%", ""), ("M", "d", "16%", "")]
    lengths = {("M", "a"): 80.0, ("M", "b"): 120.0, ("M", "c"): 170.0, ("M", "d"): 160.0}  # value = length / 10
    assert _checked(bars, lengths) == []
    right = [("M", "b", "12%", "") if b[1] == "b" else b for b in bars]
    assert _checked(right, lengths) == right
