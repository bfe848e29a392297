"""Page furniture: running headers and footers, page numbers."""

from __future__ import annotations

import re
from collections import Counter

from kg.ingest.pdf.types import RawBlock, RawPage

MARGIN_FRACTION = 0.07  # top/bottom band where running headers and page numbers live

_PAGE_NUMBER_RE = re.compile(r"^[\W#]*(?:page\s*)?[#ivxlc]*[\W#]*(?:of\s*#)?[\W#]*$")


def drop_running_text(pages: list[RawPage]) -> None:
    """Remove page numbers and running headers/footers: they would pollute every chunk."""
    def key(block: RawBlock) -> str:
        return re.sub(r"\d+", "#", block.text.lower()).strip()

    def in_margin(block: RawBlock, page: RawPage) -> bool:
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
