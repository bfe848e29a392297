"""Names that say nothing of a row (builders/chains/name_forms.py)."""

from __future__ import annotations

from builders.chains.name_forms import ordinary_word


def test_an_everyday_word_is_no_rows_name_with_or_without_marks_around_it():
    """q34: PepsiCo's "• Total" row bridged two tables ("the reporting line whose effective net pricing
    contributed 15 points"): the bullet made it two words, and the everyday-word rule let it through."""
    for label in ("Total", "• Total", "Total:", "(Total)", "Total†"):
        assert ordinary_word(label), label
    for label in ("Frito-Lay North America", "PBNA", "Qwen3-235B", "• Kettle-7", "Total revenue"):
        assert not ordinary_word(label), label
