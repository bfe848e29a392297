"""Handing memory that a run has freed back to the system, between the parts of a long run.

glibc's malloc keeps what is freed inside its heap for later allocations and
gives it back only from the heap's top. A long text's parts each allocate and
free a few hundred MB (torch's activations, numpy batches, spaCy's docs, the
rows of a write), and the long-lived objects made in between (new words in
spaCy's vocabulary, the document's entity ids) land above those holes, so the
top is never free. The heap then grew part after part while what it held in
use stayed flat: 2 MB of PEP text in 200,000-character parts, main process
before parts 0-3: RSS 783, 1,016, 1,117, 1,250 MB, malloc in use 260, 286,
288, 289 MB, malloc free (kept, resident) 35, 142, 237, 373 MB
(bench/records/memory_2026-11-25b.md). malloc_trim(0) gives every
whole free page back (also in the middle of the heap, since glibc 2.8);
what it costs is a walk over the heap's free lists, a few milliseconds.

Elsewhere (macOS, musl) there is no malloc_trim and nothing is done.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable
from functools import lru_cache


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None where the C library has none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # musl and other C libraries without it
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_freed_memory() -> bool:
    """Give the pages malloc holds free back to the system; True when some were given back.

    Called after each part of a long document, each group of files and each
    corpus step, so the next one starts from what is in use, not from the
    largest heap any earlier one needed."""
    trim = _malloc_trim()
    return bool(trim(0)) if trim is not None else False
