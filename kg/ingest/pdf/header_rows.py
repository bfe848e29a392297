"""The header rows of a table rebuilt from its printed words (printed_table.printed_grid): spanned
header cells take the spanning text, and rows of column names under the header join it, a row of
values never does."""

from __future__ import annotations

import re

from kg.ingest.tables import TableGrid, label_column

_NUMBER_RE = re.compile(r"^[(\[]?[-−–+±]?[$€£¥]?\d[\d,]*(?:\.\d+)?%?[)\]]?[*†‡]*$")
_YEAR = re.compile(r"(?:19|20)\d\d")


def is_number(text: str) -> bool:
    """A printed value: a number with its sign, currency, percent, brackets or footnote marks."""
    return bool(_NUMBER_RE.match(text))


def merge_header_rows(rows: list[list[str | None]]) -> list[list[str]]:
    """Spanned header cells take the spanning text; sub-header rows join the header."""
    if not rows:
        return []
    header = _spread(rows[0])
    body = rows[1:]
    numeric_below = [any(is_number(t) for c in row if c for t in c.split()) for row in body]
    at = label_column(TableGrid(header, [[c or "" for c in row] for row, numeric in zip(body, numeric_below) if numeric]))
    while len(body) > 1 and (_sub_header(body[0], header, at) or _header_wrap(body[0], header)) and any(numeric_below[1:]):
        numeric_below.pop(0)
        below = _spread(body.pop(0))
        header = [h if b == h else f"{h}{b}" if h.endswith("-") else f"{h} {b}".strip() for h, b in zip(header, below)]
    return [header, *([c or "" for c in row] for row in body)]


def _spread(row: list[str | None]) -> list[str]:
    out: list[str] = []
    for cell in row:
        out.append(out[-1] if cell is None and out else (cell or ""))
    return out


def _header_wrap(row: list[str | None], header: list[str]) -> bool:
    """The rest of header cells broken at a hyphen ("S2ORC-" over "SCIBERT"), alone on the next row."""
    filled = [j for j, c in enumerate(row) if c]
    return bool(filled) and all(header[j].endswith("-") and not is_number(row[j] or "") for j in filled)


def _sub_header(row: list[str | None], header: list[str], at: int = 0) -> bool:
    """A row of column names under the header: several cells, none opening with a value ("GPT-4o 0513" is
    a name) or all years, no row label in the label column `at` (or the header has none either: "Models"
    under an empty corner). dots.llm1's "Architecture | Dense | MoE" under "Benchmark (Metric)" is a row."""
    cells = [c.split() for c in row if c and c.strip()]
    years = all(len(c) == 1 and _YEAR.fullmatch(c[0]) for c in cells)  # "2026 | 2025" under "June 30,"
    labelled = at < len(row) and bool(row[at]) and at < len(header) and bool(header[at])
    return (not labelled and len(cells) >= 2 and not any(_holds_value(c) for c in cells)
            and (years or not any(is_number(c[0]) for c in cells if c[0] not in "-–—")))


def _holds_value(words: list[str]) -> bool:
    """Whether a cell's words hold an amount: a number after a currency sign, with a thousands comma, in
    brackets, or of three digits or more that is no year or day ("(In millions) $ 730", "841"; not the "0513"
    of "GPT-4o 0513", the "2.5" of "Gemini 2.5" or the "4" of "Claude 4 Opus")."""
    for i, word in enumerate(words):
        digits = word.strip("()$€£¥%")
        if not is_number(word) or _YEAR.fullmatch(digits) or digits.startswith("0"):
            continue
        if word[:1] in "($€£¥" or re.search(r"\d,\d", word) or (i and words[i - 1] in "$€£¥") \
                or len(digits.split(".")[0].rstrip(",")) >= 3:  # not the "28," of "January 28, 2023"
            return True
    return False
