"""Tables pasted as pictures, read with OCR into (row label, column name, value) cells.

Model cards paste their results table as one picture (Gemini 3 Pro's and Gemini 3 Flash's evaluation
tables: benchmark names down the left, one column of scores a model): no text of the page holds a
single cell. Read from the OCR's printed lines (ocr_text.ocr_lines), in four steps:

1. columns: the printed numbers, grouped by the stretch across the picture they cover (values of
   one column overlap each other's stretch); a column holds MIN_ROWS numbers or more;
2. rows: numbers whose middles stand within half a line's height of each other;
3. names: a column's name is the header text over its first number that overlaps it more than any
   other column (a cell's text level with a row of numbers, or a title reaching over the row labels,
   is none); a row's label is the text at the row's left, level with its numbers, in the table's
   left-most text column;
4. doubt: a row whose label stands between two rows of numbers (a benchmark scored two ways: "No
   tools" and "With search") or whose label runs on over a line without numbers (a wrapped name) is
   left out, and so is a column without a name of its own or with a name another column shares, a
   row label printed twice, and a row with two values under one column name.

A picture without MIN_ROWS such rows is no table (a diagram, a photo, a chart). An OCR misreading
cannot be checked against anything here (unlike a bar's length): a line is kept only when the engine
read it with ocr_text.MIN_OCR_SCORE confidence, and a name the document's text prints gets its
spacing back from there (ocr_text.respell_labels). Tried: pictures without a caption (model cards
paste their tables so) or captioned as a Table; a captioned Figure is a drawing or a photo (an FAA
handbook chapter's 35 pictures, 28 of them text on a light ground, had cost minutes of OCR).
"""

from __future__ import annotations

import json
import logging
import re
import statistics

import numpy as np

from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.ocr_text import load_pixels, ocr_lines

log = logging.getLogger("hopgraph.ingest")

MIN_ROWS = 3  # rows with a labelled number: fewer is no table worth reading
MIN_SIDE = 300  # px: a smaller picture holds no readable table
MIN_BANDS = MIN_ROWS + 1  # text bands (rows of ink between blank pixel rows): a heading and the rows
MIN_GUTTER = 0.004  # of the width: blank pixel columns (2 at 500 px) down the whole table between two columns of text
MAX_INK = 0.25  # of the picture's pixels: a table is mostly ground; a photo or a chart's fills are not
SCREEN_SIDE = 500  # px: the size the cheap test looks at
_CELL = re.compile(r"^[(]?[-+\u2212]?[$€£¥]?\d[\d,]*(?:\.\d+)?%?[)]?$")  # "37.5%", "2,439", "$5,478.16", "0.115"


