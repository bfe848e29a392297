"""Bars named by their own rotated tick labels: centred under the bar, or ending at its tick."""

from __future__ import annotations

from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.tick_labels import tick_names
from kg.ingest.pdf.types import Fill

BLUE, ORANGE, GREY = (0.3, 0.4, 0.9), (0.9, 0.5, 0.2), (0.6, 0.6, 0.6)
BARS = [Fill((100, 200, 116, 300), BLUE), Fill((140, 220, 156, 300), ORANGE), Fill((180, 240, 196, 300), GREY)]


def test_a_tick_label_names_only_the_bar_it_stands_centred_under():
    background = Fill((90, 150, 210, 300), (1.0, 1.0, 1.0))
    centred = [Line("Alpha", 101, 301, 115, 320), Line("Beta", 141, 301, 155, 318), Line("Gamma", 181, 301, 195, 322),
               Line("(tool)", 142, 310, 154, 325)]  # a label's second line joins its first
    names = tick_names(centred, [background, *BARS])
    assert sorted(names.values()) == ["Alpha", "Beta (tool)", "Gamma"]


def test_a_rising_label_names_the_bar_it_ends_under_not_the_one_its_middle_is_over():
    # Each box ends 3 points right of its bar's middle (108, 148, 188); its middle lies over the bar before.
    ending = [Line("Alpha", 80, 301, 111, 330, rising=True), Line("Beta", 121, 301, 151, 330, rising=True),
              Line("Gamma", 160, 301, 191, 330, rising=True)]
    index_of = {id(b): k for k, b in enumerate(BARS)}
    assert {index_of[k]: n for k, n in tick_names(ending, BARS).items()} == {0: "Alpha", 1: "Beta", 2: "Gamma"}


def test_a_label_placed_neither_way_names_no_bar():
    shifted = [Line(t, x0 - 12, 301, x1 - 12, 320) for t, x0, x1 in (("Alpha", 101, 115), ("Beta", 141, 155),
                                                                     ("Gamma", 181, 195))]
    assert tick_names(shifted, BARS) == {}  # not centred, and not rising: no end to read
    # ending at each bar as a rising label would, but set level or falling: no end is read from its box
    level = [Line("Alpha", 80, 301, 111, 330), Line("Beta", 121, 301, 151, 330), Line("Gamma", 160, 301, 191, 330)]
    assert tick_names(level, BARS) == {}


def test_a_chart_whose_labels_mostly_fit_no_placement_is_not_read():
    # Two of four labels end under a bar; the others stand between bars: half is no placement.
    mixed = [Line("Alpha", 80, 301, 111, 330, rising=True), Line("Beta", 121, 301, 151, 330, rising=True),
             Line("Delta", 125, 301, 166, 330, rising=True), Line("Gamma", 170, 301, 200, 330, rising=True)]
    assert tick_names(mixed, BARS) == {}


def test_a_horizontal_bar_is_named_by_the_label_level_with_it_on_its_left():
    from kg.ingest.pdf.tick_labels import side_names

    rows = [Fill((200, 100 + 20 * k, 200 + w, 114 + 20 * k), (1.0, 0.5 + 0.1 * k, 0.2)) for k, w in enumerate((90, 70, 50))]
    labels = [Line("Alpha", 150, 101, 197, 111), Line("Beta-7B", 140, 121, 197, 131), Line("Gamma", 150, 141, 197, 151)]
    index_of = {id(b): k for k, b in enumerate(rows)}
    assert {index_of[k]: n for k, n in side_names(labels, rows).items()} == {0: "Alpha", 1: "Beta-7B", 2: "Gamma"}
    between = [Line(t.text, t.x0, t.y0 + 10, t.x1, t.y1 + 10) for t in labels]  # each between two bars
    assert side_names(between, rows) == {}


def test_cells_of_one_length_beside_row_labels_are_a_heatmap_not_bars():
    from kg.ingest.pdf.tick_labels import side_names

    cells = [Fill((200, 100 + 20 * k, 260, 114 + 20 * k), (1.0, 0.5 + 0.1 * k, 0.2)) for k in range(3)]
    labels = [Line("Alpha", 150, 101, 197, 111), Line("Beta-7B", 140, 121, 197, 131), Line("Gamma", 150, 141, 197, 151)]
    assert side_names(labels, cells) == {}


def test_a_rising_label_ending_just_short_of_its_bar_still_names_it_and_its_second_line_joins_it():
    """GLM-4.5's Figure 1: a bold or short label ends up to 2.5 points before its bar's middle, and a long
    name is set on two rising lines, the second ending down and right of the first ("Qwen3-235B" over
    "-Thinking-2507", "DeepSeek-" over "R1-0528"). The bar's name is both lines, joined as printed."""
    bars = [Fill((100 + 28 * k, 200 + 20 * k, 117 + 28 * k, 300), GREY) for k in range(3)]  # middles 108.5, 136.5, 164.5
    ticks = [Line("o3", 96, 301, 108, 313, rising=True),  # ends 0.5 before its bar's middle
             Line("Qwen3-235B", 107, 301, 140, 334, rising=True), Line("-Thinking-2507", 108, 307, 145, 344, rising=True),
             Line("DeepSeek-", 140, 301, 169, 329, rising=True), Line("R1-0528", 151, 306, 175, 330, rising=True)]
    index_of = {id(b): k for k, b in enumerate(bars)}
    assert {index_of[k]: n for k, n in tick_names(ticks, bars).items()} == {
        0: "o3", 1: "Qwen3-235B-Thinking-2507", 2: "DeepSeek-R1-0528"}
    # the next bar's label beside a first line, level with it, continues nothing
    level = [Line("Alpha", 80, 301, 111, 330, rising=True), Line("Beta", 121, 301, 151, 330, rising=True),
             Line("Gamma", 160, 301, 191, 330, rising=True)]
    assert sorted(tick_names(level, BARS).values()) == ["Alpha", "Beta", "Gamma"]


def test_cells_of_one_height_over_rotated_labels_are_a_heatmap_not_bars():
    """ERNIE 5.0's Figure 9: a heatmap's bottom row of cells stands over its rotated column labels."""
    cells = [Fill((100 + 20 * k, 280, 120 + 20 * k, 300), (1.0, 0.8 - 0.1 * k, 0.3)) for k in range(3)]  # touching
    labels = [Line(t, 105 + 20 * k, 301, 115 + 20 * k, 320) for k, t in enumerate(("Text", "Image", "Video"))]
    assert tick_names(labels, cells) == {}
    bars = [Fill((102 + 20 * k, 300 - h, 118 + 20 * k, 300), (1.0, 0.8 - 0.1 * k, 0.3)) for k, h in enumerate((20, 50, 35))]
    assert sorted(tick_names(labels, bars).values()) == ["Image", "Text", "Video"]
    even = [Fill((102 + 20 * k, 280, 118 + 20 * k, 300), (1.0, 0.8 - 0.1 * k, 0.3)) for k in range(3)]  # apart
    assert sorted(tick_names(labels, even).values()) == ["Image", "Text", "Video"]  # bars of about one value
