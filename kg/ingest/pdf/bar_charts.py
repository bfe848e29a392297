"""Bar charts drawn as vector graphics, read as (series, group, value) triples.

A grouped bar chart tells its series apart by colour only: the legend puts a small
swatch of each colour beside a name, and each bar's number is printed above (or,
for horizontal bars, beside) the bar. The printed text alone cannot say which
number is whose: "79.8, 79.2, 72.6" stand above five bars of five colours. The
page's drawings can: a bar's fill is a legend swatch's fill, its position along the
axis puts it under a group label ("AIME 2024 (Pass@1)"), and the number nearest its
end is its value. This module pairs them; a bar whose colour no legend names, a
number that no bar or more than one bar claims, or a bar under no group label is left
out rather than guessed.

It is what a reader sees in the picture, written down: figure_walk.py shows it to a
text-only writer and verifier as the figure's evidence.
"""

from __future__ import annotations

import re
import statistics

from kg.ingest.pdf.bar_groups import (BASE_TOLERANCE, GROUP_GAP, MAX_GROUP_WORDS, MAX_TITLE_WORDS, PANEL_GAP,
                                        bar_groups, chart_title, drop_misgrouped, group_labels, name_groups,
                                        split_by_labels, standing_bars)
from kg.ingest.pdf.chart_text import Line, is_number
from kg.ingest.pdf.tick_labels import side_names, tick_names
from kg.ingest.pdf.types import Fill

MAX_SWATCH_SIDE = 16.0  # points: a legend swatch is a small mark beside its name (this high at most)
SIDE_MARGIN = 1.0  # points: one side's typical gap must be this much tighter to be the names' side
MAX_SWATCH_WIDTH = 30.0  # and this wide (matplotlib's legend patches are 20 x 7 points)
SWATCH_GAP = 10.0  # points between a swatch's right edge and its name
VALUE_GAP = 14.0  # points between a bar's end and the number printed at it
MIN_SERIES = 2  # a legend names at least two colours (one colour needs no legend)
MIN_BARS = 3  # fewer is no chart worth reading as one
AXIS_UNIT = re.compile(r"[(\[]\s*(%|in %|[a-zA-Z$€£/]{1,6})\s*[)\]]\s*$")  # "Latency (ms)", "Accuracy (%)"
PERCENT_AXIS = re.compile(r"\(%\)|\[%\]|\bin %|\(in %\)")  # an axis title saying its values are percentages
COLOUR_DIGITS = 2  # fills of one series differ in the last digits between drawing calls


def _colour(fill: Fill) -> tuple[float, ...]:
    return tuple(round(c, COLOUR_DIGITS) for c in fill.rgb)


def split_numbers(line: Line) -> list[Line]:
    """A printed line of several numbers ("96.2 94.8": data labels of neighbouring bars that the PDF's
    text extraction joined on one baseline) as one line per number, each placed by its characters'
    share of the line's width; any other line as it is."""
    parts = line.text.split()
    if len(parts) < 2 or not all(is_number(p) for p in parts):
        return [line]
    width = (line.x1 - line.x0) / max(len(line.text), 1)
    out, start = [], 0
    for part in parts:
        at = line.text.index(part, start)
        out.append(Line(part, line.x0 + at * width, line.y0, line.x0 + (at + len(part)) * width, line.y1))
        start = at + len(part)
    return out


