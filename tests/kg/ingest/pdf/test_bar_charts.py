"""Bar charts told apart by colour (kg/ingest/pdf/bar_charts.py): each bar's value is paired with the
series its colour's legend entry names and the group its axis label names, or left out."""

from __future__ import annotations

import json

from kg.ingest.pdf import read_pdf
from kg.ingest.pdf.bar_charts import read_bars
from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.types import Fill
from pdf_maker import GROUPED_GROUPS, GROUPED_SERIES, GROUPED_VALUES, grouped_bar_chart_report

BLUE, ORANGE, GREY = (0.3, 0.4, 0.9), (0.9, 0.5, 0.2), (0.6, 0.6, 0.6)


def _legend(*entries):
    """Swatches at y 10-18 with their names just right of them."""
    fills, lines = [], []
    for i, (name, colour) in enumerate(entries):
        x = 10 + 100 * i
        fills.append(Fill((x, 10, x + 10, 18), colour))
        lines.append(Line(name, x + 14, 9, x + 60, 19))
    return fills, lines


def test_a_grouped_chart_in_a_pdf_is_read_bar_by_bar(tmp_path):
    """Every bar of the generated chart comes back as (series, group, value), as printed."""
    parsed = read_pdf(grouped_bar_chart_report(tmp_path / "grouped.pdf"), tmp_path / "assets", workers=1)
    chart = next(i for i in parsed.images if i.label == "Figure 1")
    expected = {(name, f"{group} (Acc.)", str(GROUPED_VALUES[s][g]), "")
                for s, (name, _c) in enumerate(GROUPED_SERIES) for g, group in enumerate(GROUPED_GROUPS)}
    assert {tuple(t) for t in json.loads(chart.bar_values)} == expected


def test_a_legend_drawn_apart_and_a_frame_around_the_caption_stay_the_figures(tmp_path):
    """A legend strip above the plot (too thin to be a figure of its own) and a border drawn around chart
    and caption both belong to the chart: its bars are read and the legend's names are no prose."""
    for layout in ("legend_apart", "framed"):
        pdf = grouped_bar_chart_report(tmp_path / f"{layout}.pdf", layout=layout)
        parsed = read_pdf(pdf, tmp_path / f"assets_{layout}", workers=1)
        chart = next(i for i in parsed.images if i.label == "Figure 1")
        assert len(json.loads(chart.bar_values)) == 9, layout
        assert not any("Korvex Brumhal" in b.text for b in parsed.blocks), layout


def test_vertical_bars_pair_colour_group_and_the_number_above_each():
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    bars, labels = _two_groups()
    fills, lines = fills + bars, lines + labels
    assert read_bars(lines, fills) == [("Alpha", "MMLU", "81.0", ""), ("Beta", "MMLU", "77.5", ""),
                                       ("Alpha", "GSM8K", "84.2", ""), ("Beta", "GSM8K", "60.1", "")]
    in_percent = read_bars([*lines, Line("Accuracy (%)", 5, 100, 15, 180)], fills)
    assert {unit for *_read, unit in in_percent} == {"%"}  # the axis title says what the numbers are


def test_horizontal_bars_pair_the_number_beside_each():
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    fills += [Fill((80, 50, 180, 58), BLUE), Fill((80, 60, 150, 68), ORANGE),
              Fill((80, 100, 160, 108), BLUE), Fill((80, 110, 200, 118), ORANGE)]
    lines += [Line("50.5", 183, 50, 200, 58), Line("35.0", 153, 60, 170, 68),
              Line("40.2", 163, 100, 180, 108), Line("61.3", 203, 110, 220, 118),
              Line("Recall", 40, 55, 75, 63), Line("Precision", 30, 105, 75, 113)]
    assert sorted(t[:3] for t in read_bars(lines, fills)) == [
        ("Alpha", "Precision", "40.2"), ("Alpha", "Recall", "50.5"), ("Beta", "Precision", "61.3"), ("Beta", "Recall", "35.0")]


