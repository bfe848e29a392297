"""Reading order of a page's blocks and tables, and their conversion to kg.models.Block."""

from __future__ import annotations

import pymupdf

from kg.ingest.pdf.headings import heading_fields, is_heading_candidate
from kg.ingest.tables import TableGrid, grid_markdown, table_grid, table_lines
from kg.ingest.pdf.types import RawBlock, RawPage, RawTable
from kg.models import Block


def reading_order(page: RawPage) -> list[RawBlock | RawTable]:
    """Column-aware order: full-width items split the page into bands; in a
    band the left column is read before the right one.

    pymupdf's stream order is usually right for born-digital papers but not
    for every producer; geometry is the safer common denominator.
    """
    items: list[RawBlock | RawTable] = [*page.blocks, *page.tables]
    mid = (page.rect.x0 + page.rect.x1) / 2

    def box(item: RawBlock | RawTable) -> pymupdf.Rect:
        return item.bbox if isinstance(item, RawTable) else item.bbox

    def full_width(item: RawBlock | RawTable) -> bool:
        b = box(item)
        return b.x0 < mid - 10 and b.x1 > mid + 10

    ordered: list[RawBlock | RawTable] = []
    band: list[RawBlock | RawTable] = []

    def flush() -> None:
        left = [i for i in band if box(i).x0 < mid - 10]
        right = [i for i in band if box(i).x0 >= mid - 10]
        ordered.extend(sorted(left, key=lambda i: box(i).y0))
        ordered.extend(sorted(right, key=lambda i: box(i).y0))
        band.clear()

    for item in sorted(items, key=lambda i: (box(i).y0, box(i).x0)):
        if full_width(item):
            flush()
            ordered.append(item)
        else:
            band.append(item)
    flush()
    return ordered


def to_block(
    item: RawBlock | RawTable, page: int, body_size: float, heading_sizes: dict[float, int]
) -> Block | None:
    if isinstance(item, RawTable):
        label = item.caption.label if item.caption else ""
        grid = table_grid(item.markdown)
        if item.doubt:  # cells that cannot be trusted: the table's printed lines, and why, no grid
            grid = TableGrid(kept_as_text=item.doubt)
        # The chunk shows the clean grid: no "<br>" or emphasis reaches keywords, topics or questions.
        table_text = grid_markdown(grid) or table_lines(item.markdown)
        text = f"{item.caption.text}\n\n{table_text}" if item.caption else table_text
        return Block(text=text, kind="table", page=page, label=label, cells=grid.to_json())
    text = item.text.strip()
    if not text:
        return None
    if item.kind == "caption":
        return Block(text=text, kind="caption", page=page, label=item.label)
    if is_heading_candidate(item, body_size):
        level, number = heading_fields(item, heading_sizes)
        return Block(text=text, kind="heading", page=page, section=number, heading_level=level)
    return Block(text=text, kind="text", page=page)
