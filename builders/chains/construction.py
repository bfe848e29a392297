"""Necessity by construction, and the shortcut pre-check, before any LLM call.

A strict verifier asks, for every evidence item, whether the question could
still be answered with that item removed; by elimination, a later item that
holds one candidate of its kind answers alone, however the question
describes it. So a serial chain is kept only when, hop by hop:

* ambiguity: hop i's evidence names other entities of the incoming
  bridge's kind (same entity type) that stand in relations there too, or,
  for a table hop, other rows: without hop i-1 a reader cannot tell which
  one the question means ("siblings");
* distinctiveness: the sentence of hop i-1 that identifies the bridge names
  no more than one other entity of the bridge's kind (an item picked out of
  an enumeration of languages is not identified by that sentence:
  "rivals"), and the bridge is not mentioned all over the corpus;
* no echo: hop i's evidence is not what BM25 ranks first for hop i-1's
  identifying sentence with the bridge's name removed (it would hold that
  fact itself);
* shortcut pre-check: the last hop is not ranked first for the earlier facts
  (names removed), no earlier hop names the answer, and no number an earlier
  hop identifies its bridge by is computed from the answering table (arithmetic.py);
* answer-side rivals: the last hop holds other candidate answers of the
  target's kind, each in a relation of its own there ("rival answers"), and
  the bridge is not said of them too (values.bridge_beside_rivals);
* the bridge's own words: the content words hop i-1's fact describes its
  bridge by are split into those no later hop's evidence holds (the writer
  may use them) and those it holds (the writer must not: a reader would
  find the bridge in the later hop by them); a fact all of whose words recur later is dropped;
* bridges mean one thing: a cross-document step needs the two chunks'
  contexts to agree (dense cosine, shortcuts.CorpusIndex), a table bridge
  must be the row's own name (not "Layers" for a "# Layers" row).

Forks are exempt from the ambiguity rules (fork_walk.py: two values of one kind, compared). The
figures stay on the candidate (meta["construction"]) and the Chain node, for comparing verdicts.
"""

from __future__ import annotations

from builders.chains.arithmetic import derives_value, printed_result, states_value, table_number_reason
from builders.chains.bridges import NAME_LABELS
from builders.chains.fact_words import (compares, defines, extreme, fact_words, picking_words, rival_words, spells_out,
                                        title_stems, word_stems)
from builders.chains.source_guess import SourceGuess
from builders.chains.candidate import Candidate
from builders.chains.construction_record import Construction
from builders.chains.fork_walk import fork_bridge
from builders.chains.name_forms import head as _head, list_length, nested as _nested, qualified_twin, table_bridge_reason
from builders.chains.shortcuts import CorpusIndex, strip_names
from builders.chains.statements import StatementIndex, find_surface
from builders.chains.tables import TableCell, TableIndex, label_forms, table_caption
from builders.chains.values import (bridge_beside_rivals, is_value, listed_rivals, one_measure, same_value_kind,
                                    value_ties)
from queries.corpus_view import CorpusView

MIN_SIBLINGS = 1  # other entities of the bridge's kind in the next hop: the bridge is one of >= 2
MAX_RIVALS = 1  # other entities of the bridge's kind in the sentence that identifies it
ECHO_SHARE = 0.6  # hop i scoring this share of hop i-1's own BM25 score for hop i-1's fact echoes it
MIN_CONTEXT = 0.3  # dense cosine of two documents' chunks for a name to mean one thing in both
MIN_ROW_RIVALS = 2  # other answerable rows of a table hop: with one, its row is found by elimination


