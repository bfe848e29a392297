"""Statements: the sentences of a hop's evidence that a question can be built on.

A hop's sub-question comes from one statement of its own evidence:

* the first hop: a whole prose sentence (6-40 words, with a verb) that names
  the hop's target entity, which the question blanks;
* a later hop: a *relation*, the shortest stretch of one sentence that names
  both the previous hop's answer and this hop's target with a verb between
  them ("<previous answer> is operated by <target>"), at most 25 words.

The walkers use the same index to choose bridges, so every sampled chain can
be verbalized: hop i+1 is entered through an entity that stands in a relation
with hop i's target inside one sentence. Verbs come from spaCy's
part-of-speech tags (the project's entity pipeline, kg.enrich.entities; verbs.py).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from builders.chains.bridges import BridgeRules, clean_text
from builders.chains.verbs import VerbFinder, cited_after
from kg.text import split_sentences
from queries.corpus_view import CorpusView

MAX_RELATION_WORDS = 25
# All between two names of one thing ("X was renamed the Y"); "X became the largest customer of Y" is two.
_SAME_THING = re.compile(r"^\s*[,(]?\s*(?:(?:which|that|who)\s+)?(?:(?:was|were|is|are|has been|had been|later|then|"
                         r"subsequently|now|also)\s+)*(?:renamed|re-named|became|becomes|known as|called|"
                         r"referred to as|formerly|a\.k\.a\.|aka|i\.e\.,?)\s+(?:as\s+)?(?:the\s+|an?\s+)?$",
                         re.IGNORECASE)
FIRST_WORDS = (6, 40)

@dataclass
class Sentence:
    text: str
    spans: dict[str, tuple[int, int]]  # entity id -> character span of its first occurrence
    verbs: list[tuple[int, int]] = field(default_factory=list)


@dataclass
class Statement:
    """A quotable piece of evidence with the hop's target in it."""

    text: str
    target: str  # entity id the hop asks for
    surface: str  # the target as written in `text` (the hop's answer)
    incoming: str = ""  # entity id of the previous hop's answer, named in `text`
    incoming_surface: str = ""

    def blanked(self, blank: str = "___") -> str:
        return replace_once(self.text, self.surface, blank)


def replace_once(text: str, surface: str, by: str) -> str:
    pattern = r"(?<!\w)" + re.escape(surface) + r"(?!\w)"
    return re.sub(pattern, lambda _: by, text, count=1, flags=re.IGNORECASE)


def find_surface(names: list[str], text: str) -> tuple[int, int] | None:
    for name in names:
        if not name:
            continue
        m = _whole_word(name).search(text)
        if m:
            return m.span()
    return None


@lru_cache(maxsize=None)
def _whole_word(name: str) -> re.Pattern:
    # Cached here: a corpus has thousands of names, more than re's own cache holds.
    return re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)", re.IGNORECASE)


