"""Seconds per MB of one long text document, by size: does ingest cost grow
linearly with a document's length, and does its memory stay bounded?

Each size is one .txt file of real, non-repeated text: distinct source
files (default: the shared wiki pages, then the docling docs) concatenated
in name order until the size is reached; a size larger than the distinct
text available is reported and skipped, never padded with repeats. Each
file is ingested offline by `hopgraph ingest` in a fresh data dir (a fresh
embedding cache too), as a user runs it; wall seconds and the peak resident
memory of the run's processes are measured.

    .venv/bin/python bench/long_doc.py [--sizes 0.25,1,4,16] [--source DIR ...]

A run's fixed cost (start, model loads, server start) is measured first on a
1 KB file and subtracted: s/MB is (seconds - fixed) / MB, so small sizes are
not charged for the start-up. Prints one row per size (MB, seconds, s/MB
and its ratio to the smallest size, CPU s/MB of hopgraph and its workers
and its ratio, peak MB, chunks) and the 1-minute load average before and
after, since the machine may be shared: compare ratios, not absolute
seconds; CPU seconds move less than wall seconds with other work.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus" / "text"
if not CORPUS.is_dir():  # run from a worktree: the shared corpus beside the main checkout
    CORPUS = Path("/work/shared/corpus/text")
DEFAULT_SOURCES = [CORPUS / "wiki_hotpotqa_train100", CORPUS / "docling_docs"]
HOPGRAPH = str(Path(sys.executable).parent / "hopgraph")


def distinct_text(sources: list[Path], size: int) -> str | None:
    """`size` bytes of text from distinct files, or None when there is not that much."""
    parts, total = [], 0
    for folder in sources:
        for path in sorted(folder.glob("*")):
            if path.suffix.lower() not in (".txt", ".md") or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace").strip() + "\n\n"
            parts.append(text)
            total += len(text.encode())
            if total >= size:
                return "".join(parts).encode()[:size].decode(errors="ignore")
    return None


def ingest_once(text: str, workdir: Path) -> dict:
    doc = workdir / "long.txt"
    doc.write_text(text, encoding="utf-8")
    env = {**os.environ, "HOPGRAPH_EMBEDDINGS__CACHE_DIR": str(workdir / "cache")}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    start, cpu_before = time.perf_counter(), _children_cpu()
    proc = subprocess.run([HOPGRAPH, "--data-dir", str(workdir / "data"), "ingest", str(doc)],
                          capture_output=True, text=True, env=env, cwd=workdir)
    seconds, cpu = time.perf_counter() - start, _children_cpu() - cpu_before
    if proc.returncode != 0:
        raise SystemExit(f"ingest failed ({proc.returncode}): {proc.stderr[-800:]}")
    found = re.search(r"(\d+) chunks", proc.stderr)
    return {"seconds": seconds, "cpu": cpu, "chunks": int(found.group(1)) if found else 0}


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (hopgraph and its workers, not the
    store server): less sensitive than wall seconds to other work on a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="0.25,1,4,16", help="MB, comma-separated")
    parser.add_argument("--source", type=Path, action="append", help="folders of .txt/.md files (repeatable)")
    args = parser.parse_args()
    sources = args.source or DEFAULT_SOURCES
    sizes = [float(s) for s in args.sizes.split(",")]
    print(f"source: {', '.join(map(str, sources))}")
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    with tempfile.TemporaryDirectory() as tmp:
        first = ingest_once(distinct_text(sources, 1000) or "A short text.", Path(tmp))
    fixed, fixed_cpu = first["seconds"], first["cpu"]
    print(f"fixed cost (1 KB file): {fixed:.1f} s, {fixed_cpu:.1f} CPU s")
    print(f"{'MB':>6} {'seconds':>8} {'s/MB':>7} {'ratio':>6} {'CPU s/MB':>9} {'ratio':>6} {'peak MB':>8} {'chunks':>7}")
    base = cpu_base = None
    for mb in sizes:
        text = distinct_text(sources, int(mb * 1_000_000))
        if text is None:
            print(f"{mb:>6} skipped: less than {mb} MB of distinct text in {', '.join(map(str, sources))}")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            row = ingest_once(text, Path(tmp))
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        per_mb = max(row["seconds"] - fixed, 0.0) / mb
        cpu_per_mb = max(row["cpu"] - fixed_cpu, 0.0) / mb
        base, cpu_base = base or per_mb, cpu_base or cpu_per_mb
        peak_note = f"{peak / 1024:>8.0f}" if peak > before else f"{'<=prev':>8}"
        print(f"{mb:>6} {row['seconds']:>8.1f} {per_mb:>7.1f} {per_mb / base:>6.2f} {cpu_per_mb:>9.1f} "
              f"{cpu_per_mb / cpu_base:>6.2f} {peak_note} {row['chunks']:>7}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
