"""Tables as cells: a table answer is one cell named by its row and column.

Readers keep a table as markdown (the chunk text) and as a grid (the
Chunk.cells JSON): a header row and data rows whose first cell is the row
label, every cell cleaned of markdown (bold, italics, <br>), dot leaders
and footnote marks. table_cells() turns either into Cell records, so a
chain builder can ask "what is the <column> of <row>?" and answer one
clean value.

Markdown tables (and PDF tables without cell boxes, from pymupdf's
to_markdown) have habits this module undoes: several visual rows packed into
one markdown row with "<br>" between them ("PubMed<br>arXiv" | "3092<br>5906"),
currency symbols in a column of their own ("$" | "22,439"), and header cells
split over two columns. PDF tables with cell boxes are rebuilt from the
page's words first (kg.ingest.pdf.printed_table). A grid that cannot be
trusted has no rows and says why (TableGrid.kept_as_text).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

_SEPARATOR_RE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_BR_RE = re.compile(r"<br\s*/?>", re.I)
_EMPHASIS_RE = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")
_DOT_LEADER_RE = re.compile(r"\s*(?:\.\s?){2,}\s*$|\s*(?:\.\s?){4,}")
_CURRENCY_RE = re.compile(r"^[$€£¥]$|^(?:US)?\$$")
_FOOTNOTE_TAIL_RE = re.compile(r"(?<=[\d%)])\s*[*†‡§¶]+$")
_PLACEHOLDER_HEADER_RE = re.compile(r"^Col\d+$")
_CONTINUES_RE = re.compile(r"(?:[=,;:\-–(]|\band|\bor|\bof|\bto|\bthe)$")


def is_separator_row(line: str) -> bool:
    """The `| --- | :---: |` line under a markdown table's header."""
    return bool(_SEPARATOR_RE.match(line))


@dataclass
class Cell:
    """One data cell: "what is the <column_label> of <row_label>?" -> value."""

    row_label: str
    column_label: str
    value: str
    row: int  # 0-based data row
    column: int  # 0-based column in the grid (0 is the row-label column)
    unit: str = ""  # a currency symbol that stood in a column of its own


@dataclass
class TableGrid:
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    units: list[str] = field(default_factory=list)  # per column: "$" when a currency column was merged into it
    kept_as_text: str = ""  # why the table's cells were not trusted (no rows then; the chunk shows its text)

    def to_json(self) -> str:
        if self.kept_as_text:
            return json.dumps({"kept_as_text": self.kept_as_text}, ensure_ascii=False)
        data = {k: v for k, v in asdict(self).items() if k != "kept_as_text"}
        return json.dumps(data, ensure_ascii=False) if self.rows else ""

    @classmethod
    def from_json(cls, text: str) -> "TableGrid":
        data = json.loads(text) if text else {}
        return cls(data.get("header", []), data.get("rows", []), data.get("units", []), data.get("kept_as_text", ""))


def clean_cell(text: str) -> str:
    """Plain text of a markdown cell: no emphasis, line breaks, dot leaders or footnote marks."""
    text = _BR_RE.sub(" ", text)
    for _ in range(2):  # nested "**_x_**"
        text = _EMPHASIS_RE.sub(r"\2", text)
    text = re.sub(r"(?<!\w)_|_(?!\w)", "", text)  # stray emphasis marks: "72.35_ ±_ 0.95"
    text = re.sub(r"(?<=\w)\*\*+|\*\*+(?=\w)", "", text)  # unpaired bold: "speaker**"
    text = _DOT_LEADER_RE.sub(" ", text)
    text = " ".join(text.split())
    return _FOOTNOTE_TAIL_RE.sub("", text).strip()


def _split_row(line: str) -> list[str]:
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    return [cell.replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line)]


def _markdown_rows(markdown: str) -> tuple[list[str], list[list[str]]]:
    """Raw (header cells, data rows) of the first markdown table in the text."""
    lines = markdown.splitlines()
    for i in range(len(lines) - 1):
        if "|" in lines[i] and is_separator_row(lines[i + 1]):
            width = len(_split_row(lines[i + 1]))
            rows = []
            for line in lines[i + 2:]:
                if "|" not in line or not line.strip():
                    break
                rows.append(_split_row(line))
            return _fit_header(_split_row(lines[i]), width), rows
    return [], []


def _fit_header(header: list[str], width: int) -> list[str]:
    """A header with more cells than the table has columns: pieces that start
    with a line break continue the cell before, and empty pieces are gaps."""
    if len(header) <= width:
        return header + [""] * (width - len(header))
    merged: list[str] = []
    for cell in header:
        if merged and _BR_RE.match(cell.strip()):
            merged[-1] = f"{merged[-1]} {cell}"
        elif cell.strip() or len(merged) == 0:
            merged.append(cell)
    return merged[:width] + [""] * (width - len(merged[:width]))


