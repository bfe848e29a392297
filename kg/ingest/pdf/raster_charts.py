"""Bar charts embedded as pictures, read with OCR into the bar reader's (series, group, value, unit).

Many LLM reports paste their result charts as PNGs (Baichuan-M3's Figures 4, 7 and 8): no text or
drawing of the page says what they show. Read like a vector chart, in three steps:

1. bars: solid boxes of one colour (`solid_boxes`: a connected region of one quantised colour that
   fills its bounding box), cheap enough to try on every captioned picture; a picture without
   MIN_BARS boxes standing on one base is no bar chart and costs no OCR;
2. text: each printed line and its box, by OCR (ocr_text.ocr_lines: upright lines read with
   confidence, their word spaces put back);
3. the vector reader (bar_charts.read_bars) pairs them, in page points (the picture's box on the
   page scales its pixels), so its distances mean what they mean for drawn charts.

An OCR misreading ("74.9" as "749") would put a number in a question that the chart does not print.
So the values must follow their bars' lengths (`_checked`): one straight line through all the
chart's (length, value) pairs, or else through each group's of 3+ bars, within FIT_TOLERANCE of the
range; a group failing its line is dropped, a bar whose length was not measured too.

Without the OCR package (`rapidocr_onnxruntime`) nothing is read and ingest goes on.
"""

from __future__ import annotations

import json
import logging

import numpy as np
from scipy import ndimage

from kg.ingest.pdf.bar_charts import MIN_BARS, on_shared_base, read_bars, value_at
from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.ocr_text import load_pixels, ocr_lines
from kg.ingest.pdf.types import Fill

log = logging.getLogger("hopgraph.ingest")

SCREEN_SIDE = 500  # px: the size the cheap is-it-a-chart test looks at
MIN_SIDE = 200  # px: a smaller picture holds no readable chart
QUANT = 16  # colour levels per channel: anti-aliasing varies the last bits only
MIN_BAR_PX = 5  # px: a bar is at least this thick and this long
FILL_SHARE = 0.9  # of its bounding box a bar's colour covers
TRIM_FROM = 0.7  # a region filling this much of its box is trimmed of ragged rims and measured again
MAX_COLOURS = 48  # the most frequent colours tried: a chart has a handful, a photo thousands
FIT_TOLERANCE = 0.03  # of a group's value range: how far a value may stray from its bars' line


