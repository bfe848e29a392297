"""Readers: turn a user's file into a ParsedDocument (see kg.models).

read_document picks the reader by extension; every failure a user can cause
surfaces as kg.models.IngestError with a short reason.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from kg.ingest.markdown import read_markdown
from kg.ingest.pdf import assemble_pdf, page_count, parse_pages, read_pdf
from kg.ingest.pdf.figures import MIN_IMAGE_PX
from kg.ingest.pdf.types import UNMAPPED_GLYPH_RE
from kg.ingest.text import read_text
from kg.models import IngestError, ParsedDocument

READERS = {
    ".pdf": read_pdf,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".txt": read_text,
    ".text": read_text,
}

SUPPORTED_EXTENSIONS = tuple(READERS)


def read_document(
    path: Path, assets_dir: Path, *, min_image_px: int = MIN_IMAGE_PX, parse_workers: int = 0
) -> ParsedDocument:
    """Parse one file; images are copied under assets_dir/<doc_sha[:16]>/.

    PDF only: uncaptioned images under min_image_px on a side are dropped as
    decoration, and pages are read by parse_workers processes (0: one per
    CPU, 1: in this process).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    reader = READERS.get(suffix)
    if reader is None:
        raise IngestError(f"unsupported extension {suffix or '(none)'}")
    if reader is read_pdf:
        return mark_unmapped_glyphs(read_pdf(path, Path(assets_dir), min_image_px, parse_workers))
    return mark_unmapped_glyphs(reader(path, Path(assets_dir)))


# A PDF's symbol-font glyphs without a text mapping come out as control characters (a results
# table's check marks as \x13 and \x17, big brackets as \x00 and \x01 in the DPR paper). A NUL cut
# FalkorDB's query short ("Invalid input at end of input") and failed the whole file; the glyph is
# kept as U+FFFD, the mark for a character the source does not say, so nothing is silently dropped.
_UNMAPPED = UNMAPPED_GLYPH_RE


def mark_unmapped_glyphs(doc: ParsedDocument) -> ParsedDocument:
    def clean(text: str) -> str:
        return _UNMAPPED.sub("\ufffd", text) if text else text

    blocks = [dataclasses.replace(b, text=clean(b.text), cells=clean(b.cells)) for b in doc.blocks]
    images = [dataclasses.replace(i, caption=clean(i.caption), nearby_text=clean(i.nearby_text), alt=clean(i.alt),
                                  visible_text=clean(i.visible_text))
              for i in doc.images]
    return dataclasses.replace(doc, title=clean(doc.title), blocks=blocks, images=images)


__all__ = [
    "read_document", "read_pdf", "read_markdown", "read_text", "parse_pages", "assemble_pdf", "page_count",
    "SUPPORTED_EXTENSIONS",
]
