"""Bar charts embedded as pictures, read with OCR into the bar reader's (series, group, value, unit).

Many LLM reports paste their result charts as PNGs (Baichuan-M3's Figures 4, 7 and 8): no text or
drawing of the page says what they show. Read like a vector chart, in three steps:

1. bars: solid boxes of one colour (`solid_boxes`: a connected region of one quantised colour that
   fills its bounding box), cheap enough to try on every captioned picture; a picture without
   MIN_BARS boxes standing on one base is no bar chart and costs no OCR;
2. text: RapidOCR (its ONNX models ship inside the wheel: no network) gives each printed line and
   its box; a line set at an angle, or read with a confidence under MIN_OCR_SCORE, is left out;
3. the vector reader (bar_charts.read_bars) pairs them, in page points (the picture's box on the
   page scales its pixels), so its distances mean what they mean for drawn charts.

An OCR misreading ("74.9" as "749") would put a number in a question that the chart does not print.
So each group's values must follow its bars' lengths (`_fits_lengths`): a value that a straight
line through the others' (length, value) pairs misses by more than FIT_TOLERANCE of the group's
range drops the whole group.

Without the OCR package (`rapidocr_onnxruntime`) nothing is read and ingest goes on.
"""

from __future__ import annotations

import json
import logging
import re
from functools import lru_cache

import numpy as np
from PIL import Image
from scipy import ndimage

from kg.ingest.pdf.bar_charts import MIN_BARS, on_shared_base, read_bars, value_at
from kg.ingest.pdf.chart_text import Line
from kg.ingest.pdf.types import Fill

log = logging.getLogger("hopgraph.ingest")
_NUMBER = re.compile(r"[-+]?\d[\d.,]*%?")

MAX_SIDE = 1600  # px: a larger picture is scaled down before reading (OCR time grows with its area)
SCREEN_SIDE = 500  # px: the size the cheap is-it-a-chart test looks at
MIN_SIDE = 200  # px: a smaller picture holds no readable chart
QUANT = 16  # colour levels per channel: anti-aliasing varies the last bits only
MIN_BAR_PX = 5  # px: a bar is at least this thick and this long
FILL_SHARE = 0.9  # of its bounding box a bar's colour covers
MAX_COLOURS = 48  # the most frequent colours tried: a chart has a handful, a photo thousands
MIN_OCR_SCORE = 0.9
SPACE_GAP = 0.18  # of a line's height: glyphs this far apart at a case change had a space between them
WORD_GAP = 0.45  # of a line's height: glyphs this far apart anywhere had a space between them
SPLIT_GAP = 1.0  # of a line's height: glyphs this far apart belong to two printed lines
FIT_TOLERANCE = 0.03  # of a group's value range: how far a value may stray from its bars' line


def _pixels(path: str) -> np.ndarray | None:
    try:
        with Image.open(path) as img:
            img = img.convert("RGB")
            scale = min(1.0, MAX_SIDE / max(img.size))
            if scale < 1.0:
                img = img.resize((round(img.width * scale), round(img.height * scale)))
            return np.asarray(img)
    except (OSError, ValueError) as exc:
        log.debug("picture %s not read: %s", path, exc)
        return None


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
        # opened first: an anti-aliased pixel on a box's rim (GPT-5.2's legend swatches) would stretch its
        # bounding box past FILL_SHARE; strokes thinner than 3 px (text, rules) are no bars anyway
        labels, _n = ndimage.label(ndimage.binary_opening(key == k, structure=np.ones((3, 3))))
        for index, box in enumerate(ndimage.find_objects(labels), start=1):
            height, width = box[0].stop - box[0].start, box[1].stop - box[1].start
            if height < MIN_BAR_PX or width < MIN_BAR_PX:
                continue
            if (labels[box] == index).sum() >= FILL_SHARE * height * width:
                # the median, not the mean: a small legend swatch's anti-aliased rim would shift its mean
                # off its bars' colour (GPT-5.2's Figure 1: two of three series unmatched)
                rgb = tuple(float(c) for c in np.median(pixels[box][labels[box] == index], axis=0) / 255)
                out.append(((box[1].start, box[0].start, box[1].stop, box[0].stop), rgb))
    return out


@lru_cache(maxsize=1)
def _ocr_engine():
    try:
        from rapidocr_onnxruntime import RapidOCR
    except ImportError:
        log.info("rapidocr_onnxruntime is not installed: bar charts in pictures are not read")
        return None
    return RapidOCR()


