"""Figures a text-only strict verifier can judge, and the image chain types walked through them.

Without a vision model an image hop is read through words. Many PDF figures are
vector graphics whose labels, legend entries and data labels are real text; ingest
keeps that text on the Image node (`visible_text`, `visible_lines`,
kg/ingest/pdf/figures.py). Here:

* evidence: a figure's hop text says which part is its caption and which is
  printed in it (`figure_evidence`); a raster figure without a model's
  description, a 12+ word caption or what ingest read from it by OCR (a
  pictured chart's bars, a pictured table's cells: no OCR here) stays no hop;
* a table pasted as a picture (Image.table_cells, kg/ingest/pdf/raster_tables.py)
  is a figure whose rows are its rows and whose columns are its columns; it
  needs no caption (model cards paste theirs without one), its evidence says so;
* a figure as a table (`FigureIndex`, tables.TableIndex's interface): each
  printed label that has exactly one printed number aligned with it (above or
  below a bar: the same column; beside it: the same row), and no other label
  aligned with that number, is a row {label: value}. So the rules of table
  hops hold as they are (construction.py): the other labels are the bridge's
  rivals, the other values the rival answers, a label named beside the bridge
  in the earlier hop is an enumeration;
* substance: a figure whose printed labels give at least MIN_FIGURE_ROWS such
  rows, or name MIN_FIGURE_ROWS entities of the corpus, is "a real
  description" and may be a hop;
* text_initiated_chain (`FigureWalk`): prose identifies the bridge, the figure
  shows it among other labels, and the answer is the value the figure prints
  for it (a table walk whose end is a figure);
* image_initiated_chain (`FigureSteps.image_initiated`): the figure identifies
  the bridge by the value only it prints (unique in the figure), and the text
  hop that follows holds rivals of the bridge, so it cannot be read alone.
"""

from __future__ import annotations

import json

from builders.chains.candidate import Candidate, Hop
from builders.chains.table_pairs import TablePairWalk
from builders.chains.table_walk import TableWalk
from builders.chains.tables import (LONE_VALUE, TableCell, TableIndex, measured_by_axis, normal_label,
                                    value_is_number)
from builders.chains.values import number
from builders.chains.verbalize import mentions_entity
from kg.ingest.pdf.chart_text import Line as PrintedLine  # a printed line and its box: one definition
from kg.ingest.pdf.chart_text import inline_value
from queries.corpus_view import CorpusView, EvidenceNode

MIN_CAPTION_WORDS = 12  # a caption this long says what the figure shows
MIN_FIGURE_ROWS = 2  # label -> value rows (or entity labels) for printed text to describe a figure
MAX_LABEL_WORDS = 5
ROW_BAND = 4.0  # points: two lines whose centres are this close in y stand on one row


def printed_lines(node: EvidenceNode) -> list[PrintedLine]:
    """The figure's printed lines with their boxes ([] for an image without any)."""
    try:
        rows = json.loads(node.visible_lines or "[]")
        return [PrintedLine(str(r[0]), *(float(v) for v in r[1:5])) for r in rows if len(r) == 5 and str(r[0]).strip()]
    except (ValueError, TypeError):
        return []


def is_label(text: str) -> bool:
    """A printed name (a bar, a series, a node): letters, a few words, not a number."""
    words = text.split()
    return 0 < len(words) <= MAX_LABEL_WORDS and any(c.isalpha() for c in text) and not value_is_number(text)


