"""Pass 1 of the PDF reader: one page's text lines, images, drawings and tables."""

from __future__ import annotations

import re

import pymupdf

from kg.enrich.references import caption_label
from kg.ingest.pdf.table_cues import table_cue
from kg.ingest.pdf.printed_table import spell_ligatures
from kg.ingest.pdf.tables import find_tables, remove_text_in_tables
from kg.ingest.pdf.types import Fill, Graphic, Line, RawBlock, RawPage

MIN_IMAGE_PT = 50  # displayed smaller than this (points) on a side: decorative


def collect_page(page: pymupdf.Page) -> RawPage:
    # Ligatures are kept here and spelled out per line (_line): some publishers set a space after
    # the glyph ("Preﬂ ight", "ﬁ rst": 135 times in an FAA handbook chapter), which only the glyph
    # itself tells from a word break.
    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    raw = page.get_text("dict", flags=flags)
    blocks: list[RawBlock] = []
    for raw_block in raw["blocks"]:
        lines = [
            _line(spans, raw_line)
            for raw_line in raw_block.get("lines", [])
            for spans in _span_runs(raw_line["spans"])
        ]
        lines = [line for line in lines if line.text.strip()]
        blocks.extend(_split_at_captions(lines, page.number + 1))

    images = []
    for info in page.get_image_info(xrefs=True):
        bbox = pymupdf.Rect(info["bbox"]) & page.rect
        if bbox.is_empty:
            continue
        images.append(Graphic(bbox, info.get("xref", 0), info["width"], info["height"]))

    drawn = page.get_drawings(extended=True)  # with clips: a bar shows only where its clip lets it
    drawings = [d for d in drawn if d.get("type") not in ("clip", "group")]
    drawing_rects = [r for _d, r in visible_drawings(drawn)]
    result = RawPage(page.number + 1, page.rect, blocks, images, _cluster(drawing_rects, page.rect),
                     fills=filled_rects(drawn))
    # find_tables is the slowest step (0.2-1 s a page: it runs a layout model);
    # only pages with a table cue get it.
    result.table_cue = table_cue(blocks, drawings, page.rect)
    if result.table_cue:
        result.tables = find_tables(page, drawings)
        remove_text_in_tables(result)
    return result


MAX_BOX_PATH_ITEMS = 10  # a rounded rectangle is four lines and four corner curves
# Some charts round each corner with four curves (LongCat-Flash-Omni's bars: 4 sides + 16 curves): a
# longer path is a box when its straight parts are its four axis-aligned sides.
MAX_ROUNDED_BOX_ITEMS = 24


def _is_box_path(items: list) -> bool:
    if not items or not all(item[0] in ("re", "qu", "l", "c") for item in items):
        return False
    if len(items) <= MAX_BOX_PATH_ITEMS:
        return True
    sides = [item for item in items if item[0] == "l"]
    return (len(items) <= MAX_ROUNDED_BOX_ITEMS and len(sides) == 4
            and all(abs(a.x - b.x) < 0.5 or abs(a.y - b.y) < 0.5 for _kind, a, b in sides))


def visible_drawings(drawings: list[dict]) -> list[tuple[dict, pymupdf.Rect]]:
    """Each drawing (not a clip or group) with the part of its box its clips leave visible, empty
    ones left out. `drawings` as page.get_drawings(extended=True) lists them (clips with their
    levels); plain get_drawings() output works too, unclipped. Charts whose value axis starts above
    zero draw each bar down past the axis and clip it there (LongCat-Flash-Omni's Figure 1: bars to
    y=595 under an axis at y=531; DeepSeek-Prover-V2's to y=991, past the page's foot): what shows is
    the bar, and the figure ends where it does."""
    out = []
    clips: dict[int, pymupdf.Rect] = {}  # level -> a clip in force for what is nested deeper
    for d in drawings:
        level = d.get("level", 0)
        # Anything at a level ends the clips opened at that level or deeper (they were its siblings').
        clips = {k: v for k, v in clips.items() if k < level}
        if d.get("type") == "clip":
            clips[level] = pymupdf.Rect(d["scissor"])
            continue
        if d.get("type") == "group":
            continue
        r = pymupdf.Rect(d["rect"])
        for clip in clips.values():
            r &= clip
        # A line has no area: a horizontal or vertical one is empty as a Rect but still shows.
        if r.is_valid and (r.width > 0 or r.height > 0):
            out.append((d, r))
    return out


