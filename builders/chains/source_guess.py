"""Bridges a reader guesses from the source alone: the question names its document ("in the Kimi k1.5
report"), so a bridge that is that document's own subject or method needs no hop to be found.

construction.ChainConstruction.check drops such a candidate before any LLM call. The rules were
read off strict-model verdicts: "the method the paper proposes" picked out of CoT and CoT+SC
(q12, HiAR-ICL), "Kimi k1.5 long-CoT" among four rival models in the Kimi k1.5 report, and "the
model DeepSeek-R1 substantially outperforms" taken for its base DeepSeek-V3 (q43).
"""

from __future__ import annotations

import re

from builders.chains.fact_words import title_names
from builders.chains.tables import normal_label
from builders.chains.verbalize import mentions_entity

# A sentence presenting its subject as the authors' own ("we propose X", "this paper introduces X",
# "we have implemented ... to create CODE-QWEN-CHAT", "our framework"): the question then asks about
# "the method the paper proposes" or "the model the report's authors created".
_PRESENTING = (r"\b(?:we|this (?:paper|work|study|report))\b[^.;]{0,140}?"
               r"\b(?:propos|introduc|present(?!\w*\s+(?:the\s+)?(?:results|experiments))|develop|buil[dt]"
               r"|creat|design|releas)\w*")
# Up to three describing words between "our" and the kind: "our previous strongest reasoning model,
# QwQ-32B" (q20), but not "our experiments use the model": no article, preposition or "use" among them.
_OUR_WORDS = r"\bour (?:(?!(?:the|a|an|with|on|in|of|to|for|and|use[sd]?|using)\b)[\w-]+ ){0,3}?"
_PRESENTED = re.compile(_PRESENTING, re.IGNORECASE)
_ASIDE = re.compile(r"\([^()]{0,20}\)")
_KIND_NAMES = r"system|framework|method|model|approach|architecture|scheme|algorithm|technique|pipeline|network"
_KINDS = r"(?:" + _KIND_NAMES + r")s?"
_AUTHORS_OWN = re.compile(_PRESENTING + r"|" + _OUR_WORDS + r"(?:" + _KIND_NAMES + r"|paradigm)s?\b", re.IGNORECASE)
_NAMED_KIND = re.compile(r"\b" + _KINDS + r"\s*,\s*", re.IGNORECASE)  # "a new XEL system, QuEL"
# "a new XEL system": a qualifier, no name; but "the QuEL system" names one (the article makes it this one).
_KIND_WORD = re.compile(r"(?<!the )(?<!The )\b\S+\s+" + _KINDS + r"\b", re.IGNORECASE)
# What the presenting verb is about ends at a clause break or at a word relating it to something
# else ("we build upon LLaMA2", "we develop ... compared with GPT-3"): a name after it is no own work.
_OBJECT_ENDS = re.compile(r"[,.;:]\s|\b(?:upon|on|with|from|using|over|than|to|against|by|for|following|like|"
                          r"unlike|after|of|in)\b", re.IGNORECASE)


def presented_as_own(statement: str) -> bool:
    """The identifying sentence presents the bridge as the authors' own."""
    return bool(_AUTHORS_OWN.search(statement or ""))


def named_by_title(bridge_name: str, rivals: list[str], titles: set[str]) -> bool:
    """The bridge is the document's own subject or one of its variants (its title names it,
    title_names): told the source, a reader picks it without the hop (q16: "the model that leads the
    OpenCompass leaderboard" in the report titled "Orion-14B: ...", among GPT-4, Yi-34B and its own
    variant Orion-14B-Exam). Among several of the title's variants the paper's words pick one as well
    (q46b: "the distilled prover" is DeepSeek-Prover-V2-7B, "the resulting model" that "establishes
    a new state of the art" its 671B, among the chart's bars)."""
    return bool(rivals) and title_names(bridge_name, titles)