def test_what_cannot_be_told_apart_is_left_out():
    """A colour no legend names, a number over two bars and two legend names for one colour give nothing:
    a guessed pairing would become a wrong answer."""
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    fills += [Fill((50, 100, 60, 200), BLUE), Fill((60, 100, 70, 200), ORANGE),  # equal heights, one number
              Fill((150, 90, 160, 200), BLUE), Fill((162, 140, 172, 200), ORANGE),
              Fill((174, 120, 184, 200), GREY)]  # no legend entry
    lines += [Line("81.0", 55, 90, 65, 98),
              Line("84.2", 150, 80, 160, 88), Line("60.1", 162, 130, 172, 138), Line("70.0", 174, 110, 184, 118),
              Line("MMLU", 48, 204, 74, 212), Line("GSM8K", 146, 204, 176, 212)]
    assert [t[:3] for t in read_bars(lines, fills)] == [("Alpha", "GSM8K", "84.2"), ("Beta", "GSM8K", "60.1")]
    two_names = _legend(("Alpha", BLUE), ("Delta", BLUE), ("Beta", ORANGE), ("Gamma", GREY))
    assert [t[:3] for t in read_bars(two_names[1] + lines[2:], two_names[0] + fills[2:])] == [
        ("Beta", "GSM8K", "60.1"), ("Gamma", "GSM8K", "70.0")]  # 81.0 stands over an unnamed bar too
    assert read_bars(lines, fills[2:]) == []  # no legend: no series to name


def _two_groups():
    """Two series' bars over MMLU and GSM8K, numbers above them."""
    fills = [Fill((50, 100, 60, 200), BLUE), Fill((62, 120, 72, 200), ORANGE),
             Fill((150, 90, 160, 200), BLUE), Fill((162, 140, 172, 200), ORANGE)]
    lines = [Line("81.0", 50, 90, 60, 98), Line("77.5", 62, 110, 72, 118),
             Line("84.2", 150, 80, 160, 88), Line("60.1", 162, 130, 172, 138),
             Line("MMLU", 48, 204, 74, 212), Line("GSM8K", 146, 204, 176, 212)]
    return fills, lines


def test_a_gain_badge_over_a_bar_is_no_value_and_a_label_broken_at_its_hyphen_joins_whole():
    """Step 3.5 Flash's Figure 6: "+3.4" in a badge over the RL bar is its gain, its 23.3 printed below;
    a group label printed as "CF-Div2-" over "Stepfun-cpp" is one name."""
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    bars, labels = _two_groups()
    badge = Line("+6.0", 62, 100, 72, 108)  # boxed over Beta's MMLU bar, its 77.5 below the badge
    badge_box = Fill((61, 99, 73, 109), (0.94, 0.97, 1.0))
    broken = [Line("CF-Div2-", 140, 204, 180, 212), Line("Stepfun-cpp", 142, 213, 178, 221)]
    read = read_bars(lines + [badge] + labels[:-1] + broken, fills + bars + [badge_box])
    assert ("Beta", "MMLU", "77.5", "") in read and not any(v.startswith("+") for _s, _g, v, _u in read)
    assert {g for _s, g, _v, _u in read} == {"MMLU", "CF-Div2-Stepfun-cpp"}
    signed = [Line("+6.0", 62, 110, 72, 118) if ln.text == "77.5" else ln for ln in labels]
    unboxed = read_bars(lines + signed, fills + bars)  # a chart of signed changes: its "+" values stand in no box
    assert ("Beta", "MMLU", "+6.0", "") in unboxed


def test_a_legend_printed_name_first_is_read_from_the_names_side():
    """Names left of their swatches, packed so that each swatch has the next entry's name as close to
    its right: the row starts with a name and ends with a swatch, so names come first; no series is
    shifted onto its neighbour's name. A row with a name at both ends and even gaps tells nothing."""
    fills, lines = _two_groups()
    legend_fills = [Fill((44, 10, 54, 18), BLUE), Fill((111, 10, 121, 18), ORANGE)]
    for legend_lines in ([Line("Alpha", 10, 9, 43, 19), Line("Beta", 57, 9, 110, 19)],  # own name tighter
                         [Line("Alpha", 10, 9, 41, 19), Line("Beta", 57, 9, 108, 19)]):  # 3 points either side
        read = read_bars(legend_lines + lines, legend_fills + fills)
        assert [t[:3] for t in read][:2] == [("Alpha", "MMLU", "81.0"), ("Beta", "MMLU", "77.5")]
    both_ends = [Line("Alpha", 10, 9, 41, 19), Line("Beta", 57, 9, 108, 19), Line("Gamma", 124, 9, 160, 19)]
    assert read_bars(both_ends + lines, legend_fills + fills) == []


