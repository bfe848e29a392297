"""Hop verification: is every hop needed, and is the question any good?

Checks (DESIGN.md, "Verification"):

* navigation: the bridge (or answer) of hop i appears in sub-question i+1;
* context utility, after MC-Search's HAVE: with hop i's evidence removed the
  main question must become unanswerable; a hop that fails is dropped (chain
  shrunk) or the chain is rejected;
* no shortcut: no single evidence item answers the main question alone;
* faithful: the answer is supported by the evidence;
* standalone: the question does not lean on context ("the figure above");
* requires content: not answerable closed-book.

Offline, "answerable" is decided by entity reachability over sentences:
start from the entities the question names, and let every evidence
sentence that names a known entity make all of its entities known (a
bridge is exactly such a shared entity). The question is answerable when
the answer entity becomes known. Removing a necessary hop cuts that path. The LLM verifier asks the same questions of a model in one
batched call per chain (kg/prompts/verify_chain.md).

A table hop (a chain ending in one cell, tables.py) is one item for
reachability, {the row's entity, the cell}; it is faithful when the value
occurs in the table's text, and the value must not occur in an earlier
hop's evidence (a reader would find it there without the table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from builders.chains.fork_walk import answer_holds
from builders.chains.necessity import is_right
from builders.chains.statements import StatementIndex
from builders.chains.windows import evidence_window
from builders.chains.tables import label_forms, names_value, normal_label, normal_text
from builders.chains.verbalize import Draft, evidence_modality, mentions_entity, window_keep
from kg.text import folded
from queries.corpus_view import CorpusView

_DEICTIC = re.compile(
    r"\b(the|this|that|these|those)\s+(figure|image|picture|table|passage|paragraph|text|excerpt|chart|diagram)"
    r"\s+(above|below|shown)\b|\b(above|below|aforementioned)\s+(figure|image|table|passage|text|context)\b"
    r"|\bthe (given|provided) (context|passage|text|image|figure|document)\b|\bas shown above\b",
    re.IGNORECASE)


@dataclass
class ChainVerdict:
    navigation: bool = True
    necessary: list[bool] = field(default_factory=list)
    no_shortcut: bool = True
    faithful: bool = True
    standalone: bool = True
    requires_content: bool = True
    single_answer: bool = True  # a serial chain asks one thing: its last hop's answer
    rewordable: bool = True  # the verifier's view: a rewrite could fix a hop not needed (repair is worth a call)
    method: str = "offline"
    reasons: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return (self.navigation and all(self.necessary) and self.no_shortcut and self.faithful
                and self.standalone and self.requires_content and self.single_answer)

    @property
    def score(self) -> float:
        """Share of checks passed, hop necessity counted per hop."""
        flags = [self.navigation, self.no_shortcut, self.faithful, self.standalone, self.requires_content,
                 self.single_answer, *self.necessary]
        return round(sum(flags) / len(flags), 4) if flags else 0.0

    def first_failure(self) -> str:
        if not self.navigation:
            return "navigation: a bridge does not carry into the next sub-question"
        if not all(self.necessary):
            return f"hop {self.necessary.index(False)} not needed (question answerable without it)"
        if not self.no_shortcut:
            return "shortcut: one evidence item answers the question alone"
        if not self.single_answer:
            return "compound question: the answer joins an earlier hop's answer (two questions, not a chain)"
        if not self.faithful:
            return "answer not supported by the evidence"
        if not self.standalone:
            return "question does not stand alone"
        if not self.requires_content:
            return "answerable without the documents"
        return ""


def joins_hop_answers(draft: Draft) -> bool:
    """A serial chain's final answer that also states an earlier hop's answer asks two things
    ("Grobid; the snippet is in §3.2"): every item is "needed" only because the question is two
    questions joined by "and". A strict reader of the question sees no chain. Forks combine their
    branches by design and are exempt."""
    if draft.candidate.graph_type.endswith("fork") or len(draft.hops) < 2:
        return False
    final, last = folded(draft.answer), folded(draft.hops[-1].answer)
    for hop in draft.hops[:-1]:
        earlier = folded(hop.answer)
        if len(earlier) >= 2 and earlier not in last and re.search(rf"(?<!\w){re.escape(earlier)}(?!\w)", final):
            return True
    return False


def is_standalone(question: str) -> bool:
    return not _DEICTIC.search(question)


def navigation_ok(view: CorpusView, draft: Draft) -> bool:
    """Hop i's bridge entity (or its answer) appears in sub-question i+1 of a serial chain."""
    cand = draft.candidate
    if cand.graph_type.endswith("fork"):
        return True  # branches are parallel; the join is checked by HAVE
    for i in range(len(cand.hops) - 1):
        hop = cand.hops[i]
        nxt = draft.hops[i + 1].sub_question
        carried = draft.hops[i].answer.lower() in nxt.lower()
        if hop.bridge_kind == "entity":
            carried = carried or mentions_entity(view, hop.bridge, nxt)
        cell = cand.table_cell
        if cell and i == len(cand.hops) - 2:  # the row label as written (footnote marks aside), punctuation aside
            carried = carried or any(normal_label(form) in normal_label(nxt) for form in label_forms(cell.row_label))
        elif hop.bridge_kind == "link":
            carried = True  # a figure reference carries the chain, not a name
        if not carried:
            return False
    return True


