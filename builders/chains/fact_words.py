"""The words by which an earlier hop's fact may describe its bridge, and those the question must avoid
(construction.ChainConstruction.check hands both to the writer: describe_bridge_with, never_use_words)."""

from __future__ import annotations

import re

from builders.chains.bridges import zipf
from builders.chains.name_forms import stem as _stem
from builders.chains.statements import find_surface
from builders.chains.values import number
from kg.text import split_sentences

# Two frequency rules, for two questions. A word of a fact that is this frequent in English
# ("using", "results", 5+) describes nothing, however rare the rest of the fact: it is no word to
# identify a bridge by, and none a reader could find a later hop by either. A row label of one word
# this frequent ("Models" 4.3, "Total" 5.2, 3+) is no *name* (name_forms.NAMES_NOTHING_ZIPF): far
# below the first threshold, because a name must single one row out, where a describing word
# only has to carry meaning.
DESCRIBES_NOTHING_ZIPF = 5.0
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{3,}")
# Words, and numbers ("41.2" in a fact and its table). A number glued to letters before it is part of a
# name ("H800", "BF16", "Qwen2.5-72B"), and one after a reference word is an address ("§5.2", "Table 6"):
# neither is a value a hop prints for its bridge (q58: "16" of BF16 and "5.2" of §5.2 passed for results).
_TOKEN = re.compile(r"[A-Za-z][A-Za-z-]{3,}|(?<![A-Za-z\d.,§])(?<!§ )(?<![A-Za-z\d]-)\d[\d.,]*\d")
_REFERENCE = re.compile(r"(?:§+\s*|\b(?:Sections?|Sec\.|Tables?|Figures?|Figs?\.|Eqs?\.|Equations?|Appendix|"
                        r"Chapters?|Algorithms?|Lines?|Steps?|Pages?|pp?\.)\s*)\d[\d.]*", re.IGNORECASE)


def word_stems(text: str) -> set[str]:
    """Stems of the words and numbers of `text`, as facts and hops are compared."""
    return {_stem(w) for w in _TOKEN.findall(_REFERENCE.sub(" ", text))}


def title_stems(titles) -> set[str]:
    """Stems of document titles, whole and in their hyphenated parts ("DeepSeek-R1" -> "deepseek-r",
    "deepseek"), runs of parts too ("LongCat-Flash-Omni" -> "longcat-flash", q35): a question names
    its source by any of them."""
    runs = {"-".join(parts[i:j]) for title in titles for word in _WORD.findall(title)
            if "-" in word for parts in [word.split("-")] for i in range(len(parts)) for j in range(i + 2, len(parts) + 1)}
    return {stem for title in titles for stem in word_stems(title) | word_stems(title.replace("-", " "))} | {
        _stem(run) for run in runs}


def title_names(name: str, titles) -> bool:
    """Whether a document title names the thing: it holds the name's first word ("Kimi" of "Kimi k1.5
    long-CoT" in "KIMI K1.5: SCALING REINFORCEMENT LEARNING WITH LLMS"), or spells out the name's
    capitals ("HiAR-ICL": "High-level Automated Reasoning ... In-Context Learning")."""
    first = re.split(r"[\s/_-]+", name.strip())[0].casefold() if name.strip() else ""
    # A title taken from a file name ("llm_deepseek_v3_techreport") has its words between underscores.
    words = {w.casefold() for title in titles for w in re.split(r"[^\w.]+", title.replace("-", " ").replace("_", " "))
             if w}
    # Only a name's first word: "Learning rate" or "Scaling laws" share an everyday word with a title,
    # not its subject ("Granite-8B-Code-Base" is a name by its digits, "Kimi" by its rarity).
    named = zipf(first) <= TITLE_NAME_ZIPF or any(c.isdigit() for c in name.split()[0])
    acronym = _is_acronym(name) and any(_spells_out(name, title) for title in titles if not _all_capitals(title))
    return (len(first) >= 3 and named and first in words) or acronym


def _is_acronym(name: str) -> bool:
    """One token, mostly capitals ("HiAR-ICL", "SPECTER"): a name that may spell out a title's words."""
    letters = [c for c in name if c.isalpha()]
    return len(name.split()) == 1 and len(letters) >= MIN_ACRONYM and \
        sum(c.isupper() for c in letters) >= len(letters) / 2


def _all_capitals(title: str) -> bool:
    """A title set in capitals ("UNITED STATES SECURITIES AND EXCHANGE COMMISSION") spells anything out."""
    letters = [c for c in title if c.isalpha()]
    return bool(letters) and sum(c.isupper() for c in letters) > 0.8 * len(letters)


MIN_ACRONYM = 3
TITLE_NAME_ZIPF = 3.5  # "kimi" 3.2, "leland" 3.2; "scaling" 3.6, "learning" 4.9 are everyday words


