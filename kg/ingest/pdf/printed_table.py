"""A found table's grid rebuilt from the words the page prints inside its cells.

pymupdf's find_tables gives cell boxes; on borderless (booktabs) tables of
papers those boxes often hold two printed rows ("TAPASLARGE inter" over
"TABLEFORMERLARGE inter" in one cell, "70.6" over "72.4" beside it) or two
printed columns ("WQ TREC" over "55.0 70.9"), and header cells under a
spanning header are empty (None: covered by the cell to their left). Here:

- columns: a column whose words leave the same vertical gap in every row that
  holds a number, with words on both sides in several rows, is two columns;
- heading cells over several columns (a spanning box, or a box holding two
  printed columns): each column gets the names printed within its stretch
  ("Qwen2.5" over "72B-Inst."), and a phrase across columns goes to every
  column it stands over ("Language-only Model" -> "Language-only Model
  Qwen2.5 72B-Inst.", "... LLaMA-3.1 405B-Inst.", ...); names set a narrow
  space apart but each aligned on its values are two names;
- rows: a row whose words sit on two or more printed lines that each fill
  several columns is that many rows; a line filling fewer columns (a wrapped
  label) joins the nearest full line;
- header: a cell covered by a spanning header gets that header's text, and
  leading rows with no number and no row label (sub-headers) join the header
  ("Before Perturb" over "ALL" -> "Before Perturb ALL");
- text: ligatures (U+FB00-FB06: "ﬂow") are spelled out; nothing else changes.

A grid whose cells still hold two bare numbers is not trusted: `doubt` says
why, and the reader keeps that table as text.
"""

from __future__ import annotations

import re
import statistics
import unicodedata

from kg.ingest.pdf.header_rows import is_number as _is_number, merge_header_rows
from kg.ingest.pdf.sparse_columns import CURRENCY, join_complementary
from kg.ingest.pdf.types import join_lines

Word = tuple  # pymupdf word: (x0, y0, x1, y1, text, block, line, word_no)
Cell = list | None  # a cell's words; None: covered by the spanning cell to its left
Rules = tuple[list, list]  # the page's horizontal (x0, x1, y) and vertical (x, y0, y1) rules (table_cues.page_rules)

_BARE_NUMBER_RE = re.compile(r"^[-−–+]?\d[\d,]*(?:\.\d+)?%?$")
_LIGATURES_RE = re.compile("[\ufb00-\ufb06]")
_CAPTION_RE = re.compile(r"^(?:Table|Figure|Fig\.)\s+[A-Z]?\d+[.:]")
MIN_GAP_EM = 0.5  # white space narrower than this share of the type height is a space inside a cell
SPLIT_SUPPORT = 0.3  # share of rows (at least 2) with words on both sides of a column gap
ALIGN_EM = 0.2  # a column name centred on its values within this share of the type height
NAME_GAP_EM = 0.35  # white between two column names set close, wider than a space (about 0.25-0.3)
SPAN_OVERLAP_EM = 0.1  # a spanning header heads a column it stands over by more than this share of the type height


def printed_grid(box_rows: list[list], words: list[Word], rules: Rules = ([], [])) -> list[list[str]]:
    """Rows of cell texts (the header row first) from rows of cell boxes (None: spanned cell)."""
    grid: list[list[Cell]] = [[words_in(box, words) if box is not None else None for box in row] for row in box_rows]
    width = max((len(r) for r in grid), default=0)
    grid = [row + [None] * (width - len(row)) for row in grid]
    grid = _share_headers(_read_once(_split_columns(grid)), rules)
    grid = [grid[0], *(split for row in grid[1:] for split in _split_row(row))] if grid else grid
    texts = [[cell_text(c) if c is not None else None for c in row] for row in grid]
    return join_complementary(merge_header_rows([_currency_to_next(row) for row in texts]))


_PREFIXES = CURRENCY | frozenset(("~", "≈"))  # marks printed before an amount


