"""PDF reader (pymupdf): text blocks in reading order, headings, figures, tables.

Two passes: the first gathers raw lines, image placements, drawings and tables
of every page; the second needs document-wide facts (body font size, running
headers, images repeated on many pages) to decide what is a heading, what is
decoration, and what belongs to which caption.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from kg.ids import sha256_bytes
from kg.enrich.references import caption_label
from kg.ingest.text import read_bytes, save_asset
from kg.models import Block, ImageRef, IngestError, ParsedDocument

MIN_IMAGE_PX = 150  # images under this on a side are icons, bullets or rules
MIN_IMAGE_PT = 50  # displayed smaller than this (points) on a side: decorative
MIN_IMAGE_PAGE_FRACTION = 0.02  # uncaptioned images covering less of the page are logos
MAX_REPEAT_PAGES = 2  # the same image on more pages is a logo or page furniture
FIGURE_RENDER_DPI = 150
NEARBY_CHARS = 500
CAPTION_MAX_GAP = 0.5  # of page height: a figure sits at most this far above its caption
TABLE_CAPTION_MAX_GAP = 60.0  # points between a table and its caption
HEADING_MAX_CHARS = 160
MARGIN_FRACTION = 0.07  # top/bottom band where running headers and page numbers live

_SECTION_RE = re.compile(r"^(?:(?:Section|SECTION|Chapter|CHAPTER)\s+)?(\d+(?:\.\d+)*)\.?\s+(?=\S)")
_PAGE_NUMBER_RE = re.compile(r"^[\W#]*(?:page\s*)?[#ivxlc]*[\W#]*(?:of\s*#)?[\W#]*$")


@dataclass
class _Line:
    text: str
    bbox: tuple[float, float, float, float]
    size: float
    bold: bool
    first_bold: bool = False  # the first span: caption labels are often bold alone


@dataclass
class _Block:
    """A text block on a page before it becomes a models.Block."""

    lines: list[_Line]
    page: int
    kind: str = "text"
    label: str = ""
    text_override: str = ""

    @property
    def bbox(self) -> pymupdf.Rect:
        rect = pymupdf.Rect(self.lines[0].bbox)
        for line in self.lines[1:]:
            rect |= line.bbox
        return rect

    @property
    def text(self) -> str:
        return self.text_override or _join_lines([line.text for line in self.lines])

    @property
    def size(self) -> float:
        return max(line.size for line in self.lines)

    @property
    def bold(self) -> bool:
        return all(line.bold for line in self.lines)


@dataclass
class _Table:
    bbox: pymupdf.Rect
    markdown: str
    caption: _Block | None = None


@dataclass
class _Graphic:
    """An image placement or a cluster of vector drawings on a page."""

    bbox: pymupdf.Rect
    xref: int = 0  # 0 for vector drawings
    width: int = 0
    height: int = 0


@dataclass
class _Page:
    number: int
    rect: pymupdf.Rect
    blocks: list[_Block]
    images: list[_Graphic]
    drawings: list[_Graphic]
    tables: list[_Table] = field(default_factory=list)


def read_pdf(path: Path, assets_dir: Path) -> ParsedDocument:
    """Parse a PDF into blocks in reading order plus its figures (see module docstring)."""
    path = Path(path)
    data = read_bytes(path)
    doc = _open(data)
    try:
        return _parse(doc, path, data, Path(assets_dir))
    except IngestError:
        raise
    except Exception as exc:  # pymupdf raises bare RuntimeErrors on broken content
        raise IngestError(f"not a valid PDF: {_short(exc)}") from None
    finally:
        doc.close()


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def _open(data: bytes) -> pymupdf.Document:
    if not data.lstrip()[:1024].__contains__(b"%PDF"):
        raise IngestError("not a valid PDF: missing %PDF header")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:
        raise IngestError(f"not a valid PDF: {_short(exc)}") from None
    if doc.needs_pass:
        doc.close()
        raise IngestError("encrypted PDF (password required)")
    if doc.page_count == 0:
        doc.close()
        raise IngestError("PDF has no pages")
    return doc


def _parse(doc: pymupdf.Document, path: Path, data: bytes, assets_dir: Path) -> ParsedDocument:
    pages = [_collect_page(page) for page in doc]
    if sum(len(b.text) for p in pages for b in p.blocks) < 20:
        raise IngestError("no text layer (scanned PDF?); OCR is not supported")
    _drop_running_text(pages)
    body_size = _body_font_size(pages)
    _demote_body_captions(pages, body_size)
    image_pages = _image_page_counts(pages)
    doc_sha = sha256_bytes(data)

    blocks: list[Block] = []
    images: list[ImageRef] = []
    seen_images: set[str] = set()
    skipped = 0
    tables = 0
    heading_sizes = _heading_sizes(pages, body_size)
    section = ""
    for page in pages:
        _attach_table_captions(page)
        figure_images, page_skipped = _page_figures(
            doc, page, image_pages, assets_dir, doc_sha, seen_images
        )
        images.extend(figure_images)
        skipped += page_skipped
        _drop_figure_labels(page, [pymupdf.Rect(r.bbox) for r in figure_images if r.label])
        tables += len(page.tables)
        for item in _reading_order(page):
            block = _to_block(item, page.number, body_size, heading_sizes)
            if block is None:
                continue
            if block.kind == "heading" and block.section:
                section = block.section
            elif block.kind == "heading" and block.heading_level <= 1:
                section = ""  # an unnumbered chapter title closes the numbered section
            block.section = block.section or section
            blocks.append(block)
        _fill_nearby_text(figure_images, page)

    return ParsedDocument(
        path=str(path),
        sha256=doc_sha,
        title=_title(doc, blocks, path),
        pages=len(pages),
        blocks=blocks,
        images=images,
        skipped_images=skipped,
        tables=tables,
    )


# ---------------------------------------------------------------- pass 1


def _collect_page(page: pymupdf.Page) -> _Page:
    flags = pymupdf.TEXTFLAGS_DICT & ~pymupdf.TEXT_PRESERVE_IMAGES
    raw = page.get_text("dict", flags=flags)
    blocks: list[_Block] = []
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
        images.append(_Graphic(bbox, info.get("xref", 0), info["width"], info["height"]))

    drawings = page.get_drawings()
    drawing_rects = [pymupdf.Rect(d["rect"]) for d in drawings]
    result = _Page(page.number + 1, page.rect, blocks, images, _cluster(drawing_rects, page.rect))
    # find_tables is the slowest step (0.5-1 s a page: it runs a layout model);
    # only pages with a table caption or with ruled lines in the body can hold one.
    has_caption = any(b.label.startswith("Table") for b in blocks)
    if has_caption or _body_rules(drawings, page.rect) >= 2:
        result.tables = _find_tables(page)
        _remove_text_in_tables(result)
    return result


def _body_rules(drawings: list[dict], rect: pymupdf.Rect) -> int:
    """Horizontal rules at least 40 pt long outside the header/footer bands."""
    top, bottom = rect.y0 + 0.08 * rect.height, rect.y1 - 0.08 * rect.height
    count = 0
    for drawing in drawings:
        for item in drawing["items"]:
            if item[0] == "l":
                a, b = item[1], item[2]
                count += abs(a.y - b.y) < 1 and abs(a.x - b.x) >= 40 and top < a.y < bottom
            elif item[0] == "re":
                r = item[1]
                count += r.height < 2 and r.width >= 40 and top < r.y0 < bottom
    return count


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


def _line(spans: list[dict], raw_line: dict) -> _Line:
    text = "".join(s["text"] for s in spans).strip()
    visible = [s for s in spans if s["text"].strip()]
    if not visible:
        return _Line("", tuple(raw_line["bbox"]), 0.0, False)
    bbox = pymupdf.Rect(spans[0]["bbox"])
    for span in spans[1:]:
        bbox |= span["bbox"]
    size = max(s["size"] for s in visible)
    bold = all((s["flags"] & 16) or "bold" in s["font"].lower() for s in visible)
    first_bold = bool((visible[0]["flags"] & 16) or "bold" in visible[0]["font"].lower())
    return _Line(text, tuple(bbox), round(size, 1), bold, first_bold)


def _split_at_captions(lines: list[_Line], page: int) -> list[_Block]:
    """Start a new block where a caption starts.

    pymupdf sometimes puts two side-by-side captions ("Figure 7-26 ...",
    "Figure 7-27 ...") in one block; a caption mid-paragraph ("... in Table 4.
    On average") is a sentence, so only a block's first line or a line on the
    same row as its predecessor can open a caption.
    """
    blocks: list[_Block] = []
    current: list[_Line] = []
    for line in lines:
        same_row = bool(current) and _same_row(current[-1].bbox, line.bbox)
        if current and same_row and caption_label(line.text):
            blocks.append(_Block(current, page))
            current = []
        current.append(line)
    if current:
        blocks.append(_Block(current, page))
    for block in blocks:
        label = caption_label(block.lines[0].text)
        if label:
            block.kind, block.label = "caption", label
    return blocks


def _same_row(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    """b continues to the right of a on the same baseline band (another column)."""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return b[0] >= a[2] - 1 and overlap > 0.5 * min(a[3] - a[1], b[3] - b[1])


def _cluster(rects: list[pymupdf.Rect], page_rect: pymupdf.Rect, gap: float = 4.0) -> list[_Graphic]:
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
    return [_Graphic(r) for r in merged if r.width >= MIN_IMAGE_PT and r.height >= MIN_IMAGE_PT]


def _find_tables(page: pymupdf.Page) -> list[_Table]:
    tables = []
    try:
        found = page.find_tables()
    except Exception:  # table detection is best effort; the text still gets read
        return []
    for table in found.tables:
        if table.row_count < 2 or table.col_count < 2:
            continue
        # to_markdown keeps "0.81" intact where extract() splits decimals.
        markdown = table.to_markdown().strip()
        if markdown:
            tables.append(_Table(pymupdf.Rect(table.bbox), markdown))
    return tables


def _remove_text_in_tables(page: _Page) -> None:
    def inside(rect: pymupdf.Rect) -> bool:
        return any((rect & t.bbox).get_area() > 0.5 * max(rect.get_area(), 1e-6) for t in page.tables)

    kept = []
    for block in page.blocks:
        lines = [line for line in block.lines if not inside(pymupdf.Rect(line.bbox))]
        if len(lines) == len(block.lines):
            kept.append(block)
        elif lines:
            kept.append(_Block(lines, block.page, block.kind, block.label))
    page.blocks = kept


def _drop_running_text(pages: list[_Page]) -> None:
    """Remove page numbers and running headers/footers: they would pollute every chunk."""
    def key(block: _Block) -> str:
        return re.sub(r"\d+", "#", block.text.lower()).strip()

    def in_margin(block: _Block, page: _Page) -> bool:
        band = page.rect.height * MARGIN_FRACTION
        box = block.bbox
        return box.y1 <= page.rect.y0 + band or box.y0 >= page.rect.y1 - band

    counts = Counter(key(b) for p in pages for b in p.blocks if in_margin(b, p))
    repeated = max(3, int(0.3 * len(pages)))
    for page in pages:
        page.blocks = [
            b
            for b in page.blocks
            if not (
                in_margin(b, page)
                and b.kind != "caption"
                and (counts[key(b)] >= repeated or _PAGE_NUMBER_RE.match(key(b)))
            )
        ]


def _body_font_size(pages: list[_Page]) -> float:
    sizes: Counter[float] = Counter()
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                sizes[line.size] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _demote_body_captions(pages: list[_Page], body_size: float) -> None:
    """A "Table 4. On average ..." paragraph at a column top is prose, not a caption.

    Real captions are set smaller than body text or start with a bold label.
    """
    for page in pages:
        for block in page.blocks:
            first = block.lines[0]
            if block.kind == "caption" and first.size >= body_size - 0.3 and not first.first_bold:
                block.kind, block.label = "text", ""


def _image_page_counts(pages: list[_Page]) -> dict[int, int]:
    on_pages: dict[int, set[int]] = defaultdict(set)
    for page in pages:
        for image in page.images:
            on_pages[image.xref].add(page.number)
    return {xref: len(numbers) for xref, numbers in on_pages.items()}


# ---------------------------------------------------------------- headings


def _is_heading_candidate(block: _Block, body_size: float) -> bool:
    text = block.text
    if block.kind != "text" or len(block.lines) > 3 or len(text) > HEADING_MAX_CHARS:
        return False
    if not re.search(r"[A-Za-z]{2}", text) or text.rstrip().endswith((",", ";")):
        return False
    bigger = block.size >= body_size + 1.0
    bold_title = block.bold and block.size >= body_size - 0.5 and len(text) <= 100
    return bigger or bold_title


def _heading_sizes(pages: list[_Page], body_size: float) -> dict[float, int]:
    """Font size -> heading level.

    Numbered headings fix the level of their size ("2.1" is level 2); other
    sizes rank below the largest known size, bigger first.
    """
    candidates = [b for p in pages for b in p.blocks if _is_heading_candidate(b, body_size)]
    levels: dict[float, int] = {}
    for block in candidates:
        number = _section_number(block.text)
        if number:
            depth = number.count(".") + 1
            levels[block.size] = min(levels.get(block.size, depth), depth)
    rank = 1
    for size in sorted({b.size for b in candidates}, reverse=True):
        if size in levels:
            rank = levels[size] + 1
        else:
            levels[size] = rank
    return levels


def _section_number(text: str) -> str:
    match = _SECTION_RE.match(text)
    number = match.group(1) if match else ""
    if number and int(number.split(".")[0]) > 100:
        return ""  # "2020 Annual report" is a year, not a section
    return number


def _heading_fields(block: _Block, heading_sizes: dict[float, int]) -> tuple[int, str]:
    number = _section_number(block.text)
    if number:
        return number.count(".") + 1, number
    return min(heading_sizes.get(block.size, 1), 6), ""


# ---------------------------------------------------------------- tables


def _attach_table_captions(page: _Page) -> None:
    """Give each table its "Table N" caption (above, else below) and drop that block."""
    used: set[int] = set()
    for table in page.tables:
        best, best_gap = None, TABLE_CAPTION_MAX_GAP
        for i, block in enumerate(page.blocks):
            if i in used or block.kind != "caption" or not block.label.startswith("Table"):
                continue
            box = block.bbox
            if min(box.x1, table.bbox.x1) - max(box.x0, table.bbox.x0) <= 0:
                continue
            gap = table.bbox.y0 - box.y1 if box.y1 <= table.bbox.y0 + 2 else box.y0 - table.bbox.y1
            # Captions above the table are the convention; a caption below must be closer.
            if box.y0 >= table.bbox.y1 - 2:
                gap += 10
            if -2 <= gap < best_gap:
                best, best_gap = i, gap
        if best is not None:
            used.add(best)
            table.caption = page.blocks[best]
    page.blocks = [b for i, b in enumerate(page.blocks) if i not in used]


# ---------------------------------------------------------------- figures


def _caption_column(caption: _Block, page: _Page) -> tuple[float, float]:
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
    if box.x1 <= mid + 10:
        return page.rect.x0, mid
    if box.x0 >= mid - 10:
        return mid, page.rect.x1
    return page.rect.x0, page.rect.x1


def _assign_to_captions(page: _Page, graphics: list[_Graphic]) -> dict[int, list[_Graphic]]:
    """Map figure-caption block index -> graphics drawn above it.

    A graphic goes to the nearest Figure caption below it whose column covers
    most of it; long body text in between means the caption is someone else's.
    """
    captions = [
        (i, b, _caption_column(b, page))
        for i, b in enumerate(page.blocks)
        if b.kind == "caption" and b.label.startswith("Figure")
    ]
    body = [b.bbox for b in page.blocks if b.kind == "text" and len(b.text) >= 80]
    groups: dict[int, list[_Graphic]] = defaultdict(list)
    max_gap = CAPTION_MAX_GAP * page.rect.height
    for graphic in graphics:
        g = graphic.bbox
        best, best_key = None, None
        for index, caption, (left, right) in captions:
            cap = caption.bbox
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


def _is_decorative(image: _Graphic, page: _Page, image_pages: dict[int, int]) -> bool:
    if image_pages.get(image.xref, 0) > MAX_REPEAT_PAGES:
        return True
    if min(image.width, image.height) < MIN_IMAGE_PX:
        return True
    if min(image.bbox.width, image.bbox.height) < MIN_IMAGE_PT:
        return True
    return image.bbox.get_area() < MIN_IMAGE_PAGE_FRACTION * page.rect.get_area()


def _page_figures(
    doc: pymupdf.Document,
    page: _Page,
    image_pages: dict[int, int],
    assets_dir: Path,
    doc_sha: str,
    seen: set[str],
) -> tuple[list[ImageRef], int]:
    """Figures of one page as ImageRefs, and how many images were skipped.

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
                clipped = pymupdf.Rect(max(member.bbox.x0, left), member.bbox.y0,
                                       min(member.bbox.x1, right), member.bbox.y1)
                bbox |= clipped if not clipped.is_empty else member.bbox
            pix = doc[page.number - 1].get_pixmap(clip=bbox, dpi=FIGURE_RENDER_DPI)
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
        if _is_decorative(image, page, image_pages):
            skipped += 1
            continue
        payload = _extract(doc, image.xref)
        ref = _store(*payload, image.bbox, page.number, assets_dir, doc_sha, seen) if payload else None
        if ref is None:
            skipped += 1
            continue
        refs.append(ref)
    return refs, skipped


def _drop_figure_labels(page: _Page, figures: list[pymupdf.Rect]) -> None:
    """Short text drawn inside a figure ("Nut case", axis ticks) is part of the
    picture, not prose; as text blocks it would make meaningless chunks."""
    def inside(block: _Block) -> bool:
        box = block.bbox
        area = max(box.get_area(), 1e-6)
        return any((box & fig).get_area() > 0.6 * area for fig in figures)

    page.blocks = [
        b for b in page.blocks if b.kind != "text" or len(b.text) >= 200 or not inside(b)
    ]


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


def _fill_nearby_text(images: list[ImageRef], page: _Page) -> None:
    """~500 characters of the page's text closest to the image (caption excluded)."""
    for image in images:
        box = pymupdf.Rect(image.bbox)

        def distance(block: _Block) -> float:
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


# ---------------------------------------------------------------- order and output


def _reading_order(page: _Page) -> list[_Block | _Table]:
    """Column-aware order: full-width items split the page into bands; in a
    band the left column is read before the right one.

    pymupdf's stream order is usually right for born-digital papers but not
    for every producer; geometry is the safer common denominator.
    """
    items: list[_Block | _Table] = [*page.blocks, *page.tables]
    mid = (page.rect.x0 + page.rect.x1) / 2

    def box(item: _Block | _Table) -> pymupdf.Rect:
        return item.bbox if isinstance(item, _Table) else item.bbox

    def full_width(item: _Block | _Table) -> bool:
        b = box(item)
        return b.x0 < mid - 10 and b.x1 > mid + 10

    ordered: list[_Block | _Table] = []
    band: list[_Block | _Table] = []

    def flush() -> None:
        left = [i for i in band if box(i).x0 < mid - 10]
        right = [i for i in band if box(i).x0 >= mid - 10]
        ordered.extend(sorted(left, key=lambda i: box(i).y0))
        ordered.extend(sorted(right, key=lambda i: box(i).y0))
        band.clear()

    for item in sorted(items, key=lambda i: (box(i).y0, box(i).x0)):
        if full_width(item):
            flush()
            ordered.append(item)
        else:
            band.append(item)
    flush()
    return ordered


def _to_block(
    item: _Block | _Table, page: int, body_size: float, heading_sizes: dict[float, int]
) -> Block | None:
    if isinstance(item, _Table):
        label = item.caption.label if item.caption else ""
        text = f"{item.caption.text}\n\n{item.markdown}" if item.caption else item.markdown
        return Block(text=text, kind="table", page=page, label=label)
    text = item.text.strip()
    if not text:
        return None
    if item.kind == "caption":
        return Block(text=text, kind="caption", page=page, label=item.label)
    if _is_heading_candidate(item, body_size):
        level, number = _heading_fields(item, heading_sizes)
        return Block(text=text, kind="heading", page=page, section=number, heading_level=level)
    return Block(text=text, kind="text", page=page)


def _join_lines(lines: list[str]) -> str:
    """Join wrapped lines, undoing end-of-line hyphenation ("seg-\\nmentation")."""
    out = ""
    for line in lines:
        line = line.strip()
        if not out:
            out = line
        elif out.endswith("-") and line[:1].islower() and out[-2:-1].isalpha():
            out = out[:-1] + line
        else:
            out = f"{out} {line}"
    return out


def _title(doc: pymupdf.Document, blocks: list[Block], path: Path) -> str:
    title = (doc.metadata or {}).get("title", "").strip()
    if len(title) >= 4 and not title.lower().startswith(("microsoft word", "untitled")):
        return title
    first = next((b for b in blocks if b.kind == "heading" and b.page == 1), None)
    if first is not None:
        return first.text[:120]
    return path.stem
