"""Helper processes that end with the process that started them.

Every worker hopgraph spawns (the parse prefetcher, PDF page workers, the
entity process) gets die_with_parent as its initializer: a watchdog thread
exits the worker as soon as its parent is gone, even after a SIGKILL that
runs no cleanup. Kept apart from the readers so that starting a worker does
not import pymupdf into the process that starts it.
"""

from __future__ import annotations

import os
import threading
import time

WATCHDOG_SECONDS = 0.5


def die_with_parent(parent_pid: int) -> None:
    """Worker initializer: exit as soon as the parent process is gone."""
    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(WATCHDOG_SECONDS)

    threading.Thread(target=watch, name="hopgraph-parent-watchdog", daemon=True).start()
