"""Clean stops with real processes and signals: Ctrl-C (SIGINT) and SIGTERM end
the run quietly, say how to resume, and stop the FalkorDB server the run
started; after a SIGKILL of hopgraph the server and workers stop on their own."""

from __future__ import annotations

import os
import signal
import time

import pytest

from tests.hopgraph.faults_support import WIKI_DIR, hopgraph, start_hopgraph, wiki_docs

pytestmark = [pytest.mark.timeout(400),
              pytest.mark.skipif(not WIKI_DIR.is_dir(), reason="shared wiki corpus not found")]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is gone for the user
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as fh:
            return [int(p) for p in fh.read().split()]
    except OSError:
        return []


def _start_and_wait_for_work(tmp_path, n_docs=60):
    wiki_docs(tmp_path / "docs", n_docs)
    proc = start_hopgraph(["ingest", "docs"], tmp_path)
    pid_file = tmp_path / ".hopgraph" / "falkordb.pid"
    deadline = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert pid_file.exists(), "the run never started its server"
    time.sleep(8)  # models loading, first documents under way
    assert proc.poll() is None, "the run ended before it could be interrupted"
    return proc, int(pid_file.read_text()), _children(proc.pid)


def _gone_within(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not [p for p in pids if _alive(p)]:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_interrupt_is_quiet_says_how_to_resume_and_stops_the_server(tmp_path, sig):
    proc, server_pid, workers = _start_and_wait_for_work(tmp_path)
    start = time.monotonic()
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert time.monotonic() - start < 20
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Aborted" not in err
    assert "interrupted" in err and "re-run the same command to resume" in err
    assert _gone_within([server_pid, *workers], 10), "server or workers left behind"
    again = hopgraph(["ingest", "docs"], tmp_path, timeout=300)  # resumes: nothing twice, nothing lost
    assert again.returncode == 0, again.stderr
    summary = next(l for l in again.stderr.splitlines() if l.startswith("ingest: ") and " new, " in l)
    new, unchanged = (int(summary.split(" new")[0].split()[-1]), int(summary.split(" unchanged")[0].split()[-1]))
    assert new + unchanged == 60


def test_sigkill_leaves_no_server_or_worker_behind(tmp_path):
    proc, server_pid, workers = _start_and_wait_for_work(tmp_path)
    proc.kill()
    proc.wait(timeout=10)
    assert _gone_within([server_pid, *workers], 60), "server or workers outlived a killed run"


def test_sigterm_while_a_long_text_goes_in_parts_stops_the_server_and_the_rerun_finishes_it(tmp_path):
    """A long text (kg.pipeline.stream, here in 5,000-character parts) stopped
    between its parts: the same clean stop, and the re-run writes the
    document once (its chunks numbered 0..n-1, none twice)."""
    pages = sorted(WIKI_DIR.glob("*.txt"))[:150]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "long.txt").write_text("\n\n".join(p.read_text(encoding="utf-8").strip() for p in pages))
    env = {"HOPGRAPH_INGEST__PART_CHARS": "5000"}
    proc = start_hopgraph(["ingest", "docs"], tmp_path, env=env)
    pid_file = tmp_path / ".hopgraph" / "falkordb.pid"
    deadline = time.monotonic() + 120
    while not pid_file.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert pid_file.exists(), "the run never started its server"
    server_pid = int(pid_file.read_text())
    time.sleep(15)  # models loaded, the first parts written
    assert proc.poll() is None, "the run ended before it could be interrupted"
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "re-run the same command to resume" in err
    assert _gone_within([server_pid], 10), "server left behind"
    again = hopgraph(["ingest", "docs"], tmp_path, env=env, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "ingest: 1 new" in again.stderr, again.stderr
    from kg.store.falkor import FalkorStore

    store = FalkorStore(tmp_path / ".hopgraph")
    try:
        rows = store.run_text("MATCH (c:Chunk) RETURN c.index AS i ORDER BY i", {})
        assert [r["i"] for r in rows] == list(range(len(rows))) and len(rows) > 100
        docs = store.run_text("MATCH (d:Document) RETURN d.ingested AS ingested", {})
        assert docs == [{"ingested": True}]
    finally:
        store.close()
        store.server.stop()
