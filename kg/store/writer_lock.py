"""One writer per data dir: `ingest`, `generate`, `dedup`, `build` and
`remove` hold <data_dir>/writer.lock for the whole run. A second writing run
stops at once with one line naming the holder (pid and command), or with
--wait queues behind it. Readers (`stats`, `audit`, `export`, `db shell`)
never take it. The lock is an flock: the kernel drops it when the holder
exits, however it exits (SIGKILL included), so a stale lock cannot block
the next run."""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path

from kg.errors import HopgraphError

LOCK_NAME = "writer.lock"


class DataDirBusy(HopgraphError):
    """Another run holds the writer lock of the data dir."""


class WriterLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = Path(data_dir) / LOCK_NAME
        self._fh = None

    def acquire(self, wait: bool = False, on_wait=None) -> None:
        """Take the lock; raise DataDirBusy, or with `wait` block (calling on_wait(holder) once)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+", encoding="utf-8")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = self.holder()
            if not wait:
                fh.close()
                raise DataDirBusy(f"another hopgraph run is writing to {self.path.parent}: {holder}; "
                                  "wait for it to end, or add --wait to queue behind it") from None
            if on_wait is not None:
                on_wait(holder)
            started = time.monotonic()
            fcntl.flock(fh, fcntl.LOCK_EX)
            self.waited = time.monotonic() - started
        fh.seek(0)
        fh.truncate()
        fh.write(f"{os.getpid()}\n{' '.join(['hopgraph', *sys.argv[1:]])}\n")
        fh.flush()
        self._fh = fh

    def holder(self) -> str:
        """'pid 123 (hopgraph ingest docs)', as the holder wrote it."""
        try:
            pid, _, command = self.path.read_text(encoding="utf-8").partition("\n")
        except OSError:
            return "pid unknown"
        return f"pid {pid.strip() or 'unknown'} ({command.strip() or 'command unknown'})"

    def release(self) -> None:
        if self._fh is not None:
            fh, self._fh = self._fh, None
            fh.seek(0)
            fh.truncate()
            fcntl.flock(fh, fcntl.LOCK_UN)
            fh.close()

    @property
    def held(self) -> bool:
        return self._fh is not None