def _whole_in_title(name: str, titles: set[str]) -> bool:
    name = name.strip()
    whole = re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", re.IGNORECASE)
    return bool(name) and any(whole.search(title) for title in titles)


# A sentence comparing two things: "outperforms", "comparable to", "on par with", "lags behind".
_COMPARED = re.compile(r"\b(?:outperform\w*|surpass\w*|exceed\w*|beat(?:s|ing)?|comparable|on par|rival(?:s|ling)?|"
                       r"trail(?:s|ing)?|lag(?:s|ging)? behind|superior to|inferior to|(?:better|worse) than)\b",
                       re.IGNORECASE)


OWN_WINDOW = 60  # characters after "we propose" in which a name is the thing proposed
MAX_VARIANT_WORDS = 2  # words after an own name for a name to be a checkpoint of it ("-Base", "-Chat-V2")
# "we present a joint model called Knowledge Powered ... (KPCNN)": the name starts after "called".
_CALLED = re.compile(r"^\s*(?:(?:a|an|the)\s+)?(?:[\w-]+\s+){0,4}?(?:called|named|dubbed|termed|coined)\s+",
                     re.IGNORECASE)
_NAME_RUN = re.compile(r"(?:[A-Z0-9][\w.+-]*\s*)*")  # capitalised words: "Gulf Net" of "Gulf Net outperforms"
# "our model KPCNN significantly outperforms ...": the authors' own, named right after.
_OURS_NAMED = re.compile(_OUR_WORDS + r"(?:" + _KIND_NAMES + r")s?\s*,?\s+", re.IGNORECASE)


def authors_own(view) -> dict[str, set[str]]:
    """Per document, the entities its prose presents as the authors' own ("Driven by these
    limitations, we propose and analyze (Sec. 4) QuEL CG, an improved ..."): named within
    OWN_WINDOW characters after a presenting verb, before any clause break or preposition. Told the source, a
    reader guesses "the approach the paper proposes" whichever hop the sentence is in (q16: the
    caption said "existing approaches (excluding QuEL CG)" and the paper's own method answered)."""
    own: dict[str, set[str]] = {}
    for node_id, node in view.nodes.items():
        if node.label != "Chunk" or node.kind == "table" or node.role not in ("body", ""):
            continue
        for match in [*_PRESENTED.finditer(node.text), *_OURS_NAMED.finditer(node.text)]:
            after = node.text[match.end(): match.end() + OWN_WINDOW + 80]
            windows = _windows(after, match.re is _OURS_NAMED)
            named = {e for e in view.mentions.get(node_id, ()) if any(mentions_entity(view, e, w) for w in windows)}
            own.setdefault(node.doc_id, set()).update(named | _short_forms(view, node_id, after, named))
    return own


def _windows(after: str, name_only: bool) -> list[str]:
    """Where the thing proposed is named in the text after a presenting phrase. A short parenthesis is
    an aside ("we propose and analyze (Sec. 4) QuEL CG") or the name's short form ("Pattern-Exploiting
    Training (PET)"): read with and without it. After "called" the words are a name, kind words and all
    ("... Convolutional Neural Network"); after "our model" only the capitalised words that follow."""
    called = _CALLED.match(after)
    if name_only:
        return [_NAME_RUN.match(after).group(0)]
    if called:
        rest = after[called.end():]
        return [_clause(rest[:OWN_WINDOW + 20]), _clause(_ASIDE.sub(" ", rest)[:OWN_WINDOW + 20])]
    return [_object(after[:OWN_WINDOW]), _object(_ASIDE.sub(" ", after)[:OWN_WINDOW])]


def _clause(window: str) -> str:
    end = _OBJECT_ENDS.search(window)
    return window[: end.start()] if end else window


def _short_forms(view, node_id: str, text: str, named: set[str]) -> set[str]:
    """The entities written in a parenthesis right after a name proposed ("... Network (KPCNN)")."""
    shorts = set()
    for e in named:
        name = re.escape(view.entity_name.get(e, e))
        for m in re.finditer(name + r"\s*\(([^()]{1,20})\)", text, re.IGNORECASE):
            shorts |= {o for o in view.mentions.get(node_id, ()) if view.entity_name.get(o, o).lower() == m.group(1).lower()}
    return shorts


