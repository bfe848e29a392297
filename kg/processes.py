"""Helper processes that end with the process that started them.

Every worker hopgraph spawns (the parse prefetcher, PDF page workers, the
entity process) gets die_with_parent as its initializer: a watchdog thread
exits the worker as soon as its parent is gone, even after a SIGKILL that
runs no cleanup. Kept apart from the readers so that starting a worker does
not import pymupdf into the process that starts it.
"""

from __future__ import annotations

import os
import signal
import threading
import time

WATCHDOG_SECONDS = 0.5


def die_with_parent(parent_pid: int) -> None:
    """Worker initializer: exit as soon as the parent process is gone.

    A Ctrl-C in the terminal reaches every process of its group; a worker
    ignores it (no traceback per worker): the parent stops the run and the
    worker ends with it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    def watch() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(1)
            time.sleep(WATCHDOG_SECONDS)

    threading.Thread(target=watch, name="hopgraph-parent-watchdog", daemon=True).start()


def interrupted(exc: BaseException | None) -> bool:
    """Ctrl-C or SIGTERM (hopgraph raises a BaseException that is no Exception), not a failure."""
    return exc is not None and not isinstance(exc, Exception)


def stop_pool(pool, exc: BaseException | None = None) -> None:
    """Shut a process pool down: after its work normally, at once when the run was interrupted
    (its workers are ended instead of finishing a parse nobody will read)."""
    if interrupted(exc):
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
    else:
        pool.shutdown(wait=True, cancel_futures=True)
