"""Headings: body font size, which blocks are headings and at what level."""

from __future__ import annotations

import re
from collections import Counter

from kg.ingest.pdf.types import RawBlock, RawPage

HEADING_MAX_CHARS = 160

_SECTION_RE = re.compile(r"^(?:(?:Section|SECTION|Chapter|CHAPTER)\s+)?(\d+(?:\.\d+)*)\.?\s+(?=\S)")


def body_font_size(pages: list[RawPage]) -> float:
    sizes: Counter[float] = Counter()
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def demote_body_captions(pages: list[RawPage], body_size: float) -> None:
    """A "Table 4. On average ..." paragraph at a column top is prose, not a caption.

    Real captions are set smaller than body text, start with a bold label, put a
    colon after the label ("Table 1: Maximum path lengths ..."; prose does not),
    or sit right above or below a table, image or drawing (many papers set
    captions in body type).
    """
    for page in pages:
        figures = [t.bbox for t in page.tables] + [g.bbox for g in page.images] + [g.bbox for g in page.drawings]
        for block in page.blocks:
            first = block.lines[0]
            if block.kind == "caption" and first.size >= body_size - 0.3 and not first.first_bold \
                    and not _COLON_LABEL.match(first.text) and not _beside_figure(block, figures):
                block.kind, block.label = "text", ""


_COLON_LABEL = re.compile(r"^\s*(?:Figure|Fig\.?|Table|Tab\.?)\s*\d+(?:[-.]\d+)*[a-z]?\s*[:|]", re.I)
CAPTION_GAP = 24.0  # points between a caption and the table or figure it describes


def _beside_figure(block, figures) -> bool:
    box = block.bbox
    for fig in figures:
        overlap = min(box.x1, fig.x1) - max(box.x0, fig.x0)
        gap = max(fig.y0 - box.y1, box.y0 - fig.y1)
        if overlap > 0.3 * min(box.width, fig.width) and gap <= CAPTION_GAP:
            return True
    return False


def is_heading_candidate(block: RawBlock, body_size: float) -> bool:
    text = block.text
    if block.kind != "text" or len(block.lines) > 3 or len(text) > HEADING_MAX_CHARS:
        return False
    if not re.search(r"[A-Za-z]{2}", text) or text.rstrip().endswith((",", ";")):
        return False
    bigger = block.size >= body_size + 1.0
    bold_title = block.bold and block.size >= body_size - 0.5 and len(text) <= 100
    return bigger or bold_title


def heading_sizes(pages: list[RawPage], body_size: float) -> dict[float, int]:
    """Font size -> heading level.

    Numbered headings fix the level of their size ("2.1" is level 2); other
    sizes rank below the largest known size, bigger first.
    """
    candidates = [b for p in pages for b in p.blocks if is_heading_candidate(b, body_size)]
    levels: dict[float, int] = {}
    for block in candidates:
        number = _section_number(block.text)
        if number:
            depth = number.count(".") + 1
            levels[block.size] = min(levels.get(block.size, depth), depth)
    rank = 1
    for size in sorted({b.size for b in candidates}, reverse=True):
        if size in levels:
            rank = levels[size] + 1
        else:
            levels[size] = rank
    return levels


def _section_number(text: str) -> str:
    match = _SECTION_RE.match(text)
    number = match.group(1) if match else ""
    if number and int(number.split(".")[0]) > 100:
        return ""  # "2020 Annual report" is a year, not a section
    return number


def heading_fields(block: RawBlock, heading_sizes: dict[float, int]) -> tuple[int, str]:
    number = _section_number(block.text)
    if number:
        return number.count(".") + 1, number
    return min(heading_sizes.get(block.size, 1), 6), ""