def _spells_out(name: str, title: str) -> bool:
    """The name's capitals are the initials of the title's capitalised words, in order, skipping at most
    two words (a title's "Paradigm in" between "Reasoning" and "In-Context")."""
    capitals = [c for c in name if c.isupper()]
    initials = [w[0] for w in re.split(r"[\s/_:,-]+", title) if w[:1].isupper()]
    if len(capitals) < MIN_ACRONYM:
        return False
    for start in (k for k, c in enumerate(initials) if c == capitals[0]):
        at, skipped = start + 1, 0
        for c in capitals[1:]:
            while at < len(initials) and initials[at] != c:
                at, skipped = at + 1, skipped + 1
            if at == len(initials) or skipped > 2:
                break
            at += 1
        else:
            return True
    return False


# A citation: "Zeng et al. 2015", "(Phan et al., 2025)", "Smith and Jones (2019)", or a bare "(Zeiler 2012)"
# right after a bracket or a semicolon. Its authors and year name the work, so the cited thing to a
# practitioner (q52: "the model by Zeng et al. 2015" is PCNNs+MIL): no words to describe a bridge by.
_CITATION = re.compile(r"[A-Z][\w'’´-]+(?:\s+et\s+al\.?|\s+(?:and|&)\s+[A-Z][\w'’´-]+),?\s+\(?(?:19|20)\d\d[a-z]?\b"
                       r"|(?<=[(;]\s)[A-Z][\w'’´-]+,?\s+(?:19|20)\d\d[a-z]?\b|(?<=[(;])[A-Z][\w'’´-]+,?\s+(?:19|20)\d\d[a-z]?\b")


def cited_words(fact: str) -> set[str]:
    """Stems of the words and years of the fact's citations."""
    return {_stem(w) for match in _CITATION.finditer(fact) for w in _TOKEN.findall(match.group())}


def fact_words(fact: str, later: set[str], candidates: list[str],
               titles: set[str] = frozenset(), answer: str = "") -> tuple[list[str], list[str]]:
    """The fact's content words (and numbers) that no later hop's evidence holds, and those to
    avoid: held by a later hop (a reader finds the bridge there by them), or by the names of the
    bridge and its rivals (`candidates`: "the one not containing 'Creek'", "comparable to dot
    product" when the rivals are dot-product variants single it out by its name's form). Words
    that tell the candidates' names apart go to the avoided ones too."""
    named = [{_stem(w) for w in _WORD.findall(n)} for n in candidates if n]
    # Words of the rivals' names that not every candidate's name has (the bridge's own name is
    # never written anyway).
    telling = set().union(*named[1:]) - set.intersection(*named) if len(named) > 1 else set()
    words = dict.fromkeys(w.lower() for w in _TOKEN.findall(_REFERENCE.sub(" ", fact)) if _stem(w) not in titles
                          and (any(ch.isdigit() for ch in w) or zipf(w.lower()) < DESCRIBES_NOTHING_ZIPF))
    avoid = (later | set().union(*named) if named else later) | cited_words(fact)
    avoid = avoid | {w for w in words if _rounded_in(w, later)}  # "74.5" of a table's "74.54" (q22)
    # A word that is part of a candidate's name ("code-qwen" of "CODE-QWEN-CHAT") spells the bridge out;
    # one of the answer's ("layer" of LayerNorm) points at it.
    spelled_in = " ".join(n.lower() for n in (*candidates, answer) if n)
    inside = {w for w in words if len(w) >= 4 and w.strip("-") in spelled_in}
    # A compound whose parts are to be avoided is too ("omni-instruct" beside a banned "omni", q35).
    name_words = set().union(*named) if named else set()
    inside |= {w for w in words if "-" in w and any(_stem(part) in name_words for part in w.split("-") if part)}
    own = [w for w in words if _stem(w) not in avoid and w not in inside]
    shared = [w for w in words if _stem(w) in avoid or w in inside]
    spelled = {_stem(w): w.lower().strip("-") for n in candidates for w in _WORD.findall(n)}
    # Not the title's words: the question names its source by them (q33: "hunyuan-turbos", a rival's
    # name and the report's, was banned, and the writer could not say which report it asks about).
    telling_words = sorted(spelled[t] for t in telling - {_stem(w) for w in shared} - set(titles)
                           if zipf(spelled[t]) < DESCRIBES_NOTHING_ZIPF)  # "first", "model": no form
    return own, shared + telling_words[:8]



def _rounded_in(word: str, later: set[str]) -> bool:
    """A number of the fact that a later hop writes with more digits: rounded, it is the same number
    ("our models achieve an average of 74.5%" and the table's "74.54"), so a reader finds it there."""
    value = number(word)
    if value is None or "." not in word:
        return False
    half = 0.5 * 10 ** -len(word.split(".")[-1])
    return any(v is not None and v != value and abs(v - value) <= half + 1e-9 for v in map(number, later))


