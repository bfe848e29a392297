"""A SQLite cache of successful LLM replies.

Every reply that validated is written and committed at once (WAL mode), so a
run killed with SIGKILL loses nothing it already paid for, and a re-run only
asks for what is missing. Failed or invalid replies are never stored: a retry
must get a fresh chance.

The key is the sha256 of the canonical JSON of everything that determines the
reply: model, messages (images included, as their data URLs), the request
parameters (temperature, response format kind, schema) and the prompt
version, so editing a prompt file invalidates exactly its entries.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_CACHE_PATH = Path(".hopgraph") / "llm_cache.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    model TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    content TEXT NOT NULL,
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    created_at REAL NOT NULL
)
"""


@dataclass(frozen=True)
class CachedReply:
    content: str
    tokens_in: int
    tokens_out: int


def cache_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any], prompt_version: str) -> str:
    """sha256 of the canonical JSON (sorted keys, no whitespace) of the request."""
    payload = {"model": model, "messages": messages, "params": params, "prompt_version": prompt_version}
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class LLMCache:
    """Replies by key. Safe to share between threads of one process; several
    processes may use the same file (SQLite locks, WAL lets readers run)."""

    def __init__(self, path: Path | str = DEFAULT_CACHE_PATH) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, timeout=30.0, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL: a commit survives the process being killed (it is in the
        # OS after write); only a power loss may drop the last commits.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)

    def get(self, key: str) -> CachedReply | None:
        with self._lock:
            row = self._db.execute(
                "SELECT content, tokens_in, tokens_out FROM replies WHERE key = ?", (key,)
            ).fetchone()
        return CachedReply(row[0], row[1], row[2]) if row else None

    def put(
        self,
        key: str,
        content: str,
        tokens_in: int,
        tokens_out: int,
        *,
        task: str = "",
        model: str = "",
        prompt_version: str = "",
    ) -> None:
        """Store and commit immediately (autocommit mode: one statement, one commit)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies"
                " (key, task, model, prompt_version, content, tokens_in, tokens_out, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (key, task, model, prompt_version, content, tokens_in, tokens_out, time.time()),
            )

    def delete(self, key: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM replies WHERE key = ?", (key,))

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM replies").fetchone()[0])

    def stats(self) -> dict[str, int]:
        """Entries per task, for `hopgraph status`-style reports."""
        with self._lock:
            rows = self._db.execute("SELECT task, count(*) FROM replies GROUP BY task").fetchall()
        return {task: n for task, n in rows}

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
