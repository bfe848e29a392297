"""Glyphs a PDF gives no text for (control characters) are marked, never sent to the store raw."""

from __future__ import annotations

import pytest

from kg.ingest import mark_unmapped_glyphs
from kg.models import Block, ImageRef, ParsedDocument

# As pymupdf reads DPR's Table 3 (check marks) and its Eq. 3 (big brackets).
TABLE = "Random\n7\n\x17\n47.0\nGold\n7\n\x13\n51.1"
EQUATION = "softmax\n\x00Piwstart\n\x01\ns,"


def parsed() -> ParsedDocument:
    return ParsedDocument(path="dpr.pdf", sha256="0" * 64, title="Dense\x00 Passage Retrieval", pages=1,
                          blocks=[Block(text=TABLE), Block(text=EQUATION)],
                          images=[ImageRef(id="i1", path="a.png", caption="Figure 1:\x13 ok", page=1)])


def test_control_characters_become_the_replacement_mark_and_nothing_else_changes():
    doc = mark_unmapped_glyphs(parsed())
    assert doc.blocks[0].text == TABLE.replace("\x17", "\ufffd").replace("\x13", "\ufffd")
    assert doc.blocks[1].text == "softmax\n\ufffdPiwstart\n\ufffd\ns,"  # newlines kept, numbers untouched
    assert doc.title == "Dense\ufffd Passage Retrieval" and doc.images[0].caption == "Figure 1:\ufffd ok"


def test_a_marked_text_round_trips_through_falkordb(falkor_store):
    text = mark_unmapped_glyphs(parsed()).blocks[1].text
    falkor_store.run_text("CREATE (:Scratch {id: 'x', text: $text})", {"text": text})
    assert falkor_store.run_text("MATCH (s:Scratch {id: 'x'}) RETURN s.text AS t")[0]["t"] == text


def test_a_raw_nul_is_what_failed_the_file(falkor_store):
    """Why the mark exists: FalkorDB's parameter header ends at a NUL."""
    from kg.errors import StoreError

    with pytest.raises(StoreError):
        falkor_store.run_text("CREATE (:Scratch {id: 'y', text: $text})", {"text": EQUATION})


def test_read_document_marks_them_for_every_reader(tmp_path):
    """Through the one entry point ingest uses, not only the helper: a markdown file with a control
    character (one a converter left) reaches the graph marked."""
    from kg.ingest import read_document

    doc = tmp_path / "notes.md"
    doc.write_text("# Results\n\nThe check mark \x13 means the run used in-batch negatives.\n", encoding="utf-8")
    parsed = read_document(doc, tmp_path / "assets")
    text = " ".join(b.text for b in parsed.blocks)
    assert "\x13" not in text and "mark \ufffd means" in text