class ChainConstruction:
    """Measures candidates against the rules of the module docstring."""

    def __init__(self, view: CorpusView, statements: StatementIndex, index: CorpusIndex,
                 tables: TableIndex | None = None, min_answer_rivals: int = 1, figures: TableIndex | None = None,
                 bridge_by_number: bool = False):
        self.view = view
        self.statements = statements
        self.index = index
        self.tables = tables  # the answerable rows and cells of every table (a table hop's rivals)
        self.figures = figures  # a strict run's figures read as tables of label -> value (figure_walk.py)
        self.columns: TableIndex | None = None  # a strict run's tables read across (models as columns)
        self.min_answer_rivals = min_answer_rivals  # [generate] min_answer_rivals
        self.source_guess = SourceGuess(view)
        self.bridge_by_number = bridge_by_number  # [generate] bridge_by_number

    def _cells_of(self, cell: TableCell) -> TableIndex | None:
        """The index a cell's rows and rivals come from: its figure's, or the tables'."""
        figure = self.figures is not None and (cell.table_id, cell.row) in self.figures.cells
        return self.figures if figure else self.columns if cell.across and self.columns is not None else self.tables

    def names(self, ent: str) -> list[str]:
        return self.statements.names(ent) if ent else []

    def check(self, cand: Candidate) -> Construction:
        """The candidate's figures; `reason` says why it should not be verbalized ("" if it may be)."""
        c = Construction()
        bridges = [h.bridge if h.bridge_kind == "entity" else "" for h in cand.hops[:-1]]
        c.bridge_mentions = [len(self.view.mentioned_by.get(b, ())) for b in bridges if b]
        c.reason = self._cycle(cand, bridges) or self._answer_earlier(cand) or self._generic(bridges) \
            or self._contexts(cand, c) or self._table_bridge(cand) or fork_bridge(self.view, cand)
        if c.reason or cand.graph_type.endswith("fork"):
            return c
        facts = []
        for i in range(1, len(cand.hops)):
            incoming = bridges[i - 1]
            if not incoming:
                continue
            statement = self._identifying(cand, i - 1, bridges)
            rivals = self._rivals(cand.hops[i - 1].node_id, incoming, statement)
            into_table = cand.table_cell is not None and i == len(cand.hops) - 1
            rows = self._named_beside(self._other_rows(cand.table_cell), statement) if into_table else 0
            # Into a table only its rows are candidates: names beside the bridge that label no row
            # ("Rouge-1, Rouge-2" beside "BART") leave nothing to eliminate; rows named beside it do.
            # A list it is one item of still says nothing of it but its name (PG&E's "..., special tax
            # items, and investigation remedies", q27).
            c.rivals.append(max(rows, self._listed(incoming, statement)) if into_table else rivals)
            if rows and not c.reason:
                c.reason = f"pre-check: hop {i - 1} names other rows of the table beside its bridge"
            siblings = self._siblings(cand, i, incoming)
            if not c.reason:
                c.reason = self.source_guess.reason(cand, i, statement, self._other_rows(cand.table_cell)
                                              if into_table else siblings)
            c.siblings.append(len(siblings))
            c.sibling_names.append(sorted(siblings)[:6])
            fact = strip_names(statement, self.names(incoming) + self.names(bridges[i - 2] if i >= 2 else ""))
            facts.append(fact)
            c.echo.append(self._echo(fact, cand.hops[i - 1].node_id, cand.hops[i].node_id))
            # The answer's name is a candidate's too: a word of it ("layer" of LayerNorm, q14) gives it away.
            answer = cand.table_cell.value if cand.table_cell else self.view.entity_name.get(cand.answer_entity, "")
            kin = self._other_rows(cand.table_cell) if into_table else [
                self.view.entity_name.get(e, e) for e in self._kin(cand.hops[i - 1].node_id, incoming)]
            kin_said = rival_words(self.view.nodes[cand.hops[i - 1].node_id].text, self.names(incoming), kin)
            later, candidates = self._later_words(cand, i, siblings), [self.view.entity_name.get(incoming, ""), *siblings]
            own, shared = fact_words(fact, later | kin_said, candidates, self._title_words(cand), answer)
            c.describe_by.append(own)
            c.avoid_words.append(shared)
            c.reason = c.reason or self._hop_reason(i, c)
            if not c.reason and self.bridge_by_number and not any(printed_result(w) for w in own):
                c.reason = f"pre-check: hop {i - 1} describes its bridge by words only (a practitioner guesses it)"
            if not c.reason and i == len(cand.hops) - 1 and cand.table_cell:
                c.reason = table_number_reason(i - 1, own, cand.table_cell, self._cells_of(cand.table_cell), self.view.nodes[cand.hops[i].node_id].text)
            named = self.names(incoming)
            if not c.reason and (defines(statement, named) or spells_out(statement, named)):
                c.reason = f"pre-check: hop {i - 1} says what its bridge is (a practitioner maps that to the name)"
            if not c.reason and shared and not own:
                c.reason = f"pre-check: hop {i - 1}'s fact about its bridge is " + ("said of a rival there too" if fact_words(
                    fact, later, candidates, self._title_words(cand), answer)[0] else "worded in a later hop too")
        if len(cand.hops) > 1:
            rivals = self._answer_rivals(cand)
            c.answer_rivals = len(rivals)
            c.answer_rival_names = sorted(rivals)[:6]
            if not c.reason and c.answer_rivals < self.min_answer_rivals:
                c.reason = "pre-check: the last hop holds no other answer of the target's kind (it answers alone)"
            if not c.reason and cand.table_cell is not None:  # a pair's bridge is named by a value, not a ranking
                c.reason = self._table_answer(cand.table_cell, "" if cand.named_by_value else facts[-1] if facts else "")
            elif not c.reason and is_value(cand.answer_entity) and bridge_beside_rivals(
                    self.statements, cand.hops[-1].node_id, bridges[-1], cand.answer_entity, rivals):
                c.reason = "pre-check: the last hop names its bridge beside other answers too (it picks no one answer)"
        earlier = strip_names(" ".join(facts), [n for b in bridges for n in self.names(b)]
                              + self.names(cand.answer_entity))
        last = cand.hops[-1].node_id
        c.last_rank = self.index.rank(earlier, last) if self.view.nodes[last].label == "Chunk" else 0
        if not c.reason and c.last_rank == 1 and len(cand.hops) > 1:
            c.reason = "pre-check: the earlier hops' facts retrieve the last hop first"
        return c

    def _table_answer(self, cell: TableCell, fact: str) -> str:
        if len(self._other_rows(cell)) < MIN_ROW_RIVALS:
            return "pre-check: the table has fewer than 3 answerable rows (its row is found by elimination)"
        if self._cells_of(cell).same_value_rows(cell):  # "256" in four of five rows of a hyperparameter table
            return "pre-check: another row of the table has the same value (the bridge picks no one answer)"
        if compares(fact) and extreme(cell.value, self._cells_of(cell).column_rivals(cell)):
            return "pre-check: the bridge is described by a comparison and its value is its column's extreme"
        return ""

    @staticmethod
    def _hop_reason(i: int, c: Construction) -> str:
        if c.rivals[-1] > MAX_RIVALS:
            return f"pre-check: hop {i - 1} picks its bridge out of an enumeration"
        if c.siblings[-1] < MIN_SIBLINGS:
            return f"pre-check: hop {i} holds no rival of its incoming bridge (answerable without hop {i - 1})"
        if c.echo[-1] >= ECHO_SHARE:
            return f"pre-check: hop {i}'s evidence repeats hop {i - 1}'s fact"
        return ""

    def question_ranks(self, cand: Candidate, question: str) -> list[int]:
        """BM25 rank of each hop's evidence (0: an image, or not in the top 10) for the written question
        without the bridges' and the answer's names: a question that ranks its last hop first and its
        first hop nowhere lets a reader start at the end (recorded, to be checked against verdicts)."""
        names = [n for b in cand.bridges for n in self.names(b)] + self.names(cand.answer_entity)
        query = strip_names(question, names)
        return [self.index.rank(query, h.node_id) if h.label == "Chunk" else 0 for h in cand.hops]

    def rivals_of(self, node_id: str, ent: str, chain: set[str] = frozenset()) -> bool:
        """Whether `node_id` names another entity of `ent`'s kind in a relation (the walkers' lookahead)."""
        return any(e not in chain and self.rival_here(node_id, ent, e) for e in self.view.mentions.get(node_id, ()))

    # ---- the measures -------------------------------------------------------
    def _identifying(self, cand: Candidate, i: int, bridges: list[str]) -> str:
        """The sentence of hop i that names bridge i (the fact the question identifies it by)."""
        node = cand.hops[i].node_id
        target = bridges[i]
        fact = cand.meta.get("figure_fact") or cand.meta.get("table_fact")
        if fact and fact.get("hop") == i:  # a figure or table names its bridge by a value (figure_walk, table_pairs)
            return " ".join(filter(None, (fact["label"], fact.get("column", ""), fact["value"])))
        st = self.statements.relation(node, bridges[i - 1], target) if i and bridges[i - 1] else None
        if st is None:
            st = self.statements.first_statement(node, target)
        if st is not None:
            return st.text
        sentence = next((s for s in self.statements.sentences(node) if target in s.spans), None)
        return sentence.text if sentence else ""

    def same_kind(self, ent: str, other: str) -> bool:
        """Two entities of one kind: the same named-entity type, and for a term (no name type) the
        same head word too ("FINE annotations" and "COARSE annotations", not "AOA sensors" and "14 CFR")."""
        if is_value(ent) or is_value(other):  # numbers in prose (values.py): one type and form
            return is_value(ent) and is_value(other) and same_value_kind(self.view, ent, other)
        label = self.view.entity_label.get(ent, "")
        if label != self.view.entity_label.get(other, ""):
            return False
        return label in NAME_LABELS or _head(self.view.entity_name.get(ent, ent)) == \
            _head(self.view.entity_name.get(other, other))

    def _kin(self, node_id: str, ent: str) -> list[str]:
        """The other specific entities of `ent`'s kind that `node_id` mentions."""
        return [e for e in self.view.mentions.get(node_id, ()) if e != ent and self.same_kind(ent, e)
                and self.statements.rules.specific(e)]

    def _rivals(self, node_id: str, ent: str, statement: str) -> int:
        """Other specific entities of `ent`'s kind named in the identifying sentence, or the other items
        of a list it stands in there (name_forms.list_length), whichever are more."""
        return max(self._listed(ent, statement),
                   sum(1 for e in self._kin(node_id, ent) if find_surface(self.names(e), statement)))

    def _listed(self, ent: str, statement: str) -> int:
        """The other items of the comma list `ent` stands in within the statement (0: in none)."""
        span = find_surface(self.names(ent), statement) if statement else None
        return list_length(statement, statement[span[0]:span[1]]) - 1 if span else 0

    @staticmethod
    def _named_beside(labels: list[str], statement: str) -> int:
        """How many of `labels` (other rows of the bridge's table: "BART and PEGASUS") the identifying
        sentence names: it does not single out the row, whatever the entity types say."""
        return sum(1 for label in labels if statement and find_surface(label_forms(label), statement) is not None)

    def _other_rows(self, cell) -> list[str]:
        cells = self._cells_of(cell)
        return cells.other_rows(cell) if cells is not None else []

    def _siblings(self, cand: Candidate, i: int, incoming: str) -> list[str]:
        """Names of the entities of the incoming bridge's kind that stand in a relation in hop i's
        evidence too (for a table hop: the other rows' labels)."""
        hop = cand.hops[i]
        cell = cand.table_cell
        if cell is not None and i == len(cand.hops) - 1:
            return self._other_rows(cell)  # the writer must not single the bridge's row out among them
        chain = set(cand.bridges) | {cand.answer_entity}
        if i == len(cand.hops) - 1 and is_value(cand.answer_entity):  # a list of entities with numbers
            listed = listed_rivals(self.view, self._value_ties(hop.node_id), incoming, cand.answer_entity)
            return sorted(self.view.entity_name.get(e, e) for e in listed if e not in chain
                          and not _nested(self.view.entity_name.get(e, e), self.view.entity_name.get(incoming, "")))
        return sorted(self.view.entity_name.get(e, e) for e in self.view.mentions.get(hop.node_id, ())
                      if e not in chain and self.rival_here(hop.node_id, incoming, e))

    def rival_here(self, node_id: str, ent: str, other: str) -> bool:
        """`other` rivals `ent` here: of its kind, specific, in a relation, not part or alias of its name."""
        return (other != ent and self.same_kind(ent, other) and self.statements.rules.specific(other)
                and not _nested(self.view.entity_name.get(other, other), self.view.entity_name.get(ent, ""))
                and bool(self.statements.partners(node_id, other)) and not self.statements.same_thing(node_id, ent, other))

    def _value_ties(self, node_id: str) -> dict[str, dict[str, frozenset[str]]]:
        """The numbers `node_id` lists beside its entities (values.value_ties; none without value entities)."""
        if not any(is_value(e) for e in self.view.mentions.get(node_id, ())):
            return {}
        ents = [e for e in self.view.mentions.get(node_id, ()) if self.statements.rules.specific(e)]
        return value_ties(self.statements, node_id, ents)

    def _answer_rivals(self, cand: Candidate) -> list[str]:
        """Other candidate answers of the target's kind that stand in a relation in the last hop
        (for a table cell: the same column's values in the table's other rows)."""
        last = cand.hops[-1].node_id
        if cand.table_cell is not None:
            cells = self._cells_of(cand.table_cell)
            return cells.column_rivals(cand.table_cell) if cells is not None else []
        incoming = cand.hops[-2].bridge if cand.hops[-2].bridge_kind == "entity" else ""
        return self.answer_rivals(last, cand.answer_entity, set(cand.bridges), incoming) if cand.answer_entity else []

    def answer_rivals(self, node_id: str, answer: str, chain: set[str], incoming: str = "") -> list[str]:
        """Names of the other candidate answers in `node_id`: entities of `answer`'s kind in a relation
        there, or of its entity type in a relation with a rival of the incoming bridge (each tied to
        another bridge candidate). Also the walker's choice of an answer: one with rivals first."""
        name = self.view.entity_name.get(answer, answer)
        label = self.view.entity_label.get(answer, "")
        out = set()
        if is_value(answer):  # a number listed beside the bridge: the numbers listed beside its rivals
            ties = self._value_ties(node_id)
            measure = ties.get(incoming, {}).get(answer, frozenset())
            for e in listed_rivals(self.view, ties, incoming, answer):
                if e not in chain:
                    out |= {self.view.entity_name.get(v, v) for v, m in ties[e].items()
                            if v != answer and self.same_kind(answer, v) and one_measure(measure, m)}
        for e in self.view.mentions.get(node_id, ()):
            other = self.view.entity_name.get(e, e)
            if e in chain or e in (answer, incoming) or _nested(other, name) \
                    or not (self.statements.rules.specific(e) or is_value(e)):
                continue
            partners = self.statements.partners(node_id, e)
            if self.same_kind(answer, e) and partners:
                out.add(other)
            elif label and incoming and self.view.entity_label.get(e, "") == label \
                    and not self.same_kind(incoming, e) \
                    and any(p not in chain and p != incoming and self.same_kind(incoming, p) for p in partners):
                out.add(other)
        return sorted(out)

    def _later_words(self, cand: Candidate, i: int, siblings: list[str]) -> set[str]:
        """Stems of the words hops i.. hold by which a reader could find hop i-1's bridge without it. A
        table's last hop: only the bridge's own row (its label and cells); the caption, the headers and
        the other rows are shared by every row or point at another one, so they find no bridge. A last
        hop in prose that states the relation for the bridge's rivals (`siblings`) too: only its words
        that pick the bridge out among them (fact_words.picking_words)."""
        words, stems = [], set()
        for k, h in enumerate(cand.hops[i:], start=i):
            cell = cand.table_cell if k == len(cand.hops) - 1 else None
            cells = self._cells_of(cell).cells.get((cell.table_id, cell.row), []) if cell is not None else None
            picking = picking_words(self.view.nodes[h.node_id].text, self.names(cand.hops[i - 1].bridge), siblings) \
                if k == i == len(cand.hops) - 1 and cell is None else None
            if cells:
                words += [cell.row_label, *(c.value for c in cells)]
            elif picking is not None:
                stems |= picking
            else:
                words.append(self.view.nodes[h.node_id].text)
        return stems | {stem for text in words for stem in word_stems(text)}

    def _title_words(self, cand: Candidate) -> set[str]:
        """Stems of the chain's document titles: the question names its source by them, so they are
        neither words to avoid nor a way to describe a bridge. Not the words of a bridge's own name
        (a paper titled after the model its table lists): those keep every rule."""
        titles = {self.view.doc_title.get(self.view.nodes[h.node_id].doc_id, "") for h in cand.hops}
        bridges = [self.view.entity_name.get(b, "") for b in cand.bridges if b]
        return title_stems(titles) - title_stems(bridges)

    def _echo(self, fact: str, earlier_node: str, node: str) -> float:
        scores = self.index.scores(fact)
        own = scores.get(earlier_node, 0.0)
        if not own or node not in scores:
            return 0.0
        return round(scores[node] / own, 3)

    # ---- rules on bridges and answers ---------------------------------------
    def _cycle(self, cand: Candidate, bridges: list[str]) -> str:
        named = [b for b in bridges if b]
        if cand.graph_type.endswith("fork"):
            named = list(dict.fromkeys(named))  # a fork's branches share their bridge
        if len(set(named)) < len(named) or (cand.answer_entity and cand.answer_entity in named):
            return "pre-check: circular chain (an entity comes back)"
        return ""

    def _answer_earlier(self, cand: Candidate) -> str:
        answer, cell = cand.answer_entity, cand.table_cell  # a table's answer: its cell's number (q51)
        names = self.names(answer) if answer else []
        for h in cand.hops[:-1]:
            text = self.view.nodes[h.node_id].text
            if (answer and (answer in self.view.mentions.get(h.node_id, ()) or strip_names(text, names) != " ".join(
                    text.split()))) or (cell is not None and self.view.nodes[h.node_id].kind == "text"
                                        and states_value(text, cell.value)):  # prose that states it, not a table
                return "pre-check: the answer is named by an earlier hop"
            if derives_value(text, self.names(h.bridge), cell.value if cell else names[0] if names else ""):
                return "pre-check: the answer is computed from an earlier hop's numbers for the bridge"
        return ""

    def _generic(self, bridges: list[str]) -> str:
        """A bridge spread over 3+ documents whose contexts are unrelated (the mean cosine of the
        documents' mention centroids < MIN_CONTEXT) is a generic word here, whatever its type."""
        for b in bridges:
            if b and self.index.spread(b, self.view.mentioned_by.get(b, ())) < MIN_CONTEXT:
                return f"pre-check: {self.view.entity_name.get(b, b)!r} is a generic term in this corpus"
        return ""

    def _contexts(self, cand: Candidate, c: Construction) -> str:
        for a, b in zip(cand.hops, cand.hops[1:]):
            na, nb = self.view.nodes[a.node_id], self.view.nodes[b.node_id]
            if na.doc_id == nb.doc_id or not a.bridge or na.label != "Chunk" or nb.label != "Chunk":
                continue
            score = self.index.context_similarity(a.node_id, b.node_id)
            c.context.append(round(score, 3) if score is not None else -1.0)
            if score is not None and score < MIN_CONTEXT:
                return (f"pre-check: {self.view.entity_name.get(a.bridge, a.bridge)!r} is used in unrelated "
                        "contexts in its two documents")
        return ""

    def _table_bridge(self, cand: Candidate) -> str:
        if (cell := cand.table_cell) is None:
            return ""
        node, rows = self.view.nodes[cell.table_id], self._other_rows(cell)  # across: the header names every row
        text = f"{table_caption(node)}\n|---" if cell.across else node.text
        return table_bridge_reason(cell.row_label, self.view.entity_name.get(cand.hops[-2].bridge, ""), rows, text) \
            or (not cand.named_by_value and qualified_twin(cell.row_label, rows)) or ""
