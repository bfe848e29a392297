"""Small PDFs written with pymupdf for the PDF reader's tests: each shows one layout feature."""

from __future__ import annotations

from pathlib import Path

import pymupdf

WIDTH, HEIGHT = 595, 842  # A4 in points
LOREM = ("The river delta grew by four kilometres over the decade as sediment from the upper basin "
         "settled in the shallow bays, and the survey teams measured the new banks every spring. ")


def paragraph(page: pymupdf.Page, top: float, text: str, size: float = 10, left: float = 72,
              right: float = WIDTH - 72, font: str = "helv") -> float:
    """Wrapped text in a box from `top`; returns the y below it."""
    height = 14 * size
    rect = pymupdf.Rect(left, top, right, top + height)
    spare = page.insert_textbox(rect, text, fontsize=size, fontname=font)
    assert spare >= 0, "text did not fit its box"
    return top + height - spare + size


def line(page: pymupdf.Page, y: float, text: str, size: float = 10, x: float = 72, font: str = "helv") -> None:
    page.insert_text((x, y), text, fontsize=size, fontname=font)


def save(doc: pymupdf.Document, path: Path, title: str = "") -> Path:
    if title:
        doc.set_metadata({"title": title})
    doc.save(str(path))
    doc.close()
    return path