def _object(window: str) -> str:
    """The words right after a presenting verb, up to a clause break or a relating word; a name
    that only qualifies a kind of thing ("a zero-shot XEL system, QuEL") is no object: the name
    the kind is given after its comma is."""
    named = _NAMED_KIND.search(window)
    if named:
        return _object(window[named.end():])
    return _KIND_WORD.sub(" ", _clause(window))


class SourceGuess:
    """Why a candidate's hop i-1 bridge is guessed from the source without the hop, or "" (the rules
    above; construction.ChainConstruction.check asks once per bridge)."""

    def __init__(self, view):
        self.view = view
        self._own: dict[str, set[str]] | None = None  # authors_own, read on first use

    def reason(self, cand, i: int, statement: str, rivals: list[str]) -> str:
        if presented_as_own(statement):
            return f"pre-check: hop {i - 1} identifies its bridge as the authors' own (the paper's method is guessed)"
        if self._presented_elsewhere(cand, i, rivals):
            return f"pre-check: hop {i - 1}'s bridge is what its document presents as the authors' own"
        titles = {self.view.doc_title.get(self.view.nodes[h.node_id].doc_id, "") for h in cand.hops}
        if named_by_title(self.view.entity_name.get(cand.hops[i - 1].bridge, ""), rivals, titles):
            return f"pre-check: hop {i - 1}'s bridge is the one of its kind the document's title names"
        if self._compared_with_own(cand, i, statement, titles):
            return f"pre-check: hop {i - 1} knows its bridge only as what the document's own model is compared with"
        return ""

    def _compared_with_own(self, cand, i: int, statement: str, titles: set[str]) -> bool:
        """Hop i-1's sentence compares the document's own subject (the title's whole name, or what its
        prose presents as the authors' own) with the bridge: "DeepSeek-R1 achieves performance
        comparable to OpenAI-o1-1217", "substantially outperforming DeepSeek-V3" (q43). A practitioner
        names the usual peer or the base model without the hop."""
        if not _COMPARED.search(statement or ""):
            return False
        if self._own is None:
            self._own = authors_own(self.view)
        hop = cand.hops[i - 1]
        own = self._own.get(self.view.nodes[hop.node_id].doc_id, set())
        others = [e for e in self.view.mentions.get(hop.node_id, ()) if e != hop.bridge
                  and mentions_entity(self.view, e, statement)]
        return any(e in own or _whole_in_title(self.view.entity_name.get(e, ""), titles) for e in others)

    def _presented_elsewhere(self, cand, i: int, rivals: list[str]) -> bool:
        """Hop i-1's bridge is the authors' own where one of the chain's documents says so and no
        rival is: whatever the hop says of it, "the paper's approach" picks it out."""
        if self._own is None:
            self._own = authors_own(self.view)
        own = set().union(*(self._own.get(self.view.nodes[h.node_id].doc_id, set()) for h in cand.hops))
        own_names = {normal_label(self.view.entity_name.get(e, "")) for e in own} - {""}
        bridge = cand.hops[i - 1].bridge
        if bridge not in own and not _variant_of(normal_label(self.view.entity_name.get(bridge, "")), own_names):
            return False
        return not any(normal_label(r) in own_names or _variant_of(normal_label(r), own_names) for r in rivals)


def _variant_of(name: str, own_names: set[str]) -> bool:
    """A name that is an own name and a word or two more: a checkpoint of the authors' model ("Ling-Coder-Lite-Base"
    of "Ling-Coder-Lite", q59: the verifier picked it among external baselines as "the paper's own model")."""
    return any(name.startswith(o + " ") and len(name[len(o):].split()) <= MAX_VARIANT_WORDS for o in own_names)