def legend(lines: list[Line], fills: list[Fill]) -> tuple[dict[tuple, str], set[int]]:
    """Colour -> series name from small swatches with a name beside them on their row, and the
    swatches' indexes. A legend prints each name on one side of its swatch: which side, each row's
    ends say (a row that starts with a name and ends with a swatch prints names first), else the side
    whose gaps are the tighter; when neither tells, no name is taken: reading the neighbour's name
    would shift every series by one. A colour with two names (or a name with two colours) is no entry."""
    labels = [ln for ln in lines if not is_number(ln.text) and any(c.isalpha() for c in ln.text)]
    beside: dict[int, dict[str, tuple[float, Line]]] = {}
    for i, fill in enumerate(fills):
        x0, y0, x1, y1 = fill.rect
        if y1 - y0 > MAX_SWATCH_SIDE or x1 - x0 > MAX_SWATCH_WIDTH or _short_bar(fill, fills):
            continue
        row = [ln for ln in labels if ln.y0 - 2 <= (y0 + y1) / 2 <= ln.y1 + 2]
        sides = {"right": [(ln.x0 - x1, ln) for ln in row if 0 <= ln.x0 - x1 <= SWATCH_GAP],
                 "left": [(x0 - ln.x1, ln) for ln in row if 0 <= x0 - ln.x1 <= SWATCH_GAP]}
        found = {side: min(f, key=lambda g: g[0]) for side, f in sides.items() if len(f) == 1}
        if found:
            beside[i] = found
    names: dict[tuple, set[str]] = {}
    swatches: set[int] = set()
    for row in _legend_rows(beside, fills):
        side = _own_side(row, beside, fills)
        for i in row:
            if side in beside[i]:
                names.setdefault(_colour(fills[i]), set()).add(" ".join(beside[i][side][1].text.split()))
                swatches.add(i)
    entries = {colour: next(iter(n)) for colour, n in names.items() if len(n) == 1}
    counts: dict[str, int] = {}
    for name in entries.values():
        counts[name] = counts.get(name, 0) + 1
    # A name ending in a hyphen lost a glyph drawn as a path ("PixArt-α" set in matplotlib's math
    # text, Janus-Pro's Figure 1): what the text layer holds is not the name a reader sees.
    return {c: n for c, n in entries.items() if counts[n] == 1 and not n.endswith("-")}, swatches


def _short_bar(fill: Fill, fills: list[Fill]) -> bool:
    """A small box that stands on one base with 2+ longer bars of its thickness (a short bar beside its
    tick label, not a swatch): their left edges meet (horizontal bars) or their bottoms do (vertical)."""
    x0, y0, x1, y1 = fill.rect

    def alike(a: float, b: float) -> bool:
        return 0.5 * b <= a <= 2 * b

    left = sum(1 for f in fills if abs(f.rect[0] - x0) <= 1 and f.rect[2] - f.rect[0] > 1.5 * (x1 - x0)
               and alike(f.rect[3] - f.rect[1], y1 - y0))
    bottom = sum(1 for f in fills if abs(f.rect[3] - y1) <= 1 and f.rect[3] - f.rect[1] > 1.5 * (y1 - y0)
                 and alike(f.rect[2] - f.rect[0], x1 - x0))
    return left >= 2 or bottom >= 2


def _legend_rows(beside: dict[int, dict], fills: list[Fill]) -> list[list[int]]:
    """Swatch indexes grouped by the row they stand on (centres within 3 points)."""
    rows: list[list[int]] = []
    for i in sorted(beside, key=lambda k: (fills[k].rect[1] + fills[k].rect[3]) / 2):
        centre = (fills[i].rect[1] + fills[i].rect[3]) / 2
        if rows and abs(centre - (fills[rows[-1][-1]].rect[1] + fills[rows[-1][-1]].rect[3]) / 2) <= 3:
            rows[-1].append(i)
        else:
            rows.append([i])
    return rows


