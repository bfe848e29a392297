"""A file written atomically is the old one or the new one, never a part, and
leaves no temporary file behind."""

from __future__ import annotations

import os
import stat

import pytest

from kg.atomic_write import atomic_write_bytes, atomic_write_text


def test_the_new_content_replaces_the_old_and_nothing_else_is_left(tmp_path):
    target = tmp_path / "metrics.json"
    target.write_text("old")
    atomic_write_text(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["metrics.json"]
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o644  # readable by the people it is for


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "dataset.jsonl"
    target.write_bytes(b"old\n")

    def disk_full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError):
        atomic_write_bytes(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dataset.jsonl"]
