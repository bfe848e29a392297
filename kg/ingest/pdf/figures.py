"""Figures: which images and drawings are content, their captions, their files."""

from __future__ import annotations

import re

import json
from collections import defaultdict
from pathlib import Path

import pymupdf

from kg.ids import sha256_bytes
from kg.ingest.pdf.bar_charts import legend, read_bars
from kg.ingest.pdf.chart_text import Line as ChartLine
from kg.ingest.pdf.types import Graphic, RawBlock, RawPage
from kg.ingest.text import save_asset
from kg.models import ImageRef

MIN_IMAGE_PX = 150  # images under this on a side are icons, bullets or rules
MIN_IMAGE_PT = 50  # displayed smaller than this (points) on a side: decorative
MIN_IMAGE_PAGE_FRACTION = 0.02  # uncaptioned images covering less of the page are logos
MAX_REPEAT_PAGES = 2  # the same image on more pages is a logo or page furniture
FIGURE_RENDER_DPI = 150
NEARBY_CHARS = 500
CAPTION_MAX_GAP = 0.5  # of page height: a figure sits at most this far above its caption


def image_page_counts(pages: list[RawPage]) -> dict[int, int]:
    on_pages: dict[int, set[int]] = defaultdict(set)
    for page in pages:
        for image in page.images:
            on_pages[image.xref].add(page.number)
    return {xref: len(numbers) for xref, numbers in on_pages.items()}


def _caption_column(caption: RawBlock, page: RawPage) -> tuple[float, float]:
    """Horizontal span a caption speaks for: its column, or the row share next to another caption."""
    box = caption.bbox
    mid = (page.rect.x0 + page.rect.x1) / 2
    row = sorted(
        (b.bbox for b in page.blocks if b.kind == "caption" and abs(b.bbox.y0 - box.y0) < 3),
        key=lambda r: r.x0,
    )
    if len(row) > 1:
        i = next(k for k, r in enumerate(row) if abs(r.x0 - box.x0) < 0.5)
        # Partition at each caption's left edge: captions sit under the left
        # edge of their figure more reliably than they end where it ends.
        left = box.x0 if i > 0 else page.rect.x0
        right = row[i + 1].x0 if i + 1 < len(row) else page.rect.x1
        return left, right
    if _single_column(page):
        return page.rect.x0, page.rect.x1  # a short caption set flush left speaks for the full width
    if box.x1 <= mid + 10:
        return page.rect.x0, mid
    if box.x0 >= mid - 10:
        return mid, page.rect.x1
    return page.rect.x0, page.rect.x1


def _single_column(page: RawPage) -> bool:
    """Every paragraph of the page runs across the middle: no columns."""
    mid = (page.rect.x0 + page.rect.x1) / 2
    prose = [b.bbox for b in page.blocks if b.kind == "text" and len(b.text) >= 80]
    return bool(prose) and all(r.x0 < mid - 10 and r.x1 > mid + 10 for r in prose)


def above_caption(box: pymupdf.Rect, caption: pymupdf.Rect) -> pymupdf.Rect:
    """A drawing that frames its caption too (a panel's border or background drawn around chart and
    caption) is the figure down to the caption's top."""
    framed = box.x0 - 2 <= caption.x0 and caption.x1 <= box.x1 + 2 and box.y0 < caption.y0 < box.y1
    return pymupdf.Rect(box.x0, box.y0, box.x1, caption.y0) if framed else box


# "(b) Performance on instruction-following benchmarks for text-to-image generation.": a panel's own
# caption, set between its drawing and the figure's caption (Janus-Pro's Figure 1), is no body text
# that would make the figure caption someone else's.
SUBCAPTION = re.compile(r"^\s*\(?[a-h]\)\s")


