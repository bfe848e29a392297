"""Which bars of a chart stand together and what names each group: bar_charts.read_bars' grouping.

Bars standing side by side on one base are a group (`bar_groups`; a row of panels further down has
a base of its own, each row measured by its own bars' width); the group is named by the axis label
at its base (`group_labels` joins a label's stacked lines of one type size, `name_groups` takes the
one nearest the group's middle), or, when the bars carry their own tick labels, by the panel's title
over them. Bars each with a label of their own under them are groups of one (`split_by_labels`),
measured by the chart's title (`chart_title`); a bar whose nearest label is not its group's is read
under none (`drop_misgrouped`).
"""

from __future__ import annotations

from kg.ingest.pdf.chart_text import Line, is_number
from kg.ingest.pdf.types import Fill, join_lines

MAX_GROUP_WORDS = 8  # an axis label is a name, not a sentence ("% responses with 1+ major incorrect claims" is one)
MAX_TITLE_WORDS = 12  # a panel's title over bars named by their own tick labels may be longer
LABEL_GAP = 24.0  # points between a group's base and its axis label
BASE_TOLERANCE = 1.5  # points: bars whose bases differ by less stand on one axis
GROUP_GAP = 0.8  # of a bar's width: a wider gap between two bars starts the next group
PANEL_GAP = 1.5  # of a bar's width: bars named by their own tick labels are one group up to a wider gap
ROW_TOLERANCE = 4.0  # points: group labels whose tops (or left edges) are this close stand in one row


def group_labels(lines: list[Line], vertical: bool, max_words: int = MAX_GROUP_WORDS) -> list[Line]:
    """The figure's short name lines that may be group labels, lines stacked at one place joined
    ("AIME 2024" over "(Pass@1)"); name_groups keeps those at a group's base."""
    names = [ln for ln in lines if not is_number(ln.text) and len(ln.text.split()) <= max_words]
    near = sorted(names, key=lambda ln: ln.y0)  # which group's base each stands at: name_groups
    joined: list[Line] = []
    size: dict[int, float] = {}  # a joined label's type height: a note set smaller under a title is none of it
    for ln in near:
        height = ln.y1 - ln.y0
        above = next((j for j in joined if vertical and abs(j.cx - ln.cx) <= 8 and ln.cy > j.y1 - 2
                      and ln.y0 - j.y1 <= 4 and abs(size[id(j)] - height) <= 0.3 * max(size[id(j)], height)), None)
        if above is None:
            joined.append(ln)
            size[id(ln)] = height
        else:
            both = Line(join_lines([above.text, ln.text]), min(above.x0, ln.x0), above.y0, max(above.x1, ln.x1), ln.y1)
            joined[joined.index(above)] = both
            size[id(both)] = size[id(above)]
    return joined


def standing_bars(fills: list[Fill], swatches: set[int], bars: list[Fill], vertical: bool) -> list[Fill]:
    """Every bar on the named bars' bases, named or not ("DeepSeek V3" and "Qwen2.5" in one grey that no
    legend entry alone names): the groups are told apart by the gaps between all of them. A shape
    much wider than a bar (a panel's background) is none."""
    lo, hi, base = (0, 2, 3) if vertical else (1, 3, 0)
    width = max(b.rect[hi] - b.rect[lo] for b in bars)
    return [f for i, f in enumerate(fills) if i not in swatches and f.rect[hi] - f.rect[lo] <= 2 * width
            and any(abs(f.rect[base] - b.rect[base]) <= BASE_TOLERANCE for b in bars)]


def _rows_by_base(bars: list[Fill], base: int) -> list[list[Fill]]:
    """Bars whose bases lie within BASE_TOLERANCE of the previous one's stand on one axis."""
    rows: list[list[Fill]] = []
    for bar in sorted(bars, key=lambda b: b.rect[base]):
        if rows and bar.rect[base] - rows[-1][-1].rect[base] <= BASE_TOLERANCE:
            rows[-1].append(bar)
        else:
            rows.append([bar])
    return rows


def bar_groups(bars: list[Fill], vertical: bool, gap: float = GROUP_GAP) -> list[list[Fill]]:
    """Bars standing side by side on one base (gaps under `gap` of a bar's width) as one group: a row
    of panels further down the page has a base of its own."""
    lo, hi, base = (0, 2, 3) if vertical else (1, 3, 0)
    groups: list[list[Fill]] = []
    for row in _rows_by_base(bars, base):
        row = sorted(row, key=lambda b: b.rect[lo])
        width = max(b.rect[hi] - b.rect[lo] for b in row)  # each row of panels by its own bars
        start = len(groups)
        for bar in row:
            if len(groups) > start and bar.rect[lo] - groups[-1][-1].rect[hi] <= gap * width:
                groups[-1].append(bar)
            else:
                groups.append([bar])
    return groups


