"""Two-table text chains (strict runs): one table identifies a row's entity by a value only that row
has in its column, another table gives the answer in that entity's row among rivals.

"What is the Belebele score of the Qwen3 dense model with 40 layers?": the architecture table says
which model has 40 layers (no other row has 40 there), the benchmark table lists that model among
others without its layer count. Without the first table a reader cannot tell which row is meant;
without the second there is no score. Papers, technical reports and earnings releases state one
entity in several tables (architecture and results, segment revenue and income), so this supplies
chains where prose seldom names a row's entity outside a list (walk deaths "table: the walk back
from a row's prose ran dry", bench/supply.py).

The identifying cell is kept as the candidate's `table_fact` (the fact a non-prose hop names its
bridge by, read by construction.ChainConstruction._identifying); the answer cell as `table_cell`.
construction.py then checks the pair like any chain ending in a table: the second table's other
rows are the rivals, its other values of the column the rival answers, and neither the
identifying value nor its column's words may be found in the second table.
"""

from __future__ import annotations

from builders.chains.candidate import Candidate, Hop
from builders.chains.tables import (TableCell, TableIndex, names_value, readable_header, table_caption,
                                    value_is_number)
from builders.chains.values import number

MIN_ROWS = 3  # rows of the first table: its value singles the row out among at least two others


class TablePairWalk:
    """Draws an entity named by rows of two tables and builds the two-hop chain between them.

    `tables` and `answers` are lists of table-like indexes: the tables read by rows, read across
    (tables.TableIndex with `across`: LLM reports print models as columns), or a strict run's figures
    (figure_walk.FigureIndex). With figures the same walk joins a chart and a table: the chart
    identifies a model by the value only it shows and a table gives its score elsewhere
    (image_initiated_chain), or a table identifies it and the chart answers (text_initiated_chain)."""

    TRIES = 6

    def __init__(self, walker, tables: list[TableIndex], answers: list[TableIndex] | None = None,
                 graph_type: str = "text_chain"):
        self.walker = walker
        self.tables = tables  # the identifying hop's indexes
        self.answers = answers if answers is not None else tables  # the answering hop's indexes
        self.graph_type = graph_type
        self._entities: list[str] | None = None

    @staticmethod
    def _rows(indexes: list[TableIndex], ent: str) -> list[tuple[TableIndex, str, int]]:
        return [(ix, table, row) for ix in indexes for table, row in ix.rows(ent)]

    @property
    def entities(self) -> list[str]:
        """Entities with a row in an identifying index and one in another table or figure of an answering
        index (computed once: the indexes are built by then)."""
        if self._entities is None:
            bridge_ok = self.walker.table_walk.bridge_ok
            names = sorted({e for ix in self.tables for e in ix.rows_of_entity})
            self._entities = [e for e in names if bridge_ok(e) and self._in_two_tables(e)]
        return self._entities

    def _in_two_tables(self, ent: str) -> bool:
        answering = {t for _ix, t, _r in self._rows(self.answers, ent)}
        return bool(answering) and len({t for _ix, t, _r in self._rows(self.tables, ent)} | answering) >= 2

    def possible(self, length: int) -> bool:
        return length == 2 and bool(self.entities)

    def chain(self, length: int) -> Candidate | None:
        w = self.walker
        for _ in range(self.TRIES if self.possible(length) else 0):
            ent = w.rng.choice(self.entities)
            rows = self._rows(self.tables, ent)
            w.rng.shuffle(rows)
            later = self._rows(self.answers, ent)
            for index, first_table, first_row in rows:
                fact = self.identifying_cell(index, first_table, first_row)
                if fact is None or (w.strict and not w.memory.fresh(first_table)):
                    continue
                cand = self._second(ent, fact, [r for r in later if r[1] != first_table])
                if cand is not None:
                    return cand
            w.died("table pair: no table identifies the row by a value another table lacks")
        return None

    def identifying_cell(self, index: TableIndex, table: str, row: int) -> TableCell | None:
        """A cell of the row whose value no other row of its column holds, under a readable header,
        in a table of MIN_ROWS rows or more (a random one of them)."""
        if len(index.row_labels(table)) < MIN_ROWS:
            return None
        figure = self.walker.view.nodes[table].label == "Image"  # a chart's group label may run longer
        options = [c for c in index.cells.get((table, row), [])
                   if value_is_number(c.value) and (readable_header(c.column_label) or figure)
                   and not index.same_value_rows(c)]
        return self.walker.rng.choice(options) if options else None

    def _in_first_row(self, fact: TableCell, answer: TableCell) -> bool:
        """The bridge's row in the first table prints the answer's number too (q44: PepsiCo's summary
        reconciliation printed Frito-Lay's "9" beside the 2-point impact that identified it, and the
        answering table's "9 %" was not needed): the first table alone answers."""
        wanted = number(answer.value)
        return wanted is not None and any(number(c.value) == wanted for ix in self.tables
                                          for c in ix.cells.get((fact.table_id, fact.row), []))

    def _second(self, ent: str, fact: TableCell, rows: list[tuple[TableIndex, str, int]]) -> Candidate | None:
        """The chain into another table's row of `ent`, whose cells repeat neither the identifying
        value nor its column (that table would then identify the row itself)."""
        w = self.walker
        first = fact.table_id
        doc = w.view.nodes[first].doc_id
        for index, table, row in rows:
            node = w.view.nodes[table]
            # Two tables of one report look alike to embeddings (the same benchmarks, models and number
            # forms): the near-duplicate rule of text hops would refuse nearly every pair. Two chunks
            # are one table when they carry its caption twice (a table continued on the next page).
            caption = table_caption(node)
            if (caption and caption == table_caption(w.view.nodes[first])) or (
                    w.strict and not w.memory.fresh(table)) or (
                    node.doc_id != doc and not w.rules.cross_document_ok(ent)):
                continue
            cells = index.cells.get((table, row), [])
            if any(c.value == fact.value or c.column_label.casefold() == fact.column_label.casefold() for c in cells):
                continue
            cell = index.choose_cell(w.rng, table, row, w.view.nodes[first].text)
            if cell is None or names_value(w.view.nodes[first].text, cell.value) or self._in_first_row(fact, cell):
                continue
            fact_key = "figure_fact" if w.view.nodes[first].label == "Image" else "table_fact"
            meta = {"table_cell": cell.to_meta(),
                    fact_key: {"hop": 0, "label": fact.row_label, "column": fact.column_label, "value": fact.value}}
            hops = [Hop(first, w.view.nodes[first].label, ent, "entity"), Hop(table, node.label)]
            return Candidate(self.graph_type, hops, [(0, 1), (1, 2)], "", meta)
        return None