# ---------------------------------------------------------------- offline HAVE
def reachable(start: set[str], items: list[set[str]]) -> set[str]:
    """Entities known after following every item that shares a known entity."""
    known = set(start)
    pending = [set(i) for i in items]
    changed = True
    while changed:
        changed = False
        for item in pending:
            if item and (item & known) and not item <= known:
                known |= item
                changed = True
    return known


def answerable(question_entities: set[str], items: list[set[str]], answer: str) -> bool:
    return answer in reachable(question_entities, items)


def sentence_items(statements: StatementIndex, draft: Draft) -> list[list[set[str]]]:
    """Per hop, the entity sets of its evidence's sentences: a reader links facts sentence by sentence."""
    items = []
    cell = draft.candidate.table_cell
    for i, hop in enumerate(draft.candidate.hops):
        if cell and i == len(draft.candidate.hops) - 1:
            items.append([{draft.candidate.hops[i - 1].bridge, cell.key}] if i else [{cell.key}])
            continue
        hop_items = [set(s.spans) for s in statements.sentences(hop.node_id)]
        if i == 0 and draft.hops and draft.hops[0].statement:
            # The question quotes hop 0's statement (answer blanked): that quote
            # is an anchor only hop 0's evidence matches.
            hop_items = [ents | {"quote:0"} if folded(sent.text) == folded(draft.hops[0].statement) else ents
                         for ents, sent in zip(hop_items, statements.sentences(hop.node_id))]
        items.append(hop_items)
    return items


def one_item_holds_all(view: CorpusView, cand) -> bool:
    """cypher/audits/shortcut.cypher's rule: an evidence node before the last hop
    that mentions every bridge and the answer makes the chain one lookup."""
    needed = {h.bridge for h in cand.hops if h.bridge_kind == "entity" and h.bridge} | {cand.answer_entity}
    if len(cand.hops) < 2 or not cand.answer_entity or len(needed) < 2:
        return False
    return any(needed <= view.mentions.get(h.node_id, set()) for h in cand.hops[:-1])


def question_entities(view: CorpusView, question: str, universe: set[str]) -> set[str]:
    return {e for e in universe if mentions_entity(view, e, question)}


def offline_verify(view: CorpusView, statements: StatementIndex, draft: Draft) -> ChainVerdict:
    """Deterministic checks; hop necessity by sentence-level entity reachability."""
    cand = draft.candidate
    per_hop = sentence_items(statements, draft)
    universe = set().union(*(set().union(*h) if h else set() for h in per_hop))
    cell = cand.table_cell
    answer = cell.key if cell else cand.answer_entity
    seeds = question_entities(view, draft.question, universe) - {answer}
    if any("quote:0" in s for s in (per_hop[0] if per_hop else [])):
        seeds.add("quote:0")
    # A reader follows what the question names and what the hops answer; an
    # entity the question never leads to ("MCAS" in every sentence of a
    # report) is no route, so sentences keep only the chain's own entities.
    # Generic entities (those the bridge rules refuse: "FAA" all over an FAA
    # rule) lead a reader nowhere in particular, so they carry no shortcut either.
    seeds = {e for e in seeds if e == "quote:0" or statements.rules.can_bridge(e)}
    relevant = seeds | {h.bridge for h in cand.hops if h.bridge} | {answer}
    per_hop = [[s & relevant for s in hop] for hop in per_hop]
    v = ChainVerdict()
    v.navigation = navigation_ok(view, draft)

    def flat(hops: list[list[set[str]]]) -> list[set[str]]:
        return [s for h in hops for s in h]

    v.necessary = [not answerable(seeds, flat(per_hop[:i] + per_hop[i + 1:]), answer) for i in range(len(per_hop))]
    if not answerable(seeds, flat(per_hop), answer):
        v.reasons.append("answer not reachable from the question through the evidence")
        v.faithful = False
    v.no_shortcut = not any(answerable(seeds, h, answer) for h in per_hop) if len(per_hop) > 1 else True
    v.no_shortcut = v.no_shortcut and not one_item_holds_all(view, cand)
    v.faithful = v.faithful and all(folded(h.answer) in folded(view.nodes[n.node_id].text)
                                    for h, n in zip(draft.hops[:-1] if cell else draft.hops, cand.hops))
    v.standalone = is_standalone(draft.question)
    v.requires_content = draft.answer.lower() not in draft.question.lower()
    if cell:
        table_checks(view, draft, v)
    fork_checks(draft, v)
    return v


