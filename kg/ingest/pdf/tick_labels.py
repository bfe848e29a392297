"""Bars named by their own rotated tick labels, for bar charts with no legend.

A chart with no legend names each bar by a label set under it at an angle (gpt-oss's and
LongCat-Flash-Omni's benchmark figures). A rotated label is placed one of two ways:

* centred under its tick: its box's middle stands over the bar's middle;
* ending at its tick (matplotlib's `rotation=45, ha="right"`, the usual idiom): the text
  rises to the right and stops under the bar, so its box's right edge stands just right
  of the bar's middle (or up to END_BEFORE short of it, for a bold or short label), while
  the box's middle lies over the bar before. A long name set on two rising lines ends
  its second line a line's height down and right of its first ("Qwen3-235B" over
  "-Thinking-2507"): the two are one name.

Which way a chart sets its labels is read from the labels themselves: the placement under
which at least MIN_PLACED of the labels at the bars' base name exactly one bar each. A
chart that fits neither is not read (a guessed placement would name every bar by its
neighbour's label).

Horizontal bars name each bar by an upright label left of its base, level with it
(matplotlib's `barh`: Baichuan-M3's score panels, one bar a model, each a shade of one
colour, so no legend could tell them apart): `side_names`.
"""

from __future__ import annotations

from typing import Callable

from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.types import Fill, join_lines

TICK_GAP = 14.0  # points between a bar's base and the top of a tick label line under it (a second line too)
TICK_CENTRE = 3.5  # points between a bar's middle and the middle of its centred tick label's box
# points between a bar's middle and the right edge of a label ending at its tick: the box's corner
# lies past the text's end by half the line's height along the slope (2.7-2.9 points at 5.6-point type)
END_REACH = 7.0
# points a label's end may stop short of its bar's middle: GLM-4.5's Figure 1 ends "o3" 0.5 and the bold
# "GLM-4.5" 2.5 points before it (the glyph box of a bold or short label ends earlier)
END_BEFORE = 3.0
MAX_SECOND_LINE_STEP = 12.0  # points right plus down from a rising label's end to its second line's end
MAX_BAR_WIDTH = 40.0  # points: a wider filled shape is a panel's background, not a bar
MIN_PLACED = 0.75  # share of the labels at the bars' base that must name one bar each under one placement


def _centred(tick: Line, bar: Fill) -> bool:
    return abs((bar.rect[0] + bar.rect[2]) / 2 - tick.cx) <= TICK_CENTRE


def _ending(tick: Line, bar: Fill) -> bool:
    return tick.rising and -END_BEFORE <= tick.x1 - (bar.rect[0] + bar.rect[2]) / 2 <= END_REACH


def _continues(second: Line, first: Line) -> bool:
    """Whether `second` is the next line of the rising label `first`: lines of one label end one under
    the other, so the second's end lies a line's height from the first's, as far right as down (the
    next label's end lies beside it, level: GLM-4.5's "Qwen3-235B" over "-Thinking-2507")."""
    dx, dy = second.x1 - first.x1, second.y0 - first.y0
    return (second.rising and first.rising and dx > 0 and dy > 0 and dx + dy <= MAX_SECOND_LINE_STEP
            and abs(dx - dy) <= max(3.0, 0.5 * max(dx, dy)))


def _second_lines(ticks: list[Line]) -> dict[int, Line]:
    """id(second line) -> the first line of its rising label, for lines that continue exactly one."""
    out = {}
    for second in ticks:
        firsts = [t for t in ticks if t is not second and _continues(second, t)]
        if len(firsts) == 1 and not any(_continues(firsts[0], t) for t in ticks if t is not firsts[0]):
            out[id(second)] = firsts[0]
    return out


def _lines_by_bar(at_base: list[Line], under: Callable[[Line], list], placed: Callable) -> dict[int, list[Line]]:
    lines_of: dict[int, list[Line]] = {}
    for tick in at_base:
        mine = [b for b in under(tick) if placed(tick, b)]
        if len(mine) == 1:
            lines_of.setdefault(id(mine[0]), []).append(tick)
    return lines_of