def _assign_to_captions(page: RawPage, graphics: list[Graphic]) -> dict[int, list[Graphic]]:
    """Map figure-caption block index -> graphics drawn above it.

    A graphic goes to the nearest Figure caption below it whose column covers
    most of it; long body text in between means the caption is someone else's.
    """
    captions = [
        (i, b, _caption_column(b, page))
        for i, b in enumerate(page.blocks)
        if b.kind == "caption" and b.label.startswith("Figure")
    ]
    body = [b.bbox for b in page.blocks if b.kind == "text" and len(b.text) >= 80 and not SUBCAPTION.match(b.text)]
    groups: dict[int, list[Graphic]] = defaultdict(list)
    max_gap = CAPTION_MAX_GAP * page.rect.height
    for graphic in graphics:
        best, best_key = None, None
        for index, caption, (left, right) in captions:
            cap = caption.bbox
            g = above_caption(graphic.bbox, cap)
            gap = cap.y0 - g.y1
            overlap = (min(g.x1, right) - max(g.x0, left)) / max(g.width, 1e-6)
            if gap < -10 or gap > max_gap or overlap < 0.4:
                continue
            if any(
                b.y0 >= g.y1 - 2 and b.y1 <= cap.y0 + 2 and min(b.x1, g.x1) > max(b.x0, g.x0)
                for b in body
            ):
                continue
            key = (round(gap), -overlap)
            if best_key is None or key < best_key:
                best, best_key = index, key
        if best is not None:
            groups[best].append(graphic)
    return groups


def _is_decorative(image: Graphic, page: RawPage, image_pages: dict[int, int], min_px: int) -> bool:
    if image_pages.get(image.xref, 0) > MAX_REPEAT_PAGES:
        return True
    if min(image.width, image.height) < min_px:
        return True
    if min(image.bbox.width, image.bbox.height) < MIN_IMAGE_PT:
        return True
    return image.bbox.get_area() < MIN_IMAGE_PAGE_FRACTION * page.rect.get_area()


def page_figures(
    doc: pymupdf.Document,
    page: RawPage,
    image_pages: dict[int, int],
    assets_dir: Path,
    doc_sha: str,
    seen: set[str],
    min_image_px: int = MIN_IMAGE_PX,
) -> tuple[list[ImageRef], int]:
    """Figures of one page as ImageRefs, and how many images were skipped.

    Uncaptioned images under min_image_px on a side are icons or bullets.

    Captioned figures made of several pieces (or vector drawings) are rendered
    as one picture of their region, because the pieces alone are meaningless;
    a lone captioned raster image keeps its original bytes.
    """
    in_table = lambda g: any(g.bbox.intersects(t.bbox) for t in page.tables)  # noqa: E731
    usable = [g for g in page.images if image_pages.get(g.xref, 0) <= MAX_REPEAT_PAGES]
    skipped = len(page.images) - len(usable)
    drawings = [g for g in page.drawings if not in_table(g)]
    groups = _assign_to_captions(page, usable + drawings)

    refs: list[ImageRef] = []
    grouped_ids = set()
    for index, members in sorted(groups.items(), key=lambda item: page.blocks[item[0]].bbox.y0):
        caption = page.blocks[index]
        rasters = [m for m in members if m.xref]
        grouped_ids.update(id(m) for m in members)
        if len(members) == 1 and rasters:
            payload = _extract(doc, rasters[0].xref)
            if payload is None:
                skipped += 1
                continue
            data, ext, width, height = payload
            bbox = rasters[0].bbox
        else:
            # Vector art of neighbouring figures can chain into one cluster;
            # the caption's column bounds what belongs to this figure.
            left, right = _caption_column(caption, page)
            bbox = pymupdf.Rect()
            for member in members:
                own = above_caption(member.bbox, caption.bbox)
                clipped = pymupdf.Rect(max(own.x0, left), own.y0, min(own.x1, right), own.y1)
                bbox |= clipped if not clipped.is_empty else own
            for legend in legend_blocks(page, bbox):
                bbox |= legend.bbox
            source = doc[page.number - 1]
            # pymupdf renders some images differently once get_image_info has
            # decoded them; do it here too, so the picture's bytes (its id)
            # do not depend on which process ran pass 1.
            source.get_image_info(xrefs=True)
            pix = source.get_pixmap(clip=bbox, dpi=FIGURE_RENDER_DPI)
            data, ext, width, height = pix.tobytes("png"), "png", pix.width, pix.height
        ref = _store(data, ext, width, height, bbox, page.number, assets_dir, doc_sha, seen)
        if ref is None:
            skipped += 1
            continue
        ref.caption, ref.label = caption.text, caption.label
        refs.append(ref)

    for image in usable:
        if id(image) in grouped_ids:
            continue
        if _is_decorative(image, page, image_pages, min_image_px):
            skipped += 1
            continue
        payload = _extract(doc, image.xref)
        ref = _store(*payload, image.bbox, page.number, assets_dir, doc_sha, seen) if payload else None
        if ref is None:
            skipped += 1
            continue
        refs.append(ref)
    return refs, skipped