def label_values(lines: list[PrintedLine]) -> list[tuple[str, str]]:
    """(label, value) for each label printed with its value on one line ("Code: 11.0%", a pie's
    slice), or with exactly one number aligned with it that no other label claims: a data label above
    a bar (the same column) or beside it (the same row). A label printed twice has no value."""
    inline = {id(ln): pair for ln in lines if (pair := inline_value(ln.text)) and is_label(pair[0])}
    labels = [ln for ln in lines if is_label(ln.text) and id(ln) not in inline]
    ticks = axis_ticks(lines)
    numbers = [ln for ln in lines if value_is_number(ln.text) and id(ln) not in ticks]
    counts = {}
    for name in [ln.text for ln in labels] + [label for label, _v in inline.values()]:
        counts[normal_label(name)] = counts.get(normal_label(name), 0) + 1

    def aligned(label: PrintedLine, number: PrintedLine) -> bool:
        column = abs(number.cx - label.cx) <= max((label.x1 - label.x0) / 2, 6.0) and number.cy != label.cy
        row = abs(number.cy - label.cy) <= ROW_BAND and number.x0 > label.x1
        return column != row  # one way only: a number in both is a grid, not a data label

    claims = {id(n): [lb for lb in labels if aligned(lb, n)] for n in numbers}
    label_ids = {id(lb) for lb in labels}
    out = []
    for line in lines:
        if id(line) in inline:
            label, value = inline[id(line)]
            if counts[normal_label(label)] == 1:
                out.append((label, value))
            continue
        if id(line) not in label_ids:
            continue
        mine = [n for n in numbers if aligned(line, n)]
        if len(mine) == 1 and len(claims[id(mine[0])]) == 1 and counts[normal_label(line.text)] == 1:
            out.append((" ".join(line.text.split()), " ".join(mine[0].text.split())))
    return out


MIN_TICKS = 3  # numbers of one row or column in even steps: an axis, whatever stands beside them


def axis_ticks(lines: list[PrintedLine]) -> set[int]:
    """ids of the printed numbers that are axis ticks: three or more on one row (or in one column)
    whose values go up or down in equal steps ("0 1000 2000 3000"). q25: the legend entry "MIS-PO"
    stood above the x-axis tick "1000" and was read as its value; a fork compared that with a
    masking percentage."""
    numbers = [ln for ln in lines if value_is_number(ln.text) and number(ln.text) is not None]
    out: set[int] = set()
    for same_axis, order in ((lambda a, b: abs(a.cy - b.cy) <= ROW_BAND, lambda ln: ln.cx),
                             (lambda a, b: abs(a.cx - b.cx) <= ROW_BAND, lambda ln: ln.cy)):
        for ln in numbers:
            run = sorted((o for o in numbers if same_axis(ln, o)), key=order)
            out.update(id(o) for o in _even_steps(run))
    return out


def _even_steps(run: list[PrintedLine]) -> list[PrintedLine]:
    """The numbers of `run` (in reading order) that stand in stretches of MIN_TICKS or more going up
    or down by one step (several panels' axes side by side: "0 1000 2000 0 1000 2000")."""
    values = [number(o.text) for o in run]
    out, start = [], 0
    for end in range(2, len(run) + 1):
        stretch = values[start:end]
        steps = {round(b - a, 6) for a, b in zip(stretch, stretch[1:])}
        if len(steps) > 1 or steps == {0}:
            if end - 1 - start >= MIN_TICKS:
                out += run[start:end - 1]
            start = end - 2
    if len(run) - start >= MIN_TICKS:
        out += run[start:]
    return out


def figure_evidence(node: EvidenceNode) -> str:
    """The hop text of a figure read through words: its caption and what is printed in it, each named."""
    printed = [" ".join(line.split()) for line in node.visible_text.splitlines() if line.strip()]
    lead = node.text if node.description_source == "vlm" else (
        f'Caption: "{node.caption}"' if node.caption else f"Caption: none (a picture on page {node.page})")
    cells = table_cells(node)
    if cells:
        return f"{lead}\n{_table_reading(cells)}"
    bars = bar_values(node)
    if bars:
        return f"{lead}\n{_bar_reading(bars, printed)}"
    text = f'{lead}\nText printed in the figure (labels and values, as printed): ' + "; ".join(
        f'"{p}"' for p in printed)
    # Printed text comes in reading order (the tallest bar's value first), not paired with its label: a
    # reader without the picture could not tell which value is whose. Say what the positions pair.
    pairs = label_values(printed_lines(node))
    if pairs:
        text += "\nValues printed at labels (by position): " + "; ".join(f'"{lb}": {v}' for lb, v in pairs)
    return text


