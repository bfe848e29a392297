"""Printed lines read from a picture by OCR, with the spaces the engine drops put back.

RapidOCR (its ONNX models ship inside the `rapidocr_onnxruntime` wheel: no network) gives each
printed line, its confidence and a box per glyph. Its spacing is unreliable: it drops word spaces
in narrow fonts ("GPQADiamond", "incorrectclaims") and boxes glyphs only roughly. So:

* a line set at an angle, or read with a confidence under MIN_OCR_SCORE, is left out;
* a space goes where the engine printed one, and then, for text on a clean ground (a table), where
  the picture shows a blank gap of INK_SPACE of the line's height between two glyphs, a letter on
  one side (`_ink_spaces`: the pixels, not the engine's rough boxes, tell a word space from a
  letter's side bearing); in a chart, where the glyphs' boxes stand apart (WORD_GAP, or SPACE_GAP
  at a lower-to-upper case change);
* a line is split where a number runs into the next panel's label ("39.6medgemma-27b-text-it");
* once the document's text is known, a name the text prints with spaces gets them back
  (`respell_labels`: "Gemini3Pro" -> "Gemini 3 Pro"); every letter stays as read.

Used by raster_charts.py (bar charts pasted as pictures) and raster_tables.py (pasted tables).
Without the OCR package nothing is read and ingest goes on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from functools import lru_cache

import numpy as np
from PIL import Image

log = logging.getLogger("hopgraph.ingest")
_NUMBER = re.compile(r"[-+]?\d[\d.,]*%?")

MAX_SIDE = 1600  # px: a larger picture is scaled down before reading (OCR time grows with its area)
MIN_OCR_SCORE = 0.9
SPACE_GAP = 0.18  # of a line's height: glyphs this far apart at a case change had a space between them
WORD_GAP = 0.45  # of a line's height: glyphs this far apart anywhere had a space between them
SPLIT_GAP = 1.0  # of a line's height: glyphs this far apart belong to two printed lines
# of a line's height: a blank run this wide in the picture between two glyphs is a word space (spaces
# measure 0.22-0.37 of the height in GPT-5.2's and Gemini 3 Pro's pictures, letters' gaps up to 0.18)
INK_SPACE = 0.2
INK_CONTRAST = 60  # grey levels from the line's ground that count as ink


def load_pixels(path: str) -> np.ndarray | None:
    """A picture file as RGB pixels, scaled down to MAX_SIDE; None for a file PIL cannot read."""
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


def _ink_spaces(pixels: np.ndarray, glyphs: list[str], boxes: list) -> set[int]:
    """Indices k whose glyph the picture shows a word space before: a blank run of INK_SPACE of the
    line's height between the middles of glyphs k-1 and k, a letter on one side and neither a digit
    mark (".", ",", "-", "/": "91.9%" leaves wide gaps around its point) nor two digits."""
    y0 = max(0, int(min(b[0][1] for b in boxes)))
    y1 = min(pixels.shape[0], int(max(b[2][1] for b in boxes)) + 1)
    if y1 - y0 < 4:
        return set()
    band = pixels[y0:y1].mean(axis=2)
    ink = (np.abs(band - np.median(band)) > INK_CONTRAST).any(axis=0)
    out = set()
    for k in range(1, len(glyphs)):
        a, b = glyphs[k - 1], glyphs[k]
        if not (a.isalpha() or b.isalpha()) or a in ".,-/" or b in ".,-/":
            continue
        left = int((boxes[k - 1][0][0] + boxes[k - 1][1][0]) / 2)
        right = min(len(ink), int((boxes[k][0][0] + boxes[k][1][0]) / 2))
        run = best = 0
        for filled in ink[max(0, left):right]:
            run = 0 if filled else run + 1
            best = max(best, run)
        if best >= INK_SPACE * (y1 - y0):
            out.add(k)
    return out


def _segments(text: str, boxes: list, shown: set[int] | None = None) -> list[tuple[str, float, float, float, float]]:
    """One OCR line as the printed lines it holds: split where its glyphs stand a line's height apart,
    or where a number is followed, a word's space on, by a name (Baichuan-M3's Figure 7: one panel's
    "39.6" and the next panel's "medgemma-27b-text-it" came back as one line); spaced where the
    engine printed a space or where the picture shows one (`shown`, from `_ink_spaces`). Without the
    picture (`shown` None) the engine's boxes are all there is: glyphs apart by SPACE_GAP at a
    lower-to-upper case change ("Clinical" | "Inquiry") or by WORD_GAP anywhere. With it the boxes
    decide no space: they are rough ("MathArena" came back "Math Arena" by its boxes, the pixels
    show no gap). A name written in one piece ("HealthBench", "AntAngelMed") has no such gap and
    stays whole. Boxes in pixels; [] when they do not match."""
    found = _glyphs(text, boxes)
    if found is None:
        return []
    glyphs, boxes, printed_space = found
    by_boxes = shown is None
    printed_space = printed_space | (shown or set())
    height = max(1.0, float(np.median([b[2][1] - b[0][1] for b in boxes])))
    pieces: list[list[int]] = [[0]]
    spaces: set[int] = set()
    for k in range(1, len(glyphs)):
        gap = boxes[k][0][0] - boxes[k - 1][1][0]
        word_break = k in printed_space or (by_boxes and gap >= WORD_GAP * height)
        so_far = "".join(glyphs[j] for j in pieces[-1])
        if gap >= SPLIT_GAP * height or (word_break and _NUMBER.fullmatch(so_far) and glyphs[k].isalpha()):
            pieces.append([k])
            continue
        turn = (glyphs[k - 1].islower() and glyphs[k].isupper()) or (glyphs[k] == "(" and glyphs[k - 1].isalnum())
        if word_break or (by_boxes and turn and gap >= SPACE_GAP * height):  # "Virology (Multi-select)"
            spaces.add(k)
        pieces[-1].append(k)
    out = []
    for piece in pieces:
        words = "".join((" " if k in spaces else "") + glyphs[k] for k in piece)
        xs = [p[0] for k in piece for p in boxes[k]]
        ys = [p[1] for k in piece for p in boxes[k]]
        out.append((words, float(min(xs)), float(min(ys)), float(max(xs)), float(max(ys))))
    return out


MAX_TILT = 0.1  # rise over run of a line's top edge: about 6 degrees, a box's skew, not a rotated label


def _upright(corners) -> bool:
    """A line set level: its box's top edge rises at most MAX_TILT (at least 2 px allowed) and its right
    edge leans at most 2.5 times that share of its height (a short line's box leans more). GPT-5.2's
    tick labels came back with 3-4 px of skew over 60 px and had been dropped as rotated by a fixed
    2 px test."""
    (x0, y0), (x1, y1), (x2, y2) = corners[0], corners[1], corners[2]
    return abs(y1 - y0) <= max(2.0, MAX_TILT * abs(x1 - x0)) and abs(x2 - x1) <= max(2.0, MAX_TILT * abs(y2 - y1) * 2.5)


_READ_CACHE: dict[tuple, list] = {}  # the last pictures the engine read, by their pixels' hash
READ_CACHE_SIZE = 4


def _engine_read(pixels: np.ndarray) -> list | None:
    """The engine's raw result for a picture; None without the OCR package. Each picture costs seconds
    and up to three readers ask (a captioned picture may be tried as a chart, a table and a pie), so the
    last few results are kept."""
    engine = _ocr_engine()
    if engine is None:
        return None
    key = (pixels.shape, hashlib.sha1(np.ascontiguousarray(pixels).tobytes()).hexdigest())
    if key not in _READ_CACHE:
        found, _elapsed = engine(np.ascontiguousarray(pixels[..., ::-1]), return_word_box=True)  # reads BGR
        if len(_READ_CACHE) >= READ_CACHE_SIZE:
            _READ_CACHE.pop(next(iter(_READ_CACHE)))
        _READ_CACHE[key] = found or []
    return _READ_CACHE[key]


def ocr_lines(pixels: np.ndarray, clean_ground: bool = False) -> list[tuple[str, float, float, float, float]] | None:
    """Upright printed lines (text, x0, y0, x1, y1) in pixels; None without the OCR package.
    `clean_ground`: the text stands alone on its ground (a table), so the picture's blank gaps tell its
    word spaces (`_ink_spaces`); in a chart, bars and rules share a line's band and small type leaves
    letter gaps as wide as spaces (Baichuan-M3's Figure 7 read "Thinki ng"), so the glyph boxes do."""
    found = _engine_read(pixels)
    if found is None:
        return None
    lines = []
    for corners, text, score, *glyph_boxes in found or []:
        if _upright(corners) and float(score) >= MIN_OCR_SCORE and text.strip():
            boxes = glyph_boxes[0] if glyph_boxes else []
            glyphs = _glyphs(text.strip(), boxes) if boxes else None
            shown = _ink_spaces(pixels, glyphs[0], glyphs[1]) if glyphs and clean_ground else None
            pieces = _segments(text.strip(), boxes, shown)
            if not pieces:  # no glyph boxes: the line as the engine gave it
                (x0, y0), (x1, _), (_, y1) = corners[0], corners[1], corners[2]
                pieces = [(text.strip(), float(x0), float(y0), float(x1), float(y1))]
            lines.extend(pieces)
    return lines


def _vocabulary(texts: list[str]) -> set[str]:
    return {w.strip(",.;:()[]").lower() for text in texts for w in text.split()}


MAX_NAME_WORDS = 4


def _phrases(texts: list[str], wanted: set[str]) -> dict[str, str]:
    """Each phrase of 2 to MAX_NAME_WORDS words the text prints whose letters, in lower case without
    spaces, are a `wanted` key (only the figures' names are looked up: every phrase of a long document
    would cost seconds and memory); a key printed with two spacings is left out."""
    found: dict[str, set[str]] = {}
    for text in texts:
        words = [w.strip(",.;:()[]") for w in text.split()]
        for n in range(2, MAX_NAME_WORDS + 1):
            for k in range(len(words) - n + 1):
                key = "".join(words[k:k + n]).lower()
                if key in wanted:
                    found.setdefault(key, set()).add(" ".join(words[k:k + n]).lower())
    return {key: next(iter(forms)) for key, forms in found.items() if len(forms) == 1}


def _spaced_as(name: str, phrase: str) -> str:
    """`name`'s own letters with spaces where `phrase` (the same letters, any case) has them; `name`
    as it is when the two differ in length ("İ" lowers to two characters)."""
    letters = name.replace(" ", "")
    if len(letters) != len(phrase.replace(" ", "")):
        return name
    it, out = iter(letters), []
    for ch in phrase:
        out.append(" " if ch == " " else next(it))
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


_CONFUSED = str.maketrans("0Il1|", "oll" + "ll")  # glyphs the OCR swaps: "OpenAl" for "OpenAI", "Oday" for "0day"


def _shape(word: str) -> str:
    """A word as the OCR may misread it: lower case, the glyphs it confuses made one."""
    return word.translate(_CONFUSED).lower()


def _text_spellings(texts: list[str], wanted: set[str]) -> dict[str, str]:
    """shape -> the one spelling the text prints a `wanted` word in, for words the OCR misreads: with a
    capital inside ("CharXiv" read "Charxiv") or a glyph it confuses ("OpenAI" read "OpenAl", "0day"
    read "Oday"). An ordinary word's case ("Others" heading a legend, "others" in prose) is the
    figure's own."""
    found: dict[str, set[str]] = {}
    for text in texts:
        for w in text.split():
            w = w.strip(",.;:()[]")
            if _shape(w) in wanted and (any(ch.isupper() for ch in w[1:]) or any(ch in "0Il1|" for ch in w)):
                found.setdefault(_shape(w), set()).add(w)
    return {shape: next(iter(forms)) for shape, forms in found.items() if len(forms) == 1}


def _names(ref) -> list[str]:
    """The names a read picture carries: its printed lines, its bars' series and groups, its cells' rows
    and columns."""
    out = [row[0] for row in json.loads(ref.visible_lines or "[]")]
    for field in (ref.bar_values, ref.table_cells):
        out += [str(v) for row in json.loads(field or "[]") for v in row[:2]]
    return out


def respell_labels(figures: list, texts: list[str]) -> None:
    """Put back the spaces the OCR dropped from a pictured chart's or table's names: as the document's
    text spaces the same letters ("Gemini3Pro" -> "Gemini 3 Pro"), or after a run of capitals where the
    text prints each part as a word and never the two as one ("OpenAIo3-mini-high" -> "OpenAI
    o3-mini-high", "GPQADiamond" -> "GPQA Diamond": Seed1.5-Thinking's Figure 1, set in a serif whose
    word spaces are narrower than the OCR's gap). Every letter stays as read."""
    if not figures:
        return
    names = [name for ref in figures for name in _names(ref)]
    wanted = {n.replace(" ", "").lower() for n in names} | {w.lower() for n in names for w in n.split()}
    vocabulary, phrases = _vocabulary(texts), _phrases(texts, wanted)
    spelled = _text_spellings(texts, {_shape(w) for n in names for w in n.split()})
    printed = {w.strip(",.;:()[]") for text in texts for w in text.split()}  # as printed, case and all

    def fix(name: str) -> str:
        phrase = phrases.get(name.replace(" ", "").lower())
        if phrase is not None and phrase.count(" ") > name.count(" "):
            name = _spaced_as(name, phrase)  # "Gemini3Pro" as the text prints "Gemini 3 Pro"
        else:
            name = " ".join(_respaced_word(w, vocabulary, phrases) for w in name.split())
        return " ".join(w if w in printed else spelled.get(_shape(w), w) for w in name.split())

    for ref in figures:  # a chart's (series, group, ...) or a table's (row, column, value)
        if ref.bar_values:
            ref.bar_values = json.dumps([[fix(a), fix(b), *rest] for a, b, *rest in json.loads(ref.bar_values)])
        if ref.table_cells:
            ref.table_cells = json.dumps([[fix(a), fix(b), *rest] for a, b, *rest in json.loads(ref.table_cells)])
        printed = [[fix(text), *box] for text, *box in json.loads(ref.visible_lines)]
        ref.visible_lines = json.dumps(printed)
        ref.visible_text = "\n".join(row[0] for row in printed)