def _parts(cell: str) -> list[str]:
    """A packed cell's visual rows."""
    return [p for p in (_DOT_LEADER_RE.sub("", x).strip() for x in _BR_RE.split(cell)) if p]


def _joined(parts: list[str]) -> list[str]:
    """Wrapped lines joined back: a line ending in "=" or "and", or one
    starting in lower case, continues the visual row before it."""
    joined: list[str] = []
    for part in parts:
        if joined and (_CONTINUES_RE.search(joined[-1]) or part[:1].islower()):
            joined[-1] = f"{joined[-1]} {part}"
        else:
            joined.append(part)
    return joined


def _unpack(row: list[str]) -> list[list[str]]:
    """One markdown row holding k visual rows in every filled cell -> k rows.

    The cells' line counts must agree, as split or after joining wrapped
    lines; otherwise the row stays one row.
    """
    split = [_parts(cell) for cell in row]
    for attempt in (split, [_joined(p) for p in split]):
        counts = {len(p) for p in attempt if p}
        if len(counts) == 1 and (k := counts.pop()) >= 2:
            return [[p[i] if p else "" for p in attempt] for i in range(k)]
    return [row]


def _merge_currency_columns(header: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]], list[str]]:
    """A column holding only currency symbols joins the column to its right."""
    units = [""] * len(header)
    drop: set[int] = set()
    for j in range(len(header) - 1):
        values = [r[j] for r in rows if j < len(r) and r[j]]
        if values and all(_CURRENCY_RE.match(v) for v in values):
            drop.add(j)
            units[j + 1] = values[0]
            if header[j] and not header[j + 1]:
                header[j + 1] = header[j]
    keep = [j for j in range(len(header)) if j not in drop]
    return [header[j] for j in keep], [[r[j] if j < len(r) else "" for j in keep] for r in rows], [units[j] for j in keep]


def table_grid(markdown: str) -> TableGrid:
    """The cleaned grid of the first markdown table in `markdown` (empty when there is none)."""
    raw_header, raw_rows = _markdown_rows(markdown)
    if not raw_header:
        return TableGrid()
    rows = [[clean_cell(c) for c in unpacked] for row in raw_rows for unpacked in _unpack(row)]
    header = ["" if _PLACEHOLDER_HEADER_RE.match(h) else h for h in (clean_cell(c) for c in raw_header)]
    width = len(header)
    rows = [(r + [""] * width)[:width] for r in rows if any(r)]
    header, rows, units = _merge_currency_columns(header, rows)
    header, rows, units = _align_header_cells(header, rows, units)
    return TableGrid(header, rows, units)


# An amount anywhere in a cell ("Up to $3,790", "4.5 points"): a row holding one is no header row.
_AMOUNT = re.compile(r"[$€£¥]\s?\d|\d\s?%|\d\.\d|\d,\d{3}")
# A value in a body row: "$4,011", "13,731", "5.4%", "(2.3)"; a year ("2023") heads a column instead.
_FIGURE = re.compile(r"^\(?[-+\u2212]?[$€£¥]?(?!(?:19|20)\d\d\)?$)\d[\d,]*(?:\.\d+)?%?\)?$")


_NAME_CELL = re.compile(r"[^\W\d_]|^(?:19|20)\d\d$")  # a word or a year, not "-", "N/A"-free dashes or numbers


def _names_columns(cells: list[str]) -> bool:
    """Cells over value columns that name them: two or more words or years ("2023", "Reported"), and no
    dash, "n/a" or "none" (a row of a model with unreported scores, "| GPT-4 | - | - |", is a body row)."""
    filled = [c.strip() for c in cells if c.strip()]
    if any(c.casefold() in ("-", "\u2013", "\u2014", "n/a", "na", "none", "--") for c in filled):
        return False
    return sum(1 for c in filled if _NAME_CELL.search(c)) >= 2


def _align_header_cells(header: list[str], rows: list[list[str]], units: list[str]):
    """Header cells set one column left of their values (a heading centred over a "$" and its number:
    J&J's "2022" stood over an empty column, its values one to the right) move onto the values. Header
    rows are the first and those above the first row with a value (a year heads a column); empty
    columns stay (one between two tables printed side by side is their gutter)."""
    first = next((k for k, r in enumerate(rows) if any(_FIGURE.match(c) or _AMOUNT.search(c) for c in r[1:])), len(rows))
    heads, body = [header, *rows[:first]], rows[first:]
    filled = [any(r[j] for r in body) for j in range(len(header))]
    for head in heads if body else []:
        for j in range(len(header) - 1):
            if head[j] and not head[j + 1] and not filled[j] and filled[j + 1]:
                head[j], head[j + 1] = "", head[j]
    # A second header row that names value columns ("2023", "2022" under "Q2") is part of the header:
    # its names join the first's ("% Change Reported"); a group row ("Reasoning" alone) stays a row.
    naming = [h for h in heads[1:] if body and _names_columns([h[j] for j in range(2, len(header)) if filled[j]])]
    for head in naming:
        header = [" ".join(dict.fromkeys(p for p in (a, b) if p)) for a, b in zip(header, head)]
    return header, [h for h in heads[1:] if h not in naming] + body, units


