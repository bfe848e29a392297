"""Numbers a reader computes from the answering table: no way to identify a bridge.

q33 and q36: the writer identified a bridge by the number its hop reports, and the verifier found
that number in the last hop by arithmetic. RE2's DIIN was "at least 17 times slower" (the next
table's 0.85 s/batch against RE2's 0.05); GAIN-BERTbase "improves 2.22 F1 on dev" (the results
table's 61.22 against the baseline's 59.00). Either way the table alone picks the row out, and the
hop that stated the number is not needed. A fact's number is so computed when it is the difference
or the ratio, to its printed precision, of the bridge row's cell and another row's cell of one
column of the answering table, or of two cells of the bridge row itself (q48: MiniCPM4's HellaSwag
found by "a 0.6pp improvement over FineWeb-edu", 42.76 against 42.17 in the same row): few pairs, so
a match by chance is rare. A cell that prints its change beside its value ("42.76−0.15") holds both
numbers (`cell_numbers`).
"""

from __future__ import annotations

import re

from builders.chains.tables import TableCell, TableIndex
from builders.chains.values import number


def _decimals(text: str) -> int:
    digits = text.strip().rstrip("%x×")
    return len(digits.split(".")[-1]) if "." in digits else 0


MIN_RATIO = 5.0  # "17 times": a smaller ratio ("2x") two cells of a column often have by chance


def _matches(value: float, decimals: int, a: float, b: float) -> bool:
    """Whether value, printed with decimals, is |a - b| rounded to them, or, from MIN_RATIO up, a / b or
    b / a rounded to value's decimals (a reviewer's simulation: a whole number matched some difference
    of an 8 x 6 table of whole numbers half the time)."""
    half = 0.5 * 10 ** -decimals + 1e-9
    if decimals and abs(abs(a - b) - value) <= half:  # a whole number is a difference of two cells by chance too often
        return True
    return value >= MIN_RATIO and any(y and abs(x / y - value) <= half for x, y in ((a, b), (b, a)))


# A value with its change printed beside it: "42.76−0.15", "31.80+2.96" (MiniCPM4's Table 2).
_WITH_CHANGE = re.compile(r"^\s*([-−]?[\d,]*\.?\d+%?)\s*([+−-])\s*([\d,]*\.?\d+%?)\s*$")


def cell_numbers(value: str) -> list[float]:
    """The numbers a cell prints: its value, and the change printed beside it, if any ([] for text)."""
    plain = number(value)
    if plain is not None:
        return [plain]
    match = _WITH_CHANGE.match(value)
    parts = [number(match.group(1)), number(match.group(3))] if match else []
    return [v for v in parts if v is not None]


def computed_number(words: list[str], cell: TableCell | None, index: TableIndex | None) -> str:
    """The first of `words` (a fact's describing words) that is a difference or ratio of the bridge row's
    cell and another row's cell of one column of `cell`'s table, or of two cells of the bridge row; ""
    when none is (or no table answers)."""
    if cell is None or index is None:
        return ""
    rows = {row: cells for (table, row), cells in index.cells.items() if table == cell.table_id}

    def value_of(c: TableCell) -> float | None:
        return next(iter(cell_numbers(c.value)), None)

    own = {c.column_label: value_of(c) for c in rows.get(cell.row, [])}
    pairs = [(a, value_of(c)) for r, cells in rows.items() if r != cell.row for c in cells
             if (a := own.get(c.column_label)) is not None]
    values = [v for v in own.values() if v is not None]
    pairs += [(a, b) for i, a in enumerate(values) for b in values[i + 1:]]
    pairs = [(a, b) for a, b in pairs if b is not None]
    for word in words:
        if word[:1] == "0" and word[1:2].isdigit():  # "08" of "14:08:57": a clock's or a date's part
            continue
        value = number(word)
        if value is not None and value > 0 and any(_matches(value, _decimals(word), a, b) for a, b in pairs):
            return word
    return ""


_PRINTED_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")


