"""Split a ParsedDocument into Chunks: semantic (default) or fixed token windows.

Tables and captions are atomic: each becomes its own chunk, whatever its size,
because half a table answers nothing. Text is chunked inside regions that a
heading opens (semantic) or that tables/captions delimit (fixed). A chunk
never mixes section roles (kg.ingest.roles): a change of role ends a region,
so references or boilerplate never ride along in a body chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from kg.ids import content_id
from kg.models import Block, Chunk, ParsedDocument
from kg.text import split_sentences

Embed = Callable[[list[str]], np.ndarray]

_TOKEN_RE = re.compile(r"\d+(?:[.,]\d+)+|\w+|[^\w\s]")  # "0.81" is one token

PARAGRAPH_BONUS = 0.1  # a paragraph break is a likelier topic boundary than a mid-paragraph one
SHORT_CHUNK_COST = 10.0  # far above any coherence gain: under-min chunks only when unavoidable
ATOMIC_KINDS = ("table", "caption")


def count_tokens(text: str) -> int:
    """Words and punctuation marks: a cheap, tokenizer-free length measure."""
    return len(_TOKEN_RE.findall(text))


@dataclass
class _Region:
    """Consecutive text blocks under one heading (or one atomic block)."""

    heading: Block | None = None
    blocks: list[Block] = field(default_factory=list)
    atomic: Block | None = None

    @property
    def role(self) -> str:
        first = self.atomic or self.heading or (self.blocks[0] if self.blocks else None)
        return first.role if first else "body"


@dataclass
class _Sentence:
    text: str
    page: int
    tokens: int
    paragraph_start: bool


@dataclass
class _Piece:
    text: str
    kind: str
    page_start: int
    page_end: int
    section: str
    label: str = ""
    role: str = "body"
    cells: str = ""


def chunk_document(
    doc: ParsedDocument,
    doc_id: str,
    method: str = "semantic",
    embed: Embed | None = None,
    min_tokens: int = 64,
    max_tokens: int = 512,
    penalty: float = 0.15,
    size: int = 800,
    overlap: int = 400,
    first_index: int = 0,
) -> list[Chunk]:
    """Chunk a document; Chunk.id = content_id(doc_id, index, text), indexes
    from `first_index` (a long document is chunked a part at a time).

    method "semantic" needs `embed` (texts -> L2-normalised rows); see
    _segment for the objective. method "fixed" cuts `size`-token windows that
    overlap by `overlap` tokens.
    """
    if method == "semantic":
        if embed is None:
            raise ValueError("semantic chunking needs an embed function")
        if not 0 < min_tokens <= max_tokens:
            raise ValueError("need 0 < min_tokens <= max_tokens")
        pieces = _semantic_pieces(doc.blocks, embed, min_tokens, max_tokens, penalty)
    elif method == "fixed":
        if not 0 <= overlap < size:
            raise ValueError("need 0 <= overlap < size")
        pieces = _fixed_pieces(doc.blocks, size, overlap)
    else:
        raise ValueError(f"unknown chunking method {method!r} (semantic or fixed)")
    return [
        Chunk(
            id=content_id(doc_id, index, piece.text),
            doc_id=doc_id,
            index=index,
            text=piece.text,
            kind=piece.kind,
            page_start=piece.page_start,
            page_end=piece.page_end,
            tokens=count_tokens(piece.text),
            section=piece.section,
            label=piece.label,
            role=piece.role,
            cells=piece.cells,
        )
        for index, piece in enumerate(pieces, first_index)
    ]


def _atomic_piece(block: Block) -> _Piece:
    return _Piece(block.text, block.kind, block.page, block.page, block.section, block.label, block.role,
                  block.cells)


# ---------------------------------------------------------------- semantic


def _regions(blocks: list[Block]) -> list[_Region]:
    """Group blocks: a heading opens a region; tables and captions stand alone.

    Consecutive headings with nothing between them ("3 Methods", "3.1 Data")
    merge, so a heading never becomes a chunk of its own while text follows.
    """
    regions: list[_Region] = []
    current = _Region()
    for block in blocks:
        if (current.heading or current.blocks) and block.role != current.role:
            regions.append(current)  # a chunk never spans two section roles
            current = _Region()
        if block.kind in ATOMIC_KINDS:
            if current.heading or current.blocks:
                regions.append(current)
            regions.append(_Region(atomic=block))
            # Text after a table still belongs under the same heading, but the
            # heading text was already given to the region's first chunk.
            current = _Region()
        elif block.kind == "heading":
            if current.blocks:
                regions.append(current)
                current = _Region()
            if current.heading is not None:
                merged = f"{current.heading.text}\n{block.text}"
                current.heading = Block(merged, "heading", current.heading.page, block.section,
                                        block.heading_level, role=block.role)
            else:
                current.heading = block
        elif block.text.strip():
            current.blocks.append(block)
    if current.heading or current.blocks:
        regions.append(current)
    return regions


def _sentences(region: _Region, max_tokens: int) -> list[_Sentence]:
    out: list[_Sentence] = []
    for block in region.blocks:
        first = True
        for sentence in split_sentences(block.text):
            for part in _split_long(sentence, max_tokens):
                out.append(_Sentence(part, block.page, count_tokens(part), first))
                first = False
    return out


def _split_long(text: str, max_tokens: int) -> list[str]:
    """A run-on "sentence" (lists, tables flattened into prose) over the max is cut by tokens."""
    spans = [m.span() for m in _TOKEN_RE.finditer(text)]
    if len(spans) <= max_tokens:
        return [text]
    return [
        text[spans[k][0] : spans[min(k + max_tokens, len(spans)) - 1][1]]
        for k in range(0, len(spans), max_tokens)
    ]


def semantic_sentences(doc: ParsedDocument, max_tokens: int = 512) -> list[str]:
    """The texts semantic chunking embeds for `doc`, in its order (one `embed`
    call per document): a caller can embed many documents' sentences in one
    batch and hand chunk_document an `embed` that looks them up."""
    return [s.text for r in _regions(doc.blocks) if r.atomic is None for s in _sentences(r, max_tokens)]


def _semantic_pieces(
    blocks: list[Block], embed: Embed, min_tokens: int, max_tokens: int, penalty: float
) -> list[_Piece]:
    regions = _regions(blocks)
    per_region = [_sentences(r, max_tokens) if r.atomic is None else [] for r in regions]
    texts = [s.text for sentences in per_region for s in sentences]
    # One embedding call for the whole document: batching is what makes it fast.
    vectors = np.asarray(embed(texts), dtype=np.float32) if texts else np.zeros((0, 1), np.float32)
    pieces: list[_Piece] = []
    offset = 0
    for region, sentences in zip(regions, per_region):
        if region.atomic is not None:
            pieces.append(_atomic_piece(region.atomic))
            continue
        rows = vectors[offset : offset + len(sentences)]
        offset += len(sentences)
        heading_tokens = count_tokens(region.heading.text) if region.heading else 0
        cuts = _segment(sentences, rows, heading_tokens, min_tokens, max_tokens, penalty)
        pieces.extend(_region_pieces(region, sentences, cuts))
    return pieces


def _segment(
    sentences: list[_Sentence],
    vectors: np.ndarray,
    heading_tokens: int,
    min_tokens: int,
    max_tokens: int,
    penalty: float,
) -> list[int]:
    """Cut points (exclusive ends) of the best segmentation of one region.

    After MiRAGE §3.1 (Eq. 4): cut where adjacent-sentence similarity drops,
    with a per-chunk penalty. With a_k = cos(s_k, s_k+1) for the n-1 adjacent
    pairs, tau = mean_k a_k, and v_k = a_k - tau - beta * [s_k+1 opens a
    paragraph], a segmentation C into chunks c = [i, j) maximises

        J(C) = sum_c ( sum_{k=i}^{j-2} v_k  -  lambda  -  mu * [tokens(c) < min_tokens] )

    subject to tokens(c) <= max_tokens (the heading counts toward the first
    chunk). Each cut at link k drops v_k from the sum and costs lambda, so a
    cut pays off exactly where similarity is more than lambda - beta below
    the region's mean. lambda = `penalty`, beta = PARAGRAPH_BONUS, mu =
    SHORT_CHUNK_COST. Solved exactly by DP over end positions; the inner loop
    stops at max_tokens, so the cost is O(n * sentences per chunk).
    """
    n = len(sentences)
    if n == 0:
        return []
    tokens = np.cumsum([0] + [s.tokens for s in sentences])
    if tokens[-1] + heading_tokens <= max_tokens and tokens[-1] + heading_tokens < 2 * min_tokens:
        return [n]  # too short to split into two valid chunks
    links = np.einsum("ij,ij->i", vectors[:-1], vectors[1:]) if n > 1 else np.zeros(0)
    tau = float(links.mean()) if len(links) else 0.0
    bonus = np.array([PARAGRAPH_BONUS if s.paragraph_start else 0.0 for s in sentences[1:]])
    prefix = np.concatenate([[0.0], np.cumsum(links - tau - bonus)])

    best = np.full(n + 1, -np.inf)
    best[0] = 0.0
    back = np.zeros(n + 1, dtype=int)
    for j in range(1, n + 1):
        for i in range(j - 1, -1, -1):
            size = tokens[j] - tokens[i] + (heading_tokens if i == 0 else 0)
            if size > max_tokens and i < j - 1:
                break  # longer chunks only get bigger
            coherence = prefix[j - 1] - prefix[i]  # links i .. j-2
            score = best[i] + coherence - penalty
            if size < min_tokens:
                score -= SHORT_CHUNK_COST
            if score > best[j]:
                best[j], back[j] = score, i
    cuts: list[int] = []
    j = n
    while j > 0:
        cuts.append(j)
        j = back[j]
    return cuts[::-1]


def _region_pieces(region: _Region, sentences: list[_Sentence], cuts: list[int]) -> list[_Piece]:
    heading = region.heading
    section = (heading.section if heading else "") or (region.blocks[0].section if region.blocks else "")
    if not sentences:  # a heading with nothing under it (end of document, or before a role change)
        return [_Piece(heading.text, "text", heading.page, heading.page, section, role=region.role)] if heading else []
    pieces = []
    start = 0
    for end in cuts:
        part = sentences[start:end]
        text = _join_sentences(part)
        pages = [s.page for s in part]
        if start == 0 and heading is not None:
            text = f"{heading.text}\n\n{text}"
            pages.append(heading.page)
        pieces.append(_Piece(text, "text", min(pages), max(pages), section, role=region.role))
        start = end
    return pieces


def _join_sentences(sentences: list[_Sentence]) -> str:
    out = ""
    for sentence in sentences:
        if not out:
            out = sentence.text
        elif sentence.paragraph_start:
            out = f"{out}\n\n{sentence.text}"
        else:
            out = f"{out} {sentence.text}"
    return out


# ---------------------------------------------------------------- fixed


def _fixed_pieces(blocks: list[Block], size: int, overlap: int) -> list[_Piece]:
    """Token windows over each run of text between tables/captions."""
    pieces: list[_Piece] = []
    run: list[Block] = []
    for block in blocks:
        if run and block.role != run[0].role:  # a window never spans two section roles
            pieces.extend(_windows(run, size, overlap))
            run = []
        if block.kind in ATOMIC_KINDS:
            pieces.extend(_windows(run, size, overlap))
            run = []
            pieces.append(_atomic_piece(block))
        elif block.text.strip():
            run.append(block)
    pieces.extend(_windows(run, size, overlap))
    return pieces


def _windows(blocks: list[Block], size: int, overlap: int) -> list[_Piece]:
    if not blocks:
        return []
    text = ""
    starts: list[tuple[int, Block]] = []  # char offset where each block begins
    for block in blocks:
        if text:
            text += "\n\n"
        starts.append((len(text), block))
        text += block.text.strip()
    spans = [m.span() for m in _TOKEN_RE.finditer(text)]
    if not spans:
        return []

    def block_at(offset: int) -> Block:
        current = starts[0][1]
        for begin, block in starts:
            if begin > offset:
                break
            current = block
        return current

    pieces = []
    step = size - overlap
    start = 0
    while True:
        end = min(start + size, len(spans))
        first, last = block_at(spans[start][0]), block_at(spans[end - 1][0])
        chunk_text = text[spans[start][0] : spans[end - 1][1]]
        section = first.section
        pieces.append(_Piece(chunk_text, "text", first.page, max(first.page, last.page), section,
                             role=first.role))
        if end >= len(spans):
            break
        start += step
    return pieces
