"""report.md is built from metrics.json: tables for what ran, nothing for what did not."""

from __future__ import annotations

from evaluate.report import table, write_report


def test_table_formats_floats_and_missing_cells():
    assert table([{"a": 0.12345, "b": None}], ["a", "b"]).splitlines()[-1] == "| 0.123 | - |"


def test_a_report_with_only_the_dataset_section(tmp_path):
    everything = {"dataset": {"figures": {"hops_mean": 2.5}, "notes": ["judged parts need an LLM"]}}
    text = write_report(everything, tmp_path).read_text()
    assert "| hops_mean | 2.500 |" in text and "judged parts need an LLM" in text
    assert "## Retrieval" not in text and "MiRAGE full pipeline faithfulness 0.97" in text
