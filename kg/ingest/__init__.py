"""Readers: turn a user's file into a ParsedDocument (see kg.models).

read_document picks the reader by extension; every failure a user can cause
surfaces as kg.models.IngestError with a short reason.
"""

from __future__ import annotations

from pathlib import Path

from kg.ingest.markdown import read_markdown
from kg.ingest.pdf import read_pdf
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


def read_document(path: Path, assets_dir: Path) -> ParsedDocument:
    """Parse one file; images are copied under assets_dir/<doc_sha[:16]>/."""
    path = Path(path)
    suffix = path.suffix.lower()
    reader = READERS.get(suffix)
    if reader is None:
        raise IngestError(f"unsupported extension {suffix or '(none)'}")
    return reader(path, Path(assets_dir))


__all__ = ["read_document", "read_pdf", "read_markdown", "read_text", "SUPPORTED_EXTENSIONS"]
