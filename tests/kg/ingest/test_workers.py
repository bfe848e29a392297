"""PDF pages read in worker processes: the same document as in one process,
and no worker outlives a parent killed with SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from kg.ingest.pdf import read_pdf
from kg.ingest.pdf.workers import page_batches
from tests.kg.ingest.conftest import KI67

ROOT = Path(__file__).resolve().parents[3]


def test_page_batches_cover_every_page_once():
    assert page_batches(7, 2) == [[0, 1], [2, 3], [4, 5], [6]]
    assert sum(page_batches(20, 3), []) == list(range(20))
    assert page_batches(1, 4) == [[0]]


def test_workers_give_the_same_document(tmp_path):
    if not KI67.exists():
        return
    one = read_pdf(KI67, tmp_path / "a", workers=1)
    two = read_pdf(KI67, tmp_path / "b", workers=2)
    assert [(b.kind, b.page, b.role, b.text) for b in one.blocks] == [
        (b.kind, b.page, b.role, b.text) for b in two.blocks]
    assert [i.id for i in one.images] == [i.id for i in two.images]
    assert (one.title, one.tables, one.furniture_removed) == (two.title, two.tables, two.furniture_removed)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found += [int(x) for x in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_workers_die_with_a_killed_parent(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from kg.ingest.pdf.workers import page_pool

        if __name__ == "__main__":
            pool = page_pool(2)
            assert list(pool.map(abs, [-1, -2, -3, -4])) == [1, 2, 3, 4]
            print("ready", flush=True)
            time.sleep(300)
    """))
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout.readline().strip() == "ready"
        workers = [pid for pid in _children(parent.pid)
                   if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(workers) >= 2
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    survivors = [pid for pid in workers if _alive(pid)]
    for pid in survivors:  # do not leave them behind even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not survivors