def printed_in_table(words: list[str], cell: TableCell | None, index: TableIndex | None, table_text: str = "") -> str:
    """The first of `words` (a fact's describing words) that the answering table prints as a cell
    value ("" when none does). q43: "the model whose level was reached once RL lifted AIME pass@1 from
    15.6% to 71.0%": the answering table prints 71.0 for DeepSeek-R1-Zero, beside o1-0912's 74.4, and
    the reader took the row next to it without the hop. A table pair never identifies its row so
    (table_pairs: a value the other table lacks); a prose fact may not either. A whole number under 10
    or a year is too common a cell to mean anything. `table_text`: the answering hop's text, whose
    every number counts, a column the index leaves out too (q50: MiniCPM-SALA's own column printed
    the 78.33 on AIME25 that identified AIME24 "beside" it)."""
    if cell is None or index is None:
        return ""
    printed = {v for (table, _row), cells in index.cells.items() if table == cell.table_id
               for c in cells for v in cell_numbers(c.value)}
    printed |= {v for m in _PRINTED_NUMBER.findall(table_text) if (v := number(m)) is not None}
    for word in words:
        value = number(word)
        if value is None or ("." not in word and (abs(value) < 10 or 1900 <= value <= 2100)):
            continue
        if value in printed or _rounded_from_scale(value, _decimals(word), printed):
            return word
    return ""


def _rounded_from_scale(value: float, decimals: int, printed: set[float]) -> bool:
    """`value` is a cell a thousand or a million times larger, rounded to `decimals` (q45: Ulta's prose
    "$737.9 million" is the balance sheet's 737,877 in thousands, "$1.6 billion" its 1,603,451): prose
    states in millions or billions what a release's tables print in thousands."""
    return decimals >= 1 and any(abs(round(v / scale, decimals) - value) < 1e-9
                                 for v in printed for scale in (1e3, 1e6) if abs(v) >= scale)


def table_number_reason(hop: int, words: list[str], cell: TableCell, index: TableIndex | None,
                        table_text: str = "") -> str:
    """Why hop `hop`'s describing words give the answering table's row away by a number ("" if not)."""
    if n := computed_number(words, cell, index):
        return f"pre-check: hop {hop}'s {n} is computed from two cells of the answering table"
    if n := printed_in_table(words, cell, index, table_text):
        return f"pre-check: hop {hop}'s {n} is printed in the answering table too"
    return ""


_CORE = re.compile(r"\d[\d,]*(?:\.\d+)?")


def states_value(text: str, value: str) -> bool:
    """Whether `text` prints the number of a table cell's `value` ("5.4 x" in "the net leverage ratio
    was 5.4x", q51): an earlier hop that states the answer leaves the answering table unneeded. A
    whole number under 100 is too common to count."""
    core = _CORE.search(value or "")
    if core is None or ("." not in core.group() and (number(core.group()) or 0) < 100):
        return False
    return re.search(r"(?<![\d.,])" + re.escape(core.group()) + r"(?![\d]|[.,]\d)", text or "") is not None



def derives_value(text: str, names: list[str], value: str) -> bool:
    """Whether the lines of `text` that name the bridge (`names`: a table's row, a prose sentence)
    print two numbers whose change gives `value`: a percentage that is their relative change, or a
    decimal that is their difference, to `value`'s printed precision. q47b: the reconciliation's row
    "Depreciation and amortization | 109,805 | ... | 96,231" gives the income statement's "14%"
    change, so the statement that printed it was not needed. Only the bridge's own lines count: a
    whole table's numbers would match a rounded percentage by chance."""
    target, decimals = number(value or ""), _decimals(value or "")
    if target is None or target == 0 or ("%" not in value and not decimals):
        return False
    lines = [ln for ln in (text or "").replace(". ", ".\n").splitlines()
             if any(n and n.casefold() in ln.casefold() for n in names)]
    numbers = [v for ln in lines for m in _PRINTED_NUMBER.findall(ln)
               if (v := number(m)) is not None and not is_year(m, v)]
    half = 0.5 * 10 ** -decimals + 1e-9
    for i, a in enumerate(numbers):
        for b in numbers[i + 1:]:
            if "%" in value and any(old and abs(abs(new - old) / abs(old) * 100 - abs(target)) <= half
                                    for old, new in ((a, b), (b, a))):
                return True
            if "%" not in value and abs(abs(a - b) - abs(target)) <= half:
                return True
    return False


def printed_result(word: str) -> bool:
    """Whether a word of a hop's fact is a number it prints for its bridge ("92.8", "103,563", "41.6%"),
    not a year ("2024"). Over the strict runs of sessions 12-19 (248 questions, read one by one), a bridge
    named by such a number was accepted 74 times of 86, 70 of them clearly needing every hop; one named by
    words alone 35 of 93, 17 clearly: the words told a practitioner the name."""
    value = number(word)
    if value is None or not any(ch.isdigit() for ch in word):
        return False
    return not is_year(word, value)


def is_year(word: str, value: float) -> bool:
    """A printed number that is a year ("2024"; not "2,024" or "2024.5")."""
    return 1900 <= value <= 2100 and "." not in word and "," not in word