def _glyphs(text: str, boxes: list) -> tuple[list[str], list, set[int]] | None:
    """The line's glyphs, their boxes, and the glyphs a printed space stands before. The engine boxes
    every character, spaces too, or (some lines) every character but the spaces."""
    chars = list(text)
    if len(boxes) == len(chars):
        paired = list(zip(chars, boxes))
    elif len(boxes) == sum(1 for ch in chars if not ch.isspace()):
        it = iter(boxes)
        paired = [(ch, None if ch.isspace() else next(it)) for ch in chars]
    else:
        return None
    glyphs, glyph_boxes, spaced = [], [], set()
    for ch, box in paired:
        if ch.isspace():
            if glyphs:
                spaced.add(len(glyphs))
            continue
        glyphs.append(ch)
        glyph_boxes.append(box)
    return (glyphs, glyph_boxes, spaced) if glyphs else None


def _segments(text: str, boxes: list) -> list[tuple[str, float, float, float, float]]:
    """One OCR line as the printed lines it holds: split where its glyphs stand a line's height apart,
    or where a number is followed, a word's space on, by a name (Baichuan-M3's Figure 7: one panel's
    "39.6" and the next panel's "medgemma-27b-text-it" came back as one line); spaced where the
    engine printed a space, or the glyphs stand apart by SPACE_GAP at a lower-to-upper case change
    ("Clinical" | "Inquiry") or by WORD_GAP anywhere. A name written in one piece ("HealthBench",
    "AntAngelMed") has no such gap and stays whole. Boxes in pixels; [] when they do not match."""
    found = _glyphs(text, boxes)
    if found is None:
        return []
    glyphs, boxes, printed_space = found
    height = max(1.0, float(np.median([b[2][1] - b[0][1] for b in boxes])))
    pieces: list[list[int]] = [[0]]
    spaces: set[int] = set()
    for k in range(1, len(glyphs)):
        gap = boxes[k][0][0] - boxes[k - 1][1][0]
        word_break = k in printed_space or gap >= WORD_GAP * height
        so_far = "".join(glyphs[j] for j in pieces[-1])
        if gap >= SPLIT_GAP * height or (word_break and _NUMBER.fullmatch(so_far) and glyphs[k].isalpha()):
            pieces.append([k])
            continue
        if word_break or (glyphs[k - 1].islower() and glyphs[k].isupper() and gap >= SPACE_GAP * height):
            spaces.add(k)
        pieces[-1].append(k)
    out = []
    for piece in pieces:
        words = "".join((" " if k in spaces else "") + glyphs[k] for k in piece)
        xs = [p[0] for k in piece for p in boxes[k]]
        ys = [p[1] for k in piece for p in boxes[k]]
        out.append((words, float(min(xs)), float(min(ys)), float(max(xs)), float(max(ys))))
    return out


def ocr_lines(pixels: np.ndarray) -> list[tuple[str, float, float, float, float]] | None:
    """Upright printed lines (text, x0, y0, x1, y1) in pixels; None without the OCR package."""
    engine = _ocr_engine()
    if engine is None:
        return None
    found, _elapsed = engine(np.ascontiguousarray(pixels[..., ::-1]), return_word_box=True)  # reads BGR
    lines = []
    for corners, text, score, *glyph_boxes in found or []:
        upright = abs(corners[0][1] - corners[1][1]) <= 2 and abs(corners[1][0] - corners[2][0]) <= 2
        if upright and float(score) >= MIN_OCR_SCORE and text.strip():
            pieces = _segments(text.strip(), glyph_boxes[0] if glyph_boxes else [])
            if not pieces:  # no glyph boxes: the line as the engine gave it
                (x0, y0), (x1, _), (_, y1) = corners[0], corners[1], corners[2]
                pieces = [(text.strip(), float(x0), float(y0), float(x1), float(y1))]
            lines.extend(pieces)
    return lines


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


