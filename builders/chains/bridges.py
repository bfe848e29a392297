"""Which evidence may carry a chain, and which entities may bridge or answer.

Rules (issue 12, items 1-2), applied by the walkers before a chain exists:

* Evidence: only chunks whose section `role` is in [generate] evidence_roles
  (body and appendix by default; a chunk without a role counts as body),
  never table or caption chunks as text hops, and never a chunk that reads
  like a table of contents (dot leaders) or a bibliography (citation lines).
* A sentence is usable as a statement only if it is prose: no dot leaders,
  markdown table syntax, URLs, e-mails, citation ids or typesetting codes.
* An entity is *specific* when it is a proper name or a multi-word domain
  term: not a bare number, date, URL, e-mail, citation id or table fragment,
  and not a common English word (wordfreq's Zipf frequency) standing alone.
  Bridges must also be rare: mentioned in at most `max_doc_share` of the
  chunks of any one larger document (the report's own subject, "HPC" in an
  HPC report, links everything and therefore nothing) and in at most
  `max_df_share` of the documents of a larger corpus (IDF cap).
* A single-word name the corpus also writes in lower case, as a word of its prose,
  is a common noun here ("Transformer" / "transformer layers", "Dataset",
  "Airspace"): no bridge. People's and places' names (found
  lower case in e-mail addresses) and names with inner capitals ("ZeRO" is not
  "zero", "LLaMA") are exempt.
* A cross-document bridge needs the same thing on both sides: the entity is
  the same normalised name by construction; its type must agree too, so a
  bare common-word term ("Financial Data") never links two documents.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from functools import lru_cache

from queries.corpus_view import CorpusView

NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "PRODUCT", "EVENT",
                         "WORK_OF_ART", "LAW", "LANGUAGE"})
_PLACE_OR_PERSON = frozenset({"PERSON", "GPE", "LOC", "FAC"})
# spaCy's small model tags one system or model name ORG in one sentence and PRODUCT in the next
# ("DeepSeek-V3", "OpenAI-o1-mini"): two of these with a value of one measure are things of one kind.
MADE_THING_LABELS = frozenset({"ORG", "PRODUCT", "WORK_OF_ART"})
NUMERIC_LABELS = frozenset({"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "MONEY", "PERCENT"})
COMMON_WORD_ZIPF = 4.0  # "user" 4.7, "node" 3.9, "vendors" 3.8, "optimizer" 2.3 (wordfreq, English)
COMMON_NAME_ZIPF = 4.5  # a capitalised single proper name may be an ordinary word ("Security")
COMMON_ACRONYM_ZIPF = 4.1  # an all-caps English word: USER 4.7, END 5.7, PROPOSALS 4.2 (IBM 3.9 passes)

_URL = re.compile(r"https?://|www\.|\.(com|org|gov|net|edu|html?|pdf)\b|@\w+\.\w", re.IGNORECASE)
_CITATION = re.compile(r"\[\d+(?:[,\u2013-]\s*\d+)*\]|\babs/\d|\barXiv\b|\bdoi\b|\d{4}\.\d{4,5}", re.IGNORECASE)
_MARKUP = re.compile(r"[|*#<>{}=_~`\\]|\]\(|</?\w+>")
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}|(?:…\s?){2,}|_{4,}")
# Typesetting and tracking codes: DSKJLSW7X2PROD, EP06AU20.016, "VerDate", "Jkt 250001".
_TRACKING = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{10,}\b|\b[A-Z]{2}\d{2}[A-Z]{2}\d{2}\.\d{3}\b"
                       r"|\bVerDate\b|\bJkt\s\d+|\bPO\s\d{5}\b|\bFrm\s\d+|\bFmt\s\d+|\bSfmt\s\d+")
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")
_NUMERICISH = re.compile(r"^[\d\s.,:;/%$€£+\-()#§]+[A-Za-z]{0,3}$")
_REFERENCE_LINE = re.compile(r"^\s*(\[\d+\]|\d+\.\s+[A-Z][a-z]+,\s+[A-Z]\.)")
# A page-bottom footnote glued into a sentence by the PDF's reading order:
# "how authors tend to view their 20Used to determine PDF page number".
_FOOTNOTE_RUN_IN = re.compile(r"[a-z,]\s\d{1,3}[A-Z][a-z]+\s")
_ADVERB = re.compile(r"(?:ically|nally|tively|ately|ously|fully|ently|antly|ingly|ssly)$")
# A word as prose writes it: not inside a path, URL, e-mail or file name, nor the part of a
# hyphenated id ("bert-base-uncased" is no use of "bert").
_PROSE_WORD = re.compile(r"(?<![\w/.@-])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)(?![\w/@]|-\w|\.\w)")
LOWERCASE_SHARE = 0.25  # lower-case uses per use of the name that make it a common noun (at least 2)
# "Zhang et al." with no year names an author group, not a work: q37 bridged a 2018 GNN citation to
# the 2006 Zhang et al. row of a results table. With its year ("Zhang et al. (2006)") it names one work.
_AUTHOR_GROUP = re.compile(r"\bet\.?\s+al\b[.,;:]*\s*$", re.IGNORECASE)
_YEAR = re.compile(r"\((?:19|20)\d{2}[a-z]?\)|\b(?:19|20)\d{2}[a-z]?\b")


@lru_cache(maxsize=65536)
def zipf(word: str) -> float:
    """wordfreq's Zipf frequency; NFKC first, so a PDF's ligature ("Speciﬁcally") is the word it spells."""
    from wordfreq import zipf_frequency

    return zipf_frequency(unicodedata.normalize("NFKC", word).lower(), "en")


def clean_text(text: str) -> bool:
    """Prose a reader can quote: no furniture, markup, links, citation ids or a footnote run into it."""
    return not (_DOT_LEADER.search(text) or _MARKUP.search(text) or _URL.search(text)
                or _CITATION.search(text) or _TRACKING.search(text) or _FOOTNOTE_RUN_IN.search(text))


def specific_name(name: str, label: str) -> bool:
    """A proper name or a multi-word domain term; never a number, link, citation or table cell."""
    name = name.strip()
    if not name or len(name) > 60 or label in NUMERIC_LABELS or not clean_text(name):
        return False
    if _NUMERICISH.match(name) or _YEAR.fullmatch(name) or _AUTHOR_GROUP.search(name):
        return False
    words = name.split()
    if len(words) > 6 or not _WORD.search(name):
        return False
    if len(words) == 1:
        return _specific_word(name, label)
    alpha = [w for w in words if _WORD.fullmatch(w)]
    if len(alpha) < len(words) / 2:  # mostly numbers or symbols: a table fragment
        return False
    words = [w for w in words if not _NUMERICISH.match(w)] or words  # "Bulletin 737-27-1318"
    if len(words) == 1:  # "CA 90740-5600" is a code after a word, not a name
        return _specific_word(words[0], label)
    capitals = sum(w[:1].isupper() for w in words)
    if label in NAME_LABELS and capitals >= 2 and (capitals >= 3 or label in _PLACE_OR_PERSON):
        return True
    # A term: at least one word that is not everyday English ("Ki67 assay",
    # "security tool vendors" fails, "Financial Data" fails).
    return any(zipf(w.strip("()-,.")) < COMMON_WORD_ZIPF or _has_code(w) for w in words)


def _has_code(word: str) -> bool:
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


# The words a document points at its own parts with ("Sec. 3", "Eq. 2", "Fig. 4"): spaCy may tag them ORG.
REFERENCE_LABELS = frozenset("sec sect section fig figs figure eq eqs equation tab table app appendix ch chap "
                             "chapter vol no alg algorithm def thm lemma ref refs".split())


def _specific_word(word: str, label: str) -> bool:
    core = word.strip("()-,.'")
    if not core or not any(c.isalpha() for c in core) or core.lower() in REFERENCE_LABELS:
        return False
    if _has_code(core) or (any(c.isupper() for c in core[1:]) and any(c.islower() for c in core)):
        return True  # Ki67, BRCA1, PyTorch, iSCSI
    if core.isupper():
        return len(core) >= 2 and zipf(core) < COMMON_ACRONYM_ZIPF
    if core[:1].isupper():
        if _ADVERB.search(unicodedata.normalize("NFKC", core).lower()) and zipf(core) >= 3.0:
            return False  # a sentence-opening adverb spaCy took for a name ("Specifically", "Additionally")
        limit = 5.5 if label in _PLACE_OR_PERSON else COMMON_NAME_ZIPF  # Washington 5.1, Security 5.2 (ORG)
        return label in NAME_LABELS and zipf(core) < limit
    return zipf(core) < 2.0  # a rare lowercase word ("apptainer")


class BridgeRules:
    """Specificity and frequency caps for one corpus view, computed once."""

    def __init__(self, view: CorpusView, evidence_roles: tuple[str, ...] = ("body", "appendix"),
                 max_doc_share: float = 0.3, max_df_share: float = 0.1):
        self.view = view
        self.evidence_roles = frozenset(evidence_roles)
        chunks_of_doc = Counter(view.nodes[c].doc_id for c in view.chunk_ids)
        self.n_docs = max(1, len(chunks_of_doc))
        self.doc_frequency: dict[str, int] = {}
        too_spread: set[str] = set()
        for ent, nodes in view.mentioned_by.items():
            per_doc: Counter = Counter(view.nodes[n].doc_id for n in nodes
                                       if n in view.nodes and view.nodes[n].label == "Chunk")
            self.doc_frequency[ent] = len({view.nodes[n].doc_id for n in nodes if n in view.nodes})
            for doc, n in per_doc.items():
                if chunks_of_doc[doc] >= 10 and n > max_doc_share * chunks_of_doc[doc]:
                    too_spread.add(ent)
        self.too_spread = too_spread
        # The IDF cap only bites on corpora large enough for a share to mean anything.
        self.max_df = max(3, math.ceil(max_df_share * self.n_docs)) if self.n_docs >= 20 else self.n_docs
        self._specific: dict[str, bool] = {}
        self._prose_words: Counter | None = None
        self._common: dict[str, bool] = {}

    def common_noun_here(self, entity_id: str) -> bool:
        """A single-word name this corpus also writes in lower case as a word of its prose, at
        least twice and at least LOWERCASE_SHARE as often as the name itself: what it names is
        a kind of thing here, not one thing (the issue's "Transformer" joining an LLM report to a
        PDF toolkit's paper). q15's "RWY" (an abbreviation of "runway") is written lower case once
        among 11 uses: not caught."""
        name = self.view.entity_name.get(entity_id, entity_id).strip()
        if len(name.split()) != 1 or name == name.lower() or self.view.entity_label.get(entity_id) in \
                _PLACE_OR_PERSON | {"NORP"}:
            return False
        if any(c.isupper() for c in name[1:]) and any(c.islower() for c in name):
            return False  # ZeRO, LLaMA, PyTorch: the lower-case word is another word
        if self._prose_words is None:
            # Evidence prose only: a bibliography writes titles lower case ("... with bert and graph").
            self._prose_words = Counter(w for c in self.view.chunk_ids if self.evidence_ok(c)
                                        for w in _PROSE_WORD.findall(self.view.nodes[c].text or ""))
        lower = self._prose_words[name.lower()]
        return lower >= 2 and lower >= LOWERCASE_SHARE * self._prose_words[name]

    def specific(self, entity_id: str) -> bool:
        cached = self._specific.get(entity_id)
        if cached is None:
            name = self.view.entity_name.get(entity_id, entity_id)
            cached = specific_name(name, self.view.entity_label.get(entity_id, ""))
            self._specific[entity_id] = cached
        return cached

    def can_bridge(self, entity_id: str) -> bool:
        return (self.specific(entity_id) and entity_id not in self.too_spread
                and self.doc_frequency.get(entity_id, 0) <= self.max_df and not self._common_noun(entity_id))

    def _common_noun(self, entity_id: str) -> bool:
        cached = self._common.get(entity_id)
        if cached is None:
            cached = self._common[entity_id] = self.common_noun_here(entity_id)
        return cached

    def can_answer(self, entity_id: str) -> bool:
        return self.specific(entity_id)

    def cross_document_ok(self, entity_id: str) -> bool:
        """Two documents are linked only by a name, or by a term that is no everyday phrase."""
        label = self.view.entity_label.get(entity_id, "")
        name = self.view.entity_name.get(entity_id, entity_id)
        if label in NAME_LABELS:
            return True
        return any(_has_code(w) or zipf(w) < 3.0 for w in name.split())

    def evidence_ok(self, node_id: str) -> bool:
        """Whether a node may serve as a hop's evidence at all."""
        node = self.view.nodes[node_id]
        if node.label == "Image":
            return True
        if (node.role or "body") not in self.evidence_roles or node.kind in ("table", "caption"):
            return False
        return not looks_like_furniture(node.text)


def looks_like_furniture(text: str) -> bool:
    """Contents pages (dot leaders) and bibliographies (citation lines), for chunks without a role."""
    lines = [ln for ln in text.splitlines() if ln.strip()] or [text]
    leaders = sum(bool(_DOT_LEADER.search(ln)) for ln in lines)
    if leaders >= 2 or (leaders and len(lines) <= 2):
        return True
    citations = len(_CITATION.findall(text)) + sum(bool(_REFERENCE_LINE.match(ln)) for ln in lines)
    years = len(_YEAR.findall(text))
    words = max(1, len(text.split()))
    return citations >= 3 and (citations + years) * 12 > words


def entity_doc_spread(view: CorpusView) -> dict[str, int]:
    """Document frequency of every entity (for stats)."""
    docs: dict[str, set[str]] = defaultdict(set)
    for ent, nodes in view.mentioned_by.items():
        for n in nodes:
            if n in view.nodes:
                docs[ent].add(view.nodes[n].doc_id)
    return {e: len(d) for e, d in docs.items()}
