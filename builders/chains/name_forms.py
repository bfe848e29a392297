"""The forms of names and words the construction rules compare (construction.py)."""

from __future__ import annotations

import re

from builders.chains.bridges import zipf

NAMES_NOTHING_ZIPF = 3.0  # a one-word row label this frequent in English is no name (construction.py)
HEADING_LISTS_ROWS = 2  # other rows a caption or header names beside the bridge's for it to be a list


def head(name: str) -> str:
    """A term's head word, singular: "AOA sensors" -> "sensor"."""
    words = name.lower().split()
    word = words[-1] if words else ""
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def nested(a: str, b: str) -> bool:
    """One name inside the other ("8 MCAS" and "MCAS"): a variant of the bridge, not a rival."""
    a, b = a.lower(), b.lower()
    return bool(a and b) and (a in b or b in a)


_ENDS = re.compile(r"^\W+|\W+$")  # marks around a word: "• Total", "Total:", "Total†"


def ordinary_word(name: str) -> bool:
    """One everyday word ("Models", "Total"): no name for a table row to be a bridge by. Marks around
    it are no words (q34: PepsiCo's "• Total" row bridged two tables as "the reporting line whose
    effective net pricing contributed 15 points")."""
    words = [_ENDS.sub("", w) for w in name.split() if any(ch.isalnum() for ch in w)]
    return len(words) == 1 and not any(ch.isdigit() for ch in words[0]) and not words[0].isupper() \
        and zipf(words[0]) >= NAMES_NOTHING_ZIPF


_OURS = re.compile(r"\(\s*ours\b|\bours\s*\)|^ours\b", re.IGNORECASE)
_COUNT_LABEL = re.compile(r"^\s*(#|no\.|num\.?|number of)\s*", re.IGNORECASE)


def table_bridge_reason(row_label: str, bridge_name: str, other_rows: list[str], table_text: str = "") -> str:
    """Why a table bridge is no row's own name, or "": a count row ("# Layers"), a row the table marks
    as the authors' own, an ordinary word, or a row of another form than most others. q20: the row
    "vocabulary size" among the embeddings Word2vec, Word-Concept and Glove; a practitioner picks the
    one row that is a quantity, not an embedding, without the hop that described it."""
    if _COUNT_LABEL.match(row_label):
        return "pre-check: the table bridge is a count row's label"
    if _OURS.search(row_label):  # "MLA (Ours)": a paper's own row is found without the bridge
        return "pre-check: the table bridge is the row marked as the authors' own"
    if ordinary_word(bridge_name):
        return "pre-check: the table bridge is an ordinary word"
    if role_label(row_label):
        return "pre-check: the table bridge's row names a role, not a system"
    if other_rows and 2 * sum(name_like(o) != name_like(row_label) for o in other_rows) > len(other_rows):
        return "pre-check: the table bridge's row is of another form than the table's other rows"
    if other_rows and 2 * sum(bool(_VARIANT.match(o)) for o in other_rows) >= len(other_rows):
        # q26: "BERTbase" above "+ SN", "+ NATSV (k = 1)": "the unmodified model" is the base row by form.
        return "pre-check: the table bridge is the base row the other rows modify"
    heading = table_text.split("|---")[0] if "|---" in table_text else ""
    if row_label.strip() and row_label.strip() in heading \
            and sum(bool(o.strip()) and o.strip() in heading for o in other_rows) < HEADING_LISTS_ROWS:
        # q26: Pfizer's "Components of Other (income)/deductions--net include:" heads the table whose
        # total row is the bridge: the table's caption or header names the row without the hop. A
        # caption that lists the rows singles none out (q58: Step-3's Table 6 gives every model's
        # activated parameters, "DSv3 37B, Qwen3 MoE 22B, ..."); what it says of the bridge is
        # checked as any answering text is (table_number_reason).
        return "pre-check: the table's caption or header names the bridge's row"
    return ""


# Words a results table names a row's role with, not a system: "Supervised Benchmark" is LSTM-CRF in
# one table of a paper and a challenge's winner in the next (q49), so a row of that name in two tables
# is no one thing to bridge by.
ROLE_WORDS = frozenset("baseline baselines benchmark oracle upper lower bound supervised unsupervised "
                       "semi-supervised weakly human humans random majority previous prior best winner "
                       "sota state-of-the-art reference proposed ours".split())


def role_label(label: str) -> bool:
    """Whether every word of a row label is a role word or an everyday one, one at least a role word."""
    printed = [_ENDS.sub("", w) for w in label.split() if any(ch.isalnum() for ch in w)]
    if any(name_like(w) or (len(w) > 1 and w.isupper()) for w in printed):  # "BERT", "GPT-4", "AutoNER"
        return False
    words = [w.lower() for w in printed]
    return any(w in ROLE_WORDS for w in words) and all(w in ROLE_WORDS or zipf(w) >= NAMES_NOTHING_ZIPF
                                                       for w in words)


