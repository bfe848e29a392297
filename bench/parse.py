"""PDF parsing: tables found and seconds, before and after "parse only what needs it".

before: find_tables on every page with a "Table N" caption or two or more
horizontal rules in the body (the old policy), all pages in this process.
after: find_tables only on pages with a table cue (kg/ingest/pdf/table_cues.py),
pages across worker processes (kg/ingest/pdf/workers.py); also shown with
one process, to separate the two effects.

Tables are compared by page and markdown: "lost" lists tables the old
policy found and the new one does not (must be empty).

    python bench/parse.py [--corpus ../shared/corpus/pdf] [--workers N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DEFAULT_CORPUS = ROOT.parent / "shared" / "corpus" / "pdf"


def old_table_cue(blocks, drawings, rect) -> str:
    """The policy before: a caption, or two horizontal rules of 40 pt or more in the body."""
    if any(b.label.startswith("Table") for b in blocks):
        return "caption"
    top, bottom = rect.y0 + 0.08 * rect.height, rect.y1 - 0.08 * rect.height
    count = 0
    for drawing in drawings:
        for item in drawing["items"]:
            if item[0] == "l":
                a, b = item[1], item[2]
                count += abs(a.y - b.y) < 1 and abs(a.x - b.x) >= 40 and top < a.y < bottom
            elif item[0] == "re":
                r = item[1]
                count += r.height < 2 and r.width >= 40 and top < r.y0 < bottom
    return "rules" if count >= 2 else ""


def run(path: Path, workers: int, policy=None) -> dict:
    """Read one PDF; pass 1 with the given table policy (None: the reader's own)."""
    import kg.ingest.pdf.layout as layout
    from kg.ingest.pdf import reader, workers as pool

    original = layout.table_cue
    if policy is not None:
        layout.table_cue = policy
    captured: list = []
    collect = pool.collect_pages

    def recording(p, doc, n):
        pages = collect(p, doc, n)
        captured.extend(pages)
        return pages

    reader_collect = pool.collect_pages
    pool.collect_pages = recording
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0, c0 = time.perf_counter(), time.process_time()
            reader.read_pdf(path, Path(tmp), workers=workers)
            seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        layout.table_cue = original
        pool.collect_pages = reader_collect
    tables = {(p.number, t.markdown) for p in captured for t in p.tables}
    return {"seconds": seconds, "cpu": cpu, "detect_pages": sum(bool(p.table_cue) for p in captured),
            "pages": len(captured), "tables": tables}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--workers", type=int, default=0, help="worker processes for 'after' (0: one per CPU)")
    args = parser.parse_args()
    from kg.ingest.pdf.workers import default_workers, page_pool

    workers = args.workers or default_workers()
    page_pool(workers)  # start the pool before timing: a long-running ingest pays this once
    files = sorted(args.corpus.glob("*.pdf"))
    # Warm pymupdf's table model in this process and in the workers.
    run(files[0], 1)
    run(files[0], workers)
    totals = {"before": [0.0, 0, 0, 0.0], "after, 1 process": [0.0, 0, 0, 0.0],
              f"after, {workers} workers": [0.0, 0, 0, 0.0]}
    lost_all = []
    print(f"{'file':45} {'pages':>5} | {'before: s / detect pages / tables':>34} | "
          f"{'after 1 proc':>22} | {'after workers':>22}")
    for path in files:
        before = run(path, 1, old_table_cue)
        inline = run(path, 1)
        parallel = run(path, workers)
        lost = sorted(before["tables"] - parallel["tables"])
        lost_all += [(path.name, page) for page, _ in lost]
        row = []
        for name, result in zip(totals, (before, inline, parallel)):
            totals[name][0] += result["seconds"]
            totals[name][1] += result["detect_pages"]
            totals[name][2] += len(result["tables"])
            totals[name][3] += result["cpu"]
            row.append(f"{result['seconds']:6.2f} s {result['detect_pages']:3d} p {len(result['tables']):3d} t")
        print(f"{path.name:45} {before['pages']:5d} | {row[0]:>34} | {row[1]:>22} | {row[2]:>22}"
              + (f"  LOST {len(lost)}" if lost else ""))
    for name, (seconds, pages, tables, cpu) in totals.items():
        print(f"{name:22} {seconds:7.2f} s wall, {cpu:7.2f} s cpu in this process, "
              f"find_tables on {pages} pages, {tables} tables")
    b, a = totals["before"][0], totals[f"after, {workers} workers"][0]
    c1 = totals["after, 1 process"][3]
    print(f"wall before / after: {b / a:.2f}x; cpu before / after (both in one process): "
          f"{totals['before'][3] / c1:.2f}x; tables lost: {lost_all or 'none'}")
    print("(wall figures on a loaded machine are noisy; the cpu ratio compares the same work)")


if __name__ == "__main__":
    main()