LEGEND_REACH = 30.0  # points above or below a chart's drawings where a legend strip may stand


def legend_blocks(page: RawPage, box: pymupdf.Rect) -> list[RawBlock]:
    """Text blocks just above or below a chart's drawings that are its legend: 2+ names each right of a
    small swatch of its own colour (bar_charts.legend). Drawn apart from the plot (a strip too thin to
    be a figure), the legend would be left out of the picture and its names become a paragraph."""
    out = []
    for block in page.blocks:
        b = block.bbox
        near = box.y0 - LEGEND_REACH <= b.y1 <= box.y0 + 2 or box.y1 - 2 <= b.y0 <= box.y1 + LEGEND_REACH
        if block.kind != "text" or not near or min(b.x1, box.x1) <= max(b.x0, box.x0):
            continue
        lines = [ChartLine(ln.text.strip(), *ln.bbox) for ln in block.lines]
        fills = [f for f in page.fills if pymupdf.Rect(f.rect).intersects(b + (-20, -4, 4, 4))]
        if len(legend(lines, fills)[0]) >= 2:
            out.append(block)
    return out


FIGURE_TEXT_MARGIN = 12.0  # points around a figure's drawings where its tick labels, legend and axis titles sit
AXIS_LABEL_MARGIN = 24.0  # points below them: group labels under an axis run to two lines ("Harbour" / "(Acc.)")
MAX_FIGURE_TEXT_BLOCK = 200  # a longer block inside a figure's box is prose set around it, not a label
MAX_MARGIN_LABEL_WORDS = 6  # in the margin only labels this short are the figure's ("Tableau 4 : ..." is not)


