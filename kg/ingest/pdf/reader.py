"""PDF reader (pymupdf): text blocks in reading order, headings, figures,
tables, section roles.

Two passes. Pass 1 (parse_pages, kg.ingest.pdf.layout) reads each page on
its own: lines, image placements, drawings, tables; it is a pure function
of (path, pages), so pages run in parallel worker processes
(kg.ingest.pdf.workers). Pass 2 (assemble) needs document-wide facts (page
furniture repeated across pages, body font size, images repeated on many
pages) to decide what is furniture, a heading or decoration, and what
belongs to which caption.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pymupdf

from kg.ids import sha256_bytes
from kg.ingest.pdf.figures import (MIN_IMAGE_PX, fill_nearby_text, image_page_counts, page_figures,
                                   take_figure_text)
from kg.ingest.pdf.furniture import drop_furniture
from kg.ingest.pdf.headings import body_font_size, demote_body_captions, heading_sizes
from kg.ingest.pdf.order import reading_order, to_block
from kg.ingest.pdf.ocr_text import respell_labels
from kg.ingest.pdf.raster_charts import read_picture_charts
from kg.ingest.pdf.raster_shares import read_pictured_pies
from kg.ingest.pdf.raster_tables import read_picture_tables
from kg.ingest.pdf.tables import attach_table_captions
from kg.ingest.pdf.title import heading_title, meaningful_metadata_title
from kg.ingest.pdf.types import RawPage, rejoin_broken_words, words_broken_at_lines
from kg.ingest.pdf.workers import collect_pages
from kg.ingest.roles import assign_roles
from kg.ingest.text import read_bytes
from kg.models import Block, ImageRef, IngestError, ParsedDocument

log = logging.getLogger("hopgraph.ingest")


def read_pdf(path: Path, assets_dir: Path, min_image_px: int = MIN_IMAGE_PX, workers: int = 0) -> ParsedDocument:
    """Parse a PDF into blocks in reading order plus its figures (see module docstring).

    workers: processes for pass 1 (0: one per CPU; 1: in this process).
    """
    path = Path(path)
    data = read_bytes(path)
    with _reading(data) as doc:
        raw_pages = collect_pages(path, doc, workers)
        return assemble(doc, path, data, raw_pages, Path(assets_dir), min_image_px)


def assemble_pdf(path: Path, pages: list[RawPage], assets_dir: Path, min_image_px: int = MIN_IMAGE_PX) -> ParsedDocument:
    """Pass 2 for pass-1 pages computed elsewhere (parse_pages on every page, in page order)."""
    path = Path(path)
    data = read_bytes(path)
    with _reading(data) as doc:
        return assemble(doc, path, data, pages, Path(assets_dir), min_image_px)


def page_count(path: Path) -> int:
    """How many pages parse_pages can be asked for; IngestError for a file that is no readable PDF."""
    with _reading(read_bytes(Path(path))) as doc:
        return doc.page_count


@contextmanager
def _reading(data: bytes) -> Iterator[pymupdf.Document]:
    """The open document; pymupdf's bare errors become IngestError with a short reason."""
    doc = _open(data)
    try:
        yield doc
    except IngestError:
        raise
    except Exception as exc:  # pymupdf raises bare RuntimeErrors on broken content
        raise IngestError(f"not a valid PDF: {short_reason(exc)}") from None
    finally:
        doc.close()


def short_reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:200]


def _open(data: bytes) -> pymupdf.Document:
    if not data.lstrip()[:1024].__contains__(b"%PDF"):
        raise IngestError("not a valid PDF: missing %PDF header")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:
        raise IngestError(f"not a valid PDF: {short_reason(exc)}") from None
    if doc.needs_pass:
        doc.close()
        raise IngestError("encrypted PDF (password required)")
    if doc.page_count == 0:
        doc.close()
        raise IngestError("PDF has no pages")
    return doc


def assemble(
    doc: pymupdf.Document,
    path: Path,
    data: bytes,
    pages: list[RawPage],
    assets_dir: Path,
    min_image_px: int = MIN_IMAGE_PX,
) -> ParsedDocument:
    """Pass 2: one ParsedDocument from the pass-1 pages of doc (in page order)."""
    # A page that is one ruled table has all its text in the table, none in blocks.
    text_chars = sum(len(b.text) for p in pages for b in p.blocks) + sum(len(t.markdown) for p in pages for t in p.tables)
    if text_chars < 20:
        raise IngestError("no text layer (scanned PDF?); OCR is not supported")
    furniture = drop_furniture(pages)
    body_size = body_font_size(pages)
    demote_body_captions(pages, body_size)
    image_pages = image_page_counts(pages)
    doc_sha = sha256_bytes(data)
    metadata_title = meaningful_metadata_title((doc.metadata or {}).get("title", ""))
    title = metadata_title or heading_title(pages, body_size, furniture.words)

    blocks: list[Block] = []
    images: list[ImageRef] = []
    seen_images: set[str] = set()
    skipped = 0
    levels = heading_sizes(pages, body_size)
    pictured: list[ImageRef] = []  # charts and tables read by OCR
    broken = words_broken_at_lines([b for page in pages for b in page.blocks])
    for page in pages:
        attach_table_captions(page)
        figure_images, page_skipped = page_figures(
            doc, page, image_pages, assets_dir, doc_sha, seen_images, min_image_px
        )
        images.extend(figure_images)
        skipped += page_skipped
        take_figure_text(page, [r for r in figure_images if r.label])
        pictured += read_picture_charts(figure_images)  # charts pasted as pictures: OCR (raster_charts.py)
        pictured += read_picture_tables(figure_images)  # tables pasted as pictures (raster_tables.py)
        pictured += read_pictured_pies(figure_images)  # pies pasted as pictures (raster_shares.py)
        for item in reading_order(page):
            block = to_block(item, page.number, body_size, levels)
            if block is not None:
                if page.number in furniture.contents_pages:
                    block.role = "contents"
                blocks.append(block)
        fill_nearby_text(figure_images, page)
    _carry_sections(blocks)
    for block, text in zip(blocks, rejoin_broken_words([b.text for b in blocks], broken)):
        block.text = text
    assign_roles(blocks, front_matter=True)
    try:
        respell_labels(pictured, [b.text for b in blocks])
    except Exception as exc:  # noqa: BLE001 - respelling is an extra: the names stay as the OCR read them
        log.warning("%s: names read from pictures not respelled: %s", path.name, exc)

    return ParsedDocument(
        path=str(path),
        sha256=doc_sha,
        title=title or path.stem,
        title_source="metadata" if metadata_title else ("heading" if title else "filename"),
        pages=len(pages),
        blocks=blocks,
        images=images,
        skipped_images=skipped,
        tables=sum(len(p.tables) for p in pages),
        furniture_removed=furniture.lines,
    )


def _carry_sections(blocks: list[Block]) -> None:
    """Blocks under a numbered heading carry its number."""
    section = ""
    for block in blocks:
        if block.kind == "heading" and block.section:
            section = block.section
        elif block.kind == "heading" and block.heading_level <= 1:
            section = ""  # an unnumbered chapter title closes the numbered section
        block.section = block.section or section
