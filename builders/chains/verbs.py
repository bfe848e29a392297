"""Verbs for statements (statements.py): where a sentence's verbs are, from spaCy's tagger.

A relation needs a verb between its two entities, and a first hop's sentence a verb outside its
blank: a noun phrase states nothing.
"""

from __future__ import annotations

import re
from typing import Callable

# texts -> per text, the (start, end) character offsets of its verbs
VerbFinder = Callable[[list[str]], list[list[tuple[int, int]]]]
FINITE_TAGS = frozenset({"VBD", "VBP", "VBZ", "MD"})  # a verb that makes a statement, not a participle


def spacy_verbs(model: str = "en_core_web_sm", agents: bool = False) -> VerbFinder:
    """Verb offsets from spaCy's tagger alone: the fine-grained tag is all we
    need, so parser, NER and the attribute ruler (which maps tags to coarse
    POS) are not even loaded. Same verbs on 985 sentences, 2.2x faster.

    `agents` (strict runs) also counts a past participle followed by "by" as a
    verb: "a 1988 film, produced by ... and directed by Mahesh Kumar", "the
    Bass Brewery, founded in 1777 by William Bass" state who did what as
    plainly as a finite verb does, and reference prose (encyclopaedias,
    filings, papers' related work) states most of its relations so. Offline
    the verbs stay as they were, so a seed gives the same demo."""
    from kg.enrich.entities import load_pipeline

    keep = frozenset({"tok2vec", "tagger"})
    nlp = load_pipeline(model, keep)
    disabled = [p for p in nlp.pipe_names if p not in keep]

    def find(texts: list[str]) -> list[list[tuple[int, int]]]:
        return [[(t.idx, t.idx + len(t.text)) for t in doc if t.tag_ in FINITE_TAGS or agents and agent_participle(t)]
                for doc in nlp.pipe(texts, disable=disabled)]

    return find


def agent_participle(token) -> bool:
    """A past participle with its agent: "directed by", "founded in 1777 by" (the "by" within three
    words, no punctuation before it: "trained, by contrast, ..." is no agent). A cited agent
    ("pretrained by Shen et al. (2022)", "proposed by [12]") is a reference, not a fact: a
    citation's author would stand in a relation and pass for a rival answer."""
    if token.tag_ != "VBN":
        return False
    for after in token.doc[token.i + 1:token.i + 4]:
        if after.lower_ == "by":
            agent = token.doc[after.i + 1:after.i + 6]  # "[12]", or a name a citation mark follows
            return not (_REFERENCE.match(agent.text)
                        or any(cited_after(" " + token.doc[k:agent.end].text) for k in range(agent.start + 1, agent.end)))
        if after.is_punct:
            return False
    return False


_REFERENCE = re.compile(r"^\W*\[")  # a numbered reference ("[12]") standing for its authors
# What follows an author's name in a citation: "et al.", "and Farber (2019)", "(2019)", ", 2019".
_CITED = re.compile(r"^\s*(?:et\s+al\b|and\s+\S+(?:\s+et\s+al\.?)?,?\s+\(?(?:19|20)\d{2}|,\s*(?:19|20)\d{2}\b"
                    r"|\(\s*(?:19|20)\d{2})")


def cited_after(after_name: str) -> bool:
    """Whether the text right after a name makes it an author in a citation (a reference, not a fact);
    statements.py asks it of a name's blank, agent_participle of a verb's agent."""
    return bool(_CITED.match(after_name))
