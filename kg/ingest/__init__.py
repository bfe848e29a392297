"""Readers: turn a user's file into a ParsedDocument (see kg.models).

read_document picks the reader by extension; every failure a user can cause
surfaces as kg.models.IngestError with a short reason.
"""

from __future__ import annotations

from pathlib import Path

from kg.ingest.markdown import read_markdown
from kg.ingest.pdf import assemble_pdf, page_count, parse_pages, read_pdf
from kg.ingest.pdf.figures import MIN_IMAGE_PX
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
        return read_pdf(path, Path(assets_dir), min_image_px, parse_workers)
    return reader(path, Path(assets_dir))


__all__ = [
    "read_document", "read_pdf", "read_markdown", "read_text", "parse_pages", "assemble_pdf", "page_count",
    "SUPPORTED_EXTENSIONS",
]
