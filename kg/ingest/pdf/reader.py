"""PDF reader (pymupdf): text blocks in reading order, headings, figures, tables.

Two passes: the first gathers raw lines, image placements, drawings and tables
of every page (kg.ingest.pdf.layout); the second needs document-wide facts
(body font size, running headers, images repeated on many pages) to decide
what is a heading, what is decoration, and what belongs to which caption.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from kg.ids import sha256_bytes
from kg.ingest.pdf.figures import drop_figure_labels, fill_nearby_text, image_page_counts, page_figures
from kg.ingest.pdf.furniture import drop_running_text
from kg.ingest.pdf.headings import body_font_size, demote_body_captions, heading_sizes
from kg.ingest.pdf.layout import collect_page
from kg.ingest.pdf.order import reading_order, to_block
from kg.ingest.pdf.tables import attach_table_captions
from kg.ingest.text import read_bytes
from kg.models import Block, ImageRef, IngestError, ParsedDocument


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
    pages = [collect_page(page) for page in doc]
    if sum(len(b.text) for p in pages for b in p.blocks) < 20:
        raise IngestError("no text layer (scanned PDF?); OCR is not supported")
    drop_running_text(pages)
    body_size = body_font_size(pages)
    demote_body_captions(pages, body_size)
    image_pages = image_page_counts(pages)
    doc_sha = sha256_bytes(data)

    blocks: list[Block] = []
    images: list[ImageRef] = []
    seen_images: set[str] = set()
    skipped = 0
    tables = 0
    levels = heading_sizes(pages, body_size)
    section = ""
    for page in pages:
        attach_table_captions(page)
        figure_images, page_skipped = page_figures(
            doc, page, image_pages, assets_dir, doc_sha, seen_images
        )
        images.extend(figure_images)
        skipped += page_skipped
        drop_figure_labels(page, [pymupdf.Rect(r.bbox) for r in figure_images if r.label])
        tables += len(page.tables)
        for item in reading_order(page):
            block = to_block(item, page.number, body_size, levels)
            if block is None:
                continue
            if block.kind == "heading" and block.section:
                section = block.section
            elif block.kind == "heading" and block.heading_level <= 1:
                section = ""  # an unnumbered chapter title closes the numbered section
            block.section = block.section or section
            blocks.append(block)
        fill_nearby_text(figure_images, page)

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


def _title(doc: pymupdf.Document, blocks: list[Block], path: Path) -> str:
    title = (doc.metadata or {}).get("title", "").strip()
    if len(title) >= 4 and not title.lower().startswith(("microsoft word", "untitled")):
        return title
    first = next((b for b in blocks if b.kind == "heading" and b.page == 1), None)
    if first is not None:
        return first.text[:120]
    return path.stem
