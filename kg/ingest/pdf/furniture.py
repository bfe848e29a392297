"""Page furniture: running headers and footers, page numbers, margin notes,
typesetting codes and table-of-contents dot leaders.

Statistics over pages first: a line in the page frame (top or bottom band,
left or right strip) whose normalised text (lower case, digits as "#") comes
back at the same height on many pages is furniture, whatever it says.
Regexes for typesetting artefacts (graphic ids with markup tags, print-run
codes) are a second line of defence for what shows up on one page only.
Dot-leader lines are contents entries; a page made of them is a contents page.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field

from kg.ingest.pdf.types import Line, RawBlock, RawPage
from kg.ingest.roles import is_dot_leader

FRAME_BAND = 0.10  # top/bottom share of the page height where headers and footers live
FRAME_STRIP = 0.08  # left/right share of the width: margin notes, vertical tracking lines
REPEAT_SHARE = 0.3  # on this share of pages (at least 2) a frame line is furniture
SAME_PLACE = 0.02  # of page height: "the same height" on two pages
CONTENTS_MIN_LEADERS = 5
CONTENTS_SHARE = 0.3  # of a page's lines being dot leaders: a contents page

_PAGE_NUMBER_RE = re.compile(r"^[\W#]*(?:page\s*)?[#ivxlc]*[\W#]*(?:of\s*#)?[\W#]*$")
_TYPESETTING_RE = re.compile(
    r"\S</[A-Z]{2,8}>"  # closing markup tags leaking into the text layer: "EP06AU20.016</GPH>"
    r"|^[A-Z]{2}\d{2}[A-Z]{2}\d{2}\.\d{3}\b"  # graphic ids
    r"|^VerDate\b|\bJkt \d{3,}|^Frm \d{3,}$|^Fmt \d{3,}$|^Sfmt \d{3,}$|^PO \d{5}$"  # print-run slugs
    r"|^[A-Z]:\\\S+\.\w{2,4}$"  # typesetter file paths "E:\FR\FM\06AUP1.SGM"
    r"|^\d{2}[A-Z]{3}P?\d$"  # issue codes "06AUP1"
    r"|^\S+ on [A-Z0-9]{8,} with [A-Z]+$"  # upload tracking "jbell on DSKJLSW7X2PROD with PROPOSALS"
)
TYPESETTING_MAX_CHARS = 80


def is_typesetting_code(text: str) -> bool:
    text = text.strip()
    return len(text) <= TYPESETTING_MAX_CHARS and bool(_TYPESETTING_RE.search(text))


def _key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _in_band(line: Line, page: RawPage) -> bool:
    """Top or bottom band: where page numbers are."""
    band = page.rect.height * FRAME_BAND
    return line.bbox[3] <= page.rect.y0 + band or line.bbox[1] >= page.rect.y1 - band


def _in_frame(line: Line, page: RawPage) -> bool:
    strip = page.rect.width * FRAME_STRIP
    x0, x1 = line.bbox[0], line.bbox[2]
    return _in_band(line, page) or x1 <= page.rect.x0 + strip or x0 >= page.rect.x1 - strip


def _repeated_frame_lines(pages: list[RawPage]) -> set[tuple[int, int, int]]:
    """(page number, block index, line index) of frame lines repeated at the same height."""
    places: dict[str, list[tuple[int, float, tuple[int, int, int]]]] = defaultdict(list)
    for page in pages:
        for b, block in enumerate(page.blocks):
            for i, line in enumerate(block.lines):
                if _in_frame(line, page):
                    y_mid = (line.bbox[1] + line.bbox[3]) / 2 / max(page.rect.height, 1.0)
                    places[_key(line.text)].append((page.number, y_mid, (page.number, b, i)))
    needed = max(2, math.ceil(REPEAT_SHARE * len(pages)))
    found: set[tuple[int, int, int]] = set()
    for occurrences in places.values():
        if len({number for number, _, _ in occurrences}) < needed:
            continue
        for number, y_mid, where in occurrences:
            same_place = {n for n, y, _ in occurrences if abs(y - y_mid) <= SAME_PLACE}
            if len(same_place) >= needed:
                found.add(where)
    return found


@dataclass
class Furniture:
    """What drop_furniture removed."""

    lines: int = 0
    contents_pages: set[int] = field(default_factory=set)  # pages made mostly of dot-leader lines
    words: set[str] = field(default_factory=set)  # words of the repeated lines (running headers)


def drop_furniture(pages: list[RawPage]) -> Furniture:
    """Remove furniture lines from every page's blocks, in place. Captions are never furniture."""
    repeated = _repeated_frame_lines(pages)
    report = Furniture()
    for page in pages:
        kept: list[RawBlock] = []
        leaders = total = 0
        for b, block in enumerate(page.blocks):
            lines = []
            for i, line in enumerate(block.lines):
                total += 1
                leader = is_dot_leader(line.text)
                leaders += leader
                furniture = block.kind != "caption" and (
                    (page.number, b, i) in repeated
                    or (_in_band(line, page) and _PAGE_NUMBER_RE.match(_key(line.text)))
                    or is_typesetting_code(line.text)
                    or leader
                )
                if furniture:
                    report.lines += 1
                    if (page.number, b, i) in repeated:
                        report.words.update(re.findall(r"[a-z]{2,}", line.text.lower()))
                else:
                    lines.append(line)
            if len(lines) == len(block.lines):
                kept.append(block)
            elif lines:
                kept.append(RawBlock(lines, block.page, block.kind, block.label))
        page.blocks = kept
        if leaders >= CONTENTS_MIN_LEADERS and leaders >= CONTENTS_SHARE * total:
            report.contents_pages.add(page.number)
    return report
