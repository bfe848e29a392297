"""The markdown reader on odd and malformed input: ragged tables, fences, setext headings, captions, images."""

from __future__ import annotations

import json

import pymupdf
import pytest

from kg.ingest.markdown import read_markdown
from kg.models import IngestError


def read(tmp_path, text: str, name: str = "doc.md", raw: bytes | None = None):
    path = tmp_path / name
    path.write_bytes(raw if raw is not None else text.encode("utf-8"))
    return read_markdown(path, tmp_path / "assets")


def test_a_ragged_table_stays_one_table_with_its_rows_padded(tmp_path):
    doc = read(tmp_path, "| a | b | c |\n|---|:---:|---:|\n| 1 | 2 |\n| **x** | y<br>z | 9 |\n\nAfter.\n")
    [table] = [b for b in doc.blocks if b.kind == "table"]
    grid = json.loads(table.cells)
    assert grid["header"] == ["a", "b", "c"]
    assert grid["rows"] == [["1", "2", ""], ["x", "y z", "9"]]  # short row padded; no markup in the cells
    assert table.text.splitlines()[3] == "| x | y z | 9 |"
    assert doc.tables == 1 and doc.blocks[-1].text == "After."


def test_pipes_without_a_proper_separator_line_are_prose(tmp_path):
    doc = read(tmp_path, "| not | a table |\n| -- | -- |\n\n| one line | only |\n")
    assert [b.kind for b in doc.blocks] == ["text", "text"] and doc.tables == 0
    assert doc.blocks[0].text == "| not | a table | | -- | -- |"


def test_fenced_code_is_kept_verbatim_even_when_unterminated(tmp_path):
    doc = read(tmp_path, "Intro.\n\n```python\n# not a heading\n| x | y |\n|---|---|\n```\n\n~~~\nlast line\n")
    assert [b.kind for b in doc.blocks] == ["text", "text", "text"]
    assert doc.blocks[1].text == "```python\n# not a heading\n| x | y |\n|---|---|\n```"
    assert doc.blocks[2].text == "~~~\nlast line"  # the fence never closed: nothing after it is lost
    assert doc.tables == 0 and doc.title == "Intro."


def test_setext_headings_and_sections(tmp_path):
    doc = read(tmp_path, "Field guide\n===========\n\nOpening words.\n\n2.3 Methods\n-----------\n\n"
                         "We counted birds.\n\n# Annex\n\nLast words.\n")
    headings = [(b.text, b.heading_level, b.section) for b in doc.blocks if b.kind == "heading"]
    assert headings == [("Field guide", 1, ""), ("2.3 Methods", 2, "2.3"), ("Annex", 1, "")]
    section = {b.text: b.section for b in doc.blocks if b.kind == "text"}
    assert section == {"Opening words.": "", "We counted birds.": "2.3", "Last words.": ""}
    assert doc.title == "Field guide" and doc.title_source == "heading"


def test_a_table_caption_before_the_table_wins_over_one_after(tmp_path):
    doc = read(tmp_path, "Table 1: Before.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nTable 2: After.\n\n"
                         "| c | d |\n|---|---|\n| 3 | 4 |\n\nTable 9: Stray caption.\n")
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert [(t.label, t.text.split("\n")[0]) for t in tables] == [("Table 1", "Table 1: Before."),
                                                                  ("Table 2", "Table 2: After.")]
    # a caption used by a table is no longer a block of its own; "Table 9" follows a captioned table
    assert [b.text for b in doc.blocks if b.kind == "caption"] == ["Table 9: Stray caption."]


def png(path, size=(6, 4)):
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, *size), False)
    pix.clear_with(90)
    pix.save(str(path))


def test_image_titles_name_figures_and_unreadable_images_are_warnings(tmp_path):
    png(tmp_path / "chart.png")
    (tmp_path / "logo.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>')
    doc = read(tmp_path, '![a chart](chart.png "Figure 2: Rainfall per month")\n\n![logo](logo.svg)\n\n'
                         "![inline](data:image/png;base64,AAAA) text\n")
    chart, logo = doc.images
    assert (chart.label, chart.caption, chart.width, chart.height) == ("Figure 2", "Figure 2: Rainfall per month", 6, 4)
    assert (logo.label, logo.width, logo.height) == ("", 0, 0)  # kept, with no size pymupdf could read
    assert doc.warnings == ["inline data image not supported"]
    assert "a chart" in doc.blocks[0].text  # the alt text stays in the prose


def test_an_image_path_with_spaces_is_found(tmp_path):
    (tmp_path / "my figs").mkdir()
    png(tmp_path / "my figs" / "a b.png")
    doc = read(tmp_path, "![x](my%20figs/a%20b.png)\n\nFigure 1: Two words.\n")
    assert doc.images[0].label == "Figure 1" and not doc.warnings


def test_encoding_problems(tmp_path):
    doc = read(tmp_path, "", raw="\ufeff# Café\r\n\r\nBody.\r\n".encode("utf-8"))
    assert doc.title == "Café" and [b.text for b in doc.blocks] == ["Café", "Body."]
    with pytest.raises(IngestError, match="not UTF-8"):
        read(tmp_path, "", name="latin.md", raw="# Café\n".encode("latin-1"))
    with pytest.raises(IngestError, match="empty file"):
        read(tmp_path, "", name="empty.md", raw=b"")


def test_a_line_without_pipes_right_after_a_table_is_prose_not_a_row(tmp_path):
    doc = read(tmp_path, "| a | b |\n|---|---|\n| 1 | 2 |\nThe table above lists both.\n")
    assert [b.kind for b in doc.blocks] == ["table", "text"]
    assert json.loads(doc.blocks[0].cells)["rows"] == [["1", "2"]]
    assert doc.blocks[1].text == "The table above lists both."