def filled_rects(drawings: list[dict]) -> list[Fill]:
    """The page's filled boxes (a rectangle, or a short path of lines and corner curves, with an opaque
    fill), by the part of their box their clip leaves visible (`visible_drawings`): bars and legend
    swatches, square or rounded. A box drawn twice (GLM-4.5's Figure 1 fills each small bar twice) is
    one box, in the colour drawn last: two would claim each other's value.

    A hatched bar is drawn as an outline only, its hatching a pattern no drawing lists (DeepSeek's
    charts set their own model's bars so: Prover-V2's in blue, Janus-Pro's in white), and its legend
    swatch the same way, perhaps on a white ground: an outlined box nothing fills is a box of its
    outline's colour, and so is a white box outlined in a colour."""
    out: dict[tuple, Fill] = {}
    outlines: dict[tuple, Fill] = {}
    for d, r in visible_drawings(drawings):
        if r.is_empty or not _is_box_path(d.get("items") or []):
            continue
        box = (round(r.x0, 1), round(r.y0, 1), round(r.x1, 1), round(r.y1, 1))
        opacity = d.get("fill_opacity")
        if d.get("fill") and (1.0 if opacity is None else opacity) > 0.5:
            out[box] = Fill(box, tuple(d["fill"]))
        elif d.get("type") == "s" and d.get("color"):
            outlines[box] = Fill(box, tuple(d["color"]), outlined=True)
    for box, outline in outlines.items():
        if box not in out and _covered(box, list(out)):
            continue  # the edge of a box drawn filled in pieces (DeepSeek-R1's legend swatch: two halves)
        if box not in out or (min(out[box].rgb) >= WHITE and min(outline.rgb) < WHITE):
            out[box] = outline
    return list(out.values())


def _covered(box: tuple, filled: list[tuple]) -> bool:
    """Whether filled boxes inside `box` cover most of it."""
    x0, y0, x1, y1 = box
    area = sum((b[2] - b[0]) * (b[3] - b[1]) for b in filled
               if x0 - 0.5 <= b[0] and b[2] <= x1 + 0.5 and y0 - 0.5 <= b[1] and b[3] <= y1 + 0.5)
    return area >= 0.9 * (x1 - x0) * (y1 - y0)


WHITE = 0.99  # every channel this bright: a white ground


def _span_runs(spans: list[dict], gap: float = 15.0) -> list[list[dict]]:
    """Split a line's spans at wide horizontal gaps.

    pymupdf joins spans on one baseline into one line even when they belong to
    two columns (side-by-side captions "Figure 7-26 ...   Figure 7-27 ...").
    """
    runs: list[list[dict]] = []
    for span in spans:
        if runs and span["bbox"][0] - runs[-1][-1]["bbox"][2] > gap:
            runs.append([span])
        elif runs:
            runs[-1].append(span)
        else:
            runs.append([span])
    return runs


# A space a publisher set after a ligature inside a word ("Preﬂ ight", "speciﬁ c"): fi, fl, ffi and ffl
# end almost no English word, so a lower-case letter after the space continues the same word. Not
# "ﬀ" ("oﬀ the", "staﬀ are" end words) nor "ﬅ"/"ﬆ".
_LIGATURE_GAP = re.compile("([\ufb01-\ufb04]) (?=[a-z])")


# TeX's registered and copyright marks come out as a letter and a combining circle ("z/OS R⃝Workload"):
# the sign a reader sees, after its word.
_REGISTERED = re.compile(r"\s?R\u20dd\s?")


def _enclosed_marks(text: str) -> str:
    return _REGISTERED.sub("\u00ae ", text).replace("C\u20dd", "\u00a9")


def _line(spans: list[dict], raw_line: dict) -> Line:
    spans = drop_footnote_markers(spans)
    text = _enclosed_marks(spell_ligatures(_LIGATURE_GAP.sub(r"\1", "".join(s["text"] for s in spans)))).strip()
    visible = [s for s in spans if s["text"].strip()]
    if not visible:
        return Line("", tuple(raw_line["bbox"]), 0.0, False)
    bbox = pymupdf.Rect(spans[0]["bbox"])
    for span in spans[1:]:
        bbox |= span["bbox"]
    size = max(s["size"] for s in visible)
    bold = all((s["flags"] & 16) or "bold" in s["font"].lower() for s in visible)
    first_bold = bool((visible[0]["flags"] & 16) or "bold" in visible[0]["font"].lower())
    direction = raw_line.get("dir") or (1.0, 0.0)
    upright = direction[0] > 0.99 and abs(direction[1]) < 0.01
    rising = not upright and direction[0] > 0.01 and direction[1] < -0.01  # y grows down the page
    return Line(text, tuple(bbox), round(size, 1), bold, first_bold, upright, rising)


_MARKER_RE = re.compile(r"\s*(?:\d{1,3}(?:[,\u2013-]\d{1,3})*|[*\u2217\u2020\u2021\u00a7\u00b6]{1,3})\s*")
_MARKER_SHRINK = 0.85  # a marker is set at most this share of the line's type size


