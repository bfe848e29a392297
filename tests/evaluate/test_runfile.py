"""Run files from an external system: read, replayed, and their errors."""

from __future__ import annotations

import pytest

from evaluate.errors import DatasetError
from evaluate.retrievers import Query
from evaluate.runfile import RunFileRetriever
from tests.evaluate.conftest import write_jsonl


def test_question_and_hop_rankings_are_replayed_and_gaps_counted(tmp_path):
    path = write_jsonl(tmp_path / "sys.jsonl", [{"id": "r1", "ranked": ["a", "b", "a"]},
                                                {"id": "r1", "hop": 0, "ranked": ["c"]}])
    run = RunFileRetriever(path)
    assert run.name == "run:sys"
    rankings = run.search([Query("r1", "q"), Query("r1#0", "s"), Query("r2", "q")], 10)
    assert rankings == [["a", "b"], ["c"], []] and run.missing == 1


def test_a_bad_line_names_the_file_and_line(tmp_path):
    path = tmp_path / "sys.jsonl"
    path.write_text('{"id": "r1", "ranked": ["a"]}\n{"ranked": "oops"}\n')
    with pytest.raises(DatasetError, match=r"sys.jsonl:2: not a run line"):
        RunFileRetriever(path)


def test_a_missing_run_file(tmp_path):
    with pytest.raises(DatasetError, match="no such run file"):
        RunFileRetriever(tmp_path / "none.jsonl")