def _may_be_chart(pixels: np.ndarray) -> bool:
    """Three solid boxes on one base in a copy scaled to about SCREEN_SIDE px: the test every captioned
    picture takes, so it must be cheap (the full-size search costs over a second on a large photo)."""
    step = max(1, max(pixels.shape[:2]) // SCREEN_SIDE)
    boxes = [Fill(tuple(float(v) for v in box), rgb) for box, rgb in solid_boxes(pixels[::step, ::step])]
    return any(len(on_shared_base(boxes, vertical)) >= MIN_BARS for vertical in (True, False))


def read_picture_bars(path: str, bbox: list[float]) -> tuple[list[tuple[str, str, str, str]], list[list]]:
    """The chart's bars and its printed lines (page points, for visible_lines) from a picture whose
    box on the page is `bbox`; ([], []) for a picture that is no bar chart read whole."""
    pixels = _pixels(path)
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
    length_of = _bar_lengths(bars, lines, fills)
    fitting = {g for g in {b[1] for b in bars} if _fits_lengths([b for b in bars if b[1] == g], length_of)}
    kept = [b for b in bars if b[1] in fitting]
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


def prints_values(visible_text: str) -> bool:
    """Whether a figure's own text holds numbers enough for a chart's values (MIN_BARS or more): then
    it is a drawn chart, read by bar_charts.py, and no picture to read."""
    return sum(1 for line in visible_text.splitlines() for word in line.split() if _NUMBER.fullmatch(word)) >= MIN_BARS


def read_picture_charts(figures: list) -> list:
    """Fill bar_values, visible_lines and visible_text of each captioned picture (kg.models.ImageRef)
    that reads as a bar chart and prints no values as text of its own: a pasted picture, or a figure
    whose region holds a pasted chart beside some drawn text (Seed1.5-Thinking's Figure 1 stands in
    one drawn box with the abstract, so its region has the abstract's lines as text). Returns the
    figures read, for `respell_labels` once the document's text is known."""
    read = []
    for ref in figures:
        if not ref.label or ref.bar_values or not ref.path or prints_values(ref.visible_text):
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


def _vocabulary(texts: list[str]) -> set[str]:
    return {w.strip(",.;:()[]").lower() for text in texts for w in text.split()}


MAX_NAME_WORDS = 4


def _phrases(texts: list[str]) -> dict[str, str]:
    """Each phrase of 2 to MAX_NAME_WORDS words the text prints, keyed by its letters in lower case
    without spaces; a key printed with two spacings is left out (which one the figure prints is unknown)."""
    found: dict[str, set[str]] = {}
    for text in texts:
        words = [w.strip(",.;:()[]") for w in text.split()]
        for n in range(2, MAX_NAME_WORDS + 1):
            for k in range(len(words) - n + 1):
                phrase = " ".join(words[k:k + n])
                found.setdefault(phrase.replace(" ", "").lower(), set()).add(phrase.lower())
    return {key: next(iter(forms)) for key, forms in found.items() if len(forms) == 1}


def _spaced_as(name: str, phrase: str) -> str:
    """`name`'s own letters with spaces where `phrase` (the same letters, any case) has them."""
    letters, out = iter(name.replace(" ", "")), []
    for ch in phrase:
        out.append(" " if ch == " " else next(letters))
    return "".join(out)


def _after_capitals(word: str, k: int) -> bool:
    """A split point that ends a run of two or more capitals: before the run's last capital when a
    lower-case letter follows it ("GPQA|Diamond"), or before a lower-case letter ("OpenAI|o3"). A
    lower-to-upper change ("Health|Bench") is no such point: the OCR's gap already told that one."""
    if k < 2 or k >= len(word):
        return False
    if word[k].isupper() and word[k - 1].isupper() and word[k - 2].isupper():
        return word[k + 1:k + 2].islower()
    return word[k].islower() and word[k - 1].isupper() and word[k - 2].isupper()


def _respaced_word(word: str, vocabulary: set[str], phrases: dict[str, str]) -> str:
    """`word` as the text spaces its letters ("incorrectclaims" -> "incorrect claims"), or split in
    two at a point ending a run of capitals, when the document prints both parts as words and never
    the whole; else `word`."""
    if word.lower() in vocabulary:
        return word
    if word.lower() in phrases:
        return _spaced_as(word, phrases[word.lower()])
    for k in range(2, len(word)):
        if _after_capitals(word, k) and word[:k].lower() in vocabulary and word[k:].lower() in vocabulary:
            return f"{word[:k]} {word[k:]}"
    return word


def respell_labels(figures: list, texts: list[str]) -> None:
    """Put back the spaces the OCR dropped from a pictured chart's or table's names: as the document's
    text spaces the same letters ("Gemini3Pro" -> "Gemini 3 Pro"), or after a run of capitals where the
    text prints each part as a word and never the two as one ("OpenAIo3-mini-high" -> "OpenAI
    o3-mini-high", "GPQADiamond" -> "GPQA Diamond": Seed1.5-Thinking's Figure 1, set in a serif whose
    word spaces are narrower than the OCR's gap). Every letter stays as read."""
    if not figures:
        return
    vocabulary, phrases = _vocabulary(texts), _phrases(texts)

    def fix(name: str) -> str:
        phrase = phrases.get(name.replace(" ", "").lower())
        if phrase is not None and phrase.count(" ") > name.count(" "):
            return _spaced_as(name, phrase)  # "Gemini3Pro" as the text prints "Gemini 3 Pro"
        return " ".join(_respaced_word(w, vocabulary, phrases) for w in name.split())

    for ref in figures:  # a chart's (series, group, ...) or a table's (row, column, value)
        if ref.bar_values:
            ref.bar_values = json.dumps([[fix(a), fix(b), *rest] for a, b, *rest in json.loads(ref.bar_values)])
        if ref.table_cells:
            ref.table_cells = json.dumps([[fix(a), fix(b), *rest] for a, b, *rest in json.loads(ref.table_cells)])
        printed = [[fix(text), *box] for text, *box in json.loads(ref.visible_lines)]
        ref.visible_lines = json.dumps(printed)
        ref.visible_text = "\n".join(row[0] for row in printed)
