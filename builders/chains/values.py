"""Numbers in prose as answers of a prose pairing (prose_walk.py; strict runs only).

The relation a paragraph states for several entities of a kind is most
often a value: "BERT-EXT reaches 41.2 ROUGE-1 while PEGASUS reaches 44.7 and
PRIMERA 46.1". Ingest keeps no numeric entities (bridges.specific_name refuses
them: a number links nothing), so a prose last hop of this form had no answer
to offer. Here each number a prose chunk writes becomes a *value entity* of
that chunk alone ("value:<chunk>:41.2", spaCy's type from its form: MONEY,
PERCENT, DATE for a year, else CARDINAL), the way tables.name_table_rows makes
row labels entities. A value is never a bridge (it is not specific), only an
answer, and two values are rivals only when they have one type and one form
(a decimal is no rival of a count). Numbers that number things are skipped:
"Table 3", "Section 4.1", "Eq. 2", single digits.
"""

from __future__ import annotations

import re

from builders.chains.bridges import zipf
from builders.chains.name_forms import stem
from builders.chains.question_words import value_label
from builders.chains.verbs import cited_after
from queries.corpus_view import CorpusView

MAX_TIE_WORDS = 12  # words between an entity and the number tied to it in one sentence
MEASURE_WORDS_AFTER = 4  # words after a tied number that may say what it counts ("54% of summary bigrams")
VALUE_ENTITY = "value:"  # id prefix of an entity made from a number in prose
CURRENCY = "$€£¥"
# A minus as PDFs print it: ASCII hyphen, U+2212 (LaTeX's math minus), an en dash. Only right before a
# number and after no word or number ("1990–2000" is a range, not -2000).
MINUS = "-\u2212\u2013"
_VALUE = re.compile(rf"(?<![\w.{MINUS}/{CURRENCY}])(?:[{MINUS}](?=[{CURRENCY}]?\d))?[{CURRENCY}]?\d+(?:[.,]\d+)*%?"
                    r"(?![\w%]|[.,]\d)")
COMMON_ZIPF = 5.5  # a word this frequent in English ("from", "more", "than") says nothing about a measure
# Words of a paper's frame, less frequent than COMMON_ZIPF but naming no measure: "Accuracy of the four
# models" and "a 12.5 GB model" share "model", not what their numbers measure.
FRAME_WORDS = frozenset({"model", "figure", "fig", "table", "tab", "result", "data", "report", "reported", "using",
                         "used", "use", "method", "approach", "value", "show", "shown", "compared", "comparison",
                         "baseline", "proposed", "paper", "work", "experiment", "setting", "across", "different",
                         "each", "four", "three", "five", "two", "our", "their", "this", "that", "with"})
_MEASURE_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
# What stands between a number and the name it is measured on: "60.8 on AIME", "38.9 length-controlled win
# rate on AlpacaEval 2.0", "88.2 for MATH500". That name is the value's benchmark or dataset, not a subject.
_MEASURED_ON = re.compile(r"^[^\w(\[]*(?:[\w-]+\s+){0,%d}(?:on|in|at|for|across|over)\s+(?:the\s+)?$" % MEASURE_WORDS_AFTER,
                          re.IGNORECASE)
# What stands before a name a sentence compares its subject with: "outperforming DeepSeek-V3 with scores of
# 90.8% on MMLU" gives DeepSeek-R1's scores, not DeepSeek-V3's.
_COMPARED_WITH = re.compile(r"\b(?:outperform\w*|surpass\w*|beat(?:s|ing)?|exceed\w*|than|versus|vs\.?|over|against|"
                            r"compared\s+(?:with|to)|relative\s+to)\s+(?:(?:both|all|all\s+of|each\s+of)\s+)?"
                            r"(?:the\s+)?$", re.IGNORECASE)
# Between two names of one list ("outperforming GPT-4o and Claude Sonnet 3.5"): the second is compared too.
_LIST_GAP = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+)?|and\s+|or\s+|as\s+well\s+as\s+)(?:the\s+)?", re.IGNORECASE)
_NUMBERING = re.compile(r"(?:table|tab\.|figure|fig\.|section|sec\.|eq\.|equations?|see(?=\s*\()|appendix|chapter|step|"
                        r"layer|version|v|page|p\.|pp\.|§|\[)\s*\(?\s*$", re.IGNORECASE)


def is_value(entity_id: str) -> bool:
    return entity_id.startswith(VALUE_ENTITY)


def _parts(value: str) -> tuple[str, str, str]:
    """(sign, currency, the rest) of a printed number: "−$1.2" -> ("-", "$", "1.2")."""
    v = value.strip()
    sign = "-" if v[:1] and v[:1] in MINUS else ""
    v = v[1:] if sign else v
    currency = v[:1] if v[:1] and v[:1] in CURRENCY else ""
    return sign, currency, v[len(currency):]


