"""The shared output folder: each verb replaces only its own section and rows."""

from __future__ import annotations

import json

from evaluate.output import write_section


def test_two_verbs_share_one_folder(tmp_path):
    write_section(tmp_path, "retrieval", {"x": 1}, [{"q": 1}, {"q": 2}])
    write_section(tmp_path, "answers", {"y": 2}, [{"a": 1}])
    everything = write_section(tmp_path, "retrieval", {"x": 3}, [{"q": 3}])
    assert everything == {"retrieval": {"x": 3}, "answers": {"y": 2}}
    assert json.loads((tmp_path / "metrics.json").read_text()) == everything
    rows = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert rows == [{"eval": "answers", "a": 1}, {"eval": "retrieval", "q": 3}]
    assert not list(tmp_path.glob("*.tmp"))