class StatementIndex:
    """Per-node sentences with the entities they name, computed lazily and cached."""

    def __init__(self, view: CorpusView, rules: BridgeRules, verbs: VerbFinder | None = None,
                 list_items: bool = False):
        self.view = view
        self.list_items = list_items  # list items are sentences of their own (node_sentences; strict runs)
        self.rules = rules
        self.verbs = verbs
        self._sentences: dict[str, list[Sentence]] = {}
        self._names: dict[str, list[str]] = {}
        self._partners: dict[tuple[str, str], list[str]] = {}
        self._anchors: dict[str, list[str]] = {}
        self.rejected: Counter[str] = Counter()  # sentences not quotable, by reason (see quotable)

    def _check_verbs(self, node_id: str) -> bool:
        # Captions and image descriptions are noun phrases: no verb to require there.
        return self.verbs is not None and self.view.nodes[node_id].label != "Image"

    def names(self, entity_id: str) -> list[str]:
        cached = self._names.get(entity_id)
        if cached is None:
            view = self.view
            cached = sorted({view.entity_name.get(entity_id, entity_id), *view.entity_aliases.get(entity_id, [])},
                            key=len, reverse=True)
            self._names[entity_id] = cached
        return cached

    def sentences(self, node_id: str) -> list[Sentence]:
        cached = self._sentences.get(node_id)
        if cached is not None:
            return cached
        node = self.view.nodes[node_id]
        entities = sorted(self.view.mentions.get(node_id, ()))
        out: list[Sentence] = []
        prose = self.view.nodes[node_id].label != "Image"  # captions and image descriptions are noun phrases
        for text in node_sentences(node.text, self.list_items):
            text, why = quotable(text, prose)
            if why:
                self.rejected[why] += 1
                continue
            spans = {}
            for ent in entities:
                span = find_surface(self.names(ent), text)
                if span:
                    spans[ent] = span
            # "MCAS" inside "MCAS activation" is part of the longer name, not a mention of its own.
            spans = {e: sp for e, sp in spans.items()
                     if not any(o != e and o_sp[0] <= sp[0] and sp[1] <= o_sp[1] and o_sp != sp
                                for o, o_sp in spans.items())}
            if spans:
                out.append(Sentence(text, spans))
        if self.verbs is not None and out:
            for sentence, verbs in zip(out, self.verbs([s.text for s in out])):
                sentence.verbs = verbs
        self._sentences[node_id] = out
        return out

    # ---- statements -------------------------------------------------------
    def first_statement(self, node_id: str, target: str, avoid: set[str] = frozenset(),
                        forbid: set[str] = frozenset()) -> Statement | None:
        """A whole sentence naming `target` and nothing in `forbid`, preferring ones that name nothing in `avoid`."""
        best: tuple[int, int, Statement] | None = None
        for sentence in self.sentences(node_id):
            span = sentence.spans.get(target)
            n_words = len(sentence.text.split())
            if span is None or not FIRST_WORDS[0] <= n_words <= FIRST_WORDS[1] or not whole_name(sentence.text, span):
                continue
            if self._check_verbs(node_id) and not _verb_outside(sentence.verbs, [span]):
                continue
            if any(e in forbid for e in sentence.spans if e != target):
                continue
            clash = sum(e in avoid for e in sentence.spans if e != target)
            st = Statement(sentence.text, target, sentence.text[span[0]:span[1]])
            if self.gives_away(st):
                continue
            key = (clash, n_words)
            if best is None or key < best[:2]:
                best = (clash, n_words, st)
        return best[2] if best else None

    def relation(self, node_id: str, incoming: str, target: str) -> Statement | None:
        """The shortest stretch of one sentence naming both entities with a verb between them."""
        best: tuple[tuple[int, int], Statement] | None = None
        for sentence in self.sentences(node_id):
            a, b = sentence.spans.get(incoming), sentence.spans.get(target)
            if a is None or b is None or _overlap(a, b):
                continue
            st = self._relation_in(sentence, a, b, incoming, target, self._check_verbs(node_id),
                                  self.rules.can_bridge)
            if st is None or self.gives_away(st):
                continue
            # Fewest other entities first (each is a possible way around the hop), then shortest.
            key = (sum(1 for e in sentence.spans if e not in (incoming, target) and
                       find_surface(self.names(e), st.text)), len(st.text))
            if best is None or key < best[0]:
                best = (key, st)
        return best[1] if best else None

    def gives_away(self, st: Statement) -> bool:
        """The statement as the question shows it still names its answer ("two ___ disagree ... an
        AOA sensor failure") or the previous hop's answer it stands for ("B and Farber (2019) ... (e.g.
        Saier and Farber (2019)"): a reader could skip a hop."""
        text = st.blanked()
        if st.incoming:
            text = replace_once(text, st.incoming_surface, "A")
            if find_surface(self.names(st.incoming), text) is not None:
                return True
        return find_surface(self.names(st.target), text) is not None

    @staticmethod
    def _relation_in(sentence: Sentence, a: tuple[int, int], b: tuple[int, int],
                     incoming: str, target: str, need_verb: bool, leaky) -> Statement | None:
        """The relation's text: from the start of the clause holding both entities to the later one.

        Rejected when a verb is missing between them, or when the target runs on
        into a longer name ("Bulletin" of "Bulletin 737-27-1318"). A third
        entity in the stretch is allowed: the question then names it, and
        verification (verify.py) rejects the chain if it leads around a hop.
        """
        start, end = min(a[0], b[0]), max(a[1], b[1])
        if need_verb and not _verb_outside([v for v in sentence.verbs if start <= v[0] < end], [a, b]):
            return None
        if not whole_name(sentence.text, b) or sentence.text[max(0, a[0] - 1):a[0]] == "(" \
                or cited_after(sentence.text[a[1]:a[1] + 30]):
            # A blank that runs on, a bridge that is an acronym's definition, or one that is an author
            # in a citation ("Beltagy et al. (2019) report ..."): a reference, not a fact, whose "rivals"
            # would be other cited authors.
            return None
        # A specific third entity in the quote would be a way around the hop:
        # start the quote after it, or give up on this sentence.
        leaks = [sp[0] for e, sp in sentence.spans.items() if e not in (incoming, target) and leaky(e)]
        clause = next((c for c in _clause_starts(sentence.text, start)
                       if len(sentence.text[c:end].split()) <= MAX_RELATION_WORDS
                       and not any(c <= x < end for x in leaks)), None)
        if clause is None:
            return None
        text = sentence.text[clause:end].strip().rstrip(",;:")
        if len(text.split()) > MAX_RELATION_WORDS:
            return None
        text = text[:1].upper() + text[1:]
        return Statement(text, target, sentence.text[b[0]:b[1]], incoming, sentence.text[a[0]:a[1]])

    def same_thing(self, node_id: str, a: str, b: str) -> bool:
        """Whether a sentence of the node names a and b as one thing (a renaming, an alias): no rivals
        (q15: the Aeronautics Branch's only "rival" was its own later name, Bureau of Air Commerce)."""
        for sentence in self.sentences(node_id):
            sa, sb = sentence.spans.get(a), sentence.spans.get(b)
            if sa and sb:
                first, second = sorted((sa, sb))
                if _SAME_THING.match(sentence.text[first[1]:second[0]]):
                    return True
        return False

    def partners(self, node_id: str, incoming: str) -> list[str]:
        """Entities that stand in a relation with `incoming` in this node (sorted).

        Cached: walks ask the same (node, entity) pair again and again (1.2M
        calls for 50 chains on the demo corpus, most of generate's time)."""
        key = (node_id, incoming)
        cached = self._partners.get(key)
        if cached is None:
            cached = self._partners[key] = self._find_partners(node_id, incoming)
        return cached

    def _find_partners(self, node_id: str, incoming: str) -> list[str]:
        found = set()
        need_verb = self._check_verbs(node_id)
        for sentence in self.sentences(node_id):
            a = sentence.spans.get(incoming)
            if a is None:
                continue
            for ent, b in sentence.spans.items():
                if ent != incoming and not _overlap(a, b) and \
                        self._relation_in(sentence, a, b, incoming, ent, need_verb, self.rules.can_bridge) is not None:
                    found.add(ent)
        return sorted(found)

    def anchors(self, node_id: str) -> list[str]:
        """Entities a first hop can blank: named in a usable whole sentence (cached, as partners())."""
        cached = self._anchors.get(node_id)
        if cached is None:
            cached = self._anchors[node_id] = self._find_anchors(node_id)
        return cached

    def _find_anchors(self, node_id: str) -> list[str]:
        out = set()
        for sentence in self.sentences(node_id):
            n_words = len(sentence.text.split())
            if not FIRST_WORDS[0] <= n_words <= FIRST_WORDS[1]:
                continue
            for ent, span in sentence.spans.items():
                if not whole_name(sentence.text, span):
                    continue
                if not self._check_verbs(node_id) or _verb_outside(sentence.verbs, [span]):
                    out.add(ent)
        return sorted(out)


