"""A stuck endpoint (accepts, never answers) and a closed port stop ingest and
generate well within 3 minutes, every file not ingested is listed with the
cause, and the messages name the endpoint, not the graph."""

from __future__ import annotations

import time

import pytest

from tests.hang_server import HangingServer, closed_port_url
from tests.hopgraph.faults_support import WIKI_DIR, hopgraph, wiki_docs

pytestmark = [pytest.mark.timeout(400),
              pytest.mark.skipif(not WIKI_DIR.is_dir(), reason="shared wiki corpus not found")]

FAST_FAIL = {"OPENAI_API_KEY": "test", "HOPGRAPH_LLM__TIMEOUT": "1", "HOPGRAPH_LLM__STALL_SECONDS": "4"}


def _assert_every_file_accounted(proc, files):
    lines = proc.stderr.splitlines()
    for f in files:
        mine = [l for l in lines if f.name in l]
        assert mine, f"{f.name} not mentioned:\n{proc.stderr}"
        assert any(w in l for l in mine for w in ("not ingested", "not finished", "partial")), proc.stderr
    assert "stopped answering" in proc.stderr, proc.stderr
    assert "re-run" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.parametrize("endpoint", ["hanging", "closed"])
def test_ingest_stops_and_lists_every_file(tmp_path, endpoint):
    files = wiki_docs(tmp_path / "docs", 4)
    with HangingServer() as server:
        url = server.base_url if endpoint == "hanging" else closed_port_url()
        start = time.monotonic()
        proc = hopgraph(["--data-dir", str(tmp_path / "d"), "ingest", "docs"], tmp_path,
                        {**FAST_FAIL, "OPENAI_BASE_URL": url})
        took = time.monotonic() - start
    assert proc.returncode == 1, proc.stderr
    assert took < 150, (took, proc.stderr)
    _assert_every_file_accounted(proc, files)


def test_generate_on_a_stuck_endpoint_names_the_cause(tmp_path):
    wiki_docs(tmp_path / "docs", 30)
    data = str(tmp_path / "d")
    offline = hopgraph(["--data-dir", data, "ingest", "docs"], tmp_path)
    assert offline.returncode == 0, offline.stderr
    with HangingServer() as server:
        start = time.monotonic()
        proc = hopgraph(["--data-dir", data, "generate", "--n", "5", "--types", "text_chain"], tmp_path,
                        {**FAST_FAIL, "OPENAI_BASE_URL": server.base_url})
        took = time.monotonic() - start
    assert proc.returncode == 1, proc.stderr
    assert took < 150, took
    assert "stopped answering" in proc.stderr
    assert "ran out of new candidates" not in proc.stderr
    assert "fewer than asked: the run stopped" in proc.stderr
