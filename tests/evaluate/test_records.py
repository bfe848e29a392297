"""Reading datasets: our records, MC-Search-shaped ones, and the errors a user can cause."""

from __future__ import annotations

import json

import pytest

from evaluate.errors import DatasetError
from evaluate.records import load_records, parse_record
from tests.evaluate.conftest import dataset_records, write_jsonl


def test_our_records_keep_hops_evidence_and_modality(dataset_file):
    records = load_records(dataset_file)
    image_record = records[4]
    assert [h.modality for h in image_record.hops] == ["image", "text", "text"]
    assert image_record.modality == "mixed" and records[0].modality == "text"
    assert image_record.hops[0].evidence[0].id == "img1"


def test_mc_search_shaped_record_with_a_list_of_supporting_facts():
    record = parse_record({"id": "m1", "question": "q?", "answer": "a", "graph_type": "text_chain",
                           "subqa_chain": [{"sub_question": "s?", "answer": "b", "supporting_fact_id": ["x", "y"]}]})
    assert record.hops[0].subquestion == "s?" and [e.id for e in record.hops[0].evidence] == ["x", "y"]


def test_missing_file_names_the_file(tmp_path):
    with pytest.raises(DatasetError, match="nope.jsonl: no such dataset file"):
        load_records(tmp_path / "nope.jsonl")


def test_bad_line_names_file_and_line(tmp_path):
    path = write_jsonl(tmp_path / "d.jsonl", dataset_records()[:1])
    path.write_text(path.read_text() + "{not json\n")
    with pytest.raises(DatasetError, match=r"d.jsonl:2: not a dataset record"):
        load_records(path)


def test_a_record_without_hops_is_rejected(tmp_path):
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"id": "x", "question": "q"}) + "\n")
    with pytest.raises(DatasetError, match="no subqa_chain"):
        load_records(path)