def test_a_bar_drawn_twice_or_inside_another_is_no_crash_and_no_guess():
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    bars, labels = _two_groups()
    twice = fills + bars + [Fill((50, 100, 60, 200), BLUE)]  # the first bar drawn again on the same spot
    read = read_bars(lines + labels, twice)
    assert ("Alpha", "MMLU", "81.0", "") not in read and ("Beta", "GSM8K", "60.1", "") in read


def test_percent_only_when_no_axis_names_another_unit():
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    bars, labels = _two_groups()
    titles = [Line("Accuracy (%)", 5, 100, 15, 180), Line("Latency (ms)", 250, 100, 260, 180)]
    assert {t[3] for t in read_bars(lines + labels + titles[:1], fills + bars)} == {"%"}
    assert {t[3] for t in read_bars(lines + labels + titles, fills + bars)} == {""}


def test_only_opaque_filled_boxes_are_bars_or_swatches():
    from kg.ingest.pdf.layout import filled_rects

    def box(opacity, x=0):
        return {"fill": (0.3, 0.4, 0.9), "fill_opacity": opacity, "rect": (x, 0, x + 10, 50), "items": [("re",)]}

    assert len(filled_rects([box(1.0), box(None, 20), box(0.0, 40), box(0.3, 60)])) == 2  # invisible and faint: none


def test_a_box_drawn_twice_is_one_box_in_the_colour_drawn_last():
    """GLM-4.5's Figure 1 fills each small bar twice: two boxes would each claim the bar's value."""
    from kg.ingest.pdf.layout import filled_rects

    drawn = [{"fill": colour, "rect": (0, 0, 10, 50), "items": [("re",)]} for colour in (BLUE, GREY)]
    assert [(f.rect, f.rgb) for f in filled_rects(drawn)] == [((0, 0, 10, 50), GREY)]


def test_a_bar_drawn_past_its_axis_is_cut_at_its_clip_and_rounded_corners_keep_it_a_box():
    """Charts whose value axis starts above zero draw each bar down past the axis and clip it there;
    some round each corner with four curves (20 path items). The bar is what the clip shows."""
    from pymupdf import Point

    from kg.ingest.pdf.layout import filled_rects

    def side(a, b):
        return ("l", Point(*a), Point(*b))

    corner = ("c", Point(0, 0), Point(0, 0), Point(0, 0), Point(0, 0))
    rounded = [side((100, 200), (116, 200)), *[corner] * 4, side((116, 200), (116, 400)), *[corner] * 4,
               side((116, 400), (100, 400)), *[corner] * 4, side((100, 400), (100, 200)), *[corner] * 4]
    drawings = [{"type": "clip", "level": 1, "scissor": (90, 150, 300, 300)},
                {"type": "f", "level": 2, "fill": BLUE, "rect": (100, 200, 116, 400), "items": rounded},
                {"type": "clip", "level": 1, "scissor": (0, 0, 612, 792)},  # a later clip at the same level
                {"type": "f", "level": 2, "fill": ORANGE, "rect": (140, 250, 156, 400), "items": rounded}]
    assert [f.rect for f in filled_rects(drawings)] == [(100, 200, 116, 300), (140, 250, 156, 400)]
    slanted = [("l", Point(0, 0), Point(5, 9)) if item[0] == "l" else item for item in rounded]
    assert filled_rects([{**drawings[1], "items": slanted}]) == []  # a long path of slanted lines is a shape


def test_a_rotated_axis_label_is_read_but_gives_no_position(tmp_path):
    """Tick labels set at 45 degrees: their boxes' middles stand over the group before (a long label's
    box reaches far left of its tick), so no position is read from them: they are the figure's text,
    but no group label and no label of a value."""
    import pymupdf

    from pdf_maker import save

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "Results of two systems", fontsize=14)
    for s, (name, colour) in enumerate((("Alpha", BLUE), ("Beta", ORANGE))):
        page.draw_rect(pymupdf.Rect(110 + 100 * s, 150, 120 + 100 * s, 158), color=None, fill=colour)
        page.insert_text((124 + 100 * s, 158), name, fontsize=8)
    page.draw_rect(pymupdf.Rect(80, 165, 460, 400), color=(0, 0, 0), width=0.8)
    for g, group in enumerate(("Harbour traffic", "Canal crossings")):
        for s, colour in enumerate((BLUE, ORANGE)):
            x, top = 150 + 150 * g + 30 * s, 250 + 20 * s + 10 * g
            page.draw_rect(pymupdf.Rect(x, top, x + 26, 400), color=None, fill=colour)
            page.insert_text((x + 5, top - 3), f"{70 - 5 * s - 3 * g}.5", fontsize=7)
        page.insert_text((150 + 150 * g + 20, 410), group, fontsize=8, rotate=0,
                         morph=(pymupdf.Point(150 + 150 * g + 20, 410), pymupdf.Matrix(45)))
    page.insert_text((72, 470), "Figure 1: Scores of the two systems on two tasks.", fontsize=10)
    parsed = read_pdf(save(doc, tmp_path / "rotated.pdf"), tmp_path / "assets", workers=1)
    chart = next(i for i in parsed.images if i.label == "Figure 1")
    positioned = [row[0] for row in json.loads(chart.visible_lines)]
    assert "Harbour traffic" in chart.visible_text and "Harbour traffic" not in positioned
    assert "Alpha" in positioned and chart.bar_values == ""


