"""Which bars stand together and what names each group (kg/ingest/pdf/bar_groups.py)."""

from __future__ import annotations

from kg.ingest.pdf.bar_groups import chart_title, group_labels, split_by_labels
from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.types import Fill

GREY = (0.6, 0.6, 0.6)


def test_stacked_lines_of_one_size_join_and_a_smaller_note_under_a_title_does_not():
    joined = group_labels([Line("AIME 2024", 100, 204, 140, 212), Line("(Pass@1)", 104, 213, 136, 221)], vertical=True)
    assert [ln.text for ln in joined] == ["AIME 2024 (Pass@1)"]
    title_and_note = group_labels([Line("Agentic", 100, 100, 130, 111), Line("Agentic Benchmarks: four", 102, 112, 128, 117)],
                                  vertical=True)
    assert [ln.text for ln in title_and_note] == ["Agentic", "Agentic Benchmarks: four"]


def test_a_group_splits_into_bars_only_when_each_has_a_label_of_its_own_under_it():
    bars = [Fill((100 + 60 * k, 100, 140 + 60 * k, 200), GREY) for k in range(3)]
    own = [Line(f"model-{k}", 102 + 60 * k, 204, 138 + 60 * k, 212) for k in range(3)]
    assert split_by_labels([bars], own, vertical=True) == [[b] for b in bars]
    one = [Line("Harbour", 150, 204, 190, 212)]  # one label centred under the group: a grouped chart
    assert split_by_labels([bars], one, vertical=True) == [bars]


def test_the_charts_title_is_the_top_line_over_its_bars_unless_a_legend_name_or_a_number():
    bars = [Fill((100, 100, 140, 200), GREY)]
    assert chart_title([Line("Professional CTFs", 10, 0, 90, 8), Line("82%", 110, 90, 130, 98)], bars, {}) == "Professional CTFs"
    assert chart_title([Line("gpt-5.2", 10, 0, 40, 8)], bars, {GREY: "gpt-5.2"}) == ""
    assert chart_title([Line("100%", 10, 0, 40, 8)], bars, {}) == ""
