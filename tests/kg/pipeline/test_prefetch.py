"""Parsing the next file in another process while this one embeds."""

from __future__ import annotations

import pytest

from kg.models import IngestError
from kg.pipeline.prefetch import Prefetcher, timed_read


def test_a_read_reports_its_document_and_seconds(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("# Bays\n\nNorth Bay is shallow.\n")
    parsed, seconds = timed_read(path, tmp_path / "assets")
    assert parsed.title == "Bays" and seconds >= 0


def test_prefetched_documents_arrive_parsed_and_errors_arrive_with_them(tmp_path):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("First paragraph.\n\nSecond paragraph.\n")
    bad.write_bytes(b"")
    with Prefetcher(tmp_path / "assets", enabled=True) as prefetch:
        prefetch.start(good)
        first = prefetch.futures[good]
        prefetch.start(bad)
        prefetch.start(good)  # asked twice: parsed once
        assert len(prefetch.futures) == 2 and prefetch.futures[good] is first
        parsed, _ = prefetch.get(good).result(timeout=60)
        with pytest.raises(IngestError, match="empty file"):
            prefetch.get(bad).result(timeout=60)
        assert prefetch.get(good) is None and not prefetch.busy  # taken: the caller now reads it itself
    assert [b.text for b in parsed.blocks] == ["First paragraph.", "Second paragraph."]


def test_a_disabled_prefetcher_starts_nothing(tmp_path):
    path = tmp_path / "a.txt"
    path.write_text("Text.\n")
    with Prefetcher(tmp_path / "assets", enabled=False) as prefetch:
        prefetch.start(path)
        assert prefetch.get(path) is None and prefetch.pool is None
