"""EmbeddedServer.state(): a server still replaying its data is 'loading', not 'down'.

A large data dir on a busy machine took 30.3 s to load; a start that took that
server for dead killed it. These tests speak the Redis protocol on the data dir's
own socket, as a loading FalkorDB server does, so the classification is checked
without needing a graph big enough to load slowly.
"""

from __future__ import annotations

import socket
import threading

from kg.store.falkor import EmbeddedServer


HELLO_REPLY = b"%1\r\n$5\r\nproto\r\n:3\r\n"  # the RESP3 handshake a redis client opens with


def _serve(path: str, reply: bytes) -> socket.socket:
    """A unix-socket server that answers PING with `reply`, the client's handshake (HELLO) as
    a real server does even while loading, and anything else (CLIENT SETINFO) with +OK."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(path)
    sock.listen(4)

    def loop() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            with conn:
                while data := conn.recv(4096):
                    command = data.upper()
                    answer = reply if b"PING" in command else HELLO_REPLY if b"HELLO" in command else b"+OK\r\n"
                    conn.sendall(answer)

    threading.Thread(target=loop, daemon=True).start()
    return sock


def test_a_server_replaying_its_data_is_loading(tmp_path):
    server = EmbeddedServer(tmp_path)
    sock = _serve(str(server.socket_path), b"-LOADING Redis is loading the dataset in memory\r\n")
    try:
        assert server.state() == "loading"
        assert not server.ping()  # not usable yet: queries would fail
    finally:
        sock.close()


def test_a_server_answering_pong_is_up(tmp_path):
    server = EmbeddedServer(tmp_path)
    sock = _serve(str(server.socket_path), b"+PONG\r\n")
    try:
        assert server.state() == "up"
    finally:
        sock.close()


def test_no_socket_or_a_dead_one_is_down(tmp_path):
    server = EmbeddedServer(tmp_path)
    assert server.state() == "down"
    sock = _serve(str(server.socket_path), b"")
    sock.close()  # the socket file stays, nobody listens: a crashed server
    assert server.state() == "down"