# What follows a name that says what the thing *is*, not what it did: an apposition ("CMMLU, a Chinese
# multi-subject multiple-choice task"), a copula with an article ("X is a benchmark") or a verb of
# composition ("AGIEval includes both English and Chinese subsets"), or a definition ("Unearned revenue
# represents amounts invoiced in advance of revenue recognition", q33 and q39). A short bracket may come between.
_DEFINES = re.compile(r"^\s*(?:\([^()]{0,40}\)|\[[^\]]{0,40}\])?\s*(?:[,:\u2013]\s*(?:a|an|the|which\s+is)\b"
                      r"|(?:is|are|was|were)\s+(?:a|an|one\s+of)\b"
                      r"|(?:includes?|contains?|consists?\s+of|comprises?|covers?|refers?\s+to|denotes?|stands?\s+for"
                      r"|represents?|means|(?:is|are)\s+defined\s+as)\b)",
                      re.IGNORECASE)


def defines(statement: str, names: list[str]) -> bool:
    """Whether the fact names the bridge and then says what it is. A practitioner maps such a
    description to the name in the next hop without the hop (q26: all five first hops were of this
    kind, and the verifier rejected each: "the standardized exam with English and Chinese subsets"
    is AGIEval among a table's benchmarks)."""
    span = find_surface(names, statement) if statement else None
    return span is not None and bool(_DEFINES.match(statement[span[1]:]))


def spells_out(statement: str, names: list[str]) -> bool:
    """Whether the fact writes out a short name of the bridge part by part: "Stack-LSTM" for "S-LSTM"
    (q47: "the model the authors refer to by an abbreviation of Stack-LSTM" is the S-LSTM row of
    the next table, whatever else the hop says). Each hyphened part of the name is the written word's
    part or its initial, one part at least an initial."""
    words = re.findall(r"[\w]+(?:-[\w]+)+", statement or "")
    for name in names:
        parts = name.split("-")
        if len(parts) < 2:
            continue
        for word in words:
            written = word.split("-")
            if len(written) != len(parts) or word.casefold() == name.casefold():
                continue
            pairs = list(zip(parts, written))
            initial = [len(p) <= 2 and w.casefold().startswith(p.casefold()) and len(w) > len(p) for p, w in pairs]
            if any(initial) and all(i or p.casefold() == w.casefold() for i, (p, w) in zip(initial, pairs)):
                return True
    return False


def picking_words(text: str, bridge_names: list[str], rival_names: list[str]) -> set[str] | None:
    """Stems by which a last hop in prose picks its bridge out among the rivals it also states the
    relation for: the words of its sentences naming the bridge, less those its sentences naming a
    rival share. "precision" in "BPE-J90k improves both precision (38.6%) ..." beside "WDict ...
    with high precision (60.6%)" picks no system (q18: the writer had been forbidden the very
    measure it was asked for). None without rivals: then every word of the hop may find it."""
    if not rival_names:
        return None
    sentences = split_sentences(text, collapse_whitespace=True)
    own = [s for s in sentences if find_surface(bridge_names, s) is not None]
    others = [s for s in sentences if s not in own and find_surface(rival_names, s) is not None]
    return word_stems(" ".join(own)) - word_stems(" ".join(others))


def rival_words(text: str, bridge_names: list[str], rival_names: list[str]) -> set[str]:
    """Stems of the sentences of an identifying hop's `text` that name a rival of its bridge and not the
    bridge: what they say of the rival describes the bridge no better. q52: "For AIME evaluation, we
    sample 32 times" beside "For GPQA-Diamond, we sample 32 times": "sample" and "32" single out neither."""
    sentences = split_sentences(text, collapse_whitespace=True) if rival_names else []
    return word_stems(" ".join(s for s in sentences if find_surface(rival_names, s) is not None
                               and find_surface(bridge_names, s) is None))


# Words by which a fact ranks its subject against others ("the gpt-oss-20b model lags behind", "X
# outperforms all baselines"): a reader of the later hop alone picks the extreme value they point to.
_COMPARES = re.compile(r"\b(?:lag(?:s|ged|ging)?|behind|best|worst|highest|lowest|strongest|weakest|largest|"
                       r"smallest|fastest|slowest|outperform\w*|surpass\w*|exceed\w*|beat(?:s)?|"
                       r"better|worse|higher|lower|state-of-the-art|"
                       # A benchmark called hard is the one whose scores are lowest (q52: "the challenging HLE
                       # benchmark" was the table's row of 20s among rows of 80s and 90s).
                       r"challenging|difficult|hardest|easiest)\b", re.IGNORECASE)


def compares(fact: str) -> bool:
    """Whether a fact describes its subject by ranking it against others."""
    return bool(_COMPARES.search(fact or ""))


def extreme(value: str, rivals: list[str]) -> bool:
    """Whether `value` is the largest or smallest number among itself and 2+ rival numbers (q27: "the
    model that lags behind on GPQA" is the lowest bar of the GPQA panel, whatever hop 0 says)."""
    mine, others = number(value), [n for n in (number(r) for r in rivals) if n is not None]
    return mine is not None and len(others) >= 2 and (mine > max(others) or mine < min(others))
