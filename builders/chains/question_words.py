"""The question word follows the answer's type; when the type is unsure it is "what".

spaCy's labels are often wrong on technical text ("Optimizer" PERSON,
"PROPOSALS" GPE), so a label is trusted only when the name also looks the
part: a person is two to four capitalised words, a place is a capitalised
name without digits. Used by the offline verbalizer and by the stats figure
that counts question words agreeing with their answers.
"""

from __future__ import annotations

import re

PLACE_LABELS = frozenset({"GPE", "LOC", "FAC"})
TIME_LABELS = frozenset({"DATE", "TIME"})
COUNT_LABELS = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
_NAME_WORD = re.compile(r"^[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?\.?$|^[A-Z]\.$")
_WH = re.compile(r"\b(which (?:person|people|place|location|city|country|date|year)|who|whom|whose|where|when"
                 r"|how many|how much|what|which)\b", re.IGNORECASE)
_MONEY = re.compile(r"^(?:US)?[$€£¥]\s?\d|\d\s?(?:USD|EUR|GBP|dollars?)$", re.IGNORECASE)
_PERCENT = re.compile(r"^[-+]?\d[\d,]*(?:\.\d+)?\s?%$")
_YEAR = re.compile(r"^(?:1[89]|20)\d{2}$")
_CARDINAL = re.compile(r"^[~≈<>]?\s?[-+−]?\d[\d,]*(?:\.\d+)?\s?[KMBkmb]?$")
_WHICH = {"person": "who", "people": "who", "place": "where", "location": "where", "city": "where",
          "country": "where", "date": "when", "year": "when"}


def looks_like_person(name: str) -> bool:
    words = name.split()
    return 2 <= len(words) <= 4 and all(_NAME_WORD.match(w) for w in words)


def looks_like_place(name: str) -> bool:
    return bool(name) and name[:1].isupper() and not name.isupper() and not any(c.isdigit() for c in name)


def value_label(value: str, unit: str = "") -> str:
    """The type of a table cell's value in spaCy's terms: MONEY, PERCENT, DATE (a year), CARDINAL or ""."""
    value = " ".join(value.split())
    if _MONEY.search(value) or (unit and _CARDINAL.match(value)):
        return "MONEY"
    if _PERCENT.match(value):
        return "PERCENT"
    if _YEAR.match(value):
        return "DATE"
    return "CARDINAL" if _CARDINAL.match(value) else ""


def question_word(name: str, label: str) -> str:
    """who / where / when / how many / what for an answer of this name and spaCy label."""
    if label == "PERSON" and looks_like_person(name):
        return "who"
    if label in PLACE_LABELS and looks_like_place(name):
        return "where"
    if label in TIME_LABELS:
        return "when"
    if label in COUNT_LABELS:
        return "how many"
    return "what"


def asked_word(question: str) -> str:
    """The question word a question asks with (its last wh-word: nested questions end in the final one)."""
    found = _WH.findall(question)
    if not found:
        return "what"
    word = found[-1].lower()
    if word.startswith("which "):
        return _WHICH[word.split()[1]]
    return {"whom": "who", "whose": "who", "which": "what", "how much": "how many"}.get(word, word)


def agrees(question: str, name: str, label: str) -> bool:
    """No contradiction: "what" fits any answer; who/where/when/how many only their own type.
    An answer without a label (a table cell) is typed by its value."""
    asked = asked_word(question)
    label = label or value_label(name)
    return asked == "what" or asked == question_word(name, label)