def _at_base(label: Line, group: list[Fill], vertical: bool, titled: bool = False) -> bool:
    """The label stands just beyond the group's own base: under its bars (vertical) or left of them,
    not under another row of panels further down the page. With `titled` (the bars' own tick labels
    stand under them) the group's label is the panel's title over its bars and their numbers."""
    if titled and not vertical:  # over the panel's top bar, within the bars' reach across
        top = min(b.rect[1] for b in group)
        return (-2 <= top - label.y1 <= 2 * LABEL_GAP
                and min(b.rect[0] for b in group) <= label.cx <= max(b.rect[2] for b in group) + LABEL_GAP)
    if titled:  # over the tallest bar, by no more than the panel's height (its axis reaches that high)
        top, height = min(b.rect[1] for b in group), max(b.rect[3] - b.rect[1] for b in group)
        return -2 <= top - label.y1 <= height + LABEL_GAP
    if vertical:
        base = max(b.rect[3] for b in group)
        return -2 <= label.y0 - base <= LABEL_GAP
    base = min(b.rect[0] for b in group)
    return -2 <= base - label.x1 <= LABEL_GAP


def name_groups(groups: list[list[Fill]], labels: list[Line], vertical: bool,
                titled: bool = False) -> dict[int, str]:
    """Group index -> the axis label centred within its span (the nearest to its middle); a label two
    groups would claim names neither."""
    lo, hi = (0, 2) if vertical else (1, 3)
    chosen: dict[int, Line] = {}
    for k, group in enumerate(groups):
        start, end = group[0].rect[lo], group[-1].rect[hi]
        middle = (start + end) / 2
        sideways_title = titled and not vertical  # above the panel, so outside the bars' span
        inside = [g for g in labels if (sideways_title or start - 2 <= (g.cx if vertical else g.cy) <= end + 2)
                  and _at_base(g, group, vertical, titled)]
        if inside and titled:  # a title is set larger than the notes under it (GLM-4.5's "Agentic")
            chosen[k] = min(inside, key=lambda g: (-round(g.y1 - g.y0), abs((g.cx if vertical else g.cy) - middle)))
        elif inside:
            chosen[k] = min(inside, key=lambda g: abs((g.cx if vertical else g.cy) - middle))
    taken = [id(g) for g in chosen.values()]
    return {k: " ".join(g.text.split()) for k, g in chosen.items() if taken.count(id(g)) == 1}


def chart_title(lines: list[Line], bars: list[Fill], colours: dict) -> str:
    """The line over everything else of the chart (its legend too), above its bars: its title; ""
    when the top line is a number, a legend name or a sentence."""
    top = min(b.rect[1] for b in bars)
    over = [ln for ln in lines if ln.y1 <= top]
    if not over:
        return ""
    first = min(over, key=lambda ln: ln.y0)
    text = " ".join(first.text.split())
    if is_number(text) or text in colours.values() or len(text.split()) > MAX_TITLE_WORDS:
        return ""
    return text


def split_by_labels(groups: list[list[Fill]], labels: list[Line], vertical: bool) -> list[list[Fill]]:
    """A group whose every bar has a label of its own centred under it is that many groups of one bar
    (OpenAI's system cards: one bar a model, "gpt-5" / "browsing" under each, bars closer together than
    the gaps between groups of a grouped chart)."""
    if not vertical:
        return groups
    out = []
    for group in groups:
        under = [[g for g in labels if _at_base(g, group, vertical) and abs(g.cx - (b.rect[0] + b.rect[2]) / 2)
                  <= (b.rect[2] - b.rect[0]) / 2] for b in group]
        own = [u[0] for u in under if len(u) == 1]
        if len(group) >= 2 and len(own) == len(group) and len({id(g) for g in own}) == len(group):
            out.extend([b] for b in group)
        else:
            out.append(group)
    return out


def drop_misgrouped(group_of: dict[int, str | None], bars: list[Fill], labels: list[Line], vertical: bool) -> None:
    """Unname a bar whose group (told by the gaps between bars) is not the label nearest to it. A series
    drawn as no filled box (DeepSeek-V3.2's hatched second series) leaves a bar-wide gap inside each
    group, and the gaps then join one group's first bar to the group before: its value would be read
    under the wrong benchmark."""
    at = {" ".join(g.text.split()): g for g in labels}
    named = {n for n in group_of.values() if n in at}
    along, across = ("cx", "y0") if vertical else ("cy", "x0")
    for bar in bars:
        own = group_of.get(id(bar))
        if own not in named:
            continue
        # the labels of its own row of panels: standing in line with its own group's label, named or not (a
        # label no group took still says whose a bar is: GPT-5.2's "gpt-5.2 browsing" under a bar the
        # gaps had joined to "gpt-5.1 browsing")
        row = [n for n in at if abs(getattr(at[n], across) - getattr(at[own], across)) <= ROW_TOLERANCE]
        middle = (bar.rect[0] + bar.rect[2]) / 2 if vertical else (bar.rect[1] + bar.rect[3]) / 2
        if min(row, key=lambda n: abs(getattr(at[n], along) - middle)) != own:
            group_of[id(bar)] = None
