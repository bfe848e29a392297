"""Parsing the next file while this one embeds."""

from __future__ import annotations

import time
from pathlib import Path


def timed_read(path: Path, assets_dir: Path, **options: int):
    """read_document (options: min_image_px, parse_workers) and the seconds it took: the "parse" stage."""
    from kg.ingest import read_document

    t0 = time.perf_counter()
    parsed = read_document(path, assets_dir, **options)
    return parsed, time.perf_counter() - t0


class Prefetcher:
    """Parses the next files beside the current one's embedding: parsing
    (pymupdf, its table layout model) and embedding (torch) then share the
    machine instead of taking turns. `get` gives a Future of (ParsedDocument,
    seconds).

    A process, not a thread: the Python part of a read (pass 2 of the PDF
    reader: figures, headings, reading order; all of a short file) held this
    process's GIL against the model load and the chunking, and a process
    ended the six PDFs' ingest about 1.3 s sooner. Spawned, not forked:
    forking after torch has started its threads can hang.
    """

    def __init__(self, assets_dir: Path, enabled: bool, **options: int):
        self.assets_dir = assets_dir
        self.options = options
        self.enabled = enabled
        self.pool = None
        self.futures: dict[Path, object] = {}

    def __enter__(self) -> "Prefetcher":
        if self.enabled:
            import multiprocessing
            import os
            from concurrent.futures import ProcessPoolExecutor

            from kg.processes import die_with_parent

            self.pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=die_with_parent, initargs=(os.getpid(),))
        return self

    @property
    def busy(self) -> bool:
        """A parse is running beside us (torch should leave it a core)."""
        return any(not f.done() for f in self.futures.values())

    def start(self, path: Path) -> None:
        if self.pool is not None and path not in self.futures:
            self.futures[path] = self.pool.submit(timed_read, path, self.assets_dir, **self.options)

    def get(self, path: Path):
        return self.futures.pop(path, None)

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.pool is not None:
            from kg.processes import stop_pool

            stop_pool(self.pool, exc)
