"""Evidence windows (builders/chains/windows.py): what of a hop's text the writer and the verifier see."""

from __future__ import annotations

from builders.chains.windows import evidence_window


def test_evidence_windows_are_whole_sentences_around_the_bridge():
    text = " ".join(f"Sentence {i} mentions item{i} in passing." for i in range(200))
    window = evidence_window(text, 300, ["item150"])
    assert "item150" in window and len(window) <= 300
    assert window.startswith("Sentence ") and window.endswith("in passing.")
    assert evidence_window("Short text.", 300, ["x"]) == "Short text."
    # The sentence naming both the incoming bridge and the answer is the one kept in view.
    both = evidence_window(text.replace("item190 in passing", "item20 and item190 together"), 200, ["item20", "item190"])
    assert "item20 and item190 together" in both


def test_a_table_window_keeps_its_header_and_the_bridges_row():
    """q19: a 30-row table cut at 1,500 characters lost the row its question asked about."""
    rows = "\n".join(f"| Bench{i} | Accuracy | {i}-shot |" for i in range(120))
    table = f"Table 21: Evaluation details.\n\n| Evaluation | Metric | n-shot |\n|---|---|---|\n{rows}"
    window = evidence_window(table, 400, ["Bench100"])
    assert window.startswith("Table 21: Evaluation details.\n\n| Evaluation | Metric | n-shot |\n|---|---|---|\n")
    assert "| Bench100 | Accuracy | 100-shot |" in window and len(window) <= 400
    assert "| Bench99 |" in window and "| Bench101 |" in window  # rivals on both sides
    assert all(line.startswith(("Table", "|")) or not line for line in window.splitlines())  # whole rows


def test_a_table_whose_header_fills_the_window_is_cut_as_sentences():
    caption = " ".join(f"Caption sentence {i} says what column {i} holds." for i in range(30))
    table = f"{caption}\n\n| A | B |\n|---|---|\n| x | 1 |"
    window = evidence_window(table, 200, ["column 12"])
    assert "column 12" in window and len(window) <= 200 and window.endswith("holds.")
