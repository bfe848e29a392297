"""The plain-text reader and the file helpers every reader shares (kg/ingest/text.py)."""

from __future__ import annotations

import pytest

from kg.ingest.text import TITLE_MAX_CHARS, make_title, read_bytes, read_text, save_asset, split_paragraphs
from kg.models import IngestError


def test_paragraphs_are_split_on_blank_lines_even_with_spaces_in_them(tmp_path):
    path = tmp_path / "memo.txt"
    path.write_bytes(b"First line\r\nsame paragraph\r\n   \r\nSecond\rparagraph\r\rThird.")
    doc = read_text(path)
    assert [b.text for b in doc.blocks] == ["First line same paragraph", "Second paragraph", "Third."]
    assert split_paragraphs("\n\n  a\n  b  \n\n\t\n c ") == ["a b", "c"]


def test_contents_lines_are_dropped_and_counted(tmp_path):
    path = tmp_path / "report.txt"
    path.write_text("Report\n\n1 Scope ........ 3\n2 Data . . . . . . 9\n\nThe body... goes on.\n")
    doc = read_text(path)
    assert doc.furniture_removed == 2
    assert [b.text for b in doc.blocks] == ["Report", "The body... goes on."]


def test_a_short_known_section_name_becomes_a_heading_and_a_sentence_does_not(tmp_path):
    path = tmp_path / "paper.txt"
    path.write_text("Findings about rivers.\n\nReferences\n\n[1] A. Smith. Rivers.\n\n"
                    "References are listed in the order they are cited in the text above.\n\n"
                    "How to cite this report: Smith A, Jones B. Rivers of the north. Water Press, 2020.\n")
    doc = read_text(path)
    assert [(b.kind, b.role) for b in doc.blocks] == [("text", "body"), ("heading", "references"),
                                                      ("text", "references"), ("text", "references"),
                                                      ("text", "references")]  # long: no heading, whatever it says


@pytest.mark.parametrize("content, reason", [(b"", "empty file"), (b"  \n\n\t\n", "no text"),
                                             (b"\x00\x01binary", "not UTF-8"), (b"\xff\xfe\x00a", "not UTF-8")])
def test_unreadable_files_say_why(tmp_path, content, reason):
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(IngestError, match=reason):
        read_text(path)


def test_missing_files_and_folders_say_why(tmp_path):
    with pytest.raises(IngestError, match="file not found"):
        read_bytes(tmp_path / "nope.txt")
    with pytest.raises(IngestError, match="is a directory"):
        read_bytes(tmp_path)


def test_an_asset_is_stored_once_under_its_content_hash(tmp_path):
    import os

    first = save_asset(b"picture bytes", ".PNG", tmp_path / "assets", "d" * 64)
    os.utime(first[1], (1_000_000, 1_000_000))
    again = save_asset(b"picture bytes", "png", tmp_path / "assets", "d" * 64)
    assert first == again and first[1].name == f"{first[0]}.png" and first[1].parent.name == "d" * 16
    assert first[1].read_bytes() == b"picture bytes" and first[1].stat().st_mtime == 1_000_000  # not rewritten
    other = save_asset(b"other bytes", "", tmp_path / "assets", "d" * 64)
    assert other[0] != first[0] and other[1].suffix == ".bin"
    assert len(list((tmp_path / "assets").rglob("*.*"))) == 2


def test_titles():
    assert make_title("\n\n  ## Annual report  \nbody", "stem") == "Annual report"
    assert make_title(" \n\n", "stem") == "stem"
    long = make_title("word " * 100, "stem")
    assert len(long) == TITLE_MAX_CHARS and long.endswith("…")
