"""Which corpus units a system's returned contexts are, and which units answer a hop.

A RAG app returns passages, not our ids. A context is the unit it names by id
(a chunk or image id of the graph), or else the unit whose text it matches:
at least MATCH_SHARE of the shorter one's distinct words occur in the longer
one (the app may chunk differently: a context may be part of a unit or hold
one). Only the record's gold units and their alternates are compared, so
matching costs a few set operations per context.

Unique gold ("any answering unit"): a hop's gold evidence is not always the
only unit that answers its sub-question. Offline, at eval time, another unit
counts as answering the hop when its text holds the hop's answer (whole
words, normalised) together with its relation: at least RELATION_SHARE of the
sub-question's content words. Retrieval metrics report this under their own
name (`..._any_answering`) beside the gold-only figure.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evaluate.corpus import EvidenceCorpus
from evaluate.records import EvalHop, EvalRecord
from evaluate.textmatch import normalise

MATCH_SHARE = 0.8  # hopgraph's choice: a context that shares 80% of its words with a unit is that unit
MIN_MATCH_WORDS = 5  # a shorter context is too short to identify a unit by its words
RELATION_SHARE = 0.5  # hopgraph's choice: half the sub-question's content words beside the answer
_STOP = frozenset("what which who whom whose when where why how is are was were does did do the of in on at to for "
                  "and or by with from that this these those its it as be been has have had an a into than".split())


@lru_cache(maxsize=200_000)
def _words(text: str) -> frozenset[str]:
    return frozenset(normalise(text).split())


def _same_unit(context: str, unit_text: str) -> bool:
    a, b = _words(context), _words(unit_text)
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    if len(short) < MIN_MATCH_WORDS:
        return False
    return len(short & long_) / len(short) >= MATCH_SHARE


def matched_units(context_id: str | None, context_text: str, candidates: list[str], corpus: EvidenceCorpus) -> set[str]:
    """The candidate units this context is: by id first, else by its words."""
    if context_id:
        unit = corpus.keypoint_source.get(context_id, context_id)
        if unit in candidates:
            return {unit}
        if unit in corpus.position:
            return set()  # a named unit that is not a candidate is that unit, not a gold one
    return {u for u in candidates if u in corpus.position and _same_unit(context_text,
                                                                         corpus.texts[corpus.position[u]])}


def _content_words(text: str) -> set[str]:
    return {w for w in normalise(text).split() if w not in _STOP and len(w) > 2}


def answering_units(hop: EvalHop, corpus: EvidenceCorpus) -> list[str]:
    """Units other than the hop's gold that hold its answer together with its relation (see module doc)."""
    answer = normalise(hop.answer)
    relation = _content_words(hop.subquestion) - set(answer.split())
    if not answer or not relation:
        return []
    pattern = re.compile(rf"(?:^| ){re.escape(answer)}(?: |$)")
    found = []
    for unit, text in zip(corpus.ids, corpus.texts):
        if unit in hop.gold_ids:
            continue
        plain = normalise(text)
        if pattern.search(plain) and len(relation & set(plain.split())) / len(relation) >= RELATION_SHARE:
            found.append(unit)
    return found


def answer_forms(record: EvalRecord, corpus: EvidenceCorpus) -> list[str]:
    """The gold answer, the record's own aliases, and the graph's names of the entity it is."""
    forms = [record.answer, *record.aliases]
    forms += corpus.entity_names.get(normalise(record.answer), [])
    return list(dict.fromkeys(f for f in forms if normalise(f)))
