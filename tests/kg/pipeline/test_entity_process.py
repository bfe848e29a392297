"""spaCy in a process of its own: the entities of each text, in order, and a failure that surfaces."""

from __future__ import annotations

import pytest

from kg.pipeline.entity_process import EntityProcess

pytestmark = pytest.mark.timeout(180)

TEXTS = ["Maria Kovacs founded the Helsinki Marine Institute in 1998.",
         "The Aurora Research Vessel mapped the Gulf of Riga for the Nordic Ocean Council.",
         ""]


def test_the_worker_finds_the_entities_of_each_text_in_order():
    with EntityProcess("en_core_web_sm", 16) as worker:
        first = worker.submit(TEXTS[:1])
        found, seconds = worker.submit(TEXTS).result(timeout=120)
        assert first.result(timeout=120)[0] == found[:1]  # the same text gives the same mentions
    assert len(found) == 3 and seconds >= 0
    assert {m.name for m in found[0]} >= {"Maria Kovacs", "Helsinki Marine Institute"}
    assert "Gulf of Riga" in {m.name for m in found[1]} and found[2] == []


def test_a_model_that_cannot_load_fails_the_work_instead_of_hanging():
    with EntityProcess("en_no_such_model", 16) as worker:
        with pytest.raises(Exception):
            worker.submit(TEXTS).result(timeout=120)