def solid_boxes(pixels: np.ndarray) -> list[tuple[tuple[int, int, int, int], tuple[float, float, float]]]:
    """(x0, y0, x1, y1) in pixels and rgb in 0-1 of each region of one colour filling its box, the
    background (the most common colour) and white left out."""
    q = (pixels // (256 // QUANT)).astype(np.int32)
    key = q[..., 0] * QUANT * QUANT + q[..., 1] * QUANT + q[..., 2]
    counts = np.bincount(key.ravel(), minlength=QUANT ** 3)
    background = int(counts.argmax())
    white = (QUANT - 1) * (QUANT * QUANT + QUANT + 1)
    order = [int(k) for k in np.argsort(counts)[::-1][:MAX_COLOURS]
             if counts[k] >= MIN_BAR_PX * MIN_BAR_PX and k not in (background, white)]
    out = []
    for k in order:
        labels, _n = ndimage.label(key == k)
        for index, box in enumerate(ndimage.find_objects(labels), start=1):
            height, width = box[0].stop - box[0].start, box[1].stop - box[1].start
            if height < MIN_BAR_PX or width < MIN_BAR_PX:
                continue  # most regions of a photo: no trimming spent on them
            mine = labels[box] == index
            if TRIM_FROM <= mine.sum() / (height * width) < FILL_SHARE:
                box = _trimmed(mine, box)
                height, width = box[0].stop - box[0].start, box[1].stop - box[1].start
                mine = labels[box] == index
            if height >= MIN_BAR_PX and width >= MIN_BAR_PX and mine.sum() >= FILL_SHARE * height * width:
                # the median, not the mean: a small legend swatch's anti-aliased rim would shift its mean
                # off its bars' colour (GPT-5.2's Figure 1: two of three series unmatched)
                rgb = tuple(float(c) for c in np.median(pixels[box][mine], axis=0) / 255)
                out.append(((box[1].start, box[0].start, box[1].stop, box[0].stop), rgb))
    return out


def _trimmed(mask: np.ndarray, box: tuple[slice, slice]) -> tuple[slice, slice]:
    """`box` without its edge rows and columns the region fills less than half: an anti-aliased pixel
    on a box's rim (GPT-5.2's legend swatches) would stretch its bounding box past FILL_SHARE."""
    top, bottom, left, right = 0, mask.shape[0], 0, mask.shape[1]
    while bottom - top > 1 and mask[top, left:right].mean() < 0.5:
        top += 1
    while bottom - top > 1 and mask[bottom - 1, left:right].mean() < 0.5:
        bottom -= 1
    while right - left > 1 and mask[top:bottom, left].mean() < 0.5:
        left += 1
    while right - left > 1 and mask[top:bottom, right - 1].mean() < 0.5:
        right -= 1
    y, x = box[0].start, box[1].start
    return slice(y + top, y + bottom), slice(x + left, x + right)


def _value(printed: str) -> float | None:
    """A printed bar value as a number ("54%", "$3.5", "1,024", "−1.2"); None when it is none."""
    text = printed.strip().replace("\u2212", "-").replace(",", "").rstrip("%").replace("$", "")
    try:
        return float(text)
    except ValueError:
        return None


def _fits_lengths(bars: list[tuple[str, str, str, str]], length_of: dict[tuple[str, str], float]) -> bool:
    """Whether one group's values lie on a straight line through their bars' lengths; a value that reads
    as no number fails."""
    pairs = [(length_of[(s, g)], _value(v)) for s, g, v, _u in bars if (s, g) in length_of]
    if any(v is None for _l, v in pairs):
        return False
    if len(pairs) < MIN_BARS:
        return len(pairs) == len(bars)  # too few to test; kept only when every bar was measured
    lengths, values = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    if np.ptp(lengths) == 0:
        return np.ptp(values) == 0
    slope, intercept = np.polyfit(lengths, values, 1)
    spread = max(float(np.ptp(values)), 1e-9)
    return bool(np.all(np.abs(slope * lengths + intercept - values) <= FIT_TOLERANCE * spread + 0.051))


def _checked(bars: list[tuple[str, str, str, str]], length_of: dict[tuple[str, str], float]) -> list:
    """The bars whose values follow their lengths: every measured bar when one straight line fits them
    all (one value axis), else each group that fits on its own with MIN_BARS measured bars or more. A
    group of fewer is never its own check: one bar a group (GPT-5.2's MLE-Bench-30 chart) fits any
    line, and its "12%" had been read "2%". A bar whose length was not measured is checked by nothing."""
    measured = [b for b in bars if (b[0], b[1]) in length_of]
    if len(measured) >= MIN_BARS and _fits_lengths(measured, length_of):
        return measured
    groups = {b[1] for b in bars}
    sizes = {g: sum(1 for b in bars if b[1] == g and (b[0], b[1]) in length_of) for g in groups}
    fitting = {g for g in groups if sizes[g] >= MIN_BARS and _fits_lengths([b for b in bars if b[1] == g], length_of)}
    return [b for b in measured if b[1] in fitting]


def _may_be_chart(pixels: np.ndarray) -> bool:
    """Three solid boxes on one base in a copy scaled to about SCREEN_SIDE px: the test every captioned
    picture takes, so it must be cheap (the full-size search costs over a second on a large photo)."""
    step = max(1, max(pixels.shape[:2]) // SCREEN_SIDE)
    boxes = [Fill(tuple(float(v) for v in box), rgb) for box, rgb in solid_boxes(pixels[::step, ::step])]
    return any(len(on_shared_base(boxes, vertical)) >= MIN_BARS for vertical in (True, False))


def read_picture_bars(path: str, bbox: list[float]) -> tuple[list[tuple[str, str, str, str]], list[list]]:
    """The chart's bars and its printed lines (page points, for visible_lines) from a picture whose
    box on the page is `bbox`; ([], []) for a picture that is no bar chart read whole."""
    pixels = load_pixels(path)
    if pixels is None or min(pixels.shape[:2]) < MIN_SIDE or len(bbox) != 4:
        return [], []
    if not _may_be_chart(pixels):
        return [], []
    sx, sy = (bbox[2] - bbox[0]) / pixels.shape[1], (bbox[3] - bbox[1]) / pixels.shape[0]
    fills = [Fill((bbox[0] + x0 * sx, bbox[1] + y0 * sy, bbox[0] + x1 * sx, bbox[1] + y1 * sy), rgb)
             for (x0, y0, x1, y1), rgb in solid_boxes(pixels)]
    found = ocr_lines(pixels)
    if not found:
        return [], []
    lines = [Line(t, bbox[0] + x0 * sx, bbox[1] + y0 * sy, bbox[0] + x1 * sx, bbox[1] + y1 * sy)
             for t, x0, y0, x1, y1 in found]
    bars = read_bars(lines, fills)
    if not bars:
        return [], []
    kept = _checked(bars, _bar_lengths(bars, lines, fills))
    printed = [[ln.text, *(round(v, 1) for v in (ln.x0, ln.y0, ln.x1, ln.y1))] for ln in lines]
    return kept, printed if kept else []


def _bar_lengths(bars, lines: list[Line], fills: list[Fill]) -> dict[tuple[str, str], float]:
    """(series, group) -> the length of the one box whose end its printed value stands at."""
    out: dict[tuple[str, str], float] = {}
    for series, group, value, _unit in bars:
        for line in [ln for ln in lines if ln.text.strip() == value]:
            found = {vertical: [f for f in fills if line in value_at(f, [line], vertical)] for vertical in (True, False)}
            ends = [(vertical, near[0]) for vertical, near in found.items() if len(near) == 1]
            if len(ends) == 1:  # over one bar's top or beside one bar's end, not both (a neighbour's side)
                vertical, (x0, y0, x1, y1) = ends[0][0], ends[0][1].rect
                out[(series, group)] = y1 - y0 if vertical else x1 - x0
    return out


def read_picture_charts(figures: list) -> list:
    """Fill bar_values, visible_lines and visible_text of each captioned picture (kg.models.ImageRef)
    that printed no text of its own and reads as a bar chart. Returns the figures read, for
    ocr_text.respell_labels once the document's text is known. A figure with drawn text is left to
    the vector reader: trying those as pictures too (Seed1.5-Thinking's Figure 1 shares a drawn box
    with the abstract) cost an FAA handbook chapter whose photos carry a few drawn callouts seconds
    of OCR a picture, for one chart read."""
    read = []
    for ref in figures:
        if not ref.label or ref.visible_text or ref.bar_values or not ref.path:
            continue
        try:
            bars, printed = read_picture_bars(ref.path, list(ref.bbox))
        except Exception as exc:  # noqa: BLE001 - reading a chart is an extra: a picture costs no document
            log.warning("picture %s of %s not read as a chart: %s", ref.label, ref.path, exc)
            continue
        if bars:  # what the OCR read stands for the figure's printed text (the drawn lines are among it)
            ref.bar_values = json.dumps([list(b) for b in bars])
            ref.visible_lines = json.dumps(printed)
            ref.visible_text = "\n".join(row[0] for row in printed)
            read.append(ref)
    return read