def test_a_short_horizontal_bar_beside_its_tick_label_is_a_bar_not_a_swatch():
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    fills += [Fill((80, 50, 180, 58), BLUE), Fill((80, 60, 95, 68), ORANGE),  # Beta's MMLU bar: 15 points long
              Fill((80, 100, 160, 108), BLUE), Fill((80, 110, 200, 118), ORANGE)]
    lines += [Line("50.5", 183, 50, 200, 58), Line("3.0", 98, 60, 110, 68),
              Line("40.2", 163, 100, 180, 108), Line("61.3", 203, 110, 220, 118),
              Line("MMLU", 40, 55, 75, 63), Line("Precision", 30, 105, 75, 113)]
    assert len(read_bars(lines, fills)) == 4


def test_a_groups_parenthesis_is_no_unit_of_the_axis():
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    bars, labels = _two_groups()
    labels = [Line("MMLU (EM)", 44, 204, 80, 212) if ln.text == "MMLU" else ln for ln in labels]
    read = read_bars(lines + labels, fills + bars, [ln.text for ln in lines + labels] + ["Accuracy (%)"])
    assert {t[3] for t in read} == {"%"} and ("Alpha", "MMLU (EM)", "81.0", "%") in read


def test_a_chart_the_reader_cannot_make_sense_of_costs_no_document(tmp_path, monkeypatch):
    """Reading bars is an extra: if it fails on some drawing, the PDF is still read, the chart keeps its
    printed text, and only its bar_values stay empty."""
    import kg.ingest.pdf.figures as figures

    def broken(*_args):
        raise KeyError("a drawing the reader did not expect")

    monkeypatch.setattr(figures, "read_bars", broken)
    parsed = read_pdf(grouped_bar_chart_report(tmp_path / "grouped.pdf"), tmp_path / "assets", workers=1)
    chart = next(i for i in parsed.images if i.label == "Figure 1")
    assert chart.bar_values == "" and "Korvex" in chart.visible_text


def _bars_read(doc, path) -> dict[tuple[str, str], str]:
    """(series, group) -> value of the bars ingest reads in the document's Figure 1."""
    from pdf_maker import save

    parsed = read_pdf(save(doc, path), path.parent / "assets", workers=1)
    chart = next(i for i in parsed.images if i.label == "Figure 1")
    return {(s, g): v for s, g, v, _u in json.loads(chart.bar_values)}


def _panel_chart(page, centred: bool = True):
    """Two panels without a legend, each bar named by its own label set at 30 degrees under it (gpt-oss's
    Figure 1), each panel titled over its bars; `centred` False sets each label to end at its tick."""
    import pymupdf

    models = (("Zorvan-L", BLUE), ("Zorvan-S", ORANGE), ("Kettle-7", GREY))
    page.draw_rect(pymupdf.Rect(80, 120, 560, 350), color=(0, 0, 0), width=0.8)
    values = {"Harbour": ("91.2", "84.6", "77.3"), "Canal": ("66.1", "58.9", "71.4")}
    for p, (panel, numbers) in enumerate(values.items()):
        left = 100 + 220 * p
        page.insert_text((left + 8, 140), f"{panel} (Traffic)", fontsize=8)
        for b, ((name, colour), value) in enumerate(zip(models, numbers)):
            x, top = left + 20 * b, 300 - 1.5 * float(value)
            page.draw_rect(pymupdf.Rect(x, top, x + 16, 300), color=None, fill=colour)
            page.insert_text((x + 1, top - 3), value, fontsize=7)
            width = pymupdf.get_text_length(name, fontsize=7)
            # rotated about its start, a label rising at 30 degrees spans about 0.87 x width across
            start = x + 8 - (0.87 * width) / 2 if centred else x + 8 - 0.87 * width
            origin = pymupdf.Point(start, 308 + 0.5 * width)
            page.insert_text(origin, name, fontsize=7, morph=(origin, pymupdf.Matrix(30)))
    page.insert_text((72, 370), "Figure 1: Scores of three systems on two traffic tasks, each panel one task, each bar one system.",
                     fontsize=10)