def fork_checks(draft: Draft, v: ChainVerdict) -> None:
    """A strict fork's final answer is the comparison computed from the two printed values (fork_walk.py)."""
    fork = draft.candidate.meta.get("fork")
    if fork and not answer_holds(fork, draft.answer):
        v.faithful = False
        v.reasons.append(f"fork answer {draft.answer!r} does not give the computed {fork['operation']} "
                         f"{fork['answer']!r}")


def table_checks(view: CorpusView, draft: Draft, v: ChainVerdict) -> None:
    """A table answer is the cell's value, found in the table and in no earlier hop's evidence."""
    cell, hops = draft.candidate.table_cell, draft.candidate.hops
    if normal_text(cell.value) not in normal_text(view.nodes[hops[-1].node_id].text):
        v.faithful = False
        v.reasons.append(f"cell value {cell.value!r} not in the table's text")
    if any(names_value(view.nodes[h.node_id].text, cell.value) for h in hops[:-1]):
        v.no_shortcut = False
        v.reasons.append(f"cell value {cell.value!r} already in an earlier hop's evidence")
    v.requires_content = v.requires_content and not names_value(draft.question, cell.value)


# ---------------------------------------------------------------- LLM verifier
def evidence_payload(view: CorpusView, draft: Draft, max_chars: int = 1500, skip: int | None = None) -> str:
    """The numbered evidence items; `skip` leaves one hop's item out (empirical necessity)."""
    lines = []
    cand = draft.candidate
    for i, hop in enumerate(cand.hops):
        if i == skip:
            continue
        node = view.nodes[hop.node_id]
        kind = evidence_modality(node, vlm="image description")
        keep = window_keep(view, cand, i)
        lines.append(f"[{i}] ({kind}) {evidence_window(node.text, max_chars, keep)}")
    return "\n".join(lines)


def llm_verification(view: CorpusView, draft: Draft, reply, answer_match: float = 0.6) -> ChainVerdict:
    """Combine the verifier's answers (ChainVerification) with the deterministic checks."""
    n = len(draft.candidate.hops)
    v = ChainVerdict(method="llm")
    v.navigation = navigation_ok(view, draft)
    without = list(reply.answerable_without)[:n]
    if len(without) < n:  # a reply that skipped hops proves nothing for them
        without += [True] * (n - len(without))
        v.reasons.append("verifier returned fewer hop verdicts than hops")
    v.necessary = [not w for w in without]
    guessed_without(draft, list(getattr(reply, "guess_without", []) or [])[:n], v, answer_match)
    v.no_shortcut = not reply.single_item_answers
    v.faithful = bool(reply.faithful)
    v.standalone = bool(reply.standalone) and is_standalone(draft.question)
    v.requires_content = not reply.closed_book_answerable
    v.single_answer = not joins_hop_answers(draft)
    v.rewordable = bool(getattr(reply, "rewording_can_fix", True))
    if getattr(reply, "reasons", ""):
        v.reasons.append(str(reply.reasons)[:300])
    fork_checks(draft, v)
    return v


def guessed_without(draft: Draft, guesses: list[str], v: ChainVerdict, answer_match: float) -> None:
    """A hop is not needed when the verifier, with that hop covered, guesses the answer anyway.

    Strict reads of accepted chains (q21-q25) found a third guessable: "the baseline with just 1
    layer" among Transformer rows is the BiLSTM to anyone in the field, and the verifier that saw
    it said the hop was needed. Asked to write the answer it would give without each item, a
    model commits to a guess; the guess is judged by the same rule as the empirical probe
    (necessity.is_right). Forks are exempt: without one branch a comparison is a coin toss."""
    if draft.candidate.graph_type.endswith("fork"):
        return
    for i, guess in enumerate(guesses):
        if i < len(v.necessary) and v.necessary[i] and guess and is_right(guess, draft.answer, answer_match):
            v.necessary[i] = False
            v.reasons.append(f"with item {i} covered the verifier still guessed {guess[:80]!r}, the answer")