# A comma between digits is part of a number ("1,000"), not a clause break.
_CLAUSE_BREAK = re.compile(r"(?:^|(?:[;:(\u2014]|,(?!\d))\s*|\s-\s)")
_RUNS_ON = re.compile(r"^\s?(?:[\d\u2013\u2014-]|[A-Z][\w\-]*\b)|^\.\s?\d")
# A list item's label ("(2) Before ...", "b) The ...", "3. The ..."): not part of the sentence.
_ENUMERATOR = re.compile(r"^(?:\(\w{1,4}\)|[a-z\d]{1,3}\)|\d{1,2}\.)\s+(?=[A-Z(])")
# Footnote markers set inline in plain text, only where the digits cannot belong to a number:
# after a comma, semicolon or parenthesis that follows a word ("threshold,11 the"), or after a
# word's full stop before the next sentence ("corpus.12 The"). "84.2", "1,000", "v3.0.0",
# "Fig.3" and "0.5 to 72" never match. Superscript markers in PDFs are dropped by the reader.
_FOOTNOTE = re.compile(r"(?<=[a-z)][,;)])\d{1,2}(?=\s)|(?<=[a-z]{3}\.)\d{1,2}(?=\s+[A-Z])")
_BULLET = re.compile(r"[\u2022\u25aa\u25cf\u25e6\u25a0\u25a1\u2023\u2043\u00b7\u27a2\uf0b7]|^[-*\u2013]\s")
_SECTION_NUMBER = re.compile(r"^\d{1,3}(?:\.\d{1,3})*(?:\.\s|\s+[A-Z])|^[A-Z]\.\d")
_PANEL_LABEL = re.compile(r"^\(?[a-h]\)\s")  # "(c) Attention weights ...": a figure panel's label
# Where a list item starts: a bullet glyph anywhere (not the middle dot, which is also a product
# sign), or a markdown / plain-text marker at the start of a line.
_LIST_ITEM = re.compile(r"\s*[\u2022\u25aa\u25cf\u25e6\u25a0\u25a1\u2023\u2043\u27a2\uf0b7]\s*|(?:^|\n)[ \t]*[-*\u2013][ \t]+")
_PANEL_START = re.compile(r"(?<=[.;:])\s+(?=\(?[a-h]\)\s)")
_SENTENCE_END = re.compile(r"[.!][\"'\u201d\u2019)\]]*$")


