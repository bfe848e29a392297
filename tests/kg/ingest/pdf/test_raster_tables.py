"""Tables pasted as pictures (kg/ingest/pdf/raster_tables.py): cells from the OCR's printed lines."""

from __future__ import annotations

import json

import numpy as np
import pytest

from kg.ingest.pdf import ocr_text, raster_tables
from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.raster_tables import may_be_table, table_cells
from pdf_maker import PICTURED_COLUMNS, PICTURED_ROWS, pictured_table_report, table_png


def _row(y, label, *values, label_x=20):
    out = [Line(label, label_x, y, label_x + 60, y + 10)] if label else []
    return out + [Line(v, 200 + 80 * k, y, 230 + 80 * k, y + 10) for k, v in enumerate(values)]


def test_each_labelled_row_gives_a_cell_under_each_named_column():
    lines = [Line("Benchmark", 20, 0, 80, 10), Line("Zorvan 3", 200, 0, 245, 10), Line("Kettle 2", 280, 0, 325, 10),
             *_row(30, "Harbour QA", "37.5%", "21.6%"), *_row(60, "Canal-2", "31.1%", "13.6%"),
             *_row(90, "Dock Bench", "$5,478.16", "0.115")]
    assert table_cells(lines) == [
        ("Harbour QA", "Zorvan 3", "37.5%"), ("Harbour QA", "Kettle 2", "21.6%"), ("Canal-2", "Zorvan 3", "31.1%"),
        ("Canal-2", "Kettle 2", "13.6%"), ("Dock Bench", "Zorvan 3", "$5,478.16"), ("Dock Bench", "Kettle 2", "0.115")]


def test_a_name_scored_two_ways_or_wrapped_onto_a_second_line_gives_no_cells():
    """Gemini 3 Pro's table scores "Humanity's Last Exam" twice ("No tools", "With search"), its name
    standing between the two rows of numbers; a wrapped name's value may be its other line's."""
    head = [Line("Benchmark", 20, 0, 80, 10), Line("Zorvan 3", 200, 0, 245, 10), Line("Kettle 2", 280, 0, 325, 10)]
    body = [*_row(30, "Harbour QA", "37.5%", "21.6%"), *_row(60, "Canal-2", "31.1%", "13.6%"),
            *_row(90, "Dock Bench", "91.9%", "86.4%"),
            *_row(120, "", "45.8%", "40.2%"), Line("River Exam", 20, 128, 80, 138), *_row(136, "", "50.1%", "44.0%"),
            *_row(170, "Pier Test", "12.0%", "11.0%"), Line("(long form)", 20, 182, 80, 192)]
    read = {r for r, _c, _v in table_cells(head + body)}
    assert read == {"Harbour QA", "Canal-2", "Dock Bench"}


def test_a_number_in_a_wrapped_column_name_is_part_of_the_name_not_a_row():
    """Gemini 3 Flash's card heads its columns "Gemini" over "3 Flash" and "Claude" over "Sonnet" over
    "4.5": those numbers are the names', and every header line that touches the next is kept."""
    head = [Line("Benchmark", 20, 0, 80, 10), Line("Zorvan", 200, 0, 240, 10), Line("3", 200, 11, 206, 21),
            Line("Flash", 210, 11, 240, 21), Line("Kettle", 280, 0, 320, 10), Line("Sonnet", 280, 11, 320, 21),
            Line("4.5", 280, 22, 298, 32)]
    body = [*_row(50, "Harbour QA", "37.5%", "21.6%"), *_row(80, "Canal-2", "31.1%", "13.6%"),
            *_row(110, "Dock Bench", "91.9%", "86.4%")]
    cells = table_cells(head + body)
    assert {c for _r, c, _v in cells} == {"Zorvan 3 Flash", "Kettle Sonnet 4.5"}
    assert ("Canal-2", "Kettle Sonnet 4.5", "13.6%") in cells and len(cells) == 6


def test_fewer_than_three_rows_or_no_column_names_is_no_table():
    few = [Line("Benchmark", 20, 0, 80, 10), Line("Zorvan 3", 200, 0, 245, 10), *_row(30, "Harbour QA", "37.5%"),
           *_row(60, "Canal-2", "31.1%")]
    assert table_cells(few) == []
    unnamed = [*_row(30, "Harbour QA", "37.5%"), *_row(60, "Canal-2", "31.1%"), *_row(90, "Dock", "9.1%")]
    assert table_cells(unnamed) == []