def tick_names(ticks: list[Line], fills: list[Fill]) -> dict[int, str]:
    """id(bar) -> the name printed under it; {} unless one placement (centred or ending at the tick)
    names one bar for MIN_PLACED of the labels at the bars' base. A centred label's second line
    joins its first ("o3" over "(tool)"); a bar with two lines ending at it is left unnamed (a
    second line of a rising label ends elsewhere, so two there are two labels)."""
    bars = [f for f in fills if 2 <= f.rect[2] - f.rect[0] <= MAX_BAR_WIDTH and f.rect[3] - f.rect[1] >= 1]
    by_id = {id(b): b for b in bars}

    def under(tick: Line) -> list[Fill]:
        return [b for b in bars if -2 <= tick.y0 - b.rect[3] <= TICK_GAP]

    at_base = [t for t in ticks if any(c.isalpha() for c in t.text) and under(t)]
    if not at_base:
        return {}
    seconds = _second_lines(at_base)
    centred = _lines_by_bar(at_base, under, _centred)
    ending = _lines_by_bar([t for t in at_base if id(t) not in seconds], under, _ending)
    ending = {k: v for k, v in ending.items() if len(v) == 1}
    for second in (t for t in at_base if id(t) in seconds):  # it ends where its first line's bar is
        bar = next((k for k, v in ending.items() if v[0] is seconds[id(second)]), None)
        if bar is not None:
            ending[bar].append(second)
    lines_of = max(centred, ending, key=lambda found: sum(len(v) for v in found.values()))
    if sum(len(v) for v in lines_of.values()) < MIN_PLACED * len(at_base):
        return {}
    # Boxes of one height side by side with no gap over rotated labels are a heatmap's bottom row (ERNIE
    # 5.0's Figure 9), not bars; bars of about one value stand apart.
    boxes = sorted((by_id[k] for k in lines_of), key=lambda b: b.rect[0])
    touching = sum(1 for a, b in zip(boxes, boxes[1:]) if b.rect[0] - a.rect[2] <= 1.0)
    if len({round(b.rect[3] - b.rect[1]) for b in boxes}) == 1 and touching >= 0.5 * (len(boxes) - 1):
        return {}  # (the panels of a heatmap stand apart, their cells touch)
    return _named(lines_of, by_id)


def _named(lines_of: dict[int, list[Line]], by_id: dict[int, Fill]) -> dict[int, str]:
    """id(bar) -> its label's lines joined top to bottom; a white box (a panel's ground) is no bar."""
    names = {k: join_lines([" ".join(t.text.split()) for t in sorted(v, key=lambda t: t.y0)]) for k, v in lines_of.items()}
    return {k: n for k, n in names.items() if by_id[k].rgb != (1.0, 1.0, 1.0)}


def _level(label: Line, bar: Fill) -> bool:
    return abs((bar.rect[1] + bar.rect[3]) / 2 - label.cy) <= TICK_CENTRE


def side_names(lines: list[Line], fills: list[Fill]) -> dict[int, str]:
    """id(bar) -> the upright label printed left of its base and level with its middle, for horizontal
    bars with no legend; {} unless MIN_PLACED of the labels standing just left of a bar name one bar
    each. Labels are names (letters), never numbers."""
    bars = [f for f in fills if 2 <= f.rect[3] - f.rect[1] <= MAX_BAR_WIDTH and f.rect[2] - f.rect[0] >= 1]
    by_id = {id(b): b for b in bars}

    def beside(label: Line) -> list[Fill]:
        return [b for b in bars if -2 <= b.rect[0] - label.x1 <= TICK_GAP
                and b.rect[1] - 2 <= label.cy <= b.rect[3] + 2]

    at_base = [ln for ln in lines if any(c.isalpha() for c in ln.text) and beside(ln)]
    placed = _lines_by_bar(at_base, beside, _level)
    placed = {k: v for k, v in placed.items() if len(v) == 1}
    if not at_base or len(placed) < MIN_PLACED * len(at_base):
        return {}
    # Boxes of one length in a row beside labels are a heatmap's or a table's cells, not bars of values.
    if len({round(by_id[k].rect[2] - by_id[k].rect[0]) for k in placed}) == 1:
        return {}
    return _named(placed, by_id)
