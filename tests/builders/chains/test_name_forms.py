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


def test_a_row_that_names_a_role_is_no_table_bridge():
    """q49: AutoNER's paper calls LSTM-CRF "Supervised Benchmark" in one table and a challenge's winner
    in the next; a table pair joined the two rows and the verifier found the answer unfaithful. A row
    named by role words only (and everyday ones) is no bridge; a system's name among them still is."""
    from builders.chains.name_forms import role_label, table_bridge_reason

    rows = ["Dictionary Match", "Fuzzy-LSTM-CRF", "AutoNER"]
    assert "names a role" in table_bridge_reason("Supervised Benchmark", "Supervised Benchmark", rows)
    assert role_label("Random baseline") and role_label("Human") and role_label("Best previous system")
    assert not role_label("Supervised BERT") and not role_label("AutoNER") and not role_label("Dictionary Match")
    assert table_bridge_reason("Fuzzy-LSTM-CRF", "Fuzzy-LSTM-CRF", ["Dictionary Match", "AutoNER"]) == ""