def value_type(value: str) -> str:
    """spaCy's type of a printed number (question_words.value_label): MONEY, PERCENT, DATE, CARDINAL, or ""."""
    sign, currency, rest = _parts(value)
    label = value_label(rest, "$" if currency else "")
    return "CARDINAL" if sign and label == "DATE" else label  # "−1998" is no year


def value_kind(value: str) -> tuple[str, str, bool, bool] | None:
    """(type, currency, percent, decimal) of a printed number; None when it is no value. Two values are
    of one kind (rivals, or a fork's two branches) only when these agree: a decimal is no rival of a count."""
    label = value_type(value)
    _sign, currency, rest = _parts(value)
    return (label, currency, rest.endswith("%"), "." in rest) if label else None


def number(value: str) -> float | None:
    """The printed number as a float, sign kept ("−1.2" -> -1.2); None when it is not a plain number."""
    sign, _currency, rest = _parts(value)
    try:
        return float(sign + rest.rstrip("%").replace(",", ""))
    except ValueError:
        return None


def same_value_kind(view: CorpusView, a: str, b: str) -> bool:
    """Two value entities of one kind (value_kind)."""
    kind = value_kind(view.entity_name.get(a, ""))
    return kind is not None and kind == value_kind(view.entity_name.get(b, ""))


def measure_words(text: str, subject: str = "") -> frozenset[str]:
    """Stems of the uncommon words of `text` that are not the subject's own name: what a number measures."""
    own = {stem(w.lower()) for w in _MEASURE_WORD.findall(subject)}
    words = (w.lower() for w in _MEASURE_WORD.findall(text))
    return frozenset(stem(w) for w in words if zipf(w) < COMMON_ZIPF and w not in FRAME_WORDS
                     and stem(w) not in FRAME_WORDS) - own


def one_measure(a: frozenset[str], b: frozenset[str]) -> bool:
    """Two numbers may measure one thing: they share a measure word, or one says nothing of its measure
    (a list goes on without repeating it: "BART logged 41.2 survey days, PEGASUS 39.1")."""
    return not a or not b or bool(a & b)


def value_ties(statements, chunk: str, ents: list[str]) -> dict[str, dict[str, frozenset[str]]]:
    """Entity -> the numbers listed beside it in a sentence of `chunk` (see tie_sentences), each with
    the words that say what it measures."""
    view = statements.view
    ties: dict[str, dict[str, frozenset[str]]] = {}
    for e, value, text in tie_sentences(statements, chunk, ents):
        ties.setdefault(e, {})[value] = measure_words(text, view.entity_name.get(e, ""))
    return ties


def tie_sentences(statements, chunk: str, ents: list[str]) -> list[tuple[str, str, str]]:
    """(entity, value entity, the text from the entity to a few words past the value) for each number
    listed beside a *subject* in a sentence of `chunk`: the first value after it, before the next
    subject, at most MAX_TIE_WORDS words on ("BART (38.0), PEGASUS (39.1) and PRIMERA (41.2)": papers
    list values without a verb each). Not years: beside a name a year is a citation ("Shen et al.,
    2022"), not a value of it. Not subjects: a name a number is measured on ("60.8 on AIME, 94.6 on
    MATH500": the benchmarks of one subject's values, whose "next number" is the next benchmark's), a
    name the subject is compared with ("outperforming DeepSeek-V3 with scores of 90.8%") and a cited
    author. `statements` is a statements.StatementIndex, `ents` the specific entities of the
    chunk. The text says what the number measures (measure_words)."""
    view = statements.view
    out = []
    for sentence in statements.sentences(chunk):
        spans, text = sentence.spans, sentence.text
        values = sorted((sp[0], sp[1], v) for v, sp in spans.items() if is_value(v) and view.entity_label.get(v) != "DATE")
        if not values:
            continue
        names = [e for e in ents if e in spans]
        compared = _compared_names(text, spans, names)
        subjects = [e for e in names if e not in compared and not _measured_on(text, spans[e][0], values)
                    and not cited_after(text[spans[e][1]:spans[e][1] + 30])]
        for e in subjects:
            end = spans[e][1]
            # A number is searched up to the next name of any kind (past one, it may be that name's: "than
            # the Tallinn laboratory (31.5 days)"); its measure words run on to the next subject.
            stop = min((spans[o][0] for o in names if o != e and spans[o][0] >= end), default=len(text))
            first = next(((start, v_end, v) for start, v_end, v in values if end <= start < stop), None)
            if first is not None and len(text[end:first[0]].split()) <= MAX_TIE_WORDS:
                until = min((spans[o][0] for o in subjects if o != e and spans[o][0] >= end), default=len(text))
                after = text[first[1]:until].split()[:MEASURE_WORDS_AFTER]
                out.append((e, first[2], " ".join([text[end:first[1]], *after])))
    return out