def _currency_to_next(row: list[str | None]) -> list[str | None]:
    """Currency signs (and "~") that end a cell open the next one: Credo's release prints "(4,225)" then
    "$ (9,540)", and the cell boxes put the "$" in the first ("(4,225) $"); PG&E's "470 ~ $" beside "470"
    is "470" and "~ $ 470". A cell of marks only stays (a currency column of its own)."""
    out = list(row)
    for j in range(len(out) - 1):
        words, after = (out[j] or "").split(), out[j + 1] or ""
        keep = len(words)
        while keep and words[keep - 1] in _PREFIXES:
            keep -= 1
        if 0 < keep < len(words) and after and after[:1] not in _PREFIXES:
            out[j], out[j + 1] = " ".join(words[:keep]), " ".join(words[keep:] + [after])
    return out


def _read_once(grid: list[list[Cell]]) -> list[list[Cell]]:
    """A word printed once is read once, by the first cell holding it (detection's boxes may overlap: a
    header row over the whole header band, and its sub-header cells again)."""
    taken: set[int] = set()
    out: list[list[Cell]] = []
    for row in grid:
        out.append([None if cell is None else [w for w in cell if id(w) not in taken] for cell in row])
        taken.update(id(w) for cell in row if cell for w in cell)
    return out


def words_in(box, words: list[Word]) -> list[Word]:
    x0, y0, x1, y1 = box
    return [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]


def spell_ligatures(text: str) -> str:
    """"ﬂow" -> "flow": only the ligature characters are normalised (NFKC), never digits or signs."""
    return _LIGATURES_RE.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)


def _bands(words: list[Word]) -> list[list[Word]]:
    """Words grouped into printed lines: a word whose vertical extent overlaps a line's joins it. A
    line's extent is its words' median top and bottom: a group label set between two printed rows
    ("Chinese" beside "CLUEWSC" over "C3", dots.llm1's Table 2) joins one, and does not stretch it
    over the next."""
    bands: list[list[Word]] = []
    for word in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        for band in bands:
            top, bottom = statistics.median(w[1] for w in band), statistics.median(w[3] for w in band)
            overlap = min(bottom, word[3]) - max(top, word[1])
            if overlap >= 0.4 * min(word[3] - word[1], bottom - top):
                band.append(word)
                break
        else:
            bands.append([word])
    return sorted(bands, key=lambda b: min(w[1] for w in b))


def cell_text(words: list[Word]) -> str:
    lines = [" ".join(w[4] for w in sorted(band, key=lambda w: w[0])) for band in _bands(words)]
    return spell_ligatures(join_lines(lines))


def _gaps(words: list[Word], min_gap: float) -> list[float]:
    """x of the middle of every white gap at least min_gap wide between the words' extents."""
    gaps, right = [], None
    for x0, _, x1, *_ in sorted(words, key=lambda w: w[0]):
        if right is not None and x0 - right >= min_gap:
            gaps.append((right + x0) / 2)
        right = x1 if right is None else max(right, x1)
    return gaps


def _column_gaps(grid: list[list[Cell]], j: int) -> list[float]:
    body = [row[j] for row in grid[1:] if row[j]]
    numeric = [cell for cell in body if any(_is_number(w[4]) for w in cell)]
    rows = numeric if len(numeric) >= 2 else body
    words = [w for cell in rows for w in cell]
    if len(rows) < 2:
        return []
    min_gap = _min_gap(words)
    need = max(2, SPLIT_SUPPORT * len(rows))
    return [g for g in _gaps(words, min_gap)
            if sum(any(w[2] < g for w in c) and any(w[0] > g for w in c) for c in rows) >= need]


