"""One writer per data dir, with real processes: a second writing run stops at
once naming the holder, or queues with --wait and then has nothing to redo;
readers run beside a writer; a fresh dir's schema is created once."""

from __future__ import annotations

import time

import pytest

from tests.hopgraph.faults_support import WIKI_DIR, hopgraph, start_hopgraph, wiki_docs

pytestmark = [pytest.mark.timeout(400),
              pytest.mark.skipif(not WIKI_DIR.is_dir(), reason="shared wiki corpus not found")]


def _wait_for_lock(lock, proc, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        if lock.exists() and lock.read_text().strip():
            return
        time.sleep(0.05)
    raise AssertionError("the first run never took the writer lock")


def test_second_writer_stops_at_once_naming_the_holder(tmp_path):
    wiki_docs(tmp_path / "docs", 12)
    first = start_hopgraph(["ingest", "docs"], tmp_path)
    try:
        _wait_for_lock(tmp_path / ".hopgraph" / "writer.lock", first)
        start = time.monotonic()
        second = hopgraph(["ingest", "docs"], tmp_path, timeout=60)
        assert time.monotonic() - start < 15
        assert second.returncode == 1
        lines = [l for l in second.stderr.splitlines() if l.strip() and not l.startswith("No LLM configured")]
        assert len(lines) == 1, second.stderr
        assert f"pid {first.pid}" in lines[0] and "hopgraph ingest docs" in lines[0] and "--wait" in lines[0]
        reader = hopgraph(["stats", "--json"], tmp_path, timeout=60)  # a reader beside the writer
        assert reader.returncode == 0, reader.stderr
    finally:
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert "ingest: 12 new" in err


def test_wait_queues_and_does_not_redo_the_work(tmp_path):
    """Two runs on a fresh dir at once: no schema crash, the work is done once."""
    wiki_docs(tmp_path / "docs", 8)
    first = start_hopgraph(["ingest", "--wait", "docs"], tmp_path)
    second = start_hopgraph(["ingest", "--wait", "docs"], tmp_path)
    _, err1 = first.communicate(timeout=300)
    _, err2 = second.communicate(timeout=300)
    assert first.returncode == 0 and second.returncode == 0, err1 + err2
    assert "already indexed" not in err1 + err2 and "Traceback" not in err1 + err2
    news = sorted([e for e in (err1, err2) if "ingest: 8 new" in e])
    assert len(news) == 1, err1 + err2  # one did the work
    waited = err2 if news[0] is err1 else err1
    assert "8 unchanged" in waited and "waiting for the run writing to" in waited


def test_readers_on_a_fresh_dir_create_the_schema_once(tmp_path):
    (tmp_path / ".hopgraph").mkdir()  # a data dir with no graph yet (where none exists, readers stop)
    procs = [start_hopgraph(["stats", "--json"], tmp_path) for _ in range(3)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert "already indexed" not in err
