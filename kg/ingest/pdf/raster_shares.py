"""Pie and donut charts pasted as pictures: their printed labels and shares, read by OCR.

LLM reports draw their training-data mixture as a pie (Orion-14B's Figure 1: "Webpages: 74.8%",
"Code: 11.0%", ... around one disc); dataset papers their question types, HCI papers their
participants. No text of the page prints those shares. Read in three steps:

1. shape (`may_be_pie`): in a copy about SCREEN_SIDE px across, the coloured ink closed over the thin
   white seams between wedges and opened to drop type and leader lines leaves one blob shaped like
   a disc or a ring, holding two or more colours. Cheap enough for every captioned picture: a
   photo's ground is not light or its largest blob is no disc, and a diagram's is a box;
2. text: each printed line and its box, by OCR (ocr_text.ocr_lines);
3. check: an OCR misreading ("74.8%" as "14.8%") would put a share in a question that the chart
   does not print. The shares of a whole add up to 100: the chart is kept only when its printed
   percentages (MIN_SHARES or more) sum to 100 within SUM_TOLERANCE (Orion-14B's seven shares sum
   to 101.0 as printed).

What is kept is the printed text (`visible_lines`, `visible_text`), as for a vector figure: the
walkers pair each label with its share there (builders/chains/figure_walk.label_values: "Code:
11.0%" on one line, or a share printed beside or under its label).
"""

from __future__ import annotations

import json
import logging
import re

import numpy as np
from scipy import ndimage

from kg.ingest.pdf.ocr_text import load_pixels, ocr_lines

log = logging.getLogger("hopgraph.ingest")

SCREEN_SIDE = 500  # px: the size the shape test looks at
MIN_SIDE = 200  # px: a smaller picture holds no readable chart
INK_DISTANCE = 40  # grey levels from the ground colour that count as ink
SEAM_PX = 5  # px at SCREEN_SIDE: white seams between wedges this thin are closed, type this thin opened away
MIN_BLOB = 0.15  # of the copy's shorter side: a pie's disc is at least this wide
DISC_FILL = (0.45, 0.85)  # of its bounding box a disc fills pi/4 (0.785); a ring with a hole less
ROUND = (0.75, 1.33)  # width over height of a disc's bounding box
MAX_OUTSIDE = 0.05  # of the blob outside the ellipse its box holds: a box has 21% there, a disc none
MIN_COLOUR_SHARE = 0.03  # of the blob: a wedge at least this large counts as one of its colours
MIN_SHARES = 3
SUM_TOLERANCE = 1.5  # percentage points: rounding, and charts whose printed shares miss 100 by one
_PERCENT = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d+)?)\s?%")


def may_be_pie(pixels: np.ndarray) -> bool:
    """One disc- or ring-shaped blob of two or more colours on a light ground (see the module docstring)."""
    step = max(1, max(pixels.shape[:2]) // SCREEN_SIDE)
    small = pixels[::step, ::step].astype(np.int16)
    ground = np.median(small.reshape(-1, 3), axis=0)
    if ground.mean() < 160:
        return False
    ink = np.abs(small - ground).max(axis=2) > INK_DISTANCE
    structure = np.ones((SEAM_PX, SEAM_PX), dtype=bool)
    solid = ndimage.binary_opening(ndimage.binary_closing(ink, structure), structure)
    blobs, count = ndimage.label(solid)
    if count == 0:
        return False
    sizes = np.bincount(blobs.ravel())[1:]
    biggest = int(np.argmax(sizes)) + 1
    rows, cols = ndimage.find_objects(blobs)[biggest - 1]
    height, width = rows.stop - rows.start, cols.stop - cols.start
    if min(height, width) < MIN_BLOB * min(solid.shape) or not ROUND[0] <= width / height <= ROUND[1]:
        return False
    if not DISC_FILL[0] <= sizes[biggest - 1] / (height * width) <= DISC_FILL[1]:
        return False
    # Round, not a box or a cross: a disc or a ring leaves its box's corners, outside the ellipse, empty.
    ys, xs = np.nonzero(blobs[rows, cols] == biggest)
    outside = ((ys + 0.5 - height / 2) / (height / 2)) ** 2 + ((xs + 0.5 - width / 2) / (width / 2)) ** 2 > 1.05
    if outside.mean() > MAX_OUTSIDE:
        return False
    inside = small[blobs == biggest] // 32  # colour levels: anti-aliased rims vary the last bits only
    _colours, counts = np.unique(inside, axis=0, return_counts=True)
    return int((counts >= MIN_COLOUR_SHARE * len(inside)).sum()) >= 2


def shares_add_up(texts: list[str]) -> bool:
    """MIN_SHARES or more printed percentages that sum to 100 (within SUM_TOLERANCE)."""
    shares = [float(m.group(1)) for text in texts for m in _PERCENT.finditer(text)]
    return len(shares) >= MIN_SHARES and abs(sum(shares) - 100.0) <= SUM_TOLERANCE


def read_picture_shares(path: str, bbox: list[float]) -> list[list]:
    """The pie's printed lines in page points ([text, x0, y0, x1, y1], for visible_lines); [] for a
    picture that is no pie or whose shares do not add up."""
    pixels = load_pixels(path)
    if pixels is None or min(pixels.shape[:2]) < MIN_SIDE or len(bbox) != 4 or not may_be_pie(pixels):
        return []
    found = ocr_lines(pixels) or []
    if not shares_add_up([text for text, *_box in found]):
        return []
    sx, sy = (bbox[2] - bbox[0]) / pixels.shape[1], (bbox[3] - bbox[1]) / pixels.shape[0]
    return [[text, round(bbox[0] + x0 * sx, 1), round(bbox[1] + y0 * sy, 1), round(bbox[0] + x1 * sx, 1),
             round(bbox[1] + y1 * sy, 1)] for text, x0, y0, x1, y1 in found]


def read_pictured_pies(figures: list) -> list:
    """Fill visible_lines and visible_text of each captioned picture (kg.models.ImageRef) with no text
    of its own that no other reader took, when it reads as a pie whose shares add up; returns the
    figures read (for ocr_text.respell_labels)."""
    read = []
    for ref in figures:
        if not ref.label or ref.visible_text or ref.bar_values or ref.table_cells or not ref.path:
            continue
        try:
            printed = read_picture_shares(ref.path, list(ref.bbox))
        except Exception as exc:  # noqa: BLE001 - reading a pie is an extra: a picture costs no document
            log.warning("picture %s of %s not read as a pie: %s", ref.label, ref.path, exc)
            continue
        if printed:
            ref.visible_lines = json.dumps(printed)
            ref.visible_text = "\n".join(row[0] for row in printed)
            read.append(ref)
    return read
