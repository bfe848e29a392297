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

from dataclasses import dataclass

from kg.ingest.pdf.types import Fill

MAX_SWATCH_SIDE = 16.0  # points: a legend swatch is a small mark beside its name
SWATCH_GAP = 10.0  # points between a swatch's right edge and its name
VALUE_GAP = 14.0  # points between a bar's end and the number printed at it
MIN_SERIES = 2  # a legend names at least two colours (one colour needs no legend)
MIN_BARS = 3  # fewer is no chart worth reading as one
MAX_GROUP_WORDS = 6  # an axis label is a name, not a sentence (a caption below the chart is not one)
COLOUR_DIGITS = 2  # fills of one series differ in the last digits between drawing calls


@dataclass(frozen=True)
class Line:
    """A printed line of the figure: its text and box (x0, y0, x1, y1)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


def _colour(fill: Fill) -> tuple[float, ...]:
    return tuple(round(c, COLOUR_DIGITS) for c in fill.rgb)


def _is_number(text: str) -> bool:
    core = text.strip().rstrip("%").lstrip("$").replace(",", "")
    try:
        float(core)
    except ValueError:
        return False
    return True


def legend(lines: list[Line], fills: list[Fill]) -> tuple[dict[tuple, str], set[int]]:
    """Colour -> series name from swatches set just left of a name on its row, and the swatches'
    indexes. A colour with two names (or a name with two colours) is no legend entry."""
    names: dict[tuple, set[str]] = {}
    swatches: set[int] = set()
    labels = [ln for ln in lines if not _is_number(ln.text) and any(c.isalpha() for c in ln.text)]
    for i, fill in enumerate(fills):
        x0, y0, x1, y1 = fill.rect
        if max(x1 - x0, y1 - y0) > MAX_SWATCH_SIDE:
            continue
        beside = [ln for ln in labels if 0 <= ln.x0 - x1 <= SWATCH_GAP and ln.y0 - 2 <= (y0 + y1) / 2 <= ln.y1 + 2]
        if len(beside) == 1:
            names.setdefault(_colour(fill), set()).add(" ".join(beside[0].text.split()))
            swatches.add(i)
    entries = {colour: next(iter(n)) for colour, n in names.items() if len(n) == 1}
    counts: dict[str, int] = {}
    for name in entries.values():
        counts[name] = counts.get(name, 0) + 1
    return {c: n for c, n in entries.items() if counts[n] == 1}, swatches


def _orientation(bars: list[Fill]) -> str:
    """Vertical bars stand on one baseline (a shared bottom edge); horizontal ones start at one x."""
    bottoms = {round(b.rect[3]) for b in bars}
    lefts = {round(b.rect[0]) for b in bars}
    return "vertical" if len(bottoms) <= len(lefts) else "horizontal"


def _value_at(bar: Fill, numbers: list[Line], vertical: bool) -> list[Line]:
    x0, y0, x1, y1 = bar.rect
    if vertical:  # above the bar's top, over its middle
        return [n for n in numbers if abs(n.cx - (x0 + x1) / 2) <= (x1 - x0) / 2 + 2
                and -3 <= y0 - n.y1 <= VALUE_GAP]
    return [n for n in numbers if abs(n.cy - (y0 + y1) / 2) <= (y1 - y0) / 2 + 2
            and -3 <= n.x0 - x1 <= VALUE_GAP]


def group_labels(lines: list[Line], bars: list[Fill], vertical: bool) -> list[Line]:
    """The axis's group names: label lines beyond the bars' base (below a vertical chart, left of a
    horizontal one), lines stacked at one place joined ("AIME 2024" over "(Pass@1)")."""
    names = [ln for ln in lines if not _is_number(ln.text) and len(ln.text.split()) <= MAX_GROUP_WORDS]
    if vertical:
        base = max(b.rect[3] for b in bars)
        near = sorted((ln for ln in names if ln.y0 >= base - 2), key=lambda ln: ln.y0)
    else:
        base = min(b.rect[0] for b in bars)
        near = sorted((ln for ln in names if ln.x1 <= base + 2), key=lambda ln: ln.y0)
    joined: list[Line] = []
    for ln in near:
        above = next((j for j in joined if vertical and abs(j.cx - ln.cx) <= 8
                      and ln.cy > j.y1 - 2 and ln.y0 - j.y1 <= 4), None)  # the next line down, not the same one
        if above is None:
            joined.append(ln)
        else:
            joined[joined.index(above)] = Line(f"{above.text} {ln.text}", min(above.x0, ln.x0), above.y0,
                                               max(above.x1, ln.x1), ln.y1)
    return joined


def _group_of(bar: Fill, groups: list[Line], vertical: bool, spacing: float) -> Line | None:
    """The group label nearest the bar along the axis, if nearer than half the groups' spacing."""
    centre = (bar.rect[0] + bar.rect[2]) / 2 if vertical else (bar.rect[1] + bar.rect[3]) / 2
    if not groups:
        return None
    best = min(groups, key=lambda g: abs((g.cx if vertical else g.cy) - centre))
    return best if abs((best.cx if vertical else best.cy) - centre) <= spacing / 2 else None


def _spacing(groups: list[Line], vertical: bool) -> float:
    at = sorted(g.cx if vertical else g.cy for g in groups)
    gaps = [b - a for a, b in zip(at, at[1:])]
    return min(gaps) if gaps else float("inf")


def read_bars(lines: list[Line], fills: list[Fill]) -> list[tuple[str, str, str]]:
    """(series, group, value) for each bar whose colour the legend names, whose group label the axis
    prints and whose number only it claims; [] for anything that is not such a chart."""
    colours, swatches = legend(lines, fills)
    if len(colours) < MIN_SERIES:
        return []
    bars = [f for i, f in enumerate(fills) if i not in swatches and _colour(f) in colours]
    if len(bars) < MIN_BARS:
        return []
    vertical = _orientation(bars) == "vertical"
    numbers = [ln for ln in lines if _is_number(ln.text)]
    groups = group_labels(lines, bars, vertical)
    spacing = _spacing(groups, vertical)
    # Every filled shape may stand under a number, a bar of a colour no legend names too: a number
    # that could be its is nobody's.
    shapes = [f for i, f in enumerate(fills) if i not in swatches]
    claimed: dict[int, list[int]] = {}
    for k, shape in enumerate(shapes):
        for n in _value_at(shape, numbers, vertical):
            claimed.setdefault(id(n), []).append(k)
    out = []
    for bar in bars:
        mine = [n for n in _value_at(bar, numbers, vertical) if len(claimed[id(n)]) == 1]
        group = _group_of(bar, groups, vertical, spacing)
        if len(mine) == 1 and group is not None:
            out.append((colours[_colour(bar)], " ".join(group.text.split()), mine[0].text.strip()))
    pairs = [(s, g) for s, g, _v in out]
    return [t for t in out if pairs.count((t[0], t[1])) == 1]  # two bars of one series in one group: unread
