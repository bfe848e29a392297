"""A long document goes a part at a time (kg.pipeline.stream): one Document,
its chunks numbered and chained across the parts, keypoints and SIMILAR_TO
as in one piece, and a document shorter than a part unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from testing_support import WIKI, make_settings, needs_corpus
from kg.models import Block, ParsedDocument
from kg.context import RunContext
from kg.pipeline import run_ingest
from kg.pipeline import stream
from kg.pipeline.stream import document_parts, streams
from kg.store.falkor import FalkorStore


class Quiet:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def print(self, *args, **kwargs) -> None:
        self.lines.append(" ".join(str(a) for a in args))


def _parsed(blocks: list[Block]) -> ParsedDocument:
    return ParsedDocument(path="long.txt", sha256="x", title="Long", pages=1, blocks=blocks)


def test_parts_cover_every_block_in_order_and_cut_at_headings_when_they_can():
    blocks = []
    for n in range(12):
        blocks.append(Block(f"Section {n}", "heading", heading_level=1))
        blocks += [Block(f"Paragraph {n}.{i} " + "word " * 20) for i in range(3)]
    parts = list(document_parts(_parsed(blocks), part_chars=300))
    assert [b for p in parts for b in p.blocks] == blocks
    assert len(parts) > 3
    assert all(p.blocks[0].kind == "heading" for p in parts)  # every cut fell before a heading
    no_headings = [Block("A paragraph of text. " * 5) for _ in range(40)]
    parts = list(document_parts(_parsed(no_headings), part_chars=500))
    assert [b for p in parts for b in p.blocks] == no_headings
    assert max(sum(len(b.text) for b in p.blocks) for p in parts) <= 2 * 500 + len(no_headings[0].text)
    assert streams(_parsed(no_headings), 500) and not streams(_parsed(no_headings), 10_000)


def _ingest(doc: Path, data: Path, **ingest) -> tuple[dict, FalkorStore]:
    settings = make_settings(data, None, ingest={"min_tokens": 16, **ingest})
    store = FalkorStore(data, graph="test")
    store.ensure_schema()
    return run_ingest(RunContext.open(settings, store, console=Quiet()), [doc]), store


def _chunks(store: FalkorStore) -> list[dict]:
    return store.run_text("MATCH (c:Chunk) RETURN c.index AS index, c.text AS text ORDER BY index", {})


@needs_corpus
def test_a_long_text_in_parts_is_one_document_chained_and_linked_like_one_piece(tmp_path, monkeypatch):
    text = "\n\n".join(p.read_text(encoding="utf-8").strip() for p in sorted(WIKI.glob("*.txt"))[:60])
    doc = tmp_path / "long.txt"
    doc.write_text(text, encoding="utf-8")
    assert len(text) > 30_000
    whole, store = _ingest(doc, tmp_path / "whole" / ".hopgraph")
    try:
        one_piece = _chunks(store)
    finally:
        store.close()
        store.server.stop()
    parts_seen = []
    original = stream.document_parts
    monkeypatch.setattr(stream, "document_parts", lambda parsed, size: parts_seen.append(size) or original(parsed, size))
    summary, store = _ingest(doc, tmp_path / "parts" / ".hopgraph", part_chars=10_000)
    try:
        assert parts_seen == [10_000], "the long text did not take the streamed path"
        assert summary.ingested == 1 and summary.similar_to > 0
        docs = store.run_text("MATCH (d:Document) RETURN d.ingested AS ingested, d.linked AS linked", {})
        assert docs == [{"ingested": True, "linked": True}]
        chunks = _chunks(store)
        assert [c["index"] for c in chunks] == list(range(len(chunks)))  # numbered on across the parts
        chain = store.run_text("MATCH (a:Chunk)-[:NEXT]->(b:Chunk) RETURN a.index AS a, b.index AS b ORDER BY a", {})
        assert [(r["a"], r["b"]) for r in chain] == [(i, i + 1) for i in range(len(chunks) - 1)]
        # A part's own mean similarity places its cuts, so some chunks differ from one piece
        # (81 of 98 the same with these 10,000-character parts), never the text they cover.
        same = len({c["text"] for c in chunks} & {c["text"] for c in one_piece})
        assert same >= 0.75 * len(one_piece) and abs(len(chunks) - len(one_piece)) <= 0.1 * len(one_piece)
        assert " ".join(c["text"] for c in chunks).split() == " ".join(c["text"] for c in one_piece).split()
        counts = store.counts()
        assert counts["nodes"]["Keypoint"] > 0 and counts["relationships"]["MENTIONS"] > 0
        assert summary.similar_to >= 0.9 * whole.similar_to
        settings = make_settings(tmp_path / "parts" / ".hopgraph", None, ingest={"min_tokens": 16, "part_chars": 10_000})
        again = run_ingest(RunContext.open(settings, store, console=Quiet()), [doc])
        assert again.unchanged == 1 and len(_chunks(store)) == len(chunks)
    finally:
        store.close()
        store.server.stop()


@needs_corpus
def test_a_passage_repeated_word_for_word_is_linked_once(tmp_path):
    pages = [p.read_text(encoding="utf-8").strip() for p in sorted(WIKI.glob("*.txt"))[:6]]
    repeated = pages[0]
    doc = tmp_path / "repeats.txt"
    doc.write_text("\n\n".join(part for page in pages[1:] for part in (page, repeated)), encoding="utf-8")
    summary, store = _ingest(doc, tmp_path / ".hopgraph")
    try:
        rows = store.run_text("MATCH (c:Chunk) OPTIONAL MATCH (c)-[s:SIMILAR_TO]-(:Chunk) "
                              "RETURN c.id AS id, c.text AS text, count(s) AS links, "
                              "c.embedding IS NOT NULL AS has_vector", {})
        by_text: dict[str, list[dict]] = {}
        for row in rows:
            by_text.setdefault(row["text"], []).append(row)
        copies = [group for group in by_text.values() if len(group) > 1]
        assert copies, "no chunk text came out twice: the test text did not repeat a passage"
        assert all(row["has_vector"] for row in rows)
        for group in copies:
            assert sum(row["links"] > 0 for row in group) <= 1, group[0]["text"][:60]
        assert summary.similar_to > 0
    finally:
        store.close()
        store.server.stop()
