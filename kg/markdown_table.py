"""Markdown tables, as the dataset card and the evaluation report print them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def markdown_table(columns: Sequence[str], rows: Iterable[Sequence[object]], numeric: int = 0) -> list[str]:
    """The table's lines: a header, its separator, a line per row. Cells are
    printed with str(); the last `numeric` columns are right-aligned (numbers)."""
    left = len(columns) - numeric
    separator = "|" + "".join("---|" if i < left else "---:|" for i in range(len(columns)))
    return ["| " + " | ".join(columns) + " |", separator,
            *["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]]
