"""Cross-references inside one document: "see Figure 3", "Table 2", "Section 4.1".

Also the caption grammar shared by the readers (caption_label), so a caption
the PDF reader recognises and a mention resolved here agree on the label
("Fig. 3" and "FIGURE 3" both become "Figure 3").
"""

from __future__ import annotations

import re

from kg.models import Chunk, ImageRef

_NUM = r"\d+(?:[-.]\d+)*[a-z]?"

# A caption starts with the label and a separator ("Figure 3:", "Fig. 3.",
# "Table 2 |"), or the label followed by a capitalised word. A lowercase word
# after the number ("Table 3 for more ...") is a sentence that merely starts
# with a mention, not a caption.
_CAPTION_RE = re.compile(
    rf"^\s*(Figure|Fig\.?|FIGURE|FIG\.?|Table|Tab\.|TABLE|TAB\.)\s*({_NUM})"
    r"(?:\s*[:.|\u2014\u2013-]|\s*$|\s+(?=[A-Z(\[]))"
)
_TOC_LEADER_RE = re.compile(r"\.\s*\.\s*\.\s*\.|…{2,}")

_FIG_WORD = r"(?:Figures?|Figs?\.?|FIGURES?|FIGS?\.?)"
_LIST_TAIL = rf"(?:\s*(?:,|and|&|to|\u2013|-)\s*(?:{_NUM}))*"
_MENTION_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("Figure", re.compile(rf"\b{_FIG_WORD}\s*({_NUM}{_LIST_TAIL})")),
    ("Table", re.compile(rf"\b(?:Tables?|Tabs?\.|TABLES?)\s*({_NUM}{_LIST_TAIL})")),
    # "§ 3551" is a legal citation far more often than a section of this document.
    ("Section", re.compile(r"\b(?:Sections?|Secs?\.|SECTION)\s*(\d{1,2}(?:\.\d+)*)\b")),
    ("Eq.", re.compile(r"\b(?:Eqs?\.|Equations?)\s*\(?(\d+)\)?")),
]


def normalize_number(number: str) -> str:
    """Drop a trailing period and sub-figure letter: "3b." -> "3" (the figure is the unit)."""
    number = number.rstrip(".")
    return re.sub(r"(?<=\d)[a-z]$", "", number)


def caption_label(line: str) -> str:
    """Label ("Figure 3", "Table 2") when the line starts a caption, else ""."""
    if _TOC_LEADER_RE.search(line):
        return ""  # "Fig. 1. Architecture ....... 5" is a list-of-figures entry
    match = _CAPTION_RE.match(line)
    if not match:
        return ""
    kind = "Table" if match.group(1).lower().startswith("tab") else "Figure"
    return f"{kind} {normalize_number(match.group(2))}"


def _expand_numbers(raw: str) -> list[str]:
    """"2 and 3" -> [2, 3]; "2-4" -> [2, 3, 4] when it is a short integer range."""
    parts = re.split(r"\s*(?:,|and|&)\s*", raw)
    numbers: list[str] = []
    for part in parts:
        part = part.strip()
        if not part:
            continue
        range_match = re.fullmatch(r"(\d+)\s*(?:to|\u2013)\s*(\d+)", part)
        if range_match:
            lo, hi = int(range_match.group(1)), int(range_match.group(2))
            if 0 < hi - lo <= 10:
                numbers.extend(str(n) for n in range(lo, hi + 1))
                continue
        # "7-26" is a figure number in manuals, not a range.
        numbers.append(normalize_number(part.split()[0]))
    return numbers


def find_mentions(text: str) -> list[str]:
    """All reference labels in the text, in order, without repeats."""
    labels: list[str] = []
    for kind, pattern in _MENTION_PATTERNS:
        for match in pattern.finditer(text):
            raw = match.group(1)
            numbers = _expand_numbers(raw) if kind in ("Figure", "Table") else [raw]
            for number in numbers:
                label = f"{kind} {number}"
                if label not in labels:
                    labels.append(label)
    return labels


def _own_labels(chunk: Chunk) -> set[str]:
    """Labels a chunk carries itself: its label and the caption label it starts with."""
    own = {chunk.label} if chunk.label else set()
    first_label = caption_label(chunk.text)
    if first_label and chunk.kind in ("caption", "table"):
        own.add(first_label)
    return own