def node_sentences(text: str, list_items: bool = False) -> list[str]:
    """A node's sentences, paragraph by paragraph: a chunk's heading ("4.1 Participants") is
    its own paragraph, never run into the first sentence; a figure panel's label after a
    sentence ("... positive. (c) Illustrates ...") starts a piece of its own.

    `list_items` (strict runs): a list item is a piece of its own, its marker taken off. A
    PDF's bullets run into one line with the sentence before them ("... visual counting. • A
    score of <5 ..."), and a markdown list is one paragraph, so every sentence of a list, and
    the one before it, was a "bullet" and unquotable (49 sentences of the bundled PDFs, 157
    of pdf3's, most of a filing's or handbook's facts). An item is then judged like any sentence:
    "• Party descriptions." is still no statement. Offline the pieces stay as they were (the demo)."""
    paragraphs = re.split(r"\n\s*\n", text or "")
    if list_items:
        paragraphs = [item for p in paragraphs for item in _LIST_ITEM.split(p) if item.strip()]
    return [sentence for paragraph in paragraphs
            for part in _PANEL_START.split(paragraph)
            for sentence in split_sentences(part, collapse_whitespace=True)]


def quotable(text: str, prose: bool = True) -> tuple[str, str]:
    """(the sentence as a statement can quote it, "") or ("", why it cannot).

    A statement is a complete prose sentence as the document prints it: list
    labels ("(2) ", "3. ") and inline footnote markers are taken off, nothing
    else is changed (numbers never). Not quotable: a bullet, a section number
    or heading run into the text, a panel label ("(c)"), a question or list of
    questions, a banner in capitals, a fragment (starts in lower case or does not end a sentence;
    `prose` False for captions, which are noun phrases), markup or furniture.
    """
    if _PANEL_LABEL.match(text.strip()):
        return "", "panel label"
    text = _ENUMERATOR.sub("", text.strip())
    text = _FOOTNOTE.sub("", text)
    if _BULLET.search(text):
        return "", "bullet"
    if _SECTION_NUMBER.match(text):
        return "", "section number"
    if "?" in text:
        return "", "question"
    words = re.findall(r"[A-Za-z]{2,}", text)
    if words and sum(w.isupper() for w in words) > 0.6 * len(words) and len(words) >= 4:
        return "", "all capitals"  # a banner or heading ("INTERNATIONAL TECHNICAL SUPPORT ..."), not prose
    if not 20 <= len(text) <= 400:
        return "", "length"
    if prose and (not text[:1].isupper() and not text[:1].isdigit() or not _SENTENCE_END.search(text)):
        return "", "fragment"
    if not clean_text(text):
        return "", "markup or furniture"
    return text, ""


def _clause_starts(text: str, before: int) -> list[int]:
    """Clause starts at or before `before`, earliest first (the sentence start first)."""
    starts = [m.end() for m in _CLAUSE_BREAK.finditer(text[:before + 1])]
    return sorted({s for s in starts if s <= before})


def whole_name(text: str, span: tuple[int, int]) -> bool:
    """The entity can be blanked: it is not the head of a longer name or code that runs on
    after it, nor half of an acronym definition ("Speed Trim System (STS)") whose other
    half would give the blank away."""
    after = text[span[1]:span[1] + 30]
    before = text[max(0, span[0] - 2):span[0]]
    return not (_RUNS_ON.match(after) or after.startswith((" (", "(")) or before.endswith("(")
                or cited_after(after))


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _verb_outside(verbs: list[tuple[int, int]], spans: list[tuple[int, int]]) -> bool:
    return any(not any(_overlap(v, s) for s in spans) for v in verbs)
