"""Table hops: a serial chain may end in one cell of a table (issue 12, item 2).

A table answer is one cell named by its row and column headers, never
markdown: "what is the <column> of <row>?" -> "3092". The last text hop of a
chain carries a bridge entity into the table; the hop is usable when that
entity's name (or an alias) is the row label of a table chunk, compared
after normalising case, spacing and punctuation, and also without a
trailing parenthetical ("PubMed (2018)" is the row of "PubMed").

Cells come from the grid ingest stores on the chunk (Chunk.cells, parsed by
kg.ingest.tables.table_cells; the markdown text when there is no grid).
A cell may be an answer only when a person can check it in the table:

* its row label occurs once in the table and its column header once, the
  header is readable (no extraction debris such as "ors. . ope rat") and is
  not the row-label column; a labelled row followed by unlabelled ones
  heads a group and names none of them;
* row label, header and value read as the table prints them (cleaning that
  changed them, "do_x" -> "dox", makes the cell unfindable);
* the value is short (at most MAX_VALUE_WORDS words), has a letter or digit,
  holds no markdown, links or URLs, and occurs in the table's text;
* numbers and short values are preferred to prose, and a value an earlier
  hop names is never chosen.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import asdict, dataclass

from builders.chains.question_words import value_label
from builders.chains.windows import table_head
from kg.ingest.tables import TableGrid, clean_cell, label_column, side_by_side, table_cells, table_grid
from queries.corpus_view import CorpusView, EvidenceNode

MAX_VALUE_WORDS = 6
MAX_VALUE_CHARS = 40
MAX_HEADER_CHARS = 40
_MARKDOWN = ("|", "**", "<br", "__", "`", "](", "http://", "https://")
_TRAILING_PAREN = re.compile(r"\s*\([^()]*\)?\s*$")  # "(High)", and a footnote mark cut short: "Average AUM(2"
_TRAILING_MARKS = re.compile(r"[\s∗*†‡§¶]+$")  # footnote marks after a row label ("DiPS∗": results taken from others)
_NON_WORD = re.compile(r"[\W_]+")
_HEADER_DEBRIS = re.compile(r"\.\s*\.|\s\.\s|^[^\w#%(]|[^\w)%\]]$")
_NUMBER = re.compile(r"^[~≈<>≤≥]?\s?[-+−]?[$€£¥]?\d[\d,]*(?:\.\d+)?\s?(?:%|[KMBkmb]\b)?"
                     r"(?:\s?±\s?\d+(?:\.\d+)?)?(?:\s?/\s?\d+)?$")
_INTEGER = re.compile(r"^\d{1,3}(?:,\d{3})+$|^\d+$")
_BOLD_OR_BREAK = re.compile(r"<br\s*/?>|\*\*|(?<=\S)\*+(?=\s|\||$)", re.IGNORECASE)
_CAPTION_MARKUP = re.compile(r"[*_|`#<>]+")  # what clean_cell leaves of unpaired emphasis ("papers. ** - No")
_CAPTION = re.compile(r"^\s*(?:Table|Tab\.)\s*[A-Z]?\d+[.:]?", re.IGNORECASE)


def normal_label(text: str) -> str:
    """The comparable form of a row label or an entity name: case, spacing and punctuation folded."""
    return " ".join(_NON_WORD.sub(" ", text).split()).casefold()


def normal_text(text: str) -> str:
    """A table's text as a reader sees it: bold marks and line breaks gone, spacing collapsed.

    Lighter than kg.ingest.tables.clean_cell on purpose: that one also takes
    underscores and backticks for emphasis ("`do_code_enrichment`" becomes
    "docodeenrichment"), and a value only it can find is one a reader cannot.
    """
    return " ".join(_BOLD_OR_BREAK.sub(" ", text).split()).casefold()


def names_value(text: str, value: str) -> bool:
    """Whether `text` names `value` as a whole token ("60" is not named by "1960")."""
    pattern = r"(?<![\w.,])" + re.escape(" ".join(value.split()).casefold()) + r"(?![\w]|[.,]\d)"
    return re.search(pattern, normal_text(text)) is not None


_SCALE = re.compile(r"\bin\s+(thousands|millions|billions)\b", re.IGNORECASE)


def table_scale(text: str) -> str:
    """The scale a table states once for all its amounts ("(Dollars in Millions)": "millions"), read
    from its caption and header, before the first data row; "" when none or more than one is stated
    (a table whose columns differ in scale says so per column, and no single word fits a cell)."""
    split = table_head(text)
    head = "\n".join(split[0]) if split else text  # caption, header and separator rows
    scales = {m.group(1).lower() for m in _SCALE.finditer(head)}
    return scales.pop() if len(scales) == 1 else ""


@dataclass(frozen=True)
class TableCell:
    """The answer of a table hop: "what is the <column_label> of <row_label>?" -> value (+ unit)."""

    table_id: str
    row_label: str
    column_label: str
    value: str
    unit: str = ""
    row: int = 0
    column: int = 0
    across: bool = False  # read across a table printed with its entities as columns (TableIndex `across`)

    @property
    def answer(self) -> str:
        """The value as a reader quotes it: a currency unit in front ("$22,439"), a percent sign after
        ("79.2%" from a chart whose axis is in %)."""
        if not self.unit or self.unit in self.value or "%" in self.value:  # "4.1 %" in a "$" column: a rate
            return self.value
        return f"{self.value}{self.unit}" if self.unit == "%" else f"{self.unit}{self.value}"

    def to_meta(self) -> dict:
        return asdict(self)

    @classmethod
    def from_meta(cls, meta: dict | None) -> "TableCell | None":
        data = (meta or {}).get("table_cell")
        return cls(**data) if data else None

    @property
    def key(self) -> str:
        """Stable pseudo-entity for offline reachability and candidate ids."""
        return f"cell:{self.table_id}:{self.row}:{self.column}" + (":across" if self.across else "")


def label_forms(label: str) -> list[str]:
    """The ways prose may name a row: its label as printed, without footnote marks ("DiPS∗" -> "DiPS")
    and without a trailing parenthesis ("NC-RAPT (High)" -> "NC-RAPT")."""
    bare = _TRAILING_MARKS.sub("", " ".join(label.split()))
    return list(dict.fromkeys(f for f in (label, bare, _TRAILING_PAREN.sub("", bare)) if f))


def table_caption(node: EvidenceNode) -> str:
    """The caption a table chunk carries before its grid ("Table 4: A comparison of ..."), first sentence only."""
    for line in node.text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.startswith("|"):
            return ""
        caption = " ".join(_CAPTION_MARKUP.sub(" ", clean_cell(line)).split())
        label = _CAPTION.match(caption)
        if not label:
            return ""
        rest = re.split(r"(?<=[a-z0-9)])\.\s+(?=[^a-z])", caption[label.end():], maxsplit=1)[0]
        return (caption[:label.end()] + rest).rstrip(". ")
    return ""


def _grid(node: EvidenceNode) -> TableGrid:
    """The grid ingest stored on the chunk; the markdown text when the grid is missing or unreadable."""
    if node.cells.strip():
        try:
            return TableGrid.from_json(node.cells)
        except (ValueError, TypeError, AttributeError):
            pass  # a grid from an older or broken ingest: the text still holds the table
    return table_grid(node.text)


def value_is_number(value: str) -> bool:
    return bool(_NUMBER.match(value.strip()))


def value_is_count(value: str) -> bool:
    """A whole number (thousands separators allowed): the answer to a "how many" question."""
    return bool(_INTEGER.match(value.strip()))


def readable_header(header: str) -> bool:
    header = header.strip()
    return (bool(header) and len(header) <= MAX_HEADER_CHARS and any(c.isalpha() for c in header)
            and not _HEADER_DEBRIS.search(header) and not any(m in header for m in _MARKDOWN))


def usable_value(value: str) -> bool:
    """Short, with a letter or digit, no markup, and no unreadable glyph (U+FFFD: "\ufffd20" may be
    -20 or about 20, so the PDF does not say the value)."""
    words = value.split()
    return (bool(words) and len(words) <= MAX_VALUE_WORDS and len(value) <= MAX_VALUE_CHARS
            and any(c.isalnum() for c in value) and not any(m in value for m in _MARKDOWN)
            and "\ufffd" not in value)


LONE_VALUE = "value printed in"  # a figure label's one printed value: no axis says what it measures


def measured_by_axis(cell: TableCell) -> bool:
    """A table's cell or a bar chart's: its column label says what the value measures (not LONE_VALUE)."""
    return not cell.column_label.startswith(LONE_VALUE)


def transposed(grid: TableGrid) -> TableGrid:
    """The grid read across: LLM reports print benchmarks as rows and models as columns ("| Benchmark |
    o3 | o4-mini |"), so a model's scores are a column; transposed, its header names a row. A grid
    whose label column is not the first, or that holds no rows, is left as it is (nothing to read)."""
    if not grid.rows or label_column(grid) != 0 or len(side_by_side(grid)) > 1:  # two tables: no one across
        return TableGrid()
    width = len(grid.header)
    rows = [r + [""] * (width - len(r)) for r in grid.rows]
    header = [grid.header[0]] + [r[0] for r in rows]
    return TableGrid(header, [[grid.header[j]] + [r[j] for r in rows] for j in range(1, width)])


_WORD_BREAK = re.compile(r"[a-z]-$")  # "Real-world software engineer-": the word goes on in the next row


def wrapped_rows(grid: TableGrid) -> set[int]:
    """Rows a wrapped cell was split over ("engineer-" / "ing tasks", gpt-oss's Table 13, q27): a
    cell ending in a broken word and the row after it hold halves of cells, no value as printed."""
    broken = {i for i, row in enumerate(grid.rows) if any(_WORD_BREAK.search(c.strip()) for c in row)}
    return broken | {i + 1 for i in broken}


class TableIndex:
    """The answerable cells of every table chunk that may be evidence, by row, and the entities naming rows."""

    def __init__(self, view: CorpusView, evidence_roles: frozenset[str], across: bool = False):
        self.view = view
        self.across = across  # read each table transposed: its column headers name the entities
        self.cells: dict[tuple[str, int], list[TableCell]] = {}  # (table id, row) -> answerable cells
        self.rows_of_entity: dict[str, list[tuple[str, int]]] = {}
        by_label: dict[str, list[tuple[str, int]]] = {}
        for node in view.nodes.values():
            if node.label != "Chunk" or node.kind != "table" or (node.role or "body") not in evidence_roles:
                continue
            for key, row in self._rows(node).items():
                by_label.setdefault(key, []).append(row)
        self.index_entities(by_label)

    def index_entities(self, by_label: dict[str, list[tuple[str, int]]]) -> None:
        """Each entity whose name (or an alias) is a row label, with its rows (figures.FigureIndex too);
        `reindex` does it again once name_table_rows has made row labels entities."""
        self._by_label = by_label
        self.rows_of_entity = {}
        for ent, name in self.view.entity_name.items():
            keys = {normal_label(n) for n in (name, *self.view.entity_aliases.get(ent, []))}
            rows = sorted({r for k in keys if k for r in by_label.get(k, [])})
            if rows:
                self.rows_of_entity[ent] = rows

    def _rows(self, node: EvidenceNode) -> dict[str, tuple[str, int]]:
        """Normalised row label -> (table, row) for rows named once in the table with an answerable cell."""
        printed = _grid(node)
        grid = transposed(printed) if self.across else printed
        # A labelled row followed by unlabelled ones heads a group ("Biomed" over four datasets):
        # its label names several rows, so none of its cells is "the <column> of <label>".
        at, first_end = label_column(grid), side_by_side(grid)[0][1]
        grouped = {i for i in range(len(grid.rows) - 1) if grid.rows[i][at:at + 1] != [""]
                   and grid.rows[i + 1][at:at + 1] == [""] and any(grid.rows[i + 1][at + 1:first_end])}
        wrapped = wrapped_rows(printed)  # printed row i is column i + 1 of the grid read across
        lines = max(1, len(grid.rows))  # a second table printed beside the first numbers its rows on
        cells = [c for c in table_cells(grid) if c.row % lines not in grouped
                 and ((c.column - 1) not in wrapped if self.across else c.row % lines not in wrapped)]
        headers = Counter({c.column: c.column_label for c in cells}.values())
        labels = Counter({c.row: c.row_label for c in cells}.values())
        text = normal_text(node.text)
        words = normal_label(text)
        keys: dict[str, tuple[str, int]] = {}
        seen_short: Counter = Counter()
        for cell in cells:
            if labels[cell.row_label] > 1 or headers[cell.column_label] > 1 or not readable_header(cell.column_label):
                continue
            if normal_label(cell.row_label) not in words or normal_label(cell.column_label) not in words:
                continue  # cleaning changed it ("do_x" -> "dox"): a reader would not find it
            value = " ".join(cell.value.split())
            if not usable_value(value) or value.casefold() not in text or normal_label(value) in (
                    normal_label(cell.row_label), normal_label(cell.column_label)):
                continue
            self.cells.setdefault((node.id, cell.row), []).append(
                TableCell(node.id, cell.row_label, cell.column_label, value, "" if self.across else cell.unit,
                          cell.row, cell.column, self.across))
        for row in sorted({r for (t, r) in self.cells if t == node.id}):
            label = self.cells[(node.id, row)][0].row_label
            keys[normal_label(label)] = (node.id, row)
            for short in {normal_label(f) for f in label_forms(label)} - {normal_label(label)}:
                if short:
                    seen_short[short] += 1
                    keys.setdefault(short, (node.id, row))
        # "Bib. linking (GROBID)" and "Bib. linking (LATEX)": the short form names neither.
        return {k: v for k, v in keys.items() if seen_short[k] <= 1}

    def reindex(self) -> None:
        """The entities naming rows, again: name_table_rows added some (one index, built once)."""
        self.index_entities(self._by_label)

    def rows(self, entity_id: str) -> list[tuple[str, int]]:
        return self.rows_of_entity.get(entity_id, [])

    def row_labels(self, table_id: str) -> list[str]:
        """The labels of a table's answerable rows, in row order."""
        return [cells[0].row_label for (t, _), cells in sorted(self.cells.items()) if t == table_id]

    def other_rows(self, cell: TableCell) -> list[str]:
        """The labels of the table's other rows with an answer of the cell's kind in its column: the
        bridge's rivals in a table hop. A row with no such value is no alternative ("Architecture: MoE"
        or an empty cell beside benchmark scores)."""
        number = value_is_number(cell.value)
        return [cells[0].row_label for (t, row), cells in sorted(self.cells.items())
                if t == cell.table_id and cells[0].row_label != cell.row_label
                and any(c.column == cell.column and value_is_number(c.value) == number for c in cells)]

    def column_rivals(self, cell: TableCell) -> list[str]:
        """The same column's values in the table's other rows: the rival answers of a table hop."""
        return [c.value for (t, row), cells in sorted(self.cells.items()) if t == cell.table_id and row != cell.row
                for c in cells if c.column == cell.column and c.value != cell.value]

    def same_value_rows(self, cell: TableCell) -> int:
        """Other rows whose cell in the same column holds the same value: resolving the bridge to any
        of them gives the answer too (construction.py)."""
        return sum(1 for (t, row), cells in self.cells.items() if t == cell.table_id and row != cell.row
                   for c in cells if c.column == cell.column and c.value == cell.value)

    def choose_cell(self, rng: random.Random, table_id: str, row: int, earlier_text: str) -> TableCell | None:
        """A cell of the row that earlier hops do not name: a number if there is one, else a short value."""
        options = [c for c in self.cells.get((table_id, row), []) if not names_value(earlier_text, c.value)]
        numbers = [c for c in options if value_is_number(c.value)]
        short = [c for c in options if len(c.value.split()) <= 3]
        pool = numbers or short or options
        return rng.choice(pool) if pool else None


_COUNT_HEADER = re.compile(r"^(?:#|No\.\s*(?:of\s+)?|Number\s+of\s+|Num\.?\s+)\s*([A-Za-z][\w\s/-]*)$", re.IGNORECASE)


def cell_question(cell: TableCell, subject: str, where: str = "") -> str:
    """The question a cell answers, about `subject` (the row label, or a letter standing for it).

    The question word follows the value (question_words.value_label): money
    asks "how much", a count under a "#x" / "Number of x" header asks "how
    many x", anything else "what is the <column> of <subject>".
    """
    label = value_label(cell.answer, cell.unit)
    tail = f" {where}" if where else ""
    if label == "MONEY":
        return f"How much is the {cell.column_label} of {subject}{tail}?"
    count = _COUNT_HEADER.match(cell.column_label)
    if label == "CARDINAL" and count and value_is_count(cell.value):
        return f"How many {count.group(1).strip()} does {subject} have{tail}?"
    return f"What is the {cell.column_label} of {subject}{tail}?"


MIN_NAMED_ROWS = 3  # a table's answerable rows for its row names to become bridges (rivals = the others)
ROW_ENTITY = "row:"  # id prefix of an entity made from a row label (no entity extraction named it)


def name_table_rows(view: CorpusView, evidence_roles: frozenset[str], is_ordinary,
                    index: TableIndex | None = None) -> int:
    """Make each distinctive row label of a table with >= MIN_NAMED_ROWS answerable rows an entity,
    mentioned by the table and by every prose chunk that names it, when entity extraction missed it
    ("PEGASUS", "USER_NAME" are rows and are discussed in prose, but spaCy tagged neither). Then a
    prose fact about the row's name leads to one cell of the row, and the column's other cells are
    the rival answers. A label must be a name (bridges.specific_name, not one everyday word
    `is_ordinary`) and be named in prose. `index`: another table-like index (a figure's labels,
    figures.FigureIndex). Returns how many entities were added (strict runs only)."""
    from builders.chains.bridges import specific_name
    from builders.chains.statements import find_surface

    index = index or TableIndex(view, evidence_roles)
    known = {normal_label(n) for e, name in view.entity_name.items()
             for n in (name, *view.entity_aliases.get(e, []))}
    prose = [n for n in view.nodes.values() if n.label == "Chunk" and n.kind not in ("table", "caption")
             and (n.role or "body") in evidence_roles]
    rows_of: dict[str, list[str]] = {}
    for table_id, _row in index.cells:
        rows_of.setdefault(table_id, []).append(index.cells[(table_id, _row)][0].row_label)
    added = 0
    for table_id, labels in sorted(rows_of.items()):
        if len(labels) < MIN_NAMED_ROWS:
            continue
        for label in labels:
            name = label_forms(label)[-1]  # the shortest: "DiPS∗" is named "DiPS", "NC-RAPT (High)" "NC-RAPT"
            key = normal_label(name)
            if not key or key in known or is_ordinary(name) or not specific_name(name, "PRODUCT") \
                    or len(name.split()) > 4:
                continue
            chunks = [p.id for p in prose if find_surface([name], p.text) is not None]
            if not chunks:
                continue
            ent = ROW_ENTITY + key
            known.add(key)
            view.entity_name[ent] = name
            view.entity_label[ent] = "PRODUCT"
            for node_id in (table_id, *chunks):
                view.mentions[node_id].add(ent)
                view.mentioned_by[ent].add(node_id)
            added += 1
    return added
