"""Progress an ingest run prints when stderr is not a terminal (a log, CI,
nohup): tqdm's bar is off there, so a line per file as it finishes and,
every STATUS_SECONDS, a status line, so a long document is never 27 silent
minutes. On a terminal the tqdm bar does this and these lines stay quiet."""

from __future__ import annotations

import sys
import threading
import time

STATUS_SECONDS = 30.0


class Progress:
    def __init__(self, console, todo: list, interactive: bool | None = None,
                 status_seconds: float = STATUS_SECONDS) -> None:
        self.console = console
        self.total_files = len(todo)
        self.total_bytes = sum(size for _, _, size in todo)
        self.sizes = {str(path): size for path, _, size in todo}
        self.done_files = 0
        self.done_bytes = 0
        self.current: list[str] = []
        self.phase = ""  # after the files: what the run is finishing
        self.started = time.monotonic()
        self.quiet = sys.stderr.isatty() if interactive is None else interactive
        self.status_seconds = status_seconds
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Progress":
        if not self.quiet and self.total_files:
            self._thread = threading.Thread(target=self._status_loop, name="hopgraph-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def working_on(self, paths: list, phase: str = "") -> None:
        self.current = [str(p) for p in paths]
        self.phase = phase

    def finished(self, reports: list) -> None:
        """A line per finished file: its status, chunks and the run's count so far."""
        for report in reports:
            self.done_files += 1
            self.done_bytes += self.sizes.get(report.path, 0)
            if not self.quiet:
                detail = f"{report.chunks} chunks" if report.status in ("ingested", "pending", "partial") \
                    else report.reason
                status = "written" if report.status == "pending" else report.status  # keypoints follow
                self.console.print(f"[{self.done_files}/{self.total_files}] {status} {report.path}: "
                                   f"{detail} ({time.monotonic() - self.started:.0f} s)", highlight=False)

    def status_line(self) -> str:
        elapsed = time.monotonic() - self.started
        mb_done, mb_total = self.done_bytes / 1e6, self.total_bytes / 1e6
        working = ", ".join(self.current[:3]) + (f" and {len(self.current) - 3} more" if len(self.current) > 3 else "")
        return (f"ingest: {self.done_files}/{self.total_files} files, {mb_done:.2f}/{mb_total:.2f} MB, "
                f"{elapsed:.0f} s" + (f"; working on {working}" if working else "")
                + (f"; {self.phase}" if self.phase else ""))

    def _status_loop(self) -> None:
        while not self._stop.wait(self.status_seconds):
            self.console.print(self.status_line(), highlight=False)
