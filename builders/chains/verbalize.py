"""Verbalizers: turn a candidate chain into per-hop sub-questions and answers
plus a final question and answer.

* OfflineVerbalizer: deterministic, no LLM. Each sub-question is a statement
  of its own hop's evidence with the hop's answer blanked (builders/chains/
  statements.py), turned into a question whose word follows the answer's type
  (question_words.py); the final question nests them so every bridge must
  be found. Marked generator="offline". A chain that ends in a table cell
  (tables.py) asks that cell's question about the previous hop's answer:
  "What is the <column> of B in "<caption>"?".
* LLMVerbalizer: one generator call per chain (prompt kg/prompts/verbalize_chain.md).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from builders.chains.question_words import question_word
from builders.chains.candidate import Candidate
from builders.chains.fork_walk import fork_hints
from builders.chains.statements import Statement, StatementIndex, find_surface, replace_once
from builders.chains.tables import (TableCell, cell_question, measured_by_axis, table_caption, table_scale,
                                    value_is_number)
from builders.chains.windows import evidence_window
from kg.text import split_sentences
from queries.corpus_view import CorpusView

BLANK = "___"
LETTERS = "ABCDEFGH"
BLANK_RE = re.escape(BLANK)


@dataclass
class HopText:
    sub_question: str
    answer: str
    statement: str = ""  # the evidence sentence the hop was built on


@dataclass
class Draft:
    """A verbalized chain, before verification."""

    candidate: Candidate
    hops: list[HopText]
    question: str
    answer: str
    generator: str
    prompt_versions: dict[str, str] = field(default_factory=dict)
    error: str = ""  # why verbalizing failed, when it did
    anchor: str = ""  # the part of the question a reader starts from (offline: hop 0's masked statement)


# ---------------------------------------------------------------- helpers
def sentences(text: str) -> list[str]:
    return [s for s in split_sentences(text, collapse_whitespace=True) if 20 <= len(s) <= 400]


def entity_surface(view: CorpusView, entity_id: str, text: str) -> str | None:
    """The form of the entity as written in `text` (name or an alias), if present."""
    names = sorted({view.entity_name.get(entity_id, entity_id), *view.entity_aliases.get(entity_id, [])},
                   key=len, reverse=True)
    span = find_surface(names, text)
    return text[span[0]:span[1]] if span else None


def mentions_entity(view: CorpusView, entity_id: str, text: str) -> bool:
    return entity_surface(view, entity_id, text) is not None


def _quote(text: str, limit: int = 90) -> str:
    text = text.strip().rstrip(".")
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0] + " ..."
    return text.replace('"', "'")


_PLACE_PREPOSITION = re.compile(r"\b(in|at|from|near|to|into|within|across|throughout)\s+(the\s+)?" + BLANK_RE)


def ask(blanked: str, wh: str) -> str:
    """A question from a statement with its answer blanked.

    The blank as subject: "___ operates X" -> "Who operates X?". Elsewhere
    the question keeps the statement's word order ("X is operated by what?"),
    "in ___" becomes "where" for places; a "where" that does not fit
    grammatically falls back to "what", which never contradicts an answer.
    """
    text = blanked.strip().rstrip(".;:,")
    text = re.sub(r"(?i)^(the|a|an)\s+" + BLANK_RE, BLANK, text)  # "The ___ contains" -> "What contains"
    text = re.sub(r"(?i)\b(the|a|an)\s+" + BLANK_RE, BLANK, text)
    if text.startswith(BLANK):
        rest = text[len(BLANK):].lstrip(" ,")
        word = "what" if wh == "where" else wh
        return f"{word[:1].upper()}{word[1:]} {rest}?"
    if wh == "where":
        placed = _PLACE_PREPOSITION.sub("where", text, count=1)
        if placed != text:
            return placed + "?"
        wh = "what"
    return text.replace(BLANK, wh, 1) + "?"


class OfflineVerbalizer:
    """Questions from statements of each hop's own evidence (statements.py).

    Sub-question i names hop i-1's answer as written in hop i's evidence and
    asks for hop i's target; the final question nests them with letters
    ("Let A be the answer to ...; let B be ...") so every bridge must be found,
    and asks the last hop's question about B.
    """

    name = "offline"

    def __init__(self, view: CorpusView, statements: StatementIndex):
        self.view = view
        self.statements = statements

    def source_phrase(self, node_id: str) -> str:
        node = self.view.nodes[node_id]
        title = _quote(self.view.doc_title.get(node.doc_id, node.doc_id))
        if node.label == "Image":
            return f'the figure "{_quote(node.caption or node.text, 70)}" of "{title}"'
        return f'"{title}"'

    def wh(self, entity_id: str) -> str:
        return question_word(self.view.entity_name.get(entity_id, entity_id),
                             self.view.entity_label.get(entity_id, ""))

    def hop_statement(self, cand: Candidate, i: int, targets: list[str]) -> Statement | None:
        hop = cand.hops[i]
        incoming = cand.hops[i - 1].bridge if i > 0 else ""
        if not incoming:
            avoid = set().union(*(self.view.mentions.get(h.node_id, set()) for h in cand.hops[1:]))
            # Naming a later bridge or the answer would let a reader skip hops.
            return self.statements.first_statement(hop.node_id, targets[i], avoid - {targets[i]},
                                                   set(targets[1:]))
        return self.statements.relation(hop.node_id, incoming, targets[i])

    def table_phrase(self, node_id: str) -> tuple[str, str]:
        """(the table as a sub-question cites it, the table as the final question names it)."""
        node = self.view.nodes[node_id]
        title = _quote(self.view.doc_title.get(node.doc_id, node.doc_id))
        caption = table_caption(node)
        if caption:
            return f'"{_quote(caption)}" of "{title}"', f'"{_quote(caption)}"'
        return f'a table of "{title}"', f'a table of "{title}"'

    def table_hop(self, cand: Candidate, cell: TableCell) -> HopText:
        cited, _ = self.table_phrase(cand.hops[-1].node_id)
        question = cell_question(cell, cell.row_label)
        return HopText(f"According to {cited}: {question[:1].lower()}{question[1:]}", cell.answer)

    def verbalize(self, cand: Candidate) -> Draft:
        targets = [h.bridge for h in cand.hops[:-1]] + [cand.answer_entity]
        statements: list[Statement] = []
        hops: list[HopText] = []
        cell = cand.table_cell
        for i, hop in enumerate(cand.hops[:-1] if cell else cand.hops):
            st = self.hop_statement(cand, i, targets)
            if st is None:
                return Draft(cand, [], "", "", self.name, error=f"hop {i}: no statement of its evidence "
                                                                "names its target")
            question = ask(st.blanked(), self.wh(st.target))
            hops.append(HopText(f"According to {self.source_phrase(hop.node_id)}: {question}", st.surface,
                                st.text))
            statements.append(st)
        last = ""
        if cell:
            hops.append(self.table_hop(cand, cell))
            last = cell_question(cell, LETTERS[len(statements) - 1], "in " + self.table_phrase(cell.table_id)[1])
        question = self.final_question(statements, last)
        anchor = statements[0].blanked()
        return Draft(cand, hops, question, hops[-1].answer, self.name, {"verbalize": "offline-2"}, anchor=anchor)

    def final_question(self, statements: list[Statement], last: str = "") -> str:
        """Nested questions; `last` (a table cell's question about the last letter) closes them when given."""
        parts = []
        for i, st in enumerate(statements):
            text = st.blanked()
            if st.incoming_surface and i > 0:
                text = replace_once(text, st.incoming_surface, LETTERS[i - 1])
            q = ask(text, self.wh(st.target))
            if i == len(statements) - 1 and not last:
                parts.append(q)
            else:
                parts.append(f'Let {LETTERS[i]} be the answer to "{q}"')
        parts += [last] if last else []
        return ". ".join(parts[:-1]) + ". " + parts[-1] if len(parts) > 1 else parts[0]


# ---------------------------------------------------------------- LLM
_RUN_ON = re.compile(r"^[ \t]*([a-z][a-z\-]{2,})\b")
_MODIFIER_END = re.compile(r"(?:-[a-z]+|al|ic|ive|ous|ar|ary)$")
_STOP_AFTER = frozenset("a an the and or of in on at to for by with from as is are was were be been which that "
                        "this these those we our it its their can may will has have had not than then".split())


def whole_phrase(view: CorpusView, entity_id: str, text: str) -> str:
    """The answer as the evidence writes it: the entity's surface, with a run-in capitalised word cut
    ("Qwen2-72B-Instruct We"), a lowercase term that runs on completed ("cross-layer referencing")
    and a hyphenated word it starts inside made whole ("zero-shot XEL framework QuEL")."""
    name = view.entity_name.get(entity_id, entity_id)
    surface = entity_surface(view, entity_id, text)
    if surface is None:
        return name
    words = surface.split()
    if len(words) > 1 and words[-1][:1].isupper() and words[-1].lower() in _STOP_AFTER | {"we", "i", "our"}:
        surface = " ".join(words[:-1])
    start = text.find(surface)
    # A name cut out of a hyphenated word ("shot XEL framework QuEL" of "zero-shot ...", q16): whole.
    cut = re.search(r"(?<![\w-])(?:[A-Za-z0-9]+-)+$", text[:start]) if start > 0 else None
    if cut:
        surface = cut.group(0) + surface
        start = cut.start()
    end = start + len(surface)
    # Only a modifier cannot end a noun phrase ("cross-layer", "statistical"): "functions" can, so
    # "the STS and MCAS functions inoperative" keeps its name.
    modifier = bool(_MODIFIER_END.search(surface.split()[-1])) if surface.split() else False
    run_on = _RUN_ON.match(text[end:]) if end >= len(surface) and surface[-1:].islower() and modifier else None
    if run_on and run_on.group(1) not in _STOP_AFTER and not run_on.group(1).endswith("ly"):
        surface = f"{surface} {run_on.group(1)}"
    return _across_break(surface, text, view)


def _across_break(surface: str, text: str, view: CorpusView) -> str:
    """A name that a line break cut ("Paper\\n\\nPlain" read as "Plain"): the capitalised word before
    the break joins it when the two words are also written together, in this evidence on one line or
    as a name the corpus knows."""
    broken = re.search(r"\b([A-Z][\w-]*)[ \t]*\n\s*" + re.escape(surface) + r"(?!\w)", text)
    if broken is None:
        return surface
    joined = f"{broken.group(1)} {surface}"
    if joined in text or joined.lower() in {n.lower() for n in view.entity_name.values()}:
        return joined
    return surface


def hops_payload(view: CorpusView, cand: Candidate, max_chars: int = 1500) -> str:
    """The hops as the verbalize prompt sees them: evidence windows of whole sentences around the
    bridges, the sentence that identifies each bridge, and the rivals a later hop holds."""
    items = []
    construction = cand.meta.get("construction") or {}
    for i, hop in enumerate(cand.hops):
        node = view.nodes[hop.node_id]
        incoming = cand.hops[i - 1].bridge if i else ""
        keep = window_keep(view, cand, i)
        fork = cand.meta.get("fork")
        item = {
            "index": i,
            "modality": evidence_modality(node),
            "source": view.doc_title.get(node.doc_id, ""),  # the writer names it where a question leans on it
            "evidence": evidence_window(node.text, max_chars, keep),
            "bridge_to_next": view.entity_name.get(hop.bridge, "") if hop.bridge else "",
        }
        if cand.graph_type.endswith("fork"):
            item["branch"] = i
            item.update(fork_hints(fork, i, len(cand.hops)) if fork else {})
        else:
            item.update(_construction_hints(construction, i, len(cand.hops), bool(incoming), bool(hop.bridge)))
            _shown_only(item)
        cell = cand.table_cell
        if i == len(cand.hops) - 1 and cell:
            # A table hop asks for one cell: the LLM is told which, by its row and column. A string,
            # like every other target_answer: the prompt and its replies expect one.
            item["target_answer"] = figure_target(cell) if node.label == "Image" else table_target(cell, node.text)
        elif i == len(cand.hops) - 1 and cand.answer_entity:
            # The walker picked an answer entity; candidates that differ only in
            # it must not collapse into one cached question.
            item["target_answer"] = whole_phrase(view, cand.answer_entity, node.text)
        items.append(item)
    return json.dumps(items, ensure_ascii=False, indent=1)


def table_target(cell, table_text: str) -> str:
    """A table hop's target: the cell by its row and column, and the scale the table states for its
    amounts ("$748" in a table "(Dollars in Millions)" is $748 million: the writer must not drop it)."""
    scale = table_scale(table_text) if value_is_number(cell.value) and "%" not in cell.value else ""  # no "4.1 % in millions"
    where = (f'the table cell in column "{cell.row_label}", row "{cell.column_label}"' if cell.across
             else f'the table cell in row "{cell.row_label}", column "{cell.column_label}"')
    return f'{cell.answer} ({where}; the table states its amounts in {scale})' if scale else f'{cell.answer} ({where})'


def figure_target(cell) -> str:
    """A figure hop's target: the value at the bridge's label, and for a bar chart the group it stands in."""
    where = f' in "{cell.column_label}"' if measured_by_axis(cell) else ""
    return f'{cell.answer} (the value the figure prints for "{cell.row_label}"{where})'


def _shown_only(item: dict) -> None:
    """Rivals the writer is told of are those its evidence window shows: a row the window left out
    ("InferSent-GloVe" of a long table, q22) is no candidate a reader of this hop could confuse."""
    for key in ("same_kind_in_this_hop", "other_answers_in_this_hop"):
        shown = [name for name in item.get(key, []) if name.casefold() in item["evidence"].casefold()]
        if shown:
            item[key] = shown
        else:
            item.pop(key, None)


def _construction_hints(construction: dict, i: int, n_hops: int, incoming: bool, outgoing: bool) -> dict:
    """What construction.py measured, told to the writer on the hop it concerns: the words the
    bridge may be described by and those it must not be (a later hop holds them), the bridge's
    rivals in this hop, and the other answers the last hop offers (the question must not single
    the target out among them by anything but the bridge)."""
    hints = {}
    k = i  # bridge k leaves hop k; its fact's words were measured against the hops after it
    for key, field in (("describe_bridge_with", "describe_by"), ("never_use_words", "avoid_words")):
        values = construction.get(field) or []
        if outgoing and k < len(values) and values[k]:
            hints[key] = values[k][:12]
    siblings = construction.get("sibling_names") or []
    if incoming and i - 1 < len(siblings) and siblings[i - 1]:
        hints["same_kind_in_this_hop"] = siblings[i - 1]
    if i == n_hops - 1 and construction.get("answer_rival_names"):
        hints["other_answers_in_this_hop"] = construction["answer_rival_names"]
    return hints


def window_keep(view: CorpusView, cand: Candidate, i: int) -> list[str]:
    """What hop i's evidence window must show, for the writer and the verifier alike: the bridges in
    and out, the answer, a fork branch's value, and the cell the hop answers or identifies its bridge
    by (q30: the verifier's window of a table read across, centred on the bridge's name, which only
    the header holds, lost the very row that identified it)."""
    incoming = cand.hops[i - 1].bridge if i else ""
    keep = [view.entity_name.get(e, "") for e in (incoming, cand.hops[i].bridge, cand.answer_entity) if e]
    keep += [p["value"] for p in (cand.meta.get("fork") or {}).get("parts", []) if p["hop"] == i]
    return keep + _cell_words(cand, i)


def _cell_words(cand: Candidate, i: int) -> list[str]:
    """The group (column) and value of the cell hop i answers or identifies its bridge by: a figure's
    window keeps that group's sentence (figure_walk._bar_reading), a long caption naming the bridge
    first would take the window otherwise."""
    cell = cand.table_cell if i == len(cand.hops) - 1 else None
    fact = cand.meta.get("figure_fact") or cand.meta.get("table_fact") or {}
    if cell is not None:
        return [cell.column_label, cell.value]
    return [fact.get("column", ""), fact.get("value", "")] if fact.get("hop") == i else []


def evidence_modality(node, vlm: str = "image") -> str:
    """How a hop's evidence is labelled for the model: text, a vision model's description, a caption,
    or a caption with the text printed in the figure (figure_walk.figure_evidence)."""
    if node.label != "Image":
        return "text"
    if node.description_source == "vlm":
        return vlm
    return "figure caption and printed text" if node.text.startswith("Caption: ") else "image caption"