def test_bars_named_by_their_own_rotated_labels_are_read_without_a_legend(tmp_path):
    """No legend: each bar carries its own name at 30 degrees under it, each panel a title over its
    bars. The names are read from the labels centred under the bars, the groups from the titles."""
    import pymupdf

    doc = pymupdf.open()
    _panel_chart(doc.new_page(width=612, height=792))
    bars = _bars_read(doc, tmp_path / "panels.pdf")
    assert bars == {("Zorvan-L", "Harbour (Traffic)"): "91.2", ("Zorvan-S", "Harbour (Traffic)"): "84.6",
                    ("Kettle-7", "Harbour (Traffic)"): "77.3", ("Zorvan-L", "Canal (Traffic)"): "66.1",
                    ("Zorvan-S", "Canal (Traffic)"): "58.9", ("Kettle-7", "Canal (Traffic)"): "71.4"}


def test_labels_set_to_end_at_their_tick_name_the_bar_they_end_under(tmp_path):
    """matplotlib's usual rotated ticks (rotation=45, ha="right"): each label rises to end under its
    bar, its box's middle over the bar before. Read by where it ends, each names its own bar."""
    import pymupdf

    doc = pymupdf.open()
    _panel_chart(doc.new_page(width=612, height=792), centred=False)
    bars = _bars_read(doc, tmp_path / "ending.pdf")
    assert bars == {("Zorvan-L", "Harbour (Traffic)"): "91.2", ("Zorvan-S", "Harbour (Traffic)"): "84.6",
                    ("Kettle-7", "Harbour (Traffic)"): "77.3", ("Zorvan-L", "Canal (Traffic)"): "66.1",
                    ("Zorvan-S", "Canal (Traffic)"): "58.9", ("Kettle-7", "Canal (Traffic)"): "71.4"}


def test_a_series_drawn_as_no_box_shifts_no_bar_into_the_group_before():
    """DeepSeek-V3.2's Figure 1 (q29): the second series is hatched (no filled box), so each group keeps a
    bar-wide hole after its first bar, and the gaps alone join a group's first bar to the group before.
    Each bar belongs to the label nearest it; a bar the gaps put elsewhere is read under no group."""
    fills, lines = _legend(("Alpha", BLUE), ("Gamma", GREY), ("Delta", ORANGE))
    for start, (a, c, d) in ((50, (90, 120, 100)), (84, (95, 130, 110))):  # Beta's bar is not drawn
        fills += [Fill((start, 200 - a, start + 8, 200), BLUE), Fill((start + 17, 200 - c, start + 25, 200), GREY),
                  Fill((start + 25, 200 - d, start + 33, 200), ORANGE)]
        lines += [Line(f"{a}.0", start, 200 - a - 9, start + 8, 200 - a - 1),
                  Line(f"{c}.0", start + 17, 200 - c - 9, start + 25, 200 - c - 1),
                  Line(f"{d}.0", start + 25, 200 - d - 9, start + 33, 200 - d - 1)]
    lines += [Line("MMLU", 55, 204, 80, 212), Line("GSM8K", 88, 204, 116, 212)]
    read = read_bars(lines, fills)
    assert ("Alpha", "MMLU", "95.0", "") not in read  # GSM8K's first bar, joined to MMLU by the gaps
    assert ("Gamma", "MMLU", "120.0", "") in read and ("Delta", "GSM8K", "110.0", "") in read


def test_a_tile_drawn_many_times_at_one_place_is_no_bar_and_two_axes_give_no_unit():
    from kg.ingest.pdf.bar_charts import on_shared_base

    bars, _ = _two_groups()
    tile = Fill((300, 50, 329, 79), BLUE)
    assert tile not in on_shared_base([*bars, tile, tile, tile], vertical=True)
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    two_groups, labels = _two_groups()
    axes = [Line("Accuracy (%)", 20, 100, 30, 180), Line("Codeforces Rating", 190, 100, 200, 190)]
    read = read_bars(lines + labels, fills + two_groups, [ln.text for ln in lines + labels + axes], axes)
    assert read and {unit for *_rest, unit in read} == {""}
    one_axis = read_bars(lines + labels, fills + two_groups, [ln.text for ln in lines + labels + axes[:1]], axes[:1])
    assert {unit for *_rest, unit in one_axis} == {"%"}