def _equation_targets(chunks: list[Chunk], number: str) -> list[Chunk]:
    """Chunks that display equation (N): "(N)" at a line end or before a sentence break."""
    # The lookbehinds skip the mention itself ("see Eq. (3). Then ...").
    pattern = re.compile(
        rf"(?<!Eq\. )(?<!Eqs\. )(?<!Eq\.)(?<!Equation )\({re.escape(number)}\)"
        r"\s*(?:$|\n|[.,;]?\s+[A-Z]|[.,;]?$)"
    )
    return [c for c in chunks if pattern.search(c.text)]


def _targets(
    label: str, source: Chunk, chunks: list[Chunk], images: list[ImageRef]
) -> list[tuple[str, str]]:
    """(target_id, target_kind) for a label, best kind first; empty when unresolved."""
    kind, _, number = label.partition(" ")
    chunks = [c for c in chunks if c.id != source.id]
    if kind == "Figure":
        hits = [(img.id, "image") for img in images if img.label == label]
        if hits:
            return hits
        return [(c.id, "chunk") for c in chunks if c.kind == "caption" and c.label == label][:1]
    if kind == "Table":
        tables = [c for c in chunks if c.kind == "table" and c.label == label]
        if not tables:
            tables = [c for c in chunks if c.kind == "caption" and c.label == label]
        return [(c.id, "chunk") for c in tables[:1]]
    if kind == "Section":
        return [(c.id, "chunk") for c in chunks if c.section == number][:1]
    if kind == "Eq.":
        return [(c.id, "chunk") for c in _equation_targets(chunks, number)][:1]
    return []


def _why_unresolved(label: str, chunks: list[Chunk]) -> str:
    """Why a mention found no target: the document has no caption with its label (a figure
    without one, or a caption the reader did not recognise), or no section with its number."""
    kind, _, number = label.partition(" ")
    if kind == "Section":
        return "no section with this number"
    if any(label in c.text for c in chunks if c.kind in ("caption", "table")):
        return "caption not recognised"
    return "no caption with this label"


def unresolved_reasons(unresolved: list[dict]) -> dict[str, int]:
    """Unresolved mentions counted by reason, most frequent first (for the ingest report)."""
    counts: dict[str, int] = {}
    for row in unresolved:
        counts[row.get("reason", "")] = counts.get(row.get("reason", ""), 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def resolve_references(
    chunks: list[Chunk], images: list[ImageRef]
) -> tuple[list[dict], list[dict]]:
    """Resolve each chunk's mentions to images or chunks of the same document.

    Returns (resolved, unresolved). resolved rows are
    {"source", "target", "label", "target_kind"}; unresolved rows are
    {"source", "label", "reason"} (see _why_unresolved). A chunk never references itself, and a caption's or
    table's own label is not a mention. Equation labels are "Eq. N".
    """
    resolved: list[dict] = []
    unresolved: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for chunk in chunks:
        own = _own_labels(chunk)
        for label in find_mentions(chunk.text):
            if label in own:
                continue
            targets = _targets(label, chunk, chunks, images)
            if label.startswith("Eq.") and not targets:
                continue  # the chunk showing "(N)" may be this one: nothing to link
            if not targets:
                unresolved.append({"source": chunk.id, "label": label, "reason": _why_unresolved(label, chunks)})
                continue
            for target, target_kind in targets:
                if (chunk.id, target) in seen:
                    continue
                seen.add((chunk.id, target))
                resolved.append(
                    {"source": chunk.id, "target": target, "label": label, "target_kind": target_kind}
                )
    return resolved, unresolved


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def caption_links(chunks: list[Chunk], images: list[ImageRef]) -> list[tuple[str, str]]:
    """(image_id, chunk_id) pairs linking each figure to its caption chunk.

    Caption text equality wins (two images may share "Figure 4" across pages,
    "Figure 4. Cont."); otherwise the same label, preferring the same page.
    """
    captions = [c for c in chunks if c.kind == "caption"]
    links: list[tuple[str, str]] = []
    for image in images:
        match = None
        if image.caption:
            wanted = _squash(image.caption)
            match = next((c for c in captions if wanted and _squash(c.text).startswith(wanted[:200])), None)
        if match is None and image.label:
            same_label = [c for c in captions if c.label == image.label]
            same_page = [c for c in same_label if c.page_start <= image.page <= c.page_end]
            match = (same_page or same_label or [None])[0]
        if match is not None and (image.id, match.id) not in links:
            links.append((image.id, match.id))
    return links
