"""Parsing the next file in another process while this one embeds."""

from __future__ import annotations

from pathlib import Path


class Prefetcher:
    """Parses the next file in a separate process while this one embeds the
    current one: parsing (pymupdf, its table layout model) and embedding
    (torch) then share the machine instead of taking turns. A spawned
    process, not a fork: forking after torch has started its threads can hang.
    The process ends with its parent, even after a SIGKILL (a watchdog thread).
    """

    def __init__(self, assets_dir: Path, enabled: bool, reader_options: dict | None = None):
        self.assets_dir = assets_dir
        self.enabled = enabled
        self.reader_options = reader_options or {}
        self.pool = None
        self.futures: dict[Path, object] = {}

    def __enter__(self) -> "Prefetcher":
        if self.enabled:
            import multiprocessing
            import os
            from concurrent.futures import ProcessPoolExecutor

            from kg.ingest.pdf.workers import die_with_parent

            self.pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=die_with_parent, initargs=(os.getpid(),))
        return self

    def start(self, path: Path) -> None:
        if self.pool is not None and path not in self.futures:
            from kg.ingest import read_document

            self.futures[path] = self.pool.submit(read_document, path, self.assets_dir, **self.reader_options)

    def get(self, path: Path):
        return self.futures.pop(path, None)

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
