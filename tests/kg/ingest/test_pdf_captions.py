"""Captions set in body type stay captions when they read or sit like one."""

from __future__ import annotations

import pymupdf

from kg.ingest.pdf.headings import demote_body_captions
from kg.ingest.pdf.types import Graphic, Line, RawBlock, RawPage


def _block(text: str, y: float) -> RawBlock:
    label = " ".join(text.split()[:2]).rstrip(":.")
    return RawBlock([Line(text, (72, y, 300, y + 10), 10.0, False)], 1, "caption", label)


def _page(blocks: list[RawBlock], drawings: list[Graphic] = ()) -> RawPage:
    return RawPage(1, pymupdf.Rect(0, 0, 612, 792), blocks, [], list(drawings))


def test_a_colon_after_the_label_keeps_a_body_size_caption():
    page = _page([_block("Table 1: Maximum path lengths per layer type.", 100)])
    demote_body_captions([page], body_size=10.0)
    assert page.blocks[0].kind == "caption"


def test_a_body_size_caption_right_under_a_figure_stays():
    page = _page([_block("Figure 2 Scaled dot-product attention.", 310)], [Graphic(pymupdf.Rect(80, 100, 290, 300))])
    demote_body_captions([page], body_size=10.0)
    assert page.blocks[0].kind == "caption"


def test_prose_that_starts_with_a_mention_is_demoted():
    page = _page([_block("Table 4. On average the new reader halves reading time.", 500)])
    demote_body_captions([page], body_size=10.0)
    assert (page.blocks[0].kind, page.blocks[0].label) == ("text", "")