def _bar_reading(bars: list[tuple[str, str, str, str]], printed: list[str]) -> str:
    """A bar chart written down: which value stands at which bar (the picture says it by colour or by
    the label under each bar), one sentence per group, so an evidence window keeps the asked group
    whole with its rivals (gpt-oss's Figure 1 reads to 24 bars, longer than a window); then the rest
    of its printed text (axis titles, a series whose bars could not be read), numbers left out: each
    is in the bars' lines or is a tick."""
    groups: dict[str, list[str]] = {}
    for name, group, value, unit in bars:
        groups.setdefault(group, []).append(f'"{name}" {value}{unit}')
    axis = "; the value axis is in %" if any(unit == "%" for *_rest, unit in bars) else ""
    text = (f"Values printed at the bars (each bar named by the legend's colour or its own label{axis}).\n"
            + "\n".join(f'Bars at "{group}": ' + ", ".join(values) + "." for group, values in groups.items()))
    names = {name for name, _g, _v, _u in bars}
    rest = [p for p in dict.fromkeys(printed) if not all(value_is_number(w) for w in p.split())
            and p not in names and not any(p in g for g in groups)]
    return text + ("\nOther text printed in the figure: " + "; ".join(f'"{p}"' for p in rest) if rest else "")


def _table_reading(cells: list[tuple[str, str, str]]) -> str:
    """A pictured table written down a row at a time, each value after its column's name."""
    rows: dict[str, list[str]] = {}
    for row, column, value in cells:
        rows.setdefault(row, []).append(f'"{column}" {value}')
    return ("A table pasted into the document as a picture, read row by row (each value after its "
            "column's name, as printed):\n" + "\n".join(f'Row "{row}": ' + ", ".join(v) + "." for row, v in rows.items()))


def _json_rows(field: str, width: int) -> list[tuple[str, ...]]:
    """A JSON list of rows ingest wrote on the Image node, each cut or padded with "" to `width` values;
    rows of fewer than three values, or a field that is no such JSON, give nothing."""
    try:
        rows = [[str(v) for v in row] for row in json.loads(field or "[]")]
    except (ValueError, TypeError):
        return []
    return [tuple((r + [""] * width)[:width]) for r in rows if len(r) >= 3]


def table_cells(node: EvidenceNode) -> list[tuple[str, str, str]]:
    """A pictured table's (row, column, value) read at ingest (kg/ingest/pdf/raster_tables.py)."""
    return _json_rows(node.table_cells, 3)


def bar_values(node: EvidenceNode) -> list[tuple[str, str, str, str]]:
    """A bar chart's (series, group, value, unit) read at ingest (kg/ingest/pdf/bar_charts.py)."""
    return _json_rows(node.bar_values, 4)


