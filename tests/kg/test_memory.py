"""kg.memory: freed heap pages go back to the system (a process of its own, so its heap is the test's)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

_HEAP_AFTER_A_PART = textwrap.dedent("""
    import sys
    from kg.memory import release_freed_memory

    def rss_mb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2**20

    # A part's work: 300 MB in 48 KB blocks (under malloc's mmap threshold, so in its heap),
    # with a small object kept after every tenth block, as the vocabulary's new words are:
    # the heap's top is never free, so free() alone gives nothing back.
    work, kept = [], []
    for n in range(6400):
        work.append(b"w" * (48 * 1024))  # written, so resident
        if n % 10 == 0:
            kept.append(bytearray(600))
    del work
    before = rss_mb()
    released = release_freed_memory()
    print(before, rss_mb(), released)
""")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim: Linux only")
def test_memory_freed_by_a_part_goes_back_to_the_system():
    out = subprocess.run([sys.executable, "-c", _HEAP_AFTER_A_PART], capture_output=True, text=True,
                         check=True).stdout.split()
    before, after, released = float(out[0]), float(out[1]), out[2] == "True"
    assert before > 150, f"the freed blocks were not kept by malloc ({before:.0f} MB): the test shows nothing"
    assert released
    assert after < before / 2, f"RSS {before:.0f} -> {after:.0f} MB"


def test_nothing_to_give_back_is_harmless():
    from kg.memory import release_freed_memory

    release_freed_memory()
    assert release_freed_memory() in (True, False)
