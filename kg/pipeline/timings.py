"""Seconds and items per ingest stage, for the run manifest and `--profile`.

The stages overlap on purpose (the LLM thread waits while the main thread
embeds; the next file is parsed meanwhile), so they do not add up to the
wall time: each is the time that stage's own work took, wherever it ran.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Display order; a stage with no time recorded is left out.
STAGES = ("parse", "tables", "chunk", "embed", "entities", "model load", "store writes", "llm", "knn", "topics")


class StageTimes:
    """Thread-safe accumulator: `with times.stage("embed", items=n): ...` or `times.add(...)`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.seconds: dict[str, float] = {}
        self.items: dict[str, int] = {}

    def add(self, stage: str, seconds: float, items: int = 0) -> None:
        with self._lock:
            self.seconds[stage] = self.seconds.get(stage, 0.0) + seconds
            self.items[stage] = self.items.get(stage, 0) + int(items)

    def add_items(self, stage: str, items: int) -> None:
        self.add(stage, 0.0, items)

    @contextmanager
    def stage(self, stage: str, items: int = 0) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.add(stage, time.perf_counter() - t0, items)

    def merge(self, other: dict[str, dict[str, float]]) -> None:
        """Add figures recorded elsewhere (a Ray worker's, as to_dict() gave them)."""
        for stage, row in other.items():
            self.add(stage, float(row.get("seconds", 0.0)), int(row.get("items", 0)))

    def to_dict(self) -> dict[str, dict[str, float]]:
        order = [s for s in STAGES if s in self.seconds] + sorted(s for s in self.seconds if s not in STAGES)
        return {s: {"seconds": round(self.seconds[s], 3), "items": self.items.get(s, 0)} for s in order}

    def table(self, wall: float | None = None) -> str:
        """The `--profile` table: seconds, items, and items per second per stage."""
        lines = [f"{'stage':<14}{'seconds':>9}{'items':>8}{'items/s':>9}"]
        for stage, row in self.to_dict().items():
            rate = row["items"] / row["seconds"] if row["seconds"] > 0 and row["items"] else 0.0
            lines.append(f"{stage:<14}{row['seconds']:9.2f}{row['items']:8d}{rate:9.1f}")
        if wall is not None:
            lines.append(f"{'wall':<14}{wall:9.2f}   (stages overlap: the LLM and the next parse run beside the rest)")
        return "\n".join(lines)


class TimedStore:
    """The store with its writes timed as "store writes" (reads and the rest pass through)."""

    def __init__(self, store: Any, times: StageTimes) -> None:
        self._store = store
        self._times = times

    def write(self, name: str, rows: list, *args: Any, **kwargs: Any) -> Any:
        with self._times.stage("store writes", items=len(rows)):
            return self._store.write(name, rows, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)
