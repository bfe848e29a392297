"""Pies pasted as pictures (kg/ingest/pdf/raster_shares.py): a disc of colours, shares by OCR that add up."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from kg.ingest.pdf import ocr_text, raster_shares
from kg.ingest.pdf.raster_shares import may_be_pie, shares_add_up
from pdf_maker import PIE_SHARES, pie_png, pie_report, table_png


def _pixels(path):
    return np.asarray(Image.open(path).convert("RGB"))


def test_the_shape_test_passes_a_pie_or_a_ring_and_not_a_table_bars_a_photo_or_a_blank(tmp_path):
    assert may_be_pie(_pixels(pie_png(tmp_path / "pie.png")))
    assert may_be_pie(_pixels(pie_png(tmp_path / "ring.png", hole=0.4)))
    assert not may_be_pie(_pixels(table_png(tmp_path / "table.png")))
    bars = np.full((400, 600, 3), 255, dtype=np.uint8)
    for k, length in enumerate((500, 380, 260)):
        bars[40 + 110 * k:120 + 110 * k, 50:50 + length] = (70 + 60 * k, 120, 220 - 50 * k)
    assert not may_be_pie(bars)
    assert not may_be_pie(np.random.default_rng(0).integers(0, 255, size=(400, 600, 3), dtype=np.uint8))
    assert not may_be_pie(np.full((400, 600, 3), 255, dtype=np.uint8))


def test_shares_are_kept_only_when_they_add_up_to_a_whole():
    # Orion-14B's Figure 1 as printed: seven shares summing to 101.0.
    orion = ["Data Sources Distribution", "Others: 4.7%", "Papers: 1.4%", "Books: 2.8%", "Code: 11.0%",
             "News Articles: 4.7%", "Encyclopedia: 1.6%", "Webpages: 74.8%"]
    assert shares_add_up(orion)
    assert not shares_add_up([t.replace("74.8%", "14.8%") for t in orion])  # a misread digit
    assert not shares_add_up(["Code: 50%", "Books: 50%"])  # too few to check anything


def test_a_pdf_with_a_captioned_pie_picture_carries_its_printed_shares(tmp_path):
    if ocr_text._ocr_engine() is None:
        pytest.skip("rapidocr_onnxruntime is not installed")
    from kg.ingest.pdf import read_pdf

    parsed = read_pdf(pie_report(tmp_path / "pie.pdf"), tmp_path / "assets", workers=1)
    picture = next(i for i in parsed.images if i.label.startswith("Figure 1"))
    printed = picture.visible_text.splitlines()
    assert all(any(name in line and line.endswith(share) for line in printed) for name, share in PIE_SHARES)
    assert not picture.bar_values and not picture.table_cells


def test_a_picture_the_pie_reader_fails_on_costs_no_document(monkeypatch):
    from kg.models import ImageRef

    def broken(path, bbox):
        raise ValueError("a pie no one foresaw")

    monkeypatch.setattr(raster_shares, "read_picture_shares", broken)
    picture = ImageRef("i1", "/tmp/none.png", 1, [0, 0, 100, 100], label="Figure 1")
    assert raster_shares.read_pictured_pies([picture]) == []
    assert picture.visible_text == ""