def test_horizontal_bars_named_by_their_side_labels_are_read_under_their_panels_title(tmp_path):
    """matplotlib's barh panels (Baichuan-M3's Figure 5): one bar a system, each a shade of one colour (no
    legend), its name left of it, its value right of it, each panel titled over its bars."""
    import pymupdf

    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.draw_rect(pymupdf.Rect(70, 95, 560, 200), color=(0, 0, 0), width=0.8)
    values = {"Harbour": ("91.2", "84.6", "77.3"), "Canal": ("66.1", "58.9", "71.4")}
    for p, (panel, numbers) in enumerate(values.items()):
        left = 130 + 240 * p
        page.insert_text((left + 20, 110), f"{panel} Score", fontsize=9)
        for k, (name, value) in enumerate(zip(("Zorvan-L", "Zorvan-S", "Kettle-7"), numbers)):
            top = 125 + 22 * k
            page.draw_rect(pymupdf.Rect(left, top, left + 1.5 * float(value), top + 16), color=None,
                           fill=(1.0, 0.45 + 0.15 * k, 0.1 + 0.2 * k))
            page.insert_text((left - 4 - pymupdf.get_text_length(name, fontsize=7), top + 11), name, fontsize=7)
            page.insert_text((left + 1.5 * float(value) + 3, top + 11), value, fontsize=7)
    page.insert_text((72, 220), "Figure 1: Scores of three systems on two traffic tasks, each panel one task, each bar "
                     "one system named at its left.", fontsize=10)  # as wide as both panels: one figure
    bars = _bars_read(doc, tmp_path / "barh.pdf")
    assert bars == {("Zorvan-L", "Harbour Score"): "91.2", ("Zorvan-S", "Harbour Score"): "84.6",
                    ("Kettle-7", "Harbour Score"): "77.3", ("Zorvan-L", "Canal Score"): "66.1",
                    ("Zorvan-S", "Canal Score"): "58.9", ("Kettle-7", "Canal Score"): "71.4"}


def test_panels_of_bars_named_by_their_ticks_are_grouped_by_panel_and_named_by_their_titles():
    """GLM-4.5's Figure 1: a wide panel of 17-point bars (gaps of 11-14 points, under a long title)
    over a row of small panels of 8-point bars, each titled over a note set smaller. Each panel is one
    group, told by its own bars' width, and named by its title, not by the note."""
    names = ("Alpha", "Beta", "Gamma", "Delta")
    fills, lines, ticks = [], [], []

    def panel(left, base, width, gaps, values, title, note=None):
        x = left
        for name, value, gap in zip(names, values, gaps):
            top = base - 2 * float(value)
            fills.append(Fill((x, top, x + width, base), GREY))
            lines.append(Line(value, x + 1, top - 9, x + width - 1, top - 1))
            ticks.append(Line(name, x + width / 2 - 25, base + 1, x + width / 2 + 2, base + 28, rising=True))
            x += width + gap
        size = 12 if note else 9
        lines.append(Line(title, left, base - 2 * max(map(float, values)) - 30, left + 4 * len(title), base - 2 * max(map(float, values)) - 30 + size))
        if note:
            lines.append(Line(note, left + 10, base - 2 * max(map(float, values)) - 16, left + 40, base - 2 * max(map(float, values)) - 11))

    panel(100, 200, 17, (11, 14, 12, 0), ("65.0", "63.6", "61.2", "58.8"), "Average Over Twelve Benchmarks Of Every Kind Here")
    panel(100, 420, 8, (3, 3, 3, 0), ("58.1", "55.4", "52.0", "50.3"), "Agentic", "Agentic Benchmarks: three")
    panel(200, 420, 8, (3, 3, 3, 0), ("74.2", "71.4", "70.0", "68.8"), "Reasoning", "Reasoning Benchmarks: four")
    read = {(s, g): v for s, g, v, _u in read_bars(lines, fills, [ln.text for ln in lines], ticks)}
    assert read[("Alpha", "Average Over Twelve Benchmarks Of Every Kind Here")] == "65.0"
    assert read[("Delta", "Average Over Twelve Benchmarks Of Every Kind Here")] == "58.8"
    assert read[("Beta", "Agentic")] == "55.4" and read[("Delta", "Reasoning")] == "68.8"
    assert len(read) == 12


