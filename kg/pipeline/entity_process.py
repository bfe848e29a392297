"""spaCy in a process of its own, so the entities of one group of documents
are found on one core while this process embeds the next group on the other.

Measured on the 994 wiki files (2 cores): embedding and spaCy are the two
big stages and about the same size; with torch on one thread here and spaCy
beside it, they overlap instead of taking turns (kg.pipeline.groups). The
worker is spawned, not forked (torch's threads), and exits with its parent.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

_extractor: Any = None  # the worker's EntityExtractor


def _load(model: str, batch_size: int, reload_chars: int, parent_pid: int) -> None:
    global _extractor
    import sys

    # thinc imports torch when it is installed, only to offer torch layers; the
    # spaCy pipelines used here are thinc/numpy models. Not importing it takes
    # the worker's start from 1.9 s to 0.8 s of CPU that the other processes need.
    # A transformer pipeline (*_trf) does need it.
    if not model.endswith("_trf"):
        sys.modules.setdefault("torch", None)  # type: ignore[arg-type]
    from kg.processes import die_with_parent

    die_with_parent(parent_pid)  # first: a Ctrl-C during the model's import must not print a traceback here
    from kg.enrich.entities import EntityExtractor

    _extractor = EntityExtractor(model, batch_size, reload_chars)


def _started() -> None:
    """A first task: a pool spawns its worker on the first submit, and the model should load now."""


def _extract(texts: list[str]) -> tuple[list[list[Any]], float]:
    t0 = time.perf_counter()
    found = _extractor.extract_many(texts)
    return found, time.perf_counter() - t0


class EntityProcess:
    """`submit(texts)` gives a Future of (mentions per text, seconds spent).
    The worker starts and loads its model at once, beside this process's own
    model loads (so its load time is not in the "model load" stage: it only
    shows if the first group has to wait for it)."""

    def __init__(self, model: str, batch_size: int, reload_chars: int = 0) -> None:
        self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"), initializer=_load,
                                         initargs=(model, batch_size, reload_chars, os.getpid()))
        self._pool.submit(_started)

    def submit(self, texts: list[str]) -> Future:
        return self._pool.submit(_extract, texts)

    def close(self, exc: BaseException | None = None) -> None:
        """After its work, or at once when `exc` is an interrupt (kg.processes.stop_pool)."""
        from kg.processes import stop_pool

        stop_pool(self._pool, exc)

    def __enter__(self) -> "EntityProcess":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.close(exc)
