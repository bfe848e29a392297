"""Stops an on-demand FalkorDB server whose hopgraph processes are all gone.

The server runs in its own session (a Ctrl-C in the terminal must not kill
it mid-write), so nothing stops it when the hopgraph process that started it
is killed (SIGKILL runs no cleanup). EmbeddedServer._launch starts this
watchdog beside it: every POLL_SECONDS it looks at the server's clients and,
once the launching process is dead and no other client has been connected
for two polls in a row, shuts the server down (its append-only log is
flushed first). A `hopgraph db start` server (the keep file) is left alone.
The watchdog exits with the server.

    python -m kg.store.watchdog SOCKET KEEP_FILE LAUNCHER_PID
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from pathlib import Path

POLL_SECONDS = 1.0
NAME = "hopgraph-watchdog"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch(socket_path: str, keep_file: Path, launcher: int) -> None:
    # The start lock (EmbeddedServer.lock_path): a client connects under it, so the
    # last look and the shutdown under it cannot miss a client that is just arriving.
    lock_path = keep_file.parent / "falkordb.lock"
    idle_polls = 0
    while True:
        time.sleep(POLL_SECONDS)
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            state = _look(socket_path, launcher, idle_polls, keep_file)
        if state is None:
            return
        idle_polls = state


def _look(socket_path: str, launcher: int, idle_polls: int, keep_file: Path) -> int | None:
    """The idle-poll count after one look, or None once the server is gone (or stopped now)."""
    import redis

    try:
        conn = redis.Redis(unix_socket_path=socket_path, client_name=NAME, socket_timeout=5)
        others = [c for c in conn.client_list() if c.get("name") != NAME]
    except (redis.ConnectionError, OSError):
        return None  # the server is gone
    except redis.RedisError:
        return idle_polls  # busy (loading its log): ask again
    idle_polls = idle_polls + 1 if not others and not _alive(launcher) else 0
    if idle_polls >= 2 and not keep_file.exists():
        try:
            conn.shutdown()
        except (redis.ConnectionError, OSError):
            pass
        return None
    conn.close()
    return idle_polls


if __name__ == "__main__":
    watch(sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]))