_UNITS = frozenset({"m", "cm", "mm", "km", "ft", "in", "s", "kg", "g", "yd", "mi"})  # "km\u00b2": an exponent


def _marks(before: str) -> bool:
    """A raised number after this text is a footnote marker, not an exponent or a numerator."""
    token = before.split()[-1] if before.split() else ""
    if not token or token[-1] == "\u2044" or token.lower() in _UNITS:
        return False
    if token[-1].isdigit():  # "v3.0.0\u2079" and "0.5.5\u00b9\u2070" are versions; "10\u2076" is a power
        return not token.endswith("10") and ("." in token or any(c.isalpha() for c in token))
    return True


def drop_footnote_markers(spans: list[dict]) -> list[dict]:
    """Spans without the footnote markers the PDF sets as superscripts.

    A marker is a short run of digits or of *, \u2020, \u2021 that the PDF
    flags as superscript, set smaller than the line and raised above the
    text before it, right after a word, a version or punctuation ("S2ORC,\u00b9",
    "each PDF.\u00b9\u00b9", "v3.0.0\u2079"). A power ("10\u2076", "km\u00b2") and a
    numerator ("\u00b9\u2044\u2084") are kept.
    Only markers the PDF shows as such go: never a digit of the text itself.
    """
    visible = [s for s in spans if s["text"].strip()]
    if len(visible) < 2:
        return spans
    size = max(s["size"] for s in visible)
    kept: list[dict] = []
    for i, span in enumerate(spans):
        before = "".join(s["text"] for s in kept).rstrip()
        after = "".join(s["text"] for s in spans[i + 1:]).lstrip()
        marker = (span["flags"] & 1 and span["size"] < _MARKER_SHRINK * size
                  and _MARKER_RE.fullmatch(span["text"]) and kept
                  and span["origin"][1] < kept[-1]["origin"][1] - 0.5
                  and _marks(before) and not after.startswith("\u2044"))
        if not marker:
            kept.append(span)
        elif after[:1].isalnum() and not spans[i + 1]["text"][:1].isspace() and not kept[-1]["text"][-1:].isspace():
            kept.append({**span, "text": " "})  # "Scholar\u2078Open" -> "Scholar Open", not "ScholarOpen"
    return kept


def _split_at_captions(lines: list[Line], page: int) -> list[RawBlock]:
    """Start a new block where a caption starts.

    pymupdf sometimes puts two side-by-side captions ("Figure 7-26 ...",
    "Figure 7-27 ...") in one block; a caption mid-paragraph ("... in Table 4.
    On average") is a sentence, so only a block's first line or a line on the
    same row as its predecessor can open a caption.
    """
    blocks: list[RawBlock] = []
    current: list[Line] = []
    for line in lines:
        same_row = bool(current) and _same_row(current[-1].bbox, line.bbox)
        if current and same_row and caption_label(line.text):
            blocks.append(RawBlock(current, page))
            current = []
        current.append(line)
    if current:
        blocks.append(RawBlock(current, page))
    for block in blocks:
        label = caption_label(block.lines[0].text)
        if label:
            block.kind, block.label = "caption", label
    return blocks


def _same_row(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """b continues to the right of a on the same baseline band (another column)."""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return b[0] >= a[2] - 1 and overlap > 0.5 * min(a[3] - a[1], b[3] - b[1])


def _cluster(rects: list[pymupdf.Rect], page_rect: pymupdf.Rect, gap: float = 4.0) -> list[Graphic]:
    """Merge nearby vector drawings into figure-sized regions.

    Page-sized rectangles (backgrounds, frames) and specks are not figures.
    """
    page_area = page_rect.get_area()
    keep = [r & page_rect for r in rects if r.get_area() < 0.8 * page_area]
    keep = [r for r in keep if not r.is_empty or (r.width > 0 or r.height > 0)]
    clusters: list[pymupdf.Rect] = []
    for rect in sorted(keep, key=lambda r: (r.y0, r.x0)):
        grown = pymupdf.Rect(rect.x0 - gap, rect.y0 - gap, rect.x1 + gap, rect.y1 + gap)
        for i, cluster in enumerate(clusters):
            if cluster.intersects(grown):
                clusters[i] = cluster | rect
                break
        else:
            clusters.append(pymupdf.Rect(rect))
    # One more merge sweep: clusters grown after creation may now touch.
    merged: list[pymupdf.Rect] = []
    for cluster in clusters:
        for i, other in enumerate(merged):
            if other.intersects(cluster + (-gap, -gap, gap, gap)):
                merged[i] = other | cluster
                break
        else:
            merged.append(cluster)
    return [Graphic(r) for r in merged if r.width >= MIN_IMAGE_PT and r.height >= MIN_IMAGE_PT]
