"""A scripted OpenAI-compatible chat server for tests and benchmarks.

Runs on 127.0.0.1 (a free port) in a background thread. Every request to
POST /v1/chat/completions is recorded, then answered by the next scripted
behaviour in the queue, or, when the queue is empty, by `responder(body)`.

    with ScriptedLLMServer() as server:
        server.script(rate_limited(retry_after=0.3), ok({"keypoints": ["A is B."]}))
        server.responder = lambda body: ok({"keypoints": []})
        client = LLMClient(config, base_url=server.base_url, ...)

A responder may return a Behaviour, a str (reply content) or a dict/list
(JSON-encoded as the reply content).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Behaviour:
    """How the server answers one request."""

    kind: str  # ok | status | hang
    content: str | None = None
    refusal: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    error: dict[str, Any] | None = None
    seconds: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    body: Any = None  # with kind "status": the whole response body, as a server sent it


def _as_text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content)


def ok(content: Any, prompt_tokens: int | None = None, completion_tokens: int | None = None) -> Behaviour:
    """A normal completion; dict/list content is JSON-encoded."""
    return Behaviour("ok", content=_as_text(content), prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def fenced(content: Any, before: str = "Here is the JSON:\n", after: str = "\nHope this helps.") -> Behaviour:
    """JSON inside a ```json fence with prose around it."""
    return ok(f"{before}```json\n{_as_text(content)}\n```{after}")


def text_around(content: Any) -> Behaviour:
    """JSON embedded in running text, no fence."""
    return ok(f"Sure! The answer is {_as_text(content)} -- let me know if you need more.")


def malformed(text: str = '{"keypoints": ["unterminated') -> Behaviour:
    return ok(text)


def refusal(
    text: str = "I'm sorry, I can't help with that.", prompt_tokens: int | None = None, completion_tokens: int | None = None
) -> Behaviour:
    return Behaviour("ok", content=None, refusal=text, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def empty() -> Behaviour:
    return Behaviour("ok", content="")


def status(code: int, message: str = "error", headers: dict[str, str] | None = None) -> Behaviour:
    err = {"message": message, "type": "server_error" if code >= 500 else "invalid_request_error", "code": None}
    return Behaviour("status", status=code, headers=headers or {}, error=err)


def raw(code: int, body: Any) -> Behaviour:
    """An error answered with exactly this body (servers differ in its shape)."""
    return Behaviour("status", status=code, body=body)


def rate_limited(retry_after: float | None = 1.0) -> Behaviour:
    headers = {"Retry-After": f"{retry_after:g}"} if retry_after is not None else {}
    return status(429, "Rate limit reached, slow down", headers)


def server_error(code: int = 500) -> Behaviour:
    return status(code, "The server had an error while processing your request")


def schema_unsupported() -> Behaviour:
    return status(400, "response_format json_schema is not supported by this model")


def json_mode_unsupported() -> Behaviour:
    return status(400, "response_format json_object is not supported")


def hang(seconds: float = 5.0) -> Behaviour:
    """Sleep (past the client's timeout), then answer; wakes early on shutdown."""
    return Behaviour("hang", content="{}", seconds=seconds)


@dataclass
class RecordedRequest:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]
    time: float

    @property
    def model(self) -> str | None:
        return self.body.get("model")

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body.get("messages", [])

    @property
    def has_image(self) -> bool:
        return any(
            isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
            for m in self.messages
        )

    @property
    def response_format_type(self) -> str | None:
        rf = self.body.get("response_format")
        return rf.get("type") if isinstance(rf, dict) else None

    @property
    def has_json_schema(self) -> bool:
        return self.response_format_type == "json_schema"


Responder = Callable[[dict[str, Any]], Any]


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # listen() backlog, fixed at construction. The default (5) drops the SYNs of
    # a burst of new connections, which the client retries only after ~1 s.
    request_queue_size = 256


class ScriptedLLMServer:
    """Context manager; see the module docstring.

    Attributes: base_url ("http://127.0.0.1:PORT/v1"), requests (list of
    RecordedRequest, in arrival order), responder, latency (seconds added to
    every chat reply), supports_json_schema / supports_json_object (when
    False, requests using that response_format get a 400 naming it, or
    `format_rejection` when set), supports_images (when False, requests with
    image parts get `image_rejection`, by default llama.cpp's 500).
    """

    def __init__(self, responder: Responder | None = None, latency: float = 0.0) -> None:
        self.responder: Responder | None = responder
        self.latency = latency
        self.supports_json_schema = True
        self.supports_json_object = True
        self.supports_images = True
        self.format_rejection: Behaviour | None = None
        self.image_rejection: Behaviour = raw(500, {"error": {
            "message": 'can only concatenate str (not "list") to str', "type": "internal_server_error",
            "param": None, "code": None}})
        self.requests: list[RecordedRequest] = []
        self._queue: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # Lifecycle -------------------------------------------------------------
    def start(self) -> ScriptedLLMServer:
        handler = _make_handler(self)
        self._httpd = _HTTPServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # Scripting -----------------------------------------------------------
    def script(self, *behaviours: Behaviour) -> None:
        """Queue behaviours; each answers one request, in order."""
        with self._lock:
            self._queue.extend(behaviours)

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()
            self._queue.clear()

    # Internals -----------------------------------------------------------
    def _next(self, body: dict[str, Any]) -> Behaviour:
        rf = body.get("response_format")
        kind = rf.get("type") if isinstance(rf, dict) else None
        if kind == "json_schema" and not self.supports_json_schema:
            return self.format_rejection or schema_unsupported()
        if kind == "json_object" and not self.supports_json_object:
            return self.format_rejection or json_mode_unsupported()
        if not self.supports_images and RecordedRequest("", body, {}, 0.0).has_image:
            return self.image_rejection
        with self._lock:
            if self._queue:
                return self._queue.popleft()
        if self.responder is None:
            return ok("{}")
        reply = self.responder(body)
        return reply if isinstance(reply, Behaviour) else ok(reply)

    def _record(self, path: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(path, body, headers, time.monotonic()))


def _completion(body: dict[str, Any], b: Behaviour) -> dict[str, Any]:
    prompt_tokens = b.prompt_tokens
    if prompt_tokens is None:
        prompt_tokens = max(1, len(json.dumps(body.get("messages", []))) // 4)
    completion_tokens = b.completion_tokens
    if completion_tokens is None:
        completion_tokens = max(1, len(b.content or b.refusal or "") // 4)
    return {
        "id": f"chatcmpl-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": b.content, "refusal": b.refusal},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _make_handler(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, like a real endpoint
        # Headers and body go out in two writes; with Nagle on, the client's
        # delayed ACK would add ~40 ms to every reply.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _send_json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode("utf-8")
            try:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout); nothing to do

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [{"id": "scripted", "object": "model", "owned_by": "tests"}]})
            else:
                self._send_json(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send_json(400, {"error": {"message": "request body is not JSON"}})
                return
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            server._record(self.path, body, {k.lower(): v for k, v in self.headers.items()})
            try:
                b = server._next(body)
            except Exception as exc:  # a broken responder shows up as a 500 with its message
                b = status(500, f"responder raised {type(exc).__name__}: {exc}")
            if server.latency:
                if server._stop.wait(server.latency):
                    return
            if b.kind == "hang":
                if server._stop.wait(b.seconds):
                    return
            if b.kind == "status":
                self._send_json(b.status, b.body if b.body is not None else {"error": b.error}, b.headers)
                return
            self._send_json(200, _completion(body, b))

    return Handler