def _split_columns(grid: list[list[Cell]]) -> list[list[Cell]]:
    """A box column holding several printed columns -> those columns. A heading cell stays whole in the
    first of them, the others covered (None): _share_headers gives its words out."""
    if len(grid) < 3:
        return grid
    out: list[list[Cell]] = [[] for _ in grid]
    headings = _headings(grid)
    for j in range(len(grid[0])):
        cuts = [float("-inf"), *_column_gaps(grid, j), float("inf")]
        for i, row in enumerate(grid):
            for k, (left, right) in enumerate(zip(cuts, cuts[1:])):
                if row[j] is None or (i in headings and k > 0):
                    out[i].append(None)
                elif i in headings:
                    out[i].append(row[j])
                else:
                    out[i].append([w for w in row[j] if left < (w[0] + w[2]) / 2 < right])
    return out


def _headings(grid: list[list[Cell]]) -> set[int]:
    """The first row and the rows without numbers (sub-headers, section labels); in a table of words
    (no row with numbers) only the first."""
    wordy = {i for i, row in enumerate(grid) if not any(_is_number(w[4]) for cell in row if cell for w in cell)}
    return {0} | wordy if len(wordy | {0}) < len(grid) else {0}


def _share_headers(grid: list[list[Cell]], rules: Rules) -> list[list[Cell]]:
    """A heading cell over several columns (the columns it covers are None) -> each column its words
    (_header_shares). Columns are where the body rows (the rows with numbers) print their words."""
    headings = _headings(grid)
    body = [row for i, row in enumerate(grid) if i not in headings]
    extents = [_extent([w for row in body if row[j] for w in row[j]]) for j in range(len(grid[0]))] if grid else []
    out = []
    for i, row in enumerate(grid):
        row = list(row)
        if i in headings:
            for j, cell in enumerate(row):
                end = j + 1
                while end < len(row) and row[end] is None:
                    end += 1
                if cell and end - j > 1 and all(extents[j:end]):
                    row[j:end] = _header_shares(cell, extents[j:end], i == 0)
        out.append(row)
    if out and all(extents):
        out[0] = _ruled_reach(out[0], extents, rules)
    return out


def _ruled_reach(row: list[Cell], extents: list[tuple[float, float]], rules: Rules) -> list[Cell]:
    """A spanning header (its words given to several columns) also heads the columns its rules reach
    ("Vision-Language Model" over four models, the last one beyond the phrase's own words): the
    vertical rules on either side, else the rule printed under it (booktabs' cmidrule; in a ruled grid
    the line under a cell spans the whole table). Never the first column (the row labels') nor a column
    with a header of its own on the phrase's line ("WCN" beside "1-best")."""
    counts: dict[int, int] = {}
    for cell in row:
        for w in cell or []:
            counts[id(w)] = counts.get(id(w), 0) + 1
    spanning = [w for w in dict.fromkeys(w for cell in row if cell for w in cell) if counts[id(w)] > 1]
    out = list(row)
    for phrase in _phrases(spanning) if spanning else []:
        reach = _rule_reach(phrase, rules)
        columns = [c for c, (a, b) in enumerate(extents) if reach and reach[0] <= (a + b) / 2 <= reach[1]]
        if len(columns) == len(extents):
            continue  # the table's frame, not a group's rule
        top, bottom = min(w[1] for w in phrase), max(w[3] for w in phrase)
        for c in columns[1:] if columns[:1] == [0] else columns:  # the row labels' column heads no group
            if not any(top <= (w[1] + w[3]) / 2 <= bottom for w in out[c] or []):  # nor the phrase itself
                out[c] = [*phrase, *(out[c] or [])]
    return out


def _rule_reach(phrase: list[Word], rules: Rules) -> tuple[float, float] | None:
    x0, x1 = min(w[0] for w in phrase), max(w[2] for w in phrase)
    top, bottom = min(w[1] for w in phrase), max(w[3] for w in phrase)
    horizontal, vertical = rules
    crossing = [x for x, y0, y1 in vertical if y0 <= (top + bottom) / 2 <= y1]
    left = max((x for x in crossing if x <= x0), default=None)
    right = min((x for x in crossing if x >= x1), default=None)
    under = [(a, b) for a, b, y in horizontal
             if bottom - 1 <= y <= 2 * bottom - top and min(b, x1) - max(a, x0) > 0.5 * (x1 - x0)]
    if left is None and right is None:  # no vertical rules beside it: the rule under it, if any
        return min(under, key=lambda r: r[1] - r[0]) if under else None
    return (float("-inf") if left is None else left, float("inf") if right is None else right)