class FigureIndex(TableIndex):
    """Figures as tables of {label: value} rows (see the module docstring): `cells`, `rows_of_entity`,
    `rows()` and `choose_cell()` as tables.TableIndex has them, keyed by the image id."""

    def __init__(self, view: CorpusView, evidence_roles: frozenset[str] = frozenset()):
        self.view = view
        self.cells: dict[tuple[str, int], list[TableCell]] = {}
        self.rows_of_entity: dict[str, list[tuple[str, int]]] = {}
        by_label: dict[str, list[tuple[str, int]]] = {}
        for node in view.nodes.values():
            if node.label != "Image" or not (node.table_cells or (node.caption and node.visible_lines)):
                continue  # a pictured table needs no caption: model cards paste theirs without one
            for row, cells in enumerate(self._figure_rows(node)):
                self.cells[(node.id, row)] = cells
                by_label.setdefault(normal_label(cells[0].row_label), []).append((node.id, row))
        self.index_entities(by_label)

    @staticmethod
    def _figure_rows(node: EvidenceNode) -> list[list[TableCell]]:
        """A pictured table's rows; a bar chart's series as rows with a cell per group; else each label
        with its one value."""
        cells = table_cells(node)
        if cells:
            rows = list(dict.fromkeys(r for r, _c, _v in cells))
            columns = list(dict.fromkeys(c for _r, c, _v in cells))
            return [[TableCell(node.id, row, column, value, "", rows.index(row), columns.index(column) + 1)
                     for r, column, value in cells if r == row] for row in rows]
        bars = bar_values(node)
        if bars:
            series = list(dict.fromkeys(name for name, _g, _v, _u in bars))
            groups = list(dict.fromkeys(group for _s, group, _v, _u in bars))
            return [[TableCell(node.id, name, group, value, unit, series.index(name), groups.index(group) + 1)
                     for n, group, value, unit in bars if n == name] for name in series]
        column = _column_label(node)
        return [[TableCell(node.id, label, column, value, "", row, 1)]
                for row, (label, value) in enumerate(label_values(printed_lines(node)))]

    def has_substance(self, node: EvidenceNode) -> bool:
        """Printed text that says what the figure shows: label -> value rows, or labels naming entities."""
        if not (node.caption or node.table_cells) or not node.visible_text:
            return False
        rows = sum(1 for (image, _row) in self.cells if image == node.id)
        named = {normal_label(line.text) for line in printed_lines(node) if is_label(line.text)}
        entities = sum(1 for e in self.view.mentions.get(node.id, ())
                       if normal_label(self.view.entity_name.get(e, "")) in named)
        return max(rows, entities) >= MIN_FIGURE_ROWS

    def drop(self, image_id: str) -> None:
        """An image that is no evidence has no rows."""
        self.cells = {k: v for k, v in self.cells.items() if k[0] != image_id}
        self.rows_of_entity = {e: [r for r in rows if r[0] != image_id] for e, rows in self.rows_of_entity.items()}
        self.rows_of_entity = {e: rows for e, rows in self.rows_of_entity.items() if rows}

    def mention_labels(self) -> None:
        """A figure mentions each entity that one of its printed labels names (the walkers' mentions)."""
        for ent, rows in self.rows_of_entity.items():
            for image, _row in rows:
                self.view.mentions[image].add(ent)
                self.view.mentioned_by[ent].add(image)


def _column_label(node: EvidenceNode) -> str:
    label = node.caption.split(":")[0].split(".")[0].strip() if node.caption else ""
    return f"{LONE_VALUE} {label}" if label and len(label.split()) <= 3 else f"{LONE_VALUE} the figure"


class FigureWalk(TableWalk):
    """text_initiated_chain: text hops walked backwards from a figure's label, ending in its value."""

    GRAPH_TYPE = "text_initiated_chain"
    END_LABEL = "Image"


