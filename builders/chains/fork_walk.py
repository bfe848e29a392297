"""Forks that ask one thing (issue 21): two branches, two values of one measure, one computed answer.

A fork whose branches state facts of different kinds ("What is X's A, and what
does figure F show about X's B?") is two questions joined by "and": a strict
reader sees no multi-hop question, however the verifier rules on each item. So
a strict run draws a fork only when its branches give *values of one kind*:

* a branch fact is a number an evidence node ties to a named subject: a prose
  sentence lists it beside the subject (values.tie_sentences), a figure prints
  it at the subject's label (figure_walk.FigureIndex), or a caption writes it
  beside the subject (`caption_facts`); a subject with two numbers in one node
  has no fact there (which one would the question mean?);
* two facts are of one kind when their values have one type and form
  (`value_kind`: a percentage, a sum of money, a decimal score, a count, a
  year) and one measure: the words that say what each number measures share a
  content word (`measure_words`: "54% of summary bigrams", "87% bigram
  overlap");
* their subjects are one entity (the question asks the difference of its two
  values) or two rivals of one kind, each value found in its own branch only
  (the question asks which is larger, or earlier for years);
* the answer is computed here from the two printed values (`comparison`) and
  handed to the writer as the target with the operation; both parts stay on the
  candidate (meta["fork"]) for provenance.

multi_image_fork: two figures' facts of one kind, plus a text hop about the
compared subject (the question describes the subject by that hop's fact).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from builders.chains.bridges import MADE_THING_LABELS
from builders.chains.candidate import Candidate, Hop
from builders.chains.fork_text import described_apart
from builders.chains.name_forms import stem
from builders.chains.statements import find_surface, node_sentences
from builders.chains.tables import measured_by_axis
from builders.chains.values import (MAX_TIE_WORDS, MEASURE_WORDS_AFTER, is_value, measure_words, number,
                                    prose_values, tie_sentences, value_kind)

# Words after a number that scale it or give its unit: two values are compared only when they carry the
# same one ("$45 billion" vs "$450 million", "5 ms" vs "2 s" are no pair). Spellings of one word share a form.
# Labels a fork's shared entity may not have alone: two branches about one country or date are two
# questions joined by "and", not one question about one thing (fork_bridge).
NOT_SHARED_ENOUGH = frozenset({"GPE", "LOC", "NORP", "DATE", "TIME"})
_SCALE_FORMS = {"k": "thousand", "thousand": "thousand", "m": "million", "mn": "million", "mio": "million",
                "million": "million", "millions": "million", "b": "billion", "bn": "billion", "billion": "billion",
                "billions": "billion", "trillion": "trillion", "tn": "trillion", "hundred": "hundred",
                "ns": "ns", "us": "µs", "µs": "µs", "μs": "µs", "ms": "ms", "msec": "ms", "millisecond": "ms",
                "milliseconds": "ms", "s": "s", "sec": "s", "secs": "s", "second": "s", "seconds": "s",
                "min": "min", "mins": "min", "minute": "min", "minutes": "min", "h": "h", "hr": "h", "hrs": "h",
                "hour": "h", "hours": "h", "day": "day", "days": "day", "week": "week", "weeks": "week",
                "month": "month", "months": "month", "year": "year", "years": "year",
                "kb": "KB", "mb": "MB", "gb": "GB", "tb": "TB", "pb": "PB", "kib": "KB", "mib": "MB", "gib": "GB",
                "bytes": "byte", "byte": "byte", "bit": "bit", "bits": "bit", "hz": "Hz", "khz": "kHz",
                "mhz": "MHz", "ghz": "GHz", "w": "W", "kw": "kW", "mw": "MW", "gw": "GW", "kwh": "kWh",
                "mwh": "MWh", "mm": "mm", "cm": "cm", "km": "km", "kg": "kg", "g": "g", "mg": "mg",
                "t": "t", "tonnes": "t", "tons": "t", "ml": "ml", "l": "l", "x": "x", "×": "x", "fps": "fps"}
# A number right after a month is a day ("dated June 12"), one right after the name a part of it
# ("Ethiopian Airlines Flight 302", "Revision 1"): neither is a value of the subject.
_MONTH_BEFORE = re.compile(r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?\s*$")
# A sentence that ranks its subject among all others ("73.7% on Aider, the highest, surpassing all other
# models", q45) answers "which is larger?" alone: the other branch's value is not needed.
_RANKS = re.compile(r"\b(?:highest|lowest|best|worst|strongest|weakest|largest|smallest|top[- ]performing|"
                    r"state[- ]of[- ]the[- ]art|(?:surpass|outperform|exceed|beat|trail|lag)\w*\s+(?:all|every|each|"
                    r"any)\b)", re.IGNORECASE)


@dataclass(frozen=True)
class BranchFact:
    """One number an evidence node ties to a subject."""

    node_id: str
    entity: str  # the subject's entity id
    subject: str  # the subject's name, as the node prints it
    value: str  # the number as printed ("54%", "$22,439", "41.2")
    measure: frozenset[str]  # stems of the words that say what the number measures
    scale: str = ""  # the scale or unit word printed after the number ("million", "ms"), "" when none
    counted: str = ""  # the noun right after the number ("100 languages", "10 times"), "" when none


# Words after a number that do not say what it counts ("61.2 on MMLU", "41.2 and 39.1").
_NOT_COUNTED = frozenset("on in at for of and or to with by from the a an than over across while vs "
                         "compared respectively".split())


def counted_after(text: str, value: str) -> str:
    """The word right after `value` in `text` when it names what the number counts, lower case."""
    at = text.find(value)
    words = text[at + len(value):].split()[:1] if at >= 0 and value else []
    word = words[0].strip(".,;:()[]").lower() if words else ""
    return word if word.isalpha() and word not in _NOT_COUNTED else ""


def scale_after(text: str, value: str) -> str:
    """The scale or unit word right after `value` in `text` (_SCALE_FORMS' form), "" when none."""
    at = text.find(value)
    words = text[at + len(value):].split()[:1] if at >= 0 and value else []
    word = words[0].strip(".,;:()[]") if words else ""
    return _SCALE_FORMS.get(word if word in ("µs", "μs", "×") else word.lower(), "")


def is_tied_value(text: str, value: str) -> bool:
    """Whether `value`, found in `text` (from the subject's name on), is a value of the subject: not a
    day after a month, not a number run into the name with nothing between ("Flight 302")."""
    at = text.find(value)
    gap = text[:at] if at >= 0 else ""
    return bool(value) and at >= 0 and not _MONTH_BEFORE.search(gap) and gap.strip() != ""


def same_measure(a: BranchFact, b: BranchFact) -> bool:
    """Two values of one type and form, with one scale or unit word (or none), said of one measure
    (a shared measure word)."""
    kind = value_kind(a.value)
    # "100 languages" and "10 times larger" share "language" in their sentences, not what they count.
    counts_apart = a.counted and b.counted and stem(a.counted) != stem(b.counted)
    return kind is not None and kind == value_kind(b.value) and a.scale == b.scale \
        and bool(a.measure & b.measure) and not counts_apart


def ranks_subject(text: str, subject: str) -> bool:
    """Whether `text` (a sentence or caption) names `subject` and ranks something among all others."""
    return find_surface([subject], text) is not None and _RANKS.search(text) is not None


def comparison(a: BranchFact, b: BranchFact, hops: tuple[int, int] = (0, 1)) -> dict | None:
    """The one thing a fork of facts `a` and `b` asks, and its answer computed from the printed values:
    one subject -> the difference of its two values; two subjects -> which is larger (years: earlier).
    None when the values are equal or unreadable (no answer tells the branches apart)."""
    x, y = number(a.value), number(b.value)
    if x is None or y is None or x == y:
        return None
    parts = [{"hop": hops[0], "subject": a.subject, "value": a.value},
             {"hop": hops[1], "subject": b.subject, "value": b.value}]
    if a.entity == b.entity:
        return {"operation": "difference", "answer": _difference(a.value, b.value, abs(x - y)), "parts": parts}
    year = (value_kind(a.value) or ("",))[0] == "DATE"
    first = (x < y) if year else (x > y)
    winner = a if first else b
    return {"operation": "earlier" if year else "larger", "answer": winner.subject, "parts": parts}


def _difference(a: str, b: str, diff: float) -> str:
    decimals = max(len(v.split(".")[1].rstrip("%")) if "." in v else 0 for v in (a, b))
    text = f"{diff:,.{decimals}f}"
    currency = (value_kind(a) or ("", ""))[1]
    if a.strip().endswith("%"):
        return f"{text} percentage points"
    return f"{currency}{text}"


def fork_bridge(view, cand: Candidate) -> str:
    """construction.py's pre-check of a fork's join: the branches of a fork that asks nothing computed
    must share one specific thing (a place or date alone joins two questions). A strict fork
    (meta["fork"]) is joined by its comparison, not by what its subjects share: exempt."""
    if not cand.graph_type.endswith("fork") or not cand.hops[0].bridge or cand.meta.get("fork"):
        return ""
    if view.entity_label.get(cand.hops[0].bridge, "") in NOT_SHARED_ENOUGH:  # both fork types share hop 0's
        return "pre-check: the fork's branches share only a place or a date"
    return ""


def answer_holds(fork: dict, answer: str) -> bool:
    """Whether a written final answer gives the comparison's computed answer (meta["fork"]): for a
    difference a number equal to it (sign aside), else the winner's name and not the other subject's."""
    if fork["operation"] == "difference":
        target = number(fork["answer"].split()[0])
        return target is not None and any(abs(abs(n) - target) < 1e-9 for n in map(number, prose_values(answer))
                                          if n is not None)
    said = " ".join(answer.casefold().split())
    names = {p["subject"] for p in fork["parts"]}
    return fork["answer"].casefold() in said and not any(n.casefold() in said for n in names - {fork["answer"]})


def operation_text(fork: dict) -> str:
    """What the final question asks, in words, for the writer (kg/prompts/verbalize_chain.md)."""
    a, b = fork["parts"]
    first = f'the value hop {a["hop"]} gives for "{a["subject"]}" ({a["value"]})'
    second = f'the value hop {b["hop"]} gives for "{b["subject"]}" ({b["value"]})'
    if fork["operation"] == "difference":
        return f"the difference between {first} and {second}"
    word = "earlier" if fork["operation"] == "earlier" else "larger"
    return f"which is {word}: {first} or {second} (the answer names the subject)"


def fork_hints(fork: dict, i: int, n_hops: int) -> dict:
    """The verbalize payload's fork keys for hop i: its branch's value, and on the last hop the one
    thing the question asks and its computed answer."""
    hints = {}
    for part in fork.get("parts", []):
        if part["hop"] == i:
            hints["branch_value"] = {"subject": part["subject"], "value": part["value"]}
    if fork.get("identifies") == i:
        hints["identifies_subject"] = "describe the compared subject by this hop's fact; never name it"
    if i == n_hops - 1:
        hints["ask_one_thing"] = operation_text(fork)
        hints["target_answer"] = fork["answer"]
    return hints


class ForkSteps:
    """A strict walker's forks (walkers.Walker's fork types ask this when `strict`)."""

    TRIES = 8

    def __init__(self, walker, figures=None):
        self.walker = walker
        self.figures = figures  # figure_walk.FigureIndex (printed label -> value rows), or None
        self._text: list[BranchFact] | None = None
        self._image: dict[str, list[BranchFact]] | None = None
        self._labels: dict[str, set[str]] | None = None  # image -> entities its printed labels name

    # ---- facts ----------------------------------------------------------
    def text_facts(self) -> list[BranchFact]:
        if self._text is None:
            self._text = [f for c in self.walker.chunks for f in self.chunk_facts(c)]
        return self._text

    def chunk_facts(self, chunk: str) -> list[BranchFact]:
        w = self.walker
        view = w.view
        if not any(is_value(e) for e in view.mentions.get(chunk, ())):
            return []
        ents = [e for e in view.mentions.get(chunk, ()) if w.rules.specific(e)]
        ties = tie_sentences(w.statements, chunk, ents)
        counts: dict[str, int] = {}
        for e, _v, _t in ties:
            counts[e] = counts.get(e, 0) + 1
        return [BranchFact(chunk, e, view.entity_name.get(e, e), view.entity_name.get(v, ""),
                           measure_words(text, view.entity_name.get(e, "")),
                           scale_after(text, view.entity_name.get(v, "")),
                           counted_after(text, view.entity_name.get(v, "")))
                for e, v, text in ties if counts[e] == 1 and is_tied_value(text, view.entity_name.get(v, ""))]

    def image_facts(self) -> dict[str, list[BranchFact]]:
        if self._image is None:
            self._image = {}
            for image in self.walker.images:
                facts = self.figure_facts(image) + caption_facts(self.walker, image)
                once = {}
                for f in facts:  # a subject with two numbers of one measure here has none: which would it mean?
                    key = (f.entity, f.measure)
                    once[key] = None if key in once else f
                kept = [f for f in once.values() if f is not None]
                if kept:
                    self._image[image] = kept
        return self._image

    def figure_facts(self, image: str) -> list[BranchFact]:
        if self.figures is None:
            return []
        caption = self.walker.view.nodes[image].caption
        out = []
        for ent, rows in self.figures.rows_of_entity.items():
            for img, row in rows:
                for cell in self.figures.cells.get((img, row), []) if img == image else []:
                    # A bar chart's group label says what its value measures; a lone value, the caption.
                    said = cell.column_label if measured_by_axis(cell) else caption
                    out.append(BranchFact(image, ent, cell.row_label, cell.answer, measure_words(said, cell.row_label),
                                          scale_after(f"{cell.value} {cell.unit}", cell.value)))
        return out

    # ---- pairs ----------------------------------------------------------
    def pair_ok(self, a: BranchFact, b: BranchFact) -> bool:
        """One subject, or two rivals of one kind each of whose values only its own branch states."""
        w = self.walker
        if not same_measure(a, b) or a.node_id == b.node_id or number(a.value) is None or number(b.value) is None:
            return False  # no readable number: no comparison to compute
        if a.entity == b.entity:
            return True
        if w.view.nodes[a.node_id].doc_id != w.view.nodes[b.node_id].doc_id:
            # Two subjects of two documents compare nothing one reader would ask about: a research
            # agent's benchmark score and a WLM service class's performance index (q32), a figure's
            # tick and another paper's masking rate (q25). Rivals come from one document.
            return False
        labels = {w.view.entity_label.get(a.entity), w.view.entity_label.get(b.entity)}
        kind_ok = (w.construction.same_kind(a.entity, b.entity) if w.construction is not None else len(labels) == 1) \
            or labels <= MADE_THING_LABELS  # one measure already holds (same_measure, above)
        return kind_ok and not w.names_overlap(a.entity, {b.entity}) \
            and not self._names(a.node_id, b.entity) and not self._names(b.node_id, a.entity)

    def _states(self, node_id: str, entity: str) -> bool:
        """Whether `node_id` ties a number to `entity` (a hop that identifies a subject must not give its value)."""
        facts = self.image_facts().get(node_id, []) if self.walker.view.nodes[node_id].label == "Image" \
            else self.chunk_facts(node_id)
        return any(f.entity == entity for f in facts)

    def _ranks(self, fact: BranchFact) -> bool:
        """Whether the branch's node ranks the fact's subject among all others (a figure: in its caption)."""
        node = self.walker.view.nodes[fact.node_id]
        if node.label == "Image":
            return ranks_subject(node.caption or "", fact.subject)
        return any(ranks_subject(s, fact.subject) for s in node_sentences(node.text))  # quotable or not: it is evidence

    def _label_entities(self, image: str) -> set[str]:
        """The entities a figure's printed labels name (its rows), indexed once per walker."""
        if self._labels is None:
            self._labels = {}
            for ent, rows in (self.figures.rows_of_entity.items() if self.figures else ()):
                for img, _row in rows:
                    self._labels.setdefault(img, set()).add(ent)
        return self._labels.get(image, set())

    def _names(self, node_id: str, entity: str) -> bool:
        """Whether `node_id` names `entity` (or a name sharing its words) at all: it may tie a number to it
        or compare the two ("79.8% on AIME 2024, slightly surpassing OpenAI-o1-1217"), and answer alone."""
        w = self.walker
        node = w.view.nodes[node_id]
        if node.label == "Image":  # what the figure prints, not the page text around it that ingest linked
            printed = f"{node.caption}\n{node.visible_text}"
            return find_surface([w.view.entity_name.get(entity, entity)], printed) is not None \
                or any(e == entity or w.names_overlap(e, {entity}) for e in self._label_entities(node_id))
        return any(e == entity or w.names_overlap(e, {entity}) for e in w.view.mentions.get(node_id, ()))

    def parallel(self) -> Candidate | None:
        """parallel_visual_textual_fork: a figure's value and a text's value of one measure."""
        w = self.walker
        images = sorted(self.image_facts())
        if not images:
            w.died("fork: no figure ties a number to a named subject")
            return None
        for _ in range(self.TRIES):
            image = w.rng.choice(images)
            a = w.rng.choice(self.image_facts()[image])
            options = [b for b in self.text_facts() if w.memory.fresh(b.node_id) and self.pair_ok(a, b)
                       and w.compatible(b.node_id, [image])]
            if not options:
                w.died("fork: no text value of the figure value's kind and measure")
                continue
            b = w.rng.choice(options)
            fork = comparison(a, b)
            if fork is None:
                w.died("fork: the two values are equal")
                continue
            if fork["operation"] != "difference" and (self._ranks(a) or self._ranks(b)):
                w.died("fork: a branch ranks its subject among all others; it answers alone")
                continue
            hops = [Hop(image, "Image", a.entity, "entity"), Hop(b.node_id, "Chunk", b.entity, "entity")]
            return Candidate("parallel_visual_textual_fork", hops, [(0, 2), (1, 2)], "", {"fork": fork})
        return None

    def multi_image(self) -> Candidate | None:
        """multi_image_fork: two figures' values of one measure, and a text hop about the subject."""
        w = self.walker
        facts = [f for fs in self.image_facts().values() for f in fs]
        pairs = [(a, b) for a in facts for b in facts if a.node_id < b.node_id and self.pair_ok(a, b)]
        if not pairs:
            w.died("fork: no two figures tie numbers of one measure to one subject or two rivals")
            return None
        for _ in range(self.TRIES):
            a, b = w.rng.choice(pairs)
            fork = comparison(a, b)
            texts = [c for c in w.chunks_entered_by(a.entity) if w.memory.fresh(c)
                     and w.compatible(c, [a.node_id, b.node_id]) and not self._states(c, a.entity)
                     and not self._states(c, b.entity) and described_apart(w.view, w.statements, c, a.entity,
                                                                           [a.node_id, b.node_id])]
            if fork is not None and fork["operation"] != "difference" and (self._ranks(a) or self._ranks(b)):
                w.died("fork: a branch ranks its subject among all others; it answers alone")
                continue
            if fork is None or not texts:
                w.died("fork: no text hop about the compared subject that states neither value")
                continue
            fork["identifies"] = 2
            hops = [Hop(a.node_id, "Image", a.entity, "entity"), Hop(b.node_id, "Image", b.entity, "entity"),
                    Hop(w.rng.choice(texts), "Chunk")]
            return Candidate("multi_image_fork", hops, [(0, 3), (1, 3), (2, 3)], "",
                             {"fork": fork, "shared_entity": a.entity})
        return None


def caption_facts(walker, image: str) -> list[BranchFact]:
    """Numbers an image's caption writes beside a subject it names ("LongT5 / BigBird were highly
    extractive (87% / 74% ...)" is two subjects, one gap each): the first value within MAX_TIE_WORDS
    words after the subject's name, with no other named subject between them. Years are no values."""
    view = walker.view
    caption = view.nodes[image].caption or ""
    if not caption:
        return []
    ents = [e for e in sorted(view.mentions.get(image, ())) if walker.rules.specific(e)]
    spans = {e: find_surface(walker.statements.names(e), caption) for e in ents}
    spans = {e: s for e, s in spans.items() if s is not None}
    out = []
    for e, (start, end) in spans.items():
        stop = min((s[0] for o, s in spans.items() if o != e and s[0] >= end), default=len(caption))
        gap = caption[end:stop]
        words = gap.split()[:MAX_TIE_WORDS]
        window = " ".join(words)
        values = [v for v in prose_values(window) if value_kind(v) and value_kind(v)[0] != "DATE"
                  and is_tied_value(gap, v)]
        if not values:
            continue
        at = window.find(values[0]) + len(values[0])
        measure = window[:at].split() + window[at:].split()[:MEASURE_WORDS_AFTER]
        name = caption[start:end]
        out.append(BranchFact(image, e, name, values[0], measure_words(" ".join(measure), name),
                              scale_after(window, values[0]), counted_after(window, values[0])))
    return out