def may_be_table(pixels: np.ndarray) -> bool:
    """Bands of text on a light ground, split by blank gutters into two or more columns, in a copy
    about SCREEN_SIDE px across: cheap enough for every picture (the OCR costs seconds). A diagram's
    arrows or a paragraph's lines leave no gutter from top to bottom."""
    step = max(1, max(pixels.shape[:2]) // SCREEN_SIDE)
    grey = pixels[::step, ::step].mean(axis=2)
    ground = float(np.median(grey))
    ink = np.abs(grey - ground) > 60
    if ground < 160 or ink.mean() > MAX_INK:
        return False
    text = ink.copy()  # rules across or down the table (Gemini 3 Pro's rows are ruled) are no text
    text[ink.mean(axis=1) > 0.5, :] = False
    text[:, ink.mean(axis=0) > 0.5] = False
    heights = _band_heights(text.any(axis=1))
    if len(heights) < MIN_BANDS:
        return False
    # lines of type: most bands about one height (a diagram's shapes and labels come in any size)
    middle = float(np.median(heights))
    even = sum(1 for h in heights if 0.5 * middle <= h <= 2 * middle)
    return even >= max(MIN_BANDS, EVEN_BANDS * len(heights)) and \
        _runs(text.any(axis=0), max(1, round(MIN_GUTTER * ink.shape[1]))) >= 2


EVEN_BANDS = 0.8  # share of the bands within a factor of two of their median height


def _band_heights(rows: np.ndarray) -> list[int]:
    """Heights of the runs of True in `rows` (the pixel rows holding ink)."""
    heights, run = [], 0
    for filled in rows:
        if filled:
            run += 1
        elif run:
            heights.append(run)
            run = 0
    return heights + [run] if run else heights


def _runs(filled: np.ndarray, gap: int) -> int:
    """Runs of True in `filled`, runs closer than `gap` counted as one."""
    runs, blank = 0, gap
    for value in filled:
        if value:
            runs += blank >= gap
            blank = 0
        else:
            blank += 1
    return runs


def is_cell_value(text: str) -> bool:
    return bool(_CELL.match(text.strip()))


def _columns(numbers: list[Line]) -> list[list[Line]]:
    """Numbers grouped by overlapping stretches across the picture, left to right."""
    columns: list[list[Line]] = []
    for n in sorted(numbers, key=lambda ln: ln.x0):
        if columns and n.x0 <= max(ln.x1 for ln in columns[-1]):
            columns[-1].append(n)
        else:
            columns.append([n])
    return [c for c in columns if len(c) >= MIN_ROWS]


def _rows(numbers: list[Line], band: float) -> list[list[Line]]:
    """Numbers whose middles stand within `band` of the row's first, top to bottom."""
    rows: list[list[Line]] = []
    for n in sorted(numbers, key=lambda ln: ln.cy):
        if rows and n.cy - rows[-1][0].cy <= band:
            rows[-1].append(n)
        else:
            rows.append([n])
    return rows


def _overlap(w: Line, column: list[Line]) -> float:
    return min(w.x1, max(n.x1 for n in column)) - max(w.x0, min(n.x0 for n in column))


STACK_GAP = 0.8  # line heights: a header's lines stand closer than this; a title over the table further


def _column_names(columns: list[list[Line]], words: list[Line], rows: list[list[Line]], band: float,
                  first_x: float) -> list[str]:
    """Each column's name: the header lines over its first number that overlap it more than any other
    column, stacked top to bottom while they touch ("Gemini 3" over "Pro"); "" without any. A line level with a row of
    numbers is a cell ("N/A"), and a line reaching over the row labels is a title: neither names a
    column."""
    middles = [statistics.median(n.cy for n in r) for r in rows]
    header = [w for w in words if w.x0 >= first_x - band and all(abs(w.cy - m) > band for m in middles)]
    names = []
    for k, column in enumerate(columns):
        top = min(n.y0 for n in column)
        mine = [w for w in header if w.y1 <= top + 1 and _overlap(w, column) > 0
                and max(range(len(columns)), key=lambda j: _overlap(w, columns[j])) == k]
        if not mine:
            names.append("")
            continue
        height = statistics.median(w.y1 - w.y0 for w in mine)
        stack, top = [], max(w.y1 for w in mine) + 1
        for w in sorted(mine, key=lambda w: -w.y1):  # up from the lowest line while the lines touch
            if top - w.y1 > STACK_GAP * height:
                break
            stack.append(w)
            top = min(top, w.y0)
        stack.sort(key=lambda w: (round(w.y0 / height), w.x0))
        names.append(" ".join(w.text for w in stack))
    return names


def _row_label(row: list[Line], words: list[Line], band: float, left_edge: float, height: float) -> Line | None:
    """The text level with the row's numbers, left of them, starting in the table's first text column;
    pieces the OCR split a word's space apart join it ("GPQA" + "Diamond"), a column's gutter does not."""
    first = min(n.x0 for n in row)
    middle = statistics.median(n.cy for n in row)
    level = sorted((w for w in words if abs(w.cy - middle) <= band and w.x1 <= first), key=lambda w: w.x0)
    if not level or level[0].x0 - left_edge > 2 * height:
        return None
    label = level[0]
    for piece in level[1:]:
        if piece.x0 - label.x1 > height:
            break
        label = Line(f"{label.text} {piece.text}", label.x0, min(label.y0, piece.y0), piece.x1, max(label.y1, piece.y1))
    return label


def table_cells(lines: list[Line]) -> list[tuple[str, str, str]]:
    """(row label, column name, value) for each cell read whole (see the module docstring); [] for
    anything that is not such a table."""
    numbers = [ln for ln in lines if is_cell_value(ln.text)]
    words = [ln for ln in lines if not is_cell_value(ln.text) and any(c.isalpha() for c in ln.text)]
    columns = _columns(numbers)
    if not columns or not words:
        return []
    kept = [n for c in columns for n in c]
    height = statistics.median(n.y1 - n.y0 for n in kept)
    band = height / 2
    rows = _rows(kept, band)
    first_x = min(n.x0 for n in kept)
    left_edge = min((w.x0 for w in words if w.x1 <= first_x), default=0.0)
    labels = [_row_label(r, words, band, left_edge, height) for r in rows]
    # Numbers over the first labelled row that stand in a header's words ("Gemini" over "3 Flash",
    # "Claude Sonnet" over "4.5": Gemini 3 Flash's card) are part of the column names, not cells.
    first = next((k for k, label in enumerate(labels) if label is not None), len(rows))
    lead = next((k for k in range(first) if not all(_in_words(n, words, height) for n in rows[k])), first)
    if lead:
        header = {id(n) for r in rows[:lead] for n in r}
        words = words + [n for r in rows[:lead] for n in r]
        columns = [c for c in ([n for n in c if id(n) not in header] for c in columns) if len(c) >= MIN_ROWS]
        rows, labels = rows[lead:], labels[lead:]
    names = _column_names(columns, words, rows, band, first_x)
    column_of = {id(n): k for k, c in enumerate(columns) for n in c if names[k] and names.count(names[k]) == 1}
    out = []
    for k, (row, label) in enumerate(zip(rows, labels)):
        if label is None or _doubtful(k, rows, labels, label, words, height):
            continue
        for n in sorted(row, key=lambda n: n.x0):  # left to right, as the table reads
            if id(n) in column_of:
                out.append((" ".join(label.text.split()), names[column_of[id(n)]], n.text.strip()))
    # A row label printed twice, or two values under one name in one row (a number wide enough to join
    # two columns): which value is whose cannot be told.
    pairs = [(r, c) for r, c, _v in out]
    label_rows = {}
    for row, label in zip(rows, labels):
        if label is not None:
            label_rows.setdefault(" ".join(label.text.split()), set()).add(id(row[0]))
    out = [t for t in out if pairs.count(t[:2]) == 1 and len(label_rows.get(t[0], ())) == 1]
    return out if len({r for r, _c, _v in out}) >= MIN_ROWS else []


def _in_words(n: Line, words: list[Line], height: float) -> bool:
    """A number set among words: one on its line just beside it ("3" before "Flash"), or one just over
    it ("Sonnet" over "4.5")."""
    return any((abs(w.cy - n.cy) <= height / 2 and min(abs(w.x0 - n.x1), abs(n.x0 - w.x1)) <= height)
               or (0 <= n.y0 - w.y1 <= height / 2 and min(w.x1, n.x1) > max(w.x0, n.x0)) for w in words)


NEAR_ROWS = 1.8  # line heights: a row of numbers this close under or over a labelled row is its second line


def _doubtful(k: int, rows: list[list[Line]], labels: list[Line | None], label: Line, words: list[Line],
              height: float) -> bool:
    """A label scoring two rows (an unlabelled row of numbers just over or under it), or one that runs
    on over a line of its column without numbers (a wrapped name: its value may be the other line's)."""
    def middle(r):
        return statistics.median(n.cy for n in r)

    for j in (k - 1, k + 1):
        if 0 <= j < len(rows) and labels[j] is None and abs(middle(rows[j]) - middle(rows[k])) <= NEAR_ROWS * height:
            return True
    others = [w for w in words if w is not label and abs(w.x0 - label.x0) <= height
              and 0 < abs(w.cy - label.cy) <= 1.5 * height]
    return any(all(abs(w.cy - middle(r)) > height / 2 for r in rows) for w in others)


def read_picture_table(path: str, bbox: list[float]) -> tuple[list[tuple[str, str, str]], list[list]]:
    """The table's cells and its printed lines (page points, for visible_lines) from a picture whose
    box on the page is `bbox`; ([], []) for a picture that is no table."""
    pixels = load_pixels(path)
    if pixels is None or min(pixels.shape[:2]) < MIN_SIDE or len(bbox) != 4 or not may_be_table(pixels):
        return [], []
    found = ocr_lines(pixels, clean_ground=True)
    if not found:
        return [], []
    sx, sy = (bbox[2] - bbox[0]) / pixels.shape[1], (bbox[3] - bbox[1]) / pixels.shape[0]
    lines = [Line(t, bbox[0] + x0 * sx, bbox[1] + y0 * sy, bbox[0] + x1 * sx, bbox[1] + y1 * sy)
             for t, x0, y0, x1, y1 in found]
    cells = table_cells(lines)
    printed = [[ln.text, *(round(v, 1) for v in (ln.x0, ln.y0, ln.x1, ln.y1))] for ln in lines]
    return cells, printed if cells else []


def read_picture_tables(figures: list) -> list:
    """Fill table_cells, visible_lines and visible_text of each picture (kg.models.ImageRef) with no
    text of its own that is no chart already read, when it reads as a table; returns the figures read
    (for ocr_text.respell_labels)."""
    read = []
    for ref in figures:
        if ref.visible_text or ref.bar_values or ref.table_cells or not ref.path:
            continue
        if ref.label and not ref.label.lower().startswith("table"):
            continue  # a captioned figure is a drawing or a photo; a pasted table is uncaptioned or a Table
        try:
            cells, printed = read_picture_table(ref.path, list(ref.bbox))
        except Exception as exc:  # noqa: BLE001 - reading a table is an extra: a picture costs no document
            log.warning("picture %s of %s not read as a table: %s", ref.label or "(no caption)", ref.path, exc)
            continue
        if cells:
            ref.table_cells = json.dumps([list(c) for c in cells])
            ref.visible_lines = json.dumps(printed)
            ref.visible_text = "\n".join(row[0] for row in printed)
            read.append(ref)
    return read