class FigureSteps:
    """The strict walker's figure chains (walkers.Walker.sample asks this first, for the image types)."""

    TRIES = 6
    # Share of draws that try a chart-table pair first: pairs are the surer chains (a value found in one
    # picks the row of the other), but alone they would use up a report's few charts in the first draws.
    PAIR_SHARE = 0.5

    def __init__(self, walker, index: FigureIndex):
        self.walker = walker
        self.index = index
        self.walk = FigureWalk(walker, index)
        tables = walker.table_pairs.tables  # read by rows, and across when the run reads them so
        # A chart and a table that both list one model: the value only it has in one finds its row in the other.
        self.pairs = {"image_initiated_chain": TablePairWalk(walker, [index], tables, "image_initiated_chain"),
                      "text_initiated_chain": TablePairWalk(walker, tables, [index], "text_initiated_chain")}

    def sample(self, graph_type: str) -> Candidate | None:
        w = self.walker
        length = w.sample_length()
        pair = self.pairs.get(graph_type)
        if pair is not None and pair.possible(length) and w.rng.random() < self.PAIR_SHARE:
            cand = pair.chain(length)
            if cand is not None:
                return cand
        if graph_type == "text_initiated_chain":
            return self.walk.chain(length) if self.walk.possible(length) else None
        if graph_type == "image_initiated_chain":
            return self.image_initiated(length)
        return None

    def distinct_rows(self) -> list[tuple[str, int, str]]:
        """(image, row, entity) of rows whose value no other row of the figure prints: only the figure
        tells which label has it, so it identifies the label."""
        out = []
        for ent, rows in sorted(self.index.rows_of_entity.items()):
            for image, row in rows:
                others = sum(1 for (i, _r) in self.index.cells if i == image) - 1
                unique = [c for c in self.index.cells[(image, row)] if not self.index.same_value_rows(c)]
                if unique and others >= 1 and self.walker.bridgeable(ent):
                    out.append((image, row, ent))
        return out

    def image_initiated(self, length: int) -> Candidate | None:
        """Figure -> text: the figure names the bridge by its value; the next hop holds its rivals."""
        w = self.walker
        options = [o for o in self.distinct_rows() if w.memory.fresh(o[0])]
        for _ in range(self.TRIES if options else 0):
            image, row, ent = w.rng.choice(options)
            doc = w.view.nodes[image].doc_id
            entries = [x for x in w.chunks_entered_by(ent)
                       if w._enterable(x, ent, doc, [image]) and w.memory.fresh(x)
                       and (w.construction is None or w.construction.rivals_of(x, ent))]
            if not entries:
                continue
            rest = w.text_path(w.rng.choice(entries), length - 1, [image], incoming=ent)
            cand = w._serial("image_initiated_chain", [Hop(image, "Image", ent, "entity"), *rest]) if rest else None
            if cand is not None:
                cell = w.rng.choice([c for c in self.index.cells[(image, row)] if not self.index.same_value_rows(c)])
                cand.meta["figure_fact"] = {"hop": 0, "label": cell.row_label, "value": cell.value,
                                            "column": cell.column_label if measured_by_axis(cell) else ""}
                return cand
        return None


def figure_own_text(node: EvidenceNode, index: FigureIndex, vision: bool) -> str:
    """What stands for a figure as hop evidence: what it carries itself, never the page around it
    ("" when nothing may). Ingest's offline description is the caption plus nearby page text; a
    hop built on that text asks about facts the image does not show ("Figure 1-4. Benoist airboat."
    answered "Florida businessman" from the paragraph beside it, with the image attached)."""
    if node.description_source == "vlm":
        return node.text
    if index.has_substance(node) or (vision and node.caption and node.visible_text):
        return figure_evidence(node)  # with vision, printed labels are what the model sees in it too
    if node.caption and (vision or len(node.caption.split()) >= MIN_CAPTION_WORDS):
        return node.caption  # with vision the model sees the rest; without, a caption this long says it
    return ""


def read_figures(view: CorpusView, evidence_roles: frozenset[str], is_ordinary, vision: bool) -> FigureIndex:
    """A strict run's figures: labels named in prose become entities (tables.name_table_rows), each
    figure mentions the entities its labels name, and each figure's hop text is what it carries
    itself (`figure_own_text`): a model's description, its caption and printed text. A figure
    mentions only the entities that text names; one with no such text is no evidence (its
    mentions and links are removed)."""
    from builders.chains.tables import name_table_rows

    index = FigureIndex(view)
    name_table_rows(view, evidence_roles, is_ordinary, index)
    index.reindex()  # the labels name_table_rows just made entities name rows too
    index.mention_labels()
    for node in [n for n in view.nodes.values() if n.label == "Image"]:
        node.text = figure_own_text(node, index, vision)
        mentioned = view.mentions.pop(node.id, set())
        named = {e for e in mentioned if node.text and mentions_entity(view, e, node.text)}
        for ent in mentioned - named:
            view.mentioned_by.get(ent, set()).discard(node.id)
        if node.text:
            view.mentions[node.id] = named
        else:
            for chunk in view.image_links.pop(node.id, set()):
                view.image_links.get(chunk, set()).discard(node.id)
            index.drop(node.id)
    return index