def grid_markdown(grid: TableGrid) -> str:
    """The clean grid as a markdown table: what a chunk of the table shows (no "<br>", no emphasis)."""
    if not grid.rows:
        return ""
    width = len(grid.header)

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in (cells + [""] * width)[:width]) + " |"

    return "\n".join([line(grid.header), "|" + "|".join(["---"] * width) + "|", *map(line, grid.rows)])


def table_lines(markdown: str) -> str:
    """A markdown table as plain lines, one per row, cells apart by two spaces (no pipes, rules or markup)."""
    lines = []
    for line in markdown.splitlines():
        if is_separator_row(line):
            continue
        cells = [clean_cell(c) for c in _split_row(line)] if "|" in line else [clean_cell(line)]
        if any(cells):
            lines.append("  ".join(c for c in cells if c))
    return "\n".join(lines)


def table_cells(table: Any) -> list[Cell]:
    """Cells of a table given as markdown text, a TableGrid, a cells JSON
    string, or anything with `cells` (JSON) or `text` (markdown) attributes,
    such as a Chunk. Rows without a label and columns without a header name
    nothing and are left out."""
    grid = _as_grid(table)
    cells = []
    for part, (start, end) in enumerate(side_by_side(grid)):
        at = label_column(grid) if part == 0 else start
        for i, row in enumerate(grid.rows):
            label = row[at] if len(row) > at else ""
            if not label:
                continue
            for j in range(at + 1, min(len(row), end)):
                if row[j] and grid.header[j]:
                    unit = grid.units[j] if j < len(grid.units) else ""
                    # a second table's rows are numbered after the first's: one printed line holds two rows
                    cells.append(Cell(label, grid.header[j], row[j], i + part * len(grid.rows), j, unit))
    return cells


def side_by_side(grid: TableGrid) -> list[tuple[int, int]]:
    """The column spans of the tables a grid holds: two printed side by side share each line, the second
    starting where the first's label header comes again (LGN's Table 3, "| Models | P | R | F1 |  |
    Models | NE | NM | All |", q37: MSRA's rows read with Weibo's cells, "Zhang et al. (2006)" given
    Peng and Dredze's 58.99). An empty column between them belongs to neither."""
    header = [h.strip().casefold() for h in grid.header]
    for k in range(2, len(header)):
        if header[0] and header[k] == header[0]:
            gap = not header[k - 1] and all(len(r) <= k - 1 or not r[k - 1].strip() for r in grid.rows)
            return [(0, k - 1 if gap else k), (k, len(header))]
    return [(0, len(header))]


_SIZE_OR_NUMBER = re.compile(r"[\d.,x×]+\s*[A-Za-z%]{0,2}")  # "7B", "8x7B", "1.5", "70%": values, no labels


def label_column(grid: TableGrid) -> int:
    """The column that names the rows: the first, unless it only groups them. LLM reports print a group
    column before the labels ("| Reasoning | AIME 2024 (Pass@1) | 79.8 |", then "|  | Codeforces | 96.3 |"):
    a first column empty in half the rows or more, beside a second whose cells name every row once, is a group.
    One name may come back: each group's summary row ("Average" after each group in dots.llm1's Table 2)."""
    rows = [r for r in grid.rows if len(r) > 2]
    if len(rows) < 3 or len(grid.header) < 3 or grid.header[0].strip():
        return 0  # a headed first column ("Model | Size | MMLU") names its rows, blanks and all
    empty_first = sum(1 for r in rows if not r[0].strip())
    second = [r[1].strip() for r in rows]
    repeated = [name for name in set(second) if second.count(name) > 1]
    if empty_first * 2 >= len(rows) and all(second) and len(repeated) <= 1 \
            and not any(_SIZE_OR_NUMBER.fullmatch(c) for c in second):
        return 1
    return 0


def _as_grid(table: Any) -> TableGrid:
    if isinstance(table, TableGrid):
        return table
    if isinstance(table, dict):
        table = table.get("cells") or table.get("text") or ""
    elif not isinstance(table, str):
        table = getattr(table, "cells", "") or getattr(table, "text", "")
    text = table.strip()
    if text.startswith("{"):
        return TableGrid.from_json(text)
    return table_grid(text)