def _extent(words: list[Word]) -> tuple[float, float] | None:
    return (min(w[0] for w in words), max(w[2] for w in words)) if words else None


def _header_shares(words: list[Word], extents: list[tuple[float, float]], first_row: bool) -> list[list[Word]]:
    """A heading cell's words given to the columns under it (their body extents, left to right).

    A phrase within one column's stretch (up to the middles between neighbouring columns) is that
    column's name. In the first row, a phrase across the middles goes to every column whose body or
    name it stands over by more than the slack of word boxes, and which has a name under it when the
    cell holds names (a spanning header: "Language-only Model" over three models; not a block of text
    over one column's name), else to the one holding its centre. In a later row such a phrase is one cell (a
    row label, a section label: "Open-source models"): the first column it stands over. A phrase alone
    in its cell heads every column of the cell in the first row (the box's reach is all that says which:
    "TEDs" over "simple complex all" in the row below), and stays where detection put it later."""
    em = statistics.median(w[3] - w[1] for w in words)
    cuts = _cuts(extents)
    phrases = [part for phrase in _phrases(words) for part in _aligned_names(phrase, extents, cuts, em)]
    if len(phrases) == 1:
        return [list(words) if first_row or c == 0 else [] for c in range(len(extents))]
    shares: list[list[Word]] = [[] for _ in extents]
    reach = [[extent] for extent in extents]
    spanning = []
    for phrase in phrases:
        x0, x1 = min(w[0] for w in phrase), max(w[2] for w in phrase)
        inside = [c for c in range(len(extents)) if x0 < cuts[c + 1] and x1 > cuts[c]]
        if len(inside) == 1:
            shares[inside[0]] += phrase
            reach[inside[0]].append((x0, x1))
        else:
            spanning.append((phrase, x0, x1))
    named = any(shares)
    for phrase, x0, x1 in sorted(spanning, key=lambda s: -max(w[3] for w in s[0])):  # names first, then above
        bottom = max(w[3] for w in phrase)
        over = [c for c, spans in enumerate(reach)
                if any(min(x1, b) - max(x0, a) >= SPAN_OVERLAP_EM * em for a, b in spans)
                and (not named or any(w[1] >= bottom - 1 for w in shares[c]))]
        for c in (over or [_column_of((x0 + x1) / 2, cuts)])[:None if first_row else 1]:
            shares[c] += phrase
    return shares


def _cuts(extents: list[tuple[float, float]]) -> list[float]:
    """Where each column's stretch ends: the middle of the white between neighbouring columns (of their
    centres when ragged columns overlap), never left of the one before."""
    cuts = [float("-inf")]
    for a, b in zip(extents, extents[1:]):
        middle = (a[1] + b[0]) / 2 if a[1] <= b[0] else (a[0] + a[1] + b[0] + b[1]) / 4
        cuts.append(max(cuts[-1], middle))
    return [*cuts, float("inf")]


def _column_of(x: float, cuts: list[float]) -> int:
    return next(c for c in range(len(cuts) - 1) if x < cuts[c + 1])


def _aligned_names(phrase: list[Word], extents: list[tuple[float, float]], cuts: list[float], em: float) -> list[list[Word]]:
    """Column names set so close they read as one phrase ("GPT-4o DeepSeek" over two columns) -> each
    name, when every name is centred on the values of its column and the white between two names is
    wider than a space (a spanning "After Perturb" has a plain space, and may sit over a column edge)."""
    names: list[list[Word]] = []
    columns: list[int] = []
    for word in phrase:
        c = _column_of((word[0] + word[2]) / 2, cuts)
        if columns and columns[-1] == c:
            names[-1].append(word)
        else:
            names.append([word])
            columns.append(c)
    if len(names) < 2 or any(b[0][0] - a[-1][2] < NAME_GAP_EM * em for a, b in zip(names, names[1:])):
        return [phrase]
    for name, c in zip(names, columns):
        middle = (name[0][0] + name[-1][2]) / 2
        if abs(middle - sum(extents[c]) / 2) > ALIGN_EM * em:
            return [phrase]
    return names


