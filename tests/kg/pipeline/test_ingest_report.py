"""The per-document ingest report says why references stayed unresolved (issue 20: a user
can tell a figure without a caption from a caption the reader missed)."""

import io

from rich.console import Console

from kg.pipeline.files import DocReport
from kg.pipeline.report import IngestSummary, print_report

SUMMARY = IngestSummary(files=1, ingested=1, topics=0)


def _printed(report: DocReport) -> str:
    out = io.StringIO()
    print_report(Console(file=out, width=400, color_system=None), [report], SUMMARY)
    return out.getvalue()


def test_unresolved_references_are_counted_by_reason():
    report = DocReport(path="paper.pdf", status="ingested", references_resolved=34, references_unresolved=3,
                       references_unresolved_why={"no caption with this label": 2, "caption not recognised": 1})
    line = _printed(report)
    assert "34 resolved / 3 unresolved (2 no caption with this label, 1 caption not recognised)" in line


def test_a_document_with_every_reference_resolved_prints_no_reasons():
    line = _printed(DocReport(path="paper.pdf", status="ingested", references_resolved=5))
    assert "5 resolved / 0 unresolved," in line


def test_an_endpoint_given_up_on_is_named_even_when_every_file_was_written_partial():
    # Every document's keypoint calls in flight when the breaker opened: all partial, none
    # left unstarted, so no per-file line carries the cause; the summary must.
    down = "the LLM endpoint http://127.0.0.1:9/v1 stopped answering (no answer for 4 s); re-run"
    report = DocReport(path="a.txt", status="partial", llm_failures=1, reason="1 x endpoint down")
    out = io.StringIO()
    print_report(Console(file=out, width=400, color_system=None), [report],
                 IngestSummary(files=1, partial=1, endpoint_down=down))
    assert f"stopped: {down}" in out.getvalue()
    assert "stopped answering" not in _printed(report)  # an endpoint that answered: no such line


def test_an_endpoint_named_by_each_file_left_over_is_not_repeated_at_the_end():
    down = "the LLM endpoint http://127.0.0.1:9/v1 stopped answering (no answer for 4 s); re-run"
    left = DocReport(path="b.txt", status="pending", reason=f"stopped: {down}")
    out = io.StringIO()
    print_report(Console(file=out, width=400, color_system=None), [left],
                 IngestSummary(files=1, not_ingested=1, endpoint_down=down))
    assert out.getvalue().count("stopped answering") == 1, out.getvalue()