def _own_side(row: list[int], beside: dict[int, dict[str, tuple[float, Line]]], fills: list[Fill]) -> str:
    """"right" or "left": the side of this row's swatches their names stand on ("" when not told)."""
    first = min(row, key=lambda i: fills[i].rect[0])
    last = max(row, key=lambda i: fills[i].rect[0])
    left_end = "left" in beside[first] and all(n[1].x0 >= beside[first]["left"][1].x0
                                               for i in row for n in beside[i].values())
    right_end = "right" in beside[last] and all(n[1].x1 <= beside[last]["right"][1].x1
                                                for i in row for n in beside[i].values())
    if left_end != right_end:  # a name at one end of the row and a swatch at the other
        return "left" if left_end else "right"
    gaps = {side: sorted(beside[i][side][0] for i in row if side in beside[i]) for side in ("right", "left")}
    if not gaps["left"] or not gaps["right"]:
        return "right" if gaps["right"] else ("left" if gaps["left"] else "")
    right, left = gaps["right"][len(gaps["right"]) // 2], gaps["left"][len(gaps["left"]) // 2]
    return "right" if right < left - SIDE_MARGIN else ("left" if left < right - SIDE_MARGIN else "")


def on_shared_base(bars: list[Fill], vertical: bool) -> list[Fill]:
    """The bars standing on a base that MIN_BARS - 1 others share: a shape of a series' colour off
    every base is no bar (DeepSeek-V3.2's Figure 1 draws its first series through a 29-point tile
    drawn eight times at one place, read as bars standing under other groups' numbers)."""
    base = 3 if vertical else 0
    places = {tuple(round(v, 1) for v in b.rect) for b in bars}  # one tile drawn eight times is one shape
    return [b for b in bars if sum(1 for o in places if abs(o[base] - b.rect[base]) <= BASE_TOLERANCE)
            >= MIN_BARS]


def _stacked(bars: list[Fill]) -> bool:
    """Segments of other series set end to end, each exactly as thick as the one it follows
    (Step-DeepResearch's Figure 10: win, tie and lose shares in one bar, each number printed inside its
    segment): the number at a segment's end is the next segment's, so no value is read. Touching bars
    of a group differ in length, so they are no stack; pieces of one colour are one bar drawn in parts
    (DeepSeek-V3.2's Figure 1)."""
    def follows(a: Fill, b: Fill) -> bool:
        ax0, ay0, ax1, ay1 = a.rect
        bx0, by0, bx1, by1 = b.rect
        across = abs(bx0 - ax1) <= 1 and abs(ay0 - by0) <= 0.5 and abs(ay1 - by1) <= 0.5
        upwards = abs(by1 - ay0) <= 1 and abs(ax0 - bx0) <= 0.5 and abs(ax1 - bx1) <= 0.5
        return across or upwards

    joints = sum(1 for a in bars for b in bars if _colour(a) != _colour(b) and follows(a, b))
    return joints >= MIN_BARS


def _two_value_axes(ticks: list[Line], named: dict[int, str]) -> bool:
    """Two different rotated texts besides the bars' own names (a rating axis beside a percentage
    axis, or rotated group labels whose units the titles do not tell apart): no one unit."""
    tick_names = " ".join(named.values())
    titles = {" ".join(t.text.split()) for t in ticks if any(c.isalpha() for c in t.text)
              and t.text.strip() not in tick_names}
    return len(titles) >= 2


def _orientation(bars: list[Fill]) -> str:
    """Vertical bars stand on one baseline (a shared bottom edge); horizontal ones start at one x."""
    bottoms = {round(b.rect[3]) for b in bars}
    lefts = {round(b.rect[0]) for b in bars}
    return "vertical" if len(bottoms) <= len(lefts) else "horizontal"


def value_at(bar: Fill, numbers: list[Line], vertical: bool) -> list[Line]:
    """The numbers printed at the bar's end: above a vertical bar over its middle, right of a horizontal one."""
    x0, y0, x1, y1 = bar.rect
    if vertical:  # above the bar's top, over its middle
        return [n for n in numbers if abs(n.cx - (x0 + x1) / 2) <= (x1 - x0) / 2 + 2
                and -3 <= y0 - n.y1 <= VALUE_GAP]
    return [n for n in numbers if abs(n.cy - (y0 + y1) / 2) <= (y1 - y0) / 2 + 2
            and -3 <= n.x0 - x1 <= VALUE_GAP]


def _badge(line: Line, fills: list[Fill]) -> bool:
    """A "+"-signed number printed in a small box of its own is a gain badge over a bar, not its value
    (Step 3.5 Flash's Figure 6: "+3.4" boxed over the RL model's HLE bar, its 23.3 printed beside). A
    chart of signed changes prints its numbers at the bars, in no box, and keeps them."""
    if not line.text.strip().startswith("+"):
        return False
    height = line.y1 - line.y0
    return any(f.rect[0] - 1.5 <= line.x0 and line.x1 <= f.rect[2] + 1.5 and f.rect[1] - 1.5 <= line.y0
               and line.y1 <= f.rect[3] + 1.5 and f.rect[3] - f.rect[1] <= 2 * height for f in fills)


def _hatched_series(fills: list[Fill], swatch_ids: set[int], colours: dict) -> list[Fill]:
    """Outline-only boxes of one colour that no legend colour names, shaped like the chart's bars
    (their width, on their base), are the bars of the one series whose swatch stands in a row of the
    bars' swatches, as high as theirs, but has no filled bar: a hatched series whose swatch is filled
    while its bars are outlines around a pattern (Janus-Pro's Figure 1: a blue swatch, bars outlined
    in white; its scatter panel's labelled points are "swatches" elsewhere and do not count)."""
    swatch_of = {_colour(f): f for f in fills if id(f) in swatch_ids}
    filled = [f for f in fills if id(f) not in swatch_ids and not f.outlined and _colour(f) in colours]
    bases = [round(f.rect[3]) for f in filled]
    base = max(set(bases), key=bases.count, default=None)
    bars = [f for f in filled if round(f.rect[3]) == base]
    keys = [swatch_of[c] for c in {_colour(f) for f in bars} if c in swatch_of]

    def beside_keys(key: Fill) -> bool:
        return any(abs(key.rect[1] - k.rect[1]) <= 1 and abs(key.rect[3] - k.rect[3]) <= 1 for k in keys)

    unfilled = [c for c in colours if c in swatch_of and beside_keys(swatch_of[c])
                and not any(_colour(f) == c for f in filled)]
    width = statistics.median(f.rect[2] - f.rect[0] for f in bars) if bars else 0.0
    outlines = [f for f in fills if f.outlined and id(f) not in swatch_ids and _colour(f) not in colours
                and abs((f.rect[2] - f.rect[0]) - width) <= 0.25 * width and round(f.rect[3]) == base]
    if len(unfilled) != 1 or not outlines or len({_colour(f) for f in outlines}) != 1:
        return fills
    mine = {id(f) for f in outlines}
    return [Fill(f.rect, unfilled[0], outlined=True) if id(f) in mine else f for f in fills]


def _inside(mark: Fill, bar: Fill) -> bool:
    x0, y0, x1, y1 = mark.rect
    bx0, by0, bx1, by1 = bar.rect
    return bx0 - 1 <= x0 and x1 <= bx1 + 1 and by0 - 1 <= y0 and y1 <= by1 + 1


def _axis_unit(texts: list[str]) -> str:
    """"%" when an axis title says the values are percentages and no title names another unit (a
    panel in ms beside one in %: which bar is in which is not told here)."""
    units = {m.group(1).strip() for t in texts if not is_number(t) for m in AXIS_UNIT.finditer(t)}
    percent = any(PERCENT_AXIS.search(t) for t in texts)
    return "%" if percent and units <= {"%", "in %"} else ""


def read_bars(lines: list[Line], fills: list[Fill], titles: list[str] | None = None,
              ticks: list[Line] | None = None) -> list[tuple[str, str, str, str]]:
    """(series, group, value, unit) for each bar whose colour the legend names (or, with no legend,
    whose own tick label names it: `ticks`, the figure's rotated lines), whose group label the axis
    prints and whose number only it claims; [] for anything that is not such a chart. The unit is
    "%" when an axis title says the values are percentages ("Accuracy / Percentile (%)"), else "";
    `titles`: every printed text of the figure, rotated axis titles too (default: the lines')."""
    lines = [part for line in lines for part in split_numbers(line)]
    colours, swatches = legend(lines, fills)
    swatch_ids = {id(fills[i]) for i in swatches}
    named = tick_names(ticks or [], fills) if len(colours) < MIN_SERIES else {}
    sideways = False  # horizontal bars, each named by the label left of it
    if len(colours) < MIN_SERIES and len(named) < MIN_BARS:
        named = side_names([ln for ln in lines if not is_number(ln.text)], fills)
        sideways = True
    if len(colours) < MIN_SERIES and len(named) < MIN_BARS:
        return []
    # An outline no series claims is a frame or a note's box, not a shape that stands among the bars.
    fills = [f for f in _hatched_series(fills, swatch_ids, colours) if not f.outlined or _colour(f) in colours]
    swatches = {i for i, f in enumerate(fills) if id(f) in swatch_ids}
    bars = [f for i, f in enumerate(fills) if i not in swatches and (_colour(f) in colours or id(f) in named)]
    if len(bars) < MIN_BARS:
        return []
    vertical = not sideways if named else _orientation(bars) == "vertical"
    if _stacked(bars):
        return []
    bars = on_shared_base(bars, vertical)
    if len(bars) < MIN_BARS:
        return []
    numbers = [ln for ln in lines if is_number(ln.text) and not _badge(ln, fills)]
    groups = bar_groups(standing_bars(fills, swatches, bars, vertical), vertical, PANEL_GAP if named else GROUP_GAP)
    labels = group_labels(lines, vertical, MAX_TITLE_WORDS if named else MAX_GROUP_WORDS)
    before = len(groups)
    if not named:
        groups = split_by_labels(groups, labels, vertical)
    # one bar a label (the split found some): the bar's label names it, the chart's title says what it measures
    title = chart_title(lines, bars, colours) if len(groups) > before else ""
    names = name_groups(groups, labels, vertical, titled=bool(named))
    group_of = {id(bar): names.get(k) for k, group in enumerate(groups) for bar in group}
    drop_misgrouped(group_of, bars, labels, vertical)
    # Every filled shape may stand under a number, a bar of a colour no legend names too: a number
    # that could be its is nobody's. A mark drawn on a bar (a logo at its top) is no bar.
    shapes = [f for i, f in enumerate(fills) if i not in swatches
              and not any(b is not f and _inside(f, b) for b in bars)]
    claimed: dict[int, list[int]] = {}
    for k, shape in enumerate(shapes):
        for n in value_at(shape, numbers, vertical):
            claimed.setdefault(id(n), []).append(k)
    # An axis title is neither a series nor a group label ("MMLU (EM)" says no unit of the axis).
    group_names = set(names.values())
    unit = _axis_unit([t for t in (titles if titles is not None else [ln.text for ln in lines])
                       if t not in colours.values() and not any(t in g for g in group_names)
                       and not any(t in n for n in named.values())])
    if _two_value_axes(ticks or [], named):  # "Accuracy (%)" and "Codeforces Rating": whose is which?
        unit = ""
    out = []
    for bar in bars:
        mine = [n for n in value_at(bar, numbers, vertical) if len(claimed.get(id(n), ())) == 1]
        group = group_of[id(bar)]
        if len(mine) == 1 and group:
            value = mine[0].text.strip()
            series = named.get(id(bar)) or colours[_colour(bar)]
            if title and len(next(g for g in groups if bar in g)) == 1:
                series, group = group, title  # "gpt-5.1-codex-max" at "Professional CTFs", not "Comparison Models"
            out.append((series, group, value, "" if "%" in value else unit))
    pairs = [(s, g) for s, g, _v, _u in out]
    out = [t for t in out if pairs.count((t[0], t[1])) == 1]  # two bars of one series in one group: unread
    # One value out of a drawing of many boxes is no chart read (DeepSeek-V3's pipeline diagram of
    # coloured cells numbered 0-9 gave "Backward for weights" at "Forward": 0).
    return out if len(out) >= 2 else []
