"""Which pages are worth pymupdf's table detection.

find_tables runs a layout model and costs 0.2-1 s a page; most pages hold
no table. A page gets it when it shows a table cue:

- caption: a "Table N" caption block;
- ruled: a grid (horizontal rules of one width with vertical rules between
  them) or three or more rules of one width (top, middle and bottom rules);
- columns: three or more text rows split into three or more cells at wide
  gaps, two of them numbers (a financial table set without rules or caption).

A lone rule under a header or above footnotes, link underlines of different
lengths, or prose in three columns are not cues.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pymupdf

from kg.ingest.pdf.types import RawBlock

RULE_MIN_PT = 40.0
FRAME_BAND = 0.08  # top/bottom share of the page ignored: header and footer rules
SAME_EDGE_PT = 3.0  # rules of one table start and end at the same x
ALIGNED_RULES = 3
GRID_VERTICALS = 2
NUMERIC_ROWS = 3
_NUMERIC_CELL_RE = re.compile(r"^[(\-–−+]?[$€£¥]?\s*\d[\d,.]*\s*%?\)?\*?$|^[$€£¥%]$|^[-–—]$")


def page_rules(drawings: list[dict], rect: pymupdf.Rect) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """(x0, x1, y) of horizontal rules and (x, y0, y1) of vertical ones inside the body band."""
    top, bottom = rect.y0 + FRAME_BAND * rect.height, rect.y1 - FRAME_BAND * rect.height
    horizontal: list[tuple[float, float, float]] = []
    vertical: list[tuple[float, float, float]] = []
    for drawing in drawings:
        for item in drawing["items"]:
            if item[0] == "l":
                a, b = item[1], item[2]
                if abs(a.y - b.y) < 1 and abs(a.x - b.x) >= RULE_MIN_PT and top < a.y < bottom:
                    horizontal.append((min(a.x, b.x), max(a.x, b.x), a.y))
                elif abs(a.x - b.x) < 1 and abs(a.y - b.y) >= 6 and top < a.y < bottom:
                    vertical.append((a.x, min(a.y, b.y), max(a.y, b.y)))
            elif item[0] == "re":
                r = item[1]
                if r.height < 2 and r.width >= RULE_MIN_PT and top < r.y0 < bottom:
                    horizontal.append((r.x0, r.x1, r.y0))
                elif r.width < 2 and r.height >= 6 and top < r.y0 < bottom:
                    vertical.append((r.x0, r.y0, r.y1))
    return horizontal, vertical


def _ruled(drawings: list[dict], rect: pymupdf.Rect) -> bool:
    horizontal, vertical = page_rules(drawings, rect)
    groups: dict[tuple[int, int], list[float]] = defaultdict(list)
    for x0, x1, y in horizontal:
        key = (round(x0 / SAME_EDGE_PT), round(x1 / SAME_EDGE_PT))
        groups[key].append(y)
    for (gx0, gx1), ys in groups.items():
        distinct = sorted({round(y) for y in ys})
        if len(distinct) >= ALIGNED_RULES:
            return True
        if len(distinct) >= 2:
            x0, x1 = gx0 * SAME_EDGE_PT, gx1 * SAME_EDGE_PT
            inside = [v for v in vertical if x0 - 2 <= v[0] <= x1 + 2 and v[1] >= distinct[0] - 2
                      and v[2] <= distinct[-1] + 2]
            if len(inside) >= GRID_VERTICALS:
                return True
    return False


def _numeric_rows(blocks: list[RawBlock]) -> int:
    """Text rows with three or more cells, two or more of them numbers."""
    rows: dict[int, list[str]] = defaultdict(list)
    for block in blocks:
        for line in block.lines:
            rows[round((line.bbox[1] + line.bbox[3]) / 4)].append(line.text.strip())  # 2 pt bands
    return sum(
        1 for cells in rows.values()
        if len(cells) >= 3 and sum(bool(_NUMERIC_CELL_RE.match(c)) for c in cells) >= 2
    )


def table_cue(blocks: list[RawBlock], drawings: list[dict], rect: pymupdf.Rect) -> str:
    """The first cue that this page may hold a table ("caption", "ruled", "columns"), or ""."""
    if any(b.label.startswith("Table") for b in blocks):
        return "caption"
    if _ruled(drawings, rect):
        return "ruled"
    if _numeric_rows(blocks) >= NUMERIC_ROWS:
        return "columns"
    return ""
