"""Page content as the PDF reader collects it, before it becomes kg.models records."""

from __future__ import annotations

from dataclasses import dataclass, field

import re

import pymupdf

# A glyph the PDF maps to no text comes out as a control character (kg.ingest.mark_unmapped_glyphs).
UNMAPPED_GLYPH_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass
class Line:
    text: str
    bbox: tuple[float, float, float, float]
    size: float
    bold: bool
    first_bold: bool = False  # the first span: caption labels are often bold alone


@dataclass
class RawBlock:
    """A text block on a page before it becomes a models.Block."""

    lines: list[Line]
    page: int
    kind: str = "text"
    label: str = ""
    text_override: str = ""

    @property
    def bbox(self) -> pymupdf.Rect:
        rect = pymupdf.Rect(self.lines[0].bbox)
        for line in self.lines[1:]:
            rect |= line.bbox
        return rect

    @property
    def text(self) -> str:
        return self.text_override or join_lines([line.text for line in self.lines])

    @property
    def size(self) -> float:
        return max(line.size for line in self.lines)

    @property
    def bold(self) -> bool:
        return all(line.bold for line in self.lines)


@dataclass
class RawTable:
    bbox: pymupdf.Rect
    markdown: str
    caption: RawBlock | None = None
    doubt: str = ""  # why the cells cannot be trusted (kg.ingest.pdf.printed_table.doubt): kept as text


@dataclass
class Graphic:
    """An image placement or a cluster of vector drawings on a page."""

    bbox: pymupdf.Rect
    xref: int = 0  # 0 for vector drawings
    width: int = 0
    height: int = 0


@dataclass(frozen=True)
class Fill:
    """A filled rectangle the page draws (a bar, a legend swatch, a shaded cell): its box and colour."""

    rect: tuple[float, float, float, float]
    rgb: tuple[float, ...]


@dataclass
class RawPage:
    number: int
    rect: pymupdf.Rect
    blocks: list[RawBlock]
    images: list[Graphic]
    drawings: list[Graphic]
    tables: list[RawTable] = field(default_factory=list)
    table_cue: str = ""  # why find_tables ran on this page (see table_cues), "" when it did not
    fills: list[Fill] = field(default_factory=list)  # filled rectangles, for reading bar charts (bar_charts.py)


def join_lines(lines: list[str]) -> str:
    """Join wrapped lines, undoing end-of-line hyphenation ("seg-\\nmentation"). A hyphen before a
    capital or a digit is part of a name broken at it ("DeepSeek-\\nR1", "GPT-\\n4"): kept, no space."""
    out = ""
    for line in lines:
        line = line.strip()
        if not out:
            out = line
        elif out.endswith("-") and line[:1].islower() and out[-2:-1].isalpha():
            out = out[:-1] + line
        elif out.endswith("-") and (line[:1].isupper() or line[:1].isdigit()) and out[-2:-1].isalnum():
            out += line
        else:
            out = f"{out} {line}"
    return out