_VARIANT = re.compile(r"^\s*(?:[+\-\u2013\u2212]|w/o?\b|with\b|without\b|no\b)", re.IGNORECASE)


def name_like(label: str) -> bool:
    """A name's form ("Word2vec", "Word-Concept", "GPT-4", "New York") rather than a term's ("vocabulary
    size", "Net sales", "Glove"): a digit, a capital inside a word, or two capitalised words."""
    words = label.split()
    return any(ch.isdigit() for ch in label) or any(any(ch.isupper() for ch in w[1:]) for w in words) \
        or sum(w[:1].isupper() for w in words) >= 2


def stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and len(word) > 3 else word



MAX_ITEM_WORDS = 5  # a list item is a short phrase; a longer stretch between commas is a clause
_CLOSING = re.compile(r"^(?:and|or) |\s(?:and|or)\s")


def list_length(sentence: str, surface: str) -> int:
    """How many items the comma list has that `surface` is one item of (0: it is in none). "... may
    exclude such items as intangible asset amortization expense, significant gains from
    divestitures, ..., restructuring, litigation, and changes in applicable laws" lists six: a
    question can only say which one by its position (q17), whatever NER tagged the others. A list
    has 3+ short items and is closed by "and" or "or"; the item ends with the name, and a lead-in
    before it ("such items as") makes it the list's first."""
    parts = [p.strip() for p in sentence.split(", ")]
    at = next((k for k, p in enumerate(parts) if surface in p), None)
    if at is None:
        return 0
    lead, _, tail = parts[at].partition(surface)
    count, closed = 1, False
    if tail.strip().startswith(("and ", "or ")):  # "RoBERTa and XLNet": the list closes after the name
        count, closed = 2, True
    elif tail.strip(" .;:)"):
        return 0  # the item goes on past the name ("BERT appeared, and ..."): a clause, not a list item
    closing = re.fullmatch(r"(?:(.{1,60}?) )?(?:and|or) (?:the |a |an )?", lead)  # "RoBERTa and XLNet": the last item
    if closing:
        count, closed = count + bool(closing.group(1)), True
    k = at
    while (closing or not lead.strip()) and k > 0:
        if len(parts[k - 1].split()) <= MAX_ITEM_WORDS:
            k, count = k - 1, count + 1
            continue
        # A longer stretch opens the list: its lead-in ends with the first item ("Figure 2 shows our
        # performance on Codeforces, Swe-Bench and τ-bench", q27), a word of the name's form.
        count += _first_item(parts[k - 1], surface)
        break
    k = at
    while k + 1 < len(parts) and not closed:
        nxt = parts[k + 1]
        if nxt.startswith(("and ", "or ")):
            count, closed = count + 1, True
        elif len(nxt.split()) <= MAX_ITEM_WORDS:
            count, closed = count + 1 + bool(_CLOSING.search(nxt)), bool(_CLOSING.search(nxt))
        else:
            break
        k += 1
    return count if count >= 3 and closed else 0


def _first_item(part: str, surface: str) -> bool:
    """Whether a lead-in ends with a list item of `surface`'s form: both are names (a capital or a
    digit: "Codeforces" before "Swe-Bench"); a lead-in ending in a common word ("the whole corpus,
    then train word2vec and fastText") is a clause, not the list's first item."""
    words = part.split()
    last = words[-1] if words else ""

    def name_like(word: str) -> bool:
        return any(ch.isalpha() for ch in word) and (word[:1].isupper() or any(ch.isdigit() for ch in word)
                                                      or any(ch.isupper() for ch in word[1:]))

    return bool(last) and name_like(last) and name_like(surface)


_QUALIFIERS = {"non", "o", "without", "no", "not", "adjusted", "excluding", "ex", "core", "unadjusted"}
_OPPOSITES = {frozenset({"with", "without"})}


def qualified_twin(row_label: str, other_rows: list[str]) -> str:
    """Why a row described in words is found by its form: another row's name is its own but for a
    qualifier ("Non-GAAP tax rate" beside "GAAP tax rate", "VideoMME w/o audio" beside "VideoMME w/
    audio", q30), so describing the qualifier ("the rate the company projects", "with the soundtrack
    removed") picks the row without the hop that described it. "" when no such twin stands there."""
    def words(label: str) -> list[str]:
        return re.findall(r"[a-z0-9]+", label.lower())

    own = words(row_label)
    for other in other_rows:
        theirs = words(other)
        longer, shorter = (own, theirs) if len(own) > len(theirs) else (theirs, own)
        extra = [w for w in longer if w not in shorter]
        nested = len(longer) == len(shorter) + 1 and len(shorter) >= 2 and extra and extra[0] in _QUALIFIERS \
            and all(w in longer for w in shorter)
        swapped = len(own) == len(theirs) and len(own) >= 2 and sum(a != b for a, b in zip(own, theirs)) == 1 \
            and frozenset(a for a, b in zip(own + theirs, theirs + own) if a != b) in _OPPOSITES
        if nested or swapped:
            return "pre-check: the table bridge's row differs from another row by one qualifier"
    return ""
