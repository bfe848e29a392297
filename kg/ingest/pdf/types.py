"""Page content as the PDF reader collects it, before it becomes kg.models records."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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
    upright: bool = True  # written left to right along the page; False for a rotated axis label
    rising: bool = False  # rotated to read upwards to the right (a tick label set at 30 or 45 degrees)


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
    outlined: bool = False  # drawn as an outline only (a hatched bar: its hatching is a pattern)


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


_HYPHENATED = re.compile(r"\b([A-Za-z][A-Za-z0-9]*)-([A-Z][A-Za-z0-9]*)\b")


def words_broken_at_lines(blocks: list["RawBlock"]) -> dict[str, int]:
    """"A-B" words that join_lines formed at a line end before a capital ("Sci-" / "BERT"), counted."""
    broken: dict[str, int] = {}
    for block in blocks:
        for line, after in zip(block.lines, block.lines[1:]):
            end, start = line.text.strip(), after.text.strip()
            if end.endswith("-") and start[:1].isupper() and end[-2:-1].isalnum():
                word = f"{end.split()[-1]}{start.split()[0]}"
                match = _HYPHENATED.search(word)
                if match:
                    broken[match.group(0)] = broken.get(match.group(0), 0) + 1
    return broken


def rejoin_broken_words(texts: list[str], broken: dict[str, int]) -> list[str]:
    """A word TeX broke at a capital ("Sci-" / "BERT") is joined with its hyphen kept (join_lines). Where
    every "Sci-BERT" of the document stands at such a break (`broken`) and the document spells the
    word whole elsewhere ("SciBERT"), the hyphen was the break's and goes. A hyphen written mid-line
    anywhere ("Arena-Hard", "DeepSeek-R1") keeps every one of them."""
    counts: dict[str, int] = {}
    for text in texts:
        for word in re.findall(r"[A-Za-z0-9][A-Za-z0-9-]*", text):
            counts[word] = counts.get(word, 0) + 1

    def mend(match: re.Match) -> str:
        word = match.group(0)
        joined = match.group(1) + match.group(2)
        at_breaks_only = broken.get(word, 0) >= counts.get(word, 0)
        return joined if word in broken and at_breaks_only and counts.get(joined, 0) else word

    return [_HYPHENATED.sub(mend, text) for text in texts]


def _has_digit(line: str) -> bool:
    """Whether the line's first word holds a digit ("v1.5", "4", "o3"): a name's part, no hyphenated word's."""
    return any(c.isdigit() for c in line.split()[0]) if line.split() else False


def join_lines(lines: list[str]) -> str:
    """Join wrapped lines, undoing end-of-line hyphenation ("seg-\\nmentation"). A hyphen before a
    capital or a word holding a digit is kept, no space: a name broken at it ("DeepSeek-\\nR1", "GPT-\\n4",
    "Thinking-\\nv1.5"), or a word TeX broke there ("Sci-\\nBERT"), which rejoin_broken_words mends from
    the rest of the document. A line opening with a dot and a letter continues a dotted name, one opening
    with a hyphen glued to a word a hyphenated one ("Qwen3-235B" over "-Thinking-2507")."""
    out = ""
    for line in lines:
        line = line.strip()
        if not out:
            out = line
        elif out.endswith("-") and line[:1].islower() and out[-2:-1].isalpha() and not _has_digit(line):
            out = out[:-1] + line
        elif out.endswith("-") and (line[:1].isupper() or _has_digit(line)) and out[-2:-1].isalnum():
            out += line
        elif line[:1] == "." and line[1:2].isalpha() and out[-1:].isalnum() and "." in out.split()[-1]:
            out += line  # a dotted name broken before a dot: "dots.llm1" over ".base"
        elif line[:1] == "-" and line[1:2].isalnum() and out[-1:].isalnum():
            out += line  # a name broken before a hyphen: "DeepSeek-V2.5" over "-1210-Chat" (a header cell, q60)
        else:
            out = f"{out} {line}"
    return out
