"""Progress when stderr is not a terminal, and the order files are ingested in."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from kg.pipeline.files import DocReport
from kg.pipeline.groups import HUGE_BYTES, plan_order
from kg.pipeline.progress import Progress
from tests.hopgraph.faults_support import WIKI_DIR, hopgraph, wiki_docs


class Console:
    def __init__(self):
        self.lines = []

    def print(self, text="", **_):
        self.lines.append(str(text))


def test_a_line_per_file_and_a_periodic_status_line():
    todo = [(Path("a.txt"), "a", 1_000_000), (Path("b.txt"), "b", 500_000)]
    console = Console()
    with Progress(console, todo, interactive=False, status_seconds=0.2) as progress:
        progress.working_on([Path("a.txt")])
        time.sleep(0.5)  # a long file: status lines while nothing finishes
        progress.finished([DocReport("a.txt", "pending", chunks=7)])
    status = [l for l in console.lines if l.startswith("ingest: 0/2 files")]
    assert len(status) >= 1 and "working on a.txt" in status[0] and "0.00/1.50 MB" in status[0]
    assert any(l.startswith("[1/2] written a.txt: 7 chunks") for l in console.lines)


def test_a_terminal_gets_the_bar_not_the_lines():
    console = Console()
    with Progress(console, [(Path("a.txt"), "a", 10)], interactive=True, status_seconds=0.05) as progress:
        time.sleep(0.2)
        progress.finished([DocReport("a.txt", "ingested")])
    assert console.lines == []


def test_huge_files_go_last_so_small_ones_finish_first():
    todo = [(Path("huge2.txt"), "h2", HUGE_BYTES * 4), (Path("small.txt"), "s", 2_000),
            (Path("huge1.txt"), "h1", HUGE_BYTES * 2), (Path("mid.pdf"), "m", 2_000_000)]
    assert [p.name for p, _, _ in plan_order(todo)] == ["mid.pdf", "small.txt", "huge1.txt", "huge2.txt"]


@pytest.mark.timeout(300)
@pytest.mark.skipif(not WIKI_DIR.is_dir(), reason="shared wiki corpus not found")
def test_ingest_to_a_pipe_prints_a_line_per_file(tmp_path):
    files = wiki_docs(tmp_path / "docs", 3)
    proc = hopgraph(["ingest", "docs"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [l for l in proc.stderr.splitlines() if l.startswith("[")]
    assert len(lines) == 3 and lines[-1].startswith("[3/3]")
    assert {f.name for f in files} == {l.split(" ", 2)[2].split(":")[0].split("/")[-1] for l in lines}
