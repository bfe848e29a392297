"""Markdown reader: headings, paragraphs, whole tables, local images.

A line-based reader rather than a full CommonMark parser: the pipeline only
needs block boundaries, tables kept whole, and image links.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

from kg.ids import sha256_bytes
from kg.enrich.references import caption_label
from kg.ingest.roles import assign_roles
from kg.ingest.tables import grid_markdown, is_separator_row, table_grid
from kg.ingest.text import decode_utf8, make_title, read_bytes, save_asset
from kg.models import Block, ImageRef, ParsedDocument

_HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_SETEXT_RE = re.compile(r"^\s*(=+|-+)\s*$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+[\"']([^\"']*)[\"'])?\s*\)")
_SECTION_RE = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+\S")


def read_markdown(path: Path, assets_dir: Path) -> ParsedDocument:
    """Parse a markdown file; missing or remote images become warnings, not errors."""
    path = Path(path)
    data = read_bytes(path)
    text = decode_utf8(data)
    doc_sha = sha256_bytes(data)
    doc = ParsedDocument(
        path=str(path), sha256=doc_sha, title="", pages=1, blocks=[]
    )
    pending_images: list[tuple[int, ImageRef]] = []  # (block index it sits before, image)
    for kind, lines in _raw_blocks(text.splitlines()):
        if kind == "paragraph":
            body = " ".join(line.strip() for line in lines)
            body, images = _take_images(body, path.parent, Path(assets_dir), doc_sha, doc)
            pending_images.extend((len(doc.blocks), image) for image in images)
            if body.strip():
                doc.blocks.append(_paragraph_block(body.strip()))
        elif kind == "heading":
            level, title = lines[0].split("\x1f", 1)
            doc.blocks.append(_heading_block(title, int(level)))
        elif kind == "table":
            table = "\n".join(line.rstrip() for line in lines)
            grid = table_grid(table)  # the chunk shows the clean grid: no "<br>" or emphasis
            doc.blocks.append(Block(text=grid_markdown(grid) or table, kind="table", cells=grid.to_json()))
        else:  # code
            doc.blocks.append(Block(text="\n".join(lines), kind="text"))
    _caption_images(doc, pending_images)  # before tables consume blocks: slots stay valid
    _label_tables(doc)
    doc.tables = sum(1 for b in doc.blocks if b.kind == "table")
    _carry_sections(doc.blocks)
    assign_roles(doc.blocks)
    first_heading = next((b.text for b in doc.blocks if b.kind == "heading"), "")
    doc.title = make_title(first_heading or text, path.stem)
    doc.title_source = "heading" if first_heading else ("first_line" if text.strip() else "filename")
    return doc


def _raw_blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Split lines into (kind, lines) with kind paragraph, heading, table or code."""
    out: list[tuple[str, list[str]]] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            out.append(("paragraph", list(para)))
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE_RE.match(line):
            flush()
            fence = _FENCE_RE.match(line).group(1)
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence):
                j += 1
            out.append(("code", lines[i : j + 1]))
            i = j + 1
            continue
        heading = _HEADING_RE.match(line)
        if heading:
            flush()
            out.append(("heading", [f"{len(heading.group(1))}\x1f{heading.group(2)}"]))
        elif _SETEXT_RE.match(line) and len(para) == 1:
            level = 1 if line.strip().startswith("=") else 2
            out.append(("heading", [f"{level}\x1f{para[0].strip()}"]))
            para.clear()
        elif "|" in line and i + 1 < len(lines) and is_separator_row(lines[i + 1]):
            flush()
            j = i + 2
            while j < len(lines) and "|" in lines[j] and lines[j].strip():
                j += 1
            out.append(("table", lines[i:j]))
            i = j
            continue
        elif not line.strip():
            flush()
        else:
            para.append(line)
        i += 1
    flush()
    return out


def _paragraph_block(text: str) -> Block:
    label = caption_label(text)
    return Block(text=text, kind="caption" if label else "text", label=label)


def _heading_block(title: str, level: int) -> Block:
    match = _SECTION_RE.match(title)
    return Block(text=title, kind="heading", heading_level=level, section=match.group(1) if match else "")


def _take_images(
    text: str, base: Path, assets_dir: Path, doc_sha: str, doc: ParsedDocument
) -> tuple[str, list[ImageRef]]:
    """Pull ![alt](path) out of a paragraph; the alt text stays in the prose."""
    images: list[ImageRef] = []
    for match in _IMAGE_RE.finditer(text):
        alt, target, title = match.group(1), match.group(2), match.group(3) or ""
        image = _load_image(target, alt, title, base, assets_dir, doc_sha, doc)
        if image is not None:
            images.append(image)
    return _IMAGE_RE.sub(lambda m: m.group(1), text), images


def _load_image(
    target: str, alt: str, title: str, base: Path, assets_dir: Path, doc_sha: str, doc: ParsedDocument
) -> ImageRef | None:
    if re.match(r"^[a-z][a-z0-9+.-]*://", target, re.I):
        doc.warnings.append(f"remote image not fetched {target}")
        return None
    if target.startswith("data:"):
        doc.warnings.append("inline data image not supported")
        return None
    source = (base / unquote(target)).resolve()
    if not source.is_file():
        doc.warnings.append(f"missing image {target}")
        return None
    data = source.read_bytes()
    if any(img.id == sha256_bytes(data)[:16] for img in doc.images):
        doc.skipped_images += 1  # the same picture linked twice
        return None
    image_id, stored = save_asset(data, source.suffix or ".bin", assets_dir, doc_sha)
    width, height = _image_size(data)
    label = caption_label(title) or caption_label(alt)
    caption = title if caption_label(title) else (alt if label else "")
    image = ImageRef(
        id=image_id, path=str(stored), page=1, width=width, height=height,
        alt=alt, label=label, caption=caption,
    )
    doc.images.append(image)
    return image


def _image_size(data: bytes) -> tuple[int, int]:
    """Pixel size via pymupdf; 0x0 for formats it cannot decode (svg)."""
    try:
        import pymupdf

        pix = pymupdf.Pixmap(data)
        return pix.width, pix.height
    except Exception:
        return 0, 0


def _label_tables(doc: ParsedDocument) -> None:
    """A "Table N ..." line right before (preferred) or after a table becomes its caption."""
    blocks = doc.blocks
    consumed: set[int] = set()
    for i, block in enumerate(blocks):
        if block.kind != "table":
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(blocks) and j not in consumed and blocks[j].label.startswith("Table"):
                block.label = blocks[j].label
                block.text = f"{blocks[j].text}\n\n{block.text}"
                consumed.add(j)
                break
    doc.blocks = [b for i, b in enumerate(blocks) if i not in consumed]


def _caption_images(doc: ParsedDocument, placed: list[tuple[int, ImageRef]]) -> None:
    """An image whose alt/title names no figure takes an adjacent "Figure N" caption block.

    slot is the index of the block the image sat in (or before), so the
    caption is looked for in that block, then the one after, then the one before.
    """
    used = {img.label for img in doc.images if img.label}
    for slot, image in placed:
        if image.label:
            continue
        for j in (slot, slot + 1, slot - 1):
            if not 0 <= j < len(doc.blocks):
                continue
            block = doc.blocks[j]
            if block.kind == "caption" and block.label.startswith("Figure") and block.label not in used:
                image.caption, image.label = block.text, block.label
                used.add(block.label)
                break


def _carry_sections(blocks: list[Block]) -> None:
    section = ""
    for block in blocks:
        if block.kind == "heading":
            section = block.section or ("" if block.heading_level <= 1 else section)
        if not block.section:
            block.section = section
