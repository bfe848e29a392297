"""Tables on a PDF page: detection (pymupdf find_tables), their text, their captions."""

from __future__ import annotations

import re

import pymupdf

from kg.enrich.references import caption_label
from kg.ingest.pdf.printed_table import Rules, words_in, cell_text, doubt, printed_grid
from kg.ingest.pdf.table_cues import page_rules
from kg.ingest.pdf.types import UNMAPPED_GLYPH_RE, Line, RawBlock, RawPage, RawTable

TABLE_CAPTION_MAX_GAP = 60.0  # points between a table and its caption
_DOT_LEADERS_RE = re.compile(r" ?(?:\. ?){4,}")  # "AFM revisions ........" in cost tables


def find_tables(page: pymupdf.Page, drawings: list[dict] | None = None) -> list[RawTable]:
    """The page's tables; `drawings` (page.get_drawings()) give the rules that show a spanning header's reach."""
    tables = []
    try:
        found = page.find_tables()
    except Exception:  # table detection is best effort; the text still gets read
        return []
    words = page_words(page) if found.tables else []
    rules = page_rules(page.get_drawings() if drawings is None else drawings, page.rect) if found.tables else ([], [])
    for table in found.tables:
        if table.row_count < 2 or table.col_count < 2:
            continue
        above = header_above(table, words)
        caption, rows = printed_rows(table, words, page.number + 1, rules, above)
        bbox = pymupdf.Rect(table.bbox) | pymupdf.Rect(above[0][0], above[0][1], above[-1][2], above[0][3]) \
            if above else pymupdf.Rect(table.bbox)  # the header's words are the table's, not prose
        if len(rows) >= 2:
            markdown = _DOT_LEADERS_RE.sub("", rows_markdown(rows)).strip()
        else:  # no cell boxes to read: pymupdf's own text (it keeps "0.81" whole, not "Qwen1.5-7B")
            markdown = _DOT_LEADERS_RE.sub("", table.to_markdown()).strip()
        if markdown:
            tables.append(RawTable(bbox, markdown, caption, doubt(rows)))
    return tables


def page_words(page: pymupdf.Page) -> list[tuple]:
    """The page's words for table cells. A glyph the PDF maps to no text (a symbol font's check mark
    comes out as a control character, which word extraction drops) becomes a word "\ufffd", and a
    symbol font's "!" set right before a number in another font (a minus or an approximation sign the
    font does not map: "!20") becomes "\ufffd" too: unreadable, never dropped or read as "!"."""
    words = list(page.get_text("words"))
    unreadable: list[tuple[float, float]] = []
    for block in page.get_text("rawdict")["blocks"]:
        for line in block.get("lines", []):
            spans = line["spans"]
            for i, span in enumerate(spans):
                for char in span["chars"]:
                    if UNMAPPED_GLYPH_RE.match(char["c"]):
                        words.append((*char["bbox"], "\ufffd", block["number"], 0, 0))
                after = spans[i + 1] if i + 1 < len(spans) else None
                glyphs = "".join(c["c"] for c in span["chars"]).strip()
                if (glyphs == "!" and after is not None and after["font"] != span["font"]
                        and "".join(c["c"] for c in after["chars"])[:1].isdigit()):
                    bang = next(c for c in span["chars"] if c["c"] == "!")
                    unreadable.append((bang["bbox"][0], bang["bbox"][1]))
    for k, word in enumerate(words):
        if word[4].startswith("!") and any(abs(word[0] - x) < 0.5 and abs(word[1] - y) < 2 for x, y in unreadable):
            words[k] = (*word[:4], "\ufffd" + word[4][1:], *word[5:])
    return without_overprint(words)


OVERPRINT_SHIFT = 1.0  # points: a word drawn again this close to itself is one word set bold by overprinting


def without_overprint(words: list[tuple]) -> list[tuple]:
    """The words once each: a "poor man's bold" draws a word two or three times a fraction of a point apart
    (Ling-Coder-Lite's Table 4 printed its best averages as "67.7 67.7 67.7", a cell of three numbers that
    sent the whole table back to text, q59)."""
    kept: dict[str, list[tuple]] = {}
    out = []
    for word in words:
        twins = kept.setdefault(word[4], [])
        if any(abs(word[0] - t[0]) < OVERPRINT_SHIFT and abs(word[1] - t[1]) < OVERPRINT_SHIFT for t in twins):
            continue
        twins.append(word)
        out.append(word)
    return out


HEADER_REACH = 8.0  # points between a table's top and the column names printed just above it
MAX_HEADER_WORDS = 5  # words over one column: more is a sentence, not a column's name