def test_bars_each_with_its_own_label_are_groups_of_one_and_a_label_no_group_took_still_unnames():
    """OpenAI's system cards: "Comparison Models" and "gpt-5.2" in the legend, one bar a model with its
    name under it, the bars closer than a grouped chart's groups. Each bar is its own group, named by
    the label under it, never by its neighbour's."""
    fills, lines = _legend(("Comparison Models", BLUE), ("gpt-5.2", GREY))
    for k, (value, colour, name) in enumerate((("42%", BLUE, "gpt-5 browsing"), ("41%", BLUE, "gpt-5.1 browsing"),
                                               ("43%", GREY, "gpt-5.2 browsing"))):
        x = 100 + 60 * k  # 40-point bars 20 points apart: one group by the gaps alone
        fills.append(Fill((x, 100, x + 40, 200), colour))
        lines += [Line(value, x + 12, 90, x + 28, 98), Line(name, x + 2, 204, x + 38, 212)]
    assert sorted(read_bars(lines, fills)) == [("Comparison Models", "gpt-5 browsing", "42%", ""),
                                               ("Comparison Models", "gpt-5.1 browsing", "41%", ""),
                                               ("gpt-5.2", "gpt-5.2 browsing", "43%", "")]
    # with the chart's title over it all, each bar is its label's value of what the title measures
    titled = read_bars([Line("Professional CTFs", 10, 0, 90, 8), *lines], fills)
    assert sorted(titled) == [("gpt-5 browsing", "Professional CTFs", "42%", ""),
                              ("gpt-5.1 browsing", "Professional CTFs", "41%", ""),
                              ("gpt-5.2 browsing", "Professional CTFs", "43%", "")]


def test_a_hatched_series_a_white_plot_and_bars_past_the_page_foot_are_read(tmp_path):
    """DeepSeek's chart style (Prover-V2's, Janus-Pro's, R1's Figure 1): bars drawn down past the page's
    foot and clipped at the axis, a white plot background, the authors' own series hatched (outlined
    bars around a pattern, a swatch filled in two halves and outlined), a panel caption of 80+
    characters between chart and figure caption. Every bar is read, the hatched series' too."""
    from pdf_maker import hatched_chart_report

    parsed = read_pdf(hatched_chart_report(tmp_path / "hatched.pdf"), tmp_path / "assets", workers=1)
    chart = next(i for i in parsed.images if i.label == "Figure 1")
    expected = {(name, group, str(GROUPED_VALUES[s][g]), "")
                for s, (name, _c) in enumerate(GROUPED_SERIES) for g, group in enumerate(GROUPED_GROUPS)}
    assert {tuple(t) for t in json.loads(chart.bar_values)} == expected


def test_outlines_are_boxes_of_their_colour_unless_a_fill_covers_them():
    """An outline nothing fills is a box of its stroke colour; a white box outlined in a colour takes the
    outline's (a hatched swatch on a white ground); the outline of a box filled in pieces is its edge."""
    from kg.ingest.pdf.layout import filled_rects

    def drawn(kind, rect, colour):
        key = "fill" if kind == "f" else "color"
        return {"type": kind, key: colour, "rect": rect, "items": [("re",)]}

    hatched = filled_rects([drawn("s", (0, 0, 10, 50), BLUE)])
    assert [(f.rect, f.rgb, f.outlined) for f in hatched] == [((0, 0, 10, 50), BLUE, True)]
    swatch = filled_rects([drawn("f", (0, 0, 10, 4), (1, 1, 1)), drawn("s", (0, 0, 10, 4), BLUE)])
    assert [f.rgb for f in swatch] == [BLUE]
    halves = filled_rects([drawn("f", (0, 0, 5, 4), ORANGE), drawn("f", (5, 0, 10, 4), ORANGE),
                           drawn("s", (0, 0, 10, 4), (1, 1, 1))])
    assert sorted(f.rect for f in halves) == [(0, 0, 5, 4), (5, 0, 10, 4)] and {f.rgb for f in halves} == {ORANGE}
    edged = filled_rects([drawn("f", (0, 0, 10, 50), ORANGE), drawn("s", (0, 0, 10, 50), (1, 1, 1))])
    assert [f.rgb for f in edged] == [ORANGE]  # a coloured bar with a white edge keeps its colour


