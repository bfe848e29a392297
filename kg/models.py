"""Typed records that flow between pipeline stages.

Readers produce a ParsedDocument; the graph builder turns it into nodes and
edges. IDs are content hashes (see kg.ids) so re-ingesting the same bytes
produces the same IDs and MERGE adds nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kg.errors import HopgraphError

# Section roles of blocks and chunks. Chain evidence comes from EVIDENCE_ROLES
# by default ([generate] evidence_roles); the others stay searchable.
ROLES = ("front_matter", "contents", "body", "references", "acknowledgements", "appendix", "boilerplate")
EVIDENCE_ROLES = ("body", "appendix")

# Where ParsedDocument.title came from.
TITLE_SOURCES = ("metadata", "heading", "first_line", "filename")


@dataclass
class Block:
    """One unit of text in reading order, as a reader found it.

    kind: "text", "heading", "table" or "caption". Tables and captions are
    never split by the chunker; headings open a new section.
    """

    text: str
    kind: str = "text"
    page: int = 1
    section: str = ""  # e.g. "4.1" when the heading was numbered
    heading_level: int = 0  # 1 = top level, 0 = not a heading
    label: str = ""  # "Table 2" for a table or its caption, "Figure 3" for a figure caption
    role: str = "body"  # one of ROLES
    cells: str = ""  # table blocks: JSON of kg.ingest.tables.TableGrid (header, rows)


@dataclass
class ImageRef:
    """An image kept by a reader (decorative ones are already dropped)."""

    id: str  # sha256 of the image bytes (first 16 hex), shared across pages
    path: str  # extracted file under .hopgraph/assets/<doc>/
    page: int
    bbox: list[float] = field(default_factory=list)
    width: int = 0
    height: int = 0
    caption: str = ""
    label: str = ""  # "Figure 3" when the caption names it
    nearby_text: str = ""  # text around the image, used for offline descriptions
    alt: str = ""  # markdown alt text
    visible_text: str = ""  # text printed inside a PDF figure (labels, legend, values), one line a line
    visible_lines: str = ""  # the same lines with their boxes, JSON [[text, x0, y0, x1, y1], ...]
    bar_values: str = ""  # a bar chart's bars read by legend colour, JSON [[series, group, value, unit], ...]
    table_cells: str = ""  # a table pasted as a picture, read by OCR, JSON [[row label, column name, value], ...]


@dataclass
class ParsedDocument:
    path: str
    sha256: str
    title: str
    pages: int
    blocks: list[Block]
    images: list[ImageRef] = field(default_factory=list)
    skipped_images: int = 0
    warnings: list[str] = field(default_factory=list)  # e.g. "missing image img/a.png"
    tables: int = 0
    title_source: str = "filename"  # one of TITLE_SOURCES
    furniture_removed: int = 0  # lines dropped as running headers, page numbers, typesetting codes


@dataclass
class Chunk:
    id: str
    doc_id: str
    index: int
    text: str
    kind: str = "text"  # text, table, caption
    page_start: int = 1
    page_end: int = 1
    tokens: int = 0
    section: str = ""
    label: str = ""  # "Table 2" for a table chunk
    role: str = "body"  # one of ROLES: the section role of every block in it
    cells: str = ""  # table chunks: JSON grid, see kg.ingest.tables.table_cells


class IngestError(HopgraphError):
    """A user's file could not be read; the message names the reason."""
