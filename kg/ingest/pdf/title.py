"""A PDF's title: meaningful metadata, else the first page's largest heading.

Never a margin stamp, link or series label (is_stamp: "arXiv:2407.10671v4
[cs.CL] 10 Sep 2024", "ibm.com/redbooks", "Redpaper"), text set up the margin,
a line of figures, a running header or a masthead: a candidate at the top of the page
made only of words that the page furniture repeats ("Proposed Rules" under
"Federal Register / Vol. 85 / ... / Proposed Rules") is skipped, as are
cover labels ("Front cover") and section names ("Abstract").
"""

from __future__ import annotations

import re

from kg.ingest.pdf.types import RawBlock, RawPage
from kg.ingest.roles import heading_role

TITLE_MAX_CHARS = 200
TITLE_PAGES = 2  # a cover page may carry no title text; look at the next one too
TOP_SHARE = 0.12  # of the page height: where mastheads and running headers sit
SAME_SIZE = 0.3  # points: lines of one title share their font size

_GENERIC_METADATA_RE = re.compile(
    r"^(?:microsoft (?:word|powerpoint|excel)|powerpoint(?: presentation)?$|untitled|title|document\d*|slide \d+"
    r"|presentation\d*|front cover|cover)\b"
    r"|\.(?:docx?|pdf|tex|dvi|indd|qxd|rtf|pptx?|xls[xmb]?|csv|od[tspg]|pages|key)$|^[\W\d_]+$"
    r"|^\S+\.[a-z\d]{2,4}$", re.I)  # a file name: "odf_presentation.odp", "10811.exe", "... approved.xlsm"
# Margin stamps, links and series labels are set large on a first page but never title it:
# an arXiv or DOI stamp, a URL or domain, "Source: ...", a publisher's series name.
_STAMP_RE = re.compile(
    r"\barxiv:\s*\d{4}\.\d{4,5}|\bdoi\b|\b10\.\d{4,9}/|https?://|\bwww\.|\b[\w-]+\.(?:com|org|net|gov|edu|io|int)\b"
    r"|^source:|\bred ?(?:paper|books?)\b|\bissn\b|^(?:vol(?:ume)?|no|issue)\.? ?\d", re.I)
_SERIES_RE = re.compile(
    r"^(?:journal of|proceedings of|transactions on|annals of|technical report|white ?paper|preprint|draft|"
    r"confidential|for official use only|under review)\b", re.I)
_NOT_A_TITLE_RE = re.compile(
    r"^(?:(?:front|back|inside) cover|cover( page)?|abstract|summary|introduction|contents|table of contents|"
    r"preface|foreword|page \d+|proceedings)$", re.I)


# A word processor's field or macro name left as the title: "$FINAL" (IBM's WLM velocity-goals paper, q38).
_PLACEHOLDER_RE = re.compile(r"[$%#&@]\S*|\{[^{}]*\}|\[[^\[\]]*\]")


def meaningful_metadata_title(title: str) -> str:
    """The metadata title if it names the document, else ""."""
    title = " ".join((title or "").split())
    # ACL Anthology files carry their volume as the title ("Proceedings of the 45th Annual Meeting of
    # the Association of Computational Linguistics"): a series label names no one paper.
    if len(title) < 4 or not re.search(r"[A-Za-z]{3}", title) or _GENERIC_METADATA_RE.search(title) \
            or is_stamp(title) or _PLACEHOLDER_RE.fullmatch(title):
        return ""
    return title[:TITLE_MAX_CHARS]


def _digit_words(text: str) -> float:
    """Share of words that are mostly digits: numbers, identifiers and dates, not titles. A model's name
    is letters with a version ("GPT-5.2", "Qwen2.5-VL": q40's "Update to GPT-5 System Card: GPT-5.2"
    had fallen back to the file name)."""
    words = text.split()
    def numeric(w: str) -> bool:  # "2.5", "~70%"; not "GPT-5.2", not a dash
        return any(ch.isdigit() for ch in w) and sum(ch.isdigit() for ch in w) >= sum(ch.isalpha() for ch in w)

    return sum(numeric(w) for w in words) / max(len(words), 1)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{2,}", text.lower()))


def is_stamp(text: str) -> bool:
    """A margin stamp, link or series label ("arXiv:2407.10671v4 [cs.CL] ...", "ibm.com/redbooks")."""
    text = " ".join(text.split())
    return bool(_STAMP_RE.search(text) or _SERIES_RE.match(text))


def _rotated(block: RawBlock) -> bool:
    """Text set up the margin (an arXiv stamp): far taller than wide."""
    box = block.bbox
    return box.height > 3 * max(box.width, 1.0) and len(block.text) > 8


def _acceptable(block: RawBlock, text: str, page: RawPage, furniture_words: set[str]) -> bool:
    if len(text) < 4 or not re.search(r"[A-Za-z]{3}", text) or _NOT_A_TITLE_RE.match(text.strip(" .:")):
        return False
    if is_stamp(text) or _digit_words(text) > 0.3:  # "2.5 kilograms CO2e/boe 1st woman ~70%": figures
        return False
    if heading_role(text):
        return False
    at_top = block.bbox.y1 <= page.rect.y0 + TOP_SHARE * page.rect.height
    words = _words(text)
    return not (at_top and words and words <= furniture_words)


def _runs(blocks: list[RawBlock]) -> list[list[RawBlock]]:
    """Vertically adjacent blocks of one size: a title set over several lines or blocks."""
    runs: list[list[RawBlock]] = []
    for block in sorted(blocks, key=lambda b: (b.bbox.y0, b.bbox.x0)):
        if runs and block.bbox.y0 - runs[-1][-1].bbox.y1 <= 1.5 * block.size:
            runs[-1].append(block)
        else:
            runs.append([block])
    return runs


def heading_title(pages: list[RawPage], body_size: float, furniture_words: set[str]) -> str:
    """The largest-font text on the first page(s) that can be a title, or ""."""
    for page in pages[:TITLE_PAGES]:
        blocks = [b for b in page.blocks if b.kind == "text" and len(b.lines) <= 6 and len(b.text) <= 300
                  and not _rotated(b) and not is_stamp(b.text)]
        sizes = sorted({b.size for b in blocks if b.size >= body_size + 1.0}, reverse=True)
        for size in sizes:
            same = [b for b in blocks if abs(b.size - size) <= SAME_SIZE]
            for run in _runs(same):
                text = " ".join(" ".join(b.text.split()) for b in run)
                if _acceptable(run[0], text, page, furniture_words):
                    return text[:TITLE_MAX_CHARS]
    return _bold_title(pages[0], body_size, furniture_words)


def _bold_title(page: RawPage, body_size: float, furniture_words: set[str]) -> str:
    """No text on the first page stands out by size (a Federal Register notice sets
    agency, part and title all in body-size bold): the longest bold heading there."""
    bold = [b for b in page.blocks if b.kind == "text" and b.bold and len(b.lines) <= 3
            and abs(b.size - body_size) <= 1.0 and len(b.text.split()) >= 3 and not b.text.isupper()
            and not b.text.lstrip().startswith(("[", "("))  # "[Docket No. FAA-2020-0686; ...]"
            and _digit_words(b.text) < 0.25]
    bold = [b for b in bold if _acceptable(b, " ".join(b.text.split()), page, furniture_words)]
    best = max(bold, key=lambda b: len(b.text), default=None)
    return " ".join(best.text.split())[:TITLE_MAX_CHARS] if best else ""
