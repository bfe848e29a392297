"""Plain-text reader, plus the small file helpers every reader shares.

The helpers live here (not in kg/ingest/__init__.py) so pdf.py and
markdown.py can import them without a circular import through the package.
"""

from __future__ import annotations

import re
from pathlib import Path

from kg.ids import sha256_bytes
from kg.ingest.roles import assign_roles, heading_role, is_dot_leader
from kg.models import Block, IngestError, ParsedDocument

TITLE_MAX_CHARS = 120
HEADING_MAX_CHARS = 60


def read_bytes(path: Path) -> bytes:
    """Read a user's file, turning OS errors into IngestError with a short reason."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise IngestError(f"file not found: {path}") from None
    except IsADirectoryError:
        raise IngestError(f"is a directory: {path}") from None
    except OSError as exc:
        raise IngestError(f"cannot read file: {exc.strerror or exc}") from None
    if not data:
        raise IngestError("empty file")
    return data


def decode_utf8(data: bytes) -> str:
    """Strict UTF-8 (a BOM is tolerated): guessing encodings silently corrupts text."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise IngestError("not UTF-8 text") from None
    # NUL bytes mean a binary file that happens to decode.
    if "\x00" in text:
        raise IngestError("not UTF-8 text")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def save_asset(data: bytes, ext: str, assets_dir: Path, doc_sha: str) -> tuple[str, Path]:
    """Store image bytes under assets_dir/<doc_sha[:16]>/<hash>.<ext>; returns (id, path).

    The file name is the content hash, so re-ingesting writes nothing new.
    """
    image_id = sha256_bytes(data)[:16]
    folder = Path(assets_dir) / doc_sha[:16]
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{image_id}.{ext.lower().lstrip('.') or 'bin'}"
    if not target.exists():
        target.write_bytes(data)
    return image_id, target


def make_title(text: str, fallback: str) -> str:
    """First non-empty line, truncated; the file stem when there is none."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            if len(line) > TITLE_MAX_CHARS:
                line = line[: TITLE_MAX_CHARS - 1].rstrip() + "…"
            return line
    return fallback


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs are separated by blank lines; inner line breaks become spaces."""
    paragraphs = []
    for part in re.split(r"\n\s*\n", text):
        joined = " ".join(line.strip() for line in part.splitlines() if line.strip())
        if joined:
            paragraphs.append(joined)
    return paragraphs


def _text_block(paragraph: str) -> Block:
    """A short line naming a known section ("References", "Table of Contents")
    is that section's heading: plain text has no other heading marks."""
    if len(paragraph) <= HEADING_MAX_CHARS and heading_role(paragraph):
        return Block(text=paragraph, kind="heading", page=1, heading_level=1)
    return Block(text=paragraph, kind="text", page=1)


def read_text(path: Path, assets_dir: Path | None = None) -> ParsedDocument:
    """Read a .txt file: one text block per blank-line separated paragraph.

    Dot-leader lines (a table of contents) are dropped; section roles come
    from known section names (see kg.ingest.roles).
    """
    path = Path(path)
    data = read_bytes(path)
    text = decode_utf8(data)
    lines = text.split("\n")
    kept = [line for line in lines if not is_dot_leader(line)]
    blocks = [_text_block(p) for p in split_paragraphs("\n".join(kept))]
    if not blocks:
        raise IngestError("no text (file is only whitespace)")
    assign_roles(blocks)
    return ParsedDocument(
        path=str(path),
        sha256=sha256_bytes(data),
        title=make_title(text, path.stem),
        title_source="first_line",
        pages=1,
        blocks=blocks,
        furniture_removed=len(lines) - len(kept),
    )