def _min_gap(words: list[Word]) -> float:
    return MIN_GAP_EM * statistics.median(w[3] - w[1] for w in words) if words else 0.0


def _phrases(words: list[Word]) -> list[list[Word]]:
    """A text cell's words in runs set with ordinary spaces (narrower than _min_gap), line by line."""
    min_gap = _min_gap(words)
    phrases: list[list[Word]] = []
    for band in _bands(words):
        ordered = sorted(band, key=lambda w: w[0])
        phrases.append([ordered[0]])
        for word in ordered[1:]:
            if word[0] - phrases[-1][-1][2] < min_gap:
                phrases[-1].append(word)
            else:
                phrases.append([word])
    return phrases


def _split_row(row: list[Cell]) -> list[list[Cell]]:
    """One grid row holding several printed rows -> those rows."""
    words = [(j, w) for j, cell in enumerate(row) if cell for w in cell]
    bands = _bands([w for _, w in words])
    if len(bands) < 2:
        return [row]
    column_of = {id(w): j for j, w in words}
    filled = [{column_of[id(w)] for w in band} for band in bands]
    most = max(len(f) for f in filled)
    full = [k for k, f in enumerate(filled) if len(f) >= 2 and len(f) >= 0.5 * most]
    # Printed rows hold values; lines of prose in several columns are one row of multi-line cells. So
    # are column names set on two lines ("Gemini 2.5" over "Pro (06-05)", "Claude" over "4 Opus"):
    # no row label, and numbers in few of their cells.
    if len(full) < 2 or not all(any(_is_number(w[4]) for w in bands[k]) for k in full):
        return [row]
    # A printed row of values fills half its value columns or more with numbers, labelled or not: a line
    # of "diff" and "whole / diff" under one value is a cell's wrapped words (Gemini 2.5's model card).
    if not all(_mostly_values(bands[k], column_of) for k in full):
        return [row]

    def middle(k: int) -> float:
        return statistics.fmean((w[1] + w[3]) / 2 for w in bands[k])

    owner = {k: min(full, key=lambda f: (abs(middle(f) - middle(k)), f)) for k in range(len(bands))}
    rows = []
    for f in full:
        mine = {id(w) for k, band in enumerate(bands) if owner[k] == f for w in band}
        rows.append([None if cell is None else [w for w in cell if id(w) in mine] for cell in row])
    return rows


def _mostly_values(band: list[Word], column_of: dict[int, int]) -> bool:
    """Whether half or more of the value columns a printed line fills (the first column aside) hold a
    number or a dash (no value)."""
    filled = {column_of[id(w)] for w in band if column_of[id(w)] > 0}
    numeric = {column_of[id(w)] for w in band if column_of[id(w)] > 0 and (_is_number(w[4]) or w[4] in "-–—")}
    return bool(numeric) and len(numeric) >= 0.5 * len(filled)


def doubt(rows: list[list[str]]) -> str:
    """Why a rebuilt grid cannot be trusted as cells ("" when it can)."""
    if len(rows) < 2:
        return ""
    squashed = sum(1 for row in rows[1:] for c in row if len(c.split()) >= 2
                   and all(_BARE_NUMBER_RE.match(t) for t in c.split()))
    if squashed:
        return f"{squashed} cells hold two or more printed numbers (rows or columns not told apart)"
    if any(_CAPTION_RE.match(c) for row in rows[1:] for c in row):
        return "a caption inside the cells (two tables, or a table and prose, in one box)"
    return ""