def take_figure_text(page: RawPage, figures: list[ImageRef]) -> None:
    """Short text drawn inside a captioned figure (labels, legend entries, axis titles, data labels)
    is what the figure shows, not prose: as text blocks it would make meaningless chunks. It moves
    from the page's blocks to the figure: `visible_text` (one printed line a line, in reading order,
    top to bottom and left to right) and `visible_lines` (JSON [[text, x0, y0, x1, y1], ...], for
    telling which value stands at which label)."""
    boxes = [pymupdf.Rect(f.bbox) for f in figures]
    margins = [box + (-FIGURE_TEXT_MARGIN, -FIGURE_TEXT_MARGIN, FIGURE_TEXT_MARGIN, AXIS_LABEL_MARGIN) for box in boxes]
    taken: dict[int, list] = defaultdict(list)
    kept = []
    for block in page.blocks:
        owner = None
        if block.kind == "text" and len(block.text) < MAX_FIGURE_TEXT_BLOCK:
            owner = _figure_of(block, boxes)
            if owner is None and max(len(ln.text.split()) for ln in block.lines) <= MAX_MARGIN_LABEL_WORDS:
                # Per printed line: a row of tick labels under the axis is one block of many short lines
                # ("MMLU-Pro", "GPQA", ..., "C-Eval": Ling's Figures 1 and 2, q60), a caption one of long ones.
                owner = _figure_of(block, margins)  # a tick label or axis title just outside the drawings
        if owner is None:
            kept.append(block)
        else:
            taken[owner].extend(block.lines)
    page.blocks = kept
    for index, lines in taken.items():
        ordered = sorted(lines, key=lambda ln: (round((ln.bbox[1] + ln.bbox[3]) / 2 / 4), ln.bbox[0]))
        figures[index].visible_text = "\n".join(ln.text.strip() for ln in ordered)
        # A rotated label's box does not stand where its text points (a 45-degree tick label ends at
        # its tick, its box's middle lies over the group before): no position is read from it.
        figures[index].visible_lines = json.dumps([[ln.text.strip(), *(round(v, 1) for v in ln.bbox)]
                                                   for ln in ordered if ln.upright])
        box = margins[index]
        fills = [f for f in page.fills if box.intersects(pymupdf.Rect(f.rect))]
        try:
            bars = read_bars([ChartLine(ln.text.strip(), *ln.bbox) for ln in ordered if ln.upright], fills,
                             [ln.text.strip() for ln in ordered],
                             [ChartLine(ln.text.strip(), *ln.bbox, rising=ln.rising) for ln in ordered if not ln.upright])
        except (ValueError, KeyError, IndexError, ZeroDivisionError):
            bars = []  # reading bars is an extra: a drawing it cannot make sense of costs no document
        figures[index].bar_values = json.dumps([list(b) for b in bars]) if bars else ""


def _figure_of(block: RawBlock, boxes: list[pymupdf.Rect]) -> int | None:
    """The figure whose box holds most (60%+) of the block, if any."""
    box = block.bbox
    area = max(box.get_area(), 1e-6)
    shares = [(box & fig).get_area() / area if box.intersects(fig) else 0.0 for fig in boxes]
    best = max(range(len(boxes)), key=lambda i: shares[i], default=None)
    return best if best is not None and shares[best] > 0.6 else None


def _extract(doc: pymupdf.Document, xref: int) -> tuple[bytes, str, int, int] | None:
    try:
        info = doc.extract_image(xref)
    except Exception:
        return None
    if not info or not info.get("image"):
        return None
    return info["image"], info.get("ext", "png"), info.get("width", 0), info.get("height", 0)


def _store(
    data: bytes,
    ext: str,
    width: int,
    height: int,
    bbox: pymupdf.Rect,
    page: int,
    assets_dir: Path,
    doc_sha: str,
    seen: set[str],
) -> ImageRef | None:
    """Write the image unless identical bytes were already kept (then None)."""
    digest = sha256_bytes(data)[:16]
    if digest in seen:
        return None
    seen.add(digest)
    image_id, target = save_asset(data, ext, assets_dir, doc_sha)
    return ImageRef(
        id=image_id,
        path=str(target),
        page=page,
        bbox=[round(v, 2) for v in bbox],
        width=width,
        height=height,
    )


def fill_nearby_text(images: list[ImageRef], page: RawPage) -> None:
    """~500 characters of the page's text closest to the image (caption excluded)."""
    for image in images:
        box = pymupdf.Rect(image.bbox)

        def distance(block: RawBlock) -> float:
            other = block.bbox
            dx = max(other.x0 - box.x1, box.x0 - other.x1, 0)
            dy = max(other.y0 - box.y1, box.y0 - other.y1, 0)
            return dx + dy

        parts: list[str] = []
        total = 0
        for block in sorted(page.blocks, key=distance):
            text = block.text
            if text == image.caption or len(text) < 3:
                continue
            parts.append(text)
            total += len(text) + 1
            if total >= NEARBY_CHARS:
                break
        image.nearby_text = " ".join(parts)[:NEARBY_CHARS]