def _compared_names(text: str, spans: dict[str, tuple[int, int]], names: list[str]) -> set[str]:
    """Names a sentence compares its subject with: right after a comparing word ("outperforming
    DeepSeek-V3", "than both the ..."), or listed after such a name ("GPT-4o and Claude Sonnet 3.5")."""
    out: set[str] = set()
    last_end = -1
    for e in sorted(names, key=lambda n: spans[n][0]):
        start = spans[e][0]
        if _COMPARED_WITH.search(text[max(0, start - 40):start]) or (
                last_end >= 0 and _LIST_GAP.fullmatch(text[last_end:start])):
            out.add(e)
            last_end = spans[e][1]
        else:
            last_end = -1
    return out


def _measured_on(text: str, start: int, values: list[tuple[int, int, str]]) -> bool:
    """Whether the name starting at `start` follows a number it is measured on ("60.8 on AIME")."""
    before = [v_end for _s, v_end, _v in values if v_end <= start]
    return bool(before) and bool(_MEASURED_ON.match(text[max(before):start]))


def listed_rivals(view: CorpusView, ties: dict[str, dict[str, frozenset[str]]], bridge: str, answer: str) -> list[str]:
    """The other subjects a chunk lists with a number of the answer's type and form and of its measure
    (value_ties): the list itself says they are of one kind, whatever labels entity extraction gave
    them ("FAISS" ORG, "Lucene" PERSON), so each is a candidate the bridge's number could belong to.
    A number of another measure is no rival answer ("60.8 on AIME" beside "Claude Sonnet 3.5 by a
    large margin")."""
    measure = ties.get(bridge, {}).get(answer, frozenset())
    return sorted(e for e, values in ties.items() if e != bridge and answer not in values
                  and any(v != answer and same_value_kind(view, answer, v) and one_measure(measure, m)
                          for v, m in values.items()))


def bridge_beside_rivals(statements, node_id: str, bridge: str, answer: str, rivals: list[str]) -> bool:
    """Whether a sentence of `node_id` names the bridge beside other answers but not beside the answer:
    the bridge is said of those numbers too, so it picks no one answer. q19: "an error rate of 5.4 and
    2.7 ... without RandAugment" and "without RandAugment, which has an error rate of 2.84"; a strict
    verifier found the dataset, not the bridge, choosing 2.84. In a list ("BART (38.0), PEGASUS
    (39.1)") the bridge stands beside its own number, so that sentence is no sign."""
    return any(bridge in s.spans and answer not in s.spans
               and any(_whole(r).search(s.text) for r in rivals) for s in statements.sentences(node_id))


def _whole(name: str) -> re.Pattern:
    return re.compile(r"(?<![\w.])" + re.escape(name) + r"(?![\w]|[.,]\d)", re.IGNORECASE)


# A later number of a list of numbered things: "see equations (3.3), (3.1), and (3.2)".
_NUMBERED_LIST = re.compile(r"(?:equations?|eqs?\.|tables|figures|sections)\s*(?:\(\d+(?:\.\d+)*\),?\s*(?:and\s+)?)+\(\s*$",
                            re.IGNORECASE)
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
          r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_MONTH_BEFORE = re.compile(r"\b" + _MONTH + r"\s+$", re.IGNORECASE)
_MONTH_AFTER = re.compile(r"^(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\b", re.IGNORECASE)


def _date_part(text: str, start: int, end: int) -> bool:
    """A day of a date ("May 17, 2022", "17 May"): a question asking for "17" asks for a fragment (q21)."""
    return bool(_MONTH_BEFORE.search(text[max(0, start - 12):start]) or _MONTH_AFTER.match(text[end:end + 16]))


def prose_values(text: str) -> list[str]:
    """The numbers `text` states as values (not the numbers of tables, sections or equations)."""
    out = []
    for m in _VALUE.finditer(text):
        value = m.group()
        digits = sum(ch.isdigit() for ch in value)
        if digits < 2 and "." not in value and "%" not in value:
            continue
        if _NUMBERING.search(text[max(0, m.start() - 12):m.start()]) or _date_part(text, m.start(), m.end()) \
                or _NUMBERED_LIST.search(text[max(0, m.start() - 60):m.start()]):
            continue
        out.append(value)
    return list(dict.fromkeys(out))


def name_prose_values(view: CorpusView, evidence_roles: frozenset[str]) -> int:
    """Make every value of every prose evidence chunk an entity mentioned by that chunk; returns how many."""
    added = 0
    for node in list(view.nodes.values()):
        if node.label != "Chunk" or node.kind in ("table", "caption") or (node.role or "body") not in evidence_roles:
            continue
        for value in prose_values(node.text):
            label = value_type(value)
            if not label:
                continue
            ent = f"{VALUE_ENTITY}{node.id}:{value}"
            view.entity_name[ent] = value
            view.entity_label[ent] = label
            view.entity_aliases[ent] = []
            view.mentions.setdefault(node.id, set()).add(ent)
            view.mentioned_by.setdefault(ent, set()).add(node.id)
            added += 1
    return added
