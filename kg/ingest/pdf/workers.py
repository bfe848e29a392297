"""Pass 1 of the PDF reader across worker processes.

One pool per process, started on first use and reused for every document
(each worker pays for pymupdf's table model once). Workers are spawned, not
forked (forking after torch has started its threads can hang), and end with
their parent: each runs a watchdog thread that exits the worker when the
parent process is gone, even after a SIGKILL that runs no cleanup.
"""

from __future__ import annotations

import atexit
import math
import multiprocessing
import multiprocessing.util
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from collections.abc import Sequence
from pathlib import Path

import pymupdf

from kg.ingest.pdf.layout import collect_page
from kg.ingest.pdf.types import RawPage
from kg.processes import die_with_parent

MIN_PAGES_PER_WORKER = 2  # fewer pages than this per worker: not worth the hand-over
BATCHES_PER_WORKER = 2  # smaller batches even out pages of unequal cost

_pool: ProcessPoolExecutor | None = None
_pool_size = 0
_lock = threading.Lock()


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def page_pool(workers: int) -> ProcessPoolExecutor:
    """The shared pool, (re)started with `workers` processes."""
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size != workers:
            shutdown_pool()
            context = multiprocessing.get_context("spawn")
            _pool = ProcessPoolExecutor(workers, mp_context=context, initializer=die_with_parent,
                                        initargs=(os.getpid(),))
            _pool_size = workers
            # When this process is itself a multiprocessing worker (a prefetching
            # parser), it joins its live children before atexit handlers run:
            # shut the pool down first or that join waits forever.
            # (Priority above the 10 of the queues' own finalizers, which would close
            # the pipe that carries the workers' stop signal.)
            multiprocessing.util.Finalize(None, shutdown_pool, exitpriority=100)
        return _pool


def shutdown_pool() -> None:
    global _pool
    if _pool is not None:
        _pool.shutdown(wait=True, cancel_futures=True)
        _pool = None


atexit.register(shutdown_pool)


def page_batches(page_count: int, workers: int) -> list[list[int]]:
    """Contiguous runs of 0-based page numbers, about BATCHES_PER_WORKER per worker."""
    n = max(1, min(page_count, workers * BATCHES_PER_WORKER))
    size = math.ceil(page_count / n)
    return [list(range(start, min(start + size, page_count))) for start in range(0, page_count, size)]


def parse_pages(path: Path | str, pages: Sequence[int]) -> list[RawPage]:
    """Pass 1 for some pages (0-based numbers) of the PDF at path; a pure
    function of its arguments, so any process can run it."""
    with pymupdf.open(path) as doc:
        return [collect_page(doc[number]) for number in pages]


def collect_pages(path: Path, doc: pymupdf.Document, workers: int = 0) -> list[RawPage]:
    """Pass 1 of every page, in page order: in worker processes when the
    document has enough pages, else here on the open doc."""
    workers = workers or default_workers()
    used = min(workers, doc.page_count // MIN_PAGES_PER_WORKER)
    if used <= 1:
        return [collect_page(page) for page in doc]
    batches = page_batches(doc.page_count, used)
    try:
        pool = page_pool(workers)  # one size for every document: the pool is reused
        futures = [pool.submit(parse_pages, str(path), batch) for batch in batches]
        return [page for future in futures for page in future.result()]
    except BrokenProcessPool:
        # A worker died (out of memory, killed): this document still gets read, here.
        shutdown_pool()
        return [collect_page(page) for page in doc]
