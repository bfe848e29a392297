"""Tables on a PDF page: detection (pymupdf find_tables), their text, their captions."""

from __future__ import annotations

import re

import pymupdf

from kg.ingest.pdf.types import RawBlock, RawPage, RawTable

TABLE_CAPTION_MAX_GAP = 60.0  # points between a table and its caption
_DOT_LEADERS_RE = re.compile(r" ?(?:\. ?){4,}")  # "AFM revisions ........" in cost tables


def find_tables(page: pymupdf.Page) -> list[RawTable]:
    tables = []
    try:
        found = page.find_tables()
    except Exception:  # table detection is best effort; the text still gets read
        return []
    for table in found.tables:
        if table.row_count < 2 or table.col_count < 2:
            continue
        # to_markdown keeps "0.81" intact where extract() splits decimals.
        markdown = _DOT_LEADERS_RE.sub("", table.to_markdown()).strip()
        if markdown:
            tables.append(RawTable(pymupdf.Rect(table.bbox), markdown))
    return tables


def remove_text_in_tables(page: RawPage) -> None:
    def inside(rect: pymupdf.Rect) -> bool:
        return any((rect & t.bbox).get_area() > 0.5 * max(rect.get_area(), 1e-6) for t in page.tables)

    kept = []
    for block in page.blocks:
        lines = [line for line in block.lines if not inside(pymupdf.Rect(line.bbox))]
        if len(lines) == len(block.lines):
            kept.append(block)
        elif lines:
            kept.append(RawBlock(lines, block.page, block.kind, block.label))
    page.blocks = kept


def attach_table_captions(page: RawPage) -> None:
    """Give each table its "Table N" caption (above, else below) and drop that block."""
    used: set[int] = set()
    for table in page.tables:
        best, best_gap = None, TABLE_CAPTION_MAX_GAP
        for i, block in enumerate(page.blocks):
            if i in used or block.kind != "caption" or not block.label.startswith("Table"):
                continue
            box = block.bbox
            if min(box.x1, table.bbox.x1) - max(box.x0, table.bbox.x0) <= 0:
                continue
            gap = table.bbox.y0 - box.y1 if box.y1 <= table.bbox.y0 + 2 else box.y0 - table.bbox.y1
            # Captions above the table are the convention; a caption below must be closer.
            if box.y0 >= table.bbox.y1 - 2:
                gap += 10
            if -2 <= gap < best_gap:
                best, best_gap = i, gap
        if best is not None:
            used.add(best)
            table.caption = page.blocks[best]
    page.blocks = [b for i, b in enumerate(page.blocks) if i not in used]
