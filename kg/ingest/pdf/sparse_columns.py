"""Two columns of a rebuilt grid that are one printed column, joined.

Earnings releases set a "$" before the first row's amounts and right-align every amount. pymupdf's
cell boxes then start the first row's "$ 396,013" one box to the left of the "306,870" under it, so
one printed column becomes two half-filled ones and the first row's value moves under another
column's name (BlackRock's AUM tables, q59/q60: "the Long-term row's 8,365,925 sits one column left
of the others"). Two neighbouring value columns are one when no row fills both (a currency sign
alone counts as empty: it opens the amount beside it) and at most one of them has a name.
"""

from __future__ import annotations

CURRENCY = frozenset(("$", "€", "£", "¥"))


def join_complementary(rows: list[list[str]]) -> list[list[str]]:
    """The header and body rows with each pair of complementary neighbouring columns (after the label
    column) joined, left to right; a currency sign and the amount beside it become one cell."""
    if len(rows) < 3:
        return rows
    rows = [list(r) for r in rows]
    j = 1
    while j < len(rows[0]) - 1:
        if _complementary(rows, j):
            for row in rows:
                row[j:j + 2] = [row[j] if row[j] == row[j + 1] else " ".join(c for c in (row[j], row[j + 1]) if c)]
        else:
            j += 1
    return rows


def _complementary(rows: list[list[str]], j: int) -> bool:
    header, body = rows[0], rows[1:]
    if header[j] and header[j + 1] and header[j] != header[j + 1]:
        return False  # two names: two columns
    filled = [(_value(r[j]), _value(r[j + 1])) for r in body]
    signs = any(r[j] in CURRENCY for r in body)  # a column of currency signs opens the amounts beside it
    return not any(a and b for a, b in filled) and (signs or any(a for a, _ in filled)) and any(b for _, b in filled)


def _value(cell: str) -> bool:
    return bool(cell) and cell not in CURRENCY
