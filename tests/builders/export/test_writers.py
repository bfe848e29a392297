"""Dataset file writers: JSONL, parquet and HF files that read back as written, written atomically."""

from __future__ import annotations

import json
import sys

import pytest

from builders.export.writers import jsonl_bytes, read_parquet_records, write_hf, write_parquet
from kg.atomic_write import atomic_write_bytes, atomic_write_text
from kg.errors import HopgraphError
from records_support import make_record


def records() -> list[dict]:
    return [make_record("r1"), make_record("r2", "image_chain", ("text", "image", "text"), status="rejected",
                                           reject_reason="shortcut")]


def test_jsonl_is_one_utf8_record_per_line():
    data = jsonl_bytes(records())
    lines = data.decode("utf-8").splitlines()
    assert len(lines) == 2 and data.endswith(b"\n")
    assert [json.loads(line) for line in lines] == records()
    assert "étudia" in lines[0]  # kept readable, not \u-escaped


def test_an_atomic_write_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "dataset.jsonl"
    atomic_write_text(target, "old\n")
    atomic_write_bytes(target, b"new\n")
    assert target.read_bytes() == b"new\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dataset.jsonl"]
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_a_failed_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "dataset.jsonl"
    atomic_write_text(target, "kept\n")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")  # fails while writing
    assert target.read_text() == "kept\n"
    assert [p.name for p in tmp_path.iterdir()] == ["dataset.jsonl"]


def test_parquet_reads_back_identical_to_the_jsonl(tmp_path):
    path = write_parquet(records(), tmp_path / "dataset.parquet")
    back = read_parquet_records(path)
    assert back == records()
    assert back[1]["subqa_chain"][1]["evidence"]["kind"] == "image" and back[0]["domain"] is None
    # rewriting in place works and leaves no temporary file
    write_parquet(records()[:1], path)
    assert [r["id"] for r in read_parquet_records(path)] == ["r1"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dataset.parquet"]


def test_the_hf_dataset_loads_and_is_replaced_on_rewrite(tmp_path):
    import datasets

    target = write_hf(records(), tmp_path / "hf")
    ds = datasets.load_from_disk(str(target))
    assert ds["id"] == ["r1", "r2"]
    assert ds[1]["subqa_chain"][1]["modality"] == "image"
    write_hf([], target)  # an empty dataset still has every column
    again = datasets.load_from_disk(str(target))
    assert len(again) == 0 and "subqa_chain" in again.column_names
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hf"]  # no staging folders left behind


def test_a_missing_library_names_the_format_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if pyarrow were not installed
    with pytest.raises(HopgraphError, match=r"'parquet' needs pyarrow.*hopgraph\[export\]"):
        write_parquet(records(), tmp_path / "dataset.parquet")
    assert not list(tmp_path.iterdir())
