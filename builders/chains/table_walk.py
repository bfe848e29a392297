"""Text chains that end in one table cell, walked backwards from the table.

A forward walk rarely reaches a table: its last text hop must state a
relation between its incoming bridge and an entity that names a table row,
and on the six shared PDFs 5 (chunk, bridge) pairs of ~470 chunks do. So
these chains are built from the end. An *entry* is a text chunk X and an
entity E naming a table row (tables.py) such that E either opens X (an
anchor: X can be the first hop) or stands in a relation with another
entity I inside one sentence of X (statements.py: X is entered through I).
From an entry the walk goes backwards, each step by the rules of a forward
step: the chunk before names I in a relation with its own incoming bridge
(or, as the first hop, in a usable sentence), names no other bridge of the
chain, and is no near-duplicate of a hop already taken. Then one cell of
E's row is chosen that no text hop names (TableIndex.choose_cell).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Protocol

from builders.chains.bridges import BridgeRules
from builders.chains.candidate import Candidate, Hop
from builders.chains.name_forms import ordinary_word
from builders.chains.statements import StatementIndex
from builders.chains.supply import WalkMemory
from builders.chains.tables import TableIndex
from queries.corpus_view import CorpusView


class StepRules(Protocol):
    """What a backward walk needs of the forward walker (walkers.Walker): its corpus, draws and the
    rules of one step, so both directions step by the same rules without importing each other."""

    view: CorpusView
    rules: BridgeRules
    statements: StatementIndex
    memory: WalkMemory
    rng: random.Random
    strict: bool
    construction: object | None  # construction.ChainConstruction (same_kind), set by make_walker
    chunks: list[str]
    max_entity_degree: int

    def bridgeable(self, entity: str) -> bool: ...

    def compatible(self, node_id: str, visited: list[str]) -> bool: ...

    def names_overlap(self, entity: str, others: set[str]) -> bool: ...

    def chunks_entered_by(self, entity: str) -> list[str]: ...

    def died(self, reason: str) -> None: ...


@dataclass(frozen=True)
class Entry:
    chunk: str  # the last text hop
    incoming: str  # the entity it is entered by; "" when the chunk opens the chain (E is an anchor)
    entity: str  # E: the bridge into the table, a row label


class TableWalk:
    TRIES = 6  # entries tried for one sample
    GRAPH_TYPE = "text_chain"  # figures.FigureWalk: text_initiated_chain, ending in a figure's printed value
    END_LABEL = "Chunk"

    def __init__(self, walker: StepRules, tables: TableIndex):
        self.walker = walker
        self.tables = tables
        self._entries: list[Entry] | None = None

    @property
    def entries(self) -> list[Entry]:
        if self._entries is None:  # the walker's chunks and statements exist only after its __init__
            self._entries = self._find_entries()
        return self._entries

    def bridge_ok(self, ent: str) -> bool:
        w = self.walker
        # Strict: a row named by one everyday word is dropped by the pre-check; it is not drawn at all.
        return w.rules.can_bridge(ent) and len(w.view.mentioned_by.get(ent, ())) <= w.max_entity_degree \
            and not (w.strict and ordinary_word(w.view.entity_name.get(ent, ent)))

    def _find_entries(self) -> list[Entry]:
        w = self.walker
        chunks = set(w.chunks)
        out = []
        for ent in sorted(e for e in self.tables.rows_of_entity if self.bridge_ok(e)):
            for x in sorted(set(w.view.mentioned_by.get(ent, ())) & chunks):
                if ent in w.statements.anchors(x):
                    out.append(Entry(x, "", ent))
                # relation(), not just partners(): the verbalizer needs a statement that gives nothing away.
                out += [Entry(x, inc, ent) for inc in sorted(w.view.mentions.get(x, ()))
                        if inc != ent and w.bridgeable(inc) and ent in w.statements.partners(x, inc)
                        and w.statements.relation(x, inc, ent) is not None]
        return out

    def _options(self, length: int) -> list[Entry]:
        return [e for e in self.entries if (e.incoming == "") == (length == 2)]

    def possible(self, length: int) -> bool:
        """Whether a chain of `length` hops could end in a table (draws nothing from the seed)."""
        return bool(self.tables.rows_of_entity) and bool(self._options(length))

    def chain(self, length: int) -> Candidate | None:
        options = self._options(length)
        for _ in range(self.TRIES if options else 0):
            entry = self.walker.rng.choice(options)
            hops = self.backwards(entry, length - 1)
            cand = self._end(hops, entry) if hops else None
            if cand is not None:
                return cand
            self.walker.died("table: the walk back from a row's prose ran dry" if hops is None
                             else "table: no fresh table with a cell of the row")
        return None

    def backwards(self, entry: Entry, n_text: int, keep_out: set[str] = frozenset()) -> list[Hop] | None:
        """`n_text` text hops ending in the entry's chunk, or None when the walk back runs dry. No hop
        names an entity of `keep_out` (a prose last hop's answer and the bridge's rivals, prose_walk.py)."""
        hops = [Hop(entry.chunk, "Chunk", entry.entity, "entity")]
        incoming, used = entry.incoming, ({entry.entity, entry.incoming} | set(keep_out)) - {""}
        while len(hops) < n_text:
            found = self.before(hops, incoming, used, opens=len(hops) == n_text - 1)
            if found is None:
                return None
            node, before = found
            hops.insert(0, Hop(node, "Chunk", incoming, "entity"))
            incoming = before
            used.add(before)
        return hops

    def before(self, hops: list[Hop], incoming: str, used: set[str], opens: bool) -> tuple[str, str] | None:
        """A chunk that leads into hops[0] through `incoming`, and the entity it is entered by ("" if it opens)."""
        w = self.walker
        visited = [h.node_id for h in hops]
        later = set().union(*(w.view.mentions.get(n, set()) for n in visited))
        doc = w.view.nodes[hops[0].node_id].doc_id
        options = [p for p in w.chunks_entered_by(incoming)
                   if w.compatible(p, visited) and not w.view.mentions.get(p, set()) & (used - {incoming})
                   and (w.view.nodes[p].doc_id == doc or w.rules.cross_document_ok(incoming))]
        w.rng.shuffle(options)
        if w.rng.random() < 0.8:  # another document first, as a forward step prefers
            options.sort(key=lambda p: w.view.nodes[p].doc_id == doc)
        for p in options:
            if opens:  # the sentence the first sub-question quotes must name no later bridge
                if w.statements.first_statement(p, incoming, forbid=used - {incoming}) is not None:
                    return p, ""
                continue
            before = [j for j in w.statements.partners(p, incoming)
                      if j not in used and j not in later and w.bridgeable(j) and not w.names_overlap(j, used)]
            if before:
                return p, w.rng.choice(before)
        return None

    def _end(self, hops: list[Hop], entry: Entry) -> Candidate | None:
        """The chain with one cell of the entity's row as its last hop."""
        w = self.walker
        visited = [h.node_id for h in hops]
        text = "\n".join(w.view.nodes[n].text for n in visited)
        doc = w.view.nodes[entry.chunk].doc_id
        rows = list(self.tables.rows(entry.entity))
        w.rng.shuffle(rows)
        for table, row in rows:
            if not w.compatible(table, visited) or (w.strict and not w.memory.fresh(table)) or (
                    w.view.nodes[table].doc_id != doc and not w.rules.cross_document_ok(entry.entity)):
                continue
            cell = self.tables.choose_cell(w.rng, table, row, text)
            if cell is not None:
                structure = [(i, i + 1) for i in range(len(hops) + 1)]
                return Candidate(self.GRAPH_TYPE, [*hops, Hop(table, self.END_LABEL)], structure, "",
                                 {"table_cell": cell.to_meta()})
        return None