def test_a_legend_name_that_lost_its_last_glyph_names_no_series():
    """"PixArt-α" with its alpha drawn as a path reads "PixArt-": not the name a reader sees."""
    bars, labels = _two_groups()
    bars += [Fill((250, 95, 260, 200), BLUE), Fill((262, 110, 272, 200), ORANGE)]  # a third group
    labels += [Line("70.2", 250, 85, 260, 93), Line("65.3", 262, 100, 272, 108), Line("ARC", 250, 204, 272, 212)]
    whole = read_bars(labels + _legend(("PixArt-α", BLUE), ("Beta", ORANGE))[1], _legend(("a", BLUE), ("b", ORANGE))[0] + bars)
    assert ("PixArt-α", "ARC", "70.2", "") in whole
    fills, lines = _legend(("PixArt-", BLUE), ("Beta", ORANGE), ("Gamma", GREY))
    read = read_bars(lines + labels, fills + bars)
    assert {s for s, *_rest in read} == {"Beta"} and ("Beta", "ARC", "65.3", "") in read


def test_a_stacked_chart_whose_numbers_stand_inside_its_segments_is_not_read():
    """Win/tie/lose shares set end to end in each bar, numbers inside the segments (Step-DeepResearch's
    Figure 10): the number just after a segment's end is the next segment's, so nothing is read."""
    from kg.ingest.pdf.bar_charts import _stacked

    fills, lines = _legend(("Win", BLUE), ("Tie", ORANGE), ("Lose", GREY))
    for row, shares in enumerate(((30, 50, 20), (30, 50, 25), (30, 50, 15), (30, 50, 10))):
        y, x = 60 + 20 * row, 80
        for share, colour in zip(shares, (BLUE, ORANGE, GREY)):
            fills.append(Fill((x, y, x + 2 * share, y + 12), colour))
            lines.append(Line(str(share), x + 3, y + 2, x + 11, y + 10))  # set at the segment's start
            x += 2 * share
        lines.append(Line(f"vs Rival {row}", 20, y + 2, 76, y + 10))
    assert _stacked([f for f in fills if f.rect[3] - f.rect[1] == 12])
    assert read_bars(lines, fills) == []
    fills, _lines = _two_groups()
    touching = [Fill((60, 120, 70, 200), ORANGE) if f.rgb == ORANGE and f.rect[0] == 62 else f for f in fills]
    assert not _stacked(touching)  # bars of a group side by side, of other lengths: no stack


def test_one_value_out_of_many_boxes_is_no_chart_read():
    """A diagram of coloured cells with numbers in them (DeepSeek-V3's pipeline schedule) may pair one
    cell with one number: one value is no chart read."""
    fills, lines = _legend(("Alpha", BLUE), ("Beta", ORANGE))
    bars, labels = _two_groups()
    lone = [ln for ln in labels if ln.text not in ("77.5", "84.2", "60.1")]  # only Alpha's 81.0 printed
    assert read_bars(lines + lone, fills + bars) == []
    assert len(read_bars(lines + labels, fills + bars)) == 4


def test_a_row_of_tick_labels_printed_as_one_block_under_the_axis_is_the_figures():
    """Ling's Figures 1 and 2 (q60): the six benchmark names under the axis came as one text block of
    eight words, partly below the drawings; taken as prose, the chart had no group labels and no bar
    was read. A caption-like line of many words under a figure stays prose."""
    import pymupdf

    from kg.ingest.pdf.figures import take_figure_text
    from kg.ingest.pdf.types import Line as PageLine, RawBlock, RawPage
    from kg.models import ImageRef

    names = ["MMLU-Pro", "GPQA", "LiveCodeBench", "AIME 2024", "BFCL_v2", "C-Eval"]
    ticks = RawBlock([PageLine(n, (85 + 70 * i, 322, 130 + 70 * i, 336), 7, False) for i, n in enumerate(names)], 2)
    prose = RawBlock([PageLine("We compare the models on six public benchmarks in all", (85, 330, 500, 342), 9, False)], 2)
    page = RawPage(2, pymupdf.Rect(0, 0, 612, 792), [ticks, prose], [], [])
    figure = ImageRef(id="f", path="", page=2, bbox=[80, 100, 510, 330], caption="Figure 1: Performance.")
    take_figure_text(page, [figure])
    assert figure.visible_text.split("\n") == names
    assert page.blocks == [prose]
