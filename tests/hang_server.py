"""Endpoints that fail the way deployments do: a server that accepts
connections and never answers (a stuck server or proxy), and a closed port."""

from __future__ import annotations

import socket
import threading


class HangingServer:
    """Accepts every connection on 127.0.0.1 and never sends a byte."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(64)
        self.port = self._sock.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._conns: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self._conns.append(conn)  # held open, never read or answered

    def __enter__(self) -> "HangingServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._sock.close()
        for conn in self._conns:
            conn.close()


def closed_port_url() -> str:
    """The URL of a port nothing listens on (bound, then released)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/v1"