def header_above(table, words: list[tuple]) -> list[tuple] | None:
    """Cell boxes for the column names printed on the line just above a table whose ruled or shaded
    body pymupdf found without them (an earnings release's "Q2 2026  Q1 2026  Q2 2025" over a
    reconciliation: LPL's release lost every period name, its first row "Core G&A Reconciliation"
    taken for the header). The line counts when every word stands over one of the table's columns,
    two or more value columns get a short name, and pymupdf took no header row outside the body."""
    if table.header.external:
        return None
    widest = max(table.rows, key=lambda r: sum(c is not None for c in r.cells), default=None)
    if widest is None or any(c is None for c in widest.cells):
        return None
    top = table.bbox[1]
    near = [w for w in words if top - HEADER_REACH - 14 <= w[1] and w[3] <= top + 1 and w[3] >= top - HEADER_REACH]
    if not near:
        return None
    lowest = max(w[3] for w in near)
    line = [w for w in near if abs(w[3] - lowest) <= 2]
    columns = [[w for w in line if c[0] - 2 <= (w[0] + w[2]) / 2 <= c[2] + 2] for c in widest.cells]
    named = [len(ws) for ws in columns[1:] if ws]
    if sum(len(ws) for ws in columns) != len(line) or len(named) < 2 or max(named) > MAX_HEADER_WORDS:
        return None
    y0, y1 = min(w[1] for w in line), max(w[3] for w in line)
    return [(c[0], y0, c[2], y1) for c in widest.cells]


def printed_rows(table, words: list[tuple], page: int = 1, rules: Rules = ([], []),
                 above: list[tuple] | None = None) -> tuple[RawBlock | None, list[list[str]]]:
    """The table's caption when pymupdf took it for its first row, and its rows (header first), each
    cell's text rebuilt from the page's words (kg.ingest.pdf.printed_table: printed rows and columns
    told apart, spanning headers spread).

    pymupdf's table text re-spaces characters by their gaps ("Qwen1 .5 -7B",
    "LayerType"); the page's words keep the spaces the PDF prints. `above`: the boxes of a header
    row printed above the table's body (`header_above`).
    """
    header = table.header
    boxes = [header.cells] if header.external else ([above] if above else [])
    boxes += [row.cells for row in table.rows]
    if header.external and _caption_line(header.bbox, words):
        boxes = boxes[1:]
    caption = _caption_row(boxes[0], words, page) if boxes else None
    if caption is not None:
        boxes = boxes[1:]
    rows = printed_grid(boxes, words, rules) if boxes else []
    return caption, join_wrapped_labels([row for row in rows if any(row)])


# A row label broken over two printed lines that the table's rules or shading set as two rows: the
# first line ends with a word that cannot end a label, or the next opens with a lower-case word.
_LABEL_CONTINUES = frozenset("and or of for from to in on by with the a an".split())


def join_wrapped_labels(rows: list[list[str]]) -> list[list[str]]:
    """Rows (header first) with each row label broken over two rows joined into the row holding its values.

    Earnings releases set every printed line of a cash-flow statement as its own ruled or shaded row:
    "Repayment of long-term debt" over "and lease obligations | (74,494) | ...". Joined, the row is
    "Repayment of long-term debt and lease obligations", as a reader reads it. A label-only row ending
    with ":" heads a section ("Operating activities:"); a row whose label opens with a capital or
    a symbol ("w/o CRF") is a row of its own."""
    out = [list(r) for r in rows[:1]]
    for row in (list(r) for r in rows[1:]):
        above = out[-1] if len(out) > 1 else None
        if above is not None and row and row[0] and _continues(above, row[0]):
            row[0] = f"{above[0]}{row[0]}" if above[0].endswith("-") else f"{above[0]} {row[0]}"
            out.pop()
        out.append(row)
    return out


def _continues(above: list[str], label: str) -> bool:
    """Whether `label` goes on from the label of `above`, a row holding nothing but its label."""
    first = above[0].strip() if above else ""
    if not first or not label.split() or first.endswith(":") or any(c.strip() for c in above[1:]):
        return False
    opening = label.split()[0].rstrip(",;")
    closing = first.split()[-1].lower()
    return (opening.isalpha() and opening.islower()) or closing in _LABEL_CONTINUES or first.endswith(("-", ",", "("))


def _caption_line(box, words: list[tuple]) -> bool:
    """pymupdf may take the caption line above a table for an external header row (cut at the table's
    edges: "1: Bays surveyed ..." without "Table"). The page's caption block stays beside the table and
    attach_table_captions gives it to the table, once; here the whole printed line, table edges
    ignored, opens with a "Table N" label."""
    band = sorted((w for w in words if box[1] <= (w[1] + w[3]) / 2 <= box[3]), key=lambda w: w[0])
    return caption_label(" ".join(w[4] for w in band)).startswith("Table")


def rows_markdown(rows: list[list[str]]) -> str:
    """A markdown table: the first row is the header."""
    width = max(len(r) for r in rows)

    def line(cells: list[str]) -> str:
        cells = [c.replace("|", "\\|") for c in cells] + [""] * (width - len(cells))
        return "|" + "|".join(cells) + "|"

    return "\n".join([line(rows[0]), "|" + "|".join(["---"] * width) + "|", *map(line, rows[1:])])


def _caption_row(boxes: list, words: list[tuple], page: int) -> RawBlock | None:
    """A caption ("Table 1: Current layout detection models ...") detected as the table's first row."""
    text = " ".join(cell_text(words_in(box, words)) for box in boxes if box is not None).strip()
    label = caption_label(" ".join(text.split()))
    if not label.startswith("Table"):
        return None
    return RawBlock([Line(" ".join(text.split()), (0.0, 0.0, 0.0, 0.0), 0.0, False)], page, "caption", label)


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
        if table.caption is not None:  # read from the table's own first row
            continue
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
