"""Resident memory of one `hopgraph ingest`, part by part: where does it grow?

Runs `hopgraph ingest ARGS...` in this process (so the process measured is
hopgraph's own) and prints, before each part of a long document
(kg.pipeline.prepare.prepare_document), before and after the corpus steps
(link_similar, write_topics) and at the end: RSS, the peak RSS since the line
before (sampled every 0.2 s), and glibc's own account of its heap
(mallinfo2: bytes in use, and bytes free but kept by malloc). RSS growing
while "in use" stays flat is memory malloc keeps, not live objects.

    PYTHONPATH=. .venv/bin/python bench/part_memory.py [--trim] -- --data-dir DIR ingest long.txt

A text of distinct PEPs as bench/long_doc.py makes it, in 400,000-character
parts by default ([ingest] part_chars; HOPGRAPH_INGEST__PART_CHARS to change).
A one-piece document (shorter than part_chars) shows only the corpus steps.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
import threading
import time

import psutil

MB = 2 ** 20


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                      "fsmblks", "uordblks", "fordblks", "keepcost")]


class PartLog:
    """RSS and malloc's in-use/free bytes at each mark; peak RSS between marks."""

    def __init__(self, trim: bool) -> None:
        self.process, self.peak, self.trim = psutil.Process(), 0, trim
        self.libc = ctypes.CDLL(None)
        self.libc.mallinfo2.restype = _MallInfo2
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self) -> None:
        while True:
            self.peak = max(self.peak, self.process.memory_info().rss)
            time.sleep(0.2)

    def mark(self, what: str) -> None:
        rss, info = self.process.memory_info().rss, self.libc.mallinfo2()
        line = (f"{what:<22} RSS {rss / MB:6.0f}  peak since last {max(self.peak, rss) / MB:6.0f}  "
                f"malloc in use {info.uordblks / MB:5.0f}  free kept {info.fordblks / MB:5.0f}")
        if self.trim:  # what RSS would be if malloc gave its free pages back here
            self.libc.malloc_trim(0)
            line += f"  after malloc_trim {self.process.memory_info().rss / MB:6.0f}"
        print(line, file=sys.stderr, flush=True)
        self.peak = self.process.memory_info().rss


def _marked(log: PartLog, fn, label):
    def run(*args, **kwargs):
        log.mark(label() if callable(label) else f"before {label}")
        try:
            return fn(*args, **kwargs)
        finally:
            if not callable(label):
                log.mark(f"after {label}")
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Arguments after -- go to hopgraph, e.g. -- --data-dir d ingest f.txt")
    parser.add_argument("--trim", action="store_true", help="call malloc_trim(0) at each mark (after measuring)")
    parser.add_argument("hopgraph_args", nargs=argparse.REMAINDER, help="hopgraph's arguments, after --")
    args = parser.parse_args()
    log = PartLog(args.trim)
    import kg.pipeline.corpus as corpus
    import kg.pipeline.document as document
    import kg.pipeline.ingest as ingest
    import kg.pipeline.prepare as prepare

    parts = iter(range(10 ** 6))
    prepare.prepare_document = _marked(log, prepare.prepare_document, lambda: f"before part {next(parts)}")
    document.prepare_document = prepare.prepare_document  # imported by name there
    document.link_similar = _marked(log, corpus.link_similar, "link_similar")
    ingest.write_topics = _marked(log, corpus.write_topics, "write_topics")
    from hopgraph.cli import main as hopgraph

    sys.argv = ["hopgraph"] + [a for a in args.hopgraph_args if a != "--"]
    try:
        hopgraph()
    except SystemExit:
        pass
    finally:
        log.mark("end")


if __name__ == "__main__":
    main()