def test_the_cheap_test_passes_bands_of_text_on_a_light_ground_and_not_a_photo(tmp_path):
    from PIL import Image

    table = np.asarray(Image.open(table_png(tmp_path / "t.png")).convert("RGB"))
    assert may_be_table(table)
    noise = np.random.default_rng(0).integers(0, 255, size=(600, 800, 3), dtype=np.uint8)
    assert not may_be_table(noise)
    assert not may_be_table(np.full((600, 800, 3), 255, dtype=np.uint8))  # a blank picture


def test_a_pdf_with_an_uncaptioned_pictured_table_carries_its_cells(tmp_path):
    if ocr_text._ocr_engine() is None:
        pytest.skip("rapidocr_onnxruntime is not installed")
    from kg.ingest.pdf import read_pdf

    parsed = read_pdf(pictured_table_report(tmp_path / "pictured.pdf"), tmp_path / "assets", workers=1)
    picture = next(i for i in parsed.images if i.table_cells)
    assert picture.label == "" and picture.caption == ""
    expected = {(name, column, value) for name, *values in PICTURED_ROWS for column, value in zip(PICTURED_COLUMNS, values)}
    assert {tuple(c) for c in json.loads(picture.table_cells)} == expected
    assert "Tessaline" in picture.visible_text


def test_a_picture_the_table_reader_fails_on_costs_no_document(monkeypatch):
    from kg.models import ImageRef

    def broken(path, bbox):
        raise ValueError("a table no one foresaw")

    monkeypatch.setattr(raster_tables, "read_picture_table", broken)
    picture = ImageRef("i1", "/tmp/none.png", 1, [0, 0, 100, 100])
    assert raster_tables.read_picture_tables([picture]) == [] and picture.table_cells == ""


def test_a_label_level_with_the_first_of_two_close_rows_scores_both_and_gives_no_cell():
    """Gemini 3 Pro's "AIME 2025": "No tools" 95.0% and, a line lower, "With code execution" 100%, the
    name level with the first row. Its value is one of two: the row is left out."""
    head = [Line("Benchmark", 20, 0, 80, 10), Line("Zorvan 3", 200, 0, 245, 10), Line("Kettle 2", 280, 0, 325, 10)]
    body = [*_row(30, "Harbour QA", "37.5%", "21.6%"), *_row(60, "Canal-2", "31.1%", "13.6%"),
            *_row(90, "Dock Bench", "91.9%", "86.4%"), *_row(120, "AIME 2025", "95.0%", "88.0%"),
            *_row(135, "", "100%", "99%")]
    read = table_cells(head + body)
    assert {r for r, _c, _v in read} == {"Harbour QA", "Canal-2", "Dock Bench"}


def test_header_text_is_named_by_overlap_and_a_cell_or_a_title_names_no_column():
    """A text cell in a column's first row ("N/A") and a title over the whole table are no column
    names; a two-value row under one name (a number wide enough to join two columns) gives no cell."""
    head = [Line("Results of our models", 20, -20, 320, -10), Line("Benchmark", 20, 0, 80, 10),
            Line("Zorvan 3", 200, 0, 245, 10), Line("Kettle 2", 280, 0, 325, 10)]
    body = [Line("Harbour QA", 20, 30, 80, 40), Line("N/A", 205, 30, 225, 40), Line("21.6%", 280, 30, 310, 40),
            *_row(60, "Canal-2", "31.1%", "13.6%"), *_row(90, "Dock Bench", "91.9%", "86.4%"),
            *_row(120, "Pier Test", "12.0%", "11.0%")]
    read = table_cells(head + body)
    assert {c for _r, c, _v in read} == {"Zorvan 3", "Kettle 2"}
    assert ("Harbour QA", "Kettle 2", "21.6%") in read


def test_a_row_label_the_ocr_split_at_a_space_is_read_whole_and_the_next_column_is_not_part_of_it():
    head = [Line("Benchmark", 20, 0, 80, 10), Line("Zorvan 3", 200, 0, 245, 10), Line("Kettle 2", 280, 0, 325, 10)]
    body = [Line("GPQA", 20, 30, 50, 40), Line("Diamond", 55, 30, 95, 40), Line("No tools", 120, 30, 160, 40),
            Line("37.5%", 200, 30, 230, 40), Line("21.6%", 280, 30, 310, 40),
            *_row(60, "Canal-2", "31.1%", "13.6%"), *_row(90, "Dock Bench", "91.9%", "86.4%")]
    assert {r for r, _c, _v in table_cells(head + body)} == {"GPQA Diamond", "Canal-2", "Dock Bench"}
